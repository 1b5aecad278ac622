"""A scriptable loopback HTTP server for fault-injection tests.

It speaks enough of three wire formats to serve the real vendor SDKs: OpenAI Chat
Completions (``POST .../chat/completions``), Anthropic Messages (``POST .../v1/messages``)
and Gemini (``POST .../models/<m>:generateContent`` and ``:streamGenerateContent?alt=sse``).
The format is told by the request path; a stream by the body's ``"stream": true`` (or the
Gemini path).

A test queues actions; each request takes the next one (a request finding the queue empty
gets ``Reply()``: a success in its own format, a stream if it asked for one). Actions:

- ``Reply(status, headers, body)``: ``body`` None = the format's success body (or, for a
  status >= 400, its error body); a dict is sent as JSON; bytes as they are.
- ``Stream(events=None, cut_after=None, then="end", interval=0)``: a 200 SSE reply of the
  format's events (or the given ones), ``interval`` seconds apart; ``cut_after=n`` sends only
  the first n events and then does ``then``: ``"close"``, ``"reset"``, ``"stall"`` or
  ``"keepalive"`` (an SSE comment line every 0.1 s, for at most ``hold`` seconds, then close).
- ``Trickle(interval=0.25, hold=10)``: a 200 reply of the format's success body (a JSON body,
  or the SSE events of a stream), its headers at once and then its body one byte every
  ``interval`` seconds (for at most ``hold`` seconds, then close).
- ``Delay(seconds, then)``: wait, then perform ``then``.
- ``Hold(release, then)``: wait until the test sets ``release`` (a ``threading.Event``; at
  most ``limit`` seconds), then perform ``then``: a reply held for as long as the test needs,
  whatever the machine's load.
- ``Stall()``: read the request, never answer.
- ``Reset(mid_body=False)``: a TCP reset (RST) right after reading the request, or after the
  status line, headers and half a body.
- ``Raw(data)``: these bytes, then close.

Each request records the ``time.monotonic()`` of its arrival (``Request.at``).

The server records every request (``requests``: method, path, headers, JSON body), counts
attempts (``len(requests)``) and the most requests in flight at once (``max_in_flight``).
Runs an asyncio loop in a daemon thread; ``with FaultServer() as server: server.url``.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Optional, Union

__all__ = ["FaultServer", "Witness", "Reply", "Stream", "Delay", "Hold", "Stall", "Reset", "Raw",
           "Trickle",
           "success_body", "error_body", "stream_events", "FORMATS"]

FORMATS = ("openai", "anthropic", "gemini")

# --- actions -------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Union[bytes, dict[str, Any], list[Any], None] = None
    text: str = "hello world"


@dataclass
class Stream:
    events: Optional[list[bytes]] = None
    cut_after: Optional[int] = None
    then: str = "end"  # after cut_after events: "close", "reset", "stall" or "keepalive"
    text: str = "hello world"
    interval: float = 0.0  # seconds between events
    hold: float = 10.0  # the most seconds "keepalive" goes on
    headers: dict[str, str] = field(default_factory=dict)  # sent with the reply's head


@dataclass
class Trickle:
    interval: float = 0.25  # seconds between two bytes of the body
    hold: float = 10.0  # then the connection is closed


@dataclass
class Delay:
    seconds: float
    then: Any = None  # an action; None = the default reply


@dataclass
class Hold:
    release: threading.Event
    then: Any = None  # an action; None = the default reply
    limit: float = 60.0  # then it is performed anyway (a test that forgot to release)


@dataclass
class Stall:
    pass


@dataclass
class Reset:
    mid_body: bool = False


@dataclass
class Raw:
    data: bytes


Action = Union[Reply, Stream, Delay, Hold, Stall, Reset, Raw, Trickle]

# --- wire formats --------------------------------------------------------------------------


def format_of(path: str) -> str:
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if "GenerateContent" in path or "generateContent" in path:
        return "gemini"
    raise ValueError(f"fault server: no wire format for path {path!r}")


def success_body(fmt: str, text: str = "hello world", model: str = "m") -> dict[str, Any]:
    if fmt == "openai":
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
    if fmt == "anthropic":
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2,
                              "totalTokenCount": 5},
            "modelVersion": model, "responseId": "resp-1"}


_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED", 409: "ABORTED",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 502: "UNAVAILABLE",
                 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                    403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
                    529: "overloaded_error"}


def error_body(fmt: str, status: int, message: str = "injected fault") -> dict[str, Any]:
    if fmt == "openai":
        return {"error": {"message": message, "type": "server_error" if status >= 500
                          else "invalid_request_error", "code": None}}
    if fmt == "anthropic":
        return {"type": "error", "error": {"type": _ANTHROPIC_TYPES.get(
            status, "api_error"), "message": message}}
    return {"error": {"code": status, "message": message,
                      "status": _STATUS_NAMES.get(status, "UNKNOWN")}}


def _sse(data: Any, event: Optional[str] = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def stream_events(fmt: str, text: str = "hello world", model: str = "m") -> list[bytes]:
    """A complete SSE reply of ``fmt`` streaming ``text`` word by word."""
    words = [w + " " for w in text.split(" ")]
    words[-1] = words[-1].rstrip(" ")
    if fmt == "openai":
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                "model": model}
        out = [_sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant",
                                                                "content": ""}}]})]
        out += [_sse({**base, "choices": [{"index": 0, "delta": {"content": w}}]})
                for w in words]
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {},
                                              "finish_reason": "stop"}]}))
        out.append(b"data: [DONE]\n\n")
        return out
    if fmt == "anthropic":
        out = [_sse({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 0}}}, "message_start"),
            _sse({"type": "content_block_start", "index": 0,
                  "content_block": {"type": "text", "text": ""}}, "content_block_start")]
        out += [_sse({"type": "content_block_delta", "index": 0,
                      "delta": {"type": "text_delta", "text": w}}, "content_block_delta")
                for w in words]
        out += [_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                _sse({"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                         "stop_sequence": None},
                      "usage": {"output_tokens": 2}}, "message_delta"),
                _sse({"type": "message_stop"}, "message_stop")]
        return out
    out = [_sse({"candidates": [{"content": {"role": "model", "parts": [{"text": w}]},
                                 "index": 0}], "modelVersion": model, "responseId": "resp-1"})
           for w in words[:-1]]
    out.append(_sse({"candidates": [{"content": {"role": "model", "parts": [{"text": words[-1]}]},
                                     "finishReason": "STOP", "index": 0}],
                     "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2,
                                       "totalTokenCount": 5},
                     "modelVersion": model, "responseId": "resp-1"}))
    return out


# --- the server ----------------------------------------------------------------------------

_REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 303: "See Other",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
            409: "Conflict", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
            529: "Overloaded"}


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    format: str
    stream: bool
    at: float = field(default_factory=time.monotonic)


class FaultServer:
    """See the module docstring."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host  # another loopback address (127.0.0.2) is another host
        self._actions: deque[Action] = deque()
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._server: Optional[asyncio.base_events.Server] = None
        self._thread: Optional[threading.Thread] = None
        self._stop: Optional[asyncio.Event] = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    # -- scripting --

    def queue(self, *actions: Action) -> "FaultServer":
        with self._lock:
            self._actions.extend(actions)
        return self

    def reset(self) -> None:
        """Forget the queue, the recorded requests and the in-flight peak."""
        with self._lock:
            self._actions.clear()
            self.requests.clear()
            self.max_in_flight = 0

    @property
    def attempts(self) -> int:
        return len(self.requests)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # -- lifecycle --

    def __enter__(self) -> "FaultServer":
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True,
                                        name="fault-server")
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("fault server did not start")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.run(self._main(started))

    async def _main(self, started: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._server = await asyncio.start_server(self._serve, self.host, 0, backlog=2048,
                                                  limit=2 ** 24)
        self.port = self._server.sockets[0].getsockname()[1]
        started.set()
        await self._stop.wait()
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        await self._server.wait_closed()

    # -- one connection: requests in turn (keep-alive) --

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                request = await self._read(reader)
                if request is None:
                    return
                with self._lock:
                    self.requests.append(request)
                    action: Action = self._actions.popleft() if self._actions else Reply()
                    self.in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    keep_open = await self._perform(action, request, reader, writer)
                finally:
                    with self._lock:
                        self.in_flight -= 1
                if not keep_open:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            self._writers.discard(writer)
            if not writer.transport.is_closing():
                writer.transport.close()

    async def _read(self, reader: asyncio.StreamReader) -> Optional[Request]:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length") or 0)
        raw = await reader.readexactly(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        return Request(method, path, headers, body, *self._classify(method, path, body))

    def _classify(self, method: str, path: str, body: Any) -> tuple[str, bool]:
        """A request's wire format and whether it asks for a stream (a subclass serving other
        routes says what they are)."""
        fmt = format_of(path.split("?", 1)[0])
        stream = ("streamGenerateContent" in path) if fmt == "gemini" else bool(
            isinstance(body, dict) and body.get("stream"))
        return fmt, stream

    async def _perform(self, action: Action, request: Request, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> bool:
        """Carry out ``action``; True when the connection may serve another request."""
        if isinstance(action, Delay):
            await asyncio.sleep(action.seconds)
            return await self._perform(action.then or Reply(), request, reader, writer)
        if isinstance(action, Hold):
            await asyncio.get_running_loop().run_in_executor(
                None, action.release.wait, action.limit)
            return await self._perform(action.then or Reply(), request, reader, writer)
        if isinstance(action, Stall):
            await self._stall(reader)
            return False
        if isinstance(action, Reset):
            if action.mid_body:
                body = json.dumps(success_body(request.format)).encode()
                writer.write(self._head(200, {"content-type": "application/json"}, len(body))
                             + body[: len(body) // 2])
                await writer.drain()
                await asyncio.sleep(0.01)
            self._abort(writer)
            return False
        if isinstance(action, Raw):
            writer.write(action.data)
            await writer.drain()
            writer.close()
            return False
        if isinstance(action, Trickle):
            await self._trickle(action, request, writer)
            return False
        if isinstance(action, Reply) and (action.status != 200 or not request.stream
                                          or action.body is not None):
            body = action.body
            if body is None:
                body = (success_body(request.format, action.text) if action.status < 400
                        else error_body(request.format, action.status))
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers = {"content-type": "application/json", **action.headers}
            writer.write(self._head(action.status, headers, len(data)) + data)
            await writer.drain()
            return True
        stream = action if isinstance(action, Stream) else Stream(text=action.text)
        return await self._stream(stream, request, reader, writer)

    async def _stream(self, action: Stream, request: Request, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> bool:
        events = action.events if action.events is not None else stream_events(
            request.format, action.text)
        if action.cut_after is not None:
            events = events[: action.cut_after]
        writer.write(self._head(200, {"content-type": "text/event-stream",
                                      "connection": "close", **action.headers}, None))
        await writer.drain()
        for event in events:
            writer.write(event)
            await writer.drain()
            await asyncio.sleep(action.interval)
        if action.cut_after is not None and action.then == "keepalive":
            end = time.monotonic() + action.hold
            while time.monotonic() < end and not writer.is_closing():
                writer.write(b": keep-alive\n\n")
                await writer.drain()
                await asyncio.sleep(0.1)
            writer.close()
            return False
        if action.cut_after is not None and action.then == "reset":
            await asyncio.sleep(0.01)
            self._abort(writer)
            return False
        if action.cut_after is not None and action.then == "stall":
            await self._stall(reader)
            return False
        writer.close()
        return False

    async def _trickle(self, action: Trickle, request: Request,
                       writer: asyncio.StreamWriter) -> None:
        if request.stream:
            body = b"".join(stream_events(request.format))
            writer.write(self._head(200, {"content-type": "text/event-stream"}, len(body)))
        else:
            body = json.dumps(success_body(request.format)).encode()
            writer.write(self._head(200, {"content-type": "application/json"}, len(body)))
        await writer.drain()
        end = time.monotonic() + action.hold
        for i in range(len(body)):
            if time.monotonic() >= end or writer.is_closing():
                break
            writer.write(body[i:i + 1])
            await writer.drain()
            await asyncio.sleep(action.interval)
        writer.close()

    @staticmethod
    def _head(status: int, headers: dict[str, str], length: Optional[int]) -> bytes:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if length is not None:
            lines.append(f"content-length: {length}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    @staticmethod
    def _abort(writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:  # RST instead of FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    async def _stall(self, reader: asyncio.StreamReader) -> None:
        """Hold the connection, answering nothing, until the client closes it or the server
        stops."""
        assert self._stop is not None
        stop = asyncio.ensure_future(self._stop.wait())
        try:
            while True:
                read = asyncio.ensure_future(reader.read(65536))
                done, _ = await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
                if stop in done:
                    read.cancel()
                    return
                if not read.result():
                    return
        except ConnectionError:
            return
        finally:
            stop.cancel()


class MatrixOutcomes:
    """What a fault suite saw, per fault and family. ``write`` saves it to the file the
    ``AISUITE_FAULT_MATRIX`` variable names (plus ``suffix``), for scripts/fault_matrix.py."""

    def __init__(self, suffix: str = "") -> None:
        self.items: list[dict[str, str]] = []
        self.suffix = suffix

    def record(self, fault: str, family: str, outcome: str) -> None:
        self.items.append({"fault": fault, "family": family, "outcome": outcome})

    def write(self) -> None:
        path = os.environ.get("AISUITE_FAULT_MATRIX")
        if path:
            with open(path + self.suffix, "w", encoding="utf-8") as f:
                json.dump(self.items, f, indent=1)


class Witness:
    """Another host (by default 127.0.0.2, a loopback address of its own) that records every
    request it receives, whatever its path, and answers 200 ``{}``: tests assert that nothing
    reached it (``requests`` is a list of (method, path, headers, body bytes))."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        witness = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                witness.requests.append((self.command, self.path,
                                         {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "Witness":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
