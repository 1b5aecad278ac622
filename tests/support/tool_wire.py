"""Per-family wire replies for the tool-runner tests (OpenAI, Anthropic, Gemini): a reply
asking for given tool calls (ids may be None or repeated) or answering with text, as JSON or
SSE; what a request sent back (call ids and result ids); one create() on a fresh client.
No logic under test lives here."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

import respx

import aisuite_like as ai

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GEMINI_BASE = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"


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
    kwargs = {"model": spec["model"], **kwargs}
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


def bodies(route: Any) -> list[dict[str, Any]]:
    """The JSON bodies the SDK sent on a respx route, in order."""
    return [json.loads(call.request.content) for call in route.calls]
