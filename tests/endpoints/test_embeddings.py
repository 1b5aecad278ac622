"""The embeddings endpoint itself (endpoints/embeddings.py), with providers of the user's own:
the provider contract (``embed`` / ``aembed`` / ``embedding_limit``), splitting by the limit a
provider gives, reassembly, the default refusal of a provider without embeddings."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Optional

import pytest

import aisuite_like as ai
from aisuite_like.core.embeddings import embedding


class Counting(ai.Provider):
    """A sync-only provider of the user's own: two inputs per request, vectors [len(text)]."""

    def __init__(self) -> None:
        self.requests: list[list[str]] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def embedding_limit(self, request: ai.EmbeddingRequest) -> Optional[int]:
        return 2

    def embed(self, request: ai.EmbeddingRequest) -> ai.CreateEmbeddingResponse:
        with self.lock:
            self.requests.append(list(request.input))
            self.threads.add(threading.current_thread().name)
        return ai.CreateEmbeddingResponse(
            data=[embedding(i, [float(len(t))]) for i, t in enumerate(request.input)],
            model=request.model, provider="mine",
            usage=ai.EmbeddingUsage(prompt_tokens=len(request.input),
                                    total_tokens=len(request.input)))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_providers_own_limit_splits_the_input(mode: str) -> None:
    provider = Counting()
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    if mode == "sync":
        resp = ai.Client(providers={"mine": provider}).embeddings.create(model="mine:m",
                                                                        input=texts)
    else:  # aembed's default runs the sync embed in a thread
        async def run() -> ai.CreateEmbeddingResponse:
            async with ai.AsyncClient(providers={"mine": provider}) as aclient:
                return await aclient.embeddings.create(model="mine:m", input=texts)
        resp = asyncio.run(run())
    assert sorted(provider.requests) == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert [d.embedding for d in resp.data] == [[1.0], [2.0], [3.0], [4.0], [5.0]]
    assert [d.index for d in resp.data] == [0, 1, 2, 3, 4]
    assert resp.usage.prompt_tokens == 5 and resp.provider == "mine" and resp.model == "m"
    assert "MainThread" not in provider.threads  # parts ran on the pool (sync) or threads


def test_a_provider_without_embed_refuses_before_anything() -> None:
    class ChatOnly(ai.Provider):
        def complete(self, request: ai.ChatRequest) -> Any:
            raise AssertionError("not called")

    client = ai.Client(providers={"chat": ChatOnly()})
    with pytest.raises(ai.UnsupportedFeatureError, match="no embeddings API") as info:
        client.embeddings.create(model="chat:m", input="hi")
    assert info.value.provider == "chat"

    async def run() -> None:
        await client.embeddings.acreate(model="chat:m", input=["a", "b"])

    with pytest.raises(ai.UnsupportedFeatureError):
        asyncio.run(run())


def test_a_reply_with_a_vector_missing_is_a_typed_error() -> None:
    class Short(Counting):
        def embed(self, request: ai.EmbeddingRequest) -> ai.CreateEmbeddingResponse:
            resp = super().embed(request)
            resp.data = resp.data[:1]
            return resp

    with pytest.raises(ai.APIResponseValidationError, match="2 inputs"):
        ai.Client(providers={"mine": Short()}).embeddings.create(model="mine:m",
                                                                input=["a", "b"])


def test_cancelling_an_async_split_call_cancels_its_parts() -> None:
    class Hanging(ai.Provider):
        def __init__(self) -> None:
            self.started = 0
            self.cancelled = 0

        def embedding_limit(self, request: ai.EmbeddingRequest) -> Optional[int]:
            return 1

        async def aembed(self, request: ai.EmbeddingRequest) -> ai.CreateEmbeddingResponse:
            self.started += 1
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            raise AssertionError("not reached")

    provider = Hanging()

    async def run() -> None:
        async with ai.AsyncClient(providers={"hang": provider}) as aclient:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(
                    aclient.embeddings.create(model="hang:m", input=["a", "b", "c"]), 0.2)

    asyncio.run(run())
    # 3 parts in flight (the default allows 8), all cancelled with the call.
    assert provider.started == provider.cancelled == 3
