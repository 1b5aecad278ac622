"""A loopback Amazon Bedrock Runtime of our own, for tests that go through real botocore.

It answers ``POST /model/{modelId}/converse`` with Converse JSON,
``POST /model/{modelId}/invoke`` (InvokeModel: the embedding models' JSON, see
``titan_embedding`` / ``cohere_embeddings``) and
``POST /model/{modelId}/converse-stream`` with ConverseStream's binary
``application/vnd.amazon.eventstream`` body (and, as the control plane, ``GET
/foundation-models``: ListFoundationModels, with a scripted ``Json`` reply), encoded here (prelude, headers, CRC32s: the
format botocore/eventstream.py parses). Replies are scripted in order; every request is
recorded (method, path, headers, raw body, JSON) so tests assert on the wire.

    with BedrockServer() as server:
        server.reply(converse_text("Hello"))
        client = ai.Client({"bedrock": server.config()})
"""

from __future__ import annotations

import json
import struct
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional, Union
from urllib.parse import unquote

ACCESS_KEY = "AKIDLOOPBACKEXAMPLE"
SECRET_KEY = "loopback-secret-key-0123456789abcdefXYZ"
SESSION_TOKEN = "loopback-session-token-abcdefghijklmnop0123"
REGION = "us-east-1"


# --------------------------------------------------------------------- event stream encoding ---

def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    # name length (1 byte), name, value type 7 (string), value length (2 bytes), value
    return bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) \
        + raw_value


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude (total length, headers length, prelude CRC32),
    headers, payload, message CRC32."""
    header_bytes = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(header_bytes) + len(payload) + 4
    prelude = struct.pack(">II", total, len(header_bytes))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + header_bytes + payload
    return message + struct.pack(">I", zlib.crc32(message))


def event(event_type: str, body: dict[str, Any]) -> bytes:
    """An ``event`` message (``messageStart``, ``contentBlockDelta``, ...)."""
    return encode_message({":event-type": event_type, ":content-type": "application/json",
                           ":message-type": "event"}, json.dumps(body).encode())


def exception_event(exception_type: str, message: str) -> bytes:
    """An ``exception`` message inside the stream (e.g. ``throttlingException``)."""
    return encode_message({":exception-type": exception_type,
                           ":content-type": "application/json",
                           ":message-type": "exception"},
                          json.dumps({"message": message}).encode())


# ------------------------------------------------------------------------------- replies ---

@dataclass
class Json:
    """A JSON reply (a Converse response, or an error body)."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Stream:
    """An event-stream reply, chunked. ``cut`` closes the connection after the frames,
    without the terminating chunk (a stream dropped mid-way)."""

    frames: list[bytes]
    cut: bool = False
    delay_s: float = 0.0  # between frames


@dataclass
class Raw:
    """A reply body sent exactly as given (bytes that need not be JSON)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


@dataclass
class Hang:
    """Send nothing for ``seconds`` (read timeouts)."""

    seconds: float


@dataclass
class Trickle:
    """A reply whose body goes out one byte every ``interval`` seconds (at most ``hold``
    seconds, then the connection closes): a Converse JSON body (``body`` given, or a short
    text reply), or an event stream of ``frames`` whose first ``after`` frames go out at
    once."""

    body: Optional[bytes] = None
    frames: Optional[list[bytes]] = None
    after: int = 0
    interval: float = 0.25
    hold: float = 10.0


def error(status: int, code: str, message: str, *, via: str = "header",
          headers: Optional[dict[str, str]] = None) -> Json:
    """An AWS JSON error reply: the code in ``x-amzn-ErrorType`` (``via="header"``, as Bedrock
    sends it) or in the body's ``__type``."""
    extra = dict(headers or {})
    body: dict[str, Any] = {"message": message}
    if via == "header":
        extra["x-amzn-ErrorType"] = f"{code}:http://internal.amazon.com/coral/com.amazon.bedrock/"
    else:
        body["__type"] = f"com.amazon.bedrock#{code}"
    return Json(body, status=status, headers=extra)


Reply = Union[Json, Raw, Stream, Hang, Trickle, Callable[["Recorded"], Any]]


@dataclass
class Recorded:
    method: str
    path: str
    model_id: str
    operation: str  # "converse" | "converse-stream" | "foundation-models"
    headers: dict[str, str]
    raw: bytes
    at: float = field(default_factory=time.monotonic)  # when it arrived

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None


# -------------------------------------------------------------------------------- server ---

class BedrockServer:
    """The loopback server; a context manager. ``reply()`` queues replies, ``requests`` holds
    what was received. With ``default`` set, it answers when the queue is empty."""

    def __init__(self, default: Optional[Reply] = None, tls_dir: Optional[str] = None) -> None:
        """``tls_dir``: serve HTTPS with a self-signed certificate for 127.0.0.1 written there
        (``ca_file``: point ``AWS_CA_BUNDLE`` at it); botocore sends bearer tokens
        (``AWS_BEARER_TOKEN_BEDROCK``) over HTTPS only."""
        self.requests: list[Recorded] = []
        self._replies: deque[Reply] = deque()
        self.default = default
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                self._handle("POST")

            def do_GET(self) -> None:  # the control plane: GET /foundation-models
                self._handle("GET")

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = self.path.split("?", 1)[0].split("/")
                model_id = unquote(parts[2]) if len(parts) > 3 else ""
                recorded = Recorded(method, self.path, model_id, parts[-1],
                                    {k.lower(): v for k, v in self.headers.items()}, raw)
                with server._lock:
                    server.requests.append(recorded)
                    reply = server._replies.popleft() if server._replies else server.default
                if callable(reply) and not isinstance(reply, (Json, Raw, Stream, Hang, Trickle)):
                    reply = reply(recorded)
                if reply is None:
                    reply = error(500, "InternalServerException", "no scripted reply left")
                server._send(self, reply)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.ca_file: Optional[str] = None
        if tls_dir is not None:
            import ssl

            self.ca_file, key_file = _self_signed(tls_dir)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.ca_file, key_file)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"{'https' if self.ca_file else 'http'}://{host}:{port}"

    def config(self, **overrides: Any) -> dict[str, Any]:
        """A provider config pointing at this server with dummy credentials."""
        return {"endpoint_url": self.url, "region_name": REGION,
                "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY,
                **overrides}

    def reply(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def unused(self) -> int:
        return len(self._replies)

    def __enter__(self) -> "BedrockServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, reply: Any) -> None:
        request_id = "req-" + format(abs(hash((time.time(), id(reply)))) % 16**12, "012x")
        if isinstance(reply, Hang):
            time.sleep(reply.seconds)
            handler.close_connection = True
            return
        if isinstance(reply, Trickle):
            stream = reply.frames is not None
            body = b"".join(reply.frames or ()) if stream else (
                reply.body if reply.body is not None else json.dumps(
                    converse_text("trickled").body).encode())
            # A stream is chunked as Bedrock sends it (then each byte is an HTTP chunk).
            handler.send_response(200)
            handler.send_header("Content-Type", "application/vnd.amazon.eventstream"
                                if stream else "application/json")
            handler.send_header("x-amzn-RequestId", request_id)
            if stream:
                handler.send_header("Transfer-Encoding", "chunked")
            else:
                handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()

            def send(data: bytes) -> None:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if stream else data)
                handler.wfile.flush()

            start = len(b"".join((reply.frames or [])[:reply.after]))
            if start:
                send(body[:start])
            end = time.monotonic() + reply.hold
            try:
                for i in range(start, len(body)):
                    if time.monotonic() >= end:
                        break
                    send(body[i:i + 1])
                    time.sleep(reply.interval)
            except OSError:  # the client gave up and closed the connection
                pass
            handler.close_connection = True
            return
        if isinstance(reply, (Json, Raw)):
            body = reply.body if isinstance(reply, Raw) else json.dumps(reply.body).encode()
            handler.send_response(reply.status)
            handler.send_header("Content-Type", reply.content_type if isinstance(reply, Raw)
                                else "application/json")
            handler.send_header("x-amzn-RequestId", request_id)
            for k, v in (reply.headers.items() if isinstance(reply, Json) else ()):
                handler.send_header(k, v)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        assert isinstance(reply, Stream), reply
        # Chunked, one event-stream message per HTTP chunk, as Bedrock sends it.
        handler.send_response(200)
        handler.send_header("Content-Type", "application/vnd.amazon.eventstream")
        handler.send_header("x-amzn-RequestId", request_id)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for frame in reply.frames:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            handler.wfile.flush()
            if reply.delay_s:
                time.sleep(reply.delay_s)
        if reply.cut:  # no terminating chunk: the connection drops mid-body
            handler.close_connection = True
        else:
            handler.wfile.write(b"0\r\n\r\n")


def _self_signed(directory: str) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (and its key), written to ``directory``."""
    import datetime
    import ipaddress
    import os

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_file, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_file, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption()))
    return cert_file, key_file


# ------------------------------------------------------------ Converse reply builders ---

def usage(input_tokens: int = 10, output_tokens: int = 5, **cache: int) -> dict[str, int]:
    total = input_tokens + output_tokens + sum(cache.values())
    return {"inputTokens": input_tokens, "outputTokens": output_tokens, "totalTokens": total,
            **cache}


def converse(content: list[dict[str, Any]], stop_reason: str = "end_turn",
             **usage_kw: int) -> Json:
    return Json({"output": {"message": {"role": "assistant", "content": content}},
                 "stopReason": stop_reason, "usage": usage(**usage_kw),
                 "metrics": {"latencyMs": 12}})


def converse_text(text: str, stop_reason: str = "end_turn", **usage_kw: int) -> Json:
    return converse([{"text": text}], stop_reason, **usage_kw)


def converse_tools(*calls: tuple[str, str, dict[str, Any]], text: Optional[str] = None) -> Json:
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    content += [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]
    return converse(content, "tool_use")


def stream_text(*pieces: str, stop_reason: str = "end_turn", **usage_kw: int) -> Stream:
    frames = [event("messageStart", {"role": "assistant"})]
    frames += [event("contentBlockDelta", {"delta": {"text": p}, "contentBlockIndex": 0})
               for p in pieces]
    frames += [event("contentBlockStop", {"contentBlockIndex": 0}),
               event("messageStop", {"stopReason": stop_reason}),
               event("metadata", {"usage": usage(**usage_kw), "metrics": {"latencyMs": 9}})]
    return Stream(frames)


def stream_tools(*calls: tuple[str, str, list[str]], text: Optional[str] = None) -> Stream:
    """Tool calls streamed as contentBlockStart (id, name) + toolUse input fragments."""
    frames = [event("messageStart", {"role": "assistant"})]
    index = 0
    if text:
        frames += [event("contentBlockDelta", {"delta": {"text": text}, "contentBlockIndex": 0}),
                   event("contentBlockStop", {"contentBlockIndex": 0})]
        index = 1
    for call_id, name, fragments in calls:
        frames.append(event("contentBlockStart", {
            "start": {"toolUse": {"toolUseId": call_id, "name": name}},
            "contentBlockIndex": index}))
        frames += [event("contentBlockDelta", {"delta": {"toolUse": {"input": f}},
                                               "contentBlockIndex": index})
                   for f in fragments]
        frames.append(event("contentBlockStop", {"contentBlockIndex": index}))
        index += 1
    frames += [event("messageStop", {"stopReason": "tool_use"}),
               event("metadata", {"usage": usage(), "metrics": {"latencyMs": 9}})]
    return Stream(frames)


# ------------------------------------------------- InvokeModel embedding reply builders ---

TOKEN_HEADER = "X-Amzn-Bedrock-Input-Token-Count"  # InvokeModel reports input tokens here


def titan_embedding(vector: list[float], tokens: int = 3) -> Json:
    """A Titan Text Embeddings v2 reply (the token count in the body and the header)."""
    return Json({"embedding": vector, "embeddingsByType": {"float": vector},
                 "inputTextTokenCount": tokens}, headers={TOKEN_HEADER: str(tokens)})


def cohere_embeddings(vectors: list[list[float]], texts: list[str], tokens: int = 5,
                      by_type: bool = True) -> Json:
    """A Cohere Embed reply: ``embeddings_by_type`` (``embedding_types`` was sent) or the
    plain float list."""
    return Json({"id": "emb-1", "texts": texts,
                 "embeddings": {"float": vectors} if by_type else vectors,
                 "response_type": "embeddings_by_type" if by_type else "embeddings_floats"},
                headers={TOKEN_HEADER: str(tokens)})


#: The environment through which botocore would find real credentials, config or endpoints.
_AWS_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
            "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_BEARER_TOKEN_BEDROCK",
            "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN")


def isolate_aws(monkeypatch: Any, tmp_path: Any) -> None:
    """No developer credentials, config files or instance metadata (which would be a
    non-loopback address) reach a test: for an autouse fixture of each Bedrock test file."""
    for var in _AWS_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
