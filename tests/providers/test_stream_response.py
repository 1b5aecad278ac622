"""``stream.response``: the HTTP reply of a stream, as the OpenAI SDK's ``Stream.response``
(status, headers, URL; the ``httpx2.Response`` where the SDK hands one over), on every
family and transport, sync and async, and on the stream helper."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.bedrock_server import BedrockServer, stream_text
from support.fault_server import FaultServer, Stream
from support.transports import provider_config, transport  # noqa: F401  (the fixture)

import aisuite_like as ai

MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-x"}
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _open(mode: str, config: dict[str, Any], model: str, helper: bool = False) -> Any:
    """(stream.response, the text) of one stream."""
    def sync(client: Any) -> Any:
        if helper:
            with client.chat.completions.stream(model=model, messages=USER) as events:
                events.until_done()
                return events.response, events.get_final_completion().choices[0].message.content
        stream = client.chat.completions.create(model=model, messages=USER, stream=True)
        with stream:
            return stream.response, stream.get_final_response().choices[0].message.content

    if mode == "sync":
        with ai.Client(config) as client:
            return sync(client)

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            if helper:
                async with client.chat.completions.stream(model=model, messages=USER) as events:
                    await events.until_done()
                    final = await events.get_final_completion()
                    return events.response, final.choices[0].message.content
            stream = await client.chat.completions.create(model=model, messages=USER,
                                                          stream=True)
            async with stream:
                final = await stream.get_final_response()
                return stream.response, final.choices[0].message.content

    return asyncio.run(run())


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
@pytest.mark.parametrize("helper", [False, True])
def test_a_stream_has_its_http_response(family: str, mode: str, helper: bool,
                                        server: FaultServer) -> None:
    server.reset()
    server.queue(Stream(headers={"x-request-id": "req-stream-1"}))
    base_url = server.url + "/v1" if family == "openai" else server.url
    config = {family: provider_config(family, {"api_key": "k-stream", "base_url": base_url,
                                               "max_retries": 0})}
    response, text = _open(mode, config, MODELS[family], helper)
    assert text == "hello world"
    assert response is not None and response.status_code == 200
    assert response.headers["x-request-id"] == "req-stream-1"
    assert "text/event-stream" in response.headers["content-type"]
    assert str(response.url).startswith(server.url)


def test_a_bedrock_stream_has_its_http_response(mode: str, isolated_aws: None) -> None:
    with BedrockServer() as server:
        server.reply(stream_text("hello ", "world"))
        response, text = _open(mode, {"bedrock": server.config(max_retries=0)},
                               "bedrock:anthropic.claude-x-v1:0")
    assert text == "hello world"
    assert response is not None and response.status_code == 200


def test_a_tool_run_stream_has_no_single_response() -> None:
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    with ai.Client() as client:
        stream = client.chat.completions.create(model="test:demo", messages=USER,
                                                tools=[lookup], max_turns=2, stream=True)
        with stream:
            stream.get_final_response()
    assert stream.response is None  # several HTTP replies: with_raw_response names the last
