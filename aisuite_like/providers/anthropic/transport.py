"""``AnthropicProvider``: the Anthropic Messages API through the ``anthropic`` SDK
(docs/providers/anthropic.md).

The transport asks the SDK for the raw HTTP response (``with_raw_response`` /
``with_streaming_response``) and runs our translator (``translate.py`` / ``stream.py``) over
the JSON, so no SDK pydantic model is built per call or per event; errors are mapped by
``errors.py``; the SDK's private internals are reached only through ``_sdk_seam.py``. The SDK
is imported when the provider is constructed; SDK clients are created on first use (sync and
async separately).
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import (
    AisuiteLikeError,
    AuthenticationError,
    ConfigurationError,
    scrub_exception,
)
from ...core.exchange import note, note_response
from ...core.reading import decode_json, read_reply
from ...core.secrets import clean_api_key
from ...core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Model,
    TokenCount,
    with_request_id,
)
from .. import retry as _retry
from .._common import (
    close_at_loop_shutdown,
    host_of_url,
    own_error_inside,
    raised_inside,
    redirect_hooks,
)
from .._native import async_library, native_transport
from ..base import ChatRequest, FileRequest, Provider
from ..body_limits import CONFIG_KEYS as BODY_CONFIG_KEYS
from ._sdk_seam import bound_sync_client
from .errors import map_sdk_error, sdk_stream_error
from .models import parse_models_page
from .translate import DEFAULT_MAX_TOKENS, PROVIDER, build_request, parse_response

if TYPE_CHECKING:
    from ..plans import Plan
    from .stream import StreamBody

#: Seconds that bound an attempt when no timeout is configured: the anthropic SDK's 600 s.
_DEFAULT_TIMEOUT = 600.0

_SDK_PARAMS: Optional[frozenset[str]] = None


def _sdk_params() -> frozenset[str]:
    """Named arguments of the installed SDK's ``messages.create`` (read once per process)."""
    global _SDK_PARAMS
    if _SDK_PARAMS is None:
        import inspect

        from anthropic.resources.messages import Messages

        _SDK_PARAMS = frozenset(inspect.signature(Messages.create).parameters) - {"self"}
    return _SDK_PARAMS


#: Pages of the models list read at most (1,000 models each): a server whose cursor never
#: ends cannot keep a list going.
_MAX_MODEL_PAGES = 100


def _stream_body(key: str, request_id: Optional[str], secrets: Any) -> StreamBody:
    """A stream's decoder; the streams' code (and ``core.streaming``) loads with the first
    stream, not at a cold start's first plain call."""
    from .stream import StreamBody

    return StreamBody(key, request_id, secrets)


def _page_args(after: Optional[str]) -> dict[str, Any]:
    return {"limit": 1000} if after is None else {"limit": 1000, "after_id": after}


class AnthropicProvider(Provider):
    """The Anthropic Messages API through the ``anthropic`` SDK.

    Config: ``api_key`` (else ``ANTHROPIC_API_KEY``), ``base_url``, ``timeout``,
    ``max_retries`` (default 2; 0 = one attempt), ``max_retry_wait``, ``max_concurrency``,
    ``retry_clock`` (our retry policy, ``aisuite_like.providers.retry``; the SDK's own retries are
    off), ``default_headers``, ``http_client`` (an ``httpx2.Client`` for sync calls or
    an ``httpx2.AsyncClient`` for async ones), ``async_transport="aiohttp"`` (the SDK's
    ``DefaultAioHttpClient``, needs ``anthropic[aiohttp]``), ``default_max_tokens``.
    Anything else is passed to the SDK client constructor.
    """

    #: Anthropic's server tools (docs/hosted-tools.md).
    hosted_tool_kinds = frozenset({"web_search", "web_fetch", "code_execution"})

    def __init__(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Any = None,
        max_retries: int = 2,
        default_headers: Optional[dict[str, str]] = None,
        http_client: Any = None,
        async_transport: Optional[str] = None,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retry_wait: float = _retry.DEFAULT_MAX_RETRY_WAIT,
        max_concurrency: Optional[int] = None,
        retry_clock: Any = None,
        stream_gap_timeout: Optional[float] = None,
        transport: Optional[str] = None,
        **client_options: Any,
    ) -> None:
        # max_reply_bytes / max_event_bytes: read with the retry settings (CallPolicy)
        body = {k: client_options.pop(k) for k in BODY_CONFIG_KEYS if k in client_options}
        if native_transport({"transport": transport}, "anthropic"):
            self._init_native(body=body, api_key=api_key, base_url=base_url, timeout=timeout,
                              max_retries=max_retries, default_headers=default_headers,
                              http_client=http_client, async_transport=async_transport,
                              default_max_tokens=default_max_tokens,
                              max_retry_wait=max_retry_wait, max_concurrency=max_concurrency,
                              retry_clock=retry_clock, stream_gap_timeout=stream_gap_timeout,
                              client_options=client_options)
            return
        import anthropic
        import httpx2

        self._native: Any = None
        self._calls = _retry.CallPolicy.from_config(
            {"max_retries": max_retries, "max_retry_wait": max_retry_wait,
             "max_concurrency": max_concurrency, "retry_clock": retry_clock,
             "stream_gap_timeout": stream_gap_timeout, "timeout": timeout, **body},
            "anthropic",
            default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(base_url or os.environ.get("ANTHROPIC_BASE_URL")
                             or "https://api.anthropic.com"))
        if not isinstance(default_max_tokens, int) or default_max_tokens < 1:
            raise ValueError(f"default_max_tokens must be an int >= 1, got {default_max_tokens!r}")
        if async_transport not in (None, "httpx", "aiohttp"):
            raise ValueError(f"async_transport must be 'httpx' or 'aiohttp', got "
                             f"{async_transport!r}")
        import inspect

        # Other options go to the SDK client constructor: check them now, so a typo is a
        # configuration error here rather than a confusing failure on the first call.
        accepted = set(inspect.signature(anthropic.Anthropic.__init__).parameters) - {"self"}
        unknown = sorted(set(client_options) - accepted)
        if unknown:
            from ...core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message(
                "anthropic", unknown, accepted | {"async_transport", "default_max_tokens",
                                                  "max_retry_wait", "max_concurrency",
                                                  "retry_clock", "stream_gap_timeout",
                                                  *BODY_CONFIG_KEYS}))
        self._api_key = clean_api_key(api_key or os.environ.get("ANTHROPIC_API_KEY") or None,
                                      "anthropic")
        self._default_max_tokens = default_max_tokens
        # Retries are ours (providers/retry.py), the same on every family: the SDK's are off.
        options: dict[str, Any] = {**client_options, "max_retries": 0}
        if self._api_key is not None:
            options["api_key"] = self._api_key
        if base_url is not None:
            options["base_url"] = base_url
        if timeout is not None:
            options["timeout"] = timeout
        if default_headers:
            options["default_headers"] = dict(default_headers)
        self._sync_options = dict(options)
        self._async_options = dict(options)
        if isinstance(http_client, httpx2.AsyncClient):
            if async_transport == "aiohttp":
                raise ValueError("pass either an async http_client or async_transport='aiohttp'")
            self._async_options["http_client"] = http_client
        elif http_client is not None:
            self._sync_options["http_client"] = http_client
        self._aiohttp = async_transport == "aiohttp"
        self._secrets: tuple[Optional[str], ...] = (self._api_key,)
        self._anthropic = anthropic
        # SDK failures we translate: the SDK's own errors (API, credentials), and transport
        # errors raised while a stream's body is read (the SDK wraps only those of sending).
        self._sdk_errors: tuple[type[BaseException], ...] = (anthropic.AnthropicError,
                                                             httpx2.HTTPError)
        # ... and, while sending, the SDK's own argument checks.
        self._send_errors: tuple[type[BaseException], ...] = (*self._sdk_errors, TypeError,
                                                              ValueError)
        self._sync: Any = None
        self._async: Any = None
        self._async_loop: Any = None  # the event loop _async was made on
        self._async_closer: Any = None  # closes _async when its loop shuts down
        self._lock = threading.Lock()

    def _init_native(self, *, api_key: Optional[str], base_url: Optional[str], timeout: Any,
                     max_retries: int, default_headers: Optional[dict[str, str]],
                     http_client: Any, async_transport: Optional[str],
                     default_max_tokens: int, max_retry_wait: float,
                     max_concurrency: Optional[int], retry_clock: Any,
                     stream_gap_timeout: Optional[float], client_options: dict[str, Any],
                     body: dict[str, Any]) -> None:
        """``transport="native"``: the same settings, our own HTTP (docs/transports.md)."""
        from .native import NATIVE_OPTIONS, AnthropicNative

        refused = sorted((set(client_options) - NATIVE_OPTIONS)
                         | ({"http_client"} if http_client is not None else set()))
        if refused:
            raise ConfigurationError(
                f"transport='native' sends on connections of its own and takes api_key, "
                f"auth_token, base_url, timeout, default_headers and the retry settings: "
                f"remove {refused} from provider_configs['anthropic'] (or use the SDK "
                "transport)")
        self._calls = _retry.CallPolicy.from_config(
            {"max_retries": max_retries, "max_retry_wait": max_retry_wait,
             "max_concurrency": max_concurrency, "retry_clock": retry_clock,
             "stream_gap_timeout": stream_gap_timeout, "timeout": timeout, **body},
            "anthropic",
            default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(base_url or os.environ.get("ANTHROPIC_BASE_URL")
                             or "https://api.anthropic.com"))
        if not isinstance(default_max_tokens, int) or default_max_tokens < 1:
            raise ValueError(f"default_max_tokens must be an int >= 1, got {default_max_tokens!r}")
        self._api_key = clean_api_key(api_key or os.environ.get("ANTHROPIC_API_KEY") or None,
                                      "anthropic")
        auth_token = client_options.get("auth_token")
        if self._api_key is None and auth_token is None:
            raise AuthenticationError(
                "no anthropic API key: pass provider_configs={'anthropic': {'api_key': ...}}, "
                "or set ANTHROPIC_API_KEY", provider=PROVIDER)
        self._default_max_tokens = default_max_tokens
        self._secrets = (self._api_key,) if auth_token is None else (self._api_key, auth_token)
        self._sync_options = {"base_url": base_url}
        self._sync = self._async = None
        self._native = AnthropicNative(PROVIDER, self._api_key, base_url, default_headers,
                                       auth_token, self._secrets, self._calls.host)
        self._native.http.limits = self._calls.body  # max_reply_bytes, max_event_bytes
        self._native.http.async_library = async_library(async_transport, "anthropic")

    def __repr__(self) -> str:  # never the key
        return f"AnthropicProvider(base_url={self._sync_options.get('base_url')!r})"

    # -- clients ---------------------------------------------------------------------------

    def _sync_client(self) -> Any:
        if self._sync is None:
            with self._lock:
                if self._sync is None:
                    options = self._sync_options
                    if "http_client" not in options:  # the SDK's defaults, no redirect elsewhere
                        options = {**options, "http_client": self._anthropic.DefaultHttpxClient(
                            event_hooks=redirect_hooks(self._key(), is_async=False,
                                                limits=self._calls.body))}
                    client = self._anthropic.Anthropic(**options)
                    bound_sync_client(client)  # timeout bounds the whole attempt
                    self._sync = client
        return self._sync

    def _async_client(self) -> Any:
        import asyncio

        if self._async is not None and self._async_loop is not None \
                and self._async_loop.is_closed() and "http_client" not in self._async_options:
            # A sync client's acreate called from a new event loop (asyncio.run again): the
            # old client's connections died with their loop; start a new one.
            self._async = None
        if self._async is None:
            with self._lock:
                if self._async is None:
                    options = self._async_options
                    if "http_client" not in options:  # the SDK's defaults, no redirect elsewhere
                        hooks = redirect_hooks(self._key(), is_async=True,
                                                limits=self._calls.body)
                        sdk = self._anthropic
                        options = {**options, "http_client": (
                            sdk.DefaultAioHttpClient(event_hooks=hooks) if self._aiohttp
                            else sdk.DefaultAsyncHttpxClient(event_hooks=hooks))}
                    self._async = client = self._anthropic.AsyncAnthropic(**options)
                    self._async_loop = asyncio._get_running_loop()  # None outside a loop
                    if self._async_loop is not None and "http_client" not in self._async_options:
                        # our HTTP client: closed on its loop when the loop shuts down
                        self._async_closer = close_at_loop_shutdown(client.close,
                                                                    client.is_closed)
        return self._async

    def _endpoint_url(self) -> str:
        """The base URL the SDK client sends to (configured, ``ANTHROPIC_BASE_URL``, or the
        SDK's default)."""
        if self._native is not None:
            return str(self._native.root) + "/"
        client = self._sync or self._async or self._sync_client()
        return str(client.base_url)

    def plan_client(self, is_async: bool) -> Any:
        """What performs this provider's plans (files, batches): the SDK client, or on the
        native transport our own HTTP (``plans.NativeCalls``)."""
        if self._native is not None:
            from ..plans import NativeCalls

            return NativeCalls(self._native.http, self._native.sdk_call)
        return self._async_client() if is_async else self._sync_client()

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        if self._native is not None:
            from .native import NATIVE_PARAMS

            return build_request(request, sdk_params=NATIVE_PARAMS,
                                 default_max_tokens=self._default_max_tokens,
                                 provider=self._key())
        return build_request(request, sdk_params=_sdk_params(),
                             default_max_tokens=self._default_max_tokens, provider=self._key())

    def _key(self) -> str:
        return self.key or PROVIDER

    # -- errors ----------------------------------------------------------------------------

    def _error(self, exc: BaseException) -> AisuiteLikeError:
        """An SDK / transport / argument exception -> our typed error (raise it ``from exc``).
        ``exc`` becomes its ``__cause__``, so it is scrubbed of the key too (tracebacks print
        it)."""
        inner = raised_inside(exc)
        if inner is not None:
            return inner
        scrub_exception(exc, self._secrets)
        return own_error_inside(exc) or map_sdk_error(exc, self._key(), self._secrets)


    # -- calls -----------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        if self._native is not None:
            return _retry.call(self._calls, self._native_complete_once,
                               self._native.request(self._kwargs(request)),
                               self._calls.bounds(request.timeout))
        return _retry.call(self._calls, self._complete_once, self._kwargs(request),
                           self._calls.bounds(request.timeout))

    def acomplete(self, request: ChatRequest) -> Coroutine[Any, Any, ChatCompletionResponse]:
        # a plain function handing out the retry layer's coroutine: no frame of its own held
        # while the request is in flight (its callers await it at once)
        if self._native is not None:
            return _retry.acall(self._calls, self._native_acomplete_once,
                                self._native.request(self._kwargs(request)),
                                self._calls.bounds(request.timeout))
        return _retry.acall(self._calls, self._acomplete_once, self._kwargs(request),
                            self._calls.bounds(request.timeout))

    def _native_complete_once(self, http_request: Any) -> ChatCompletionResponse:
        reply = self._native.http.post(http_request)
        return self._native_read(reply)

    def _native_acomplete_once(self, http_request: Any) -> Awaitable[ChatCompletionResponse]:
        return self._native.http.aread(http_request, self._native_read)  # type: ignore[no-any-return]

    def _native_read(self, reply: Any) -> ChatCompletionResponse:
        request_id = reply.headers.get("request-id")
        note(reply.status, reply.headers, request_id=request_id, url=reply.url)
        return self._read(reply.status, request_id, reply.content)

    def _complete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        try:
            raw = self._sync_client().messages.with_raw_response.create(**kwargs)
            body = raw.http_response.read()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse(raw, body)

    async def _acomplete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        try:
            raw = await self._async_client().messages.with_raw_response.create(**kwargs)
            body = await raw.http_response.aread()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse(raw, body)

    def _parse(self, raw: Any, body: bytes) -> ChatCompletionResponse:
        note_response(raw.http_response, raw.request_id)  # for with_raw_response (docs/client.md)
        return self._read(raw.http_response.status_code, raw.request_id, body)

    def _read(self, status: int, request_id: Optional[str], body: bytes
              ) -> ChatCompletionResponse:
        provider = self._key()
        data = decode_json(body, provider, status_code=status, request_id=request_id)
        return with_request_id(read_reply(lambda: parse_response(data, provider=provider),
                                          provider, status, request_id), request_id)

    # -- the models list (docs/models.md): GET /v1/models, page by page, each page through
    # the same retries --

    def list_models(self) -> list[Model]:
        models: list[Model] = []
        after: Optional[str] = None
        for _ in range(_MAX_MODEL_PAGES):
            page, after = _retry.call(self._calls, self._models_page, after,
                                      self._calls.bounds())
            models += page
            if after is None:
                break
        return models

    async def alist_models(self) -> list[Model]:
        models: list[Model] = []
        after: Optional[str] = None
        for _ in range(_MAX_MODEL_PAGES):
            page, after = await _retry.acall(self._calls, self._amodels_page, after,
                                             self._calls.bounds())
            models += page
            if after is None:
                break
        return models

    def _models_page(self, after: Optional[str]) -> tuple[list[Model], Optional[str]]:
        if self._native is not None:
            return self._native_page(self._native.http.post(
                self._native.models(_page_args(after))))
        try:
            raw = self._sync_client().models.with_raw_response.list(
                **_page_args(after))
            body = raw.http_response.read()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse_page(raw, body)

    async def _amodels_page(self, after: Optional[str]) -> tuple[list[Model], Optional[str]]:
        if self._native is not None:
            return self._native_page(await self._native.http.apost(
                self._native.models(_page_args(after))))
        try:
            raw = await self._async_client().models.with_raw_response.list(
                **_page_args(after))
            body = await raw.http_response.aread()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse_page(raw, body)

    def _parse_page(self, raw: Any, body: bytes) -> tuple[list[Model], Optional[str]]:
        return self._read_page(raw.http_response.status_code, raw.request_id, body)

    def _native_page(self, reply: Any) -> tuple[list[Model], Optional[str]]:
        return self._read_page(reply.status, reply.headers.get("request-id"), reply.content)

    def _read_page(self, status: int, request_id: Optional[str], body: bytes
                   ) -> tuple[list[Model], Optional[str]]:
        provider = self._key()
        data = decode_json(body, provider, status_code=status, request_id=request_id)
        return read_reply(lambda: parse_models_page(data, provider), provider, status,
                          request_id)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        """Translate now (bad arguments raise at ``create``), send on first iteration."""
        request = request if request.stream else request.replace(stream=True)
        if self._native is not None:
            return _retry.stream(self._calls, self._native_stream,
                                 self._native.request(self._kwargs(request)),
                                 self._calls.bounds(request.timeout))
        return _retry.stream(self._calls, self._stream, self._kwargs(request),
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        """Async twin of ``stream``: returns the async generator (no await needed)."""
        request = request if request.stream else request.replace(stream=True)
        if self._native is not None:
            return _retry.astream(self._calls, self._native_astream,
                                  self._native.request(self._kwargs(request)),
                                  self._calls.bounds(request.timeout))
        return _retry.astream(self._calls, self._astream, self._kwargs(request),
                              self._calls.bounds(request.timeout))

    def _native_stream(self, http_request: Any) -> Iterator[ChatCompletionChunk]:
        body: Optional[StreamBody] = None

        def opened(reply: Any) -> None:
            nonlocal body
            request_id = reply.headers.get("request-id")
            note(reply.status, reply.headers, request_id=request_id, url=reply.url)
            body = _stream_body(self._key(), request_id, self._secrets)

        data_in = self._native.http.stream(http_request, opened)
        try:
            for data in data_in:
                assert body is not None
                yield from body.feed(data)
            if body is None:  # the reply opened and ended at once
                body = _stream_body(self._key(), None, self._secrets)
            yield from body.end()
            body.finish()
        finally:
            data_in.close()  # releases the connection, also on early exit

    async def _native_astream(self, http_request: Any) -> AsyncIterator[ChatCompletionChunk]:
        body: Optional[StreamBody] = None

        def opened(reply: Any) -> None:
            nonlocal body
            request_id = reply.headers.get("request-id")
            note(reply.status, reply.headers, request_id=request_id, url=reply.url)
            body = _stream_body(self._key(), request_id, self._secrets)

        data_in = self._native.http.astream(http_request, opened)
        try:
            async for data in data_in:
                assert body is not None
                for chunk in body.feed(data):
                    yield chunk
            if body is None:
                body = _stream_body(self._key(), None, self._secrets)
            for chunk in body.end():
                yield chunk
            body.finish()
        finally:
            await data_in.aclose()

    def _sdk_stream_body(self, resp: Any) -> StreamBody:
        """The body of a stream the SDK opened: an error event inside it raises its typed
        error with the SDK's own exception for it as ``__cause__``."""
        from .stream import StreamBody  # loads with the first stream (see _stream_body)

        response, secrets = resp.http_response, self._secrets
        return StreamBody(self._key(), resp.request_id, secrets,
                          lambda event: sdk_stream_error(event, response, secrets))

    def _stream(self, kwargs: dict[str, Any]) -> Iterator[ChatCompletionChunk]:
        try:  # the request is sent here, on first iteration; status errors surface now
            resp = self._sync_client().messages.with_streaming_response.create(
                **kwargs).__enter__()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        body = self._sdk_stream_body(resp)
        note_response(resp.http_response, resp.request_id)
        try:
            for data in resp.iter_bytes():
                yield from body.feed(data)
            yield from body.end()
            body.finish()
        except self._sdk_errors as exc:  # the connection broke while reading the body
            raise self._error(exc) from exc
        finally:  # also on an early break (GeneratorExit): release the connection
            resp.close()

    async def _astream(self, kwargs: dict[str, Any]) -> AsyncIterator[ChatCompletionChunk]:
        try:
            resp = await self._async_client().messages.with_streaming_response.create(
                **kwargs).__aenter__()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        body = self._sdk_stream_body(resp)
        note_response(resp.http_response, resp.request_id)
        try:
            async for data in resp.iter_bytes():
                for chunk in body.feed(data):
                    yield chunk
            for chunk in body.end():
                yield chunk
            body.finish()
        except self._sdk_errors as exc:
            raise self._error(exc) from exc
        finally:
            await resp.close()

    # -- token counting (docs/models.md): POST /v1/messages/count_tokens --

    def _count(self, request: ChatRequest) -> "Plan[TokenCount]":
        from .media import count_plan

        return count_plan(self._kwargs(request), self._key(), f"{self._key()}:{request.model}")

    def _native_count(self, request: ChatRequest) -> Any:
        from .media import COUNT_PARAMS

        kwargs = self._kwargs(request)
        return self._native.count_request({k: kwargs[k] for k in COUNT_PARAMS if k in kwargs})

    def _native_counted(self, reply: Any, model: str) -> TokenCount:
        from .._common import counted

        request_id = reply.headers.get("request-id")
        note(reply.status, reply.headers, request_id=request_id, url=reply.url)
        data = decode_json(reply.content, self._key(), status_code=reply.status,
                           request_id=request_id)
        count: TokenCount = read_reply(
            lambda: counted(data, self._key(), "input_tokens",
                            "anthropic messages/count_tokens", f"{self._key()}:{model}"),
            self._key(), reply.status, request_id)
        return count

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        if self._native is not None:
            native = self._native
            return _retry.call(
                self._calls, lambda r: self._native_counted(native.http.post(r), request.model),
                self._native_count(request), self._calls.bounds(request.timeout))
        from ..plans import run

        return run(self, self._sync_client(), self._count(request),
                   self._calls.bounds(request.timeout))

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        if self._native is not None:
            native = self._native

            async def once(http_request: Any) -> TokenCount:
                return self._native_counted(await native.http.apost(http_request),
                                            request.model)

            return await _retry.acall(self._calls, once, self._native_count(request),
                                      self._calls.bounds(request.timeout))
        from ..plans import arun

        return await arun(self, self._async_client(), self._count(request),
                          self._calls.bounds(request.timeout))

    # -- the Files API (docs/files.md): providers/anthropic/media.py's plans --

    def files(self, request: FileRequest) -> Any:
        from ..plans import run
        from .media import files_plan

        return run(self, self.plan_client(False), files_plan(request, self.key or PROVIDER),
                   self._calls.bounds(request.timeout))

    async def afiles(self, request: FileRequest) -> Any:
        from ..plans import arun
        from .media import files_plan

        return await arun(self, self.plan_client(True),
                          files_plan(request, self.key or PROVIDER),
                          self._calls.bounds(request.timeout))

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        if self._native is not None:
            self._native.http.close()

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.close()
            self._async = None
        if self._native is not None:
            await self._native.http.aclose()

