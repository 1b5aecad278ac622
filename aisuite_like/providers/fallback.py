"""``fallbacks=[...]``: a chain that tries the next model with the same request when one
fails with a transient error after its own retries.

``FallbackProvider`` wraps the requested model's provider (a ``WrapperProvider`` in the
client's provider stack, docs/architecture.md), so manual calls, streams, the tool runner and
agents use it unchanged; in the runner each model call falls back on its own. Chat calls
fall back; everything else of the contract is the requested model's provider's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    BudgetExceededError,
    InternalServerError,
    ModelCapabilityError,
    PromptTooLongError,
    RateLimitError,
)
from .base import ChatRequest, Provider
from .wrapper import WrapperProvider

if TYPE_CHECKING:
    from ..core.types import SkippedModel

__all__ = ["FallbackProvider", "FALLBACK_ERRORS", "skipped_model"]

#: Errors that move on to the next model (after the failing model's own retries). Anything
#: else (a bad request, a wrong key) is the caller's to fix and is raised at once.
FALLBACK_ERRORS = (RateLimitError, InternalServerError, APIConnectionError, APITimeoutError)
#: What moves a fallback chain on: those, and a refusal of a model before anything was sent
#: (a budget's: a cheaper model may fit, docs/budgets.md; what is known of the model: another
#: may serve the request, docs/models.md).
_MOVES_ON = (*FALLBACK_ERRORS, BudgetExceededError, ModelCapabilityError, PromptTooLongError)


def _name_fallback(error: AisuiteLikeError, label: str, skipped: list[SkippedModel]) -> None:
    """An error a fallback model raised (its provider could not be made, e.g. no key; or
    its call failed) says which fallback it was and what failed before it; ``fallback_errors``
    lists the models skipped."""
    tried = ", ".join(f"{s.model!r} failed ({s.error_type})" for s in skipped)
    prefix = f"fallback model {label!r}, tried after {tried}: "
    text = str(error)
    if not text.startswith(prefix):
        error.args = (prefix + text, *error.args[1:])
        if isinstance(error, APIError):
            error.message = prefix + text
    error.fallback_errors = list(skipped)  # type: ignore[attr-defined]


def skipped_model(label: str, error: AisuiteLikeError) -> SkippedModel:
    """What ``fallback_errors`` says of a model (or a router's deployment) that failed with
    ``error`` before another one served the call."""
    from ..core.types import SkippedModel

    return SkippedModel(model=label, error_type=type(error).__name__, message=str(error),
                        status_code=getattr(error, "status_code", None))


class FallbackProvider(WrapperProvider):
    """``first`` serves ``label`` (``"key:model"``), the requested model; ``fallbacks`` are
    ``[(resolve, model name, "key:model"), ...]``, in order: ``resolve()`` gives a model's
    provider and is called only when the call reaches that model, so a fallback's provider
    (and its key) is resolved only if it is tried. A stream falls back only before its first
    chunk reached the caller. A manual call of an aisuite provider is not its reply as given
    (``as_given``): the chain reads every reply as a ``ChatCompletionResponse``."""

    def __init__(self, first: Provider, name: str, label: str,
                 fallbacks: Sequence[tuple[Callable[[], Provider], str, str]]) -> None:
        super().__init__(first)
        self._chain = [(lambda: first, name, label), *fallbacks]
        self.as_given = self.aas_given = None

    def __repr__(self) -> str:
        return f"FallbackProvider({[label for _, _, label in self._chain]})"

    def _requests(self, request: ChatRequest) -> Iterator[tuple[int, Callable[[], Provider],
                                                                ChatRequest, str]]:
        for i, (resolve, name, label) in enumerate(self._chain):
            yield i, resolve, request if i == 0 else request.replace(model=name), label

    @staticmethod
    def _served(response: Any, skipped: list[SkippedModel]) -> Any:
        """The response, or a stream's first chunk, of the model that served, telling which
        models were skipped before it (a stream's final response reads it from there)."""
        if skipped:
            response.fallback_errors = skipped
        return response

    @contextmanager
    def _trying(self, index: int, label: str, skipped: list[SkippedModel]) -> Iterator[None]:
        """Around one model's attempt (resolving its provider included): a fallback error of
        a model with a next one is noted in ``skipped`` and swallowed (the caller's loop tries
        the next); any other error is raised, naming the fallback model it came from."""
        try:
            yield
        except AisuiteLikeError as error:
            if isinstance(error, _MOVES_ON) and index < len(self._chain) - 1:
                skipped.append(skipped_model(label, error))
                return
            if index:
                _name_fallback(error, label, skipped)
            raise

    def complete(self, request: ChatRequest) -> Any:
        skipped: list[SkippedModel] = []
        for i, resolve, req, label in self._requests(request):
            with self._trying(i, label, skipped):
                return self._served(resolve().complete(req), skipped)
        raise AssertionError("unreachable")  # pragma: no cover

    async def acomplete(self, request: ChatRequest) -> Any:
        skipped: list[SkippedModel] = []
        for i, resolve, req, label in self._requests(request):
            with self._trying(i, label, skipped):
                return self._served(await resolve().acomplete(req), skipped)
        raise AssertionError("unreachable")  # pragma: no cover

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        # The first model translates now, so a bad argument raises at create(stream=True).
        return self._stream(request, self.wrapped.stream(request))

    def _stream(self, request: ChatRequest, first: Iterator[Any]) -> Iterator[Any]:
        skipped: list[SkippedModel] = []
        chunks: Iterator[Any] = first
        for i, resolve, req, label in self._requests(request):
            with self._trying(i, label, skipped):
                chunks = first if i == 0 else resolve().stream(req)
                try:
                    head = next(chunks)
                except StopIteration:
                    return
                break
        else:  # pragma: no cover
            raise AssertionError("unreachable")
        yield self._served(head, skipped)
        yield from chunks

    def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        return self._astream(request, self.wrapped.astream(request))

    async def _astream(self, request: ChatRequest, first: AsyncIterator[Any]) -> AsyncIterator[Any]:
        skipped: list[SkippedModel] = []
        chunks: Any = None
        for i, resolve, req, label in self._requests(request):
            with self._trying(i, label, skipped):
                chunks = first if i == 0 else resolve().astream(req)
                try:
                    head = await chunks.__anext__()
                except StopAsyncIteration:
                    return
                break
        else:  # pragma: no cover
            raise AssertionError("unreachable")
        try:
            yield self._served(head, skipped)
            async for chunk in chunks:
                yield chunk
        finally:
            await chunks.aclose()

    def close(self) -> None:
        """The chain's providers belong to the client, which closes them."""

    async def aclose(self) -> None:
        """The chain's providers belong to the client, which closes them."""
