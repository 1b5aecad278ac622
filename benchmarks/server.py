"""A loopback mock LLM server for the benchmarks: OpenAI chat completions, Anthropic messages and
Gemini generateContent / streamGenerateContent, streamed (SSE in each provider's own format) and
not, with a tool-call mode. Bench-only: it never runs in the library.

    python benchmarks/server.py                      # serve on a free port, print "LISTENING <port>"
    python benchmarks/server.py --capacity           # measure both implementations and print them

Routes
    POST /v1/chat/completions                          OpenAI (``stream`` and
                                                       ``stream_options.include_usage`` honoured)
    POST /v1/embeddings                                OpenAI embeddings (a vector of
                                                       ``dim<N>`` floats per input, 256 by
                                                       default; ``encoding_format`` honoured)
    POST /v1/messages                                  Anthropic (``stream`` honoured)
    POST /v1beta/models/{model}:generateContent        Gemini
    POST /v1beta/models/{model}:streamGenerateContent  Gemini SSE (``?alt=sse``)
    POST /model/{modelId}/converse                     Amazon Bedrock Converse
    POST /model/{modelId}/converse-stream              Bedrock ConverseStream (binary
                                                       ``application/vnd.amazon.eventstream``)
    GET  /_bench/stats                                 {"requests": n, "cpu_s": server CPU seconds}

Scenario options ride in the model name, so one server serves every scenario and every SDK can
pass them unchanged: dash-separated tokens ``lat<ms>`` (delay before the reply), ``chunks<N>``
(content deltas of a streamed reply, default 8), ``tools<N>`` (parallel tool calls per tool
round, default 0 = never call tools) and ``rounds<R>`` (how many requests of one conversation get
tool calls, default 1). E.g. ``gpt-bench-tools4-rounds2``. The ``x-bench-options`` header
(``tools=4,rounds=2``) overrides them.

Tool-call mode: a request that offers tools, whose history holds fewer than ``rounds`` assistant
turns with tool calls and whose ``tool_choice`` is not "none", gets ``tools`` parallel calls
(round-robin over the offered tools, arguments made from each tool's JSON schema); otherwise
text. Response shapes are copied from real recorded exchanges (tests/fixtures/recorded):
field names, order and the extra fields real services send (``obfuscation``, ``service_tier``,
``system_fingerprint``, Anthropic ``ping`` events, Gemini ``usageMetadata`` details).

Speed: replies are built once per distinct shape and cached as finished HTTP/1.1 bytes, so a
request costs one header parse, one ``json.loads`` of the body and one socket write. Two
implementations share that core: ``asyncio`` (a raw ``asyncio.Protocol`` HTTP/1.1 keep-alive
server, the default) and ``uvicorn`` (the same core as an ASGI app). ``--capacity`` measures
both; the raw protocol is the faster one (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import unquote

__all__ = ["MockLLM", "Options", "parse_options", "serve", "start_server_process",
           "measure_capacity"]

_CREATED = 1754688929  # a fixed timestamp, as in the recordings
_FINGERPRINT = "fp_07871e2ad8"
_WORDS = ("The", " capital", " of", " France", " is", " Paris", ",", " a", " city", " on",
          " the", " Seine", ".")
_TEXT_REPLY = "The capital of France is Paris."
_ANTHROPIC_TOOL_PREAMBLE = "I'll look that up."


# --------------------------------------------------------------------------------- options ---

@dataclass(frozen=True)
class Options:
    """What a request asks the server to do, parsed from the model name / header."""

    latency_s: float = 0.0
    chunks: int = 8
    tools: int = 0
    rounds: int = 1


_TOKEN = re.compile(r"^(lat|chunks|tools|rounds|dim)(\d+)$")
_OPTION_CACHE: dict[tuple[str, str], Options] = {}


def parse_options(model: str, header: str = "") -> Options:
    """Options from ``model`` tokens, overridden by the ``x-bench-options`` header."""
    cached = _OPTION_CACHE.get((model, header))
    if cached is not None:
        return cached
    values: dict[str, int] = {}
    for token in model.replace("/", "-").split("-"):
        m = _TOKEN.match(token)
        if m:
            values[m.group(1)] = int(m.group(2))
    for item in filter(None, (p.strip() for p in header.split(","))):
        name, _, value = item.partition("=")
        if name.strip() in ("lat", "chunks", "tools", "rounds"):
            values[name.strip()] = int(value)
    opts = Options(latency_s=values.get("lat", 0) / 1000.0, chunks=values.get("chunks", 8),
                   tools=values.get("tools", 0), rounds=values.get("rounds", 1))
    _OPTION_CACHE[(model, header)] = opts
    return opts


# ----------------------------------------------------------------------------- HTTP reply ---

@dataclass(frozen=True)
class Reply:
    """A finished response: parts for ASGI, ``wire`` for the raw protocol."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    chunked: bool
    wire: bytes


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"}
_SSE_PIECE = 16 * 1024  # HTTP chunk size of a streamed reply; real services flush per event,
# but the clients' SSE parsers work on lines, so the framing does not change their cost.


def _reply(status: int, content_type: str, body: bytes, *, sse: bool = False,
           extra: tuple[tuple[str, str], ...] = ()) -> Reply:
    headers = (("content-type", content_type), *extra)
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}"]
    head += [f"{k}: {v}" for k, v in headers]
    if sse:
        head += ["cache-control: no-cache", "transfer-encoding: chunked"]
        pieces = [body[i:i + _SSE_PIECE] for i in range(0, len(body), _SSE_PIECE)]
        payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    else:
        head.append(f"content-length: {len(body)}")
        payload = body
    wire = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload
    return Reply(status, headers, body, sse, wire)


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _error(status: int, message: str) -> Reply:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return _reply(status, "application/json", _json_bytes(body))


# ------------------------------------------------------------------------- tool arguments ---

def _example_value(schema: dict[str, Any], i: int) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return i
    if kind == "number":
        return i + 0.5
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return f"Paris-{i}"


def _example_args(schema: Optional[dict[str, Any]], i: int) -> dict[str, Any]:
    """Arguments valid against a simple JSON schema: every required property filled."""
    schema = schema or {}
    props = schema.get("properties") or {}
    return {name: _example_value(props.get(name) or {}, i) for name in schema.get("required", ())}


@dataclass(frozen=True)
class _Call:
    id: str
    name: str
    args: dict[str, Any]


_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _fake_id(seed: str, length: int) -> str:
    """A stable id of the real length and alphabet (e.g. ``call_`` + 24 characters)."""
    import hashlib

    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest[:length])


# Real id shapes: OpenAI call_ + 24, Anthropic toolu_01 + 22, Gemini 8 characters.
_ID_SHAPES = {"call_": 24, "toolu_01": 22, "": 8, "tooluse_": 22}


def _plan_calls(tools: list[tuple[str, Any]], n: int, round_index: int, prefix: str) -> list[_Call]:
    """``n`` calls for one tool round: round-robin over the offered tools, ids unique per round."""
    length = _ID_SHAPES[prefix]
    return [_Call(prefix + _fake_id(f"{prefix}{round_index}/{i}/{os.getpid()}", length),
                  tools[i % len(tools)][0], _example_args(tools[i % len(tools)][1], i))
            for i in range(n)]


# ------------------------------------------------------------------------------- OpenAI ---

def _openai_embeddings_reply(model: str, count: int, dims: int, base64_: bool) -> Reply:
    """An ``/v1/embeddings`` reply with ``count`` vectors of ``dims`` floats (base64 of
    little-endian float32, or floats), in the shape OpenAI sends."""
    import base64

    vector = [((i * 37) % 100) / 100.0 - 0.5 for i in range(dims)]
    value: Any = (base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode() if base64_
                  else vector)
    body = {"object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": value}
                     for i in range(count)],
            "model": model, "usage": {"prompt_tokens": 7 * count, "total_tokens": 7 * count}}
    return _reply(200, "application/json", _json_bytes(body),
                  extra=(("x-request-id", "req_bench0002"),))


def _openai_usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


def _openai_reply(model: str, opts: Options, calls: list[_Call], stream: bool,
                  include_usage: bool, prompt_tokens: int) -> Reply:
    rid = "chatcmpl-C2P2HtMJhPkWjQ2adKerkdVilXmRL"
    tool_calls = [{"id": c.id, "type": "function",
                   "function": {"name": c.name, "arguments": json.dumps(c.args)}} for c in calls]
    completion_tokens = 12 * len(calls) if calls else opts.chunks
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": None if calls else _TEXT_REPLY,
                                   "refusal": None, "annotations": []}
        if calls:
            message["tool_calls"] = tool_calls
        body = {"id": rid, "object": "chat.completion", "created": _CREATED, "model": model,
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": _openai_usage(prompt_tokens, completion_tokens),
                "service_tier": "default", "system_fingerprint": _FINGERPRINT}
        return _reply(200, "application/json", _json_bytes(body),
                      extra=(("x-request-id", "req_bench0001"),))

    def chunk(delta: dict[str, Any], finish: Optional[str] = None, pad: str = "oouykO51ov") -> bytes:
        obj = {"id": rid, "object": "chat.completion.chunk", "created": _CREATED, "model": model,
               "service_tier": "default", "system_fingerprint": _FINGERPRINT,
               "choices": [{"index": 0, "delta": delta, "logprobs": None,
                            "finish_reason": finish}],
               "usage": None, "obfuscation": pad}
        return b"data: " + _json_bytes(obj) + b"\n\n"

    events = [chunk({"role": "assistant", "content": None if calls else "", "refusal": None})]
    if calls:
        for i, c in enumerate(tool_calls):
            events.append(chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                                 "function": {"name": c["function"]["name"],
                                                              "arguments": ""}}]}))
            events.append(chunk({"tool_calls": [{"index": i, "function": {
                "arguments": c["function"]["arguments"]}}]}))
    else:
        events += [chunk({"content": _WORDS[i % len(_WORDS)]}) for i in range(opts.chunks)]
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    if include_usage:
        last = {"id": rid, "object": "chat.completion.chunk", "created": _CREATED, "model": model,
                "service_tier": "default", "system_fingerprint": _FINGERPRINT, "choices": [],
                "usage": _openai_usage(prompt_tokens, completion_tokens),
                "obfuscation": "9UAlDTq6bfIST"}
        events.append(b"data: " + _json_bytes(last) + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    return _reply(200, "text/event-stream; charset=utf-8", b"".join(events), sse=True,
                  extra=(("x-request-id", "req_bench0001"),))


def _responses_reply(model: str) -> Reply:
    """A Responses API reply in OpenAI's shape: a reasoning item and the text."""
    body = {
        "id": "resp_68a1c0ffee1234567890abcdef0123456789", "object": "response",
        "created_at": _CREATED, "status": "completed", "background": False, "error": None,
        "incomplete_details": None, "instructions": None, "max_output_tokens": None,
        "max_tool_calls": None, "model": model, "output": [
            {"id": "rs_68a1c0ffee1234567890abcdef", "type": "reasoning", "summary": []},
            {"id": "msg_68a1c0ffee1234567890abcdef", "type": "message",
             "status": "completed", "role": "assistant", "content": [
                 {"type": "output_text", "annotations": [], "logprobs": [],
                  "text": _TEXT_REPLY}]}],
        "parallel_tool_calls": True, "previous_response_id": None, "prompt_cache_key": None,
        "reasoning": {"effort": "medium", "summary": None}, "safety_identifier": None,
        "service_tier": "default", "store": True, "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"}, "tool_choice": "auto",
        "tools": [], "top_logprobs": 0, "top_p": 1.0, "truncation": "disabled",
        "usage": {"input_tokens": 14, "input_tokens_details": {"cached_tokens": 0,
                                                               "cache_write_tokens": 0},
                  "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 22},
        "user": None, "metadata": {}}
    return _reply(200, "application/json", _json_bytes(body),
                  extra=(("x-request-id", "req_bench0001"),))


# ---------------------------------------------------------------------------- Anthropic ---

def _anthropic_usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"input_tokens": prompt, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": completion, "service_tier": "standard"}


def _anthropic_reply(model: str, opts: Options, calls: list[_Call], stream: bool,
                     prompt_tokens: int) -> Reply:
    mid = "msg_01UaeArcGjaycoQeRPRt5CWw"
    completion_tokens = 40 * len(calls) if calls else opts.chunks
    stop_reason = "tool_use" if calls else "end_turn"
    if not stream:
        content: list[dict[str, Any]] = [
            {"type": "text", "text": _ANTHROPIC_TOOL_PREAMBLE if calls else _TEXT_REPLY}]
        content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.args}
                    for c in calls]
        body = {"id": mid, "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": _anthropic_usage(prompt_tokens, completion_tokens)}
        return _reply(200, "application/json", _json_bytes(body),
                      extra=(("request-id", "req_bench0001"),))

    def event(name: str, data: dict[str, Any]) -> bytes:
        return b"event: " + name.encode() + b"\ndata: " + _json_bytes(data) + b"\n\n"

    start_usage = _anthropic_usage(prompt_tokens, 1)
    start_usage["inference_geo"] = "not_available"
    events = [
        event("message_start", {"type": "message_start", "message": {
            "model": model, "id": mid, "type": "message", "role": "assistant", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}}),
        event("content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": {"type": "text", "text": ""}}),
        event("ping", {"type": "ping"}),
    ]
    if calls:
        events.append(event("content_block_delta", {
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": _ANTHROPIC_TOOL_PREAMBLE}}))
    else:
        events += [event("content_block_delta", {
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": _WORDS[i % len(_WORDS)]}})
            for i in range(opts.chunks)]
    events.append(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    for i, c in enumerate(calls, start=1):
        args = json.dumps(c.args)
        half = len(args) // 2
        events.append(event("content_block_start", {
            "type": "content_block_start", "index": i,
            "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}}}))
        for piece in ("", args[:half], args[half:]):
            events.append(event("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(event("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(event("message_delta", {
        "type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"input_tokens": prompt_tokens, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": completion_tokens}}))
    events.append(event("message_stop", {"type": "message_stop"}))
    return _reply(200, "text/event-stream; charset=utf-8", b"".join(events), sse=True,
                  extra=(("request-id", "req_bench0001"),))


# ------------------------------------------------------------------------------- Gemini ---

def _gemini_usage(prompt: int, completion: Optional[int]) -> dict[str, Any]:
    usage: dict[str, Any] = {"promptTokenCount": prompt}
    if completion is not None:
        usage["candidatesTokenCount"] = completion
    usage["totalTokenCount"] = prompt + (completion or 0)
    usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    return usage


def _gemini_reply(model: str, opts: Options, calls: list[_Call], stream: bool,
                  prompt_tokens: int) -> Reply:
    rid = "w1peaMz6INOvnvgPgYfPiQY"
    fn_parts = [{"functionCall": {"name": c.name, "args": c.args, "id": c.id}} for c in calls]
    completion_tokens = 10 * len(calls) if calls else opts.chunks
    if not stream:
        parts = fn_parts or [{"text": _TEXT_REPLY}]
        body = {"candidates": [{"content": {"parts": parts, "role": "model"},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": _gemini_usage(prompt_tokens, completion_tokens),
                "modelVersion": model, "responseId": rid}
        return _reply(200, "application/json; charset=UTF-8", _json_bytes(body))

    def chunk(parts: list[dict[str, Any]], finish: bool, done: int) -> bytes:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if finish:
            candidate["finishReason"] = "STOP"
        candidate["index"] = 0
        obj = {"candidates": [candidate], "usageMetadata": _gemini_usage(prompt_tokens, done),
               "modelVersion": model, "responseId": rid}
        return b"data: " + _json_bytes(obj) + b"\r\n\r\n"

    if calls:
        events = [chunk(fn_parts, False, completion_tokens), chunk([{"text": ""}], True,
                                                                   completion_tokens)]
    else:
        n = opts.chunks
        events = [chunk([{"text": _WORDS[i % len(_WORDS)]}], i == n - 1, i + 1) for i in range(n)]
    return _reply(200, "text/event-stream", b"".join(events), sse=True)


# ------------------------------------------------------------------------------ Bedrock ---

def _eventstream_message(event_type: str, payload: dict[str, Any]) -> bytes:
    """One AWS event-stream message: prelude (total length, headers length, CRC32), string
    headers, the JSON payload, message CRC32 (the format botocore/eventstream.py parses)."""
    headers = b""
    for name, value in ((":event-type", event_type), (":content-type", "application/json"),
                        (":message-type", "event")):
        headers += bytes([len(name)]) + name.encode() + b"\x07" + \
            struct.pack(">H", len(value)) + value.encode()
    body = _json_bytes(payload)
    prelude = struct.pack(">II", 16 + len(headers) + len(body), len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


_BEDROCK_PAD = "abcdefghijklmnopqrstuvwxyzABCDEF"  # real events carry a "p" padding field


def _bedrock_reply(opts: Options, calls: list[_Call], stream: bool, prompt_tokens: int) -> Reply:
    completion_tokens = 40 * len(calls) if calls else opts.chunks
    stop_reason = "tool_use" if calls else "end_turn"
    usage = {"inputTokens": prompt_tokens, "outputTokens": completion_tokens,
             "totalTokens": prompt_tokens + completion_tokens}
    extra = (("x-amzn-requestid", "6f3c2a1e-bench-4d2b-9a51-0c7e8b1d2f30"),)
    if not stream:
        content: list[dict[str, Any]] = [
            {"text": _ANTHROPIC_TOOL_PREAMBLE if calls else _TEXT_REPLY}]
        content += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.args}}
                    for c in calls]
        body = {"output": {"message": {"role": "assistant", "content": content}},
                "stopReason": stop_reason, "usage": usage, "metrics": {"latencyMs": 412}}
        return _reply(200, "application/json", _json_bytes(body), extra=extra)

    def text(piece: str) -> bytes:
        return _eventstream_message("contentBlockDelta", {
            "contentBlockIndex": 0, "delta": {"text": piece}, "p": _BEDROCK_PAD[:6]})

    events = [_eventstream_message("messageStart", {"p": _BEDROCK_PAD, "role": "assistant"})]
    if calls:
        events.append(text(_ANTHROPIC_TOOL_PREAMBLE))
    else:
        events += [text(_WORDS[i % len(_WORDS)]) for i in range(opts.chunks)]
    events.append(_eventstream_message("contentBlockStop", {"contentBlockIndex": 0,
                                                            "p": _BEDROCK_PAD[:10]}))
    for i, c in enumerate(calls, start=1):
        args = json.dumps(c.args)
        half = len(args) // 2
        events.append(_eventstream_message("contentBlockStart", {
            "contentBlockIndex": i, "p": _BEDROCK_PAD[:4],
            "start": {"toolUse": {"name": c.name, "toolUseId": c.id}}}))
        events += [_eventstream_message("contentBlockDelta", {
            "contentBlockIndex": i, "delta": {"toolUse": {"input": piece}}, "p": _BEDROCK_PAD[:8]})
            for piece in (args[:half], args[half:])]
        events.append(_eventstream_message("contentBlockStop", {"contentBlockIndex": i,
                                                                "p": _BEDROCK_PAD[:3]}))
    events.append(_eventstream_message("messageStop", {"p": _BEDROCK_PAD[:12],
                                                       "stopReason": stop_reason}))
    events.append(_eventstream_message("metadata", {
        "metrics": {"latencyMs": 412}, "p": _BEDROCK_PAD[:5], "usage": usage}))
    return _reply(200, "application/vnd.amazon.eventstream", b"".join(events), sse=True,
                  extra=extra)


# ------------------------------------------------------------------------------ the app ---

_GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?\d*/models/(.+):(generateContent|streamGenerateContent)$")
_BEDROCK_PATH = re.compile(r"^/model/([^/]+)/(converse|converse-stream)$")


_DIM: dict[str, int] = {}  # model name -> its dim<N> option


class MockLLM:
    """Routes a request to its provider's reply builder; caches finished replies by shape."""

    def __init__(self) -> None:
        self.requests = 0
        self._cache: dict[tuple[Any, ...], Reply] = {}

    def stats(self) -> Reply:
        body = {"requests": self.requests, "cpu_s": time.process_time(), "pid": os.getpid(),
                "cached_shapes": len(self._cache)}
        return _reply(200, "application/json", _json_bytes(body))

    def handle(self, method: str, target: str, headers: dict[str, str],
               body: bytes) -> tuple[float, Reply]:
        """(delay in seconds, reply) for one request."""
        path, _, _query = target.partition("?")
        if method == "GET" and path == "/_bench/stats":
            return 0.0, self.stats()
        self.requests += 1
        if method != "POST":
            return 0.0, _error(404, f"no route for {method} {path}")
        try:
            req = json.loads(body) if body else {}
        except ValueError:
            return 0.0, _error(400, "request body is not JSON")
        header_opts = headers.get("x-bench-options", "")
        try:
            if path.endswith("/chat/completions"):
                return self._openai(req, header_opts)
            if path.endswith("/responses"):
                return self._openai_responses(req, header_opts)
            if path.endswith("/embeddings"):
                return self._embeddings(req)
            if path.endswith("/messages"):
                return self._anthropic(req, header_opts)
            m = _GEMINI_PATH.match(path)
            if m:
                return self._gemini(unquote(m.group(1)), m.group(2) == "streamGenerateContent",
                                    req, header_opts)
            m = _BEDROCK_PATH.match(path)
            if m:
                return self._bedrock(unquote(m.group(1)), m.group(2) == "converse-stream", req,
                                     header_opts)
        except (KeyError, TypeError, AttributeError) as exc:
            return 0.0, _error(400, f"malformed request: {type(exc).__name__}: {exc}")
        return 0.0, _error(404, f"no route for POST {path}")

    def _cached(self, key: tuple[Any, ...], build: Callable[[], Reply]) -> Reply:
        reply = self._cache.get(key)
        if reply is None:
            reply = self._cache[key] = build()
        return reply

    def _embeddings(self, req: dict[str, Any]) -> tuple[float, Reply]:
        model = req.get("model", "")
        inputs = req["input"]
        count = len(inputs) if isinstance(inputs, list) and inputs and not isinstance(
            inputs[0], int) else 1
        dims = req.get("dimensions") or _DIM.get(model)
        if dims is None:
            token = next((t for t in model.split("-") if t.startswith("dim")), "")
            dims = _DIM[model] = int(token[3:]) if token[3:].isdigit() else 256
        base64_ = req.get("encoding_format") == "base64"
        return 0.0, self._cached(("embeddings", model, count, dims, base64_),
                                 lambda: _openai_embeddings_reply(model, count, dims, base64_))

    def _openai(self, req: dict[str, Any], header: str) -> tuple[float, Reply]:
        model = req.get("model", "")
        opts = parse_options(model, header)
        messages = req.get("messages") or ()
        done = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        tools = [(t["function"]["name"], t["function"].get("parameters"))
                 for t in req.get("tools") or () if t.get("type") == "function"]
        wants_tools = bool(tools) and opts.tools > 0 and done < opts.rounds and \
            req.get("tool_choice") != "none"
        stream = bool(req.get("stream"))
        usage = bool((req.get("stream_options") or {}).get("include_usage"))
        names = tuple(name for name, _ in tools) if wants_tools else ()
        key = ("openai", model, header, stream, usage, names, done if wants_tools else -1)
        return opts.latency_s, self._cached(key, lambda: _openai_reply(
            model, opts, _plan_calls(tools, opts.tools, done, "call_") if wants_tools else [],
            stream, usage, 14 + 60 * done))

    def _openai_responses(self, req: dict[str, Any], header: str) -> tuple[float, Reply]:
        """OpenAI's Responses API (``/v1/responses``): a text answer (not streamed)."""
        model = req.get("model", "")
        opts = parse_options(model, header)
        return opts.latency_s, self._cached(("responses", model, header),
                                            lambda: _responses_reply(model))

    def _anthropic(self, req: dict[str, Any], header: str) -> tuple[float, Reply]:
        model = req.get("model", "")
        opts = parse_options(model, header)
        done = sum(1 for m in req.get("messages") or ()
                   if m.get("role") == "assistant" and isinstance(m.get("content"), list)
                   and any(isinstance(b, dict) and b.get("type") == "tool_use"
                           for b in m["content"]))
        tools = [(t["name"], t.get("input_schema")) for t in req.get("tools") or ()
                 if "name" in t]
        choice = req.get("tool_choice") or {}
        wants_tools = bool(tools) and opts.tools > 0 and done < opts.rounds and \
            choice.get("type") != "none"
        stream = bool(req.get("stream"))
        names = tuple(name for name, _ in tools) if wants_tools else ()
        key = ("anthropic", model, header, stream, names, done if wants_tools else -1)
        return opts.latency_s, self._cached(key, lambda: _anthropic_reply(
            model, opts, _plan_calls(tools, opts.tools, done, "toolu_01") if wants_tools else [],
            stream, 20 + 60 * done))

    def _gemini(self, model: str, stream: bool, req: dict[str, Any],
                header: str) -> tuple[float, Reply]:
        opts = parse_options(model, header)
        done = sum(1 for c in req.get("contents") or ()
                   if c.get("role") == "model" and any(
                       "functionCall" in p or "function_call" in p for p in c.get("parts") or ()))
        tools = []
        for group in req.get("tools") or ():
            for decl in group.get("functionDeclarations") or group.get(
                    "function_declarations") or ():
                schema = (decl.get("parameters") or decl.get("parametersJsonSchema")
                          or decl.get("parameters_json_schema"))
                tools.append((decl["name"], schema))
        config = req.get("toolConfig") or req.get("tool_config") or {}
        calling = config.get("functionCallingConfig") or config.get(
            "function_calling_config") or {}
        wants_tools = bool(tools) and opts.tools > 0 and done < opts.rounds and \
            str(calling.get("mode", "")).upper() != "NONE"
        names = tuple(name for name, _ in tools) if wants_tools else ()
        key = ("gemini", model, header, stream, names, done if wants_tools else -1)
        return opts.latency_s, self._cached(key, lambda: _gemini_reply(
            model, opts, _plan_calls(tools, opts.tools, done, "") if wants_tools else [],
            stream, 15 + 60 * done))


    def _bedrock(self, model: str, stream: bool, req: dict[str, Any],
                 header: str) -> tuple[float, Reply]:
        opts = parse_options(model, header)
        done = sum(1 for m in req.get("messages") or ()
                   if m.get("role") == "assistant"
                   and any("toolUse" in b for b in m.get("content") or ()))
        # tool_choice "none" reaches Converse as a request without toolConfig
        tools = [(t["toolSpec"]["name"], (t["toolSpec"].get("inputSchema") or {}).get("json"))
                 for t in (req.get("toolConfig") or {}).get("tools") or () if "toolSpec" in t]
        wants_tools = bool(tools) and opts.tools > 0 and done < opts.rounds
        names = tuple(name for name, _ in tools) if wants_tools else ()
        key = ("bedrock", model, header, stream, names, done if wants_tools else -1)
        return opts.latency_s, self._cached(key, lambda: _bedrock_reply(
            opts, _plan_calls(tools, opts.tools, done, "tooluse_") if wants_tools else [],
            stream, 20 + 60 * done))


# ------------------------------------------------------------- raw asyncio implementation ---

class _HTTPProtocol(asyncio.Protocol):
    """HTTP/1.1 keep-alive, pipelining-safe: replies leave in request order."""

    def __init__(self, app: MockLLM) -> None:
        self._app = app
        self._buf = bytearray()
        self._transport: Optional[asyncio.Transport] = None
        self._waiting = False  # a delayed reply is pending: hold later requests

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._buf += data
        if not self._waiting:
            self._drain()

    def _drain(self) -> None:
        transport = self._transport
        assert transport is not None
        while not transport.is_closing():
            buf = self._buf
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
            try:
                method, target, _version = lines[0].split(" ", 2)
            except ValueError:
                transport.write(_error(400, "bad request line").wire)
                transport.close()
                return
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            start = end + 4
            if "chunked" in headers.get("transfer-encoding", "").lower():
                decoded = _decode_chunked(buf, start)
                if decoded is None:
                    return
                body, consumed = decoded
            else:
                length = int(headers.get("content-length") or 0)
                if len(buf) < start + length:
                    return
                body, consumed = bytes(buf[start:start + length]), start + length
            del buf[:consumed]
            close = headers.get("connection", "").lower() == "close"
            delay, reply = self._app.handle(method, target, headers, body)
            if delay > 0:
                self._waiting = True
                asyncio.get_running_loop().call_later(delay, self._send_later, reply.wire, close)
                return
            transport.write(reply.wire)
            if close:
                transport.close()

    def _send_later(self, wire: bytes, close: bool) -> None:
        self._waiting = False
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        transport.write(wire)
        if close:
            transport.close()
        else:
            self._drain()


def _decode_chunked(buf: bytearray, start: int) -> Optional[tuple[bytes, int]]:
    """A chunked request body -> (body, bytes consumed), or None while incomplete."""
    out = bytearray()
    pos = start
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
        pos = eol + 2
        if size == 0:
            trailer_end = buf.find(b"\r\n", pos)
            if trailer_end < 0:
                return None
            return bytes(out), trailer_end + 2
        if len(buf) < pos + size + 2:
            return None
        out += buf[pos:pos + size]
        pos += size + 2


async def _serve_asyncio(host: str, port: int, ready: Callable[[int], None]) -> None:
    app = MockLLM()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _HTTPProtocol(app), host, port, backlog=1024,
                                      reuse_address=True)
    ready(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


# ----------------------------------------------------------------------- ASGI (uvicorn) ---

def make_asgi_app(app: Optional[MockLLM] = None) -> Callable[..., Any]:
    """The same core as an ASGI application (served by uvicorn with ``--impl uvicorn``)."""
    core = app or MockLLM()

    async def asgi(scope: dict[str, Any], receive: Callable[..., Any],
                   send: Callable[..., Any]) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        target = scope["path"]
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        delay, reply = core.handle(scope["method"], target, headers, body)
        if delay > 0:
            await asyncio.sleep(delay)
        out_headers = [(k.encode(), v.encode()) for k, v in reply.headers]
        if not reply.chunked:
            out_headers.append((b"content-length", str(len(reply.body)).encode()))
        await send({"type": "http.response.start", "status": reply.status,
                    "headers": out_headers})
        await send({"type": "http.response.body", "body": reply.body})

    return asgi


def _serve_uvicorn(host: str, port: int, ready: Callable[[int], None]) -> None:
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)  # before announcing the port, so the first client is not refused
    config = uvicorn.Config(make_asgi_app(), log_level="warning", access_log=False,
                            lifespan="off", http="auto", loop="asyncio", backlog=1024)
    server = uvicorn.Server(config)
    ready(sock.getsockname()[1])
    server.run(sockets=[sock])


def serve(host: str = "127.0.0.1", port: int = 0, impl: str = "asyncio") -> None:
    """Serve forever; prints ``LISTENING <port>`` on stdout once the socket is bound."""

    def ready(bound: int) -> None:
        print(f"LISTENING {bound}", flush=True)

    if impl == "uvicorn":
        _serve_uvicorn(host, port, ready)
    else:
        asyncio.run(_serve_asyncio(host, port, ready))


# ---------------------------------------------------------------------- process control ---

class ServerProcess:
    """The server in its own process (its own core), stopped on ``close``."""

    def __init__(self, impl: str = "asyncio") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--impl", impl],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("LISTENING "):
            err = self.proc.stderr.read() if self.proc.stderr else ""
            self.proc.kill()
            raise RuntimeError(f"benchmark server did not start: {line!r} {err[-2000:]}")
        self.port = int(line.split()[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def stats(self) -> dict[str, Any]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", "/_bench/stats")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def start_server_process(impl: str = "asyncio") -> ServerProcess:
    return ServerProcess(impl)


# ------------------------------------------------------------------------------ capacity ---

_LOAD_BODY = _json_bytes({"model": "gpt-bench", "messages": [
    {"role": "user", "content": "What is the capital of France?"}]})
_LOAD_REQUEST = (b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                 b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                 % (len(_LOAD_BODY), _LOAD_BODY))


class _LoadClient(asyncio.Protocol):
    """Keeps ``depth`` requests in flight on one connection; counts complete responses."""

    def __init__(self, depth: int, deadline: float, done: asyncio.Future[int]) -> None:
        self._depth, self._deadline, self._done = depth, deadline, done
        self._buf = bytearray()
        self.count = 0
        self._transport: Optional[asyncio.Transport] = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        transport.write(_LOAD_REQUEST * self._depth)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self._buf += data
        finished = 0
        while True:
            end = self._buf.find(b"\r\n\r\n")
            if end < 0:
                break
            i = self._buf.find(b"content-length: ", 0, end)
            length = int(self._buf[i + 16:self._buf.find(b"\r\n", i)])
            if len(self._buf) < end + 4 + length:
                break
            del self._buf[:end + 4 + length]
            finished += 1
        self.count += finished
        if time.perf_counter() < self._deadline:
            if finished:
                self._transport.write(_LOAD_REQUEST * finished)  # type: ignore[union-attr]
        elif not self._done.done():
            self._done.set_result(self.count)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if not self._done.done():
            self._done.set_result(self.count)


async def _generate_load(port: int, seconds: float, connections: int, depth: int) -> float:
    loop = asyncio.get_running_loop()
    deadline = time.perf_counter() + seconds
    futures = []
    transports = []
    start = time.perf_counter()
    for _ in range(connections):
        fut: asyncio.Future[int] = loop.create_future()
        transport, _ = await loop.create_connection(
            lambda f=fut: _LoadClient(depth, deadline, f), "127.0.0.1", port)
        futures.append(fut)
        transports.append(transport)
    counts = await asyncio.gather(*futures)
    elapsed = time.perf_counter() - start
    for transport in transports:
        transport.close()
    return sum(counts) / elapsed


def measure_capacity(port: int, stats: Callable[[], dict[str, Any]], seconds: float = 1.5,
                     connections: int = 32, depth: int = 1) -> dict[str, float]:
    """Load a running server with small non-streamed OpenAI requests.

    Returns the throughput a Python load generator reached (a lower bound: on 2 cores the
    generator is as slow as the server) and the server's own CPU time per request, whose
    inverse is the server's capacity on one core."""
    before = stats()
    rps = asyncio.run(_generate_load(port, seconds, connections, depth))
    after = stats()
    n = after["requests"] - before["requests"]
    cpu = after["cpu_s"] - before["cpu_s"]
    per_request = cpu / n if n else float("nan")
    return {"requests": n, "load_rps": rps, "server_cpu_us_per_request": per_request * 1e6,
            "capacity_rps": 1.0 / per_request if per_request else float("nan")}


def _print_capacity(impls: list[str], seconds: float) -> dict[str, dict[str, float]]:
    results = {}
    for impl in impls:
        try:
            with ServerProcess(impl) as server:
                measure_capacity(server.port, server.stats, seconds=0.3)  # warm-up
                results[impl] = measure_capacity(server.port, server.stats, seconds=seconds)
        except (RuntimeError, ImportError) as exc:
            print(f"{impl:8s}  unavailable: {exc}")
            continue
        r = results[impl]
        print(f"{impl:8s}  {r['server_cpu_us_per_request']:7.1f} us CPU/request -> capacity "
              f"{r['capacity_rps']:8.0f} req/s on one core (load generator reached "
              f"{r['load_rps']:.0f} req/s)")
    return results


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--impl", choices=("asyncio", "uvicorn"), default="asyncio")
    parser.add_argument("--capacity", action="store_true",
                        help="measure the capacity of both implementations and exit")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the benchmark server only listens on loopback")
    if args.capacity:
        _print_capacity(["asyncio", "uvicorn"], args.seconds)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        serve(args.host, args.port, args.impl)
    except (KeyboardInterrupt, SystemExit):
        pass


if __name__ == "__main__":
    main()
