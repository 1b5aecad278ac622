"""Everything that touches the ``anthropic`` SDK's private internals
(docs/providers/anthropic.md), behind small functions the transport and the batches feature
call, for the SDK releases of ``SDK_VERSIONS`` (``tests/providers/test_sdk_seams.py`` fails
when the installed SDK is outside them).
"""

from __future__ import annotations

from typing import Any

from .._common import bound_sync_io

#: The releases this seam was written for (pyproject's ``anthropic`` extra).
SDK_VERSIONS = {"anthropic": ">=2,<3"}


def bound_sync_client(client: Any) -> None:
    """Make a sync SDK client honour the attempt deadline (``_common.bound_sync_io``) on the
    ``httpx2.Client`` it sends through, which the SDK keeps in ``client._client``."""
    bound_sync_io(client._client)


def jsonl_decoders() -> tuple[Any, Any]:
    """The SDK's line decoders of a JSONL body, ``(sync, async)``, as ``cast_to`` of a
    streamed ``client.get`` (what ``messages.batches.results`` uses; the SDK exports them
    from its private ``_decoders`` package only)."""
    from anthropic._decoders.jsonl import AsyncJSONLDecoder, JSONLDecoder

    return JSONLDecoder[object], AsyncJSONLDecoder[object]
