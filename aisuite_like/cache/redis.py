"""``RedisCache``: a response cache on a Redis server, shared by many processes and machines
(docs/cache.md). Needs redis-py (extra ``[redis]``), imported when a ``RedisCache`` is made."""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import urlsplit

from ..core.errors import MissingDependencyError
from ..core.secrets import remember
from .base import CacheBackend

__all__ = ["RedisCache"]

_GLOB = str.maketrans({c: "\\" + c for c in "*?[]\\"})


def _shown(url: str) -> str:
    """``url`` without its user info (a password), for a repr."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<invalid url>"
    return f"{parts.scheme}://{host}{port}{parts.path}"


class RedisCache(CacheBackend):
    """Responses on the Redis server at ``url`` (``redis://[[user]:password@]host:port/db``,
    ``rediss://`` for TLS, ``unix://``), under keys ``prefix + <sha256>``; an entry's TTL is
    Redis's own (``SET ... PX``), so it expires for every client at once. Each command waits
    at most ``timeout`` seconds (connecting included) and a dropped connection is retried
    once; a server that does not answer leaves calls uncached (see ``failure_pause``).
    ``client`` uses a ``redis.Redis`` you made instead (a cluster, Sentinel, your own pool
    settings); it is yours to close. The async client's lookups run on a worker thread.
    Thread-safe (redis-py's connection pool)."""

    def __init__(self, url: str = "redis://localhost:6379/0", *,
                 prefix: str = "aisuite_like:cache:", timeout: float = 5.0,
                 client: Any = None) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        self.prefix = prefix
        self._url = url if client is None else f"client={type(client).__name__}"
        self._owned = client is None
        if client is None:
            if not isinstance(url, str):
                raise TypeError(f"url must be a str such as 'redis://localhost:6379/0', got "
                                f"{type(url).__name__}")
            try:
                import redis
                from redis.backoff import NoBackoff
                from redis.retry import Retry
            except ImportError:
                raise MissingDependencyError(
                    "RedisCache needs redis-py: pip install 'aisuite-like[redis]'") from None
            try:
                remember(urlsplit(url).password)  # never shown in a log or error
            except ValueError:
                pass
            client = redis.Redis.from_url(url, socket_timeout=timeout,
                                          socket_connect_timeout=timeout,
                                          retry=Retry(NoBackoff(), 1))
        self._client = client

    def __repr__(self) -> str:
        return f"RedisCache({_shown(self._url)!r})" if self._owned \
            else f"RedisCache({self._url})"

    def get(self, key: str) -> Optional[bytes]:
        value: Optional[bytes] = self._client.get(self.prefix + key)
        return value

    def set(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        if ttl is None:
            self._client.set(self.prefix + key, value)
        else:
            self._client.set(self.prefix + key, value, px=max(1, round(ttl * 1000)))

    def delete(self, key: str) -> None:
        self._client.delete(self.prefix + key)

    def clear(self) -> None:
        """Delete every key under ``prefix`` (never anything else on the server)."""
        batch: list[Any] = []
        for name in self._client.scan_iter(match=self.prefix.translate(_GLOB) + "*",
                                           count=500):
            batch.append(name)
            if len(batch) >= 500:
                self._client.delete(*batch)
                batch = []
        if batch:
            self._client.delete(*batch)

    def close(self) -> None:
        if self._owned:
            self._client.close()
