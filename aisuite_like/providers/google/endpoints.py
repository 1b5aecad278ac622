"""The endpoints beside chat on ``GoogleProvider`` (docs/images.md, docs/audio.md,
docs/files.md): the plans of ``media.py`` performed through google-genai's API client (its
request layer, sync or async; the upload through its public ``files.upload``), with the
provider's retries and error mapping (``providers/plans.py``). A mixin of the transport."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidModelError
from ..base import FileRequest, ImageRequest, SpeechRequest, no_endpoint
from ..plans import Plan, SdkCall, arun, run
from . import _sdk_seam as seam

if TYPE_CHECKING:
    from ...core.media import BinaryResponse, ImagesResponse

__all__ = ["GoogleEndpoints"]


class GoogleEndpoints:
    """``images``, ``speech``, ``files`` and their async twins for ``GoogleProvider``
    (which gives ``_sdk()``, ``_calls``, ``_error``, ``_config``, ``_vertex`` and ``key``)."""

    key: str
    _calls: Any
    _config: dict[str, Any]
    _vertex: bool

    if TYPE_CHECKING:  # the transport's
        def _sdk(self) -> seam.ApiClient: ...

        def _error(self, exc: BaseException) -> BaseException: ...

        _native: Any

    def _native_request(self, path: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                        ) -> Any:
        """The request of one of the plans' calls of google-genai's request layer
        (``request(method, path, body, http_options)``), as google-genai sends it."""
        method, where, body, options = args
        native = self._native
        seconds = (options or {}).get("timeout")
        headers = native.headers(None, None if seconds is None else seconds / 1000)
        url = native.api_url(where)
        if method.upper() == "GET":
            from .._native import get_request

            return get_request(url, headers, {})
        if method.upper() == "DELETE" and not body:
            from .._native import NativeRequest

            return NativeRequest(url, {k: v for k, v in headers.items()
                                       if k.lower() != "content-type"}, None, "DELETE")
        request = native.request(url, headers, body or {})
        request.method = method.upper()
        return request

    def plan_client(self, is_async: bool) -> Any:
        """What performs this provider's plans of request-layer calls (the batches): the
        SDK's API client, or on the native transport our own HTTP (``plans.NativeCalls``)."""
        if self._native is not None:
            from ..plans import NativeCalls

            return NativeCalls(self._native.http, self._native_request)
        return self._sdk()

    def model_path(self, model: str) -> str:
        """The resource path of ``model`` as google-genai names it (``models/...``)."""
        return self._model_path(model)

    def _run(self, plan: Plan[Any], timeout: Any) -> Any:
        bounds = self._calls.bounds(timeout)
        if self._native is None:
            return run(self, self._sdk(), plan, bounds)  # type: ignore[arg-type]
        from ..plans import native_attempt_of

        native = native_attempt_of(self, self._native.http,  # type: ignore[arg-type]
                                   self._native_request)

        def attempt(call: SdkCall) -> Any:
            if call.path == "request":
                return native(call)
            # files.create: google-genai's resumable upload, on our own HTTP
            data, config = self._upload_of(call)
            http = self._native.http
            start = http.post(self._native.upload_start(data, config, bounds.attempt))
            reply = None
            for request in self._native.upload_chunks(self._upload_url(start), data,
                                                      bounds.attempt):
                reply = http.post(request)
            return self._uploaded(reply)
        return run(self, None, plan, bounds, attempt=attempt)  # type: ignore[arg-type]

    @staticmethod
    def _upload_of(call: SdkCall) -> tuple[bytes, dict[str, Any]]:
        file = call.kwargs["file"]
        return bytes(file.getvalue()), dict(call.kwargs.get("config") or {})

    def _upload_url(self, start: Any) -> str:
        url = start.headers.get("x-goog-upload-url")
        if not url:
            from .._common import bad_shape

            raise bad_shape(self.key, "the upload's x-goog-upload-url header", "a URL", url)
        return str(url)

    def _uploaded(self, reply: Any) -> Any:
        """The finalized upload's reply -> the ``File`` it holds (its JSON)."""
        from ...core.exchange import note
        from ...core.reading import decode_json
        from .._common import bad_shape, need_object

        note(reply.status, reply.headers, url=reply.url)
        body = need_object(decode_json(reply.content, self.key, status_code=reply.status),
                           self.key, "the upload's reply")
        file = body.get("file")
        if not isinstance(file, dict):
            raise bad_shape(self.key, "the upload's file", "an object", file)
        return file

    async def _arun(self, plan: Plan[Any], timeout: Any) -> Any:
        bounds = self._calls.bounds(timeout)
        if self._native is None:
            return await arun(self, self._sdk(), plan, bounds)  # type: ignore[arg-type]
        from ..plans import anative_attempt_of

        native = anative_attempt_of(self, self._native.http,  # type: ignore[arg-type]
                                    self._native_request)

        async def attempt(call: SdkCall) -> Any:
            if call.path == "request":
                return await native(call)
            data, config = self._upload_of(call)
            http = self._native.http
            start = await http.apost(self._native.upload_start(data, config, bounds.attempt))
            reply = None
            for request in self._native.upload_chunks(self._upload_url(start), data,
                                                      bounds.attempt):
                reply = await http.apost(request)
            return self._uploaded(reply)
        return await arun(self, None, plan, bounds, attempt=attempt)  # type: ignore[arg-type]

    def _call(self, timeout: Any) -> Any:
        """Requests of google-genai's request layer, each bounded by the call's timeout
        (google-genai alone would wait forever)."""
        seconds = self._calls.bounds(timeout).attempt or 600.0  # the family's default
        options = {"timeout": max(1, int(seconds * 1000))}

        def call(method: str, path: str, body: dict[str, Any]) -> SdkCall:
            return SdkCall("request", (method, path, body, options), read="genai",
                           async_path="async_request")
        return call

    def _model_path(self, model: str) -> str:
        if self._native is not None:
            from .native import model_resource

            return model_resource(model)
        try:
            return seam.model_resource(self._sdk(), model)
        except ValueError as exc:
            raise InvalidModelError(f"invalid Gemini model name {model!r}: {exc}") from exc

    def _images(self, request: ImageRequest) -> Plan[ImagesResponse]:
        from .media import images_plan

        return images_plan(request, self.key, self._model_path(request.model),
                           self._call(request.timeout), self._vertex)

    def images(self, request: ImageRequest) -> ImagesResponse:
        result: ImagesResponse = self._run(self._images(request), request.timeout)
        return result

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        result: ImagesResponse = await self._arun(self._images(request), request.timeout)
        return result

    def _speech(self, request: SpeechRequest) -> Plan[BinaryResponse]:
        from .media import speech_plan

        return speech_plan(request, self.key, self._model_path(request.model),
                           self._call(request.timeout))

    def speech(self, request: SpeechRequest) -> Any:
        audio: BinaryResponse = self._run(self._speech(request), request.timeout)
        if request.stream:  # Gemini answers with the whole audio: one piece
            return audio.content_type, audio.headers, iter((audio.content,))
        return audio

    async def aspeech(self, request: SpeechRequest) -> Any:
        audio: BinaryResponse = await self._arun(self._speech(request), request.timeout)
        if request.stream:
            return audio.content_type, audio.headers, _once(audio.content)
        return audio

    def _files(self, request: FileRequest) -> Plan[Any]:
        from .media import files_plan

        if self._vertex:
            raise no_endpoint("files", self.key, "Vertex AI has no Files API (it reads "
                              "gs:// URIs); use the Gemini API (an api_key)")
        return files_plan(request, self.key, self._call(request.timeout))

    def files(self, request: FileRequest) -> Any:
        return self._run(self._files(request), request.timeout)

    async def afiles(self, request: FileRequest) -> Any:
        return await self._arun(self._files(request), request.timeout)


async def _once(data: bytes) -> Any:
    yield data
