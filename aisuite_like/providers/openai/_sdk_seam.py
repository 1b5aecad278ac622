"""Everything that touches the ``openai`` SDK's private internals (docs/providers/openai.md),
behind small functions the transport calls, for the SDK releases of ``SDK_VERSIONS``
(``tests/providers/test_sdk_seams.py`` fails when the installed SDK is outside them).
"""

from __future__ import annotations

from typing import Any

from .._common import bound_sync_io

#: The releases this seam was written for (pyproject's ``openai`` extra).
SDK_VERSIONS = {"openai": ">=3,<4"}


def bound_sync_client(client: Any) -> None:
    """Make a sync SDK client honour the attempt deadline (``_common.bound_sync_io``) on the
    ``httpx2.Client`` it sends through, which the SDK keeps in ``client._client``."""
    bound_sync_io(client._client)
