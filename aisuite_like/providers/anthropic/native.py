"""The native transport of the Anthropic family (docs/transports.md): the request
``translate.build_request`` made goes out as the anthropic SDK sends it (``POST
{base_url}/v1/messages``, the same JSON body, ``Authorization: Bearer`` and the
``anthropic-version`` header) on our own pooled connections (``providers/_native.py``);
replies go to the same translator and stream decoder as on the SDK path. The anthropic SDK
is not imported.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Optional

from .._native import (
    NativeHTTP,
    NativeRequest,
    encode_form,
    form_fields,
    get_request,
    json_body,
    request_parts,
    user_agent,
    with_query,
)
from .errors import reply_error

#: The API version the anthropic SDK this project pins sends (``ANTHROPIC_API_VERSION``;
#: tests/providers/test_native_transport.py checks they agree).
ANTHROPIC_VERSION = "2026-10-21"

#: ``messages.create``'s named parameters (the installed SDK's; the same test checks them):
#: ``build_request`` merges and checks a provider-native argument of these names as on the
#: SDK path. ``workspace_id`` / ``user_profile_id`` are headers, the rest body fields.
NATIVE_PARAMS = frozenset({
    "cache_control", "container", "diagnostics", "extra_body", "extra_headers", "extra_query",
    "inference_geo", "max_tokens", "messages", "metadata", "model", "output_config",
    "service_tier", "speed", "stop_sequences", "stream", "system", "thinking", "timeout",
    "tool_choice", "tools", "user_profile_id", "workspace_id"})
_HEADER_PARAMS = {"workspace_id": "anthropic-workspace-id",
                  "user_profile_id": "anthropic-user-profile-id"}

#: Config keys of the SDK client the native transport honours besides the common ones.
NATIVE_OPTIONS = frozenset({"auth_token"})

_BASE_URL = "https://api.anthropic.com"
#: The Files API calls of ``media.files_plan`` (the SDK's ``beta.files``): method and path.
_FILE_CALLS = {"upload": ("POST", ""), "list": ("GET", ""),
               "retrieve_metadata": ("GET", "/{}"), "delete": ("DELETE", "/{}"),
               "download": ("GET", "/{}/content")}
#: The SDK's keyword arguments of ``beta.files`` that are headers.
_FILE_HEADERS = {"workspace_id": "anthropic-workspace-id"}
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"


class AnthropicNative:
    """URL and headers of the Messages API, and its :class:`NativeHTTP`."""

    def __init__(self, provider: str, api_key: Optional[str], base_url: Optional[str],
                 default_headers: Optional[Mapping[str, Any]], auth_token: Optional[str],
                 secrets: tuple[Optional[str], ...], host: str) -> None:
        self.key = provider
        base = base_url or os.environ.get("ANTHROPIC_BASE_URL") or _BASE_URL
        self.root = str(base).rstrip("/")
        self.url = str(base).rstrip("/") + "/v1/messages"
        self.models_url = str(base).rstrip("/") + "/v1/models"
        headers = {"Accept": "application/json", "Content-Type": "application/json",
                   "User-Agent": user_agent(), "anthropic-version": ANTHROPIC_VERSION}
        credential = api_key if api_key is not None else auth_token
        if credential is not None:
            headers["Authorization"] = f"Bearer {credential}"
        for name, value in (default_headers or {}).items():
            if value is None:
                headers.pop(name, None)
            elif isinstance(value, str):
                headers[name] = value
        self._headers = headers
        self._secrets = secrets
        self.http = NativeHTTP(provider, self._reply_error, secrets, host=host)

    def _reply_error(self, status: int, headers: Any, content: bytes, response: Any) -> Any:
        return reply_error(status, headers, content, self.key, self._secrets, response)

    def models(self, query: Mapping[str, Any]) -> NativeRequest:
        """The HTTP request for ``models.list(**query)`` (one page)."""
        return get_request(self.models_url, self._headers, query)

    def count_request(self, kwargs: Mapping[str, Any]) -> NativeRequest:
        """The HTTP request for ``messages.count_tokens(**kwargs)``."""
        request = self.request(kwargs)
        return NativeRequest(request.url.replace("/v1/messages", "/v1/messages/count_tokens",
                                                 1), request.headers, request.body)

    def request(self, kwargs: Mapping[str, Any]) -> NativeRequest:
        """The HTTP request for ``messages.create(**kwargs)``."""
        extra_headers = {header: str(kwargs[name]) for name, header in _HEADER_PARAMS.items()
                         if kwargs.get(name) is not None}
        body, more_headers, query = json_body(kwargs, self.key,
                                              skip=frozenset({"timeout", *_HEADER_PARAMS}))
        extra_headers.update(more_headers)
        headers = {**self._headers, **extra_headers} if extra_headers else self._headers
        return NativeRequest(with_query(self.url, query), headers, body)

    def _batch_call(self, operation: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
                    ) -> NativeRequest:
        """Message Batches (``batches/anthropic.py``): create, retrieve, cancel."""
        method, where = _BATCH_CALLS[operation]
        if "{}" in where:
            where = where.format(_segment(str(args[0])))
        url = self.root + "/v1/messages/batches" + where
        body, extra_headers, query = json_body(kwargs, self.key)
        headers = {**self._headers, **extra_headers} if extra_headers else self._headers
        if method == "GET":
            return get_request(url, headers, query)
        if operation == "cancel" and not kwargs:
            body = b""
        return NativeRequest(with_query(url, query), headers, body)

    def _get(self, url: str, kwargs: Mapping[str, Any]) -> NativeRequest:
        """The SDK client's ``get(url, options={"headers": ...})``: an absolute URL as
        given (the caller checked its origin), a path under the base URL."""
        headers = dict(self._headers)
        headers.update((kwargs.get("options") or {}).get("headers") or {})
        if not url.startswith(("http://", "https://")):
            url = self.root + url
        return get_request(url, headers, {})

    def sdk_call(self, path: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
                 ) -> NativeRequest:
        """The request of the SDK call ``path(*args, **kwargs)`` of a Files API plan
        (``media.files_plan``: ``beta.files.with_raw_response.<operation>``), as the SDK
        sends it: ``betas`` as the ``anthropic-beta`` header, the upload a multipart form."""
        if path.startswith("messages.batches.with_raw_response."):
            return self._batch_call(path.rsplit(".", 1)[1], args, kwargs)
        if path == "get":  # a batch's results (its results_url, or the path to it)
            return self._get(str(args[0]), kwargs)
        operation = path.rsplit(".", 1)[1]
        if not path.startswith("beta.files.") or operation not in _FILE_CALLS:
            from ...core.errors import UnsupportedFeatureError

            raise UnsupportedFeatureError(
                f"{self.key}: {path} is not on the native transport; use "
                f"provider_configs={{{self.key!r}: {{'transport': 'sdk'}}}}",
                feature=path, provider=self.key)
        method, where = _FILE_CALLS[operation]
        given = dict(kwargs)
        headers = dict(self._headers)
        betas = given.pop("betas", None)
        if betas:
            headers["anthropic-beta"] = ",".join(str(beta) for beta in betas)
        for name, header in _FILE_HEADERS.items():
            value = given.pop(name, None)
            if value is not None:
                headers[header] = str(value)
        fields, extra_headers, query = request_parts(given, self.key)
        headers.update(extra_headers)
        if "{}" in where:
            where = where.format(_segment(str(args[0])))
        url = self.root + "/v1/files" + where
        if operation == "download":
            headers["Accept"] = "application/binary"
        if operation == "upload":
            file = fields.pop("file")
            body, content_type = encode_form(form_fields(fields), [("file", file)])
            headers["Content-Type"] = content_type
            return NativeRequest(with_query(url, query), headers, body)
        if operation == "list":
            query = {**fields, **query}
        request = get_request(url, headers, query)
        request.method = method
        return request


_BATCH_CALLS = {"create": ("POST", ""), "retrieve": ("GET", "/{}"),
                "cancel": ("POST", "/{}/cancel")}


def _segment(value: str) -> str:
    """A file id percent-encoded as the SDK's ``path_template`` does (a dot segment, which
    would change the path, refused)."""
    from urllib.parse import quote

    if value in (".", "..") or not value:
        from ...core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(f"file_id {value!r} is not a file id",
                                        parameter="file_id")
    return quote(value, safe=_SEGMENT_SAFE)
