"""Embeddings on Amazon Bedrock (docs/embeddings.md) through ``InvokeModel``: the request body
of Titan Text Embeddings (one text per request; v2 with 256 / 512 / 1024 dimensions and
``normalize``) and of Cohere Embed (up to 96 texts, ``input_type`` ``search_query`` /
``search_document``), and their replies -> ``CreateEmbeddingResponse``. Pure: no I/O, no SDK
import. Token counts come from the ``X-Amzn-Bedrock-Input-Token-Count`` reply header (Titan's
body carries ``inputTextTokenCount`` too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ...core.cost import attach_price_ref
from ...core.embeddings import CreateEmbeddingResponse, EmbeddingUsage, embedding
from ...core.errors import UnsupportedFeatureError, UnsupportedParameterError
from .._common import bad_shape, need_list, need_object, unsupported
from ..base import EmbeddingRequest

__all__ = ["embedding_kind", "embeddings_limit", "build_invoke_body", "parse_invoke_reply",
           "TITAN_DIMENSIONS", "COHERE_INPUT_TYPES"]

#: Output sizes Titan Text Embeddings v2 makes.
TITAN_DIMENSIONS = (256, 512, 1024)
#: ``input_type`` -> Cohere Embed's; Cohere requires one, ``search_document`` when not given.
COHERE_INPUT_TYPES = {"query": "search_query", "document": "search_document"}
_MAX_INPUTS = {"titan-v1": 1, "titan-v2": 1, "cohere": 96}
_TOKEN_HEADER = "x-amzn-bedrock-input-token-count"


def embedding_kind(model: str, provider: str) -> str:
    """Which body ``model`` takes: ``"titan-v2"``, ``"titan-v1"`` or ``"cohere"`` (a model id,
    an inference profile such as ``us.cohere.embed-v4:0``, or an ARN ending in one)."""
    model_id = model.rsplit("/", 1)[-1].lower()
    if "titan-embed-text-v1" in model_id or "titan-embed-g1-text" in model_id:
        return "titan-v1"
    if "titan-embed-text" in model_id:
        return "titan-v2"
    if "cohere.embed" in model_id:
        return "cohere"
    raise UnsupportedFeatureError(
        f"{provider} embeddings support Titan Text Embeddings (amazon.titan-embed-text-v2:0, "
        f"amazon.titan-embed-text-v1) and Cohere Embed (cohere.embed-*); {model!r} is neither",
        feature="embeddings", provider=provider)


def embeddings_limit(model: str, provider: str) -> int:
    """Inputs one ``InvokeModel`` request may carry for ``model``."""
    return _MAX_INPUTS[embedding_kind(model, provider)]


def build_invoke_body(request: EmbeddingRequest, provider: str) -> dict[str, Any]:
    """``request`` -> the ``InvokeModel`` JSON body for its model. Provider-native keyword
    arguments are body fields (``normalize``, ``truncate``, ...)."""
    kind = embedding_kind(request.model, provider)
    if request.tokens:
        raise unsupported(provider, "input", "Bedrock's embedding models take texts, not token "
                          "arrays; pass strings")
    if request.user is not None:
        raise unsupported(provider, "user", "InvokeModel has no end-user field")
    body: dict[str, Any]
    portable: set[str] = set()
    if kind == "cohere":
        body = {"texts": list(request.input),
                "input_type": COHERE_INPUT_TYPES[request.input_type or "document"],
                "embedding_types": ["float"]}
        if request.input_type is not None:
            portable.add("input_type")
        if request.dimensions is not None:
            if "-v3" in request.model.lower():
                raise unsupported(provider, "dimensions", "Cohere Embed v3 makes vectors of "
                                  "the model's own size; Cohere Embed v4 takes dimensions")
            body["output_dimension"] = request.dimensions
            portable.add("output_dimension")
    else:
        if len(request.input) != 1:
            raise UnsupportedParameterError(
                f"Titan Text Embeddings embed one text per request, got {len(request.input)}; "
                "client.embeddings.create splits a list for you", parameter="input",
                provider=provider)
        if request.input_type is not None:
            raise unsupported(provider, "input_type", "Titan Text Embeddings take no input "
                              "type; Cohere Embed models (cohere.embed-*) do")
        body = {"inputText": request.input[0]}
        if kind == "titan-v2":
            if request.dimensions is not None:
                if request.dimensions not in TITAN_DIMENSIONS:
                    raise UnsupportedParameterError(
                        f"Titan Text Embeddings v2 makes 256, 512 or 1024 dimensions, not "
                        f"{request.dimensions}", parameter="dimensions", provider=provider)
                body["dimensions"] = request.dimensions
                portable.add("dimensions")
            body["normalize"] = True  # unit vectors, as OpenAI's (normalize=False to change)
        elif request.dimensions is not None:
            raise unsupported(provider, "dimensions", "Titan Text Embeddings v1 makes 1536 "
                              "dimensions only; v2 takes 256, 512 or 1024")
    for name, value in request.extra.items():
        if name in ("texts", "inputText") or name in portable:
            raise UnsupportedParameterError(
                f"{name!r} is set from the portable arguments; pass it only once",
                parameter=name, provider=provider)
        body[name] = value
    return body


def _count(headers: Mapping[str, Any], data: Mapping[str, Any]) -> Optional[int]:
    raw = headers.get(_TOKEN_HEADER)
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw)
    tokens = data.get("inputTextTokenCount")
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        return tokens
    return None


def parse_invoke_reply(data: Any, headers: Mapping[str, Any], request: EmbeddingRequest,
                       provider: str) -> CreateEmbeddingResponse:
    """An ``InvokeModel`` reply's JSON (and its headers, lower-case names) ->
    ``CreateEmbeddingResponse``."""
    data = need_object(data, provider, "the reply")
    kind = embedding_kind(request.model, provider)
    if kind == "cohere":
        raw = data.get("embeddings")
        if isinstance(raw, dict):  # embedding_types given: {"float": [[...], ...]}
            raw = raw.get("float")
        vectors = need_list(raw, provider, "embeddings")
    else:
        vector = data.get("embedding")
        if vector is None and isinstance(data.get("embeddingsByType"), dict):
            vector = data["embeddingsByType"].get("float")
        vectors = [vector]
    out = []
    for index, vector in enumerate(vectors):
        if not isinstance(vector, list):
            raise bad_shape(provider, "embeddings" if kind == "cohere" else "embedding",
                            "an array of numbers", vector)
        out.append(embedding(index, vector))
    tokens = _count(headers, data)
    result = CreateEmbeddingResponse.model_construct(
        data=out, model=request.model, provider=provider,
        usage=EmbeddingUsage.model_construct(prompt_tokens=tokens or 0,
                                             total_tokens=tokens or 0))
    if tokens is not None:  # priced only from counts the provider reported
        attach_price_ref(result, request.model)
    return result
