"""Deepgram: speech to text over its REST API with httpx2, no SDK (docs/audio.md).

- ``translate.py``: pure: the transcription parameters as Deepgram's query, its reply as a
  ``Transcription``;
- ``errors.py``: httpx2 exceptions and Deepgram's error bodies -> our error tree;
- ``transport.py``: ``DeepgramProvider``, the requests through the shared retry layer.

Importing this package imports nothing of httpx2: the transport does when it first builds a
client.
"""

from __future__ import annotations

from .errors import error_from_response, map_error
from .translate import build_query, parse_transcription
from .transport import DeepgramProvider

__all__ = ["DeepgramProvider", "build_query", "error_from_response", "map_error",
           "parse_transcription"]
