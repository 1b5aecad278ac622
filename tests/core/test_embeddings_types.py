"""The embeddings types and OpenAI's base64 vectors (core/embeddings.py)."""

from __future__ import annotations

import base64
import struct

import pytest

import aisuite_like as ai
from aisuite_like.core.cost import attach_price_ref
from aisuite_like.core.embeddings import base64_to_floats, floats_to_base64, in_format


def test_base64_is_little_endian_float32() -> None:
    text = floats_to_base64([1.0, -0.5, 0.25])
    assert base64.b64decode(text) == struct.pack("<3f", 1.0, -0.5, 0.25)
    assert base64_to_floats(text) == [1.0, -0.5, 0.25]
    assert in_format(text, "float") == [1.0, -0.5, 0.25]
    assert in_format([1.0], "base64") == floats_to_base64([1.0])
    assert in_format(text, "base64") is text


@pytest.mark.parametrize("text", ["not base64!", base64.b64encode(b"abc").decode()])
def test_bad_base64_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        base64_to_floats(text)


def test_the_response_has_openais_shape() -> None:
    resp = ai.CreateEmbeddingResponse(data=[ai.Embedding(index=0, embedding=[0.5])],
                                      model="m", provider="p")
    assert resp.model_dump() == {
        "object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}],
        "model": "m", "usage": {"prompt_tokens": 0, "total_tokens": 0}, "provider": "p"}
    other = ai.CreateEmbeddingResponse(data=[])
    assert other.usage is not resp.usage  # each response its own usage


def _priced(tokens: int) -> ai.EmbeddingUsage:
    resp = ai.CreateEmbeddingResponse(
        data=[], model="text-embedding-3-small", provider="openai",
        usage=ai.EmbeddingUsage(prompt_tokens=tokens, total_tokens=tokens))
    attach_price_ref(resp, "text-embedding-3-small")
    return resp.usage


def test_a_summed_usage_costs_the_sum_of_its_parts() -> None:
    total = _priced(1000) + _priced(3000)
    assert total.prompt_tokens == total.total_tokens == 4000
    assert total.cost == pytest.approx(4000 * 0.02 / 1e6)
    # A part without a reported count has no price: the sum has none either.
    assert (_priced(1000) + ai.EmbeddingUsage(prompt_tokens=0)).cost is None
