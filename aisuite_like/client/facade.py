"""Client and AsyncClient: ``chat.completions.create`` routes to manual mode, the tool runner
(``max_turns`` given) or a stream (docs/client.md)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    Optional,
    TypeVar,
    Union,
    cast,
    overload,
)

from ..core import checks as _request_checks, hooks as _instrumentation, secrets as _secrets
from ..core.cost import attach_price_ref
from ..core.errors import ConfigurationError, InvalidModelError, UnsupportedParameterError
from ..core.ids import unique_tool_call_ids
from ..providers.registry import (
    ChatRequest,
    Provider,
    _is_offline_key,
    canonical_key,
    create_provider,
    provider_keys,
    unknown_provider,
)

if TYPE_CHECKING:
    from ..batches.api import AsyncBatches, Batches
    from ..core.message_params import ChatCompletionMessageParam
    from ..core.streaming import AsyncStream, Stream
    from ..core.types import ChatCompletionResponse, Message, ParsedChatCompletion
    from .stream_events import AsyncChatCompletionStream, ChatCompletionStream

    # What `messages` takes: OpenAI-shaped message dicts (the TypedDicts complete their keys),
    # Message objects, or any mapping of that shape.
    _Messages = Iterable[Union[ChatCompletionMessageParam, Message, Mapping[str, Any]]]

__all__ = ["Client", "AsyncClient"]

# Portable keyword arguments: ChatRequest fields, translated per provider.
_PORTABLE = frozenset({
    "tool_choice", "parallel_tool_calls", "response_format", "temperature", "top_p",
    "max_tokens", "stop", "seed", "user", "n", "timeout", "stream_options",
})
# Keyword arguments of the tool runner; meaningless without max_turns.
_RUNNER_ONLY = ("tool_policy", "on_tool_error", "on_max_turns", "max_tool_concurrency",
                "tool_policy_context", "tool_timeout", "max_tool_result_chars")

# Message fields that are ours only (``parse()``'s ``parsed``), dropped when a message is input.
_NOT_SENT: set[str] = {"parsed"}

# Offline guard of aisuite_like.testing.block_real_requests(): a depth counter, so nested and
# threaded uses work; read once per call.
_BLOCK_REAL_REQUESTS = [0]


def _parse_model(model: Any) -> tuple[str, str]:
    if not isinstance(model, str) or ":" not in model:
        raise InvalidModelError(
            f"model must be 'provider:model' (e.g. 'openai:gpt-4o'), got {model!r}")
    key, _, name = model.partition(":")
    if not key or not name:
        raise InvalidModelError(
            f"model must be 'provider:model' with both parts non-empty, got {model!r}")
    return key, name


def _normalize_messages(messages: Any) -> list[dict[str, Any]]:
    """OpenAI-style dicts and ``Message`` objects -> a NEW list of dicts. The caller's dicts are
    reused read-only (never mutated); ``Message`` objects are dumped."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise TypeError("messages must be a list of message dicts or aisuite_like.Message "
                        "objects, e.g. [{'role': 'user', 'content': 'Hi'}]")
    from ..core.types import Message

    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if isinstance(m, dict):
            if "role" not in m:
                raise ValueError(f"messages[{i}] has no 'role' key: {sorted(m)}")
            tool_calls = m.get("tool_calls")
            if tool_calls and not all(isinstance(tc, dict) for tc in tool_calls):
                # {"role": "assistant", "tool_calls": response.message.tool_calls}, the OpenAI
                # SDK idiom: ToolCall objects become dicts (a new message; the caller's stays).
                m = {**m, "tool_calls": [
                    tc if isinstance(tc, dict) else tc.model_dump(exclude_none=True)
                    for tc in tool_calls]}
            out.append(m)
        elif isinstance(m, Message):  # parse()'s ``parsed`` is ours, never sent
            out.append(m.model_dump(exclude_none=True, exclude=_NOT_SENT))
        elif hasattr(m, "model_dump"):  # e.g. an OpenAI SDK message object
            out.append(m.model_dump(exclude_none=True))
        else:
            raise TypeError(f"messages[{i}] is a {type(m).__name__}; expected a dict or Message")
    return out


def _check_alias_configs(configs: Mapping[str, Mapping[str, Any]]) -> None:
    """An alias shares its provider's config (``gemini`` -> ``google``): two different configs
    for one provider would silently lose one, so they are refused."""
    by_provider: dict[str, str] = {}
    for key in configs:
        canon = canonical_key(key)
        other = by_provider.setdefault(canon, key)
        if other != key and configs[other] != configs[key]:
            raise ConfigurationError(
                f"provider_configs has different configs under {other!r} and {key!r}, which "
                f"name the same provider ({canon!r}); give one config, under either key")


# Config keys whose string values are credentials, redacted like API keys.
_SECRET_WORDS = ("secret", "token", "password", "api_key", "credential")


def _check_configs(configs: dict[str, dict[str, Any]], installed: Iterable[str]) -> None:
    """Config keys name providers, timeouts are valid, API keys are stripped (in our copies:
    the caller's dicts stay as given), checked and remembered for redaction."""
    _request_checks.check_config_keys(configs, {*provider_keys(), *installed})
    for key, config in configs.items():
        _request_checks.check_config_timeout(key, config)
        _request_checks.check_config_values(key, config)
        if "api_key" in config:
            config["api_key"] = _secrets.clean_api_key(config["api_key"], key)
        for name, value in config.items():  # other credentials (AWS secret key, AD token, ...)
            if isinstance(value, str) and any(word in name.lower() for word in _SECRET_WORDS):
                _secrets.remember(value)


def _refuse_real_request(key: str) -> None:
    from ..core.guard import RealRequestBlockedError

    raise RealRequestBlockedError(
        f"provider {key!r} would make a real request inside "
        "aisuite_like.testing.block_real_requests(); use a testing provider "
        "(model='test:...', ScriptedProvider or FunctionProvider)")


class _Base:
    def __init__(
        self,
        provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        providers: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self._configs = _request_checks.copy_configs(provider_configs)
        _check_alias_configs(self._configs)
        _check_configs(self._configs, providers or {})
        self._instances: dict[str, Provider] = {}
        for key, provider in (providers or {}).items():
            if isinstance(provider, type):
                provider = provider(**self._configs.get(key, {}))
            try:
                provider.key = provider.key or key
            except AttributeError:
                pass
            self._instances[key] = provider
        self._installed = frozenset(self._instances)
        self._lock = threading.Lock()

    @property
    def provider_configs(self) -> dict[str, dict[str, Any]]:
        """The provider configs (aisuite's attribute): key -> settings. Changes apply to
        providers created afterwards; use ``configure()`` to change a provider in use."""
        return self._configs

    def configure(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None
                  ) -> None:
        """aisuite's ``Client.configure``: add or replace provider configs (each key's config
        replaces the old one for that key). A provider already created under a reconfigured
        key is rebuilt with its new config on its next call (the old one is not closed, so a
        call in flight finishes); providers installed with ``providers=`` stay."""
        if provider_configs is None:
            return
        new = _request_checks.copy_configs(provider_configs)
        _check_alias_configs(new)
        _check_configs(new, self._installed)
        changed = {canonical_key(k) for k in new}
        with self._lock:  # a new config replaces the old one under either alias
            kept = {k: v for k, v in self._configs.items() if canonical_key(k) not in changed}
            self._configs.clear()
            self._configs.update({**kept, **new})
            for key in list(self._instances):
                if key not in self._installed and canonical_key(key) in changed:
                    del self._instances[key]

    def __repr__(self) -> str:  # never show configs: they hold API keys
        return f"{type(self).__name__}(providers={sorted(self._instances)})"

    def _provider(self, key: str) -> Provider:
        provider = self._instances.get(key)
        if provider is None:
            canon = canonical_key(key)
            if _BLOCK_REAL_REQUESTS[0] and canon not in self._instances \
                    and not _is_offline_key(canon):
                _refuse_real_request(key)
            with self._lock:
                provider = self._instances.get(canon)
                if provider is None:
                    config = self._configs.get(canon)
                    if config is None:
                        config = next((v for k, v in self._configs.items()
                                       if canonical_key(k) == canon), {})
                    provider = create_provider(canon, config)
                    _secrets.protect_logs()  # the SDK's and HTTP stack's loggers redact keys
                    self._instances[canon] = provider
                self._instances[key] = provider
        if _BLOCK_REAL_REQUESTS[0] and not getattr(provider, "_offline", False):
            _refuse_real_request(key)
        return provider

    def _prepare(self, model: str, messages: Any, kwargs: dict[str, Any]) -> tuple[
            Provider, ChatRequest, Any, Optional[int], dict[str, Any]]:
        key, name = _parse_model(model)
        _request_checks.check_arguments(kwargs)
        provider = self._provider(key)
        if _instrumentation.ACTIVE is not None:  # instrument(): a span around each model call
            # the traced proxy has Provider's interface (duck-typed, not a subclass)
            provider = cast(Provider, _instrumentation.ACTIVE.traced(provider))
        fallbacks = kwargs.pop("fallbacks", None)
        if fallbacks is not None:
            provider = self._with_fallbacks(provider, model, name, fallbacks)
        stream = bool(kwargs.pop("stream", False))
        max_turns = kwargs.pop("max_turns", None)
        runner_options = {k: kwargs.pop(k) for k in _RUNNER_ONLY if k in kwargs}
        if max_turns is None and runner_options:
            raise ValueError(f"{', '.join(runner_options)} only apply to the tool runner: "
                             "pass max_turns=N to run tools automatically")
        tools_arg = kwargs.pop("tools", None)
        from ..tools.toolset import _prepare_tools

        tools = _prepare_tools(tools_arg, owner=self)
        limit_name = "max_tokens"
        if "max_completion_tokens" in kwargs:
            if kwargs.get("max_tokens") is not None:
                raise UnsupportedParameterError(
                    "pass either max_tokens or max_completion_tokens, not both",
                    parameter="max_completion_tokens")
            kwargs["max_tokens"] = kwargs.pop("max_completion_tokens")
            if kwargs["max_tokens"] is not None:
                limit_name = "max_completion_tokens"
        portable = {k: kwargs.pop(k) for k in list(kwargs) if k in _PORTABLE}
        if isinstance(portable.get("response_format"), type):  # a pydantic class: its schema
            from .structured import response_format_param

            portable["response_format"] = response_format_param(portable["response_format"])
        extra = kwargs  # what is left is provider-native, passed through untouched
        if extra:
            _request_checks.check_unknown_keywords(extra)
        request = ChatRequest(
            model=name,
            messages=_request_checks.check_messages(_normalize_messages(messages)),
            tools=tools.schemas if tools is not None and tools.schemas else None,
            stream=stream,
            extra=extra,
            max_tokens_as=limit_name,
            **portable,
        )
        return provider, request, tools, max_turns, runner_options

    def _with_fallbacks(self, provider: Provider, model: str, name: str,
                        fallbacks: Any) -> Provider:
        """``provider`` for ``model``, falling back on the ``fallbacks`` models in order."""
        if isinstance(fallbacks, str) or not isinstance(fallbacks, (list, tuple)) or not all(
                isinstance(f, str) for f in fallbacks):
            raise TypeError("fallbacks must be a list of 'provider:model' strings, e.g. "
                            "fallbacks=['anthropic:claude-sonnet-4-5']")
        if not fallbacks:
            return provider
        from ..providers.fallback import FallbackProvider

        chain: list[tuple[Callable[[], Provider], str, str]] = [(lambda: provider, name, model)]
        for fallback in fallbacks:  # checked now; each provider made when the call reaches it
            key, fallback_name = _parse_model(fallback)
            self._check_known(key)
            chain.append((partial(self._fallback_provider, key), fallback_name, fallback))
        return FallbackProvider(chain)

    def _check_known(self, key: str) -> None:
        """An unknown provider key raises ``UnknownProviderError`` (without creating one)."""
        if key not in self._instances and canonical_key(key) not in self._instances \
                and canonical_key(key) not in provider_keys():
            raise unknown_provider(key)

    def _fallback_provider(self, key: str) -> Provider:
        provider = self._provider(key)
        active = _instrumentation.ACTIVE
        if active is not None:  # each model tried gets its own span
            provider = cast(Provider, active.traced(provider))
        return provider

    def close(self) -> None:
        """Release the providers' HTTP resources and close the MCP servers this client
        opened on first use."""
        for provider in {id(p): p for p in self._instances.values()}.values():
            provider.close()
        mcp = sys.modules.get("aisuite_like.tools.mcp")
        if mcp is not None:
            mcp._close_opened_by(self)


# The class given as ``response_format`` to ``parse``: the type of ``message.parsed``.
_ParsedT = TypeVar("_ParsedT")


class _Completions:
    def __init__(self, client: "Client") -> None:
        self._client = client

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> Stream: ...

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> Union[Stream, ChatCompletionResponse]: ...

    def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """One chat completion. With ``max_turns`` the tool runner executes the tools; with
        ``stream=True`` a ``Stream`` is returned."""
        provider, request, tools, max_turns, options = self._client._prepare(
            model, messages, kwargs)
        _request_checks.check_not_empty(request.messages)
        if max_turns is not None:
            from ..loop.runner import _tool_runner

            return _tool_runner(provider, request, tools, max_turns=max_turns, **options)
        if request.stream:
            from ..core.streaming import Stream, _started

            return Stream(_started(provider.stream(request)), prior_messages=request.messages)
        response = unique_tool_call_ids(provider.complete(request), request.messages)
        attach_price_ref(response, request.model)
        return response

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> AsyncStream: ...

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> Union[AsyncStream, ChatCompletionResponse]: ...

    async def acreate(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async ``create`` on the sync client (aisuite's name)."""
        return await _acreate(self._client, model, messages, kwargs)

    @overload
    def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    def parse(self, model: str, messages: Any, *, response_format: Any, **kwargs: Any) -> Any:
        """The OpenAI SDK's ``parse``: ``create`` with ``response_format`` a pydantic class
        (sent as a strict JSON schema, through each provider's native structured output),
        then ``choices[i].message.parsed`` is the reply validated into that class (None for a
        refusal). Works with ``max_turns`` (the final message is parsed)."""
        from .structured import parse_completion, response_format_param

        _refuse_stream(kwargs, "parse")
        response = self.create(model, messages,
                               response_format=response_format_param(response_format), **kwargs)
        return parse_completion(response, response_format)

    @overload
    async def aparse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    async def aparse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    async def aparse(self, model: str, messages: Any, *, response_format: Any,
                     **kwargs: Any) -> Any:
        """Async ``parse`` on the sync client (as ``acreate``)."""
        return await _aparse(self._client, model, messages, response_format, kwargs)

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ChatCompletionStream[_ParsedT]: ...

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ChatCompletionStream[None]: ...

    def stream(self, model: str, messages: Any, *, response_format: Any = None,
               **kwargs: Any) -> Any:
        """The OpenAI SDK's ``stream``: ``with client.chat.completions.stream(...) as s``;
        iterating ``s`` yields the SDK's events (``content.delta``, ...), and
        ``s.get_final_completion()`` is the accumulated response, parsed when
        ``response_format`` is a pydantic class."""
        from .stream_events import ChatCompletionStream, completion_finisher
        from .structured import response_format_param

        _refuse_stream(kwargs, "stream")
        stream = self.create(model, messages, stream=True,
                             response_format=response_format_param(response_format), **kwargs)
        return ChatCompletionStream(stream, response_format,
                                    completion_finisher(response_format))


def _refuse_stream(kwargs: dict[str, Any], method: str) -> None:
    if "stream" in kwargs:
        raise TypeError(f"chat.completions.{method}() does not take stream=: "
                        + ("use chat.completions.stream(...) to stream structured output"
                           if method == "parse" else "it always streams"))


async def _aparse(client: _Base, model: str, messages: Any, response_format: Any,
                  kwargs: dict[str, Any]) -> Any:
    from .structured import parse_completion, response_format_param

    _refuse_stream(kwargs, "parse")
    kwargs["response_format"] = response_format_param(response_format)
    response = await _acreate(client, model, messages, kwargs)
    return parse_completion(response, response_format)


class _AsyncStreamManager(Generic[_ParsedT]):
    """``async with aclient.chat.completions.stream(...) as stream``: the OpenAI SDK's shape
    (not awaited; entering starts the request)."""

    def __init__(self, client: _Base, model: str, messages: Any, kwargs: dict[str, Any],
                 response_format: Any) -> None:
        self._start = (client, model, messages, kwargs)
        self._response_format = response_format
        self._stream: Optional[AsyncChatCompletionStream[_ParsedT]] = None

    async def __aenter__(self) -> AsyncChatCompletionStream[_ParsedT]:
        from .stream_events import AsyncChatCompletionStream, completion_finisher
        from .structured import response_format_param

        client, model, messages, kwargs = self._start
        kwargs["stream"] = True
        kwargs["response_format"] = response_format_param(self._response_format)
        self._stream = AsyncChatCompletionStream(
            await _acreate(client, model, messages, kwargs), self._response_format,
            completion_finisher(self._response_format))
        return self._stream

    async def __aexit__(self, *exc: Any) -> None:
        if self._stream is not None:
            await self._stream.close()


async def _acreate(client: _Base, model: str, messages: Any, kwargs: dict[str, Any]) -> Any:
    if kwargs.get("tools") is not None:
        from ..tools.toolset import _aopen_tool_sources

        await _aopen_tool_sources(kwargs["tools"], client)  # MCP servers start off the loop
    provider, request, tools, max_turns, options = client._prepare(model, messages, kwargs)
    _request_checks.check_not_empty(request.messages)
    if max_turns is not None:
        from ..loop.runner import _atool_runner

        return await _atool_runner(provider, request, tools, max_turns=max_turns, **options)
    if request.stream:
        from ..core.streaming import AsyncStream, _astarted

        return AsyncStream(await _astarted(provider.astream(request)),
                           prior_messages=request.messages)
    response = unique_tool_call_ids(await provider.acomplete(request), request.messages)
    attach_price_ref(response, request.model)
    return response


_CompletionsT = TypeVar("_CompletionsT")


class _Chat(Generic[_CompletionsT]):
    # Generic so `client.chat.completions` has its class's type (the overloads of `create`).
    def __init__(self, completions: _CompletionsT) -> None:
        self.completions = completions


class _Beta(Generic[_CompletionsT]):
    def __init__(self, chat: _Chat[_CompletionsT]) -> None:
        self.chat = chat


class Client(_Base):
    """The sync client: ``client.chat.completions.create(model="provider:model", messages=...)``.

    ``provider_configs`` maps a provider key to its settings (``api_key``, ``base_url``,
    ``timeout``, ``max_retries``, ``default_headers``, ``http_client``, ...); keys not given
    come from the provider's usual environment variable. ``providers`` installs provider
    objects directly (e.g. ``aisuite_like.testing.ScriptedProvider``).
    """

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None, *,
                 providers: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(provider_configs, providers=providers)
        self.chat = _Chat(_Completions(self))
        self.beta = _Beta(self.chat)  # client.beta.chat.completions.parse (older OpenAI SDKs)

    @property
    def batches(self) -> Batches:
        """Provider batch APIs: ``create`` / ``retrieve`` / ``cancel`` / ``wait`` /
        ``results`` (docs/batches.md). Loaded on first use."""
        batches = self.__dict__.get("_batches")
        if batches is None:
            from ..batches.api import Batches

            batches = self.__dict__["_batches"] = Batches(self)
        return batches

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _AsyncCompletions:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> AsyncStream: ...

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> Union[AsyncStream, ChatCompletionResponse]: ...

    async def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async chat completion; ``stream=True`` returns an ``AsyncStream``."""
        return await _acreate(self._client, model, messages, kwargs)

    @overload
    async def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    async def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    async def parse(self, model: str, messages: Any, *, response_format: Any,
                    **kwargs: Any) -> Any:
        """The OpenAI SDK's ``parse`` (see ``Client.chat.completions.parse``)."""
        return await _aparse(self._client, model, messages, response_format, kwargs)

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> _AsyncStreamManager[_ParsedT]: ...

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> _AsyncStreamManager[None]: ...

    def stream(self, model: str, messages: Any, *, response_format: Any = None,
               **kwargs: Any) -> _AsyncStreamManager[Any]:
        """The OpenAI SDK's ``stream``: ``async with aclient.chat.completions.stream(...) as
        s``; ``async for event in s``; ``await s.get_final_completion()`` is the accumulated
        (parsed) response."""
        _refuse_stream(kwargs, "stream")
        return _AsyncStreamManager(self._client, model, messages, kwargs, response_format)


class AsyncClient(_Base):
    """The async client: ``await aclient.chat.completions.create(...)``."""

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None, *,
                 providers: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(provider_configs, providers=providers)
        self.chat = _Chat(_AsyncCompletions(self))
        self.beta = _Beta(self.chat)

    @property
    def batches(self) -> AsyncBatches:
        """Provider batch APIs, awaited (docs/batches.md). Loaded on first use."""
        batches = self.__dict__.get("_batches")
        if batches is None:
            from ..batches.api import AsyncBatches

            batches = self.__dict__["_batches"] = AsyncBatches(self)
        return batches

    async def aclose(self) -> None:
        for provider in {id(p): p for p in self._instances.values()}.values():
            await provider.aclose()
        mcp = sys.modules.get("aisuite_like.tools.mcp")
        if mcp is not None:
            await mcp._aclose_opened_by(self)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
