"""Client and AsyncClient: ``chat.completions.create`` routes to manual mode, the tool runner
(``max_turns`` given) or a stream (docs/client.md)."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    Optional,
    TypeVar,
    Union,
    overload,
)

from ..core import checks as _request_checks
from ..core.cost import attach_price_ref
from ..core.ids import unique_tool_call_ids
from .base import ClientBase
from .prepare import prepare_call

if TYPE_CHECKING:
    from typing_extensions import Never

    from ..batches.api import AsyncBatches, Batches
    from ..budgets.budget import Budget
    from ..context.strategies import ContextWindow
    from ..core.message_params import ChatCompletionMessageParam
    from ..core.streaming import AsyncStream, Stream
    from ..core.types import ChatCompletionResponse, Message, ParsedChatCompletion
    from ..endpoints.audio import AsyncAudio, Audio
    from ..endpoints.audio_params import ParamValidator
    from ..endpoints.embeddings import AsyncEmbeddings, Embeddings
    from ..endpoints.files import AsyncFiles, Files
    from ..endpoints.images import AsyncImages, Images
    from ..endpoints.models import AsyncModels, Models
    from ..endpoints.moderations import AsyncModerations, Moderations
    from ..endpoints.responses import AsyncResponses, Responses
    from .plugins import ModelRouter, ResponseCache
    from .raw_response import AsyncRawCompletions, RawCompletions, StreamingCompletions
    from .stream_events import AsyncChatCompletionStream, ChatCompletionStream

    # What `messages` takes: OpenAI-shaped message dicts (the TypedDicts complete their keys),
    # Message objects, or any mapping of that shape.
    _Messages = Iterable[Union[ChatCompletionMessageParam, Message, Mapping[str, Any]]]

__all__ = ["Client", "AsyncClient"]

# ``reasoning_effort``'s portable values (docs/reasoning-and-caching.md); the OpenAI family
# also sends other strings as given.
ReasoningEffort = Union[Literal["none", "minimal", "low", "medium", "high"], str]

# The class given as ``response_format`` to ``parse``: the type of ``message.parsed``.
_ParsedT = TypeVar("_ParsedT")


# GENERATED keyword parameters: every @overload of create / acreate / parse / aparse / stream
# below (here and in _AsyncCompletions) lists the parameters of the first create overload,
# copied by scripts/create_overloads.py (`make overloads`); edit that first overload only.
class _Completions:
    def __init__(self, client: "Client") -> None:
        self._client = client

    @property
    def with_raw_response(self) -> RawCompletions:
        """``with_raw_response.create(...)``: the HTTP status, headers and request id of the
        reply, and ``.parse()`` for the response (docs/client.md, "Raw responses")."""
        from .raw_response import RawCompletions

        return RawCompletions(self)

    @property
    def with_streaming_response(self) -> StreamingCompletions:
        """``with ...with_streaming_response.create(...) as response:`` the reply's headers
        and body lines (``iter_lines()``), as the OpenAI SDK (docs/client.md)."""
        from .raw_response import StreamingCompletions

        return StreamingCompletions(self, is_async=False)

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> Stream: ...

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> Union[Stream, ChatCompletionResponse]: ...

    def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """One chat completion. With ``max_turns`` the tool runner executes the tools; with
        ``stream=True`` a ``Stream`` is returned."""
        call = prepare_call(self._client, model, messages, kwargs)
        provider, request = call.provider, call.request
        _request_checks.check_not_empty(request.messages)
        if call.max_turns is not None:
            from ..loop.drivers import _tool_runner

            return _tool_runner(provider, request, call.tools, max_turns=call.max_turns,
                                **call.runner_options)
        as_given = provider.as_given
        if as_given is not None:  # an aisuite provider: its reply as given (docs/migration.md)
            return as_given(request)
        if request.stream:
            from ..core.exchange import opened
            from ..core.streaming import Stream, started_stream

            chunks, response = opened(lambda: started_stream(provider.stream(request)))
            return Stream(chunks, prior_messages=request.messages, response=response)
        response = unique_tool_call_ids(provider.complete(request), request.messages)
        attach_price_ref(response, request.model)
        return response

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> AsyncStream: ...

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    async def acreate(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> Union[AsyncStream, ChatCompletionResponse]: ...

    async def acreate(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async ``create`` on the sync client (aisuite's name)."""
        return await _acreate(self._client, model, messages, kwargs)

    @overload
    def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    def parse(self, model: str, messages: Any, *, response_format: Any = None,
              **kwargs: Any) -> Any:
        """The OpenAI SDK's ``parse``: ``create`` with ``response_format`` a pydantic class
        (sent as a strict JSON schema, through each provider's native structured output),
        then ``choices[i].message.parsed`` is the reply validated into that class (None for a
        refusal). Works with ``max_turns`` (the final message is parsed)."""
        from .structured import parse_completion, response_format_param

        _refuse_stream(kwargs, "parse")
        response = self.create(model, messages,
                               response_format=response_format_param(response_format), **kwargs)
        return parse_completion(response, response_format, kwargs.get("tools"))

    @overload
    async def aparse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    async def aparse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    async def aparse(self, model: str, messages: Any, *, response_format: Any = None,
                     **kwargs: Any) -> Any:
        """Async ``parse`` on the sync client (as ``acreate``)."""
        return await _aparse(self._client, model, messages, response_format, kwargs)

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ChatCompletionStream[_ParsedT]: ...

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ChatCompletionStream[None]: ...

    def stream(self, model: str, messages: Any, *, response_format: Any = None,
               **kwargs: Any) -> Any:
        """The OpenAI SDK's ``stream``: ``with client.chat.completions.stream(...) as s``;
        iterating ``s`` yields the SDK's events (``content.delta``, ...), and
        ``s.get_final_completion()`` is the accumulated response, parsed when
        ``response_format`` is a pydantic class."""
        from .stream_events import ChatCompletionStream, completion_finisher
        from .structured import response_format_param

        _refuse_stream(kwargs, "stream")
        stream = self.create(model, messages, stream=True,
                             response_format=response_format_param(response_format), **kwargs)
        return ChatCompletionStream(stream, response_format,
                                    completion_finisher(response_format))


def _refuse_stream(kwargs: dict[str, Any], method: str) -> None:
    if "stream" in kwargs:
        raise TypeError(f"chat.completions.{method}() does not take stream=: "
                        + ("use chat.completions.stream(...) to stream structured output"
                           if method == "parse" else "it always streams"))


async def _aparse(client: ClientBase, model: str, messages: Any, response_format: Any,
                  kwargs: dict[str, Any]) -> Any:
    from .structured import parse_completion, response_format_param

    _refuse_stream(kwargs, "parse")
    kwargs["response_format"] = response_format_param(response_format)
    tools = kwargs.get("tools")  # (prepare_call consumes kwargs)
    response = await _acreate(client, model, messages, kwargs)
    return parse_completion(response, response_format, tools)


class _AsyncStreamManager(Generic[_ParsedT]):
    """``async with aclient.chat.completions.stream(...) as stream``: the OpenAI SDK's shape
    (not awaited; entering starts the request)."""

    def __init__(self, client: ClientBase, model: str, messages: Any, kwargs: dict[str, Any],
                 response_format: Any) -> None:
        self._start = (client, model, messages, kwargs)
        self._response_format = response_format
        self._stream: Optional[AsyncChatCompletionStream[_ParsedT]] = None

    async def __aenter__(self) -> AsyncChatCompletionStream[_ParsedT]:
        from .stream_events import AsyncChatCompletionStream, completion_finisher
        from .structured import response_format_param

        client, model, messages, kwargs = self._start
        kwargs["stream"] = True
        kwargs["response_format"] = response_format_param(self._response_format)
        self._stream = AsyncChatCompletionStream(
            await _acreate(client, model, messages, kwargs), self._response_format,
            completion_finisher(self._response_format))
        return self._stream

    async def __aexit__(self, *exc: Any) -> None:
        if self._stream is not None:
            await self._stream.close()


def _acreate(client: ClientBase, model: str, messages: Any, kwargs: dict[str, Any],
             tools_open: bool = False) -> Awaitable[Any]:
    """The awaitable of an async ``create``, called from the ``create`` coroutine (so the
    call is prepared when it is awaited, as before): a plain function, so that a request in
    flight holds the small :func:`_areply` frame, not this one's call and request."""
    if not tools_open and kwargs.get("tools") is not None:
        return _acreate_opening_tools(client, model, messages, kwargs)
    call = prepare_call(client, model, messages, kwargs)
    provider, request = call.provider, call.request
    _request_checks.check_not_empty(request.messages)
    if call.max_turns is not None:
        from ..loop.drivers import _atool_runner

        return _atool_runner(provider, request, call.tools, max_turns=call.max_turns,
                             **call.runner_options)
    aas_given = provider.aas_given
    if aas_given is not None:  # an aisuite provider: its reply as given (docs/migration.md)
        return aas_given(request)
    if request.stream:
        return _astream(provider, request)
    return _areply(provider.acomplete(request), request.messages, request.model)


async def _acreate_opening_tools(client: ClientBase, model: str, messages: Any,
                                 kwargs: dict[str, Any]) -> Any:
    from ..tools.toolset import aopen_tool_sources

    await aopen_tool_sources(kwargs["tools"], client)  # MCP servers start off the loop
    return await _acreate(client, model, messages, kwargs, tools_open=True)


async def _astream(provider: Any, request: Any) -> Any:
    from ..core.exchange import aopened
    from ..core.streaming import AsyncStream, astarted_stream

    chunks, response = await aopened(lambda: astarted_stream(provider.astream(request)))
    return AsyncStream(chunks, prior_messages=request.messages, response=response)


async def _areply(completion: Awaitable[ChatCompletionResponse], messages: Any, model: str
                  ) -> ChatCompletionResponse:
    response = unique_tool_call_ids(await completion, messages)
    attach_price_ref(response, model)
    return response


def _resource(client: ClientBase, module: str, name: str) -> Any:
    """The endpoint resource ``endpoints.<module>.<name>`` of ``client``, made on first use
    (the module is imported then)."""
    found = client.__dict__.get(f"_{module}")
    if found is None:
        import importlib

        cls = getattr(importlib.import_module(f"..endpoints.{module}", __package__), name)
        found = client.__dict__[f"_{module}"] = cls(client)
    return found


_CompletionsT = TypeVar("_CompletionsT")


class _Chat(Generic[_CompletionsT]):
    # Generic so `client.chat.completions` has its class's type (the overloads of `create`).
    def __init__(self, completions: _CompletionsT) -> None:
        self.completions = completions


class _Beta(Generic[_CompletionsT]):
    def __init__(self, chat: _Chat[_CompletionsT]) -> None:
        self.chat = chat


class Client(ClientBase):
    """The sync client: ``client.chat.completions.create(model="provider:model", messages=...)``.

    ``provider_configs`` maps a provider key to its settings (``api_key``, ``base_url``,
    ``timeout``, ``max_retries``, ``default_headers``, ``http_client``, ...); keys not given
    come from the provider's usual environment variable. ``providers`` installs provider
    objects directly (e.g. ``aisuite_like.testing.ScriptedProvider``). ``cache`` is a response
    cache (``aisuite_like.cache.MemoryCache()``, ``SQLiteCache(path)``, ``RedisCache(url)``)
    that answers repeated model calls, its entries expiring after ``cache_ttl`` seconds
    (None: never; docs/cache.md).
    ``router`` (an ``aisuite_like.Router``) makes its aliases usable as models
    (docs/router.md). ``prompt_cache="auto"`` makes every call add prompt-cache
    breakpoints / a cache key where the provider needs them (a call opts out with
    ``prompt_cache=False``; docs/reasoning-and-caching.md). ``budget`` (an ``ai.Budget``, or
    a list) must admit every model call of the client before it is sent (docs/budgets.md).
    ``checks="off"`` turns off the checks of each call against what is known of its model
    (docs/models.md; a call's ``checks=`` overrides it). ``transport`` (``"sdk"``, the
    default, or ``"native"``) and ``async_transport`` (the native transport's async HTTP:
    ``"aiohttp"``, the default, or ``"httpx2"``) apply to every provider whose config sets
    none of its own (docs/transports.md).
    """

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None, *,
                 providers: Optional[Mapping[str, Any]] = None,
                 extra_param_mode: Literal["strict", "warn", "permissive"] = "warn",
                 extract_thinking: bool = False,
                 cache: Optional[ResponseCache] = None,
                 cache_ttl: Optional[float] = None,
                 router: Optional[ModelRouter] = None,
                 prompt_cache: Optional[Literal["auto", False]] = None,
                 budget: Union[Budget, Sequence[Budget], None] = None,
                 timeout: Any = None,
                 max_retries: Optional[int] = None,
                 max_retry_wait: Optional[float] = None,
                 max_concurrency: Optional[int] = None,
                 stream_gap_timeout: Optional[float] = None,
                 checks: Literal["on", "off"] = "on",
                 transport: Optional[Literal["sdk", "native"]] = None,
                 async_transport: Optional[Literal["httpx2", "aiohttp"]] = None,
                 **unknown: Never) -> None:
        # ``unknown``: ai.Client(api_key=...) is a TypeError showing the provider_configs line
        super().__init__(provider_configs, providers=providers,
                         extra_param_mode=extra_param_mode, extract_thinking=extract_thinking,
                         cache=cache, cache_ttl=cache_ttl, router=router,
                         prompt_cache=prompt_cache, budget=budget,
                         timeout=timeout, max_retries=max_retries,
                         max_retry_wait=max_retry_wait, max_concurrency=max_concurrency,
                         stream_gap_timeout=stream_gap_timeout, checks=checks,
                         transport=transport, async_transport=async_transport, **unknown)
        self.chat = _Chat(_Completions(self))
        self.beta = _Beta(self.chat)  # client.beta.chat.completions.parse (older OpenAI SDKs)

    @property
    def audio(self) -> Audio:
        """Speech to text: ``client.audio.transcriptions.create(model, file, ...)``
        (docs/audio.md). Loaded on first use."""
        audio = self.__dict__.get("_audio")
        if audio is None:
            from ..endpoints.audio import Audio

            audio = self.__dict__["_audio"] = Audio(self)
        return audio

    @property
    def param_validator(self) -> ParamValidator:
        """aisuite's ``client.param_validator``: how transcription parameters are checked
        (``extra_param_mode``; docs/audio.md)."""
        from ..endpoints.audio_params import ParamValidator

        return ParamValidator(self.extra_param_mode)  # type: ignore[arg-type]

    @property
    def models(self) -> Models:
        """The models each configured provider reports: ``list()``, ``retrieve(model)``
        (docs/models.md). Loaded on first use."""
        models = self.__dict__.get("_models")
        if models is None:
            from ..endpoints.models import Models

            models = self.__dict__["_models"] = Models(self)
        return models

    @property
    def batches(self) -> Batches:
        """Provider batch APIs: ``create`` / ``retrieve`` / ``cancel`` / ``wait`` /
        ``results`` (docs/batches.md). Loaded on first use."""
        batches = self.__dict__.get("_batches")
        if batches is None:
            from ..batches.api import Batches

            batches = self.__dict__["_batches"] = Batches(self)
        return batches

    @property
    def responses(self) -> Responses:
        """OpenAI's Responses API on every provider: ``create`` (docs/responses.md). Loaded
        on first use."""
        responses = self.__dict__.get("_responses")
        if responses is None:
            from ..endpoints.responses import Responses

            responses = self.__dict__["_responses"] = Responses(self)
        return responses

    @property
    def embeddings(self) -> Embeddings:
        """``create`` / ``acreate``: vectors of texts in OpenAI's shape (docs/embeddings.md).
        Loaded on first use."""
        embeddings = self.__dict__.get("_embeddings")
        if embeddings is None:
            from ..endpoints.embeddings import Embeddings

            embeddings = self.__dict__["_embeddings"] = Embeddings(self)
        return embeddings

    @property
    def images(self) -> Images:
        """``generate`` / ``edit``: images in OpenAI's shape (docs/images.md)."""
        found: Images = _resource(self, "images", "Images")
        return found

    @property
    def moderations(self) -> Moderations:
        """``create``: content-policy verdicts (docs/moderations.md)."""
        found: Moderations = _resource(self, "moderations", "Moderations")
        return found

    @property
    def files(self) -> Files:
        """``create`` / ``retrieve`` / ``list`` / ``delete`` / ``content`` (docs/files.md)."""
        found: Files = _resource(self, "files", "Files")
        return found

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# GENERATED keyword parameters in the overloads: see the note above _Completions.
class _AsyncCompletions:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    @property
    def with_raw_response(self) -> AsyncRawCompletions:
        """``await with_raw_response.create(...)``: the HTTP status, headers and request id of
        the reply, and ``.parse()`` for the response (docs/client.md, "Raw responses")."""
        from .raw_response import AsyncRawCompletions

        return AsyncRawCompletions(self)

    @property
    def with_streaming_response(self) -> StreamingCompletions:
        """``async with ...with_streaming_response.create(...) as response:`` (docs/client.md)."""
        from .raw_response import StreamingCompletions

        return StreamingCompletions(self, is_async=True)

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Literal[True],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> AsyncStream: ...

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: Optional[Literal[False]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ChatCompletionResponse: ...

    @overload
    async def create(
        self,
        model: str,
        messages: _Messages,
        *,
        stream: bool,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        response_format: Any = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> Union[AsyncStream, ChatCompletionResponse]: ...

    async def create(self, model: str, messages: Any, **kwargs: Any) -> Any:
        """Async chat completion; ``stream=True`` returns an ``AsyncStream``."""
        return await _acreate(self._client, model, messages, kwargs)

    @overload
    async def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[_ParsedT]: ...

    @overload
    async def parse(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> ParsedChatCompletion[None]: ...

    async def parse(self, model: str, messages: Any, *, response_format: Any = None,
                    **kwargs: Any) -> Any:
        """The OpenAI SDK's ``parse`` (see ``Client.chat.completions.parse``)."""
        return await _aparse(self._client, model, messages, response_format, kwargs)

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: type[_ParsedT],
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> _AsyncStreamManager[_ParsedT]: ...

    @overload
    def stream(
        self,
        model: str,
        messages: _Messages,
        *,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        max_turns: Optional[int] = None,
        tool_policy: Any = None,
        on_tool_error: Literal["return", "raise"] = "return",
        on_max_turns: Literal["return", "raise", "final_answer"] = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = None,
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[ReasoningEffort] = None,
        prompt_cache: Optional[Literal["auto", False]] = None,
        orphans: Optional[Literal["repair", "error"]] = None,
        stop: Union[str, Sequence[str], None] = None,
        seed: Optional[int] = None,
        user: Optional[str] = None,
        n: Optional[int] = None,
        timeout: Any = None,
        stream_options: Optional[Mapping[str, Any]] = None,
        fallbacks: Optional[Sequence[str]] = None,
        cache: Optional[bool] = None,
        budget: Union[Budget, Sequence[Budget], None] = None,
        context: Optional[ContextWindow] = None,
        checks: Optional[Literal["on", "off"]] = None,
        count_tokens: bool = False,
        **kwargs: Any,
    ) -> _AsyncStreamManager[None]: ...

    def stream(self, model: str, messages: Any, *, response_format: Any = None,
               **kwargs: Any) -> _AsyncStreamManager[Any]:
        """The OpenAI SDK's ``stream``: ``async with aclient.chat.completions.stream(...) as
        s``; ``async for event in s``; ``await s.get_final_completion()`` is the accumulated
        (parsed) response."""
        _refuse_stream(kwargs, "stream")
        return _AsyncStreamManager(self._client, model, messages, kwargs, response_format)


class AsyncClient(ClientBase):
    """The async client: ``await aclient.chat.completions.create(...)``. Its arguments are
    ``Client``'s."""

    def __init__(self, provider_configs: Optional[Mapping[str, Mapping[str, Any]]] = None, *,
                 providers: Optional[Mapping[str, Any]] = None,
                 extra_param_mode: Literal["strict", "warn", "permissive"] = "warn",
                 extract_thinking: bool = False,
                 cache: Optional[ResponseCache] = None,
                 cache_ttl: Optional[float] = None,
                 router: Optional[ModelRouter] = None,
                 prompt_cache: Optional[Literal["auto", False]] = None,
                 budget: Union[Budget, Sequence[Budget], None] = None,
                 timeout: Any = None,
                 max_retries: Optional[int] = None,
                 max_retry_wait: Optional[float] = None,
                 max_concurrency: Optional[int] = None,
                 stream_gap_timeout: Optional[float] = None,
                 checks: Literal["on", "off"] = "on",
                 transport: Optional[Literal["sdk", "native"]] = None,
                 async_transport: Optional[Literal["httpx2", "aiohttp"]] = None,
                 **unknown: Never) -> None:
        super().__init__(provider_configs, providers=providers,
                         extra_param_mode=extra_param_mode, extract_thinking=extract_thinking,
                         cache=cache, cache_ttl=cache_ttl, router=router,
                         prompt_cache=prompt_cache, budget=budget,
                         timeout=timeout, max_retries=max_retries,
                         max_retry_wait=max_retry_wait, max_concurrency=max_concurrency,
                         stream_gap_timeout=stream_gap_timeout, checks=checks,
                         transport=transport, async_transport=async_transport, **unknown)
        self.chat = _Chat(_AsyncCompletions(self))
        self.beta = _Beta(self.chat)

    @property
    def audio(self) -> AsyncAudio:
        """Speech to text, awaited: ``await aclient.audio.transcriptions.create(...)``
        (docs/audio.md). Loaded on first use."""
        audio = self.__dict__.get("_audio")
        if audio is None:
            from ..endpoints.audio import AsyncAudio

            audio = self.__dict__["_audio"] = AsyncAudio(self)
        return audio

    @property
    def param_validator(self) -> ParamValidator:
        """aisuite's ``client.param_validator`` (see ``Client.param_validator``)."""
        from ..endpoints.audio_params import ParamValidator

        return ParamValidator(self.extra_param_mode)  # type: ignore[arg-type]

    @property
    def models(self) -> AsyncModels:
        """The models each configured provider reports, awaited (docs/models.md). Loaded on
        first use."""
        models = self.__dict__.get("_models")
        if models is None:
            from ..endpoints.models import AsyncModels

            models = self.__dict__["_models"] = AsyncModels(self)
        return models

    @property
    def batches(self) -> AsyncBatches:
        """Provider batch APIs, awaited (docs/batches.md). Loaded on first use."""
        batches = self.__dict__.get("_batches")
        if batches is None:
            from ..batches.api import AsyncBatches

            batches = self.__dict__["_batches"] = AsyncBatches(self)
        return batches

    @property
    def responses(self) -> AsyncResponses:
        """OpenAI's Responses API on every provider, awaited (docs/responses.md). Loaded on
        first use."""
        responses = self.__dict__.get("_responses")
        if responses is None:
            from ..endpoints.responses import AsyncResponses

            responses = self.__dict__["_responses"] = AsyncResponses(self)
        return responses

    @property
    def embeddings(self) -> AsyncEmbeddings:
        """``await aclient.embeddings.create(...)`` (docs/embeddings.md). Loaded on first use."""
        embeddings = self.__dict__.get("_embeddings")
        if embeddings is None:
            from ..endpoints.embeddings import AsyncEmbeddings

            embeddings = self.__dict__["_embeddings"] = AsyncEmbeddings(self)
        return embeddings

    async def aclose(self) -> None:
        for provider in self._providers_made():
            await provider.aclose()
        mcp = sys.modules.get("aisuite_like.tools.mcp")
        if mcp is not None:
            await mcp._aclose_opened_by(self)

    @property
    def images(self) -> AsyncImages:
        """``await generate(...)`` / ``await edit(...)`` (docs/images.md)."""
        found: AsyncImages = _resource(self, "images", "AsyncImages")
        return found

    @property
    def moderations(self) -> AsyncModerations:
        """``await create(...)`` (docs/moderations.md)."""
        found: AsyncModerations = _resource(self, "moderations", "AsyncModerations")
        return found

    @property
    def files(self) -> AsyncFiles:
        """``await create(...)``, ``retrieve``, ``list``, ... (docs/files.md)."""
        found: AsyncFiles = _resource(self, "files", "AsyncFiles")
        return found

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
