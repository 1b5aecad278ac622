"""Replay of the recorded Anthropic Messages API exchanges (tests/fixtures/recorded/anthropic).

- Every 200 JSON response parses into the unified types; the expected content, tool calls,
  reasoning, finish reason and usage are computed here from the recorded JSON, independently of
  the code under test.
- Every recorded SSE stream, replayed through the stream translator and folded by the same
  accumulator as ``Stream.get_final_response``, gives the reply the events describe.
- Recorded requests are turned back into OpenAI-style messages (a converter written here) and
  run through our request translator: messages, system, tools and tool_choice must match what
  was sent.
- Error responses are replayed through the real SDK (HTTP mocked at httpcore2).

Exchanges of other endpoints (count_tokens, ...) are skipped with the reason in their id.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from support.transports import transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.core.streaming import ChunkAccumulator
from aisuite_like.providers.anthropic import StreamBody, build_request, parse_response
from aisuite_like.providers.base import ChatRequest
from support.recorded import RECORDED, recorded_files

FILES = recorded_files("anthropic")


def _interactions() -> list[Any]:
    params = []
    for path in FILES:
        data = json.loads(path.read_text())
        for i, interaction in enumerate(data["interactions"]):
            url = interaction["request"]["url"]
            path_part = url.split("://", 1)[-1].split("?", 1)[0]
            ident = f"{path.stem}#{i}"
            marks = ()
            if not path_part.endswith("/v1/messages"):
                marks = (pytest.mark.skip(reason=f"not a Messages API exchange: {path_part}"),)
                ident += "-skip-other-endpoint"
            params.append(pytest.param(interaction, id=ident, marks=marks))
    return params


INTERACTIONS = _interactions()


def _kind(interaction: dict[str, Any]) -> str:
    response = interaction["response"]
    if response["status"] != 200:
        return "error"
    return "sse" if "sse" in response else "json"


def _of_kind(kind: str) -> list[Any]:
    return [p for p in INTERACTIONS if not p.marks and _kind(p.values[0]) == kind]


def test_fixtures_present() -> None:
    assert RECORDED.exists(), RECORDED
    assert len(FILES) >= 40
    assert len(_of_kind("json")) >= 50 and len(_of_kind("sse")) >= 2


# --- expectations computed from the recorded JSON ---------------------------------------

_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
           "tool_use": "tool_calls", "refusal": "content_filter"}


def _expected_usage(usage: dict[str, Any]) -> tuple[int, int, int, int]:
    prompt = (usage["input_tokens"] + usage.get("cache_read_input_tokens", 0)
              + usage.get("cache_creation_input_tokens", 0))
    return prompt, usage["output_tokens"], prompt + usage["output_tokens"], usage.get(
        "cache_read_input_tokens", 0)


def _check(resp: ai.ChatCompletionResponse, *, texts: list[str], calls: list[tuple[str, str, Any]],
           thinking: list[dict[str, Any]], stop_reason: str, usage: dict[str, Any],
           msg_id: str, model: str) -> None:
    message = resp.choices[0].message
    assert resp.id == msg_id and resp.model == model and resp.provider == "anthropic"
    assert message.role == "assistant"
    assert message.content == ("".join(texts) or None)
    got_calls = [(c.id, c.function.name, json.loads(c.function.arguments))
                 for c in message.tool_calls or []]
    assert got_calls == calls
    reasoning = "".join(b["thinking"] for b in thinking if b["type"] == "thinking")
    assert message.reasoning_content == (reasoning or None)
    if thinking:
        assert message.provider_specific_fields == {"thinking_blocks": thinking}
    else:
        assert message.provider_specific_fields is None
    finish = "tool_calls" if calls else _FINISH[stop_reason]
    assert resp.choices[0].finish_reason == finish
    assert resp.choices[0].native_finish_reason == stop_reason
    prompt, completion, total, cached = _expected_usage(usage)
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens,
            resp.usage.total_tokens) == (prompt, completion, total)
    assert resp.usage.prompt_tokens_details.cached_tokens == cached


@pytest.mark.parametrize("interaction", _of_kind("json"))
def test_recorded_response_parses(interaction: dict[str, Any]) -> None:
    body = interaction["response"]["body"]
    blocks = body["content"]
    resp = parse_response(body)
    _check(
        resp,
        texts=[b["text"] for b in blocks if b["type"] == "text"],
        calls=[(b["id"], b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"],
        thinking=[{k: b[k] for k in ("type", "thinking", "signature")} if b["type"] == "thinking"
                  else {"type": b["type"], "data": b["data"]}
                  for b in blocks if b["type"] in ("thinking", "redacted_thinking")],
        stop_reason=body["stop_reason"], usage=body["usage"], msg_id=body["id"],
        model=body["model"])


def _events(sse_text: str) -> list[dict[str, Any]]:
    """Independent SSE reading for the expectations: each ``data:`` line is one JSON event."""
    return [json.loads(line[5:]) for line in sse_text.splitlines() if line.startswith("data:")]


@pytest.mark.parametrize("interaction", _of_kind("sse"))
def test_recorded_stream_replays_to_the_reply(interaction: dict[str, Any]) -> None:
    sse_text = interaction["response"]["sse"]
    # Expectations: rebuild the message from the raw events, block by block.
    events = _events(sse_text)
    start = next(e for e in events if e["type"] == "message_start")["message"]
    delta = next(e for e in events if e["type"] == "message_delta")
    blocks: dict[int, dict[str, Any]] = {}
    for e in events:
        if e["type"] == "content_block_start":
            blocks[e["index"]] = dict(e["content_block"], _json="")
        elif e["type"] == "content_block_delta":
            block, d = blocks[e["index"]], e["delta"]
            if d["type"] == "text_delta":
                block["text"] += d["text"]
            elif d["type"] == "thinking_delta":
                block["thinking"] += d["thinking"]
            elif d["type"] == "signature_delta":
                block["signature"] += d["signature"]
            elif d["type"] == "input_json_delta":
                block["_json"] += d["partial_json"]
    ordered = [blocks[i] for i in sorted(blocks)]
    usage = {**start["usage"], **{k: v for k, v in delta["usage"].items() if v is not None}}

    # Replay through the translator, exactly as the transport feeds it.
    body = StreamBody()
    accumulator = ChunkAccumulator()
    chunks = []
    raw = sse_text.encode()
    for offset in range(0, len(raw), 97):  # reads that end anywhere, as the network's do
        for chunk in body.feed(raw[offset:offset + 97]):
            chunks.append(chunk)
            accumulator.add(chunk)
    for chunk in body.end():
        chunks.append(chunk)
        accumulator.add(chunk)
    body.finish()
    resp = accumulator.build()

    _check(
        resp,
        texts=[b["text"] for b in ordered if b["type"] == "text"],
        calls=[(b["id"], b["name"], json.loads(b["_json"] or "{}"))
               for b in ordered if b["type"] == "tool_use"],
        thinking=[{"type": "thinking", "thinking": b["thinking"], "signature": b["signature"]}
                  for b in ordered if b["type"] == "thinking"],
        stop_reason=delta["delta"]["stop_reason"], usage=usage, msg_id=start["id"],
        model=start["model"])
    assert chunks[-1].usage is not None and chunks[-1].choices[0].finish_reason is not None
    assert all(c.usage is None for c in chunks[:-1])


# --- recorded requests through our request translator ------------------------------------


def _to_openai_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded Anthropic request -> the OpenAI-style messages a user of this library
    would have written for the same conversation."""
    out: list[dict[str, Any]] = []
    if isinstance(body.get("system"), str):
        out.append({"role": "system", "content": body["system"]})
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append({"role": message["role"], "content": content})
            continue
        if message["role"] == "assistant":
            entry: dict[str, Any] = {"role": "assistant"}
            texts = [{"type": "text", "text": b["text"]} for b in content if b["type"] == "text"]
            if texts:
                entry["content"] = texts
            calls = [{"id": b["id"], "type": "function", "function": {
                "name": b["name"], "arguments": json.dumps(b["input"])}}
                for b in content if b["type"] == "tool_use"]
            if calls:
                entry["tool_calls"] = calls
            thinking = [b for b in content if b["type"] in ("thinking", "redacted_thinking")]
            if thinking:
                entry["provider_specific_fields"] = {"thinking_blocks": thinking}
            out.append(entry)
            continue
        parts = []
        for block in content:
            if block["type"] == "tool_result":
                result = block.get("content")
                if isinstance(result, list):
                    result = [dict(p) for p in result]
                tool_message = {"role": "tool", "tool_call_id": block["tool_use_id"],
                                "content": result}
                if block.get("is_error"):  # our extension key on tool messages
                    tool_message["is_error"] = True
                out.append(tool_message)
            else:
                parts.append(block)  # text parts are OpenAI-shaped already
        if parts:
            out.append({"role": "user", "content": parts})
    return out


def _to_openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        if set(tool) - {"name", "description", "input_schema", "strict"}:
            out.append(tool)  # native-only fields (e.g. defer_loading): pass the tool natively
            continue
        function = {"name": tool["name"], "description": tool.get("description", ""),
                    "parameters": tool["input_schema"]}
        if "strict" in tool:
            function["strict"] = tool["strict"]
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(choice: dict[str, Any] | None) -> Any:
    if choice is None:
        return None
    return {"auto": "auto", "any": "required", "none": "none"}.get(choice["type"]) or {
        "type": "function", "function": {"name": choice["name"]}}


def _normalise_sent(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the recorded client sent, minus defaults it spelled out (``is_error: false``), with
    consecutive same-role turns merged (the API combines them into one turn; we send them so)."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = []
        for block in content:
            if block["type"] == "tool_result" and block.get("is_error") is False:
                block = {k: v for k, v in block.items() if k != "is_error"}
            blocks.append(block)
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": message["role"], "content": blocks})
    return out


def _replayable(interaction: dict[str, Any]) -> bool:
    body = interaction["request"]["body"]
    for message in body["messages"]:
        if isinstance(message["content"], str):
            continue
        types = [b["type"] for b in message["content"]]
        # Our translator puts tool results first in a user turn (as Anthropic requires) and
        # thinking, then text, then tool_use in an assistant turn.
        if "tool_result" in types and types.index("tool_result") > 0 and any(
                t != "tool_result" for t in types[:types.index("tool_result")]):
            return False
        if message["role"] == "assistant":
            order = {"thinking": 0, "redacted_thinking": 0, "text": 1, "tool_use": 2}
            ranks = [order.get(t, 9) for t in types]
            if ranks != sorted(ranks) or 9 in ranks:
                return False
    return True


def _request_params() -> list[Any]:
    params = []
    for p in INTERACTIONS:
        if p.marks:
            continue
        interaction = p.values[0]
        marks = () if _replayable(interaction) else (pytest.mark.skip(
            reason="recorded block order differs from the canonical order we send"),)
        params.append(pytest.param(interaction, id=p.id, marks=marks))
    return params


@pytest.mark.parametrize("interaction", _request_params())
def test_recorded_request_rebuilt_by_our_translator(interaction: dict[str, Any]) -> None:
    body = interaction["request"]["body"]
    extra: dict[str, Any] = {}
    if "thinking" in body:
        extra["thinking"] = body["thinking"]
    request = ChatRequest(
        model=body["model"],
        messages=_to_openai_messages(body),
        tools=_to_openai_tools(body["tools"]) if body.get("tools") else None,
        tool_choice=_tool_choice(body.get("tool_choice")),
        max_tokens=body["max_tokens"],
        stop=body.get("stop_sequences"),
        stream=body.get("stream", False),
        extra=extra,
    )
    kwargs = build_request(request)

    assert kwargs["messages"] == _normalise_sent(body["messages"])
    assert kwargs.get("system") == body.get("system")
    assert kwargs["max_tokens"] == body["max_tokens"]
    assert kwargs.get("stop_sequences") == body.get("stop_sequences")
    assert kwargs.get("thinking") == body.get("thinking")
    if body.get("tools"):
        def strip_empty(t: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in t.items() if not (k == "description" and v == "")}

        assert [strip_empty(t) for t in kwargs["tools"]] == [strip_empty(t)
                                                             for t in body["tools"]]
        assert kwargs.get("tool_choice") == body.get("tool_choice")


# --- recorded error responses through the SDK -------------------------------------------


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("interaction", _of_kind("error"))
def test_recorded_error_mapped(interaction: dict[str, Any], httpx2_mock: Any) -> None:
    response = interaction["response"]
    body = interaction["request"]["body"]
    httpx2_mock.post("https://api.anthropic.com/v1/messages").mock(return_value=httpx.Response(
        response["status"], json=response["body"], headers=response["headers"]))
    client = ai.Client(with_transport(
        {"anthropic": {"api_key": "sk-ant-replay-0000000000", "max_retries": 0}}))
    with pytest.raises(ai.APIError) as info:
        client.chat.completions.create(model=f"anthropic:{body['model']}",
                                       messages=_to_openai_messages(body))
    err = info.value
    expected = {400: ai.BadRequestError, 401: ai.AuthenticationError, 403:
                ai.PermissionDeniedError, 404: ai.NotFoundError, 429: ai.RateLimitError}.get(
        response["status"], ai.InternalServerError)
    assert isinstance(err, expected) and err.status_code == response["status"]
    assert err.request_id == (response["headers"].get("request-id")
                              or response["body"].get("request_id"))
    assert response["body"]["error"]["message"] in str(err)
