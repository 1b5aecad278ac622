"""One loopback server that speaks six APIs and checks every request it receives against the
rules of the API it was sent to (tests/support/portability_rules.py): the receiving side of
the portability matrix (docs/portability.md).

Paths: ``/openai/v1/chat/completions`` (OpenAI), ``/mistral/v1/chat/completions`` (Mistral),
``/openai/v1/responses`` (OpenAI's Responses API), ``/v1/messages`` (Anthropic),
``/v1beta/models/<m>:generateContent`` and ``:streamGenerateContent`` (Gemini),
``/model/<id>/converse`` and ``/converse-stream`` (Bedrock). A request that breaks its API's
rules gets that API's 400 (the SDK raises, the test fails); one that keeps them gets the next
reply queued for that API, in its own format, streamed when the request asks: a
:class:`Turn` (text, tool calls with ids in the API's own style, reasoning signed by it), or
a :class:`Recorded` body (a reply of tests/fixtures/recorded, played back). Every request is
kept (``requests``), with what was wrong (``violations``). No logic under test lives here."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional, Union
from urllib.parse import unquote, urlsplit

from .bedrock_server import ACCESS_KEY, REGION, SECRET_KEY, event
from .portability_rules import CHECKS, Issued

__all__ = ["PortabilityServer", "Turn", "Recorded", "Fail", "Seen", "TARGETS", "MODELS"]

TARGETS = ("openai", "mistral", "anthropic", "google", "bedrock", "responses")
#: The model each target is called with (Gemini 3: its thought signatures are checked).
MODELS = {"openai": "gpt-4.1", "mistral": "mistral-large-latest",
          "anthropic": "claude-sonnet-4-5", "google": "gemini-3-flash-preview",
          "bedrock": "anthropic.claude-sonnet-4-5-v1:0", "responses": "gpt-5"}
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass
class Turn:
    """A reply: ``text``, ``calls`` ((tool name, arguments) each) and ``reasoning`` text
    (sent with a signature or encrypted content the API issues)."""

    text: Optional[str] = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reasoning: Optional[str] = None


@dataclass
class Recorded:
    """A recorded reply body played back as it was: JSON (``body``) or SSE text (``sse``)."""

    body: Any = None
    sse: Optional[str] = None


@dataclass
class Fail:
    """An error reply in the API's own format (429: a rate limit, 500: a server error)."""

    status: int = 429
    message: str = "rate limited (injected)"


Reply = Union[Turn, Recorded, Fail]


@dataclass
class Seen:
    target: str
    path: str
    body: dict[str, Any]
    violations: list[str]
    streamed: bool


def _token(seed: str, length: int) -> str:
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(_ALNUM[digit])
    return "".join(out)


def _signatures(value: Any) -> list[str]:
    """The signatures and encrypted contents inside a recorded reply (any depth)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("signature", "thoughtSignature", "encrypted_content", "data") and \
                    isinstance(inner, str) and inner:
                found.append(inner)
            else:
                found.extend(_signatures(inner))
    elif isinstance(value, list):
        for inner in value:
            found.extend(_signatures(inner))
    return found


class PortabilityServer:
    def __init__(self) -> None:
        self.issued = Issued()
        self.requests: list[Seen] = []
        self._replies: dict[str, deque[Reply]] = {t: deque() for t in (*TARGETS, "kimi")}
        self._count = itertools.count(1)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True
            wbufsize = 1 << 16  # one write per reply (flushed after each request)

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                server._answer(self, raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)

    # --- setup ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "PortabilityServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reply(self, target: str, *replies: Reply) -> None:
        with self._lock:
            for reply in replies:
                if isinstance(reply, Recorded):  # what the real API signed is its own
                    for value in _signatures(reply.body if reply.sse is None else [
                            json.loads(line[5:]) for line in reply.sse.splitlines()
                            if line.startswith("data:") and line[5:].strip().startswith("{")]):
                        self._issue(_family(target), value)
                self._replies[target].append(reply)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            for queue in self._replies.values():
                queue.clear()

    def config(self, target: str, key: Optional[str] = None) -> dict[str, Any]:
        """``provider_configs`` entry for ``target`` (under its provider key)."""
        if target == "bedrock":
            return {"endpoint_url": self.url, "region_name": REGION, "max_retries": 0,
                    "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY}
        base = {"openai": "/openai/v1", "responses": "/openai/v1", "mistral": "/mistral/v1",
                "kimi": "/kimi/v1", "anthropic": "", "google": ""}[target]
        config: dict[str, Any] = {"api_key": f"test-key-{target}-0123456789",
                                  "base_url": self.url + base, "max_retries": 0}
        if target == "responses":
            config["api"] = "responses"
        if target == "kimi":
            config["tool_call_ids"] = "kimi"
        return config

    def of(self, target: str) -> list[Seen]:
        return [seen for seen in self.requests if seen.target == target]

    def _issue(self, api: str, value: str) -> None:
        self.issued.add(api, value)
        # Gemini signatures go back base64url-encoded (as google-genai writes bytes)
        self.issued.add(api, value.translate(str.maketrans("+/", "-_")))

    # --- requests -------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        path = unquote(urlsplit(handler.path).path)
        target, model = _route(path)
        body = json.loads(raw) if raw else {}
        streamed = bool(body.get("stream")) or path.endswith((":streamGenerateContent",
                                                                "/converse-stream"))
        check = CHECKS[target]
        with self._lock:
            violations = check(body, self.issued, model) if target == "google" else \
                check(body, self.issued)
            self.requests.append(Seen(target, path, body, violations, streamed))
            reply = self._replies[target].popleft() if self._replies[target] and \
                not violations else Turn(text="ok")
            n = next(self._count)
        if violations:
            return _send(handler, *_error(target, violations))
        if isinstance(reply, Fail):
            return _send(handler, *_error(target, [reply.message], reply.status))
        if isinstance(reply, Recorded):
            if reply.sse is not None:
                return _send(handler, 200, reply.sse.encode(), "text/event-stream")
            return _send(handler, 200, json.dumps(reply.body).encode(), "application/json")
        payload = self._render(target, model, reply, n, streamed, body)
        if target == "bedrock" and streamed:
            return _send_chunked(handler, payload)
        return _send(handler, 200, payload if isinstance(payload, bytes) else b"".join(payload),
                     "text/event-stream" if streamed else "application/json")

    # --- replies in each API's format ------------------------------------------------------

    def _render(self, target: str, model: str, turn: Turn, n: int, streamed: bool,
                body: dict[str, Any]) -> Any:
        ids = [self._call_id(target, n, i) for i in range(len(turn.calls))]
        if target == "kimi":  # Kimi numbers the calls of the conversation
            before = sum(len(m.get("tool_calls") or ()) for m in body.get("messages") or ())
            ids = [f"functions.{name}:{before + i}" for i, (name, _) in enumerate(turn.calls)]
        signature = None
        if turn.reasoning is not None:
            signature = base64.b64encode(f"{target}-signed-{n}".encode()).decode()
            self._issue(_family(target), signature)
        render = {"openai": _openai, "mistral": _openai, "kimi": _openai,
                  "anthropic": _anthropic,
                  "google": _google, "bedrock": _bedrock, "responses": _responses}[target]
        if target == "responses" and turn.reasoning is not None:
            self._issue("responses", f"rs_{n:04d}")
        return render(turn, ids, signature, n, model, streamed)

    @staticmethod
    def _call_id(target: str, n: int, i: int) -> str:
        seed = f"{target}-{n}-{i}"
        return {"openai": "call_" + _token(seed, 24), "mistral": _token(seed, 9),
                "kimi": "",
                "anthropic": "toolu_01" + _token(seed, 22), "google": "",
                "bedrock": "tooluse_" + _token(seed, 22),
                "responses": "call_" + _token(seed, 24)}[target]


def _family(target: str) -> str:
    return "responses" if target == "responses" else target


_GOOGLE = re.compile(r"/v1(?:beta|alpha)?/models/([^:]+):(generateContent|streamGenerateContent)$")
_BEDROCK = re.compile(r"/model/([^/]+)/(converse|converse-stream)$")


def _route(path: str) -> tuple[str, str]:
    if path.endswith("/chat/completions"):
        prefix = path.split("/", 2)[1]
        return (prefix if prefix in ("mistral", "kimi") else "openai"), ""
    if path.endswith("/responses"):
        return "responses", ""
    if path.endswith("/v1/messages"):
        return "anthropic", ""
    match = _GOOGLE.search(path)
    if match:
        return "google", match.group(1)
    match = _BEDROCK.search(path)
    if match:
        return "bedrock", match.group(1)
    raise AssertionError(f"the portability server has no API at {path}")


def _error(target: str, violations: list[str], status: int = 400
           ) -> tuple[int, bytes, str, dict[str, str]]:
    message = "; ".join(violations)
    if target in ("openai", "mistral", "kimi", "responses"):
        kind = "invalid_request_error" if status == 400 else "rate_limit_error"
        body: Any = {"error": {"message": message, "type": kind, "param": None,
                               "code": None}}
    elif target == "anthropic":
        kind = {400: "invalid_request_error", 429: "rate_limit_error"}.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
    elif target == "google":
        code = {400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED"}.get(status, "INTERNAL")
        body = {"error": {"code": status, "message": message, "status": code}}
    else:
        code = {400: "ValidationException", 429: "ThrottlingException"}.get(
            status, "InternalServerException")
        return status, json.dumps({"message": message}).encode(), "application/json", {
            "x-amzn-ErrorType": f"{code}:http://internal.amazon.com/coral/"}
    return status, json.dumps(body).encode(), "application/json", {}


def _send(handler: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str,
          headers: Optional[dict[str, str]] = None) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("x-amzn-RequestId", "req-portability")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def _send_chunked(handler: BaseHTTPRequestHandler, frames: list[bytes]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/vnd.amazon.eventstream")
    handler.send_header("x-amzn-RequestId", "req-portability")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for frame in frames:
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
    handler.wfile.write(b"0\r\n\r\n")


def _sse(events: list[Any], named: bool = False, done: bool = False) -> bytes:
    lines = []
    for data in events:
        head = f"event: {data['type']}\n" if named else ""
        lines.append(f"{head}data: {json.dumps(data)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def _openai(turn: Turn, ids: list[str], signature: Any, n: int, model: str,
            streamed: bool) -> bytes:
    calls = [{"id": i, "type": "function", "function": {"name": name,
                                                        "arguments": json.dumps(args)}}
             for i, (name, args) in zip(ids, turn.calls, strict=True)]
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    head = {"id": f"chatcmpl-{n}", "created": 1700000000, "model": model or "m"}
    if not streamed:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if calls:
            message["tool_calls"] = calls
        return json.dumps({**head, "object": "chat.completion", "usage": usage, "choices": [
            {"index": 0, "message": message, "finish_reason": finish}]}).encode()

    def chunk(delta: dict[str, Any], finish_reason: Optional[str] = None) -> dict[str, Any]:
        return {**head, "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish_reason}]}
    events = [chunk({"role": "assistant", "content": turn.text or ""})]
    for index, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": index, "id": call["id"],
                                             "type": "function", "function": {
                                                 "name": call["function"]["name"],
                                                 "arguments": ""}}]}))
        events.append(chunk({"tool_calls": [{"index": index, "function": {
            "arguments": call["function"]["arguments"]}}]}))
    events.append(chunk({}, finish))
    events.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return _sse(events, done=True)


def _anthropic(turn: Turn, ids: list[str], signature: Any, n: int, model: str,
               streamed: bool) -> bytes:
    content: list[dict[str, Any]] = []
    if turn.reasoning is not None:
        content.append({"type": "thinking", "thinking": turn.reasoning, "signature": signature})
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    content += [{"type": "tool_use", "id": i, "name": name, "input": args}
                for i, (name, args) in zip(ids, turn.calls, strict=True)]
    stop = "tool_use" if turn.calls else "end_turn"
    message = {"id": f"msg_{n}", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": content, "stop_reason": stop,
               "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}
    if not streamed:
        return json.dumps(message).encode()
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None}}]
    for index, block in enumerate(content):
        kind = block["type"]
        start = {"thinking": {"type": "thinking", "thinking": "", "signature": ""},
                 "text": {"type": "text", "text": ""},
                 "tool_use": {**block, "input": {}}}[kind]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        if kind == "thinking":
            events.append({"type": "content_block_delta", "index": index, "delta": {
                "type": "thinking_delta", "thinking": block["thinking"]}})
            events.append({"type": "content_block_delta", "index": index, "delta": {
                "type": "signature_delta", "signature": block["signature"]}})
        elif kind == "text":
            events.append({"type": "content_block_delta", "index": index, "delta": {
                "type": "text_delta", "text": block["text"]}})
        else:
            events.append({"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop,
                                                      "stop_sequence": None},
                   "usage": {"output_tokens": 5}})
    events.append({"type": "message_stop"})
    return _sse(events, named=True)


def _google(turn: Turn, ids: list[str], signature: Any, n: int, model: str,
            streamed: bool) -> bytes:
    parts: list[dict[str, Any]] = []
    if turn.reasoning is not None:
        parts.append({"text": turn.reasoning, "thought": True})
    if turn.text:
        parts.append({"text": turn.text})
    for index, (name, args) in enumerate(turn.calls):
        part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
        if index == 0 and signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)
    data = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": model, "responseId": f"resp{n:04d}"}
    if not streamed:
        return json.dumps(data).encode()
    return f"data: {json.dumps(data)}\r\n\r\n".encode()


def _bedrock(turn: Turn, ids: list[str], signature: Any, n: int, model: str,
             streamed: bool) -> Any:
    content: list[dict[str, Any]] = []
    if turn.reasoning is not None:
        content.append({"reasoningContent": {"reasoningText": {
            "text": turn.reasoning, "signature": signature}}})
    if turn.text:
        content.append({"text": turn.text})
    content += [{"toolUse": {"toolUseId": i, "name": name, "input": args}}
                for i, (name, args) in zip(ids, turn.calls, strict=True)]
    stop = "tool_use" if turn.calls else "end_turn"
    usage = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
    if not streamed:
        return json.dumps({"output": {"message": {"role": "assistant", "content": content}},
                           "stopReason": stop, "usage": usage,
                           "metrics": {"latencyMs": 5}}).encode()
    frames = [event("messageStart", {"role": "assistant"})]
    for index, block in enumerate(content):
        if "reasoningContent" in block:
            text = block["reasoningContent"]["reasoningText"]
            frames.append(event("contentBlockDelta", {"contentBlockIndex": index, "delta": {
                "reasoningContent": {"text": text["text"]}}}))
            frames.append(event("contentBlockDelta", {"contentBlockIndex": index, "delta": {
                "reasoningContent": {"signature": text["signature"]}}}))
        elif "text" in block:
            frames.append(event("contentBlockDelta", {"contentBlockIndex": index,
                                                      "delta": {"text": block["text"]}}))
        else:
            use = block["toolUse"]
            frames.append(event("contentBlockStart", {"contentBlockIndex": index, "start": {
                "toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}}))
            frames.append(event("contentBlockDelta", {"contentBlockIndex": index, "delta": {
                "toolUse": {"input": json.dumps(use["input"])}}}))
        frames.append(event("contentBlockStop", {"contentBlockIndex": index}))
    frames.append(event("messageStop", {"stopReason": stop}))
    frames.append(event("metadata", {"usage": usage, "metrics": {"latencyMs": 5}}))
    return frames


def _responses(turn: Turn, ids: list[str], signature: Any, n: int, model: str,
               streamed: bool) -> bytes:
    output: list[dict[str, Any]] = []
    if turn.reasoning is not None:
        output.append({"id": f"rs_{n:04d}", "type": "reasoning", "encrypted_content": signature,
                       "summary": [{"type": "summary_text", "text": turn.reasoning}]})
    if turn.text:
        output.append({"id": f"msg_{n:04d}", "type": "message", "role": "assistant",
                       "status": "completed", "content": [
                           {"type": "output_text", "text": turn.text, "annotations": []}]})
    for index, (call_id, (name, args)) in enumerate(zip(ids, turn.calls, strict=True)):
        output.append({"id": f"fc_{n:04d}_{index}", "type": "function_call",
                       "call_id": call_id, "name": name, "arguments": json.dumps(args),
                       "status": "completed"})
    response = {"id": f"resp_{n:04d}", "object": "response", "created_at": 1700000000,
                "status": "completed", "model": model or "gpt-5", "output": output,
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
    if not streamed:
        return json.dumps(response).encode()
    events: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": 0,
                                     "response": {**response, "status": "in_progress",
                                                  "output": []}}]
    for index, item in enumerate(output):
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "arguments": ""} if item["type"] == "function_call"
                       else item})
        if item["type"] == "reasoning":
            events.append({"type": "response.reasoning_summary_text.delta", "item_id": item[
                "id"], "output_index": index, "summary_index": 0, "delta": turn.reasoning})
        elif item["type"] == "message":
            events.append({"type": "response.output_text.delta", "item_id": item["id"],
                           "output_index": index, "content_index": 0, "delta": turn.text})
        else:
            events.append({"type": "response.function_call_arguments.delta",
                           "item_id": item["id"], "output_index": index,
                           "delta": item["arguments"]})
        events.append({"type": "response.output_item.done", "output_index": index,
                       "item": item})
    events.append({"type": "response.completed", "response": response})
    for number, data in enumerate(events):
        data["sequence_number"] = number
    return _sse(events, named=True)
