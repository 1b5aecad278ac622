"""``client.chat.completions.with_raw_response``: the OpenAI SDK's raw-response prefix
(docs/client.md, "Raw responses").

``with_raw_response.create(...)`` makes the same call as ``create(...)`` while a
``core.exchange.ExchangeCapture`` is set, so each family's transport records the HTTP reply
it received (status, headers, request id); the result is a :class:`RawResponse` whose
``parse()`` gives what ``create`` would have returned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, Optional, TypeVar

from ..core.exchange import CAPTURE, ExchangeCapture, Headers, HTTPExchange

__all__ = ["RawResponse", "RawCompletions", "AsyncRawCompletions", "StreamingCompletions",
           "StreamedRawResponse", "AsyncStreamedRawResponse"]

R = TypeVar("R")

_NO_HEADERS = Headers()


class RawResponse(Generic[R]):
    """What ``with_raw_response.create(...)`` returns, as the OpenAI SDK's
    ``LegacyAPIResponse``: ``status_code``, ``headers`` (case-insensitive), ``request_id``
    (the provider's request-id header), ``url``, ``retries_taken`` and ``http_response``
    (the ``httpx2.Response`` on the openai, anthropic and google families when the SDK hands
    one over; else an object with ``status_code``, ``headers`` and ``url``); ``parse()`` is
    what ``create`` would have returned (a ``ChatCompletionResponse``, or the started
    ``Stream`` with ``stream=True``).

    With ``max_turns`` the reply is the last model call's; with ``fallbacks`` the model's
    that answered. A provider that made no HTTP exchange (a provider object of your own)
    leaves ``status_code`` and ``request_id`` None and ``headers`` empty. The offline
    providers of ``aisuite_like.testing`` answer 200 with an ``x-request-id`` header that is
    the response's id."""

    __slots__ = ("_parsed", "_exchange", "retries_taken")

    def __init__(self, parsed: R, exchange: Optional[HTTPExchange], retries_taken: int = 0
                 ) -> None:
        self._parsed = parsed
        self._exchange = exchange
        #: Retries the retry policy made during the call (0: none).
        self.retries_taken = retries_taken

    def parse(self) -> R:
        """What ``create(...)`` would have returned."""
        return self._parsed

    @property
    def status_code(self) -> Optional[int]:
        return self._exchange.status_code if self._exchange is not None else None

    @property
    def headers(self) -> Mapping[str, str]:
        return self._exchange.headers if self._exchange is not None else _NO_HEADERS

    @property
    def request_id(self) -> Optional[str]:
        return self._exchange.request_id if self._exchange is not None else None

    @property
    def url(self) -> Optional[str]:
        return self._exchange.url if self._exchange is not None else None

    @property
    def http_response(self) -> Any:
        exchange = self._exchange
        if exchange is None:
            return None
        return exchange.http_response if exchange.http_response is not None else exchange

    def __repr__(self) -> str:
        return (f"<RawResponse status_code={self.status_code!r} request_id={self.request_id!r}"
                f" parsed={type(self._parsed).__name__}>")


def _check(kwargs: Mapping[str, Any]) -> None:
    if kwargs.get("max_turns") is not None and kwargs.get("stream"):
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            "with_raw_response cannot take stream=True with max_turns: a streamed tool run "
            "starts its model calls as you iterate, after create() has returned; call "
            "with_raw_response.create without stream=True, or create(...) without "
            "with_raw_response", parameter="stream")


def captured(call: Callable[[], R]) -> RawResponse[R]:
    """``call()`` with the HTTP reply it receives recorded."""
    capture = ExchangeCapture()
    token = CAPTURE.set(capture)
    try:
        parsed = call()
    finally:
        CAPTURE.reset(token)
    return RawResponse(parsed, capture.exchange, capture.retries)


async def acaptured(call: Callable[[], Awaitable[R]]) -> RawResponse[R]:
    """Async twin of :func:`captured`."""
    capture = ExchangeCapture()
    token = CAPTURE.set(capture)
    try:
        parsed = await call()
    finally:
        CAPTURE.reset(token)
    return RawResponse(parsed, capture.exchange, capture.retries)


class RawCompletions:
    """``client.chat.completions.with_raw_response``: ``create`` / ``parse`` (and the async
    ``acreate`` / ``aparse`` of the sync client) returning a :class:`RawResponse`."""

    def __init__(self, completions: Any) -> None:  # the client's chat.completions
        self._completions = completions

    def create(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        """``create(...)`` as a :class:`RawResponse`."""
        _check(kwargs)
        return captured(lambda: self._completions.create(model, messages, **kwargs))

    def parse(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        """``parse(...)`` as a :class:`RawResponse`."""
        return captured(lambda: self._completions.parse(model, messages, **kwargs))

    async def acreate(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        _check(kwargs)
        return await acaptured(lambda: self._completions.acreate(model, messages, **kwargs))

    async def aparse(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        return await acaptured(lambda: self._completions.aparse(model, messages, **kwargs))


class AsyncRawCompletions:
    """``aclient.chat.completions.with_raw_response``: awaited ``create`` / ``parse``."""

    def __init__(self, completions: Any) -> None:  # the async client's chat.completions
        self._completions = completions

    async def create(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        """``await create(...)`` as a :class:`RawResponse`."""
        _check(kwargs)
        return await acaptured(lambda: self._completions.create(model, messages, **kwargs))

    async def parse(self, model: str, messages: Any, **kwargs: Any) -> RawResponse[Any]:
        """``await parse(...)`` as a :class:`RawResponse`."""
        return await acaptured(lambda: self._completions.parse(model, messages, **kwargs))


# --- with_streaming_response: the reply's body, read through ------------------------------


def _body_of(raw: RawResponse[Any]) -> bytes:
    """The body of the reply ``raw`` recorded: the bytes the server sent where the family's
    SDK hands the HTTP response over (openai, anthropic), else the response as JSON."""
    http = raw._exchange.http_response if raw._exchange is not None else None
    content = getattr(http, "content", None) if http is not None else None
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    return raw.parse().to_json(indent=None).encode()  # type: ignore[no-any-return]


def _refuse_stream(kwargs: Mapping[str, Any]) -> None:
    if kwargs.get("stream"):
        raise TypeError("with_streaming_response.create(...) reads a whole reply's body; for "
                        "the chunks as they arrive call create(..., stream=True) (its headers: "
                        "with_raw_response.create(..., stream=True))")
    _check(kwargs)


class StreamedRawResponse:
    """What ``with_streaming_response.create(...)`` gives inside its ``with`` block, as the
    OpenAI SDK's ``APIResponse``: ``headers``, ``status_code``, ``request_id``,
    ``http_response``, ``parse()``, and the reply's body: ``read()``, ``text``, ``json()``,
    ``iter_bytes()``, ``iter_text()``, ``iter_lines()`` (the bytes the server sent on openai and
    anthropic; the response as JSON on the families whose SDK hands over no body)."""

    def __init__(self, raw: RawResponse[Any]) -> None:
        self._raw = raw
        self._body: Optional[bytes] = None

    headers = property(lambda self: self._raw.headers)
    status_code = property(lambda self: self._raw.status_code)
    request_id = property(lambda self: self._raw.request_id)
    http_response = property(lambda self: self._raw.http_response)

    def parse(self) -> Any:
        return self._raw.parse()

    def read(self) -> bytes:
        if self._body is None:
            self._body = _body_of(self._raw)
        return self._body

    @property
    def text(self) -> str:
        return self.read().decode("utf-8", errors="replace")

    def json(self) -> Any:
        import json

        return json.loads(self.read())

    def iter_bytes(self, chunk_size: Optional[int] = None) -> Any:
        body = self.read()
        size = chunk_size or len(body) or 1
        return (body[i:i + size] for i in range(0, len(body), size))

    def iter_text(self, chunk_size: Optional[int] = None) -> Any:
        return (chunk.decode("utf-8", errors="replace")
                for chunk in self.iter_bytes(chunk_size))

    def iter_lines(self) -> Any:
        return iter(self.text.splitlines())

    def close(self) -> None:
        """Nothing to release: the reply was read whole."""

    def __enter__(self) -> "StreamedRawResponse":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncStreamedRawResponse(StreamedRawResponse):
    """Async ``StreamedRawResponse``: ``await read()``, ``async for line in iter_lines()``."""

    async def read(self) -> bytes:  # type: ignore[override]
        return StreamedRawResponse.read(self)

    @property
    def text(self) -> str:
        return StreamedRawResponse.read(self).decode("utf-8", errors="replace")

    async def json(self) -> Any:
        import json

        return json.loads(StreamedRawResponse.read(self))

    async def iter_bytes(self, chunk_size: Optional[int] = None) -> Any:
        for chunk in StreamedRawResponse.iter_bytes(self, chunk_size):
            yield chunk

    async def iter_text(self, chunk_size: Optional[int] = None) -> Any:
        for chunk in StreamedRawResponse.iter_text(self, chunk_size):
            yield chunk

    async def iter_lines(self) -> Any:
        for line in self.text.splitlines():
            yield line


class _StreamingCall:
    """``with_streaming_response.create(...)``: a context manager (``with`` for the sync
    client, ``async with`` for either) that makes the call on entry."""

    def __init__(self, call: Callable[[], Any], acall: Optional[Callable[[], Any]]) -> None:
        self._call = call
        self._acall = acall

    def __enter__(self) -> StreamedRawResponse:
        return StreamedRawResponse(captured(self._call))

    def __exit__(self, *exc: Any) -> None:
        return None

    async def __aenter__(self) -> AsyncStreamedRawResponse:
        assert self._acall is not None
        return AsyncStreamedRawResponse(await acaptured(self._acall))

    async def __aexit__(self, *exc: Any) -> None:
        return None


class StreamingCompletions:
    """``client.chat.completions.with_streaming_response``: ``create(...)`` as a context
    manager giving the reply's headers and body (docs/client.md, "Raw responses")."""

    def __init__(self, completions: Any, is_async: bool) -> None:
        self._completions = completions
        self._async = is_async

    def create(self, model: str, messages: Any, **kwargs: Any) -> _StreamingCall:
        _refuse_stream(kwargs)
        completions = self._completions
        if self._async:
            return _StreamingCall(lambda: None,
                                  lambda: completions.create(model, messages, **kwargs))
        return _StreamingCall(lambda: completions.create(model, messages, **kwargs),
                              lambda: completions.acreate(model, messages, **kwargs))
