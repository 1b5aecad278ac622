"""Transport configuration on the wire, against the project's loopback fault server: a
provider talks only to its configured base_url whatever key it was built under; hosts and
placeholder keys in connection errors; google's continuation, aiohttp transport and headers."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from support.fault_server import FaultServer, Reply, Stream

import aisuite_like as ai
from aisuite_like.providers.registry import _USER
from aisuite_like.testing import FakeClock

USER = [{"role": "user", "content": "hi"}]
CLASSES = {
    "openai": "aisuite_like.providers.openai:OpenAIProvider",
    "anthropic": "aisuite_like.providers.anthropic:AnthropicProvider",
    "google": "aisuite_like.providers.google:GoogleProvider",
}
FORMATS = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}
KEY = "loc-Secret-7d1e3a5c9b2f"


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer) -> Iterator[None]:
    server.reset()
    yield
    for key in ("mylocal", "mylocal2"):
        _USER.pop(key, None)


def _base(family: str, server: FaultServer) -> str:
    return server.url + "/v1" if family == "openai" else server.url


def _sent_key(family: str, request: Any) -> str:
    headers = request.headers
    if family == "google":
        return str(headers["x-goog-api-key"])
    if "x-api-key" in headers:
        return str(headers["x-api-key"])
    return str(headers["authorization"]).removeprefix("Bearer ")


@pytest.mark.parametrize("family", list(CLASSES))
def test_registered_provider_talks_only_to_its_base_url(family: str,
                                                        server: FaultServer) -> None:
    ai.register_provider("mylocal", CLASSES[family])
    client = ai.Client({"mylocal": {"base_url": _base(family, server), "api_key": KEY,
                                    "retry_clock": FakeClock()}})
    resp = client.chat.completions.create(model="mylocal:some-model", messages=USER)
    assert resp.content == "hello world"
    assert server.attempts == 1
    request = server.requests[0]
    assert request.format == FORMATS[family] and _sent_key(family, request) == KEY


@pytest.mark.parametrize("family", list(CLASSES))
def test_provider_class_given_in_providers_uses_its_config(family: str,
                                                           server: FaultServer) -> None:
    import importlib

    module, _, name = CLASSES[family].partition(":")
    cls = getattr(importlib.import_module(module), name)
    client = ai.Client({"local": {"base_url": _base(family, server), "api_key": KEY}},
                       providers={"local": cls})
    assert client.chat.completions.create(model="local:m", messages=USER).content == \
        "hello world"
    assert _sent_key(family, server.requests[0]) == KEY


def test_compatible_service_with_a_base_url(server: FaultServer) -> None:
    client = ai.Client({"groq": {"base_url": server.url + "/v1", "api_key": KEY}})
    assert client.chat.completions.create(model="groq:llama", messages=USER).content
    assert server.requests[0].path == "/v1/chat/completions"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_ollama_placeholder_key_is_not_redacted() -> None:
    port = _free_port()
    client = ai.Client({"ollama": {"base_url": f"http://127.0.0.1:{port}/v1",
                                   "max_retries": 0}})
    with pytest.raises(ai.APIConnectionError) as info:
        client.chat.completions.create(model="ollama:llama3", messages=USER)
    text = str(info.value)
    assert "ollama" in text and "[REDACTED]" not in text
    assert f"127.0.0.1:{port}" in text


def test_configured_key_is_still_redacted_for_a_local_service(server: FaultServer) -> None:
    secret = "my-own-ollama-key-123"
    body = {"error": {"message": f"bad key {secret}", "type": "auth"}}
    server.queue(Reply(401, body=body))
    client = ai.Client({"ollama": {"base_url": server.url + "/v1", "api_key": secret}})
    with pytest.raises(ai.AuthenticationError) as info:
        client.chat.completions.create(model="ollama:llama3", messages=USER)
    assert secret not in str(info.value)


def test_max_retries_is_one_meaning_everywhere(server: FaultServer) -> None:
    for family in CLASSES:
        server.reset()
        server.queue(Reply(500), Reply(500), Reply(500))
        client = ai.Client({family: {"base_url": _base(family, server), "api_key": KEY,
                                     "max_retries": 3, "retry_clock": FakeClock()}})
        model = {"openai": "openai:m", "anthropic": "anthropic:m", "google": "google:m"}[family]
        assert client.chat.completions.create(model=model, messages=USER).content
        assert server.attempts == 4, family


@pytest.mark.parametrize("family", list(CLASSES))
@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_bad_retry_settings_are_configuration_errors(family: str, bad: Any) -> None:
    with pytest.raises(ai.ConfigurationError, match="max_retries"):
        ai.Client({family: {"api_key": KEY, "max_retries": bad}})._provider(family)
    if bad != 1.5:
        with pytest.raises(ai.ConfigurationError, match="max_concurrency"):
            ai.Client({family: {"api_key": KEY, "max_concurrency": bad}})._provider(family)


def test_google_retry_options_point_to_max_retries() -> None:
    with pytest.raises(ai.ConfigurationError, match="max_retries"):
        ai.Client({"google": {"api_key": KEY,
                              "retry_options": {"attempts": 3}}})._provider("google")


# --- google: continuation, timeouts, aiohttp ----------------------------------------------


def _gemini(parts: list[dict[str, Any]], finish: Any, token: Any = None,
            usage: int = 2) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    if token:
        cand["continuationToken"] = token
    return {"candidates": [cand], "responseId": "r1", "modelVersion": "gemini-x",
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": usage,
                              "totalTokenCount": 3 + usage}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_google_continuation_is_followed(mode: str, server: FaultServer) -> None:
    server.queue(Reply(body=_gemini([{"text": "part one, "}], "CONTINUATION", "tok-1")),
                 Reply(body=_gemini([{"text": "part two"}], "STOP")))
    cfg = {"google": {"base_url": server.url, "api_key": KEY}}
    if mode == "sync":
        resp = ai.Client(cfg).chat.completions.create(model="google:gemini-x", messages=USER)
    else:
        resp = asyncio.run(ai.AsyncClient(cfg).chat.completions.create(
            model="google:gemini-x", messages=USER))
    assert resp.content == "part one, part two"
    assert resp.choices[0].finish_reason == "stop"
    assert resp.usage.completion_tokens == 4 and resp.usage.prompt_tokens == 6
    assert server.attempts == 2
    first, second = (r.body for r in server.requests)
    assert "continuationToken" not in first
    assert second["continuationToken"] == "tok-1"
    assert second["contents"] == first["contents"]


def test_google_stream_continuation_is_followed(server: FaultServer) -> None:
    def sse(data: dict[str, Any]) -> bytes:
        return f"data: {json.dumps(data)}\n\n".encode()

    server.queue(
        Stream(events=[sse(_gemini([{"text": "one "}], None)),
                       sse(_gemini([{"text": "two "}], "CONTINUATION", "tok-9"))]),
        Stream(events=[sse(_gemini([{"text": "three"}], "STOP"))]))
    client = ai.Client({"google": {"base_url": server.url, "api_key": KEY}})
    with client.chat.completions.create(model="google:gemini-x", messages=USER,
                                        stream=True) as stream:
        chunks = list(stream)
        final = stream.get_final_response()
    assert final.content == "one two three"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes.count("stop") == 1 and finishes[-1] == "stop"
    assert final.usage.completion_tokens == 4
    assert server.requests[1].body["continuationToken"] == "tok-9"


def test_google_async_transport_aiohttp(server: FaultServer) -> None:
    pytest.importorskip("aiohttp")
    server.queue(Reply(503), Reply())
    clock = FakeClock()

    async def run() -> tuple[Any, str]:
        async with ai.AsyncClient({"google": {"base_url": server.url, "api_key": KEY,
                                              "async_transport": "aiohttp",
                                              "retry_clock": clock}}) as client:
            resp = await client.chat.completions.create(model="google:gemini-x",
                                                        messages=USER)
            stream = await client.chat.completions.create(model="google:gemini-x",
                                                          messages=USER, stream=True)
            final = await stream.get_final_response()
            return resp, final.content or ""

    resp, streamed = asyncio.run(run())
    assert resp.content == "hello world" and streamed == "hello world"
    assert server.attempts == 3 and clock.waits == [0.5]
    assert all("aiohttp" in r.headers.get("user-agent", "").lower() or
               "x-goog-api-key" in r.headers for r in server.requests)


def test_google_aiohttp_connection_error_is_typed() -> None:
    pytest.importorskip("aiohttp")
    port = _free_port()

    async def run() -> None:
        async with ai.AsyncClient({"google": {"base_url": f"http://127.0.0.1:{port}",
                                              "api_key": KEY, "max_retries": 0,
                                              "async_transport": "aiohttp"}}) as client:
            await client.chat.completions.create(model="google:gemini-x", messages=USER)

    with pytest.raises(ai.APIConnectionError) as info:
        asyncio.run(run())
    assert f"127.0.0.1:{port}" in str(info.value) and KEY not in str(info.value)


def test_google_timeout_as_httpx_timeout(server: FaultServer) -> None:
    import httpx2
    from support.fault_server import Stall

    server.queue(Stall())
    client = ai.Client({"google": {"base_url": server.url, "api_key": KEY, "max_retries": 0,
                                   "timeout": httpx2.Timeout(0.3)}})
    with pytest.raises(ai.APITimeoutError):
        client.chat.completions.create(model="google:gemini-x", messages=USER)
    assert "x-server-timeout" not in server.requests[0].headers


def test_retry_after_as_an_http_date(server: FaultServer) -> None:
    import email.utils
    import time

    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    server.queue(Reply(503, {"retry-after": when}))
    clock = FakeClock()
    client = ai.Client({"openai": {"base_url": server.url + "/v1", "api_key": KEY,
                                   "retry_clock": clock}})
    assert client.chat.completions.create(model="openai:m", messages=USER).content
    assert len(clock.waits) == 1 and 1.0 <= clock.waits[0] <= 3.0


def test_unreadable_retry_after_falls_back_to_backoff(server: FaultServer) -> None:
    server.queue(Reply(429, {"retry-after": "soon"}))
    clock = FakeClock()
    client = ai.Client({"anthropic": {"base_url": server.url, "api_key": KEY,
                                      "retry_clock": clock}})
    assert client.chat.completions.create(model="anthropic:m", messages=USER).content
    assert clock.waits == [0.5]
