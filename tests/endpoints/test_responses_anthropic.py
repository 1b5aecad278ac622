"""``client.responses.create`` on Anthropic: translated through the chat translator and the
real ``anthropic`` SDK, HTTP mocked at httpcore2. The wire body is Anthropic's Messages API
(instructions as ``system``, items as messages, tools, ``max_tokens``, structured output);
the reply, streamed or not, comes back as Responses output items that validate as the openai
SDK's types; thinking blocks round-trip through the reasoning item's ``encrypted_content``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx
from support.responses_helpers import respond, respond_stream, sdk_events, sdk_response, stream_text

import aisuite_like as ai

URL = "https://api.anthropic.com/v1/messages"
KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
CONFIG = {"anthropic": {"api_key": KEY, "max_retries": 0}}
MODEL = "anthropic:claude-sonnet-4-6"
MODES = ["sync", "async"]
USAGE = {"input_tokens": 11, "output_tokens": 7, "cache_read_input_tokens": 5,
         "cache_creation_input_tokens": 2}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def reply(content: list[dict[str, Any]], stop: str = "end_turn",
          msg_id: str = "msg_01") -> dict[str, Any]:
    return {"id": msg_id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-6-20260101", "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": USAGE}


def sse(message: dict[str, Any]) -> httpx.Response:
    """What Anthropic streams for ``message`` (text, arguments and thinking in pieces)."""
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**USAGE, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty, pieces = {"type": "text", "text": ""}, [
                ("text_delta", "text", block["text"][:3]),
                ("text_delta", "text", block["text"][3:])]
        elif block["type"] == "tool_use":
            arguments = json.dumps(block["input"])
            empty, pieces = {**block, "input": {}}, [
                ("input_json_delta", "partial_json", arguments[:4]),
                ("input_json_delta", "partial_json", arguments[4:])]
        else:
            empty, pieces = {"type": "thinking", "thinking": "", "signature": ""}, [
                ("thinking_delta", "thinking", block["thinking"]),
                ("signature_delta", "signature", block["signature"])]
        events.append({"type": "content_block_start", "index": i, "content_block": empty})
        events += [{"type": "content_block_delta", "index": i,
                    "delta": {"type": kind, field: value}} for kind, field, value in pieces]
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "usage": {"output_tokens": 7},
                   "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None}})
    events.append({"type": "message_stop"})
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, content=text.encode(),
                          headers={"content-type": "text/event-stream"})


def sent(route: Any, i: int = -1) -> dict[str, Any]:
    return json.loads(route.calls[i].request.content)


def get_weather(city: str) -> str:
    """Current weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


THINKING = {"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"}


@pytest.mark.parametrize("mode", MODES)
def test_plain_call_is_translated_both_ways(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply([{"type": "text", "text": "Paris."}]))
    image = "data:image/png;base64,iVBORw0KGgo="
    response = respond(
        mode, CONFIG, model=MODEL, instructions="Be brief.", max_output_tokens=64,
        temperature=0.3,
        input=[{"role": "user", "content": [
            {"type": "input_text", "text": "Capital?"},
            {"type": "input_image", "image_url": image}]}])
    wire = sent(route)
    assert wire["system"] == "Be brief." and wire["max_tokens"] == 64
    assert wire["temperature"] == 0.3
    assert wire["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "Capital?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": "iVBORw0KGgo="}}]}]
    sdk = sdk_response(response)
    assert sdk.output_text == "Paris." and sdk.status == "completed"
    assert response.provider == "anthropic" and sdk.model == "claude-sonnet-4-6-20260101"
    # usage with the Responses API's names: input includes the cache reads and writes
    assert sdk.usage.input_tokens == 18 and sdk.usage.input_tokens_details.cached_tokens == 5
    assert sdk.usage.input_tokens_details.cache_write_tokens == 2
    assert sdk.usage.output_tokens == 7


def test_tools_choice_and_structured_output_on_the_wire(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply([{"type": "text",
                                                           "text": '{"city": "Oslo"}'}]))
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"], "additionalProperties": False}
    response = respond("sync", CONFIG, model=MODEL, input="Where?", tools=[get_weather],
                       tool_choice="required",
                       text={"format": {"type": "json_schema", "name": "Place",
                                        "schema": schema, "strict": True}})
    wire = sent(route)
    assert wire["tools"] == [{"name": "get_weather", "description": "Current weather.",
                              "input_schema": {"type": "object", "properties": {
                                  "city": {"type": "string", "description": "The city."}},
                                  "required": ["city"], "additionalProperties": False}}]
    assert wire["tool_choice"] == {"type": "any"}
    assert wire["output_config"]["format"]["schema"] == schema
    assert json.loads(response.output_text) == {"city": "Oslo"}
    assert sdk_response(response).tools[0].name == "get_weather"


def test_thinking_round_trips_through_the_reasoning_item(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        httpx.Response(200, json=reply([THINKING, {"type": "text", "text": "42"}])),
        httpx.Response(200, json=reply([{"type": "text", "text": "Yes."}]))])
    first = respond("sync", CONFIG, model=MODEL, input="Answer?", max_output_tokens=2000,
                    thinking={"type": "enabled", "budget_tokens": 1024})
    assert sent(route, 0)["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    sdk = sdk_response(first)
    assert [i.type for i in sdk.output] == ["reasoning", "message"]
    assert sdk.output[0].content[0].text == "Let me think."
    assert sdk.output[0].encrypted_content
    history = [{"role": "user", "content": "Answer?"},
               *[item.model_dump(exclude_none=True) for item in first.output],
               {"role": "user", "content": "Sure?"}]
    respond("sync", CONFIG, model=MODEL, input=history, max_output_tokens=2000,
            thinking={"type": "enabled", "budget_tokens": 1024})
    assert sent(route, 1)["messages"][1] == {"role": "assistant", "content": [
        THINKING, {"type": "text", "text": "42"}]}


@pytest.mark.parametrize("mode", MODES)
def test_stream_is_translated_to_responses_events(mode: str,
                                                  httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(return_value=sse(reply(
        [THINKING, {"type": "text", "text": "Hello world"}])))
    events, final = respond_stream(mode, CONFIG, model=MODEL, input="hi",
                                   max_output_tokens=100)
    assert sent(route)["stream"] is True
    checked = sdk_events(events)
    assert [e.type for e in checked if e.type.startswith("response.reasoning_text")] == [
        "response.reasoning_text.delta", "response.reasoning_text.done"]
    assert stream_text(events) == final.output_text == "Hello world"
    reasoning = sdk_response(final).output[0]
    assert reasoning.content[0].text == "Let me think." and reasoning.encrypted_content
    assert final.usage.output_tokens == 7


@pytest.mark.parametrize("mode", MODES)
def test_tool_run_through_anthropic(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        httpx.Response(200, json=reply([{"type": "tool_use", "id": "toolu_1",
                                         "name": "get_weather", "input": {"city": "Oslo"}}],
                                       stop="tool_use")),
        httpx.Response(200, json=reply([{"type": "text", "text": "Sunny."}], msg_id="msg_02"))])
    response = respond(mode, CONFIG, model=MODEL, input="Weather?", tools=[get_weather],
                       max_turns=3, max_output_tokens=100)
    assert sent(route, 1)["messages"][1:] == [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
                                           "name": "get_weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "sunny in Oslo"}]}]
    sdk = sdk_response(response)
    assert [i.type for i in sdk.output] == ["function_call", "function_call_output", "message"]
    assert sdk.output_text == "Sunny." and sdk.usage.output_tokens == 14


def test_streamed_tool_run_through_anthropic(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=[
        sse(reply([{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                    "input": {"city": "Oslo"}}], stop="tool_use")),
        sse(reply([{"type": "text", "text": "Sunny."}]))])
    events, final = respond_stream("sync", CONFIG, model=MODEL, input="Weather?",
                                   tools=[get_weather], max_turns=2, max_output_tokens=100)
    checked = sdk_events(events)
    deltas = "".join(e.delta for e in checked
                     if e.type == "response.function_call_arguments.delta")
    assert json.loads(deltas) == {"city": "Oslo"}
    assert [e.item.type for e in checked if e.type == "response.output_item.done"] == [
        "function_call", "function_call_output", "message"]
    assert final.output_text == "Sunny." and final.tool_events[0].result == "sunny in Oslo"


def test_server_state_is_refused_before_sending(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply([{"type": "text", "text": "x"}]))
    with pytest.raises(ai.UnsupportedParameterError, match="previous_response_id"):
        respond("sync", CONFIG, model=MODEL, input="hi", previous_response_id="resp_1")
    assert not route.called
