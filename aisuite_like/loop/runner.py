"""The tool runner (docs/tool-runner.md): ONE sans-IO engine and two thin drivers.

``ToolLoop`` holds every rule of the loop and does no I/O. Given the last model response it
answers with an action: ``CallModel`` (call the model with this ``ChatRequest``), ``RunTools``
(ask the policy about and execute the calls of this ``ToolBatch``), ``Finish`` (the finalized
response) or ``Fail`` (raise this error). ``_drive_sync`` / ``_drive_async`` only perform those
actions: provider calls (streamed or not), policy calls, tool execution in threads or tasks.
``_tool_runner`` / ``_atool_runner`` (called by client.py) build the engine and pick a driver.

Layers on top (agents, durable runs) reuse both halves: subclass ``ToolLoop`` to change
decisions (``request_for``, ``after_response``, ``after_tools``) and pass ``RunHooks`` to a
driver to observe the run's start and end, model requests, chunks, responses, tool batches and
results (hooks may be coroutines in the async driver), and to put a context in force while
the driver works and while a tool runs. ``instrument()`` watches runs through these hooks too:
a driver asks ``core.hooks.ACTIVE`` for its hooks once per run and chains them with its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import math
import queue
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..core import hooks as _instrumentation
from ..core.checks import check_max_turns
from ..core.cost import attach_price_ref
from ..core.errors import (
    MaxTurnsExceeded,
    ToolExecutionError,
    UnsupportedParameterError,
    _scrub_exception,
)
from ..core.ids import unique_tool_call_ids
from ..core.secret_forms import redact
from ..core.streaming import AsyncStream, Stream, _ChunkAccumulator
from ..core.sync_bridge import run_coro_sync as _run_coro_sync
from ..core.types import ChatCompletionChunk, ChatCompletionResponse, Message, ToolCall, ToolEvent
from ..providers._common import loads_json
from ..providers.base import ChatRequest, Provider
from ..tools.base import Tool, _format_result, _validation_summary
from ..tools.policy import ToolPolicyContext, _check_policy, _evaluate_policy, _to_decision
from ..tools.toolset import Tools
from .hooks import RunHooks, _bind_tool_contexts, _chain, _overriding, _run_error, _Stretch

__all__ = [
    "ToolLoop", "ToolBatch", "ToolCallRun", "RunHooks", "DriverSteps", "CallModel",
    "RunTools", "Finish", "Fail", "DEFAULT_MAX_TOOL_CONCURRENCY", "DEFAULT_MAX_TOOL_RESULT_CHARS",
]

#: Tool calls of one response that may run at the same time, unless ``max_tool_concurrency``.
DEFAULT_MAX_TOOL_CONCURRENCY = 8
#: The longest tool result sent to the model, unless ``max_tool_result_chars``.
DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000

_ON_TOOL_ERROR = ("return", "raise")
_ON_MAX_TURNS = ("return", "raise", "final_answer")


# --- actions: what the engine asks a driver to do ----------------------------------------


@dataclass
class CallModel:
    """Call the model with ``request`` (``request.stream`` says whether to stream).
    ``provider`` None means the driver's provider."""

    request: ChatRequest
    turn: int
    final_answer: bool = False
    provider: Optional[Provider] = None


@dataclass
class RunTools:
    """Ask the policy about, validate and execute the calls of ``batch``, then report back
    with ``ToolLoop.tools_done(batch)``."""

    batch: "ToolBatch"


@dataclass
class Finish:
    """The run is over; ``response`` is finalized."""

    response: ChatCompletionResponse


@dataclass
class Fail:
    """The run is aborted: raise ``error`` (its ``.response`` is the finalized partial run)."""

    error: BaseException


Action = Union[CallModel, RunTools, Finish, Fail]


# --- one tool call, from the model's request to the result sent back --------------------

# _DEFERRED: the policy deferred the call to a person; an agent run pauses on it.
_PENDING_POLICY, _READY, _DONE, _DEFERRED = 0, 1, 2, 3


class ToolCallRun:
    """The life of one tool call: parse -> look up -> policy -> validate -> execute -> result.

    Every step is pure; the drivers only evaluate the policy and run ``tool.fn``. Once
    ``done``, ``result`` is the exact string for the model and ``is_error`` marks failures.
    """

    __slots__ = ("call_id", "name", "raw_arguments", "arguments", "tool", "turn", "kwargs",
                 "allowed", "reason", "result", "is_error", "duration_s", "exception", "state",
                 "context", "can_defer", "timeout", "max_result_chars", "truncated",
                 "threads", "scope")

    def __init__(self, call: ToolCall, tools: Optional[Tools], turn: int, *,
                 timeout: Optional[float] = None,
                 max_result_chars: Optional[int] = DEFAULT_MAX_TOOL_RESULT_CHARS) -> None:
        # timeout: the run's tool_timeout (the tool's own Tool(timeout=) wins, below);
        # max_result_chars: longer results are cut (None: unbounded).
        self.timeout = timeout
        self.max_result_chars = max_result_chars
        self.truncated = False
        self.threads: Optional[_ToolThreads] = None  # the async run's pool for a sync tool
        # the hooks' tool_context, entered around the execution where it runs
        self.scope: Optional[AbstractContextManager[Any]] = None
        self.call_id = call.id
        self.name = call.function.name
        self.raw_arguments = call.function.arguments
        self.turn = turn
        self.tool: Optional[Tool] = None
        self.kwargs: dict[str, Any] = {}
        self.allowed = False
        self.reason: Optional[str] = None
        self.result = ""
        self.is_error = False
        self.duration_s = 0.0
        self.exception: Optional[BaseException] = None
        self.state = _PENDING_POLICY
        self.context: Any = None  # an agent run's RunContextWrapper, for tools that take it
        self.can_defer = False  # an agent run can pause on a deferred call; the runner cannot
        self.arguments: Union[dict[str, Any], str] = self.raw_arguments or ""

        raw = self.raw_arguments
        if raw is None or not raw.strip():  # some providers send "" for a call without args
            self.arguments = {}
        else:
            try:
                parsed = loads_json(raw)
            except ValueError as exc:
                self._error(f"the arguments of tool {self.name!r} are not valid JSON ({exc}); "
                            f"got: {_shorten(raw)}")
                return
            if not isinstance(parsed, dict):
                self._error(f"the arguments of tool {self.name!r} must be a JSON object, got: "
                            f"{_shorten(raw)}")
                return
            self.arguments = parsed
        self.tool = tools.by_name.get(self.name) if tools is not None else None
        if self.tool is not None and self.tool.timeout is not None:
            # Tool(timeout=math.inf): no deadline for this tool, whatever the run's
            self.timeout = self.tool.timeout if self.tool.timeout != math.inf else None
        if self.tool is None:
            available = ", ".join(tools.by_name) if tools is not None and tools.by_name else "none"
            self._error(f"unknown tool {self.name!r}; available tools: {available}")

    def __repr__(self) -> str:
        return f"ToolCallRun(call_id={self.call_id!r}, name={self.name!r}, state={self.state})"

    @property
    def done(self) -> bool:
        return self.state == _DONE

    @property
    def runnable(self) -> bool:
        return self.state == _READY

    @property
    def deferred(self) -> bool:
        """The policy deferred this call to a person (agent runs pause on it)."""
        return self.state == _DEFERRED

    def decide(self, value: Any) -> None:
        """Apply the policy's answer (``bool`` or ``ToolPolicyDecision``), then validate."""
        if self.state != _PENDING_POLICY:
            return
        decision = _to_decision(value)
        self.allowed, self.reason = decision.allowed, decision.reason
        if decision.deferred:
            if self.can_defer:
                self.state = _DEFERRED
            else:
                self._error(f"tool call needs a person's approval ({decision.reason}), which the "
                            "tool runner cannot wait for; run it in an ai.Agent, whose run "
                            "pauses for approval")
            return
        if not decision.allowed:
            self._error(f"tool call denied by policy: {decision.reason or 'denied'}")
            return
        self._validate()

    def allow(self) -> None:
        """No policy: allowed; validate now."""
        if self.state == _PENDING_POLICY:
            self.allowed = True
            self._validate()

    def _validate(self) -> None:
        from pydantic import ValidationError

        assert self.tool is not None and isinstance(self.arguments, dict)
        try:
            self.kwargs = self.tool.validate(self.arguments)
        except ValidationError as exc:
            self._error(f"invalid arguments for tool {self.name!r}: {_validation_summary(exc)}")
            return
        self.state = _READY

    def succeed(self, value: Any, duration_s: float) -> None:
        self.duration_s = duration_s
        try:
            self.result = self._bounded(_format_result(value))
        except Exception as exc:  # e.g. a result JSON cannot express
            self.exception = exc
            self._error(f"the result of tool {self.name!r} could not be serialized: "
                        f"{type(exc).__name__}: {exc}")
            return
        self.state = _DONE

    def fail(self, exc: BaseException, duration_s: float) -> None:
        self.duration_s = duration_s
        self.exception = exc
        text = f"{type(exc).__name__}: {exc}"
        if redact(text) is not text:  # it quotes a key: so would a traceback of the cause
            _scrub_exception(exc)
        self._error(text)

    def time_out(self, timeout: float, duration_s: float) -> None:
        self.duration_s = duration_s
        self._error(f"tool {self.name!r} timed out after {timeout:g} seconds")

    def cancel(self, reason: str) -> None:
        if self.state != _DONE:
            self._error(reason)

    def _error(self, text: str) -> None:
        # Keys are redacted from what the model, ToolEvent, spans and ToolExecutionError see.
        self.result = self._bounded("Error: " + redact(text))
        self.is_error = True
        self.state = _DONE

    def _bounded(self, text: str) -> str:
        """``text`` cut to ``max_result_chars`` with a visible marker saying how much was cut
        (a 10 MB result must not go whole into the next request)."""
        limit = self.max_result_chars
        if limit is None or len(text) <= limit:
            return text
        self.truncated = True
        return (f"{text[:limit]}\n[truncated: {len(text) - limit} of {len(text)} characters "
                f"cut (max_tool_result_chars={limit})]")

    def tool_message(self) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.call_id, "name": self.name,
                "content": self.result}

    def event(self) -> ToolEvent:
        return ToolEvent.model_construct(
            call_id=self.call_id, name=self.name, arguments=self.arguments,
            allowed=self.allowed, reason=self.reason, result=self.result,
            is_error=self.is_error, duration_s=self.duration_s, turn=self.turn,
            truncated=self.truncated)


def _check_tool_bounds(tool_timeout: Any, max_tool_result_chars: Any) -> None:
    """The runner's (and agents') tool bounds, checked before anything is sent."""
    if tool_timeout is not None and (isinstance(tool_timeout, bool) or not isinstance(
            tool_timeout, (int, float)) or not tool_timeout > 0 or tool_timeout == float("inf")):
        raise ValueError(f"tool_timeout must be None or a positive number of seconds, got "
                         f"{tool_timeout!r}")
    if max_tool_result_chars is not None and (
            isinstance(max_tool_result_chars, bool) or not isinstance(max_tool_result_chars, int)
            or max_tool_result_chars < 1):
        raise ValueError(f"max_tool_result_chars must be None (unbounded) or an int >= 1, got "
                         f"{max_tool_result_chars!r}")


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class ToolBatch:
    """The tool calls of one model response, in call order."""

    def __init__(self, turn: int, calls: list[ToolCallRun], policy: Any,
                 messages: Callable[[], Sequence[Message]],
                 policy_context: Optional[Mapping[str, Any]] = None) -> None:
        self.turn = turn
        self.calls = calls
        self.recorded = False  # its results are in the trace (recorded once, never twice)
        self._policy = policy
        self._messages = messages
        self._policy_context = policy_context if policy_context is not None else {}
        self._snapshot: Optional[Sequence[Message]] = None

    def awaiting_policy(self) -> list[ToolCallRun]:
        return [c for c in self.calls if c.state == _PENDING_POLICY]

    def ask_policy(self, call: ToolCallRun) -> Any:
        """The policy's answer for ``call``: a value, or an awaitable of one (async policy).
        Pass the (awaited) value to ``call.decide``."""
        if self._snapshot is None:  # one snapshot of the conversation for the whole batch
            self._snapshot = self._messages()
        assert isinstance(call.arguments, dict)
        ctx = ToolPolicyContext(tool_name=call.name, arguments=call.arguments,
                                call_id=call.call_id, turn=self.turn, messages=self._snapshot,
                                context=self._policy_context)
        return _evaluate_policy(self._policy, ctx)

    def groups(self) -> list[list[ToolCallRun]]:
        """Runnable calls grouped for execution, in call order: consecutive ordinary calls
        run together; a ``sequential`` tool's call is a group of its own (it runs alone)."""
        groups: list[list[ToolCallRun]] = []
        current: list[ToolCallRun] = []
        for call in self.calls:
            if not call.runnable:
                continue
            assert call.tool is not None
            if call.tool.sequential:
                if current:
                    groups.append(current)
                    current = []
                groups.append([call])
            else:
                current.append(call)
        if current:
            groups.append(current)
        return groups

    def first_error(self) -> Optional[ToolCallRun]:
        return next((c for c in self.calls if c.is_error), None)


# --- the engine --------------------------------------------------------------------------


class ToolLoop:
    """The sans-IO tool loop. ``start()`` -> action; report each action's outcome with
    ``model_responded(response)`` / ``tools_done(batch)`` -> next action. After ``Finish``,
    ``result`` holds the finalized response.

    Subclasses (agents.py) may override ``request_for``, ``after_response`` and
    ``after_tools`` (return an action to take over, or None for the default rule).
    """

    def __init__(
        self,
        request: ChatRequest,
        tools: Optional[Tools],
        *,
        max_turns: int,
        tool_policy: Any = None,
        on_tool_error: str = "return",
        on_max_turns: str = "return",
        max_tool_concurrency: Optional[int] = None,
        tool_policy_context: Optional[Mapping[str, Any]] = None,
        tool_timeout: Optional[float] = None,
        max_tool_result_chars: Optional[int] = DEFAULT_MAX_TOOL_RESULT_CHARS,
    ) -> None:
        if tool_policy_context is not None and not isinstance(tool_policy_context, Mapping):
            raise TypeError("tool_policy_context must be a dict (it reaches the policy as "
                            f"ToolPolicyContext.context), got {type(tool_policy_context).__name__}")
        _check_tool_bounds(tool_timeout, max_tool_result_chars)
        self.policy_context = tool_policy_context
        check_max_turns(max_turns)
        if on_tool_error not in _ON_TOOL_ERROR:
            raise ValueError(f"on_tool_error must be one of {_ON_TOOL_ERROR}, got "
                             f"{on_tool_error!r}")
        if on_max_turns not in _ON_MAX_TURNS:
            raise ValueError(f"on_max_turns must be one of {_ON_MAX_TURNS}, got {on_max_turns!r}")
        if max_tool_concurrency is None:
            max_tool_concurrency = DEFAULT_MAX_TOOL_CONCURRENCY
        elif (isinstance(max_tool_concurrency, bool) or not isinstance(max_tool_concurrency, int)
              or max_tool_concurrency < 1):
            raise ValueError(f"max_tool_concurrency must be an int >= 1, got "
                             f"{max_tool_concurrency!r}")
        _check_policy(tool_policy)
        if tools is not None and tools.schema_only:
            raise ValueError(
                f"tools {tools.schema_only} are JSON schema dicts with no Python function to "
                "run. With max_turns the runner executes the tools: pass the functions (or "
                "aisuite_like.Tool objects); or drop max_turns and handle the tool calls yourself")
        if request.n not in (None, 1):
            raise UnsupportedParameterError(
                "n > 1 cannot be combined with max_turns: the tool runner continues one "
                "conversation", parameter="n")
        if request.stream and request.stream_options is None:
            # The finalized response sums usage over every model call: ask for it (OpenAI
            # sends stream usage only on request; pass stream_options yourself to opt out).
            request = request.replace(stream_options={"include_usage": True})
        self.request = request
        self.tools = tools
        self.max_turns = max_turns
        self.policy = tool_policy
        self.on_tool_error = on_tool_error
        self.on_max_turns = on_max_turns
        self.max_tool_concurrency = max_tool_concurrency
        self.tool_timeout = None if tool_timeout is None else float(tool_timeout)
        self.max_tool_result_chars = max_tool_result_chars
        self.turn = 0
        # The conversation as sent: the caller's dicts (read-only) + what the run produced.
        self.history: list[dict[str, Any]] = list(request.messages)
        self.produced: list[Message] = []
        self.responses: list[ChatCompletionResponse] = []
        self.tool_events: list[ToolEvent] = []
        self.stop_reason: Optional[str] = None
        self.result: Optional[ChatCompletionResponse] = None
        #: the batch handed to the driver and not yet reported back (``tools_done``)
        self.pending_batch: Optional[ToolBatch] = None
        self._final_answer = False
        self._inputs: Optional[list[Message]] = None

    # -- steps

    def start(self) -> Action:
        return self._call_model(1)

    def model_responded(self, response: ChatCompletionResponse) -> Action:
        # Unique tool-call ids (in the reply and the run) before anything runs: results pair.
        # The drivers did it already (hooks see it); a no-op then, a guarantee for any driver.
        response = unique_tool_call_ids(response, self.history)
        attach_price_ref(response, self.request.model)  # usage.cost, priced on first read
        self.responses.append(response)
        message = response.choices[0].message if response.choices else None
        if message is not None:
            self.produced.append(message)
            self.history.append(message.model_dump(exclude_none=True))
        override = self.after_response(response)
        if override is not None:
            return override
        calls = message.tool_calls if message is not None else None
        if self._final_answer:  # the forced answer after max_turns: never run its tools
            if calls:
                # The model ignored tool_choice="none". Answer its calls (not executed) so
                # response.messages stays a valid history: providers reject an assistant
                # tool call without its result.
                self.abandon(ToolBatch(self.turn, [self.new_call(c) for c in calls], None,
                                       self._conversation),
                             f"tool call not executed: the run reached max_turns="
                             f"{self.max_turns}")
            return self.finish("max_turns")
        if not calls:
            return self.finish("completed")
        runs = [self.new_call(call) for call in calls]
        if self.policy is None:
            for run in runs:
                run.allow()
        self.pending_batch = ToolBatch(self.turn, runs, self.policy, self._conversation,
                                       self.policy_context)
        return RunTools(self.pending_batch)

    def tools_done(self, batch: ToolBatch) -> Action:
        self.pending_batch = None
        self._record(batch)
        override = self.after_tools(batch)
        if override is not None:
            return override
        failed = batch.first_error()
        if failed is not None and self.on_tool_error == "raise":
            error = ToolExecutionError(
                f"tool call {failed.call_id!r} to {failed.name!r} failed: "
                f"{failed.result[len('Error: '):]}",
                response=self.finalize(), call_id=failed.call_id, tool_name=failed.name)
            error.__cause__ = failed.exception
            return Fail(error)
        if self.turn >= self.max_turns:
            self.stop_reason = "max_turns"
            if self.on_max_turns == "raise":
                return Fail(MaxTurnsExceeded(
                    f"the model still asked for tools after max_turns={self.max_turns} model "
                    "calls; raise max_turns, or use on_max_turns='return' / 'final_answer'",
                    response=self.finalize()))
            if self.on_max_turns == "final_answer":
                self._final_answer = True
                return self._call_model(self.turn + 1)
            return self.finish("max_turns")
        return self._call_model(self.turn + 1)

    def new_call(self, call: ToolCall) -> ToolCallRun:
        """A ``ToolCallRun`` of this turn, with the run's tool bounds."""
        return ToolCallRun(call, self.tools, self.turn, timeout=self.tool_timeout,
                           max_result_chars=self.max_tool_result_chars)

    def abandon(self, batch: ToolBatch, reason: str = "tool call cancelled") -> None:
        """Give every unfinished call of ``batch`` an error result and record the batch, so
        the trace has no tool call without its result (used on cancellation)."""
        for call in batch.calls:
            call.cancel(reason)
        self._record(batch)

    def cancelled(self, reason: str = "tool call not finished: the run was cancelled") -> None:
        """The driver's task was cancelled: answer the calls of the pending batch (those
        that finished keep their results), and keep the partial run as ``result`` with
        ``stop_reason="cancelled"``, so the trace is a valid history to continue from."""
        if self.pending_batch is not None:
            self.abandon(self.pending_batch, reason)
            self.pending_batch = None
        self.stop_reason = "cancelled"
        if self.responses and self.result is None:
            self.result = self.finalize()

    def finish(self, stop_reason: Optional[str]) -> Finish:
        self.stop_reason = stop_reason
        self.result = self.finalize()
        return Finish(self.result)

    def finalize(self) -> ChatCompletionResponse:
        return _finalize_runner_response(
            self.responses, input_messages=self._input_messages(), produced=self.produced,
            tool_events=self.tool_events, stop_reason=self.stop_reason)

    def final_response(self) -> ChatCompletionResponse:
        """The finalized response of a finished run (``Stream(final=...)``), or the partial
        run of a cancelled one (``stop_reason="cancelled"``)."""
        if self.result is None:
            raise RuntimeError("the tool run did not finish (the stream was closed or failed "
                               "before the end), so there is no final response")
        return self.result

    # -- extension points

    def request_for(self, turn: int, *, final_answer: bool) -> ChatRequest:
        """The request of model call ``turn``: the base request with the conversation so far
        (a new list: requests already sent never change)."""
        if final_answer:
            return self.request.replace(messages=list(self.history), tool_choice="none")
        return self.request.replace(messages=list(self.history))

    def after_response(self, response: ChatCompletionResponse) -> Optional[Action]:
        return None

    def after_tools(self, batch: ToolBatch) -> Optional[Action]:
        return None

    # -- internals

    def _call_model(self, turn: int) -> CallModel:
        self.turn = turn
        return CallModel(self.request_for(turn, final_answer=self._final_answer), turn,
                         self._final_answer)

    def _record(self, batch: ToolBatch) -> None:
        if batch.recorded:
            return
        batch.recorded = True
        for call in batch.calls:
            message = call.tool_message()
            self.history.append(message)
            self.produced.append(Message.model_construct(**message))
            self.tool_events.append(call.event())

    def _input_messages(self) -> list[Message]:
        # Converted once, only when needed (policy context, finalization).
        if self._inputs is None:
            self._inputs = [_to_message(m) for m in self.request.messages]
        return self._inputs

    def _conversation(self) -> tuple[Message, ...]:
        return (*self._input_messages(), *self.produced)


def _to_message(data: Any) -> Message:
    if isinstance(data, Message):
        return data
    try:
        return Message.model_validate(data)
    except Exception:  # an input the provider accepted but our type does not describe
        return Message.model_construct(**data)


def _finalize_runner_response(
    responses: Sequence[ChatCompletionResponse],
    *,
    input_messages: Sequence[Message],
    produced: Sequence[Message],
    tool_events: Sequence[ToolEvent],
    stop_reason: Optional[str],
) -> ChatCompletionResponse:
    """The last model response, carrying the run: earlier responses, every produced message
    (on ``choices[0]``), the whole trace, usage summed over every model call, the tool events
    and the stop reason. The responses themselves are not modified (shallow copies)."""
    last = responses[-1]
    usage = None
    for response in responses:
        if response.usage is not None:
            usage = response.usage if usage is None else usage + response.usage
    choices = list(last.choices)
    if choices:
        choices[0] = choices[0].model_copy(update={"intermediate_messages": list(produced)})
    return last.model_copy(update={
        "choices": choices,
        "intermediate_responses": list(responses[:-1]),
        "messages": [*input_messages, *produced],
        "usage": usage,
        "tool_events": list(tool_events),
        "stop_reason": stop_reason,
    })


# --- steps (how a driver performs the engine's I/O) ----------------------------------------


class DriverSteps:
    """How a driver performs a model call and a tool call. This default performs them
    directly; a layer overrides them to wrap each in something (aisuite_like.durable records
    each as a DBOS step). ``bind_tools`` is called in the driver's thread or task, with the
    runnable calls of a batch in call order, before any of them runs (so a layer can number
    its steps deterministically while the calls then run concurrently)."""

    def complete(self, provider: Provider, request: ChatRequest) -> ChatCompletionResponse:
        return provider.complete(request)

    async def acomplete(self, provider: Provider, request: ChatRequest
                        ) -> ChatCompletionResponse:
        return await provider.acomplete(request)

    def bind_tools(self, calls: list[ToolCallRun]) -> None:
        """The runnable calls of a batch, in call order, before any runs."""

    def execute(self, call: ToolCallRun) -> None:
        _execute_scoped_sync(call)

    async def aexecute(self, call: ToolCallRun) -> None:
        await _execute_scoped_async(call)


_DIRECT = DriverSteps()


# --- sync driver -------------------------------------------------------------------------


class _ToolTimeout(Exception):
    """Raised by the drivers' timeout helpers (a tool cannot raise it by accident)."""


class _DaemonThreads:
    """At most ``limit`` daemon threads running submitted calls (started on need, reused).
    Not a ``ThreadPoolExecutor``: the interpreter joins its threads at exit, so a program
    interrupted (Ctrl-C) while a sync tool runs would wait for the tool; a daemon thread
    is left behind instead. ``close`` does not wait for running calls."""

    __slots__ = ("limit", "_queue", "_lock", "_threads", "_idle", "_pending")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = self._idle = self._pending = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> "concurrent.futures.Future[Any]":
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        context = contextvars.copy_context()
        with self._lock:
            self._pending += 1
            start = self._pending > self._idle and self._threads < self.limit
            if start:
                self._threads += 1
        self._queue.put((future, context, fn, args))
        if start:
            threading.Thread(target=self._work, daemon=True, name="aisuite-like-tools").start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            item = self._queue.get()
            with self._lock:
                self._idle -= 1
                if item is None:
                    self._threads -= 1
                    return
                self._pending -= 1
            future, context, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                value = context.run(fn, *args)
            except BaseException as exc:  # handed to whoever waits on the future
                future.set_exception(exc)
            else:
                future.set_result(value)
            del future, context, fn, args, item  # nothing kept alive while idle

    def close(self) -> None:
        """Idle threads end; busy ones end after their call (nobody waits for them)."""
        with self._lock:
            threads = self._threads
        for _ in range(threads):
            self._queue.put(None)


def _call_in_thread(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                    timeout: float) -> Any:
    """Run a sync tool with a deadline. Python cannot stop a thread: a timed-out tool keeps
    running in its daemon thread, but the run moves on without it."""
    box: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            box["value"] = context.run(fn, *args, **kwargs)
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="aisuite-like-tool")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _ToolTimeout
    if "error" in box:
        raise box["error"]
    return box["value"]


class _OwnLoop:
    """One call of an async tool that has a deadline, on an event loop of its own in a daemon
    thread (docs/tool-runner.md#timeouts): a tool that ignores cancellation or blocks its
    loop (``time.sleep`` in an ``async def``) holds that thread only, never the caller's loop
    or its ``asyncio.run``, and the run goes on at the deadline. ``result`` is a
    ``concurrent.futures.Future``; ``cancel`` asks the tool's loop to cancel it."""

    __slots__ = ("result", "_loop", "_task")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.result: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._loop = asyncio.new_event_loop()
        self._task: Optional[asyncio.Task[Any]] = None
        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(self._run, fn, args, kwargs), daemon=True,
                         name="aisuite-like-tool").start()

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> None:
        loop = self._loop

        async def call() -> Any:  # inside the loop: a tool that asks for one finds it
            return await fn(*args, **kwargs)

        try:
            self._task = loop.create_task(call())
            value = loop.run_until_complete(self._task)
        except BaseException as exc:  # the tool's error (or its cancellation), for the waiter
            if not self.result.done():
                self.result.set_exception(exc)
        else:
            if not self.result.done():
                self.result.set_result(value)
        finally:  # as asyncio.run ends: tasks the tool started are cancelled with the call
            try:
                rest = asyncio.all_tasks(loop)
                for task in rest:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*rest, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    def cancel(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._cancel)
        except RuntimeError:  # the loop is closed: the call is over
            pass

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


def _own_loop(call: ToolCallRun) -> bool:
    """Whether this async call runs on an event loop of its own: when it has a deadline,
    unless the tool is one of the agent machinery's own (handoffs), which run on the
    caller's loop."""
    return call.timeout is not None and not getattr(call.tool, "_on_caller_loop", False)


async def _await_with_timeout(awaitable: Any, timeout: Optional[float]) -> Any:
    """Await with a deadline, telling our timeout apart from a TimeoutError the tool raised."""
    if timeout is None:
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise _ToolTimeout
    return task.result()


async def _await_own_loop(fn: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any], timeout: float) -> Any:
    """An async tool on its own loop (:class:`_OwnLoop`), awaited with a deadline; at the
    deadline, or when the run is cancelled, the tool is cancelled there and not waited for."""
    own = _OwnLoop(fn, args, kwargs)
    try:
        return await _await_with_timeout(asyncio.wrap_future(own.result), timeout)
    except BaseException:
        own.cancel()
        raise


def _wait_own_loop(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                   timeout: float) -> Any:
    """Sync twin of :func:`_await_own_loop`."""
    own = _OwnLoop(fn, args, kwargs)
    try:
        return own.result.result(timeout)
    except concurrent.futures.TimeoutError:
        if own.result.done():  # finished at the deadline: its own outcome
            return own.result.result()
        raise _ToolTimeout from None
    finally:
        if not own.result.done():
            own.cancel()


def _execute_sync(call: ToolCallRun, engine: Optional[ToolLoop] = None,
                  hooks: Optional[RunHooks] = None, steps: DriverSteps = _DIRECT) -> None:
    if hooks is not None:
        _call_hook_sync(hooks.on_tool_start, engine, call)
    steps.execute(call)
    if hooks is not None:
        _call_hook_sync(hooks.on_tool_end, engine, call)


def _execute_scoped_sync(call: ToolCallRun) -> None:
    """Execute ``call`` inside its ``scope`` (the hooks' ``tool_context``), if any."""
    if call.scope is None:
        _execute_sync_call(call)
        return
    with call.scope:
        _execute_sync_call(call)


async def _execute_scoped_async(call: ToolCallRun) -> None:
    if call.scope is None:
        await _execute_async_call(call)
        return
    with call.scope:
        await _execute_async_call(call)


def _execute_sync_call(call: ToolCallRun) -> None:
    tool = call.tool
    assert tool is not None
    args, kwargs = tool._call_args(call.kwargs, call.context)
    timeout = call.timeout
    start = time.perf_counter()
    try:
        if tool.is_async:
            if _own_loop(call):
                value = _wait_own_loop(tool.fn, args, kwargs, timeout)  # type: ignore[arg-type]  # set when _own_loop
            else:
                value = _run_coro_sync(_await_with_timeout(tool.fn(*args, **kwargs), timeout))
        elif timeout is not None:
            value = _call_in_thread(tool.fn, args, kwargs, timeout)
        else:
            value = tool.fn(*args, **kwargs)
    except _ToolTimeout:
        call.time_out(timeout or 0.0, time.perf_counter() - start)
    except Exception as exc:
        call.fail(exc, time.perf_counter() - start)
    else:
        call.succeed(value, time.perf_counter() - start)


def _call_hook_sync(hook: Any, *args: Any) -> None:
    result = hook(*args)
    if result is not None and inspect.isawaitable(result):  # None: a sync hook, done
        _run_coro_sync(result)


class _SyncToolExecutor:
    """Runs a batch's calls: policy in call order, then each group concurrently in a thread
    pool bounded by the concurrency limit (created on first need, one per run)."""

    def __init__(self, limit: int, steps: DriverSteps = _DIRECT) -> None:
        self.limit = limit
        self.steps = steps
        self._pool: Optional[_DaemonThreads] = None

    def run(self, batch: ToolBatch, engine: Optional[ToolLoop] = None,
            hooks: Optional[RunHooks] = None) -> None:
        for call in batch.awaiting_policy():
            value = batch.ask_policy(call)
            if inspect.isawaitable(value):
                value = _run_coro_sync(value)
            call.decide(value)
        if hooks is not None:
            _call_hook_sync(hooks.on_tools_decided, engine, batch)
            _bind_tool_contexts(batch, engine, hooks)
        execute: Callable[..., None] = _execute_sync
        if self.steps is not _DIRECT:  # a layer's steps span the calls they execute
            self.steps.bind_tools([call for call in batch.calls if call.runnable])
            execute = functools.partial(_execute_sync, steps=self.steps)
        for group in batch.groups():
            if len(group) == 1:
                execute(group[0], engine, hooks)
                continue
            if self._pool is None:
                self._pool = _DaemonThreads(self.limit)
            futures = [self._pool.submit(execute, call, engine, hooks) for call in group]
            for future in futures:
                future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


def _stream_turn_sync(provider: Provider, action: CallModel, acc: _ChunkAccumulator,
                      engine: ToolLoop, hooks: Optional[RunHooks],
                      stretch: Optional[_Stretch] = None) -> Iterator[ChatCompletionChunk]:
    turn = action.turn
    on_chunk = _overriding(hooks, "on_chunk")  # a no-op hook costs no call per chunk
    chunks = provider.stream(action.request)
    try:
        for chunk in chunks:
            chunk.turn = turn
            chunk = acc.add(chunk)
            if on_chunk is not None:
                _call_hook_sync(on_chunk, engine, chunk)
            if stretch is not None:  # the consumer's time with a chunk is not the run's
                stretch.leave()
            yield chunk
            if stretch is not None:
                stretch.enter()
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def _drive_sync(engine: ToolLoop, provider: Provider,
                hooks: Optional[RunHooks] = None,
                steps: DriverSteps = _DIRECT) -> Iterator[ChatCompletionChunk]:
    """Perform the engine's actions; yields the chunks of streamed turns (nothing when not
    streaming). On return, ``engine.result`` is the finalized response. ``steps`` performs
    the (non-streamed) model calls and the tool calls. Under ``instrument()`` the
    instrumentation's hooks watch the run along with ``hooks``."""
    observe = _instrumentation.ACTIVE
    if observe is not None:  # instrument(): the run's spans, through the same hooks
        hooks = _chain(observe.run_hooks(engine, provider), hooks)
    executor = _SyncToolExecutor(engine.max_tool_concurrency, steps)
    stretch: Optional[_Stretch] = None
    error: Optional[BaseException] = None
    try:
        if hooks is not None:
            _call_hook_sync(hooks.on_run_start, engine)
            stretch = _Stretch.entered(engine, hooks)
        action = engine.start()
        while True:
            if isinstance(action, CallModel):
                if hooks is not None:
                    _call_hook_sync(hooks.on_model_request, engine, action)
                target = action.provider or provider
                if action.request.stream:
                    acc = _ChunkAccumulator(engine.history)
                    yield from _stream_turn_sync(target, action, acc, engine, hooks, stretch)
                    response = acc.build()
                else:
                    # unique ids already here, so the hooks see what the trace will hold
                    response = unique_tool_call_ids(steps.complete(target, action.request),
                                                    engine.history)
                if hooks is not None:
                    _call_hook_sync(hooks.on_model_response, engine, response)
                action = engine.model_responded(response)
            elif isinstance(action, RunTools):
                if hooks is not None:
                    _call_hook_sync(hooks.on_tool_batch, engine, action.batch)
                executor.run(action.batch, engine, hooks)
                if hooks is not None:
                    for call in action.batch.calls:
                        _call_hook_sync(hooks.on_tool_result, engine, call)
                action = engine.tools_done(action.batch)
            elif isinstance(action, Finish):
                return
            else:
                raise action.error
    except BaseException as exc:
        error = _run_error(exc)
        raise
    finally:
        if stretch is not None:
            stretch.leave(error)
        executor.close()
        if hooks is not None:
            _call_hook_sync(hooks.on_run_end, engine, error)


def _tool_runner(provider: Provider, request: ChatRequest, tools: Optional[Tools], *,
                 max_turns: int, **options: Any) -> Union[ChatCompletionResponse, Stream]:
    """The sync tool runner: the finalized response, or a ``Stream`` of every turn's chunks
    when ``request.stream`` (its ``get_final_response()`` is the finalized response).
    ``options`` are ``ToolLoop``'s (tool_policy, on_tool_error, on_max_turns,
    max_tool_concurrency), validated there."""
    engine = ToolLoop(request, tools, max_turns=max_turns, **options)
    if request.stream:
        return Stream(_drive_sync(engine, provider), final=engine.final_response)
    for _ in _drive_sync(engine, provider):
        pass
    return engine.final_response()


# --- async driver ------------------------------------------------------------------------


async def _call_hook_async(hook: Any, *args: Any) -> None:
    result = hook(*args)
    if result is not None and inspect.isawaitable(result):  # None: a sync hook, done
        await result


async def _execute_async(call: ToolCallRun, engine: Optional[ToolLoop] = None,
                         hooks: Optional[RunHooks] = None,
                         steps: DriverSteps = _DIRECT) -> None:
    if hooks is not None:
        await _call_hook_async(hooks.on_tool_start, engine, call)
    await steps.aexecute(call)
    if hooks is not None:
        await _call_hook_async(hooks.on_tool_end, engine, call)


async def _execute_async_call(call: ToolCallRun) -> None:
    tool = call.tool
    assert tool is not None
    args, kwargs = tool._call_args(call.kwargs, call.context)
    timeout = call.timeout
    start = time.perf_counter()
    try:
        if tool.is_async:
            if _own_loop(call):
                value = await _await_own_loop(tool.fn, args, kwargs, timeout)  # type: ignore[arg-type]  # set when _own_loop
            else:
                value = await _await_with_timeout(tool.fn(*args, **kwargs), timeout)
        elif timeout is None:  # a sync tool must not block the event loop
            if call.threads is not None:
                value = await call.threads.run(tool.fn, args, kwargs)
            else:  # a daemon thread, not the loop's executor: asyncio.run never waits for it
                value = await _daemon_thread_future(tool.fn, args, kwargs)
        else:
            value = await _await_with_timeout(
                _daemon_thread_future(tool.fn, args, kwargs), timeout)
    except _ToolTimeout:
        call.time_out(timeout or 0.0, time.perf_counter() - start)
    except Exception as exc:
        call.fail(exc, time.perf_counter() - start)
    else:
        call.succeed(value, time.perf_counter() - start)


def _daemon_thread_future(fn: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any]) -> "asyncio.Future[Any]":
    """Run a sync tool that has a deadline in its own daemon thread. Not the loop's default
    executor: a timed-out tool keeps its thread busy, and ``asyncio.run`` waits for the default
    executor at exit, so an abandoned call would hold the caller's program up."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def target() -> None:
        try:
            outcome = (True, context.run(fn, *args, **kwargs))
        except BaseException as exc:  # handed to the awaiting task
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is gone: nobody waits for this result any more
            pass

    threading.Thread(target=target, daemon=True, name="aisuite-like-tool").start()
    return future


class _ToolThreads:
    """The async run's threads for sync tools: ``limit`` (``max_tool_concurrency``) daemon
    threads (:class:`_DaemonThreads`), created on first need, one pool per run; not the event
    loop's default executor, whose size has nothing to do with the run's bound and which
    ``asyncio.run`` waits for. A sync tool with a timeout gets a daemon thread of its own
    instead (``_daemon_thread_future``): an abandoned call must not hold a pool thread."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pool: Optional[_DaemonThreads] = None

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> "asyncio.Future[Any]":
        if self._pool is None:
            self._pool = _DaemonThreads(self.limit)
        return asyncio.wrap_future(self._pool.submit(functools.partial(fn, *args, **kwargs)))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


async def _run_batch_async(batch: ToolBatch, limit: int, pool: _ToolThreads,
                           engine: Optional[ToolLoop] = None,
                           hooks: Optional[RunHooks] = None,
                           steps: DriverSteps = _DIRECT) -> None:
    """Policy in call order, then each group as concurrent tasks bounded by ``limit``; sync
    tools run on ``pool``."""
    for call in batch.awaiting_policy():
        value = batch.ask_policy(call)
        if inspect.isawaitable(value):
            value = await value
        call.decide(value)
    for call in batch.calls:
        call.threads = pool
    if hooks is not None:
        await _call_hook_async(hooks.on_tools_decided, engine, batch)
        _bind_tool_contexts(batch, engine, hooks)
    semaphore = asyncio.Semaphore(limit)
    execute: Callable[..., Any] = _execute_async
    if steps is not _DIRECT:  # a layer's steps span the calls they execute
        steps.bind_tools([call for call in batch.calls if call.runnable])
        execute = functools.partial(_execute_async, steps=steps)

    async def bounded(call: ToolCallRun) -> None:
        async with semaphore:
            await execute(call, engine, hooks)

    for group in batch.groups():
        if len(group) == 1:
            await execute(group[0], engine, hooks)
        else:
            await asyncio.gather(*(bounded(call) for call in group))


async def _stream_turn_async(provider: Provider, action: CallModel, acc: _ChunkAccumulator,
                             engine: ToolLoop, hooks: Optional[RunHooks],
                             stretch: Optional[_Stretch] = None
                             ) -> AsyncGenerator[ChatCompletionChunk, None]:
    turn = action.turn
    on_chunk = _overriding(hooks, "on_chunk")  # a no-op hook costs no call per chunk
    chunks = provider.astream(action.request)
    try:
        async for chunk in chunks:
            chunk.turn = turn
            chunk = acc.add(chunk)
            if on_chunk is not None:
                await _call_hook_async(on_chunk, engine, chunk)
            if stretch is not None:  # the consumer's time with a chunk is not the run's
                stretch.leave()
            yield chunk
            if stretch is not None:
                stretch.enter()
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


async def _drive_async(engine: ToolLoop, provider: Provider,
                       hooks: Optional[RunHooks] = None,
                       steps: DriverSteps = _DIRECT) -> AsyncIterator[ChatCompletionChunk]:
    """The async twin of ``_drive_sync``: same actions, performed with ``await``."""
    observe = _instrumentation.ACTIVE
    if observe is not None:  # instrument(): the run's spans, through the same hooks
        hooks = _chain(observe.run_hooks(engine, provider), hooks)
    threads = _ToolThreads(engine.max_tool_concurrency)
    stretch: Optional[_Stretch] = None
    error: Optional[BaseException] = None
    try:
        if hooks is not None:
            await _call_hook_async(hooks.on_run_start, engine)
            stretch = _Stretch.entered(engine, hooks)
        action = engine.start()
        while True:
            if isinstance(action, CallModel):
                if hooks is not None:
                    await _call_hook_async(hooks.on_model_request, engine, action)
                target = action.provider or provider
                if action.request.stream:
                    acc = _ChunkAccumulator(engine.history)
                    turn_chunks = _stream_turn_async(target, action, acc, engine, hooks,
                                                     stretch)
                    try:
                        async for chunk in turn_chunks:
                            yield chunk
                    finally:
                        await turn_chunks.aclose()
                    response = acc.build()
                else:
                    response = unique_tool_call_ids(
                        await steps.acomplete(target, action.request), engine.history)
                if hooks is not None:
                    await _call_hook_async(hooks.on_model_response, engine, response)
                action = engine.model_responded(response)
            elif isinstance(action, RunTools):
                if hooks is not None:
                    await _call_hook_async(hooks.on_tool_batch, engine, action.batch)
                await _run_batch_async(action.batch, engine.max_tool_concurrency, threads,
                                       engine, hooks, steps)
                if hooks is not None:
                    for call in action.batch.calls:
                        await _call_hook_async(hooks.on_tool_result, engine, call)
                action = engine.tools_done(action.batch)
            elif isinstance(action, Finish):
                return
            else:
                raise action.error
    except asyncio.CancelledError as exc:
        engine.cancelled()  # answer the pending calls: the trace stays a valid history
        error = exc
        raise
    except BaseException as exc:
        error = _run_error(exc)
        raise
    finally:
        if stretch is not None:
            stretch.leave(error)
        threads.close()
        if hooks is not None:
            await _call_hook_async(hooks.on_run_end, engine, error)


async def _atool_runner(provider: Provider, request: ChatRequest, tools: Optional[Tools], *,
                        max_turns: int, **options: Any
                        ) -> Union[ChatCompletionResponse, AsyncStream]:
    """The async tool runner: same engine, same options, same results as ``_tool_runner``.
    Cancelling the task stops the run (``asyncio.CancelledError`` propagates); the engine
    keeps the partial run (``ToolLoop.cancelled``), which a stream's ``get_final_response()``
    returns."""
    engine = ToolLoop(request, tools, max_turns=max_turns, **options)
    if request.stream:
        return AsyncStream(_drive_async(engine, provider), final=engine.final_response)
    async for _ in _drive_async(engine, provider):
        pass
    return engine.final_response()
