"""``client.responses``: OpenAI's Responses API on every provider (docs/responses.md).

``client.responses.create(model="provider:model", input=..., ...)`` returns a ``Response``
(``ai.Response``: its JSON validates as the openai SDK's ``Response``); ``stream=True`` a
``ResponseStream`` of Responses stream events. Three ways, chosen before anything is sent:

- **native** (openai, azure: ``Provider.native_responses``): the arguments go to the
  provider's own Responses API as they are;
- **translated** (every other family): the input items become chat messages
  (``core/responses_items.py``), the call goes through the client's one preparation
  (``prepare_call``) and the family's chat translator, and the reply comes back as output
  items (a stream as events);
- **a tool run** (``max_turns``): the tool runner's engine (``loop/``, the same ``ToolLoop``
  and drivers as chat) runs over the conversation; its produced messages are the run's
  output items. On openai / azure each model call goes to the Responses API, whose output
  items (reasoning with ``encrypted_content`` included) go back as they are on the next turn.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union, cast, overload

from ..client.base import ClientBase
from ..client.prepare import (
    RUNNER_ONLY,
    PreparedCall,
    prepare_call,
    provider_for_model,
    provider_stack,
    route,
    split_model,
)
from ..core.checks import (
    check_arguments,
    check_extra_headers,
    check_max_turns,
    check_not_empty,
)
from ..core.cost import attach_price_ref
from ..core.errors import NotFoundError, UnsupportedParameterError
from ..core.hosted import is_hosted
from ..core.ids import unique_tool_call_ids
from ..core.responses import CHAT_USAGE, Response, ResponseEvent, ResponseStreamEvent
from ..core.responses_events import EventBuilder
from ..core.responses_items import (
    finish_status,
    input_to_messages,
    message_items,
    reasoning_to_chat,
    response_id,
    response_shell,
    text_to_response_format,
    tool_choice_to_chat,
    tool_output_item,
    tools_to_chat,
    tools_to_responses,
    usage_to_response,
)
from ..core.streaming import ChunkAccumulator, astarted_stream, started_stream
from ..core.types import ChatCompletionChunk, ChatCompletionResponse
from ..loop.drivers import drive_async, drive_sync
from ..loop.engine import ToolLoop
from ..providers.base import NATIVE_RESPONSES, Provider, ResponsesRequest

__all__ = ["Responses", "AsyncResponses", "ResponseStream", "AsyncResponseStream"]

#: Arguments that need state kept by the provider's server between calls.
_SERVER_STATE = ("previous_response_id", "conversation", "background", "prompt")
#: ``include`` values every family honours (the reasoning state always comes back).
_INCLUDE_ANYWHERE = frozenset({"reasoning.encrypted_content"})
#: Settings of OpenAI's Responses API no other family has (refused, not passed through).
_OPENAI_ONLY = ("metadata", "truncation", "max_tool_calls", "top_logprobs")
#: The keyword arguments (``provider_kwargs``) among those two.
_STATE_KWARGS = frozenset((*_SERVER_STATE, *_OPENAI_ONLY))
#: Why an ``openai`` key is translated: its endpoint (another host) has no Responses API.
_FOREIGN = ("; this openai key's base_url answered 404 to /responses, so its calls go over "
            "chat")
#: The events that end a Responses stream, carrying the whole ``Response``.
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


@dataclass
class _Call:
    """One prepared ``responses.create``: the native request, or the chat call; what the
    ``Response`` echoes of the request; whether reasoning text is a summary."""

    key: str
    model: str
    provider: Provider
    echo: dict[str, Any] = field(default_factory=dict)
    summary: bool = False
    native: Optional[ResponsesRequest] = None
    prepared: Optional[PreparedCall] = None


def _check_input(input: Any) -> None:
    if isinstance(input, str):
        return
    if input is None or isinstance(input, (bytes, Mapping)) or not isinstance(input, Iterable):
        raise TypeError("input must be a string or a list of Responses input items, e.g. "
                        "[{'role': 'user', 'content': 'Hi'}]")


def _native_tools(tools: Any, client: Any) -> Optional[list[Any]]:
    """``tools`` for a native call: dicts as given; functions, ``ai.Tool`` objects and MCP
    servers as Responses function tools."""
    if tools is None:
        return None
    from ..tools.toolset import prepare_tools

    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise TypeError("tools must be a list (functions, ai.Tool objects, MCP servers or "
                        "tool dicts)")
    out: list[Any] = []
    for tool in tools:
        if isinstance(tool, Mapping):
            out.append(tool)
        elif is_hosted(tool):  # ai.tools.WebSearch(), ... as OpenAI's own tools
            from ..providers.openai.hosted import responses_tools

            out.extend(responses_tools([tool], "openai"))
        else:
            prepared = prepare_tools([tool], owner=client)
            out.extend(tools_to_responses(prepared.schemas if prepared is not None else ()))
    return out


def _prepare(client: Any, model: str, input: Any, args: dict[str, Any],
             kwargs: dict[str, Any], stream: Any, max_turns: Any) -> _Call:
    """Validate and prepare one call, before anything is sent."""
    key, name = split_model(client, model)  # a router alias: ("router", alias)
    # the provider of that split (provider_for_model would split the model again)
    routed = route(client, model) if key == "router" and client._router is not None else None
    provider = routed if routed is not None else client._provider(key)
    _check_input(input)
    if not isinstance(stream, bool):
        raise TypeError(f"stream must be True or False, got {stream!r}")
    if max_turns is not None:
        check_max_turns(max_turns)
    check_extra_headers(kwargs)
    native = bool(getattr(provider, "native_responses", False)) and "fallbacks" not in kwargs
    if native and max_turns is None:
        _check_portable(args, kwargs)  # over chat, prepare_call checks them
        return _prepare_native(client, key, name, provider, input, args, kwargs, stream)
    return _prepare_chat(client, key, name, model, provider, input, args, kwargs, stream,
                         max_turns, native)


def _check_portable(args: Mapping[str, Any], kwargs: Mapping[str, Any]) -> None:
    check_arguments({"temperature": args.get("temperature"),
                     "max_tokens": args.get("max_output_tokens"),
                     **{k: kwargs.get(k) for k in ("top_p", "timeout", "parallel_tool_calls",
                                                   "user")}})


def _prepare_native(client: Any, key: str, name: str, provider: Provider, input: Any,
                    args: dict[str, Any], kwargs: dict[str, Any], stream: bool) -> _Call:
    runner = [k for k in RUNNER_ONLY if k in kwargs]
    if runner:
        raise ValueError(f"{', '.join(runner)} only apply to the tool runner: pass "
                         "max_turns=N to run tools automatically")
    params: dict[str, Any] = {"input": input}
    for arg, value in args.items():
        if value is not None:
            params[arg] = value
    tools = _native_tools(args.get("tools"), client)
    if tools is not None:
        params["tools"] = tools
    if kwargs.pop("cache", None):
        raise UnsupportedParameterError(
            f"cache=True: the response cache keeps chat calls; a native Responses call of "
            f"{key!r} is not cached (remove cache=)", parameter="cache", provider=key)
    timeout = kwargs.pop("timeout", None)
    budget = kwargs.pop("budget", None)
    params.update(kwargs)
    request = ResponsesRequest(model=name, params=params, stream=stream, timeout=timeout)
    return _Call(key, name, provider_stack(client, key, provider, budget=budget),
                 native=request)


def _prepare_chat(client: Any, key: str, name: str, model: str, provider: Provider,
                  input: Any, args: dict[str, Any], kwargs: dict[str, Any], stream: bool,
                  max_turns: Optional[int], native: bool) -> _Call:
    tools, hosted = tools_to_chat(args.get("tools"))
    reasoning, text = args.get("reasoning"), args.get("text")
    tool_choice = args.get("tool_choice")
    if not native:
        _refuse_server_state(key, args, kwargs)
        if hosted:
            kinds = ", ".join(sorted({str(t.get("type")) for t in hosted}))
            hint = (" (for an MCP server, pass an aisuite_like.mcp server object in tools, with "
                    "max_turns: the tool runner calls it)" if "mcp" in kinds else "")
            raise UnsupportedParameterError(
                f"tools of type {kinds} are hosted tools that OpenAI's servers run; provider "
                f"{key!r} has none. Pass functions, ai.Tool objects or MCP servers{hint}",
                parameter="tools", provider=key)
    effort, summary = reasoning_to_chat(reasoning) if not native else (None, False)
    call_kwargs: dict[str, Any] = dict(kwargs)
    call_kwargs.update(stream=stream, max_turns=max_turns, tools=tools or None)
    limit, temperature = args.get("max_output_tokens"), args.get("temperature")
    if limit is not None or temperature is not None or "max_tokens" in call_kwargs or \
            "temperature" in call_kwargs:  # else left out: a missing one reads as None
        call_kwargs.update(max_tokens=limit, temperature=temperature)
    extra: dict[str, Any] = {}
    if native:
        messages = input_to_messages(input, keep_items=True)
        try:
            call_kwargs["tool_choice"] = tool_choice_to_chat(tool_choice)
        except UnsupportedParameterError:
            extra["tool_choice"] = tool_choice  # a hosted tool's: OpenAI reads it as given
        for arg in ("instructions", "reasoning", "text", "previous_response_id", "store",
                    "include"):
            if args.get(arg) is not None:
                extra[arg] = args[arg]
        if hosted:
            extra["tools"] = hosted
    else:
        messages = input_to_messages(input, args.get("instructions"))
        if tool_choice is not None:
            call_kwargs["tool_choice"] = tool_choice_to_chat(tool_choice)
        if text is not None:
            call_kwargs["response_format"] = text_to_response_format(text)
        else:
            call_kwargs.pop("response_format", None)  # plain text (as the format None says)
        if effort is not None:
            call_kwargs["reasoning_effort"] = effort
    prepared = prepare_call(client, model, messages, call_kwargs)
    if native:  # Responses-only arguments, as given, and this call over the Responses API
        prepared.request = prepared.request.replace(
            api="responses", extra={**prepared.request.extra, **extra})
    echo: dict[str, Any] = {
        "instructions": args.get("instructions") if isinstance(args.get("instructions"), str)
        else None,
        "tools": [*tools_to_responses(prepared.request.tools), *hosted,
                  *_hosted_echo(prepared.request.hosted_tools)],
        "tool_choice": tool_choice if tool_choice is not None else "auto",
        "temperature": args.get("temperature"), "top_p": kwargs.get("top_p"),
        "max_output_tokens": args.get("max_output_tokens"), "reasoning": reasoning,
        "text": text, "parallel_tool_calls": kwargs.get("parallel_tool_calls"),
        "metadata": kwargs.get("metadata") if native else None,
        "previous_response_id": args.get("previous_response_id") if native else None,
    }
    return _Call(key, name, prepared.provider, echo, summary, prepared=prepared)


def _hosted_echo(hosted: Any) -> list[dict[str, Any]]:
    """The hosted tools of a translated call, as the Response's ``tools`` names them."""
    names = {"web_search": "web_search", "code_execution": "code_interpreter",
             "web_fetch": "web_fetch"}
    return [{"type": names[tool.kind]} for tool in hosted or ()]


def _refuse_server_state(key: str, args: Mapping[str, Any], kwargs: Mapping[str, Any]) -> None:
    """What only a provider that keeps responses on its server can do is refused before
    anything is sent."""
    if args.get("previous_response_id") is None and args.get("store") is not True and \
            args.get("include") is None and _STATE_KWARGS.isdisjoint(kwargs):
        return  # none of them given (most calls): the checks below would find nothing
    for name in _SERVER_STATE:
        if args.get(name) is not None or kwargs.get(name) is not None:
            raise UnsupportedParameterError(
                f"{name} refers to state OpenAI's server keeps between calls; provider {key!r} "
                f"keeps none. Send the conversation instead: the previous input plus "
                f"response.output (the Responses API is native on: "
                f"{', '.join(NATIVE_RESPONSES)}{_FOREIGN if key == 'openai' else ''})",
                parameter=name, provider=key)
    if args.get("store") is True:
        raise UnsupportedParameterError(
            f"store=True asks the provider to keep the response on its server; provider {key!r} "
            "stores nothing: remove store (or pass store=False)", parameter="store",
            provider=key)
    include = args.get("include")
    if include is not None:
        if isinstance(include, str) or not isinstance(include, Iterable):
            raise TypeError("include must be a list of strings")
        other = sorted(set(include) - _INCLUDE_ANYWHERE)
        if other:
            raise UnsupportedParameterError(
                f"include {other} asks for data only OpenAI's hosted tools or logprobs produce; "
                f"provider {key!r} has none (the reasoning state is always included)",
                parameter="include", provider=key)
    for name in _OPENAI_ONLY:
        if kwargs.get(name) is not None:
            raise UnsupportedParameterError(
                f"{name} is a setting of OpenAI's Responses API that provider {key!r} does not "
                "have; remove it", parameter=name, provider=key)


# --- replies -> Response ----------------------------------------------------------------------


def _price_native(response: Response, call: _Call) -> Response:
    usage = response.usage
    if usage is not None and CHAT_USAGE not in usage.__dict__:
        chat = usage.chat_usage()
        attach_price_ref(_Priced(chat, call.key, response.model), call.model)
        usage.__dict__[CHAT_USAGE] = chat
    return response


@dataclass
class _Priced:
    usage: Any
    provider: str
    model: str


def _from_chat(chat: ChatCompletionResponse, call: _Call, *, run: bool) -> Response:
    """A chat reply (or a tool run's finalized response) -> ``Response``."""
    choice = chat.choices[0] if chat.choices else None
    if run and choice is not None:
        messages: Sequence[Any] = choice.intermediate_messages
    else:
        messages = [choice.message] if choice is not None else []
    rid = response_id(chat.id)
    base = rid[len("resp_"):] or "0"
    output: list[Any] = []
    for message in messages:
        if message.role == "assistant":
            output.extend(message_items(message, base, len(output), summary=call.summary))
        elif message.role == "tool":
            output.append(tool_output_item(message, f"fco_{base}_{len(output)}"))
    status, incomplete = finish_status(choice.finish_reason if choice is not None else None)
    response = response_shell(call.echo, id=rid, model=chat.model or call.model,
                              created=chat.created or time.time(),
                              provider=chat.provider or call.key, status=status,
                              output=output, usage=usage_to_response(chat.usage),
                              incomplete_details=incomplete)
    if run:
        response.stop_reason = chat.stop_reason
    if run or chat.tool_events:  # a plain call's are its hosted tools' calls
        response.tool_events = list(chat.tool_events)
        response.context_events = list(chat.context_events)
    response.raw = chat
    return response


class _Flow:
    """Chunks of a chat stream or of a tool run's stream -> Responses events (sans-IO: the
    sync and async streams only move chunks in and events out)."""

    def __init__(self, call: _Call, engine: Optional[ToolLoop] = None) -> None:
        self.call = call
        self.engine = engine
        self.builder = EventBuilder(call.echo, summary=call.summary)
        self.turn: Optional[int] = None
        self.seen = 0  # messages of engine.produced already turned into events
        prepared = call.prepared
        assert prepared is not None
        self.acc = ChunkAccumulator(prepared.request.messages) if engine is None else None

    def _tool_outputs(self) -> list[ResponseEvent]:
        assert self.engine is not None
        produced = self.engine.produced
        start = len(self.builder.output)
        tools = [m for m in produced[self.seen:] if m.role == "tool"]
        items = [tool_output_item(m, f"fco_{self.builder.base}_{start + i}")
                 for i, m in enumerate(tools)]
        self.seen = len(produced)
        return self.builder.add_items(items)

    def chunk(self, chunk: ChatCompletionChunk) -> list[ResponseEvent]:
        events: list[ResponseEvent] = []
        if self.acc is not None:
            chunk = self.acc.add(chunk)
        elif chunk.turn != self.turn:
            if self.turn is not None:
                events.extend(self.builder.end_turn())
                events.extend(self._tool_outputs())
            self.turn = chunk.turn
        events.extend(self.builder.add(chunk))
        return events

    def end(self) -> list[ResponseEvent]:
        builder = self.builder
        events: list[ResponseEvent] = []
        if self.acc is not None:
            chat = self.acc.build()
            attach_price_ref(chat, self.call.model)
            if not builder.started:
                events.extend(builder.start(chat.id, chat.model, chat.created, chat.provider))
            finish = chat.choices[0].finish_reason if chat.choices else None
            events.extend(builder.complete(usage_to_response(chat.usage), finish))
            return events
        assert self.engine is not None
        final = self.engine.final_response()
        if not builder.started:
            events.extend(builder.start(final.id, final.model, final.created, final.provider))
        events.extend(builder.end_turn())
        events.extend(self._tool_outputs())
        finish = final.choices[0].finish_reason if final.choices else None
        events.extend(builder.complete(usage_to_response(final.usage), finish,
                                       stop_reason=final.stop_reason,
                                       tool_events=list(final.tool_events),
                                       context_events=list(final.context_events)))
        if builder.response is not None:
            builder.response.raw = final
        return events


# --- streams ------------------------------------------------------------------------------------


class _StreamBase:
    def __init__(self, call: _Call) -> None:
        self._call = call
        self._final: Optional[Response] = None
        self._done = False
        #: every event that arrived (after a mid-stream error, what came before it)
        self.events: list[ResponseEvent] = []

    def _seen(self, event: ResponseEvent) -> ResponseStreamEvent:
        self.events.append(event)
        if event.type in _TERMINAL:
            response = getattr(event, "response", None)
            if response is not None:
                self._final = _price_native(response, self._call)
        # the union type checkers narrow on ``.type``; an event of a type without a class of
        # its own is the base class (docs/responses.md)
        return cast(ResponseStreamEvent, event)

    def _final_response(self) -> Response:
        if self._final is None:
            raise RuntimeError("the stream ended without a final response (it was closed or "
                               "failed before response.completed)")
        return self._final


class ResponseStream(_StreamBase):
    """A sync stream of Responses events (``ResponseEvent`` subclasses named as in the openai
    SDK: ``ResponseTextDeltaEvent``, ...). Iterate it, use it as a context manager;
    ``get_final_response()`` reads it to the end and returns the ``Response`` of
    ``response.completed``."""

    def __init__(self, events: Iterator[ResponseEvent], call: _Call) -> None:
        super().__init__(call)
        self._iter = events

    def __iter__(self) -> "ResponseStream":
        return self

    def __next__(self) -> ResponseStreamEvent:
        if self._done:
            raise StopIteration
        try:
            event = next(self._iter)
        except StopIteration:
            self._done = True
            raise
        return self._seen(event)

    def get_final_response(self) -> Response:
        """Read the rest of the stream; the complete ``Response``."""
        for _ in self:
            pass
        return self._final_response()

    def close(self) -> None:
        """Stop the stream and release its connection."""
        self._done = True
        close = getattr(self._iter, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "ResponseStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # an abandoned stream must not leak its connection
        try:
            if not self._done:
                self.close()
        except Exception:
            pass


class AsyncResponseStream(_StreamBase):
    """The async twin of ``ResponseStream``: ``async for``, ``async with``, ``await
    get_final_response()``, ``await close()``."""

    def __init__(self, events: AsyncIterator[ResponseEvent], call: _Call) -> None:
        super().__init__(call)
        self._iter = events

    def __aiter__(self) -> "AsyncResponseStream":
        return self

    async def __anext__(self) -> ResponseStreamEvent:
        if self._done:
            raise StopAsyncIteration
        try:
            event = await self._iter.__anext__()
        except StopAsyncIteration:
            self._done = True
            raise
        return self._seen(event)

    async def get_final_response(self) -> Response:
        async for _ in self:
            pass
        return self._final_response()

    async def close(self) -> None:
        self._done = True
        aclose = getattr(self._iter, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> "AsyncResponseStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def _flow_events(flow: _Flow, chunks: Iterator[ChatCompletionChunk]) -> Iterator[ResponseEvent]:
    try:
        for chunk in chunks:
            yield from flow.chunk(chunk)
        yield from flow.end()
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


async def _aflow_events(flow: _Flow, chunks: AsyncIterator[ChatCompletionChunk]
                        ) -> AsyncIterator[ResponseEvent]:
    try:
        async for chunk in chunks:
            for event in flow.chunk(chunk):
                yield event
        for event in flow.end():
            yield event
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


# --- running one call ----------------------------------------------------------------------------


def _engine(prepared: PreparedCall) -> ToolLoop:
    assert prepared.max_turns is not None
    return ToolLoop(prepared.request, prepared.tools, max_turns=prepared.max_turns,
                    **prepared.runner_options)


def _run(call: _Call) -> Union[Response, ResponseStream]:
    provider = call.provider
    if call.native is not None:
        if call.native.stream:
            return ResponseStream(started_stream(provider.stream_response(call.native)), call)
        return _price_native(provider.create_response(call.native), call)
    prepared = call.prepared
    assert prepared is not None
    request = prepared.request
    check_not_empty(request.messages)
    if prepared.max_turns is not None:
        engine = _engine(prepared)
        if request.stream:
            return ResponseStream(started_stream(_flow_events(
                _Flow(call, engine), drive_sync(engine, provider))), call)
        for _ in drive_sync(engine, provider):
            pass
        return _from_chat(engine.final_response(), call, run=True)
    if request.stream:
        return ResponseStream(started_stream(_flow_events(
            _Flow(call), provider.stream(request))), call)
    chat = unique_tool_call_ids(provider.complete(request), request.messages)
    attach_price_ref(chat, request.model)
    return _from_chat(chat, call, run=False)


async def _arun(call: _Call) -> Union[Response, AsyncResponseStream]:
    provider = call.provider
    if call.native is not None:
        if call.native.stream:
            return AsyncResponseStream(
                await astarted_stream(provider.astream_response(call.native)), call)
        return _price_native(await provider.acreate_response(call.native), call)
    prepared = call.prepared
    assert prepared is not None
    request = prepared.request
    check_not_empty(request.messages)
    if prepared.max_turns is not None:
        engine = _engine(prepared)
        if request.stream:
            return AsyncResponseStream(await astarted_stream(_aflow_events(
                _Flow(call, engine), drive_async(engine, provider))), call)
        async for _ in drive_async(engine, provider):
            pass
        return _from_chat(engine.final_response(), call, run=True)
    if request.stream:
        return AsyncResponseStream(await astarted_stream(_aflow_events(
            _Flow(call), provider.astream(request))), call)
    chat = unique_tool_call_ids(await provider.acomplete(request), request.messages)
    attach_price_ref(chat, request.model)
    return _from_chat(chat, call, run=False)


def _over_responses(call: _Call) -> bool:
    return call.native is not None or (
        call.prepared is not None and call.prepared.request.api == "responses")


def _no_responses_api(client: Any, model: str, call: _Call, error: NotFoundError) -> bool:
    """Whether the 404 of a call over the Responses API says the endpoint has none (an
    ``openai`` key at another host): the call is then made again over chat."""
    if not _over_responses(call):
        return False
    missing = getattr(provider_for_model(client, model), "responses_missing", None)
    return bool(missing is not None and missing(error))


def _create(client: Any, model: str, input: Any, args: dict[str, Any],
            kwargs: dict[str, Any], stream: Any, max_turns: Any
            ) -> Union[Response, ResponseStream]:
    call = _prepare(client, model, input, args, dict(kwargs), stream, max_turns)
    try:
        return _run(call)
    except NotFoundError as error:
        if not _no_responses_api(client, model, call, error):
            raise
    return _run(_prepare(client, model, input, args, kwargs, stream, max_turns))


async def _acreate(client: Any, model: str, input: Any, args: dict[str, Any],
                   kwargs: dict[str, Any], stream: Any, max_turns: Any
                   ) -> Union[Response, AsyncResponseStream]:
    call = await _aprepare(client, model, input, args, dict(kwargs), stream, max_turns)
    try:
        return await _arun(call)
    except NotFoundError as error:
        if not _no_responses_api(client, model, call, error):
            raise
    return await _arun(_prepare(client, model, input, args, kwargs, stream, max_turns))


def _args(instructions: Any, tools: Any, tool_choice: Any, max_output_tokens: Any,
          temperature: Any, reasoning: Any, text: Any, previous_response_id: Any, store: Any,
          include: Any) -> dict[str, Any]:
    return {"instructions": instructions, "tools": tools, "tool_choice": tool_choice,
            "max_output_tokens": max_output_tokens, "temperature": temperature,
            "reasoning": reasoning, "text": text, "previous_response_id": previous_response_id,
            "store": store, "include": include}


async def _aprepare(client: Any, model: str, input: Any, args: dict[str, Any],
                    kwargs: dict[str, Any], stream: Any, max_turns: Any) -> _Call:
    if args.get("tools") is not None:
        from ..tools.toolset import aopen_tool_sources

        await aopen_tool_sources(args["tools"], client)  # MCP servers start off the loop
    return _prepare(client, model, input, args, kwargs, stream, max_turns)


_Input = Union[str, Iterable[Any]]


class Responses:
    """``client.responses`` of the sync ``Client``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @overload
    def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
               tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
               max_output_tokens: Optional[int] = None, temperature: Optional[float] = None,
               reasoning: Optional[Mapping[str, Any]] = None,
               text: Optional[Mapping[str, Any]] = None, stream: Literal[True],
               previous_response_id: Optional[str] = None, store: Optional[bool] = None,
               include: Optional[Sequence[str]] = None, max_turns: Optional[int] = None,
               **provider_kwargs: Any) -> ResponseStream: ...

    @overload
    def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
               tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
               max_output_tokens: Optional[int] = None, temperature: Optional[float] = None,
               reasoning: Optional[Mapping[str, Any]] = None,
               text: Optional[Mapping[str, Any]] = None, stream: Literal[False] = False,
               previous_response_id: Optional[str] = None, store: Optional[bool] = None,
               include: Optional[Sequence[str]] = None, max_turns: Optional[int] = None,
               **provider_kwargs: Any) -> Response: ...

    @overload
    def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
               tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
               max_output_tokens: Optional[int] = None, temperature: Optional[float] = None,
               reasoning: Optional[Mapping[str, Any]] = None,
               text: Optional[Mapping[str, Any]] = None, stream: bool,
               previous_response_id: Optional[str] = None, store: Optional[bool] = None,
               include: Optional[Sequence[str]] = None, max_turns: Optional[int] = None,
               **provider_kwargs: Any) -> Union[Response, ResponseStream]: ...

    def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
               tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
               max_output_tokens: Optional[int] = None, temperature: Optional[float] = None,
               reasoning: Optional[Mapping[str, Any]] = None,
               text: Optional[Mapping[str, Any]] = None, stream: bool = False,
               previous_response_id: Optional[str] = None, store: Optional[bool] = None,
               include: Optional[Sequence[str]] = None, max_turns: Optional[int] = None,
               **provider_kwargs: Any) -> Union[Response, ResponseStream]:
        """One Responses call on any provider (docs/responses.md). ``max_turns`` runs the
        tools (functions, ``ai.Tool`` objects, MCP servers) for at most that many model calls,
        with the tool runner's options (``tool_policy``, ``on_max_turns``, ...)."""
        return _create(self._client, model, input,
                       _args(instructions, tools, tool_choice, max_output_tokens, temperature,
                             reasoning, text, previous_response_id, store, include),
                       provider_kwargs, stream, max_turns)

    async def acreate(self, model: str, input: _Input, *, instructions: Optional[str] = None,
                      tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
                      max_output_tokens: Optional[int] = None,
                      temperature: Optional[float] = None,
                      reasoning: Optional[Mapping[str, Any]] = None,
                      text: Optional[Mapping[str, Any]] = None, stream: bool = False,
                      previous_response_id: Optional[str] = None,
                      store: Optional[bool] = None, include: Optional[Sequence[str]] = None,
                      max_turns: Optional[int] = None, **provider_kwargs: Any
                      ) -> Union[Response, AsyncResponseStream]:
        """``create`` awaited on the sync client (aisuite's name)."""
        return await _acreate(self._client, model, input,
                              _args(instructions, tools, tool_choice, max_output_tokens,
                                    temperature, reasoning, text, previous_response_id, store,
                                    include), provider_kwargs, stream, max_turns)


class AsyncResponses:
    """``client.responses`` of ``AsyncClient``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @overload
    async def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
                     tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
                     max_output_tokens: Optional[int] = None,
                     temperature: Optional[float] = None,
                     reasoning: Optional[Mapping[str, Any]] = None,
                     text: Optional[Mapping[str, Any]] = None, stream: Literal[True],
                     previous_response_id: Optional[str] = None,
                     store: Optional[bool] = None, include: Optional[Sequence[str]] = None,
                     max_turns: Optional[int] = None, **provider_kwargs: Any
                     ) -> AsyncResponseStream: ...

    @overload
    async def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
                     tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
                     max_output_tokens: Optional[int] = None,
                     temperature: Optional[float] = None,
                     reasoning: Optional[Mapping[str, Any]] = None,
                     text: Optional[Mapping[str, Any]] = None, stream: Literal[False] = False,
                     previous_response_id: Optional[str] = None,
                     store: Optional[bool] = None, include: Optional[Sequence[str]] = None,
                     max_turns: Optional[int] = None, **provider_kwargs: Any) -> Response: ...

    @overload
    async def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
                     tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
                     max_output_tokens: Optional[int] = None,
                     temperature: Optional[float] = None,
                     reasoning: Optional[Mapping[str, Any]] = None,
                     text: Optional[Mapping[str, Any]] = None, stream: bool,
                     previous_response_id: Optional[str] = None,
                     store: Optional[bool] = None, include: Optional[Sequence[str]] = None,
                     max_turns: Optional[int] = None, **provider_kwargs: Any
                     ) -> Union[Response, AsyncResponseStream]: ...

    async def create(self, model: str, input: _Input, *, instructions: Optional[str] = None,
                     tools: Optional[Iterable[Any]] = None, tool_choice: Any = None,
                     max_output_tokens: Optional[int] = None,
                     temperature: Optional[float] = None,
                     reasoning: Optional[Mapping[str, Any]] = None,
                     text: Optional[Mapping[str, Any]] = None, stream: bool = False,
                     previous_response_id: Optional[str] = None,
                     store: Optional[bool] = None, include: Optional[Sequence[str]] = None,
                     max_turns: Optional[int] = None, **provider_kwargs: Any
                     ) -> Union[Response, AsyncResponseStream]:
        """The async ``create``: ``stream=True`` returns an ``AsyncResponseStream``."""
        return await _acreate(self._client, model, input,
                              _args(instructions, tools, tool_choice, max_output_tokens,
                                    temperature, reasoning, text, previous_response_id, store,
                                    include), provider_kwargs, stream, max_turns)
