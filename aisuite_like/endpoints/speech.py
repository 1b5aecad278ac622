"""``client.audio.speech`` (text to speech) and ``client.audio.translations`` (speech in any
language to English text), in the OpenAI SDK's shape (docs/audio.md).

    audio = client.audio.speech.create(model="openai:gpt-4o-mini-tts", voice="coral",
                                       input="Today is a wonderful day.")
    audio.write_to_file("speech.mp3")

    with client.audio.speech.with_streaming_response.create(...) as response:
        response.stream_to_file("speech.mp3")  # written as the bytes arrive

Each call is checked whole before anything is sent; the provider's ``speech`` /
``translate`` (and async twins) does the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Optional, Union, overload

from ..client.base import parse_model, resolve_provider
from ..core.media import AsyncStreamedBinaryResponse, BinaryResponse, StreamedBinaryResponse
from ..providers.base import SpeechRequest, TranscriptionRequest, no_endpoint
from ._common import (
    RawResource,
    check_choice,
    check_keywords,
    check_number,
    check_text,
    check_timeout,
    endpoint_provider,
    provider_of_key,
)

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..core.media import Translation
    from ..providers.base import Provider

__all__ = ["Speech", "AsyncSpeech", "Translations", "AsyncTranslations", "SPEECH_FORMATS"]

#: OpenAI's names of the audio formats speech comes in (docs/audio.md).
SPEECH_FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
SpeechFormat = Literal["mp3", "opus", "aac", "flac", "wav", "pcm"]

_SPEECH_KNOWN = ("input", "model", "voice", "instructions", "response_format", "speed",
                 "timeout", "stream_format")


def _prepare_speech(client: ClientBase, model: Any, input: Any, voice: Any, *,
                    response_format: Any, instructions: Any, speed: Any, timeout: Any,
                    stream: bool, extra: dict[str, Any]) -> tuple[Provider, SpeechRequest]:
    check_text("input", input)
    if not (isinstance(voice, str) and voice) and not isinstance(voice, Mapping):
        raise TypeError("voice must be a voice's name (e.g. 'alloy' on openai, 'Kore' on "
                        f"google) or OpenAI's {{'id': ...}}, got {type(voice).__name__}")
    check_choice("response_format", response_format, SPEECH_FORMATS)
    check_text("instructions", instructions, optional=True)
    check_number("speed", speed, 0.25, 4.0)
    check_timeout(timeout)
    check_keywords("audio.speech.create", extra, _SPEECH_KNOWN)
    _, name, provider = endpoint_provider(client, model)
    return provider, SpeechRequest(
        name, input, dict(voice) if isinstance(voice, Mapping) else voice,
        response_format=response_format, instructions=instructions, speed=speed,
        stream=stream, extra=dict(extra), timeout=timeout)


class _StreamingCall:
    """What ``with_streaming_response.create(...)`` returns: a context manager (``with`` on
    the sync client, ``async with`` on the async one) whose entry sends the request and gives
    a ``StreamedBinaryResponse`` / ``AsyncStreamedBinaryResponse``."""

    def __init__(self, provider: Provider, request: SpeechRequest) -> None:
        self._provider = provider
        self._request = request
        self._opened: Any = None

    def __enter__(self) -> StreamedBinaryResponse:
        content_type, headers, chunks = self._provider.speech(self._request)
        self._opened = StreamedBinaryResponse(chunks, content_type, headers=headers,
                                              status_code=200)
        return self._opened  # type: ignore[no-any-return]

    def __exit__(self, *exc: Any) -> None:
        if self._opened is not None:
            self._opened.close()

    async def __aenter__(self) -> AsyncStreamedBinaryResponse:
        content_type, headers, chunks = await self._provider.aspeech(self._request)
        self._opened = AsyncStreamedBinaryResponse(chunks, content_type, headers=headers,
                                                   status_code=200)
        return self._opened  # type: ignore[no-any-return]

    async def __aexit__(self, *exc: Any) -> None:
        if self._opened is not None:
            await self._opened.close()


class _StreamingSpeech:
    """``audio.speech.with_streaming_response``: ``create(...)`` as a context manager."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    def create(self, *, input: str, model: str, voice: Any,
               instructions: Optional[str] = None,
               response_format: Optional[SpeechFormat] = None, speed: Optional[float] = None,
               timeout: Any = None, **provider_kwargs: Any) -> _StreamingCall:
        provider, request = _prepare_speech(
            self._client, model, input, voice, response_format=response_format,
            instructions=instructions, speed=speed, timeout=timeout, stream=True,
            extra=provider_kwargs)
        return _StreamingCall(provider, request)


class Speech:
    """``client.audio.speech``: ``create`` (and ``acreate``); ``with_raw_response``,
    ``with_streaming_response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    @property
    def with_streaming_response(self) -> _StreamingSpeech:
        """``with ...with_streaming_response.create(...) as response:`` the audio's bytes as
        they arrive (``iter_bytes()``, ``stream_to_file(path)``)."""
        return _StreamingSpeech(self._client)

    def create(self, *, input: str, model: str, voice: Any,
               instructions: Optional[str] = None,
               response_format: Optional[SpeechFormat] = None, speed: Optional[float] = None,
               timeout: Any = None, **provider_kwargs: Any) -> BinaryResponse:
        """``input`` spoken by ``voice`` of ``model`` (``"provider:model"``), read whole:
        ``.content``, ``.write_to_file(path)``. ``response_format`` names the audio format
        as OpenAI does (mp3, opus, aac, flac, wav, pcm; docs/audio.md says which each
        family makes)."""
        provider, request = _prepare_speech(
            self._client, model, input, voice, response_format=response_format,
            instructions=instructions, speed=speed, timeout=timeout, stream=False,
            extra=provider_kwargs)
        result: BinaryResponse = provider.speech(request)
        return result

    async def acreate(self, *, input: str, model: str, voice: Any, **kwargs: Any
                      ) -> BinaryResponse:
        """Async ``create`` on the sync client."""
        return await _acreate_speech(self._client, input, model, voice, kwargs)


async def _acreate_speech(client: ClientBase, input: Any, model: Any, voice: Any,
                          kwargs: dict[str, Any]) -> BinaryResponse:
    options = {name: kwargs.pop(name, None) for name in (
        "instructions", "response_format", "speed", "timeout")}
    provider, request = _prepare_speech(client, model, input, voice, stream=False,
                                        extra=kwargs, **options)
    result: BinaryResponse = await provider.aspeech(request)
    return result


class AsyncSpeech:
    """``aclient.audio.speech``: ``await create(...)``; ``async with
    with_streaming_response.create(...) as response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    @property
    def with_streaming_response(self) -> _StreamingSpeech:
        return _StreamingSpeech(self._client)

    async def create(self, *, input: str, model: str, voice: Any,
                     instructions: Optional[str] = None,
                     response_format: Optional[SpeechFormat] = None,
                     speed: Optional[float] = None, timeout: Any = None,
                     **provider_kwargs: Any) -> BinaryResponse:
        """See ``Client.audio.speech.create``."""
        return await _acreate_speech(self._client, input, model, voice, {
            "instructions": instructions, "response_format": response_format,
            "speed": speed, "timeout": timeout, **provider_kwargs})


# --- translations ----------------------------------------------------------------------------

_TRANSLATION_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
_TRANSLATION_KNOWN = ("file", "model", "prompt", "response_format", "temperature", "timeout")


def _prepare_translation(client: ClientBase, model: Any, file: Any, *, prompt: Any,
                         response_format: Any, temperature: Any, timeout: Any,
                         extra: dict[str, Any]) -> tuple[Provider, TranscriptionRequest]:
    check_text("prompt", prompt, optional=True)
    if response_format not in _TRANSLATION_FORMATS:
        raise ValueError(f"response_format must be one of "
                         f"{', '.join(map(repr, _TRANSLATION_FORMATS))}, got "
                         f"{response_format!r}")
    check_number("temperature", temperature, 0, 1)
    check_timeout(timeout)
    check_keywords("audio.translations.create", extra, _TRANSLATION_KNOWN)
    key, name = parse_model(model)
    accepts = getattr(resolve_provider(client, key), "audio_input", None)  # the transport's
    provider = provider_of_key(client, key)
    if accepts is None:  # no audio input at all (the family's translate says the rest)
        raise no_endpoint("audio.translations", key)
    from ..core.audio import read_audio

    audio = read_audio(file, key, accepts)
    params = {k: v for k, v in (("prompt", prompt), ("temperature", temperature))
              if v is not None}
    params.update(extra)
    return provider, TranscriptionRequest(name, audio, params, response_format, False,
                                          timeout)


_Text = Literal["text", "srt", "vtt"]
_Json = Literal["json", "verbose_json"]


class Translations:
    """``client.audio.translations``: ``create`` (and ``acreate``); ``with_raw_response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    @overload
    def create(self, *, file: Any, model: str, prompt: Optional[str] = None,
               response_format: _Json = "json", temperature: Optional[float] = None,
               timeout: Any = None, **provider_kwargs: Any) -> Translation: ...

    @overload
    def create(self, *, file: Any, model: str, prompt: Optional[str] = None,
               response_format: _Text, temperature: Optional[float] = None,
               timeout: Any = None, **provider_kwargs: Any) -> str: ...

    def create(self, *, file: Any, model: str, prompt: Optional[str] = None,
               response_format: str = "json", temperature: Optional[float] = None,
               timeout: Any = None, **provider_kwargs: Any) -> Union[Translation, str]:
        """``file`` (speech in any language) as English text: a ``Translation`` for json /
        verbose_json, the text for text / srt / vtt."""
        provider, request = _prepare_translation(
            self._client, model, file, prompt=prompt, response_format=response_format,
            temperature=temperature, timeout=timeout, extra=provider_kwargs)
        result: Union[Translation, str] = provider.translate(request)
        return result

    async def acreate(self, *, file: Any, model: str, **kwargs: Any) -> Any:
        """Async ``create`` on the sync client."""
        return await _atranslate(self._client, file, model, kwargs)


async def _atranslate(client: ClientBase, file: Any, model: Any, kwargs: dict[str, Any]
                      ) -> Any:
    options = {"prompt": kwargs.pop("prompt", None),
               "response_format": kwargs.pop("response_format", "json"),
               "temperature": kwargs.pop("temperature", None),
               "timeout": kwargs.pop("timeout", None)}
    provider, request = _prepare_translation(client, model, file, extra=kwargs, **options)
    return await provider.atranslate(request)


class AsyncTranslations:
    """``aclient.audio.translations``: ``await create(...)``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    async def create(self, *, file: Any, model: str, prompt: Optional[str] = None,
                     response_format: str = "json", temperature: Optional[float] = None,
                     timeout: Any = None, **provider_kwargs: Any) -> Any:
        """See ``Client.audio.translations.create``."""
        return await _atranslate(self._client, file, model, {
            "prompt": prompt, "response_format": response_format,
            "temperature": temperature, "timeout": timeout, **provider_kwargs})
