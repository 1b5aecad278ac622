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

from .._native import (
    NativeHTTP,
    NativeRequest,
    encode_form,
    encode_json,
    form_fields,
    get_request,
    json_body,
    request_parts,
    user_agent,
    with_query,
)
from .errors import reply_error
from .services import ServiceSpec

#: The paths Azure serves under its deployment (the openai SDK's ``_deployments_endpoints``;
#: tests/providers/test_native_transport.py checks they agree).
DEPLOYMENT_PATHS = frozenset({"/completions", "/chat/completions", "/embeddings",
                              "/audio/transcriptions", "/audio/translations", "/audio/speech",
                              "/images/generations", "/images/edits"})

#: The named parameters of the SDK methods whose other arguments the endpoints' plans put in
#: ``extra_body`` (``endpoints._named``), as the installed SDK has them (a test checks):
#: read here on the native transport, which imports no SDK.
SDK_NAMED = {
    "images.generate": frozenset({
        "background", "complexity", "extra_body", "extra_headers", "extra_query",
        "frame_count", "frame_duration_ms", "model", "moderation", "n", "output_compression",
        "output_format", "partial_images", "prompt", "quality", "response_format",
        "safety_identifier", "size", "stream", "style", "svg", "timeout", "user"}),
    "images.edit": frozenset({
        "background", "complexity", "extra_body", "extra_headers", "extra_query",
        "frame_count", "frame_duration_ms", "image", "input_fidelity", "markup", "mask",
        "model", "n", "output_compression", "output_format", "partial_images", "prompt",
        "quality", "response_format", "safety_identifier", "size", "stream", "svg",
        "timeout", "user"}),
    "audio.speech": frozenset({
        "extra_body", "extra_headers", "extra_query", "input", "instructions", "model",
        "response_format", "speed", "stream_format", "timeout", "voice"}),
    "moderations": frozenset({"extra_body", "extra_headers", "extra_query", "input", "model",
                              "timeout"}),
}

#: An SDK call of the endpoints' plans (``providers/plans.py``) -> its request: a JSON
#: ``POST`` of the path, a multipart one (the path and its file fields), or the Files API.
_JSON_CALLS = {
    "embeddings.with_raw_response.create": "/embeddings",
    "images.with_raw_response.generate": "/images/generations",
    "audio.speech.with_raw_response.create": "/audio/speech",
    "audio.speech.with_streaming_response.create": "/audio/speech",
    "moderations.with_raw_response.create": "/moderations",
    "responses.input_tokens.with_raw_response.count": "/responses/input_tokens",
}
_FORM_CALLS = {
    "images.with_raw_response.edit": ("/images/edits", ("image", "mask")),
    "audio.transcriptions.with_raw_response.create": ("/audio/transcriptions", ("file",)),
    "audio.translations.with_raw_response.create": ("/audio/translations", ("file",)),
    "files.with_raw_response.create": ("/files", ("file",)),
}
#: The calls whose reply is binary, and the ``Accept`` the SDK sends for them.
_BINARY_ACCEPT = {"audio.speech.with_raw_response.create": "application/octet-stream",
                  "audio.speech.with_streaming_response.create": "application/octet-stream",
                  "files.with_raw_response.content": "application/binary",
                  "files.with_streaming_response.content": "application/binary"}
#: The Batch API's calls (``batches/openai.py``): method and path (``{}``: the batch id).
_BATCH_CALLS = {"create": ("POST", "/batches"), "list": ("GET", "/batches"),
                "retrieve": ("GET", "/batches/{}"), "cancel": ("POST", "/batches/{}/cancel")}
#: RFC 3986's characters of a path segment that are sent as they are (the SDK's
#: ``path_template`` quotes the rest).
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"

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
        ``"/responses"``: for ``responses.create(**kwargs)``; any path of a JSON ``POST``)."""
        body, extra_headers, query = json_body(kwargs, self.key)
        return NativeRequest(self._url(path, kwargs.get("model"), query),
                             self.headers_for(extra_headers), body)

    def _url(self, path: str, model: Any, query: Mapping[str, Any]) -> str:
        if path in DEPLOYMENT_PATHS:
            url = self._base
            if self._azure is not None and not self._deployment_in_base:
                url += f"/deployments/{model}"
        else:  # Azure names no deployment in the URL of these (as the SDK sends them)
            url = self._root
        return with_query(url + path, {**self._query, **query})

    def headers_for(self, extra: Mapping[str, str], **fixed: str) -> dict[str, str]:
        """The request headers: the client's, ``fixed`` ones (a form's Content-Type, an
        ``Accept``), a fresh Azure AD token, the call's ``extra_headers`` last."""
        headers = self._headers
        if self._token_provider is not None or extra or fixed:
            headers = {**headers, **fixed}
            if self._token_provider is not None:
                headers["Authorization"] = f"Bearer {self._token_provider()}"
            headers.update(extra)
        return headers

    def form(self, kwargs: Mapping[str, Any], path: str, file_fields: tuple[str, ...]
             ) -> NativeRequest:
        """A multipart ``POST`` as the SDK sends it (an upload: a transcription, an image
        edit, a file): the file fields as files (a list of them as ``name[]``), every other
        argument a form field (``extra_body`` merged in)."""
        data, extra_headers, query = request_parts(kwargs, self.key)
        files: list[tuple[str, Any]] = []
        for name in file_fields:
            value = data.pop(name, None)
            if isinstance(value, list):
                files.extend((f"{name}[]", item) for item in value)
            elif value is not None:
                files.append((name, value))
        body, content_type = encode_form(form_fields(data), files)
        headers = self.headers_for(extra_headers, **{"Content-Type": content_type})
        return NativeRequest(self._url(path, kwargs.get("model"), query), headers, body)

    def _batch_call(self, operation: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
                    ) -> NativeRequest:
        method, where = _BATCH_CALLS[operation]
        if "{}" in where:
            where = where.format(_segment(str(args[0])))
        if method == "POST":
            body, extra_headers, query = json_body(kwargs, self.key)
            return NativeRequest(self._url(where, None, query), self.headers_for(extra_headers),
                                 body)
        fields, extra_headers, query = request_parts(kwargs, self.key)
        return get_request(self._url(where, None, {**fields, **query}),
                           self.headers_for(extra_headers), {})

    def sdk_call(self, path: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
                 ) -> NativeRequest:
        """The request of the SDK call ``path(*args, **kwargs)`` of an endpoint's plan
        (``providers/plans.py``), as the SDK sends it."""
        accept = _BINARY_ACCEPT.get(path)
        fixed = {"Accept": accept} if accept is not None else {}
        route = _JSON_CALLS.get(path)
        if route is not None:
            request = self.request(kwargs, route)
            if fixed:
                request.headers = {**request.headers, **fixed}
            return request
        form = _FORM_CALLS.get(path)
        if form is not None:
            return self.form(kwargs, *form)
        if path.startswith("batches.with_raw_response."):
            return self._batch_call(path.rsplit(".", 1)[1], args, kwargs)
        if not path.startswith(("files.with_raw_response.", "files.with_streaming_response.")):
            from ...core.errors import UnsupportedFeatureError

            raise UnsupportedFeatureError(
                f"{self.key}: {path.split('.')[0]} is not on the native transport; use "
                f"provider_configs={{{self.key!r}: {{'transport': 'sdk'}}}}",
                feature=path, provider=self.key)
        operation = path.rsplit(".", 1)[1]
        fields, extra_headers, query = request_parts(kwargs, self.key)
        method = {"delete": "DELETE"}.get(operation, "GET")
        where = "/files"
        if operation != "list":
            where += "/" + _segment(str(args[0]))
            if operation == "content":
                where += "/content"
        else:
            query = {**fields, **query}
            fields = {}
        headers = self.headers_for(extra_headers, **fixed)
        if method == "GET" or not fields:
            request = get_request(self._url(where, None, query), headers, {})
            request.method = method
            return request
        return NativeRequest(self._url(where, None, query), headers,
                             encode_json(fields, self.key), method)


    def models(self) -> NativeRequest:
        """The HTTP request for ``models.list()`` (Azure: no deployment in its URL)."""
        headers = self._headers
        if self._token_provider is not None:
            headers = {**headers, "Authorization": f"Bearer {self._token_provider()}"}
        return get_request(self._root + "/models", headers, self._query)


def _segment(value: str) -> str:
    """A path segment (a file id) percent-encoded as the SDK's ``path_template`` does; a
    dot segment, which would change the path, is refused."""
    from urllib.parse import quote

    if value in (".", "..") or not value:
        from ...core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(f"file_id {value!r} is not a file id",
                                        parameter="file_id")
    return quote(value, safe=_SEGMENT_SAFE)


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

