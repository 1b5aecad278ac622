"""Agents (DESIGN.md section 5): immutable ``Agent`` configuration, ``Runner`` to run one, and
``RunResult``. A run drives the tool runner's engine (runner.py) through ``AgentLoop``
(_agent_loop.py) with the async driver; run state lives in the run, so one agent serves many
concurrent runs.

    agent = ai.Agent(name="weather", model="openai:gpt-4o", instructions="Be brief.",
                     tools=[get_weather])
    result = ai.Runner.run_sync(agent, "Weather in Paris?")
    print(result.final_output)

See docs/agents.md for the semantics and the decisions behind them.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
from dataclasses import KW_ONLY, dataclass, field, replace
from types import MappingProxyType
from typing import Any, AsyncIterator, Mapping, Optional, Sequence, TextIO

from ._agent_context import ContextStrategy, Session, fit_tokens, keep_last
from ._agent_events import (
    AgentEvent,
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
from ._agent_loop import (
    _NO_OUTPUT,
    FINAL_RESULT,
    AgentLoop,
    AgentSetup,
    OutputSpec,
    _ControlAwarePolicy,
    handoff_tool,
    supports_native_output,
)
from .errors import UnsupportedParameterError
from .policy import _check_policy
from .providers._common import text_of
from .runner import RunHooks, _drive_async, _run_coro_sync, _to_message
from .tools import Tools
from .types import ChatCompletionResponse, Message, ToolEvent, Usage

__all__ = [
    "Agent", "Runner", "RunResult", "RunLimits", "ToolCallSummary", "Session", "keep_last",
    "fit_tokens", "ContextStrategy", "AgentEvent", "RunStarted", "ModelRequest", "TextDelta",
    "ToolCallRequestEvent", "ToolCallExecutionEvent", "Handoff", "RunCompleted",
]

_AGENT_NAME = re.compile(r"[A-Za-z0-9_-]+")
_SUMMARY_FIELDS = {"tool_name": "t", "arguments": "{}", "result": "r", "is_error": False}
# Keys an agent's model_settings may not set: the run owns them.
_RUN_OWNED = frozenset({"model", "messages", "tools", "stream", "max_turns", "tool_policy",
                        "on_tool_error", "on_max_turns"})
_DEFAULT_BUFFER = 64


# --- configuration ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Agent:
    """Immutable agent configuration, validated at construction.

    ``name``: letters, digits, ``_`` and ``-`` (its handoff tool is
    ``transfer_to_<name lowercased>``); ``model``: ``"provider:model"``; ``instructions``: the
    system message; ``tools``: functions or ``ai.Tool``; ``handoffs``: agents this one may hand
    the conversation to; ``tool_policy``: as in the tool runner (not applied to handoff and
    final_result calls); ``model_settings``: keyword arguments of ``create`` (temperature,
    max_tokens, provider-native ones...); ``reflect_on_tool_use``,
    ``tool_call_summary_format``: how a run that ends after tools ends; ``output_type``: a
    pydantic model for structured output; ``max_turns``: model calls per run (default 10);
    ``handoff_description``: told to agents that may hand off to this one.
    """

    name: str
    model: str
    _: KW_ONLY
    instructions: Optional[str] = None
    tools: Sequence[Any] = ()
    handoffs: Sequence["Agent"] = ()
    tool_policy: Any = None
    model_settings: Mapping[str, Any] = field(default_factory=dict)
    reflect_on_tool_use: bool = True
    tool_call_summary_format: str = "{result}"
    output_type: Optional[type] = None
    max_turns: int = 10
    handoff_description: Optional[str] = None
    # Built once at construction (never per run or per call).
    _tools: Optional[Tools] = field(init=False, repr=False, default=None)
    _tools_with_output: Optional[Tools] = field(init=False, repr=False, default=None)
    _output: Optional[OutputSpec] = field(init=False, repr=False, default=None)
    _handoff_map: Mapping[str, "Agent"] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        from .client import _parse_model

        set_ = object.__setattr__
        if not isinstance(self.name, str) or not _AGENT_NAME.fullmatch(self.name):
            raise ValueError(f"agent name must be letters, digits, '_' or '-' (it becomes the "
                             f"tool name transfer_to_<name>), got {self.name!r}")
        if len(self.name) > 64 - len("transfer_to_"):
            raise ValueError(f"agent name {self.name!r} is too long for a tool name (at most "
                             f"{64 - len('transfer_to_')} characters)")
        _parse_model(self.model)  # InvalidModelError (a ValueError) now, not at the first run
        if self.instructions is not None and not isinstance(self.instructions, str):
            raise TypeError(f"instructions must be a str or None, got "
                            f"{type(self.instructions).__name__}")
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or \
                self.max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {self.max_turns!r}")
        if not isinstance(self.reflect_on_tool_use, bool):
            raise TypeError("reflect_on_tool_use must be True or False")
        _check_summary_format(self.tool_call_summary_format)
        _check_policy(self.tool_policy)
        if not isinstance(self.model_settings, Mapping):
            raise TypeError("model_settings must be a mapping of create() keyword arguments")
        owned = sorted(_RUN_OWNED & set(self.model_settings))
        if owned:
            raise ValueError(f"model_settings may not set {owned}: the agent and the run own "
                             "them (use tools=, handoffs=, tool_policy=, max_turns=)")
        if self.output_type is not None and "response_format" in self.model_settings:
            raise ValueError("give either output_type or model_settings['response_format'], "
                             "not both")
        set_(self, "model_settings", MappingProxyType(dict(self.model_settings)))

        tools = (self.tools,) if callable(self.tools) else tuple(self.tools or ())
        for i, item in enumerate(tools):
            if isinstance(item, dict) and item.get("type") != "mcp":
                raise ValueError(f"tools[{i}] is a JSON schema dict; an agent runs its tools, "
                                 "so pass the function (or an aisuite_like.Tool)")
        handoffs = tuple(self.handoffs or ())
        handoff_map: dict[str, Agent] = {}
        for target in handoffs:
            if not isinstance(target, Agent):
                raise TypeError(f"handoffs must be Agent objects, got {type(target).__name__}")
            tool_name = "transfer_to_" + target.name.lower()
            if target is self or target.name == self.name:
                raise ValueError(f"agent {self.name!r} cannot hand off to itself")
            if tool_name in handoff_map:
                raise ValueError(f"two handoffs of agent {self.name!r} map to the tool "
                                 f"{tool_name!r}; agent names must differ (case-insensitively)")
            handoff_map[tool_name] = target
        set_(self, "tools", tools)
        set_(self, "handoffs", handoffs)
        set_(self, "_handoff_map", MappingProxyType(handoff_map))
        control = [handoff_tool(t) for t in handoffs]
        try:
            built = Tools([*tools, *control])  # unique names, schemas built once
        except ValueError as exc:
            raise ValueError(f"agent {self.name!r}: {exc}") from None
        set_(self, "_tools", built)
        if self.output_type is not None:
            if not (isinstance(self.output_type, type) and hasattr(self.output_type,
                                                                   "model_validate_json")):
                raise TypeError(f"output_type must be a pydantic model class, got "
                                f"{self.output_type!r}")
            if FINAL_RESULT in built.by_name:
                raise ValueError(f"a tool is named {FINAL_RESULT!r}, which output_type uses; "
                                 "rename the tool")
            spec = OutputSpec(self.output_type)
            set_(self, "_output", spec)
            set_(self, "_tools_with_output", Tools([*tools, *control, spec.tool]))

    def clone(self, **changes: Any) -> "Agent":
        """A new agent with some fields changed (validated again)."""
        return replace(self, **changes)

    def __repr__(self) -> str:
        return (f"Agent(name={self.name!r}, model={self.model!r}, "
                f"tools={[t.name for t in self._tools.by_name.values()] if self._tools else []}, "
                f"handoffs={[a.name for a in self.handoffs]})")


def _check_summary_format(fmt: Any) -> None:
    if not isinstance(fmt, str):
        raise TypeError("tool_call_summary_format must be a str")
    try:
        fmt.format(**_SUMMARY_FIELDS)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"tool_call_summary_format {fmt!r} is not valid: {exc!r}; use the "
                         "placeholders {tool_name}, {arguments}, {result}, {is_error}") from None


@dataclass(frozen=True)
class RunLimits:
    """Bounds of one run, each independent; hitting one ends the run with ``status="limit"``
    and ``result.limit`` the bound's name (no exception).

    ``max_model_calls``: model calls, counting reflection and output retries;
    ``max_tool_calls``: executions of the agents' tools (calls beyond it are answered with an
    error result, not run); ``max_total_tokens``: no model call starts once the run has used
    this many tokens; ``timeout_s``: wall-clock seconds for the whole run.
    """

    max_model_calls: Optional[int] = None
    max_tool_calls: Optional[int] = None
    max_total_tokens: Optional[int] = None
    timeout_s: Optional[float] = None

    def __post_init__(self) -> None:
        for name in ("max_model_calls", "max_tool_calls", "max_total_tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"RunLimits.{name} must be None or an int >= 1, got {value!r}")
        t = self.timeout_s
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t <= 0):
            raise ValueError(f"RunLimits.timeout_s must be None or seconds > 0, got {t!r}")


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
    history to continue from); ``new_messages``: what this run produced.
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
    events: list[Any] = field(repr=False)
    tool_events: list[ToolEvent] = field(repr=False)
    tool_call_summary: Optional[ToolCallSummary] = field(default=None, repr=False)

    def print_trace(self, file: Optional[TextIO] = None) -> None:
        """Print the run as a timeline (coloured when the output is a terminal)."""
        render_trace(self.events, file)


# --- running ----------------------------------------------------------------------------------


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def _input_messages(input: Any) -> list[dict[str, Any]]:
    from .client import _normalize_messages

    if isinstance(input, str):
        return [{"role": "user", "content": input}]
    if isinstance(input, (dict, Message)):
        input = [input]
    # Copies: they are stored in a Session and the caller's dicts are never touched.
    return [dict(m) for m in _normalize_messages(input)]


def _sum_usage(responses: Sequence[ChatCompletionResponse]) -> Optional[Usage]:
    total: Optional[Usage] = None
    for response in responses:
        if response.usage is not None:
            total = response.usage if total is None else total + response.usage
    return total


class _EventHooks(RunHooks):
    """Turns the driver's observation points into events (awaited: with a bounded queue, a
    slow consumer slows the run)."""

    def __init__(self, run: "_AgentRun") -> None:
        self.run = run
        self._streamed_text = False

    async def on_model_request(self, engine: Any, action: Any) -> None:
        await self.run.flush(engine)
        engine.message_id = _new_id("msg")
        kind, engine.call_kind = engine.call_kind, "turn"
        self._streamed_text = False
        await self.run.emit(ModelRequest(
            run_id=engine.run_id, agent_name=engine.agent.name, message_id=engine.message_id,
            turn=action.turn, model=engine.agent.model, kind=kind))

    async def on_chunk(self, engine: Any, chunk: Any) -> None:
        if chunk.choices:
            text = chunk.choices[0].delta.content
            if text:
                self._streamed_text = True
                await self.run.emit(TextDelta(run_id=engine.run_id, agent_name=engine.agent.name,
                                              message_id=engine.message_id, text=text))

    async def on_model_response(self, engine: Any, response: Any) -> None:
        if not self._streamed_text and response.choices:  # not streamed: the text, once
            text = text_of(response.choices[0].message.content)
            if text:
                await self.run.emit(TextDelta(run_id=engine.run_id, agent_name=engine.agent.name,
                                              message_id=engine.message_id, text=text))

    async def on_tool_batch(self, engine: Any, batch: Any) -> None:
        for call in batch.calls:
            await self.run.emit(tool_call_events(engine, call)[0])

    async def on_tool_result(self, engine: Any, call: Any) -> None:
        await self.run.emit(tool_call_events(engine, call)[1])


class _AgentRun:
    """One run: its own state, events and (optional) event queue."""

    def __init__(self, agent: Agent, input: Any, *, client: Any, session: Optional[Session],
                 max_turns: Optional[int], limits: Optional[RunLimits], streamed: bool,
                 queue: Optional[asyncio.Queue] = None) -> None:
        if not isinstance(agent, Agent):
            raise TypeError(f"Runner needs an ai.Agent, got {type(agent).__name__}")
        if session is not None and not isinstance(session, Session):
            raise TypeError(f"session must be an ai.Session, got {type(session).__name__}")
        if limits is not None and not isinstance(limits, RunLimits):
            raise TypeError(f"limits must be an ai.RunLimits, got {type(limits).__name__}")
        if max_turns is None:
            max_turns = agent.max_turns
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1 (the most model calls in the run), "
                             f"got {max_turns!r}")
        self.agent = agent
        self.input = _input_messages(input)
        if not self.input and (session is None or not len(session)):
            raise ValueError("the run has no input: give a prompt or messages")
        self.client = client
        self.session = session
        self.max_turns = max_turns
        self.limits = limits or _NO_LIMITS
        self.streamed = streamed
        self.queue = queue
        self.detached = False  # the stream's consumer is gone: keep events, stop queueing
        self.run_id = _new_id("run")
        self.events: list[Any] = []

    async def emit(self, event: Any) -> None:
        self.events.append(event)
        if self.queue is not None and not self.detached:
            await self.queue.put(event)

    async def flush(self, engine: AgentLoop) -> None:
        outbox, engine.outbox = engine.outbox, []
        for event in outbox:
            await self.emit(event)

    async def execute(self) -> RunResult:
        if self.session is None:
            return await self._with_client()
        with self.session._guard():
            return await self._with_client()

    async def _with_client(self) -> RunResult:
        if self.client is not None:
            return await self._execute(self.client)
        from .client import Client

        client = Client()  # configured from the environment; ours to close
        try:
            return await self._execute(client)
        finally:
            for provider in {id(p): p for p in client._instances.values()}.values():
                await provider.aclose()
                provider.close()

    def _setup_for(self, client: Any, cache: dict[int, AgentSetup]) -> Any:
        from .client import _parse_model

        def setup_for(agent: Agent) -> AgentSetup:
            setup = cache.get(id(agent))
            if setup is not None:
                return setup
            spec = agent._output
            key = _parse_model(agent.model)[0]
            kwargs: dict[str, Any] = dict(agent.model_settings)
            native = spec is not None and supports_native_output(key, client._provider(key))
            forced = spec is not None and not native
            tools = agent._tools_with_output if forced else agent._tools
            forced_choice: Any = None
            if forced:
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
            if self.streamed and kwargs.get("stream_options") is None:
                kwargs["stream_options"] = {"include_usage": True}  # usage feeds the limits
            provider, request, prepared, _, _ = client._prepare(agent.model, [], kwargs)
            control = frozenset(agent._handoff_map) | (
                {FINAL_RESULT} if forced else frozenset())
            policy = (None if agent.tool_policy is None
                      else _ControlAwarePolicy(agent.tool_policy, control))
            setup = cache[id(agent)] = AgentSetup(
                agent=agent, provider=provider, request=request, tools=prepared,
                policy=policy, output=spec, forced_output=forced, forced_choice=forced_choice,
                handoffs=dict(agent._handoff_map))
            return setup

        return setup_for

    async def _execute(self, client: Any) -> RunResult:
        session = self.session
        history = list(session._history) if session is not None else []
        setup_for = self._setup_for(client, {})
        first = setup_for(self.agent)
        loop = AgentLoop(first, [*history, *self.input], max_turns=self.max_turns,
                         limits=self.limits, setup_for=setup_for,
                         context=session._context if session is not None else list,
                         run_id=self.run_id)
        await self.emit(RunStarted(run_id=self.run_id, agent_name=self.agent.name,
                                   input=list(self.input)))
        inner = asyncio.ensure_future(self._drive(loop, first))
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
                raise error
            status = loop.status or loop.stop_reason or "completed"
            limit = loop.limit
        return await self._result(loop, status, limit, history)

    async def _drive(self, loop: AgentLoop, first: AgentSetup) -> None:
        async for _ in _drive_async(loop, first.provider, _EventHooks(self)):
            pass

    async def _result(self, loop: AgentLoop, status: str, limit: Optional[str],
                      history: list[dict[str, Any]]) -> RunResult:
        await self.flush(loop)
        produced = list(loop.produced)
        summary: Optional[ToolCallSummary] = None
        if loop.output is not _NO_OUTPUT:
            final_output = loop.output
        elif produced and produced[-1].role == "tool":  # ended right after tools
            summary = ToolCallSummary.render(loop.tool_events,
                                             loop.agent.tool_call_summary_format)
            final_output = summary.text
        elif produced and produced[-1].role == "assistant":
            final_output = produced[-1].content
        else:
            final_output = None
        if self.session is not None:
            self.session._history.extend(dict(m) for m in loop.history[len(history):])
        usage = _sum_usage(loop.responses)
        result = RunResult(
            final_output=final_output, status=status, limit=limit, last_agent=loop.agent,
            run_id=self.run_id,
            messages=[*(_to_message(m) for m in loop.request.messages), *produced],
            new_messages=produced, raw_responses=list(loop.responses), usage=usage,
            events=self.events, tool_events=list(loop.tool_events), tool_call_summary=summary)
        await self.emit(RunCompleted(
            run_id=self.run_id, agent_name=loop.agent.name, status=status, limit=limit,
            final_output=final_output, usage=usage, result=result))
        return result


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


def _run_sync(coro: Any) -> Any:
    loop, thread = _background_loop()
    if threading.current_thread() is thread:
        # run_sync from inside a run on that loop (e.g. an async tool): a private loop.
        return _run_coro_sync(coro)
    future = asyncio.run_coroutine_threadsafe(coro, loop)  # carries the caller's contextvars
    try:
        return future.result()
    except BaseException:
        future.cancel()  # e.g. KeyboardInterrupt: stop the run too
        raise


class Runner:
    """Runs agents: ``await Runner.run(...)``, ``Runner.run_sync(...)``,
    ``async for event in Runner.run_streamed(...)``."""

    @staticmethod
    async def run(agent: Agent, input: Any, *, client: Any = None,
                  session: Optional[Session] = None, max_turns: Optional[int] = None,
                  limits: Optional[RunLimits] = None) -> RunResult:
        """Run ``agent`` on ``input`` (a prompt, a message, or a list of messages).
        ``client`` None: a ``Client()`` from the environment; ``max_turns`` None: the agent's.
        Cancelling the task ends the run with ``status="cancelled"`` (returned, not raised)."""
        run = _AgentRun(agent, input, client=client, session=session, max_turns=max_turns,
                        limits=limits, streamed=False)
        return await run.execute()

    @staticmethod
    def run_sync(agent: Agent, input: Any, *, client: Any = None,
                 session: Optional[Session] = None, max_turns: Optional[int] = None,
                 limits: Optional[RunLimits] = None) -> RunResult:
        """``run`` from sync code, also inside a running event loop (the run executes on a
        background event-loop thread; the calling thread waits for it)."""
        _AgentRun(agent, input, client=client, session=session, max_turns=max_turns,
                  limits=limits, streamed=False)  # bad arguments raise here, in the caller
        return _run_sync(Runner.run(agent, input, client=client, session=session,
                                    max_turns=max_turns, limits=limits))

    @staticmethod
    def run_streamed(agent: Agent, input: Any, *, client: Any = None,
                     session: Optional[Session] = None, max_turns: Optional[int] = None,
                     limits: Optional[RunLimits] = None,
                     buffer_size: int = _DEFAULT_BUFFER) -> AsyncIterator[AgentEvent]:
        """An async iterator of the run's events, ending with ``RunCompleted`` (its ``result``
        is the ``RunResult``). Model turns are streamed (``TextDelta`` per piece). At most
        ``buffer_size`` events wait for the consumer; then the run waits (backpressure).
        Leaving the loop early cancels the run."""
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
            raise ValueError(f"buffer_size must be an int >= 1, got {buffer_size!r}")
        _AgentRun(agent, input, client=client, session=session, max_turns=max_turns,
                  limits=limits, streamed=True)  # validate now, not at the first iteration
        return _stream_events(dict(agent=agent, input=input, client=client, session=session,
                                   max_turns=max_turns, limits=limits), buffer_size)


_END = object()


async def _stream_events(arguments: dict[str, Any], buffer_size: int
                         ) -> AsyncIterator[AgentEvent]:
    queue: asyncio.Queue = asyncio.Queue(buffer_size)
    run = _AgentRun(**arguments, streamed=True, queue=queue)

    async def produce() -> RunResult:
        try:
            return await run.execute()
        finally:
            if not run.detached:
                await queue.put(_END)

    producer = asyncio.ensure_future(produce())
    try:
        while True:
            item = await queue.get()
            if item is _END:
                break
            yield item
        await producer  # a failed run raises here
    finally:
        if not producer.done():  # the consumer left early: stop the run
            run.detached = True
            producer.cancel()
            await asyncio.wait({producer})

