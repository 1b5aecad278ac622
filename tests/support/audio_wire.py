"""Reading what a transcription request sent: the fields and files of a multipart body, and
the speech fixture (no logic under test lives here)."""

from __future__ import annotations

import pathlib
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

SPEECH = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "audio" / "speech.wav"
SPEECH_BYTES = SPEECH.read_bytes()


class Part:
    """One part of a multipart body: its name, file name, content type and bytes."""

    def __init__(self, name: str, filename: Any, content_type: str, data: bytes) -> None:
        self.name = name
        self.filename = filename
        self.content_type = content_type
        self.data = data

    @property
    def text(self) -> str:
        return self.data.decode()


def multipart(request: Any) -> dict[str, list[Part]]:
    """The parts of a ``multipart/form-data`` request, by field name (a repeated field, e.g.
    ``timestamp_granularities[]``, has several)."""
    content_type = request.headers["content-type"]
    assert content_type.startswith("multipart/form-data"), content_type
    raw = b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + request.content
    message = BytesParser(policy=HTTP).parsebytes(raw)
    parts: dict[str, list[Part]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_param("filename", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        parts.setdefault(name, []).append(Part(name, filename, part.get_content_type(), data))
    return parts


def fields(request: Any) -> dict[str, str]:
    """The plain (non-file) fields of a multipart request, one value each."""
    return {name: ps[0].text for name, ps in multipart(request).items() if ps[0].filename is None}
