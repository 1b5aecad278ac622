"""The HTTP plumbing of the native transport (docs/transports.md): requests our translators
built go out on pooled connections of our own (``httpx2.Client`` for sync calls, one
``aiohttp.ClientSession`` per event loop for async ones); no vendor SDK is imported.

A family's ``native.py`` builds a :class:`NativeRequest` (URL, headers, JSON body) and
reads the reply with its own translator; this module sends it and turns what can go wrong
into our error tree the way the SDK path does: a non-2xx reply through the family's
``reply_error`` (the same mapping its ``map_sdk_error`` applies), a failure of the network
through ``_common.transport_error`` (naming the host), a redirect to another origin through
``_common.redirect_error`` (never followed; one within the origin is, as the SDKs do). The
retry policy, attempt deadlines and concurrency bound stay the shared ones
(``providers/retry.py``): the sync client's network backend honours the attempt deadline
(``_common.bound_sync_io``), and an async attempt is cancelled at its deadline.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Optional, TypeVar

from ..core.errors import AisuiteLikeError, APIError, MissingDependencyError, scrub_exception
from ..core.origins import same_origin
from ._common import bound_sync_io, close_at_loop_shutdown, redirect_error, transport_error
from .body_limits import DEFAULT_LIMITS, BodyLimits, BodyMeter

if TYPE_CHECKING:
    import asyncio  # imported where async code runs: a sync-only process never loads it

__all__ = ["NativeHTTP", "NativeRequest", "Reply", "ReplyError", "CONFIG_KEYS",
           "native_transport", "async_library", "ASYNC_LIBRARIES", "request_parts",
           "form_fields", "encode_form"]

#: The config key that chooses the transport: ``"sdk"`` (default) or ``"native"``.
CONFIG_KEYS = frozenset({"transport"})

#: The async HTTP libraries of the native transport (``async_transport``), default first.
ASYNC_LIBRARIES = ("aiohttp", "httpx2")

#: A family's mapping of a non-2xx reply (status, headers, body bytes, the response for the
#: error's ``response``) to its typed error: the code its ``map_sdk_error`` shares.
ReplyError = Callable[[int, Mapping[str, str], bytes, Any], APIError]

R = TypeVar("R")

_MAX_REDIRECTS = 10
#: Connections kept open per host for reuse (sync pool; aiohttp keeps every idle one).
_KEEPALIVE = 100
_KEEPALIVE_S = 30.0
_CONNECT_S = 5.0


def native_transport(config: dict[str, Any], provider: str) -> bool:
    """Pops ``transport`` from a provider's config: True for ``"native"``, False for
    ``"sdk"`` / absent; anything else is a ``ConfigurationError``."""
    value = config.pop("transport", None)
    if value in (None, "sdk"):
        return False
    if value == "native":
        return True
    from ..core.errors import ConfigurationError

    raise ConfigurationError(f"transport must be 'sdk' (the vendor SDK, default) or 'native' "
                             f"for provider {provider!r}, got {value!r}")


def async_library(value: Any, provider: str) -> str:
    """The native transport's ``async_transport``: ``"aiohttp"`` (None: the default) or
    ``"httpx2"`` (``"httpx"``, the SDK transport's name for the same library, too); anything
    else is a ``ConfigurationError`` naming them."""
    if value is None:
        return "aiohttp"
    if value in ("httpx2", "httpx"):
        return "httpx2"
    if value == "aiohttp":
        return "aiohttp"
    from ..core.errors import ConfigurationError

    raise ConfigurationError(f"async_transport on the native transport must be 'aiohttp' "
                             f"(default) or 'httpx2' for provider {provider!r}, got {value!r}")


class _Httpx2Reply:
    """An async ``httpx2`` streamed response, read as the native transport reads an aiohttp
    one (``status``, ``headers``, ``url``, ``content.iter_any()``)."""

    __slots__ = ("_response", "status", "headers", "url", "content")

    def __init__(self, response: Any) -> None:
        self._response = response
        self.status: int = response.status_code
        self.headers = response.headers
        self.url = response.url
        self.content = self

    def iter_any(self) -> AsyncIterator[bytes]:
        return self._response.aiter_bytes()  # type: ignore[no-any-return]

    async def finish(self) -> None:
        await self._response.aclose()


async def _finish(response: Any, reuse: bool) -> None:
    """Done with an async reply: its connection back to the pool (``reuse``: read to its
    end) or closed."""
    if type(response) is _Httpx2Reply:
        await response.finish()  # httpx2 returns a connection read to its end to the pool
    elif reuse:
        response.release()
    else:
        response.close()


class NativeRequest:
    """One request as the family built it: where it goes and what it carries (a ``POST``
    of a JSON body, or a ``GET`` without one)."""

    __slots__ = ("url", "headers", "body", "method")

    def __init__(self, url: str, headers: dict[str, str], body: Optional[bytes],
                 method: str = "POST") -> None:
        self.url = url
        self.headers = headers
        self.body = body
        self.method = method


class Reply:
    """A complete 2xx reply: its status, headers (case-insensitive), body and the URL that
    answered (after redirects within the origin)."""

    __slots__ = ("status", "headers", "content", "url")

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes,
                 url: Optional[str] = None) -> None:
        self.status = status
        self.headers = headers
        self.content = content
        self.url = url


def _as_is(reply: Reply) -> Reply:
    return reply


def _redirected(method: str, status: int) -> str:
    """The method a redirect's next request uses (as httpx and browsers do)."""
    if status == 303 and method != "HEAD":
        return "GET"
    if status in (301, 302) and method == "POST":
        return "GET"
    return method


def _httpx_response(status: int, headers: Any, content: bytes, method: str, url: str,
                    request_headers: Mapping[str, str]) -> Any:
    """An ``httpx2.Response`` for an error's ``response`` (error path only), as the SDK path
    gives: our error tree scrubs its credential headers."""
    import httpx2

    return httpx2.Response(status, headers=list(headers.items()), content=content,
                           request=httpx2.Request(method, url, headers=dict(request_headers)))


def _let_go(session: Any, loop: Optional[asyncio.AbstractEventLoop]) -> None:
    """Let an async session go without awaiting (from sync code, a finalizer, or a loop
    that is not its own): closed on its loop if that runs in another thread, else in place
    (a loop that has closed took the connections with it)."""
    import asyncio

    if session is None or session.closed:
        return
    if loop is not None and loop.is_running():
        try:
            current = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if current is not loop:
            try:
                loop.call_soon_threadsafe(_close_now, session)
                return
            except RuntimeError:  # closed meanwhile
                pass
    _close_now(session)


def _close_now(session: Any) -> None:
    if session.closed:
        return
    connector = session.connector
    session.detach()
    if connector is not None:
        try:
            connector._close()  # aiohttp's close() is a coroutine: its sync part
        except Exception:
            pass


class NativeHTTP:
    """The pooled HTTP clients of one provider's native transport. ``reply_error`` maps a
    non-2xx reply; ``secrets`` are redacted from every error; ``connect_timeout`` bounds
    each connection attempt (the attempt deadline bounds the rest)."""

    def __init__(self, provider: str, reply_error: ReplyError,
                 secrets: tuple[Optional[str], ...], *, host: str = "",
                 connect_timeout: float = _CONNECT_S, ok_statuses: Optional[frozenset[int]]
                 = None) -> None:
        self.provider = provider
        self.reply_error = reply_error
        self.secrets = secrets
        self.host = host
        self.connect_timeout = connect_timeout
        #: statuses read as a reply (None: every 2xx); google-genai raises for any but 200
        self.ok_statuses = ok_statuses
        #: the size bounds of a reply and of a stream event (the provider's config sets them)
        self.limits: BodyLimits = DEFAULT_LIMITS
        #: the async HTTP library: "aiohttp" (default) or "httpx2" (``async_transport``)
        self.async_library = "aiohttp"
        self._client: Any = None
        self._aclient: Any = None  # the httpx2.AsyncClient of async calls on httpx2
        self._aclient_loop: Optional[asyncio.AbstractEventLoop] = None
        self._aclient_closer: Any = None
        self._session: Any = None
        self._session_loop: Optional[asyncio.AbstractEventLoop] = None
        self._closer: Any = None  # closes the session when its loop shuts down
        self._finalizer: Optional[weakref.finalize[Any, Any]] = None
        #: URL -> (proxy, proxy_auth, netrc auth) from the environment, for this session
        self._environments: dict[str, tuple[Any, Any, Any]] = {}
        self._lock = threading.Lock()

    # -- clients -------------------------------------------------------------------------

    def client(self) -> Any:
        """The sync ``httpx2.Client`` (made on first use): keep-alive pool, HTTP/2 where the
        server offers it and ``h2`` is installed, no redirect followed by itself."""
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    import importlib.util

                    import httpx2

                    client = httpx2.Client(
                        http2=importlib.util.find_spec("h2") is not None,
                        follow_redirects=False,
                        timeout=httpx2.Timeout(None, connect=self.connect_timeout),
                        limits=httpx2.Limits(max_connections=None,
                                             max_keepalive_connections=_KEEPALIVE,
                                             keepalive_expiry=_KEEPALIVE_S))
                    bound_sync_io(client)  # the attempt deadline on every connect and read
                    self._client = client
                client = self._client
        return client

    def session(self) -> Any:
        """The ``aiohttp.ClientSession`` of the running event loop (made on first use; a
        new one once the loop it was made on has closed)."""
        import asyncio

        session = self._session
        loop = asyncio.get_running_loop()
        if session is not None and self._session_loop is loop and not session.closed:
            return session
        try:
            import aiohttp
        except ImportError as exc:
            raise MissingDependencyError(
                "transport='native' sends async requests with aiohttp: "
                'pip install "aisuite-like[native]"') from exc
        if session is not None:
            self._drop_session()  # made on a loop that has closed: its connections died too
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300,
                                         keepalive_timeout=_KEEPALIVE_S)
        # HTTP(S)_PROXY / NO_PROXY (and .netrc) are honoured as httpx2 honours them on the
        # sync path and in the SDKs (a mandated egress proxy is never bypassed), but read by
        # ``_environment`` once per URL of this session: aiohttp's trust_env reads them on
        # every request, in two hops through threads (the environment, the .netrc file).
        self._session = session = aiohttp.ClientSession(
            connector=connector, auto_decompress=True, trust_env=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout))
        self._session_loop = loop
        self._environments = {}
        # Closed on its loop when the loop shuts down (asyncio.run does)...
        self._closer = close_at_loop_shutdown(session.close, lambda: session.closed)
        # ...and a client never closed (no aclose / async with) lets its session go when it
        # is collected, or at exit: aiohttp would print "Unclosed client session" otherwise.
        self._finalizer = weakref.finalize(self, _let_go, session, loop)
        return session

    def aclient(self) -> Any:
        """The ``httpx2.AsyncClient`` of the running event loop (``async_transport=
        "httpx2"``; made on first use, a new one once the loop it was made on has closed):
        the sync client's settings, so HTTP mocks of httpcore2 (respx, pytest-httpx2) see
        async calls too."""
        import asyncio

        client = self._aclient
        loop = asyncio.get_running_loop()
        if client is not None and self._aclient_loop is loop and not client.is_closed:
            return client
        import importlib.util

        import httpx2

        self._aclient = client = httpx2.AsyncClient(
            http2=importlib.util.find_spec("h2") is not None, follow_redirects=False,
            timeout=httpx2.Timeout(None, connect=self.connect_timeout),
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=_KEEPALIVE,
                                 keepalive_expiry=_KEEPALIVE_S))
        self._aclient_loop = loop
        # closed on its loop when the loop shuts down (asyncio.run does)
        self._aclient_closer = close_at_loop_shutdown(client.aclose, lambda: client.is_closed)
        return client

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
        self._drop_session()
        # an async httpx2 client is closed on its loop (aclose, or the loop's shutdown); one
        # whose loop has gone took its connections with it
        self._aclient = self._aclient_loop = None

    async def aclose(self) -> None:
        import asyncio

        aclient = self._aclient
        if aclient is not None and self._aclient_loop is asyncio.get_running_loop():
            self._aclient = self._aclient_loop = None
            await aclient.aclose()
        session = self._session
        if session is not None and self._session_loop is asyncio.get_running_loop():
            self._session = self._session_loop = None
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
            await session.close()
        self.close()

    def _drop_session(self) -> None:
        session, self._session = self._session, None
        loop, self._session_loop = self._session_loop, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        _let_go(session, loop)

    # -- errors --------------------------------------------------------------------------

    def _failure(self, exc: BaseException) -> BaseException:
        """A network exception -> the typed error (``exc`` scrubbed: it becomes the cause)."""
        if isinstance(exc, AisuiteLikeError):
            return exc
        scrub_exception(exc, self.secrets)
        mapped = transport_error(exc, self.provider, self.secrets, host=self.host)
        return mapped if mapped is not None else exc

    def _not_ok(self, status: int) -> bool:
        if self.ok_statuses is not None:
            return status not in self.ok_statuses
        return not 200 <= status < 300

    def _redirect(self, request: NativeRequest, method: str, status: int,
                  location: Optional[str], url: str) -> Optional[str]:
        """The URL to follow for a 3xx reply (same origin), None when it is no redirect to
        follow; a redirect to another origin raises ``RedirectError``."""
        if status not in (301, 302, 303, 307, 308) or not location:
            return None
        error = redirect_error(self.provider, url, status, location)
        if error is not None:
            raise error
        from urllib.parse import urljoin

        target = urljoin(url, location.strip())
        return target if same_origin(target, request.url) else None

    def _meter(self, headers: Any, whole: bool) -> BodyMeter:
        """The count of a reply's decoded bytes (``whole``: read whole, whatever it says)."""
        if whole:
            return BodyMeter(self.limits, self.provider, stream=False)
        return BodyMeter.for_reply(self.limits, self.provider, headers.get("content-type"))

    # -- sync ----------------------------------------------------------------------------

    def _read(self, response: Any) -> bytes:
        """A reply's whole body, decoded, within ``limits.reply``."""
        meter = self._meter(response.headers, True)
        parts = []
        for chunk in response.iter_bytes():
            meter.feed(chunk)
            parts.append(chunk)
        return b"".join(parts)

    def _send(self, request: NativeRequest, stream: bool) -> tuple[Any, bytes]:
        """The final response (redirects within the origin followed) and, unless
        ``stream``, its body; a non-2xx one is read and raised as the family's typed
        error."""
        client = self.client()
        method, url, body = request.method, request.url, request.body
        for _ in range(_MAX_REDIRECTS + 1):
            try:
                response = client.send(client.build_request(
                    method, url, headers=request.headers,
                    content=body if method != "GET" else None), stream=True)
            except Exception as exc:
                raise self._failure(exc) from exc
            status = response.status_code
            if not self._not_ok(status):
                content = b""
                if not stream:
                    try:
                        content = self._read(response)
                    except Exception as exc:
                        raise self._failure(exc) from exc
                    finally:
                        response.close()
                return response, content
            try:
                target = self._redirect(request, method, status,
                                        response.headers.get("location"), url)
                if target is not None:
                    response.close()
                    method, url = _redirected(method, status), target
                    continue
                try:
                    content = self._read(response)
                except Exception as exc:
                    raise self._failure(exc) from exc
            finally:
                response.close()
            raise self.reply_error(status, response.headers, content, response)
        raise APIError(f"{self.provider}: more than {_MAX_REDIRECTS} redirects",
                       provider=self.provider)

    def post(self, request: NativeRequest) -> Reply:
        """Send ``request`` (a POST, or the GET it says); the complete 2xx reply."""
        response, content = self._send(request, stream=False)
        return Reply(response.status_code, response.headers, content, str(response.url))

    def stream(self, request: NativeRequest, opened: Optional[Callable[[Reply], None]] = None
               ) -> Iterator[bytes]:
        """Send ``request``; the reply's body as it arrives (closing the iterator releases
        the connection). ``opened`` sees the reply's status and headers first."""
        response, _ = self._send(request, stream=True)
        try:
            if opened is not None:
                opened(Reply(response.status_code, response.headers, b"", str(response.url)))
            meter = self._meter(response.headers, False)
            try:
                for chunk in response.iter_bytes():
                    meter.feed(chunk)
                    yield chunk
            except Exception as exc:
                raise self._failure(exc) from exc
        finally:
            response.close()

    # -- async ---------------------------------------------------------------------------

    def _whole_known(self, response: Any) -> bool:
        """Whether an async reply can be read in one call: aiohttp's, undecoded, of a
        Content-Length within ``limits.reply`` (aiohttp reads exactly that many bytes), so
        no piece-by-piece count is needed."""
        if type(response) is _Httpx2Reply:
            return False
        length = response.content_length
        return (length is not None and length <= self.limits.reply
                and "Content-Encoding" not in response.headers)

    async def _aread(self, response: Any) -> bytes:
        """A reply's whole body, decoded, within ``limits.reply`` (aiohttp decodes it in
        bounded pieces as it is read)."""
        meter = self._meter(response.headers, True)
        parts = []
        async for chunk in response.content.iter_any():
            meter.feed(chunk)
            parts.append(chunk)
        return b"".join(parts)

    async def _environment(self, url: str, headers: Mapping[str, str]
                           ) -> tuple[Any, Any, Any]:
        """What the environment says of ``url`` (aiohttp's ``trust_env`` rules): the proxy of
        HTTP(S)_PROXY unless NO_PROXY exempts the host, its credentials, and the host's
        .netrc login (not with an ``Authorization`` header, which it would contradict).
        Read on the session's first request to a URL (then kept for the session), off the
        event loop: the environment is read and .netrc opened in a thread, as aiohttp
        does."""
        import asyncio

        from aiohttp.helpers import (
            basicauth_from_netrc,
            get_env_proxy_for_url,
            netrc_from_env,
        )
        from yarl import URL

        parsed = URL(url)

        def read() -> tuple[Any, Any, Any]:
            proxy = proxy_auth = auth = None
            try:
                proxy, proxy_auth = get_env_proxy_for_url(parsed)
            except LookupError:
                pass
            if parsed.host is not None and not any(
                    name.lower() == "authorization" for name in headers):
                try:
                    auth = basicauth_from_netrc(netrc_from_env(), parsed.host)
                except LookupError:
                    pass
            return proxy, proxy_auth, auth

        found = await asyncio.to_thread(read)
        if len(self._environments) >= 256:  # bounded: URLs come from configs
            self._environments.clear()
        self._environments[url] = found
        return found

    def apost(self, request: NativeRequest) -> Awaitable[Reply]:
        """Send ``request`` (a POST, or the GET it says); the complete 2xx reply."""
        return self._asend(request, _as_is)

    def aread(self, request: NativeRequest, read: Callable[[Reply], R]) -> Awaitable[R]:
        """``read(reply)`` of :meth:`apost`'s reply, called in the frame that sent it: a
        caller that only reads the reply holds no coroutine of its own while it waits (a
        frame less per request in flight). What ``read`` raises is raised as it is."""
        return self._asend(request, read)

    async def _asend(self, request: NativeRequest, read: Optional[Callable[[Reply], Any]]
                     ) -> Any:
        """Send ``request`` (redirects within the origin followed); a non-2xx reply is read
        and raised as the family's typed error. ``read`` None: the 2xx response, its body
        not read (a stream); else ``read`` of the complete reply (its connection back in
        the pool)."""
        import asyncio

        method, url, body = request.method, request.url, request.body
        response: Any = None
        for _ in range(_MAX_REDIRECTS + 1):
            # One request on the async library, its body not read yet (inline, not a
            # coroutine of its own: a frame less per request in flight). httpx2 reads the
            # environment (proxy, .netrc) itself, once per client; aiohttp is given what
            # ``_environment`` read, once per URL of the session.
            try:
                if self.async_library == "httpx2":
                    client = self.aclient()
                    response = _Httpx2Reply(await client.send(client.build_request(
                        method, url, headers=request.headers,
                        content=body if method != "GET" else None), stream=True))
                else:
                    session = self.session()  # first: a new session has no environment read
                    environment = self._environments.get(url)
                    if environment is None:
                        environment = await self._environment(url, request.headers)
                    response = await session.request(
                        method, url, headers=request.headers,
                        data=body if method != "GET" else None, allow_redirects=False,
                        proxy=environment[0], proxy_auth=environment[1], auth=environment[2])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise self._failure(exc) from exc
            status = response.status
            if not self._not_ok(status):
                break
            reuse = False
            try:
                target = self._redirect(request, method, status,
                                        response.headers.get("Location"), url)
                if target is not None:
                    reuse = True
                    method, url = _redirected(method, status), target
                    continue
                try:
                    content = await self._aread(response)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    raise self._failure(exc) from exc
            finally:
                await _finish(response, reuse)
            raise self.reply_error(status, response.headers, content, _httpx_response(
                status, response.headers, content, method, url, request.headers))
        else:
            raise APIError(f"{self.provider}: more than {_MAX_REDIRECTS} redirects",
                           provider=self.provider)
        if read is None:
            return response
        # the reply's body, in this frame (not a coroutine of its own, as above)
        try:
            if self._whole_known(response):
                content = await response.read()
            else:
                content = await self._aread(response)
        except asyncio.CancelledError:
            await _finish(response, False)
            raise
        except Exception as exc:
            await _finish(response, False)
            raise self._failure(exc) from exc
        await _finish(response, True)
        return read(Reply(response.status, response.headers, content, str(response.url)))

    async def astream(self, request: NativeRequest,
                      opened: Optional[Callable[[Reply], None]] = None) -> AsyncIterator[bytes]:
        import asyncio

        response = await self._asend(request, None)
        done = False
        try:
            if opened is not None:
                opened(Reply(response.status, response.headers, b"", str(response.url)))
            meter = self._meter(response.headers, False)
            try:
                async for data in response.content.iter_any():
                    meter.feed(data)
                    yield data
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise self._failure(exc) from exc
            done = True
        finally:
            # an early exit, a failure or a cancellation: the connection is not reused
            await _finish(response, done)


# --- what every family's native request shares ----------------------------------------------

#: Keyword arguments the SDKs take that are not part of the JSON body (a translator may put
#: them in its keyword arguments): headers, query parameters and extra body fields.
REQUEST_OPTIONS = frozenset({"extra_headers", "extra_query", "extra_body"})


def user_agent() -> str:
    from ..core.version import VERSION

    return f"aisuite-like/{VERSION} (native)"


def request_parts(kwargs: Mapping[str, Any], provider: str,
                  skip: frozenset[str] = frozenset({"timeout"})
                  ) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """SDK-style keyword arguments -> (the body's fields, extra headers, query parameters),
    as the SDKs send them: every argument a body field, ``extra_body`` merged in at the top
    level, ``extra_headers`` / ``extra_query`` apart; ``skip`` are not sent (the timeout,
    which our retry layer applies)."""
    body = {k: v for k, v in kwargs.items() if k not in REQUEST_OPTIONS and k not in skip}
    body.update(_option(kwargs, "extra_body", provider))
    headers = {str(k): str(v) for k, v in _option(kwargs, "extra_headers", provider).items()
               if v is not None}
    query = dict(_option(kwargs, "extra_query", provider))
    return body, headers, query


def json_body(kwargs: Mapping[str, Any], provider: str,
              skip: frozenset[str] = frozenset({"timeout"})) -> tuple[bytes, dict[str, str],
                                                                      dict[str, Any]]:
    """:func:`request_parts` with the body as JSON. A value JSON cannot carry is the
    caller's argument to fix (``UnsupportedParameterError``), before anything is sent."""
    body, headers, query = request_parts(kwargs, provider, skip)
    return encode_json(body, provider), headers, query


def form_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """Form fields as the openai and anthropic SDKs serialise a multipart body's non-file
    part: a list ``key[]`` once per item, a dict ``key[sub]``, True / False as ``true`` /
    ``false``, None left out; a key given twice becomes a list (httpx2 sends each)."""
    items: list[tuple[str, str]] = []

    def add(key: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for sub, item in value.items():
                add(f"{key}[{sub}]", item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                add(key + "[]", item)
        elif value is True:
            items.append((key, "true"))
        elif value is False:
            items.append((key, "false"))
        elif value is not None:
            items.append((key, str(value)))

    for key, value in data.items():
        add(str(key), value)
    fields: dict[str, Any] = {}
    for key, text in items:
        had = fields.get(key)
        if had is None:
            fields[key] = text
        elif isinstance(had, list):
            had.append(text)
        else:
            fields[key] = [had, text]
    return fields


def encode_form(fields: Mapping[str, Any], files: list[tuple[str, Any]]) -> tuple[bytes, str]:
    """A multipart/form-data body of ``fields`` (see :func:`form_fields`) and ``files``
    (``(field name, (file name, bytes, content type))``), as httpx2 encodes the SDKs'; the
    body and its ``Content-Type`` (with the boundary)."""
    import httpx2

    request = httpx2.Request("POST", "http://form.invalid/", data=dict(fields), files=files)
    return request.read(), request.headers["content-type"]


def _option(kwargs: Mapping[str, Any], name: str, provider: str) -> Mapping[str, Any]:
    """The dict of ``extra_body`` / ``extra_headers`` / ``extra_query`` (empty if absent);
    anything else is the caller's argument to fix, as the SDKs' ``TypeError`` is."""
    value = kwargs.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            f"{provider} rejected an argument: {name} must be a dict, got "
            f"{type(value).__name__}. Check the provider-native keyword arguments you passed.",
            parameter=name, provider=provider)
    return value


def get_request(url: str, headers: Mapping[str, str], query: Mapping[str, Any]
                ) -> NativeRequest:
    """A ``GET`` of ``url`` with ``query`` (e.g. a models list), the JSON body's header
    left out."""
    return NativeRequest(with_query(url, query),
                         {k: v for k, v in headers.items() if k.lower() != "content-type"},
                         None, "GET")


def encode_json(body: Any, provider: str) -> bytes:
    from pydantic_core import PydanticSerializationError, to_json

    try:
        return to_json(body)
    except (PydanticSerializationError, TypeError, ValueError) as exc:
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            f"{provider} rejected an argument: a value cannot be sent as JSON ({exc}). Check "
            "the provider-native keyword arguments you passed.", provider=provider) from None


def with_query(url: str, query: Mapping[str, Any]) -> str:
    """``url`` with ``query`` added to its query string."""
    if not query:
        return url
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode(
        {k: v for k, v in query.items() if v is not None}, doseq=True)
