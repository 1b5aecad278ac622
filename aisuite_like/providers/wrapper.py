"""``WrapperProvider``: a provider around another one (docs/architecture.md, "The provider
stack").

Every feature that meets a provider call is a wrapper: the response cache
(``cache/provider.py``), tracing (``observability/otel.py``), fallbacks (``fallback.py``),
``<think>`` extraction (``think.py``). A wrapper overrides the methods it changes; this base
hands every other method and attribute of the ``Provider`` contract (``base.py``) to the
wrapped provider, one by one. Nothing outside the contract passes through (there is no
``__getattr__``): what code reads of a call's provider is the contract, whatever the stack
holds. ``client/prepare.py`` (``provider_stack``) stacks the wrappers in one declared order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Optional

from .base import (
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

if TYPE_CHECKING:
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.media import ImagesResponse, ModerationCreateResponse
    from ..core.responses import Response, ResponseEvent
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse, Model

__all__ = ["WrapperProvider", "unwrapped"]


class WrapperProvider(Provider):
    """``wrapped`` with nothing changed: subclasses override what they change.

    The attributes of the contract (``key``, ``offline``, ``native_responses``,
    ``max_concurrency``, ``as_given`` / ``aas_given``, ``hosted_tool_kinds``,
    ``native_parameters``) are the wrapped provider's, read once when the wrapper is made
    (the stack is made once per prepared call); a subclass may set its own after
    ``super().__init__``. ``close`` / ``aclose`` close the wrapped provider."""

    def __init__(self, wrapped: Provider) -> None:
        self.wrapped = wrapped
        self.key = wrapped.key
        self.offline = wrapped.offline
        self.native_responses = wrapped.native_responses
        self.max_concurrency = wrapped.max_concurrency
        self.as_given = wrapped.as_given
        self.aas_given = wrapped.aas_given
        self.hosted_tool_kinds = wrapped.hosted_tool_kinds
        self.native_parameters = wrapped.native_parameters

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.wrapped!r})"

    # -- chat

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return self.wrapped.complete(request)

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return await self.wrapped.acomplete(request)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        return self.wrapped.stream(request)

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        return self.wrapped.astream(request)

    # -- audio, models

    def transcribe(self, request: TranscriptionRequest) -> Any:
        return self.wrapped.transcribe(request)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        return await self.wrapped.atranscribe(request)

    def list_models(self) -> list[Model]:
        return self.wrapped.list_models()

    async def alist_models(self) -> list[Model]:
        return await self.wrapped.alist_models()

    # -- the Responses API

    def create_response(self, request: ResponsesRequest) -> Response:
        return self.wrapped.create_response(request)

    async def acreate_response(self, request: ResponsesRequest) -> Response:
        return await self.wrapped.acreate_response(request)

    def stream_response(self, request: ResponsesRequest) -> Iterator[ResponseEvent]:
        return self.wrapped.stream_response(request)

    def astream_response(self, request: ResponsesRequest) -> AsyncIterator[ResponseEvent]:
        return self.wrapped.astream_response(request)

    # -- embeddings

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        return self.wrapped.embedding_limit(request)

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return self.wrapped.embed(request)

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return await self.wrapped.aembed(request)

    # -- resources

    # -- the endpoints beside chat (docs/images.md, audio.md, moderations.md, files.md)

    def images(self, request: ImageRequest) -> ImagesResponse:
        return self.wrapped.images(request)

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        return await self.wrapped.aimages(request)

    def speech(self, request: SpeechRequest) -> Any:
        return self.wrapped.speech(request)

    async def aspeech(self, request: SpeechRequest) -> Any:
        return await self.wrapped.aspeech(request)

    def translate(self, request: TranscriptionRequest) -> Any:
        return self.wrapped.translate(request)

    async def atranslate(self, request: TranscriptionRequest) -> Any:
        return await self.wrapped.atranslate(request)

    def moderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        return self.wrapped.moderate(request)

    async def amoderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        return await self.wrapped.amoderate(request)

    def files(self, request: FileRequest) -> Any:
        return self.wrapped.files(request)

    async def afiles(self, request: FileRequest) -> Any:
        return await self.wrapped.afiles(request)

    def close(self) -> None:
        self.wrapped.close()

    async def aclose(self) -> None:
        await self.wrapped.aclose()


def unwrapped(provider: Provider) -> Provider:
    """The provider at the bottom of ``provider``'s wrappers (the one that sends): what
    names its endpoint and family (a span's ``server.address``)."""
    while isinstance(provider, WrapperProvider):
        provider = provider.wrapped
    return provider
