"""``GoogleProvider``: Gemini API and Vertex AI through google-genai, a thin transport.

It sends the translated body (translate.py) through the SDK's own API client (base URL, auth
incl. Vertex credentials, headers, error raising; reached through _sdk_seam.py) and hands
the raw JSON to the translator, so the SDK builds no pydantic models; streams go through
stream.py, errors through errors.py, retries through the shared retry layer
(providers/retry.py). See docs/providers/google.md.
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import (
    AuthenticationError,
    ConfigurationError,
    InvalidModelError,
    UnsupportedParameterError,
    redacted,
    scrub_exception,
)
from ...core.exchange import CAPTURE, Headers, note, note_response
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
    bad_shape,
    bound_sync_io,
    close_at_loop_shutdown,
    host_of_url,
    redirect_hooks,
    redirect_middleware,
)
from .._native import CONFIG_KEYS as _NATIVE_KEYS, async_library, native_transport
from ..base import ChatRequest, EmbeddingRequest, Provider, TranscriptionRequest, mapped_errors
from . import _sdk_seam as seam
from .endpoints import GoogleEndpoints
from .errors import _NAME, _request_id, map_sdk_error
from .models import models_path, parse_models_page
from .stream import StreamTranslator, _BodyEvents
from .translate import (
    GeminiCall,
    build_request,
    continuation_token,
    merge_continued,
    parse_response,
)

if TYPE_CHECKING:
    from ...core.audio import AudioInput
    from ...core.embeddings import CreateEmbeddingResponse

__all__ = ["GoogleProvider"]

_CONFIG_KEYS = frozenset({"api_key", "base_url", "timeout", "default_headers", "http_client",
                          "vertexai", "project", "location", "credentials", "api_version",
                          "async_transport"}) | _retry.CONFIG_KEYS | _NATIVE_KEYS
# Each attempt's bound when none is configured: 600 s as the OpenAI and Anthropic SDKs
# (google-genai has none), with their 5 s to connect. Sent as no header.
DEFAULT_TIMEOUT = 600.0
_DEFAULT_CONNECT_TIMEOUT = 5.0
_DEFAULT_HTTPX_TIMEOUT: Any = None


#: Pages of the models list read at most: a server whose page token never ends cannot keep
#: a list going.
_MAX_MODEL_PAGES = 100


class _Prepared:
    """One translated call: the SDK client (kept alive by whoever holds this), the path, the
    call, the SDK-native per-request ``http_options``, the model and the attempt timeout."""

    __slots__ = ("client", "path", "call", "http_options", "model", "timeout")

    def __init__(self, client: seam.ApiClient, path: str, call: GeminiCall, http_options: Any,
                 model: str, timeout: Any) -> None:
        self.client = client
        self.path = path
        self.call = call
        self.http_options = http_options
        self.model = model
        self.timeout = timeout


def _valid_timeout(timeout: Any) -> bool:
    """Seconds > 0, or an ``httpx2.Timeout``."""
    if isinstance(timeout, bool):
        return False
    if isinstance(timeout, (int, float)):
        return timeout > 0
    import httpx2

    return isinstance(timeout, httpx2.Timeout)


def _attempt_timeout(timeout: Any, aiohttp: bool) -> Any:
    """The configured timeout (seconds or an ``httpx2.Timeout``; None: the default) in the
    form the transport takes: aiohttp wants one number of seconds."""
    global _DEFAULT_HTTPX_TIMEOUT
    if timeout is None:
        if aiohttp:
            return DEFAULT_TIMEOUT
        if _DEFAULT_HTTPX_TIMEOUT is None:  # built once: this runs on every call
            import httpx2

            _DEFAULT_HTTPX_TIMEOUT = httpx2.Timeout(DEFAULT_TIMEOUT,
                                                    connect=_DEFAULT_CONNECT_TIMEOUT)
        return _DEFAULT_HTTPX_TIMEOUT
    if aiohttp and not isinstance(timeout, (int, float)):
        values = [v for v in (getattr(timeout, name, None) for name in
                              ("read", "connect", "write", "pool")) if v is not None]
        return max(values) if values else None
    return timeout


def _vertex_mtls() -> bool:
    """Whether google-genai sends Vertex AI requests through google-auth's mTLS session (a
    client certificate is configured), which an httpx2 ``client_args`` would turn off."""
    try:
        from google.auth.transport import mtls

        return bool(mtls.should_use_client_cert()  # type: ignore[no-untyped-call]
                    and mtls.has_default_client_cert_source())  # type: ignore[no-untyped-call]
    except Exception:  # an older google-auth: google-genai does not use it either
        return False


def _note_reply(response: Any, http_request: Any) -> None:
    """Record a reply for ``with_raw_response`` (docs/client.md): google-genai hands over its
    headers only (its errors were raised, so the status is 200)."""
    if CAPTURE.get() is not None:
        note(200, Headers(response.headers), request_id=_request_id(response.headers),
             url=str(http_request.url))


def _note_stream(raw: Any) -> None:
    """Record a stream's reply: an ``httpx2.Response``, or an aiohttp response."""
    if CAPTURE.get() is None:
        return
    if hasattr(raw, "status_code"):
        note_response(raw, _request_id(raw.headers))
    else:
        headers = Headers(dict(raw.headers))
        note(raw.status, headers, request_id=_request_id(headers), url=str(raw.url))


def _note_native(reply: Any) -> None:
    """Record a native transport's reply (``_native.Reply``) for ``with_raw_response``."""
    if CAPTURE.get() is not None:
        note(reply.status, reply.headers, request_id=_request_id(reply.headers), url=reply.url)


class GoogleProvider(GoogleEndpoints, Provider):
    """Gemini API (an API key) or Vertex AI (``vertexai=True`` with ``project`` and
    ``location``, credentials as google-genai takes them) through google-genai.

    Config: ``api_key`` (else GEMINI_API_KEY, then GOOGLE_API_KEY; on Vertex AI only when
    given: express mode), ``base_url``, ``timeout`` (seconds, default 600), ``max_retries``
    (default 2 -> google-genai ``HttpRetryOptions(attempts=max_retries + 1)``),
    ``default_headers``, ``http_client`` (an ``httpx2.Client`` and/or ``httpx2.AsyncClient``, or
    a tuple of both), ``vertexai``, ``project``, ``location``, ``credentials``,
    ``api_version``, ``retry_options`` (other ``HttpRetryOptions`` fields, e.g.
    ``initial_delay``).
    """

    #: Gemini's own tools (docs/hosted-tools.md).
    hosted_tool_kinds = frozenset({"web_search", "code_execution", "web_fetch"})

    def __init__(self, **config: Any) -> None:
        if "retry_options" in config:
            raise ConfigurationError(
                "retry_options is not used: retries follow one policy on every provider; set "
                "max_retries (default 2) and max_retry_wait (default 60 s) instead")
        unknown = sorted(set(config) - _CONFIG_KEYS)
        if unknown:
            from ...core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message("google", unknown, _CONFIG_KEYS))
        config = dict(config)
        native = native_transport(config, _NAME)
        native_async = "aiohttp"
        if native:
            native_async = async_library(config.pop("async_transport", None), _NAME)
            refused = sorted({"http_client", "vertexai", "project",
                              "location", "credentials"} & set(config))
            if refused:
                raise ConfigurationError(
                    f"transport='native' serves the Gemini API (an API key) on connections of "
                    f"its own: remove {refused} from provider_configs['google'] (Vertex AI and "
                    "your own HTTP clients go through the SDK transport)")
        self._calls = _retry.CallPolicy.from_config(
            config, _NAME, default_timeout=DEFAULT_TIMEOUT,
            host=host_of_url(config.get("base_url") or (
                "https://generativelanguage.googleapis.com" if not config.get("vertexai")
                else f"https://{config.get('location') or 'aiplatform'}.googleapis.com")))
        transport = config.pop("async_transport", None)
        if transport not in (None, "httpx", "aiohttp"):
            raise ConfigurationError(
                f"async_transport must be 'httpx' or 'aiohttp', got {transport!r}")
        if transport == "aiohttp":
            if self._http_clients_given(config)[1] is not None:
                raise ConfigurationError("pass either async_transport='aiohttp' or an async "
                                         "http_client, not both")
            import importlib.util

            if importlib.util.find_spec("aiohttp") is None:
                from ...core.errors import MissingDependencyError

                raise MissingDependencyError("async_transport='aiohttp' needs aiohttp: "
                                             'pip install "aisuite-like[aiohttp]"')
        self._aiohttp = transport == "aiohttp"
        self.max_concurrency = self._calls.limit.limit if self._calls.limit else None
        if config.get("timeout") is not None and not _valid_timeout(config["timeout"]):
            raise ConfigurationError(
                "timeout must be a number of seconds > 0 (or an httpx2.Timeout) for provider "
                f"'google', got {config['timeout']!r}")
        self.key = _NAME
        self._vertex = bool(config.get("vertexai"))
        api_key = config.get("api_key")
        if api_key is None and not self._vertex:
            api_key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY") or None
            if api_key is None:
                raise AuthenticationError(
                    "no API key for provider 'google': set GEMINI_API_KEY (or GOOGLE_API_KEY) or "
                    "pass provider_configs={'google': {'api_key': ...}}; for Vertex AI pass "
                    "vertexai=True, project=... and location=...", provider=_NAME)
        if not self._vertex and (config.get("project") or config.get("location")):
            raise ConfigurationError("project/location are Vertex AI settings: add vertexai=True")
        self._api_key: Optional[str] = clean_api_key(api_key, _NAME)
        self._config = config
        self._client: Optional[seam.ApiClient] = None
        self._own_async_http: Any = None
        #: per event loop: what closes google-genai's client of that loop when it shuts down
        self._loop_closers: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
        self._paths: dict[tuple[str, bool], str] = {}
        self._lock = threading.Lock()
        self._native: Any = None
        if native:  # our own HTTP instead of google-genai's (docs/transports.md)
            from .native import GoogleNative

            self._native = GoogleNative(self._api_key, config, (self._api_key,),
                                        self._calls.host)
            self._native.http.limits = self._calls.body  # max_reply_bytes, max_event_bytes
            self._native.http.async_library = native_async

    def __repr__(self) -> str:  # never shows the key
        return f"GoogleProvider(vertexai={self._vertex})"

    # -- the SDK client: created on first use, shared by sync and async calls --

    def _http_clients(self) -> tuple[Any, Any]:
        return self._http_clients_given(self._config)

    @staticmethod
    def _http_clients_given(config: Mapping[str, Any]) -> tuple[Any, Any]:
        """``http_client`` config (one client, or a tuple of a sync and an async one) ->
        (sync, async)."""
        import httpx2

        given = config.get("http_client")
        sync_client = async_client = None
        for item in given if isinstance(given, (tuple, list)) else (given,):
            if item is None:
                continue
            if isinstance(item, httpx2.AsyncClient):
                async_client = item
            elif isinstance(item, httpx2.Client):
                sync_client = item
            else:
                raise ConfigurationError(
                    "http_client must be an httpx2.Client or httpx2.AsyncClient (or a tuple of "
                    f"both), got {type(item).__name__}")
        return sync_client, async_client

    def _sdk(self) -> seam.ApiClient:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._build_client()
                client = self._client
        return client

    def _build_client(self) -> seam.ApiClient:
        from google import genai
        from google.genai import types as gtypes

        config = self._config
        sync_http, async_http = self._http_clients()
        if async_http is None and not self._aiohttp:
            # google-genai sends async requests through aiohttp whenever aiohttp is installed;
            # its own per-event-loop httpx2 client keeps every call on the httpx2 stack.
            hooks = redirect_hooks(self.key, is_async=True, limits=self._calls.body)
            hooks["request"] = [self._close_with_its_loop]
            async_http = self._own_async_http = seam.async_http_client(
                follow_redirects=True, event_hooks=hooks)
        # Retries are ours (providers/retry.py), the same on every family: one SDK attempt
        # (its retry_options also stop the aiohttp path's own implicit retry). The timeout is
        # set on each request by _send, so no X-Server-Timeout header goes out unless the
        # user configured a timeout.
        options: dict[str, Any] = {"retry_options": gtypes.HttpRetryOptions(attempts=1)}
        if async_http is not None:  # else google-genai's aiohttp transport
            options["httpx_async_client"] = async_http
        if sync_http is not None:
            options["httpx_client"] = sync_http
        elif not (self._vertex and _vertex_mtls()):  # (google-auth's own session then)
            options["client_args"] = {"event_hooks": redirect_hooks(self.key, is_async=False,
                                                limits=self._calls.body)}
        if config.get("base_url"):
            options["base_url"] = config["base_url"]
        if config.get("default_headers"):
            options["headers"] = dict(config["default_headers"])
        if config.get("api_version"):
            options["api_version"] = config["api_version"]
        elif not self._vertex:
            # google-genai 3 defaults the Gemini API to v1, which lacks features this
            # translator uses (responseJsonSchema, thinking, function-call ids); the recorded
            # exchanges and Google's docs use v1beta. Vertex AI keeps the SDK's v1beta1.
            options["api_version"] = "v1beta"
        kwargs: dict[str, Any] = {"http_options": gtypes.HttpOptions(**options)}
        if self._vertex:
            kwargs["vertexai"] = True
            for name in ("project", "location", "credentials"):
                if config.get(name) is not None:
                    kwargs[name] = config[name]
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        try:
            api = seam.ApiClient(genai.Client(**kwargs))
        except ValueError as exc:
            raise ConfigurationError(redacted(f"google-genai rejected the configuration: {exc}",
                                             (self._api_key,))) from exc
        if self._aiohttp:
            # the redirect check on every aiohttp request (docs/status.md)
            seam.set_aiohttp_middlewares(api, (redirect_middleware(self.key),))
        # timeout bounds the whole attempt (a sync client the user gave included)
        bound_sync_io(seam.sync_http_client(api))
        return api

    def _path(self, client: seam.ApiClient, model: str, stream: bool) -> str:
        path = self._paths.get((model, stream))
        if path is None:
            try:
                resource = seam.model_resource(client, model)
            except ValueError as exc:
                raise InvalidModelError(f"invalid Gemini model name {model!r}: {exc}") from exc
            path = resource + (":streamGenerateContent?alt=sse" if stream else ":generateContent")
            self._paths[(model, stream)] = path
        return path

    def _http_options(self, request: ChatRequest, call: GeminiCall) -> Any:
        """A native ``http_options`` argument (a dict or an ``HttpOptions``) as the SDK's
        ``HttpOptions``, or None. The attempt timeout is applied by ``_build``."""
        native = call.http_options
        timeout = request.timeout
        if timeout is not None and not _valid_timeout(timeout):
            raise UnsupportedParameterError(
                f"timeout must be a number of seconds > 0 (or an httpx2.Timeout) on "
                f"{self.key}, got {timeout!r}", parameter="timeout", provider=self.key)
        if not native:
            return None
        from google.genai import types as gtypes

        if isinstance(native, gtypes.HttpOptions):
            return native
        try:
            return gtypes.HttpOptions(**native)
        except Exception as exc:  # pydantic ValidationError: a wrong native http_options key
            raise UnsupportedParameterError(
                f"google-genai rejected http_options: {exc}", parameter="http_options",
                provider=self.key) from exc

    def _error(self, exc: BaseException) -> BaseException:
        if isinstance(exc, TypeError):
            # The SDK could not send a value (e.g. a provider-native argument that is not
            # JSON): the caller's argument, not a bare TypeError (docs/client.md).
            return UnsupportedParameterError(
                redacted(f"{self.key} rejected an argument: {exc}. Check the provider-native "
                        "keyword arguments you passed.", (self._api_key,)), provider=self.key)
        mapped = map_sdk_error(exc, self.key, (self._api_key,))
        if mapped is not exc:
            scrub_exception(exc, (self._api_key,))  # it becomes __cause__: tracebacks print it
        return mapped

    def _prepare(self, request: ChatRequest, stream: bool) -> "_Prepared":
        call = build_request(request, self.key, vertex=self._vertex)
        if self._native is not None:
            return self._prepare_native(request, call, stream)
        client = self._sdk()
        timeout = request.timeout if request.timeout is not None else self._config.get("timeout")
        return _Prepared(client, self._path(client, request.model, stream), call,
                         self._http_options(request, call), request.model, timeout)

    def _build(self, p: "_Prepared", body: dict[str, Any], aiohttp: bool,
               stream: bool = False) -> Any:
        """The SDK's HTTP request for ``body``, bounded by this attempt's timeout. aiohttp
        takes one total timeout, which would cut a stream however steadily its chunks come:
        a stream over aiohttp gets none (the retry layer bounds its first chunk and gaps)."""
        http_request = p.client.build_request("post", p.path, body, p.http_options)
        if http_request.timeout is None:  # no native http_options timeout: ours
            if not (aiohttp and stream):
                http_request.timeout = _attempt_timeout(p.timeout, aiohttp)
            if isinstance(p.timeout, (int, float)):  # what google-genai sends for a timeout
                http_request.headers["X-Server-Timeout"] = str(math.ceil(p.timeout))
        return http_request

    def _prepare_native(self, request: ChatRequest, call: GeminiCall, stream: bool
                        ) -> "_Prepared":
        """``_Prepared`` of the native transport: the URL as its path, the request headers
        as its options; the body is encoded per request (a continuation adds a token)."""
        timeout = request.timeout if request.timeout is not None else self._config.get("timeout")
        if request.timeout is not None and not _valid_timeout(request.timeout):
            raise UnsupportedParameterError(
                f"timeout must be a number of seconds > 0 (or an httpx2.Timeout) on "
                f"{self.key}, got {request.timeout!r}", parameter="timeout", provider=self.key)
        native = self._native
        return _Prepared(None, native.url(request.model, stream), call,  # type: ignore[arg-type]  # no SDK client
                         native.headers(call.http_options, timeout), request.model, timeout)

    def _body(self, response: Any) -> dict[str, Any]:
        """The JSON object of a 2xx reply (errors were raised by the SDK); a body that is not
        one is an ``APIResponseValidationError``."""
        text = response.response_stream[0] if response.response_stream else ""
        return self._decode(text, getattr(response, "headers", None))

    def _decode(self, text: Any, headers: Any) -> dict[str, Any]:
        request_id = _request_id(headers)
        data = decode_json(text, self.key, status_code=200, request_id=request_id)
        if not isinstance(data, dict):
            error = bad_shape(self.key, "the reply", "an object", data)
            error._add_context(200, request_id)
            raise error
        return data

    def _parse(self, data: dict[str, Any], model: str, response: Any) -> ChatCompletionResponse:
        request_id = _request_id(getattr(response, "headers", None))
        return with_request_id(read_reply(lambda: parse_response(data, self.key, model),
                                          self.key, 200, request_id), request_id)

    # -- calls --

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        once = self._complete_once if self._native is None else self._native_complete_once
        return _retry.call(self._calls, once, self._prepare(request, False),
                           self._calls.bounds(request.timeout))

    def acomplete(self, request: ChatRequest) -> Coroutine[Any, Any, ChatCompletionResponse]:
        # a plain function handing out the retry layer's coroutine: no frame of its own held
        # while the request is in flight (its callers await it at once)
        once = self._acomplete_once if self._native is None else self._native_acomplete_once
        return _retry.acall(self._calls, once, self._prepare(request, False),
                            self._calls.bounds(request.timeout))

    def _native_complete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        native = self._native
        body = p.call.body
        reply = native.http.post(native.request(p.path, p.http_options, body))
        data = self._decode(reply.content, reply.headers)
        while (token := continuation_token(data)) is not None:
            more = {**body, "continuationToken": token}
            reply = native.http.post(native.request(p.path, p.http_options, more))
            data = merge_continued(data, self._decode(reply.content, reply.headers))
        _note_native(reply)
        return self._parse(data, p.model, reply)

    async def _native_acomplete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        native = self._native
        body = p.call.body
        reply = await native.http.apost(native.request(p.path, p.http_options, body))
        data = self._decode(reply.content, reply.headers)
        while (token := continuation_token(data)) is not None:
            more = {**body, "continuationToken": token}
            reply = await native.http.apost(native.request(p.path, p.http_options, more))
            data = merge_continued(data, self._decode(reply.content, reply.headers))
        _note_native(reply)
        return self._parse(data, p.model, reply)

    # A reply that stops with finish reason CONTINUATION and a continuationToken goes on in a
    # new request carrying the token, as google-genai's generate_content does; the parts are
    # joined and the usage summed.

    def _complete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        send = p.client.send
        with mapped_errors(self._error):
            body = p.call.body
            http_request = self._build(p, body, False)
            response = send(http_request, p.http_options)
            data = self._body(response)
            while (token := continuation_token(data)) is not None:
                more = {**body, "continuationToken": token}
                http_request = self._build(p, more, False)
                response = send(http_request, p.http_options)
                data = merge_continued(data, self._body(response))
        _note_reply(response, http_request)
        return self._parse(data, p.model, response)

    async def _acomplete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        asend = p.client.asend
        with mapped_errors(self._error):
            body = p.call.body
            http_request = self._build(p, body, self._aiohttp)
            response = await asend(http_request, p.http_options)
            data = self._body(response)
            while (token := continuation_token(data)) is not None:
                more = {**body, "continuationToken": token}
                http_request = self._build(p, more, self._aiohttp)
                response = await asend(http_request, p.http_options)
                data = merge_continued(data, self._body(response))
        _note_reply(response, http_request)
        return self._parse(data, p.model, response)

    # -- token counting (docs/models.md): models/{model}:countTokens --

    def _count_prepared(self, request: ChatRequest) -> tuple["_Prepared", dict[str, Any]]:
        from .media import count_body

        call = build_request(request.replace(max_tokens=None, stream=False), self.key,
                             vertex=self._vertex)
        body = count_body(call.body, self._vertex)
        timeout = request.timeout if request.timeout is not None else self._config.get("timeout")
        if self._native is not None:  # the Gemini API on our own connections
            from .native import model_resource

            resource = model_resource(request.model)
            if "generateContentRequest" in body:
                body["generateContentRequest"]["model"] = resource
            native = self._native
            url = native.url(request.model, False).replace(":generateContent", ":countTokens")
            return _Prepared(None, url, call,  # type: ignore[arg-type]  # no SDK client
                             native.headers(call.http_options, timeout), request.model,
                             timeout), body
        client = self._sdk()
        try:
            resource = seam.model_resource(client, request.model)
        except ValueError as exc:
            raise InvalidModelError(f"invalid Gemini model name {request.model!r}: {exc}") \
                from exc
        if "generateContentRequest" in body:
            body["generateContentRequest"]["model"] = resource
        return _Prepared(client, resource + ":countTokens", call,
                         self._http_options(request, call), request.model, timeout), body

    def _counted(self, data: dict[str, Any], p: "_Prepared", response: Any,
                 http_request: Any) -> TokenCount:
        from .._common import counted

        _note_reply(response, http_request)
        count: TokenCount = read_reply(
            lambda: counted(data, self.key, "totalTokens", "gemini countTokens",
                            f"{self.key}:{p.model}"),
            self.key, 200, _request_id(getattr(response, "headers", None)))
        return count

    def _native_counted(self, p: "_Prepared", reply: Any) -> TokenCount:
        from .._common import counted

        _note_native(reply)
        data = self._decode(reply.content, reply.headers)
        count: TokenCount = read_reply(
            lambda: counted(data, self.key, "totalTokens", "gemini countTokens",
                            f"{self.key}:{p.model}"),
            self.key, 200, _request_id(reply.headers))
        return count

    def _count_once(self, prepared: tuple["_Prepared", dict[str, Any]]) -> TokenCount:
        p, body = prepared
        if self._native is not None:
            native = self._native
            return self._native_counted(p, native.http.post(
                native.request(p.path, p.http_options, body)))
        with mapped_errors(self._error):
            http_request = self._build(p, body, False)
            response = p.client.send(http_request, p.http_options)
            data = self._body(response)
        return self._counted(data, p, response, http_request)

    async def _acount_once(self, prepared: tuple["_Prepared", dict[str, Any]]) -> TokenCount:
        p, body = prepared
        if self._native is not None:
            native = self._native
            return self._native_counted(p, await native.http.apost(
                native.request(p.path, p.http_options, body)))
        with mapped_errors(self._error):
            http_request = self._build(p, body, self._aiohttp)
            response = await p.client.asend(http_request, p.http_options)
            data = self._body(response)
        return self._counted(data, p, response, http_request)

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        return _retry.call(self._calls, self._count_once, self._count_prepared(request),
                           self._calls.bounds(request.timeout))

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        return await _retry.acall(self._calls, self._acount_once,
                                  self._count_prepared(request),
                                  self._calls.bounds(request.timeout))

    # -- the models list (docs/models.md): page by page, each page through the same retries

    def list_models(self) -> list[Model]:
        models: list[Model] = []
        token: Optional[str] = None
        for _ in range(_MAX_MODEL_PAGES):
            page, token = _retry.call(self._calls, self._models_page, token,
                                      self._calls.bounds())
            models += page
            if token is None:
                break
        return models

    async def alist_models(self) -> list[Model]:
        models: list[Model] = []
        token: Optional[str] = None
        for _ in range(_MAX_MODEL_PAGES):
            page, token = await _retry.acall(self._calls, self._amodels_page, token,
                                             self._calls.bounds())
            models += page
            if token is None:
                break
        return models

    def _models_request(self, client: seam.ApiClient, token: Optional[str],
                        aiohttp: bool) -> Any:
        http_request = client.build_request("get", models_path(self._vertex, token), {}, None)
        http_request.timeout = _attempt_timeout(self._config.get("timeout"), aiohttp)
        return http_request

    def _models_page(self, token: Optional[str]) -> tuple[list[Model], Optional[str]]:
        if self._native is not None:
            reply = self._native.http.post(self._native.models(models_path(False, token)))
            return self._parse_page(self._decode(reply.content, reply.headers), reply)
        client = self._sdk()
        with mapped_errors(self._error):
            response = client.send(self._models_request(client, token, False), None)
            data = self._body(response)
        return self._parse_page(data, response)

    async def _amodels_page(self, token: Optional[str]) -> tuple[list[Model], Optional[str]]:
        if self._native is not None:
            reply = await self._native.http.apost(self._native.models(models_path(False, token)))
            return self._parse_page(self._decode(reply.content, reply.headers), reply)
        client = self._sdk()
        with mapped_errors(self._error):
            response = await client.asend(self._models_request(client, token, self._aiohttp),
                                          None)
            data = self._body(response)
        return self._parse_page(data, response)

    def _parse_page(self, data: dict[str, Any], response: Any
                    ) -> tuple[list[Model], Optional[str]]:
        return read_reply(lambda: parse_models_page(data, self.key, self._vertex), self.key,
                          200, _request_id(getattr(response, "headers", None)))

    # Streams use the API client's request/segments layer directly: its public
    # request_streamed() re-serialises every event and never closes the sync response on an
    # early exit. ``p.client`` stays referenced by the generator frame: a google-genai Client
    # closes its HTTP client when garbage-collected.

    # stream / astream translate at once, so a bad argument raises at create(stream=True) as
    # it does without stream; the request is sent on the first iteration.

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        opened = self._stream if self._native is None else self._native_stream
        return _retry.stream(self._calls, opened, self._prepare(request, True),
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        opened = self._astream if self._native is None else self._native_astream
        return _retry.astream(self._calls, opened, self._prepare(request, True),
                              self._calls.bounds(request.timeout))

    def _native_stream(self, p: "_Prepared") -> Iterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        native = self._native
        body = p.call.body
        while True:
            data_in = native.http.stream(native.request(p.path, p.http_options, body),
                                         _note_native)
            try:
                body_events = _BodyEvents(translator)
                for data in data_in:
                    yield from body_events.feed(data)
                yield from body_events.end()
            finally:
                data_in.close()  # releases the connection, also on early exit
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    async def _native_astream(self, p: "_Prepared") -> AsyncIterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        native = self._native
        body = p.call.body
        while True:
            data_in = native.http.astream(native.request(p.path, p.http_options, body),
                                          _note_native)
            try:
                body_events = _BodyEvents(translator)
                async for data in data_in:
                    for chunk in body_events.feed(data):
                        yield chunk
                for chunk in body_events.end():
                    yield chunk
            finally:
                await data_in.aclose()
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    def _stream(self, p: "_Prepared") -> Iterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        send = p.client.send
        body = p.call.body
        while True:
            raw = None
            try:
                with mapped_errors(self._error):
                    response = send(self._build(p, body, False), p.http_options, stream=True)
                    raw = response.response_stream
                    _note_stream(raw)
                    body_events = _BodyEvents(translator)
                    for data in raw.iter_bytes():
                        yield from body_events.feed(data)
                    yield from body_events.end()
            finally:
                if raw is not None:
                    raw.close()  # releases the connection, also on early exit
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    async def _astream(self, p: "_Prepared") -> AsyncIterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        asend = p.client.asend
        body = p.call.body
        while True:
            raw = None
            try:
                with mapped_errors(self._error):
                    response = await asend(
                        http_request=self._build(p, body, self._aiohttp, stream=True),
                        http_options=p.http_options, stream=True)
                    raw = response.response_stream
                    _note_stream(raw)
                    body_events = _BodyEvents(translator)
                    reads = (raw.aiter_bytes() if hasattr(raw, "aiter_bytes")
                             else raw.content.iter_any())  # httpx2, or an aiohttp response
                    async for data in reads:
                        for chunk in body_events.feed(data):
                            yield chunk
                    for chunk in body_events.end():
                        yield chunk
            finally:
                if raw is not None:
                    closing = getattr(raw, "aclose", None)
                    if closing is not None:
                        await closing()
                    else:  # an aiohttp response
                        raw.close()
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    # -- embeddings (docs/embeddings.md): google-genai's public ``models.embed_content`` --

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        from .embeddings import embeddings_limit

        self._embed_call(request)  # what Gemini cannot honour raises before anything is sent
        return embeddings_limit(request.model, self._vertex)

    def _embed_call(self, request: EmbeddingRequest) -> tuple[str, list[Any], Any]:
        """(model, contents, ``EmbedContentConfig``), checked: a config field google-genai
        does not know raises here. On the native transport: (model, the request, None)."""
        from .embeddings import build_embed_call, native_embed_body

        contents, config = build_embed_call(request, self.key)
        timeout = request.timeout if request.timeout is not None else self._config.get("timeout")
        if timeout is not None and not _valid_timeout(timeout):
            raise UnsupportedParameterError(
                f"timeout must be a number of seconds > 0 (or an httpx2.Timeout) on "
                f"{self.key}, got {timeout!r}", parameter="timeout", provider=self.key)
        seconds = _retry.timeout_seconds(timeout)
        if self._native is not None:  # the batchEmbedContents google-genai sends
            from .native import model_resource

            native = self._native
            body = native_embed_body(model_resource(request.model), contents, config,
                                     self.key)
            http_request = native.request(
                native.call_url(request.model, "batchEmbedContents"),
                native.headers(config.get("http_options"), seconds), body)
            return request.model, [http_request], None
        from google.genai import types as gtypes

        if seconds is not None and config.get("http_options") is None:
            config["http_options"] = {"timeout": max(1, math.ceil(seconds * 1000))}  # ms
        try:
            checked = gtypes.EmbedContentConfig(**config)
        except Exception as exc:  # pydantic's ValidationError: a wrong native argument
            raise UnsupportedParameterError(
                f"google-genai rejected the embeddings arguments: {exc}", provider=self.key
            ) from exc
        return request.model, contents, checked

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return _retry.call(self._calls, self._embed_once, self._embed_call(request),
                           self._calls.bounds(request.timeout))

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return await _retry.acall(self._calls, self._aembed_once, self._embed_call(request),
                                  self._calls.bounds(request.timeout))

    def _native_embeddings(self, reply: Any, model: str) -> CreateEmbeddingResponse:
        from .embeddings import parse_embeddings

        _note_native(reply)
        data = self._decode(reply.content, reply.headers)
        return read_reply(lambda: parse_embeddings(data, self.key, model), self.key, 200,
                          _request_id(reply.headers))

    def _embed_once(self, call: tuple[str, list[Any], Any]) -> CreateEmbeddingResponse:
        model, contents, config = call
        if self._native is not None:
            return self._native_embeddings(self._native.http.post(contents[0]), model)
        with mapped_errors(self._error):
            response = self._sdk().client.models.embed_content(
                model=model, contents=contents, config=config)
        return self._embeddings(response, model)

    async def _aembed_once(self, call: tuple[str, list[Any], Any]) -> CreateEmbeddingResponse:
        model, contents, config = call
        if self._native is not None:
            return self._native_embeddings(await self._native.http.apost(contents[0]), model)
        with mapped_errors(self._error):
            response = await self._sdk().client.aio.models.embed_content(
                model=model, contents=contents, config=config)
        return self._embeddings(response, model)

    def _embeddings(self, response: Any, model: str) -> CreateEmbeddingResponse:
        from .embeddings import parse_embeddings

        request_id = _request_id(getattr(getattr(response, "sdk_http_response", None),
                                         "headers", None))
        return read_reply(lambda: parse_embeddings(response, self.key, model), self.key, 200,
                          request_id)
    # -- transcription: Gemini's audio understanding (docs/audio.md; google/audio.py) --

    #: The row of the transcription parameter table, and what Gemini takes inline (WAV, MP3,
    #: AIFF, AAC, OGG Vorbis, FLAC; the request is at most 20 MB, and base64 adds a third).
    audio_params = "gemini"
    @property
    def audio_input(self) -> AudioInput:
        """The audio formats and upload size Gemini's transcription accepts."""
        from ...core.audio import MB, AudioInput

        return AudioInput(frozenset({"wav", "mp3", "mpeg", "mpga", "aiff", "aif", "aac", "ogg",
                                     "oga", "flac"}), 14 * MB)

    def transcribe(self, request: TranscriptionRequest) -> Any:
        from .audio import transcript_events, transcription_chat, transcription_from

        chat = transcription_chat(request)
        if request.stream:
            return transcript_events(self.stream(chat))
        return transcription_from(self.complete(chat), request)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        from .audio import atranscript_events, transcription_chat, transcription_from

        chat = transcription_chat(request)
        if request.stream:
            return atranscript_events(self.astream(chat))
        return transcription_from(await self.acomplete(chat), request)

    def close(self) -> None:
        if self._native is not None:
            self._native.http.close()
        api, self._client = self._client, None
        if api is not None:
            api.client.close()  # the SDK-owned sync HTTP client (a user's client stays open)

    async def _close_with_its_loop(self, request: Any) -> None:
        """A request hook of our async httpx2 client: the inner client google-genai keeps for
        this event loop is closed when the loop shuts down (``close_at_loop_shutdown``), so
        a sync client's ``acreate`` leaves no connection open after its ``asyncio.run``."""
        import asyncio

        loop = asyncio.get_running_loop()
        if loop in self._loop_closers:
            return
        inner = seam.loop_client(self._own_async_http)
        if inner is not None:
            self._loop_closers[loop] = close_at_loop_shutdown(inner.aclose,
                                                              lambda: inner.is_closed)

    async def aclose(self) -> None:
        if self._native is not None:
            await self._native.http.aclose()
        api, self._client = self._client, None
        own, self._own_async_http = self._own_async_http, None
        if own is not None:
            await own.aclose()
        if api is not None:
            await api.client.aio.aclose()
            api.client.close()
