"""Stream / AsyncStream of ``ChatCompletionChunk``, and the sans-IO chunk accumulator.

A stream wraps a chunk iterator (a provider's generator, or the runner's) and accumulates what
passes through, so ``get_final_response()`` can return the complete ``ChatCompletionResponse``.
The accumulator only appends strings and looks up tool calls by index: no validation per chunk.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Generic, Optional

# A TypeVar with a default (PEP 696): a plain `Stream` means `Stream[ChatCompletionChunk]`.
from typing_extensions import TypeVar

from .content import text_of
from .cost import attach_price_ref
from .ids import CallIdAssigner, _chunk_with_ids, follow_renamed_ids
from .types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Choice,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChoiceLogprobs,
    ChunkChoice,
    Function,
    Message,
    ToolCall,
    Usage,
    cache_outcome,
    mark_cache_outcome,
)

__all__ = ["Stream", "AsyncStream", "ChunkAccumulator", "response_chunks"]

# What a stream yields. Only ChatCompletionChunk (or a subclass) today, the default.
_ChunkT = TypeVar("_ChunkT", bound=ChatCompletionChunk, default=ChatCompletionChunk)
_C = TypeVar("_C", bound=ChatCompletionChunk)


def _add_logprobs(state: dict[str, Any], logprobs: ChoiceLogprobs) -> None:
    """A chunk's token log probabilities appended to its choice's (content, refusal)."""
    seen = state["logprobs"]
    if seen is None:
        seen = state["logprobs"] = {"content": None, "refusal": None}
    for name in ("content", "refusal"):
        tokens = getattr(logprobs, name)
        if tokens is not None:
            seen[name] = [*(seen[name] or ()), *tokens]

class ChunkAccumulator:
    """Folds chunks of ONE model reply into a response (choice 0 and any others by index).

    ``add`` also gives every tool call a unique id (``ids.py``; ``prior`` is the
    conversation the request sent) and returns the chunk to pass on: the same one, or a copy
    carrying the corrected id, so what the caller sees pairs with the final response."""

    __slots__ = ("id", "created", "model", "provider", "usage", "fallback_errors", "cache_hit",
                 "_choices", "_ids", "_events")

    def __init__(self, prior: Sequence[Any] = ()) -> None:
        self.id = ""
        self.created = 0
        self.model = ""
        self.provider = ""
        self.usage: Optional[Usage] = None
        self.fallback_errors: Any = None  # set by a fallback chain on the first chunk
        self.cache_hit: Optional[bool] = None  # the response cache's outcome (first chunk)
        self._choices: dict[int, dict[str, Any]] = {}
        self._ids = CallIdAssigner(prior)
        self._events: Optional[list[Any]] = None  # hosted tools' calls (docs/hosted-tools.md)

    def add(self, chunk: _C) -> _C:
        if not self.id and chunk.id:
            self.id = chunk.id
        if not self.created and chunk.created:
            self.created = chunk.created
        if not self.model and chunk.model:
            self.model = chunk.model
        if not self.provider and chunk.provider:
            self.provider = chunk.provider
            extra = chunk.__pydantic_extra__  # the served model's first chunk, once
            if extra:
                self.fallback_errors = extra.get("fallback_errors")
            self.cache_hit = cache_outcome(chunk)
        if chunk.usage is not None:
            self.usage = chunk.usage
        chunk_extra = chunk.__pydantic_extra__
        if chunk_extra and chunk_extra.get("tool_events"):  # the hosted calls of the reply
            self._events = [*(self._events or ()), *chunk_extra["tool_events"]]
        renamed: Optional[dict[tuple[int, int], str]] = None
        for position, choice in enumerate(chunk.choices):
            state = self._choices.get(choice.index)
            if state is None:
                state = self._choices[choice.index] = {
                    "content": [], "reasoning": [], "refusal": [], "tool_calls": {},
                    "finish_reason": None, "native_finish_reason": None, "psf": None,
                    "annotations": None, "logprobs": None,
                }
            delta = choice.delta
            if delta.content:
                state["content"].append(delta.content)
            delta_extra = delta.__pydantic_extra__
            if delta_extra and delta_extra.get("annotations"):  # citations (url_citation)
                state["annotations"] = [*(state["annotations"] or ()),
                                        *delta_extra["annotations"]]
            if delta.reasoning_content:
                state["reasoning"].append(delta.reasoning_content)
            if delta.refusal:
                state["refusal"].append(delta.refusal)
            if delta.provider_specific_fields:
                psf = state["psf"]
                if psf is None:
                    psf = state["psf"] = {}
                for key, value in delta.provider_specific_fields.items():
                    # Lists (e.g. thinking blocks, signatures) extend; anything else replaces.
                    if isinstance(value, list) and isinstance(psf.get(key), list):
                        psf[key] = psf[key] + value
                    else:
                        psf[key] = value
            if delta.tool_calls:
                calls = state["tool_calls"]
                for d, tc in enumerate(delta.tool_calls):
                    call = calls.get(tc.index)
                    first = call is None
                    if call is None:
                        cid = self._ids.assign(tc.id, choice.index, tc.index)
                        call = calls[tc.index] = {"id": cid, "given": tc.id, "name": "",
                                                  "args": []}
                    # The first fragment carries the call's id; a later one naming another
                    # id is corrected too, so every id the caller sees pairs.
                    if (first or tc.id is not None) and tc.id != call["id"]:
                        if renamed is None:
                            renamed = {}
                        renamed[(position, d)] = call["id"]
                    fn = tc.function
                    if fn is not None:
                        if fn.name and not call["name"]:
                            call["name"] = fn.name
                        if fn.arguments:
                            call["args"].append(fn.arguments)
            logprobs = getattr(choice, "logprobs", None)  # (a chunk of one's own may lack it)
            if logprobs is not None:
                _add_logprobs(state, logprobs)
            if choice.finish_reason is not None:
                state["finish_reason"] = choice.finish_reason
            if choice.native_finish_reason is not None:
                state["native_finish_reason"] = choice.native_finish_reason
        return chunk if renamed is None else _chunk_with_ids(chunk, renamed)

    def build(self) -> ChatCompletionResponse:
        choices = []
        for index in sorted(self._choices) or [0]:
            state = self._choices.get(index)
            if state is None:
                choices.append(Choice(index=0, message=Message(role="assistant")))
                continue
            tool_calls = [
                ToolCall(id=c["id"], function=Function(name=c["name"],
                                                       arguments="".join(c["args"]) or "{}"))
                for _, c in sorted(state["tool_calls"].items())
            ] or None
            message = Message(
                role="assistant",
                content="".join(state["content"]) or None,
                tool_calls=tool_calls,
                reasoning_content="".join(state["reasoning"]) or None,
                refusal="".join(state["refusal"]) or None,
                provider_specific_fields=follow_renamed_ids(
                    state["psf"], [(c["given"], c["id"])
                                   for _, c in sorted(state["tool_calls"].items())]),
                **({"annotations": state["annotations"]} if state["annotations"] else {}),
            )
            finish = state["finish_reason"]
            if tool_calls and finish != "length":
                finish = "tool_calls"
            choice = Choice(index=index, message=message, finish_reason=finish,
                            native_finish_reason=state["native_finish_reason"])
            if state["logprobs"] is not None:
                choice.logprobs = ChoiceLogprobs(**state["logprobs"])
            choices.append(choice)
        response = ChatCompletionResponse(id=self.id, created=self.created, model=self.model,
                                          provider=self.provider, choices=choices,
                                          usage=self.usage)
        if self.fallback_errors:
            response.fallback_errors = self.fallback_errors
        if self._events:
            response.tool_events = list(self._events)
        if self.cache_hit is not None:
            mark_cache_outcome(response, self.cache_hit)
        attach_price_ref(response)
        return response


_WORDS = re.compile(r"\S+\s*|\s+")


def response_chunks(response: ChatCompletionResponse, *, whole: bool = False
                    ) -> Iterator[ChatCompletionChunk]:
    """A response as chunks in the unified (OpenAI) shape, which ``ChunkAccumulator`` folds
    back into the same message: per choice, a role chunk (with the message's
    ``provider_specific_fields``), its reasoning, its refusal, its text (word by word, or in
    one piece with ``whole``), each tool call as a header fragment (id, name) then its
    arguments (in two pieces, or with the header when ``whole``); then each choice's
    ``finish_reason``, the last chunk carrying ``usage``. The offline providers stream this
    way, and the response cache replays a stored response this way (``whole=True``)."""
    head: dict[str, Any] = {"id": response.id, "created": response.created,
                            "model": response.model, "provider": response.provider}

    def chunk(index: int, delta: ChoiceDelta, **more: Any) -> ChatCompletionChunk:
        return ChatCompletionChunk(**head, choices=[ChunkChoice(index=index, delta=delta,
                                                               **more)])

    for choice in response.choices:
        message, index = choice.message, choice.index
        yield chunk(index, ChoiceDelta(
            role="assistant", provider_specific_fields=message.provider_specific_fields))
        if message.reasoning_content:
            yield chunk(index, ChoiceDelta(reasoning_content=message.reasoning_content))
        if message.refusal:
            yield chunk(index, ChoiceDelta(refusal=message.refusal))
        text = text_of(message.content)
        for piece in ([text] if whole and text else _WORDS.findall(text)):
            yield chunk(index, ChoiceDelta(content=piece))
        for i, call in enumerate(message.tool_calls or ()):
            args = call.function.arguments
            yield chunk(index, ChoiceDelta(tool_calls=[ChoiceDeltaToolCall(
                index=i, id=call.id, type="function", function=ChoiceDeltaFunction(
                    name=call.function.name, arguments=args if whole else ""))]))
            half = len(args) // 2
            for part in (() if whole else (args[:half], args[half:])):
                if part:
                    yield chunk(index, ChoiceDelta(tool_calls=[ChoiceDeltaToolCall(
                        index=i, function=ChoiceDeltaFunction(arguments=part))]))
    choices = response.choices
    for position, choice in enumerate(choices):  # earlier choices' finish, then the last's
        if position < len(choices) - 1:
            yield chunk(choice.index, ChoiceDelta(), finish_reason=choice.finish_reason,
                        native_finish_reason=choice.native_finish_reason)
    last = choices[-1] if choices else None
    yield ChatCompletionChunk(
        **head, usage=response.usage,
        choices=[ChunkChoice(index=last.index if last else 0, delta=ChoiceDelta(),
                             finish_reason=last.finish_reason if last else "stop",
                             native_finish_reason=last.native_finish_reason if last else None)])


_END = object()
_Item = TypeVar("_Item")


def started_stream(chunks: Iterator[_Item]) -> Iterator[_Item]:
    """Pull the first chunk now, so the request is sent and an HTTP error (401, 429, ...)
    raises at ``create(stream=True)``, as in the OpenAI SDK, not on the first iteration.
    The returned generator yields that chunk, then the rest; closing it closes ``chunks``.
    (Any stream: chunks, or a Responses stream's events.)"""
    first = next(chunks, _END)

    def rest() -> Iterator[_Item]:
        try:
            if first is not _END:
                yield first  # type: ignore[misc]  # not _END: a chunk
                yield from chunks
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    return rest()


async def astarted_stream(chunks: AsyncIterator[_Item]) -> AsyncIterator[_Item]:
    """The async twin of ``started_stream`` (awaited by ``create``)."""
    try:
        first: Any = await chunks.__anext__()
    except StopAsyncIteration:
        first = _END

    async def rest() -> AsyncIterator[_Item]:
        try:
            if first is not _END:
                yield first
                async for chunk in chunks:
                    yield chunk
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()

    return rest()


class Stream(Generic[_ChunkT]):
    """A sync stream of ``ChatCompletionChunk``. Iterate it, use it as a context manager, and
    call ``get_final_response()`` for the accumulated response. ``chunks`` keeps what arrived,
    so after a mid-stream error the received part is still available. ``response`` is the
    stream's HTTP reply, as the OpenAI SDK's ``Stream.response`` (docs/client.md)."""

    def __init__(
        self,
        chunks: Iterator[_ChunkT],
        *,
        final: Optional[Callable[[], ChatCompletionResponse]] = None,
        prior_messages: Sequence[Any] = (),
        response: Any = None,
    ) -> None:
        # prior_messages: the conversation the request sent (tool-call ids stay unique in it)
        #: the HTTP reply (``core.exchange.opened``); None without one (a cache hit, a run)
        self.response = response
        self._iter = chunks
        self._final = final
        self._acc = ChunkAccumulator(prior_messages)
        self.chunks: list[_ChunkT] = []
        self._done = False

    def __iter__(self) -> Iterator[_ChunkT]:
        return self

    def __next__(self) -> _ChunkT:
        if self._done:
            raise StopIteration
        try:
            chunk = next(self._iter)
        except StopIteration:
            self._done = True
            raise
        except BaseException:
            self._done = True
            raise
        if self._final is None:
            chunk = self._acc.add(chunk)
        self.chunks.append(chunk)
        return chunk

    def get_final_response(self) -> ChatCompletionResponse:
        """Consume the rest of the stream and return the complete response."""
        for _ in self:
            pass
        if self._final is not None:
            return self._final()
        return self._acc.build()

    def close(self) -> None:
        """Stop the stream and release its connection."""
        self._done = True
        close = getattr(self._iter, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "Stream[_ChunkT]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # a stream abandoned mid-way must not leak its connection
        try:
            if not self._done:
                self.close()
        except Exception:
            pass


class AsyncStream(Generic[_ChunkT]):
    """The async twin of ``Stream``: ``async for``, ``async with``, ``await
    get_final_response()``, ``await close()``."""

    def __init__(
        self,
        chunks: AsyncIterator[_ChunkT],
        *,
        final: Optional[Callable[[], ChatCompletionResponse]] = None,
        prior_messages: Sequence[Any] = (),
        response: Any = None,
    ) -> None:
        # prior_messages: the conversation the request sent (tool-call ids stay unique in it)
        #: the HTTP reply (``core.exchange.opened``); None without one (a cache hit, a run)
        self.response = response
        self._iter = chunks
        self._final = final
        self._acc = ChunkAccumulator(prior_messages)
        self.chunks: list[_ChunkT] = []
        self._done = False

    def __aiter__(self) -> AsyncIterator[_ChunkT]:
        return self

    async def __anext__(self) -> _ChunkT:
        if self._done:
            raise StopAsyncIteration
        try:
            chunk = await self._iter.__anext__()
        except StopAsyncIteration:
            self._done = True
            raise
        except BaseException:
            self._done = True
            raise
        if self._final is None:
            chunk = self._acc.add(chunk)
        self.chunks.append(chunk)
        return chunk

    async def get_final_response(self) -> ChatCompletionResponse:
        async for _ in self:
            pass
        if self._final is not None:
            return self._final()
        return self._acc.build()

    async def close(self) -> None:
        self._done = True
        aclose = getattr(self._iter, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> "AsyncStream[_ChunkT]":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
