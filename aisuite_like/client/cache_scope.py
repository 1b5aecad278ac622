"""What names the answerer of a call in the response cache's key (docs/cache.md, "What is the
same call"): the provider key with its endpoint and every setting of its config that can
change the answer or the tenant; for a router alias, each of its deployments.

Pure: no I/O. Settings that may hold credentials (URL user info and query, headers,
``organization``, ...) appear only as a fingerprint (a truncated sha256), and the API key and
other credentials not at all, except as a router deployment's key fingerprint: the scope
ends up hashed into the key, and may show as a provider's key name, so nothing in it is ever
a secret in clear.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ..providers.registry import canonical_key

__all__ = ["config_scope", "alias_scope", "fingerprint"]

# Config keys that say which endpoint (and so which model behind a name) a provider calls,
# and over which API (a chat reply is not a Responses reply): shown in the scope as they are
# (a URL without its user info and query, which go into the fingerprint).
_ENDPOINT_KEYS = ("base_url", "api_url", "azure_endpoint", "endpoint_url", "region_name",
                  "location", "project", "vertexai", "api")
# Config keys that change neither the answer nor the tenant: how long and how often to try,
# which HTTP client carries the call, how many inputs go in one request.
_NOT_SCOPED = frozenset({"timeout", "max_retries", "max_retry_wait", "max_concurrency",
                         "retry_clock", "stream_gap_timeout", "http_client",
                         "async_http_client", "async_transport", "transport",
                         "max_embedding_inputs", "control_endpoint_url"})
# Credentials: left out (two keys of one account share entries, docs/cache.md).
_CREDENTIAL_WORDS = ("api_key", "apikey", "secret", "password", "credential", "access_key",
                     "token_provider")


def _is_credential(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _CREDENTIAL_WORDS) or lowered.endswith("token")


def fingerprint(value: Any) -> str:
    """A short sha256 of ``value``'s canonical JSON (objects JSON cannot hold count by their
    type): tells values apart without holding them."""
    import hashlib
    import json  # on first use: ``import aisuite_like`` loads no json

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      default=lambda o: f"<{type(o).__name__}>")
    return hashlib.sha256(b"aisuite_like cache scope\0" + text.encode("ascii")).hexdigest()[:32]


def config_scope(provider_key: str, config: Mapping[str, Any]) -> str:
    """``provider_key`` (canonical) with its endpoint settings and a fingerprint of the other
    settings of ``config`` that can change the answer or the tenant (``organization``,
    ``project``, ``default_headers``, URL user info and query, ``reasoning_field``, ...)."""
    endpoint: list[str] = []
    tenant: dict[str, Any] = {}
    for name in _ENDPOINT_KEYS:
        value = config.get(name)
        if value is None:
            continue
        if isinstance(value, str) and "://" in value:
            url = urlsplit(value)
            port = f":{url.port}" if url.port else ""
            value = f"{url.scheme}://{url.hostname or ''}{port}{url.path.rstrip('/')}"
            hidden = {"userinfo": url.netloc.rpartition("@")[0], "query": url.query,
                      "fragment": url.fragment}
            hidden = {k: v for k, v in hidden.items() if v}
            if hidden:
                tenant[name] = hidden
        endpoint.append(f"{name}={value}")
    for name, value in config.items():
        if name in _ENDPOINT_KEYS or name in _NOT_SCOPED or _is_credential(str(name)) \
                or value is None or callable(value):
            continue
        tenant[str(name)] = value
    scope = canonical_key(provider_key)
    if endpoint:
        scope += "@" + ",".join(endpoint)
    if tenant:
        scope += "#" + fingerprint(tenant)
    return scope


def alias_scope(alias: str, deployments: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """A router alias named by what answers it: each deployment's model (``"provider:model"``,
    the provider canonical) with its config's scope (its effective config: the client's
    config of that provider with the deployment's settings over it) and a fingerprint of its
    API key, in no particular order (the order of deployments does not change an answer)."""
    parts = []
    for model, config in deployments:
        key, _, name = model.partition(":")
        part = f"{config_scope(key, config)}/{name}"
        api_key = config.get("api_key")
        if isinstance(api_key, str) and api_key:
            part += "/key=" + fingerprint(api_key)
        parts.append(part)
    return f"router:{alias}[{'|'.join(sorted(set(parts)))}]"
