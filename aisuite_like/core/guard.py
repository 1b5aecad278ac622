"""The error of ``testing.block_real_requests()``, defined below both client.py (which raises
it) and testing.py (which exports it), so that neither module imports the other for it."""

from __future__ import annotations

from .errors import AisuiteLikeError

__all__ = ["RealRequestBlockedError"]


class RealRequestBlockedError(AisuiteLikeError, RuntimeError):
    """A real provider was called inside ``block_real_requests()``."""


# Its public home: tracebacks and reprs name it ``aisuite_like.testing.RealRequestBlockedError``.
RealRequestBlockedError.__module__ = "aisuite_like.testing"
