"""``RedisState``: the router's records in Redis, shared by every process and machine that
routes through the same server (docs/router.md, "Shared state"). Needs redis-py
(``pip install "aisuite-like[redis]"``), imported on first use.

Each deployment's record is one JSON string. A transaction is optimistic (``WATCH`` the keys,
``MGET`` them, compute, ``MULTI`` / ``SET`` / ``EXEC``; run again if another process wrote a
watched key meanwhile), so the arithmetic is the same Python code as in memory
(``limits.py``). The steps are a sans-IO generator that the sync and the async driver perform
with redis-py's two clients.

When Redis cannot be reached (or answers an error), the call goes on with this process's own
records (a ``MemoryState``) and Redis is tried again after ``retry_after`` seconds; a warning
is logged, naming the server's host and port (never its password).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Generator, Sequence
from typing import Any, Optional, Union

from ..core.reading import loads_json
from ..core.redis_endpoint import import_redis, redis_endpoint
from .limits import Record, TransactionFn
from .state import MemoryState

__all__ = ["RedisState"]

_log = logging.getLogger("aisuite_like.router")

_TTL = 3600  # seconds a record outlives its last change (a longer cool-down extends it)
_MAX_RECORD = 4096  # bytes: a record is about 100; anything longer is not one of ours
#: The format of the records, part of their keys (``<prefix>v2:<alias>/<deployment>``): another
#: version of the library keeps its own records, so a rolling upgrade never has one read the
#: other's.
RECORD_VERSION = 2
_MAX_CONFLICTS = 1000  # optimistic attempts before a transaction gives up (never seen)


class _Read:
    __slots__ = ("keys",)

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = keys


class _Write:
    __slots__ = ("values", "ttls")

    def __init__(self, values: dict[str, str], ttls: dict[str, int]) -> None:
        self.values = values
        self.ttls = ttls


_Op = Union[_Read, _Write]


def _record(value: Any) -> Optional[Record]:
    """A stored record of this version, or None: not one (another version's format, garbage,
    NaN, JSON nested deep, too long, wrong types)."""
    if not isinstance(value, (bytes, str)) or len(value) > _MAX_RECORD:
        return None
    try:
        data = loads_json(value)
    except (ValueError, UnicodeDecodeError):  # JSONDecodeError and JSONTooDeepError included
        return None
    if not isinstance(data, dict) or data.get("v") != RECORD_VERSION:
        return None
    return Record.load(data.get("r"))


def _stored(record: Record) -> str:
    return json.dumps({"v": RECORD_VERSION, "r": record.dump()}, separators=(",", ":"),
                      allow_nan=False)


def _transaction(keys: Sequence[str], fn: TransactionFn, now: float, where: str = ""
                 ) -> Generator[_Op, Any, Any]:
    """The steps of one transaction: read (the driver WATCHes and MGETs ``keys``), compute,
    write what changed (the driver answers False when a watched key changed meanwhile: the
    whole transaction runs again). A value that is not a record of this version is read as
    no record, with a warning, and overwritten."""
    for _ in range(_MAX_CONFLICTS):
        raw = yield _Read(keys)
        records = []
        spoiled = []
        for i, value in enumerate(raw):
            record = None if value is None else _record(value)
            if record is None:
                record = Record.new()
                if value is not None:
                    spoiled.append(i)
            records.append(record)
        changed, result = fn(records)
        for i in spoiled:
            _log.warning("router state at %s: the value of key %r is not a router record of "
                         "this version (format %d); read as no record and overwritten",
                         where, keys[i], RECORD_VERSION)
        changed = sorted({*changed, *spoiled})
        values = {keys[i]: _stored(records[i]) for i in changed}
        ttls = {keys[i]: _TTL + max(int(records[i].cool - now), 0) for i in changed}
        if (yield _Write(values, ttls)):
            return result
    raise RuntimeError(f"router state: {_MAX_CONFLICTS} conflicting writes in a row")


class RedisState:
    """The router's records in Redis at ``url`` (``redis://[:password@]host:port/db``,
    ``rediss://`` for TLS), under keys starting with ``prefix``. ``timeout`` bounds each
    Redis operation (seconds); ``retry_after``: how long the router keeps to this process's
    own records after Redis failed. ``redis_options`` go to ``redis.Redis.from_url``."""

    def __init__(self, url: str, *, prefix: str = "aisuite_like:router:",
                 timeout: float = 1.0, retry_after: float = 5.0,
                 redis_options: Optional[dict[str, Any]] = None) -> None:
        endpoint = redis_endpoint(url, timeout=timeout, seconds={"retry_after": retry_after},
                                  redis_options=redis_options)
        self._url, self._where = endpoint.url, endpoint.where
        self._prefix = prefix
        self._options = endpoint.options
        self._retry_after = float(retry_after)
        self._down_until = 0.0
        self._local = MemoryState()
        self._lock = threading.Lock()
        self._sync: Any = None
        self._async: Any = None
        self._async_loop: Any = None

    def __repr__(self) -> str:  # never the password
        return f"RedisState({self._where!r})"

    # -- clients (made on first use) --

    @staticmethod
    def _redis() -> Any:
        return import_redis()

    def _sync_client(self) -> Any:
        if self._sync is None:
            with self._lock:
                if self._sync is None:
                    self._sync = self._redis().Redis.from_url(self._url, **self._options)
        return self._sync

    def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._async is None or self._async_loop is not loop:
            # redis.asyncio connections belong to the loop they were made on
            import redis.asyncio

            self._redis()
            self._async = redis.asyncio.Redis.from_url(self._url, **self._options)
            self._async_loop = loop
        return self._async

    # -- transactions --

    def _keys(self, keys: Sequence[str]) -> list[str]:
        prefix = f"{self._prefix}v{RECORD_VERSION}:"
        return [prefix + key for key in keys]

    def _failed(self, exc: BaseException) -> None:
        self._down_until = time.monotonic() + self._retry_after
        _log.warning("router state at %s failed (%s); routing on this process's own records "
                     "for %g s", self._where, type(exc).__name__, self._retry_after)

    def transact(self, keys: Sequence[str], fn: TransactionFn) -> Any:
        if time.monotonic() < self._down_until:
            return self._local.transact(keys, fn)
        redis = self._redis()
        try:
            client = self._sync_client()
            with client.pipeline() as pipe:
                steps = _transaction(self._keys(keys), fn, time.time(), self._where)
                op = next(steps)
                while True:
                    if isinstance(op, _Read):
                        pipe.watch(*op.keys)
                        reply: Any = pipe.mget(op.keys)
                    elif not op.values:
                        pipe.unwatch()
                        reply = True
                    else:
                        pipe.multi()
                        for key, value in op.values.items():
                            pipe.set(key, value, ex=op.ttls[key])
                        try:
                            pipe.execute()
                            reply = True
                        except redis.WatchError:
                            reply = False
                    op = steps.send(reply)
        except StopIteration as done:
            return done.value
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
            return self._local.transact(keys, fn)

    async def atransact(self, keys: Sequence[str], fn: TransactionFn) -> Any:
        if time.monotonic() < self._down_until:
            return self._local.transact(keys, fn)
        redis = self._redis()
        try:
            client = self._async_client()
            async with client.pipeline() as pipe:
                steps = _transaction(self._keys(keys), fn, time.time(), self._where)
                op = next(steps)
                while True:
                    if isinstance(op, _Read):
                        await pipe.watch(*op.keys)
                        reply: Any = await pipe.mget(op.keys)
                    elif not op.values:
                        await pipe.unwatch()
                        reply = True
                    else:
                        pipe.multi()
                        for key, value in op.values.items():
                            pipe.set(key, value, ex=op.ttls[key])
                        try:
                            await pipe.execute()
                            reply = True
                        except redis.WatchError:
                            reply = False
                    op = steps.send(reply)
        except StopIteration as done:
            return done.value
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
            return self._local.transact(keys, fn)

    def close(self) -> None:
        """Close the connections to Redis (the sync client's; an async client closes with
        its event loop)."""
        client, self._sync = self._sync, None
        if client is not None:
            client.close()
