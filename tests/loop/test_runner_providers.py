"""The tool runner through the REAL vendor SDKs (openai, anthropic, google-genai), HTTP mocked
at httpcore2 (pytest-httpx2's ``httpx2_mock``): a 3-turn loop, sync and async, streamed and not,
asserting the wire JSON of every request and the finalized response.

The scenario, the same for every family:
  turn 1: the model asks for get_weather(Paris) and get_weather(Rome) in parallel;
  turn 2: it asks for get_time(Mars/Olympus), a tool that raises (-> an "Error: ..." result);
  turn 3: it answers with text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, Optional

import pytest
import respx

import aisuite_like as ai
from aisuite_like.tools import Tool


def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: The city name.
    """
    return f"sunny in {city}"


def get_time(tz: str) -> str:
    """Current time in a time zone.

    Args:
        tz: An IANA time zone.
    """
    raise ValueError(f"unknown time zone {tz}")


TOOLS = [get_weather, get_time]
SCHEMAS = [Tool(get_weather).to_openai(), Tool(get_time).to_openai()]
SYSTEM = "Be brief."
QUESTION = "Weather in Paris and Rome, and the time on Mars?"
ANSWER = "Sunny in Paris and Rome; Mars time is unknown."
TIME_ERROR = "Error: ValueError: unknown time zone Mars/Olympus"
CALLS_1 = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
CALLS_2 = [("get_time", {"tz": "Mars/Olympus"})]
TURNS: list[Any] = [CALLS_1, CALLS_2, ANSWER]
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]


def sse(events: list[str]) -> bytes:
    return "".join(events).encode()


# --- OpenAI ------------------------------------------------------------------------------

OPENAI_URL = "https://api.openai.com/v1/chat/completions"


def openai_ids(turn: int) -> list[str]:
    return [f"call_{turn}_{i}" for i in range(2)]


def openai_usage(turn: int) -> dict[str, int]:
    return {"prompt_tokens": 10 * turn, "completion_tokens": turn, "total_tokens": 11 * turn}


def openai_json(turn: int, spec: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(spec, str):
        message["content"], finish = spec, "stop"
    else:
        message["tool_calls"] = [
            {"id": cid, "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}
            for cid, (name, args) in zip(openai_ids(turn), spec)]
        finish = "tool_calls"
    return {"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1700000000,
            "model": "gpt-4o-2024-08-06", "usage": openai_usage(turn),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def openai_sse(turn: int, spec: Any) -> bytes:
    def chunk(delta: dict[str, Any], finish: Optional[str] = None, **extra: Any) -> str:
        body = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk",
                "created": 1700000000, "model": "gpt-4o-2024-08-06",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(body)}\n\n"

    events = [chunk({"role": "assistant", "content": None if not isinstance(spec, str) else ""})]
    if isinstance(spec, str):
        events += [chunk({"content": spec[:6]}), chunk({"content": spec[6:]}),
                   chunk({}, "stop")]
    else:
        for i, (cid, (name, args)) in enumerate(zip(openai_ids(turn), spec)):
            text = json.dumps(args)
            events.append(chunk({"tool_calls": [{"index": i, "id": cid, "type": "function",
                                                 "function": {"name": name, "arguments": ""}}]}))
            events += [chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
                       for part in (text[:4], text[4:])]
        events.append(chunk({}, "tool_calls"))
    usage = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "created": 1700000000,
             "model": "gpt-4o-2024-08-06", "choices": [], "usage": openai_usage(turn)}
    events += [f"data: {json.dumps(usage)}\n\n", "data: [DONE]\n\n"]
    return sse(events)


def openai_wire(bodies: list[dict[str, Any]], streamed: bool) -> None:
    ids1, ids2 = openai_ids(1), openai_ids(2)
    assistant_1 = {"role": "assistant", "content": None, "tool_calls": [
        {"id": ids1[0], "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": ids1[1], "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]}
    assistant_2 = {"role": "assistant", "content": None, "tool_calls": [
        {"id": ids2[0], "type": "function",
         "function": {"name": "get_time", "arguments": '{"tz": "Mars/Olympus"}'}}]}
    turn_messages = [
        MESSAGES,
        [*MESSAGES, assistant_1,
         {"role": "tool", "tool_call_id": ids1[0], "content": "sunny in Paris"},
         {"role": "tool", "tool_call_id": ids1[1], "content": "sunny in Rome"}],
    ]
    turn_messages.append([*turn_messages[1], assistant_2,
                          {"role": "tool", "tool_call_id": ids2[0], "content": TIME_ERROR}])
    for body, messages in zip(bodies, turn_messages):
        # the streamed assistant message is rebuilt from deltas: no "content": null key
        sent = [{k: v for k, v in m.items() if not (k == "content" and v is None)}
                for m in body["messages"]]
        expected = [{k: v for k, v in m.items() if not (k == "content" and v is None)}
                    for m in messages]
        assert sent == expected
        assert body["model"] == "gpt-4o"
        assert body["tools"] == SCHEMAS
        if streamed:
            assert body["stream"] is True
            assert body["stream_options"] == {"include_usage": True}
        else:
            assert "stream" not in body or body["stream"] is False
        assert set(body) <= {"model", "messages", "tools", "stream", "stream_options"}


# --- Anthropic ---------------------------------------------------------------------------

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"


def anthropic_ids(turn: int) -> list[str]:
    return [f"toolu_{turn}{i}" for i in range(2)]


def anthropic_json(turn: int, spec: Any) -> dict[str, Any]:
    if isinstance(spec, str):
        content, stop = [{"type": "text", "text": spec}], "end_turn"
    else:
        content = [{"type": "tool_use", "id": cid, "name": name, "input": args}
                   for cid, (name, args) in zip(anthropic_ids(turn), spec)]
        stop = "tool_use"
    return {"id": f"msg_{turn}", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": content, "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10 * turn, "output_tokens": turn,
                      "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}


def anthropic_sse(turn: int, spec: Any) -> bytes:
    message = anthropic_json(turn, spec)

    def event(body: dict[str, Any]) -> str:
        return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n"

    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events = [event({"type": "message_start", "message": start})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(event({"type": "content_block_start", "index": i,
                                 "content_block": {"type": "text", "text": ""}}))
            pieces = [{"type": "text_delta", "text": block["text"][:6]},
                      {"type": "text_delta", "text": block["text"][6:]}]
        else:
            events.append(event({"type": "content_block_start", "index": i,
                                 "content_block": {**block, "input": {}}}))
            text = json.dumps(block["input"])
            pieces = [{"type": "input_json_delta", "partial_json": text[:4]},
                      {"type": "input_json_delta", "partial_json": text[4:]}]
        events += [event({"type": "content_block_delta", "index": i, "delta": d})
                   for d in pieces]
        events.append(event({"type": "content_block_stop", "index": i}))
    events.append(event({"type": "message_delta",
                         "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                         "usage": {"output_tokens": turn}}))
    events.append(event({"type": "message_stop"}))
    return sse(events)


def anthropic_wire(bodies: list[dict[str, Any]], streamed: bool) -> None:
    ids1, ids2 = anthropic_ids(1), anthropic_ids(2)
    user = {"role": "user", "content": [{"type": "text", "text": QUESTION}]}
    assistant_1 = {"role": "assistant", "content": [
        {"type": "tool_use", "id": ids1[0], "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": ids1[1], "name": "get_weather", "input": {"city": "Rome"}}]}
    # parallel results travel together, in one user message
    results_1 = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ids1[0], "content": "sunny in Paris"},
        {"type": "tool_result", "tool_use_id": ids1[1], "content": "sunny in Rome"}]}
    assistant_2 = {"role": "assistant", "content": [
        {"type": "tool_use", "id": ids2[0], "name": "get_time",
         "input": {"tz": "Mars/Olympus"}}]}
    results_2 = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ids2[0], "content": TIME_ERROR}]}
    turn_messages = [[user], [user, assistant_1, results_1],
                     [user, assistant_1, results_1, assistant_2, results_2]]
    tools = [{"name": s["function"]["name"], "description": s["function"]["description"],
              "input_schema": s["function"]["parameters"]} for s in SCHEMAS]
    for body, messages in zip(bodies, turn_messages):
        assert _normalize_anthropic(body["messages"]) == messages
        assert body["system"] == SYSTEM  # the system prompt on every turn
        assert body["model"] == "claude-sonnet-4-6"
        assert body["tools"] == tools
        assert isinstance(body["max_tokens"], int)
        assert body.get("stream", False) is streamed


def _normalize_anthropic(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text tool results may be sent as a string or as one text block: both mean the same."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            blocks = []
            for b in content:
                c = b.get("content")
                if (b.get("type") == "tool_result" and isinstance(c, list) and len(c) == 1
                        and c[0].get("type") == "text"):
                    b = {**b, "content": c[0]["text"]}
                blocks.append(b)
            content = blocks
        out.append({**m, "content": content})
    return out


# --- Gemini ------------------------------------------------------------------------------

GEMINI_BASE = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"


def gemini_json(turn: int, spec: Any) -> dict[str, Any]:
    if isinstance(spec, str):
        parts: list[dict[str, Any]] = [{"text": spec}]
    else:  # Gemini sends no call ids: the provider makes stable ones from the response id
        parts = [{"functionCall": {"name": name, "args": args}} for name, args in spec]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                            "finishReason": "STOP"}],
            "modelVersion": "gemini-2.5-flash-001", "responseId": f"R{turn}",
            "usageMetadata": {"promptTokenCount": 10 * turn, "candidatesTokenCount": turn,
                              "totalTokenCount": 11 * turn}}


def gemini_sse(turn: int, spec: Any) -> bytes:
    body = gemini_json(turn, spec)
    events = []
    if isinstance(spec, str):  # text arrives in pieces; the last event has finish and usage
        first = json.loads(json.dumps(body))
        first["candidates"][0]["content"]["parts"] = [{"text": spec[:6]}]
        del first["candidates"][0]["finishReason"], first["usageMetadata"]
        body["candidates"][0]["content"]["parts"] = [{"text": spec[6:]}]
        events.append(first)
    events.append(body)
    return sse([f"data: {json.dumps(e)}\r\n\r\n" for e in events])


def gemini_ids(turn: int) -> list[str]:
    return [f"call_R{turn}_{i}" for i in range(2)]


def gemini_wire(bodies: list[dict[str, Any]], streamed: bool) -> None:
    ids1, ids2 = gemini_ids(1), gemini_ids(2)
    user = {"role": "user", "parts": [{"text": QUESTION}]}
    # The replies carry no thought signature: each turn's first call goes back with Google's
    # documented placeholder (docs/providers/google.md).
    placeholder = {"thoughtSignature": "skip_thought_signature_validator"}
    model_1 = {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": ids1[0]},
         **placeholder},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}, "id": ids1[1]}}]}
    results_1 = {"role": "user", "parts": [
        {"functionResponse": {"name": "get_weather", "id": ids1[0],
                              "response": {"output": "sunny in Paris"}}},
        {"functionResponse": {"name": "get_weather", "id": ids1[1],
                              "response": {"output": "sunny in Rome"}}}]}
    model_2 = {"role": "model", "parts": [
        {"functionCall": {"name": "get_time", "args": {"tz": "Mars/Olympus"}, "id": ids2[0]},
         **placeholder}]}
    results_2 = {"role": "user", "parts": [
        {"functionResponse": {"name": "get_time", "id": ids2[0],
                              "response": {"output": TIME_ERROR}}}]}
    turn_contents = [[user], [user, model_1, results_1],
                     [user, model_1, results_1, model_2, results_2]]
    for body, contents in zip(bodies, turn_contents):
        assert _normalize_gemini(body["contents"]) == contents
        assert body["systemInstruction"] == {"parts": [{"text": SYSTEM}]}
        declarations = body["tools"][0]["functionDeclarations"]
        assert [d["name"] for d in declarations] == ["get_weather", "get_time"]
        assert declarations[0]["description"] == "Weather of a city."
        params = declarations[0]["parametersJsonSchema"]
        assert params["properties"]["city"]["type"] == "string"
        assert params["required"] == ["city"]


def _normalize_gemini(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gemini reads a functionResponse's ``response`` object as the output whatever its one
    key (Google documents "output"; "result" is common): compare the text, not the key."""
    out = []
    for content in contents:
        parts = []
        for part in content["parts"]:
            fr = part.get("functionResponse")
            if fr is not None:
                (key, value), = fr["response"].items()
                assert key in ("output", "result"), fr
                part = {**part, "functionResponse": {**fr, "response": {"output": value}}}
            parts.append(part)
        out.append({**content, "parts": parts})
    return out


# --- the families ------------------------------------------------------------------------


class Family:
    def __init__(self, name: str, model: str, config: dict[str, Any],
                 route: Callable[[respx.Router, bool], Any],
                 body: Callable[[int, Any], dict[str, Any]], stream_body: Callable[[int, Any], bytes],
                 wire: Callable[[list[dict[str, Any]], bool], None],
                 ids: Callable[[int], list[str]]) -> None:
        self.name, self.model, self.config = name, model, config
        self.route, self.body, self.stream_body = route, body, stream_body
        self.wire, self.ids = wire, ids


FAMILIES = {
    "openai": Family(
        "openai", "openai:gpt-4o",
        {"openai": {"api_key": "sk-test-runner-0123456789", "max_retries": 0}},
        lambda router, streamed: router.post(OPENAI_URL),
        openai_json, openai_sse, openai_wire, openai_ids),
    "anthropic": Family(
        "anthropic", "anthropic:claude-sonnet-4-6",
        {"anthropic": {"api_key": "sk-ant-test-runner-0123456789", "max_retries": 0}},
        lambda router, streamed: router.post(ANTHROPIC_URL),
        anthropic_json, anthropic_sse, anthropic_wire, anthropic_ids),
    "google": Family(
        "google", "google:gemini-2.5-flash",
        {"google": {"api_key": "AIzaSyTEST-runner-0123456789abcdefgh", "max_retries": 0}},
        lambda router, streamed: (
            router.post(GEMINI_BASE + ":streamGenerateContent", params={"alt": "sse"})
            if streamed else router.post(GEMINI_BASE + ":generateContent")),
        gemini_json, gemini_sse, gemini_wire, gemini_ids),
}

FAMILY_PARAMS = list(FAMILIES)


def mock_turns(router: respx.Router, family: Family, streamed: bool, turns: list[Any]) -> Any:
    responses = []
    for n, spec in enumerate(turns, 1):
        if streamed:
            responses.append(respx.MockResponse(
                200, content=family.stream_body(n, spec),
                headers={"content-type": "text/event-stream"}))
        else:
            responses.append(respx.MockResponse(200, json=family.body(n, spec)))
    return family.route(router, streamed).mock(side_effect=responses)


def run(mode: str, streamed: bool, family: Family, **kwargs: Any
        ) -> tuple[ai.ChatCompletionResponse, list[ai.ChatCompletionChunk]]:
    kwargs = {"model": family.model, "messages": MESSAGES, "tools": TOOLS, **kwargs}
    if streamed:
        kwargs["stream"] = True
    if mode == "sync":
        with ai.Client(family.config) as client:
            result = client.chat.completions.create(**kwargs)
            if not streamed:
                return result, []
            with result:
                chunks = list(result)
                return result.get_final_response(), chunks

    async def main() -> tuple[ai.ChatCompletionResponse, list[ai.ChatCompletionChunk]]:
        async with ai.AsyncClient(family.config) as client:
            result = await client.chat.completions.create(**kwargs)
            if not streamed:
                return result, []
            async with result:
                chunks = [c async for c in result]
                return await result.get_final_response(), chunks

    return asyncio.run(main())


def wire_bodies(route: Any) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


# --- the tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("family_name", FAMILY_PARAMS)
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_three_turn_loop(family_name: str, mode: str, streamed: bool,
                         httpx2_mock: respx.Router) -> None:
    family = FAMILIES[family_name]
    route = mock_turns(httpx2_mock, family, streamed, TURNS)
    resp, chunks = run(mode, streamed, family, max_turns=5)

    bodies = wire_bodies(route)
    assert len(bodies) == 3
    family.wire(bodies, streamed)

    ids1, ids2 = family.ids(1), family.ids(2)
    assert resp.stop_reason == "completed"
    assert resp.provider == family.name
    assert resp.content == ANSWER
    assert resp.choices[0].finish_reason == "stop"
    assert len(resp.intermediate_responses) == 2
    assert [r.choices[0].finish_reason for r in resp.intermediate_responses] == [
        "tool_calls", "tool_calls"]
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens,
            resp.usage.total_tokens) == (60, 6, 66)
    assert [(e.call_id, e.name, e.arguments, e.result, e.is_error, e.allowed, e.turn)
            for e in resp.tool_events] == [
        (ids1[0], "get_weather", {"city": "Paris"}, "sunny in Paris", False, True, 1),
        (ids1[1], "get_weather", {"city": "Rome"}, "sunny in Rome", False, True, 1),
        (ids2[0], "get_time", {"tz": "Mars/Olympus"}, TIME_ERROR, True, True, 2),
    ]
    produced = resp.choices[0].intermediate_messages
    assert [(m.role, m.tool_call_id) for m in produced] == [
        ("assistant", None), ("tool", ids1[0]), ("tool", ids1[1]),
        ("assistant", None), ("tool", ids2[0]), ("assistant", None)]
    assert [[tc.id for tc in produced[i].tool_calls] for i in (0, 3)] == [ids1, ids2[:1]]
    assert resp.messages[2:] == produced
    assert [m.role for m in resp.messages[:2]] == ["system", "user"]

    if streamed:
        assert {c.turn for c in chunks} == {1, 2, 3}
        assert [c.turn for c in chunks] == sorted(c.turn for c in chunks)
        text = "".join(c.choices[0].delta.content or "" for c in chunks
                       if c.turn == 3 and c.choices)
        assert text == ANSWER
        first_turn_calls = [tc for c in chunks if c.turn == 1 and c.choices
                            for tc in (c.choices[0].delta.tool_calls or []) if tc.id]
        assert [tc.function.name for tc in first_turn_calls] == ["get_weather", "get_weather"]


@pytest.mark.parametrize("family_name", FAMILY_PARAMS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_final_answer_sends_tool_choice_none(family_name: str, mode: str,
                                             httpx2_mock: respx.Router) -> None:
    family = FAMILIES[family_name]
    route = mock_turns(httpx2_mock, family, False, [CALLS_1, ANSWER])
    resp, _ = run(mode, False, family, max_turns=1, on_max_turns="final_answer")
    first, second = wire_bodies(route)
    assert resp.stop_reason == "max_turns" and resp.content == ANSWER
    if family_name == "openai":
        assert "tool_choice" not in first and second["tool_choice"] == "none"
        assert second["tools"] == SCHEMAS
    elif family_name == "anthropic":
        assert "tool_choice" not in first and second["tool_choice"] == {"type": "none"}
        assert len(second["tools"]) == 2
    else:
        assert "toolConfig" not in first
        assert second["toolConfig"] == {"functionCallingConfig": {"mode": "NONE"}}
        assert len(second["tools"][0]["functionDeclarations"]) == 2
    assert [e.result for e in resp.tool_events] == ["sunny in Paris", "sunny in Rome"]


@pytest.mark.parametrize("family_name", FAMILY_PARAMS)
def test_denied_call_result_reaches_the_model(family_name: str,
                                              httpx2_mock: respx.Router) -> None:
    family = FAMILIES[family_name]
    route = mock_turns(httpx2_mock, family, False, [CALLS_2, ANSWER])
    resp, _ = run("sync", False, family, max_turns=3,
                  tool_policy=ai.AllowTools(["get_weather"]))
    denial = ("Error: tool call denied by policy: tool 'get_time' is not allowed "
              "(allowed tools: get_weather)")
    assert resp.tool_events[0].result == denial and resp.tool_events[0].allowed is False
    assert denial in json.dumps(wire_bodies(route)[1])
