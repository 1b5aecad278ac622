"""``WrapperProvider`` (providers/wrapper.py): the base of every wrapper in the provider stack
hands each method and attribute of the ``Provider`` contract to the wrapped provider, one by
one, and nothing else (no ``__getattr__``)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

import aisuite_like as ai
from aisuite_like.cache.provider import CachedProvider
from aisuite_like.observability.otel import _TracedProvider
from aisuite_like.providers.base import (
    ChatRequest,
    EmbeddingRequest,
    FileRequest,
    ImageRequest,
    ModerationRequest,
    Provider,
    ResponsesRequest,
    SpeechRequest,
    TranscriptionRequest,
)
from aisuite_like.providers.fallback import FallbackProvider
from aisuite_like.providers.think import ThinkTagsProvider
from aisuite_like.providers.wrapper import WrapperProvider, unwrapped
from aisuite_like.testing import ScriptedProvider, block_real_requests

USER = [{"role": "user", "content": "Hi"}]

#: Each method of the contract and a request it takes (None: no argument).
_REQUESTS: dict[str, Any] = {
    "complete": ChatRequest(model="m", messages=USER),
    "stream": ChatRequest(model="m", messages=USER, stream=True),
    "transcribe": TranscriptionRequest("m", b"RIFF"),
    "list_models": None,
    "create_response": ResponsesRequest(model="m", params={"input": "Hi"}),
    "stream_response": ResponsesRequest(model="m", params={"input": "Hi"}, stream=True),
    "embedding_limit": EmbeddingRequest(model="m", input=["a"]),
    "embed": EmbeddingRequest(model="m", input=["a"]),
    "images": ImageRequest("generate", "m", "a fox"),
    "speech": SpeechRequest("m", "hi", "alloy"),
    "translate": TranscriptionRequest("m", b"RIFF"),
    "moderate": ModerationRequest("m", "hi"),
    "files": FileRequest("list"),
    "count_tokens": ChatRequest(model="m", messages=USER),
    "model_metadata": "m",
    "close": None,
}
_ASYNC = {"acomplete": "complete", "astream": "stream", "atranscribe": "transcribe",
          "alist_models": "list_models", "acreate_response": "create_response",
          "astream_response": "stream_response", "aembed": "embed", "aimages": "images",
          "aspeech": "speech", "atranslate": "translate", "amoderate": "moderate",
          "afiles": "files", "acount_tokens": "count_tokens",
          "amodel_metadata": "model_metadata", "aclose": "close"}


def _contract_methods() -> set[str]:
    return {name for name, value in vars(Provider).items()
            if callable(value) and not name.startswith("_")}


class _Recording(Provider):
    """Answers every method of the contract with what it was called with."""

    key = "mine"
    offline = True
    native_responses = True
    max_concurrency = 3

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def _answer(self, name: str, *request: Any) -> Any:
        self.calls.append((name, request[0] if request else None))
        return (name, request[0] if request else None)


def _recorder(name: str, is_async: bool, is_stream: bool) -> Any:
    if is_async and is_stream:
        async def astream(self: _Recording, request: Any) -> Any:
            yield self._answer(name, request)
        return astream
    if is_async:
        async def acall(self: _Recording, *request: Any) -> Any:
            return self._answer(name, *request)
        return acall

    def call(self: _Recording, *request: Any) -> Any:
        return self._answer(name, *request)
    return call


for _name in [*_REQUESTS, *_ASYNC]:
    setattr(_Recording, _name, _recorder(
        _name, _name in _ASYNC, _name in ("astream", "astream_response")))


def test_the_contract_lists_every_method_it_delegates() -> None:
    # the two tables above cover the contract: a new method of Provider fails here first
    assert _contract_methods() == {*_REQUESTS, *_ASYNC}


def test_every_method_of_the_contract_is_delegated_explicitly() -> None:
    assert _contract_methods() <= set(vars(WrapperProvider))
    assert "__getattr__" not in vars(WrapperProvider)


@pytest.mark.parametrize("name", sorted({*_REQUESTS, *_ASYNC}))
def test_each_method_reaches_the_wrapped_provider(name: str) -> None:
    inner = _Recording()
    wrapper = WrapperProvider(inner)
    request = _REQUESTS[_ASYNC.get(name, name)]
    args = () if request is None else (request,)
    result = getattr(wrapper, name)(*args)
    if name in ("astream", "astream_response"):
        async def first() -> Any:
            return await result.__anext__()
        result = asyncio.run(first())
    elif inspect.iscoroutine(result):
        result = asyncio.run(result)
    if name not in ("close", "aclose"):  # they return None
        assert result == (name, request)
    assert inner.calls == [(name, request)]


def test_the_contract_attributes_are_the_wrapped_providers() -> None:
    inner = _Recording()
    wrapper = WrapperProvider(WrapperProvider(inner))
    assert (wrapper.key, wrapper.offline, wrapper.native_responses,
            wrapper.max_concurrency) == ("mine", True, True, 3)
    assert wrapper.as_given is None and wrapper.aas_given is None
    assert unwrapped(wrapper) is inner
    assert repr(wrapper) == f"WrapperProvider(WrapperProvider({inner!r}))"


def test_nothing_outside_the_contract_passes_through() -> None:
    inner = _Recording()
    inner.endpoint = "http://127.0.0.1:1"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        WrapperProvider(inner).endpoint  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize("wrapper", [CachedProvider, _TracedProvider, FallbackProvider,
                                     ThinkTagsProvider])
def test_every_wrapper_is_a_WrapperProvider_without_getattr(wrapper: type) -> None:
    assert issubclass(wrapper, WrapperProvider)
    assert not any("__getattr__" in vars(cls) for cls in wrapper.__mro__)


class _OldSpelling(ScriptedProvider):
    _offline = True


class _Real(Provider):
    def complete(self, request: ChatRequest) -> Any:
        raise AssertionError("not reached: refused before")


class _SaysOffline(Provider):
    offline = True

    def complete(self, request: ChatRequest) -> Any:
        return ScriptedProvider(["from my own offline provider"]).complete(request)


def test_offline_is_part_of_the_contract_and_the_old_spelling_still_counts() -> None:
    assert ScriptedProvider(["x"]).offline is True
    assert _OldSpelling(["x"]).offline is True and _Real().offline is False
    client = ai.Client(providers={"mine": _SaysOffline(), "real": _Real()},
                       extract_thinking=True, cache=ai.cache.MemoryCache())
    with block_real_requests():
        reply = client.chat.completions.create(model="mine:m", messages=USER)
        assert reply.choices[0].message.content == "from my own offline provider"
        with pytest.raises(ai.testing.RealRequestBlockedError):
            client.chat.completions.create(model="real:m", messages=USER)


class _DuckTyped:
    """A provider object that has the contract's ``complete`` without subclassing it."""

    offline = True

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: ChatRequest) -> Any:
        self.calls += 1
        return ScriptedProvider(["<think>hmm</think>duck"]).complete(request)


def test_a_duck_typed_provider_goes_through_every_layer() -> None:
    duck = _DuckTyped()
    client = ai.Client(providers={"duck": duck}, extract_thinking=True,
                       cache=ai.cache.MemoryCache())
    with block_real_requests():  # its own ``offline`` is read
        first = client.chat.completions.create(model="duck:m", messages=USER)
        again = client.chat.completions.create(model="duck:m", messages=USER)
    for reply in (first, again):
        assert reply.choices[0].message.content == "duck"
        assert reply.choices[0].message.reasoning_content == "hmm"
    assert duck.calls == 1 and again.cache_hit is True
    with pytest.raises(ai.UnsupportedFeatureError, match="has no embeddings API"):
        client.embeddings.create(model="duck:m", input="x")
