"""``ai.Client(transport=...)`` / ``AsyncClient(transport=...)``: the client-wide transport
(docs/transports.md). Every family that has a native transport takes it where its own
config sets none; a key's own ``transport`` wins; a family without one (bedrock) keeps its
SDK, said once; a bad value is a ``ConfigurationError`` naming the allowed ones. Which
transport sent a request is read on the wire: the native one says ``aisuite-like`` in its
``User-Agent``, the SDKs their own name.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import pytest
from support.bedrock_server import BedrockServer, converse_text
from support.fault_server import FaultServer

import aisuite_like as ai
from aisuite_like.client import base as client_base

ROOT = pathlib.Path(__file__).resolve().parents[2]
USER = [{"role": "user", "content": "hi"}]
MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-x"}


def _configs(url: str) -> dict[str, dict[str, Any]]:
    return {"openai": {"api_key": "k1", "base_url": url + "/v1", "max_retries": 0},
            "anthropic": {"api_key": "k2", "base_url": url, "max_retries": 0},
            "google": {"api_key": "k3", "base_url": url, "max_retries": 0}}


def _agents(server: FaultServer) -> list[str]:
    agents = [r.headers.get("user-agent", "") for r in server.requests]
    server.reset()
    return agents


def _native(agent: str) -> bool:
    return agent.startswith("aisuite-like/") and agent.endswith("(native)")


def test_the_client_wide_transport_sends_every_family_natively(server: FaultServer) -> None:
    server.reset()
    with ai.Client(_configs(server.url), transport="native") as client:
        for model in MODELS.values():
            reply = client.chat.completions.create(model=model, messages=USER)
            assert reply.choices[0].message.content == "hello world"
    agents = _agents(server)
    assert len(agents) == 3 and all(map(_native, agents)), agents


def test_the_async_client_wide_transport_sends_every_family_natively(
        server: FaultServer) -> None:
    server.reset()

    async def main() -> list[str]:
        async with ai.AsyncClient(_configs(server.url), transport="native") as client:
            texts = []
            for model in MODELS.values():
                reply = await client.chat.completions.create(model=model, messages=USER)
                texts.append(reply.choices[0].message.content)
            return texts

    assert asyncio.run(main()) == ["hello world"] * 3
    agents = _agents(server)
    assert len(agents) == 3 and all(map(_native, agents)), agents


def test_a_keys_own_transport_wins_over_the_client_wide_one(server: FaultServer) -> None:
    server.reset()
    configs = _configs(server.url)
    configs["openai"]["transport"] = "sdk"
    with ai.Client(configs, transport="native") as client:
        for model in MODELS.values():
            client.chat.completions.create(model=model, messages=USER)
    openai, anthropic, google = _agents(server)
    assert openai.startswith("OpenAI/Python") and _native(anthropic) and _native(google)

    configs = _configs(server.url)
    configs["google"]["transport"] = "native"
    with ai.Client(configs, transport="sdk") as client:
        for model in MODELS.values():
            client.chat.completions.create(model=model, messages=USER)
    openai, anthropic, google = _agents(server)
    assert openai.startswith("OpenAI/Python") and anthropic.startswith("Anthropic/Python")
    assert _native(google)


def test_with_options_keeps_the_client_wide_transport(server: FaultServer) -> None:
    server.reset()
    with ai.Client(_configs(server.url), transport="native") as client:
        copy = client.with_options(max_retries=1)
        copy.chat.completions.create(model=MODELS["openai"], messages=USER)
        copy.close()
    assert all(map(_native, _agents(server)))


@pytest.mark.parametrize("name,value", [("transport", "httpx"), ("transport", "NATIVE"),
                                        ("async_transport", "httpx"),
                                        ("async_transport", "sdk")])
def test_a_bad_client_wide_transport_names_the_allowed_values(name: str, value: str) -> None:
    for cls, allowed in ((ai.Client, None), (ai.AsyncClient, None)):
        with pytest.raises(ai.ConfigurationError) as info:
            cls(**{name: value})  # type: ignore[arg-type]
        text = str(info.value)
        assert name in text and repr(value) in text
        expected = ("'sdk' or 'native'" if name == "transport" else "'httpx2' or 'aiohttp'")
        assert expected in text, (allowed, text)


@pytest.mark.usefixtures("isolated_aws")
def test_a_family_without_a_native_transport_keeps_its_sdk_and_says_so_once() -> None:
    client_base._noted_sdk_only.discard("bedrock")
    with BedrockServer() as bedrock:
        bedrock.reply(converse_text("from botocore"))
        bedrock.reply(converse_text("again"))
        with ai.Client({"bedrock": bedrock.config()}, transport="native") as client:
            with pytest.warns(UserWarning, match="'bedrock' has no native transport"):
                reply = client.chat.completions.create(model="bedrock:m", messages=USER)
            assert reply.choices[0].message.content == "from botocore"
        with ai.Client({"bedrock": bedrock.config()}, transport="native") as client, \
                warnings.catch_warnings():
            warnings.simplefilter("error")  # once per process: no second note
            assert client.chat.completions.create(
                model="bedrock:m", messages=USER).choices[0].message.content == "again"
        assert "botocore" in bedrock.requests[0].headers.get("user-agent", "").lower()


def test_the_module_client_takes_the_transport(server: FaultServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    server.reset()
    monkeypatch.setattr(ai, "api_key", "k1")
    monkeypatch.setattr(ai, "base_url", server.url + "/v1")
    monkeypatch.setattr(ai, "max_retries", 0)
    monkeypatch.setattr(ai, "transport", "native")
    assert ai.chat.completions.create(model="openai:gpt-x", messages=USER) \
        .choices[0].message.content == "hello world"
    monkeypatch.setattr(ai, "transport", None)
    ai.chat.completions.create(model="openai:gpt-x", messages=USER)
    native, sdk = _agents(server)
    assert _native(native) and sdk.startswith("OpenAI/Python")


def test_an_application_on_the_client_wide_native_transport_imports_no_vendor_sdk(
        server: FaultServer) -> None:
    script = textwrap.dedent(f"""
        import asyncio, json, sys
        import aisuite_like as ai
        URL = {server.url!r}
        configs = {{"openai": {{"api_key": "k1", "base_url": URL + "/v1"}},
                    "anthropic": {{"api_key": "k2", "base_url": URL}},
                    "google": {{"api_key": "k3", "base_url": URL}}}}
        models = {json.dumps(MODELS)}
        texts = []
        with ai.Client(configs, transport="native") as client:
            for model in models.values():
                texts.append(client.chat.completions.create(
                    model=model, messages=[{{"role": "user", "content": "hi"}}]
                ).choices[0].message.content)

        async def main():
            async with ai.AsyncClient(configs, transport="native") as client:
                for model in models.values():
                    r = await client.chat.completions.create(
                        model=model, messages=[{{"role": "user", "content": "hi"}}])
                    texts.append(r.choices[0].message.content)

        asyncio.run(main())
        loaded = sorted(m for m in ("openai", "anthropic", "google.genai", "google.auth")
                        if m in sys.modules)
        print(json.dumps({{"texts": texts, "loaded": loaded}}))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["texts"] == ["hello world"] * 6
    assert result["loaded"] == []


# --- async_transport="httpx2": users' HTTP mocks see native async calls ---------------------

_FAR = "https://api.mocked.test"
_REPLIES = {
    "openai": {"id": "c", "object": "chat.completion", "created": 1, "model": "g",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "mocked"},
                            "finish_reason": "stop"}]},
    "anthropic": {"id": "m", "type": "message", "role": "assistant", "model": "c",
                  "content": [{"type": "text", "text": "mocked"}], "stop_reason": "end_turn",
                  "usage": {"input_tokens": 1, "output_tokens": 1}},
    "google": {"candidates": [{"content": {"role": "model", "parts": [{"text": "mocked"}]},
                               "finishReason": "STOP"}]},
}
_PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages",
          "google": "/v1beta/models/gemini-x:generateContent"}


def _far_configs(**extra: Any) -> dict[str, dict[str, Any]]:
    return {"openai": {"api_key": "k1", "base_url": _FAR + "/v1", "max_retries": 0, **extra},
            "anthropic": {"api_key": "k2", "base_url": _FAR, "max_retries": 0, **extra},
            "google": {"api_key": "k3", "base_url": _FAR, "max_retries": 0, **extra}}


async def _ask_each(client: ai.AsyncClient) -> list[str]:
    texts = []
    for model in MODELS.values():
        reply = await client.chat.completions.create(model=model, messages=USER)
        texts.append(str(reply.choices[0].message.content))
    return texts


@pytest.mark.parametrize("where", ["key", "client"])
def test_respx_answers_native_async_calls_on_httpx2(where: str) -> None:
    import respx

    if where == "key":
        configs, options = _far_configs(transport="native", async_transport="httpx2"), {}
    else:
        configs, options = _far_configs(), {"transport": "native", "async_transport": "httpx2"}
    with respx.mock(using="httpcore2") as router:
        routes = {family: router.post(_FAR + path).respond(200, json=_REPLIES[family])
                  for family, path in _PATHS.items()}

        async def main() -> list[str]:
            async with ai.AsyncClient(configs, **options) as client:  # type: ignore[arg-type]
                return await _ask_each(client)

        assert asyncio.run(main()) == ["mocked"] * 3
    for family, route in routes.items():
        assert route.call_count == 1, family
        request = route.calls[0].request
        assert _native(request.headers["user-agent"])
        assert json.loads(request.content)  # the JSON body, as on aiohttp


def test_pytest_httpx2_answers_native_async_streams_on_httpx2(httpx2_mock: Any) -> None:
    events = (b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"g",'
              b'"choices":[{"index":0,"delta":{"content":"mock"}}]}\n\n'
              b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"g",'
              b'"choices":[{"index":0,"delta":{"content":"ed"},"finish_reason":"stop"}]}\n\n'
              b"data: [DONE]\n\n")
    route = httpx2_mock.post(_FAR + "/v1/chat/completions").respond(
        200, content=events, headers={"content-type": "text/event-stream"})

    async def main() -> str:
        async with ai.AsyncClient(_far_configs(), transport="native",
                                  async_transport="httpx2") as client:
            stream = await client.chat.completions.create(model=MODELS["openai"],
                                                          messages=USER, stream=True)
            async with stream:
                return str((await stream.get_final_response()).choices[0].message.content)

    assert asyncio.run(main()) == "mocked"
    assert route.call_count == 1 and json.loads(route.calls[0].request.content)["stream"]


def test_the_default_native_async_transport_stays_aiohttp(server: FaultServer) -> None:
    """aiohttp, unless told: its requests carry aiohttp's own headers (httpx2's do not)."""
    server.reset()
    configs = _configs(server.url)

    async def main(**options: Any) -> None:
        async with ai.AsyncClient(configs, transport="native", **options) as client:
            await client.chat.completions.create(model=MODELS["openai"], messages=USER)

    asyncio.run(main())
    asyncio.run(main(async_transport="httpx2"))
    asyncio.run(main(async_transport="aiohttp"))
    default, httpx2, aiohttp = server.requests
    assert default.headers.keys() == aiohttp.headers.keys()
    assert default.headers.keys() != httpx2.headers.keys()
    server.reset()


def test_the_client_wide_async_transport_leaves_sdk_keys_alone(server: FaultServer) -> None:
    """``async_transport`` is the native transport's: a key on the SDK transport keeps the
    SDK's own async HTTP (its setting of that name means the SDK's choice)."""
    server.reset()
    configs = _configs(server.url)
    configs["openai"]["transport"] = "sdk"

    async def main() -> None:
        async with ai.AsyncClient(configs, transport="native",
                                  async_transport="aiohttp") as client:
            await client.chat.completions.create(model=MODELS["openai"], messages=USER)

    asyncio.run(main())
    (request,) = server.requests
    assert request.headers["user-agent"].startswith("AsyncOpenAI/Python")
    server.reset()
