"""The results of the endpoints beside chat, in the OpenAI SDK's shapes: images
(docs/images.md), moderations (docs/moderations.md), files (docs/files.md), translations and
speech (docs/audio.md); and what they share: a file read for upload, binary replies.

Every type here validates as the OpenAI SDK's type of the same name
(``openai.types.ImagesResponse.model_validate(ours.model_dump())``); ``provider`` (and
``model`` where OpenAI has none) say who answered. No network I/O here: ``read_upload``
reads the caller's local file, bounded by the provider's size limit.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from pydantic import ConfigDict, Field

from .audio import Transcription, _file_parts, _read_bounded, read_path
from .errors import UnsupportedParameterError
from .types import _Model

__all__ = [
    "Image", "ImageUsage", "ImageTokensDetails", "ImagesResponse",
    "ModerationCategories", "ModerationCategoryScores", "Moderation",
    "ModerationCreateResponse", "MODERATION_CATEGORIES",
    "FileObject", "FileDeleted", "Translation",
    "BinaryResponse", "StreamedBinaryResponse", "AsyncStreamedBinaryResponse",
    "Upload", "read_upload", "file_family", "wav_from_pcm", "FILE_ID_PREFIXES",
    "image_size", "aspect_ratio",
]

MB = 1024 * 1024


# --- images -----------------------------------------------------------------------------------


class Image(_Model):
    """One image: ``b64_json`` (its bytes in base64) or ``url``, and ``revised_prompt`` where
    the model rewrote the prompt (dall-e-3)."""

    b64_json: Optional[str] = None
    revised_prompt: Optional[str] = None
    url: Optional[str] = None


class ImageTokensDetails(_Model):
    """Tokens by kind, as OpenAI's ``input_tokens_details`` / ``output_tokens_details``."""

    image_tokens: int = 0
    text_tokens: int = 0


class ImageUsage(_Model):
    """Token usage of an image call, as OpenAI's GPT image models report it (Gemini's image
    models too); None on a response where the provider counts no tokens."""

    input_tokens: int = 0
    input_tokens_details: ImageTokensDetails = Field(default_factory=ImageTokensDetails)
    output_tokens: int = 0
    total_tokens: int = 0
    output_tokens_details: Optional[ImageTokensDetails] = None

    @property
    def cost(self) -> Optional[float]:
        """The price in USD from the ``genai-prices`` package (extra ``[prices]``); None when
        the model's price is unknown. Not part of ``model_dump()``."""
        from .cost import cost_of

        return cost_of(self)


class ImagesResponse(_Model):
    """The reply of ``client.images.generate`` / ``edit`` (docs/images.md), in OpenAI's
    shape: ``created``, ``data`` (the images), and where the provider says them
    ``background``, ``output_format``, ``quality``, ``size`` and ``usage``."""

    created: int = 0
    data: Optional[list[Image]] = None
    background: Optional[str] = None
    output_format: Optional[str] = None
    quality: Optional[str] = None
    size: Optional[str] = None
    usage: Optional[ImageUsage] = None
    provider: str = ""
    model: str = ""
    raw: Any = Field(default=None, exclude=True, repr=False)


# --- moderations ------------------------------------------------------------------------------

#: OpenAI's moderation categories (as its API names them), the ones every result carries.
MODERATION_CATEGORIES = (
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
    "illicit/violent", "self-harm", "self-harm/instructions", "self-harm/intent", "sexual",
    "sexual/minors", "violence", "violence/graphic")


def _field(name: str) -> str:
    return name.replace("/", "_").replace("-", "_")


class _ByAlias(_Model):
    # the categories are named "self-harm/intent" on the wire, self_harm_intent in Python
    model_config = ConfigDict(extra="allow", populate_by_name=True, serialize_by_alias=True)


class ModerationCategories(_ByAlias):
    """Whether each category is flagged. A provider's own categories beyond OpenAI's
    (Mistral's ``pii``, ``financial``, ...) are extra fields under their own names."""

    harassment: bool = False
    harassment_threatening: bool = Field(False, alias="harassment/threatening")
    hate: bool = False
    hate_threatening: bool = Field(False, alias="hate/threatening")
    illicit: Optional[bool] = None
    illicit_violent: Optional[bool] = Field(None, alias="illicit/violent")
    self_harm: bool = Field(False, alias="self-harm")
    self_harm_instructions: bool = Field(False, alias="self-harm/instructions")
    self_harm_intent: bool = Field(False, alias="self-harm/intent")
    sexual: bool = False
    sexual_minors: bool = Field(False, alias="sexual/minors")
    violence: bool = False
    violence_graphic: bool = Field(False, alias="violence/graphic")


class ModerationCategoryScores(_ByAlias):
    """Each category's score (0 to 1)."""

    harassment: float = 0.0
    harassment_threatening: float = Field(0.0, alias="harassment/threatening")
    hate: float = 0.0
    hate_threatening: float = Field(0.0, alias="hate/threatening")
    illicit: float = 0.0
    illicit_violent: float = Field(0.0, alias="illicit/violent")
    self_harm: float = Field(0.0, alias="self-harm")
    self_harm_instructions: float = Field(0.0, alias="self-harm/instructions")
    self_harm_intent: float = Field(0.0, alias="self-harm/intent")
    sexual: float = 0.0
    sexual_minors: float = Field(0.0, alias="sexual/minors")
    violence: float = 0.0
    violence_graphic: float = Field(0.0, alias="violence/graphic")


def _text_inputs() -> dict[str, list[str]]:
    return {name: ["text"] for name in MODERATION_CATEGORIES}


class Moderation(_Model):
    """The verdict on one input: ``flagged`` when any category is;
    ``category_applied_input_types`` says which kinds of input (``text``, ``image``) each
    score is about (``text`` for every category on a provider that moderates text only)."""

    flagged: bool
    categories: ModerationCategories
    category_scores: ModerationCategoryScores
    category_applied_input_types: dict[str, list[str]] = Field(default_factory=_text_inputs)


class ModerationCreateResponse(_Model):
    """The reply of ``client.moderations.create`` (docs/moderations.md): one result per
    input, in order."""

    id: str = ""
    model: str = ""
    results: list[Moderation] = Field(default_factory=lambda: [])
    provider: str = ""
    raw: Any = Field(default=None, exclude=True, repr=False)


# --- files ------------------------------------------------------------------------------------

#: How each family's file ids begin (docs/files.md): what tells a file id's family.
FILE_ID_PREFIXES = (("file-", "openai"), ("file_", "anthropic"), ("files/", "google"))


def file_family(file_id: str) -> Optional[str]:
    """The family whose Files API made ``file_id`` (openai ``file-...``, anthropic
    ``file_...``, google ``files/...``), or None for an id of no known shape."""
    for prefix, family in FILE_ID_PREFIXES:
        if file_id.startswith(prefix):
            return family
    if file_id.startswith("https://") and "/files/" in file_id and \
            "generativelanguage.googleapis.com" in file_id:
        return "google"  # a Gemini file's uri
    return None


class FileObject(_Model):
    """An uploaded file, in OpenAI's shape: ``id`` (use it in chat content parts:
    ``{"type": "file", "file": {"file_id": id}}``), ``bytes``, ``created_at``,
    ``filename``, ``purpose``, ``status`` (``uploaded``, ``processed`` or ``error``),
    ``expires_at``. Other families' fields are kept (``mime_type``, Gemini's ``uri``)."""

    id: str
    bytes: int = 0
    created_at: int = 0
    filename: str = ""
    object: Literal["file"] = "file"
    purpose: str = "user_data"
    status: Literal["uploaded", "processed", "error"] = "processed"
    expires_at: Optional[int] = None
    status_details: Optional[str] = None
    provider: str = ""


class FileDeleted(_Model):
    """The reply of ``client.files.delete``."""

    id: str
    deleted: bool = True
    object: Literal["file"] = "file"


# --- translations -----------------------------------------------------------------------------


class Translation(Transcription):
    """An audio translation into English (``client.audio.translations.create``), in
    OpenAI's shape: ``text``; with ``verbose_json`` also ``language``, ``duration`` and
    ``segments``."""


# --- binary replies (speech, file content) ------------------------------------------------------


class BinaryResponse:
    """Bytes of a reply read whole (``client.audio.speech.create``, ``client.files.content``),
    as the OpenAI SDK's ``HttpxBinaryResponseContent``: ``content`` / ``read()``,
    ``iter_bytes()``, ``write_to_file(path)`` (``stream_to_file`` too), ``text``;
    ``content_type`` is what the provider says the bytes are; ``usage`` the provider's own
    usage object when it sends one."""

    __slots__ = ("content", "content_type", "provider", "model", "usage", "headers")

    def __init__(self, content: bytes, content_type: str = "application/octet-stream", *,
                 provider: str = "", model: str = "", usage: Optional[dict[str, Any]] = None,
                 headers: Optional[dict[str, str]] = None) -> None:
        self.content = content
        self.content_type = content_type
        self.provider = provider
        self.model = model
        self.usage = usage
        self.headers = headers or {}

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    @property
    def encoding(self) -> str:
        return "utf-8"

    def read(self) -> bytes:
        return self.content

    async def aread(self) -> bytes:
        return self.content

    def json(self) -> Any:
        import json

        return json.loads(self.content)

    def iter_bytes(self, chunk_size: Optional[int] = None) -> Iterator[bytes]:
        size = chunk_size or len(self.content) or 1
        for start in range(0, len(self.content), size):
            yield self.content[start:start + size]

    async def aiter_bytes(self, chunk_size: Optional[int] = None) -> AsyncIterator[bytes]:
        for chunk in self.iter_bytes(chunk_size):
            yield chunk

    def write_to_file(self, file: Union[str, "os.PathLike[str]"]) -> None:
        with open(file, "wb") as f:
            f.write(self.content)

    #: The OpenAI SDK's older name (it writes the bytes read; nothing is left to stream).
    stream_to_file = write_to_file

    async def awrite_to_file(self, file: Union[str, "os.PathLike[str]"]) -> None:
        self.write_to_file(file)

    astream_to_file = awrite_to_file

    def close(self) -> None:
        """Nothing to release: the bytes were read whole."""

    async def aclose(self) -> None:
        """Nothing to release: the bytes were read whole."""

    def __repr__(self) -> str:
        return (f"BinaryResponse(content_type={self.content_type!r}, "
                f"bytes={len(self.content)}, provider={self.provider!r})")


def _rechunk(buffer: bytes, chunk: bytes, chunk_size: Optional[int]
             ) -> tuple[list[bytes], bytes]:
    """The pieces of ``chunk_size`` bytes ready once ``chunk`` arrives after ``buffer``, and
    the bytes left over; without a ``chunk_size``, ``chunk`` itself (the sync and async
    streamed responses' ``iter_bytes``)."""
    if not chunk_size:
        return [chunk], buffer
    buffer += chunk
    ready = len(buffer) - len(buffer) % chunk_size
    return [buffer[i:i + chunk_size] for i in range(0, ready, chunk_size)], buffer[ready:]


class StreamedBinaryResponse:
    """Bytes of a reply as they arrive (``client.audio.speech.with_streaming_response
    .create(...)``, a context manager): ``iter_bytes()``, ``stream_to_file(path)``,
    ``read()``; ``headers`` and ``status_code`` of the reply. Leaving the ``with`` block
    closes the connection."""

    def __init__(self, chunks: Iterator[bytes], content_type: str, *,
                 headers: Optional[Any] = None, status_code: Optional[int] = None) -> None:
        self._chunks = chunks
        self.content_type = content_type
        self.headers = headers if headers is not None else {}
        self.status_code = status_code
        self._read: Optional[bytes] = None

    def iter_bytes(self, chunk_size: Optional[int] = None) -> Iterator[bytes]:
        if self._read is not None:
            yield from BinaryResponse(self._read).iter_bytes(chunk_size)
            return
        buffer = b""
        for chunk in self._chunks:
            pieces, buffer = _rechunk(buffer, chunk, chunk_size)
            yield from pieces
        if buffer:
            yield buffer

    def read(self) -> bytes:
        if self._read is None:
            self._read = b"".join(self.iter_bytes())
        return self._read

    def stream_to_file(self, file: Union[str, "os.PathLike[str]"],
                       chunk_size: Optional[int] = None) -> None:
        with open(file, "wb") as f:
            for chunk in self.iter_bytes(chunk_size):
                f.write(chunk)

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "StreamedBinaryResponse":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncStreamedBinaryResponse:
    """Async ``StreamedBinaryResponse``: ``async for chunk in r.iter_bytes()``,
    ``await r.stream_to_file(path)``, ``await r.read()``; ``async with``."""

    def __init__(self, chunks: AsyncIterator[bytes], content_type: str, *,
                 headers: Optional[Any] = None, status_code: Optional[int] = None) -> None:
        self._chunks = chunks
        self.content_type = content_type
        self.headers = headers if headers is not None else {}
        self.status_code = status_code

    async def iter_bytes(self, chunk_size: Optional[int] = None) -> AsyncIterator[bytes]:
        buffer = b""
        async for chunk in self._chunks:
            pieces, buffer = _rechunk(buffer, chunk, chunk_size)
            for piece in pieces:
                yield piece
        if buffer:
            yield buffer

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self.iter_bytes()])

    async def stream_to_file(self, file: Union[str, "os.PathLike[str]"],
                             chunk_size: Optional[int] = None) -> None:
        with open(file, "wb") as f:
            async for chunk in self.iter_bytes(chunk_size):
                f.write(chunk)

    async def close(self) -> None:
        aclose = getattr(self._chunks, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> "AsyncStreamedBinaryResponse":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def wav_from_pcm(pcm: bytes, rate: int = 24000, channels: int = 1, width: int = 2) -> bytes:
    """Signed little-endian PCM as a WAV file (the standard library's ``wave``)."""
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(pcm)
    return out.getvalue()


# --- a file to upload -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Upload:
    """A file read for upload: its name, bytes and content type."""

    name: str
    data: bytes
    content_type: str

    def __repr__(self) -> str:  # never the bytes
        return (f"Upload(name={self.name!r}, content_type={self.content_type!r}, "
                f"bytes={len(self.data)})")


_KNOWN = ((b"\x89PNG\r\n\x1a\n", "image/png", "png"), (b"\xff\xd8\xff", "image/jpeg", "jpg"),
          (b"GIF8", "image/gif", "gif"), (b"%PDF", "application/pdf", "pdf"))


def _sniff(head: bytes) -> Optional[tuple[str, str]]:
    for magic, content_type, ext in _KNOWN:
        if head.startswith(magic):
            return content_type, ext
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp", "webp"
    return None


def read_upload(file: Any, provider: str, max_bytes: int, *, what: str = "file",
                parameter: str = "file", images_only: bool = False) -> Upload:
    """``file`` (a path, bytes, a ``(name, content[, content_type])`` tuple or a binary file
    object) read for upload to ``provider``: not empty, at most ``max_bytes`` (a path is
    measured before it is read), its content type told by its first bytes (PNG, JPEG, GIF,
    WebP, PDF), else by its name, else ``application/octet-stream``. ``images_only``: a
    PNG, JPEG, GIF or WebP image is required. Every failure is an error before anything is
    sent."""
    name, content, path = _file_parts(file)
    given_type = file[2] if isinstance(file, tuple) and len(file) >= 3 and \
        isinstance(file[2], str) else None
    if path is not None:  # a regular file only (a FIFO would block before any timeout)
        data = read_path(path, max_bytes, what=what, provider=provider, parameter=parameter,
                         too_large=lambda size: _too_large(what, provider, size, max_bytes,
                                                           parameter))
    else:
        data = _read_bounded(content, max_bytes)
    if len(data) > max_bytes:
        raise _too_large(what, provider, len(data), max_bytes, parameter)
    if not data:
        raise UnsupportedParameterError(
            f"the {what}{f' {name!r}' if name else ''} is empty", parameter=parameter,
            provider=provider)
    sniffed = _sniff(data[:16])
    if images_only and (sniffed is None or not sniffed[0].startswith("image/")):
        raise UnsupportedParameterError(
            f"the {what}{f' {name!r}' if name else ''} is not a PNG, JPEG, GIF or WebP "
            "image", parameter=parameter, provider=provider)
    base = os.path.basename(name) if name else ""
    if given_type:
        content_type = given_type
    elif sniffed is not None:
        content_type = sniffed[0]
    else:
        content_type = (mimetypes.guess_type(base)[0] if base else None) or \
            "application/octet-stream"
    if not base:
        ext = sniffed[1] if sniffed is not None else (
            (mimetypes.guess_extension(content_type) or ".bin").lstrip("."))
        base = f"{'image' if images_only else 'upload'}.{ext}"
    return Upload(base, data, content_type)


def _too_large(what: str, provider: str, size: int, max_bytes: int,
               parameter: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(
        f"the {what} is {size / MB:.1f} MB; {provider} accepts at most {max_bytes / MB:g} MB",
        parameter=parameter, provider=provider)


def image_size(size: str, provider: str) -> tuple[int, int]:
    """``"WIDTHxHEIGHT"`` -> ``(width, height)``; anything else is an
    ``UnsupportedParameterError``."""
    width, sep, height = size.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not int(width) or \
            not int(height):
        raise UnsupportedParameterError(
            f"size must be 'WIDTHxHEIGHT' (e.g. '1024x1024') on {provider}, got {size!r}",
            parameter="size", provider=provider)
    return int(width), int(height)


def aspect_ratio(size: str, allowed: tuple[str, ...], provider: str) -> str:
    """The aspect ratio (``"16:9"``) of ``size`` (``"WIDTHxHEIGHT"``), when ``provider``
    makes images of that shape; else an ``UnsupportedParameterError`` listing them."""
    from math import gcd

    width, height = image_size(size, provider)
    divisor = gcd(width, height)
    ratio = f"{width // divisor}:{height // divisor}"
    if ratio not in allowed:
        raise UnsupportedParameterError(
            f"{provider} makes images of the aspect ratios {', '.join(allowed)}; size "
            f"{size!r} is {ratio} (e.g. '1024x1024' is 1:1, '1536x1024' 3:2, '1792x1008' "
            "16:9)", parameter="size", provider=provider)
    return ratio
