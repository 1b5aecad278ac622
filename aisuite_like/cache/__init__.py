"""The response cache: ``ai.Client(cache=ai.cache.MemoryCache(), cache_ttl=None)``
(docs/cache.md).

- ``MemoryCache(maxsize=1024)``: this process's memory, least recently used dropped first.
- ``SQLiteCache(path)``: one SQLite file, shared by the processes of one machine.
- ``RedisCache(url)``: a Redis server, shared by many machines (extra ``[redis]``).
- ``CacheBackend``: the base class, for a backend of your own.

A hit sends nothing and returns a copy marked ``response.cache_hit`` whose ``usage.cost`` is
0; ``cache=False`` on a call bypasses the cache. Importing this package imports no redis.
"""

from __future__ import annotations

from .base import CacheBackend
from .keys import request_key
from .memory import MemoryCache
from .redis import RedisCache
from .sqlite import SQLiteCache

__all__ = ["MemoryCache", "SQLiteCache", "RedisCache", "CacheBackend", "request_key"]
