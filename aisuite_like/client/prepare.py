"""The one preparation of a call (``prepare_call`` -> ``PreparedCall``) and the one provider
stack every call goes through (``provider_stack``; docs/architecture.md, "The provider
stack").

Every feature that meets a provider call is a wrapper (``providers.wrapper.WrapperProvider``)
and is stacked here, in the order of ``STACK``, for every endpoint (chat and the tool runner,
agents, durable runs, the Responses API, embeddings, audio, models, images, moderations,
files) and for every router deployment; nowhere else is a provider wrapped. The stack is
built once per prepared call (a tool run's model calls all go through the one its
preparation built).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Optional

from ..core import checks as _request_checks, guard as _guard, hooks as _instrumentation
from ..core.errors import ConfigurationError, InvalidModelError, UnsupportedParameterError
from ..providers.base import ChatRequest, Provider
from ..providers.registry import canonical_key
from .base import ClientBase, normalize_messages, parse_model
from .cache_scope import alias_scope, config_scope

if TYPE_CHECKING:
    from ..tools.toolset import Tools

__all__ = ["STACK", "PreparedCall", "prepare_call", "provider_stack", "RUNNER_ONLY",
           "split_model", "provider_for_model", "call_budgets"]

#: The layers of a call's provider stack, outermost first (docs/architecture.md, "The
#: provider stack"). The first two are the call's; the others are each model's, once for the
#: requested model and once for each fallback model tried:
#:
#: - ``think``: ``<think>`` extraction (``Client(extract_thinking=True)``), around whichever
#:   model served;
#: - ``fallbacks``: ``fallbacks=[...]``, the models' stacks tried in order;
#: - ``tracing``: ``instrument()``, a span around each model call;
#: - ``cache``: the response cache (``Client(cache=...)``), a hit sends nothing;
#: - ``budgets``: budget admission (``Client(budget=...)``, a call's ``budget=``; a router
#:   deployment's own): the model's worst case reserved before sending, its cost settled
#:   after (docs/budgets.md); a cache hit never reaches it, a fallback model is admitted at
#:   its own price;
#: - ``checks``: the checks of a request against what is known of the model (tools,
#:   modalities, the output cap, a probe profile; with ``count_tokens=True`` the context
#:   window), before anything is sent (docs/models.md); not there with
#:   ``Client(checks="off")``;
#: - ``transport``: the provider of the model's key.
#:
#: For a router alias the transport is the routing provider, under the alias's ``cache``
#: only; each deployment it sends to gets the model layers ``tracing``, ``budgets`` and
#: ``checks`` over its own provider (so a span names the deployment).
STACK = ("think", "fallbacks", "tracing", "cache", "budgets", "checks", "transport")


class PreparedCall:
    """One validated call: the provider to send it to (its stack, ``provider_stack``), the
    ``ChatRequest``, its ``Tools`` (None without tools), ``max_turns`` (None: one model call)
    and the tool runner's options. (A plain class: a dataclass would cost its code generation
    at ``import aisuite_like``.)"""

    __slots__ = ("provider", "request", "tools", "max_turns", "runner_options")

    def __init__(self, provider: Provider, request: ChatRequest, tools: Optional[Tools] = None,
                 max_turns: Optional[int] = None,
                 runner_options: Optional[dict[str, Any]] = None) -> None:
        self.provider = provider
        self.request = request
        self.tools = tools
        self.max_turns = max_turns
        self.runner_options = runner_options if runner_options is not None else {}


# --- the stack ------------------------------------------------------------------------------


def provider_stack(client: ClientBase, key: str, transport: Provider, *, routed: bool = False,
                   cache: bool = False, fallbacks: Any = None, model: str = "",
                   name: str = "", think: bool = False, budget: Any = None,
                   checks: Optional[bool] = None) -> Provider:
    """``transport`` (the provider of ``key``) in the layers of ``STACK``: tracing always
    (when instrumented), the response cache with ``cache``, the ``fallbacks`` models
    (``"key:model"`` strings, checked here; ``model`` / ``name`` are the requested model,
    whole and without its key), ``<think>`` extraction with ``think``, and the client's
    budgets with the call's ``budget`` (a ``Budget``, a list, or None). ``routed``: the
    transport is a router alias's routing provider (``key`` is ``"router:<alias>"``), whose
    deployments carry their own model layers. ``checks``: whether the model layers have the
    ``checks`` layer (None: as the client says)."""
    budgets = call_budgets(client, budget)
    checked = client._checks if checks is None else checks
    provider = _alias_layers(client, key, transport, cache, budgets) if routed else \
        _model_layers(client, key, transport, cache, budgets, checked, name)
    if fallbacks is not None:
        provider = _with_fallbacks(client, provider, model, name, fallbacks, cache, budgets,
                                   checked)
    if think:  # <think> blocks -> reasoning_content (docs/client.md, "Reasoning")
        from ..providers.think import ThinkTagsProvider

        provider = ThinkTagsProvider(provider)
    return provider


def call_budgets(client: ClientBase, budget: Any) -> tuple[Any, ...]:
    """The budgets of a call: the client's, and the call's ``budget`` (each once)."""
    if budget is None:
        return client._budgets
    from ..budgets.budget import check_budgets

    return tuple({id(b): b for b in (*client._budgets,
                                     *check_budgets(budget, "budget"))}.values())


def _model_layers(client: ClientBase, key: str, provider: Provider, cache: bool,
                  budgets: tuple[Any, ...] = (), checks: Optional[bool] = None,
                  name: str = "") -> Provider:
    """One model's layers of ``STACK`` over its transport, built from the inside out
    (``name``: the model, when the stack is for one)."""
    if client._checks if checks is None else checks:
        provider = _checked(client, key, provider, name)
    if budgets:  # admitted at this model's price before anything is sent
        from ..budgets.provider import BudgetProvider

        provider = BudgetProvider(provider, budgets, key)
    if cache:  # the response cache answers or stores each model call (docs/cache.md)
        provider = _cached(client, provider, key)
    active = _instrumentation.ACTIVE
    if active is not None:  # instrument(): a span around each model call
        traced: Provider = active.traced(provider)
        return traced
    return provider


def _checked(client: ClientBase, key: str, provider: Provider, name: str) -> Provider:
    """The ``checks`` layer over ``provider``: what is known of model ``name`` of ``key``
    (the snapshot's facts, a probe profile of ``key``'s config) checked before sending
    (docs/models.md). Nothing is known of the model (or of any, without ``name``): no
    layer."""
    made = client._checked.get(key)
    if made is None or made[0] is not provider:  # once per provider: it holds no call's state
        profile = _profile(client, key)
        made = (provider, None if profile is None else _checks(provider, key, profile),
                profile is not None)
        client._checked[key] = made
    if not made[2] and not _known(key, name):
        return provider
    checked = made[1]
    if checked is None:  # the checks' code loads with the first model the snapshot knows
        checked = _checks(provider, key, None)
        client._checked[key] = (provider, checked, False)
    return checked


def _checks(provider: Provider, key: str, profile: Any) -> Provider:
    from ..model_info.checks import ChecksProvider

    return ChecksProvider(provider, key, profile)


def _known(key: str, name: str) -> bool:
    """Whether the model snapshot knows model ``name`` of ``key`` (docs/models.md)."""
    from ..model_info.snapshot import facts_of

    return bool(name) and facts_of(key, name).known


def _profile(client: ClientBase, key: str) -> Any:
    """The probe profile of ``key``'s config (``{"profile": path}``), or None."""
    config = client._configs.get(key)
    if config is None:
        canon = canonical_key(key)
        config = client._configs.get(canon) or next(
            (v for k, v in client._configs.items() if canonical_key(k) == canon), None)
    if not config or config.get("profile") is None:
        return None
    from ..model_info.profile import load_profile

    return load_profile(config["profile"])


def _alias_layers(client: ClientBase, key: str, routing: Provider, cache: bool,
                  budgets: tuple[Any, ...] = ()) -> Provider:
    """A router alias's layers over its routing provider: the cache (a hit sends nothing and
    takes nothing from the deployments' limits); the rest are each deployment's (the
    budgets too, at each deployment's price)."""
    if budgets:
        with_budgets = getattr(routing, "with_budgets", None)
        if with_budgets is None:
            raise ConfigurationError(f"budgets need the router's own routing provider, not "
                                     f"{type(routing).__name__}")
        routing = with_budgets(budgets)
    return _cached(client, routing, key) if cache else routing


def _deployment_stack(client: ClientBase, model: str, settings: Mapping[str, Any],
                      label: str, budgets: tuple[Any, ...] = ()) -> Provider:
    """What a router is given to reach a deployment: its provider (``ClientBase.
    _deployment_provider``) in the model layers (not cached: the alias is), admitted by
    ``budgets`` (the call's, the client's and the deployment's own). Without budgets the
    stack holds no call's state, so it is kept per deployment and made again only after
    ``instrument()`` changed or ``configure()`` dropped it (every routed call asks for it)."""
    active = _instrumentation.ACTIVE
    keep = not budgets and not _guard.BLOCK_REAL_REQUESTS[0]  # the guard checks every call
    if keep:
        made = client._deployment_stacks.get(label)
        if made is not None and made[0] is active:
            return made[1]
    provider = client._deployment_provider(model, settings, label)
    key, _, name = model.partition(":")  # checked by _deployment_provider's parse_model
    stack = _model_layers(client, key, provider, False, budgets, name=name)
    if keep:
        client._deployment_stacks[label] = (active, stack)
    return stack


def _uses_cache(client: ClientBase, asked: Optional[bool]) -> bool:
    """Whether this call goes through the client's response cache: yes when the client has
    one, unless ``cache=False``; ``cache=True`` on a client without one is an error."""
    if client._cache is None:
        if asked:
            raise ValueError("cache=True needs a response cache on the client, e.g. "
                             "ai.Client(cache=ai.cache.MemoryCache())")
        return False
    return asked is not False


def _cached(client: ClientBase, provider: Provider, key: str) -> Provider:
    """``provider`` answering from the client's response cache (docs/cache.md); made once per
    provider."""
    made = client._cache_wrapped.get(key)
    if made is not None and made[0] is provider:
        return made[1]
    assert client._cache is not None
    if key.startswith("router:"):  # a router alias: named by what answers it
        specs = getattr(provider, "deployment_specs", None)
        scope = key if specs is None else alias_scope(key[7:], [
            (model, {**_config_of(client, parse_model(model)[0]), **settings})
            for model, settings in specs()])
    else:
        scope = config_scope(key, _config_of(client, key))
    wrapped = client._cache.wrap(provider, provider_key=scope, ttl=client._cache_ttl)
    client._cache_wrapped[key] = (provider, wrapped)
    return wrapped


def _config_of(client: ClientBase, key: str) -> Mapping[str, Any]:
    """The client's config of provider ``key`` (under any of its names; empty: none)."""
    canon = canonical_key(key)
    return client._configs.get(canon) or next(
        (v for k, v in client._configs.items() if canonical_key(k) == canon), {})


def _with_fallbacks(client: ClientBase, provider: Provider, model: str, name: str,
                    fallbacks: Any, cached: bool, budgets: tuple[Any, ...] = (),
                    checks: Optional[bool] = None) -> Provider:
    """``provider`` for ``model``, falling back on the ``fallbacks`` models in order (each
    resolved, in its model layers, only when the call reaches it)."""
    if isinstance(fallbacks, str) or not isinstance(fallbacks, (list, tuple)) or not all(
            isinstance(f, str) for f in fallbacks):
        raise TypeError("fallbacks must be a list of 'provider:model' strings, e.g. "
                        "fallbacks=['anthropic:claude-sonnet-4-5']")
    if not fallbacks:
        return provider
    from ..providers.fallback import FallbackProvider

    chain: list[tuple[Callable[[], Provider], str, str]] = []
    for fallback in fallbacks:  # checked now; each provider made when the call reaches it
        key, fallback_name = parse_model(fallback)
        client._check_known(key)
        chain.append((partial(_fallback_provider, client, key, cached, budgets, checks,
                              fallback_name), fallback_name, fallback))
    return FallbackProvider(provider, name, model, chain)


def _fallback_provider(client: ClientBase, key: str, cached: bool,
                       budgets: tuple[Any, ...] = (), checks: Optional[bool] = None,
                       name: str = "") -> Provider:
    return _model_layers(client, key, client._provider(key), cached, budgets, checks, name)


# --- routing --------------------------------------------------------------------------------


def route(client: ClientBase, model: Any) -> Optional[Provider]:
    """The routing provider of ``model`` when it names an alias of the client's router
    (``"smart"`` or ``"router:smart"``), else None (a ``"provider:model"``)."""
    routed = client._routed.get(model) if isinstance(model, str) else None
    if routed is not None or not isinstance(model, str):
        return routed
    alias = model[7:] if model.startswith("router:") else model
    if ":" in alias:
        return None
    router = client._router
    assert router is not None
    routed = router.routing_provider(alias, partial(_deployment_stack, client))
    if routed is None:
        aliases = getattr(router, "aliases", None)
        known = f" (its aliases: {', '.join(map(repr, aliases))})" if aliases else ""
        raise InvalidModelError(
            f"model {model!r} is neither 'provider:model' (e.g. 'openai:gpt-4o') nor an "
            f"alias of this client's router{known}")
    with client._lock:
        return client._routed.setdefault(model, routed)


def split_model(client: ClientBase, model: Any) -> tuple[str, str]:
    """``(provider key, model name)`` of ``model``; ``("router", alias)`` for an alias of the
    client's router (``"smart"`` or ``"router:smart"``). Raises ``InvalidModelError`` for
    anything else that is not ``"provider:model"``."""
    if client._router is not None and route(client, model) is not None:
        return "router", model[7:] if model.startswith("router:") else model
    return parse_model(model)


def provider_for_model(client: ClientBase, model: str) -> Provider:
    """The provider a call to ``model`` goes to, before its stack: the routing provider of a
    router alias, else the provider of its key (made from its config on first use)."""
    routed = route(client, model) if client._router is not None else None
    return routed if routed is not None else client._provider(parse_model(model)[0])


# --- the call -------------------------------------------------------------------------------

# Portable keyword arguments: ChatRequest fields, translated per provider.
_PORTABLE = frozenset({
    "tool_choice", "parallel_tool_calls", "response_format", "temperature", "top_p",
    "max_tokens", "stop", "seed", "user", "n", "timeout", "stream_options", "reasoning_effort",
    "orphans",
})
#: The tool runner's keyword arguments (they need ``max_turns``).
RUNNER_ONLY = ("tool_policy", "on_tool_error", "on_max_turns", "max_tool_concurrency",
               "tool_policy_context", "tool_timeout", "max_tool_result_chars", "context")


def prepare_call(client: ClientBase, model: str, messages: Any, kwargs: dict[str, Any]
                 ) -> PreparedCall:
    """Validate and prepare one call, before anything is sent: the model string, the keyword
    arguments (portable ones checked and translated into the ``ChatRequest``, the runner's
    options set apart, ``max_turns`` checked, provider-native ones passed through), the
    messages (normalized into new dicts; the caller's are never mutated) and the tools (MCP
    servers opened and listed). The provider is made on first use and put in its stack
    (``provider_stack``). ``kwargs`` is consumed. Every entry point uses it: ``create`` and
    its variants, agents, durable runs and batches."""
    routed = route(client, model) if client._router is not None else None
    if routed is not None:  # an alias of the client's router (as split_model names it)
        name = model[7:] if model.startswith("router:") else model
        key = f"router:{name}"
    else:
        key, name = parse_model(model)
        if key == "router" and client._router is None:
            raise ConfigurationError(
                f"model {model!r} names a router alias, but this client has no router: "
                "pass ai.Client(router=ai.Router(deployments={...}))")
    _request_checks.check_arguments(kwargs)
    checked = _checks_of(kwargs.pop("checks", None), client._checks)
    counting = kwargs.pop("count_tokens", False)
    if not isinstance(counting, bool):
        raise TypeError(f"count_tokens must be True or False, got {counting!r}")
    cached = _uses_cache(client, kwargs.pop("cache", None))
    budget = kwargs.pop("budget", None)  # this call's, besides the client's (docs/budgets.md)
    own = routed if routed is not None else client._provider(key)
    fallbacks = kwargs.pop("fallbacks", None)
    provider = provider_stack(
        client, key, own, routed=routed is not None, cache=cached, fallbacks=fallbacks,
        model=model, name=name, think=client.extract_thinking, budget=budget, checks=checked)
    stream = bool(kwargs.pop("stream", False))
    max_turns = kwargs.pop("max_turns", None)
    if max_turns is not None:
        _request_checks.check_max_turns(max_turns)
    runner_options = {k: kwargs.pop(k) for k in RUNNER_ONLY if k in kwargs}
    if max_turns is None and runner_options:
        raise ValueError(f"{', '.join(runner_options)} only apply to the tool runner: "
                         "pass max_turns=N to run tools automatically")
    if runner_options.get("context") is not None:  # bound to this call (docs/context.md)
        runner_options["context"] = _bind_context(
            client, runner_options["context"], "router" if routed is not None else key,
            budget)
    tools = kwargs.pop("tools", None)
    if tools is not None:  # the tools package loads with the first call that has tools
        from ..tools.toolset import prepare_tools

        tools = prepare_tools(tools, owner=client)
    hosted = None
    if tools is not None and tools.hosted:  # run by the provider: its family must have them
        hosted = tuple(tools.hosted)
        _check_hosted(own, key, hosted)
        for fallback in fallbacks if isinstance(fallbacks, (list, tuple)) else ():
            other = parse_model(fallback)[0]  # each model tried must run them too
            _check_hosted(client._provider(other), other, hosted)
    request = _chat_request(client, name, messages, tools, stream, kwargs,
                            _native_parameters(own, routed is not None))
    if hosted is not None:
        request.hosted_tools = hosted
    if counting:
        request.count_tokens = True
    if not checked:
        request.checks = False
    return PreparedCall(provider, request, tools, max_turns, runner_options)


def _checks_of(value: Any, default: bool) -> bool:
    """A call's ``checks=`` (``"on"`` / ``"off"``; None: the client's)."""
    if value is None:
        return default
    if value not in ("on", "off"):
        raise ValueError(f"checks must be 'on' or 'off', got {value!r}")
    return bool(value == "on")


def _bind_context(client: ClientBase, value: Any, provider_key: str, budget: Any) -> Any:
    """``context=``: the strategy with what the run needs of the client: the provider key
    (``Native``) and the summarizing model's provider and request (``Summarize(model=...)``,
    prepared as any call is: the client's budgets and this call's, cache, tracing)."""
    from ..context.strategies import ContextPlan, check_context

    strategy = check_context(value)
    assert strategy is not None
    summarizer = None
    model = getattr(strategy, "model", None)
    if isinstance(model, str):
        kwargs: dict[str, Any] = {"budget": budget} if budget is not None else {}
        prepared = prepare_call(client, model, [{"role": "user", "content": "-"}], kwargs)
        summarizer = (prepared.provider, prepared.request)
    return ContextPlan(strategy, provider_key, summarizer)
def _check_hosted(provider: Any, key: str, hosted: tuple[Any, ...]) -> None:
    """Refuse, before anything is sent, a hosted tool the provider's family does not map
    (docs/hosted-tools.md)."""
    kinds = getattr(provider, "hosted_tool_kinds", None) or frozenset()
    for tool in hosted:
        if tool.kind not in kinds:
            from ..core.hosted import no_hosted_tool

            raise no_hosted_tool(tool.kind, key)


def _native_parameters(provider: Provider, routed: bool) -> frozenset[str]:
    """The request fields of the provider's own API (``Provider.native_parameters``); for a
    router alias, which may send to any service, every service's."""
    if routed:
        from ..providers.openai.services import ALL_NATIVE_PARAMS

        return ALL_NATIVE_PARAMS
    return getattr(provider, "native_parameters", None) or frozenset()


def _chat_request(client: ClientBase, name: str, messages: Any, tools: Optional[Tools],
                  stream: bool, kwargs: dict[str, Any],
                  native: frozenset[str] = frozenset()) -> ChatRequest:
    """The ``ChatRequest`` of a call from what is left of its keyword arguments (consumed)."""
    limit_name = "max_tokens"
    if "max_completion_tokens" in kwargs:
        if kwargs.get("max_tokens") is not None:
            raise UnsupportedParameterError(
                "pass either max_tokens or max_completion_tokens, not both",
                parameter="max_completion_tokens")
        kwargs["max_tokens"] = kwargs.pop("max_completion_tokens")
        if kwargs["max_tokens"] is not None:
            limit_name = "max_completion_tokens"
    prompt_cache = kwargs.pop("prompt_cache", None)
    if prompt_cache is None:  # not given: the client's default
        prompt_cache = client.prompt_cache
    portable = {k: kwargs.pop(k) for k in list(kwargs) if k in _PORTABLE}
    if isinstance(portable.get("response_format"), type):  # a pydantic class: its schema
        from .structured import response_format_param

        portable["response_format"] = response_format_param(portable["response_format"])
    # one rule on every family, before sending (core/checks.py)
    _request_checks.check_response_format(portable.get("response_format"))
    if portable.get("tool_choice") is not None:
        _request_checks.check_tool_choice(portable["tool_choice"], [
            schema["function"]["name"] for schema in (tools.schemas if tools else ())
            if isinstance(schema.get("function"), dict) and "name" in schema["function"]])
    extra = kwargs  # what is left is provider-native, passed through untouched
    if extra:
        _request_checks.check_unknown_keywords(extra, native)
    return ChatRequest(
        model=name,
        messages=_request_checks.check_messages(normalize_messages(messages)),
        tools=tools.schemas if tools is not None and tools.schemas else None,
        stream=stream,
        extra=extra,
        max_tokens_as=limit_name,
        prompt_cache="auto" if prompt_cache == "auto" else None,
        **portable,
    )
