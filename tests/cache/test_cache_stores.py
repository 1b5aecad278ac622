"""The shared response-cache stores (docs/cache.md): a SQLite file shared by the processes of
one machine, and a real ``redis-server`` (Debian's package, started here in a temporary
directory on a free port; skipped, saying why, when the binary is missing) shared by clients
and processes. Hits skip the network across processes and clients (the loopback server counts
what it received); no API key ever reaches a store (its bytes are scanned)."""

from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.fault_server import FaultServer
from support.redis_server import RedisServer
from support.timing import scaled

import aisuite_like as ai
from aisuite_like.cache import RedisCache, SQLiteCache

KEY = "sk-store-secret-0123456789abcdefXYZ"
OTHER_KEY = "sk-store-other-9876543210fedcbaQRS"
USER = [{"role": "user", "content": "Hi"}]
WORKER = str(pathlib.Path(__file__).parents[1] / "support" / "cache_worker.py")


def config(url: str, key: str = KEY) -> dict[str, Any]:
    return {"openai": {"base_url": url + "/v1", "api_key": key, "max_retries": 0}}


def worker(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, WORKER, *args], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def store_bytes(path: pathlib.Path) -> bytes:
    """Every byte of the database and its write-ahead log."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


# --- SQLite ----------------------------------------------------------------------------------


def test_sqlite_hits_skip_the_network_across_processes(
        server: FaultServer, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "cache.db"
    first = worker("sqlite", str(path), server.url, KEY, "Hi")
    second = worker("sqlite", str(path), server.url, OTHER_KEY, "Hi")
    assert server.attempts == 1
    assert first == {"content": "hello world", "cache_hit": False}
    assert second == {"content": "hello world", "cache_hit": True}
    with SQLiteCache(path) as cache:  # and this process sees the same entry
        client = ai.Client(config(server.url), cache=cache)
        assert client.chat.completions.create(model="openai:gpt-4o", messages=USER).cache_hit
        assert len(cache) == 1
    assert server.attempts == 1
    data = store_bytes(path)
    assert b"hello world" in data
    assert KEY.encode() not in data and OTHER_KEY.encode() not in data


def test_sqlite_is_safe_under_concurrent_writers(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "cache.db"
    procs = [subprocess.Popen([sys.executable, WORKER, "fill", str(path), f"w{n}", "150"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-3000:]
        assert json.loads(out) == {"missing": []}
    with SQLiteCache(path) as cache:
        assert len(cache) == 600
        assert all(cache.get(f"w{n}-{i}") == f"value-w{n}-{i}".encode()
                   for n in range(4) for i in range(150))


def test_sqlite_entries_expire_by_wall_clock_and_can_be_removed(tmp_path: pathlib.Path
                                                                ) -> None:
    with SQLiteCache(tmp_path / "c.db") as cache:
        cache.set("a", b"1", 0.2)
        cache.set("b", b"2", None)
        assert (cache.get("a"), cache.get("b")) == (b"1", b"2")
        time.sleep(0.3)
        assert cache.get("a") is None and len(cache) == 1
        cache.delete("b")
        assert cache.get("b") is None
        cache.set("c", b"3", None)
        cache.clear()
        assert len(cache) == 0


def test_sqlite_cache_serves_the_async_client(server: FaultServer,
                                              tmp_path: pathlib.Path) -> None:
    async def run() -> list[bool]:
        with SQLiteCache(tmp_path / "c.db") as cache:
            async with ai.AsyncClient(config(server.url), cache=cache) as client:
                out = []
                for _ in range(2):
                    r = await client.chat.completions.create(model="openai:gpt-4o",
                                                             messages=USER)
                    out.append(r.cache_hit)
                return out

    assert asyncio.run(run()) == [False, True]
    assert server.attempts == 1


def test_an_unopenable_sqlite_path_fails_at_construction(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ai.ConfigurationError, match="missing-dir' does not exist"):
        SQLiteCache(tmp_path / "missing-dir" / "c.db")


@pytest.mark.parametrize("case", ["missing directory", "a directory", "corrupt file"])
def test_a_bad_sqlite_path_names_the_path_and_the_cause(tmp_path: pathlib.Path,
                                                        case: str) -> None:
    import sqlite3

    if case == "missing directory":
        path, cause = tmp_path / "nowhere" / "c.db", "does not exist; create it first"
    elif case == "a directory":
        path, cause = tmp_path, "it is a directory"
    elif case == "corrupt file":
        path = tmp_path / "c.db"
        path.write_bytes(b"not a database at all " * 200)
        cause = "not an SQLite database, or it is damaged"
    with pytest.raises(ai.ConfigurationError, match=cause) as caught:
        SQLiteCache(path)
    assert str(path).rstrip("/") in str(caught.value)
    assert isinstance(caught.value.__cause__, sqlite3.Error)


def test_the_sqlite_files_are_the_owners_only(tmp_path: pathlib.Path) -> None:
    """They hold answers to prompts: mode 0600 for the database and its -wal / -shm files,
    whatever the umask."""
    import os

    old = os.umask(0o022)
    try:
        with SQLiteCache(tmp_path / "c.db") as cache:
            cache.set("k", b"v", None)
            files = sorted(tmp_path.iterdir())
            assert [f.name for f in files] == ["c.db", "c.db-shm", "c.db-wal"]
            assert {f.name: f.stat().st_mode & 0o777 for f in files} == \
                {"c.db": 0o600, "c.db-shm": 0o600, "c.db-wal": 0o600}
    finally:
        os.umask(old)


# --- Redis -----------------------------------------------------------------------------------

PASSWORD = "redis-pass-0123456789abcdef"


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer(password=PASSWORD) as s:
        yield s


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    yield redis_server.url
    import redis

    redis.Redis.from_url(redis_server.url).flushdb()


def test_redis_hits_skip_the_network_across_clients_and_processes(
        server: FaultServer, redis_url: str) -> None:
    a = ai.Client(config(server.url), cache=RedisCache(redis_url))
    b = ai.Client(config(server.url, OTHER_KEY), cache=RedisCache(redis_url))
    first = a.chat.completions.create(model="openai:gpt-4o", messages=USER)
    second = b.chat.completions.create(model="openai:gpt-4o", messages=USER)
    elsewhere = worker("redis", redis_url, server.url, OTHER_KEY, "Hi")
    assert server.attempts == 1
    assert first.cache_hit is False and second.cache_hit is True
    assert second.usage is not None and second.usage.cost == 0.0
    assert elsewhere == {"content": "hello world", "cache_hit": True}

    async def run() -> Any:
        async with ai.AsyncClient(config(server.url), cache=RedisCache(redis_url)) as c:
            stream = await c.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                     stream=True)
            return await stream.get_final_response()

    final = asyncio.run(run())
    assert final.cache_hit and final.content == "hello world" and server.attempts == 1


def test_no_key_in_the_redis_store(server: FaultServer, redis_url: str) -> None:
    import redis

    cache = RedisCache(redis_url)
    client = ai.Client(config(server.url), cache=cache)
    for text in ("Hi", "Hello", "Hey"):
        client.chat.completions.create(model="openai:gpt-4o",
                                       messages=[{"role": "user", "content": text}])
    raw = redis.Redis.from_url(redis_url)
    names = raw.keys("*")
    assert len(names) == 3 and all(n.startswith(b"aisuite_like:cache:") for n in names)
    everything = b"".join(names) + b"".join(raw.get(n) or b"" for n in names)
    assert b"hello world" in everything
    for secret in (KEY, PASSWORD):
        assert secret.encode() not in everything
    assert PASSWORD not in repr(cache) and "127.0.0.1" in repr(cache)


def test_redis_entries_expire_for_every_client_and_clear_keeps_other_keys(
        server: FaultServer, redis_url: str) -> None:
    import redis

    raw = redis.Redis.from_url(redis_url)
    raw.set("someone-else", b"kept")
    cache = RedisCache(redis_url, prefix="app1:")
    client = ai.Client(config(server.url), cache=cache, cache_ttl=0.5)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    (name,) = raw.keys("app1:*")
    assert 0 < raw.pttl(name) <= 500
    other = ai.Client(config(server.url), cache=RedisCache(redis_url, prefix="app1:"))
    assert other.chat.completions.create(model="openai:gpt-4o", messages=USER).cache_hit
    time.sleep(0.7)
    assert other.chat.completions.create(model="openai:gpt-4o",
                                         messages=USER).cache_hit is False
    assert server.attempts == 2
    cache.clear()
    assert raw.keys("app1:*") == [] and raw.get("someone-else") == b"kept"


def test_a_redis_server_that_is_gone_leaves_calls_uncached_and_bounded(
        server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    with RedisServer(password=PASSWORD) as gone:
        cache = RedisCache(gone.url, timeout=scaled(1.0))
        client = ai.Client(config(server.url), cache=cache)
        client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        assert client.chat.completions.create(model="openai:gpt-4o", messages=USER).cache_hit
        gone.stop()
        with caplog.at_level(logging.WARNING, logger="aisuite_like.cache"):
            started = time.monotonic()
            first = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
            second = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
            elapsed = time.monotonic() - started
    assert first.content == second.content == "hello world"
    assert not first.cache_hit and not second.cache_hit and server.attempts == 3
    assert elapsed < scaled(10)
    failures = [r for r in caplog.records if r.name == "aisuite_like.cache"]
    assert len(failures) == 1  # then left alone for failure_pause seconds
    assert "calls go uncached" in caplog.text and PASSWORD not in caplog.text
