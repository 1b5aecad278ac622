"""The module-level client: ``aisuite_like.chat.completions.create(...)``, as the OpenAI SDK's
``openai.chat.completions.create(...)`` (docs/migration.md, "The module-level client").

Its settings are attributes of the ``aisuite_like`` module, as ``openai.api_key = ...``:
``api_key``, ``organization``, ``project``, ``base_url`` and ``default_headers`` configure the
``openai`` provider key; ``timeout``, ``max_retries`` and ``transport`` the
whole client. Every other provider reads its usual environment variable, as ``ai.Client()``
does. The client is built on first use and built again when a setting has changed since.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from typing import Any, Optional

from ..errors import ConfigurationError
from .facade import Client

#: The module attributes that configure the ``openai`` key, then the client-wide ones.
OPENAI_SETTINGS = ("api_key", "organization", "project", "base_url", "default_headers")
CLIENT_SETTINGS = ("timeout", "max_retries", "transport")
SETTINGS = OPENAI_SETTINGS + CLIENT_SETTINGS

#: The module attributes that are the module client's: ``aisuite_like.chat`` is
#: ``module_client().chat``. (``responses`` and ``batches`` name the package's modules.)
ENDPOINTS = frozenset({"chat", "beta", "embeddings", "models", "audio", "images",
                       "moderations", "files"})

#: The OpenAI SDK's other module settings, which are not read here: refused, not ignored.
UNREAD_SETTINGS = ("default_query", "http_client", "api_type", "api_version",
                   "azure_endpoint", "azure_ad_token", "azure_ad_token_provider",
                   "webhook_secret")

_lock = threading.Lock()
_built: Optional[tuple[dict[str, Any], Client]] = None


def module_client(namespace: Mapping[str, Any]) -> Client:
    """The client for the settings in ``namespace`` (the ``aisuite_like`` module's globals):
    the one built before when they are unchanged, else a new one. Its settings are checked as
    ``ai.Client(...)`` checks them (a bad ``base_url`` raises ``ConfigurationError``)."""
    global _built
    unread = [name for name in UNREAD_SETTINGS if namespace.get(name) is not None]
    if unread:
        raise ConfigurationError(
            f"aisuite_like.{unread[0]} is not a setting of the module-level client (it reads "
            f"{', '.join(SETTINGS)}); make a client instead: ai.Client(provider_configs="
            f"{{'openai': {{...}}}}), or for Azure ai.AzureOpenAI(...)")
    settings = {name: namespace.get(name) for name in SETTINGS}
    with _lock:
        if _built is not None and _built[0] == settings:
            return _built[1]
        openai = {name: settings[name] for name in OPENAI_SETTINGS
                  if settings[name] is not None}
        client = Client({"openai": openai} if openai else None,
                        timeout=settings["timeout"], max_retries=settings["max_retries"],
                        transport=settings["transport"])
        # A snapshot: a dict changed in place later (default_headers["x"] = ...) is a change.
        _built = (copy.deepcopy(settings), client)
        return client
