"""Record real HTTP exchanges to a file ("cassette") and replay them offline (docs/testing.md).

    import aisuite_like as ai

    with ai.testing.record("cassettes/weather.json"):   # once, with a real key
        client.chat.completions.create(model="openai:gpt-4o", ...)
    with ai.testing.replay("cassettes/weather.json"):   # in the suite, offline
        client.chat.completions.create(model="openai:gpt-4o", ...)

Where it hooks in: every vendor SDK of the openai, anthropic and google families sends
through ``httpx2``, whatever the transport underneath (the default one, the SDKs' aiohttp
transport, a mock): inside the block the transport an ``httpx2.Client`` / ``AsyncClient``
picks for a request is wrapped, so a recording goes through the real provider code, the real
SDK and the real transport, and a replay answers from the file without touching the
transport. Bedrock goes through botocore: its ``URLLib3Session.send`` is wrapped the same
way. Streams are recorded whole (the body is read to its end before the SDK sees it): SSE as
text, Bedrock's binary event stream as base64. A transport the cassette cannot see (aiohttp
used directly, e.g. google with ``async_transport="aiohttp"``) raises ``CassetteError`` inside
the block instead of reaching the network.

Nothing secret is written: credential headers (``Authorization``, ``x-api-key``,
``x-goog-api-key``, ``api-key``, AWS SigV4's, cookies, any header or query parameter whose
name says key, token, secret, signature, credential or auth) are dropped, and every key the
process knows (configured keys, the values of those headers, see ``core.secrets``) is
replaced by ``[REDACTED]`` wherever else it appears.

Matching a request to the recording: the method, the URL (query parameters in any order,
credential parameters left out) and the body (JSON compared as data, so key order and spacing
do not count; fields named in ``ignore_fields`` are left out at any depth). Headers are not
compared: they hold credentials, SDK versions (``user-agent``, ``x-stainless-*``), retry
counts, idempotency keys and timestamps (``x-amz-date``, ``amz-sdk-invocation-id``). Each
recorded exchange answers once; a request takes the first unused exchange it matches, so
concurrent requests may arrive in any order.
"""

from __future__ import annotations

import base64
import contextvars
import importlib.util
import json
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..core.errors import AisuiteLikeError
from ..core.secrets import REDACTED, redact, remember

__all__ = [
    "Cassette", "record", "replay", "CassetteError", "CassetteMismatchError",
    "CassetteNotFoundError", "RECORD_ENV",
]

#: The environment variable that switches the pytest ``cassette`` fixture to recording.
RECORD_ENV = "AISUITE_LIKE_RECORD_CASSETTES"

_FORMAT = 1  # the cassette file format version

_HOW_TO_RECORD = (f"record it with ai.testing.record(path), or run pytest with "
                  f"--record-cassettes (or {RECORD_ENV}=1) when using the cassette fixture")


class CassetteError(AisuiteLikeError):
    """A cassette cannot be used: an unreadable file, two cassettes at once, or a request
    through a transport the cassette cannot see."""


class CassetteNotFoundError(CassetteError, FileNotFoundError):
    """``replay()`` of a file that does not exist."""


class CassetteMismatchError(CassetteError, AssertionError):
    """A replayed request that no unused recorded exchange matches. ``diff`` says what differs
    from the next unused exchange (method, URL, body), or that none is left."""

    def __init__(self, message: str, *, diff: str = "") -> None:
        super().__init__(message)
        self.diff = diff


# --- what is secret ------------------------------------------------------------------------

# A header or query parameter is a credential when a part of its name (split at "-", "_"
# and ".") is one of these: ``authorization``, ``x-api-key``, ``x-goog-api-key``,
# ``x-amz-security-token``, ``cookie``, ``key``, ... but not ``x-ratelimit-remaining-tokens``.
_SECRET_PARTS = frozenset({
    "authorization", "auth", "key", "apikey", "token", "secret", "signature", "sig",
    "credential", "credentials", "cookie", "password",
})
_NAME_PARTS = re.compile(r"[-_.]")
_AUTH_SCHEME = re.compile(r"^\s*(?:bearer|basic|token)\s+", re.IGNORECASE)


def _is_secret(name: str) -> bool:
    """A header or query parameter that carries a credential (dropped, never written)."""
    return any(part in _SECRET_PARTS for part in _NAME_PARTS.split(name.lower()))


def _remember_credential(value: str) -> None:
    """A key seen in a credential header: redacted from everything else written from now on
    (a value with spaces inside, such as a SigV4 signature line, is no key and not kept)."""
    key = _AUTH_SCHEME.sub("", value).strip()
    if key and not any(ch.isspace() for ch in key):
        remember(key)


# The request headers whose values are written as sent: what the SDKs and HTTP libraries set
# themselves. Every other request header (``default_headers``, ``extra_headers``: a session,
# a JWT, a tenant id) is written with its value redacted, and the value is redacted from
# everything else written.
_PLAIN_REQUEST_HEADERS = frozenset({
    "accept", "accept-encoding", "content-type", "user-agent", "host", "connection", "expect",
    "transfer-encoding", "anthropic-version", "anthropic-beta", "openai-beta",
    "x-goog-api-client", "x-server-timeout", "x-amz-date", "x-amz-target",
    "x-amz-content-sha256", "x-amz-user-agent",
})
_PLAIN_REQUEST_PREFIXES = ("x-stainless-", "amz-sdk-")


def _request_headers(items: Iterable[tuple[str, Any]]) -> dict[str, str]:
    """A request's headers as written: credentials dropped (``_headers``), the values of the
    headers the caller configured redacted."""
    out = _headers(items, frozenset({"content-length"}))
    for name, value in out.items():
        if name not in _PLAIN_REQUEST_HEADERS and not name.startswith(_PLAIN_REQUEST_PREFIXES):
            _remember_credential(value)
            out[name] = REDACTED
    return out


# Fields of a JSON body whose text values are credentials: a part of the name (split at "-",
# "_", "." and lower-to-upper case changes) is one of these (``user_token``, ``apiKey``,
# ``client_secret``; not ``max_tokens``, nor ``promptTokenCount``, whose value is a number).
_SECRET_FIELD_PARTS = frozenset({
    "token", "secret", "key", "apikey", "password", "passwd", "credential", "credentials",
    "auth", "authorization", "jwt", "cookie", "session",
})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_FIELD_TEXT = re.compile(r'"([A-Za-z0-9_.-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"')


def _is_secret_field(name: str) -> bool:
    parts = _NAME_PARTS.split(_CAMEL.sub("_", name).lower())
    return any(part in _SECRET_FIELD_PARTS for part in parts)


def _redact_fields(value: Any) -> Any:
    """A JSON value with the text of every key-like field redacted, at any depth."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, str) and v and v != REDACTED and _is_secret_field(str(k)):
                _remember_credential(v)
                out[k] = REDACTED
            else:
                out[k] = _redact_fields(v)
        return out
    if isinstance(value, list):
        return [_redact_fields(v) for v in value]
    return value


def _redact_field_text(text: str) -> str:
    """The same for JSON inside text (the events of an SSE stream)."""
    def clean(match: "re.Match[str]") -> str:
        if not match.group(3) or not _is_secret_field(match.group(1)):
            return match.group(0)
        return f'"{match.group(1)}"{match.group(2)}"{REDACTED}"'

    return _SECRET_FIELD_TEXT.sub(clean, text)


# Hop-by-hop and framing headers of a reply: the body is stored decoded and whole, so its
# original length, encoding and framing no longer apply.
_FRAMING = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection",
                      "keep-alive"})


def _headers(items: Iterable[tuple[str, Any]], drop: frozenset[str] = frozenset()
             ) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, raw in items:
        low = name.lower()
        value = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
        if _is_secret(low):
            _remember_credential(value)
            continue
        if low in drop:
            continue
        out[low] = f"{out[low]}, {value}" if low in out else value
    return {k: redact(v) for k, v in out.items()}


def _url(url: str) -> str:
    """The URL as recorded and matched: credential query parameters left out, the others
    sorted, secrets redacted."""
    parts = urlsplit(url)
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if not _is_secret(k))
    return redact(urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), "")))


# --- bodies ----------------------------------------------------------------------------------


def _encode_body(data: bytes) -> dict[str, Any]:
    """Bytes -> their form in the file: ``{"json": ...}`` (readable, compared as data),
    ``{"text": ...}`` (SSE and other text) or ``{"base64": ...}`` (binary), secrets
    redacted."""
    if not data:
        return {"text": ""}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        clean = redact(data.decode("latin-1")).encode("latin-1")  # keys are ASCII
        return {"base64": base64.b64encode(clean).decode("ascii")}
    text = redact(text)
    if text[:1] in "{[":
        try:
            return {"json": _redact_fields(json.loads(text))}
        except ValueError:
            pass
    return {"text": _redact_field_text(text)}


def _decode_body(body: Mapping[str, Any]) -> bytes:
    if "json" in body:
        return json.dumps(body["json"], ensure_ascii=False).encode("utf-8")
    if "base64" in body:
        return base64.b64decode(body["base64"])
    return str(body.get("text", "")).encode("utf-8")


def _without(value: Any, names: frozenset[str]) -> Any:
    """A JSON value with the object keys in ``names`` left out, at any depth."""
    if not names:
        return value
    if isinstance(value, dict):
        return {k: _without(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_without(v, names) for v in value]
    return value


# --- diffs -----------------------------------------------------------------------------------

_ABSENT = object()
_MAX_DIFF_LINES = 30


def _show(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, bytes) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _json_diff(recorded: Any, sent: Any, path: str, out: list[str]) -> None:
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in [*recorded, *(k for k in sent if k not in recorded)]:
            _json_diff(recorded.get(key, _ABSENT), sent.get(key, _ABSENT), f"{path}.{key}", out)
        return
    if isinstance(recorded, list) and isinstance(sent, list):
        for i in range(max(len(recorded), len(sent))):
            _json_diff(recorded[i] if i < len(recorded) else _ABSENT,
                       sent[i] if i < len(sent) else _ABSENT, f"{path}[{i}]", out)
        return
    if recorded != sent or type(recorded) is not type(sent):
        out.append(f"    {path}: recorded {_show(recorded)}, sent {_show(sent)}")


# --- requests and exchanges ------------------------------------------------------------------


@dataclass(frozen=True)
class _Request:
    """A request as matched: method, normalized URL, body as data (JSON) or text."""

    method: str
    url: str
    body: dict[str, Any]

    def comparable(self, ignore: frozenset[str]) -> tuple[str, str, Any]:
        body = _without(self.body["json"], ignore) if "json" in self.body else self.body
        return self.method, self.url, body


def _request(method: str, url: str, body: bytes) -> _Request:
    return _Request(method.upper(), _url(url), _encode_body(body))


@dataclass
class _Reply:
    """A recorded reply: status, headers (no framing, no credentials) and the body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class _Exchange:
    request: _Request
    request_headers: dict[str, str]
    reply: _Reply
    used: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"request": {"method": self.request.method, "url": self.request.url,
                            "headers": self.request_headers, "body": self.request.body},
                "response": {"status": self.reply.status, "headers": self.reply.headers,
                             "body": _encode_body(self.reply.body)}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "_Exchange":
        """An exchange as the file holds it; ``ValueError`` naming what is not of the form
        ``to_json`` writes (a file edited by hand, or written by something else)."""
        if not isinstance(data, Mapping):
            raise ValueError("an interaction must be an object")
        req, resp = data.get("request"), data.get("response")
        if not isinstance(req, Mapping) or not isinstance(resp, Mapping):
            raise ValueError("an interaction needs a 'request' and a 'response' object")
        if not isinstance(req.get("method"), str) or not isinstance(req.get("url"), str):
            raise ValueError("request.method and request.url must be text")
        status = resp.get("status")
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise ValueError(f"response.status must be an HTTP status, got {status!r}")
        return cls(_Request(req["method"].upper(), _url(req["url"]),
                            _checked_body(req.get("body"), "request.body")),
                   _checked_headers(req.get("headers"), "request.headers"),
                   _Reply(status, _checked_headers(resp.get("headers"), "response.headers"),
                          _decode_body(_checked_body(resp.get("body"), "response.body"))))


def _checked_body(body: Any, where: str) -> dict[str, Any]:
    """A body as ``_encode_body`` writes it: ``{"json": ...}``, ``{"text": "..."}`` or
    ``{"base64": "..."}``."""
    if not isinstance(body, Mapping) or len(body) != 1 or \
            next(iter(body)) not in ("json", "text", "base64"):
        raise ValueError(f"{where} must be {{\"json\": ...}}, {{\"text\": \"...\"}} or "
                         f"{{\"base64\": \"...\"}}, got {type(body).__name__}")
    kind, value = next(iter(body.items()))
    if kind != "json" and not isinstance(value, str):
        raise ValueError(f"{where}.{kind} must be text")
    if kind == "base64":
        try:
            base64.b64decode(value, validate=True)
        except ValueError:
            raise ValueError(f"{where}.base64 is not base64") from None
    return dict(body)


def _checked_headers(headers: Any, where: str) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise ValueError(f"{where} must be an object of text values")
    return dict(headers)


# --- the cassette ----------------------------------------------------------------------------


@dataclass
class Cassette:
    """One cassette file in use: ``mode`` is ``"record"`` or ``"replay"``. A context manager;
    see the module docstring and docs/testing.md."""

    path: str
    mode: Literal["record", "replay"]
    ignore_fields: frozenset[str] = frozenset()
    _exchanges: list[_Exchange] = field(default_factory=list, init=False, repr=False)
    _sent: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    # -- the file --

    def _load(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            raise CassetteNotFoundError(
                f"no cassette at {self.path}: {_HOW_TO_RECORD}") from None
        except (OSError, ValueError) as exc:
            raise CassetteError(f"cannot read cassette {self.path}: {exc}") from exc
        if not isinstance(data, dict) or data.get("version") != _FORMAT:
            raise CassetteError(f"{self.path} is not a cassette of format {_FORMAT}; "
                                f"{_HOW_TO_RECORD}")
        interactions = data.get("interactions")
        if not isinstance(interactions, list):
            raise CassetteError(f"{self.path}: 'interactions' must be a list; {_HOW_TO_RECORD}")
        exchanges = []
        for i, item in enumerate(interactions):
            try:
                exchanges.append(_Exchange.from_json(item))
            except ValueError as exc:
                raise CassetteError(f"{self.path}: interaction #{i + 1} is malformed ({exc}); "
                                    f"{_HOW_TO_RECORD}") from None
        self._exchanges = exchanges

    def _save(self) -> None:
        text = json.dumps({"version": _FORMAT,
                           "interactions": [x.to_json() for x in self._exchanges]},
                          indent=1, ensure_ascii=False)
        text = redact(text)  # a key first seen after its exchange was recorded
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        tmp = f"{self.path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, self.path)

    # -- in use --

    def __enter__(self) -> "Cassette":
        if self.mode == "replay":
            self._load()
        _install(self)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(save=exc_type is None)

    def close(self, save: bool = True) -> None:
        """End the block: the hooks go away; a recording is written when ``save`` (the
        ``with`` block ended without an exception)."""
        _uninstall(self)
        if self.mode == "record" and save:
            self._save()

    @property
    def unused(self) -> list[dict[str, Any]]:
        """The recorded exchanges no request has used yet (as in the file)."""
        return [x.to_json() for x in self._exchanges if not x.used]

    def assert_all_used(self) -> None:
        """Raise ``AssertionError`` naming each recorded exchange no request used."""
        left = [f"  #{i + 1} {x.request.method} {x.request.url}"
                for i, x in enumerate(self._exchanges) if not x.used]
        if left:
            raise AssertionError(f"{len(left)} recorded exchange(s) of {self.path} never "
                                 "requested:\n" + "\n".join(left))

    # -- sans-IO: what the transport hooks call --

    def answer(self, method: str, url: str, body: bytes) -> _Reply:
        """Replay: the reply recorded for this request (marked used), or
        ``CassetteMismatchError`` with the diff against the next unused exchange."""
        sent = _request(method, url, body)
        key = sent.comparable(self.ignore_fields)
        with self._lock:
            self._sent += 1
            number = self._sent
            for exchange in self._exchanges:
                if not exchange.used and exchange.request.comparable(self.ignore_fields) == key:
                    exchange.used = True
                    return exchange.reply
            unused = [(i, x) for i, x in enumerate(self._exchanges) if not x.used]
            # The diff is against the first unused exchange to the same method and URL, else
            # the first unused one.
            expected = next(((i, x) for i, x in unused if x.request.method == sent.method
                             and x.request.url == sent.url), unused[0] if unused else None)
        if expected is None:
            diff = (f"  no recorded exchange left: the cassette holds {len(self._exchanges)}, "
                    f"all used\n  sent: {sent.method} {sent.url}")
            raise CassetteMismatchError(
                f"request #{number} ({sent.method} {sent.url}) is not in cassette "
                f"{self.path}:\n{diff}\nIf the change is intended, {_HOW_TO_RECORD}.", diff=diff)
        index, exchange = expected
        diff = self._diff(exchange.request, sent)
        raise CassetteMismatchError(
            f"request #{number} does not match cassette {self.path} (compared with its "
            f"unused exchange #{index + 1} of {len(self._exchanges)}):\n{diff}\n"
            f"If the change is intended, {_HOW_TO_RECORD}.", diff=diff)

    def _diff(self, recorded: _Request, sent: _Request) -> str:
        lines: list[str] = []
        if recorded.method != sent.method:
            lines.append(f"  method: recorded {recorded.method}, sent {sent.method}")
        if recorded.url != sent.url:
            lines.append(f"  url: recorded {recorded.url}\n       sent     {sent.url}")
        a = recorded.comparable(self.ignore_fields)[2]
        b = sent.comparable(self.ignore_fields)[2]
        if a != b:
            lines.append("  body:")
            if "json" in recorded.body and "json" in sent.body:
                body_lines: list[str] = []
                _json_diff(a, b, "$", body_lines)
                if len(body_lines) > _MAX_DIFF_LINES:
                    more = len(body_lines) - _MAX_DIFF_LINES
                    body_lines = [*body_lines[:_MAX_DIFF_LINES], f"    ... {more} more"]
                lines += body_lines
            else:
                lines.append(f"    recorded {_show(_body_text(recorded.body))}")
                lines.append(f"    sent     {_show(_body_text(sent.body))}")
        return redact("\n".join(lines))

    def add(self, method: str, url: str, headers: Iterable[tuple[str, Any]], body: bytes,
            reply: _Reply) -> None:
        """Record: one exchange, secrets dropped or redacted (the reply's headers and body
        are stored as given here, and cleaned when written)."""
        request_headers = _request_headers(headers)
        exchange = _Exchange(_request(method, url, body), request_headers, reply, used=True)
        with self._lock:
            self._exchanges.append(exchange)

    def recorded_reply(self, status: int, headers: Iterable[tuple[str, Any]],
                       body: bytes) -> _Reply:
        return _Reply(status, _headers(headers, _FRAMING), body)


def _body_text(body: Mapping[str, Any]) -> Any:
    if "json" in body:
        return body["json"]
    return body.get("text", body.get("base64", ""))


def record(path: "str | os.PathLike[str]", *, ignore_fields: Iterable[str] = ()) -> Cassette:
    """Record every HTTP exchange of the block to ``path`` (written when the block ends
    without an exception, replacing the file). Requests go to the real servers."""
    return Cassette(os.fspath(path), "record", frozenset(ignore_fields))


def replay(path: "str | os.PathLike[str]", *, ignore_fields: Iterable[str] = ()) -> Cassette:
    """Answer every HTTP request of the block from ``path``, offline; a request the file does
    not hold raises ``CassetteMismatchError`` with a diff."""
    return Cassette(os.fspath(path), "replay", frozenset(ignore_fields))


# --- the hooks -------------------------------------------------------------------------------

_ACTIVE: Optional[Cassette] = None
_PATCHES: list[tuple[Any, str, Any]] = []
_STATE_LOCK = threading.Lock()
# Set while a recording sends through a wrapped httpx2 transport: aiohttp calls made below it
# (the SDKs' aiohttp transports) are seen by the cassette and allowed.
_SEEN: contextvars.ContextVar[bool] = contextvars.ContextVar("aisuite_like_cassette_seen",
                                                             default=False)


def _active() -> Cassette:
    cassette = _ACTIVE
    if cassette is None:  # a request racing the end of the block
        raise CassetteError("the cassette block has ended")
    return cassette


def _install(cassette: Cassette) -> None:
    global _ACTIVE
    with _STATE_LOCK:
        if _ACTIVE is not None:
            raise CassetteError(
                f"cassette {_ACTIVE.path} is already in use; one cassette at a time")
        _ACTIVE = cassette
        try:
            _patch_all()
        except BaseException:
            _ACTIVE = None
            _restore()
            raise


def _uninstall(cassette: Cassette) -> None:
    global _ACTIVE
    with _STATE_LOCK:
        if _ACTIVE is cassette:
            _ACTIVE = None
            _restore()


def _patch(owner: Any, name: str, new: Any) -> None:
    _PATCHES.append((owner, name, owner.__dict__[name]))
    setattr(owner, name, new)


def _restore() -> None:
    while _PATCHES:
        owner, name, original = _PATCHES.pop()
        setattr(owner, name, original)


def _installed(module: str) -> bool:
    if module in sys.modules:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _patch_all() -> None:
    if _installed("httpx2"):
        _patch_httpx2()
    if _installed("botocore"):
        _patch_botocore()
    if _installed("aiohttp"):
        _patch_aiohttp()


# -- httpx2 (openai, anthropic, google) --


def _patch_httpx2() -> None:
    import httpx2

    sync_pick = httpx2.Client.__dict__["_transport_for_url"]
    async_pick = httpx2.AsyncClient.__dict__["_transport_for_url"]

    def pick(self: Any, url: Any) -> Any:
        return _Httpx2Transport(sync_pick(self, url))

    def apick(self: Any, url: Any) -> Any:
        return _Httpx2Transport(async_pick(self, url))

    _patch(httpx2.Client, "_transport_for_url", pick)
    _patch(httpx2.AsyncClient, "_transport_for_url", apick)


class _Httpx2Transport:
    """The transport httpx2 picked, wrapped: recording sends through it, replay never does."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @staticmethod
    def _replayed(cassette: Cassette, request: Any, body: bytes) -> Any:
        import httpx2

        reply = cassette.answer(request.method, str(request.url), body)
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.body,
                               extensions={"http_version": b"HTTP/1.1"})

    @staticmethod
    def _recorded(cassette: Cassette, request: Any, body: bytes, response: Any,
                  content: bytes) -> Any:
        import httpx2

        reply = cassette.recorded_reply(response.status_code, response.headers.multi_items(),
                                        content)
        cassette.add(request.method, str(request.url), request.headers.multi_items(), body,
                     reply)
        return httpx2.Response(response.status_code, headers=reply.headers, content=content,
                               extensions={"http_version": b"HTTP/1.1"})

    def handle_request(self, request: Any) -> Any:
        cassette = _active()
        body = request.read()
        if cassette.mode == "replay":
            return self._replayed(cassette, request, body)
        token = _SEEN.set(True)
        try:
            response = self.inner.handle_request(request)
            try:
                content = response.read()
            finally:
                response.close()
        finally:
            _SEEN.reset(token)
        return self._recorded(cassette, request, body, response, content)

    async def handle_async_request(self, request: Any) -> Any:
        cassette = _active()
        body = await request.aread()
        if cassette.mode == "replay":
            return self._replayed(cassette, request, body)
        token = _SEEN.set(True)
        try:
            response = await self.inner.handle_async_request(request)
            try:
                content = await response.aread()
            finally:
                await response.aclose()
        finally:
            _SEEN.reset(token)
        return self._recorded(cassette, request, body, response, content)

    def close(self) -> None:
        self.inner.close()

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- botocore (bedrock) --


def _patch_botocore() -> None:
    import botocore.httpsession  # type: ignore[import-untyped]  # botocore ships no types

    session_cls = botocore.httpsession.URLLib3Session
    send = session_cls.__dict__["send"]

    def patched_send(self: Any, request: Any) -> Any:
        cassette = _active()
        body = _botocore_body(request.body)
        if cassette.mode == "replay":
            reply = cassette.answer(request.method, request.url, body)
            return _aws_response(request.url, reply.status, reply.headers, reply.body)
        response = send(self, request)
        content = response.content  # read whole, also for a stream
        reply = cassette.recorded_reply(response.status_code, response.headers.items(),
                                        content)
        cassette.add(request.method, request.url, request.headers.items(), body, reply)
        return _aws_response(request.url, response.status_code, reply.headers, content)

    _patch(session_cls, "send", patched_send)


def _botocore_body(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    read = getattr(body, "read", None)
    if read is None:
        raise CassetteError(f"cannot record a request body of type {type(body).__name__}")
    position = body.tell()
    data = read()
    body.seek(position)
    return data if isinstance(data, bytes) else str(data).encode("utf-8")


def _aws_response(url: str, status: int, headers: Mapping[str, str], body: bytes) -> Any:
    """A botocore response over ``body``, readable whole or as a stream."""
    import io

    import botocore.awsrequest  # type: ignore[import-untyped]  # botocore ships no types
    import urllib3

    raw = urllib3.HTTPResponse(body=io.BytesIO(body), headers=dict(headers), status=status,
                               preload_content=False, decode_content=False)
    return botocore.awsrequest.AWSResponse(url, status, dict(headers), raw)


# -- aiohttp used directly: not recorded, so never allowed through --


def _patch_aiohttp() -> None:
    import aiohttp

    request = aiohttp.ClientSession.__dict__["_request"]

    async def guarded(self: Any, method: str, url: Any, *args: Any, **kwargs: Any) -> Any:
        if not _SEEN.get():
            raise CassetteError(
                f"{method} {redact(str(url))} went through aiohttp directly, which a cassette "
                "cannot record or replay (google with async_transport='aiohttp' does this): "
                "use the default httpx2 transport in tests")
        return await request(self, method, url, *args, **kwargs)

    _patch(aiohttp.ClientSession, "_request", guarded)

