"""The tool loop's engine (docs/tool-runner.md): every rule of the loop, and no I/O.

``ToolLoop`` is given the last model response and answers with an action: ``CallModel``
(call the model with this ``ChatRequest``), ``RunTools`` (ask the policy about and execute the
calls of this ``ToolBatch``), ``Finish`` (the finalized response) or ``Fail`` (raise this
error). ``ToolCallRun`` follows one tool call from the model's request to the result sent
back. The drivers (``drivers.py``) perform the actions; layers on top (agents, durable runs)
subclass ``ToolLoop`` to change decisions (``request_for``, ``after_response``,
``after_tools``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..context.strategies import (
    ContextPlan,
    ContextWindow,
    RunWindow,
    SummaryRequest,
    check_context,
)
from ..core.checks import check_max_turns
from ..core.content import text_of
from ..core.cost import attach_price_ref
from ..core.errors import (
    BudgetExceededError,
    MaxTurnsExceeded,
    ToolExecutionError,
    UnsupportedParameterError,
    scrub_exception,
)
from ..core.ids import unique_tool_call_ids
from ..core.reading import loads_json
from ..core.secret_forms import redact
from ..core.types import (
    ChatCompletionResponse,
    ContextEvent,
    Message,
    ToolCall,
    ToolEvent,
    message_input,
)
from ..providers.base import ChatRequest, Provider
from ..tools.base import Tool, format_result, validation_summary
from ..tools.policy import ToolPolicyContext, check_policy, evaluate_policy, to_decision
from ..tools.toolset import Tools

__all__ = [
    "ToolLoop", "ToolBatch", "ToolCallRun", "CallModel", "RunTools", "Finish", "Fail", "Action",
    "Condense",
    "DEFAULT_MAX_TOOL_CONCURRENCY", "DEFAULT_MAX_TOOL_RESULT_CHARS",
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


@dataclass
class Condense:
    """Before model call ``turn``: call the model with ``request`` (never streamed) for the
    summary the run's ``Summarize`` strategy needs, then report it with
    ``ToolLoop.condensed(response)``. ``provider`` None means the driver's provider."""

    request: ChatRequest
    turn: int
    provider: Optional[Provider] = None


Action = Union[CallModel, RunTools, Finish, Fail, Condense]


# --- one tool call, from the model's request to the result sent back --------------------


# DEFERRED: the policy deferred the call to a person; an agent run pauses on it.
_PENDING_POLICY, _READY, DONE, DEFERRED = 0, 1, 2, 3


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
        self.threads: Any = None  # the async run's pool for a sync tool (execute.ToolThreads)
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
        if raw is not None and not isinstance(raw, str):  # a provider of one's own, say
            self.arguments = {}
            self._error(f"the arguments of tool {self.name!r} must be a JSON object in a "
                        f"string, got {type(raw).__name__}")
            return
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
        return self.state == DONE

    @property
    def runnable(self) -> bool:
        return self.state == _READY

    @property
    def deferred(self) -> bool:
        """The policy deferred this call to a person (agent runs pause on it)."""
        return self.state == DEFERRED

    def decide(self, value: Any) -> None:
        """Apply the policy's answer (``bool`` or ``ToolPolicyDecision``), then validate."""
        if self.state != _PENDING_POLICY:
            return
        decision = to_decision(value)
        self.allowed, self.reason = decision.allowed, decision.reason
        if decision.deferred:
            if self.can_defer:
                self.state = DEFERRED
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
            self._error(f"invalid arguments for tool {self.name!r}: {validation_summary(exc)}")
            return
        self.state = _READY

    def succeed(self, value: Any, duration_s: float) -> None:
        self.duration_s = duration_s
        try:
            self.result = self._bounded(format_result(value))
        except Exception as exc:  # e.g. a result JSON cannot express
            self.exception = exc
            self._error(f"the result of tool {self.name!r} could not be serialized: "
                        f"{type(exc).__name__}: {exc}")
            return
        self.state = DONE

    def fail(self, exc: BaseException, duration_s: float) -> None:
        self.duration_s = duration_s
        self.exception = exc
        text = f"{type(exc).__name__}: {exc}"
        if redact(text) is not text:  # it quotes a key: so would a traceback of the cause
            scrub_exception(exc)
        self._error(text)

    def time_out(self, timeout: float, duration_s: float) -> None:
        self.duration_s = duration_s
        self._error(f"tool {self.name!r} timed out after {timeout:g} seconds")

    def cancel(self, reason: str) -> None:
        if self.state != DONE:
            self._error(reason)

    def _error(self, text: str) -> None:
        # Keys are redacted from what the model, ToolEvent, spans and ToolExecutionError see.
        self.result = self._bounded("Error: " + redact(text))
        self.is_error = True
        self.state = DONE

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


def check_tool_bounds(tool_timeout: Any, max_tool_result_chars: Any) -> None:
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
        return evaluate_policy(self._policy, ctx)

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

    Subclasses (agents/turn.py: ``AgentLoop``) may override ``request_for``, ``after_response`` and
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
        context: Union[ContextWindow, ContextPlan, None] = None,
    ) -> None:
        if tool_policy_context is not None and not isinstance(tool_policy_context, Mapping):
            raise TypeError("tool_policy_context must be a dict (it reaches the policy as "
                            f"ToolPolicyContext.context), got {type(tool_policy_context).__name__}")
        check_tool_bounds(tool_timeout, max_tool_result_chars)
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
        check_policy(tool_policy)
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
        plan = context if isinstance(context, ContextPlan) else None
        strategy = check_context(context)
        #: The run's context state (docs/context.md): what each request sends of the history.
        self.window: Optional[RunWindow] = None
        self._summarizer: Optional[tuple[Any, Any]] = None
        if strategy is not None:
            native = strategy.native_options((plan.provider_key or "") if plan else "",
                                             request.api)
            if native:  # the provider's own context management, on every request
                request = request.replace(extra=_merged_native(request.extra, native))
            self.window = strategy.window(request.tools)
            if plan is not None and plan.summarizer is not None:
                self._summarizer = plan.summarizer
                self.window.summarizer_model = getattr(strategy, "model", None)
        self._pending_summary: Optional[SummaryRequest] = None
        #: The summary calls' responses (their usage counts in the run's).
        self.condense_responses: list[ChatCompletionResponse] = []
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
        if self.window is not None:
            self.window.observe(response, self.turn)
        if response.tool_events:  # the provider's hosted calls of this turn (hosted=True)
            self.tool_events.extend(e for e in response.tool_events if e.hosted)
        message = response.choices[0].message if response.choices else None
        if message is not None:
            self.produced.append(message)
            self.history.append(message_input(message))  # content null kept
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

    def budget_refused(self, error: BudgetExceededError) -> Action:
        """A budget refused the next model call before it was sent (docs/budgets.md): the run
        ends with ``stop_reason="budget"`` and the history so far, which is valid (every tool
        call answered). A refusal of the run's first call raises: there is no response."""
        if not self.responses:
            return Fail(error)
        finished = self.finish("budget")
        error.response = finished.response
        return finished

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
            tool_events=self.tool_events, stop_reason=self.stop_reason,
            context_events=self.window.events if self.window is not None else (),
            extra_usage=self.condense_responses)

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
        messages = self.windowed(self.history, turn)
        if final_answer:
            return self.request.replace(messages=messages, tool_choice="none")
        return self.request.replace(messages=messages)

    def windowed(self, messages: Sequence[dict[str, Any]], turn: int) -> list[dict[str, Any]]:
        """What model call ``turn`` sends of ``messages`` (a new list): the run's context
        strategy's view, or all of them."""
        if self.window is None:
            return list(messages)
        return self.window.view(messages, turn)

    def condensed(self, response: ChatCompletionResponse) -> Action:
        """The summary the pending ``Condense`` asked for: fold it in, then the model call
        it preceded."""
        pending = self._pending_summary
        assert pending is not None and self.window is not None
        self._pending_summary = None
        attach_price_ref(response, self.request.model)
        self.condense_responses.append(response)
        message = response.choices[0].message if response.choices else None
        self.window.folded_into(pending, text_of(message.content if message else None),
                                self.history)
        return self._model_call(pending.turn)

    def after_response(self, response: ChatCompletionResponse) -> Optional[Action]:
        return None

    def after_tools(self, batch: ToolBatch) -> Optional[Action]:
        return None

    # -- internals

    def _call_model(self, turn: int) -> Union[CallModel, Condense]:
        # (a CallModel, or first the Condense of a summary the context strategy needs)
        self.turn = turn
        if self.window is not None:
            pending = self.window.summary_needed(self.history, turn)
            if pending is not None:
                self._pending_summary = pending
                return self._condense(pending)
        return self._model_call(turn)

    def _model_call(self, turn: int) -> CallModel:
        return CallModel(self.request_for(turn, final_answer=self._final_answer), turn,
                         self._final_answer)

    def summarizer(self) -> tuple[Optional[Provider], ChatRequest]:
        """The provider (None: the driver's) and base request of the summary calls."""
        if self._summarizer is not None:
            provider, base = self._summarizer
            return provider, base
        return None, self.request

    def _condense(self, pending: SummaryRequest) -> Condense:
        provider, base = self.summarizer()
        request = base.replace(
            messages=pending.messages, tools=None, tool_choice=None, parallel_tool_calls=None,
            response_format=None, stream=False, stream_options=None, n=None,
            max_tokens=pending.max_tokens, extra={})
        return Condense(request, pending.turn, provider)

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
            self._inputs = [to_message(m) for m in self.request.messages]
        return self._inputs

    def _conversation(self) -> tuple[Message, ...]:
        return (*self._input_messages(), *self.produced)


def to_message(data: Any) -> Message:
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
    context_events: Sequence[ContextEvent] = (),
    extra_usage: Sequence[ChatCompletionResponse] = (),
) -> ChatCompletionResponse:
    """The last model response, carrying the run: earlier responses, every produced message
    (on ``choices[0]``), the whole trace, usage summed over every model call, the tool events
    and the stop reason. The responses themselves are not modified (shallow copies)."""
    last = responses[-1]
    usage = None
    for response in (*responses, *extra_usage):
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
        "context_events": list(context_events),
        "stop_reason": stop_reason,
    })


def _merged_native(extra: Mapping[str, Any], native: Mapping[str, Any]) -> dict[str, Any]:
    """The request's provider-native arguments with a strategy's (headers merged, the
    caller's own values kept)."""
    merged = dict(extra)
    for name, value in native.items():
        if isinstance(value, dict) and isinstance(merged.get(name), dict):
            merged[name] = {**value, **merged[name]}
        else:
            merged.setdefault(name, value)
    return merged
