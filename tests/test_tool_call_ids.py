"""Unique tool-call ids (DESIGN.md section 9) through the REAL vendor SDKs, HTTP mocked at
httpcore2: a reply repeating an id, omitting ids, or reusing an id of an earlier turn gets
unique ids before any tool runs and before the caller sees it (manual mode too), and the
results sent back in the next request pair with those ids, for every family, sync and async,
streamed and not."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

import pytest
import respx

import aisuite_like as ai
from aisuite_like._call_ids import unique_tool_call_ids

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GEMINI_BASE = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
MESSAGES = [{"role": "user", "content": "Weather in Paris and Rome?"}]
ANSWER = "Sunny in both."

Call = tuple[Optional[str], str, dict[str, Any]]  # (id or None, name, args)

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather of a city."""
    RAN.append(city)
    return f"sunny in {city}"


def _calls(ids: list[Optional[str]]) -> list[Call]:
    cities = ["Paris", "Rome", "Oslo"]
    return [(cid, "get_weather", {"city": cities[i]}) for i, cid in enumerate(ids)]


# --- replies per family (a spec is a list of calls, or the answer text) -----------------------


def openai_json(turn: int, spec: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(spec, str):
        message["content"], finish = spec, "stop"
    else:
        message["tool_calls"] = [
            {**({"id": cid} if cid is not None else {}), "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}
            for cid, name, args in spec]
        finish = "tool_calls"
    return {"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1700000000,
            "model": "gpt-4o", "choices": [{"index": 0, "message": message,
                                            "finish_reason": finish}]}


def openai_sse(turn: int, spec: Any) -> bytes:
    def chunk(delta: dict[str, Any], finish: Optional[str] = None) -> str:
        body = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk",
                "created": 1700000000, "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(body)}\n\n"

    events = [chunk({"role": "assistant"})]
    if isinstance(spec, str):
        events += [chunk({"content": spec}), chunk({}, "stop")]
    else:
        for i, (cid, name, args) in enumerate(spec):
            head = {"index": i, "type": "function", "function": {"name": name, "arguments": ""}}
            if cid is not None:
                head["id"] = cid
            events.append(chunk({"tool_calls": [head]}))
            events.append(chunk({"tool_calls": [{"index": i, "function": {
                "arguments": json.dumps(args)}}]}))
        events.append(chunk({}, "tool_calls"))
    events.append("data: [DONE]\n\n")
    return "".join(events).encode()


def anthropic_json(turn: int, spec: Any) -> dict[str, Any]:
    if isinstance(spec, str):
        content, stop = [{"type": "text", "text": spec}], "end_turn"
    else:
        content = [{"type": "tool_use", **({"id": cid} if cid is not None else {}),
                    "name": name, "input": args} for cid, name, args in spec]
        stop = "tool_use"
    return {"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "claude-x",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}


def anthropic_sse(turn: int, spec: Any) -> bytes:
    message = anthropic_json(turn, spec)

    def event(body: dict[str, Any]) -> str:
        return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n"

    events = [event({"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None}})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(event({"type": "content_block_start", "index": i,
                                 "content_block": {"type": "text", "text": ""}}))
            events.append(event({"type": "content_block_delta", "index": i,
                                 "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            events.append(event({"type": "content_block_start", "index": i,
                                 "content_block": {**block, "input": {}}}))
            events.append(event({"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
        events.append(event({"type": "content_block_stop", "index": i}))
    events.append(event({"type": "message_delta", "delta": {
        "stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": 1}}))
    events.append(event({"type": "message_stop"}))
    return "".join(events).encode()


def gemini_json(turn: int, spec: Any) -> dict[str, Any]:
    if isinstance(spec, str):
        parts: list[dict[str, Any]] = [{"text": spec}]
    else:
        parts = [{"functionCall": {**({"id": cid} if cid is not None else {}),
                                   "name": name, "args": args}} for cid, name, args in spec]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                            "finishReason": "STOP"}],
            "modelVersion": "gemini-2.5-flash", "responseId": f"R{turn}"}


def gemini_sse(turn: int, spec: Any) -> bytes:
    return f"data: {json.dumps(gemini_json(turn, spec))}\r\n\r\n".encode()


# --- what the next request sent back, per family: (assistant call ids, result ids) ---------


def openai_sent(body: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    turns: list[tuple[list[str], list[str]]] = []
    for m in body["messages"]:
        if m["role"] == "assistant" and m.get("tool_calls"):
            turns.append(([c["id"] for c in m["tool_calls"]], []))
        elif m["role"] == "tool":
            turns[-1][1].append(m["tool_call_id"])
    return turns


def anthropic_sent(body: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    turns: list[tuple[list[str], list[str]]] = []
    for m in body["messages"]:
        blocks = m["content"] if isinstance(m["content"], list) else []
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        if uses:
            turns.append((uses, []))
        if results:
            turns[-1][1].extend(results)
    return turns


def gemini_sent(body: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    turns: list[tuple[list[str], list[str]]] = []
    for content in body["contents"]:
        calls = [p["functionCall"]["id"] for p in content["parts"] if "functionCall" in p]
        results = [p["functionResponse"]["id"] for p in content["parts"]
                   if "functionResponse" in p]
        if calls:
            turns.append((calls, []))
        if results:
            turns[-1][1].extend(results)
    return turns


FAMILIES: dict[str, dict[str, Any]] = {
    "openai": dict(model="openai:gpt-4o", json=openai_json, sse=openai_sse, sent=openai_sent,
                   config={"openai": {"api_key": "sk-test-ids-0123456789", "max_retries": 0}}),
    "anthropic": dict(model="anthropic:claude-x", json=anthropic_json, sse=anthropic_sse,
                      sent=anthropic_sent, config={"anthropic": {
                          "api_key": "sk-ant-test-ids-0123456789", "max_retries": 0}}),
    "google": dict(model="google:gemini-2.5-flash", json=gemini_json, sse=gemini_sse,
                   sent=gemini_sent, config={"google": {
                       "api_key": "AIzaSyTEST-ids-0123456789abcdefghijk", "max_retries": 0}}),
}


def mock(router: respx.Router, family: str, streamed: bool, turns: list[Any]) -> Any:
    spec = FAMILIES[family]
    if family == "openai":
        route = router.post(OPENAI_URL)
    elif family == "anthropic":
        route = router.post(ANTHROPIC_URL)
    elif streamed:
        route = router.post(GEMINI_BASE + ":streamGenerateContent", params={"alt": "sse"})
    else:
        route = router.post(GEMINI_BASE + ":generateContent")
    replies = [
        respx.MockResponse(200, content=spec["sse"](n, t),
                           headers={"content-type": "text/event-stream"})
        if streamed else respx.MockResponse(200, json=spec["json"](n, t))
        for n, t in enumerate(turns, 1)]
    return route.mock(side_effect=replies)


def create(mode: str, family: str, **kwargs: Any) -> tuple[Any, list[Any]]:
    """One create() call; streamed: (final response, chunks)."""
    spec = FAMILIES[family]
    kwargs = {"model": spec["model"], "tools": [get_weather], **kwargs}
    streamed = kwargs.get("stream", False)
    if mode == "sync":
        with ai.Client(spec["config"]) as client:
            result = client.chat.completions.create(**kwargs)
            if not streamed:
                return result, []
            chunks = list(result)
            return result.get_final_response(), chunks

    async def main() -> tuple[Any, list[Any]]:
        async with ai.AsyncClient(spec["config"]) as client:
            result = await client.chat.completions.create(**kwargs)
            if not streamed:
                return result, []
            chunks = [c async for c in result]
            return await result.get_final_response(), chunks

    return asyncio.run(main())


def chunk_ids(chunks: list[Any]) -> list[str]:
    return [tc.id for c in chunks for ch in c.choices for tc in ch.delta.tool_calls or ()
            if tc.id is not None]


def bodies(route: Any) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


def assert_unique_and_paired(sent: list[tuple[list[str], list[str]]]) -> list[str]:
    every = [cid for calls, _ in sent for cid in calls]
    assert len(every) == len(set(every)), sent
    assert all(isinstance(cid, str) and cid for cid in every), sent
    for calls, results in sent:
        assert results == calls  # one result per call, in call order, each with its id
    return every


# --- the runner ----------------------------------------------------------------------------

CASES = {
    "duplicate": [_calls(["dup", "dup", "dup"]), ANSWER],
    "missing": [_calls([None, None]), ANSWER],
    "reused_across_turns": [_calls(["c1"]), _calls(["c1"]), ANSWER],
}


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("case", list(CASES))
def test_runner_sends_unique_paired_ids(family: str, mode: str, streamed: bool, case: str,
                                        httpx2_mock: respx.Router) -> None:
    turns = CASES[case]
    route = mock(httpx2_mock, family, streamed, turns)
    RAN.clear()
    resp, chunks = create(mode, family, messages=MESSAGES, max_turns=5, stream=streamed)
    sent = bodies(route)
    assert len(sent) == len(turns)
    every = assert_unique_and_paired(FAMILIES[family]["sent"](sent[-1]))
    n_calls = sum(len(t) for t in turns if not isinstance(t, str))
    assert len(every) == n_calls
    assert len(RAN) == n_calls  # every call ran once: none skipped, none twice
    # the trace and the events carry the same ids, each answered once
    assert [e.call_id for e in resp.tool_events] == every
    assert [tc.id for m in resp.messages if m.tool_calls for tc in m.tool_calls] == every
    assert [m.tool_call_id for m in resp.messages if m.role == "tool"] == every
    if case == "duplicate" and family != "google":
        assert every == ["dup", "dup_2", "dup_3"]  # the first use keeps its id
    if streamed:
        assert chunk_ids(chunks) == every  # what the caller saw pairs with the trace


def test_anthropic_call_without_id_runs_once_and_pairs(httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, "anthropic", False, [_calls([None, "toolu_1"]), ANSWER])
    RAN.clear()
    resp, _ = create("sync", "anthropic", messages=MESSAGES, max_turns=3)
    assert resp.stop_reason == "completed" and resp.content == ANSWER
    assert RAN == ["Paris", "Rome"]
    assert anthropic_sent(bodies(route)[1]) == [(["call_0_0", "toolu_1"],
                                                 ["call_0_0", "toolu_1"])]


# --- manual mode: the caller gets unique ids and can answer them -----------------------------


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_manual_mode_returns_unique_ids_the_caller_can_answer(
        family: str, mode: str, streamed: bool, httpx2_mock: respx.Router) -> None:
    # The conversation already holds a call "dup"; the reply repeats it twice.
    history = [*MESSAGES,
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "dup", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
               {"role": "tool", "tool_call_id": "dup", "name": "get_weather",
                "content": "sunny in Oslo"}]
    route = mock(httpx2_mock, family, streamed, [_calls(["dup", "dup"]), ANSWER])
    resp, chunks = create(mode, family, messages=history, stream=streamed)
    ids = [tc.id for tc in resp.choices[0].message.tool_calls]
    assert len(set(ids)) == 2 and "dup" not in ids
    if family != "google":
        assert ids == ["dup_2", "dup_3"]
    if streamed:
        assert chunk_ids(chunks) == ids
    follow_up = [*history, resp.choices[0].message,
                 *({"role": "tool", "tool_call_id": cid, "name": "get_weather",
                    "content": "sunny"} for cid in ids)]
    create(mode, family, messages=follow_up, stream=streamed)
    sent = FAMILIES[family]["sent"](bodies(route)[1])
    assert assert_unique_and_paired(sent) == ["dup", *ids]


def test_replies_without_calls_are_returned_as_is() -> None:
    resp = ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
        role="assistant", content="hi"))])
    assert unique_tool_call_ids(resp, MESSAGES) is resp


def test_the_reply_object_is_not_modified() -> None:
    call = ai.ToolCall(id="a", function=ai.Function(name="f", arguments="{}"))
    resp = ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
        role="assistant", tool_calls=[call, call.model_copy()]))])
    fixed = unique_tool_call_ids(resp)
    assert [tc.id for tc in fixed.choices[0].message.tool_calls] == ["a", "a_2"]
    assert [tc.id for tc in resp.choices[0].message.tool_calls] == ["a", "a"]


def test_scripted_stream_chunks_are_not_modified() -> None:
    from aisuite_like.streaming import _ChunkAccumulator
    from aisuite_like.types import (ChatCompletionChunk, ChoiceDelta, ChoiceDeltaToolCall,
                                    ChoiceDeltaFunction, ChunkChoice)

    def chunk(i: int) -> ChatCompletionChunk:
        return ChatCompletionChunk(choices=[ChunkChoice(delta=ChoiceDelta(tool_calls=[
            ChoiceDeltaToolCall(index=i, id="x", function=ChoiceDeltaFunction(
                name="f", arguments="{}"))]))])

    acc = _ChunkAccumulator()
    originals = [chunk(0), chunk(1)]
    passed = [acc.add(c) for c in originals]
    assert passed[0] is originals[0]
    assert passed[1].choices[0].delta.tool_calls[0].id == "x_2"
    assert originals[1].choices[0].delta.tool_calls[0].id == "x"
    assert [tc.id for tc in acc.build().choices[0].message.tool_calls] == ["x", "x_2"]
