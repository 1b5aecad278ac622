"""What servers nobody here wrote need (llama.cpp, LiteLLM's proxy, independent mock servers):
the wire the OpenAI SDK would send, chat where there is no Responses API, replies of the
wrong shape refused. On the project's loopback server (``support/model_server.py``), through
the real SDKs and the native transport, sync and async."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from support.fault_server import Reply
from support.model_server import ModelServer, chat_reply, responses_reply, streamed, tool_call_reply
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


# --- responses.create where there is no Responses API --------------------------------------


def _chat_only(request: Any) -> Any:
    """A server with chat completions only (llama.cpp, many mock servers): 404 elsewhere."""
    if request.path.endswith("/chat/completions"):
        return streamed(chat_reply("from chat")) if request.stream else chat_reply("from chat")
    return Reply(status=404, body={"error": {"code": 404, "message": "File Not Found",
                                             "type": "not_found_error"}})


def _answer(client: Any, stream: bool, **kwargs: Any) -> Any:
    """``responses.create(model="openai:m", input="Hi")``'s text (a coroutine on AsyncClient)."""
    create = client.responses.create
    if isinstance(client, ai.Client):
        if stream:
            with create(model="openai:m", input="Hi", stream=True, **kwargs) as events:
                return events.get_final_response().output_text
        return create(model="openai:m", input="Hi", **kwargs).output_text

    async def text() -> str:
        if stream:
            events = await create(model="openai:m", input="Hi", stream=True, **kwargs)
            async with events:
                return str((await events.get_final_response()).output_text)
        return str((await create(model="openai:m", input="Hi", **kwargs)).output_text)
    return text()


@pytest.mark.parametrize("stream", [False, True])
def test_responses_at_a_host_without_them_go_over_chat(mode: str, stream: bool,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    """The openai key at another host: /responses first (a gateway in front of OpenAI has
    it); its 404 sends this call and every later one over chat, with one warning."""
    def twice(client: Any) -> Any:
        if isinstance(client, ai.Client):
            return [_answer(client, stream), _answer(client, stream)]

        async def both() -> list[str]:
            return [await _answer(client, stream), await _answer(client, stream)]
        return both()

    with ModelServer(_chat_only) as server:
        assert _run(mode, _config("openai", server), twice) == ["from chat", "from chat"]
    assert [r.path for r in server.requests] == [
        "/v1/responses", "/v1/chat/completions", "/v1/chat/completions"]
    warned = [r for r in caplog.records if "has no Responses API" in r.getMessage()]
    assert len(warned) == 1


def test_a_tool_run_at_a_host_without_responses_goes_over_chat(mode: str) -> None:
    def reply(request: Any) -> Any:
        if not request.path.endswith("/chat/completions"):
            return _chat_only(request)
        if len(request.body["messages"]) == 1:
            return tool_call_reply("call_1", "weather", {"city": "Paris"})
        return chat_reply("sunny")

    def call(client: Any) -> Any:
        return client.responses.create(model="openai:m", input="Weather?", tools=[weather],
                                       max_turns=3)

    with ModelServer(reply) as server:
        response = _run(mode, _config("openai", server), call)
    assert response.output_text == "sunny"
    assert [r.path for r in server.requests] == [
        "/v1/responses", "/v1/chat/completions", "/v1/chat/completions"]


@pytest.mark.parametrize("body", [
    {"error": {"message": "The model `m` does not exist", "type": "invalid_request_error",
               "param": None, "code": "model_not_found"}},
    {"error": {"message": "Previous response with id 'resp_1' not found.",
               "type": "invalid_request_error", "param": "previous_response_id",
               "code": "previous_response_not_found"}}])
def test_a_404_of_a_responses_api_is_raised_as_it_is(body: dict[str, Any]) -> None:
    with ModelServer(lambda r: Reply(status=404, body=body)) as server, \
            ai.Client(_config("openai", server)) as client:
        with pytest.raises(ai.NotFoundError):
            client.responses.create(model="openai:m", input="Hi")
    assert [r.path for r in server.requests] == ["/v1/responses"]


def test_api_responses_says_the_host_has_the_responses_api() -> None:
    with ModelServer(_chat_only) as server, \
            ai.Client(_config("openai", server, api="responses")) as client:
        with pytest.raises(ai.NotFoundError):
            client.responses.create(model="openai:m", input="Hi")
    assert [r.path for r in server.requests] == ["/v1/responses"]


def test_the_responses_api_of_a_gateway_is_used(mode: str) -> None:
    def reply(request: Any) -> Any:
        return responses_reply("native") if request.path.endswith("/responses") else Reply(404)

    with ModelServer(reply) as server:
        assert _run(mode, _config("openai", server), lambda c: _answer(c, False)) == "native"
    assert [r.path for r in server.requests] == ["/v1/responses"]


def test_server_state_after_the_404_is_refused_saying_why() -> None:
    with ModelServer(_chat_only) as server, ai.Client(_config("openai", server)) as client:
        with pytest.raises(ai.UnsupportedParameterError, match="answered 404 to /responses"):
            client.responses.create(model="openai:m", input="Hi",
                                    previous_response_id="resp_1")
    assert [r.path for r in server.requests] == ["/v1/responses"]


# --- embeddings of the wrong shape ---------------------------------------------------------


def _vectors(*vectors: Any) -> Reply:
    return Reply(body={"object": "list", "model": "e", "usage": {"prompt_tokens": 2,
                                                                  "total_tokens": 2},
                       "data": [{"object": "embedding", "index": i, "embedding": v}
                                for i, v in enumerate(vectors)]})


@pytest.mark.parametrize(("reply", "inputs", "says"), [
    # llama.cpp without pooling: a vector per token of the input
    (_vectors([[0.1, 0.2], [0.3, 0.4]]), ["one"], "a list of numbers"),
    (_vectors([0.1, 0.2], [0.3, 0.4]), ["one"], "do not match the 1 inputs"),
    (_vectors([0.1, 0.2]), ["one", "two"], "do not match the 2 inputs"),
    (_vectors([0.1, 0.2], [0.3]), ["one", "two"], "lengths"),
    (_vectors([0.1, "x"]), ["one"], "a list of numbers"),
    (_vectors([]), ["one"], "empty"),
])
@pytest.mark.parametrize("key", ["openai", "ollama"])
def test_embeddings_of_the_wrong_shape_are_a_typed_error(key: str, mode: str, reply: Reply,
                                                          inputs: list[str], says: str) -> None:
    def call(client: Any) -> Any:
        return client.embeddings.create(model=f"{key}:e", input=inputs)

    with ModelServer(lambda r: reply) as server:
        with pytest.raises(ai.APIResponseValidationError, match=says):
            _run(mode, _config(key, server), call)
    assert len(server.requests) == 1  # not retried


def test_embeddings_of_the_right_shape_come_back() -> None:
    with ModelServer(lambda r: _vectors([0.1, 0.2], [0.3, 0.4])) as server, \
            ai.Client(_config("openai", server)) as client:
        response = client.embeddings.create(model="openai:e", input=["one", "two"])
    assert [e.embedding for e in response.data] == [[0.1, 0.2], [0.3, 0.4]]


def test_openai_behind_a_proxy_keeps_the_native_responses_path() -> None:
    with ModelServer(_chat_only) as server, \
            ai.Client(_config("openai", server, openai_proxy=True)) as client:
        with pytest.raises(ai.NotFoundError):
            client.responses.create(model="openai:m", input="Hi")
    assert [r.path for r in server.requests] == ["/v1/responses"]
