"""``Usage.cost``: the USD price of a call, from the ``genai-prices`` package (extra ``[prices]``).

Pricing is lazy. A response that leaves the library gets a tiny marker on its ``Usage`` (which
provider and model produced it: one dict store per call); the price is looked up only when
``usage.cost`` is read, then cached on that ``Usage``. A ``Usage`` that is a sum (a runner or
agent run) keeps its parts, and its cost is the sum of theirs: ``None`` as soon as one part's
price is unknown, so a total is never silently short. ``genai_prices`` itself is imported on
the first read of a cost, never by ``import aisuite_like`` or by a call.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["attach_price_ref", "cost_of", "combine_parts", "genai_prices_provider", "price_known",
           "mark_free", "price_tokens", "price_usage", "price_ref"]

# Keys in ``Usage.__dict__`` that are not pydantic fields: model_dump ignores them and pydantic
# equality compares fields only, so they are invisible except to ``cost``.
_REF = "_price_ref"      # (our provider key, model name) of the call
_PARTS = "_price_parts"  # the priced Usages a summed Usage is made of
_COST = "_price_cost"    # the cached answer (may be None)

# Our provider key -> genai-prices provider id. Keys absent here are matched by model name
# (genai-prices' own provider detection); local servers have no price.
_PROVIDER_IDS = {
    "openai": "openai", "anthropic": "anthropic", "google": "google", "gemini": "google",
    "azure": "azure", "groq": "groq", "mistral": "mistral", "deepseek": "deepseek",
    "xai": "x-ai", "together": "together", "fireworks": "fireworks",
    "openrouter": "openrouter", "cerebras": "cerebras", "perplexity": "perplexity",
    "cohere": "cohere", "bedrock": "aws", "aws": "aws",
}
_UNPRICED = frozenset({"ollama", "lmstudio", "vllm", "test", "scripted", "function"})
#: (genai-prices provider id, model) pairs genai-prices has no price for: its lookup of an
#: unknown model scans every model it knows (about 2 ms), so a miss is remembered (bounded:
#: past the limit the set starts again).
_NO_PRICE: set[tuple[Optional[str], str]] = set()
_NO_PRICE_LIMIT = 4096


def _calc(genai_prices: Any, values: dict[str, int], name: str, provider_id: Optional[str],
          context: Optional[dict[str, Any]] = None) -> Optional[float]:
    """genai-prices' price of ``values`` for ``name``, None when it has none (remembered)."""
    if (provider_id, name) in _NO_PRICE:
        return None
    try:
        calc = genai_prices.calc_price(genai_prices.Usage(**values), name,
                                       provider_id=provider_id,
                                       **({"price_context": context} if context else {}))
    except LookupError:  # an unknown model or provider
        if len(_NO_PRICE) >= _NO_PRICE_LIMIT:
            _NO_PRICE.clear()
        _NO_PRICE.add((provider_id, name))
        return None
    except ValueError:  # prices that do not apply to these values (not remembered)
        return None
    return float(calc.total_price)


def genai_prices_provider(key: str) -> Optional[str]:
    """The genai-prices provider id for one of our provider keys (None: match by model)."""
    return _PROVIDER_IDS.get(key)


def attach_price_ref(response: Any, fallback_model: str = "") -> None:
    """Mark ``response.usage`` with the provider and model that produced it (cheap: no
    lookup). ``fallback_model`` is the requested model, priced when the model the reply names
    is unknown to genai-prices (or missing)."""
    usage = response.usage
    if usage is not None and _REF not in usage.__dict__:
        usage.__dict__[_REF] = (response.provider, response.model, fallback_model)


def mark_free(usage: Any) -> None:
    """``usage.cost`` is 0: the call cost nothing (the response cache answered it)."""
    usage.__dict__[_COST] = 0.0


def combine_parts(total: Any, a: Any, b: Any) -> None:
    """Record on ``total`` (= a + b) which priced parts it is made of."""
    total.__dict__[_PARTS] = (*_parts(a), *_parts(b))


def _parts(usage: Any) -> tuple[Any, ...]:
    parts = usage.__dict__.get(_PARTS)
    return parts if parts is not None else (usage,)


def cost_of(usage: Any) -> Optional[float]:
    """The cached or freshly computed cost of ``usage`` in USD (None: unknown)."""
    d = usage.__dict__
    if _COST in d:
        return d[_COST]  # type: ignore[no-any-return]  # our cached float
    reported = (usage.__pydantic_extra__ or {}).get("cost")
    if isinstance(reported, (int, float)) and not isinstance(reported, bool):
        cost: Optional[float] = float(reported)  # the provider's own figure (e.g. OpenRouter)
    elif _PARTS in d:
        cost = 0.0
        for part in d[_PARTS]:
            part_cost = cost_of(part)
            if part_cost is None:
                cost = None
                break
            cost += part_cost
    else:
        cost = _price(usage, d.get(_REF))
    d[_COST] = cost
    return cost


def _price(usage: Any, ref: Any) -> Optional[float]:
    if ref is None:
        return None
    key, model, requested = ref
    if key in _UNPRICED or not (model or requested):
        return None
    try:
        import genai_prices
    except ImportError:
        return None
    values = _usage_values(usage)
    for name in dict.fromkeys(m for m in (model, requested) if m):
        price = _calc(genai_prices, values, name, _PROVIDER_IDS.get(key))
        if price is not None:
            return price
    return None


def _usage_values(usage: Any) -> dict[str, int]:
    """``usage`` in genai-prices' terms: a chat ``Usage`` (an embeddings usage has input
    tokens only), or an image call's ``ImageUsage`` (``input_tokens`` / ``output_tokens``
    with their image tokens)."""
    if not hasattr(usage, "prompt_tokens"):  # core/media.py ImageUsage
        values = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
        image_in = usage.input_tokens_details.image_tokens
        out = usage.output_tokens_details
        if image_in:
            values["input_image_tokens"] = image_in
        values["output_image_tokens"] = out.image_tokens if out is not None \
            else usage.output_tokens
        return values
    details = getattr(usage, "prompt_tokens_details", None)
    values = {"input_tokens": usage.prompt_tokens or 0,
              "output_tokens": getattr(usage, "completion_tokens", 0) or 0}
    if details is not None and details.cached_tokens:
        values["cache_read_tokens"] = details.cached_tokens
    if details is not None and details.cache_creation_tokens:
        values["cache_write_tokens"] = details.cache_creation_tokens
    server = getattr(usage, "server_tool_use", None)
    if server is not None:  # hosted tools' calls (docs/hosted-tools.md)
        if server.web_search_requests:
            values["web_searches"] = server.web_search_requests
        if server.code_execution_requests:
            values["code_executions"] = server.code_execution_requests
    return values


def price_known(key: str, model: str) -> bool:
    """Whether genai-prices has a price for ``model`` of provider ``key`` (checked before a
    run with ``RunLimits(max_cost=...)`` starts)."""
    if key in _UNPRICED:
        return False
    import genai_prices

    return _calc(genai_prices, {"input_tokens": 0, "output_tokens": 0}, model,
                 _PROVIDER_IDS.get(key)) is not None


def price_ref(usage: Any) -> Any:
    """The ``(provider key, model, requested model)`` marker of ``usage`` (None: unmarked)."""
    return usage.__dict__.get(_REF)


def price_tokens(key: str, models: tuple[str, ...], values: dict[str, int], *,
                 batch: bool = False) -> Optional[float]:
    """The USD price of ``values`` (genai-prices usage fields: ``input_tokens``,
    ``output_tokens``, ...) for the first of ``models`` genai-prices knows under provider
    ``key``, at batch prices when ``batch`` (a model without a batch price: its standard
    price). None: no price (unknown model, a local server, genai-prices not installed).
    Budgets price a call's worst case with it before sending (docs/budgets.md)."""
    if key in _UNPRICED:
        return None
    try:
        import genai_prices
    except ImportError:
        return None
    context = {"processing": "batch"} if batch else None
    for name in dict.fromkeys(m for m in models if m):
        price = _calc(genai_prices, values, name, _PROVIDER_IDS.get(key), context)
        if price is not None:
            return price
    return None


def price_usage(usage: Any, key: str, model: str, *, batch: bool = False) -> Optional[float]:
    """What ``usage`` cost: the provider's own figure when it reported one, 0 for a cache
    hit, else genai-prices' price of its tokens for the model its marker names (or
    ``model``), at batch prices when ``batch``. None: unknown."""
    d = usage.__dict__
    if not batch:
        return cost_of(usage) if (_REF in d or _COST in d or _PARTS in d) else \
            _price(usage, (key, model, model))
    if _COST in d and d[_COST] == 0.0:
        return 0.0
    ref = d.get(_REF)
    names = (ref[1], ref[2]) if ref is not None else ()
    return price_tokens(key, (*names, model), _usage_values(usage), batch=True)
