"""OpenAI, Azure OpenAI and every OpenAI-compatible service: one translator, one row per
service (docs/providers/openai.md).

- ``services.py``: the services table (``ServiceSpec`` rows, ``SERVICES``);
- ``translate.py``: pure request / reply translation (``build_request``, ``parse_response``);
- ``stream.py``: pure stream translation (``StreamTranslator``, ``StreamBody``);
- ``errors.py``: SDK exceptions and error bodies -> our error tree (``map_sdk_error``);
- ``transport.py``: ``OpenAIProvider``, the thin transport over the ``openai`` SDK;
- ``_sdk_seam.py``: the one place that touches the SDK's private internals.

Importing this package imports no SDK: the transport imports ``openai`` when it first builds
a client.
"""

from __future__ import annotations

from .errors import error_from_body, map_sdk_error
from .services import SERVICES, ServiceSpec
from .stream import StreamBody, StreamTranslator
from .translate import build_request, parse_response
from .transport import OpenAIProvider

#: The former name of :func:`build_request` (``chat.completions.create`` keyword arguments).
build_create_kwargs = build_request

__all__ = [
    "SERVICES",
    "OpenAIProvider",
    "ServiceSpec",
    "StreamBody",
    "StreamTranslator",
    "build_create_kwargs",
    "build_request",
    "error_from_body",
    "map_sdk_error",
    "parse_response",
]
