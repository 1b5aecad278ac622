"""Transcription on OpenAI and the compatible services (docs/audio.md). Pure: no I/O, no SDK
import.

- OpenAI's ``/audio/transcriptions`` (multipart upload; openai, azure, groq, together,
  mistral, vllm): the SDK's arguments (``transcription_kwargs``), the reply read as a
  ``Transcription`` or text (``parse_transcription``), the ``transcript.text.delta`` /
  ``.done`` events of a stream (``TranscriptEvents``). A format the service does not produce
  itself (Groq has no srt / vtt) is asked as ``verbose_json`` and rendered here.
- Hugging Face's Inference API (``hf-inference``; the raw audio, or JSON with parameters):
  ``hf_request`` and ``parse_hf``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

from ...core.audio import (
    AudioFile,
    Transcription,
    TranscriptionSegment,
    TranscriptionTextDeltaEvent,
    TranscriptionTextDoneEvent,
    TranscriptionWord,
    in_format,
    opt_float,
    segments_from,
    words_from,
)
from ...core.errors import UnsupportedParameterError
from .._common import SSEDecoder, bad_shape, need_object, sse_json
from ..base import TranscriptionRequest
from .services import ServiceSpec

__all__ = ["transcription_kwargs", "parse_transcription", "TranscriptEvents", "hf_request",
           "parse_hf", "check_transcription"]

# The SDK's named parameters of ``audio.transcriptions.create`` other than these go to
# ``extra_body`` (a parameter passed through with extra_param_mode="permissive").
_SDK_NAMED = frozenset({"language", "prompt", "temperature", "timestamp_granularities",
                        "include", "chunking_strategy", "known_speaker_names",
                        "known_speaker_references"})


def _streams(model: str) -> bool:
    """OpenAI's models that stream a transcript (gpt-4o-transcribe and its mini; whisper-1
    does not)."""
    return model.startswith("gpt-") and "transcribe" in model


def check_transcription(request: TranscriptionRequest, spec: ServiceSpec) -> str:
    """The format to ask the service for (``request.response_format`` when it produces it,
    else ``verbose_json`` to render from), after refusing before any I/O what cannot work:
    ``stream=True`` where the service or model does not stream, srt / vtt / verbose_json
    from OpenAI's gpt-4o transcribe models (they give text only)."""
    fmt = request.response_format
    if request.stream:
        if not spec.transcription_stream or (spec.key in ("openai", "azure")
                                             and not _streams(request.model)):
            where = (f"{spec.key}'s {request.model}" if spec.transcription_stream
                     else spec.key)
            raise UnsupportedParameterError(
                f"stream=True: {where} does not stream transcriptions (OpenAI's "
                "gpt-4o-transcribe and gpt-4o-mini-transcribe do); leave stream out to get "
                "the whole transcript", parameter="stream", provider=spec.key)
        if fmt not in ("json", "text"):
            raise UnsupportedParameterError(
                f"stream=True streams text: response_format must be 'json' or 'text', got "
                f"{fmt!r}", parameter="response_format", provider=spec.key)
        return fmt
    if spec.key in ("openai", "azure") and _streams(request.model) and \
            fmt not in ("json", "text"):
        raise UnsupportedParameterError(
            f"{request.model} returns text only: response_format must be 'json' or 'text' "
            f"(whisper-1 gives verbose_json, srt and vtt), got {fmt!r}",
            parameter="response_format", provider=spec.key)
    native = spec.transcription_formats
    if fmt in native:
        return fmt
    if "verbose_json" in native:
        return "verbose_json"
    raise UnsupportedParameterError(
        f"{spec.key} gives {', '.join(native)} transcriptions; response_format={fmt!r} "
        "needs segment times it does not send", parameter="response_format",
        provider=spec.key)


def transcription_kwargs(request: TranscriptionRequest, asked: str) -> dict[str, Any]:
    """The keyword arguments of the SDK's ``audio.transcriptions.create``."""
    file: AudioFile = request.file
    kwargs: dict[str, Any] = {"model": request.model,
                              "file": (file.name, file.data, file.content_type),
                              "response_format": asked}
    extra: dict[str, Any] = {}
    for key, value in request.params.items():
        if key in _SDK_NAMED:
            kwargs[key] = value
        else:
            extra[key] = value
    if asked == "verbose_json" and request.response_format in ("srt", "vtt") \
            and "timestamp_granularities" not in kwargs:
        kwargs["timestamp_granularities"] = ["segment"]
    if request.stream:
        kwargs["stream"] = True
    if extra:
        kwargs["extra_body"] = extra
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    return kwargs


def _read_json(data: Any, provider: str, model: str) -> Transcription:
    body = need_object(data, provider, "the transcription")
    text = body.get("text")
    if not isinstance(text, str):
        raise bad_shape(provider, "the transcription's text", "string", text)
    extra = {k: v for k, v in body.items() if k not in (
        "text", "language", "duration", "segments", "words", "usage", "task")}
    language = body.get("language")
    usage = body.get("usage")
    return Transcription(
        text=text, language=language if isinstance(language, str) else None,
        duration=opt_float(body.get("duration")), segments=segments_from(body.get("segments")),
        words=words_from(body.get("words")),
        usage=dict(usage) if isinstance(usage, Mapping) else None,
        provider=provider, model=model, raw=data, **extra)


def parse_transcription(body: bytes, request: TranscriptionRequest, asked: str,
                        provider: str) -> Any:
    """The reply to ``asked`` -> what the caller asked for (``request.response_format``):
    a ``Transcription`` (json, verbose_json) or text (text, srt, vtt)."""
    if asked in ("text", "srt", "vtt"):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            from ...core.errors import APIResponseValidationError

            raise APIResponseValidationError(
                f"the {asked} transcription is not UTF-8 text", provider=provider) from None
    from ...core.errors import APIResponseValidationError
    from ...core.reading import decode_json

    full = _read_json(decode_json(body, provider), provider, request.model)
    if asked == request.response_format and asked == "json":
        return full
    if full.segments is None and request.response_format in ("srt", "vtt") \
            and full.duration is None:
        raise APIResponseValidationError(
            f"the verbose_json reply has no segments to render {request.response_format} "
            "from", provider=provider)
    return in_format(full, request.response_format, provider)


class TranscriptEvents:
    """The SSE body of a streamed transcription -> ``TranscriptionTextDeltaEvent`` /
    ``TranscriptionTextDoneEvent``, sans-IO (the transports only move bytes). Events of other
    types are skipped; an ``error`` event raises the mapped error."""

    __slots__ = ("provider", "secrets", "done", "_decoder")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)
        self.done = False
        self._decoder = SSEDecoder(provider)

    def feed(self, data: bytes) -> Iterator[Any]:
        return self._events(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[Any]:
        yield from self._events(self._decoder.end(), at_end=True)
        if not self.done:
            from ...core.errors import APIConnectionError

            raise APIConnectionError(
                f"the {self.provider} transcription stream ended before its "
                "transcript.text.done event; the connection was probably lost",
                provider=self.provider)

    def _events(self, events: Iterable[tuple[Optional[str], str]], at_end: bool
                ) -> Iterator[Any]:
        for _name, data in events:
            if self.done or data.startswith("[DONE]"):
                continue
            event = need_object(sse_json(data, self.provider, at_end=at_end), self.provider,
                                "a stream event")
            kind = event.get("type")
            if kind == "transcript.text.delta" and isinstance(event.get("delta"), str):
                yield TranscriptionTextDeltaEvent.model_validate(event)
            elif kind == "transcript.text.done" and isinstance(event.get("text"), str):
                self.done = True
                yield TranscriptionTextDoneEvent.model_validate(event)
            elif kind == "error" or "error" in event:
                from .errors import error_from_body

                raise error_from_body(event.get("error", event), self.provider, self.secrets)


# --- Hugging Face's Inference API ---------------------------------------------------------

#: aisuite's huggingface parameters that go into ``generation_parameters``.
_GENERATION = ("temperature", "top_k", "top_p", "max_length", "max_new_tokens", "do_sample")


def hf_request(request: TranscriptionRequest) -> tuple[dict[str, str], bytes]:
    """The headers and body of an Inference API call: the raw audio when no parameter is
    given, else JSON ``{"inputs": <base64 audio>, "parameters": {...}}``. ``verbose_json`` /
    srt / vtt / word granularity ask for timestamps (``return_timestamps``);
    ``wait_for_model`` / ``use_cache`` are the ``x-wait-for-model`` / ``x-use-cache``
    headers."""
    file: AudioFile = request.file
    params = dict(request.params)
    headers: dict[str, str] = {}
    for key, header in (("wait_for_model", "x-wait-for-model"), ("use_cache", "x-use-cache")):
        if key in params:
            headers[header] = "true" if params.pop(key) else "false"
    granularities = params.pop("timestamp_granularities", None) or ()
    if "word" in granularities:
        params.setdefault("return_timestamps", "word")
    elif request.response_format in ("verbose_json", "srt", "vtt"):
        params.setdefault("return_timestamps", True)
    params.pop("model", None)  # the model is in the URL
    if not params:
        headers["Content-Type"] = file.content_type
        return headers, file.data
    generation = {k: params.pop(k) for k in _GENERATION if k in params}
    if generation:
        params["generation_parameters"] = generation
    import json

    headers["Content-Type"] = "application/json"
    body = {"inputs": base64.b64encode(file.data).decode("ascii"), "parameters": params}
    return headers, json.dumps(body).encode()


def parse_hf(data: Any, request: TranscriptionRequest, provider: str) -> Any:
    """An Inference API reply (``{"text", "chunks": [{"text", "timestamp": [start, end]}]}``,
    or a list of one such object) -> what the caller asked for. Chunks become words when word
    timestamps were asked for, else segments."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    body = need_object(data, provider, "the transcription")
    text = body.get("text")
    if not isinstance(text, str):
        raise bad_shape(provider, "the transcription's text", "string", text)
    pieces = []
    for chunk in body.get("chunks") or ():
        stamp = chunk.get("timestamp") if isinstance(chunk, Mapping) else None
        if not isinstance(stamp, (list, tuple)) or len(stamp) != 2:
            continue
        start, end = opt_float(stamp[0]), opt_float(stamp[1])
        if start is None:
            continue
        pieces.append((start, end if end is not None else start, str(chunk.get("text", ""))))
    words = segments = None
    if pieces and "word" in (request.params.get("timestamp_granularities") or ()):
        words = [TranscriptionWord(word=t.strip(), start=s, end=e) for s, e, t in pieces]
        segments = [TranscriptionSegment(start=pieces[0][0], end=pieces[-1][1],
                                         text=text.strip())]
    elif pieces:
        segments = [TranscriptionSegment(id=i, start=s, end=e, text=t)
                    for i, (s, e, t) in enumerate(pieces)]
    full = Transcription(text=text.strip(), segments=segments, words=words,
                         duration=segments[-1].end if segments else None,
                         provider=provider, model=request.model, raw=data)
    return in_format(full, request.response_format, provider)
