"""OpenAI SDK code run against aisuite_like, with the real ``openai`` SDK side by side.

Each test writes user code the way the OpenAI SDK's docs show it (``parse`` with a pydantic
``response_format``, ``except APIStatusError``, ``to_dict()``, streaming), serves the same
mocked HTTP reply (respx on httpcore2) to the SDK and to our client, and compares what the
user sees: ``parsed``, ``to_dict()``, error attributes, the request on the wire. The recorded
structured-output exchanges (tests/fixtures/recorded) are replayed through ``parse()``.
"""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from enum import IntEnum
from typing import Any, Literal, Optional, Union

import openai
import pydantic
import pytest
import respx
from support.openai_helpers import KEY, call, chunk, completion, httpx2_mock, sse, wire  # noqa: F401
from support.recorded import load_recorded
from pydantic import BaseModel, Field, ValidationError

import aisuite_like as ai
from aisuite_like.types import ChoiceLogprobs

URL = "https://api.openai.com/v1/chat/completions"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "system", "content": "Extract the event information."},
        {"role": "user", "content": "Alice and Bob are going to a science fair on Friday."}]


class CalendarEvent(BaseModel):  # the OpenAI SDK's structured-output example
    name: str
    date: str
    participants: list[str]


class Step(BaseModel):
    explanation: str
    output: str


class MathReasoning(BaseModel):  # nested models ($defs / $ref) as in the SDK's docs
    steps: list[Step]
    final_answer: Optional[str] = None


@pydantic.dataclasses.dataclass
class EventRecord:  # a pydantic dataclass works as response_format too
    name: str
    date: str
    participants: list[str]


EVENT_JSON = '{"name":"Science Fair","date":"Friday","participants":["Alice","Bob"]}'


def sdk() -> openai.OpenAI:
    return openai.OpenAI(api_key=KEY, max_retries=0)


def openai_reply(**overrides: Any) -> dict[str, Any]:
    """A chat.completion as OpenAI sends it today (every field the API includes)."""
    body = {
        "id": "chatcmpl-AB1", "object": "chat.completion", "created": 1727000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "logprobs": None, "finish_reason": "stop", "message": {
            "role": "assistant", "content": EVENT_JSON, "refusal": None, "annotations": []}}],
        "usage": {"prompt_tokens": 92, "completion_tokens": 15, "total_tokens": 107,
                  "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                "accepted_prediction_tokens": 0,
                                                "rejected_prediction_tokens": 0}},
        "service_tier": "default", "system_fingerprint": "fp_f5bdcc3276",
    }
    body.update(overrides)
    return body


# --- parse(): side by side with the SDK ---------------------------------------------------


@pytest.mark.parametrize("fmt", [CalendarEvent, MathReasoning, EventRecord])
def test_parse_sends_what_the_sdk_sends_and_parses_alike(httpx2_mock: respx.Router,
                                                         fmt: type) -> None:
    content = EVENT_JSON if fmt is not MathReasoning else json.dumps(
        {"steps": [{"explanation": "8x = -23", "output": "x = -23/8"}], "final_answer": None})
    body = openai_reply()
    body["choices"][0]["message"]["content"] = content
    route = httpx2_mock.post(URL).respond(200, json=body)

    theirs = sdk().chat.completions.parse(model="gpt-4o-2024-08-06", messages=USER,
                                          response_format=fmt)
    client = ai.Client(CONFIG)
    ours = client.chat.completions.parse(model="openai:gpt-4o-2024-08-06", messages=USER,
                                         response_format=fmt)

    # Same request, strict schema included (the SDK's parse() also says "stream": false).
    assert wire(route, 1) == {k: v for k, v in wire(route, 0).items() if k != "stream"}
    assert wire(route, 1)["response_format"]["json_schema"]["strict"] is True
    assert isinstance(ours.choices[0].message.parsed, fmt)
    assert ours.choices[0].message.parsed == theirs.choices[0].message.parsed
    assert ours.to_dict() == theirs.to_dict()
    assert json.loads(ours.to_json()) == json.loads(theirs.to_json())
    assert ours.to_dict(mode="json", exclude_none=True) == theirs.to_dict(mode="json",
                                                                          exclude_none=True)


class Lookup(BaseModel):
    """Look an order up."""

    order_id: str
    fields: list[str]


def test_pydantic_function_tool_sends_and_parses_as_the_sdk(httpx2_mock: respx.Router) -> None:
    body = openai_reply()
    body["choices"][0].update(finish_reason="tool_calls", message={
        "role": "assistant", "content": None, "refusal": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {
                "name": "Lookup", "arguments": '{"order_id": "A7", "fields": ["status"]}'}}]})
    route = httpx2_mock.post(URL).respond(200, json=body)
    assert ai.pydantic_function_tool(Lookup) == openai.pydantic_function_tool(Lookup)
    assert ai.pydantic_function_tool(Lookup, name="find", description="d") == \
        openai.pydantic_function_tool(Lookup, name="find", description="d")

    theirs = sdk().chat.completions.parse(model="gpt-4o", messages=USER,
                                          tools=[openai.pydantic_function_tool(Lookup)])
    ours = ai.Client(CONFIG).chat.completions.parse(
        model="openai:gpt-4o", messages=USER, tools=[ai.pydantic_function_tool(Lookup)])
    assert wire(route, 1)["tools"] == wire(route, 0)["tools"]
    mine, sdks = ours.choices[0].message.tool_calls[0], theirs.choices[0].message.tool_calls[0]
    assert mine.function.parsed_arguments == sdks.function.parsed_arguments == \
        Lookup(order_id="A7", fields=["status"])
    assert ours.choices[0].message.parsed is None  # no response_format: nothing else parsed


def test_every_response_has_the_sdks_request_id(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=openai_reply(), headers={"x-request-id": "req_42"})
    theirs = sdk().chat.completions.create(model="gpt-4o", messages=USER)
    ours = ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert ours._request_id == theirs._request_id == "req_42"
    assert "_request_id" not in ours.to_dict() and "req_42" not in ours.to_json()


def test_parse_refusal_is_surfaced_like_the_sdk(httpx2_mock: respx.Router) -> None:
    body = openai_reply()
    body["choices"][0]["message"].update(content=None, refusal="I'm sorry, I can't help.")
    httpx2_mock.post(URL).respond(200, json=body)
    theirs = sdk().chat.completions.parse(model="gpt-4o", messages=USER,
                                          response_format=CalendarEvent)
    ours = ai.Client(CONFIG).chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                    response_format=CalendarEvent)
    assert ours.choices[0].message.parsed is None is theirs.choices[0].message.parsed
    assert ours.choices[0].message.refusal == theirs.choices[0].message.refusal
    assert ours.to_dict() == theirs.to_dict()


@pytest.mark.parametrize("finish, ours_error, their_error", [
    ("length", ai.LengthFinishReasonError, openai.LengthFinishReasonError),
    ("content_filter", ai.ContentFilterFinishReasonError,
     openai.ContentFilterFinishReasonError),
])
def test_parse_unfinished_reply_raises_like_the_sdk(httpx2_mock: respx.Router, finish: str,
                                                    ours_error: type, their_error: type) -> None:
    body = openai_reply()
    body["choices"][0]["finish_reason"] = finish
    body["choices"][0]["message"]["content"] = '{"name": "Sci'
    httpx2_mock.post(URL).respond(200, json=body)
    with pytest.raises(their_error) as theirs:
        sdk().chat.completions.parse(model="gpt-4o", messages=USER,
                                     response_format=CalendarEvent)
    with pytest.raises(ours_error) as ours:
        ai.Client(CONFIG).chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                 response_format=CalendarEvent)
    # Same message; for a length cut the SDK appends its usage object's repr, ours our Usage's.
    assert str(ours.value).split(" - ")[0] == str(theirs.value).split(" - ")[0]
    assert ours.value.completion.choices[0].finish_reason == finish


def test_parse_invalid_reply_raises_pydantic_validation_error_like_the_sdk(
        httpx2_mock: respx.Router) -> None:
    body = openai_reply()
    body["choices"][0]["message"]["content"] = '{"name": "Science Fair"}'
    httpx2_mock.post(URL).respond(200, json=body)
    with pytest.raises(ValidationError):
        sdk().chat.completions.parse(model="gpt-4o", messages=USER,
                                     response_format=CalendarEvent)
    with pytest.raises(ValidationError, match="date"):
        ai.Client(CONFIG).chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                 response_format=CalendarEvent)


def test_parse_async_spellings_and_beta_namespace(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=openai_reply())

    async def run() -> list[Any]:
        async with ai.AsyncClient(CONFIG) as aclient:
            a = await aclient.chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                     response_format=CalendarEvent)
            b = await aclient.beta.chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                          response_format=CalendarEvent)
        c = await ai.Client(CONFIG).chat.completions.aparse(
            model="openai:gpt-4o", messages=USER, response_format=CalendarEvent)
        return [a, b, c]

    results = asyncio.run(run())
    results.append(ai.Client(CONFIG).beta.chat.completions.parse(
        model="openai:gpt-4o", messages=USER, response_format=CalendarEvent))
    for r in results:
        assert r.choices[0].message.parsed == CalendarEvent.model_validate_json(EVENT_JSON)
    assert len({json.dumps(wire(route, i), sort_keys=True) for i in range(4)}) == 1


def test_parsed_message_appended_back_is_sent_without_parsed(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=openai_reply())
    client = ai.Client(CONFIG)
    resp = client.chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                         response_format=CalendarEvent)
    history = [*USER, resp.choices[0].message, {"role": "user", "content": "And Carol?"}]
    client.chat.completions.parse(model="openai:gpt-4o", messages=history,
                                  response_format=CalendarEvent)
    sent = wire(route)["messages"][2]
    # ``annotations`` is reply-only: the request's assistant message has no such field
    assert sent == {"role": "assistant", "content": EVENT_JSON}


def test_pydantic_class_in_plain_create_is_the_parse_request(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=openai_reply())
    client = ai.Client(CONFIG)
    resp = client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                          response_format=CalendarEvent)
    client.chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                  response_format=CalendarEvent)
    assert wire(route, 0) == wire(route, 1)
    assert resp.choices[0].message.content == EVENT_JSON  # create() does not parse
    with pytest.raises(ai.UnsupportedParameterError, match="response_format"):
        client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                       response_format=int)
    assert route.call_count == 2


def test_parse_with_max_turns_parses_the_final_message(httpx2_mock: respx.Router) -> None:
    def get_date(event: str) -> str:
        """The date of an event."""
        return "Friday"

    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, json=completion(None, tool_calls=[
            call("c1", "get_date", '{"event": "science fair"}')], finish="tool_calls")),
        respx.MockResponse(200, json=openai_reply()),
    ])
    resp = ai.Client(CONFIG).chat.completions.parse(
        model="openai:gpt-4o", messages=USER, response_format=CalendarEvent,
        tools=[get_date], max_turns=3)
    assert resp.choices[0].message.parsed.participants == ["Alice", "Bob"]
    assert resp.stop_reason == "completed"
    assert [m.role for m in resp.choices[0].intermediate_messages] == [
        "assistant", "tool", "assistant"]
    assert all(wire(route, i)["response_format"]["json_schema"]["name"] == "CalendarEvent"
               for i in range(2))


def test_parse_refuses_stream_argument() -> None:
    with pytest.raises(TypeError, match="chat.completions.stream"):
        ai.Client(CONFIG).chat.completions.parse(model="openai:gpt-4o", messages=USER,
                                                 response_format=CalendarEvent, stream=True)


# --- parse() on the other families: their native structured output ------------------------

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GOOGLE_URL = ("https://generativelanguage.googleapis.com/v1beta/models/"
              "gemini-2.5-flash:generateContent")


def anthropic_reply(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": text}], "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 20, "output_tokens": 10}}


def test_parse_on_anthropic_uses_output_config(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).respond(200, json=anthropic_reply(EVENT_JSON))
    resp = ai.Client({"anthropic": {"api_key": "sk-ant-x", "max_retries": 0}}).chat.completions\
        .parse(model="anthropic:claude-sonnet-4-6", messages=USER, response_format=CalendarEvent,
               max_tokens=200)
    fmt = wire(route)["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    assert fmt["schema"]["additionalProperties"] is False
    assert fmt["schema"]["required"] == ["name", "date", "participants"]
    assert resp.choices[0].message.parsed == CalendarEvent.model_validate_json(EVENT_JSON)


def test_parse_on_anthropic_surfaces_a_refusal(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(ANTHROPIC_URL).respond(
        200, json=anthropic_reply("I can't help with that.", stop="refusal"))
    resp = ai.Client({"anthropic": {"api_key": "sk-ant-x", "max_retries": 0}}).chat.completions\
        .parse(model="anthropic:claude-sonnet-4-6", messages=USER, response_format=CalendarEvent,
               max_tokens=200)
    message = resp.choices[0].message
    assert message.parsed is None
    assert message.refusal == "I can't help with that."


def test_parse_on_google_uses_response_json_schema(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GOOGLE_URL).respond(200, json={
        "candidates": [{"content": {"role": "model", "parts": [{"text": EVENT_JSON}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 9,
                          "totalTokenCount": 14}, "modelVersion": "gemini-2.5-flash"})

    async def run() -> Any:
        async with ai.AsyncClient({"google": {"api_key": "AIza-test", "max_retries": 0}}) as c:
            return await c.chat.completions.parse(model="google:gemini-2.5-flash",
                                                  messages=USER, response_format=CalendarEvent)

    resp = asyncio.run(run())
    config = wire(route)["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert set(config["responseJsonSchema"]["properties"]) == {"name", "date", "participants"}
    assert resp.choices[0].message.parsed.date == "Friday"


# --- the recorded structured-output exchanges, through parse() ------------------------------


class City(BaseModel):
    city: str
    country: str


class CityLocation(BaseModel):
    city: str
    country: Optional[str] = None
    population: Optional[int] = None


def _serve(httpx2_mock: respx.Router, url: str, fixture: dict[str, Any]) -> Any:
    return httpx2_mock.post(url).mock(side_effect=[
        respx.MockResponse(i["response"]["status"], json=i["response"]["body"])
        for i in fixture["interactions"]])


def test_recorded_openai_native_output_with_a_tool_loop(httpx2_mock: respx.Router) -> None:
    fixture = load_recorded("openai/test_openai__test_openai_native_output.json")
    route = _serve(httpx2_mock, URL, fixture)

    def get_user_country() -> str:
        return "Mexico"

    resp = ai.Client(CONFIG).chat.completions.parse(
        model="openai:gpt-4o", messages=[{"role": "user", "content": fixture["interactions"][0][
            "request"]["body"]["messages"][0]["content"]}],
        response_format=City, tools=[get_user_country], max_turns=3)
    assert resp.choices[0].message.parsed == City(city="Mexico City", country="Mexico")
    assert wire(route, 1)["messages"][2] == fixture["interactions"][1]["request"]["body"][
        "messages"][2]  # the tool result went back as recorded
    last = fixture["interactions"][1]["response"]["body"]
    assert resp.to_dict()["system_fingerprint"] == last["system_fingerprint"]
    assert resp.to_dict()["choices"][0]["message"]["annotations"] == []


def test_recorded_groq_native_output(httpx2_mock: respx.Router) -> None:
    fixture = load_recorded("groq/test_groq__test_groq_native_output.json")
    _serve(httpx2_mock, "https://api.groq.com/openai/v1/chat/completions", fixture)
    resp = ai.Client({"groq": {"api_key": "gsk_test", "max_retries": 0}}).chat.completions.parse(
        model="groq:openai/gpt-oss-120b",
        messages=fixture["interactions"][0]["request"]["body"]["messages"],
        response_format=City)
    assert resp.choices[0].message.parsed == City(city="Mexico City", country="Mexico")
    assert resp.choices[0].message.reasoning_content  # groq's reasoning kept apart
    assert resp.to_dict()["service_tier"] == "on_demand"


@pytest.mark.parametrize("name", [
    "test_google__test_google_optional_fields_native_output.json",
    "test_google__test_google_optional_fields_native_output_gemini_2_0.json",
])
def test_recorded_google_native_output(httpx2_mock: respx.Router, name: str) -> None:
    fixture = load_recorded(f"google/{name}")
    client = ai.Client({"google": {"api_key": "AIza-test", "max_retries": 0}})
    for interaction in fixture["interactions"]:
        url = interaction["request"]["url"].split("?")[0]
        model = url.rsplit("/", 1)[1].split(":")[0]
        httpx2_mock.post(url).respond(200, json=interaction["response"]["body"])
        text = interaction["request"]["body"]["contents"][0]["parts"][0]["text"]
        resp = client.chat.completions.parse(model=f"google:{model}",
                                             messages=[{"role": "user", "content": text}],
                                             response_format=CityLocation)
        recorded = interaction["response"]["body"]["candidates"][0]["content"]["parts"][0]["text"]
        assert resp.choices[0].message.parsed == CityLocation.model_validate_json(recorded)


class Payment(BaseModel):
    amount: Decimal


class Cat(BaseModel):
    pet_type: Literal["cat"] = "cat"
    meow_volume: int


class Dog(BaseModel):
    pet_type: Literal["dog"] = "dog"
    bark_volume: int


class Owner(BaseModel):
    pet: Union[Cat, Dog] = Field(discriminator="pet_type")


class Priority(IntEnum):
    HIGH = 1
    MEDIUM = 2
    LOW = 3


class Task(BaseModel):
    name: str
    priority: Priority


class TreeNode(BaseModel):
    value: str
    children: list["TreeNode"] = []


class ConfigResponse(BaseModel):
    name: str
    metadata: dict[str, str]


@pytest.mark.parametrize("name, fmt, expected", [
    ("test_google__test_google_decimal_native_output.json", Payment,
     Payment(amount=Decimal("12.34"))),
    ("test_google__test_google_discriminated_union_native_output.json", Owner,
     Owner(pet=Cat(meow_volume=5))),
    ("test_google__test_google_integer_enum_native_output_gemini_2_0.json", Task,
     Task(name="Fix bug", priority=Priority.HIGH)),
    ("test_google__test_google_recursive_schema_native_output.json", TreeNode,
     TreeNode(value="A", children=[TreeNode(value="B"), TreeNode(value="C")])),
    ("test_google__test_google_dict_with_additional_properties_native_output.json",
     ConfigResponse, ConfigResponse(name="api-config",
                                    metadata={"author": "Alice", "version": "1.0"})),
])
def test_recorded_google_native_output_shapes(httpx2_mock: respx.Router, name: str,
                                              fmt: type[BaseModel], expected: BaseModel) -> None:
    fixture = load_recorded(f"google/{name}")
    (interaction,) = fixture["interactions"]
    url = interaction["request"]["url"].split("?")[0]
    route = httpx2_mock.post(url).respond(200, json=interaction["response"]["body"])
    text = interaction["request"]["body"]["contents"][0]["parts"][0]["text"]
    resp = ai.Client({"google": {"api_key": "AIza-test", "max_retries": 0}}).chat.completions\
        .parse(model="google:" + url.rsplit("/", 1)[1].split(":")[0],
               messages=[{"role": "user", "content": text}], response_format=fmt)
    assert resp.choices[0].message.parsed == expected
    assert wire(route)["generationConfig"]["responseMimeType"] == "application/json"


def test_recorded_google_native_output_with_function_tools(httpx2_mock: respx.Router) -> None:
    fixture = load_recorded(
        "google/google__test_structured_output__test_native_output_with_function_tools.json")
    url = fixture["interactions"][0]["request"]["url"].split("?")[0]
    route = _serve(httpx2_mock, url, fixture)

    def get_user_country() -> str:
        return "Mexico"

    first = fixture["interactions"][0]["request"]["body"]["contents"][0]["parts"][0]["text"]
    resp = ai.Client({"google": {"api_key": "AIza-test", "max_retries": 0}}).chat.completions\
        .parse(model="google:" + url.rsplit("/", 1)[1].split(":")[0],
               messages=[{"role": "user", "content": first}], response_format=City,
               tools=[get_user_country], max_turns=3)
    assert resp.choices[0].message.parsed == City(city="Mexico City", country="Mexico")
    assert route.call_count == 2 and resp.stop_reason == "completed"


# --- streaming ----------------------------------------------------------------------------


def _text_stream() -> bytes:
    first = chunk({"role": "assistant", "content": "", "refusal": None})
    events = [first, chunk({"content": EVENT_JSON[:20]}), chunk({"content": EVENT_JSON[20:]}),
              chunk({}, finish="stop")]
    for e in events:
        e["system_fingerprint"] = "fp_1"
        e["service_tier"] = "default"
        e["choices"][0]["logprobs"] = None
    return sse(events)


def test_stream_chunks_match_the_sdk(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, content=_text_stream(),
                                  headers={"content-type": "text/event-stream"})
    theirs = list(sdk().chat.completions.create(model="gpt-4o", messages=USER, stream=True))
    ours = list(ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o",
                                                          messages=USER, stream=True))
    assert ours[0].choices[0].delta.content == "" == theirs[0].choices[0].delta.content
    assert ours[0].choices[0].delta.role == "assistant"
    assert [c.to_dict() for c in ours] == [c.to_dict() for c in theirs]


def _event_view(event: Any) -> tuple:
    """What a user reads from one event of the SDK's stream helper."""
    kind = event.type
    if kind == "chunk":
        return kind, event.chunk.to_dict()
    if kind == "content.delta":
        return kind, event.delta, event.snapshot, event.parsed
    if kind == "content.done":
        return kind, event.content, event.parsed
    if kind == "refusal.delta":
        return kind, event.delta, event.snapshot
    if kind == "refusal.done":
        return kind, event.refusal
    if kind == "tool_calls.function.arguments.delta":
        return kind, event.name, event.index, event.arguments, event.arguments_delta
    if kind == "tool_calls.function.arguments.done":
        return kind, event.name, event.index, event.arguments
    if kind == "logprobs.content.delta":
        return kind, _tokens(event.content), _tokens(event.snapshot)
    if kind == "logprobs.refusal.delta":
        return kind, _tokens(event.refusal), _tokens(event.snapshot)
    if kind == "logprobs.content.done":
        return kind, _tokens(event.content)
    if kind == "logprobs.refusal.done":
        return kind, _tokens(event.refusal)
    raise AssertionError(f"unexpected event {kind}")


def _tokens(logprobs: list[Any]) -> list[dict[str, Any]]:
    return [t.model_dump() for t in logprobs]


def _sse_reply(httpx2_mock: respx.Router, events: list[dict[str, Any]]) -> None:
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})


def test_stream_helper_events_match_the_sdk(httpx2_mock: respx.Router) -> None:
    _sse_reply(httpx2_mock, [json.loads(line[6:]) for line in _text_stream().decode().split(
        "\n\n") if line.startswith("data: {")])
    with sdk().chat.completions.stream(model="gpt-4o", messages=USER,
                                       response_format=CalendarEvent) as stream:
        theirs = [_event_view(e) for e in stream]
        their_final = stream.get_final_completion()
    with ai.Client(CONFIG).chat.completions.stream(
            model="openai:gpt-4o", messages=USER, response_format=CalendarEvent) as stream:
        ours = [_event_view(e) for e in stream]
        final = stream.get_final_completion()
    assert ours == theirs
    assert [v[0] for v in ours].count("content.done") == 1
    assert final.choices[0].message.parsed == their_final.choices[0].message.parsed
    assert final.choices[0].message.parsed.name == "Science Fair"

    async def run() -> Any:
        async with ai.AsyncClient(CONFIG) as aclient:
            async with aclient.chat.completions.stream(
                    model="openai:gpt-4o", messages=USER,
                    response_format=CalendarEvent) as astream:
                events = [_event_view(e) async for e in astream]
                return events, await astream.get_final_completion()

    events, afinal = asyncio.run(run())
    assert events == ours and afinal.choices[0].message.parsed == final.choices[0].message.parsed


def test_stream_helper_tool_call_and_refusal_events_match_the_sdk(
        httpx2_mock: respx.Router) -> None:
    tool = {"type": "function", "function": {
        "name": "get_weather", "strict": True, "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}},
            "required": ["city"], "additionalProperties": False}}}
    fragments = [
        chunk({"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                               "function": {"name": "get_weather", "arguments": '{"city"'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ': "Oslo"}'}}]}),
        chunk({}, finish="tool_calls")]
    refusal = [chunk({"role": "assistant", "content": None, "refusal": ""}),
               chunk({"refusal": "I can't "}), chunk({"refusal": "help."}),
               chunk({}, finish="stop")]
    for events, kwargs in ((fragments, {"tools": [tool]}),
                           (refusal, {"response_format": CalendarEvent})):
        _sse_reply(httpx2_mock, events)
        with sdk().chat.completions.stream(model="gpt-4o", messages=USER, **kwargs) as stream:
            theirs = [_event_view(e) for e in stream if e.type != "chunk"]
        with ai.Client(CONFIG).chat.completions.stream(model="openai:gpt-4o", messages=USER,
                                                       **kwargs) as stream:
            ours = [_event_view(e) for e in stream if e.type != "chunk"]
            final = stream.get_final_completion()
        assert ours == theirs
    assert final.choices[0].message.refusal == "I can't help."
    assert final.choices[0].message.parsed is None


GEMINI_STREAM = ("https://generativelanguage.googleapis.com/v1beta/models/"
                 "gemini-2.5-flash:streamGenerateContent")


def _gemini_events(*parts: dict[str, Any]) -> list[dict[str, Any]]:
    """A Gemini stream that ends with whole function calls and the finish in one event, as
    Gemini streams them."""
    *text, calls = parts
    events = [{"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}],
               "responseId": "r1", "modelVersion": "gemini-2.5-flash"} for p in text]
    events.append({"candidates": [{"content": {"role": "model", "parts": calls["calls"]},
                                   "finishReason": "STOP", "index": 0}],
                   "responseId": "r1", "modelVersion": "gemini-2.5-flash",
                   "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 5}})
    return events


@pytest.mark.parametrize("calls", [1, 2])
def test_stream_helper_gives_geminis_calls_the_same_done_events(
        calls: int, httpx2_mock: respx.Router) -> None:
    """Gemini sends each call whole, with the finish, in one chunk: the stream helper gives
    the same ``content.done`` and ``tool_calls.function.arguments.done`` events as for the
    same reply from OpenAI (the SDK's own events there)."""
    cities = ["Paris", "Oslo"][:calls]
    openai_chunks = [chunk({"role": "assistant", "content": "Checking."})]
    for i, city in enumerate(cities):
        openai_chunks.append(chunk({"tool_calls": [{
            "index": i, "id": f"call_{i}", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}))
    openai_chunks.append(chunk({}, finish="tool_calls"))
    _sse_reply(httpx2_mock, openai_chunks)
    with sdk().chat.completions.stream(model="gpt-4o", messages=USER) as their_stream:
        theirs = [_event_view(e) for e in their_stream
                  if e.type.endswith(".done")]
    gemini = _gemini_events({"text": "Checking."}, {"calls": [
        {"functionCall": {"name": "get_weather", "args": {"city": c}}} for c in cities]})
    httpx2_mock.post(url__startswith=GEMINI_STREAM).respond(
        200, content=b"".join(f"data: {json.dumps(e)}\r\n\r\n".encode() for e in gemini),
        headers={"content-type": "text/event-stream"})
    client = ai.Client({"google": {"api_key": "AIzaSyTESTKEY-0123456789abcdefghij",
                                   "max_retries": 0}})
    with client.chat.completions.stream(model="google:gemini-2.5-flash",
                                        messages=USER) as stream:
        ours = [_event_view(e) for e in stream if e.type.endswith(".done")]
    assert ours == theirs
    assert [e[0] for e in ours] == ["content.done",
                                    *["tool_calls.function.arguments.done"] * calls]


def test_stream_helper_with_max_turns_gives_each_turns_events(httpx2_mock: respx.Router
                                                              ) -> None:
    def get_date(event: str) -> str:
        """The date of an event."""
        return "Friday"

    turn_1 = [chunk({"role": "assistant", "content": None, "tool_calls": [{
                  "index": 0, "id": "call_1", "type": "function",
                  "function": {"name": "get_date", "arguments": '{"event": "fair"}'}}]}),
              chunk({}, finish="tool_calls")]
    turn_2 = [chunk({"role": "assistant", "content": ""}), chunk({"content": EVENT_JSON}),
              chunk({}, finish="stop")]
    httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(200, content=sse(t), headers={"content-type": "text/event-stream"})
        for t in (turn_1, turn_2)])
    with ai.Client(CONFIG).chat.completions.stream(
            model="openai:gpt-4o", messages=USER, response_format=CalendarEvent,
            tools=[get_date], max_turns=3) as stream:
        kinds = [(e.type, getattr(e, "arguments", None)) for e in stream if e.type != "chunk"]
        final = stream.get_final_completion()
    assert kinds == [("tool_calls.function.arguments.delta", '{"event": "fair"}'),
                     ("tool_calls.function.arguments.done", '{"event": "fair"}'),
                     ("content.delta", None), ("content.delta", None), ("content.done", None)]
    assert final.choices[0].message.parsed.date == "Friday"
    assert [m.role for m in final.choices[0].intermediate_messages] == [
        "assistant", "tool", "assistant"]


# --- passthrough fields -------------------------------------------------------------------


def test_fields_the_provider_sends_pass_through(httpx2_mock: respx.Router) -> None:
    logprobs = {"content": [{"token": "Hi", "logprob": -0.1, "bytes": [72, 105],
                             "top_logprobs": []}], "refusal": None}
    audio = {"id": "audio_1", "data": "UklGR", "expires_at": 1727003600, "transcript": "Hi"}
    annotations = [{"type": "url_citation", "url_citation": {
        "url": "https://example.com", "title": "Ex", "start_index": 0, "end_index": 2}}]
    body = openai_reply()
    body["choices"][0]["logprobs"] = logprobs
    body["choices"][0]["message"].update(content="Hi", audio=audio, annotations=annotations)
    httpx2_mock.post(URL).respond(200, json=body)
    theirs = sdk().chat.completions.create(model="gpt-4o", messages=USER, logprobs=True)
    ours = ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                     logprobs=True)
    assert ours.system_fingerprint == "fp_f5bdcc3276" and ours.service_tier == "default"
    # typed as the SDK's ChoiceLogprobs, read the same way
    assert ours.choices[0].logprobs.model_dump() == theirs.choices[0].logprobs.model_dump()
    assert ours.choices[0].logprobs.content[0].token == theirs.choices[0].logprobs.content[
        0].token == "Hi"
    assert ours.choices[0].message.annotations == annotations
    assert ours.choices[0].message.audio == audio
    assert ours.to_dict() == theirs.to_dict()
    assert ours.usage.prompt_tokens_details.cached_tokens == 0


def _token(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode()),
            "top_logprobs": [{"token": token, "logprob": logprob,
                              "bytes": list(token.encode())}]}


def test_streamed_logprobs_accumulate_as_the_sdk_does(httpx2_mock: respx.Router) -> None:
    """Each chunk's ``logprobs`` is typed; the final response holds every token's, as the
    SDK's stream helper's final completion does."""
    events = [chunk({"role": "assistant", "content": "Hi"}),
              chunk({"content": " there"}), chunk({}, finish="stop")]
    events[0]["choices"][0]["logprobs"] = {"content": [_token("Hi", -0.1)], "refusal": None}
    events[1]["choices"][0]["logprobs"] = {"content": [_token(" there", -0.5)],
                                           "refusal": None}
    _sse_reply(httpx2_mock, events)
    with sdk().chat.completions.stream(model="gpt-4o", messages=USER, logprobs=True,
                                       top_logprobs=1) as their_stream:
        for _ in their_stream:
            pass
        theirs = their_stream.get_final_completion().choices[0].logprobs
    stream = ai.Client(CONFIG).chat.completions.create(
        model="openai:gpt-4o", messages=USER, stream=True, logprobs=True, top_logprobs=1)
    chunks = list(stream)
    assert isinstance(chunks[0].choices[0].logprobs, ChoiceLogprobs)
    ours = stream.get_final_response().choices[0].logprobs
    assert isinstance(ours, ChoiceLogprobs)
    assert ours.model_dump() == theirs.model_dump()
    assert [t.token for t in ours.content] == ["Hi", " there"]


def test_stream_helper_logprobs_events_match_the_sdk(httpx2_mock: respx.Router) -> None:
    """``logprobs.content.delta`` per chunk with tokens (the snapshot so far) and one
    ``logprobs.content.done``; the same for a refusal's tokens, in the SDK's order."""
    text = [chunk({"role": "assistant", "content": "Hi"}), chunk({"content": " there"}),
            chunk({}, finish="stop")]
    text[0]["choices"][0]["logprobs"] = {"content": [_token("Hi", -0.1)], "refusal": None}
    text[1]["choices"][0]["logprobs"] = {"content": [_token(" there", -0.5)], "refusal": None}
    refusal = [chunk({"role": "assistant", "content": None, "refusal": "No"}),
               chunk({"refusal": "."}), chunk({}, finish="stop")]
    refusal[0]["choices"][0]["logprobs"] = {"content": None, "refusal": [_token("No", -0.2)]}
    refusal[1]["choices"][0]["logprobs"] = {"content": None, "refusal": [_token(".", -0.3)]}
    for events in (text, refusal):
        _sse_reply(httpx2_mock, events)
        with sdk().chat.completions.stream(model="gpt-4o", messages=USER, logprobs=True,
                                           top_logprobs=1) as stream:
            theirs = [_event_view(e) for e in stream if e.type != "chunk"]
        with ai.Client(CONFIG).chat.completions.stream(
                model="openai:gpt-4o", messages=USER, logprobs=True, top_logprobs=1) as stream:
            ours = [_event_view(e) for e in stream if e.type != "chunk"]
        assert ours == theirs
        assert any(v[0].startswith("logprobs.") and v[0].endswith(".done") for v in ours)

    async def run() -> list[Any]:
        async with ai.AsyncClient(CONFIG) as aclient:
            async with aclient.chat.completions.stream(
                    model="openai:gpt-4o", messages=USER, logprobs=True) as astream:
                return [_event_view(e) async for e in astream if e.type != "chunk"]

    assert asyncio.run(run()) == ours


@pytest.mark.parametrize("logprobs", ["x", {"content": "x"}, {"content": [{"token": 1}]},
                                      {"content": [{"token": "a", "logprob": "low"}]}])
def test_malformed_logprobs_are_a_typed_error(logprobs: Any,
                                              httpx2_mock: respx.Router) -> None:
    body = openai_reply()
    body["choices"][0]["logprobs"] = logprobs
    httpx2_mock.post(URL).respond(200, json=body)
    with pytest.raises(ai.APIResponseValidationError, match="logprobs"):
        ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                  logprobs=True)


def test_openai_only_fields_read_none_on_other_providers(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(ANTHROPIC_URL).respond(200, json=anthropic_reply("hi"))
    resp = ai.Client({"anthropic": {"api_key": "sk-ant-x", "max_retries": 0}}).chat\
        .completions.create(model="anthropic:claude-sonnet-4-6", messages=USER, max_tokens=5)
    assert resp.system_fingerprint is None and resp.service_tier is None
    assert resp.choices[0].logprobs is None
    assert resp.choices[0].message.audio is None and resp.choices[0].message.annotations is None
    assert "audio" not in resp.choices[0].message.model_dump(exclude_none=True)


# --- errors: ai.APIStatusError as openai.APIStatusError -----------------------------------


@pytest.mark.parametrize("status, body, ours_type", [
    (401, {"error": {"message": "Incorrect API key provided: sk-test-***1234567890.",
                     "type": "invalid_request_error", "param": None,
                     "code": "invalid_api_key"}}, ai.AuthenticationError),
    (400, {"error": {"message": "Invalid value for 'temperature'.",
                     "type": "invalid_request_error", "param": "temperature",
                     "code": "invalid_value"}}, ai.BadRequestError),
    (429, {"error": {"message": "Rate limit reached", "type": "requests", "param": None,
                     "code": "rate_limit_exceeded"}}, ai.RateLimitError),
    (500, {"error": {"message": "The server had an error", "type": "server_error",
                     "param": None, "code": None}}, ai.InternalServerError),
])
def test_status_errors_carry_the_sdks_attributes(httpx2_mock: respx.Router, status: int,
                                                 body: dict, ours_type: type) -> None:
    httpx2_mock.post(URL).respond(status, json=body, headers={"x-request-id": "req_123"})
    with pytest.raises(openai.APIStatusError) as theirs_info:
        sdk().chat.completions.create(model="gpt-4o", messages=USER)
    try:
        ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER)
    except ai.APIStatusError as exc:  # the OpenAI SDK user's except clause
        ours = exc
    theirs = theirs_info.value
    assert isinstance(ours, ours_type) and isinstance(ours, ai.APIError)
    for name in ("status_code", "body", "code", "type", "param", "request_id", "message"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.response.status_code == status
    assert ours.response.headers["x-request-id"] == "req_123"
    assert KEY not in repr(ours) and KEY not in str(ours.body)


def test_error_body_is_scrubbed_of_the_key(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error",
        "param": None, "code": "invalid_api_key"}})
    with pytest.raises(ai.APIStatusError) as info:
        ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert KEY not in json.dumps(info.value.body) and KEY not in str(info.value)
    assert info.value.code == "invalid_api_key"
    response = info.value.response  # the SDK's would carry the key in its request headers
    assert response.status_code == 401
    assert response.request.headers["authorization"] == "[REDACTED]"
    assert KEY not in response.text and response.json()["error"]["code"] == "invalid_api_key"
    assert response.request.url == URL


def test_error_response_of_a_compressed_reply(httpx2_mock: respx.Router) -> None:
    import gzip

    body = {"error": {"message": "Rate limit reached", "type": "requests", "param": None,
                      "code": "rate_limit_exceeded"}}
    httpx2_mock.post(URL).respond(429, content=gzip.compress(json.dumps(body).encode()),
                                  headers={"content-encoding": "gzip",
                                           "content-type": "application/json",
                                           "retry-after": "7"})
    with pytest.raises(ai.RateLimitError) as info:
        ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert info.value.response.json() == body and info.value.retry_after == 7.0
    assert info.value.response.headers["retry-after"] == "7"


def test_status_errors_of_other_families_and_stream_events(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(ANTHROPIC_URL).respond(
        400, json={"type": "error", "error": {"type": "invalid_request_error",
                                              "message": "max_tokens: Field required"}})
    with pytest.raises(ai.APIStatusError) as info:
        ai.Client({"anthropic": {"api_key": "sk-ant-x", "max_retries": 0}}).chat.completions\
            .create(model="anthropic:claude-sonnet-4-6", messages=USER, max_tokens=5)
    assert info.value.status_code == 400 and info.value.type == "invalid_request_error"
    assert info.value.response.status_code == 400
    assert info.value.body["error"]["message"] == "max_tokens: Field required"

    httpx2_mock.post(GOOGLE_URL).respond(
        404, json={"error": {"code": 404, "message": "models/x is not found",
                             "status": "NOT_FOUND"}})
    with pytest.raises(ai.NotFoundError) as ginfo:
        ai.Client({"google": {"api_key": "AIza-test", "max_retries": 0}}).chat.completions\
            .create(model="google:gemini-2.5-flash", messages=USER)
    assert isinstance(ginfo.value, ai.APIStatusError) and ginfo.value.status_code == 404
    assert ginfo.value.type == "NOT_FOUND" and ginfo.value.response is not None

    httpx2_mock.post(URL).respond(200, content=sse([chunk({"role": "assistant", "content": ""}),
                                                    {"error": {"message": "overloaded",
                                                               "type": "server_error"}}]),
                                  headers={"content-type": "text/event-stream"})
    with pytest.raises(ai.APIStatusError) as sinfo:
        list(ai.Client(CONFIG).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                       stream=True))
    assert sinfo.value.status_code == 500 and sinfo.value.response is None
    assert sinfo.value.type == "server_error"


def test_connection_errors_are_api_errors_but_not_status_errors() -> None:
    client = ai.Client({"openai": {"api_key": KEY, "max_retries": 0,
                                   "base_url": "http://127.0.0.1:9/v1"}})
    with pytest.raises(ai.APIError) as info:
        client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert isinstance(info.value, ai.APIConnectionError)
    assert not isinstance(info.value, ai.APIStatusError)
