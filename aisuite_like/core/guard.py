"""The offline guard of ``testing.block_real_requests()``: its state and its error, defined
below both the client (which checks it) and the testing kit (which sets it)."""

from __future__ import annotations

from .errors import AisuiteLikeError

__all__ = ["RealRequestBlockedError", "BLOCK_REAL_REQUESTS"]

#: The state of ``testing.block_real_requests()``: a depth counter, so nested and threaded uses
#: work; the client reads it once per call.
BLOCK_REAL_REQUESTS = [0]


class RealRequestBlockedError(AisuiteLikeError, RuntimeError):
    """A real provider was called inside ``block_real_requests()``."""


# Its public home: tracebacks and reprs name it ``aisuite_like.testing.RealRequestBlockedError``.
RealRequestBlockedError.__module__ = "aisuite_like.testing"
