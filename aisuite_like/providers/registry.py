"""Provider registry: key -> lazy ``"module:Class"``. Nothing here imports a vendor SDK.

Built-in keys are resolved on first use; ``register_provider`` adds a key process-wide. A
missing SDK raises ``MissingDependencyError`` with the exact ``pip install`` line.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from typing import Any, Optional, Union

from ..core.errors import MissingDependencyError, UnknownProviderError
from .base import ChatRequest, Provider

__all__ = ["ChatRequest", "Provider", "register_provider", "provider_keys", "create_provider",
           "service_for_base_url", "keys_in_environment", "key_variable", "has_native_transport"]

# key -> (target "module:Class", SDK module it needs or None, extra name, constructor kwargs)
_Entry = tuple[str, Union[str, None], Union[str, None], dict[str, Any]]

_OPENAI = "aisuite_like.providers.openai:OpenAIProvider"

# OpenAI-compatible services: one translator, a row each (see providers/openai/services.py for the
# base URL and key variable of each).
_OPENAI_COMPATIBLE = (
    "azure", "groq", "mistral", "deepseek", "xai", "together", "fireworks", "openrouter",
    "cerebras", "perplexity", "huggingface", "ollama", "lmstudio", "vllm",
    "nebius", "sambanova", "inception", "cohere",
)

BUILTIN: dict[str, _Entry] = {
    "openai": (_OPENAI, "openai", "openai", {"service": "openai"}),
    **{k: (_OPENAI, "openai", "openai", {"service": k}) for k in _OPENAI_COMPATIBLE},
    "anthropic": ("aisuite_like.providers.anthropic:AnthropicProvider", "anthropic",
                  "anthropic", {}),
    "google": ("aisuite_like.providers.google:GoogleProvider", "google.genai", "google", {}),
    "bedrock": ("aisuite_like.providers.bedrock:BedrockProvider", "botocore", "bedrock", {}),
    "deepgram": ("aisuite_like.providers.deepgram:DeepgramProvider", "httpx2", "deepgram", {}),
    "test": ("aisuite_like.testing:TestProvider", None, None, {}),
}

#: The provider classes that have a native transport (docs/transports.md).
_NATIVE_TARGETS = frozenset({_OPENAI, BUILTIN["anthropic"][0], BUILTIN["google"][0]})


def has_native_transport(key: str) -> Optional[bool]:
    """Whether the provider of ``key`` (canonical) has a native transport: True (openai and
    the compatible services, anthropic, google), False for a built-in one that can only go
    through its vendor SDK (bedrock: botocore), None for a key with no vendor SDK to leave
    (``test``, deepgram) or one of the user's (``register_provider``)."""
    if key in _USER or key not in BUILTIN:
        return None
    target, sdk, _, _ = BUILTIN[key]
    if target in _NATIVE_TARGETS:
        return True
    return False if sdk not in (None, "httpx2") else None


# Aliases share one provider instance and one config (a config under either key serves both).
ALIASES = {"gemini": "google", "aws": "bedrock"}

# A user's provider: its class (or any callable making one), or its "module:Class" path.
_UserProvider = Union[str, Callable[..., Provider]]

_USER: dict[str, _UserProvider] = {}


def register_provider(key: str, provider: _UserProvider) -> None:
    """Register a provider class (or ``"module:Class"`` path) under ``key``, process-wide.

    The class is instantiated with the ``provider_configs[key]`` mapping as keyword arguments.
    """
    if not isinstance(key, str) or not key or ":" in key:
        raise ValueError(f"provider key must be a non-empty string without ':', got {key!r}")
    if not (isinstance(provider, str) and ":" in provider) and not callable(provider):
        raise TypeError("register_provider expects a Provider class or a 'module:Class' string")
    _USER[key] = provider


def provider_keys() -> list[str]:
    """Every known provider key, built-in, alias and registered."""
    return sorted({*BUILTIN, *ALIASES, *_USER})


def unknown_provider(key: str) -> UnknownProviderError:
    return UnknownProviderError(
        f"Invalid provider key {key!r}. Supported providers: {', '.join(provider_keys())}. "
        "Make sure the model string is formatted correctly as 'provider:model', or register "
        "your own provider with aisuite_like.register_provider(key, cls).")


def canonical_key(key: str) -> str:
    return ALIASES.get(key, key)


def _load(target: str) -> Callable[..., Provider]:
    module_name, _, attr = target.partition(":")
    cls: Callable[..., Provider] = getattr(importlib.import_module(module_name), attr)
    return cls


def create_provider(key: str, config: dict[str, Any]) -> Provider:
    """Instantiate the provider for ``key`` (already canonical) with ``config``."""
    if key in _USER:
        target = _USER[key]
        cls = _load(target) if isinstance(target, str) else target
        provider = cls(**config)
    elif key in BUILTIN:
        target, sdk, extra, fixed = BUILTIN[key]
        if config.get("transport") == "native":  # no vendor SDK on that path
            sdk = None
        if (sdk is not None and importlib.util.find_spec(sdk.split(".")[0]) is None) or (
            sdk is not None and "." in sdk and find_spec_safe(sdk) is None
        ):
            raise MissingDependencyError(
                f"provider {key!r} needs the {sdk!r} package, which is not installed. "
                f'Install it with: pip install "aisuite-like[{extra}]"'
            )
        from ._aisuite_keys import aisuite_config

        provider = _load(target)(**fixed, **aisuite_config(key, config))
    else:
        raise unknown_provider(key)
    try:
        provider.key = key
    except AttributeError:
        pass
    return provider


# The key variables of the families outside the compatible-services table (whose rows name
# their own); a provider counts as set up by its environment when one of them is set.
_KEY_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "bedrock": ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE"),
}


def keys_in_environment() -> list[str]:
    """The built-in providers whose API key variable is set (``OPENAI_API_KEY``,
    ``ANTHROPIC_API_KEY``, ``GROQ_API_KEY``, ...; bedrock: AWS credentials or a Bedrock API
    key, with ``AWS_REGION`` or ``AWS_DEFAULT_REGION``), in the registry's order."""
    import os

    from .openai.services import SERVICES

    keys = [spec.key for spec in SERVICES.values()
            if spec.key_required and spec.key_env and os.environ.get(spec.key_env)]
    for key, names in _KEY_VARIABLES.items():
        if any(os.environ.get(name) for name in names) and (key != "bedrock" or any(
                os.environ.get(name) for name in ("AWS_REGION", "AWS_DEFAULT_REGION"))):
            keys.append(key)
    return keys


def key_variable(key: str) -> Optional[str]:
    """The environment variable a built-in provider reads its key from (None: none)."""
    if key in _KEY_VARIABLES:
        return _KEY_VARIABLES[key][0]
    from .openai.services import SERVICES

    spec = SERVICES.get(key)
    return spec.key_env if spec is not None else None


def service_for_base_url(base_url: Any) -> Optional[str]:
    """The compatible service whose default endpoint ``base_url`` is (``"groq"`` for
    ``https://api.groq.com/openai/v1``), ``"openai"`` for OpenAI's, else None. Loads the
    services table on first use."""
    from .openai.services import service_for_base_url as find

    return find(base_url)


def is_offline_key(key: str) -> bool:
    """Whether ``key`` (canonical) names an offline provider, decided WITHOUT creating it (so
    ``testing.block_real_requests()`` refuses before a vendor SDK is even imported)."""
    if key in _USER:
        target = _USER[key]
        cls = _load(target) if isinstance(target, str) else target
        return isinstance(cls, type) and issubclass(cls, Provider) and cls.offline
    return key == "test"


def find_spec_safe(name: str) -> Optional[ModuleSpec]:
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
