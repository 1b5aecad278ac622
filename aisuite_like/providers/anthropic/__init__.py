"""The Anthropic Messages API (docs/providers/anthropic.md).

- ``translate.py``: pure request / reply translation (``build_request``, ``parse_response``);
- ``stream.py``: pure stream translation (``StreamTranslator``, ``StreamBody``);
- ``errors.py``: SDK exceptions and error objects -> our error tree (``map_sdk_error``,
  ``error_from_stream_event``);
- ``transport.py``: ``AnthropicProvider``, the thin transport over the ``anthropic`` SDK;
- ``_sdk_seam.py``: the one place that touches the SDK's private internals.

Importing this package imports no SDK: the provider imports ``anthropic`` when constructed.
"""

from __future__ import annotations

from .errors import error_from_stream_event, map_sdk_error
from .stream import StreamBody, StreamTranslator
from .translate import DEFAULT_MAX_TOKENS, THINKING_BLOCKS_KEY, build_request, parse_response
from .transport import AnthropicProvider

#: The former name of :class:`StreamTranslator`.
StreamState = StreamTranslator

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "THINKING_BLOCKS_KEY",
    "AnthropicProvider",
    "StreamBody",
    "StreamState",
    "StreamTranslator",
    "build_request",
    "error_from_stream_event",
    "map_sdk_error",
    "parse_response",
]
