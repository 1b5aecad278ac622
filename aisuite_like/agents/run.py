"""Agents (docs/agents.md): immutable ``Agent`` configuration (defined in agent.py, below
the run's modules), ``Runner`` to run one, and ``RunResult``. A run drives the tool loop's
engine (loop/engine.py) through ``AgentLoop`` (turn.py) with the async driver
(loop/drivers.py); run state lives in the run, so one agent serves many concurrent runs.

    agent = ai.Agent(name="weather", model="openai:gpt-4o", instructions="Be brief.",
                     tools=[get_weather])
    result = ai.Runner.run_sync(agent, "Weather in Paris?")
    print(result.final_output)

The OpenAI Agents SDK's names work on these (``context=``, guardrails, ``RunHooks`` /
``AgentHooks``, ``handoff()``, ``new_items``, ``stream_events()``, approvals and ``RunState``);
their building blocks live in sdk.py, items.py and state.py, and the run
below calls them at the SDK's points.

See docs/agents.md for the semantics and the decisions behind them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, TextIO, TypeVar, Union

from pydantic import BaseModel

from ..client.prepare import prepare_call, provider_for_model
from ..core.checks import check_max_turns
from ..core.content import text_of
from ..core.cost import price_known
from ..core.errors import (
    InputGuardrailTripwireTriggered,
    MissingDependencyError,
    OutputGuardrailTripwireTriggered,
    UnsupportedParameterError,
)
from ..core.responses_events import EventBuilder
from ..core.responses_items import (
    input_to_messages,
    is_items_input,
    messages_to_items,
    usage_to_response,
)
from ..core.run_context import AgentHookContext, RunContextWrapper, TContext, ToolContext
from ..core.sync_bridge import run_coro_sync as _run_coro_sync
from ..core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Message,
    ToolEvent,
    Usage,
    message_input,
)
from ..loop.drivers import DIRECT_STEPS, DriverSteps, drive_async
from ..loop.engine import CallModel, ToolBatch, ToolCallRun, to_message
from ..loop.execute import Interrupt, carry_interrupt, raise_interrupt
from ..loop.hooks import RunHooks as _DriverHooks
from .agent import (
    FINAL_RESULT,
    Agent,
    InputGuardrail,
    InputGuardrailResult,
    OutputGuardrailResult,
    RunHooks as SDKRunHooks,
    RunLimits,
    _ControlTool,
)
from .context import ContextStrategy, Session, fit_tokens, keep_last
from .events import (
    AgentEvent,
    ContextUpdated,
    Handoff,
    ModelRequest,
    RunCompleted,
    RunStarted,
    TextDelta,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    render_trace,
    tool_call_events,
)
from .items import (
    AgentUpdatedStreamEvent,
    HandoffInputData,
    RawResponsesStreamEvent,
    RunItem,
    StreamEvent,
    ToolApprovalItem,
    item_event,
    message_items,
)
from .sdk import default_model, maybe_await
from .state import RunState, restore_loop, snapshot_loop
from .turn import (
    _NO_OUTPUT,
    AgentLoop,
    AgentSetup,
    Approvals,
    _AgentPolicy,
    supports_native_output,
)

__all__ = [
    "Agent", "Runner", "RunResult", "RunLimits", "ToolCallSummary", "Session", "keep_last",
    "fit_tokens", "ContextStrategy", "AgentEvent", "RunStarted", "ModelRequest", "TextDelta",
    "ToolCallRequestEvent", "ToolCallExecutionEvent", "Handoff", "RunCompleted",
    "ContextUpdated",
]

# Control characters (C0, DEL, C1) are not allowed in agent names.
_DEFAULT_BUFFER = 64
_T = TypeVar("_T")

#: One input message: an OpenAI-style message dict, or an ``ai.Message`` (in a list, any
#: pydantic message object, e.g. the OpenAI SDK's).
_RunInputMessage = Union[Mapping[str, Any], Message]
#: What a run starts from: a prompt, one message, messages, or a paused run's ``RunState``.
_RunInput = Union[str, _RunInputMessage, Iterable[Union[_RunInputMessage, BaseModel]], RunState]
#: A run's client: ``None`` means a ``Client()`` from the environment.
_AnyClient = Union["Client", "AsyncClient"]

if TYPE_CHECKING:
    from ..client.facade import AsyncClient, Client

_NO_LIMITS = RunLimits()


@dataclass(frozen=True)
class ToolCallSummary:
    """How a run that ends right after tool execution (no model answer) reports: every tool
    call of every round, one line each, rendered with ``tool_call_summary_format``."""

    calls: tuple[ToolEvent, ...]
    text: str

    @classmethod
    def render(cls, calls: Sequence[ToolEvent], fmt: str) -> "ToolCallSummary":
        lines = [fmt.format(tool_name=e.name, result=e.result, is_error=e.is_error,
                            arguments=e.arguments if isinstance(e.arguments, str)
                            else json.dumps(e.arguments, ensure_ascii=False))
                 for e in calls]
        return cls(tuple(calls), "\n".join(lines))

    def __str__(self) -> str:
        return self.text


@dataclass
class RunResult:
    """The outcome of a run.

    ``status``: ``"completed"`` (the model answered), ``"max_turns"`` (the last allowed turn
    still called tools; the answer is the reflection or the tool-call summary),
    ``"handoff"`` (the last allowed turn handed off: ``last_agent`` continues in a next run),
    ``"limit"`` (``limit`` names the bound) or ``"cancelled"``. ``final_output``: the
    validated ``output_type`` instance or the answer text; the summary text when the run ended
    right after tools. ``messages``: the whole conversation (history, input, produced: a valid
    history to continue from); ``new_messages``: what this run produced. ``tags`` /
    ``metadata``: the starting agent's (aisuite's fields).
    """

    final_output: Any
    status: str
    limit: Optional[str]
    last_agent: Agent
    run_id: str
    messages: list[Message] = field(repr=False)
    new_messages: list[Message] = field(repr=False)
    raw_responses: list[ChatCompletionResponse] = field(repr=False)
    usage: Optional[Usage] = field(repr=False)
    events: list[AgentEvent] = field(repr=False)
    tool_events: list[ToolEvent] = field(repr=False)
    tool_call_summary: Optional[ToolCallSummary] = field(default=None, repr=False)
    # The OpenAI Agents SDK's names.
    input: Any = field(default=None, repr=False)
    new_items: list[RunItem] = field(default_factory=list, repr=False)
    context_wrapper: Optional[RunContextWrapper[Any]] = field(default=None, repr=False)
    input_guardrail_results: list[InputGuardrailResult] = field(default_factory=list,
                                                                repr=False)
    output_guardrail_results: list[OutputGuardrailResult] = field(default_factory=list,
                                                                  repr=False)
    interruptions: list[ToolApprovalItem] = field(default_factory=list, repr=False)
    # aisuite's names: the starting agent's tags and metadata.
    tags: list[str] = field(default_factory=list, repr=False)
    metadata: dict[str, Any] = field(default_factory=dict, repr=False)
    _snapshot: Optional[dict[str, Any]] = field(default=None, repr=False)
    _start_agent: Optional[Agent] = field(default=None, repr=False)

    def print_trace(self, file: Optional[TextIO] = None) -> None:
        """Print the run as a timeline (coloured when the output is a terminal)."""
        render_trace(self.events, file)

    def final_output_as(self, cls: type[_T], raise_if_incorrect_type: bool = False) -> _T:
        """``final_output`` typed as ``cls``; with ``raise_if_incorrect_type=True`` a
        ``TypeError`` when it is not an instance of ``cls``."""
        if raise_if_incorrect_type and not isinstance(self.final_output, cls):
            raise TypeError(f"final output is not of type {cls.__name__}: "
                            f"{type(self.final_output).__name__}")
        return self.final_output  # type: ignore[no-any-return]  # the caller names its type

    def to_input_list(self) -> list[dict[str, Any]]:
        """This run's input and everything it produced, as Responses input items (the Agents
        SDK's shape: messages, ``function_call``, ``function_call_output``, ``reasoning``):
        the input of a next run (``Runner.run(agent, result.to_input_list() + [new
        message])``). Input given as items is kept as given."""
        return [*input_items(self.input), *messages_to_items(self.new_messages)]

    @property
    def last_response_id(self) -> Optional[str]:
        """The id of the last model response of the run (None when no model was called)."""
        return self.raw_responses[-1].id if self.raw_responses else None

    def to_state(self) -> "RunState":
        """The state of an interrupted run (``status == "interrupted"``): approve or reject
        its interruptions, then ``Runner.run(agent, state)`` resumes it."""
        if self._snapshot is None:
            raise ValueError(f"this run ended with status {self.status!r}; only an "
                             "interrupted run (result.interruptions) has a state to resume")
        assert self.context_wrapper is not None
        return RunState._from_snapshot(self._snapshot, self._starting_agent,
                                       self.context_wrapper)

    @property
    def _starting_agent(self) -> Agent:
        return self._start_agent if self._start_agent is not None else self.last_agent


# --- running ----------------------------------------------------------------------------------


def _check_priced_agents(agent: Agent) -> None:
    """Before a run with ``RunLimits(max_cost=...)``: every agent it may reach (the agent and,
    transitively, its handoffs) must have a known price, or the bound could not be kept."""
    try:
        import genai_prices  # noqa: F401 (only: is it installed?)
    except ImportError:
        raise MissingDependencyError(
            "RunLimits(max_cost=...) needs model prices: "
            "pip install \"aisuite-like[prices]\"") from None
    seen: set[int] = set()
    pending: list[Agent] = [agent]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        key, _, model = str(current.model).partition(":")
        if not price_known(key, model):
            raise ValueError(
                f"RunLimits(max_cost=...) needs the price of agent {current.name!r}'s model "
                f"{current.model!r}, which genai-prices does not know; drop max_cost, or bound "
                "the run with max_total_tokens / max_model_calls")
        pending.extend(current._handoff_map.values())


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def run_input_messages(input: Any) -> list[dict[str, Any]]:
    """A run's input -> chat messages: a prompt, a message, chat messages, or Responses input
    items (the Agents SDK's ``TResponseInputItem``: ``input_text`` / ``input_image`` parts,
    ``function_call``, ``function_call_output``, ``reasoning`` items)."""
    from ..client.base import normalize_messages

    if isinstance(input, str):
        return [{"role": "user", "content": input}]
    if isinstance(input, (dict, Message)):
        input = [input]
    if isinstance(input, (list, tuple)) and is_items_input(input):
        return input_to_messages(input)
    # Copies: they are stored in a Session and the caller's dicts are never touched.
    return [dict(m) for m in normalize_messages(input)]


def input_items(input: Any) -> list[dict[str, Any]]:
    """A run's input as Responses input items: items as given (copies), anything else
    converted."""
    if isinstance(input, (list, tuple)) and is_items_input(input):
        return [dict(i) if isinstance(i, Mapping) else i.model_dump(exclude_none=True)
                for i in input]
    if isinstance(input, RunState):
        return input_items(input.original_input)
    return messages_to_items(run_input_messages(input))


def _refuse_server_state(previous_response_id: Optional[str],
                         conversation_id: Optional[str]) -> None:
    for name, value in (("previous_response_id", previous_response_id),
                        ("conversation_id", conversation_id)):
        if value is not None:
            raise UnsupportedParameterError(
                f"{name} continues a conversation stored on OpenAI's server; an agent run "
                "sends the whole conversation itself: pass result.to_input_list() plus the "
                "next message as the input, or use an ai.Session", parameter=name)


def _get_role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else getattr(message, "role",
                                                                            None)


def _sum_usage(responses: Sequence[ChatCompletionResponse]) -> Optional[Usage]:
    total: Optional[Usage] = None
    for response in responses:
        if response.usage is not None:
            total = response.usage if total is None else total + response.usage
    return total


class _EventHooks(_DriverHooks):
    """Turns the driver's observation points into events (awaited: with a bounded queue, a
    slow consumer slows the run), and calls the Agents SDK's hooks and async preparations
    (dynamic instructions, handoff input filters) at the matching points."""

    def __init__(self, run: "AgentRun") -> None:
        self.run = run
        self._streamed_text = False
        self._events: Optional[EventBuilder] = None  # the SDK's raw events of one model call

    async def on_model_request(self, engine: Any, action: CallModel) -> None:
        run = self.run
        await run.flush(engine)
        window = engine.window
        if window is not None:  # what the context strategy changed for this call
            for change in window.events[engine.context_seen:]:
                await run.emit(ContextUpdated(run_id=engine.run_id,
                                              agent_name=engine.agent.name, event=change))
            engine.context_seen = len(window.events)
        await run.prepare_request(engine, action)
        engine.message_id = _new_id("msg")
        kind, engine.call_kind = engine.call_kind, "turn"
        self._streamed_text = False
        self._events = EventBuilder({}) if run.sdk_stream else None
        await run.emit(ModelRequest(
            run_id=engine.run_id, agent_name=engine.agent.name, message_id=engine.message_id,
            turn=action.turn, model=engine.setup.model, kind=kind))

    async def on_chunk(self, engine: Any, chunk: ChatCompletionChunk) -> None:
        if self._events is not None:  # the model call's Responses stream events
            for event in self._events.add(chunk):
                await self.run.emit_sdk(RawResponsesStreamEvent(event))
        if chunk.choices:
            text = chunk.choices[0].delta.content
            if text:
                self._streamed_text = True
                await self.run.emit(TextDelta(run_id=engine.run_id, agent_name=engine.agent.name,
                                              message_id=engine.message_id, text=text))

    async def on_model_response(self, engine: Any,
                                response: ChatCompletionResponse) -> None:
        run = self.run
        if not self._streamed_text and response.choices:  # not streamed: the text, once
            text = text_of(response.choices[0].message.content)
            if text:
                await run.emit(TextDelta(run_id=engine.run_id, agent_name=engine.agent.name,
                                         message_id=engine.message_id, text=text))
        run.context.usage.add_response_usage(response.usage)
        builder, self._events = self._events, None
        if builder is not None and builder.started:
            finish = response.choices[0].finish_reason if response.choices else None
            for event in builder.complete(usage_to_response(response.usage), finish):
                await run.emit_sdk(RawResponsesStreamEvent(event))
        await run.call_hooks(engine.agent, "on_llm_end", "on_llm_end", response)
        if run.sdk_stream and response.choices:
            for item in message_items(response.choices[0].message, engine.agent):
                await run.emit_sdk(item_event(item))

    async def on_tool_batch(self, engine: Any, batch: ToolBatch) -> None:
        await self.run.guardrails_passed()  # nothing runs before the input guardrails pass
        for call in batch.calls:
            if call.call_id not in engine.resumed_ids:
                await self.run.emit(tool_call_events(engine, call)[0])

    async def on_tool_result(self, engine: Any, call: ToolCallRun) -> None:
        if call.deferred or call.call_id in engine.resumed_done:
            return  # waits for a person / already reported before the pause
        await self.run.emit(tool_call_events(engine, call)[1])
        if self.run.sdk_stream:
            for item in message_items(call.tool_message(), engine.agent):
                await self.run.emit_sdk(item_event(item))

    async def on_tool_start(self, engine: Any, call: ToolCallRun) -> None:
        if not isinstance(call.tool, _ControlTool):
            await self.run.call_hooks(engine.agent, "on_tool_start", "on_tool_start", call.tool,
                                      context=self.run.tool_context(call))

    async def on_tool_end(self, engine: Any, call: ToolCallRun) -> None:
        if not isinstance(call.tool, _ControlTool):
            await self.run.call_hooks(engine.agent, "on_tool_end", "on_tool_end", call.tool,
                                      call.result, context=self.run.tool_context(call))


class AgentRun:
    """One run: its own state, events and (optional) event queue."""

    def __init__(self, agent: Agent, input: Any, *, client: Any, session: Optional[Session],
                 max_turns: Optional[int], limits: Optional[RunLimits], streamed: bool,
                 queue: Optional["asyncio.Queue[Any]"] = None, context: Any = None,
                 hooks: Any = None) -> None:
        if not isinstance(agent, Agent):
            raise TypeError(f"Runner needs an ai.Agent, got {type(agent).__name__}")
        if session is not None and not isinstance(session, Session):
            raise TypeError(f"session must be an ai.Session, got {type(session).__name__}")
        if limits is not None and not isinstance(limits, RunLimits):
            raise TypeError(f"limits must be an ai.RunLimits, got {type(limits).__name__}")
        if hooks is not None and not isinstance(hooks, SDKRunHooks):
            raise TypeError(f"hooks must be an ai.RunHooks, got {type(hooks).__name__}")
        self.state: Optional[RunState] = input if isinstance(input, RunState) else None
        if max_turns is None:
            max_turns = (self.state.max_turns if self.state is not None else agent.max_turns)
        check_max_turns(max_turns)
        self.agent = agent
        if self.state is not None:
            self.state._check_agent(agent)
            self.original_input = self.state.original_input
            self.input = self.state.input
            self.context = self.state.context_wrapper
            if context is not None:
                self.context.context = context
        else:
            self.original_input = input
            self.input = run_input_messages(input)
            if not self.input and (session is None or not len(session)):
                raise ValueError("the run has no input: give a prompt or messages")
            self.context = RunContextWrapper(context)
        if agent.model is None and default_model() is None and self.state is None:
            raise ValueError(f"agent {agent.name!r} has no model: give Agent(model="
                             "'provider:model') or call ai.set_default_model('provider:model')")
        self.client = client
        self.session = session
        self.max_turns = max_turns
        self.limits = limits or _NO_LIMITS
        if self.limits.max_cost is not None:
            _check_priced_agents(agent)
        self.streamed = streamed
        self.queue = queue
        self.hooks = hooks
        self.sdk_stream = False  # the consumer reads stream_events(): queue the SDK's events
        self.detached = False  # the stream's consumer is gone: keep events, stop queueing
        self.run_id = self.state.run_id if self.state is not None else _new_id("run")
        self.events: list[AgentEvent] = []
        self.input_guardrail_results: list[InputGuardrailResult] = []
        self.output_guardrail_results: list[OutputGuardrailResult] = []
        self.approvals = Approvals(self.context)
        if self.state is not None:
            self.approvals.always.update(self.state._always)
        self._guard_task: Optional[asyncio.Future[Any]] = None
        self._tripped: Optional[BaseException] = None
        self._agent_started: Optional[Agent] = None
        self.steps: DriverSteps = DIRECT_STEPS  # how model and tool calls run (durable: as steps)

    async def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        if self.queue is not None and not self.detached and not self.sdk_stream:
            await self.queue.put(event)

    async def emit_sdk(self, event: StreamEvent) -> None:
        if self.queue is not None and not self.detached and self.sdk_stream:
            await self.queue.put(event)

    async def flush(self, engine: AgentLoop) -> None:
        outbox, engine.outbox = engine.outbox, []
        for event in outbox:
            await self.emit(event)
        handoffs, engine.handoffs_done = engine.handoffs_done, []
        for source, target in handoffs:
            if self.hooks is not None:
                await maybe_await(self.hooks.on_handoff(self.context, source, target))
            if target.hooks is not None:
                await maybe_await(target.hooks.on_handoff(self.context, target, source))
        await self.agent_started(engine.agent, engine.history)

    async def agent_started(self, agent: Agent, history: Optional[Sequence[Any]] = None
                            ) -> None:
        """on_agent_start / on_start and the SDK's AgentUpdatedStreamEvent, once per agent
        change (the run's start, each handoff). The hooks get an ``AgentHookContext`` whose
        ``turn_input`` is what the agent starts from, as Responses items."""
        if self._agent_started is agent:
            return
        self._agent_started = agent
        if self.sdk_stream:
            await self.emit_sdk(AgentUpdatedStreamEvent(agent))
        if self.hooks is None and agent.hooks is None:
            return
        start = [m for m in history if _get_role(m) != "system"] if history is not None \
            else self.input
        context = AgentHookContext(self.context.context, self.context.usage,
                                   turn_input=messages_to_items(start))
        await self.call_hooks(agent, "on_agent_start", "on_start", context=context)

    def tool_context(self, call: ToolCallRun) -> ToolContext[Any]:
        """The context the tool hooks receive: the run's, and the call's name, id and
        arguments."""
        return ToolContext(self.context.context, self.context.usage, tool_name=call.name,
                           tool_call_id=call.call_id, tool_arguments=call.raw_arguments or "")

    async def call_hooks(self, agent: Agent, run_hook: str, agent_hook: str, *args: Any,
                         context: Optional[RunContextWrapper[Any]] = None) -> None:
        """The run's ``RunHooks`` method, then the agent's ``AgentHooks`` method (sync or
        async), each with (context, agent, *args); ``context`` the run's unless given."""
        ctx = self.context if context is None else context
        if self.hooks is not None:
            await maybe_await(getattr(self.hooks, run_hook)(ctx, agent, *args))
        if agent.hooks is not None:
            await maybe_await(getattr(agent.hooks, agent_hook)(ctx, agent, *args))

    async def prepare_request(self, engine: AgentLoop, action: Any) -> None:
        """What needs awaiting before a model call: the handoff input filter, callable
        instructions; then the request is rebuilt and ``on_llm_start`` called."""
        rebuild = False
        pending = engine.handoff_input()
        if pending is not None:
            spec, data = pending
            filtered = await maybe_await(spec.input_filter(data))  # type: ignore[misc]  # sync or async filter
            if not isinstance(filtered, HandoffInputData):
                raise TypeError(f"the input_filter of handoff {spec.tool_name!r} must return "
                                f"a HandoffInputData, got {type(filtered).__name__}")
            engine.history = filtered.messages()
            rebuild = True
        agent = engine.agent
        instructions = agent.instructions
        if callable(instructions):
            text = await maybe_await(instructions(self.context, agent))
            if text is not None and not isinstance(text, str):
                raise TypeError(f"the instructions of agent {agent.name!r} returned "
                                f"{type(text).__name__}; they must return a str")
            engine.system_prompt = text
            rebuild = True
        else:
            text = instructions
        if rebuild:
            action.request = engine.request_for(action.turn, final_answer=action.final_answer)
        if self.hooks is not None or agent.hooks is not None:
            messages = list(action.request.messages)
            if text and messages and messages[0].get("role") == "system":
                messages = messages[1:]
            await self.call_hooks(agent, "on_llm_start", "on_llm_start", text, messages)

    # -- input guardrails

    async def guardrails_passed(self) -> None:
        if self._guard_task is not None:
            await asyncio.shield(self._guard_task)

    async def _input_guardrails(self, guards: Sequence[InputGuardrail[Any]]) -> None:
        results = await asyncio.gather(*(g.run(self.agent, self.original_input, self.context)
                                         for g in guards))
        self.input_guardrail_results += results
        tripped = next((r for r in results if r.output.tripwire_triggered), None)
        if tripped is not None:
            raise InputGuardrailTripwireTriggered(tripped)

    def _start_parallel_guardrails(self, inner: "asyncio.Future[Any]",
                                   guards: Sequence[InputGuardrail[Any]]) -> None:
        async def guard() -> None:
            try:
                await self._input_guardrails(guards)
            except Exception as exc:  # a tripwire or a failing guardrail stops the run
                self._tripped = exc
                inner.cancel()

        self._guard_task = asyncio.ensure_future(guard())

    # -- the run

    async def execute(self) -> RunResult:
        if self.session is None:
            return await self._with_client()
        with self.session._guard():
            return await self._with_client()

    async def _with_client(self) -> RunResult:
        if self.client is not None:
            return await self._execute(self.client)
        from ..client.facade import Client

        client = Client()  # configured from the environment; ours to close
        try:
            return await self._execute(client)
        finally:
            for provider in {id(p): p for p in client._instances.values()}.values():
                await provider.aclose()
                provider.close()

    def _setup_for(self, client: Any, cache: dict[int, AgentSetup]) -> Any:
        from ..client.base import parse_model

        def setup_for(agent: Agent) -> AgentSetup:
            setup = cache.get(id(agent))
            if setup is not None:
                return setup
            model = agent.model or default_model()
            if model is None:
                raise ValueError(f"agent {agent.name!r} has no model: give Agent(model="
                                 "'provider:model') or call ai.set_default_model(...)")
            spec = agent._output
            key = parse_model(model)[0]
            kwargs: dict[str, Any] = dict(agent.model_settings)
            native = spec is not None and supports_native_output(
                key, provider_for_model(client, model))
            forced = spec is not None and not native
            tools = agent._tools_with_output if forced else agent._tools
            forced_choice: Any = None
            if forced:
                assert tools is not None  # built with the output spec
                if "tool_choice" in kwargs:
                    raise UnsupportedParameterError(
                        f"agent {agent.name!r}: model_settings['tool_choice'] cannot be combined "
                        f"with output_type on provider {key!r}, whose structured output is the "
                        f"forced {FINAL_RESULT!r} tool", parameter="tool_choice", provider=key)
                forced_choice = {"type": "function", "function": {"name": FINAL_RESULT}}
                kwargs["tool_choice"] = forced_choice if len(tools) == 1 else "required"
            elif spec is not None:
                kwargs["response_format"] = spec.response_format
            kwargs["tools"] = tools if tools is not None and len(tools) else None
            kwargs["stream"] = self.streamed
            if self.limits.budget is not None:  # every model call of the run admitted
                from ..budgets.budget import check_budgets

                kwargs["budget"] = [*check_budgets(kwargs.get("budget")),
                                    *check_budgets(self.limits.budget)]
            if self.streamed and kwargs.get("stream_options") is None:
                kwargs["stream_options"] = {"include_usage": True}  # usage feeds the limits
            call = prepare_call(client, model, [], kwargs)  # messages: filled per model call
            control = frozenset(agent._handoff_map) | (
                {FINAL_RESULT} if forced else frozenset())
            approvals_needed = tools is not None and any(
                t.needs_approval is not False for t in tools.by_name.values())
            policy = (None if agent.tool_policy is None and not approvals_needed
                      else _AgentPolicy(agent.tool_policy, control, tools, self.approvals))
            setup = cache[id(agent)] = AgentSetup(
                agent=agent, provider=call.provider, request=call.request, tools=call.tools,
                policy=policy, output=spec, forced_output=forced, forced_choice=forced_choice,
                handoffs=dict(agent._handoff_map), handoff_specs=dict(agent._handoff_specs),
                model=model)
            return setup

        return setup_for

    async def _execute(self, client: Any) -> RunResult:
        session = self.session
        if self.agent._tools is not None and self.agent._tools.sources:
            from ..tools.toolset import aopen_tool_sources

            await aopen_tool_sources(self.agent._tools, client)  # MCP servers start off-loop
        setup_for = self._setup_for(client, {})
        context = session._context if session is not None else list
        window = session._window() if session is not None else None
        if window is not None:  # an ai.context strategy: the engine applies it
            context = list
        if self.state is not None:
            loop = restore_loop(self.state, self, setup_for, context)
            history_count = self.state.session_count
        else:
            history = list(session._history) if session is not None else []
            history_count = len(history)
            loop = AgentLoop(setup_for(self.agent), [*history, *self.input],
                             max_turns=self.max_turns, limits=self.limits, setup_for=setup_for,
                             context=context, run_id=self.run_id, run_context=self.context,
                             window=window)
        loop.session_count = history_count
        model = getattr(window.strategy, "model", None) if window is not None else None
        if isinstance(model, str):  # Summarize(model=...): prepared as any call of the run
            kwargs: dict[str, Any] = {}
            if self.limits.budget is not None:
                kwargs["budget"] = self.limits.budget
            prepared = prepare_call(client, model, [{"role": "user", "content": "-"}], kwargs)
            loop._summarizer = (prepared.provider, prepared.request)
            assert loop.window is not None
            loop.window.summarizer_model = model
        await self.emit(RunStarted(run_id=self.run_id, agent_name=self.agent.name,
                                   input=list(self.input)))
        guards = self.agent.input_guardrails if self.state is None else ()
        first = [g for g in guards if not g.run_in_parallel]
        if first:
            await self._input_guardrails(first)
        await self.agent_started(loop.agent)
        inner = asyncio.ensure_future(carry_interrupt(self._drive(loop)))
        parallel = [g for g in guards if g.run_in_parallel]
        if parallel:
            self._start_parallel_guardrails(inner, parallel)
        stopped: Optional[tuple[str, Optional[str]]] = None
        try:
            done, _ = await asyncio.wait({inner}, timeout=self.limits.timeout_s)
            if not done:
                stopped = ("limit", "timeout_s")
        except asyncio.CancelledError:
            # The caller cancelled the run: stop the work, then report it (see docs/agents.md).
            stopped = ("cancelled", None)
        if stopped is not None:
            inner.cancel()
            await asyncio.wait({inner})
        if self._guard_task is not None:
            if stopped is not None:
                self._guard_task.cancel()
            await asyncio.wait({self._guard_task})
        if self._tripped is not None:
            raise self._tripped
        if inner.cancelled():
            status, limit = stopped or ("cancelled", None)
            if loop.open_batch is not None:  # answer every call: no orphan in the trace
                why = ("the run was cancelled" if status == "cancelled"
                       else "the run reached its timeout_s limit")
                loop.abandon(loop.open_batch, f"tool call not finished: {why}")
                loop.open_batch = None
        else:
            error = inner.exception()
            if error is not None:
                raise_interrupt(error)  # a tool's Ctrl-C: as itself, from this task
                raise error
            status = loop.status or loop.stop_reason or "completed"
            limit = loop.limit
        return await self._result(loop, status, limit, history_count)

    async def _drive(self, loop: AgentLoop) -> None:
        async for _ in drive_async(loop, loop.setup.provider, _EventHooks(self), self.steps):
            pass

    async def _result(self, loop: AgentLoop, status: str, limit: Optional[str],
                      history_count: int) -> RunResult:
        await self.flush(loop)
        produced = list(loop.produced)
        summary: Optional[ToolCallSummary] = None
        if status == "interrupted":
            final_output = None
        elif loop.output is not _NO_OUTPUT:
            final_output = loop.output
        elif produced and produced[-1].role == "tool":  # ended right after tools
            summary = ToolCallSummary.render(loop.tool_events,
                                             loop.agent.tool_call_summary_format)
            final_output = summary.text
        elif produced and produced[-1].role == "assistant":
            final_output = produced[-1].content
        else:
            final_output = None
        if status in ("completed", "max_turns") and final_output is not None:
            await self._output_guardrails(loop.agent, final_output)
            await self.call_hooks(loop.agent, "on_agent_end", "on_end", final_output)
        interruptions = loop.paused_items()
        snapshot = None
        if interruptions:
            snapshot = snapshot_loop(loop, self)
            if self.sdk_stream:
                for item in interruptions:
                    await self.emit_sdk(item_event(item))
        elif self.session is not None:  # input and produced, whatever a handoff filter sent
            self.session._history.extend(dict(m) for m in loop.request.messages[history_count:])
            self.session._history.extend(message_input(m) for m in produced)
        usage = _sum_usage(loop.responses)
        result = RunResult(
            final_output=final_output, status=status, limit=limit, last_agent=loop.agent,
            run_id=self.run_id,
            messages=[*(to_message(m) for m in loop.request.messages), *produced],
            new_messages=produced, raw_responses=list(loop.responses), usage=usage,
            events=self.events, tool_events=list(loop.tool_events), tool_call_summary=summary,
            input=self.original_input, new_items=loop.items(), context_wrapper=self.context,
            input_guardrail_results=list(self.input_guardrail_results),
            output_guardrail_results=list(self.output_guardrail_results),
            interruptions=interruptions, tags=list(self.agent.tags),
            metadata=dict(self.agent.metadata), _snapshot=snapshot, _start_agent=self.agent)
        await self.emit(RunCompleted(
            run_id=self.run_id, agent_name=loop.agent.name, status=status, limit=limit,
            final_output=final_output, usage=usage, result=result))
        return result

    async def _output_guardrails(self, agent: Agent, output: Any) -> None:
        if not agent.output_guardrails:
            return
        results = await asyncio.gather(*(g.run(self.context, agent, output)
                                         for g in agent.output_guardrails))
        self.output_guardrail_results += results
        tripped = next((r for r in results if r.output.tripwire_triggered), None)
        if tripped is not None:
            raise OutputGuardrailTripwireTriggered(tripped)


# --- the sync entry point's event loop ---------------------------------------------------------

_BACKGROUND_LOCK = threading.Lock()
_BACKGROUND: list[Any] = [None, None]  # [loop, thread]


def _background_loop() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """One daemon thread running one event loop for every ``run_sync``: the async HTTP
    clients a provider caches stay on the loop that created them, across calls."""
    with _BACKGROUND_LOCK:
        loop, thread = _BACKGROUND
        if loop is None or loop.is_closed() or not thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, daemon=True,
                                      name="aisuite-like-agents")
            thread.start()
            _BACKGROUND[:] = [loop, thread]
        return loop, thread


def _run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    loop, thread = _background_loop()
    if threading.current_thread() is thread:
        # run_sync from inside a run on that loop (e.g. an async tool): a private loop.
        result: _T = _run_coro_sync(coro)
        return result
    # carries the caller's contextvars; a tool's Ctrl-C comes back as itself, and the shared
    # background loop goes on (a KeyboardInterrupt leaving its task would stop that loop)
    future = asyncio.run_coroutine_threadsafe(carry_interrupt(coro), loop)
    try:
        done: _T = future.result()
        return done
    except Interrupt as interrupt:
        raise_interrupt(interrupt)
        raise
    except BaseException:
        future.cancel()  # e.g. KeyboardInterrupt: stop the run too
        raise


class Runner:
    """Runs agents: ``await Runner.run(...)``, ``Runner.run_sync(...)``,
    ``Runner.run_streamed(...)`` (iterate it for our events, or ``.stream_events()`` for the
    Agents SDK's)."""

    @staticmethod
    async def run(starting_agent: Agent[TContext], input: _RunInput, *,
                  context: Optional[TContext] = None,
                  client: Optional[_AnyClient] = None, session: Optional[Session] = None,
                  max_turns: Optional[int] = None, limits: Optional[RunLimits] = None,
                  hooks: Optional[SDKRunHooks[TContext]] = None,
                  previous_response_id: Optional[str] = None,
                  conversation_id: Optional[str] = None) -> RunResult:
        """Run ``starting_agent`` on ``input`` (a prompt, a message, a list of messages or of
        Responses input items, or a ``RunState`` to resume). ``context``: any object, given
        to tools, instructions, guardrails and hooks in their ``RunContextWrapper`` (never
        sent to the model); ``hooks``: ``RunHooks``. ``client`` None: a ``Client()`` from the
        environment; ``max_turns`` None: the agent's. Cancelling the task ends the run with
        ``status="cancelled"`` (returned, not raised). ``previous_response_id`` /
        ``conversation_id`` (server-side conversations) are refused: pass the history."""
        _refuse_server_state(previous_response_id, conversation_id)
        run = AgentRun(starting_agent, input, client=client, session=session, max_turns=max_turns,
                        limits=limits, streamed=False, context=context, hooks=hooks)
        return await run.execute()

    @staticmethod
    def run_sync(starting_agent: Agent[TContext], input: _RunInput, *,
                 context: Optional[TContext] = None,
                 client: Optional[_AnyClient] = None, session: Optional[Session] = None,
                 max_turns: Optional[int] = None, limits: Optional[RunLimits] = None,
                 hooks: Optional[SDKRunHooks[TContext]] = None,
                 previous_response_id: Optional[str] = None,
                 conversation_id: Optional[str] = None) -> RunResult:
        """``run`` from sync code, also inside a running event loop (the run executes on a
        background event-loop thread; the calling thread waits for it)."""
        _refuse_server_state(previous_response_id, conversation_id)
        AgentRun(starting_agent, input, client=client, session=session, max_turns=max_turns,
                  limits=limits, streamed=False, context=context,
                  hooks=hooks)  # bad arguments raise here, in the caller
        return _run_sync(Runner.run(starting_agent, input, context=context, client=client,
                                    session=session, max_turns=max_turns, limits=limits,
                                    hooks=hooks))

    @staticmethod
    def run_streamed(starting_agent: Agent[TContext], input: _RunInput, *,
                     context: Optional[TContext] = None,
                     client: Optional[_AnyClient] = None, session: Optional[Session] = None,
                     max_turns: Optional[int] = None, limits: Optional[RunLimits] = None,
                     hooks: Optional[SDKRunHooks[TContext]] = None,
                     buffer_size: int = _DEFAULT_BUFFER,
                     previous_response_id: Optional[str] = None,
                     conversation_id: Optional[str] = None) -> "RunResultStreaming":
        """A streamed run (``RunResultStreaming``). ``async for event in it`` gives our events,
        ending with ``RunCompleted`` (its ``result`` is the ``RunResult``); ``async for event in
        it.stream_events()`` gives the Agents SDK's events instead. Model turns are streamed.
        At most ``buffer_size`` events wait for the consumer; then the run waits
        (backpressure). Leaving the loop early cancels the run."""
        _refuse_server_state(previous_response_id, conversation_id)
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
            raise ValueError(f"buffer_size must be an int >= 1, got {buffer_size!r}")
        AgentRun(starting_agent, input, client=client, session=session, max_turns=max_turns,
                  limits=limits, streamed=True, context=context,
                  hooks=hooks)  # validate now, not at the first iteration
        return RunResultStreaming(dict(agent=starting_agent, input=input, client=client,
                                       session=session, max_turns=max_turns, limits=limits,
                                       context=context, hooks=hooks), buffer_size)


_END = object()


class RunResultStreaming:
    """A streamed run. Read it once, either way:

    - ``async for event in streamed``: our events (``RunStarted`` ... ``RunCompleted``);
    - ``async for event in streamed.stream_events()``: the Agents SDK's events
      (``RawResponsesStreamEvent`` per chunk, ``RunItemStreamEvent`` per item,
      ``AgentUpdatedStreamEvent`` per agent).

    When the stream is over, the ``RunResult``'s fields (``final_output``, ``new_items``,
    ``interruptions``, ``to_input_list()``, ``to_state()``...) are readable here too.
    """

    def __init__(self, arguments: dict[str, Any], buffer_size: int) -> None:
        self._arguments = arguments
        self._buffer_size = buffer_size
        self._iterator: Optional[AsyncIterator[Any]] = None
        self._result: Optional[RunResult] = None
        self.current_agent: Agent = arguments["agent"]
        self._closing: Optional[asyncio.Future[None]] = None

    @property
    def is_complete(self) -> bool:
        return self._result is not None

    @property
    def final_output(self) -> Any:
        return None if self._result is None else self._result.final_output

    def _events(self, sdk: bool) -> AsyncIterator[Any]:
        if self._iterator is not None:
            raise RuntimeError("a streamed run can be read once: iterate it, or its "
                               "stream_events(), not both")
        self._iterator = self._produce(sdk)
        return self._iterator

    def stream_events(self) -> AsyncIterator[StreamEvent]:
        """The Agents SDK's stream events of the run."""
        return self._events(sdk=True)

    def __aiter__(self) -> "RunResultStreaming":
        return self

    async def __anext__(self) -> AgentEvent:
        if self._iterator is None:
            self._events(sdk=False)
        assert self._iterator is not None
        event: AgentEvent = await self._iterator.__anext__()
        return event

    async def aclose(self) -> None:
        """Stop reading: cancels the run if it is still going."""
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]  # an async generator

    def cancel(self) -> None:
        """Stop the run (the Agents SDK's name); read the iterator to its end or close it."""
        if self._iterator is not None:
            # Kept: the event loop holds only a weak reference to a task.
            self._closing = asyncio.ensure_future(self.aclose())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_result", "_arguments", "_iterator"):
            raise AttributeError(name)
        result = self._result
        if result is None:
            raise AttributeError(f"{name!r} is known once the streamed run is complete "
                                 "(read the stream to its end first)")
        return getattr(result, name)

    async def _produce(self, sdk: bool) -> AsyncIterator[Any]:
        queue: asyncio.Queue[Any] = asyncio.Queue(self._buffer_size)
        run = AgentRun(**self._arguments, streamed=True, queue=queue)
        run.sdk_stream = sdk

        async def produce() -> RunResult:
            try:
                return await run.execute()
            finally:
                if not run.detached:
                    await queue.put(_END)

        producer = asyncio.ensure_future(carry_interrupt(produce()))
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if sdk and isinstance(item, AgentUpdatedStreamEvent):
                    self.current_agent = item.new_agent
                yield item
            try:
                self._result = await producer  # a failed run raises here
            except Interrupt as interrupt:
                raise_interrupt(interrupt)
                raise
            self.current_agent = self._result.last_agent
        finally:
            if not producer.done():  # the consumer left early: stop the run
                run.detached = True
                producer.cancel()
                await asyncio.wait({producer})
