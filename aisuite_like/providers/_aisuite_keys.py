"""aisuite's provider config keys, accepted as written for aisuite (pure, no I/O except
reading a Vertex credentials file the config names).

- ``ollama`` / ``lmstudio``: ``api_url`` (the server's root, e.g. ``http://localhost:11434``)
  -> ``base_url`` with ``/v1`` appended (both servers' OpenAI-compatible API);
- ``huggingface``: ``token`` -> ``api_key``;
- ``google``: ``project_id`` / ``region`` / ``application_credentials`` (a service-account
  JSON file) -> Vertex AI (``vertexai=True``, ``project``, ``location``, ``credentials``);
- ``azure`` without ``api_version`` (and no ``OPENAI_API_VERSION``) ->
  ``AZURE_DEFAULT_API_VERSION``.
"""

from __future__ import annotations

import os
from typing import Any

from ..core.errors import ConfigurationError

#: The Azure OpenAI API version used when neither the config nor OPENAI_API_VERSION gives one
#: (aisuite's azure config has no version); the latest GA version of the data-plane API.
AZURE_DEFAULT_API_VERSION = "2024-10-21"

_VERTEX_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)


def _renamed(key: str, config: dict[str, Any], old: str, new: str) -> None:
    if old in config:
        if config.get(new) is not None:
            raise ConfigurationError(
                f"provider_configs[{key!r}] has both {old!r} (aisuite's name) and {new!r}; "
                "give one")
        config[new] = config.pop(old)


def _server_root(url: Any) -> str:
    root = str(url).rstrip("/")
    return root if root.endswith("/v1") else root + "/v1"


def aisuite_config(key: str, config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with aisuite's key names translated to ours (a new dict when anything
    changes; the caller's is never modified)."""
    if key in ("ollama", "lmstudio") and "api_url" in config:
        config = dict(config)
        _renamed(key, config, "api_url", "base_url")
        config["base_url"] = _server_root(config["base_url"])
    elif key == "huggingface" and "token" in config:
        config = dict(config)
        _renamed(key, config, "token", "api_key")
    elif key == "google" and any(k in config for k in
                                 ("project_id", "region", "application_credentials")):
        config = dict(config)
        _renamed(key, config, "project_id", "project")
        _renamed(key, config, "region", "location")
        path = config.pop("application_credentials", None)
        if path is not None:
            if config.get("credentials") is not None:
                raise ConfigurationError(
                    "provider_configs['google'] has both 'application_credentials' (aisuite's "
                    "name) and 'credentials'; give one")
            config["credentials"] = _service_account(path)
        config.setdefault("vertexai", True)
    elif key == "azure" and config.get("api_version") is None \
            and not os.environ.get("OPENAI_API_VERSION"):
        config = {**config, "api_version": AZURE_DEFAULT_API_VERSION}
    return config


def _service_account(path: Any) -> Any:
    try:
        from google.oauth2 import service_account
    except ImportError as exc:  # google-auth comes with google-genai
        from ..core.errors import MissingDependencyError

        raise MissingDependencyError(
            'application_credentials needs google-auth: pip install "aisuite-like[google]"'
        ) from exc
    try:
        return service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]  # google-auth: unannotated
            str(path), scopes=list(_VERTEX_SCOPES))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(
            f"provider_configs['google']['application_credentials'] = {str(path)!r} could not "
            f"be read as a service-account JSON file: {type(exc).__name__}") from None
