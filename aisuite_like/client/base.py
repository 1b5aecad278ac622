"""What ``Client`` and ``AsyncClient`` share: provider configs and the providers made from
them. The one preparation of a call (``prepare_call`` -> ``PreparedCall``) and the provider
stack it builds are in ``prepare.py`` (docs/architecture.md)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlsplit

from ..core import (
    checks as _request_checks,
    guard as _guard,
    secrets as _secrets,
)
from ..core.errors import ConfigurationError, InvalidModelError
from ..providers.base import Provider
from ..providers.registry import (
    canonical_key,
    has_native_transport,
    is_offline_key,
    key_variable,
    provider_keys,
    service_for_base_url,
    unknown_provider,
)

if TYPE_CHECKING:
    from typing_extensions import Self  # 7 ms at import: annotations only

    from .plugins import ModelRouter, ResponseCache

__all__ = ["ClientBase", "resolve_provider", "parse_model", "normalize_messages",
           "CLIENT_OPTIONS", "configured_provider_keys"]


# Message fields that are ours only (``parse()``'s ``parsed``), dropped when a message is input.
_NOT_SENT: set[str] = {"parsed"}


def parse_model(model: Any) -> tuple[str, str]:
    """``"provider:model"`` -> ``(provider key, model name)``, split at the first ':' (the model
    name may hold ':' or '/'); anything else is an ``InvalidModelError``."""
    if not isinstance(model, str) or ":" not in model:
        raise InvalidModelError(
            f"Invalid model format. Expected 'provider:model' (e.g. 'openai:gpt-4o'), got "
            f"{model!r}")
    key, _, name = model.partition(":")
    if not key or not name:
        raise InvalidModelError(
            f"Invalid model format. Expected 'provider:model' with both parts non-empty, got "
            f"{model!r}")
    _request_checks.check_model_name(name, model)
    return key, name


def normalize_messages(messages: Any) -> list[dict[str, Any]]:
    """OpenAI-style dicts and ``Message`` objects -> a NEW list of dicts. The caller's dicts are
    reused read-only (never mutated); ``Message`` objects are dumped."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise TypeError("messages must be a list of message dicts or aisuite_like.Message "
                        "objects, e.g. [{'role': 'user', 'content': 'Hi'}]")
    from ..core.types import Message, message_input

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
            out.append(message_input(m, _NOT_SENT))
        elif hasattr(m, "model_dump"):  # e.g. an OpenAI SDK message object
            out.append(message_input(m))
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


#: What ``client.with_options(...)`` sets on every provider the copy builds (docs/client.md,
#: "Options for every provider"): the settings every family takes.
CLIENT_OPTIONS = frozenset({"timeout", "max_retries", "max_retry_wait", "max_concurrency",
                            "stream_gap_timeout"})

# Provider settings that code written for the OpenAI (or Anthropic) SDK passes to its client's
# constructor; here they are config keys of a provider, under its key in provider_configs.
_PROVIDER_SETTINGS = ("api_key", "base_url", "organization", "project", "timeout",
                      "max_retries", "default_headers", "http_client", "async_http_client",
                      "api_version", "azure_endpoint", "azure_deployment", "azure_ad_token",
                      "azure_ad_token_provider", "max_retry_wait", "max_concurrency",
                      "stream_gap_timeout")
_AZURE_SETTINGS = frozenset({"api_version", "azure_endpoint", "azure_deployment",
                             "azure_ad_token", "azure_ad_token_provider"})
# The other settings of the built-in families (tests/client check them against each family's
# own list), and those that only one family has: a provider setting given to the client's
# constructor gets the provider_configs line to write, under the family it belongs to.
_COMMON_SETTINGS = frozenset({"transport", "async_transport", "retry_clock", "max_reply_bytes",
                              "max_event_bytes", "reasoning_field", "tool_call_ids", "api",
                              "max_embedding_inputs", "openai_proxy"})
_FAMILY_SETTINGS = {
    "bedrock": frozenset({"aws_access_key_id", "aws_secret_access_key", "aws_session_token",
                          "region_name", "profile_name", "endpoint_url",
                          "control_endpoint_url"}),
    "google": frozenset({"vertexai", "location", "credentials"}),
    "anthropic": frozenset({"default_max_tokens", "auth_token"}),
}
_ALL_SETTINGS = frozenset(_PROVIDER_SETTINGS) | _COMMON_SETTINGS | _AZURE_SETTINGS \
    | frozenset().union(*_FAMILY_SETTINGS.values())
_SHOWN_AS_WRITTEN = frozenset({"api_version", "azure_deployment", "organization", "project",
                               "transport", "async_transport", "api", "reasoning_field",
                               "tool_call_ids", "region_name", "profile_name", "location"})


def _as_provider(obj: Any, key: str) -> Provider:
    from ..providers.aisuite import as_provider  # on first use: not at ``import aisuite_like``

    return as_provider(obj, key)


def _made_provider(key: str, config: Mapping[str, Any], canon: str) -> Provider:
    """The provider of ``key`` made from ``config`` by aisuite's factory, looked up at call
    time (aisuite code replaces it)."""
    from ..providers.aisuite import ProviderFactory, as_provider

    # "profile" (a probe profile, docs/models.md) is the client's, not the provider's
    config = {name: value for name, value in config.items() if name != "profile"}
    return as_provider(ProviderFactory.create_provider(key, config), canon)


def _setting_text(name: str, value: Any) -> str:
    """How a setting is shown in the line to write: numbers and plain URLs as given, a
    credential or anything else as ``"..."`` / ``...`` (never a key)."""
    import json  # an error message's path: not at ``import aisuite_like``

    if any(word in name.lower() for word in _SECRET_WORDS):
        return '"..."'
    if isinstance(value, (bool, int, float)) or value is None:
        return repr(value)
    if isinstance(value, str) and name in ("base_url", "azure_endpoint"):
        parts = urlsplit(value)
        if parts.scheme in ("http", "https") and parts.hostname and not (
                parts.username or parts.password or parts.query or parts.fragment):
            return json.dumps(value)
        return '"..."'
    if isinstance(value, str) and name in _SHOWN_AS_WRITTEN and len(value) <= 80:
        return json.dumps(value)
    return "..."


def settings_keyword_error(where: str, unknown: Mapping[str, Any], accepted: Iterable[str],
                           *, configs_given: bool = False, argument: str = "provider_configs",
                           call: Optional[str] = None) -> TypeError:
    """The ``TypeError`` for keyword arguments ``where`` does not take: provider settings
    (``api_key=``, ``base_url=``, ...) get the exact ``provider_configs=`` line to write
    instead (the provider told from the settings: ``azure_*`` -> azure, a ``base_url`` of a
    known service -> that service, else openai); any other keyword is refused as Python would,
    with "did you mean". No value that may be secret is shown."""
    others = [name for name in unknown if name not in _ALL_SETTINGS]
    if others:
        name = others[0]
        suggestion = _request_checks.did_you_mean(name, [*accepted, *sorted(_ALL_SETTINGS)])
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        return TypeError(f"{where}() got an unexpected keyword argument {name!r}{hint}")
    settings = dict(unknown)
    key = "openai"
    family = next((name for name, own in _FAMILY_SETTINGS.items() if own & set(settings)),
                  None)
    if family is not None:
        key = family
    elif _AZURE_SETTINGS & set(settings):
        key = "azure"
    elif isinstance(settings.get("base_url"), str):
        service = service_for_base_url(settings["base_url"])
        if service is not None:
            key = service
            del settings["base_url"]  # the service's own endpoint: built in
    line = "{" + ", ".join(f'"{name}": {_setting_text(name, value)}'
                           for name, value in settings.items()) + "}"
    written = f'{call or where}({argument}={{"{key}": {line}}})'
    also = f" (add them to your {argument}[{key!r}])" if configs_given else ""
    text = (f"{where}() takes no {', '.join(unknown)}: one client serves every provider, so "
            f"settings go under the provider's key{also}. Write:\n    {written}")
    if call is not None and call.startswith("ai."):  # the constructor
        text += f'\nand name models "{key}:<model>".'
        variable = key_variable(key)
        if "api_key" in unknown and variable:
            text += f" Leave api_key out to read it from {variable}."
    return TypeError(text)


def _check_budgets(value: Any, where: str) -> tuple[Any, ...]:
    """``budget=``: None (nothing to load), or budgets checked by the budgets package."""
    if value is None:
        return ()
    from ..budgets.budget import check_budgets

    return check_budgets(value, where)


def _check_cache(cache: Any, ttl: Any) -> tuple[Optional[ResponseCache], Optional[float]]:
    """``Client(cache=..., cache_ttl=...)``: a response cache (or None) and a TTL in seconds
    (or None: entries never expire)."""
    from .plugins import ResponseCache

    if cache is not None and not isinstance(cache, ResponseCache):
        raise TypeError(
            f"cache must be a response cache such as aisuite_like.cache.MemoryCache(), "
            f"SQLiteCache(path) or RedisCache(url), or None; got {type(cache).__name__}")
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float))
                            or not ttl > 0 or ttl == float("inf")):
        raise ValueError(f"cache_ttl must be a number of seconds > 0, or None (entries never "
                         f"expire); got {ttl!r}")
    if ttl is not None and cache is None:
        raise ValueError("cache_ttl applies to a response cache: pass cache= too, e.g. "
                         "ai.Client(cache=ai.cache.MemoryCache(), cache_ttl=3600)")
    return cache, None if ttl is None else float(ttl)


def _refuse_real_request(key: str) -> None:
    raise _guard.RealRequestBlockedError(
        f"provider {key!r} would make a real request inside "
        "aisuite_like.testing.block_real_requests(); use a testing provider "
        "(model='test:...', ScriptedProvider or FunctionProvider)")


#: ``Client(transport=...)`` and ``Client(async_transport=...)``: the values each takes.
TRANSPORTS = ("sdk", "native")
ASYNC_TRANSPORTS = ("httpx2", "aiohttp")


def _check_transports(transport: Any, async_transport: Any, where: str) -> dict[str, str]:
    """The client-wide transport settings (docs/transports.md), checked: the defaults every
    provider config of a family with a native transport gets under its own settings."""
    for name, value, allowed in (("transport", transport, TRANSPORTS),
                                 ("async_transport", async_transport, ASYNC_TRANSPORTS)):
        if value is not None and value not in allowed:
            raise ConfigurationError(
                f"{where}({name}=...) must be {' or '.join(map(repr, allowed))} (None: each "
                f"provider's own setting, else {allowed[0]!r}), got {value!r}")
    return {name: value for name, value in (("transport", transport),
                                            ("async_transport", async_transport))
            if value is not None}


_noted_sdk_only: set[str] = set()
_noted_lock = threading.Lock()


def _note_sdk_only(key: str) -> None:
    """Once per provider and process: ``transport="native"`` leaves a family that has no
    native transport on its vendor SDK (said, not silently)."""
    with _noted_lock:
        if key in _noted_sdk_only:
            return
        _noted_sdk_only.add(key)
    import warnings

    warnings.warn(
        f"Client(transport='native'): provider {key!r} has no native transport, so its calls "
        "go through its vendor SDK (docs/transports.md lists the families that have one)",
        UserWarning, stacklevel=5)


def with_transport(defaults: Mapping[str, str], key: str, config: Mapping[str, Any]
                   ) -> dict[str, Any]:
    """``config`` of the provider ``key`` (canonical) under the client-wide transport
    settings: a family with a native transport takes them where its config sets none
    (``async_transport`` only for a config that ends up on the native transport: the SDK
    transport's own ``async_transport`` is another setting); one without keeps its SDK."""
    merged = dict(config)
    if not defaults:
        return merged
    native = has_native_transport(key)
    if native is None:
        return merged
    if not native:
        if defaults.get("transport") == "native":
            _note_sdk_only(key)
        return merged
    if "transport" in defaults and "transport" not in config:
        merged["transport"] = defaults["transport"]
    if "async_transport" in defaults and "async_transport" not in config \
            and merged.get("transport") == "native":
        merged["async_transport"] = defaults["async_transport"]
    return merged


def _check_client_options(given: Mapping[str, Any], where: str) -> None:
    """Client-wide options (``timeout``, ``max_retries``, ...), checked before use."""
    timeout = given.get("timeout")
    problem = _request_checks.timeout_problem(timeout) if timeout is not None else None
    if problem is not None:
        raise ConfigurationError(f"{where[:-2]}(timeout=...) must be {problem}, got "
                                 f"{type(timeout).__name__}")
    from ..providers.retry import CallPolicy

    CallPolicy.from_config(dict(given), "", where=f"in {where}")  # checks them


class ClientBase:
    """What ``Client`` and ``AsyncClient`` share: the provider configs, the providers made from
    them on first use; every call is prepared from them (``prepare.py``: ``prepare_call``)."""

    def __init__(
        self,
        provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        providers: Optional[Mapping[str, Any]] = None,
        extra_param_mode: str = "warn",
        extract_thinking: bool = False,
        cache: Optional[ResponseCache] = None,
        cache_ttl: Optional[float] = None,
        router: Optional[ModelRouter] = None,
        prompt_cache: Any = None,
        budget: Any = None,
        timeout: Any = None,
        max_retries: Optional[int] = None,
        max_retry_wait: Optional[float] = None,
        max_concurrency: Optional[int] = None,
        stream_gap_timeout: Optional[float] = None,
        checks: str = "on",
        transport: Optional[str] = None,
        async_transport: Optional[str] = None,
        **unknown: Any,
    ) -> None:
        # Client-wide options (the OpenAI SDK's OpenAI(timeout=, max_retries=)): over every
        # provider's config, as with_options() gives them (docs/client.md).
        given = {name: value for name, value in (
            ("timeout", timeout), ("max_retries", max_retries),
            ("max_retry_wait", max_retry_wait), ("max_concurrency", max_concurrency),
            ("stream_gap_timeout", stream_gap_timeout)) if value is not None}
        if unknown:  # ai.Client(api_key=...): the provider_configs line to write
            name = type(self).__name__
            raise settings_keyword_error(
                name, {**unknown, **given}, ("provider_configs", "providers",
                                             "extra_param_mode", "extract_thinking", "cache",
                                             "cache_ttl", "router", "prompt_cache", "budget",
                                             "checks", "transport", "async_transport",
                                             *CLIENT_OPTIONS),
                configs_given=provider_configs is not None, call=f"ai.{name}")
        if given:
            _check_client_options(given, f"{type(self).__name__}()")
        # What with_options() passes on to a copy (besides the configs).
        self._init_options: dict[str, Any] = {"providers": providers,
                                              "extra_param_mode": extra_param_mode,
                                              "extract_thinking": extract_thinking,
                                              "cache": cache, "cache_ttl": cache_ttl,
                                              "router": router, "prompt_cache": prompt_cache,
                                              "budget": budget, "checks": checks,
                                              "transport": transport,
                                              "async_transport": async_transport}
        #: The client-wide transport settings (under each provider config's own).
        self._transport = _check_transports(transport, async_transport,
                                            type(self).__name__)
        if checks not in ("on", "off"):
            raise ValueError(f"checks must be 'on' or 'off', got {checks!r}")
        #: Whether calls are checked against what is known of their model (docs/models.md).
        self._checks = checks == "on"
        #: Options every provider this client builds gets over its config (with_options()).
        self._options: dict[str, Any] = given
        self._cache, self._cache_ttl = _check_cache(cache, cache_ttl)
        #: The budgets every model call of this client must be admitted by (docs/budgets.md).
        self._budgets: tuple[Any, ...] = _check_budgets(budget, "Client(budget=...)")
        # provider key -> (the provider, it wrapped in the cache): made once per provider
        self._cache_wrapped: dict[str, tuple[Provider, Provider]] = {}
        # provider key -> (the provider, its checks layer, whether a profile is given): made
        # once per provider (docs/models.md)
        self._checked: dict[str, tuple[Provider, Optional[Provider], bool]] = {}
        _request_checks.check_prompt_cache(prompt_cache)
        #: ``"auto"``: every call adds prompt-cache breakpoints / a cache key unless it passes
        #: ``prompt_cache=False`` (docs/reasoning-and-caching.md).
        self.prompt_cache: Optional[str] = "auto" if prompt_cache == "auto" else None
        self._configs = _request_checks.copy_configs(provider_configs)
        _check_alias_configs(self._configs)
        _check_configs(self._configs, providers or {})
        #: How transcription parameters no table knows are handled (docs/audio.md).
        self.extra_param_mode = _request_checks.check_extra_param_mode(extra_param_mode)
        if not isinstance(extract_thinking, bool):
            raise TypeError(f"extract_thinking must be a bool, got {extract_thinking!r}")
        #: Whether a reply's leading ``<think>...</think>`` moves to ``reasoning_content``
        #: (docs/client.md, "Reasoning").
        self.extract_thinking = extract_thinking
        self._instances: dict[str, Provider] = {}
        for key, provider in (providers or {}).items():
            if isinstance(provider, type):
                provider = provider(**self._configs.get(key, {}))
            provider = _as_provider(provider, key)
            try:
                provider.key = provider.key or key
            except AttributeError:
                pass
            self._instances[key] = provider
        self._installed = frozenset(self._instances)
        self._lock = threading.Lock()
        self._router = _check_router(self, router)
        self._routed: dict[str, Provider] = {}  # model naming an alias -> its routing provider
        # a router deployment with settings of its own -> (canonical key, its own provider)
        self._deployed: dict[str, tuple[str, Provider]] = {}
        # a router deployment's label -> (the instrumentation it was made under, its stack
        # of model layers: client/prepare.py, _deployment_stack)
        self._deployment_stacks: dict[str, tuple[Any, Provider]] = {}

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
            for label, (canon, _) in list(self._deployed.items()):
                if canon in changed:
                    del self._deployed[label]
            self._deployment_stacks.clear()  # made again from the new providers

    def with_options(
        self,
        *,
        timeout: Any = None,
        max_retries: Optional[int] = None,
        max_retry_wait: Optional[float] = None,
        max_concurrency: Optional[int] = None,
        stream_gap_timeout: Optional[float] = None,
        provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None,
        **unknown: Any,
    ) -> Self:
        """A configured copy, as the OpenAI SDK's ``with_options`` (docs/client.md). The
        options given (``None``: not given) apply to every provider the copy builds, over its
        config; ``provider_configs`` adds settings for one provider each (merged into that
        key's config). The copy shares nothing mutable with this client: its own configs,
        its own providers (and connections, made on first use: make the copy once and keep
        it); provider objects installed with ``providers=`` are shared, unchanged. This
        client is not changed. Checked now, before anything is sent."""
        if unknown:
            raise settings_keyword_error(
                "with_options", unknown, (*CLIENT_OPTIONS, "provider_configs"),
                argument="provider_configs", call="client.with_options")
        given = {name: value for name, value in (
            ("timeout", timeout), ("max_retries", max_retries),
            ("max_retry_wait", max_retry_wait), ("max_concurrency", max_concurrency),
            ("stream_gap_timeout", stream_gap_timeout)) if value is not None}
        _check_client_options(given, "with_options()")
        configs = _request_checks.copy_configs(self._configs)
        for key, extra in _request_checks.copy_configs(provider_configs).items():
            configs[key] = {**configs.get(key, {}), **extra}
        copy = type(self)(configs, **self._init_options)
        copy._options = {**self._options, **given}
        return copy

    def __repr__(self) -> str:  # never show configs: they hold API keys
        return f"{type(self).__name__}(providers={sorted(self._instances)})"

    def _provider(self, key: str) -> Provider:
        provider = self._instances.get(key)
        if provider is None:
            canon = canonical_key(key)
            if _guard.BLOCK_REAL_REQUESTS[0] and canon not in self._instances \
                    and not is_offline_key(canon):
                _refuse_real_request(key)
            with self._lock:
                provider = self._instances.get(canon)
                if provider is None:
                    config = self._configs.get(canon)
                    if config is None:
                        config = next((v for k, v in self._configs.items()
                                       if canonical_key(k) == canon), {})
                    config = with_transport(self._transport, canon, config)
                    if self._options:  # with_options(): over the provider's own config
                        config = {**config, **self._options}
                    provider = _made_provider(key, config, canon)
                    _secrets.protect_logs()  # the SDK's and HTTP stack's loggers redact keys
                    self._instances[canon] = provider
                self._instances[key] = provider
        if _guard.BLOCK_REAL_REQUESTS[0] and not provider.offline:
            _refuse_real_request(key)
        return provider

    def _deployment_provider(self, model: str, settings: Mapping[str, Any],
                             label: str) -> Provider:
        """A router deployment's provider: the client's own for its key, or, when the
        deployment has settings of its own (``api_key``, ``base_url``, ...), one made for it
        from the client's config of that provider with the settings over it."""
        key, _ = parse_model(model)
        if not settings:
            return self._provider(key)
        made = self._deployed.get(label)
        if made is not None:
            return made[1]
        canon = canonical_key(key)
        if canon in self._installed or key in self._installed:
            raise ConfigurationError(
                f"router deployment {label!r} has settings of its own, but provider {key!r} "
                "was given as an object (providers=): settings apply to providers made from "
                "a configuration")
        if _guard.BLOCK_REAL_REQUESTS[0] and not is_offline_key(canon):
            _refuse_real_request(key)
        with self._lock:
            made = self._deployed.get(label)
            if made is None:
                base = self._configs.get(canon)
                if base is None:
                    base = next((v for k, v in self._configs.items()
                                 if canonical_key(k) == canon), {})
                # with_options() over the deployment's config, as over a provider's own
                config = {**with_transport(self._transport, canon, {**base, **settings}),
                          **self._options}
                _check_configs({canon: config}, self._installed)
                made = (canon, _made_provider(key, config, canon))
                _secrets.protect_logs()
                self._deployed[label] = made
        return made[1]

    def _providers_made(self) -> list[Provider]:
        """Every provider this client made or was given, once each (to close them)."""
        everything = [*self._instances.values(), *(p for _, p in self._deployed.values())]
        return list({id(p): p for p in everything}.values())

    def _check_known(self, key: str) -> None:
        """An unknown provider key raises ``UnknownProviderError`` (without creating one)."""
        if key not in self._instances and canonical_key(key) not in self._instances \
                and canonical_key(key) not in provider_keys():
            raise unknown_provider(key)

    def close(self) -> None:
        """Release the providers' HTTP resources and close the MCP servers this client
        opened on first use."""
        for provider in self._providers_made():
            provider.close()
        mcp = sys.modules.get("aisuite_like.tools.mcp")
        if mcp is not None:
            mcp._close_opened_by(self)


def configured_provider_keys(client: ClientBase) -> list[str]:
    """The providers ``client`` is set up for, one key per provider (the first key it was
    configured or used under): its ``provider_configs`` keys, the providers installed with
    ``providers=``, those it has already made, and the built-in providers whose key variable
    is set in the environment (``registry.keys_in_environment``)."""
    from ..providers.registry import keys_in_environment

    keys: dict[str, str] = {}
    for key in (*client._configs, *client._instances, *keys_in_environment()):
        keys.setdefault(canonical_key(key), key)
    return list(keys.values())


def resolve_provider(client: ClientBase, key: str) -> Provider:
    """The provider ``client`` uses for ``key`` (made from its config on first use)."""
    return client._provider(key)


def _check_router(client: ClientBase, router: Any) -> Optional[ModelRouter]:
    """``Client(router=...)``: a router whose deployments' providers are all known."""
    if router is None:
        return None
    from .plugins import ModelRouter

    if not isinstance(router, ModelRouter):
        raise TypeError(f"router must be an aisuite_like.Router (or None), got "
                        f"{type(router).__name__}")
    for model in router.deployment_models():
        client._check_known(parse_model(model)[0])
    return router
