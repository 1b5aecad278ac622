"""The openai provider through the real ``openai`` SDK, HTTP mocked at httpcore2, asserting the
wire JSON the SDK sent. Every behaviour is checked sync and async."""

from __future__ import annotations

import copy
import json

import pytest
import respx
from support.openai_helpers import KEY, call, chunk, completion, create, httpx2_mock, sse, stream, wire  # noqa: F401  (httpx2_mock: the fixture)

import aisuite_like as ai

URL = "https://api.openai.com/v1/chat/completions"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "user", "content": "Hi"}]


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: The city name.
    """
    return "sunny"


# --- replies -------------------------------------------------------------------------------


def test_text_reply(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion("Hello!", usage={
        "prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29,
        "prompt_tokens_details": {"cached_tokens": 12},
        "completion_tokens_details": {"reasoning_tokens": 4}}))
    resp = create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert wire(route) == {"model": "gpt-4o", "messages": USER}
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    assert isinstance(resp, ai.ChatCompletionResponse)
    assert resp.provider == "openai" and resp.model == "gpt-4o-2024" and resp.id == "chatcmpl-1"
    assert resp.choices[0].message.content == "Hello!"
    assert resp.choices[0].finish_reason == "stop"
    assert resp.choices[0].native_finish_reason == "stop"
    assert resp.usage.prompt_tokens == 20 and resp.usage.completion_tokens == 9
    assert resp.usage.total_tokens == 29
    assert resp.usage.prompt_tokens_details.cached_tokens == 12
    assert resp.usage.completion_tokens_details.reasoning_tokens == 4
    # The response is valid input again.
    dumped = resp.choices[0].message.model_dump(exclude_none=True)
    assert dumped == {"role": "assistant", "content": "Hello!"}


def test_single_tool_call_from_a_callable(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion(
        None, tool_calls=[call("call_1", "get_weather", '{"city": "Paris"}')],
        finish="tool_calls"))
    resp = create(mode, CONFIG, model="openai:gpt-4o", messages=USER, tools=[get_weather])
    sent = wire(route)
    assert sent["tools"] == [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather of a city.",
        "parameters": sent["tools"][0]["function"]["parameters"]}}]
    assert sent["tools"][0]["function"]["parameters"]["properties"]["city"]["type"] == "string"
    message = resp.choices[0].message
    assert message.content is None
    assert [(c.id, c.function.name, json.loads(c.function.arguments))
            for c in message.tool_calls] == [("call_1", "get_weather", {"city": "Paris"})]
    assert resp.choices[0].finish_reason == "tool_calls"


def test_parallel_tool_calls(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=completion(
        None, tool_calls=[call("call_1", "get_weather", '{"city": "Paris"}'),
                          call("call_2", "get_weather", '{"city": "Rome"}')],
        finish="tool_calls"))
    resp = create(mode, CONFIG, model="openai:gpt-4o", messages=USER, tools=[get_weather])
    calls = resp.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["call_1", "call_2"]
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Rome"]


def test_finish_reason_tool_calls_wins_unless_length(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=completion(None, tool_calls=[call("c", "f", "{}")],
                                                finish="stop")),
        respx.MockResponse(200, json=completion(None, tool_calls=[call("c", "f", "{")],
                                                finish="length")),
        respx.MockResponse(200, json=completion("x", finish="content_filter")),
    ])
    config = {"openai": {"api_key": KEY, "max_retries": 0}}
    if mode == "sync":
        client = ai.Client(config)
        results = [client.chat.completions.create(model="openai:m", messages=USER)
                   for _ in range(3)]
    else:
        import asyncio

        async def run() -> list:
            async with ai.AsyncClient(config) as client:
                return [await client.chat.completions.create(model="openai:m", messages=USER)
                        for _ in range(3)]
        results = asyncio.run(run())
    assert [(r.choices[0].finish_reason, r.choices[0].native_finish_reason) for r in results] == [
        ("tool_calls", "stop"), ("length", "length"), ("content_filter", "content_filter")]


def test_n_greater_than_one_gives_every_choice(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion(choices=[
        {"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"},
        {"index": 1, "message": {"role": "assistant", "content": "B"}, "finish_reason": "length"},
    ]))
    resp = create(mode, CONFIG, model="openai:gpt-4o", messages=USER, n=2)
    assert wire(route)["n"] == 2
    assert [(c.index, c.message.content, c.finish_reason) for c in resp.choices] == [
        (0, "A", "stop"), (1, "B", "length")]


# --- the manual round trip -----------------------------------------------------------------


def test_manual_round_trip_and_system_prompt_kept(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=completion(
            "Let me check.", tool_calls=[call("call_1", "get_weather", '{"city":"Paris"}'),
                                         call("call_2", "get_weather", '{"city":"Rome"}')],
            finish="tool_calls")),
        respx.MockResponse(200, json=completion("Sunny in both.")),
    ])
    system = {"role": "system", "content": "Be brief."}
    messages = [system, {"role": "user", "content": "Weather in Paris and Rome?"}]
    if mode == "sync":
        client = ai.Client(CONFIG)
        first = client.chat.completions.create(model="openai:gpt-4o", messages=messages,
                                               tools=[get_weather])
    else:
        first = create(mode, CONFIG, model="openai:gpt-4o", messages=messages,
                       tools=[get_weather])
    history = [*messages, first.choices[0].message]  # a Message object, appended as is
    for tc in first.choices[0].message.tool_calls:
        history.append({"role": "tool", "tool_call_id": tc.id, "name": "get_weather",
                        "content": "sunny"})
    second = create(mode, CONFIG, model="openai:gpt-4o", messages=history, tools=[get_weather])
    assert second.choices[0].message.content == "Sunny in both."
    sent = wire(route, 1)
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}]},
        # ``name`` is not part of the Chat Completions tool message: not sent.
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "sunny"},
    ]
    assert wire(route, 0)["messages"][0] == system
    assert "tools" in sent


def test_extension_fields_are_not_sent_to_openai(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    assistant = ai.Message(role="assistant", content="4", reasoning_content="2+2 is 4",
                           provider_specific_fields={"thinking_blocks": [{"x": 1}]})
    create(mode, CONFIG, model="openai:o3", messages=[
        {"role": "developer", "content": "Be exact."}, {"role": "user", "content": "2+2?"},
        assistant, {"role": "user", "content": "again"}])
    assert wire(route)["messages"] == [
        {"role": "developer", "content": "Be exact."}, {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"}, {"role": "user", "content": "again"}]


def test_refusal_is_kept_for_openai(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion(
        None, extra_message={"refusal": "I can't help with that."}))
    resp = create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert resp.choices[0].message.refusal == "I can't help with that."
    create(mode, CONFIG, model="openai:gpt-4o",
           messages=[*USER, resp.choices[0].message, {"role": "user", "content": "ok"}])
    assert wire(route)["messages"][1] == {"role": "assistant", "content": None,
                                          "refusal": "I can't help with that."}


def test_images_http_and_data_urls(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion("A cat."))
    parts = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png",
                                            "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": "https://example.com/dog.png"},  # shorthand
    ]
    messages = [{"role": "user", "content": parts}]
    before = copy.deepcopy(messages)
    create(mode, CONFIG, model="openai:gpt-4o", messages=messages)
    assert wire(route)["messages"][0]["content"] == [
        *parts[:3], {"type": "image_url", "image_url": {"url": "https://example.com/dog.png"}}]
    assert messages == before


# --- parameters ----------------------------------------------------------------------------


def test_portable_parameters_on_the_wire(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    create(mode, CONFIG, model="openai:gpt-4o", messages=USER, tools=[get_weather],
           tool_choice="required", parallel_tool_calls=False, response_format=schema,
           temperature=0.2, top_p=0.9, max_tokens=50, stop=["END"], seed=7, user="u-1",
           timeout=12.5)
    sent = wire(route)
    assert {k: v for k, v in sent.items() if k not in ("messages", "tools")} == {
        "model": "gpt-4o", "tool_choice": "required", "parallel_tool_calls": False,
        "response_format": schema, "temperature": 0.2, "top_p": 0.9,
        # OpenAI's current field (o-series / gpt-5 reject max_tokens).
        "max_completion_tokens": 50, "stop": ["END"], "seed": 7, "user": "u-1"}
    assert route.calls[0].request.headers["x-stainless-read-timeout"] == "12.5"


def test_named_tool_choice_and_max_completion_tokens_alias(mode: str,
                                                           httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    named = {"type": "function", "function": {"name": "get_weather"}}
    create(mode, CONFIG, model="openai:gpt-4o", messages=USER, tools=[get_weather],
           tool_choice=named, max_completion_tokens=9)
    sent = wire(route)
    assert sent["tool_choice"] == named
    assert sent["max_completion_tokens"] == 9 and "max_tokens" not in sent


def test_native_arguments_pass_through(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    create(mode, CONFIG, model="openai:o3", messages=USER, reasoning_effort="low",
           logprobs=True, custom_flag={"a": 1}, extra_body={"other": 2},
           extra_headers={"X-Trace": "t1"})
    sent = wire(route)
    assert sent["reasoning_effort"] == "low" and sent["logprobs"] is True
    assert sent["custom_flag"] == {"a": 1} and sent["other"] == 2
    assert route.calls[0].request.headers["x-trace"] == "t1"


def test_stream_options_without_stream_raises(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    with pytest.raises(ai.UnsupportedParameterError) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER,
               stream_options={"include_usage": True})
    assert info.value.parameter == "stream_options"
    assert not route.called


def test_sdk_type_error_becomes_unsupported_parameter(mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    # (a pydantic class as response_format is accepted: tests/client/test_dropin_openai.py)
    route = httpx2_mock.post(URL).respond(200, json=completion())
    with pytest.raises(ai.UnsupportedParameterError) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER, extra_query=5)
    assert "openai rejected an argument" in str(info.value)
    assert not route.called


def test_bad_n_and_bad_role_raise(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=completion())
    with pytest.raises(ai.UnsupportedParameterError):
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER, n=0)
    with pytest.raises(ValueError, match="role"):
        create(mode, CONFIG, model="openai:gpt-4o", messages=[{"role": "robot", "content": "x"}])


def test_callers_messages_are_not_mutated(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=completion())
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": [{"type": "text", "text": "Hi"},
                                     {"type": "image_url", "image_url": "https://x/y.png"}]},
        {"role": "assistant", "content": None, "reasoning_content": "r",
         "provider_specific_fields": {"a": [1]},
         "tool_calls": [call("c1", "get_weather", "{}")]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "ok"},
        {"role": "developer", "content": "D"},
    ]
    before = copy.deepcopy(messages)
    create(mode, CONFIG, model="openai:gpt-4o", messages=messages, tools=[get_weather])
    assert messages == before


# --- configuration -------------------------------------------------------------------------


def test_missing_key_raises_before_any_request(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=completion())
    with pytest.raises(ai.AuthenticationError) as info:
        create(mode, {}, model="openai:gpt-4o", messages=USER)
    assert "OPENAI_API_KEY" in str(info.value)
    assert not route.called


def test_key_from_environment(mode: str, httpx2_mock: respx.Router,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-0000000000")
    route = httpx2_mock.post(URL).respond(200, json=completion())
    create(mode, {"openai": {"max_retries": 0}}, model="openai:gpt-4o", messages=USER)
    assert route.calls[0].request.headers["authorization"] == "Bearer sk-from-env-0000000000"


def test_base_url_override(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://proxy.example.com/v1/chat/completions").respond(
        200, json=completion())
    create(mode, {"openai": {"api_key": KEY, "base_url": "https://proxy.example.com/v1"}},
           model="openai:gpt-4o", messages=USER)
    assert route.called


def test_unknown_config_key_raises() -> None:
    with pytest.raises(ai.ConfigurationError, match="api_kye"):
        ai.Client({"openai": {"api_kye": KEY}}).chat.completions.create(
            model="openai:gpt-4o", messages=USER)


def test_repr_never_shows_the_key() -> None:
    from aisuite_like.providers.openai import OpenAIProvider

    provider = OpenAIProvider(service="openai", api_key=KEY)
    assert KEY not in repr(provider) and KEY not in repr(ai.Client(CONFIG))


def test_aiohttp_async_transport_is_the_sdks_client() -> None:
    import openai

    from aisuite_like.providers.openai import OpenAIProvider

    provider = OpenAIProvider(service="openai", api_key=KEY, async_transport="aiohttp")
    assert isinstance(provider._async()._client, openai.DefaultAioHttpClient)
    default = OpenAIProvider(service="openai", api_key=KEY)
    assert not isinstance(default._async()._client, openai.DefaultAioHttpClient)
    with pytest.raises(ai.ConfigurationError):
        OpenAIProvider(service="openai", api_key=KEY, async_transport="curl")


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("status, cls", [
    (401, ai.AuthenticationError), (403, ai.PermissionDeniedError), (404, ai.NotFoundError),
    (400, ai.BadRequestError), (422, ai.BadRequestError), (500, ai.InternalServerError),
    (503, ai.InternalServerError)])
def test_http_errors_are_mapped(mode: str, httpx2_mock: respx.Router, status: int,
                                cls: type) -> None:
    route = httpx2_mock.post(URL).respond(
        status, json={"error": {"message": f"failure {status}", "type": "x", "code": None}},
        headers={"x-request-id": "req_123"})
    with pytest.raises(cls) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    err = info.value
    assert type(err) is cls
    assert err.status_code == status and err.provider == "openai"
    assert err.request_id == "req_123"
    assert f"failure {status}" in str(err)
    assert err.__cause__ is not None and type(err.__cause__).__module__.startswith("openai")
    assert route.call_count == 1  # max_retries=0: one attempt


def test_rate_limit_carries_retry_after(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(429, json={"error": {"message": "slow down"}},
                                  headers={"retry-after": "7"})
    with pytest.raises(ai.RateLimitError) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert info.value.retry_after == 7.0 and info.value.status_code == 429


def test_context_window_error(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(400, json={"error": {
        "message": "This model's maximum context length is 128000 tokens.",
        "type": "invalid_request_error", "code": "context_length_exceeded"}})
    with pytest.raises(ai.ContextWindowExceededError) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert isinstance(info.value, ai.BadRequestError)


def test_api_key_never_in_error_text(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}. Also sk-otherkey123456789."}})
    with pytest.raises(ai.AuthenticationError) as info:
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    text = str(info.value) + repr(info.value)
    assert KEY not in text and "sk-otherkey123456789" not in text
    assert "[REDACTED]" in text


def test_max_retries_one_makes_two_attempts(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(500, json={"error": {"message": "boom"}},
                           headers={"retry-after-ms": "1"}),
        respx.MockResponse(200, json=completion("recovered")),
    ])
    resp = create(mode, {"openai": {"api_key": KEY, "max_retries": 1}},
                  model="openai:gpt-4o", messages=USER)
    assert resp.choices[0].message.content == "recovered"
    assert route.call_count == 2


def test_connection_error_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    import httpx

    httpx2_mock.post(URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ai.APIConnectionError):
        create(mode, CONFIG, model="openai:gpt-4o", messages=USER)


# --- streaming -----------------------------------------------------------------------------

TEXT_EVENTS = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hel"}),
    chunk({"content": "lo!"}),
    chunk({}, finish="stop"),
    chunk({}, no_choices=True, usage={"prompt_tokens": 10, "completion_tokens": 5,
                                      "total_tokens": 15,
                                      "prompt_tokens_details": {"cached_tokens": 3}}),
]


def test_stream_text_with_usage_on_request(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, content=sse(TEXT_EVENTS),
                                          headers={"content-type": "text/event-stream"})
    seen, final, error, _ = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER,
                                   stream_options={"include_usage": True})
    assert error is None
    assert wire(route) == {"model": "gpt-4o", "messages": USER, "stream": True,
                           "stream_options": {"include_usage": True}}
    assert all(isinstance(c, ai.ChatCompletionChunk) for c in seen)
    assert seen[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Hello!"
    assert [c.choices[0].finish_reason for c in seen if c.choices][-1] == "stop"
    assert seen[-1].choices == [] and seen[-1].usage.total_tokens == 15
    assert final.choices[0].message.content == "Hello!"
    assert final.usage.prompt_tokens_details.cached_tokens == 3


def test_stream_without_stream_options_sends_none(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, content=sse(TEXT_EVENTS[:4]),
                                          headers={"content-type": "text/event-stream"})
    _, final, error, _ = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert error is None and "stream_options" not in wire(route)
    assert final.usage is None and final.choices[0].message.content == "Hello!"


def _tool_events(parallel: bool) -> list:
    events = [
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
    ]
    if parallel:
        events += [
            chunk({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                                   "function": {"name": "get_weather", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"city":"Rome"}'}}]}),
        ]
    events.append(chunk({}, finish="tool_calls"))
    return events


@pytest.mark.parametrize("parallel", [False, True], ids=["single", "parallel"])
def test_stream_tool_calls(mode: str, httpx2_mock: respx.Router, parallel: bool) -> None:
    httpx2_mock.post(URL).respond(200, content=sse(_tool_events(parallel)),
                                  headers={"content-type": "text/event-stream"})
    seen, final, error, _ = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER,
                                   tools=[get_weather])
    assert error is None
    deltas = [tc for c in seen for tc in (c.choices[0].delta.tool_calls or [])]
    firsts = [tc for tc in deltas if tc.id]
    assert [(tc.index, tc.id, tc.function.name) for tc in firsts] == (
        [(0, "call_1", "get_weather"), (1, "call_2", "get_weather")] if parallel
        else [(0, "call_1", "get_weather")])
    assert all(tc.function.name is None for tc in deltas if not tc.id)
    calls = final.choices[0].message.tool_calls
    assert [(c.id, json.loads(c.function.arguments)) for c in calls] == (
        [("call_1", {"city": "Paris"}), ("call_2", {"city": "Rome"})] if parallel
        else [("call_1", {"city": "Paris"})])
    assert final.choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize("case", ["text", "tools"])
def test_stream_final_equals_non_streamed(mode: str, httpx2_mock: respx.Router,
                                          case: str) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
             "completion_tokens_details": {"reasoning_tokens": 2}}
    if case == "text":
        body = completion("Hello!", usage=usage)
        events = [*TEXT_EVENTS[:4], chunk({}, no_choices=True, usage=usage)]
    else:
        body = completion(None, tool_calls=[call("call_1", "get_weather", '{"city":"Paris"}'),
                                            call("call_2", "get_weather", '{"city":"Rome"}')],
                          finish="tool_calls", usage=usage)
        events = [*_tool_events(True), chunk({}, no_choices=True, usage=usage)]
    httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=body),
        respx.MockResponse(200, content=sse(events), headers={"content-type": "text/event-stream"}),
    ])
    if mode == "sync":
        client = ai.Client(CONFIG)
        plain = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        s = client.chat.completions.create(model="openai:gpt-4o", messages=USER, stream=True,
                                           stream_options={"include_usage": True})
        streamed = s.get_final_response()
    else:
        import asyncio

        async def run() -> tuple:
            async with ai.AsyncClient(CONFIG) as client:
                plain = await client.chat.completions.create(model="openai:gpt-4o",
                                                             messages=USER)
                s = await client.chat.completions.create(
                    model="openai:gpt-4o", messages=USER, stream=True,
                    stream_options={"include_usage": True})
                return plain, await s.get_final_response()
        plain, streamed = asyncio.run(run())
    assert streamed.model_dump() == plain.model_dump()


def test_stream_error_event_mid_stream_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": "Hel"}),
              {"error": {"message": "The server had an error", "type": "server_error"}}]
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})
    seen, final, error, kept = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert isinstance(error, ai.InternalServerError) and final is None
    assert "The server had an error" in str(error)
    assert [c.choices[0].delta.content for c in kept] == ["Hel"] and len(seen) == 1


def test_stream_malformed_event_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": "Hel"}), "{not json"]
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})
    _, _, error, kept = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    # A complete event that is not JSON: the reply is malformed (docs/reliability.md).
    assert isinstance(error, ai.APIResponseValidationError) and "not JSON" in str(error)
    assert len(kept) == 1


def test_stream_cut_before_finish_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, content=sse(TEXT_EVENTS[:2], done=False),
                                  headers={"content-type": "text/event-stream"})
    _, _, error, kept = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert isinstance(error, ai.APIConnectionError) and len(kept) == 2


def test_stream_http_error_before_first_chunk(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(429, json={"error": {"message": "slow"}},
                                  headers={"retry-after": "2"})
    _, _, error, kept = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER)
    assert isinstance(error, ai.RateLimitError) and error.retry_after == 2.0 and kept == []


def test_stream_n_greater_than_one(mode: str, httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": "A"}, index=0),
              chunk({"role": "assistant", "content": "B"}, index=1),
              chunk({}, finish="stop", index=0), chunk({}, finish="length", index=1)]
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})
    _, final, error, _ = stream(mode, CONFIG, model="openai:gpt-4o", messages=USER, n=2)
    assert error is None
    assert [(c.index, c.message.content, c.finish_reason) for c in final.choices] == [
        (0, "A", "stop"), (1, "B", "length")]


def test_breaking_out_early_closes_the_response(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, content=sse(TEXT_EVENTS),
                                  headers={"content-type": "text/event-stream"})
    client = ai.Client(CONFIG)
    s = client.chat.completions.create(model="openai:gpt-4o", messages=USER, stream=True)
    with s:
        next(iter(s))
    # The generator is closed: iterating again yields nothing, nothing leaks.
    assert list(s) == [] and len(s.chunks) == 1
