"""Deepgram's pre-recorded transcription (``POST /v1/listen``): the parameters as its query
string and its reply as a ``Transcription`` (docs/audio.md). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ...core.audio import (
    Transcription,
    TranscriptionSegment,
    TranscriptionWord,
    opt_float,
)
from .._common import bad_shape, need_object, opt_list, opt_str

__all__ = ["build_query", "parse_transcription"]

_NAME = "deepgram"

#: What aisuite sends by default (smart formatting, punctuation); the caller's values win.
DEFAULTS = {"smart_format": "true", "punctuate": "true"}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def build_query(model: str, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The query of ``/v1/listen``: ``model``, aisuite's defaults and ``params`` (validated and
    mapped by the endpoint). Lists repeat the parameter (``keywords=a&keywords=b``); aisuite's
    ``replace`` dict becomes ``replace=term:replacement`` pairs. ``timestamp_granularities`` is
    not Deepgram's: its replies always carry word times."""
    query: dict[str, Any] = {**DEFAULTS, **{k: v for k, v in params.items()
                                            if k != "timestamp_granularities"}}
    query["model"] = model
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        if value is None:
            continue
        if key == "replace" and isinstance(value, Mapping):
            pairs.extend(("replace", f"{k}:{v}") for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            pairs.extend((key, _query_value(v)) for v in value)
        else:
            pairs.append((key, _query_value(value)))
    return pairs


def _words(alternative: Mapping[str, Any]) -> Optional[list[TranscriptionWord]]:
    items = opt_list(alternative.get("words"), _NAME, "alternatives[0].words") or []
    words = []
    for item in items:
        if not isinstance(item, Mapping):
            raise bad_shape(_NAME, "a word", "object", item)
        text = item.get("punctuated_word") or item.get("word")
        start, end = opt_float(item.get("start")), opt_float(item.get("end"))
        if not isinstance(text, str) or start is None or end is None:
            raise bad_shape(_NAME, "a word", "object with word, start and end", item)
        extra = {k: item[k] for k in ("confidence", "speaker") if item.get(k) is not None}
        words.append(TranscriptionWord(word=text, start=start, end=end, **extra))
    return words or None


def _segment(i: int, start: Any, end: Any, text: Any) -> Optional[TranscriptionSegment]:
    start, end = opt_float(start), opt_float(end)
    if start is None or end is None or not isinstance(text, str):
        return None
    return TranscriptionSegment(id=i, start=start, end=end, text=text)


def _segments(alternative: Mapping[str, Any], results: Mapping[str, Any],
              words: Optional[list[TranscriptionWord]]) -> Optional[list[TranscriptionSegment]]:
    """Sentences of Deepgram's paragraphs (smart_format), else its utterances, else the
    words cut at sentence ends."""
    found: list[Optional[TranscriptionSegment]] = []
    paragraphs = alternative.get("paragraphs")
    if isinstance(paragraphs, Mapping):
        for paragraph in paragraphs.get("paragraphs") or ():
            for sentence in (paragraph.get("sentences") or ()
                             if isinstance(paragraph, Mapping) else ()):
                if isinstance(sentence, Mapping):
                    found.append(_segment(len(found), sentence.get("start"),
                                          sentence.get("end"), sentence.get("text")))
    if not found:
        for utterance in results.get("utterances") or ():
            if isinstance(utterance, Mapping):
                found.append(_segment(len(found), utterance.get("start"), utterance.get("end"),
                                      utterance.get("transcript")))
    if found and all(s is not None for s in found):
        return [s for s in found if s is not None]
    if not words:
        return None
    segments: list[TranscriptionSegment] = []
    current: list[TranscriptionWord] = []
    for word in words:
        current.append(word)
        if word.word.endswith((".", "?", "!")) or word is words[-1]:
            segments.append(TranscriptionSegment(
                id=len(segments), start=current[0].start, end=current[-1].end,
                text=" ".join(w.word for w in current)))
            current = []
    return segments


def parse_transcription(body: Any, model: str, language: Optional[str] = None
                        ) -> Transcription:
    """A ``/v1/listen`` reply -> the full ``Transcription``: the first channel's best
    alternative (text, ``confidence``), the words (punctuated), segments, the duration from
    the metadata and the language detected (or the one asked for)."""
    data = need_object(body, _NAME, "the reply")
    results = need_object(data.get("results"), _NAME, "results")
    channels = opt_list(results.get("channels"), _NAME, "results.channels") or []
    metadata = data.get("metadata")
    if not isinstance(metadata, Mapping):
        metadata = {}
    duration = opt_float(metadata.get("duration"))
    if not channels:
        return Transcription(text="", duration=duration, language=language, provider=_NAME,
                             model=model, raw=body)
    channel = need_object(channels[0], _NAME, "results.channels[0]")
    alternatives = opt_list(channel.get("alternatives"), _NAME, "alternatives") or []
    if not alternatives:
        return Transcription(text="", duration=duration, language=language, provider=_NAME,
                             model=model, raw=body)
    best = need_object(alternatives[0], _NAME, "alternatives[0]")
    text = opt_str(best.get("transcript"), _NAME, "alternatives[0].transcript") or ""
    words = _words(best)
    extra: dict[str, Any] = {}
    confidence = opt_float(best.get("confidence"))
    if confidence is not None:
        extra["confidence"] = confidence
    detected = channel.get("detected_language")
    return Transcription(
        text=text, language=detected if isinstance(detected, str) else language,
        duration=duration, segments=_segments(best, results, words), words=words,
        provider=_NAME, model=model, raw=body, **extra)
