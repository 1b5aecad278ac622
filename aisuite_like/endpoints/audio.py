"""``client.audio.transcriptions``: speech to text on every family that has it (docs/audio.md).

One preparation (``prepare_transcription``) for the sync and async calls: the model string,
the arguments' types, aisuite's parameter validation (``audio_params``), and the audio file
read and checked against the provider's formats and size limit, all before anything is
sent. The provider is wrapped for observability as chat calls are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, Optional, Union, overload

from ..client.base import ClientBase, parse_model, resolve_provider
from ..client.prepare import provider_stack
from ..core import checks as _checks
from ..core.errors import UnsupportedFeatureError, UnsupportedParameterError
from ..providers.base import TRANSCRIPTION_PROVIDERS, Provider, TranscriptionRequest

if TYPE_CHECKING:
    from ..core.audio import Transcription, TranscriptionStreamEvent

__all__ = ["Audio", "AsyncAudio", "Transcriptions", "AsyncTranscriptions",
           "TranscriptionStream", "AsyncTranscriptionStream", "prepare_transcription"]

_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
_GRANULARITIES = ("word", "segment")


def _check_arguments(language: Any, prompt: Any, response_format: Any, temperature: Any,
                     timestamp_granularities: Any, stream: Any) -> None:
    for name, value in (("language", language), ("prompt", prompt)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if response_format not in _FORMATS:
        raise ValueError(f"response_format must be one of {', '.join(map(repr, _FORMATS))}, "
                         f"got {response_format!r}")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(
            temperature, (int, float)) or not 0 <= temperature <= 1):
        raise ValueError(f"temperature must be a number from 0 to 1, got {temperature!r}")
    if timestamp_granularities is not None:
        if isinstance(timestamp_granularities, str) or not isinstance(
                timestamp_granularities, Sequence) or not timestamp_granularities or any(
                g not in _GRANULARITIES for g in timestamp_granularities):
            raise ValueError("timestamp_granularities must be a list of 'word' and/or "
                             f"'segment', got {timestamp_granularities!r}")
        if response_format != "verbose_json":
            raise UnsupportedParameterError(
                "timestamp_granularities needs response_format='verbose_json' (the times "
                "are in its segments and words)", parameter="timestamp_granularities")
    if not isinstance(stream, bool):
        raise TypeError(f"stream must be a bool, got {type(stream).__name__}")


def prepare_transcription(client: ClientBase, model: str, file: Any, *,
                          language: Optional[str] = None, prompt: Optional[str] = None,
                          response_format: str = "json", temperature: Optional[float] = None,
                          timestamp_granularities: Optional[Sequence[str]] = None,
                          stream: bool = False, timeout: Any = None,
                          kwargs: dict[str, Any]) -> tuple[Provider, TranscriptionRequest]:
    """Check and prepare one transcription before any I/O (module docstring)."""
    key, name = parse_model(model)
    _check_arguments(language, prompt, response_format, temperature, timestamp_granularities,
                     stream)
    if timeout is not None:
        problem = _checks.timeout_problem(timeout)
        if problem is not None:
            raise ValueError(f"timeout must be {problem}, got {timeout!r}")
    provider = resolve_provider(client, key)
    row = getattr(provider, "audio_params", None)
    if row is None:
        raise UnsupportedFeatureError(
            f"provider {key!r} does not transcribe audio; providers that do: "
            f"{', '.join(TRANSCRIPTION_PROVIDERS)} (docs/audio.md)",
            feature="audio.transcriptions", provider=key)
    given: dict[str, Any] = {name_: value for name_, value in (
        ("language", language), ("prompt", prompt), ("temperature", temperature))
        if value is not None}
    accepts = getattr(provider, "audio_input", None)
    if accepts is None:  # an aisuite provider: aisuite's call, the file as given
        if response_format != "json":
            given["response_format"] = response_format
        if timestamp_granularities is not None:
            given["timestamp_granularities"] = list(timestamp_granularities)
        if stream:
            given["stream"] = True
    given.update(kwargs)
    from .audio_params import ParamValidator

    params = ParamValidator(client.extra_param_mode).validate_and_map(  # type: ignore[arg-type]
        row, given)
    if accepts is None:
        audio = file
    else:
        from ..core.audio import read_audio

        if timestamp_granularities is not None:
            params["timestamp_granularities"] = list(timestamp_granularities)
        audio = read_audio(file, key, accepts)
    return (provider_stack(client, key, provider),  # a span around the call, as for chat
            TranscriptionRequest(name, audio, params, response_format, stream, timeout))


class TranscriptionStream:
    """The events of a streamed transcription (``stream=True``): iterate it for
    ``TranscriptionTextDeltaEvent`` and, last, ``TranscriptionTextDoneEvent``; a context
    manager (leaving it closes the connection)."""

    def __init__(self, events: Iterator[TranscriptionStreamEvent]) -> None:
        self._events = events

    def __iter__(self) -> Iterator[TranscriptionStreamEvent]:
        return self._events

    def __next__(self) -> TranscriptionStreamEvent:
        return next(self._events)

    def close(self) -> None:
        close = getattr(self._events, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "TranscriptionStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncTranscriptionStream:
    """Async ``TranscriptionStream``: ``async for event in stream``; ``async with``."""

    def __init__(self, events: AsyncIterator[TranscriptionStreamEvent]) -> None:
        self._events = events

    def __aiter__(self) -> AsyncIterator[TranscriptionStreamEvent]:
        return self._events

    async def __anext__(self) -> TranscriptionStreamEvent:
        return await self._events.__anext__()

    async def close(self) -> None:
        aclose = getattr(self._events, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> "AsyncTranscriptionStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def _as_given(provider: Provider) -> bool:
    """Whether ``provider`` is an aisuite provider, whose result is returned as it gives it."""
    return provider.as_given is not None


def _transcribe(client: ClientBase, model: str, file: Any, options: dict[str, Any],
                kwargs: dict[str, Any]) -> Any:
    provider, request = prepare_transcription(client, model, file, kwargs=kwargs, **options)
    result = provider.transcribe(request)
    if request.stream and not _as_given(provider):
        return TranscriptionStream(result)
    return result


async def _atranscribe(client: ClientBase, model: str, file: Any, options: dict[str, Any],
                       kwargs: dict[str, Any]) -> Any:
    provider, request = prepare_transcription(client, model, file, kwargs=kwargs, **options)
    result = await provider.atranscribe(request)
    if request.stream and not _as_given(provider):
        return AsyncTranscriptionStream(result)
    return result


_Text = Literal["text", "srt", "vtt"]
_Json = Literal["json", "verbose_json"]


class Transcriptions:
    """``client.audio.transcriptions``: ``create`` (and ``acreate``, aisuite's async name)."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @overload
    def create(self, model: str, file: Any, *, language: Optional[str] = None,
               prompt: Optional[str] = None, response_format: _Json = "json",
               temperature: Optional[float] = None,
               timestamp_granularities: Optional[Sequence[Literal["word", "segment"]]] = None,
               stream: Literal[False] = False, timeout: Any = None, **kwargs: Any
               ) -> Transcription: ...

    @overload
    def create(self, model: str, file: Any, *, language: Optional[str] = None,
               prompt: Optional[str] = None, response_format: _Text,
               temperature: Optional[float] = None,
               timestamp_granularities: Optional[Sequence[Literal["word", "segment"]]] = None,
               stream: Literal[False] = False, timeout: Any = None, **kwargs: Any) -> str: ...

    @overload
    def create(self, model: str, file: Any, *, language: Optional[str] = None,
               prompt: Optional[str] = None, response_format: str = "json",
               temperature: Optional[float] = None,
               timestamp_granularities: Optional[Sequence[Literal["word", "segment"]]] = None,
               stream: Literal[True], timeout: Any = None, **kwargs: Any
               ) -> TranscriptionStream: ...

    @overload
    def create(self, model: str, file: Any, *, language: Optional[str] = None,
               prompt: Optional[str] = None, response_format: str = "json",
               temperature: Optional[float] = None,
               timestamp_granularities: Optional[Sequence[Literal["word", "segment"]]] = None,
               stream: bool = False, timeout: Any = None, **kwargs: Any
               ) -> Union[Transcription, str, TranscriptionStream]: ...

    def create(self, model: str, file: Any, *, language: Optional[str] = None,
               prompt: Optional[str] = None, response_format: str = "json",
               temperature: Optional[float] = None,
               timestamp_granularities: Optional[Sequence[str]] = None,
               stream: bool = False, timeout: Any = None, **kwargs: Any) -> Any:
        """Transcribe ``file`` (a path, bytes, a ``(name, bytes)`` tuple or a binary file
        object) with ``model`` (``"provider:model"``): a ``Transcription`` for ``json`` /
        ``verbose_json``, the text for ``text`` / ``srt`` / ``vtt``, a
        ``TranscriptionStream`` with ``stream=True``. Other keyword arguments are the
        provider's own parameters (docs/audio.md)."""
        return _transcribe(self._client, model, file, dict(
            language=language, prompt=prompt, response_format=response_format,
            temperature=temperature, timestamp_granularities=timestamp_granularities,
            stream=stream, timeout=timeout), kwargs)

    async def acreate(self, model: str, file: Any, *, language: Optional[str] = None,
                      prompt: Optional[str] = None, response_format: str = "json",
                      temperature: Optional[float] = None,
                      timestamp_granularities: Optional[Sequence[str]] = None,
                      stream: bool = False, timeout: Any = None, **kwargs: Any) -> Any:
        """Async ``create`` on the sync client; ``stream=True`` gives an
        ``AsyncTranscriptionStream``."""
        return await _atranscribe(self._client, model, file, dict(
            language=language, prompt=prompt, response_format=response_format,
            temperature=temperature, timestamp_granularities=timestamp_granularities,
            stream=stream, timeout=timeout), kwargs)


class AsyncTranscriptions:
    """``aclient.audio.transcriptions``: ``await create(...)``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @overload
    async def create(self, model: str, file: Any, *, language: Optional[str] = None,
                     prompt: Optional[str] = None, response_format: _Json = "json",
                     temperature: Optional[float] = None,
                     timestamp_granularities: Optional[
                         Sequence[Literal["word", "segment"]]] = None,
                     stream: Literal[False] = False, timeout: Any = None, **kwargs: Any
                     ) -> Transcription: ...

    @overload
    async def create(self, model: str, file: Any, *, language: Optional[str] = None,
                     prompt: Optional[str] = None, response_format: _Text,
                     temperature: Optional[float] = None,
                     timestamp_granularities: Optional[
                         Sequence[Literal["word", "segment"]]] = None,
                     stream: Literal[False] = False, timeout: Any = None, **kwargs: Any
                     ) -> str: ...

    @overload
    async def create(self, model: str, file: Any, *, language: Optional[str] = None,
                     prompt: Optional[str] = None, response_format: str = "json",
                     temperature: Optional[float] = None,
                     timestamp_granularities: Optional[
                         Sequence[Literal["word", "segment"]]] = None,
                     stream: Literal[True], timeout: Any = None, **kwargs: Any
                     ) -> AsyncTranscriptionStream: ...

    @overload
    async def create(self, model: str, file: Any, *, language: Optional[str] = None,
                     prompt: Optional[str] = None, response_format: str = "json",
                     temperature: Optional[float] = None,
                     timestamp_granularities: Optional[
                         Sequence[Literal["word", "segment"]]] = None,
                     stream: bool = False, timeout: Any = None, **kwargs: Any
                     ) -> Union[Transcription, str, AsyncTranscriptionStream]: ...

    async def create(self, model: str, file: Any, *, language: Optional[str] = None,
                     prompt: Optional[str] = None, response_format: str = "json",
                     temperature: Optional[float] = None,
                     timestamp_granularities: Optional[Sequence[str]] = None,
                     stream: bool = False, timeout: Any = None, **kwargs: Any) -> Any:
        """Async transcription (see ``Transcriptions.create``)."""
        return await _atranscribe(self._client, model, file, dict(
            language=language, prompt=prompt, response_format=response_format,
            temperature=temperature, timestamp_granularities=timestamp_granularities,
            stream=stream, timeout=timeout), kwargs)


class Audio:
    """``client.audio``: ``transcriptions``."""

    def __init__(self, client: ClientBase) -> None:
        self.transcriptions = Transcriptions(client)


class AsyncAudio:
    """``aclient.audio``: ``transcriptions`` (awaited)."""

    def __init__(self, client: ClientBase) -> None:
        self.transcriptions = AsyncTranscriptions(client)
