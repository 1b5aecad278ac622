"""``chat.completions.stream(...)``: the OpenAI SDK's streaming helper, on every provider.

Iterating yields the SDK's typed events (``chunk``, ``content.delta`` / ``content.done``,
``refusal.delta`` / ``refusal.done``, ``tool_calls.function.arguments.delta`` / ``.done``,
``logprobs.content.delta`` / ``.done`` and ``logprobs.refusal.delta`` / ``.done`` with
``logprobs=True``), in the SDK's order; ``get_final_completion()`` is the accumulated response
with ``parsed``. One sans-IO ``_EventState`` turns each chunk into its events; the sync and
async streams only pull chunks. ``parsed_arguments`` of strict tools is not produced.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Optional, TypeVar, Union

from ..core.streaming import AsyncStream, ChunkAccumulator, Stream
from ..core.types import ChatCompletionChunk, ChatCompletionResponse, ChatCompletionTokenLogprob
from .structured import _validate, is_output_class, parse_completion

if TYPE_CHECKING:
    from ..core.types import ParsedChatCompletion

__all__ = [
    "ChatCompletionStream", "AsyncChatCompletionStream", "ChunkEvent", "ContentDeltaEvent",
    "ContentDoneEvent", "RefusalDeltaEvent", "RefusalDoneEvent",
    "FunctionToolCallArgumentsDeltaEvent", "FunctionToolCallArgumentsDoneEvent",
    "LogprobsContentDeltaEvent", "LogprobsContentDoneEvent", "LogprobsRefusalDeltaEvent",
    "LogprobsRefusalDoneEvent",
]


@dataclass(frozen=True)
class ChunkEvent:
    """Every chunk, with the response accumulated so far (``snapshot``)."""

    chunk: ChatCompletionChunk
    snapshot: ChatCompletionResponse
    type: str = "chunk"


@dataclass(frozen=True)
class ContentDeltaEvent:
    """New text: ``delta``; ``snapshot`` the text so far; ``parsed`` a partial JSON parse of it
    when ``response_format`` is a class."""

    delta: str
    snapshot: str
    parsed: Optional[Any] = None
    type: str = "content.delta"


@dataclass(frozen=True)
class ContentDoneEvent:
    """The text is complete; ``parsed`` is it validated into ``response_format``."""

    content: str
    parsed: Optional[Any] = None
    type: str = "content.done"


@dataclass(frozen=True)
class RefusalDeltaEvent:
    delta: str
    snapshot: str
    type: str = "refusal.delta"


@dataclass(frozen=True)
class RefusalDoneEvent:
    refusal: str
    type: str = "refusal.done"


@dataclass(frozen=True)
class FunctionToolCallArgumentsDeltaEvent:
    """A fragment of a tool call's arguments; ``arguments`` is everything so far."""

    name: str
    index: int
    arguments: str
    arguments_delta: str
    parsed_arguments: Optional[Any] = None
    type: str = "tool_calls.function.arguments.delta"


@dataclass(frozen=True)
class FunctionToolCallArgumentsDoneEvent:
    name: str
    index: int
    arguments: str
    parsed_arguments: Optional[Any] = None
    type: str = "tool_calls.function.arguments.done"


@dataclass(frozen=True)
class LogprobsContentDeltaEvent:
    """The log probabilities of this chunk's tokens (``content``); ``snapshot`` is every
    token's so far (as in the SDK, the one list, which grows as the stream goes on)."""

    content: list[ChatCompletionTokenLogprob]
    snapshot: list[ChatCompletionTokenLogprob]
    type: str = "logprobs.content.delta"


@dataclass(frozen=True)
class LogprobsContentDoneEvent:
    content: list[ChatCompletionTokenLogprob]
    type: str = "logprobs.content.done"


@dataclass(frozen=True)
class LogprobsRefusalDeltaEvent:
    refusal: list[ChatCompletionTokenLogprob]
    snapshot: list[ChatCompletionTokenLogprob]
    type: str = "logprobs.refusal.delta"


@dataclass(frozen=True)
class LogprobsRefusalDoneEvent:
    refusal: list[ChatCompletionTokenLogprob]
    type: str = "logprobs.refusal.done"


StreamEvent = Union[ChunkEvent, ContentDeltaEvent, ContentDoneEvent, RefusalDeltaEvent,
                    RefusalDoneEvent, FunctionToolCallArgumentsDeltaEvent,
                    FunctionToolCallArgumentsDoneEvent, LogprobsContentDeltaEvent,
                    LogprobsContentDoneEvent, LogprobsRefusalDeltaEvent,
                    LogprobsRefusalDoneEvent]


@dataclass
class _ChoiceState:
    content: Optional[str] = None
    refusal: Optional[str] = None
    names: dict[int, str] = field(default_factory=dict)
    arguments: dict[int, str] = field(default_factory=dict)
    current_call: Optional[int] = None
    content_done: bool = False
    refusal_done: bool = False
    done_calls: set[int] = field(default_factory=set)
    # the tokens' log probabilities so far (None until a chunk carries some), and their done
    content_logprobs: Optional[list[ChatCompletionTokenLogprob]] = None
    refusal_logprobs: Optional[list[ChatCompletionTokenLogprob]] = None
    logprobs_done: set[str] = field(default_factory=set)


class _EventState:
    """Chunks -> the SDK's events (sans-IO)."""

    def __init__(self, response_format: Any) -> None:
        self.response_format = response_format
        self.rich = is_output_class(response_format)
        self.acc = ChunkAccumulator()
        self.choices: dict[int, _ChoiceState] = {}
        self.turn: Optional[int] = None

    def events(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        if chunk.turn != self.turn:  # a tool-runner stream: each model call is a new reply
            self.turn = chunk.turn
            self.acc = ChunkAccumulator()
            self.choices = {}
        self.acc.add(chunk)
        out: list[StreamEvent] = [ChunkEvent(chunk=chunk, snapshot=self.acc.build())]
        for choice in chunk.choices:
            state = self.choices.setdefault(choice.index, _ChoiceState())
            delta = choice.delta
            if delta.content is not None:
                state.content = (state.content or "") + delta.content
                out.append(ContentDeltaEvent(delta=delta.content, snapshot=state.content,
                                             parsed=self._partial(state.content)))
            if delta.refusal is not None:
                state.refusal = (state.refusal or "") + delta.refusal
                out.append(RefusalDeltaEvent(delta=delta.refusal, snapshot=state.refusal))
            for call in delta.tool_calls or ():
                fn = call.function
                if fn is not None and fn.name:
                    state.names[call.index] = fn.name
                piece = (fn.arguments if fn is not None else None) or ""
                state.arguments[call.index] = state.arguments.get(call.index, "") + piece
                out.append(FunctionToolCallArgumentsDeltaEvent(
                    name=state.names.get(call.index, ""), index=call.index,
                    arguments=state.arguments[call.index], arguments_delta=piece))
            if choice.logprobs is not None:
                out.extend(self._logprobs(state, choice.logprobs))
            out.extend(self._done_events(state, choice.finish_reason is not None,
                                         delta.tool_calls or ()))
        return out

    @staticmethod
    def _logprobs(state: _ChoiceState, logprobs: Any) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if logprobs.content is not None:
            if state.content_logprobs is None:
                state.content_logprobs = []
            state.content_logprobs.extend(logprobs.content)
            if logprobs.content:
                out.append(LogprobsContentDeltaEvent(content=logprobs.content,
                                                     snapshot=state.content_logprobs))
        if logprobs.refusal is not None:
            if state.refusal_logprobs is None:
                state.refusal_logprobs = []
            state.refusal_logprobs.extend(logprobs.refusal)
            if logprobs.refusal:
                out.append(LogprobsRefusalDeltaEvent(refusal=logprobs.refusal,
                                                     snapshot=state.refusal_logprobs))
        return out

    def _partial(self, text: str) -> Any:
        if not self.rich or not text.strip():
            return None
        from pydantic_core import from_json

        try:
            return from_json(text, allow_partial=True)
        except ValueError:
            return None

    def _done_events(self, state: _ChoiceState, finished: bool,
                     calls: Any) -> list[StreamEvent]:
        """The SDK's done events. The calls of this chunk first, then its finish: a provider
        that sends whole calls with the finish in one chunk (Gemini) gets every call's
        ``arguments.done`` too (OpenAI finishes in a chunk of its own: the SDK's order)."""
        out: list[StreamEvent] = []
        for call in calls:
            if state.current_call != call.index:
                out.extend(self._content_done(state))
                if state.current_call is not None:
                    out.extend(self._call_done(state, state.current_call))
            state.current_call = call.index
        if finished:
            out.extend(self._content_done(state))
            if state.current_call is not None:
                out.extend(self._call_done(state, state.current_call))
        return out

    def _content_done(self, state: _ChoiceState) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if state.content and not state.content_done:
            state.content_done = True
            parsed = None
            if self.rich and state.refusal is None:
                parsed = _validate(self.response_format, state.content)
            out.append(ContentDoneEvent(content=state.content, parsed=parsed))
        if state.refusal is not None and not state.refusal_done:
            state.refusal_done = True
            out.append(RefusalDoneEvent(refusal=state.refusal))
        if state.content_logprobs is not None and "content" not in state.logprobs_done:
            state.logprobs_done.add("content")
            out.append(LogprobsContentDoneEvent(content=state.content_logprobs))
        if state.refusal_logprobs is not None and "refusal" not in state.logprobs_done:
            state.logprobs_done.add("refusal")
            out.append(LogprobsRefusalDoneEvent(refusal=state.refusal_logprobs))
        return out

    def _call_done(self, state: _ChoiceState, index: int) -> list[StreamEvent]:
        if index in state.done_calls:
            return []
        state.done_calls.add(index)
        return [FunctionToolCallArgumentsDoneEvent(
            name=state.names.get(index, ""), index=index,
            arguments=state.arguments.get(index, ""))]


# The ``response_format`` class: the type of ``message.parsed`` in the final completion.
_ParsedT = TypeVar("_ParsedT")
# What finishes a stream: the accumulated response -> the parsed one.
_Finish = Callable[[ChatCompletionResponse], "ParsedChatCompletion[_ParsedT]"]


class ChatCompletionStream(Generic[_ParsedT]):
    """What ``with client.chat.completions.stream(...) as stream`` gives: iterate it for
    events, ``get_final_completion()`` for the parsed response, ``until_done()``,
    ``current_completion_snapshot``, ``close()``. The raw chunks are in ``stream.chunks``."""

    def __init__(self, stream: Stream, response_format: Any,
                 finish: _Finish[_ParsedT]) -> None:
        self._stream = stream
        self._state = _EventState(response_format)
        self._finish = finish

    @property
    def response(self) -> Any:
        """The stream's HTTP reply (``Stream.response``), as the OpenAI SDK's."""
        return self._stream.response

    @property
    def chunks(self) -> list[ChatCompletionChunk]:
        return self._stream.chunks

    @property
    def current_completion_snapshot(self) -> ChatCompletionResponse:
        return self._state.acc.build()

    def __iter__(self) -> Iterator[StreamEvent]:
        for chunk in self._stream:
            yield from self._state.events(chunk)

    def until_done(self) -> "ChatCompletionStream[_ParsedT]":
        for _ in self:
            pass
        return self

    def get_final_completion(self) -> ParsedChatCompletion[_ParsedT]:
        self.until_done()
        return self._finish(self._stream.get_final_response())

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> "ChatCompletionStream[_ParsedT]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncChatCompletionStream(Generic[_ParsedT]):
    """The async ``ChatCompletionStream``: ``async for event in stream``, ``await
    stream.get_final_completion()``."""

    def __init__(self, stream: AsyncStream, response_format: Any,
                 finish: _Finish[_ParsedT]) -> None:
        self._stream = stream
        self._state = _EventState(response_format)
        self._finish = finish

    @property
    def response(self) -> Any:
        """The stream's HTTP reply (``Stream.response``), as the OpenAI SDK's."""
        return self._stream.response

    @property
    def chunks(self) -> list[ChatCompletionChunk]:
        return self._stream.chunks

    @property
    def current_completion_snapshot(self) -> ChatCompletionResponse:
        return self._state.acc.build()

    async def __aiter__(self) -> AsyncIterator[StreamEvent]:
        async for chunk in self._stream:
            for event in self._state.events(chunk):
                yield event

    async def until_done(self) -> "AsyncChatCompletionStream[_ParsedT]":
        async for _ in self:
            pass
        return self

    async def get_final_completion(self) -> ParsedChatCompletion[_ParsedT]:
        await self.until_done()
        return self._finish(await self._stream.get_final_response())

    async def close(self) -> None:
        await self._stream.close()

    async def __aenter__(self) -> "AsyncChatCompletionStream[_ParsedT]":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def completion_finisher(response_format: Any) -> _Finish[Any]:
    def finish(response: ChatCompletionResponse) -> ParsedChatCompletion[Any]:
        return parse_completion(response, response_format)

    return finish
