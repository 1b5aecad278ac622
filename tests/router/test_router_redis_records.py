"""Foreign router records in Redis (docs/router.md, "Shared state"): a record that is not this
version's shape (another version's format, garbage, NaN, JSON nested thousands deep, wrong
types) is untrusted input. It is treated as absent, overwritten with a good one, and a warning
names its key; a call on the alias is served, sync and async, with and without ``fallbacks=``
(an async call over a NaN record used to hang). Against the real ``redis-server`` the suite
starts (tests/support/redis_server.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from _router_servers import USER, Deployment, deployment
from support.redis_server import RedisServer
from support.timing import scaled

import aisuite_like as ai

redis = pytest.importorskip("redis")
from aisuite_like.router import RedisState  # noqa: E402

BAD = {
    "other-version-list": b"[1,2,3]",
    "other-version-object": b'{"v":99,"requests":{"level":1},"tokens":{}}',
    "garbage": b"\xff\xfe not json at all",
    "nan": b'[NaN,0,0,null,0,0,NaN,"",NaN,0]',
    "infinity": b'[null,0,0,null,0,0,Infinity,"",0,0]',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "wrong-types": b'["a",{},[],"b",null,true,"c",7,"d",-1]',
    "negative-samples": b"[null,0,0,null,0,0,0,\"\",0,-5]",
    "huge-why": json.dumps([None, 0, 0, None, 0, 0, 0, "x" * 100_000, 0, 0]).encode(),
    "empty": b"",
}


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as server:
        yield server


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


@pytest.fixture
def servers() -> Iterator[list[Deployment]]:
    made = [Deployment(), Deployment()]
    for server in made:
        server.__enter__()
    try:
        yield made
    finally:
        for server in made:
            server.__exit__(None, None, None)


def _router(servers: list[Deployment], url: str, prefix: str) -> ai.Router:
    specs = [deployment("openai", servers[0], "m-0", max_retries=0, rpm=1000),
             deployment("openai", servers[1], "m-1", max_retries=0, rpm=1000)]
    return ai.Router({"smart": specs}, state=RedisState(url, prefix=prefix))


def _spoil(url: str, prefix: str, value: bytes) -> list[bytes]:
    """Every router record under ``prefix`` replaced by ``value``; their keys."""
    client = redis.Redis.from_url(url)
    try:
        keys = sorted(client.scan_iter(match=prefix + "*"))
        assert keys, "the first call wrote no record"
        for key in keys:
            client.set(key, value)
        return keys
    finally:
        client.close()


def _values(url: str, keys: list[bytes]) -> list[Any]:
    client = redis.Redis.from_url(url)
    try:
        return [client.get(key) for key in keys]
    finally:
        client.close()


def _good(value: Any) -> bool:
    record = json.loads(value)
    numbers = [v for v in (record["r"] if isinstance(record, dict) else record)
               if isinstance(v, float)]
    return all(math.isfinite(v) for v in numbers)


@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_bad_record_is_absent_overwritten_and_warned_about(
        redis_server: RedisServer, prefix: str, servers: list[Deployment], bad: str,
        caplog: pytest.LogCaptureFixture) -> None:
    router = _router(servers, redis_server.url, prefix)
    with ai.Client(router=router) as client:
        client.chat.completions.create(model="smart", messages=USER)
        keys = _spoil(redis_server.url, prefix, BAD[bad])
        with caplog.at_level(logging.WARNING, logger="aisuite_like.router"):
            response = client.chat.completions.create(model="smart", messages=USER)
    assert response.model in ("m-0", "m-1")
    assert all(value != BAD[bad] and _good(value) for value in _values(redis_server.url, keys))
    warnings = [r.getMessage() for r in caplog.records if "not a router record" in
                r.getMessage()]
    assert warnings, [r.getMessage() for r in caplog.records]
    if BAD[bad]:  # the value itself is never logged
        assert all(BAD[bad][:20].decode("latin-1") not in text for text in warnings)


@pytest.mark.parametrize("bad", ["nan", "garbage", "deep", "other-version-object"])
def test_an_async_call_with_fallbacks_over_a_bad_record_is_served(
        redis_server: RedisServer, prefix: str, servers: list[Deployment], bad: str) -> None:
    router = _router(servers, redis_server.url, prefix)

    async def run() -> Any:
        async with ai.AsyncClient(router=router) as client:
            await client.chat.completions.create(model="smart", messages=USER)
            _spoil(redis_server.url, prefix, BAD[bad])
            return await asyncio.wait_for(client.chat.completions.create(
                model="smart", messages=USER, fallbacks=["test:echo"]), scaled(20))

    response = asyncio.run(run())
    assert response.model in ("m-0", "m-1")


def test_records_are_versioned_so_another_version_never_reads_them(
        redis_server: RedisServer, prefix: str, servers: list[Deployment]) -> None:
    """Another version of the library (an old process in a rolling upgrade) keeps its records
    under other keys: what this one writes is never read by it, and the other way round."""
    with ai.Client(router=_router(servers, redis_server.url, prefix)) as client:
        client.chat.completions.create(model="smart", messages=USER)
    client_ = redis.Redis.from_url(redis_server.url)
    try:
        keys = [key.decode() for key in client_.scan_iter(match=prefix + "*")]
        assert keys and all(key.startswith(prefix + "v2:") for key in keys), keys
        record = json.loads(client_.get(keys[0]))
        assert record["v"] == 2 and len(record["r"]) == 10
    finally:
        client_.close()
