"""Decompression bombs (docs/reliability.md, "Reply size"): a gzip reply of about 1 MiB that
inflates to 1 GiB, from the loopback server, on every SSE family, both transports, sync and
async, as a whole reply and as a stream. Reading stops at ``max_reply_bytes`` (a reply) or
``max_event_bytes`` (one stream event) with ``APIResponseValidationError``, and the process
holds about the bound: tracemalloc's peak stays within a small multiple of it, never near the
inflated size. A compressed reply within the bounds reads as before."""

from __future__ import annotations

import asyncio
import gzip
import json
import tracemalloc
import zlib
from typing import Any

import pytest
from support.fault_server import FaultServer, Reply, success_body

import aisuite_like as ai

MIB = 1024 * 1024
USER = [{"role": "user", "content": "Hi"}]
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-5",
          "google": "google:gemini-2.5-flash"}


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """1 GiB of one unfinished SSE data line, gzip'd (about 1 MiB on the wire)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(MIB)
    parts = [packer.compress(b"data: ")]
    parts += [packer.compress(zeros) for _ in range(1024)]
    parts.append(packer.flush())
    data = b"".join(parts)
    assert len(data) < 2 * MIB
    return data


def _config(family: str, url: str, transport: str, **extra: Any) -> dict[str, Any]:
    base = url + "/v1" if family == "openai" else url
    return {family: {"base_url": base, "api_key": "sk-bomb-0123456789abcdef",
                     "max_retries": 0, "transport": transport, **extra}}


def _call(family: str, config: dict[str, Any], mode: str, stream: bool) -> Any:
    model = MODELS[family]
    if mode == "sync":
        with ai.Client(config) as client:
            if not stream:
                return client.chat.completions.create(model=model, messages=USER)
            return list(client.chat.completions.create(model=model, messages=USER,
                                                       stream=True))

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            if not stream:
                return await client.chat.completions.create(model=model, messages=USER)
            chunks = await client.chat.completions.create(model=model, messages=USER,
                                                          stream=True)
            return [chunk async for chunk in chunks]

    return asyncio.run(run())


def _peak_of(fn: Any) -> tuple[BaseException, int]:
    tracemalloc.start()
    try:
        with pytest.raises(ai.APIResponseValidationError) as caught:
            fn()
        return caught.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("stream", [False, True], ids=["reply", "stream"])
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("transport", ["sdk", "native"])
@pytest.mark.parametrize("family", sorted(MODELS))
def test_a_gzip_bomb_stops_at_the_bound_and_memory_stays_near_it(
        bomb: bytes, family: str, transport: str, mode: str, stream: bool) -> None:
    kind = "text/event-stream" if stream else "application/json"
    limit = 8 * MIB
    with FaultServer() as server:
        server.queue(Reply(200, {"content-encoding": "gzip", "content-type": kind}, bomb))
        config = _config(family, server.url, transport,
                         **{"max_event_bytes" if stream else "max_reply_bytes": limit})
        error, peak = _peak_of(lambda: _call(family, config, mode, stream))
        assert server.attempts == 1  # never retried
    setting = "max_event_bytes" if stream else "max_reply_bytes"
    assert setting in str(error) and str(limit) in str(error)
    assert peak < 8 * limit, f"peak {peak / MIB:.0f} MiB for a {limit / MIB:.0f} MiB bound"


@pytest.mark.parametrize("transport", ["sdk", "native"])
def test_the_default_bound_holds_a_gigabyte_bomb_to_tens_of_megabytes(
        bomb: bytes, transport: str) -> None:
    with FaultServer() as server:
        server.queue(Reply(200, {"content-encoding": "gzip"}, bomb))
        config = _config("openai", server.url, transport)
        error, peak = _peak_of(lambda: _call("openai", config, "sync", False))
    assert "max_reply_bytes" in str(error) and str(64 * MIB) in str(error)
    assert peak < 256 * MIB, f"peak {peak / MIB:.0f} MiB"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("transport", ["sdk", "native"])
@pytest.mark.parametrize("family", sorted(MODELS))
def test_a_compressed_reply_within_the_bound_reads_as_before(
        family: str, transport: str, mode: str) -> None:
    fmt = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}[family]
    body = gzip.compress(json.dumps(success_body(fmt, "hello world")).encode())
    with FaultServer() as server:
        server.queue(Reply(200, {"content-encoding": "gzip"}, body))
        config = _config(family, server.url, transport, max_reply_bytes=4096)
        response = _call(family, config, mode, False)
    assert response.choices[0].message.content == "hello world"


def test_bad_bounds_are_refused_when_the_client_is_made() -> None:
    for value in (0, -1, 1.5, True, "1"):
        with pytest.raises(ai.ConfigurationError, match="max_reply_bytes must be an int"):
            ai.Client({"openai": {"api_key": "sk-x", "max_reply_bytes": value}}
                      ).chat.completions.create(model="openai:gpt-4o", messages=USER)
