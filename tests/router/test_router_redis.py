"""``RedisState``: the router's buckets and cool-downs shared through a real ``redis-server``
(started by the tests in a temporary directory, tests/support/redis_server.py) between processes and
between routers (docs/router.md, "Shared state")."""

from __future__ import annotations

import asyncio
import logging
import os
import pathlib
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from support.fault_server import Reply
from support.redis_server import RedisServer
from _router_servers import KEYS, USER, Deployment, deployment

import aisuite_like as ai

pytest.importorskip("redis")
from aisuite_like.router import RedisState

WORKER = pathlib.Path(__file__).with_name("_router_worker.py")


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as server:
        yield server


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"  # each test its own records


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


def two_deployments(servers: list[Deployment], state: RedisState) -> ai.Router:
    specs = [deployment("openai", servers[0], "m-0", weight=1e9, max_retries=0),
             deployment("openai", servers[1], "m-1", weight=1, max_retries=0)]
    return ai.Router({"smart": specs}, state=state)


def test_ten_processes_together_keep_a_deployments_rpm(redis_server: RedisServer,
                                                      prefix: str,
                                                      servers: list[Deployment]) -> None:
    server = servers[0]
    rpm, workers, calls = 6, 10, 3
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(WORKER.parent), str(WORKER.parent.parent), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen(
        [sys.executable, str(WORKER), redis_server.url, prefix, server.url + "/v1",
         KEYS["openai"], str(rpm), str(calls)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env) for _ in range(workers)]
    for p in procs:  # every worker has imported what it needs
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    started = time.time()
    outputs = [p.communicate("go\n", timeout=120) for p in procs]  # all start together
    elapsed = time.time() - started
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outputs]
    served = sum(int(out.split()[0]) for out, _ in outputs)
    refused = sum(int(out.split()[1]) for out, _ in outputs)
    assert served + refused == workers * calls
    # the bucket holds 6 and refills one every 10 s: 30 calls in a few seconds get 6 (each
    # process alone would have sent all 3 of its own: 30)
    assert served == server.attempts
    assert rpm <= server.attempts <= rpm + int(max(elapsed, 0) / (60 / rpm)), \
        (server.attempts, elapsed)


def test_a_cool_down_is_seen_by_every_router_of_the_server(redis_server: RedisServer,
                                                          prefix: str,
                                                          servers: list[Deployment]) -> None:
    a, b = servers
    a.queue(Reply(429, {"retry-after": "30"}))
    first = two_deployments(servers, RedisState(redis_server.url, prefix=prefix))
    second = two_deployments(servers, RedisState(redis_server.url, prefix=prefix))
    with ai.Client(router=first) as c1, ai.Client(router=second) as c2:
        assert c1.chat.completions.create(model="smart", messages=USER).model == "m-1"
        for _ in range(5):  # another router (another process, as far as it knows)
            assert c2.chat.completions.create(model="smart", messages=USER).model == "m-1"
    assert a.attempts == 1 and b.attempts == 6


def test_header_limits_are_shared_and_async_calls_use_them(redis_server: RedisServer,
                                                          prefix: str,
                                                          servers: list[Deployment]) -> None:
    a, b = servers
    a.queue(Reply(200, {"x-ratelimit-remaining-requests": "0",
                        "x-ratelimit-reset-requests": "30s"}))
    first = two_deployments(servers, RedisState(redis_server.url, prefix=prefix))
    second = two_deployments(servers, RedisState(redis_server.url, prefix=prefix))
    with ai.Client(router=first) as client:
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"

    async def run() -> list[str]:
        async with ai.AsyncClient(router=second) as aclient:
            replies = await asyncio.gather(*[
                aclient.chat.completions.create(model="smart", messages=USER)
                for _ in range(8)])
            return [r.model for r in replies]

    assert asyncio.run(run()) == ["m-1"] * 8
    assert a.attempts == 1 and b.attempts == 8


def test_without_redis_the_router_goes_on_with_its_own_records(
        servers: list[Deployment], caplog: pytest.LogCaptureFixture) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    password = "redis-Pass-3c8e1f"
    state = RedisState(f"redis://:{password}@127.0.0.1:{port}/0", timeout=0.5,
                       retry_after=60)
    assert password not in repr(state)
    r = two_deployments(servers, state)
    with caplog.at_level(logging.WARNING, logger="aisuite_like.router"):
        with ai.Client(router=r) as client:
            assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"

        async def run() -> str:
            async with ai.AsyncClient(router=r) as aclient:
                return (await aclient.chat.completions.create(model="smart",
                                                              messages=USER)).model
        assert asyncio.run(run()) == "m-0"
    warnings = [rec.getMessage() for rec in caplog.records if rec.name == "aisuite_like.router"]
    assert len(warnings) == 1 and f"127.0.0.1:{port}" in warnings[0]
    assert password not in caplog.text


def test_a_bad_redis_url_is_refused() -> None:
    with pytest.raises(ai.ConfigurationError, match="Redis URL"):
        RedisState("localhost:6379")
    with pytest.raises(ai.ConfigurationError, match="timeout"):
        RedisState("redis://127.0.0.1:1/0", timeout=0)
