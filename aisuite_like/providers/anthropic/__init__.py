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

from typing import TYPE_CHECKING, Any

from .errors import error_from_stream_event, map_sdk_error
from .translate import DEFAULT_MAX_TOKENS, THINKING_BLOCKS_KEY, build_request, parse_response
from .transport import AnthropicProvider

if TYPE_CHECKING:
    from .stream import StreamBody, StreamTranslator

    #: The former name of :class:`StreamTranslator`.
    StreamState = StreamTranslator


def __getattr__(name: str) -> Any:
    # the streams' code (and core.streaming) loads with the first stream, not with the
    # provider: a cold start's first plain call never needs it
    if name in ("StreamBody", "StreamTranslator", "StreamState"):
        from . import stream

        return stream.StreamTranslator if name == "StreamState" else getattr(stream, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
