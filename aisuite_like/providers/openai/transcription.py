"""Transcription for ``OpenAIProvider`` (docs/audio.md): OpenAI's ``/audio/transcriptions``
(and the compatible services'), streamed too, and Hugging Face's Inference API, on the SDK
transport or the native one."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import UnsupportedParameterError
from ...core.exchange import note_reply
from ...core.reading import decode_json
from .. import retry as _retry
from .._native import NativeRequest
from ..base import TranscriptionRequest, mapped_errors

if TYPE_CHECKING:
    from ...core.audio import AudioInput
    from .services import ServiceSpec

__all__ = ["OpenAITranscription"]

#: What OpenAI's /audio/transcriptions takes (the compatible services take the same), and
#: Hugging Face's Inference API.
_OPENAI_FORMATS = frozenset({"flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav",
                             "webm"})
_HF_FORMATS = frozenset({"flac", "mp3", "mpeg", "wav", "ogg", "webm", "m4a"})



def _note_reply(reply: Any) -> None:
    """A native 2xx reply, for ``with_raw_response`` (docs/client.md) when a call asks."""
    note_reply(reply, reply.headers.get("x-request-id"))


class OpenAITranscription:
    """``transcribe`` / ``atranscribe`` and the audio facts of ``OpenAIProvider`` (which
    gives ``spec``, ``key``, ``_calls``, ``_native``, ``_config``, ``_sync()``, ``_async()``,
    ``_error`` and ``_secrets()``)."""

    key: str
    _calls: Any

    if TYPE_CHECKING:  # the transport's
        def _sync(self) -> Any: ...

        def _async(self) -> Any: ...

        def _error(self, exc: BaseException) -> BaseException: ...

        def _secrets(self) -> tuple[Optional[str]]: ...

        _config: dict[str, Any]
        spec: ServiceSpec
        _native: Any

    @property
    def audio_params(self) -> Optional[str]:
        """The row of the transcription parameter table (None: no transcription API)."""
        if not self.spec.transcription_formats:
            return None
        return "huggingface" if self.spec.transcription_api == "hf-inference" else "openai"

    @property
    def audio_input(self) -> Optional[AudioInput]:
        """The audio formats and upload size the service's transcription API accepts."""
        from ...core.audio import MB, AudioInput

        if not self.spec.transcription_formats:
            return None
        formats = _HF_FORMATS if self.spec.transcription_api == "hf-inference" else \
            _OPENAI_FORMATS
        return AudioInput(formats, self.spec.audio_max_mb * MB)

    def transcribe(self, request: TranscriptionRequest) -> Any:
        from .audio import check_transcription, parse_hf, parse_transcription, transcription_kwargs

        bounds = self._calls.bounds(request.timeout)
        if self.spec.transcription_api == "hf-inference":
            url, headers, content = self._hf_prepare(request)
            body = _retry.call(self._calls, self._hf_once, (url, headers, content), bounds)
            return parse_hf(decode_json(body, self.key), request, self.key)
        asked = check_transcription(request, self.spec)
        kwargs = transcription_kwargs(request, asked)
        if request.stream:
            return _retry.stream(self._calls, self._transcript_stream, kwargs, bounds)
        body = _retry.call(self._calls, self._transcribe_once, kwargs, bounds)
        return parse_transcription(body, request, asked, self.key)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        from .audio import check_transcription, parse_hf, parse_transcription, transcription_kwargs

        bounds = self._calls.bounds(request.timeout)
        if self.spec.transcription_api == "hf-inference":
            url, headers, content = self._hf_prepare(request)
            body = await _retry.acall(self._calls, self._ahf_once, (url, headers, content),
                                      bounds)
            return parse_hf(decode_json(body, self.key), request, self.key)
        asked = check_transcription(request, self.spec)
        kwargs = transcription_kwargs(request, asked)
        if request.stream:
            return _retry.astream(self._calls, self._atranscript_stream, kwargs, bounds)
        body = await _retry.acall(self._calls, self._atranscribe_once, kwargs, bounds)
        return parse_transcription(body, request, asked, self.key)

    def _native_transcription(self, kwargs: dict[str, Any]) -> Any:
        return self._native.form(kwargs, "/audio/transcriptions", ("file",))

    def _transcribe_once(self, kwargs: dict[str, Any]) -> bytes:
        if self._native is not None:
            reply = self._native.http.post(self._native_transcription(kwargs))
            _note_reply(reply)
            return bytes(reply.content)
        with mapped_errors(self._error):
            raw = self._sync().audio.transcriptions.with_raw_response.create(**kwargs)
            return bytes(raw.http_response.content)

    async def _atranscribe_once(self, kwargs: dict[str, Any]) -> bytes:
        if self._native is not None:
            reply = await self._native.http.apost(self._native_transcription(kwargs))
            _note_reply(reply)
            return bytes(reply.content)
        with mapped_errors(self._error):
            raw = await self._async().audio.transcriptions.with_raw_response.create(**kwargs)
            return bytes(raw.http_response.content)

    def _transcript_stream(self, kwargs: dict[str, Any]) -> Iterator[Any]:
        from .audio import TranscriptEvents

        events = TranscriptEvents(self.key, self._secrets())
        if self._native is not None:
            chunks = self._native.http.stream(self._native_transcription(kwargs), _note_reply)
            try:
                for data in chunks:
                    yield from events.feed(data)
                yield from events.end()
            finally:
                chunks.close()
            return
        response = None
        try:
            with mapped_errors(self._error):
                raw = self._sync().audio.transcriptions.with_raw_response.create(**kwargs)
                response = raw.http_response
                for data in response.iter_bytes():
                    yield from events.feed(data)
                yield from events.end()
        finally:
            if response is not None:
                response.close()

    async def _atranscript_stream(self, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
        from .audio import TranscriptEvents

        events = TranscriptEvents(self.key, self._secrets())
        if self._native is not None:
            chunks = self._native.http.astream(self._native_transcription(kwargs),
                                               _note_reply)
            try:
                async for data in chunks:
                    for event in events.feed(data):
                        yield event
                for event in events.end():
                    yield event
            finally:
                await chunks.aclose()
            return
        response = None
        try:
            with mapped_errors(self._error):
                raw = await self._async().audio.transcriptions.with_raw_response.create(
                    **kwargs)
                response = raw.http_response
                async for data in response.aiter_bytes():
                    for event in events.feed(data):
                        yield event
                for event in events.end():
                    yield event
        finally:
            if response is not None:
                await response.aclose()

    def _hf_prepare(self, request: TranscriptionRequest) -> tuple[str, dict[str, str], bytes]:
        """Hugging Face's Inference API: ``<origin of base_url>/hf-inference/models/<model>``
        (the configured host only), the headers and body of ``hf_request``."""
        from .audio import hf_request

        if request.stream:
            raise UnsupportedParameterError(
                f"stream=True: {self.key}'s Inference API does not stream transcriptions",
                parameter="stream", provider=self.key)
        from urllib.parse import urlsplit

        base = urlsplit(str(self._config.get("base_url") or self.spec.base_url))
        headers, content = hf_request(request)
        return (f"{base.scheme}://{base.netloc}/hf-inference/models/{request.model}",
                headers, content)

    def _hf_options(self, headers: dict[str, str]) -> dict[str, Any]:
        return {"headers": headers}

    def _hf_once(self, args: tuple[str, dict[str, str], bytes]) -> bytes:
        import httpx2

        url, headers, content = args
        if self._native is not None:  # the SDK's headers (its key), the audio's own over them
            reply = self._native.http.post(NativeRequest(url, self._native.headers_for(headers),
                                                         content))
            _note_reply(reply)
            return bytes(reply.content)
        with mapped_errors(self._error):
            response = self._sync().post(url, cast_to=httpx2.Response, content=content,
                                         options=self._hf_options(headers))
            return bytes(response.content)

    async def _ahf_once(self, args: tuple[str, dict[str, str], bytes]) -> bytes:
        import httpx2

        url, headers, content = args
        if self._native is not None:
            reply = await self._native.http.apost(NativeRequest(
                url, self._native.headers_for(headers), content))
            _note_reply(reply)
            return bytes(reply.content)
        with mapped_errors(self._error):
            response = await self._async().post(url, cast_to=httpx2.Response, content=content,
                                                options=self._hf_options(headers))
            return bytes(response.content)
