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
        try:
            return seam.model_resource(self._sdk(), model)
        except ValueError as exc:
            raise InvalidModelError(f"invalid Gemini model name {model!r}: {exc}") from exc

    def _images(self, request: ImageRequest) -> Plan[ImagesResponse]:
        from .media import images_plan

        return images_plan(request, self.key, self._model_path(request.model),
                           self._call(request.timeout), self._vertex)

    def images(self, request: ImageRequest) -> ImagesResponse:
        plan = self._images(request)
        result: ImagesResponse = run(self, self._sdk(), plan,  # type: ignore[arg-type]
                                     self._calls.bounds(request.timeout))
        return result

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        plan = self._images(request)
        result: ImagesResponse = await arun(self, self._sdk(), plan,  # type: ignore[arg-type]
                                            self._calls.bounds(request.timeout))
        return result

    def _speech(self, request: SpeechRequest) -> Plan[BinaryResponse]:
        from .media import speech_plan

        return speech_plan(request, self.key, self._model_path(request.model),
                           self._call(request.timeout))

    def speech(self, request: SpeechRequest) -> Any:
        audio: BinaryResponse = run(self, self._sdk(),  # type: ignore[arg-type]
                                    self._speech(request), self._calls.bounds(request.timeout))
        if request.stream:  # Gemini answers with the whole audio: one piece
            return audio.content_type, audio.headers, iter((audio.content,))
        return audio

    async def aspeech(self, request: SpeechRequest) -> Any:
        audio: BinaryResponse = await arun(self, self._sdk(),  # type: ignore[arg-type]
                                           self._speech(request),
                                           self._calls.bounds(request.timeout))
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
        return run(self, self._sdk(), self._files(request),  # type: ignore[arg-type]
                   self._calls.bounds(request.timeout))

    async def afiles(self, request: FileRequest) -> Any:
        return await arun(self, self._sdk(), self._files(request),  # type: ignore[arg-type]
                          self._calls.bounds(request.timeout))


async def _once(data: bytes) -> Any:
    yield data
