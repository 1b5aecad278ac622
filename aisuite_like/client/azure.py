"""``AzureOpenAI`` / ``AsyncAzureOpenAI``: the OpenAI SDK's Azure clients' names, so code
that makes one runs with its import changed (docs/migration.md). Each is a ``Client`` /
``AsyncClient`` whose ``azure`` provider has the settings given; models are named
``"azure:<deployment>"``, as everywhere else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .facade import AsyncClient, Client

__all__ = ["AzureOpenAI", "AsyncAzureOpenAI"]

#: The settings of the SDK's Azure clients that are the ``azure`` provider's config.
_AZURE = ("api_key", "api_version", "azure_endpoint", "azure_deployment", "azure_ad_token",
          "azure_ad_token_provider", "base_url", "organization", "project", "default_headers",
          "http_client")


def _configs(provider_configs: Optional[Mapping[str, Mapping[str, Any]]],
             settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    configs = {key: dict(value) for key, value in (provider_configs or {}).items()}
    azure = {name: settings.pop(name) for name in _AZURE if settings.get(name) is not None}
    for name in _AZURE:
        settings.pop(name, None)
    configs["azure"] = {**configs.get("azure", {}), **azure}
    return configs


class AzureOpenAI(Client):
    """``AzureOpenAI(api_version=..., azure_endpoint=..., api_key=...)``: a ``Client`` whose
    ``azure`` provider has these settings (the others read ``AZURE_OPENAI_API_KEY``,
    ``AZURE_OPENAI_ENDPOINT``, ``OPENAI_API_VERSION``). Client-wide options (``timeout``,
    ``max_retries``, ``providers``, ...) are a ``Client``'s."""

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 **settings: Any) -> None:
        configs = _configs(provider_configs, settings)
        super().__init__(configs, **settings)


class AsyncAzureOpenAI(AsyncClient):
    """The async twin of ``AzureOpenAI``."""

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 **settings: Any) -> None:
        configs = _configs(provider_configs, settings)
        super().__init__(configs, **settings)
