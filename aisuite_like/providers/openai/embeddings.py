"""Embeddings on the OpenAI family (docs/embeddings.md): ``EmbeddingRequest`` -> keyword
arguments of the SDK's ``embeddings.create``, and an ``/embeddings`` reply's JSON ->
``CreateEmbeddingResponse``. Pure: no I/O, no SDK import. What a service accepts is its row's
``embeddings`` column (services.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ...core.cost import attach_price_ref
from ...core.embeddings import CreateEmbeddingResponse, EmbeddingUsage, embedding
from ...core.errors import UnsupportedParameterError
from .._common import bad_shape, need_list, need_object, opt_count
from ..base import EmbeddingRequest, no_embeddings
from .errors import error_from_body
from .services import ServiceSpec

__all__ = ["build_embeddings_request", "parse_embeddings", "embeddings_limit"]

# Arguments of the SDK's ``embeddings.create`` a provider-native keyword may name (the rest
# of a native keyword goes into ``extra_body``).
_SDK_OPTIONS = frozenset({"extra_headers", "extra_query"})
_OURS = frozenset({"model", "input", "dimensions", "encoding_format", "user", "timeout"})


def embeddings_limit(spec: ServiceSpec, configured: Optional[int]) -> Optional[int]:
    """Inputs per request: the configured ``max_embedding_inputs``, else the row's."""
    if spec.embeddings is None:
        raise no_embeddings(spec.key)
    return configured if configured is not None else spec.embeddings.max_inputs


def build_embeddings_request(request: EmbeddingRequest, spec: ServiceSpec, *,
                             wire_base64: bool = True) -> dict[str, Any]:
    """``request`` -> keyword arguments of ``embeddings.create``; what the service cannot
    honour raises before anything is sent. ``wire_base64``: ask a service that answers base64
    for it whatever the caller wants (a smaller reply; the endpoint decodes it), as the
    OpenAI SDK does; False sends the caller's format (a batch line's body)."""
    caps = spec.embeddings
    if caps is None:
        raise no_embeddings(spec.key)
    if request.tokens and not caps.tokens:
        raise UnsupportedParameterError(
            f"{spec.key} takes texts, not token arrays, as embeddings input; pass strings",
            parameter="input", provider=spec.key)
    if request.input_type is not None:
        raise UnsupportedParameterError(
            f"{spec.key}'s embeddings API has no input type; remove input_type (google and "
            "bedrock's Cohere Embed models take it)", parameter="input_type", provider=spec.key)
    kwargs: dict[str, Any] = {"model": request.model, "input": request.input}
    extra_body: dict[str, Any] = {}
    if request.dimensions is not None:
        field = caps.dimensions_field
        if field is None:
            raise UnsupportedParameterError(
                f"{spec.key}'s embeddings API takes no output size; remove dimensions (the "
                "vector has the model's own size)", parameter="dimensions", provider=spec.key)
        if field == "dimensions":
            kwargs["dimensions"] = request.dimensions
        else:
            extra_body[field] = request.dimensions
    base64 = caps.base64 and (wire_base64 or request.encoding_format == "base64")
    # Always explicit: the SDK asks for base64 when it is not given.
    kwargs["encoding_format"] = "base64" if base64 else "float"
    if request.user is not None:
        kwargs["user"] = request.user
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    for name, value in request.extra.items():
        if name == "extra_body":
            if not isinstance(value, Mapping):
                raise UnsupportedParameterError("extra_body must be a dict",
                                                parameter="extra_body", provider=spec.key)
            extra_body.update(value)
        elif name in _OURS:
            raise UnsupportedParameterError(
                f"{name!r} cannot be passed as a provider-native argument",
                parameter=name, provider=spec.key)
        elif name in _SDK_OPTIONS:
            kwargs[name] = value
        else:
            extra_body[name] = value
    if extra_body:
        kwargs["extra_body"] = extra_body
    return kwargs


def parse_embeddings(data: Any, provider: str, model: str) -> CreateEmbeddingResponse:
    """An ``/embeddings`` reply (``{"object": "list", "data": [...], "model", "usage"}``) ->
    ``CreateEmbeddingResponse``, each vector as sent (floats, or base64 text). A reply of
    another shape raises ``APIResponseValidationError``; an ``{"error": ...}`` reply the
    mapped error."""
    data = need_object(data, provider, "the reply")
    if data.get("error"):
        raise error_from_body(data["error"], provider, where="error object in the reply")
    items = need_list(data.get("data"), provider, "data")
    out = []
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise bad_shape(provider, f"data[{position}]", "an object", item)
        index = item.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool):
            raise bad_shape(provider, f"data[{position}].index", "an integer", index)
        vector = item.get("embedding")
        if not isinstance(vector, (list, str)):
            raise bad_shape(provider, f"data[{position}].embedding",
                            "an array of numbers or a base64 string", vector)
        out.append(embedding(index, vector))
    out.sort(key=lambda e: e.index)  # in input order, whatever order they came in
    usage = data.get("usage")
    prompt = total = 0
    if usage is not None:
        usage = need_object(usage, provider, "usage")
        prompt = opt_count(usage.get("prompt_tokens"), provider, "usage.prompt_tokens")
        total = opt_count(usage.get("total_tokens"), provider, "usage.total_tokens") or prompt
    name = data.get("model")
    response = CreateEmbeddingResponse.model_construct(
        data=out, model=name if isinstance(name, str) and name else model, provider=provider,
        usage=EmbeddingUsage.model_construct(prompt_tokens=prompt, total_tokens=total))
    if usage is not None:  # priced only from counts the provider reported
        attach_price_ref(response, model)
    return response
