"""SDK calls written once and performed sync or async (the batches and the endpoints beside
chat use them; docs/architecture.md).

An operation is a generator of ``SdkCall``s (a ``Plan``): it yields the SDK call it needs,
receives the decoded reply, and returns its result. ``run`` performs the calls with the
sync SDK client, ``arun`` with the async one; both go through the provider's retry policy
(``provider._calls``) and error mapping (``provider._error``), as ``create`` does. A
successful reply is recorded for ``with_raw_response`` (``core.exchange``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Optional, TypeVar

from ..core.errors import APIError
from ..core.exchange import CAPTURE, Headers, note, note_response

if TYPE_CHECKING:
    from .base import Provider

__all__ = ["SdkCall", "Plan", "run", "arun", "attempt_of", "aattempt_of", "BinaryReply",
           "native_attempt_of", "anative_attempt_of", "NativeStreamReply", "NativeCalls"]

T = TypeVar("T")


@dataclass(frozen=True)
class SdkCall:
    """One SDK call a family needs: the method at ``path`` on the SDK client (``async_path``
    on the async client when the name differs) called with ``args`` / ``kwargs``. ``read``
    says what the plan receives: ``"raw"`` the SDK's return value, ``"json"`` the decoded
    body of a ``with_raw_response`` reply, ``"bytes"`` its body as a ``BinaryReply``,
    ``"genai"`` the decoded body of a google-genai ``HttpResponse``, ``"stream"`` the
    reply's ``http_response`` with its body not yet read (a ``with_streaming_response``
    context manager is entered for it). ``async_kwargs`` replace ``kwargs`` on the async
    client when they differ."""

    path: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    read: Literal["raw", "json", "bytes", "genai", "stream"] = "json"
    async_path: Optional[str] = None
    async_kwargs: Optional[dict[str, Any]] = None
    #: The call creates something (a provider batch): an attempt whose outcome is unknown (a
    #: timeout or a connection lost once the request may have arrived) is not repeated.
    once: bool = False


class BinaryReply:
    """A reply's body read whole (``read="bytes"``): ``content``, ``content_type``,
    ``headers``."""

    __slots__ = ("content", "content_type", "headers")

    def __init__(self, content: bytes, content_type: str, headers: Any) -> None:
        self.content = content
        self.content_type = content_type
        self.headers = headers


Plan = Generator[SdkCall, Any, T]


def _method(client: Any, path: str) -> Any:
    target = client
    for name in path.split("."):
        target = getattr(target, name)
    return target


def _request_id(headers: Any) -> Optional[str]:
    value = headers.get("x-request-id") or headers.get("request-id")
    return value if isinstance(value, str) else None


def _note_headers(headers: Any) -> None:
    """A reply whose SDK hands over its headers only (errors were raised, so it is a 200)."""
    if headers is not None and CAPTURE.get() is not None:
        found = Headers(headers)
        note(200, found, request_id=_request_id(found) or found.get("x-goog-request-id"))


def _finish(provider: "Provider", call: SdkCall, reply: Any, body: Any) -> Any:
    if call.read == "stream":
        http = reply.http_response
        note_response(http, _request_id(http.headers))
        return http
    if call.read == "genai":
        from ..core.reading import decode_json

        _note_headers(getattr(reply, "headers", None))
        return decode_json(reply.body or "{}", provider.key, status_code=200)
    if call.read == "raw":
        http = getattr(reply, "sdk_http_response", None)  # a google-genai reply's headers
        if http is not None:
            _note_headers(getattr(http, "headers", None))
        return reply
    http = reply.http_response
    request_id = _request_id(http.headers)
    note_response(http, request_id)
    if call.read == "bytes":
        return BinaryReply(bytes(body), http.headers.get("content-type") or
                           "application/octet-stream", http.headers)
    from ..core.reading import decode_json

    return decode_json(body, provider.key, status_code=http.status_code, request_id=request_id)


def attempt_of(provider: "Provider", client: Any) -> Callable[[SdkCall], Any]:
    """One attempt of a call with the sync SDK ``client``, the SDK's errors mapped (a
    :class:`NativeCalls`: on the native transport)."""
    from .base import mapped_errors

    if isinstance(client, NativeCalls):
        return native_attempt_of(provider, client.http, client.to_request)

    def attempt(call: SdkCall) -> Any:
        with mapped_errors(provider._error):  # type: ignore[attr-defined]
            reply = _method(client, call.path)(*call.args, **call.kwargs)
            if call.read == "stream" and hasattr(reply, "__enter__"):
                reply = reply.__enter__()  # with_streaming_response: sends the request
            body = reply.http_response.read() if call.read in ("json", "bytes") else None
        return _finish(provider, call, reply, body)
    return attempt


def aattempt_of(provider: "Provider", client: Any) -> Callable[[SdkCall], Any]:
    """One attempt of a call with the async SDK ``client`` (or :class:`NativeCalls`)."""
    from .base import mapped_errors

    if isinstance(client, NativeCalls):
        return anative_attempt_of(provider, client.http, client.to_request)

    async def attempt(call: SdkCall) -> Any:
        with mapped_errors(provider._error):  # type: ignore[attr-defined]
            kwargs = call.kwargs if call.async_kwargs is None else call.async_kwargs
            reply = _method(client, call.async_path or call.path)(*call.args, **kwargs)
            reply = (await reply.__aenter__() if call.read == "stream"
                     and hasattr(reply, "__aenter__") else await reply)
            body = (await reply.http_response.aread() if call.read in ("json", "bytes")
                    else None)
        return _finish(provider, call, reply, body)
    return attempt


# --- the same calls on the native transport (docs/transports.md) ------------------------------

#: ``(SDK method path, args, kwargs) -> NativeRequest``: a family's request for an SDK call.
ToRequest = Callable[[str, tuple[Any, ...], dict[str, Any]], Any]


def _native_finish(provider: "Provider", call: SdkCall, reply: Any) -> Any:
    request_id = _request_id(reply.headers)
    note(reply.status, reply.headers, request_id=request_id, url=reply.url)
    if call.read == "bytes":
        return BinaryReply(reply.content, reply.headers.get("content-type") or
                           "application/octet-stream", reply.headers)
    from ..core.reading import decode_json

    return decode_json(reply.content, provider.key, status_code=reply.status,
                       request_id=request_id)


class NativeStreamReply:
    """A streamed native reply (``read="stream"``), read as a plan reads the SDK's streamed
    ``httpx2.Response``: ``headers``, ``iter_bytes()`` / ``aiter_bytes()``, ``close()`` /
    ``aclose()``. Its first piece of body was read with its headers (inside the attempt, so
    a failure there is retried as any other)."""

    def __init__(self, chunks: Any, headers: Any, first: Optional[bytes]) -> None:
        self._chunks = chunks
        self.headers = headers
        self._first = first

    def iter_bytes(self) -> Any:
        if self._first:
            yield self._first
        yield from self._chunks

    async def aiter_bytes(self) -> Any:
        if self._first:
            yield self._first
        async for chunk in self._chunks:
            yield chunk

    def close(self) -> None:
        self._chunks.close()

    async def aclose(self) -> None:
        await self._chunks.aclose()


class NativeCalls:
    """The native transport in the place of an SDK client: ``run`` / ``arun`` (and the
    batches' results reader) given one make each attempt with ``native_attempt_of``.
    ``http`` is the family's ``NativeHTTP``, ``to_request`` its request for an SDK call."""

    __slots__ = ("http", "to_request")

    def __init__(self, http: Any, to_request: ToRequest) -> None:
        self.http = http
        self.to_request = to_request


def native_attempt_of(provider: "Provider", http: Any, to_request: ToRequest
                      ) -> Callable[[SdkCall], Any]:
    """One attempt of a call on the native transport's ``http`` (a ``NativeHTTP``)."""

    def attempt(call: SdkCall) -> Any:
        request = to_request(call.path, call.args, call.kwargs)
        if call.read != "stream":
            return _native_finish(provider, call, http.post(request))
        opened: list[Any] = []
        chunks = http.stream(request, opened.append)
        first = next(chunks, None)
        note(opened[0].status, opened[0].headers, request_id=_request_id(opened[0].headers),
             url=opened[0].url)
        return NativeStreamReply(chunks, opened[0].headers, first)
    return attempt


def anative_attempt_of(provider: "Provider", http: Any, to_request: ToRequest
                       ) -> Callable[[SdkCall], Any]:
    """One attempt of a call on the native transport's ``http``, awaited."""

    async def attempt(call: SdkCall) -> Any:
        kwargs = call.kwargs if call.async_kwargs is None else call.async_kwargs
        request = to_request(call.async_path or call.path, call.args, kwargs)
        if call.read != "stream":
            return _native_finish(provider, call, await http.apost(request))
        opened: list[Any] = []
        chunks = http.astream(request, opened.append)
        try:
            first: Optional[bytes] = await chunks.__anext__()
        except StopAsyncIteration:
            first = None
        note(opened[0].status, opened[0].headers, request_id=_request_id(opened[0].headers),
             url=opened[0].url)
        return NativeStreamReply(chunks, opened[0].headers, first)
    return attempt


class _Unsettled(Exception):
    """An attempt of a ``once`` call whose outcome is unknown: not an ``APIError``, so the
    retry loop does not repeat it; the driver hands ``error`` to the plan."""

    def __init__(self, error: APIError) -> None:
        super().__init__(str(error))
        self.error = error


def _never_sent(error: BaseException) -> bool:
    """Whether a connection error or timeout happened before the request could leave (no
    connection was made): such an attempt created nothing and is retried as usual."""
    import sys

    import httpx2

    kinds: tuple[type[BaseException], ...] = (httpx2.ConnectError, httpx2.ConnectTimeout,
                                              httpx2.PoolTimeout)
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None:
        kinds = (*kinds, aiohttp.ClientConnectorError)
    seen: set[int] = set()
    current: Optional[BaseException] = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kinds):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _settled(error: APIError) -> bool:
    from ..core.errors import APIConnectionError, APITimeoutError

    return not isinstance(error, (APIConnectionError, APITimeoutError)) or _never_sent(error)


def _once(attempt: Callable[[SdkCall], Any]) -> Callable[[SdkCall], Any]:
    def once(call: SdkCall) -> Any:
        try:
            return attempt(call)
        except APIError as error:
            if _settled(error):
                raise
            raise _Unsettled(error) from error
    return once


def _aonce(attempt: Callable[[SdkCall], Any]) -> Callable[[SdkCall], Any]:
    async def once(call: SdkCall) -> Any:
        try:
            return await attempt(call)
        except APIError as error:
            if _settled(error):
                raise
            raise _Unsettled(error) from error
    return once


def run(provider: "Provider", client: Any, plan: Plan[T], bounds: Any = None, *,
        attempt: Optional[Callable[[SdkCall], Any]] = None) -> T:
    """Perform ``plan`` with the sync SDK ``client`` (each call retried as ``create`` is,
    but a ``once`` call's unknown outcome never; ``bounds``: the call's retry bounds, e.g.
    a per-call timeout). A call's error is raised inside the plan, at its ``yield``, so a
    plan may handle it. ``attempt``: how one attempt is made instead (the native
    transport's, :func:`native_attempt_of`)."""
    from . import retry as _retry

    policy = provider._calls  # type: ignore[attr-defined]
    if isinstance(client, NativeCalls) and bounds is None:
        bounds = policy.bounds(None)  # no SDK client's timeout: the config's bounds each attempt
    if attempt is None:
        attempt = attempt_of(provider, client)
    attempt_once = _once(attempt)
    extra = () if bounds is None else (bounds,)
    try:
        call = next(plan)
        while True:
            try:
                reply = _retry.call(policy, attempt_once if call.once else attempt, call,
                                    *extra)
            except _Unsettled as unsettled:
                call = plan.throw(unsettled.error)
            except Exception as error:
                call = plan.throw(error)
            else:
                call = plan.send(reply)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def arun(provider: "Provider", client: Any, plan: Plan[T], bounds: Any = None, *,
               attempt: Optional[Callable[[SdkCall], Any]] = None) -> T:
    """Perform ``plan`` with the async SDK ``client`` (or ``attempt``:
    :func:`anative_attempt_of`)."""
    from . import retry as _retry

    policy = provider._calls  # type: ignore[attr-defined]
    if isinstance(client, NativeCalls) and bounds is None:
        bounds = policy.bounds(None)
    if attempt is None:
        attempt = aattempt_of(provider, client)
    attempt_once = _aonce(attempt)
    extra = () if bounds is None else (bounds,)
    try:
        call = next(plan)
        while True:
            try:
                reply = await _retry.acall(policy, attempt_once if call.once else attempt,
                                           call, *extra)
            except _Unsettled as unsettled:
                call = plan.throw(unsettled.error)
            except Exception as error:
                call = plan.throw(error)
            else:
                call = plan.send(reply)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
