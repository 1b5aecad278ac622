"""Bedrock's models list, pure (no I/O, importable without botocore): the
``ListFoundationModels`` reply of the control plane (botocore's ``bedrock`` client) ->
``Model`` objects (docs/models.md)."""

from __future__ import annotations

from typing import Any

from ...core.types import Model
from .._common import bad_shape, need_object, opt_list

__all__ = ["parse_foundation_models"]


def parse_foundation_models(data: Any, provider: str) -> list[Model]:
    """``{"modelSummaries": [{"modelId", "providerName", "modelName", ...}]}`` (as botocore
    parses it) -> models with Bedrock's model ids; ``owned_by`` is the model's maker
    (``providerName``). Bedrock reports no creation date (``created`` is 0)."""
    data = need_object(data, provider, "the reply")
    models = []
    for i, item in enumerate(opt_list(data.get("modelSummaries"), provider,
                                      "modelSummaries") or ()):
        entry = need_object(item, provider, f"modelSummaries[{i}]")
        name = entry.get("modelId")
        if not isinstance(name, str) or not name:
            raise bad_shape(provider, f"modelSummaries[{i}].modelId", "a non-empty string",
                            name, missing=name in (None, ""))
        maker = entry.get("providerName")
        models.append(Model(id=name, owned_by=maker if isinstance(maker, str) else "",
                            provider=provider, raw=entry))
    return models
