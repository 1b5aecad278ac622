"""The models list of OpenAI and the OpenAI-compatible services, pure (no I/O, no SDK
import): ``GET /models`` JSON -> ``Model`` objects (docs/models.md)."""

from __future__ import annotations

from typing import Any

from ...core.types import Model
from .._common import bad_shape, need_object
from .errors import error_from_body

__all__ = ["parse_models"]


def parse_models(data: Any, provider: str) -> list[Model]:
    """The reply of ``GET /models``: ``{"object": "list", "data": [{"id", "created",
    "owned_by"}, ...]}`` (OpenAI and most compatible services), or a bare array of those
    entries (Together). Ids are the service's own; an ``{"error": {...}}`` reply raises the
    mapped error; any other shape an ``APIResponseValidationError``."""
    if isinstance(data, dict):
        if data.get("error"):
            raise error_from_body(data["error"], provider, where="error object in the reply")
        items = data.get("data")
        where = "data"
    else:
        items, where = data, "the reply"
    if not isinstance(items, list):
        raise bad_shape(provider, where, "an array of models", items, missing=items is None)
    models = []
    for i, item in enumerate(items):
        entry = need_object(item, provider, f"{where}[{i}]")
        name = entry.get("id")
        if not isinstance(name, str) or not name:
            raise bad_shape(provider, f"{where}[{i}].id", "a non-empty string", name,
                            missing=name in (None, ""))
        created = entry.get("created")
        owned_by = entry.get("owned_by")
        models.append(Model(
            id=name, provider=provider, raw=entry,
            created=created if isinstance(created, int) and not isinstance(created, bool)
            else 0,
            owned_by=owned_by if isinstance(owned_by, str) else ""))
    return models
