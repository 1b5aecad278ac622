"""What servers nobody here wrote need (llama.cpp, LiteLLM's proxy, independent mock servers):
the wire the OpenAI SDK would send, chat where there is no Responses API, replies of the
wrong shape refused. On the project's loopback server (``support/model_server.py``), through
the real SDKs and the native transport, sync and async."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.model_server import ModelServer, chat_reply, tool_call_reply
from support.transports import provider_config, transport  # noqa: F401  (the fixture)

import aisuite_like as ai

pytestmark = pytest.mark.usefixtures("transport")


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _run(mode: str, config: dict[str, Any], call: Any) -> Any:
    """``call(client)`` on a fresh sync Client, or awaited on an AsyncClient."""
    if mode == "sync":
        with ai.Client(config) as client:
            return call(client)

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            return await call(client)

    return asyncio.run(run())


def _config(key: str, server: ModelServer, **extra: Any) -> dict[str, Any]:
    return {key: provider_config(key, {"base_url": server.url + "/v1", "api_key": "sk-x",
                                       "max_retries": 0, **extra})}


def weather(city: str) -> str:
    """The weather of a city."""
    return "sunny"


# --- the assistant tool-call message ------------------------------------------------------


@pytest.fixture
def tool_server() -> Iterator[ModelServer]:
    def reply(request: Any) -> Any:
        if len(request.body["messages"]) == 1:
            return tool_call_reply("call_1", "weather", {"city": "Paris"})
        return chat_reply("sunny in Paris")

    with ModelServer(reply) as server:
        yield server


@pytest.mark.parametrize("key", ["openai", "ollama", "groq"])
def test_a_tool_call_turn_goes_out_with_content_null(key: str, mode: str,
                                                     tool_server: ModelServer) -> None:
    """llama.cpp's chat templates read ``content`` of every message: the tool runner's
    assistant turn carries it as null, as the OpenAI SDK sends it."""
    def call(client: Any) -> Any:
        create = client.chat.completions.create
        return create(model=f"{key}:m", messages=[{"role": "user", "content": "Weather?"}],
                      tools=[weather], max_turns=3)

    response = _run(mode, _config(key, tool_server), call)
    assert response.choices[0].message.content == "sunny in Paris"
    assistant = tool_server.requests[1].body["messages"][1]
    assert assistant["role"] == "assistant" and assistant["tool_calls"]
    assert "content" in assistant and assistant["content"] is None


def test_a_reply_message_sent_back_keeps_content_null(mode: str,
                                                     tool_server: ModelServer) -> None:
    """The manual round trip: the reply's message appended as it is goes out with
    ``content: null`` (as the OpenAI SDK sends a ``ChatCompletionMessage``); a hand-written
    dict goes as written (the SDK sends it as given)."""
    history: list[Any] = [{"role": "user", "content": "Weather?"}]
    hand_written = {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]}

    def call(client: Any) -> Any:
        async def both() -> Any:
            first = await client.chat.completions.create(model="openai:m", messages=history,
                                                         tools=[weather])
            return await client.chat.completions.create(model="openai:m", messages=[
                *history, first.choices[0].message, *_results(first),
                {"role": "user", "content": "Again?"}, hand_written,
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}])

        if isinstance(client, ai.Client):
            first = client.chat.completions.create(model="openai:m", messages=history,
                                                   tools=[weather])
            return client.chat.completions.create(model="openai:m", messages=[
                *history, first.choices[0].message, *_results(first),
                {"role": "user", "content": "Again?"}, hand_written,
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}])
        return both()

    _run(mode, _config("openai", tool_server), call)
    sent = tool_server.requests[1].body["messages"]
    assert sent[1]["role"] == "assistant" and "content" in sent[1] and sent[1]["content"] is None
    assert sent[4] == hand_written and "content" not in hand_written  # as given, not touched


def _results(response: Any) -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": c.id, "content": "sunny"}
            for c in response.choices[0].message.tool_calls]
