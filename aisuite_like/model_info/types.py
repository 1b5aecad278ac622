"""What is known about a model (``client.models.info``) and a prompt's token count
(``client.models.count_tokens``): pydantic types, docs/models.md."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Modality", "Origin", "FieldSource", "Prices", "ModelInfo", "FACT_FIELDS",
           "MODALITIES"]

Modality = Literal["text", "image", "pdf", "audio", "video"]
#: The input and output modalities a fact may name.
MODALITIES: tuple[str, ...] = ("text", "image", "pdf", "audio", "video")
#: Where a fact came from, by trust: the provider's own model endpoint (``live=True``), a
#: probe profile (``aisuite-like probe``), the data snapshot shipped in the package.
Origin = Literal["provider", "profile", "snapshot"]

#: The fields of ``ModelInfo`` that are facts (each with its source when known).
FACT_FIELDS: tuple[str, ...] = (
    "context_window", "max_output_tokens", "input_modalities", "output_modalities", "tools",
    "parallel_tool_calls", "json_schema", "reasoning", "reasoning_efforts", "prompt_cache",
    "prices")


class FieldSource(BaseModel):
    """Where one fact of a ``ModelInfo`` came from: ``origin`` (``"provider"``,
    ``"profile"`` or ``"snapshot"``), ``date`` (the snapshot's date, the profile's, or the
    day the provider was asked), ``detail`` (the provider's field, the profile's path, the
    snapshot's own source: genai-prices or a vendor's page). ``conflicts`` holds what the
    less trusted sources said when it differs (``{"snapshot": 200000}``)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    origin: Origin
    date: Optional[str] = None
    detail: str = ""
    conflicts: dict[str, Any] = Field(default_factory=dict)

    def describe(self) -> str:
        """``"snapshot 2026-12-02 (https://...)"``: what an error names as the fact's source."""
        when = f" {self.date}" if self.date else ""
        what = f" ({self.detail})" if self.detail else ""
        return f"{self.origin}{when}{what}"


class Prices(BaseModel):
    """USD per million tokens, from genai-prices (the base tier when prices are tiered:
    ``tiered`` then says the price rises with the prompt's size)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    input_per_mtok: Optional[float] = None
    output_per_mtok: Optional[float] = None
    cache_read_per_mtok: Optional[float] = None
    cache_write_per_mtok: Optional[float] = None
    tiered: bool = False


class ModelInfo(BaseModel):
    """What is known about ``model`` (``"provider:model"``). Every fact is ``None`` when
    unknown, never a guess; ``sources`` maps each known fact to its ``FieldSource``, and
    ``unknown`` lists the facts that are not known. ``matched`` is the entry of the snapshot
    the model was found under (``"claude-sonnet-4-5"`` for ``claude-sonnet-4-5-20250929``),
    or None."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    model: str
    context_window: Optional[int] = None
    max_output_tokens: Optional[int] = None
    input_modalities: Optional[tuple[Modality, ...]] = None
    output_modalities: Optional[tuple[Modality, ...]] = None
    tools: Optional[bool] = None
    parallel_tool_calls: Optional[bool] = None
    json_schema: Optional[bool] = None
    reasoning: Optional[bool] = None
    reasoning_efforts: Optional[tuple[str, ...]] = None
    prompt_cache: Optional[bool] = None
    prices: Optional[Prices] = None
    sources: dict[str, FieldSource] = Field(default_factory=dict)
    matched: Optional[str] = None

    @property
    def unknown(self) -> list[str]:
        """The facts nobody knows for this model (their value is None)."""
        return [name for name in FACT_FIELDS if getattr(self, name) is None]

    def source_of(self, name: str) -> str:
        """The description of where fact ``name`` came from (``"unknown"`` when it is)."""
        source = self.sources.get(name)
        return source.describe() if source is not None else "unknown"
