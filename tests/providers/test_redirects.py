"""Redirects never take credentials or a prompt to another host (docs/reliability.md, "Where
requests go"). Every family, through the real SDKs (botocore for Bedrock), against the
project's loopback servers: ``base_url`` answers 301/302/307/308 pointing at a second server
on another loopback address (``Witness``, 127.0.0.2), which must receive nothing; the call
raises ``RedirectError`` naming both origins, after one attempt. A redirect within the same
origin is still followed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_server import BedrockServer, Json
from support.fault_server import FaultServer, Reply, Witness
from support.transports import each_transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai

PROMPT = "the secret prompt 7d1e"
USER = [{"role": "user", "content": PROMPT}]
KEYS = {"openai": "opn-Secret-4f8a1c9e7b2d", "groq": "grq-Secret-8e1d2c3b4a5f",
        "azure": "azr-Secret-2a4c6e8b0d1f", "anthropic": "ant-Secret-9c2e7f1a3b5d",
        "google": "ggl-Secret-1b3d5f7a9c2e"}
MODELS = {"openai": "openai:gpt-x", "groq": "groq:llama-x", "azure": "azure:gpt-x",
          "anthropic": "anthropic:claude-x", "google": "google:gemini-x"}
PATHS = {"openai": "/v1/chat/completions", "groq": "/v1/chat/completions",
         "azure": "/openai/deployments/gpt-x/chat/completions",
         "anthropic": "/v1/messages", "google": "/v1beta/models/gemini-x:generateContent"}
FAMILIES = tuple(KEYS)
ASYNC_TRANSPORTS = ("openai", "anthropic", "google")  # async_transport="aiohttp"


@pytest.fixture(scope="module")
def other() -> Iterator[Witness]:
    with Witness() as witness:
        yield witness


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer, other: Witness) -> None:
    server.reset()
    other.requests.clear()


def config(family: str, server: FaultServer, **extra: Any) -> dict[str, Any]:
    if family == "azure":
        cfg: dict[str, Any] = {"azure_endpoint": server.url, "api_version": "2024-10-21"}
    else:
        cfg = {"base_url": server.url + ("/v1" if PATHS[family].startswith("/v1/c") else "")}
    return with_transport({family: {"api_key": KEYS[family], **cfg, **extra}})


def call(family: str, server: FaultServer, mode: str, *, stream: bool = False,
         **extra: Any) -> str:
    configs = config(family, server, **extra)

    def text_of(response: Any) -> str:
        return str(response.choices[0].message.content)

    if mode == "sync":
        with ai.Client(configs) as client:
            if not stream:
                return text_of(client.chat.completions.create(model=MODELS[family],
                                                              messages=USER))
            with client.chat.completions.create(model=MODELS[family], messages=USER,
                                                stream=True) as s:
                return "".join(c.choices[0].delta.content or "" for c in s if c.choices)

    async def run() -> str:
        async with ai.AsyncClient(configs) as client:
            if not stream:
                return text_of(await client.chat.completions.create(model=MODELS[family],
                                                                    messages=USER))
            s = await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                     stream=True)
            async with s:
                return "".join([c.choices[0].delta.content or "" async for c in s
                                if c.choices])
    return asyncio.run(run())


def assert_refused(error: ai.RedirectError, status: int, server_url: str, other: Witness,
                   secret: str) -> None:
    assert error.status_code == status
    assert error.from_origin == server_url and error.to_origin == other.url
    assert server_url in str(error) and other.url in str(error)
    assert other.requests == []  # neither the key nor the prompt reached the other host
    for text in (str(error), repr(error)):
        assert secret not in text and PROMPT not in text


@pytest.mark.parametrize("status", [301, 302, 307, 308])
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", FAMILIES)
def test_redirect_to_another_host_is_refused(family: str, mode: str, status: int,
                                             server: FaultServer, other: Witness) -> None:
    server.queue(Reply(status, headers={"location": other.url + PATHS[family]}))
    with pytest.raises(ai.RedirectError) as caught:
        call(family, server, mode)
    assert_refused(caught.value, status, server.url, other, KEYS[family])
    assert server.attempts == 1  # not retried (a redirect is no transient failure)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", FAMILIES)
def test_streamed_call_redirected_to_another_host_is_refused(
        family: str, mode: str, server: FaultServer, other: Witness) -> None:
    path = PATHS[family].replace(":generateContent", ":streamGenerateContent?alt=sse")
    server.queue(Reply(307, headers={"location": other.url + path}))
    with pytest.raises(ai.RedirectError) as caught:
        call(family, server, mode, stream=True)
    assert_refused(caught.value, 307, server.url, other, KEYS[family])


@pytest.mark.sdk_only
@pytest.mark.parametrize("family", ASYNC_TRANSPORTS)
def test_aiohttp_transport_refuses_the_redirect_too(family: str, server: FaultServer,
                                                    other: Witness) -> None:
    pytest.importorskip("aiohttp")
    server.queue(Reply(308, headers={"location": other.url + PATHS[family]}))
    with pytest.raises(ai.RedirectError) as caught:
        call(family, server, "async", async_transport="aiohttp")
    assert_refused(caught.value, 308, server.url, other, KEYS[family])


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", FAMILIES)
def test_redirect_within_the_same_origin_is_followed(family: str, mode: str,
                                                     server: FaultServer) -> None:
    server.queue(Reply(307, headers={"location": server.url + PATHS[family]}), Reply())
    assert call(family, server, mode) == "hello world"
    assert server.attempts == 2
    assert server.requests[1].body == server.requests[0].body


def test_redirect_error_is_not_a_reason_to_fall_back(server: FaultServer,
                                                     other: Witness) -> None:
    server.queue(Reply(307, headers={"location": other.url + PATHS["openai"]}))
    configs = {**config("openai", server), **config("anthropic", server)}
    with ai.Client(configs) as client, pytest.raises(ai.RedirectError):
        client.chat.completions.create(model=MODELS["openai"], messages=USER,
                                       fallbacks=[MODELS["anthropic"]])
    assert server.attempts == 1 and other.requests == []


# --- bedrock: botocore follows no redirect; one to another host is the same typed error ---


@pytest.mark.usefixtures("isolated_aws")
@pytest.mark.parametrize("status", [301, 302, 307, 308])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bedrock_redirect_to_another_host_is_refused(mode: str, status: int,
                                                     other: Witness) -> None:
    from support.bedrock_calls import create
    from support.bedrock_server import SECRET_KEY

    with BedrockServer() as bedrock:
        bedrock.reply(Json({"message": "moved"}, status=status,
                           headers={"Location": other.url + "/model/x/converse"}))
        with pytest.raises(ai.RedirectError) as caught:
            create(mode, bedrock.config(), messages=USER)
        assert_refused(caught.value, status, bedrock.url, other, SECRET_KEY)
        assert "endpoint_url" in str(caught.value)
        assert len(bedrock.requests) == 1
