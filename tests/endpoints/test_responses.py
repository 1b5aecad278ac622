"""``client.responses.create`` on the offline providers (the ``test`` model, ScriptedProvider):
plain, streamed and tool loops, sync and async; every result through the openai SDK's own
``Response`` / ``ResponseStreamEvent`` types; the request the provider received; the
arguments refused before anything is sent."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support.responses_helpers import respond, respond_stream, sdk_events, sdk_response, stream_text
from pydantic import BaseModel

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider

MODES = ["sync", "acreate", "async"]


def get_weather(city: str) -> str:
    """Current weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


def scripted(*replies: Any) -> tuple[dict[str, Any], ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return {"scripted": provider}, provider


# --- plain calls ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_plain_call_on_the_test_model_is_an_sdk_response(mode: str) -> None:
    response = respond(mode, model="test:m", input="Hello there", instructions="Be brief.",
                       temperature=0.2, max_output_tokens=100)
    sdk = sdk_response(response)
    assert sdk.output_text == response.output_text == 'You said: "Hello there"'
    assert sdk.status == "completed" and sdk.object == "response"
    assert sdk.id.startswith("resp_") and response.provider == "test"
    [message] = sdk.output
    assert message.type == "message" and message.role == "assistant"
    assert message.content[0].type == "output_text"
    # the request's settings are echoed, as OpenAI does
    assert (sdk.instructions, sdk.temperature, sdk.max_output_tokens) == ("Be brief.", 0.2, 100)
    assert sdk.text.format.type == "text" and sdk.tool_choice == "auto"
    usage = sdk.usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.input_tokens_details.cached_tokens == 0


def test_the_provider_receives_the_items_as_chat_messages() -> None:
    providers, provider = scripted("ok")
    image = {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"}
    items = [
        {"role": "developer", "content": "Use tools."},
        {"role": "user", "content": [{"type": "input_text", "text": "What is this?"}, image]},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather",
         "arguments": '{"city": "Oslo"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny in Oslo"},
        {"role": "user", "content": "And now?"},
    ]
    before = copy.deepcopy(items)
    response = respond("sync", providers=providers, model="scripted:m", input=items,
                       instructions="System says hi.")
    assert items == before  # the caller's items are not modified
    assert response.output_text == "ok"
    assert provider.requests[0].messages == [
        {"role": "system", "content": "System says hi."},
        {"role": "developer", "content": "Use tools."},
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png",
                                                "detail": "low"}}]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny in Oslo",
         "name": "get_weather"},
        {"role": "user", "content": "And now?"},
    ]


def test_portable_arguments_reach_the_chat_request() -> None:
    providers, provider = scripted("{}")
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
              "additionalProperties": False}
    respond("sync", providers=providers, model="scripted:m", input="hi",
            tools=[{"type": "function", "name": "get_weather", "description": "Weather.",
                    "parameters": {"type": "object", "properties": {}}}],
            tool_choice={"type": "function", "name": "get_weather"},
            text={"format": {"type": "json_schema", "name": "N", "schema": schema,
                             "strict": True}},
            reasoning={"effort": "low"}, max_output_tokens=50, temperature=0.5, top_p=0.9)
    request = provider.requests[0]
    assert request.tools == [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather.",
        "parameters": {"type": "object", "properties": {}}}}]
    assert request.tool_choice == {"type": "function", "function": {"name": "get_weather"}}
    assert request.response_format == {"type": "json_schema", "json_schema": {
        "name": "N", "schema": schema, "strict": True}}
    assert (request.max_tokens, request.temperature, request.top_p) == (50, 0.5, 0.9)
    assert request.reasoning_effort == "low" and request.extra == {}


def test_structured_output_through_text_format() -> None:
    class City(BaseModel):
        name: str
        population: int

    response = respond("sync", model="test:m", input="A city?", text={"format": {
        "type": "json_schema", "name": "City", "schema": City.model_json_schema(),
        "strict": True}})
    City.model_validate_json(response.output_text)
    assert sdk_response(response).text.format.type == "json_schema"


def test_max_output_tokens_cut_is_incomplete() -> None:
    response = respond("sync", model="test:m", input="a long question " * 10,
                       max_output_tokens=2)
    sdk = sdk_response(response)
    assert sdk.status == "incomplete"
    assert sdk.incomplete_details.reason == "max_output_tokens"


def test_reasoning_comes_back_as_a_reasoning_item_and_goes_back_in() -> None:
    reply = ai.Message(role="assistant", content="42", reasoning_content="thinking hard",
                       provider_specific_fields={"thinking_blocks": [
                           {"type": "thinking", "thinking": "thinking hard",
                            "signature": "sig-1"}]})
    providers, provider = scripted(reply, "sure")
    first = respond("sync", providers=providers, model="scripted:m", input="q",
                    reasoning={"effort": "high", "summary": "auto"})
    sdk = sdk_response(first)
    reasoning, message = sdk.output
    assert reasoning.type == "reasoning" and reasoning.summary[0].text == "thinking hard"
    assert reasoning.encrypted_content  # what the provider needs back, opaque
    assert message.content[0].text == "42"
    # the output given back as input restores the provider's reasoning state exactly
    items = [{"role": "user", "content": "q"},
             *[item.model_dump(exclude_none=True) for item in first.output],
             {"role": "user", "content": "sure?"}]
    respond("sync", providers=providers, model="scripted:m", input=items)
    assert provider.requests[1].messages[1] == {
        "role": "assistant", "content": "42", "reasoning_content": "thinking hard",
        "provider_specific_fields": reply.provider_specific_fields}


def test_manual_mode_returns_function_calls_and_runs_nothing() -> None:
    ran: list[str] = []

    def spy(city: str) -> str:
        """Spy."""
        ran.append(city)
        return "x"

    response = respond("sync", model="test:m", input="Weather?", tools=[spy])
    [call] = sdk_response(response).output
    assert call.type == "function_call" and call.name == "spy"
    assert json.loads(call.arguments) == {"city": "city"} and ran == []


# --- streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_stream_on_the_test_model_yields_sdk_events(mode: str) -> None:
    events, final = respond_stream(mode, model="test:m", input="Hello there")
    checked = sdk_events(events)
    assert [e.type for e in checked[:4]] == [
        "response.created", "response.in_progress", "response.output_item.added",
        "response.content_part.added"]
    assert stream_text(events) == final.output_text == 'You said: "Hello there"'
    assert checked[-1].response.output[0].content[0].text == final.output_text
    assert sdk_response(final).usage.output_tokens > 0


def test_streamed_tool_call_arguments_arrive_as_deltas() -> None:
    events, final = respond_stream("sync", model="test:m", input="Weather?",
                                   tools=[get_weather])
    sdk_events(events)
    added = next(e for e in events if e.type == "response.output_item.added")
    assert added.item.type == "function_call" and added.item.name == "get_weather"
    deltas = "".join(e.delta for e in events
                     if e.type == "response.function_call_arguments.delta")
    done = next(e for e in events if e.type == "response.function_call_arguments.done")
    assert json.loads(deltas) == json.loads(done.arguments) == {"city": "city"}
    assert final.output[0].call_id == added.item.call_id


# --- tool runs -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_tool_run_on_the_test_model(mode: str) -> None:
    response = respond(mode, model="test:m", input="Weather in Oslo?", tools=[get_weather],
                       max_turns=3)
    sdk = sdk_response(response)
    assert [item.type for item in sdk.output] == ["function_call", "function_call_output",
                                                  "message"]
    call, output, _ = sdk.output
    assert output.call_id == call.call_id and output.output == "sunny in city"
    assert sdk.output_text == "Tool results: get_weather: sunny in city"
    assert response.stop_reason == "completed"
    [event] = response.tool_events
    assert (event.name, event.result, event.is_error) == ("get_weather", "sunny in city", False)
    # usage summed over the two model calls
    assert response.usage.total_tokens == response.raw.usage.total_tokens
    assert len(response.raw.intermediate_responses) == 1


@pytest.mark.parametrize("mode", MODES)
def test_streamed_tool_run_on_the_test_model(mode: str) -> None:
    events, final = respond_stream(mode, model="test:m", input="Weather?",
                                   tools=[get_weather], max_turns=3)
    checked = sdk_events(events)
    assert sum(e.type == "response.created" for e in checked) == 1  # one response, all turns
    items = [e.item.type for e in checked if e.type == "response.output_item.done"]
    assert items == ["function_call", "function_call_output", "message"]
    assert stream_text(events) == final.output_text
    assert [i.type for i in sdk_response(final).output] == items
    assert final.stop_reason == "completed" and len(final.tool_events) == 1


def test_tool_run_policies_and_max_turns_as_on_chat() -> None:
    def delete_file(path: str) -> str:
        """Delete a file."""
        raise AssertionError("never runs: denied")

    response = respond("sync", model="test:m", input="clean up", tools=[delete_file],
                       max_turns=1, tool_policy=ai.AllowTools(["get_weather"]))
    sdk = sdk_response(response)
    assert [i.type for i in sdk.output] == ["function_call", "function_call_output"]
    assert sdk.output[1].output.startswith("Error: tool call denied by policy: tool "
                                           "'delete_file' is not allowed")
    assert response.stop_reason == "max_turns" and response.tool_events[0].allowed is False
    with pytest.raises(ai.MaxTurnsExceeded) as info:
        respond("sync", model="test:m", input="clean up", tools=[get_weather], max_turns=1,
                on_max_turns="raise")
    assert info.value.response.stop_reason == "max_turns"


def test_approval_callback_decides_each_call() -> None:
    asked: list[str] = []

    def approve(ctx: ai.ToolPolicyContext) -> bool:
        asked.append(ctx.tool_name)
        return ctx.arguments.get("city") == "city"

    response = respond("sync", model="test:m", input="Weather?", tools=[get_weather],
                       max_turns=2, tool_policy=ai.RequireApproval(approve))
    assert asked == ["get_weather"] and response.tool_events[0].allowed


def test_runner_options_need_max_turns() -> None:
    with pytest.raises(ValueError, match="only apply to the tool runner"):
        respond("sync", model="test:m", input="x", tools=[get_weather],
                tool_policy=ai.AllowAll())


# --- refused before anything is sent ----------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    ({"previous_response_id": "resp_1"}, "previous_response_id refers to state OpenAI"),
    ({"conversation": "conv_1"}, "conversation refers to state"),
    ({"store": True}, "store=True"),
    ({"include": ["file_search_call.results"]}, "include"),
    ({"tools": [{"type": "web_search"}]}, "hosted tools"),
    ({"tools": [{"type": "mcp", "server_label": "x", "server_url": "https://x"}]},
     "pass an aisuite_like.mcp server object"),
    ({"tool_choice": {"type": "web_search"}}, "hosted tool"),
    ({"metadata": {"a": "b"}}, "metadata"),
    ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "item_reference"),
    ({"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}]},
     "file_id"),
    ({"text": {"format": {"type": "text"}, "verbosity": "low"}}, "verbosity"),
    ({"reasoning": {"effort": "low", "mode": "x"}}, "mode"),
])
def test_what_this_provider_cannot_honour_is_refused_before_sending(
        kwargs: dict[str, Any], match: str) -> None:
    providers, provider = scripted("never")
    arguments: dict[str, Any] = {"input": "hi", **kwargs}
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        respond("sync", providers=providers, model="scripted:m", **arguments)
    assert provider.requests == []


def test_store_false_and_the_reasoning_include_are_honoured_everywhere() -> None:
    response = respond("sync", model="test:m", input="hi", store=False,
                       include=["reasoning.encrypted_content"])
    assert response.output_text == 'You said: "hi"'


@pytest.mark.parametrize("kwargs, error", [
    ({"input": None}, TypeError), ({"input": {"role": "user"}}, TypeError),
    ({"input": "x", "max_turns": 0}, ValueError), ({"input": "x", "stream": "yes"}, TypeError),
    ({"input": "x", "temperature": "hot"}, ValueError),
    ({"input": [{"role": "robot", "content": "x"}]}, ai.UnsupportedParameterError),
    ({"input": "x", "model": "no-colon"}, ai.InvalidModelError),
])
def test_bad_arguments_raise_typed_errors(kwargs: dict[str, Any], error: type) -> None:
    arguments = {"model": "test:m", **kwargs}
    with pytest.raises(error):
        respond("sync", **arguments)


def test_offline_under_block_real_requests() -> None:
    with ai.testing.block_real_requests():
        assert respond("sync", model="test:m", input="hi").output_text == 'You said: "hi"'
        with pytest.raises(ai.testing.RealRequestBlockedError):
            respond("sync", {"openai": {"api_key": "sk-x"}}, model="openai:gpt-5", input="hi")


def test_translated_calls_go_through_the_response_cache() -> None:
    providers, provider = scripted("cached answer")
    with ai.Client(providers=providers, cache=ai.cache.MemoryCache()) as client:
        first = client.responses.create(model="scripted:m", input="hi")
        second = client.responses.create(model="scripted:m", input="hi")
    assert first.output_text == second.output_text == "cached answer"
    assert len(provider.requests) == 1  # the second was answered by the cache
    assert second.raw.cache_hit is True


def test_native_calls_are_not_cached() -> None:
    with pytest.raises(ai.UnsupportedParameterError, match="not cached"):
        respond("sync", {"openai": {"api_key": "sk-test-0123456789"}}, model="openai:gpt-5",
                input="hi", cache=True)
