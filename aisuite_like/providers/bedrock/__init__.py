"""Amazon Bedrock's Converse / ConverseStream APIs through botocore
(docs/providers/bedrock.md), registered as ``"bedrock"`` (alias ``"aws"``).

The family's modules: ``translate`` (pure: request arguments, reply), ``stream`` (pure: the
binary event stream -> events -> chunks), ``errors`` (botocore's errors and error events ->
our error tree), ``wire`` (pure: the fast JSON reads and writes of Converse), ``transport``
(``BedrockProvider``: botocore clients, calls, retries, the async bridge) and ``_sdk_seam``
(the one place that touches botocore's private internals). Importing this package imports
no SDK: botocore is loaded when the provider is first made.
"""

from __future__ import annotations

from .errors import error_from_client_error, map_sdk_error
from .stream import EventStreamDecoder, StreamTranslator
from .translate import REASONING_BLOCKS_KEY, build_request, parse_response
from .transport import DEFAULT_TIMEOUT, BedrockProvider

__all__ = [
    "BedrockProvider",
    "REASONING_BLOCKS_KEY",
    "DEFAULT_TIMEOUT",
    "build_request",
    "parse_response",
    "StreamTranslator",
    "EventStreamDecoder",
    "error_from_client_error",
    "map_sdk_error",
]
