"""The google provider (Gemini API, Vertex AI) through the real google-genai SDK, HTTP mocked at
httpcore2, asserting the wire JSON the SDK sent. Every behaviour is checked sync and async."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any, Optional

from support import client_calls as _calls
import pytest
import respx
from support.client_calls import wire

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "AIzaSyTESTKEY-0123456789abcdefghij"
BASE = "https://generativelanguage.googleapis.com/v1beta/models/"
URL = BASE + "gemini-2.5-flash:generateContent"
STREAM_URL = BASE + "gemini-2.5-flash:streamGenerateContent"
MODEL = "google:gemini-2.5-flash"
CONFIG = {"google": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "user", "content": "Hi"}]


@pytest.fixture
def httpx2_mock() -> Any:
    """pytest-httpx2's fixture (respx on httpcore2), without "every route must be called":
    some tests prove that NO request was made."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


# --- helpers: Gemini bodies and sync/async drivers (no logic under test here) ---------------


def part_text(text: str, **extra: Any) -> dict[str, Any]:
    return {"text": text, **extra}


def part_call(name: str, args: dict[str, Any], id: Optional[str] = None,
              signature: Optional[str] = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": args}
    if id is not None:
        call["id"] = id
    part: dict[str, Any] = {"functionCall": call}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


USAGE = {"promptTokenCount": 20, "candidatesTokenCount": 9, "thoughtsTokenCount": 4,
         "cachedContentTokenCount": 12, "totalTokenCount": 33}


def reply(*parts: dict[str, Any], finish: Optional[str] = "STOP", usage: Optional[dict] = None,
          rid: str = "resp-1", candidates: Optional[list[dict]] = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "candidates": candidates if candidates is not None else [
            {"content": {"role": "model", "parts": list(parts)}, "index": 0,
             **({"finishReason": finish} if finish else {})}],
        "modelVersion": "gemini-2.5-flash-001", "responseId": rid}
    body["usageMetadata"] = usage if usage is not None else USAGE
    return body


def sse(events: list[Any]) -> bytes:
    return "".join(f"data: {e if isinstance(e, str) else json.dumps(e)}\r\n\r\n"
                   for e in events).encode()


def create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    kwargs.setdefault("model", MODEL)
    return _calls.create(mode, config, **kwargs)


def stream(mode: str, config: dict[str, Any], **kwargs: Any) -> tuple[list, Any, Optional[BaseException], list]:
    kwargs.setdefault("model", MODEL)
    return _calls.stream(mode, config, **kwargs)


def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: The city name.
    """
    return "sunny"


WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}


# --- replies -------------------------------------------------------------------------------


def test_text_reply_with_reasoning_and_usage(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(
        part_text("Let me think.", thought=True), part_text("Hel"), part_text("lo!")))
    resp = create(mode, CONFIG, messages=USER)
    assert wire(route) == {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    request = route.calls[0].request
    assert request.headers["x-goog-api-key"] == KEY
    assert isinstance(resp, ai.ChatCompletionResponse)
    assert resp.provider == "google" and resp.model == "gemini-2.5-flash-001"
    assert resp.id == "resp-1"
    message = resp.choices[0].message
    assert message.content == "Hello!" and message.reasoning_content == "Let me think."
    assert resp.choices[0].finish_reason == "stop"
    assert resp.choices[0].native_finish_reason == "STOP"
    usage = resp.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (20, 13, 33)
    assert usage.prompt_tokens_details.cached_tokens == 12
    assert usage.completion_tokens_details.reasoning_tokens == 4
    assert message.model_dump(exclude_none=True) == {
        "role": "assistant", "content": "Hello!", "reasoning_content": "Let me think."}


def test_gemini_alias_and_env_key(mode: str, httpx2_mock: respx.Router,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("GOOGLE_API_KEY", "AIzaSyOTHER-should-not-be-used-000000")
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    resp = create(mode, {"gemini": {"max_retries": 0}}, model="gemini:gemini-2.5-flash",
                  messages=USER)
    assert resp.content == "ok" and resp.provider == "google"
    assert route.calls[0].request.headers["x-goog-api-key"] == KEY


def test_single_tool_call_from_a_callable(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(
        part_call("get_weather", {"city": "Paris"}, id="abc123", signature="SIG1")))
    resp = create(mode, CONFIG, messages=USER, tools=[get_weather])
    sent = wire(route)
    declaration = sent["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather"
    assert declaration["description"] == "Weather of a city."
    schema = declaration["parametersJsonSchema"]
    assert schema["properties"]["city"]["type"] == "string" and schema["required"] == ["city"]
    assert "toolConfig" not in sent
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.native_finish_reason == "STOP"
    [tc] = choice.message.tool_calls
    assert (tc.id, tc.type, tc.function.name) == ("abc123", "function", "get_weather")
    assert json.loads(tc.function.arguments) == {"city": "Paris"}
    assert choice.message.provider_specific_fields == {"thought_signatures": [
        {"part": "function_call", "id": "abc123", "signature": "SIG1"}]}


def test_parallel_tool_calls_without_ids_get_stable_ids(mode: str,
                                                        httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=reply(
        part_text("Checking both."),
        part_call("get_weather", {"city": "Paris"}), part_call("get_weather", {"city": "Rome"}),
        rid="R9"))
    resp = create(mode, CONFIG, messages=USER, tools=[WEATHER_TOOL])
    calls = resp.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["call_R9_0", "call_R9_1"]
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Rome"]
    assert resp.choices[0].message.content == "Checking both."
    assert resp.choices[0].finish_reason == "tool_calls"


def test_manual_round_trip_sends_calls_results_and_system_every_turn(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=reply(
            part_call("get_weather", {"city": "Paris"}, signature="SIG-A"),
            part_call("get_weather", {"city": "Rome"}), rid="T1")),
        respx.MockResponse(200, json=reply(part_text("Sunny in both."))),
    ])
    messages: list[Any] = [{"role": "system", "content": "Be brief."},
                           {"role": "user", "content": "Weather in Paris and Rome?"}]
    first = create(mode, CONFIG, messages=messages, tools=[WEATHER_TOOL])
    assistant = first.choices[0].message
    messages = messages + [assistant] + [
        {"role": "tool", "tool_call_id": tc.id, "content": f"sunny in {city}"}
        for tc, city in zip(assistant.tool_calls, ["Paris", "Rome"])]
    second = create(mode, CONFIG, messages=messages, tools=[WEATHER_TOOL])
    assert second.choices[0].message.content == "Sunny in both."
    system = {"parts": [{"text": "Be brief."}]}
    assert wire(route, 0)["systemInstruction"] == system
    sent = wire(route, 1)
    assert sent["systemInstruction"] == system
    assert sent["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"},
                              "id": "call_T1_0"}, "thoughtSignature": "SIG-A"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"},
                              "id": "call_T1_1"}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "id": "call_T1_0",
                                  "response": {"output": "sunny in Paris"}}},
            {"functionResponse": {"name": "get_weather", "id": "call_T1_1",
                                  "response": {"output": "sunny in Rome"}}}]},
    ]


def test_tool_results_without_ids_match_calls_by_position(mode: str,
                                                          httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "first", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "second",
                                                          "arguments": '{"x": 1}'}}]},
        {"role": "tool", "content": "one"},
        {"role": "tool", "content": "two"},
        {"role": "user", "content": "and now?"},
    ]
    create(mode, CONFIG, messages=messages)
    contents = wire(route)["contents"]
    assert contents[1] == {"role": "model", "parts": [
        {"functionCall": {"name": "first", "args": {}, "id": "a"},
         "thoughtSignature": "skip_thought_signature_validator"},
        {"functionCall": {"name": "second", "args": {"x": 1}, "id": "b"}}]}
    # consecutive tool results and the next user turn form ONE user content
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "first", "id": "a", "response": {"output": "one"}}},
        {"functionResponse": {"name": "second", "id": "b", "response": {"output": "two"}}},
        {"text": "and now?"}]}
    assert len(contents) == 3


def test_history_from_another_provider_gets_the_placeholder_signature(
        mode: str, httpx2_mock: respx.Router) -> None:
    """A conversation that starts on OpenAI and goes on on Gemini: OpenAI's calls carry no
    thought signature, so the first call of that turn goes out with Google's documented
    placeholder (Gemini 3 refuses a history whose first call has none); a call Gemini signed
    keeps its own signature; a call the application wrote gets the placeholder too."""
    openai = httpx2_mock.post("https://api.openai.com/v1/chat/completions").respond(200, json={
        "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": "call_oa_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_oa_2", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]}}]})
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=reply(
            part_call("get_weather", {"city": "Oslo"}, id="g1", signature="SIG-G"), rid="T2")),
        respx.MockResponse(200, json=reply(part_text("Sunny everywhere."))),
    ])
    config = {**CONFIG, "openai": {"api_key": "sk-test-0123456789", "max_retries": 0}}
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris, Rome and Oslo?"}]
    first = create(mode, config, model="openai:gpt-4o", messages=messages, tools=[WEATHER_TOOL])
    messages += [first.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": "call_oa_1", "content": "sunny"},
                 {"role": "tool", "tool_call_id": "call_oa_2", "content": "sunny"}]
    second = create(mode, config, messages=messages, tools=[WEATHER_TOOL])
    messages += [second.choices[0].message,
                 {"role": "tool", "tool_call_id": "g1", "content": "sunny"},
                 {"role": "assistant", "content": None, "tool_calls": [  # written by the app
                     {"id": "app_1", "type": "function",
                      "function": {"name": "get_weather", "arguments": '{"city": "Nice"}'}}]},
                 {"role": "tool", "tool_call_id": "app_1", "content": "sunny"}]
    snapshot = json.dumps(messages[1], sort_keys=True)
    create(mode, config, messages=messages, tools=[WEATHER_TOOL])
    assert openai.call_count == 1
    contents = wire(route, 1)["contents"]
    placeholder = "skip_thought_signature_validator"
    assert [c["role"] for c in contents] == ["user", "model", "user", "model", "user",
                                             "model", "user"]
    assert contents[1]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_oa_1"},
         "thoughtSignature": placeholder},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}, "id": "call_oa_2"}}]
    assert contents[3]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "g1"},
         "thoughtSignature": "SIG-G"}]
    assert contents[5]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Nice"}, "id": "app_1"},
         "thoughtSignature": placeholder}]
    assert json.dumps(messages[1], sort_keys=True) == snapshot  # the caller's data, unchanged
    assert wire(route, 0)["contents"][1]["parts"][0]["thoughtSignature"] == placeholder


def test_tool_result_that_matches_no_call_is_refused(mode: str,
                                                     httpx2_mock: respx.Router) -> None:
    # Gemini answers a functionResponse without its functionCall turn with a 400: refused
    # before sending, naming the message (docs/portability.md).
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    with pytest.raises(ai.OrphanToolMessageError, match=r"messages\[1\].*'zz'") as info:
        create(mode, CONFIG, messages=[{"role": "user", "content": "x"},
                                       {"role": "tool", "tool_call_id": "zz", "name": "f",
                                        "content": "r"}])
    assert info.value.index == 1
    assert route.call_count == 0


def test_thought_signatures_restored_on_the_same_parts(mode: str,
                                                       httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=reply(
            part_text("plan", thought=True, thoughtSignature="SIG-T"),
            part_text("Answer", thoughtSignature="SIG-X"),
            part_call("f", {}, id="c1", signature="SIG-C"))),
        respx.MockResponse(200, json=reply(part_text("done"))),
    ])
    first = create(mode, CONFIG, messages=USER, tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "properties": {}}}}])
    message = first.choices[0].message
    assert message.reasoning_content == "plan" and message.content == "Answer"
    # The message survives a dump (what users append) and comes back with its signatures.
    history = USER + [message.model_dump(exclude_none=True),
                      {"role": "tool", "tool_call_id": "c1", "content": "r"}]
    create(mode, CONFIG, messages=history)
    assert wire(route, 1)["contents"][1] == {"role": "model", "parts": [
        {"text": "plan", "thought": True, "thoughtSignature": "SIG-T"},
        {"text": "Answer", "thoughtSignature": "SIG-X"},
        {"functionCall": {"name": "f", "args": {}, "id": "c1"}, "thoughtSignature": "SIG-C"}]}


def test_empty_assistant_and_user_turns_are_sent_as_empty_text(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    create(mode, CONFIG, messages=[{"role": "user", "content": ""},
                                   {"role": "assistant", "content": None},
                                   {"role": "user", "content": "again"}])
    assert wire(route)["contents"] == [
        {"role": "user", "parts": [{"text": ""}]},
        {"role": "model", "parts": [{"text": ""}]},
        {"role": "user", "parts": [{"text": "again"}]}]


def test_system_and_developer_messages_anywhere_join_system_instruction(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    create(mode, CONFIG, messages=[
        {"role": "system", "content": "A"}, {"role": "user", "content": "u"},
        {"role": "developer", "content": [{"type": "text", "text": "B"}]}])
    sent = wire(route)
    assert sent["systemInstruction"] == {"parts": [{"text": "A"}, {"text": "B"}]}
    assert sent["contents"] == [{"role": "user", "parts": [{"text": "u"}]}]


def test_images_http_url_and_data_url(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("a cat")))
    create(mode, CONFIG, messages=[{"role": "user", "content": [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png?size=2"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/photo"}},
        {"type": "image_url", "image_url": {"url": "data:image/webp;base64,UklGRg=="}},
    ]}])
    assert wire(route)["contents"][0]["parts"] == [
        {"text": "What is this?"},
        {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.png?size=2"}},
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/photo"}},
        {"inlineData": {"mimeType": "image/webp", "data": "UklGRg=="}},
    ]


# --- portable parameters -------------------------------------------------------------------


def test_generation_parameters(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(candidates=[
        {"content": {"role": "model", "parts": [{"text": "one"}]}, "finishReason": "STOP",
         "index": 0},
        {"content": {"role": "model", "parts": [{"text": "two"}]},
         "finishReason": "MAX_TOKENS", "index": 1}]))
    resp = create(mode, CONFIG, messages=USER, temperature=0.2, top_p=0.9, max_tokens=50,
                  stop="END", seed=7, n=2)
    assert wire(route)["generationConfig"] == {
        "temperature": 0.2, "topP": 0.9, "maxOutputTokens": 50, "stopSequences": ["END"],
        "seed": 7, "candidateCount": 2}
    assert [c.message.content for c in resp.choices] == ["one", "two"]
    assert [c.finish_reason for c in resp.choices] == ["stop", "length"]


@pytest.mark.parametrize("tool_choice, expected", [
    ("auto", {"mode": "AUTO"}),
    ("none", {"mode": "NONE"}),
    ("required", {"mode": "ANY"}),
    ({"type": "function", "function": {"name": "get_weather"}},
     {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}),
])
def test_tool_choice(mode: str, httpx2_mock: respx.Router, tool_choice: Any,
                     expected: dict) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    create(mode, CONFIG, messages=USER, tools=[WEATHER_TOOL], tool_choice=tool_choice)
    assert wire(route)["toolConfig"] == {"functionCallingConfig": expected}


def test_response_format_json_object_and_schema(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text('{"a": 1}')))
    create(mode, CONFIG, messages=USER, response_format={"type": "json_object"})
    assert wire(route)["generationConfig"] == {"responseMimeType": "application/json"}
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "title": "Pet", "additionalProperties": False,
              "properties": {"kind": {"const": "cat"},
                             "born": {"type": "string", "format": "date", "description": "d"},
                             "friend": {"$ref": "#/$defs/Friend"}},
              "$defs": {"Friend": {"type": "object", "properties": {"format": {
                  "type": "integer"}}}},
              "required": ["kind"]}
    original = copy.deepcopy(schema)
    create(mode, CONFIG, messages=USER, response_format={
        "type": "json_schema", "json_schema": {"name": "Pet", "schema": schema}})
    sent = wire(route)["generationConfig"]
    assert sent["responseMimeType"] == "application/json"
    assert sent["responseJsonSchema"] == {
        "type": "object", "title": "Pet", "additionalProperties": False,
        "properties": {"kind": {"enum": ["cat"], "type": "string"},
                       "born": {"type": "string", "description": "d (format: date)"},
                       "friend": {"$ref": "#/$defs/Friend"}},
        "$defs": {"Friend": {"type": "object", "properties": {"format": {"type": "integer"}}}},
        "required": ["kind"]}
    assert schema == original  # the caller's schema is not touched


@pytest.mark.parametrize("kwargs, parameter", [
    ({"user": "u-1"}, "user"),
    ({"parallel_tool_calls": False, "tools": [WEATHER_TOOL]}, "parallel_tool_calls"),
    ({"tool_choice": "required"}, "tool_choice"),
    ({"tool_choice": {"type": "allowed_tools"}, "tools": [WEATHER_TOOL]}, "tool_choice"),
    ({"response_format": {"type": "xml"}}, "response_format"),
    ({"logit_bias": {"1": 2}}, "logit_bias"),
    ({"tools": [{"type": "web_search", "name": "ws"}]}, "tools"),
    ({"max_tokens": 5, "max_output_tokens": 6}, "max_output_tokens"),
    ({"stream_options": {"include_obfuscation": True}}, "stream_options"),
])
def test_unsupported_parameters_raise_before_any_request(
        mode: str, httpx2_mock: respx.Router, kwargs: dict, parameter: str) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    with pytest.raises(ai.UnsupportedParameterError) as info:
        create(mode, CONFIG, messages=USER, **kwargs)
    assert info.value.parameter == parameter
    assert parameter in str(info.value)
    assert route.call_count == 0


def test_native_arguments_pass_through(mode: str, httpx2_mock: respx.Router) -> None:
    from google.genai import types

    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    safety = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    create(mode, CONFIG, messages=USER, tools=[WEATHER_TOOL], gemini_tools=[{"googleSearch": {}}],
           top_k=5, thinking_config=types.ThinkingConfig(thinking_budget=0),
           responseModalities=["TEXT"], safety_settings=safety, cached_content="cachedContents/1",
           extra_body={"generationConfig": {"presencePenalty": 0.5}, "labels": {"a": "b"}})
    sent = wire(route)
    assert sent["generationConfig"] == {"topK": 5, "thinkingConfig": {"thinking_budget": 0},
                                        "responseModalities": ["TEXT"], "presencePenalty": 0.5}
    assert sent["safetySettings"] == safety
    assert sent["cachedContent"] == "cachedContents/1" and sent["labels"] == {"a": "b"}
    assert sent["tools"][1] == {"googleSearch": {}}


def test_per_request_timeout_and_native_http_options(mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    create(mode, CONFIG, messages=USER, timeout=12.5, http_options={"headers": {"x-trace": "1"}})
    request = route.calls[0].request
    assert request.headers["x-trace"] == "1"
    assert request.headers["x-server-timeout"] == "13"  # google-genai's deadline header


def test_provider_config_headers_base_url_and_timeout(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://proxy.example/v1beta/models/m:generateContent").respond(
        200, json=reply(part_text("ok")))
    client = ai.Client({"google": {"api_key": KEY, "base_url": "https://proxy.example/",
                                   "default_headers": {"x-team": "t1"}, "timeout": 30}})
    client.chat.completions.create(model="google:m", messages=USER)
    request = route.calls[0].request
    assert request.headers["x-team"] == "t1" and request.headers["x-server-timeout"] == "30"


def test_vertex_ai_url_shape_and_bearer_token(mode: str, httpx2_mock: respx.Router) -> None:
    from google.oauth2.credentials import Credentials

    url = ("https://us-central1-aiplatform.googleapis.com/v1beta1/projects/my-proj/locations/"
           "us-central1/publishers/google/models/gemini-2.5-flash:generateContent")
    route = httpx2_mock.post(url).respond(200, json=reply(part_text("from vertex")))
    config = {"google": {"vertexai": True, "project": "my-proj", "location": "us-central1",
                         "credentials": Credentials(token="ya29.test-token"), "max_retries": 0}}
    resp = create(mode, config, messages=USER)
    assert resp.content == "from vertex"
    request = route.calls[0].request
    assert request.headers["authorization"] == "Bearer ya29.test-token"
    assert "x-goog-api-key" not in request.headers
    assert wire(route) == {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}


def test_configuration_errors_say_what_to_set() -> None:
    with pytest.raises(ai.AuthenticationError, match="GEMINI_API_KEY"):
        ai.Client().chat.completions.create(model=MODEL, messages=USER)
    with pytest.raises(ai.ConfigurationError, match="Known keys"):
        ai.Client({"google": {"api_key": KEY, "organization": "x"}}).chat.completions.create(
            model=MODEL, messages=USER)
    with pytest.raises(ai.ConfigurationError, match="vertexai=True"):
        ai.Client({"google": {"api_key": KEY, "project": "p"}}).chat.completions.create(
            model=MODEL, messages=USER)


def test_translator_module_imports_no_sdk() -> None:
    code = ("import sys, aisuite_like.providers.google as g; "
            "print([m for m in ('google.genai', 'httpx2') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_callers_messages_are_not_mutated(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "q"},
                                     {"type": "image_url", "image_url": {"url": "https://x/y.gif"}}]},
        {"role": "assistant", "content": "c", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "f", "arguments": '{"a": 2}'}}],
         "provider_specific_fields": {"thought_signatures": [
             {"part": "function_call", "id": "c1", "signature": "S"}]}},
        {"role": "tool", "tool_call_id": "c2", "content": "r2"},  # out of call order
        {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "r"},
    ]
    before = copy.deepcopy(messages)
    tools = [copy.deepcopy(WEATHER_TOOL)]
    create(mode, CONFIG, messages=messages, tools=tools, response_format={
        "type": "json_schema", "json_schema": {"name": "x", "schema": {"const": 1}}})
    assert messages == before
    assert tools == [WEATHER_TOOL]


# --- errors --------------------------------------------------------------------------------


def error_body(code: int, status: str, message: str, details: Optional[list] = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return {"error": error}


@pytest.mark.parametrize("status, name, cls", [
    (400, "INVALID_ARGUMENT", ai.BadRequestError),
    (401, "UNAUTHENTICATED", ai.AuthenticationError),
    (403, "PERMISSION_DENIED", ai.PermissionDeniedError),
    (404, "NOT_FOUND", ai.NotFoundError),
    (429, "RESOURCE_EXHAUSTED", ai.RateLimitError),
    (500, "INTERNAL", ai.InternalServerError),
    (503, "UNAVAILABLE", ai.InternalServerError),
])
def test_http_errors_are_typed(mode: str, httpx2_mock: respx.Router, status: int, name: str,
                               cls: type) -> None:
    route = httpx2_mock.post(URL).respond(status, json=error_body(status, name, "went wrong"),
                                          headers={"x-request-id": "req-42"})
    with pytest.raises(cls) as info:
        create(mode, CONFIG, messages=USER)
    err = info.value
    assert type(err) is cls
    assert err.provider == "google" and err.status_code == status
    assert err.request_id == "req-42"
    assert "went wrong" in str(err) and name in str(err)
    assert err.__cause__ is not None and type(err.__cause__).__module__ == "google.genai.errors"
    assert route.call_count == 1  # max_retries=0: one attempt


def test_rate_limit_retry_after_from_header_and_retry_info(mode: str,
                                                           httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(429, json=error_body(429, "RESOURCE_EXHAUSTED", "slow down"),
                           headers={"retry-after": "7"}),
        respx.MockResponse(429, json=error_body(429, "RESOURCE_EXHAUSTED", "quota", details=[
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}])),
    ])
    for expected in (7.0, 37.0):
        with pytest.raises(ai.RateLimitError) as info:
            create(mode, CONFIG, messages=USER)
        assert info.value.retry_after == expected
    assert route.call_count == 2


def test_max_retries_one_makes_two_attempts(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(503, json=error_body(503, "UNAVAILABLE", "overloaded")),
        respx.MockResponse(200, json=reply(part_text("recovered"))),
    ])
    config = {"google": {"api_key": KEY, "max_retries": 1,
                         "retry_clock": FakeClock()}}
    resp = create(mode, config, messages=USER)
    assert resp.content == "recovered"
    assert route.call_count == 2


def test_context_window_error(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(400, json=error_body(
        400, "INVALID_ARGUMENT",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."))
    with pytest.raises(ai.ContextWindowExceededError) as info:
        create(mode, CONFIG, messages=USER)
    assert isinstance(info.value, ai.BadRequestError) and info.value.status_code == 400


def test_api_key_never_in_error_text(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(400, json=error_body(
        400, "INVALID_ARGUMENT", f"API key not valid: {KEY} (also AIzaSyANOTHERKEY1234567890abc)"))
    with pytest.raises(ai.BadRequestError) as info:
        create(mode, CONFIG, messages=USER)
    text = str(info.value) + repr(info.value)
    assert KEY not in text and "AIzaSyANOTHERKEY1234567890abc" not in text
    assert "[REDACTED]" in text


def test_connection_error_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    import httpx

    httpx2_mock.post(URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ai.APIConnectionError):
        create(mode, CONFIG, messages=USER)


def test_timeout_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    import httpx

    httpx2_mock.post(URL).mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(ai.APITimeoutError):
        create(mode, CONFIG, messages=USER)


# --- streaming -----------------------------------------------------------------------------


def event(*parts: dict[str, Any], finish: Optional[str] = None, usage: Optional[dict] = None,
          rid: str = "S1", index: Optional[int] = 0) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if index is not None:
        cand["index"] = index
    if finish:
        cand["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [cand], "modelVersion": "gemini-2.5-flash-001",
                            "responseId": rid}
    if usage:
        body["usageMetadata"] = usage
    return body


def stream_route(router: respx.Router, events: list[Any]) -> Any:
    return router.post(STREAM_URL, params={"alt": "sse"}).respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})


def test_stream_text_with_usage_on_the_last_chunk(mode: str, httpx2_mock: respx.Router) -> None:
    route = stream_route(httpx2_mock, [
        event(part_text("think", thought=True), usage={"promptTokenCount": 5}),
        event(part_text("Hel"), usage={"promptTokenCount": 5, "candidatesTokenCount": 1}),
        event(part_text("lo!"), finish="STOP", usage=USAGE),
    ])
    seen, final, error, _ = stream(mode, CONFIG, messages=USER, temperature=0)
    assert error is None
    assert wire(route) == {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                           "generationConfig": {"temperature": 0}}
    assert seen[0].choices[0].delta.role == "assistant"
    assert seen[0].choices[0].delta.reasoning_content == "think"
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Hello!"
    finishes = [c.choices[0].finish_reason for c in seen if c.choices]
    assert finishes == [None, None, "stop"]
    assert all(c.usage is None for c in seen[:-1])
    assert seen[-1].choices == [] and seen[-1].usage.prompt_tokens == 20
    assert seen[-1].usage.completion_tokens == 13
    assert final.choices[0].message.content == "Hello!"
    assert final.choices[0].message.reasoning_content == "think"
    assert final.usage.total_tokens == 33 and final.provider == "google"


def test_stream_single_tool_call_is_one_delta(mode: str, httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [
        event(part_call("get_weather", {"city": "Paris"}, id="g1", signature="SIG")),
        event(part_text(""), finish="STOP", usage=USAGE),
    ])
    seen, final, error, _ = stream(mode, CONFIG, messages=USER, tools=[WEATHER_TOOL])
    assert error is None
    [delta] = [tc for c in seen if c.choices for tc in c.choices[0].delta.tool_calls or ()]
    assert (delta.index, delta.id, delta.type) == (0, "g1", "function")
    assert delta.function.name == "get_weather"
    assert json.loads(delta.function.arguments) == {"city": "Paris"}
    assert [c.choices[0].finish_reason for c in seen if c.choices][-1] == "tool_calls"
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.choices[0].message.provider_specific_fields == {"thought_signatures": [
        {"part": "function_call", "id": "g1", "signature": "SIG"}]}


def test_stream_parallel_tool_calls_keep_indices(mode: str, httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [
        event(part_call("get_weather", {"city": "Paris"})),
        event(part_call("get_weather", {"city": "Rome"}), part_call("get_weather", {"city": "Oslo"}),
              finish="STOP", usage=USAGE),
    ])
    seen, final, error, _ = stream(mode, CONFIG, messages=USER, tools=[WEATHER_TOOL])
    assert error is None
    deltas = [tc for c in seen if c.choices for tc in c.choices[0].delta.tool_calls or ()]
    assert [d.index for d in deltas] == [0, 1, 2]
    assert [d.id for d in deltas] == ["call_S1_0", "call_S1_1", "call_S1_2"]
    calls = final.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Rome", "Oslo"]


def test_stream_final_response_equals_the_non_streamed_one(mode: str,
                                                           httpx2_mock: respx.Router) -> None:
    parts = [part_text("plan", thought=True, thoughtSignature="T"), part_text("Hello "),
             part_text("there", thoughtSignature="X"), part_call("f", {"a": [1, "é"]}),
             part_call("g", {}, id="own-id", signature="C")]
    httpx2_mock.post(URL).respond(200, json=reply(*parts, rid="SAME"))
    stream_route(httpx2_mock, [
        event(parts[0], rid="SAME"), event(parts[1], rid="SAME"), event(parts[2], rid="SAME"),
        event(parts[3], rid="SAME"), event(parts[4], finish="STOP", usage=USAGE, rid="SAME"),
    ])
    complete = create(mode, CONFIG, messages=USER)
    _, final, error, _ = stream(mode, CONFIG, messages=USER)
    assert error is None
    assert final.model_dump(exclude={"created"}) == complete.model_dump(exclude={"created"})
    assert final.choices[0].finish_reason == "tool_calls"


def test_stream_error_event_mid_stream_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [
        event(part_text("Hel")),
        {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}},
        event(part_text("never"), finish="STOP"),
    ])
    seen, final, error, chunks = stream(mode, CONFIG, messages=USER)
    assert isinstance(error, ai.InternalServerError) and error.status_code == 503
    assert "overloaded" in str(error)
    assert final is None
    assert [c.choices[0].delta.content for c in chunks] == ["Hel"]


def test_stream_cut_before_finish_is_a_connection_error(mode: str,
                                                        httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [event(part_text("Hel")), event(part_text("lo"))])
    seen, final, error, chunks = stream(mode, CONFIG, messages=USER)
    assert isinstance(error, ai.APIConnectionError)
    assert len(chunks) == 2


def test_stream_malformed_event_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [event(part_text("Hel")), "{not json"])
    seen, final, error, chunks = stream(mode, CONFIG, messages=USER)
    # A complete event that is not JSON: a malformed reply (docs/reliability.md).
    assert isinstance(error, ai.APIResponseValidationError)
    assert len(chunks) == 1


def test_stream_http_error_is_typed(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(STREAM_URL, params={"alt": "sse"}).respond(
        401, json=error_body(401, "UNAUTHENTICATED", "bad key"))
    seen, final, error, chunks = stream(mode, CONFIG, messages=USER)
    assert isinstance(error, ai.AuthenticationError) and chunks == []


def test_stream_prompt_blocked_is_content_filter(mode: str, httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [{"promptFeedback": {"blockReason": "SAFETY"}, "responseId": "B",
                                "usageMetadata": {"promptTokenCount": 3}}])
    _, final, error, _ = stream(mode, CONFIG, messages=USER)
    assert error is None
    assert final.choices[0].finish_reason == "content_filter"
    assert final.choices[0].native_finish_reason == "SAFETY"
    assert final.choices[0].message.content is None


def test_prompt_blocked_is_content_filter(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json={
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "responseId": "B",
        "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}})
    resp = create(mode, CONFIG, messages=USER)
    choice = resp.choices[0]
    assert choice.finish_reason == "content_filter"
    assert choice.native_finish_reason == "PROHIBITED_CONTENT"
    assert "PROHIBITED_CONTENT" in choice.message.refusal


@pytest.mark.parametrize("native, expected", [
    ("SAFETY", "content_filter"), ("RECITATION", "content_filter"),
    ("PROHIBITED_CONTENT", "content_filter"), ("MAX_TOKENS", "length"),
    ("MALFORMED_FUNCTION_CALL", "stop"), ("OTHER", "stop")])
def test_finish_reasons(httpx2_mock: respx.Router, native: str, expected: str) -> None:
    httpx2_mock.post(URL).respond(200, json=reply(part_text("x"), finish=native))
    choice = create("sync", CONFIG, messages=USER).choices[0]
    assert (choice.finish_reason, choice.native_finish_reason) == (expected, native)


def test_closing_a_stream_early_releases_the_connection(httpx2_mock: respx.Router) -> None:
    stream_route(httpx2_mock, [event(part_text("a")), event(part_text("b")),
                               event(part_text("c"), finish="STOP")])
    client = ai.Client(CONFIG)
    s = client.chat.completions.create(model=MODEL, messages=USER, stream=True)
    first = next(iter(s))
    assert first.choices[0].delta.content == "a"
    s.close()
    assert list(s) == []
    client.close()


def test_streamed_tool_runner_two_turns(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(STREAM_URL, params={"alt": "sse"}).mock(side_effect=[
        respx.MockResponse(200, content=sse([
            event(part_call("get_weather", {"city": "Paris"}, signature="S"), finish="STOP",
                  usage=USAGE, rid="A")]), headers={"content-type": "text/event-stream"}),
        respx.MockResponse(200, content=sse([
            event(part_text("It is "), rid="B"),
            event(part_text("sunny."), finish="STOP", usage=USAGE, rid="B")]),
            headers={"content-type": "text/event-stream"}),
    ])
    seen, final, error, _ = stream(mode, CONFIG, messages=USER, tools=[get_weather],
                                   max_turns=3)
    assert error is None
    assert final.choices[0].message.content == "It is sunny."
    assert final.stop_reason == "completed"
    assert [e.result for e in final.tool_events] == ["sunny"]
    assert {c.turn for c in seen} == {1, 2}
    second = wire(route, 1)["contents"]
    assert second[1]["parts"][0]["thoughtSignature"] == "S"
    assert second[2] == {"role": "user", "parts": [{"functionResponse": {
        "name": "get_weather", "id": "call_A_0", "response": {"output": "sunny"}}}]}


# --- logprobs: OpenAI's arguments -> Gemini's; the reply's as OpenAI's ChoiceLogprobs --------

_LOGPROBS_RESULT = {
    "chosenCandidates": [{"token": "Hi", "tokenId": 1, "logProbability": -0.25},
                         {"token": " é", "tokenId": 2, "logProbability": -1.5}],
    "topCandidates": [
        {"candidates": [{"token": "Hi", "tokenId": 1, "logProbability": -0.25},
                        {"token": "Hello", "tokenId": 3, "logProbability": -1.75}]},
        {"candidates": [{"token": " é", "tokenId": 2, "logProbability": -1.5},
                        {"token": "!", "tokenId": 4, "logProbability": -2.0}]}]}

_EXPECTED_LOGPROBS = {"content": [
    {"token": "Hi", "bytes": [72, 105], "logprob": -0.25, "top_logprobs": [
        {"token": "Hi", "bytes": [72, 105], "logprob": -0.25},
        {"token": "Hello", "bytes": list(b"Hello"), "logprob": -1.75}]},
    {"token": " é", "bytes": list(" é".encode()), "logprob": -1.5, "top_logprobs": [
        {"token": " é", "bytes": list(" é".encode()), "logprob": -1.5},
        {"token": "!", "bytes": [33], "logprob": -2.0}]}], "refusal": None}


def _with_logprobs(body: dict[str, Any], result: Any = _LOGPROBS_RESULT) -> dict[str, Any]:
    body["candidates"][0]["logprobsResult"] = result
    body["candidates"][0]["avgLogprobs"] = -0.875
    return body


def test_logprobs_go_out_as_geminis_fields_and_come_back_typed(
        mode: str, httpx2_mock: respx.Router) -> None:
    """``logprobs=True, top_logprobs=2`` is ``responseLogprobs: true, logprobs: 2`` (Gemini's
    ``logprobs`` is the top-k count, not a switch); ``logprobsResult`` comes back as OpenAI's
    ``ChoiceLogprobs``: a typed object, token bytes included."""
    from aisuite_like.types import ChatCompletionTokenLogprob, ChoiceLogprobs

    route = httpx2_mock.post(URL).respond(200, json=_with_logprobs(reply(part_text("Hi é"))))
    resp = create(mode, CONFIG, messages=USER, logprobs=True, top_logprobs=2)
    assert wire(route)["generationConfig"] == {"responseLogprobs": True, "logprobs": 2}
    logprobs = resp.choices[0].logprobs
    assert isinstance(logprobs, ChoiceLogprobs)
    assert isinstance(logprobs.content[0], ChatCompletionTokenLogprob)
    assert logprobs.content[1].top_logprobs[1].token == "!"
    assert logprobs.model_dump() == _EXPECTED_LOGPROBS


def test_streamed_logprobs_accumulate_into_the_final_response(
        mode: str, httpx2_mock: respx.Router) -> None:
    first, second = _LOGPROBS_RESULT["chosenCandidates"]
    top_1, top_2 = _LOGPROBS_RESULT["topCandidates"]
    events = [_with_logprobs(reply(part_text("Hi"), finish=None),
                             {"chosenCandidates": [first], "topCandidates": [top_1]}),
              _with_logprobs(reply(part_text(" é")),
                             {"chosenCandidates": [second], "topCandidates": [top_2]})]
    route = httpx2_mock.post(url__startswith=STREAM_URL).respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})
    chunks, final, error, _ = stream(mode, CONFIG, messages=USER, logprobs=True,
                                     top_logprobs=2)
    assert error is None, error
    assert wire(route)["generationConfig"] == {"responseLogprobs": True, "logprobs": 2}
    assert [c.choices[0].logprobs.content[0].token for c in chunks
            if c.choices and c.choices[0].logprobs] == ["Hi", " é"]
    assert final.choices[0].logprobs.model_dump() == _EXPECTED_LOGPROBS


@pytest.mark.parametrize("kwargs,sent", [
    ({"logprobs": True}, {"responseLogprobs": True}),
    ({"logprobs": True, "top_logprobs": 0}, {"responseLogprobs": True}),
    ({"logprobs": False}, None),
    ({"response_logprobs": True, "logprobs": 3}, {"responseLogprobs": True, "logprobs": 3}),
])
def test_logprobs_arguments_on_the_wire(kwargs: dict[str, Any], sent: Any, mode: str,
                                        httpx2_mock: respx.Router) -> None:
    """OpenAI's bool ``logprobs`` is mapped; Gemini's own names (an int ``logprobs``,
    ``response_logprobs``) pass through as Gemini defines them."""
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    create(mode, CONFIG, messages=USER, **kwargs)
    assert wire(route).get("generationConfig") == sent


@pytest.mark.parametrize("kwargs", [{"top_logprobs": 2}, {"logprobs": False, "top_logprobs": 1},
                                    {"logprobs": True, "top_logprobs": 21},
                                    {"logprobs": True, "top_logprobs": "2"}])
def test_bad_logprobs_arguments_are_refused_before_sending(
        kwargs: dict[str, Any], mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=reply(part_text("ok")))
    with pytest.raises(ai.UnsupportedParameterError, match="top_logprobs"):
        create(mode, CONFIG, messages=USER, **kwargs)
    assert route.call_count == 0


@pytest.mark.parametrize("result", [
    "x", {"chosenCandidates": "x"}, {"chosenCandidates": [{"token": 1, "logProbability": 0}]},
    {"chosenCandidates": [{"token": "a", "logProbability": "high"}]},
    {"chosenCandidates": [{"token": "a", "logProbability": -1}], "topCandidates": ["x"]},
])
def test_a_malformed_logprobs_result_is_a_typed_error(result: Any, mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=_with_logprobs(reply(part_text("ok")), result))
    with pytest.raises(ai.APIResponseValidationError, match="logprobsResult"):
        create(mode, CONFIG, messages=USER, logprobs=True)
