"""What a call's HTTP reply looked like (status, headers, request id), for
``client.chat.completions.with_raw_response`` (docs/client.md, "Raw responses").

Nothing is recorded unless a caller asked: ``with_raw_response`` sets :data:`CAPTURE` to an
:class:`ExchangeCapture` for the duration of its call, and each family's transport, having a
successful reply in hand, hands its status and headers to :func:`note` (one context-variable
read when nobody asked). The retry drivers count their retries into it the same way, only when
they retry. Imports nothing of the package.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, ItemsView, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, Optional, TypeVar

T = TypeVar("T")

__all__ = ["CAPTURE", "ExchangeCapture", "HTTPExchange", "Headers", "note", "note_response",
           "note_retry", "opened", "aopened"]


class Headers(Mapping[str, str]):
    """Response headers, looked up case-insensitively (as ``httpx2.Headers``), for the
    families whose SDK hands them over as a plain dict (google-genai, botocore)."""

    __slots__ = ("_items",)

    def __init__(self, items: Optional[Mapping[str, Any]] = None) -> None:
        self._items = {str(k).lower(): str(v) for k, v in (items or {}).items()}

    def __getitem__(self, key: str) -> str:
        return self._items[key.lower()]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> ItemsView[str, str]:  # the dict's own: a routed reply reads them all
        return self._items.items()

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class HTTPExchange:
    """A successful HTTP reply as the transport saw it: ``status_code``, ``headers`` (a
    case-insensitive mapping), ``request_id`` (the provider's request id header, or None),
    ``url`` (where the request went, when the SDK says) and ``http_response`` (the SDK's
    ``httpx2.Response`` where it exposes one, else None)."""

    __slots__ = ("status_code", "headers", "request_id", "_url", "http_response")

    def __init__(self, status_code: int, headers: Mapping[str, str], *,
                 request_id: Optional[str] = None, url: Optional[str] = None,
                 http_response: Any = None) -> None:
        self.status_code = status_code
        self.headers = headers
        self.request_id = request_id
        self._url = url
        self.http_response = http_response

    @property
    def url(self) -> Optional[str]:
        # an httpx2 URL is written out only when asked: a routed call records every reply
        if self._url is None and self.http_response is not None:
            self._url = str(self.http_response.url)
        return self._url

    def __repr__(self) -> str:
        return (f"HTTPExchange(status_code={self.status_code!r}, "
                f"request_id={self.request_id!r}, url={self.url!r})")


class ExchangeCapture:
    """What one ``with_raw_response`` call collects: the last successful reply's
    :class:`HTTPExchange` (a tool-runner call makes several; fallbacks try several models)
    and the number of retries the retry policy made."""

    __slots__ = ("exchange", "retries")

    def __init__(self) -> None:
        self.exchange: Optional[HTTPExchange] = None
        self.retries = 0


#: The capture of the ``with_raw_response`` call running in this context, or None.
CAPTURE: ContextVar[Optional[ExchangeCapture]] = ContextVar("aisuite_like_exchange_capture",
                                                             default=None)


def note(status_code: int, headers: Mapping[str, str], *, request_id: Optional[str] = None,
         url: Optional[str] = None, http_response: Any = None) -> None:
    """Record a successful reply for a ``with_raw_response`` call, if one is running."""
    capture = CAPTURE.get()
    if capture is not None:
        capture.exchange = HTTPExchange(status_code, headers, request_id=request_id, url=url,
                                        http_response=http_response)


def note_reply(reply: Any, request_id: Optional[str] = None) -> None:
    """Record a native transport's successful reply (its ``status``, ``headers`` and
    ``url``) for a ``with_raw_response`` call, if one is running."""
    if CAPTURE.get() is not None:
        note(reply.status, reply.headers, request_id=request_id, url=reply.url)


def note_response(http_response: Any, request_id: Optional[str] = None) -> None:
    """Record a successful ``httpx2.Response`` (its status, headers and URL are read only
    when a ``with_raw_response`` call is running)."""
    capture = CAPTURE.get()
    if capture is not None:
        capture.exchange = HTTPExchange(
            http_response.status_code, http_response.headers, request_id=request_id,
            http_response=http_response)


def opened(open_stream: Callable[[], T]) -> tuple[T, Any]:
    """``open_stream()`` (which starts a stream: its HTTP reply arrives) and that reply, for
    the stream's ``response``: the ``httpx2.Response`` where the SDK hands one over, else
    the :class:`HTTPExchange` (``status_code``, ``headers``, ``url``); None when no HTTP
    reply was made (a cache hit, a provider of your own). A ``with_raw_response`` call
    running outside still records it."""
    outer = CAPTURE.get()
    capture = ExchangeCapture()
    token = CAPTURE.set(capture)
    try:
        result = open_stream()
    finally:
        CAPTURE.reset(token)
        _hand_on(capture, outer)
    return result, _response_of(capture.exchange)


async def aopened(open_stream: Callable[[], Awaitable[T]]) -> tuple[T, Any]:
    """Async twin of :func:`opened`."""
    outer = CAPTURE.get()
    capture = ExchangeCapture()
    token = CAPTURE.set(capture)
    try:
        result = await open_stream()
    finally:
        CAPTURE.reset(token)
        _hand_on(capture, outer)
    return result, _response_of(capture.exchange)


def _hand_on(capture: ExchangeCapture, outer: Optional[ExchangeCapture]) -> None:
    if outer is not None:
        if capture.exchange is not None:
            outer.exchange = capture.exchange
        outer.retries += capture.retries


def _response_of(exchange: Optional[HTTPExchange]) -> Any:
    if exchange is None:
        return None
    return exchange.http_response if exchange.http_response is not None else exchange


def note_retry() -> None:
    """Count a retry for a ``with_raw_response`` call, if one is running."""
    capture = CAPTURE.get()
    if capture is not None:
        capture.retries += 1
