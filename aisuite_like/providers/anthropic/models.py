"""Anthropic's models list, pure (no I/O, no SDK import): a page of ``GET /v1/models`` ->
``Model`` objects and the cursor of the next page (docs/models.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

from ...core.types import Model
from .._common import bad_shape, need_list, need_object
from .errors import error_from_stream_event
from .translate import PROVIDER

__all__ = ["parse_models_page", "unix_seconds"]


def unix_seconds(timestamp: Any) -> int:
    """An RFC 3339 time (``"2025-02-19T00:00:00Z"``) -> Unix seconds; 0 when absent or not
    one (the date is informative, never worth failing a list for)."""
    if not isinstance(timestamp, str):
        return 0
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return 0


def parse_models_page(data: Any, provider: str = PROVIDER) -> tuple[list[Model], Optional[str]]:
    """One page: ``{"data": [{"type": "model", "id", "display_name", "created_at"}, ...],
    "has_more", "last_id"}`` -> (models, the ``after_id`` of the next page or None). An
    error object raises the mapped error; any other shape an
    ``APIResponseValidationError``."""
    data = need_object(data, provider, "the reply")
    if data.get("type") == "error" or data.get("error"):
        raise error_from_stream_event(data, provider=provider, where="reply")
    models = []
    for i, item in enumerate(need_list(data.get("data"), provider, "data")):
        entry = need_object(item, provider, f"data[{i}]")
        name = entry.get("id")
        if not isinstance(name, str) or not name:
            raise bad_shape(provider, f"data[{i}].id", "a non-empty string", name,
                            missing=name in (None, ""))
        models.append(Model(id=name, created=unix_seconds(entry.get("created_at")),
                            owned_by="anthropic", provider=provider, raw=entry))
    after = data.get("last_id")
    more = data.get("has_more") is True and isinstance(after, str) and after
    return models, after if more else None
