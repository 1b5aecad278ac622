"""``OpenAIProvider``: OpenAI, Azure OpenAI and every OpenAI-compatible service through the
``openai`` SDK (docs/providers/openai.md).

The transport calls the SDK through its raw-response path (``with_raw_response``) so our
translator (``translate.py`` / ``stream.py``) reads the JSON once and the SDK builds no models;
errors are mapped by ``errors.py``; the SDK's private internals are reached only through
``_sdk_seam.py``. The SDK is imported when a client is first built.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Coroutine, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import (
    AuthenticationError,
    ConfigurationError,
    NotFoundError,
    UnsupportedParameterError,
    scrub_exception,
)
from ...core.exchange import note_reply, note_response
from ...core.reading import decode_json, read_reply
from ...core.secrets import clean_api_key
from ...core.types import ChatCompletionChunk, ChatCompletionResponse, Model, with_request_id
from .. import retry as _retry
from .._common import close_at_loop_shutdown, host_of_url, redirect_hooks
from .._native import (
    CONFIG_KEYS as _NATIVE_KEYS,
    async_library,
    native_transport,
)
from ..base import (
    ChatRequest,
    Provider,
    ResponsesRequest,
    mapped_errors,
)
from ._sdk_seam import bound_sync_client
from .endpoints import OpenAIEndpoints
from .errors import map_sdk_error, sdk_stream_error
from .models import parse_models
from .services import ID_RULES, SERVICES, ServiceSpec, _spec_for_endpoint, foreign_host
from .stream import StreamBody
from .transcription import OpenAITranscription
from .translate import build_request, parse_response

if TYPE_CHECKING:
    from ...core.responses import Response, ResponseEvent

# The Responses API, audio, embeddings and hosted-tool modules are imported by the methods
# that use them, so a process whose first call is a chat completion does not load them
# (cold start: benchmarks/README.md).

# Config keys every service understands, plus the family-specific ones.
_COMMON_CONFIG = frozenset({
    "api_key", "base_url", "timeout", "max_retries", "default_headers", "http_client",
    "async_http_client", "async_transport", "reasoning_field", "organization", "project",
    "api", "max_embedding_inputs", "tool_call_ids", "openai_proxy",
}) | _retry.CONFIG_KEYS | _NATIVE_KEYS
_AZURE_CONFIG = frozenset({
    "api_version", "azure_endpoint", "azure_deployment", "azure_ad_token",
    "azure_ad_token_provider",
})

#: The hosted tools of OpenAI's API (docs/hosted-tools.md).
_HOSTED = frozenset({"web_search", "code_execution"})

_log = logging.getLogger("aisuite_like.providers")
_SDK_PARAMS: Optional[frozenset[str]] = None
_RESPONSES_PARAMS: Optional[frozenset[str]] = None
#: Seconds that bound an attempt when no timeout is configured: the openai SDK's 600 s.
_DEFAULT_TIMEOUT = 600.0


def _sdk_params() -> frozenset[str]:
    """Parameter names of ``chat.completions.create`` (read once from the installed SDK)."""
    global _SDK_PARAMS
    if _SDK_PARAMS is None:
        import inspect

        from openai.resources.chat.completions import Completions

        _SDK_PARAMS = frozenset(inspect.signature(Completions.create).parameters) - {"self"}
    return _SDK_PARAMS


def _responses_params() -> frozenset[str]:
    """Parameter names of ``responses.create`` (read once from the installed SDK)."""
    global _RESPONSES_PARAMS
    if _RESPONSES_PARAMS is None:
        import inspect

        from openai.resources.responses import Responses

        _RESPONSES_PARAMS = frozenset(inspect.signature(Responses.create).parameters) - {
            "self"}
    return _RESPONSES_PARAMS


def _note_reply(reply: Any) -> None:
    """A native 2xx reply, for ``with_raw_response`` (docs/client.md) when a call asks."""
    note_reply(reply, reply.headers.get("x-request-id"))


_warned_hosts: set[str] = set()
_warned_lock = threading.Lock()


def _warn_foreign_host(host: Optional[str]) -> None:
    """Once per host and process: the ``openai`` key pointed at a host the table does not
    know leaves OpenAI's model rules off (say which setting keeps them)."""
    if host is None:
        return
    with _warned_lock:
        if host in _warned_hosts:
            return
        _warned_hosts.add(host)
    import warnings

    warnings.warn(
        f"provider 'openai' at {host}, which is not OpenAI's host: OpenAI's model rules are "
        "off there (the token limit goes out under the name you gave it, reasoning_effort "
        "is not checked against OpenAI's models, prompt_cache='auto' sends no "
        "prompt_cache_key). If this is OpenAI behind a proxy or gateway, set "
        "provider_configs={'openai': {..., 'openai_proxy': True}}; if it is another server, "
        "'openai_proxy': False silences this warning.", UserWarning, stacklevel=4)


class OpenAIProvider(OpenAITranscription, OpenAIEndpoints, Provider):
    """OpenAI, Azure OpenAI and the OpenAI-compatible services of ``SERVICES``.

    Config: ``api_key``, ``base_url``, ``timeout``, ``max_retries`` (default 2), ``max_retry_wait``,
    ``max_concurrency``, ``retry_clock`` (see ``aisuite_like.providers.retry``; the SDK's own
    retries are off), ``default_headers``, ``http_client`` (an ``httpx2.Client`` or
    ``httpx2.AsyncClient``; used for the matching client), ``async_http_client``,
    ``async_transport`` (``"httpx"`` default, or ``"aiohttp"``: the SDK's
    ``DefaultAioHttpClient``, needs ``openai[aiohttp]``), ``reasoning_field`` (override the
    table), ``organization``/``project`` (openai, azure), ``api`` (``"chat"`` default, or
    ``"responses"``: chat calls go over the Responses API, on the services that have it;
    docs/responses.md), ``max_embedding_inputs`` (inputs per embeddings request, over the
    table's ``embeddings`` column), ``tool_call_ids`` (the server's tool-call id rule, over
    the table's: ``"kimi"``, ``"mistral"``, ``"openai"`` or ``"any"``;
    docs/portability.md), ``openai_proxy`` (openai only: True when ``base_url`` is OpenAI
    behind a proxy or gateway, so OpenAI's model rules apply there; False for another server;
    unset: another server, with a warning once per host the table does not know); azure also
    ``api_version``, ``azure_endpoint``, ``azure_deployment``, ``azure_ad_token``,
    ``azure_ad_token_provider``.
    """

    def __init__(self, service: str = "openai", **config: Any) -> None:
        spec = SERVICES.get(service)
        if spec is None:
            raise ConfigurationError(f"unknown OpenAI-compatible service {service!r}; known: "
                                     f"{', '.join(sorted(SERVICES))}")
        allowed = _COMMON_CONFIG | (_AZURE_CONFIG if service == "azure" else frozenset())
        unknown = sorted(set(config) - allowed)
        if unknown:
            from ...core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message(service, unknown, allowed))
        if service not in ("openai", "azure"):
            for name in ("organization", "project"):
                if name in config:
                    raise ConfigurationError(
                        f"{name!r} is an OpenAI/Azure setting; {service!r} does not use it")
        native = native_transport(config, service)
        native_async = "aiohttp"
        if native:
            given = sorted({"http_client", "async_http_client"} & set(config))
            if given:
                raise ConfigurationError(
                    f"transport='native' sends on connections of its own: remove {given} "
                    f"from provider_configs[{service!r}] (or use the SDK transport)")
            native_async = async_library(config.pop("async_transport", None), service)
        transport = config.pop("async_transport", "httpx")
        if transport not in ("httpx", "aiohttp"):
            raise ConfigurationError(
                f"async_transport must be 'httpx' or 'aiohttp', got {transport!r}")
        if transport == "aiohttp" and config.get("async_http_client") is not None:
            raise ConfigurationError("pass either async_transport='aiohttp' or "
                                     "async_http_client, not both")
        self.key = service
        base_url = config.get("base_url") or os.environ.get("OPENAI_BASE_URL")
        proxy = config.pop("openai_proxy", None)
        if proxy is not None and (not isinstance(proxy, bool) or service != "openai"):
            raise ConfigurationError(
                f"openai_proxy must be True or False, and only for the 'openai' key (its "
                f"base_url is OpenAI behind a proxy or not); got {proxy!r} for {service!r}")
        if proxy is None:
            _warn_foreign_host(foreign_host(spec, base_url))
        self.spec = _spec_for_endpoint(spec, base_url, bool(proxy))
        self._transport = transport
        api = config.pop("api", "chat")
        if api not in ("chat", "responses"):
            raise ConfigurationError(f"api must be 'chat' or 'responses', got {api!r}")
        if api == "responses" and not spec.responses_api:
            raise ConfigurationError(
                f"api='responses': {service!r} has no Responses API; the services that have "
                f"it: {', '.join(k for k, v in SERVICES.items() if v.responses_api)}")
        self._over_responses = api == "responses"
        # The openai key at another host (a gateway, a compatible server) may have no
        # Responses API: a 404 there sends client.responses over chat from then on, unless
        # the config says api="responses" (docs/responses.md).
        self._probe_responses = service == "openai" and not self._over_responses and \
            self.spec is not spec
        self._no_responses = False
        ids = config.pop("tool_call_ids", None)
        if ids is not None:  # the server's id rule, over the table's (docs/portability.md)
            if ids not in ID_RULES:
                raise ConfigurationError(
                    f"tool_call_ids must be one of {', '.join(map(repr, ID_RULES))} for "
                    f"provider {service!r}, got {ids!r}")
            self.spec = replace(self.spec, tool_call_ids=ID_RULES[ids])
        self._reasoning_field = config.pop("reasoning_field", None)
        self._embedding_inputs = config.pop("max_embedding_inputs", None)
        if self._embedding_inputs is not None and (
                not isinstance(self._embedding_inputs, int)
                or isinstance(self._embedding_inputs, bool) or self._embedding_inputs < 1):
            raise ConfigurationError(
                f"max_embedding_inputs must be an int >= 1 for provider {service!r}, got "
                f"{self._embedding_inputs!r}")
        self._calls = _retry.CallPolicy.from_config(
            config, service, default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(config.get("base_url") or config.get("azure_endpoint")
                             or self.spec.base_url or os.environ.get("OPENAI_BASE_URL")
                             or "https://api.openai.com/v1"))
        self.max_concurrency = self._calls.limit.limit if self._calls.limit else None
        self._api_key = self._resolve_key(spec, config)
        self._azure = self._resolve_azure(config) if service == "azure" else None
        self._config = config
        self._client: Any = None
        self._async_client: Any = None
        self._async_loop: Any = None  # the event loop _async_client was made on
        self._async_closer: Any = None  # closes _async_client when its loop shuts down
        self._lock = threading.Lock()
        self._native: Any = None
        #: the named parameters a chat call's kwargs are built for (None: the SDK's, read
        #: from it on first use)
        self._chat_params: Optional[frozenset[str]] = None
        if native:  # our own HTTP instead of the SDK's (docs/transports.md)
            from .native import NATIVE_PARAMS, OpenAINative

            self._chat_params = NATIVE_PARAMS
            self._native = OpenAINative(self.spec, config, self._api_key, self._azure,
                                        self._secrets(), self._calls.host)
            self._native.http.limits = self._calls.body  # max_reply_bytes, max_event_bytes
            self._native.http.async_library = native_async

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider(service={self.key!r})"

    # -- configuration (runs before any request) --

    @staticmethod
    def _resolve_key(spec: ServiceSpec, config: dict[str, Any]) -> Any:
        key = config.pop("api_key", None)
        if key is None and spec.key_env:
            key = os.environ.get(spec.key_env) or None
        if key is not None:
            return clean_api_key(key, spec.key)
        if spec.key == "azure" and (config.get("azure_ad_token")
                                    or config.get("azure_ad_token_provider")
                                    or os.environ.get("AZURE_OPENAI_AD_TOKEN")):
            return None  # Entra ID auth instead of a key
        if spec.key_required:
            raise AuthenticationError(
                f"no API key for provider {spec.key!r}: set the {spec.key_env} environment "
                f"variable or pass provider_configs={{{spec.key!r}: {{'api_key': ...}}}}",
                provider=spec.key)
        return spec.placeholder_key

    @staticmethod
    def _resolve_azure(config: dict[str, Any]) -> dict[str, Any]:
        base_url = config.pop("base_url", None)
        endpoint = config.pop("azure_endpoint", None)
        if base_url is None and endpoint is None:
            endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT") or None
        if base_url is not None and endpoint is not None:
            raise ConfigurationError("azure: pass either base_url or azure_endpoint, not both")
        if base_url is None and endpoint is None:
            raise ConfigurationError(
                "azure needs an endpoint: set AZURE_OPENAI_ENDPOINT or pass azure_endpoint "
                "(e.g. 'https://my-resource.openai.azure.com') in provider_configs['azure']")
        api_version = config.pop("api_version", None) or os.environ.get("OPENAI_API_VERSION")
        if not api_version:
            raise ConfigurationError(
                "azure needs an API version: set OPENAI_API_VERSION or pass api_version "
                "(e.g. '2024-10-21') in provider_configs['azure']")
        out: dict[str, Any] = {"api_version": api_version}
        if base_url is not None:
            out["base_url"] = base_url
        else:
            out["azure_endpoint"] = endpoint
            if config.get("azure_deployment") is not None:
                out["azure_deployment"] = config.pop("azure_deployment")
        for name in ("azure_ad_token", "azure_ad_token_provider"):
            if config.get(name) is not None:
                out[name] = config.pop(name)
        return out

    def _client_kwargs(self, http_client: Any) -> dict[str, Any]:
        import openai

        config = self._config
        # Retries are ours (providers/retry.py), the same on every family: the SDK's are off.
        kwargs: dict[str, Any] = {"max_retries": 0}
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        if config.get("timeout") is not None:
            kwargs["timeout"] = config["timeout"]
        headers = dict(config.get("default_headers") or {})
        if self.spec.openai_native:
            for name in ("organization", "project"):
                if config.get(name) is not None:
                    kwargs[name] = config[name]
        else:
            # The SDK would read OPENAI_BASE_URL / OPENAI_ORG_ID / OPENAI_PROJECT_ID from the
            # environment; none of them belongs to another service.
            kwargs["base_url"] = config.get("base_url") or self.spec.base_url
            headers.setdefault("OpenAI-Organization", openai.Omit())
            headers.setdefault("OpenAI-Project", openai.Omit())
        if config.get("base_url") is not None:
            # The configured endpoint, whatever key the provider was registered under: a key
            # configured for one host is never sent to another.
            kwargs["base_url"] = config["base_url"]
        if headers:
            kwargs["default_headers"] = headers
        if http_client is not None:
            kwargs["http_client"] = http_client
        if self._azure is not None:
            kwargs.update(self._azure)
        return kwargs

    def _user_http_client(self, want_async: bool) -> Any:
        import httpx2

        if want_async and self._config.get("async_http_client") is not None:
            return self._config["async_http_client"]
        client = self._config.get("http_client")
        if client is None:
            return None
        return client if isinstance(client, httpx2.AsyncClient) == want_async else None

    def _sync(self) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    import openai

                    cls = openai.AzureOpenAI if self._azure is not None else openai.OpenAI
                    http_client = self._user_http_client(False)
                    if http_client is None:  # the SDK's defaults, and no redirect elsewhere
                        http_client = openai.DefaultHttpxClient(
                            event_hooks=redirect_hooks(self.key, is_async=False,
                                                limits=self._calls.body))
                    client = cls(**self._client_kwargs(http_client))
                    bound_sync_client(client)  # timeout bounds the whole attempt
                    self._client = client
                client = self._client
        return client

    def _async(self) -> Any:
        import asyncio

        client = self._async_client
        if client is not None and self._async_loop is not None \
                and self._async_loop.is_closed() and self._user_http_client(True) is None:
            # A sync client's acreate called from a new event loop (asyncio.run again): the
            # old client's connections died with their loop; start a new one.
            client = self._async_client = None
        if client is None:
            with self._lock:
                if self._async_client is None:
                    import openai

                    http_client = self._user_http_client(True)
                    hooks = redirect_hooks(self.key, is_async=True,
                                                limits=self._calls.body)
                    if http_client is None and self._transport == "aiohttp":
                        try:
                            http_client = openai.DefaultAioHttpClient(event_hooks=hooks)
                        except RuntimeError as exc:
                            from ...core.errors import MissingDependencyError

                            raise MissingDependencyError(
                                "async_transport='aiohttp' needs aiohttp: "
                                'pip install "aisuite-like[aiohttp]"') from exc
                    elif http_client is None:
                        http_client = openai.DefaultAsyncHttpxClient(event_hooks=hooks)
                    cls = (openai.AsyncAzureOpenAI if self._azure is not None
                           else openai.AsyncOpenAI)
                    made = self._async_client = cls(**self._client_kwargs(http_client))
                    self._async_loop = asyncio._get_running_loop()  # None outside a loop
                    if self._async_loop is not None and self._user_http_client(True) is None:
                        # our HTTP client: closed on its loop when the loop shuts down
                        self._async_closer = close_at_loop_shutdown(made.close,
                                                                    made.is_closed)
                client = self._async_client
        return client

    # -- calls --

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        params = self._chat_params if self._chat_params is not None else _sdk_params()
        return build_request(request, self.spec, params, self._reasoning_field)

    def _secrets(self) -> tuple[Optional[str]]:
        key = self._api_key
        if not isinstance(key, str) or key == self.spec.placeholder_key:
            return (None,)  # a local server's placeholder ("ollama") is no secret
        return (key,)

    def _error(self, exc: BaseException) -> BaseException:
        if isinstance(exc, TypeError):
            return UnsupportedParameterError(
                f"{self.key} rejected an argument: {exc}. Check the provider-native keyword "
                "arguments you passed.", provider=self.key)
        secrets = self._secrets()
        mapped = map_sdk_error(exc, self.key, secrets)
        if mapped is not exc:
            scrub_exception(exc, secrets)  # it becomes __cause__: tracebacks print it
        return mapped

    @property
    def hosted_tool_kinds(self) -> frozenset[str]:  # type: ignore[override]  # per service
        """OpenAI's and Azure OpenAI's hosted tools (docs/hosted-tools.md)."""
        return _HOSTED if self.spec.responses_api and self.key in ("openai", "azure") \
            else frozenset()

    @property
    def native_parameters(self) -> frozenset[str]:  # type: ignore[override]  # per service
        """The service's own request fields (the ``native_params`` of its row)."""
        return self.spec.native_params

    def _responses_route(self, request: ChatRequest) -> bool:
        """Whether this chat call goes over the Responses API: the config says so, or it
        gives hosted tools to a model without chat's own web search."""
        if self._over_responses or request.api == "responses":
            return True
        if not request.hosted_tools:
            return False
        from .hosted import is_search_model

        return not is_search_model(request.model)

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        if self._responses_route(request):
            return self._complete_over_responses(request)
        kwargs = self._kwargs(request)
        kwargs.pop("stream", None)
        if self._native is not None:
            return _retry.call(self._calls, self._native_complete_once,
                               self._native.request(kwargs), self._calls.bounds(request.timeout))
        return _retry.call(self._calls, self._complete_once, kwargs,
                           self._calls.bounds(request.timeout))

    def acomplete(self, request: ChatRequest) -> Coroutine[Any, Any, ChatCompletionResponse]:
        # a plain function handing out the retry layer's coroutine: no frame of its own held
        # while the request is in flight (its callers await it at once)
        if self._responses_route(request):
            return self._acomplete_over_responses(request)
        kwargs = self._kwargs(request)
        kwargs.pop("stream", None)
        if self._native is not None:
            return _retry.acall(self._calls, self._native_acomplete_once,
                                self._native.request(kwargs), self._calls.bounds(request.timeout))
        return _retry.acall(self._calls, self._acomplete_once, kwargs,
                            self._calls.bounds(request.timeout))

    def _native_complete_once(self, http_request: Any) -> ChatCompletionResponse:
        return self._native_chat(self._native.http.post(http_request))

    def _native_acomplete_once(self, http_request: Any) -> Awaitable[ChatCompletionResponse]:
        return self._native.http.aread(http_request, self._native_chat)  # type: ignore[no-any-return]

    def _native_chat(self, reply: Any) -> ChatCompletionResponse:
        _note_reply(reply)
        return self._read_chat(reply.status, reply.headers, reply.content)

    def _complete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        with mapped_errors(self._error):
            raw = self._sync().chat.completions.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        return self._parse(raw.http_response, body)

    async def _acomplete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        with mapped_errors(self._error):
            raw = await self._async().chat.completions.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        return self._parse(raw.http_response, body)

    def _parse(self, http_response: Any, body: bytes) -> ChatCompletionResponse:
        note_response(http_response, http_response.headers.get("x-request-id"))
        return self._read_chat(http_response.status_code, http_response.headers, body)

    def _read_chat(self, status: int, headers: Any, body: bytes) -> ChatCompletionResponse:
        """A chat reply (either transport), carrying its request id (``_request_id``)."""
        response: ChatCompletionResponse = self._read(status, headers, body, parse_response)
        return with_request_id(response, headers.get("x-request-id"))

    # -- the models list (docs/models.md): GET /models, through the same retries --

    def list_models(self) -> list[Model]:
        return _retry.call(self._calls, self._list_models_once, None, self._calls.bounds())

    async def alist_models(self) -> list[Model]:
        return await _retry.acall(self._calls, self._alist_models_once, None,
                                  self._calls.bounds())

    def _list_models_once(self, _: None) -> list[Model]:
        if self._native is not None:
            reply = self._native.http.post(self._native.models())
            models: list[Model] = self._read(reply.status, reply.headers, reply.content,
                                             parse_models)
            return models
        with mapped_errors(self._error):
            raw = self._sync().models.with_raw_response.list()
            body = raw.http_response.content
        return self._parse_models(raw.http_response, body)

    async def _alist_models_once(self, _: None) -> list[Model]:
        if self._native is not None:
            reply = await self._native.http.apost(self._native.models())
            models: list[Model] = self._read(reply.status, reply.headers, reply.content,
                                             parse_models)
            return models
        with mapped_errors(self._error):
            raw = await self._async().models.with_raw_response.list()
            body = raw.http_response.content
        return self._parse_models(raw.http_response, body)

    def _parse_models(self, http_response: Any, body: bytes) -> list[Model]:
        status, request_id = http_response.status_code, http_response.headers.get("x-request-id")
        data = decode_json(body, self.key, status_code=status, request_id=request_id)
        return read_reply(lambda: parse_models(data, self.key), self.key, status, request_id)

    # stream / astream translate at once, so a bad argument raises at create(stream=True) as
    # it does without stream; the request is sent on the first iteration.

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        if self._responses_route(request):
            from . import responses as _responses

            kwargs = _responses.build_chat(request, self._responses_params(), self.key)
            kwargs["stream"] = True
            return _retry.stream(self._calls, self._sse, (kwargs, self._chat_chunks),
                                 self._calls.bounds(request.timeout))
        kwargs = self._kwargs(request)
        kwargs["stream"] = True
        if self._native is not None:
            return _retry.stream(self._calls, self._native_stream, self._native.request(kwargs),
                                 self._calls.bounds(request.timeout))
        return _retry.stream(self._calls, self._stream, kwargs,
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        if self._responses_route(request):
            from . import responses as _responses

            kwargs = _responses.build_chat(request, self._responses_params(), self.key)
            kwargs["stream"] = True
            return _retry.astream(self._calls, self._asse, (kwargs, self._chat_chunks),
                                  self._calls.bounds(request.timeout))
        kwargs = self._kwargs(request)
        kwargs["stream"] = True
        if self._native is not None:
            return _retry.astream(self._calls, self._native_astream,
                                  self._native.request(kwargs),
                                  self._calls.bounds(request.timeout))
        return _retry.astream(self._calls, self._astream, kwargs,
                              self._calls.bounds(request.timeout))

    def _native_stream(self, http_request: Any) -> Iterator[ChatCompletionChunk]:
        return self._native_feed(http_request, StreamBody(self.key, self._secrets()))

    def _native_astream(self, http_request: Any) -> AsyncIterator[ChatCompletionChunk]:
        return self._native_afeed(http_request, StreamBody(self.key, self._secrets()))

    def _native_feed(self, http_request: Any, body: Any) -> Iterator[Any]:
        """A native stream's bytes through ``body`` (a chat or Responses stream decoder)."""
        data_in = self._native.http.stream(http_request, _note_reply)
        try:
            for data in data_in:
                yield from body.feed(data)
                if body.done:
                    break
            yield from body.end()
        finally:
            data_in.close()  # releases the connection, also on early exit

    async def _native_afeed(self, http_request: Any, body: Any) -> AsyncGenerator[Any, None]:
        data_in = self._native.http.astream(http_request, _note_reply)
        try:
            async for data in data_in:
                for item in body.feed(data):
                    yield item
                if body.done:
                    break
            for item in body.end():
                yield item
        finally:
            await data_in.aclose()

    # Streams read the raw HTTP body through our SSE decoder (``StreamBody``), not the SDK's
    # Stream: an event carrying only ``retry:`` / ``id:`` is valid SSE (the SDK's parser fails
    # on its empty data), and bytes that are not UTF-8 are a typed error.

    def _sdk_body(self, response: Any) -> StreamBody:
        """The decoder of an SDK-transport stream: an error event's typed error has the SDK's
        exception for it as ``__cause__``."""
        secrets = self._secrets()
        return StreamBody(self.key, secrets,
                          lambda error: sdk_stream_error(error, response.request, secrets))

    def _stream(self, kwargs: dict[str, Any]) -> Iterator[ChatCompletionChunk]:
        response = None
        try:
            with mapped_errors(self._error):
                raw = self._sync().chat.completions.with_raw_response.create(**kwargs)
                response = raw.http_response
                body = self._sdk_body(response)
                note_response(response, response.headers.get("x-request-id"))
                for data in response.iter_bytes():
                    yield from body.feed(data)
                    if body.done:
                        break
                yield from body.end()
        finally:
            if response is not None:
                response.close()  # releases the connection, also on early exit

    async def _astream(self, kwargs: dict[str, Any]) -> AsyncIterator[ChatCompletionChunk]:
        response = None
        try:
            with mapped_errors(self._error):
                raw = await self._async().chat.completions.with_raw_response.create(**kwargs)
                response = raw.http_response
                body = self._sdk_body(response)
                note_response(response, response.headers.get("x-request-id"))
                async for data in response.aiter_bytes():
                    for chunk in body.feed(data):
                        yield chunk
                    if body.done:
                        break
                for chunk in body.end():
                    yield chunk
        finally:
            if response is not None:
                await response.aclose()

    # -- the Responses API (docs/responses.md): native calls, and chat calls over it
    # (api="responses"). The same raw-response path as chat: our translator reads the JSON.

    @property
    def native_responses(self) -> bool:  # type: ignore[override]  # per service
        return self.spec.responses_api and not self._no_responses

    def responses_missing(self, error: BaseException) -> bool:
        """Whether ``error`` (of a Responses API request) says this endpoint has no Responses
        API: a 404 that names no model, parameter or stored response, from a host that is not
        OpenAI's. Then it is remembered, and ``client.responses`` goes over chat."""
        if not self._probe_responses or not isinstance(error, NotFoundError):
            return False
        code = error.code or ""
        if error.param is not None or (code.endswith("_not_found") and code != "not_found"):
            return False  # the route exists: OpenAI's own 404 of a model or a response
        if not self._no_responses:
            self._no_responses = True
            _log.warning("%s at %s has no Responses API (404 from /responses): "
                         "client.responses goes over chat completions from now on; set "
                         "api='responses' in its config if it has one", self.key,
                         self._calls.host)
        return True

    def _responses_params(self) -> frozenset[str]:
        if self._native is not None:
            from .native import NATIVE_PARAMS

            return NATIVE_PARAMS
        return _responses_params()

    def _native_check(self) -> None:
        if not self.spec.responses_api:
            from ..base import _no_native_responses

            raise _no_native_responses(self)

    def create_response(self, request: ResponsesRequest) -> Response:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_native(request, self._responses_params(), self.key)
        kwargs.pop("stream", None)
        response: Response = _retry.call(self._calls, self._respond_once,
                                         (kwargs, _responses.parse_native),
                                         self._calls.bounds(request.timeout))
        return response

    async def acreate_response(self, request: ResponsesRequest) -> Response:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_native(request, self._responses_params(), self.key)
        kwargs.pop("stream", None)
        response: Response = await _retry.acall(self._calls, self._arespond_once,
                                                (kwargs, _responses.parse_native),
                                                self._calls.bounds(request.timeout))
        return response

    def stream_response(self, request: ResponsesRequest) -> Iterator[ResponseEvent]:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_native(request, self._responses_params(), self.key)
        kwargs["stream"] = True
        return _retry.stream(self._calls, self._sse, (kwargs, self._native_events),
                             self._calls.bounds(request.timeout))

    def astream_response(self, request: ResponsesRequest) -> AsyncIterator[ResponseEvent]:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_native(request, self._responses_params(), self.key)
        kwargs["stream"] = True
        return _retry.astream(self._calls, self._asse, (kwargs, self._native_events),
                              self._calls.bounds(request.timeout))

    def _complete_over_responses(self, request: ChatRequest) -> ChatCompletionResponse:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_chat(request, self._responses_params(), self.key)
        kwargs.pop("stream", None)
        response: ChatCompletionResponse = _retry.call(
            self._calls, self._respond_once, (kwargs, _responses.parse_chat),
            self._calls.bounds(request.timeout))
        return response

    async def _acomplete_over_responses(self, request: ChatRequest) -> ChatCompletionResponse:
        from . import responses as _responses

        self._native_check()
        kwargs = _responses.build_chat(request, self._responses_params(), self.key)
        kwargs.pop("stream", None)
        response: ChatCompletionResponse = await _retry.acall(
            self._calls, self._arespond_once, (kwargs, _responses.parse_chat),
            self._calls.bounds(request.timeout))
        return response

    def _respond_once(self, job: tuple[dict[str, Any], Any]) -> Any:
        kwargs, parse = job
        if self._native is not None:
            reply = self._native.http.post(self._native.request(kwargs, "/responses"))
            return self._read(reply.status, reply.headers, reply.content, parse)
        with mapped_errors(self._error):
            raw = self._sync().responses.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        http = raw.http_response
        return self._read(http.status_code, http.headers, body, parse)

    async def _arespond_once(self, job: tuple[dict[str, Any], Any]) -> Any:
        kwargs, parse = job
        if self._native is not None:
            reply = await self._native.http.apost(self._native.request(kwargs, "/responses"))
            return self._read(reply.status, reply.headers, reply.content, parse)
        with mapped_errors(self._error):
            raw = await self._async().responses.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        http = raw.http_response
        return self._read(http.status_code, http.headers, body, parse)

    def _read(self, status: int, headers: Any, body: bytes, parse: Any) -> Any:
        """A 2xx reply's body -> ``parse(data, provider)`` (both transports, chat and
        Responses)."""
        request_id = headers.get("x-request-id")
        data = decode_json(body, self.key, status_code=status, request_id=request_id)
        return read_reply(lambda: parse(data, self.key), self.key, status, request_id)

    def _native_events(self) -> Any:
        from . import responses as _responses

        return _responses.NativeEvents(self.key, self._secrets())

    def _chat_chunks(self) -> Any:
        from . import responses as _responses

        return _responses.ChatChunks(self.key, self._secrets())

    def _sse(self, job: tuple[dict[str, Any], Any]) -> Iterator[Any]:
        kwargs, new_body = job
        body = new_body()
        if self._native is not None:
            yield from self._native_feed(self._native.request(kwargs, "/responses"), body)
            return
        response = None
        try:
            with mapped_errors(self._error):
                raw = self._sync().responses.with_raw_response.create(**kwargs)
                response = raw.http_response
                for data in response.iter_bytes():
                    yield from body.feed(data)
                    if body.done:
                        break
                yield from body.end()
        finally:
            if response is not None:
                response.close()

    async def _asse(self, job: tuple[dict[str, Any], Any]) -> AsyncIterator[Any]:
        kwargs, new_body = job
        body = new_body()
        if self._native is not None:
            items = self._native_afeed(self._native.request(kwargs, "/responses"), body)
            try:
                async for item in items:
                    yield item
            finally:
                await items.aclose()
            return
        response = None
        try:
            with mapped_errors(self._error):
                raw = await self._async().responses.with_raw_response.create(**kwargs)
                response = raw.http_response
                async for data in response.aiter_bytes():
                    for item in body.feed(data):
                        yield item
                    if body.done:
                        break
                for item in body.end():
                    yield item
        finally:
            if response is not None:
                await response.aclose()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
        if self._native is not None:
            self._native.http.close()

    async def aclose(self) -> None:
        client, self._async_client = self._async_client, None
        if client is not None:
            await client.close()
        if self._native is not None:
            await self._native.http.aclose()
        self.close()
