"""``client.responses.create`` on OpenAI and Azure: native, through the openai SDK's own
``responses`` resource with HTTP mocked at httpcore2. The wire body is the caller's arguments
as given; the reply and the stream events come back with every field, and validate as the
SDK's types. Tool runs (``max_turns``) call ``/v1/responses`` each turn and send the output
items back as they came (reasoning with ``encrypted_content``); the chat tool runner does the
same with the provider config ``api="responses"``. Every test runs on both transports, the SDK's
and the native one (tests/support/transports.py)."""

from __future__ import annotations

import json
from typing import Any, Optional

import httpx
import pytest
import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401  (the fixture)
from support.responses_helpers import respond, respond_stream, sdk_events, sdk_response, stream_text
from support.transports import each_transport, native, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai

URL = "https://api.openai.com/v1/responses"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}
MODES = ["sync", "async"]


def body(output: list[dict[str, Any]], *, rid: str = "resp_01", status: str = "completed",
         usage: Optional[dict[str, Any]] = None, **extra: Any) -> dict[str, Any]:
    """A reply as OpenAI's Responses API sends it."""
    return {
        "id": rid, "object": "response", "created_at": 1741476542, "status": status,
        "error": None, "incomplete_details": None, "instructions": None,
        "max_output_tokens": None, "model": "gpt-5-2025-08-07", "output": output,
        "parallel_tool_calls": True, "previous_response_id": None,
        "reasoning": {"effort": "low", "summary": None}, "store": True, "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"}, "tool_choice": "auto",
        "tools": [], "top_p": 1.0, "truncation": "disabled",
        "usage": usage or {"input_tokens": 36, "input_tokens_details": {"cached_tokens": 4},
                           "output_tokens": 87,
                           "output_tokens_details": {"reasoning_tokens": 64},
                           "total_tokens": 123},
        "user": None, "metadata": {}, "service_tier": "default", **extra}


def message(text: str, mid: str = "msg_01") -> dict[str, Any]:
    return {"id": mid, "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [],
                         "logprobs": []}]}


def reasoning(rid: str = "rs_01", encrypted: Optional[str] = None) -> dict[str, Any]:
    item: dict[str, Any] = {"id": rid, "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": "Thinking."}]}
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def function_call(call_id: str, name: str, arguments: str, fid: str = "fc_01"
                  ) -> dict[str, Any]:
    return {"id": fid, "type": "function_call", "status": "completed", "call_id": call_id,
            "name": name, "arguments": arguments}


def sse(events: list[dict[str, Any]]) -> httpx.Response:
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, content=text.encode(),
                          headers={"content-type": "text/event-stream"})


def stream_of(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The events OpenAI streams for ``reply`` (text and arguments in two deltas each)."""
    events: list[dict[str, Any]] = []
    start = {**reply, "status": "in_progress", "output": [], "usage": None}
    events.append({"type": "response.created", "response": start})
    events.append({"type": "response.in_progress", "response": start})
    for index, item in enumerate(reply["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "content": []}})
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            events.append({"type": "response.content_part.added", "item_id": item["id"],
                           "output_index": index, "content_index": 0, "part": part})
            for piece in (text[:2], text[2:]):
                events.append({"type": "response.output_text.delta", "item_id": item["id"],
                               "output_index": index, "content_index": 0, "delta": piece,
                               "logprobs": []})
            events.append({"type": "response.output_text.done", "item_id": item["id"],
                           "output_index": index, "content_index": 0, "text": text,
                           "logprobs": []})
            events.append({"type": "response.content_part.done", "item_id": item["id"],
                           "output_index": index, "content_index": 0,
                           "part": {**part, "text": text}})
        elif item["type"] == "function_call":
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "arguments": ""}})
            arguments = item["arguments"]
            for piece in (arguments[:3], arguments[3:]):
                events.append({"type": "response.function_call_arguments.delta",
                               "item_id": item["id"], "output_index": index, "delta": piece})
            events.append({"type": "response.function_call_arguments.done",
                           "item_id": item["id"], "output_index": index,
                           "arguments": arguments})
        else:
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": item})
        events.append({"type": "response.output_item.done", "output_index": index,
                       "item": item})
    events.append({"type": "response.completed", "response": reply})
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


def sent(route: Any, i: int = -1) -> dict[str, Any]:
    """The JSON body of a call ``route`` answered, checked to have come on the transport the
    test runs on (the native one names itself in its User-Agent)."""
    request = route.calls[i].request
    assert ("(native)" in request.headers["user-agent"]) == native(), request.headers
    return json.loads(request.content)


def get_weather(city: str) -> str:
    """Current weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


WEATHER = {"type": "function", "name": "get_weather", "description": "Current weather.",
           "parameters": {"type": "object", "properties": {
               "city": {"type": "string", "description": "The city."}},
               "required": ["city"], "additionalProperties": False}, "strict": False}


# --- native calls -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_native_call_sends_the_arguments_as_given(mode: str,
                                                  httpx2_mock: respx.Router) -> None:
    reply = body([reasoning(), message("Paris.")])
    route = httpx2_mock.post(URL).respond(200, json=reply)
    items = [{"role": "user", "content": [{"type": "input_text", "text": "Capital?"},
                                          {"type": "input_file", "file_id": "file-1"}]},
             {"type": "item_reference", "id": "msg_0"}]
    response = respond(mode, with_transport(CONFIG), model="openai:gpt-5", input=items,
                       instructions="Be brief.", tools=[{"type": "web_search"}],
                       tool_choice="auto", max_output_tokens=300, temperature=1.0,
                       reasoning={"effort": "low", "summary": "auto"},
                       text={"format": {"type": "text"}, "verbosity": "low"},
                       previous_response_id="resp_00", store=True,
                       include=["reasoning.encrypted_content"], metadata={"k": "v"},
                       truncation="auto", prompt_cache_key="pk", my_new_option=7)
    assert sent(route) == {
        "model": "gpt-5", "input": items, "instructions": "Be brief.",
        "tools": [{"type": "web_search"}], "tool_choice": "auto", "max_output_tokens": 300,
        "temperature": 1.0, "reasoning": {"effort": "low", "summary": "auto"},
        "text": {"format": {"type": "text"}, "verbosity": "low"},
        "previous_response_id": "resp_00", "store": True,
        "include": ["reasoning.encrypted_content"], "metadata": {"k": "v"},
        "truncation": "auto", "prompt_cache_key": "pk", "my_new_option": 7}
    assert route.calls[-1].request.headers["authorization"] == f"Bearer {KEY}"
    # every field of the reply is kept
    assert response.to_dict() == {**reply, "provider": "openai"}
    assert response.raw == reply
    sdk = sdk_response(response)
    assert sdk.output_text == "Paris." and sdk.output[0].summary[0].text == "Thinking."
    assert sdk.usage.output_tokens_details.reasoning_tokens == 64


def test_functions_are_sent_as_responses_function_tools(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(
        200, json=body([function_call("call_1", "get_weather", '{"city":"Oslo"}')]))
    response = respond("sync", with_transport(CONFIG), model="openai:gpt-5",
                       input="Weather in Oslo?",
                       tools=[get_weather, {"type": "web_search"}])
    assert sent(route)["tools"] == [WEATHER, {"type": "web_search"}]
    [call] = sdk_response(response).output
    assert (call.call_id, call.name, call.arguments) == ("call_1", "get_weather",
                                                        '{"city":"Oslo"}')


@pytest.mark.parametrize("mode", MODES)
def test_native_stream_yields_the_sdk_events(mode: str, httpx2_mock: respx.Router) -> None:
    reply = body([reasoning(), message("Hello!"),
                  function_call("call_1", "get_weather", '{"city":"Oslo"}')])
    route = httpx2_mock.post(URL).mock(return_value=sse(stream_of(reply)))
    events, final = respond_stream(mode, with_transport(CONFIG), model="openai:gpt-5",
                                   input="hi")
    assert sent(route)["stream"] is True
    checked = sdk_events(events)
    assert [e.type for e in checked] == [e["type"] for e in stream_of(reply)]
    assert stream_text(events) == "Hello!"
    assert isinstance(events[3], ai.responses.ResponseTextDeltaEvent) or any(
        isinstance(e, ai.responses.ResponseTextDeltaEvent) for e in events)
    assert final.to_dict() == {**reply, "provider": "openai"}


def test_native_stream_error_event_raises_the_typed_error(httpx2_mock: respx.Router) -> None:
    events = stream_of(body([message("Hi")]))[:3] + [
        {"type": "error", "code": "rate_limit_exceeded", "message": "slow down",
         "param": None, "sequence_number": 3}]
    httpx2_mock.post(URL).mock(return_value=sse(events))
    with ai.Client(with_transport(CONFIG)) as client:
        stream = client.responses.create(model="openai:gpt-5", input="hi", stream=True)
        with pytest.raises(ai.APIError, match="slow down"):
            list(stream)
        assert [e.type for e in stream.events][:2] == ["response.created",
                                                      "response.in_progress"]


def test_a_stream_cut_before_response_completed_is_a_lost_connection(
        httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(return_value=sse(stream_of(body([message("Hi")]))[:-1]))
    with pytest.raises(ai.APIConnectionError, match="before the response was complete"):
        respond_stream("sync", with_transport(CONFIG), model="openai:gpt-5", input="hi")


@pytest.mark.parametrize("mode", MODES)
def test_native_http_errors_are_typed_and_never_show_the_key(
        mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(429, json={"error": {
        "message": f"Rate limit for key {KEY}", "type": "requests", "code": "rate_limit"}},
        headers={"retry-after": "3"})
    with pytest.raises(ai.RateLimitError) as info:
        respond(mode, with_transport(CONFIG), model="openai:gpt-5", input="hi")
    assert KEY not in str(info.value) and info.value.retry_after == 3


def test_native_calls_are_retried_by_the_shared_retry_policy(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        httpx.Response(503, json={"error": {"message": "busy"}}),
        httpx.Response(200, json=body([message("ok")]))])
    config = {"openai": {"api_key": KEY, "max_retries": 1,
                         "retry_clock": ai.testing.FakeClock()}}
    response = respond("sync", with_transport(config), model="openai:gpt-5", input="hi")
    assert response.output_text == "ok"
    assert route.call_count == 2


def test_azure_is_native_too(httpx2_mock: respx.Router) -> None:
    endpoint = "https://res.openai.azure.com"
    route = httpx2_mock.post(url__startswith=f"{endpoint}/openai/").respond(
        200, json=body([message("from azure")]))
    config = {"azure": {"api_key": "az-key", "azure_endpoint": endpoint,
                        "api_version": "2025-04-01-preview", "max_retries": 0}}
    response = respond("sync", with_transport(config), model="azure:my-deployment", input="hi")
    assert response.output_text == "from azure" and response.provider == "azure"
    request = route.calls[-1].request
    assert request.url.path.endswith("/responses")
    assert request.url.params["api-version"] == "2025-04-01-preview"
    assert sent(route)["model"] == "my-deployment"


def test_services_without_a_responses_api_are_translated(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.groq.com/openai/v1/chat/completions").respond(
        200, json={"id": "c1", "object": "chat.completion", "created": 1, "model": "llama",
                   "choices": [{"index": 0, "finish_reason": "stop", "message": {
                       "role": "assistant", "content": "hola"}}],
                   "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}})
    response = respond("sync", with_transport({"groq": {"api_key": "gsk-x", "max_retries": 0}}),
                       model="groq:llama", input="hi", instructions="Spanish.",
                       max_output_tokens=20)
    assert sent(route)["messages"] == [{"role": "system", "content": "Spanish."},
                                       {"role": "user", "content": "hi"}]
    assert sent(route)["max_completion_tokens"] == 20
    assert sdk_response(response).output_text == "hola"
    with pytest.raises(ai.UnsupportedParameterError, match="previous_response_id"):
        respond("sync", with_transport({"groq": {"api_key": "gsk-x"}}), model="groq:llama",
                input="hi", previous_response_id="resp_1")


# --- tool runs over the Responses API --------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_tool_run_carries_reasoning_items_between_turns(mode: str,
                                                        httpx2_mock: respx.Router) -> None:
    turn1 = body([reasoning("rs_1", encrypted="gAAAA-secret-state"),
                  function_call("call_1", "get_weather", '{"city":"Oslo"}')], rid="resp_1",
                 store=False)
    turn2 = body([reasoning("rs_2", encrypted="gAAAA-more"), message("Sunny in Oslo.")],
                 rid="resp_2", store=False)
    route = httpx2_mock.post(URL).mock(side_effect=[httpx.Response(200, json=turn1),
                                                    httpx.Response(200, json=turn2)])
    response = respond(mode, with_transport(CONFIG), model="openai:o4-mini",
                       input="Weather in Oslo?",
                       instructions="Use tools.", tools=[get_weather], max_turns=3,
                       reasoning={"effort": "medium"}, store=False)
    first, second = sent(route, 0), sent(route, 1)
    # store=False: the encrypted reasoning is asked for, so it can go back
    assert first["include"] == ["reasoning.encrypted_content"] and first["store"] is False
    assert first["instructions"] == "Use tools." and first["reasoning"] == {"effort": "medium"}
    assert first["input"] == [{"role": "user", "content": "Weather in Oslo?"}]
    assert first["tools"] == [WEATHER]
    # the second turn sends the first turn's output items back exactly, then the result
    assert second["input"] == [
        {"role": "user", "content": "Weather in Oslo?"}, *turn1["output"],
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny in Oslo"}]
    assert second["instructions"] == "Use tools."
    sdk = sdk_response(response)
    assert [i.type for i in sdk.output] == ["reasoning", "function_call",
                                            "function_call_output", "reasoning", "message"]
    assert sdk.output[0].encrypted_content == "gAAAA-secret-state"
    assert sdk.output_text == "Sunny in Oslo." and sdk.id == "resp_2"
    assert response.usage.total_tokens == 246 and response.stop_reason == "completed"


@pytest.mark.parametrize("mode", MODES)
def test_streamed_tool_run_over_the_responses_api(mode: str,
                                                  httpx2_mock: respx.Router) -> None:
    turn1 = body([reasoning("rs_1", encrypted="enc-1"),
                  function_call("call_1", "get_weather", '{"city":"Oslo"}')], rid="resp_1")
    turn2 = body([message("Sunny.")], rid="resp_2")
    route = httpx2_mock.post(URL).mock(side_effect=[sse(stream_of(turn1)),
                                                    sse(stream_of(turn2))])
    events, final = respond_stream(mode, with_transport(CONFIG), model="openai:o4-mini",
                                   input="Weather?",
                                   tools=[get_weather], max_turns=2)
    assert sent(route, 1)["input"][1:3] == turn1["output"]  # reasoning back, exactly
    checked = sdk_events(events)
    assert [e.item.type for e in checked if e.type == "response.output_item.done"] == [
        "reasoning", "function_call", "function_call_output", "message"]
    assert stream_text(events) == "Sunny."
    # the final response holds OpenAI's own items
    assert final.output[0].id == "rs_1" and final.output[0].encrypted_content == "enc-1"
    sdk_response(final)


def test_chat_tool_runner_over_responses_with_api_config(httpx2_mock: respx.Router) -> None:
    turn1 = body([reasoning("rs_1", encrypted="enc-1"),
                  function_call("call_1", "get_weather", '{"city":"Oslo"}')], rid="resp_1")
    turn2 = body([message("Sunny in Oslo.")], rid="resp_2")
    route = httpx2_mock.post(URL).mock(side_effect=[httpx.Response(200, json=turn1),
                                                    httpx.Response(200, json=turn2)])
    config = {"openai": {"api_key": KEY, "max_retries": 0, "api": "responses"}}
    with ai.Client(with_transport(config)) as client:
        response = client.chat.completions.create(
            model="openai:o4-mini", messages=[{"role": "system", "content": "Use tools."},
                                              {"role": "user", "content": "Weather?"}],
            tools=[get_weather], max_turns=3, max_completion_tokens=500,
            reasoning_effort="high", store=False)
    first, second = sent(route, 0), sent(route, 1)
    assert first["input"] == [{"role": "system", "content": "Use tools."},
                              {"role": "user", "content": "Weather?"}]
    assert first["max_output_tokens"] == 500 and first["reasoning"] == {"effort": "high"}
    assert first["include"] == ["reasoning.encrypted_content"]
    # the reasoning of the tool-call turn survives into the next turn
    assert second["input"][2:] == [*turn1["output"], {
        "type": "function_call_output", "call_id": "call_1", "output": "sunny in Oslo"}]
    assert response.content == "Sunny in Oslo." and response.stop_reason == "completed"
    assert response.messages[2].reasoning_content == "Thinking."
    assert response.usage.completion_tokens == 174


def test_chat_over_responses_takes_the_portable_knobs(httpx2_mock: respx.Router) -> None:
    """reasoning_effort and prompt_cache="auto" reach /v1/responses as that API names them."""
    route = httpx2_mock.post(URL).mock(return_value=httpx.Response(
        200, json=body([message("ok")])))
    config = {"openai": {"api_key": KEY, "max_retries": 0, "api": "responses"}}
    with ai.Client(with_transport(config)) as client:
        client.chat.completions.create(model="openai:gpt-5", reasoning_effort="minimal",
                                       prompt_cache="auto",
                                       messages=[{"role": "system", "content": "Be brief."},
                                                 {"role": "user", "content": "hi"}])
    first = sent(route, 0)
    assert first["reasoning"] == {"effort": "minimal"}
    assert first["prompt_cache_key"].startswith("aisuite-")
    assert "reasoning_effort" not in first and "prompt_cache" not in first


def test_chat_stream_over_responses(httpx2_mock: respx.Router) -> None:
    reply = body([reasoning(), message("Hello!")])
    httpx2_mock.post(URL).mock(return_value=sse(stream_of(reply)))
    config = {"openai": {"api_key": KEY, "max_retries": 0, "api": "responses"}}
    with ai.Client(with_transport(config)) as client:
        stream = client.chat.completions.create(model="openai:gpt-5", stream=True,
                                                messages=[{"role": "user", "content": "hi"}])
        chunks = list(stream)
        final = stream.get_final_response()
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello!"
    assert final.choices[0].finish_reason == "stop" and final.usage.total_tokens == 123


@pytest.mark.parametrize("config, match", [
    ({"groq": {"api_key": "g", "api": "responses"}}, "has no Responses API"),
    ({"openai": {"api_key": "k", "api": "assistants"}}, "api must be 'chat' or 'responses'"),
])
def test_api_config_is_checked(config: dict[str, Any], match: str) -> None:
    key = next(iter(config))
    with pytest.raises(ai.ConfigurationError, match=match):
        ai.Client(with_transport(config)).chat.completions.create(
            model=f"{key}:m", messages=[{"role": "user", "content": "hi"}])


def test_chat_arguments_the_responses_api_lacks_are_refused(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=body([message("x")]))
    config = {"openai": {"api_key": KEY, "api": "responses"}}
    with pytest.raises(ai.UnsupportedParameterError, match="stop"):
        ai.Client(with_transport(config)).chat.completions.create(
            model="openai:gpt-5", messages=[{"role": "user", "content": "hi"}], stop=["x"])
    assert not route.called


def _call_stream(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """A streamed reply whose function call comes whole in its items (no argument deltas)."""
    start = {**reply, "status": "in_progress", "output": [], "usage": None}
    item = reply["output"][0]
    events = [{"type": "response.created", "response": start},
              {"type": "response.output_item.added", "output_index": 0, "item": item},
              {"type": "response.output_item.done", "output_index": 0, "item": item},
              {"type": "response.completed", "response": reply}]
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("arguments,runs", [({"city": "Oslo"}, True), (3, False),
                                            (None, False), (["Oslo"], False),
                                            (True, False)])
def test_a_function_call_whose_arguments_are_not_a_string_is_read_as_chat_reads_it(
        arguments: Any, runs: bool, mode: str, stream: bool,
        httpx2_mock: respx.Router) -> None:
    """``function_call.arguments`` that is not the JSON string the API defines (an object, a
    number, null) is read as the chat translator reads such a call: an object as its JSON,
    anything else an error result the model reads, the tool not run; the item goes back,
    and into the final response, with string arguments. Nothing raises."""
    ran: list[str] = []

    def get_weather(city: str) -> str:
        """Current weather.

        Args:
            city: The city.
        """
        ran.append(city)
        return f"sunny in {city}"

    turn1 = body([{**function_call("call_1", "get_weather", ""), "arguments": arguments}],
                 rid="resp_1")
    turn2 = body([message("Done.")], rid="resp_2")
    replies = ([sse(_call_stream(turn1)), sse(stream_of(turn2))] if stream
               else [httpx.Response(200, json=turn1), httpx.Response(200, json=turn2)])
    route = httpx2_mock.post(URL).mock(side_effect=replies)
    kwargs: dict[str, Any] = {"model": "openai:gpt-4o", "input": "Weather?",
                              "tools": [get_weather], "max_turns": 2}
    if stream:
        _, response = respond_stream(mode, with_transport(CONFIG), **kwargs)
    else:
        response = respond(mode, with_transport(CONFIG), **kwargs)
    second = sent(route, 1)["input"]
    call, result = second[-2], second[-1]
    assert call["type"] == "function_call" and isinstance(call["arguments"], str)
    assert result["type"] == "function_call_output" and result["call_id"] == "call_1"
    if runs:
        assert ran == ["Oslo"] and result["output"] == "sunny in Oslo"
    else:
        assert ran == [] and result["output"].startswith("Error: ")
    assert response.output_text == "Done."
    sdk_response(response)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the test's own bad call
def test_the_tool_runner_answers_non_string_arguments_with_an_error_result() -> None:
    """A provider of one's own whose tool call carries arguments that are not a string: an
    error result, not an AttributeError."""
    from aisuite_like.core.types import Function, ToolCall
    from aisuite_like.testing import ScriptedProvider

    call = ToolCall.model_construct(id="c1", type="function", function=Function.model_construct(
        name="get_weather", arguments={"city": "Oslo"}))
    provider = ScriptedProvider([ai.ChatCompletionResponse.model_construct(
        id="r", choices=[ai.Choice.model_construct(index=0, message=ai.Message.model_construct(
            role="assistant", tool_calls=[call]), finish_reason="tool_calls")]), "ok"])
    with ai.Client(providers={"mine": provider}) as client:
        response = client.chat.completions.create(
            model="mine:m", messages=[{"role": "user", "content": "hi"}],
            tools=[get_weather], max_turns=2)
    tool_message = response.choices[0].intermediate_messages[1]
    assert tool_message.role == "tool" and "must be a JSON object in a string" in str(
        tool_message.content)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("run", [False, True], ids=["native", "tool-run"])
def test_a_stream_answered_with_a_plain_json_response_is_that_response(
        run: bool, mode: str, httpx2_mock: respx.Router) -> None:
    """A server that answers a Responses stream request with the whole response as JSON: the
    stream ends with that response (its ``response.completed``), in one attempt."""
    reply = body([message("Sunny.")], rid="resp_plain")
    route = httpx2_mock.post(URL).mock(return_value=httpx.Response(200, json=reply))
    kwargs: dict[str, Any] = {"model": "openai:gpt-4o", "input": "Weather?"}
    if run:
        kwargs.update(tools=[get_weather], max_turns=2)
    events, final = respond_stream(mode, with_transport(CONFIG), **kwargs)
    assert route.call_count == 1
    assert final.output_text == "Sunny."
    assert events[-1].type == "response.completed"
    sdk_response(final)


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_answered_with_a_plain_error_object_is_its_typed_error(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(return_value=httpx.Response(200, json={
        "error": {"message": "bad input", "type": "invalid_request_error"}}))
    with pytest.raises(ai.BadRequestError, match="bad input"):
        respond_stream(mode, with_transport(CONFIG), model="openai:gpt-4o", input="hi")
    assert route.call_count == 1
