"""``fallbacks=[...]``: a provider-like chain that tries the next model with the same request
when one fails with a transient error after its own retries.

``FallbackProvider`` has the ``Provider`` interface, so manual calls, streams, the tool runner
and agents use it unchanged; in the runner each model call falls back on its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    InternalServerError,
    RateLimitError,
)
from .base import ChatRequest, Provider

if TYPE_CHECKING:
    from ..core.types import SkippedModel

__all__ = ["FallbackProvider", "FALLBACK_ERRORS"]

#: Errors that move on to the next model (after the failing model's own retries). Anything
#: else (a bad request, a wrong key) is the caller's to fix and is raised at once.
FALLBACK_ERRORS = (RateLimitError, InternalServerError, APIConnectionError, APITimeoutError)


def _skipped(label: str, error: APIError) -> SkippedModel:
    from ..core.types import SkippedModel

    return SkippedModel(model=label, error_type=type(error).__name__, message=str(error),
                        status_code=getattr(error, "status_code", None))


class FallbackProvider(Provider):
    """``chain`` is ``[(provider, model name, "key:model"), ...]``, the requested model first.
    A stream falls back only before its first chunk reached the caller."""

    def __init__(self, chain: Sequence[tuple[Provider, str, str]]) -> None:
        self._chain = list(chain)
        self.key = self._chain[0][0].key

    def __repr__(self) -> str:
        return f"FallbackProvider({[label for _, _, label in self._chain]})"

    def _requests(self, request: ChatRequest) -> Iterator[tuple[Provider, ChatRequest, str, bool]]:
        last = len(self._chain) - 1
        for i, (provider, name, label) in enumerate(self._chain):
            yield provider, request if i == 0 else request.replace(model=name), label, i == last

    @staticmethod
    def _served(response: Any, skipped: list[SkippedModel]) -> Any:
        """The response, or a stream's first chunk, of the model that served, telling which
        models were skipped before it (a stream's final response reads it from there)."""
        if skipped:
            response.fallback_errors = skipped
        return response

    @staticmethod
    def _failed(error: APIError, label: str, last: bool, skipped: list[SkippedModel]) -> None:
        """A model of the chain failed with a fallback error: note it and return (try the
        next), or, for the last model, re-raise it telling what was tried before it. Called
        inside the ``except`` block, so a bare ``raise`` keeps the traceback."""
        if not last:
            skipped.append(_skipped(label, error))
            return
        if skipped:
            error.fallback_errors = skipped
        raise error

    def complete(self, request: ChatRequest) -> Any:
        skipped: list[SkippedModel] = []
        for provider, req, label, last in self._requests(request):
            try:
                response = provider.complete(req)
            except FALLBACK_ERRORS as error:
                self._failed(error, label, last, skipped)
                continue
            return self._served(response, skipped)
        raise AssertionError("unreachable")  # pragma: no cover

    async def acomplete(self, request: ChatRequest) -> Any:
        skipped: list[SkippedModel] = []
        for provider, req, label, last in self._requests(request):
            try:
                response = await provider.acomplete(req)
            except FALLBACK_ERRORS as error:
                self._failed(error, label, last, skipped)
                continue
            return self._served(response, skipped)
        raise AssertionError("unreachable")  # pragma: no cover

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        # The first model translates now, so a bad argument raises at create(stream=True).
        return self._stream(request, self._chain[0][0].stream(request))

    def _stream(self, request: ChatRequest, first: Iterator[Any]) -> Iterator[Any]:
        skipped: list[SkippedModel] = []
        for provider, req, label, last in self._requests(request):
            chunks = first if req is request else provider.stream(req)
            try:
                head = next(chunks)
            except StopIteration:
                return
            except FALLBACK_ERRORS as error:
                self._failed(error, label, last, skipped)
                continue
            yield self._served(head, skipped)
            yield from chunks
            return

    def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        return self._astream(request, self._chain[0][0].astream(request))

    async def _astream(self, request: ChatRequest, first: AsyncIterator[Any]) -> AsyncIterator[Any]:
        skipped: list[SkippedModel] = []
        for provider, req, label, last in self._requests(request):
            chunks: Any = first if req is request else provider.astream(req)
            try:
                head = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except FALLBACK_ERRORS as error:
                self._failed(error, label, last, skipped)
                continue
            try:
                yield self._served(head, skipped)
                async for chunk in chunks:
                    yield chunk
            finally:
                await chunks.aclose()
            return

    def close(self) -> None:
        """The chain's providers belong to the client, which closes them."""

    async def aclose(self) -> None:
        """The chain's providers belong to the client, which closes them."""
