"""Client and AsyncClient: ``chat.completions.create`` routes to manual mode, the tool runner
(``max_turns`` given) or a stream (DESIGN.md section 2)."""

from __future__ import annotations

import threading
from typing import Any, Iterable, Mapping, Optional

from . import _observe
from ._cost import attach_price_ref
from .errors import ConfigurationError, InvalidModelError, UnsupportedParameterError
from .providers import ChatRequest, Provider, _is_offline_key, canonical_key, create_provider

__all__ = ["Client", "AsyncClient"]

# Portable keyword arguments: ChatRequest fields, translated per provider.
_PORTABLE = frozenset({
    "tool_choice", "parallel_tool_calls", "response_format", "temperature", "top_p",
    "max_tokens", "stop", "seed", "user", "n", "timeout", "stream_options",
})
# Keyword arguments of the tool runner; meaningless without max_turns.
_RUNNER_ONLY = ("tool_policy", "on_tool_error", "on_max_turns", "max_tool_concurrency")

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
    from .types import Message

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
        elif isinstance(m, Message):
            out.append(m.model_dump(exclude_none=True))
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


def _refuse_real_request(key: str) -> None:
    from ._request_guard import RealRequestBlockedError

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
        self._configs = {k: dict(v) for k, v in (provider_configs or {}).items()}
        _check_alias_configs(self._configs)
        self._instances: dict[str, Provider] = {}
        for key, provider in (providers or {}).items():
            if isinstance(provider, type):
                provider = provider(**self._configs.get(key, {}))
            try:
                provider.key = provider.key or key
            except AttributeError:
                pass
            self._instances[key] = provider
        self._lock = threading.Lock()

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
                    self._instances[canon] = provider
                self._instances[key] = provider
        if _BLOCK_REAL_REQUESTS[0] and not getattr(provider, "_offline", False):
            _refuse_real_request(key)
        return provider

    def _prepare(self, model: str, messages: Any, kwargs: dict[str, Any]) -> tuple[
            Provider, ChatRequest, Any, Optional[int], dict[str, Any]]:
        key, name = _parse_model(model)
        provider = self._provider(key)
        if _observe.ACTIVE is not None:  # instrument(): a span around each model call
            provider = _observe.ACTIVE.traced(provider)
        stream = bool(kwargs.pop("stream", False))
        max_turns = kwargs.pop("max_turns", None)
        runner_options = {k: kwargs.pop(k) for k in _RUNNER_ONLY if k in kwargs}
        if max_turns is None and runner_options:
            raise ValueError(f"{', '.join(runner_options)} only apply to the tool runner: "
                             "pass max_turns=N to run tools automatically")
        tools_arg = kwargs.pop("tools", None)
        from .tools import _prepare_tools

        tools = _prepare_tools(tools_arg)
        if "max_completion_tokens" in kwargs:
            if kwargs.get("max_tokens") is not None:
                raise UnsupportedParameterError(
                    "pass either max_tokens or max_completion_tokens, not both",
                    parameter="max_completion_tokens")
            kwargs["max_tokens"] = kwargs.pop("max_completion_tokens")
        portable = {k: kwargs.pop(k) for k in list(kwargs) if k in _PORTABLE}
        extra = kwargs  # what is left is provider-native, passed through untouched
        request = ChatRequest(
            model=name,
            messages=_normalize_messages(messages),
            tools=tools.schemas if tools is not None and tools.schemas else None,
            stream=stream,
            extra=extra,
            **portable,
        )
        return provider, request, tools, max_turns, runner_options

    def close(self) -> None:
        """Release the providers' HTTP resources."""
        for provider in {id(p): p for p in self._instances.values()}.values():
            provider.close()


class _Completions:
    def __init__(self, client: "Client") -> None:
        self._client = client

    def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """One chat completion. With ``max_turns`` the tool runner executes the tools; with
        ``stream=True`` a ``Stream`` is returned."""
        provider, request, tools, max_turns, options = self._client._prepare(
            model, messages, kwargs)
        if max_turns is not None:
            from .runner import _tool_runner

            return _tool_runner(provider, request, tools, max_turns=max_turns, **options)
        if request.stream:
            from .streaming import Stream, _started

            return Stream(_started(provider.stream(request)))
        response = provider.complete(request)
        attach_price_ref(response, request.model)
        return response

    async def acreate(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async ``create`` on the sync client (aisuite's name)."""
        return await _acreate(self._client, model, messages, kwargs)


async def _acreate(client: _Base, model: str, messages: Any, kwargs: dict[str, Any]) -> Any:
    provider, request, tools, max_turns, options = client._prepare(model, messages, kwargs)
    if max_turns is not None:
        from .runner import _atool_runner

        return await _atool_runner(provider, request, tools, max_turns=max_turns, **options)
    if request.stream:
        from .streaming import AsyncStream, _astarted

        return AsyncStream(await _astarted(provider.astream(request)))
    response = await provider.acomplete(request)
    attach_price_ref(response, request.model)
    return response


class _Chat:
    def __init__(self, completions: Any) -> None:
        self.completions = completions


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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _AsyncCompletions:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    async def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async chat completion; ``stream=True`` returns an ``AsyncStream``."""
        return await _acreate(self._client, model, messages, kwargs)


class AsyncClient(_Base):
    """The async client: ``await aclient.chat.completions.create(...)``."""

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None, *,
                 providers: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(provider_configs, providers=providers)
        self.chat = _Chat(_AsyncCompletions(self))

    async def aclose(self) -> None:
        for provider in {id(p): p for p in self._instances.values()}.values():
            await provider.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
