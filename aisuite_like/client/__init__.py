"""The facade: ``Client`` / ``AsyncClient``, the preparation of a call, ``parse()`` and the
stream helpers (docs/client.md)."""

from __future__ import annotations

from .facade import AsyncClient, Client

__all__ = ["Client", "AsyncClient"]
