"""The offline ``test`` model answers ``embeddings.create`` deterministically (no network, no
key): a unit vector per input seeded by SHA-256 of the model and the input."""

from __future__ import annotations

import asyncio
import base64
import math
import struct

import pytest

import aisuite_like as ai
from aisuite_like.testing import block_real_requests


def test_vectors_are_deterministic_unit_vectors() -> None:
    client = ai.Client()
    with block_real_requests():
        first = client.embeddings.create(model="test:embed", input=["cat", "dog", "cat"])
        again = client.embeddings.create(model="test:embed", input="cat")
    vectors = [d.embedding for d in first.data]
    assert [len(v) for v in vectors] == [8, 8, 8]
    assert vectors[0] == vectors[2] == again.data[0].embedding
    assert vectors[0] != vectors[1]
    assert all(math.isclose(math.fsum(x * x for x in v), 1.0) for v in vectors)
    assert first.provider == "test" and first.model == "embed"
    # ~4 characters a token, as for chat: "cat", "dog", "cat" are one token each.
    assert first.usage.prompt_tokens == first.usage.total_tokens == 3
    assert first.usage.cost is None


def test_the_vectors_are_pinned() -> None:
    """The same on every machine and Python (docs show them)."""
    resp = ai.Client().embeddings.create(model="test:embed", input="hello", dimensions=3)
    assert [round(x, 6) for x in resp.data[0].embedding] == [0.750863, -0.504733, -0.425968]


def test_dimensions_base64_and_the_model_name() -> None:
    client = ai.Client()
    resp = client.embeddings.create(model="test:embed", input="hello", dimensions=32,
                                    encoding_format="base64")
    raw = base64.b64decode(resp.data[0].embedding)
    values = struct.unpack("<32f", raw)
    floats = client.embeddings.create(model="test:embed", input="hello", dimensions=32)
    assert values == pytest.approx(floats.data[0].embedding, rel=1e-6)
    other = client.embeddings.create(model="test:other", input="hello", dimensions=32)
    assert other.data[0].embedding != floats.data[0].embedding


def test_token_arrays_and_async() -> None:
    async def run() -> ai.CreateEmbeddingResponse:
        async with ai.AsyncClient() as aclient:
            return await aclient.embeddings.create(model="test:embed", input=[[1, 2, 3], [4]])

    resp = asyncio.run(run())
    assert [d.index for d in resp.data] == [0, 1]
    assert resp.usage.prompt_tokens == 4
    sync = ai.Client().embeddings.create(model="test:embed", input=[[1, 2, 3], [4]])
    assert [d.embedding for d in sync.data] == [d.embedding for d in resp.data]
