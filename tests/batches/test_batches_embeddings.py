"""Embeddings requests in ``client.batches`` (a request with ``input`` instead of
``messages``): OpenAI's Batch API on ``/v1/embeddings``, one provider batch per endpoint,
results as ``CreateEmbeddingResponse``. Against the loopback batch server through the real
``openai`` SDK; assertions on the uploaded JSONL and the batch-create bodies."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.batch_server import BatchServer, embedding_for

import aisuite_like as ai

KEY = "sk-test-OPENAI-SECRET-1234"


@pytest.fixture
def server() -> Iterator[BatchServer]:
    with BatchServer(polls_to_finish=1) as s:
        yield s


def client_for(server: BatchServer) -> ai.Client:
    return ai.Client({"openai": {"api_key": KEY, "base_url": server.url + "/v1"},
                      "anthropic": {"api_key": "sk-ant-test-SECRET-5678",
                                    "base_url": server.url}})


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode().splitlines()]


def test_embeddings_requests_go_to_v1_embeddings(server: BatchServer) -> None:
    client = client_for(server)
    batch = client.batches.create([
        {"custom_id": "e1", "model": "openai:text-embedding-3-small", "input": ["ab", "abc"],
         "dimensions": 64},
        {"custom_id": "e2", "model": "openai:text-embedding-3-small", "input": "abcd",
         "encoding_format": "base64", "user": "u1"},
    ])
    assert [p.family for p in batch.parts] == ["openai"]
    data, _ = server.uploads[0]
    assert lines(data) == [
        {"custom_id": "e1", "method": "POST", "url": "/v1/embeddings",
         "body": {"model": "text-embedding-3-small", "input": ["ab", "abc"], "dimensions": 64,
                  "encoding_format": "float"}},
        {"custom_id": "e2", "method": "POST", "url": "/v1/embeddings",
         "body": {"model": "text-embedding-3-small", "input": ["abcd"],
                  "encoding_format": "base64", "user": "u1"}}]
    assert server.requests[1].body["endpoint"] == "/v1/embeddings"

    done = client.batches.wait(batch.id, poll_interval=0.01)
    assert done.status == "completed"
    results = dict(client.batches.results(batch.id))
    e1 = results["e1"]
    assert isinstance(e1, ai.CreateEmbeddingResponse) and e1.provider == "openai"
    assert [(d.index, d.embedding) for d in e1.data] == [
        (0, embedding_for("ab")), (1, embedding_for("abc"))]
    assert e1.usage.prompt_tokens == 2 and e1.usage.cost == pytest.approx(2 * 0.02 / 1e6)


def test_chat_and_embeddings_are_one_provider_batch_each(server: BatchServer) -> None:
    client = client_for(server)
    batch = client.batches.create([
        {"custom_id": "c1", "model": "openai:gpt-4o-mini",
         "messages": [{"role": "user", "content": "hi"}]},
        {"custom_id": "e1", "model": "openai:text-embedding-3-small", "input": "hello"},
    ])
    assert len(batch.parts) == 2
    creates = [r.body["endpoint"] for r in server.requests if r.path == "/v1/batches"]
    assert creates == ["/v1/chat/completions", "/v1/embeddings"]

    async def run() -> dict[str, Any]:
        async with ai.AsyncClient({"openai": {"api_key": KEY,
                                              "base_url": server.url + "/v1"}}) as aclient:
            await aclient.batches.wait(batch.id, poll_interval=0.01)
            return {k: v async for k, v in aclient.batches.results(batch.id)}

    results = asyncio.run(run())
    assert isinstance(results["c1"], ai.ChatCompletionResponse)
    assert isinstance(results["e1"], ai.CreateEmbeddingResponse)
    assert results["e1"].data[0].embedding == embedding_for("hello")


@pytest.mark.parametrize(("request_", "error", "match"), [
    ({"model": "openai:text-embedding-3-small", "input": "a",
      "messages": [{"role": "user", "content": "a"}]}, ai.BatchRequestError, "both"),
    ({"model": "anthropic:claude-haiku-4-5", "input": "a"}, ai.BatchRequestError,
     "client.embeddings.create"),
    ({"model": "openai:text-embedding-3-small", "input": ["x"] * 2049}, ai.BatchRequestError,
     "at most 2048"),
    ({"model": "openai:text-embedding-3-small", "input": ""}, ai.UnsupportedParameterError,
     "empty string"),
    ({"model": "openai:text-embedding-3-small", "input": "a", "input_type": "query"},
     ai.UnsupportedParameterError, "input_type"),
    ({"model": "openai:text-embedding-3-small", "input": "a", "dimension": 3}, TypeError,
     "did you mean"),
])
def test_bad_embeddings_requests_are_refused_before_anything_is_sent(
        server: BatchServer, request_: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match) as info:
        client_for(server).batches.create([{"custom_id": "x", **request_}])
    assert "requests[0] ('x')" in str(info.value)
    assert server.requests == []
