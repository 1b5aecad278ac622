"""The native transport of the OpenAI family (docs/transports.md): the request
``translate.build_request`` made goes out as the openai SDK would send it (same URL, same
JSON body, the same auth and organization headers; Azure's deployment URL and ``api-key``)
on our own pooled connections (``providers/_native.py``); replies go to the same
translator and stream decoder as on the SDK path. The openai SDK is not imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, Optional

from .._native import NativeHTTP, NativeRequest, get_request, json_body, user_agent, with_query
from .errors import reply_error
from .services import ServiceSpec

#: Keyword arguments of ``chat.completions.create`` that are no body field: with these as
#: the SDK's named parameters, ``build_request`` leaves every other provider-native
#: argument in ``extra_body``, which goes into the body all the same.
NATIVE_PARAMS = frozenset({"extra_headers", "extra_query"})

_OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAINative:
    """URL and headers of one OpenAI-compatible service, and its :class:`NativeHTTP`."""

    def __init__(self, spec: ServiceSpec, config: Mapping[str, Any], api_key: Optional[str],
                 azure: Optional[Mapping[str, Any]], secrets: tuple[Optional[str], ...],
                 host: str) -> None:
        self.key = spec.key
        self._azure = azure
        headers = {"Accept": "application/json", "Content-Type": "application/json",
                   "User-Agent": user_agent()}
        self._token_provider: Optional[Callable[[], str]] = None
        if azure is not None:
            self._base, self._deployment_in_base = _azure_base(azure)
            # the SDK's URL of an endpoint that names no deployment (e.g. /responses)
            self._root = (str(azure["base_url"]).rstrip("/") if azure.get("base_url") is not None
                          else str(azure["azure_endpoint"]).rstrip("/") + "/openai")
            if api_key is not None:
                headers["api-key"] = api_key
            elif azure.get("azure_ad_token") is not None:
                headers["Authorization"] = f"Bearer {azure['azure_ad_token']}"
            elif azure.get("azure_ad_token_provider") is not None:
                self._token_provider = azure["azure_ad_token_provider"]
            else:  # AZURE_OPENAI_AD_TOKEN, as the SDK reads it
                token = os.environ.get("AZURE_OPENAI_AD_TOKEN")
                if token:
                    headers["Authorization"] = f"Bearer {token}"
        else:
            self._deployment_in_base = False
            base = config.get("base_url") or spec.base_url
            if base is None:  # the openai row: the SDK's default, which OPENAI_BASE_URL sets
                base = os.environ.get("OPENAI_BASE_URL") or _OPENAI_BASE_URL
            self._base = self._root = str(base).rstrip("/")
            if api_key is not None:
                headers["Authorization"] = f"Bearer {api_key}"
        if spec.openai_native:
            for name, header, env in (("organization", "OpenAI-Organization", "OPENAI_ORG_ID"),
                                      ("project", "OpenAI-Project", "OPENAI_PROJECT_ID")):
                value = config.get(name) or (os.environ.get(env) if azure is None else None)
                if value:
                    headers[header] = str(value)
        for name, value in (config.get("default_headers") or {}).items():
            if value is None:
                headers.pop(name, None)
            elif isinstance(value, str):
                headers[name] = value
        self._headers = headers
        self._query = {"api-version": azure["api_version"]} if azure is not None else {}
        self.http = NativeHTTP(self.key, self._reply_error, secrets, host=host)
        self._secrets = secrets

    def _reply_error(self, status: int, headers: Any, content: bytes, response: Any) -> Any:
        return reply_error(status, headers, content, self.key, self._secrets, response)

    def request(self, kwargs: Mapping[str, Any], path: str = "/chat/completions"
                ) -> NativeRequest:
        """The HTTP request for ``chat.completions.create(**kwargs)`` (``path``
        ``"/responses"``: for ``responses.create(**kwargs)``)."""
        body, extra_headers, query = json_body(kwargs, self.key)
        if path == "/chat/completions":
            url = self._base
            if self._azure is not None and not self._deployment_in_base:
                url += f"/deployments/{kwargs.get('model')}"
        else:  # Azure names no deployment in the URL of these (as the SDK sends them)
            url = self._root
        url = with_query(url + path, {**self._query, **query})
        headers = self._headers
        if self._token_provider is not None or extra_headers:
            headers = dict(headers)
            if self._token_provider is not None:
                headers["Authorization"] = f"Bearer {self._token_provider()}"
            headers.update(extra_headers)
        return NativeRequest(url, headers, body)


    def models(self) -> NativeRequest:
        """The HTTP request for ``models.list()`` (Azure: no deployment in its URL)."""
        headers = self._headers
        if self._token_provider is not None:
            headers = {**headers, "Authorization": f"Bearer {self._token_provider()}"}
        return get_request(self._root + "/models", headers, self._query)


def _azure_base(azure: Mapping[str, Any]) -> tuple[str, bool]:
    """Azure's base URL as the SDK builds it, and whether it names the deployment."""
    if azure.get("base_url") is not None:
        base = str(azure["base_url"]).rstrip("/")
        return base, "/deployments" in base
    endpoint = str(azure["azure_endpoint"]).rstrip("/")
    deployment = azure.get("azure_deployment")
    if deployment is not None:
        return f"{endpoint}/openai/deployments/{deployment}", True
    return f"{endpoint}/openai", False

