"""Helpers shared by the providers: small pure ones for the translators, the one SSE decoder
of the SSE families, and the sync transports' attempt-deadline seams (no SDK is imported at
import time)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from time import monotonic as _monotonic
from typing import Any, Optional

from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    RedirectError,
    UnsupportedParameterError,
)
from ..core.origins import origin, origin_text
from ..core.reading import loads_json
from .body_limits import DEFAULT_LIMITS, BodyLimits, bound_response


def check_file_id(file_id: Any, family: str, provider: str, where: int) -> str:
    """A chat content part's ``file_id`` for a provider of ``family``: an id another
    family's Files API made (``core.media.file_family``) is refused before anything is sent,
    naming the family it belongs to (docs/files.md)."""
    from ..core.media import file_family

    if not isinstance(file_id, str) or not file_id:
        raise UnsupportedParameterError(
            f"messages[{where}]: file.file_id must be a non-empty string",
            parameter="messages", provider=provider)
    owner = file_family(file_id)
    if owner is not None and owner != family:
        raise UnsupportedParameterError(
            f"messages[{where}]: file id {file_id!r} was uploaded to {owner}'s Files API; "
            f"{provider} cannot read it. Upload the file to {provider} "
            f"(client.files.create(..., provider={provider!r})), or send its bytes as "
            "file_data", parameter="messages", provider=provider)
    return file_id


def parse_data_url(url: str) -> Optional[tuple[str, str]]:
    """``data:<mime>;base64,<data>`` -> ``(mime, base64 data)``; None for any other URL."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep or ";base64" not in header:
        raise UnsupportedParameterError(
            "image data URLs must be base64-encoded: 'data:image/png;base64,...'",
            parameter="image_url")
    mime = header.split(";", 1)[0] or "application/octet-stream"
    return mime, data


def arguments_json(value: Any) -> str:
    """A tool call's arguments as a provider sent them (an object) -> the JSON text a portable
    ``ToolCall`` carries; absent = ``{}``. A value that is not an object (a model's string or
    array) is kept as its JSON: the tool runner answers the model that the arguments must be
    an object, as for invalid JSON, instead of failing the whole reply."""
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def argument_fragment(value: Any) -> Optional[str]:
    """One streamed piece of a tool call's arguments: a string as is; any other JSON value as
    its JSON text (kept for the tool runner to refuse, see ``arguments_json``); None / "" =
    nothing."""
    if value is None or isinstance(value, str):
        return value or None
    return json.dumps(value, ensure_ascii=False)


def loads_arguments(arguments: Any) -> Any:
    """Tool-call arguments (a JSON string, or already a dict) -> a dict for providers that take
    objects. Malformed JSON is kept as ``{"_raw": text}`` rather than dropped."""
    if isinstance(arguments, dict):
        return arguments
    if not arguments:
        return {}
    try:
        value = loads_json(arguments)
    except (TypeError, ValueError):
        return {"_raw": arguments}
    return value if isinstance(value, dict) else {"_value": value}


def unsupported(provider: str, parameter: str, why: str = "") -> UnsupportedParameterError:
    return UnsupportedParameterError(
        f"{provider} does not support {parameter!r}{': ' + why if why else ''}. Remove it, or "
        "pass a provider-native argument instead.", parameter=parameter, provider=provider)


def stop_sequences(provider: str, stop: Any) -> list[str]:
    """The portable ``stop`` (a string or a list of strings) -> a new list of strings."""
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, (list, tuple)) and all(isinstance(s, str) for s in stop):
        return list(stop)
    raise UnsupportedParameterError(
        f"stop must be a string or a list of strings, got {stop!r}", parameter="stop",
        provider=provider)


def check_n(provider: str, n: Any) -> int:
    """The portable ``n`` (how many choices): an int >= 1."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise UnsupportedParameterError(f"n must be an int >= 1, got {n!r}", parameter="n",
                                        provider=provider)
    return n


# --- reading replies defensively (docs/reliability.md) ------------------------------------
#
# Translators check the fields they read with the small helpers below and raise
# APIResponseValidationError naming the path (``choices[0].message``); the transports add the
# HTTP status and request id with ``read_reply``, which also turns any stray
# AttributeError / KeyError / TypeError a shape we did not foresee causes into the same typed
# error. The checks are isinstance tests on values the translator reads anyway: no schema
# validation of the whole body, nothing measurable on the happy path.

_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}


def json_type(value: Any) -> str:
    """The JSON name of a value's type, for messages (never the value itself)."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def bad_shape(provider: str, where: str, expected: str, value: Any = None, *,
              missing: bool = False) -> APIResponseValidationError:
    """``<where> is <what it is>, expected <expected>`` as a typed error (the value itself is
    never shown: it may be large or echo a secret)."""
    got = "missing" if missing or value is None else json_type(value)
    return APIResponseValidationError(f"{where} is {got}, expected {expected}",
                                      provider=provider)


def need_object(value: Any, provider: str, where: str) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    raise bad_shape(provider, where, "an object", value)


def opt_object(value: Any, provider: str, where: str) -> Optional[dict[str, Any]]:
    if value is None or isinstance(value, dict):
        return value
    raise bad_shape(provider, where, "an object", value)


def need_list(value: Any, provider: str, where: str) -> list[Any]:
    if isinstance(value, list):
        return value
    raise bad_shape(provider, where, "an array", value)


def opt_list(value: Any, provider: str, where: str) -> Optional[list[Any]]:
    if value is None or isinstance(value, list):
        return value
    raise bad_shape(provider, where, "an array", value)


def opt_str(value: Any, provider: str, where: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise bad_shape(provider, where, "a string", value)


def need_name(value: Any, provider: str, where: str) -> str:
    """A tool call's function name: a non-empty string (a call without one cannot run)."""
    if isinstance(value, str) and value:
        return value
    raise bad_shape(provider, where, "a non-empty string (the tool's name)", value,
                    missing=value in (None, ""))


def opt_count(value: Any, provider: str, where: str) -> int:
    """A token count: an int, or 0 when absent."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise bad_shape(provider, where, "an integer", value)


# --- JSON from outside: one decoder with a nesting limit -----------------------------------

def too_deep_for_sdk(exc: BaseException, provider: str) -> Optional[APIResponseValidationError]:
    """The typed error for a ``RecursionError`` an SDK raised while decoding a reply it parses
    itself (streams, error bodies): Python's JSON parser gives up near 1,000 levels. None for
    any other exception."""
    if isinstance(exc, RecursionError) and "decoding a JSON" in str(exc):
        return APIResponseValidationError("the reply is JSON nested too deeply to read",
                                          provider=provider)
    return None


def json_cut_short(exc: Any) -> bool:
    """Whether a ``json.JSONDecodeError`` says the text is a cut-off prefix of JSON (the
    parser hit the end of the text, or a string never closed) rather than malformed."""
    doc, pos, msg = getattr(exc, "doc", None), getattr(exc, "pos", None), getattr(exc, "msg", "")
    if not isinstance(doc, str) or not isinstance(pos, int):
        return False
    return msg.startswith("Unterminated string") or not doc[pos:].strip()


def bad_stream_json(exc: Any, provider: str) -> APIError:
    """A stream event whose JSON does not parse -> the typed error: a cut-off event means the
    stream was cut mid-event (``APIConnectionError``); anything else is a malformed reply."""
    if json_cut_short(exc):
        return APIConnectionError(
            f"the {provider} stream was cut in the middle of an event (its JSON is "
            "incomplete); the connection was probably lost", provider=provider)
    msg = getattr(exc, "msg", None)
    detail = f" ({msg})" if isinstance(msg, str) else ""
    return APIResponseValidationError(f"a stream event is not JSON{detail}", provider=provider)


def raised_inside(exc: BaseException) -> Optional[AisuiteLikeError]:
    """An error of ours that code inside the HTTP stack raised (a cassette of
    ``aisuite_like.testing`` that refuses a request) and the SDK wrapped in its connection
    error: that error, to raise as it is (it says what to do; it is no connection failure to
    retry). It is detached from the wrapper, so raising it ``from`` the wrapper makes no
    cycle. None for anything else."""
    cause = exc.__cause__
    if isinstance(cause, AisuiteLikeError) and not isinstance(exc, AisuiteLikeError):
        exc.__cause__ = exc.__context__ = None
        return cause
    return None


def host_of(exc: BaseException) -> Optional[str]:
    """``host:port`` an SDK / transport exception's request went to (httpx2 and aiohttp
    errors, and the SDK errors wrapping them), or None when it does not say."""
    seen: set[int] = set()
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        try:
            request = getattr(current, "request", None)  # httpx2 raises when it has none
        except Exception:
            request = None
        url = getattr(request, "url", None)
        host = getattr(url, "host", None)
        port = getattr(url, "port", None)
        if not host:  # aiohttp.ClientConnectorError
            host, port = getattr(current, "host", None), getattr(current, "port", None)
        if isinstance(host, str) and host:
            return f"{host}:{port}" if port else host
        current = current.__cause__ or current.__context__
    return None


def host_of_url(url: Any) -> str:
    """``host:port`` (or ``host``) of a URL, for messages; "" when it has none."""
    if not isinstance(url, str):
        return ""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return parts.netloc.rpartition("@")[2]
    except ValueError:
        return ""


def json_schema_format(response_format: Any, provider: str,
                       api: str) -> Optional[dict[str, Any]]:
    """The portable ``response_format`` for APIs that only do schema-bound JSON: None for
    none / ``text``; the ``json_schema`` spec (its ``schema`` checked to be a dict) for
    ``json_schema``; ``json_object`` and anything else raise, naming ``api``."""
    if response_format is None:
        return None
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "text":
        return None
    if kind == "json_schema":
        spec = response_format.get("json_schema") or {}
        if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
            raise UnsupportedParameterError(
                "response_format json_schema needs json_schema.schema (a JSON schema dict)",
                parameter="response_format", provider=provider)
        return spec
    if kind == "json_object":
        raise unsupported(
            provider, "response_format",
            f"json_object (JSON without a schema) has no {api} equivalent; pass "
            "response_format={'type': 'json_schema', 'json_schema': {'name': ..., 'schema': "
            "{...}}} for native structured output, or ask for JSON in the prompt")
    raise unsupported(provider, "response_format",
                      f"expected a dict with type text / json_schema, got {response_format!r}")


# --- redirects: never to another origin (docs/reliability.md#where-requests-go) ------------

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
def redirect_error(provider: str, url: str, status: Any, location: Optional[str],
                   setting: str = "base_url") -> Optional[RedirectError]:
    """The ``RedirectError`` for a reply ``status`` + ``location`` to a request sent to
    ``url`` when it redirects to another origin (scheme, host or port), else None (not a
    redirect, or one within the origin, which the transport may follow). Only the origins are
    named: a path or query may hold a token. ``setting`` is the config key of the endpoint."""
    if status not in _REDIRECT_STATUSES or not location:
        return None
    from urllib.parse import urljoin

    try:
        here = origin(url)
        there = origin(urljoin(url, location.strip()))
    except ValueError:  # a malformed Location: the transport reports it
        return None
    if there == here:
        return None
    source, target = origin_text(here), origin_text(there)
    return RedirectError(
        f"{provider} at {source} answered {status}, redirecting to another host or port: "
        f"{target}. The redirect was not followed: neither the credentials nor the request "
        f"were sent there. If {target} is the endpoint to use, configure it as {setting}.",
        provider=provider, status_code=status, from_origin=source, to_origin=target)


def redirect_hooks(provider: str, *, is_async: bool, limits: Optional[BodyLimits] = None
                   ) -> dict[str, list[Callable[..., Any]]]:
    """``event_hooks`` for an httpx2 client: a reply redirecting to another origin raises
    ``RedirectError`` before the client follows it (httpx2 runs response hooks first); every
    reply's decoded size is bounded by ``limits`` (``body_limits.bound_response``)."""
    bounds = limits if limits is not None else DEFAULT_LIMITS

    def check(response: Any) -> None:
        bound_response(response, bounds, provider)
        if response.status_code not in _REDIRECT_STATUSES:  # every reply: one set lookup
            return
        error = redirect_error(provider, str(response.request.url), response.status_code,
                               response.headers.get("location"))
        if error is not None:
            raise error

    async def acheck(response: Any) -> None:
        check(response)

    return {"response": [acheck if is_async else check]}


async def _closing(aclose: Callable[[], Awaitable[Any]], closed: Callable[[], bool]
                   ) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        if not closed():
            await aclose()


def close_at_loop_shutdown(aclose: Callable[[], Awaitable[Any]],
                           closed: Callable[[], bool]) -> Any:
    """Have the running event loop call ``aclose()`` (unless ``closed()``) when it shuts down:
    ``asyncio.run`` closes the async generators started on its loop before it closes the
    loop, so the connections a sync client's ``acreate`` opened on that loop are closed there,
    on their own loop, whether or not the client is closed in time. Returns the generator,
    which the caller keeps (the loop holds it weakly)."""
    gen = _closing(aclose, closed)
    try:
        gen.asend(None).send(None)  # started on this loop: its shutdown hook now knows it
    except StopIteration:
        pass
    return gen


def own_error_inside(exc: BaseException) -> Optional[AisuiteLikeError]:
    """Our own error (a hook's ``RedirectError``) that an SDK wrapped in its connection error,
    or None. It is detached from the wrapper, so ``raise error from exc`` makes no cycle."""
    outer, inner = exc, exc.__cause__ or exc.__context__
    seen = {id(exc)}
    while inner is not None and id(inner) not in seen:
        if isinstance(inner, AisuiteLikeError):
            outer.__cause__ = outer.__context__ = None
            return inner
        seen.add(id(inner))
        outer, inner = inner, inner.__cause__ or inner.__context__
    return None


def redirect_middleware(provider: str) -> Callable[..., Any]:
    """The same check as an aiohttp client middleware (aiohttp >= 3.12 runs middlewares for
    each request of a redirect chain)."""

    async def middleware(request: Any, handler: Any) -> Any:
        response = await handler(request)
        error = redirect_error(provider, str(request.url), response.status,
                               response.headers.get("Location"))
        if error is not None:
            response.release()
            raise error
        return response

    return middleware
# --- server-sent events (one decoder for every SSE family) ---------------------------------

#: The most bytes a plain JSON body answering a stream request is read to (a reply of a
#: model fits many times over; more is no reply).
MAX_PLAIN_BODY = 32 * 1024 * 1024

#: What ``PlainBody.route`` returns for bytes it kept (a JSON document being read).
_KEPT = b""


class PlainBody:
    """Whether the body of a stream request is SSE or a plain JSON document, as some servers
    answer a stream request (one reply, or an error object, not streamed): told by its first
    byte that is not whitespace (SSE lines start with a field name or ``:``, JSON with ``{``
    or ``[``). Sans-IO: the stream decoders of the families pass each read through
    :meth:`route` and ask :meth:`document` at the end."""

    __slots__ = ("provider", "_mode", "_kept", "_size")

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._mode: Optional[str] = None  # None: not told yet; "sse"; "json"
        self._kept: list[bytes] = []
        self._size = 0

    @property
    def is_json(self) -> bool:
        return self._mode == "json"

    def route(self, data: bytes) -> bytes:
        """The bytes for the SSE decoder (empty while a JSON document is being read, or
        while only whitespace has come)."""
        if self._mode == "sse":
            return data
        if self._mode is None:
            first = data.lstrip()[:1]
            if not first:
                self._keep(data)
                return _KEPT
            self._mode = "json" if first in (b"{", b"[") else "sse"
            if self._mode == "sse":
                kept, self._kept, self._size = b"".join(self._kept), [], 0
                return kept + data
        self._keep(data)
        return _KEPT

    def rest(self) -> bytes:
        """At the end of a body that was whitespace only: what was kept, for the decoder."""
        if self._mode is None:
            kept, self._kept = b"".join(self._kept), []
            return kept
        return _KEPT

    def document(self) -> Any:
        """The JSON document of the body (only when ``is_json``), once the body has ended:
        a document that does not parse is a malformed reply."""
        try:
            return loads_json(b"".join(self._kept))
        except ValueError as exc:
            msg = getattr(exc, "msg", None)
            detail = f" ({msg})" if isinstance(msg, str) else ""
            raise APIResponseValidationError(
                f"a stream request was answered with a body that is neither SSE nor JSON"
                f"{detail}", provider=self.provider) from None

    def _keep(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > MAX_PLAIN_BODY:
            raise APIResponseValidationError(
                f"a stream request was answered with a plain body over {MAX_PLAIN_BODY} "
                "bytes", provider=self.provider)
        self._kept.append(data)


#: One event: its ``event:`` name (None when it has none) and its data text.
SSEEvent = tuple[Optional[str], str]

_SSE_FIELDS = frozenset({b"data", b"event", b"id", b"retry"})


class SSEDecoder:
    """Server-sent events (the WHATWG format) from the bytes of a reply, sans-IO: the
    transports of the SSE families (openai and the compatible services, anthropic, google)
    only move bytes into :meth:`feed`.

    Lines end in LF, CR LF or a lone CR (also when a CR and its LF arrive in two reads). A
    blank line ends an event; an event carrying no ``data:`` (only ``id:`` and / or
    ``retry:``) dispatches nothing; comment lines (``: keep-alive``), ``id:`` and ``retry:``
    are read and dropped, as are unknown fields. Data lines must be UTF-8 (an event's data is
    JSON text): one that is not raises ``APIResponseValidationError``, never a bare
    ``UnicodeDecodeError`` and never silently replaced characters.

    ``raw_lines`` (Gemini): a line that is no SSE field is collected as raw text and
    dispatched (as data of an unnamed event) at the next blank line, field line or the end of
    the body, as google-genai reads an error object sent without SSE framing."""

    __slots__ = ("provider", "_raw_lines", "_tail", "_cr", "_event", "_data", "_raw")

    def __init__(self, provider: str, *, raw_lines: bool = False) -> None:
        self.provider = provider
        self._raw_lines = raw_lines
        self._tail = b""  # the start of a line whose end has not arrived
        self._cr = False  # the last read ended in CR: an LF starting the next one is its pair
        self._event: Optional[bytes] = None
        self._data: list[bytes] = []
        self._raw: list[bytes] = []

    def feed(self, data: bytes) -> Iterator[SSEEvent]:
        """The events that ``data`` (the next bytes of the body) completes, in order, one at a
        time (an event that cannot be read raises after the ones before it were taken)."""
        if self._cr:
            self._cr = False
            if data[:1] == b"\n":
                data = data[1:]
        if b"\r" in data:
            self._cr = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if self._tail:
            data = self._tail + data
        lines = data.split(b"\n")
        self._tail = lines.pop()
        events: list[SSEEvent] = []
        for line in lines:
            self._line(line, events)
            if events:
                yield from events
                events.clear()

    def end(self) -> list[SSEEvent]:
        """The end of the body: the event it ended in the middle of (no blank line after
        it), if any. A caller decides what that means (a complete event, or a cut one)."""
        events: list[SSEEvent] = []
        if self._tail:
            tail, self._tail = self._tail, b""
            self._line(tail, events)
        self._line(b"", events)
        return events

    def _line(self, line: bytes, events: list[SSEEvent]) -> None:
        if not line:
            if self._raw:
                events.append(self._dispatch_raw())
            if self._data:
                events.append(self._dispatch())
            self._event = None
            return
        if line[:1] == b":":  # a comment, e.g. a keep-alive
            return
        name, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if self._raw_lines and name not in _SSE_FIELDS:
            self._raw.append(line)
            return
        if self._raw:
            events.append(self._dispatch_raw())
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value
        # id:, retry: and unknown fields carry nothing we use.

    def _dispatch(self) -> SSEEvent:
        data, self._data = self._data, []
        name, self._event = self._event, None
        raw = data[0] if len(data) == 1 else b"\n".join(data)
        return (None if name is None else self._text(name)), self._text(raw)

    def _dispatch_raw(self) -> SSEEvent:
        raw, self._raw = self._raw, []
        return None, self._text(b"\n".join(raw))

    def _text(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise APIResponseValidationError(
                f"a stream event is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset "
                f"{exc.start} of its data)", provider=self.provider) from None


def sse_json(data: str, provider: str, *, at_end: bool = False) -> Any:
    """An event's data -> its JSON value. Data that does not parse is a malformed reply
    (``APIResponseValidationError``) or, when the JSON is cut off, or the body ended inside
    the event (``at_end``), a lost connection (``APIConnectionError``)."""
    try:
        return loads_json(data)
    except ValueError as exc:
        if at_end:
            raise APIConnectionError(
                f"the {provider} stream ended in the middle of an event; the connection was "
                "probably lost", provider=provider) from None
        raise bad_stream_json(exc, provider) from None


#: What ``StreamJson.parse`` gives for an event whose JSON stops short: skip it (what it
#: means is known only once the body goes on or ends).
CUT_EVENT = object()


class StreamJson:
    """The events of ONE stream -> their JSON, telling a bad event from a lost connection.
    An event whose JSON stops short is a connection cut mid-event only when the body ends
    there; when the stream goes on after it (another event comes), the server sent a bad
    event: ``APIResponseValidationError``, like any other event that is not JSON."""

    __slots__ = ("provider", "_cut")

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._cut = False

    def went_on(self) -> None:
        """Another event came (``data: [DONE]`` included)."""
        if self._cut:
            raise APIResponseValidationError(
                "a stream event is not JSON (it stops short, and the stream went on after "
                "it)", provider=self.provider)

    def parse(self, data: str, *, at_end: bool = False) -> Any:
        """An event's data -> its JSON value, or ``CUT_EVENT`` (see the class)."""
        self.went_on()
        try:
            return loads_json(data)
        except ValueError as exc:
            if at_end:
                raise APIConnectionError(
                    f"the {self.provider} stream ended in the middle of an event; the "
                    "connection was probably lost", provider=self.provider) from None
            if json_cut_short(exc):
                self._cut = True
                return CUT_EVENT
            raise bad_stream_json(exc, self.provider) from None

    def end(self) -> None:
        """The body ended: an event cut short just before is a lost connection."""
        if self._cut:
            raise APIConnectionError(
                f"the {self.provider} stream was cut in the middle of an event (its JSON is "
                "incomplete); the connection was probably lost", provider=self.provider)


def transport_error(exc: BaseException, provider: str,
                    secrets: tuple[Optional[str], ...] = (), *,
                    host: str = "") -> Optional[APIError]:
    """An httpx2 / httpx / aiohttp exception raised while sending or reading a reply -> our
    typed error naming the host (``APITimeoutError`` for a timeout, else
    ``APIConnectionError``); None for any other exception. ``host``: the one to name when
    the exception does not say (most aiohttp errors)."""
    import sys

    from ..core.errors import APITimeoutError, redacted

    host = host_of(exc) or host
    where = f" at {host}" if host else ""
    for module_name in ("httpx2", "httpx"):
        httpx = sys.modules.get(module_name)
        if httpx is None:
            continue
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(
                f"request to {provider}{where} timed out ({type(exc).__name__})",
                provider=provider)
        if isinstance(exc, (httpx.TransportError, httpx.StreamError)):
            return APIConnectionError(
                redacted(f"connection to {provider}{where} failed: {type(exc).__name__}: {exc}",
                        secrets), provider=provider)
    if isinstance(exc, TimeoutError):  # aiohttp
        return APITimeoutError(f"request to {provider}{where} timed out ({type(exc).__name__})",
                               provider=provider)
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ClientError):
        return APIConnectionError(
            redacted(f"connection to {provider}{where} failed: {type(exc).__name__}: {exc}",
                    secrets), provider=provider)
    return None


# --- the attempt deadline at the sync transports' I/O (see aisuite_like/_retry.py) ---------
#
# A sync attempt cannot be interrupted from outside, so the deadline is enforced where the
# time is spent: every connect, write and read of the attempt gets only the time left to it
# (``_retry.DEADLINE``, set by the drivers while an attempt runs; outside one, I/O is left
# alone). Two seams, one rule: the httpcore2 network backend of the httpx2 clients (openai,
# anthropic, google; TLS included, since the backend sits above it), and the urllib3 sockets
# of botocore's connections (Bedrock).


def _time_left(timeout: Optional[float], expired: Callable[[], BaseException]
               ) -> Optional[float]:
    """``timeout`` narrowed to the time left to the running attempt; ``expired()`` is
    raised when none is left."""
    from .retry import DEADLINE

    deadline = DEADLINE.get()
    if deadline is None:
        return timeout
    import time

    left = deadline - time.monotonic()
    if left <= 0:
        raise expired()
    return left if timeout is None or left < timeout else timeout


def _httpcore_timeout(kind: str) -> Callable[[], BaseException]:
    def expired() -> BaseException:
        import httpcore2

        error: BaseException = getattr(httpcore2, kind)(
            "the attempt's timeout ran out (it bounds the whole attempt)")
        return error
    return expired


_CONNECT_EXPIRED = _httpcore_timeout("ConnectTimeout")
_READ_EXPIRED = _httpcore_timeout("ReadTimeout")
_WRITE_EXPIRED = _httpcore_timeout("WriteTimeout")


class _DeadlineStream:
    """An httpcore2 network stream whose reads and writes end by the attempt's deadline."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        return self._inner.read(max_bytes, _time_left(timeout, _READ_EXPIRED))  # type: ignore[no-any-return]

    def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        self._inner.write(buffer, _time_left(timeout, _WRITE_EXPIRED))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: Optional[str] = None,
                  timeout: Optional[float] = None) -> "_DeadlineStream":
        return _DeadlineStream(self._inner.start_tls(
            ssl_context, server_hostname, _time_left(timeout, _CONNECT_EXPIRED)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """An httpcore2 (sync) network backend whose connections honour the attempt deadline."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: Optional[float] = None,
                    local_address: Optional[str] = None, socket_options: Any = None
                    ) -> _DeadlineStream:
        return _DeadlineStream(self._inner.connect_tcp(
            host, port, _time_left(timeout, _CONNECT_EXPIRED), local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: Optional[float] = None,
                            socket_options: Any = None) -> _DeadlineStream:
        return _DeadlineStream(self._inner.connect_unix_socket(
            path, _time_left(timeout, _CONNECT_EXPIRED), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bound_sync_io(http_client: Any) -> bool:
    """Make a sync ``httpx2.Client`` honour the attempt deadline: the network backend of its
    connection pools (the default transport and any mounted one, e.g. a proxy's) is wrapped
    so each connect, write and read gets only the time left. Call it before the client's
    first request (connections it already opened keep their backend). True when every
    transport has it; False when one has no httpcore2 pool (a mock or custom transport): its
    reads are bounded by the timeout only."""
    transports = [getattr(http_client, "_transport", None),
                  *(getattr(http_client, "_mounts", None) or {}).values()]
    complete = True
    for transport in transports:
        if transport is None:
            continue
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, _DeadlineBackend):
            continue
        if backend is None or not callable(getattr(backend, "connect_tcp", None)):
            complete = False
            continue
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return complete


def _narrow_socket(sock: Any) -> Any:
    """Narrow a socket's timeout to the time left to the attempt; returns the timeout to
    restore, or ``_NO_DEADLINE`` when it was left as it is: no attempt deadline applies, or
    the socket's own timeout already ends a wait within ``_SLACK`` of the deadline. (Most
    sends and receives of an attempt run early in it: leaving the timeout alone spares them
    two ``settimeout`` calls each, which cost Bedrock's thread pool 8 % of its throughput.)"""
    global _DEADLINE
    if _DEADLINE is None:
        from .retry import DEADLINE

        _DEADLINE = DEADLINE
    deadline = _DEADLINE.get()
    if deadline is None:
        return _NO_DEADLINE
    left = deadline - _monotonic()
    if left <= 0:
        raise TimeoutError("timed out: the attempt's timeout ran out (it bounds the whole "
                           "attempt)")
    base = sock.gettimeout()
    if base is not None and left >= base - min(_SLACK * base, 1.0):
        return _NO_DEADLINE
    sock.settimeout(left)
    return base


_NO_DEADLINE = object()
#: The attempt-deadline context variable of providers/retry.py (looked up on first use).
_DEADLINE: Any = None
#: How far past the deadline a wait bounded by the socket's own timeout may end: 5 % of that
#: timeout, at most 1 s.
_SLACK = 0.05
_socket_classes: dict[type, type] = {}


def _deadline_socket_class(cls: type) -> type:
    """A subclass of ``cls`` (``socket.socket`` or ``ssl.SSLSocket``) whose sends and receives
    end by the attempt's deadline; no new slots, so an instance's class can be switched."""
    bounded = _socket_classes.get(cls)
    if bounded is not None:
        return bounded

    def bounded_method(name: str) -> Callable[..., Any]:
        method = getattr(cls, name)

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            base = _narrow_socket(self)
            if base is _NO_DEADLINE:
                return method(self, *args, **kwargs)
            try:
                return method(self, *args, **kwargs)
            finally:
                self.settimeout(base)
        call.__name__ = name
        return call

    namespace: dict[str, Any] = {name: bounded_method(name)
                                 for name in ("recv", "recv_into", "send", "sendall")}
    if "__slots__" in cls.__dict__:
        namespace["__slots__"] = ()
    bounded = _socket_classes[cls] = type(f"Deadline{cls.__name__}", (cls,), namespace)
    return bounded


def bound_socket(sock: Any) -> bool:
    """Switch a connected ``socket.socket`` / ``ssl.SSLSocket`` (exactly those classes) to
    the subclass that honours the attempt deadline; other socket objects are left as they
    are (False)."""
    import socket
    import ssl

    cls = type(sock)
    if cls in _socket_classes.values():
        return True
    if cls is not socket.socket and cls is not ssl.SSLSocket:
        return False
    sock.__class__ = _deadline_socket_class(cls)
    return True


_pool_classes: dict[type, type] = {}


def _deadline_pool_class(pool_cls: type) -> type:
    """A urllib3 connection pool class whose connections' sockets honour the deadline."""
    bounded = _pool_classes.get(pool_cls)
    if bounded is None:
        connection_cls: Any = pool_cls.ConnectionCls  # type: ignore[attr-defined]

        class DeadlineConnection(connection_cls):  # type: ignore[misc]
            def connect(self) -> None:
                super().connect()
                bound_socket(self.sock)

        bounded = _pool_classes[pool_cls] = type(
            f"Deadline{pool_cls.__name__}", (pool_cls,), {"ConnectionCls": DeadlineConnection})
    return bounded


def bound_pool_classes(classes: Any) -> bool:
    """Make the connections of a urllib3 session honour the attempt deadline: ``classes``,
    its connection-pool classes by scheme (botocore's, reached by
    providers/bedrock/_sdk_seam.py), get connections whose sockets bound each send and
    receive by the time left. False when ``classes`` is not such a dict."""
    if not isinstance(classes, dict) or not classes:
        return False
    for scheme, pool_cls in list(classes.items()):  # the session's managers share this dict
        if pool_cls not in _pool_classes.values():
            classes[scheme] = _deadline_pool_class(pool_cls)
    return True
