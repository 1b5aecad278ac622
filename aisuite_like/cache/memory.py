"""``MemoryCache``: the response cache of one process (docs/cache.md)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Optional

from .base import CacheBackend

__all__ = ["MemoryCache"]


class MemoryCache(CacheBackend):
    """Responses kept in this process's memory: at most ``maxsize`` entries, the least
    recently used one dropped first; an entry past its TTL is never returned (and is dropped
    when met). Thread-safe; shared by every client given it."""

    def __init__(self, maxsize: int = 1024) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be an int >= 1 (the most entries kept), got "
                             f"{maxsize!r}")
        self.maxsize = maxsize
        self._entries: OrderedDict[str, tuple[bytes, Optional[float]]] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryCache(maxsize={self.maxsize})"

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Optional[bytes]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            value, expires = entry
            if expires is not None and expires <= time.monotonic():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return value

    def set(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        expires = None if ttl is None else time.monotonic() + ttl
        with self._lock:
            self._entries[key] = (value, expires)
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def delete(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    # No I/O: the async client uses the same methods, without a worker thread.
    async def aget(self, key: str) -> Optional[bytes]:
        return self.get(key)

    async def aset(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        self.set(key, value, ttl)
