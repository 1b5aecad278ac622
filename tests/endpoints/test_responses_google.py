"""``client.responses.create`` on Gemini: translated through the chat translator and the real
``google-genai`` SDK, HTTP mocked at httpcore2. The wire body is Gemini's (system
instruction, contents, function declarations, generation config); the reply, streamed or not,
comes back as Responses output items that validate as the openai SDK's types; thought
signatures round-trip through the reasoning item's ``encrypted_content``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx
from support.responses_helpers import respond, respond_stream, sdk_events, sdk_response, stream_text

KEY = "AIzaSyTESTKEY-0123456789abcdefghij"
BASE = "https://generativelanguage.googleapis.com/v1beta/models/"
URL = BASE + "gemini-2.5-flash:generateContent"
STREAM_URL = BASE + "gemini-2.5-flash:streamGenerateContent"
CONFIG = {"google": {"api_key": KEY, "max_retries": 0}}
MODEL = "google:gemini-2.5-flash"
MODES = ["sync", "async"]
USAGE = {"promptTokenCount": 20, "candidatesTokenCount": 9, "thoughtsTokenCount": 4,
         "cachedContentTokenCount": 12, "totalTokenCount": 33}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def reply(*parts: dict[str, Any], finish: str = "STOP", rid: str = "r-1") -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "index": 0,
                            "finishReason": finish}],
            "usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash-001", "responseId": rid}


def sse(*events: dict[str, Any]) -> httpx.Response:
    text = "".join(f"data: {json.dumps(e)}\r\n\r\n" for e in events)
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


@pytest.mark.parametrize("mode", MODES)
def test_plain_call_is_translated_both_ways(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(
        {"text": "Pondering.", "thought": True}, {"text": "Paris."}))
    response = respond(mode, CONFIG, model=MODEL, input="Capital of France?",
                       instructions="Be brief.", max_output_tokens=64, temperature=0.1)
    wire = sent(route)
    assert wire["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert wire["contents"] == [{"role": "user", "parts": [{"text": "Capital of France?"}]}]
    assert wire["generationConfig"]["maxOutputTokens"] == 64
    assert wire["generationConfig"]["temperature"] == 0.1
    sdk = sdk_response(response)
    assert sdk.output_text == "Paris."
    assert [i.type for i in sdk.output] == ["reasoning", "message"]
    assert sdk.output[0].content[0].text == "Pondering."
    assert sdk.usage.input_tokens == 20 and sdk.usage.input_tokens_details.cached_tokens == 12
    assert sdk.usage.output_tokens_details.reasoning_tokens == 4


def test_structured_output_and_tools_on_the_wire(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply({"text": '{"city": "Oslo"}'}))
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    respond("sync", CONFIG, model=MODEL, input="Where?", tools=[get_weather],
            tool_choice="none",
            text={"format": {"type": "json_schema", "name": "Place", "schema": schema}})
    wire = sent(route)
    assert wire["generationConfig"]["responseMimeType"] == "application/json"
    assert wire["generationConfig"]["responseJsonSchema"] == schema
    [declaration] = wire["tools"][0]["functionDeclarations"]
    assert declaration["name"] == "get_weather"
    assert wire["toolConfig"]["functionCallingConfig"]["mode"] == "NONE"


def test_thought_signature_round_trips(httpx2_mock: respx.Router) -> None:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
            "thoughtSignature": "c2lnbmF0dXJl"}
    route = httpx2_mock.post(URL).mock(side_effect=[
        httpx.Response(200, json=reply(call)),
        httpx.Response(200, json=reply({"text": "Sunny."}))])
    first = respond("sync", CONFIG, model=MODEL, input="Weather?", tools=[get_weather])
    output = [item.model_dump(exclude_none=True) for item in first.output]
    assert [i["type"] for i in output] == ["reasoning", "function_call"]
    respond("sync", CONFIG, model=MODEL, tools=[get_weather], input=[
        {"role": "user", "content": "Weather?"}, *output,
        {"type": "function_call_output", "call_id": output[1]["call_id"],
         "output": "sunny in Oslo"}])
    model_turn = sent(route, 1)["contents"][1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnbmF0dXJl"
    assert sent(route, 1)["contents"][2]["parts"][0]["functionResponse"]["name"] == \
        "get_weather"


@pytest.mark.parametrize("mode", MODES)
def test_stream_is_translated_to_responses_events(mode: str,
                                                  httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__startswith=STREAM_URL).mock(return_value=sse(
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]},
                         "index": 0}], "responseId": "r-1",
         "modelVersion": "gemini-2.5-flash-001"},
        reply({"text": "lo!"})))
    events, final = respond_stream(mode, CONFIG, model=MODEL, input="hi")
    assert route.called
    sdk_events(events)
    assert stream_text(events) == final.output_text == "Hello!"
    assert final.usage.total_tokens == 33


@pytest.mark.parametrize("mode", MODES)
def test_tool_run_through_gemini(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        httpx.Response(200, json=reply({"functionCall": {"name": "get_weather",
                                                         "args": {"city": "Oslo"}}})),
        httpx.Response(200, json=reply({"text": "Sunny."}, rid="r-2"))])
    response = respond(mode, CONFIG, model=MODEL, input="Weather?", tools=[get_weather],
                       max_turns=3)
    second = sent(route, 1)["contents"]
    call = second[1]["parts"][0]["functionCall"]
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Oslo"})
    assert second[2]["parts"][0]["functionResponse"]["response"] == {
        "output": "sunny in Oslo"}
    sdk = sdk_response(response)
    assert [i.type for i in sdk.output] == ["function_call", "function_call_output", "message"]
    assert sdk.output_text == "Sunny." and response.stop_reason == "completed"


def test_streamed_tool_run_through_gemini(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(url__startswith=STREAM_URL).mock(side_effect=[
        sse(reply({"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}})),
        sse(reply({"text": "Sunny."}, rid="r-2"))])
    events, final = respond_stream("sync", CONFIG, model=MODEL, input="Weather?",
                                   tools=[get_weather], max_turns=2)
    checked = sdk_events(events)
    assert [e.item.type for e in checked if e.type == "response.output_item.done"] == [
        "function_call", "function_call_output", "message"]
    assert final.output_text == "Sunny." and final.tool_events[0].result == "sunny in Oslo"
