"""Anthropic provider through the real ``anthropic`` SDK, HTTP mocked at httpcore2.

Every test asserts on the wire JSON the SDK actually sent (``route.calls[i].request``) and on
the unified objects we returned. Sync and async paths run the same scenarios.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpcore2
import httpx
import httpx2
import pytest
import respx

import aisuite_like as ai
from aisuite_like.types import ChatCompletionResponse, Message

URL = "https://api.anthropic.com/v1/messages"
KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
MODEL = "anthropic:claude-sonnet-4-6"

MODES = ["sync", "async"]


# --- helpers -----------------------------------------------------------------------------


def reply(content: list[dict[str, Any]], stop_reason: str = "end_turn", *,
          usage: dict[str, Any] | None = None, msg_id: str = "msg_01") -> dict[str, Any]:
    return {
        "id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-2025",
        "content": content, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": usage or {"input_tokens": 11, "output_tokens": 7,
                           "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def thinking(value: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature}


def ok(body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.Response(200, json=body, headers={"request-id": "req_ok", **headers})


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def stream_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE events Anthropic sends for ``message``: every block split into two deltas."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start},
                                    {"type": "ping"}]
    for i, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            empty = {"type": "text", "text": ""}
            pieces = [("text_delta", "text", block["text"][:3]),
                      ("text_delta", "text", block["text"][3:])]
        elif kind == "tool_use":
            empty = {**block, "input": {}}
            args = json.dumps(block["input"], ensure_ascii=False)
            pieces = [("input_json_delta", "partial_json", args[:5]),
                      ("input_json_delta", "partial_json", args[5:])]
        elif kind == "thinking":
            empty = {"type": "thinking", "thinking": "", "signature": ""}
            pieces = [("thinking_delta", "thinking", block["thinking"][:4]),
                      ("thinking_delta", "thinking", block["thinking"][4:]),
                      ("signature_delta", "signature", block["signature"])]
        else:  # redacted_thinking arrives whole
            empty, pieces = block, []
        events.append({"type": "content_block_start", "index": i, "content_block": empty})
        for delta_type, field, value in pieces:
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": delta_type, field: value}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta",
                   "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": usage["output_tokens"]}})
    events.append({"type": "message_stop"})
    return events


def sse_response(events: list[dict[str, Any]]) -> httpx.Response:
    return httpx.Response(200, content=sse(events),
                          headers={"content-type": "text/event-stream", "request-id": "req_s"})


def sent(route: Any, i: int = 0) -> dict[str, Any]:
    return json.loads(route.calls[i].request.content)


def config(**extra: Any) -> dict[str, Any]:
    return {"anthropic": {"api_key": KEY, "max_retries": 0, **extra}}


def create(mode: str, cfg: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    kwargs.setdefault("model", MODEL)
    if mode == "sync":
        with ai.Client(cfg or config()) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(cfg or config()) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


def stream(mode: str, cfg: dict[str, Any] | None = None, **kwargs: Any) -> tuple[
        list[ai.ChatCompletionChunk], ChatCompletionResponse]:
    kwargs.setdefault("model", MODEL)
    if mode == "sync":
        with ai.Client(cfg or config()) as client:
            with client.chat.completions.create(stream=True, **kwargs) as s:
                chunks = list(s)
                return chunks, s.get_final_response()

    async def run() -> Any:
        async with ai.AsyncClient(cfg or config()) as client:
            s = await client.chat.completions.create(stream=True, **kwargs)
            async with s:
                chunks = [c async for c in s]
                return chunks, await s.get_final_response()

    return asyncio.run(run())


def stream_until_error(mode: str, **kwargs: Any) -> tuple[list[Any], BaseException]:
    """Consume a stream that must fail; returns the chunks the stream object kept and the
    error."""
    kwargs.setdefault("model", MODEL)
    if mode == "sync":
        with ai.Client(config()) as client:
            try:  # an error before the first chunk raises at create(), as in the OpenAI SDK
                s = client.chat.completions.create(stream=True, **kwargs)
            except ai.APIError as exc:
                return [], exc
            with pytest.raises(ai.APIError) as info:
                for _ in s:
                    pass
            return s.chunks, info.value

    async def run() -> Any:
        async with ai.AsyncClient(config()) as client:
            try:
                s = await client.chat.completions.create(stream=True, **kwargs)
            except ai.APIError as exc:
                return [], exc
            with pytest.raises(ai.APIError) as info:
                async for _ in s:
                    pass
            return s.chunks, info.value

    return asyncio.run(run())


USER = [{"role": "user", "content": "What is the weather in Paris and Rome?"}]
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}


# --- text, tools, round trip -------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_text_reply(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply(
        [text("Hello"), text(" world")],
        usage={"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 3,
               "cache_creation_input_tokens": 2, "output_tokens_details": {"thinking_tokens": 1}})))
    resp = create(mode, messages=[{"role": "user", "content": "Hi"}])

    assert isinstance(resp, ChatCompletionResponse)
    assert resp.provider == "anthropic" and resp.model == "claude-sonnet-4-5-2025"
    assert resp.id == "msg_01"
    assert resp.choices[0].message.content == "Hello world"
    assert resp.choices[0].message.tool_calls is None
    assert resp.choices[0].finish_reason == "stop"
    assert resp.choices[0].native_finish_reason == "end_turn"
    usage = resp.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (15, 5, 20)
    assert usage.prompt_tokens_details.cached_tokens == 3
    assert usage.prompt_tokens_details.cache_creation_tokens == 2
    assert usage.completion_tokens_details.reasoning_tokens == 1
    body = sent(route)
    assert body == {"model": "claude-sonnet-4-6", "max_tokens": 4096,
                    "messages": [{"role": "user", "content": [text("Hi")]}]}
    assert KEY in (route.calls[0].request.headers.get("x-api-key", "")
                   + route.calls[0].request.headers.get("authorization", ""))


def test_acreate_on_sync_client(httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(return_value=ok(reply([text("async ok")])))

    async def run() -> Any:
        client = ai.Client(config())
        return await client.chat.completions.acreate(model=MODEL, messages=USER)

    assert asyncio.run(run()).choices[0].message.content == "async ok"


@pytest.mark.parametrize("mode", MODES)
def test_single_tool_call_from_callable(mode: str, httpx2_mock: Any) -> None:
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return "sunny"

    route = httpx2_mock.post(URL).mock(return_value=ok(reply(
        [text("Let me check."), tool_use("toolu_1", "get_weather", {"city": "Paris"})],
        "tool_use")))
    resp = create(mode, messages=USER, tools=[get_weather])

    msg = resp.choices[0].message
    assert msg.content == "Let me check."
    assert len(msg.tool_calls) == 1
    call = msg.tool_calls[0]
    assert (call.id, call.type, call.function.name) == ("toolu_1", "function", "get_weather")
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert resp.choices[0].finish_reason == "tool_calls"
    tools = sent(route)["tools"]
    assert len(tools) == 1 and tools[0]["name"] == "get_weather"
    assert tools[0]["description"] == "Current weather for a city."
    assert tools[0]["input_schema"]["properties"]["city"]["type"] == "string"
    assert "tool_choice" not in sent(route)


@pytest.mark.parametrize("mode", MODES)
def test_parallel_tool_calls_all_kept(mode: str, httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(return_value=ok(reply(
        [tool_use("toolu_a", "get_weather", {"city": "Paris"}),
         tool_use("toolu_b", "get_weather", {"city": "Rome"})], "tool_use")))
    resp = create(mode, messages=USER, tools=[WEATHER_TOOL])
    calls = resp.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["toolu_a", "toolu_b"]
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Rome"]
    assert resp.choices[0].message.content is None


@pytest.mark.parametrize("mode", MODES)
def test_manual_round_trip_wire(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        ok(reply([text("Checking both."),
                  tool_use("toolu_a", "get_weather", {"city": "Paris"}),
                  tool_use("toolu_b", "get_weather", {"city": "Rome"})], "tool_use")),
        ok(reply([text("Paris is sunny, Rome is rainy.")])),
    ])
    messages: list[Any] = [{"role": "system", "content": "You are terse."}, *USER]
    first = create(mode, messages=messages, tools=[WEATHER_TOOL])
    messages.append(first.choices[0].message)  # a Message object, appended as is
    messages.append({"role": "tool", "tool_call_id": "toolu_a", "name": "get_weather",
                     "content": "sunny"})
    messages.append({"role": "tool", "tool_call_id": "toolu_b", "name": "get_weather",
                     "content": "rainy"})
    messages.append({"role": "user", "content": "Summarise."})
    second = create(mode, messages=messages, tools=[WEATHER_TOOL])

    assert second.choices[0].message.content == "Paris is sunny, Rome is rainy."
    first_body, second_body = sent(route, 0), sent(route, 1)
    assert first_body["system"] == second_body["system"] == "You are terse."
    assert second_body["messages"] == [
        {"role": "user", "content": [text("What is the weather in Paris and Rome?")]},
        {"role": "assistant", "content": [
            text("Checking both."),
            tool_use("toolu_a", "get_weather", {"city": "Paris"}),
            tool_use("toolu_b", "get_weather", {"city": "Rome"})]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "rainy"},
            text("Summarise.")]},
    ]
    assert second_body["tools"] == first_body["tools"]


@pytest.mark.parametrize("mode", MODES)
def test_thinking_blocks_round_trip_exactly(mode: str, httpx2_mock: Any) -> None:
    blocks = [thinking("Need the tool.", "sig-AAA=="),
              {"type": "redacted_thinking", "data": "ENCRYPTED=="},
              text("One moment."),
              tool_use("toolu_t", "get_weather", {"city": "Oslo"})]
    route = httpx2_mock.post(URL).mock(side_effect=[
        ok(reply(blocks, "tool_use")), ok(reply([text("Cold.")]))])
    native = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    first = create(mode, messages=USER, tools=[WEATHER_TOOL], **native)
    msg = first.choices[0].message
    assert msg.reasoning_content == "Need the tool."
    assert msg.content == "One moment."
    assert msg.provider_specific_fields == {"thinking_blocks": blocks[:2]}

    # Round trip through a plain dict too (model_dump is valid input again).
    history = [*USER, msg.model_dump(exclude_none=True),
               {"role": "tool", "tool_call_id": "toolu_t", "content": "-5C"}]
    create(mode, messages=history, tools=[WEATHER_TOOL], **native)
    body = sent(route, 1)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["messages"][1] == {"role": "assistant", "content": blocks}
    assert body["messages"][2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_t", "content": "-5C"}]}


# --- system prompts and content ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_all_system_messages_merged_in_order(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    create(mode, messages=[
        {"role": "system", "content": "Rule one."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "developer", "content": [{"type": "text", "text": "Rule two."}]},
        {"role": "system", "content": "Rule three."},
        {"role": "user", "content": "Again"},
    ])
    body = sent(route)
    assert body["system"] == [text("Rule one."), text("Rule two."), text("Rule three.")]
    assert body["messages"] == [
        {"role": "user", "content": [text("Hi")]},
        {"role": "assistant", "content": [text("Hello")]},
        {"role": "user", "content": [text("Again")]},
    ]


@pytest.mark.parametrize("mode", MODES)
def test_consecutive_same_role_messages_merged(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    create(mode, messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
                           {"role": "assistant", "content": "c"},
                           {"role": "assistant", "content": "d"},
                           {"role": "user", "content": "e"}])
    assert sent(route)["messages"] == [
        {"role": "user", "content": [text("a"), text("b")]},
        {"role": "assistant", "content": [text("c"), text("d")]},
        {"role": "user", "content": [text("e")]},
    ]


@pytest.mark.parametrize("mode", MODES)
def test_images_http_and_data_urls(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("a cat")])))
    create(mode, messages=[{"role": "user", "content": [
        {"type": "text", "text": "Compare"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/AAAA",
                                            "detail": "high"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=",
                                  "filename": "a.pdf"}},
    ]}])
    assert sent(route)["messages"][0]["content"] == [
        text("Compare"),
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                     "data": "/9j/AAAA"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                        "data": "JVBERi0="}},
    ]


@pytest.mark.parametrize("mode", MODES)
def test_tool_result_with_image_content(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    create(mode, messages=[
        *USER,
        {"role": "assistant", "tool_calls": [{"id": "t1", "type": "function", "function": {
            "name": "snap", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "t1", "content": [
            {"type": "text", "text": "here"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}}]},
    ])
    body = sent(route)
    assert body["messages"][1]["content"] == [tool_use("t1", "snap", {})]
    assert body["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "t1",
                                               "content": [text("here"), {
        "type": "image", "source": {"type": "base64", "media_type": "image/png",
                                    "data": "iVBOR"}}]}]


@pytest.mark.parametrize("mode", MODES)
def test_callers_messages_not_mutated(mode: str, httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(return_value=ok(reply([text("done")])))
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": [{"type": "text", "text": "look",
                                      "cache_control": {"type": "ephemeral"}},
                                     {"type": "image_url", "image_url": {"url": "https://x/y"}}]},
        {"role": "assistant", "content": "calling",
         "provider_specific_fields": {"thinking_blocks": [thinking("t", "s")]},
         "tool_calls": [{"id": "t1", "type": "function",
                         "function": {"name": "f", "arguments": "{\"a\": [1, 2]}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "r"},
        {"role": "user", "content": "next"},
    ]
    before = copy.deepcopy(messages)
    create(mode, messages=messages, tools=[WEATHER_TOOL], stop=["X"], user="u")
    assert messages == before


# --- portable parameters -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_portable_parameters_on_the_wire(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("{}")])))
    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "required": ["a"], "additionalProperties": False}
    create(mode, messages=USER, temperature=0.3, top_p=0.9, max_tokens=123, stop="END",
           user="user-42", timeout=12.5,
           response_format={"type": "json_schema",
                            "json_schema": {"name": "A", "schema": schema, "strict": True}})
    body = sent(route)
    assert body["temperature"] == 0.3 and body["top_p"] == 0.9
    assert body["max_tokens"] == 123
    assert body["stop_sequences"] == ["END"]
    assert body["metadata"] == {"user_id": "user-42"}
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    # The SDK announces the per-request timeout it applied.
    assert route.calls[0].request.headers["x-stainless-timeout"] == "12.5"


@pytest.mark.parametrize(("tool_choice", "parallel", "expected"), [
    ("auto", None, {"type": "auto"}),
    ("none", None, {"type": "none"}),
    ("required", None, {"type": "any"}),
    ({"type": "function", "function": {"name": "get_weather"}}, None,
     {"type": "tool", "name": "get_weather"}),
    (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    (None, True, None),
])
@pytest.mark.parametrize("mode", MODES)
def test_tool_choice_and_parallel_tool_calls(mode: str, tool_choice: Any, parallel: Any,
                                             expected: Any, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    kwargs: dict[str, Any] = {}
    if tool_choice is not None:
        kwargs["tool_choice"] = tool_choice
    if parallel is not None:
        kwargs["parallel_tool_calls"] = parallel
    create(mode, messages=USER, tools=[WEATHER_TOOL], **kwargs)
    assert sent(route).get("tool_choice") == expected


@pytest.mark.parametrize("mode", MODES)
def test_native_arguments_pass_through(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    create(mode, messages=USER, stop=["A", "B"], top_k=5, service_tier="auto",
           metadata={"extra_field": 1}, user="u1",
           thinking={"type": "enabled", "budget_tokens": 2048})
    body = sent(route)
    assert body["top_k"] == 5  # not an SDK argument: travels in extra_body
    assert body["service_tier"] == "auto"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["metadata"] == {"user_id": "u1", "extra_field": 1}
    assert body["stop_sequences"] == ["A", "B"]


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"seed": 1}, "seed"),
    ({"n": 2}, "n"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"tool_choice": "required"}, "tool_choice"),  # no tools to force
    ({"messages": [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "x", "format": "wav"}}]}]}, "messages"),
    ({"messages": [{"role": "tool", "content": "orphan"}]}, "messages"),
    ({"messages": [{"role": "function", "content": "x", "name": "f"}]}, "messages"),
    ({"stop_sequences": ["x"], "stop": ["y"]}, "stop_sequences"),
    ({"max_tokens": 64000}, "max_tokens"),  # the SDK refuses it without streaming
])
@pytest.mark.parametrize("mode", MODES)
def test_unsupported_parameters_raise_before_sending(mode: str, kwargs: dict[str, Any],
                                                     parameter: str) -> None:
    kwargs = {"messages": USER, **kwargs}
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        route = router.post(URL).mock(return_value=ok(reply([text("never")])))
        with pytest.raises(ai.UnsupportedParameterError) as info:
            create(mode, **kwargs)
    assert info.value.parameter == parameter
    assert parameter in str(info.value)
    assert route.call_count == 0


# --- errors ------------------------------------------------------------------------------


def error_response(status: int, kind: str, message: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"type": "error", "error": {"type": kind,
                                                                     "message": message}},
                          headers={"request-id": "req_err", **headers})


@pytest.mark.parametrize(("status", "kind", "error_type"), [
    (400, "invalid_request_error", ai.BadRequestError),
    (401, "authentication_error", ai.AuthenticationError),
    (403, "permission_error", ai.PermissionDeniedError),
    (404, "not_found_error", ai.NotFoundError),
    (413, "request_too_large", ai.BadRequestError),
    (429, "rate_limit_error", ai.RateLimitError),
    (500, "api_error", ai.InternalServerError),
    (529, "overloaded_error", ai.InternalServerError),
])
@pytest.mark.parametrize("mode", MODES)
def test_http_errors_mapped(mode: str, status: int, kind: str, error_type: type,
                           httpx2_mock: Any) -> None:
    # The provider echoes the key back: it must never reach our error.
    route = httpx2_mock.post(URL).mock(return_value=error_response(
        status, kind, f"bad things with key {KEY}", **{"retry-after": "7"}))
    with pytest.raises(ai.APIError) as info:
        create(mode, messages=USER)
    err = info.value
    assert type(err) is error_type
    assert err.status_code == status and err.provider == "anthropic"
    assert err.request_id == "req_err"
    assert kind in str(err)
    assert KEY not in str(err) and KEY not in repr(err)
    assert isinstance(err.__cause__, Exception) and type(err.__cause__).__module__.startswith(
        "anthropic")
    if status == 429:
        assert err.retry_after == 7.0
    assert route.call_count == 1  # max_retries=0: one attempt


@pytest.mark.parametrize("message", [
    "prompt is too long: 210000 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 198000 + 4096 > 200000, decrease "
    "input length or `max_tokens` and try again",
])
@pytest.mark.parametrize("mode", MODES)
def test_context_window_error(mode: str, message: str, httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(return_value=error_response(400, "invalid_request_error",
                                                           message))
    with pytest.raises(ai.ContextWindowExceededError) as info:
        create(mode, messages=USER)
    assert isinstance(info.value, ai.BadRequestError)
    assert info.value.status_code == 400


@pytest.mark.parametrize("mode", MODES)
def test_max_retries_one_makes_two_attempts(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        error_response(529, "overloaded_error", "Overloaded", **{"retry-after-ms": "5"}),
        ok(reply([text("second time lucky")]))])
    resp = create(mode, config(max_retries=1), messages=USER)
    assert resp.choices[0].message.content == "second time lucky"
    assert route.call_count == 2
    assert sent(route, 0) == sent(route, 1)


@pytest.mark.parametrize("mode", MODES)
def test_connection_error_is_typed(mode: str, httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(side_effect=httpcore2.ConnectError("refused"))
    with pytest.raises(ai.APIConnectionError):
        create(mode, messages=USER)


def test_key_from_env_and_never_in_repr(monkeypatch: pytest.MonkeyPatch,
                                        httpx2_mock: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    with ai.Client({"anthropic": {"max_retries": 0}}) as client:
        client.chat.completions.create(model=MODEL, messages=USER)
        provider = client._provider("anthropic")
        assert KEY not in repr(provider) and KEY not in repr(client)
    headers = route.calls[0].request.headers
    assert KEY in headers.get("x-api-key", "") + headers.get("authorization", "")


@pytest.mark.parametrize("config_dir", [False, True])
def test_missing_key_is_an_authentication_error(config_dir: bool, monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Any) -> None:
    # No key anywhere, and no credential profile on disk (the SDK looks there too): either the
    # SDK finds nothing at all, or a configured profile directory lacks the profile.
    for var in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    if config_dir:
        monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        route = router.post(URL).mock(return_value=ok(reply([text("never")])))
        with pytest.raises(ai.AuthenticationError, match="ANTHROPIC_API_KEY"):
            create("sync", {"anthropic": {"max_retries": 0}}, messages=USER)
    assert route.call_count == 0


def test_default_headers_base_url_http_client_and_default_max_tokens(
        httpx2_mock: Any) -> None:
    route = httpx2_mock.post("https://proxy.example/v1/messages").mock(
        return_value=ok(reply([text("ok")])))
    http_client = httpx2.Client(headers={"x-from-http-client": "yes"})
    cfg = config(base_url="https://proxy.example", default_headers={"x-team": "blue"},
                 http_client=http_client, default_max_tokens=777)
    create("sync", cfg, messages=USER)
    request = route.calls[0].request
    assert request.headers["x-team"] == "blue"
    assert request.headers["x-from-http-client"] == "yes"
    assert sent(route)["max_tokens"] == 777


def test_bad_config_values_raise() -> None:
    from aisuite_like.providers.anthropic import AnthropicProvider

    with pytest.raises(ValueError, match="max_retries"):
        AnthropicProvider(api_key=KEY, max_retries=-1)
    with pytest.raises(ValueError, match="async_transport"):
        AnthropicProvider(api_key=KEY, async_transport="curl")


# --- streaming ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_stream_text(mode: str, httpx2_mock: Any) -> None:
    message = reply([text("Hello there, streaming world")])
    route = httpx2_mock.post(URL).mock(return_value=sse_response(stream_events(message)))
    chunks, final = stream(mode, messages=USER)

    assert sent(route)["stream"] is True
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert pieces == ["Hel", "lo there, streaming world"]
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])
    assert last.usage is not None and last.usage.prompt_tokens == 11
    assert last.usage.completion_tokens == 7
    assert all(c.usage is None for c in chunks[:-1])
    assert final.choices[0].message.content == "Hello there, streaming world"
    assert final.id == "msg_01" and final.provider == "anthropic"


@pytest.mark.parametrize("mode", MODES)
def test_stream_single_tool_call(mode: str, httpx2_mock: Any) -> None:
    message = reply([tool_use("toolu_1", "get_weather", {"city": "Zürich"})], "tool_use")
    httpx2_mock.post(URL).mock(return_value=sse_response(stream_events(message)))
    chunks, final = stream(mode, messages=USER, tools=[WEATHER_TOOL])
    deltas = [tc for c in chunks for tc in (c.choices[0].delta.tool_calls or [])]
    assert deltas[0].index == 0 and deltas[0].id == "toolu_1"
    assert deltas[0].function.name == "get_weather" and deltas[0].type == "function"
    assert all(d.index == 0 and d.id is None and d.function.name is None for d in deltas[1:])
    assert "".join(d.function.arguments or "" for d in deltas) == '{"city": "Zürich"}'
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert json.loads(final.choices[0].message.tool_calls[0].function.arguments) == {
        "city": "Zürich"}


@pytest.mark.parametrize("mode", MODES)
def test_stream_parallel_tool_calls_kept_apart(mode: str, httpx2_mock: Any) -> None:
    message = reply([text("Both:"), tool_use("toolu_a", "get_weather", {"city": "Paris"}),
                     tool_use("toolu_b", "get_weather", {"city": "Rome"})], "tool_use")
    httpx2_mock.post(URL).mock(return_value=sse_response(stream_events(message)))
    chunks, final = stream(mode, messages=USER, tools=[WEATHER_TOOL])
    by_index: dict[int, str] = {}
    firsts = {}
    for chunk in chunks:
        for tc in chunk.choices[0].delta.tool_calls or []:
            if tc.id:
                firsts[tc.index] = (tc.id, tc.function.name)
            by_index[tc.index] = by_index.get(tc.index, "") + (tc.function.arguments or "")
    assert firsts == {0: ("toolu_a", "get_weather"), 1: ("toolu_b", "get_weather")}
    assert {i: json.loads(a) for i, a in by_index.items()} == {0: {"city": "Paris"},
                                                               1: {"city": "Rome"}}
    calls = final.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["toolu_a", "toolu_b"]


@pytest.mark.parametrize("mode", MODES)
def test_stream_final_response_equals_non_streamed(mode: str, httpx2_mock: Any) -> None:
    message = reply(
        [thinking("Let me think about it.", "sig-XYZ=="),
         {"type": "redacted_thinking", "data": "OPAQUE=="},
         text("Calling tools now."),
         tool_use("toolu_a", "get_weather", {"city": "Paris", "units": ["c", "f"]}),
         tool_use("toolu_b", "lookup", {})],
        "tool_use",
        usage={"input_tokens": 50, "output_tokens": 40, "cache_read_input_tokens": 20,
               "cache_creation_input_tokens": 10})
    httpx2_mock.post(URL).mock(side_effect=[ok(message),
                                            sse_response(stream_events(message))])
    complete = create(mode, messages=USER, tools=[WEATHER_TOOL])
    chunks, final = stream(mode, messages=USER, tools=[WEATHER_TOOL])

    assert final.model_dump(exclude={"created"}) == complete.model_dump(exclude={"created"})
    assert final.choices[0].message == complete.choices[0].message
    assert final.usage == complete.usage
    # the thinking signature arrived through delta.provider_specific_fields
    psf = [c.choices[0].delta.provider_specific_fields for c in chunks
           if c.choices[0].delta.provider_specific_fields]
    assert psf == [{"thinking_blocks": [message["content"][0]]},
                   {"thinking_blocks": [message["content"][1]]}]
    reasoning = "".join(c.choices[0].delta.reasoning_content or "" for c in chunks)
    assert reasoning == "Let me think about it."


@pytest.mark.parametrize("mode", MODES)
def test_stream_error_event_mid_stream(mode: str, httpx2_mock: Any) -> None:
    events = stream_events(reply([text("partial answer")]))[:4]  # start, ping, block, 1 delta
    events.append({"type": "error", "error": {"type": "overloaded_error",
                                              "message": "Overloaded"}})
    httpx2_mock.post(URL).mock(return_value=sse_response(events))
    chunks, err = stream_until_error(mode, messages=USER)
    assert type(err) is ai.InternalServerError
    assert err.status_code == 529 and err.request_id == "req_s"
    assert "overloaded_error" in str(err)
    assert [c.choices[0].delta.content for c in chunks] == [None, "par"]


@pytest.mark.parametrize("mode", MODES)
def test_stream_error_event_keeps_the_sdks_exception_as_cause(mode: str,
                                                              httpx2_mock: Any) -> None:
    """The typed error of an error event is raised from the exception the anthropic SDK's own
    Stream raises for it (docs/migration.md), scrubbed of the key."""
    import anthropic

    error = {"type": "overloaded_error", "message": f"Overloaded (key {KEY})"}
    events = [*stream_events(reply([text("partial answer")]))[:4],
              {"type": "error", "error": error}]
    httpx2_mock.post(URL).mock(return_value=sse_response(events))
    _, err = stream_until_error(mode, messages=USER)
    assert type(err) is ai.InternalServerError and KEY not in str(err)
    cause = err.__cause__
    assert type(cause) is anthropic.APIStatusError, repr(cause)
    assert cause.body["type"] == "error" and cause.body["error"]["type"] == "overloaded_error"
    assert KEY not in str(cause) and KEY not in repr(cause.body)


@pytest.mark.parametrize("mode", MODES)
def test_stream_rate_limit_error_event(mode: str, httpx2_mock: Any) -> None:
    events = [{"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}]
    httpx2_mock.post(URL).mock(return_value=sse_response(events))
    _, err = stream_until_error(mode, messages=USER)
    assert type(err) is ai.RateLimitError


@pytest.mark.parametrize("mode", MODES)
def test_stream_cut_before_message_stop(mode: str, httpx2_mock: Any) -> None:
    events = stream_events(reply([text("cut short")]))[:-3]  # no message_delta / stop
    httpx2_mock.post(URL).mock(return_value=sse_response(events))
    chunks, err = stream_until_error(mode, messages=USER)
    assert type(err) is ai.APIConnectionError
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "cut short"


@pytest.mark.parametrize("mode", MODES)
def test_stream_malformed_event(mode: str, httpx2_mock: Any) -> None:
    body = sse(stream_events(reply([text("x")]))[:3]) + b"event: content_block_delta\ndata: {nope\n\n"
    httpx2_mock.post(URL).mock(return_value=httpx.Response(
        200, content=body, headers={"content-type": "text/event-stream"}))
    chunks, err = stream_until_error(mode, messages=USER)
    # A complete event that is not JSON: a malformed reply (docs/reliability.md).
    assert type(err) is ai.APIResponseValidationError
    assert len(chunks) == 1  # the role chunk of message_start


class _BrokenStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """Sends some SSE bytes, then the connection drops."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        raise httpcore2.ReadError("connection reset by peer")

    async def __aiter__(self) -> Any:
        yield self.head
        raise httpcore2.ReadError("connection reset by peer")


@pytest.mark.parametrize("mode", MODES)
def test_stream_dropped_connection(mode: str, httpx2_mock: Any) -> None:
    head = sse(stream_events(reply([text("dropped midway")]))[:4])
    httpx2_mock.post(URL).mock(return_value=httpx.Response(
        200, stream=_BrokenStream(head), headers={"content-type": "text/event-stream"}))
    chunks, err = stream_until_error(mode, messages=USER)
    assert isinstance(err, ai.APIConnectionError)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "dro"


@pytest.mark.parametrize("mode", MODES)
def test_stream_http_error_at_open(mode: str, httpx2_mock: Any) -> None:
    httpx2_mock.post(URL).mock(return_value=error_response(429, "rate_limit_error", "slow",
                                                           **{"retry-after": "3"}))
    chunks, err = stream_until_error(mode, messages=USER)
    assert type(err) is ai.RateLimitError and err.retry_after == 3.0
    assert chunks == []


def test_stream_bad_argument_raises_at_create() -> None:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        route = router.post(URL).mock(return_value=sse_response([]))
        with ai.Client(config()) as client, pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model=MODEL, messages=USER, seed=3, stream=True)
    assert route.call_count == 0


def test_stream_early_break_closes_response(httpx2_mock: Any) -> None:
    closed = []

    class Tracking(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield from (sse([e]) for e in stream_events(reply([text("abcdefgh")])))

        def close(self) -> None:
            closed.append(True)

    httpx2_mock.post(URL).mock(return_value=httpx.Response(
        200, stream=Tracking(), headers={"content-type": "text/event-stream"}))
    with ai.Client(config()) as client:
        with client.chat.completions.create(model=MODEL, messages=USER, stream=True) as s:
            next(iter(s))
    assert closed


# --- async transport: aiohttp, against a loopback server ---------------------------------


def test_aiohttp_transport_against_loopback_server() -> None:
    received: list[dict[str, Any]] = []
    body = json.dumps(reply([text("via aiohttp")])).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["content-length"])
            received.append({"path": self.path,
                             "json": json.loads(self.rfile.read(length))})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        cfg = config(base_url=f"http://127.0.0.1:{server.server_port}",
                     async_transport="aiohttp")

        async def run() -> Any:
            async with ai.AsyncClient(cfg) as client:
                provider = client._provider("anthropic")
                resp = await client.chat.completions.create(model=MODEL, messages=USER)
                assert type(provider._async._client).__name__ == "_DefaultAioHttpClient"
                return resp

        resp = asyncio.run(run())
    finally:
        server.shutdown()
        server.server_close()
    assert resp.choices[0].message.content == "via aiohttp"
    assert received[0]["path"] == "/v1/messages"
    assert received[0]["json"]["messages"] == [{"role": "user", "content": [
        text("What is the weather in Paris and Rome?")]}]


def test_message_objects_and_dicts_mixed(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(URL).mock(return_value=ok(reply([text("ok")])))
    create("sync", messages=[Message(role="system", content="S"),
                             {"role": "user", "content": "u"}])
    assert sent(route)["system"] == "S"


# --- streaming through the tool runner ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_streamed_two_turn_tool_runner(mode: str, httpx2_mock: Any) -> None:
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return {"Paris": "sunny", "Rome": "rainy"}[city]

    first = reply([thinking("Two cities.", "sig-R=="),
                   tool_use("toolu_a", "get_weather", {"city": "Paris"}),
                   tool_use("toolu_b", "get_weather", {"city": "Rome"})], "tool_use")
    second = reply([text("Paris sunny, Rome rainy.")], msg_id="msg_02")
    route = httpx2_mock.post(URL).mock(side_effect=[sse_response(stream_events(first)),
                                                    sse_response(stream_events(second))])
    kwargs = dict(model=MODEL, messages=USER, tools=[get_weather], max_turns=3, stream=True)
    if mode == "sync":
        with ai.Client(config()) as client:
            s = client.chat.completions.create(**kwargs)
            chunks = list(s)
            final = s.get_final_response()
    else:
        async def run() -> Any:
            async with ai.AsyncClient(config()) as client:
                s = await client.chat.completions.create(**kwargs)
                chunks = [c async for c in s]
                return chunks, await s.get_final_response()

        chunks, final = asyncio.run(run())

    assert {c.turn for c in chunks} == {1, 2}
    assert final.choices[0].message.content == "Paris sunny, Rome rainy."
    assert final.stop_reason == "completed"
    assert [e.result for e in final.tool_events] == ["sunny", "rainy"]
    assert final.usage.completion_tokens == 14  # both turns summed
    body = sent(route, 1)
    assert body["stream"] is True
    assert body["messages"][1] == {"role": "assistant", "content": first["content"]}
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "rainy"}]
