"""aisuite's transcription parameter validation (its ``asr_params``), one table for every
provider (docs/audio.md, "Parameters").

- The *common* parameters ``language``, ``prompt`` and ``temperature`` are portable: each is
  mapped to the provider's own name (``language`` -> Deepgram ``language``, aisuite's Google
  Speech ``language_code`` "en-US"; ``prompt`` -> Deepgram ``keywords`` as a list of words).
  One a provider has no equivalent for is dropped with a ``UserWarning`` naming it (aisuite
  drops it silently; they are hints, the transcription works without them).
- A provider's own parameters (Deepgram ``punctuate``, ``diarize``, ...) pass through.
- Any other parameter is handled by the client's ``extra_param_mode``: ``"strict"`` raises
  ``UnsupportedParameterError`` (a ``ValueError``) before anything is sent, ``"warn"`` (the
  default, as aisuite) warns and leaves it out, ``"permissive"`` passes it through.

A provider names its row of the table with its ``audio_params`` attribute: ``openai`` (OpenAI
and the compatible services), ``deepgram``, ``huggingface``, ``gemini`` (aisuite_like's Google
provider: Gemini audio understanding), and aisuite's ``google`` row (Cloud Speech-to-Text names)
for an aisuite provider registered under ``google``. Pure: no I/O.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Literal, Optional

from ..core.checks import EXTRA_PARAM_MODES as MODES, check_extra_param_mode, did_you_mean
from ..core.errors import UnsupportedParameterError

__all__ = ["COMMON_PARAMS", "PROVIDER_PARAMS", "ParamValidator", "ExtraParamMode", "MODES"]

ExtraParamMode = Literal["strict", "warn", "permissive"]

#: common parameter -> row -> the provider's name for it (None: the provider has none).
COMMON_PARAMS: dict[str, dict[str, Optional[str]]] = {
    "language": {"openai": "language", "deepgram": "language", "google": "language_code",
                 "huggingface": None, "gemini": "language"},
    "prompt": {"openai": "prompt", "deepgram": "keywords", "google": "speech_contexts",
               "huggingface": None, "gemini": "prompt"},
    "temperature": {"openai": "temperature", "deepgram": None, "google": None,
                    "huggingface": "temperature", "gemini": "temperature"},
}

#: row -> the provider's own parameters (aisuite's table; ``gemini`` is aisuite_like's).
PROVIDER_PARAMS: dict[str, frozenset[str]] = {
    "openai": frozenset({
        "language", "prompt", "temperature", "response_format", "timestamp_granularities",
        "stream", "include", "chunking_strategy", "known_speaker_names",
        "known_speaker_references",
    }),
    "deepgram": frozenset({
        "language", "model", "punctuate", "diarize", "utterances", "paragraphs",
        "smart_format", "profanity_filter", "search", "replace", "keywords", "numerals",
        "measurements", "sentiment", "topics", "intents", "summarize", "encoding",
        "sample_rate", "channels", "confidence", "alternatives", "interim_results",
        # Deepgram's pre-recorded options aisuite's table does not list
        "detect_language", "keyterm", "filler_words", "multichannel", "redact", "dictation",
        "tag", "utt_split",
    }),
    "google": frozenset({
        "language_code", "model", "encoding", "sample_rate_hertz", "audio_channel_count",
        "enable_automatic_punctuation", "profanity_filter", "enable_spoken_punctuation",
        "enable_spoken_emojis", "enable_speaker_diarization", "diarization_speaker_count",
        "min_speaker_count", "enable_word_time_offsets", "enable_word_confidence",
        "max_alternatives", "speech_contexts", "boost", "interim_results", "single_utterance",
    }),
    "huggingface": frozenset({
        "model", "temperature", "return_timestamps", "use_cache", "wait_for_model", "top_k",
        "top_p", "max_length", "do_sample", "max_new_tokens",
    }),
    "gemini": frozenset({"language", "prompt", "temperature"}),
}

#: aisuite's expansion of two-letter language codes for Google Speech-to-Text.
GOOGLE_LANGUAGE_MAP = {
    "en": "en-US", "es": "es-ES", "fr": "fr-FR", "de": "de-DE", "it": "it-IT", "pt": "pt-BR",
    "ja": "ja-JP", "ko": "ko-KR", "zh": "zh-CN", "ar": "ar-SA", "hi": "hi-IN", "ru": "ru-RU",
    "nl": "nl-NL", "pl": "pl-PL", "sv": "sv-SE", "da": "da-DK", "no": "nb-NO", "fi": "fi-FI",
    "tr": "tr-TR", "th": "th-TH", "vi": "vi-VN",
}


class ParamValidator:
    """aisuite's ``ParamValidator``: ``validate_and_map(row, params)`` maps the common
    parameters to the row's names, keeps the row's own parameters and handles the rest by
    ``extra_param_mode`` (module docstring). ``params`` is never modified."""

    def __init__(self, extra_param_mode: ExtraParamMode = "warn") -> None:
        self.extra_param_mode: ExtraParamMode = check_extra_param_mode(  # type: ignore[assignment]
            extra_param_mode)

    def __repr__(self) -> str:
        return f"ParamValidator(extra_param_mode={self.extra_param_mode!r})"

    def validate_and_map(self, provider_key: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters to send to ``provider_key``'s row, under its names."""
        own = PROVIDER_PARAMS.get(provider_key, frozenset())
        result: dict[str, Any] = {}
        unknown: list[str] = []
        for key, value in params.items():
            if key in COMMON_PARAMS:
                mapped = COMMON_PARAMS[key].get(provider_key)
                if mapped is None:
                    warnings.warn(
                        f"{provider_key} has no {key!r} parameter; it is left out (a portable "
                        "hint: the transcription is made without it)", UserWarning,
                        stacklevel=5)
                    continue
                result[mapped] = _mapped_value(provider_key, key, value)
            elif key in own:
                result[key] = value
            else:
                unknown.append(key)
        if unknown:
            message = _unknown_message(provider_key, unknown, own | frozenset(COMMON_PARAMS))
            if self.extra_param_mode == "strict":
                raise UnsupportedParameterError(message, parameter=unknown[0],
                                                provider=provider_key)
            if self.extra_param_mode == "warn":
                warnings.warn(message + " They are left out (extra_param_mode='warn'; "
                              "'permissive' sends them).", UserWarning, stacklevel=5)
            else:
                result.update({key: params[key] for key in unknown})
        return result


def _unknown_message(provider_key: str, unknown: list[str], known: frozenset[str]) -> str:
    hints = []
    for name in unknown:
        close = did_you_mean(name, known)
        if close is not None:
            hints.append(f"{name!r}: did you mean {close!r}?")
    return (f"Unknown parameters for {provider_key}: {unknown}. See {provider_key} "
            "documentation for valid parameters." + (f" ({'; '.join(hints)})" if hints else ""))


def _mapped_value(provider_key: str, key: str, value: Any) -> Any:
    """aisuite's value mappings: Google's locale codes and speech contexts, Deepgram's
    keyword list."""
    if provider_key == "google" and key == "language" and isinstance(value, str) \
            and len(value) == 2:
        return GOOGLE_LANGUAGE_MAP.get(value, f"{value}-US")
    if provider_key == "google" and key == "prompt":
        return [{"phrases": [value]}]
    if provider_key == "deepgram" and key == "prompt" and isinstance(value, str):
        return value.split()
    return value
