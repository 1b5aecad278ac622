"""A model's ``ModelInfo`` from its sources, by trust (docs/models.md): the provider's own
model endpoint (``info(model, live=True)``), a probe profile
(``provider_configs={key: {"profile": path}}``), the snapshot shipped in the package. Pure:
the provider's entry is read by the caller (``client.models.info``) and handed in.

``provider_facts`` reads the facts a provider's model entry states (``Model.raw``, the entry
of its models list), per family; a field the entry does not state stays unknown.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Optional

from ..providers.registry import canonical_key
from .snapshot import snapshot_info
from .types import FACT_FIELDS, FieldSource, ModelInfo, Origin

__all__ = ["provider_facts", "merged_info"]

_BEDROCK_MODALITIES = {"TEXT": "text", "IMAGE": "image", "VIDEO": "video", "SPEECH": "audio",
                       "AUDIO": "audio"}
_OPENROUTER_MODALITIES = {"text": "text", "image": "image", "file": "pdf", "audio": "audio",
                          "video": "video"}


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def provider_facts(key: str, raw: Any) -> dict[str, tuple[Any, str]]:
    """The facts a provider's model entry states: ``{field: (value, the entry's field)}``.
    An entry of another shape states nothing (untrusted input: only typed values are read)."""
    if not isinstance(raw, Mapping):
        return {}
    family = canonical_key(key)
    facts: dict[str, tuple[Any, str]] = {}

    def put(name: str, value: Any, where: str) -> None:
        if value is not None:
            facts[name] = (value, where)

    if family == "google":  # Gemini API / Vertex AI model resources
        put("context_window", _int(raw.get("inputTokenLimit")), "inputTokenLimit")
        put("max_output_tokens", _int(raw.get("outputTokenLimit")), "outputTokenLimit")
        if isinstance(raw.get("thinking"), bool):
            put("reasoning", raw["thinking"], "thinking")
    elif family == "openrouter":
        put("context_window", _int(raw.get("context_length")), "context_length")
        top = raw.get("top_provider")
        if isinstance(top, Mapping):
            put("max_output_tokens", _int(top.get("max_completion_tokens")),
                "top_provider.max_completion_tokens")
        arch = raw.get("architecture")
        if isinstance(arch, Mapping):
            for name in ("input_modalities", "output_modalities"):
                found = [_OPENROUTER_MODALITIES[m] for m in _strings(arch.get(name))
                         if m in _OPENROUTER_MODALITIES]
                if found:
                    put(name, tuple(dict.fromkeys(found)), f"architecture.{name}")
        params = raw.get("supported_parameters")
        if isinstance(params, list):
            names = set(_strings(params))
            where = "supported_parameters"
            put("tools", "tools" in names, where)
            put("json_schema", "structured_outputs" in names, where)
            put("reasoning", "reasoning" in names, where)
    elif family == "vllm":
        put("context_window", _int(raw.get("max_model_len")), "max_model_len")
    elif family == "anthropic":
        put("context_window", _int(raw.get("max_input_tokens")), "max_input_tokens")
        put("max_output_tokens", _int(raw.get("max_tokens")), "max_tokens")
    elif family == "bedrock":
        for name, theirs in (("input_modalities", "inputModalities"),
                             ("output_modalities", "outputModalities")):
            found = [_BEDROCK_MODALITIES[m] for m in _strings(raw.get(theirs))
                     if m in _BEDROCK_MODALITIES]
            if found:
                put(name, tuple(dict.fromkeys(found)), theirs)
    elif family == "ollama":  # POST /api/show
        capabilities = raw.get("capabilities")
        if isinstance(capabilities, list):
            names = set(_strings(capabilities))
            put("tools", "tools" in names, "capabilities")
            put("reasoning", "thinking" in names, "capabilities")
            put("input_modalities", ("text", "image") if "vision" in names else ("text",),
                "capabilities")
        info = raw.get("model_info")
        if isinstance(info, Mapping):
            for name, value in info.items():
                if isinstance(name, str) and name.endswith(".context_length"):
                    put("context_window", _int(value), f"model_info.{name}")
                    break
    return facts


def merged_info(key: str, model: str, *, profile: Optional[Mapping[str, Any]] = None,
                profile_detail: str = "", profile_date: Optional[str] = None,
                provider: Optional[Mapping[str, tuple[Any, str]]] = None,
                today: Optional[str] = None) -> ModelInfo:
    """The snapshot's ``ModelInfo`` of ``"key:model"`` overridden by a probe profile's facts
    (``profile``: ``{field: value}``), overridden in turn by the provider's own
    (``provider``: ``provider_facts``). Each fact's source is the most trusted that states it;
    what a less trusted source said differently is kept in its ``conflicts``."""
    base = snapshot_info(key, model)
    if not profile and not provider:
        return base
    values: dict[str, Any] = {name: getattr(base, name) for name in FACT_FIELDS}
    sources = dict(base.sources)
    layers: list[tuple[Origin, Mapping[str, tuple[Any, str]], Optional[str]]] = []
    if profile:
        layers.append(("profile", {k: (v, profile_detail) for k, v in profile.items()
                                   if k in FACT_FIELDS and v is not None}, profile_date))
    if provider:
        layers.append(("provider", provider,
                       today or datetime.datetime.now(datetime.timezone.utc).date().isoformat()))
    for origin, facts, date in layers:
        for name, (value, detail) in facts.items():
            if isinstance(value, list):
                value = tuple(value)
            before = sources.get(name)
            conflicts: dict[str, Any] = {}
            if before is not None:
                conflicts = dict(before.conflicts)
                if values[name] != value:
                    conflicts[before.origin] = values[name]
            values[name] = value
            sources[name] = FieldSource(origin=origin, date=date, detail=detail,
                                        conflicts=conflicts)
    return ModelInfo(model=base.model, sources=sources, matched=base.matched, **values)
