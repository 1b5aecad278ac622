"""Audio transcription (docs/audio.md): the response types in OpenAI's shapes, the audio file
read and checked before anything is uploaded, and the text formats rendered from segments.

No network I/O here; ``read_audio`` reads the caller's local file (bounded by the provider's
size limit: a larger file is refused without being read whole).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from pydantic import Field

from .errors import UnsupportedParameterError
from .types import _Model

__all__ = [
    "Transcription",
    "TranscriptionSegment",
    "TranscriptionWord",
    "TranscriptionTextDeltaEvent",
    "TranscriptionTextDoneEvent",
    "TranscriptionStreamEvent",
    "AudioFile",
    "AudioInput",
    "read_audio",
    "sniff_format",
    "in_format",
    "render_subtitles",
    "wav_duration",
    "RESPONSE_FORMATS",
    "MB",
]

MB = 1024 * 1024

#: What ``response_format`` may be, on every provider (docs/audio.md).
RESPONSE_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
ResponseFormat = Literal["json", "text", "srt", "verbose_json", "vtt"]


# --- the response types ----------------------------------------------------------------------


class TranscriptionWord(_Model):
    """One word and when it is spoken (seconds from the start), as OpenAI's ``words``."""

    word: str
    start: float
    end: float


class TranscriptionSegment(_Model):
    """A stretch of the transcript with its times (seconds), as OpenAI's ``segments``; the
    Whisper-only statistics are None on other providers."""

    id: int = 0
    seek: int = 0
    start: float
    end: float
    text: str
    tokens: Optional[list[int]] = None
    temperature: Optional[float] = None
    avg_logprob: Optional[float] = None
    compression_ratio: Optional[float] = None
    no_speech_prob: Optional[float] = None


class Transcription(_Model):
    """A transcription, in OpenAI's shape: ``text``; with ``response_format="verbose_json"``
    also ``language``, ``duration`` (seconds), ``segments`` and (with
    ``timestamp_granularities=["word"]``) ``words``. ``usage`` is the provider's own usage
    object when it sends one (OpenAI: tokens or seconds); ``provider`` / ``model`` say who
    transcribed it. Fields a provider adds (Deepgram's ``confidence``, ...) are kept."""

    text: str
    language: Optional[str] = None
    duration: Optional[float] = None
    segments: Optional[list[TranscriptionSegment]] = None
    words: Optional[list[TranscriptionWord]] = None
    usage: Optional[dict[str, Any]] = None
    provider: str = ""
    model: str = ""
    raw: Any = Field(default=None, exclude=True, repr=False)


class TranscriptionTextDeltaEvent(_Model):
    """A piece of the transcript (``stream=True``), as OpenAI's ``transcript.text.delta``."""

    type: Literal["transcript.text.delta"] = "transcript.text.delta"
    delta: str
    logprobs: Optional[list[dict[str, Any]]] = None


class TranscriptionTextDoneEvent(_Model):
    """The whole transcript, last event of a stream, as OpenAI's ``transcript.text.done``."""

    type: Literal["transcript.text.done"] = "transcript.text.done"
    text: str
    logprobs: Optional[list[dict[str, Any]]] = None
    usage: Optional[dict[str, Any]] = None


TranscriptionStreamEvent = Union[TranscriptionTextDeltaEvent, TranscriptionTextDoneEvent]


# --- the audio file ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AudioFile:
    """Audio read and checked for one provider: the bytes, the file name to upload (its
    extension names the format) and the format."""

    name: str
    data: bytes
    format: str

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES.get(self.format, f"audio/{self.format}")

    def __repr__(self) -> str:  # never the audio itself
        return f"AudioFile(name={self.name!r}, format={self.format!r}, bytes={len(self.data)})"


@dataclass(frozen=True, slots=True)
class AudioInput:
    """What a provider accepts: audio formats (by the extensions of docs/audio.md) and the
    largest file in bytes."""

    formats: frozenset[str]
    max_bytes: int


CONTENT_TYPES = {
    "wav": "audio/wav", "mp3": "audio/mpeg", "mpeg": "audio/mpeg", "mpga": "audio/mpeg",
    "mp4": "audio/mp4", "m4a": "audio/mp4", "flac": "audio/flac", "ogg": "audio/ogg",
    "oga": "audio/ogg", "opus": "audio/ogg", "webm": "audio/webm", "aac": "audio/aac",
    "aiff": "audio/aiff", "aif": "audio/aiff",
}

# Extensions that name the same container (the sniffed format stands for all of its group).
_SAME = {"mpeg": "mp3", "mpga": "mp3", "m4a": "mp4", "oga": "ogg", "opus": "ogg",
         "aif": "aiff", "mkv": "webm"}

# Signatures of files that are not audio at all, for a clear error.
_NOT_AUDIO = ((b"%PDF", "a PDF document"), (b"\x89PNG", "a PNG image"),
              (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
              (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
              (b"\x7fELF", "an executable (ELF)"), (b"MZ", "a Windows executable"),
              (b"#!", "a script"), (b"\xca\xfe\xba\xbe", "an executable (Mach-O)"),
              (b"\xcf\xfa\xed\xfe", "an executable (Mach-O)"))
#: Formats whose bytes have no signature (raw samples): only the name tells them.
_UNSIGNED = frozenset({"pcm", "raw"})
#: The longest a path's read may take (a network file system that stalls), in seconds.
READ_SECONDS = 60.0
_CHUNK = 1024 * 1024


def sniff_format(head: bytes) -> Optional[str]:
    """The audio format the first bytes of a file announce (``wav``, ``mp3``, ``flac``,
    ``ogg``, ``webm``, ``mp4``, ``m4a``, ``aiff``, ``aac``), ``"not-audio: <what>"`` for a
    known non-audio file, or None when the bytes announce nothing known."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:5] == b"#!AMR":
        return "amr"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "webm"
    if head[4:8] == b"ftyp":
        return "m4a" if head[8:12] in (b"M4A ", b"M4B ") else "mp4"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "aiff"
    if head[:3] == b"ID3":
        return "mp3"
    if len(head) >= 2 and head[0] == 0xFF:
        if head[1] & 0xF6 == 0xF0:  # ADTS: sync word, layer 00
            return "aac"
        if head[1] & 0xE0 == 0xE0 and head[1] & 0x06:  # an MPEG audio frame (layer I-III)
            return "mp3"
    for magic, what in _NOT_AUDIO:
        if head.startswith(magic):
            return f"not-audio: {what}"
    return None


def _extension(name: Optional[str]) -> Optional[str]:
    if not name:
        return None
    base = os.path.basename(name)
    stem, dot, ext = base.rpartition(".")
    return ext.lower() if dot and stem and ext else None


def _file_parts(file: Any) -> tuple[Optional[str], Any, Optional[str]]:
    """(name, content, path) of what ``file`` is: a path, bytes, an OpenAI SDK tuple
    ``(name, content[, content_type])`` or a binary file object."""
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        return (path if isinstance(path, str) else path.decode()), None, \
            (path if isinstance(path, str) else path.decode())
    if isinstance(file, (bytes, bytearray, memoryview)):
        return None, bytes(file), None
    if isinstance(file, tuple) and 2 <= len(file) <= 4:
        name, content = file[0], file[1]
        if name is not None and not isinstance(name, str):
            raise TypeError("a (name, content) file tuple needs a str name")
        if isinstance(content, (str, os.PathLike)):
            raise TypeError("a (name, content) file tuple needs bytes or a binary file "
                            "object as content, not a path")
        return name, content, None
    if callable(getattr(file, "read", None)):
        name = getattr(file, "name", None)
        return (name if isinstance(name, str) else None), file, None
    raise TypeError(
        f"file must be a path, bytes, a (name, bytes) tuple or a binary file object (open(..., "
        f"'rb')), got {type(file).__name__}")


def _read_bounded(content: Any, max_bytes: int) -> bytes:
    if isinstance(content, (bytes, bytearray, memoryview)):
        return bytes(content)
    data = content.read(max_bytes + 1)
    if isinstance(data, str):
        raise TypeError("the audio file object is open in text mode; open it with 'rb'")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"the audio file object's read() returned {type(data).__name__}, "
                        "not bytes")
    return bytes(data)


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def read_path(path: str, max_bytes: int, *, what: str, provider: str, parameter: str,
              too_large: Callable[[int], Exception],
              check_head: Optional[Callable[[bytes], None]] = None,
              seconds: float = READ_SECONDS) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``max_bytes``
    (``too_large(size)`` is raised for a larger one, measured before reading). The file is
    opened without blocking and its type checked on the open descriptor, so a named pipe, a
    device or a directory is refused at once (it could block forever, or never end); its
    first bytes go to ``check_head`` before the rest is read; the read stops with
    ``TimeoutError`` after ``seconds``."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} not found: {path!r}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)),
                        "not a regular file")
            raise UnsupportedParameterError(
                f"the {what} path {path!r} is {kind}, not a regular file: pass the path of a "
                "file, its bytes or a file object opened with 'rb'", parameter=parameter,
                provider=provider)
        if info.st_size > max_bytes:
            raise too_large(info.st_size)
        deadline = time.monotonic() + seconds
        parts = [os.read(fd, 16)]
        if check_head is not None:
            check_head(parts[0])
        size = len(parts[0])
        while size <= max_bytes:
            if time.monotonic() > deadline:
                raise TimeoutError(f"reading the {what} {path!r} took more than {seconds:g} s")
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def _too_large(provider: str, size: int, max_bytes: int) -> UnsupportedParameterError:
    return UnsupportedParameterError(
        f"the audio file is {size / MB:.1f} MB; {provider} accepts at most "
        f"{max_bytes / MB:g} MB per request. Split the audio into shorter files or compress "
        "it (e.g. a lower bit rate mp3 or ogg) and transcribe the parts.",
        parameter="file", provider=provider)


def read_audio(file: Any, provider: str, accepts: AudioInput) -> AudioFile:
    """``file`` (a path, bytes, a ``(name, content)`` tuple or a binary file object) read and
    checked for ``provider``: not empty, not larger than ``accepts.max_bytes`` (a path is
    measured before it is read; a file object is read no further than the limit; a path
    must be a regular file, ``read_path``), in a format ``accepts.formats`` holds, told by its
    first bytes (a name alone only for raw formats without a signature, ``pcm``). Every
    failure is an error before anything is uploaded."""
    name, content, path = _file_parts(file)
    max_bytes = accepts.max_bytes
    if path is not None:
        def check_head(head: bytes) -> None:  # not audio: refused before the rest is read
            if head:
                _audio_format(head, name, provider, accepts)

        data = read_path(path, max_bytes, what="audio file", provider=provider,
                         parameter="file",
                         too_large=lambda size: _too_large(provider, size, max_bytes),
                         check_head=check_head)
    else:
        data = _read_bounded(content, max_bytes)
    if len(data) > max_bytes:
        raise _too_large(provider, len(data), max_bytes)
    if not data:
        raise UnsupportedParameterError(
            f"the audio file{f' {name!r}' if name else ''} is empty: pass the recorded audio "
            "(a path, its bytes or a file object opened with 'rb' at its start)",
            parameter="file", provider=provider)
    fmt = _audio_format(data[:16], name, provider, accepts)
    ext = _extension(name)
    stem = os.path.basename(name).rpartition(".")[0] if ext is not None and name else None
    return AudioFile(f"{stem or 'audio'}.{fmt}", data, fmt)


def _audio_format(head: bytes, name: Optional[str], provider: str, accepts: AudioInput
                  ) -> str:
    """The format of audio starting with ``head`` named ``name``: its bytes decide (a name of
    the same container keeps its extension, m4a for mp4); a name alone only for the raw
    formats that have no signature (``pcm``). Anything else is refused before upload."""
    sniffed = sniff_format(head)
    if sniffed is not None and sniffed.startswith("not-audio: "):
        raise UnsupportedParameterError(
            f"the file{f' {name!r}' if name else ''} is {sniffed[11:]}, not audio",
            parameter="file", provider=provider)
    ext = _extension(name)
    if sniffed is not None:
        fmt = ext if ext is not None and _SAME.get(ext, ext) == _SAME.get(sniffed, sniffed) \
            else sniffed
    elif ext is not None and (ext in _UNSIGNED or ext not in accepts.formats):
        fmt = ext  # raw samples; or a format refused just below by name
    elif ext is not None:
        raise UnsupportedParameterError(
            f"the file {name!r} does not start like {ext} audio (its first bytes are no audio "
            f"signature{': it looks like text' if _looks_like_text(head) else ''}); pass the "
            "recorded audio file itself", parameter="file", provider=provider)
    else:
        raise UnsupportedParameterError(
            "cannot tell the audio format of these bytes (they start with no known audio "
            "signature): pass a path, a file object opened from a path, or a (name, bytes) "
            "tuple whose name has the format's extension, e.g. ('speech.wav', data)",
            parameter="file", provider=provider)
    if fmt not in accepts.formats:
        raise UnsupportedParameterError(
            f"{provider} does not accept {fmt} audio"
            f"{f' ({name!r})' if name else ''}; it accepts "
            f"{', '.join(sorted(accepts.formats))}. Convert the file (e.g. with ffmpeg) "
            "first.", parameter="file", provider=provider)
    return fmt


def _looks_like_text(head: bytes) -> bool:
    return bool(head) and all(32 <= b < 127 or b in (9, 10, 13) for b in head)


def wav_duration(data: bytes) -> Optional[float]:
    """The length in seconds of WAV audio (PCM and other formats with a ``fmt `` chunk), or
    None when ``data`` is not WAV or its header is not readable."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos, byte_rate = 12, None
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], int.from_bytes(data[pos + 4:pos + 8], "little")
        if chunk == b"fmt " and size >= 16:
            byte_rate = int.from_bytes(data[pos + 16:pos + 20], "little")
        elif chunk == b"data" and byte_rate:
            size = min(size, len(data) - pos - 8)
            return round(size / byte_rate, 3)
        pos += 8 + size + (size & 1)
    return None


# --- the text formats -------------------------------------------------------------------------


def _timestamp(seconds: float, separator: str) -> str:
    millis = max(0, round(seconds * 1000))
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def render_subtitles(segments: list[TranscriptionSegment], fmt: str) -> str:
    """SubRip (``srt``) or WebVTT (``vtt``) text of ``segments``, one cue per segment."""
    if fmt == "srt":
        cues = [f"{i}\n{_timestamp(s.start, ',')} --> {_timestamp(s.end, ',')}\n"
                f"{s.text.strip()}\n" for i, s in enumerate(segments, 1)]
        return "\n".join(cues)
    cues = [f"{_timestamp(s.start, '.')} --> {_timestamp(s.end, '.')}\n{s.text.strip()}\n"
            for s in segments]
    return "WEBVTT\n\n" + "\n".join(cues)


def in_format(verbose: Transcription, fmt: str, provider: str = "") -> Union[Transcription, str]:
    """A provider's full transcription in the ``response_format`` the caller asked for:
    ``verbose_json`` as is; ``json`` without segments and words; ``text`` the text; ``srt`` /
    ``vtt`` rendered from the segments (one segment spanning the audio when the provider gave
    none but knows the duration)."""
    if fmt == "verbose_json":
        return verbose
    if fmt == "json":
        return verbose.model_copy(update={"segments": None, "words": None})
    if fmt == "text":
        return verbose.text
    segments = verbose.segments
    if not segments:
        if verbose.duration is None:
            raise UnsupportedParameterError(
                f"{provider or verbose.provider} gave no segment times for this audio, so "
                f"response_format={fmt!r} cannot be rendered; use 'json' or 'text'",
                parameter="response_format", provider=provider or verbose.provider)
        segments = [TranscriptionSegment(start=0.0, end=verbose.duration, text=verbose.text)]
    return render_subtitles(segments, fmt)


def opt_float(value: Any) -> Optional[float]:
    """A number read from a reply as float (None for anything else, bools included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def segments_from(items: Any) -> Optional[list[TranscriptionSegment]]:
    """OpenAI-shaped segment dicts -> segments (None when there are none or they do not read
    as segments)."""
    if not isinstance(items, list) or not items:
        return None
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            return None
        start, end, text = opt_float(item.get("start")), opt_float(item.get("end")), \
            item.get("text")
        if start is None or end is None or not isinstance(text, str):
            return None
        out.append(TranscriptionSegment.model_validate({**item, "id": item.get("id", i),
                                                        "start": start, "end": end}))
    return out


def words_from(items: Any) -> Optional[list[TranscriptionWord]]:
    """OpenAI-shaped word dicts -> words (None when there are none or they do not read)."""
    if not isinstance(items, list) or not items:
        return None
    out = []
    for item in items:
        if not isinstance(item, Mapping):
            return None
        start, end, word = opt_float(item.get("start")), opt_float(item.get("end")), \
            item.get("word")
        if start is None or end is None or not isinstance(word, str):
            return None
        out.append(TranscriptionWord(word=word, start=start, end=end))
    return out
