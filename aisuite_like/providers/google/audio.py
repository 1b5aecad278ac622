"""Transcription on Gemini (docs/audio.md, "google"): Gemini has no speech-to-text endpoint,
so the audio is sent inline with an instruction to transcribe it, as one
``generateContent`` call (the chat translator, transport, retries and errors do the rest).
Pure: no I/O, no SDK import.

What is approximated: the transcript is the model's (no Whisper-style statistics);
``verbose_json`` / srt / vtt ask Gemini for JSON segments with start and end times it
estimates; the duration is read from a WAV header (else the last segment's end); words have
no times (``timestamp_granularities=["word"]`` is refused); ``language`` and ``prompt`` are
told to the model in the instruction.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from ...core.audio import (
    AudioFile,
    Transcription,
    TranscriptionTextDeltaEvent,
    TranscriptionTextDoneEvent,
    in_format,
    segments_from,
    wav_duration,
)
from ...core.errors import APIResponseValidationError, UnsupportedParameterError
from ..base import ChatRequest, TranscriptionRequest

__all__ = ["transcription_chat", "transcription_from", "transcript_events",
           "atranscript_events"]

_NAME = "google"
_VERBOSE = ("verbose_json", "srt", "vtt")

_SEGMENTS_SCHEMA = {
    "type": "object",
    "properties": {
        "language": {"type": "string",
                     "description": "the language spoken, its English name in lower case"},
        "segments": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "start": {"type": "number", "description": "seconds from the audio's start"},
                "end": {"type": "number", "description": "seconds from the audio's start"},
                "text": {"type": "string"}},
            "required": ["start", "end", "text"]}},
    },
    "required": ["language", "segments"],
}


def transcription_chat(request: TranscriptionRequest) -> ChatRequest:
    """The ``generateContent`` call, as a ``ChatRequest``: the instruction and the audio as
    an ``input_audio`` part; a JSON schema for the segments when they are needed."""
    params = request.params
    if "word" in (params.get("timestamp_granularities") or ()):
        raise UnsupportedParameterError(
            "google: Gemini gives no word times; use timestamp_granularities=['segment'] "
            "(times Gemini estimates) or another provider (openai whisper-1, deepgram)",
            parameter="timestamp_granularities", provider=_NAME)
    verbose = request.response_format in _VERBOSE
    if verbose and request.stream:
        raise UnsupportedParameterError(
            "stream=True streams text: response_format must be 'json' or 'text'",
            parameter="response_format", provider=_NAME)
    text = "Transcribe the speech in this audio verbatim, in the language it is spoken in."
    if params.get("language"):
        text += f" The speech is in {params['language']}."
    if params.get("prompt"):
        text += (" Context that may help with names, terms and spelling (do not transcribe "
                 f"it): {params['prompt']}")
    if verbose:
        text += (" Answer with the language spoken and the transcript as segments of about "
                 "a sentence each, with the start and end time of each in seconds.")
    else:
        text += " Answer with the transcript only: no preamble, no timestamps, no quotes."
    file: AudioFile = request.file
    audio = {"data": base64.b64encode(file.data).decode("ascii"),
             "format": {"mpeg": "mp3", "mpga": "mp3", "aif": "aiff", "oga": "ogg"}.get(
                 file.format, file.format)}
    response_format = {"type": "json_schema", "json_schema": {
        "name": "transcription", "schema": _SEGMENTS_SCHEMA}} if verbose else None
    return ChatRequest(
        model=request.model,
        messages=[{"role": "user", "content": [{"type": "text", "text": text},
                                               {"type": "input_audio", "input_audio": audio}]}],
        temperature=params.get("temperature"), response_format=response_format,
        stream=request.stream, timeout=request.timeout)


def _usage(usage: Any) -> Any:
    if usage is None:
        return None
    return {"type": "tokens", "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens, "total_tokens": usage.total_tokens}


def transcription_from(response: Any, request: TranscriptionRequest) -> Any:
    """Gemini's reply -> what the caller asked for (``request.response_format``)."""
    content = response.content or ""
    file: AudioFile = request.file
    duration = wav_duration(file.data)
    common = {"provider": _NAME, "model": request.model, "usage": _usage(response.usage),
              "raw": response}
    if request.response_format not in _VERBOSE:
        full = Transcription(text=content.strip(), duration=duration, **common)
        return in_format(full, request.response_format, _NAME)
    try:
        data = json.loads(content)
        segments = segments_from(data.get("segments"))
    except (ValueError, AttributeError):
        data, segments = None, None
    if not isinstance(data, dict) or (segments is None and data.get("segments")):
        raise APIResponseValidationError(
            "Gemini's transcription is not the JSON segments asked for", provider=_NAME)
    segments = segments or []
    language = data.get("language")
    full = Transcription(
        text=" ".join(s.text.strip() for s in segments),
        language=language if isinstance(language, str) else None,
        duration=duration if duration is not None else (segments[-1].end if segments else None),
        segments=segments, **common)
    return in_format(full, request.response_format, _NAME)


def _done(text: str, usage: Any) -> TranscriptionTextDoneEvent:
    return TranscriptionTextDoneEvent(text=text.strip(), usage=_usage(usage))


def transcript_events(chunks: Iterator[Any]) -> Iterator[Any]:
    """A streamed ``generateContent`` -> transcript events (the text deltas, then done)."""
    parts: list[str] = []
    usage = None
    for chunk in chunks:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            if choice.delta.content:
                parts.append(choice.delta.content)
                yield TranscriptionTextDeltaEvent(delta=choice.delta.content)
    yield _done("".join(parts), usage)


async def atranscript_events(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Async ``transcript_events``."""
    parts: list[str] = []
    usage = None
    async for chunk in chunks:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            if choice.delta.content:
                parts.append(choice.delta.content)
                yield TranscriptionTextDeltaEvent(delta=choice.delta.content)
    yield _done("".join(parts), usage)
