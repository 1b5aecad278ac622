"""A router's deployments: what each is (``Deployment``) and how the dicts given to
``Router`` are read and checked (docs/router.md, "Deployments")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from ..budgets.budget import check_budgets
from ..client.base import parse_model
from ..core import secrets as _secrets
from ..core.errors import ConfigurationError, InvalidModelError
from .limits import Caps

__all__ = ["Deployment", "parse_deployment", "is_number"]

# Keys of a deployment that are the router's; every other key is a provider setting.
_ROUTER_KEYS = frozenset({"model", "weight", "rpm", "tpm", "name", "budget"})
_SECRET_WORDS = ("secret", "token", "password", "api_key", "credential")


@dataclass(frozen=True)
class Deployment:
    """One deployment of an alias: ``model`` (``"provider:model"``), ``name`` (unique in its
    alias; the model unless given, ``#2``, ``#3`` ... added to a repeated one), its ``caps``
    (weight, rpm, tpm), its own ``budgets`` (docs/budgets.md) and the provider ``settings`` it
    overrides (never shown: they may hold keys)."""

    alias: str
    name: str
    model: str
    provider_key: str
    model_name: str
    caps: Caps
    settings: Mapping[str, Any] = field(repr=False, default_factory=dict)
    budgets: tuple[Any, ...] = ()


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def parse_deployment(alias: str, index: int, spec: Any, names: dict[str, int]) -> Deployment:
    """The ``index``-th deployment dict of ``alias``, checked (``names``: how often each model
    was seen in the alias, for the default names)."""
    where = f"router alias {alias!r}, deployment #{index + 1}"
    if not isinstance(spec, Mapping):
        raise ConfigurationError(f"{where} must be a dict such as {{'model': 'openai:gpt-4o', "
                                 f"'weight': 1}}, got {type(spec).__name__}")
    model = spec.get("model")
    try:
        provider_key, model_name = parse_model(model)
    except InvalidModelError as exc:
        raise ConfigurationError(f"{where}: {exc}") from None
    assert isinstance(model, str)  # parse_model took it
    weight = spec.get("weight", 1)
    if not is_number(weight) or not weight > 0:
        raise ConfigurationError(f"{where}: weight must be a number > 0, got {weight!r}")
    limits: dict[str, Optional[float]] = {}
    for limit in ("rpm", "tpm"):
        value = spec.get(limit)
        if value is not None and (not is_number(value) or not value > 0):
            raise ConfigurationError(f"{where}: {limit} must be a number > 0 (or None: no "
                                     f"limit of ours), got {value!r}")
        limits[limit] = None if value is None else float(value)
    name = spec.get("name")
    if name is None:
        seen = names.get(model, 0) + 1
        names[model] = seen
        name = model if seen == 1 else f"{model}#{seen}"
    elif not isinstance(name, str) or not name.strip() or "/" in name:
        raise ConfigurationError(f"{where}: name must be non-empty text without '/', "
                                 f"got {name!r}")
    try:
        budgets = check_budgets(spec.get("budget"), "budget")
    except TypeError as exc:
        raise ConfigurationError(f"{where}: {exc}") from None
    settings = {k: v for k, v in spec.items() if k not in _ROUTER_KEYS}
    if "api_key" in settings:
        settings["api_key"] = _secrets.clean_api_key(settings["api_key"], provider_key)
    for key, value in settings.items():  # redacted everywhere, as provider_configs' are
        if isinstance(value, str) and any(word in key.lower() for word in _SECRET_WORDS):
            _secrets.remember(value)
    return Deployment(alias, name, model, provider_key, model_name,
                      Caps(float(weight), limits["rpm"], limits["tpm"]), settings, budgets)
