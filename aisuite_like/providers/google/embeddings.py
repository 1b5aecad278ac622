"""Embeddings on the google family (docs/embeddings.md): ``EmbeddingRequest`` -> the contents
and config of google-genai's ``models.embed_content``, and its ``EmbedContentResponse`` ->
``CreateEmbeddingResponse``. Pure: no I/O, no SDK import (the reply is read by attribute).

google-genai sends the Gemini API's ``batchEmbedContents`` (one request per input) and, on
Vertex AI, ``predict`` or ``embedContent`` / ``batchEmbedContents`` by model; the limits below
are those APIs' inputs per call.
"""

from __future__ import annotations

from typing import Any, Optional

from ...core.cost import attach_price_ref
from ...core.embeddings import CreateEmbeddingResponse, EmbeddingUsage, embedding
from ...core.errors import UnsupportedParameterError
from .._common import bad_shape, unsupported
from ..base import EmbeddingRequest

__all__ = ["TASK_TYPES", "embeddings_limit", "build_embed_call", "parse_embeddings",
           "native_embed_body", "WIRE_FIELDS"]

#: ``input_type`` -> Gemini's ``task_type``.
TASK_TYPES = {"query": "RETRIEVAL_QUERY", "document": "RETRIEVAL_DOCUMENT"}

#: Gemini API ``batchEmbedContents``: at most 100 requests in one batch.
GEMINI_API_MAX_INPUTS = 100
#: Vertex AI ``predict`` (text-embedding-005, text-multilingual-embedding-002, ...): 250
#: instances per request.
VERTEX_PREDICT_MAX_INPUTS = 250


def embeddings_limit(model: str, vertex: bool) -> int:
    """Inputs one ``embed_content`` call may carry for ``model``."""
    if not vertex:
        return GEMINI_API_MAX_INPUTS
    model_id = model.rsplit("/", 1)[-1]
    if "maas" in model_id:  # google-genai: one content at a time
        return 1
    if "gemini" in model_id:  # embedContent / batchEmbedContents, as on the Gemini API
        return GEMINI_API_MAX_INPUTS
    return VERTEX_PREDICT_MAX_INPUTS


def build_embed_call(request: EmbeddingRequest, provider: str
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``request`` -> (``contents``: one Content per input, so each gets its own vector on
    every model; the ``config`` fields of ``EmbedContentConfig``). Provider-native keyword
    arguments are config fields (``title``, ``auto_truncate``, ``task_type``, ...)."""
    if request.tokens:
        raise unsupported(provider, "input", "Gemini embeds texts, not token arrays; pass "
                          "strings")
    if request.user is not None:
        raise unsupported(provider, "user", "Gemini's embeddings API has no end-user field")
    config: dict[str, Any] = {}
    if request.input_type is not None:
        config["task_type"] = TASK_TYPES[request.input_type]
    if request.dimensions is not None:
        config["output_dimensionality"] = request.dimensions
    for name, value in request.extra.items():
        if name in ("model", "contents", "config"):
            raise UnsupportedParameterError(
                f"{name!r} cannot be passed as a provider-native argument",
                parameter=name, provider=provider)
        if name in config:
            portable = "input_type" if name == "task_type" else "dimensions"
            raise UnsupportedParameterError(
                f"{name!r} sets what {portable} already set; pass only one of them",
                parameter=name, provider=provider)
        config[name] = value
    contents = [{"parts": [{"text": text}]} for text in request.input]
    return contents, config


def _count(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


#: The ``EmbedContentConfig`` fields the Gemini API's ``batchEmbedContents`` takes, and
#: their names on the wire (google-genai's ``_EmbedContentConfig_to_mldev``).
WIRE_FIELDS = {"task_type": "taskType", "title": "title",
               "output_dimensionality": "outputDimensionality"}


def native_embed_body(model_resource: str, contents: list[dict[str, Any]],
                      config: dict[str, Any], provider: str) -> dict[str, Any]:
    """The ``batchEmbedContents`` body google-genai sends for ``contents`` and ``config``
    (``http_options`` left to the caller); a config field the Gemini API does not take is
    refused before anything is sent."""
    fields: dict[str, Any] = {}
    for name, value in config.items():
        if name == "http_options" or value is None:
            continue
        wire = WIRE_FIELDS.get(name) or (name if name in WIRE_FIELDS.values() else None)
        if wire is None:
            raise UnsupportedParameterError(
                f"{name!r} is not an embeddings setting of the Gemini API (it takes "
                f"{', '.join(WIRE_FIELDS)} and http_options)", parameter=name,
                provider=provider)
        fields[wire] = value
    return {"requests": [{"content": content, **fields, "model": model_resource}
                         for content in contents]}


def _field(obj: Any, name: str, wire: str) -> Any:
    """``name`` of a google-genai object, or ``wire`` of the reply's JSON (native)."""
    if isinstance(obj, dict):
        return obj.get(wire, obj.get(name))
    return getattr(obj, name, None)


def parse_embeddings(response: Any, provider: str, model: str) -> CreateEmbeddingResponse:
    """google-genai's ``EmbedContentResponse`` (or the reply's JSON, on the native transport)
    -> ``CreateEmbeddingResponse``. Token counts
    come from ``usage_metadata.prompt_token_count`` or the vectors' ``statistics.token_count``
    (Vertex AI); without either the usage is 0 and unpriced."""
    vectors = _field(response, "embeddings", "embeddings")
    if not isinstance(vectors, list):
        raise bad_shape(provider, "embeddings", "an array", vectors)
    out = []
    counted: Optional[int] = None
    for index, item in enumerate(vectors):
        values = _field(item, "values", "values")
        if not isinstance(values, list):
            raise bad_shape(provider, f"embeddings[{index}].values", "an array of numbers",
                            values)
        out.append(embedding(index, values))
        tokens = _count(_field(_field(item, "statistics", "statistics"), "token_count",
                               "tokenCount"))
        if tokens is not None:
            counted = (counted or 0) + tokens
    prompt = _count(_field(_field(response, "usage_metadata", "usageMetadata"),
                           "prompt_token_count", "promptTokenCount"))
    if prompt is not None:
        counted = prompt
    result = CreateEmbeddingResponse.model_construct(
        data=out, model=model, provider=provider,
        usage=EmbeddingUsage.model_construct(prompt_tokens=counted or 0,
                                             total_tokens=counted or 0))
    if counted is not None:  # priced only from counts the provider reported
        attach_price_ref(result, model)
    return result
