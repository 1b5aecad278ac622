"""``/v1/messages`` in Anthropic's shape, over the client's chat completions (pure: no I/O).

A Messages request becomes the arguments of ``chat.completions.create`` (OpenAI's shape, what
every family's translator takes), and the reply, or each streamed chunk, becomes Anthropic's
message or its SSE events. This is the only translation the gateway owns: the other direction
of the client's own (a client speaking Anthropic's API to the gateway); the families'
translators still do the rest.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any, Optional

from ..core.errors import UnsupportedParameterError

__all__ = ["to_chat_arguments", "to_message", "StreamEvents", "sse"]

_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use",
                 "function_call": "tool_use", "content_filter": "refusal"}
#: Accepted and not sent: metadata the model does not see.
_IGNORED = frozenset({"metadata", "service_tier"})
_KNOWN = frozenset({"model", "messages", "system", "max_tokens", "temperature", "top_p",
                    "top_k", "stop_sequences", "stream", "tools", "tool_choice", "thinking"})


def _bad(message: str, parameter: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(message, parameter=parameter)


def _text_of(blocks: Any, where: str) -> str:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        raise _bad(f"{where} must be a string or a list of text blocks", where)
    parts = []
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") != "text":
            raise _bad(f"{where} takes text blocks only", where)
        parts.append(str(block.get("text", "")))
    return "".join(parts)


def _image_part(block: dict[str, Any], where: str) -> dict[str, Any]:
    source = block.get("source") or {}
    if source.get("type") == "base64":
        url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    elif source.get("type") == "url":
        url = str(source.get("url", ""))
    else:
        raise _bad(f"{where}: an image source must be base64 or url", where)
    return {"type": "image_url", "image_url": {"url": url}}


def _tool_result_text(content: Any, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return _text_of(content, where)


def _messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list):
        raise _bad("messages must be a list", "messages")
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise _bad(f"{where} must be {{'role': 'user' | 'assistant', 'content': ...}}",
                       "messages")
        content = message.get("content")
        if isinstance(content, str):
            out.append({"role": message["role"], "content": content})
            continue
        if not isinstance(content, list):
            raise _bad(f"{where}.content must be a string or a list of blocks", "messages")
        if message["role"] == "assistant":
            text, calls = [], []
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text":
                    text.append(str(block.get("text", "")))
                elif kind == "tool_use":
                    calls.append({"id": str(block.get("id", "")), "type": "function",
                                  "function": {"name": str(block.get("name", "")),
                                               "arguments": json.dumps(block.get("input") or {})}})
                elif kind in ("thinking", "redacted_thinking"):
                    continue  # another model's reasoning: not sent on
                else:
                    raise _bad(f"{where}: an assistant block of type {kind!r} is not supported",
                               "messages")
            entry: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
            continue
        parts: list[dict[str, Any]] = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                out.append({"role": "tool", "tool_call_id": str(block.get("tool_use_id", "")),
                            "content": _tool_result_text(block.get("content"), where)})
            elif kind == "text":
                parts.append({"type": "text", "text": str(block.get("text", ""))})
            elif kind == "image":
                parts.append(_image_part(block, where))
            else:
                raise _bad(f"{where}: a user block of type {kind!r} is not supported",
                           "messages")
        if parts:
            if all(p["type"] == "text" for p in parts):
                out.append({"role": "user", "content": "".join(p["text"] for p in parts)})
            else:
                out.append({"role": "user", "content": parts})
    return out


def _tools(tools: Any) -> list[dict[str, Any]]:
    if not isinstance(tools, list):
        raise _bad("tools must be a list", "tools")
    out = []
    for tool in tools:
        if not isinstance(tool, dict) or "name" not in tool or tool.get("type") not in (
                None, "custom"):
            raise _bad("each tool must be {'name', 'description', 'input_schema'} (server "
                       "tools are not supported through the gateway)", "tools")
        function: dict[str, Any] = {"name": tool["name"],
                                    "parameters": tool.get("input_schema") or {
                                        "type": "object", "properties": {}}}
        if tool.get("description"):
            function["description"] = tool["description"]
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(choice: Any) -> tuple[Any, Optional[bool]]:
    if not isinstance(choice, dict):
        raise _bad("tool_choice must be {'type': 'auto' | 'any' | 'tool' | 'none'}",
                   "tool_choice")
    kind = choice.get("type")
    parallel = False if choice.get("disable_parallel_tool_use") else None
    if kind == "auto":
        return "auto", parallel
    if kind == "any":
        return "required", parallel
    if kind == "none":
        return "none", None
    if kind == "tool":
        return {"type": "function", "function": {"name": str(choice.get("name", ""))}}, parallel
    raise _bad(f"tool_choice type {kind!r} is not one of auto, any, tool, none", "tool_choice")


def to_chat_arguments(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(messages, keyword arguments) of ``chat.completions.create`` for a Messages request
    (``model`` and ``stream`` are the caller's to take)."""
    unknown = sorted(set(body) - _KNOWN - _IGNORED)
    if unknown:
        raise _bad(f"/v1/messages does not take {', '.join(unknown)}", unknown[0])
    if "max_tokens" not in body:
        raise _bad("max_tokens is required", "max_tokens")
    messages = _messages(body.get("messages"))
    system = body.get("system")
    if system is not None:
        messages.insert(0, {"role": "system", "content": _text_of(system, "system")})
    kwargs: dict[str, Any] = {"max_tokens": body["max_tokens"]}
    for name in ("temperature", "top_p"):
        if body.get(name) is not None:
            kwargs[name] = body[name]
    if body.get("top_k") is not None:
        kwargs["top_k"] = body["top_k"]  # provider-native: families that have it take it
    if body.get("stop_sequences"):
        kwargs["stop"] = list(body["stop_sequences"])
    if body.get("tools"):
        kwargs["tools"] = _tools(body["tools"])
    if body.get("tool_choice") is not None:
        choice, parallel = _tool_choice(body["tool_choice"])
        kwargs["tool_choice"] = choice
        if parallel is not None and body.get("tools"):
            kwargs["parallel_tool_calls"] = parallel
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens") or 0
        kwargs["reasoning_effort"] = "low" if budget < 4096 else (
            "medium" if budget < 16384 else "high")
    return messages, kwargs


def _message_id() -> str:
    return "msg_" + uuid.uuid4().hex[:24]


def _arguments(text: Any) -> Any:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {"_raw": str(text)}
    return value if isinstance(value, dict) else {"value": value}


def _usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    out = {"input_tokens": int(usage.prompt_tokens or 0),
           "output_tokens": int(usage.completion_tokens or 0)}
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached:
        out["cache_read_input_tokens"] = int(cached)
    return out


def to_message(response: Any, model: str) -> dict[str, Any]:
    """Anthropic's ``Message`` for a chat completion."""
    message = response.choices[0].message if response.choices else None
    content: list[dict[str, Any]] = []
    if message is not None:
        text = message.content if isinstance(message.content, str) else (
            "" if message.content is None else str(message.content))
        if text:
            content.append({"type": "text", "text": text})
        for call in message.tool_calls or ():
            content.append({"type": "tool_use", "id": call.id, "name": call.function.name,
                            "input": _arguments(call.function.arguments)})
    finish = response.choices[0].finish_reason if response.choices else None
    return {"id": _message_id(), "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": _STOP_REASONS.get(finish or "", "end_turn"),
            "stop_sequence": None, "usage": _usage(response.usage)}


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class StreamEvents:
    """Chat chunks in, Anthropic's stream events out (``message_start``, a
    ``content_block_start`` / ``_delta`` / ``_stop`` per text or tool-use block,
    ``message_delta`` with the stop reason and usage, ``message_stop``)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._started = False
        self._block: Optional[tuple[str, int]] = None  # ("text", -1) or ("tool", call index)
        self._index = -1
        self._finish: Optional[str] = None
        self._usage: Any = None

    def _start(self) -> Iterator[bytes]:
        if not self._started:
            self._started = True
            yield sse("message_start", {"type": "message_start", "message": {
                "id": _message_id(), "type": "message", "role": "assistant",
                "model": self.model, "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}})

    def _close_block(self) -> Iterator[bytes]:
        if self._block is not None:
            yield sse("content_block_stop", {"type": "content_block_stop",
                                             "index": self._index})
            self._block = None

    def _open(self, kind: str, call: int, block: dict[str, Any]) -> Iterator[bytes]:
        yield from self._close_block()
        self._index += 1
        self._block = (kind, call)
        yield sse("content_block_start", {"type": "content_block_start",
                                          "index": self._index, "content_block": block})

    def chunk(self, chunk: Any) -> Iterator[bytes]:
        yield from self._start()
        if chunk.usage is not None:
            self._usage = chunk.usage
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta.content:
                if self._block is None or self._block[0] != "text":
                    yield from self._open("text", -1, {"type": "text", "text": ""})
                yield sse("content_block_delta", {
                    "type": "content_block_delta", "index": self._index,
                    "delta": {"type": "text_delta", "text": delta.content}})
            for call in delta.tool_calls or ():
                if call.id or self._block != ("tool", call.index):
                    if self._block != ("tool", call.index):
                        yield from self._open("tool", call.index, {
                            "type": "tool_use", "id": call.id or "",
                            "name": (call.function.name if call.function else "") or "",
                            "input": {}})
                arguments = call.function.arguments if call.function else None
                if arguments:
                    yield sse("content_block_delta", {
                        "type": "content_block_delta", "index": self._index,
                        "delta": {"type": "input_json_delta", "partial_json": arguments}})
            if choice.finish_reason:
                self._finish = choice.finish_reason

    def end(self) -> Iterator[bytes]:
        yield from self._start()
        yield from self._close_block()
        usage = _usage(self._usage)
        yield sse("message_delta", {"type": "message_delta", "delta": {
            "stop_reason": _STOP_REASONS.get(self._finish or "", "end_turn"),
            "stop_sequence": None}, "usage": {"output_tokens": usage["output_tokens"],
                                              "input_tokens": usage["input_tokens"]}})
        yield sse("message_stop", {"type": "message_stop"})
