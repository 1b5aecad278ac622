"""Gemini API and Vertex AI through google-genai (docs/providers/google.md).

The family's modules: ``translate`` (pure: request body, reply, continuation), ``stream``
(pure: the streamed events -> chunks), ``errors`` (SDK exceptions and error bodies -> our
error tree), ``transport`` (``GoogleProvider``: the SDK client, calls, retries, streams) and
``_sdk_seam`` (the one place that touches google-genai's private internals). Importing this
package imports no SDK: google-genai is loaded when the provider is first used.
"""

from __future__ import annotations

from .errors import (
    error_event as error_event,  # used by batches/google.py
    map_sdk_error,
)
from .stream import StreamTranslator
from .translate import (
    PLACEHOLDER_SIGNATURE,
    GeminiCall,
    build_request,
    continuation_token,
    merge_continued,
    parse_response,
    sanitize_schema,
)
from .transport import (
    DEFAULT_TIMEOUT as DEFAULT_TIMEOUT,  # used by batches/google.py
    GoogleProvider,
)

__all__ = [
    "GoogleProvider",
    "GeminiCall",
    "build_request",
    "sanitize_schema",
    "parse_response",
    "StreamTranslator",
    "map_sdk_error",
    "PLACEHOLDER_SIGNATURE",
    "continuation_token",
    "merge_continued",
]
