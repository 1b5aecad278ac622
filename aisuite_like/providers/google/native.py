"""The native transport of the Google family, Gemini API (docs/transports.md): the body
``translate.build_request`` made goes out as google-genai sends it (``POST
{base_url}/{api_version}/models/{model}:generateContent``, or ``:streamGenerateContent?alt=sse``,
with ``x-goog-api-key``) on our own pooled connections (``providers/_native.py``); replies go
to the same translator and stream decoder as on the SDK path. google-genai is not imported.
Vertex AI (Google Cloud credentials) stays on the SDK transport.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Optional

from ...core.errors import InvalidModelError, UnsupportedParameterError
from .._native import NativeHTTP, NativeRequest, encode_json, get_request, user_agent
from .errors import _NAME, reply_error

_BASE_URL = "https://generativelanguage.googleapis.com"
#: The bytes of one upload request (google-genai's ``CHUNK_SIZE``).
_UPLOAD_CHUNK = 8 * 1024 * 1024
#: The per-request ``http_options`` keys the native transport honours.
_HTTP_OPTIONS = frozenset({"headers"})


def model_resource(model: str) -> str:
    """The Gemini API resource of ``model`` as google-genai names it (``models/<model>``;
    ``models/...`` and ``tunedModels/...`` as given)."""
    if not model:
        raise InvalidModelError("invalid Gemini model name '': model is required.")
    if ".." in model or "?" in model or "&" in model:
        raise InvalidModelError(f"invalid Gemini model name {model!r}: invalid model "
                                "parameter.")
    if model.startswith(("models/", "tunedModels/")):
        return model
    return f"models/{model}"


class GoogleNative:
    """URLs and headers of the Gemini API, and its :class:`NativeHTTP`."""

    def __init__(self, api_key: Optional[str], config: Mapping[str, Any],
                 secrets: tuple[Optional[str], ...], host: str) -> None:
        base = str(config.get("base_url") or _BASE_URL).rstrip("/")
        version = config.get("api_version") or "v1beta"
        self._prefix = f"{base}/{version}/" if version else f"{base}/"
        #: where google-genai starts a resumable upload (the Files API's ``create``)
        self.upload_url = f"{base}/upload/{version}/files" if version else f"{base}/upload/files"
        headers = {"Content-Type": "application/json", "User-Agent": user_agent()}
        if api_key is not None:
            headers["x-goog-api-key"] = api_key
        for name, value in (config.get("default_headers") or {}).items():
            if isinstance(value, str):
                headers[name] = value
        self._headers = headers
        self._secrets = secrets
        self._urls: dict[tuple[str, bool], str] = {}
        self.http = NativeHTTP(_NAME, self._reply_error, secrets, host=host,
                               ok_statuses=frozenset({200}))

    def _reply_error(self, status: int, headers: Any, content: bytes, response: Any) -> Any:
        return reply_error(status, headers, content, _NAME, self._secrets, response,
                           getattr(response, "reason_phrase", "") or "")

    def url(self, model: str, stream: bool) -> str:
        url = self._urls.get((model, stream))
        if url is None:
            url = self._prefix + model_resource(model) + (
                ":streamGenerateContent?alt=sse" if stream else ":generateContent")
            self._urls[(model, stream)] = url
        return url

    def upload_start(self, data: bytes, config: Mapping[str, Any], timeout: Any
                     ) -> NativeRequest:
        """The request that starts google-genai's resumable upload of ``data`` (``config``:
        ``mime_type``, ``display_name``, ``name``), as ``files.upload`` sends it."""
        fields: dict[str, Any] = {}
        for name, value in config.items():
            if name not in ("mime_type", "display_name", "name"):
                raise UnsupportedParameterError(
                    f"{name!r} is not a setting of a Gemini file upload (it takes mime_type, "
                    "display_name and name)", parameter=name, provider=_NAME)
            if value is not None:
                fields[name] = value
        if isinstance(fields.get("name"), str) and not fields["name"].startswith("files/"):
            fields["name"] = "files/" + fields["name"]
        mime = str(fields.get("mime_type") or "application/octet-stream")
        fields["mime_type"] = mime
        fields["size_bytes"] = len(data)
        headers = {**self.headers(None, timeout),
                   "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                   "X-Goog-Upload-Header-Content-Length": str(len(data)),
                   "X-Goog-Upload-Header-Content-Type": mime}
        return NativeRequest(self.upload_url, headers, encode_json({"file": fields}, _NAME))

    def upload_chunks(self, upload_url: str, data: bytes, timeout: Any
                      ) -> list[NativeRequest]:
        """The requests that send ``data`` to the session's ``upload_url`` (at this
        client's origin, as google-genai sends them: 8 MB a request, the last one
        finalizing)."""
        from urllib.parse import urlsplit, urlunsplit

        ours, theirs = urlsplit(self.upload_url), urlsplit(upload_url)
        url = urlunsplit(theirs._replace(scheme=ours.scheme, netloc=ours.netloc))
        base = {k: v for k, v in self.headers(None, timeout).items()
                if k.lower() != "content-type"}
        requests, offset = [], 0
        while True:
            chunk = data[offset:offset + _UPLOAD_CHUNK]
            last = offset + len(chunk) >= len(data)
            requests.append(NativeRequest(url, {
                **base, "X-Goog-Upload-Command": "upload, finalize" if last else "upload",
                "X-Goog-Upload-Offset": str(offset)}, chunk))
            offset += len(chunk)
            if last:
                return requests

    def api_url(self, path: str) -> str:
        """The URL of ``path`` relative to the API version (``files/abc``, ...)."""
        return self._prefix + path.lstrip("/")

    def call_url(self, model: str, method: str) -> str:
        """The URL of a model's ``method`` (``batchEmbedContents``, ``countTokens``, ...)."""
        return f"{self._prefix}{model_resource(model)}:{method}"

    def headers(self, http_options: Any, timeout: Any) -> dict[str, str]:
        """The request headers: a native ``http_options={"headers": ...}`` added, and
        ``X-Server-Timeout`` when a number of seconds bounds the call (as google-genai sends
        it)."""
        headers = self._headers
        extra: dict[str, str] = {}
        if http_options:
            options = http_options if isinstance(http_options, Mapping) else None
            unknown = sorted(set(options) - _HTTP_OPTIONS) if options is not None else None
            if options is None or unknown:
                raise UnsupportedParameterError(
                    "with transport='native', http_options may hold only 'headers' (a dict), "
                    f"got {unknown if unknown else type(http_options).__name__}",
                    parameter="http_options", provider=_NAME)
            extra.update({str(k): str(v) for k, v in (options.get("headers") or {}).items()})
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
            extra["X-Server-Timeout"] = str(math.ceil(timeout))
        return {**headers, **extra} if extra else headers

    def models(self, path: str) -> NativeRequest:
        """The HTTP request for one page of the models list (``path`` as google-genai
        builds it, relative to the API version)."""
        return get_request(self._prefix + path, self._headers, {})

    def request(self, url: str, headers: dict[str, str], body: Mapping[str, Any]
                ) -> NativeRequest:
        return NativeRequest(url, headers, encode_json(body, _NAME))
