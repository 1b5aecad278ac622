"""The base of the response-cache backends (docs/cache.md).

A backend stores bytes under string keys, each entry with its own expiry: ``get`` / ``set`` /
``delete`` / ``clear`` (and ``aget`` / ``aset`` for the async client: by default the sync
ones on a worker thread). ``wrap`` is what the client calls (its ``ResponseCache``
protocol): the provider of a call, answering from this backend.

A backend that fails (a Redis server down, a locked database past its busy timeout) never
fails a call: the call goes on uncached, the failure is logged once (logger
``aisuite_like.cache``, warning, keys redacted), and the backend is left alone for
``failure_pause`` seconds before it is tried again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any, Optional

from ..core.secrets import redact
from ..providers.base import Provider
from .provider import CachedProvider, Flights

__all__ = ["CacheBackend"]

log = logging.getLogger("aisuite_like.cache")

_STATE_LOCK = threading.Lock()


class CacheBackend:
    """Base class of ``MemoryCache``, ``SQLiteCache``, ``RedisCache`` and your own backend:
    implement ``get``, ``set``, ``delete`` and ``clear`` (and ``aget`` / ``aset`` when the
    backend has real async I/O). Values are the JSON bytes of a response; ``ttl`` is in
    seconds (None: the entry never expires)."""

    #: Seconds a backend that failed is left alone (calls go uncached) before it is retried.
    failure_pause: float = 30.0

    # -- storage: what a backend implements

    def get(self, key: str) -> Optional[bytes]:
        """The value stored under ``key``, or None (absent or expired)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get()")

    def set(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        """Store ``value`` under ``key`` (replacing it), expiring after ``ttl`` seconds."""
        raise NotImplementedError(f"{type(self).__name__} does not implement set()")

    def delete(self, key: str) -> None:
        """Remove the entry of ``key`` (nothing happens when there is none)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement delete()")

    def clear(self) -> None:
        """Remove every entry of this cache."""
        raise NotImplementedError(f"{type(self).__name__} does not implement clear()")

    async def aget(self, key: str) -> Optional[bytes]:
        """``get`` for the async client (by default on a worker thread)."""
        return await asyncio.to_thread(self.get, key)

    async def aset(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        """``set`` for the async client (by default on a worker thread)."""
        await asyncio.to_thread(self.set, key, value, ttl)

    def close(self) -> None:
        """Release the backend's connections (the clients that use it do not close it)."""

    def __enter__(self) -> "CacheBackend":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- what the client calls

    def wrap(self, provider: Provider, *, provider_key: str, ttl: Optional[float]
             ) -> Provider:
        """``provider`` answering from this cache (the client's ``ResponseCache`` protocol):
        entries keyed by ``provider_key`` and the request, expiring after ``ttl`` seconds."""
        return CachedProvider(provider, self, provider_key, ttl)

    # -- used by CachedProvider: single flight, and failures that never fail a call

    def flights(self) -> Flights:
        """The calls in progress on this cache (shared by every client that uses it)."""
        flights: Optional[Flights] = self.__dict__.get("_flights")
        if flights is None:
            with _STATE_LOCK:
                flights = self.__dict__.setdefault("_flights", Flights())
        return flights

    def _paused(self) -> bool:
        until: float = self.__dict__.get("_paused_until", 0.0)
        return until > 0.0 and time.monotonic() < until

    def _failed(self, action: str, exc: Exception) -> None:
        self.__dict__["_paused_until"] = time.monotonic() + self.failure_pause
        log.warning("response cache %r: %s failed (%s: %s); calls go uncached for %gs",
                    self, action, type(exc).__name__, redact(str(exc)), self.failure_pause)

    def lookup(self, key: str) -> Optional[bytes]:
        """``get``, or None when the backend is failing (a miss)."""
        if self._paused():
            return None
        try:
            return _as_bytes(self.get(key))
        except Exception as exc:
            self._failed("get", exc)
            return None

    async def alookup(self, key: str) -> Optional[bytes]:
        if self._paused():
            return None
        try:
            return _as_bytes(await self.aget(key))
        except Exception as exc:
            self._failed("get", exc)
            return None

    def store(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        """``set``; a failing backend is logged and left alone (the entry is not stored)."""
        if self._paused():
            return
        try:
            self.set(key, value, ttl)
        except Exception as exc:
            self._failed("set", exc)

    async def astore(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        if self._paused():
            return
        try:
            await self.aset(key, value, ttl)
        except Exception as exc:
            self._failed("set", exc)


def _as_bytes(value: Any) -> Optional[bytes]:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"a cache backend's get() must return bytes or None, not "
                    f"{type(value).__name__}")
