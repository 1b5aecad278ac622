"""``Stream`` / ``AsyncStream`` (public import path; defined in ``aisuite_like.core``)."""

from __future__ import annotations

from .core.streaming import (
    AsyncStream as AsyncStream,
    Stream as Stream,
)

__all__ = [
    "Stream", "AsyncStream",
]
