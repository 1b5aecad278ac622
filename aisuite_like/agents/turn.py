"""An agent run's decisions, layered on the tool loop's engine (``loop/engine.py``: ``ToolLoop``).

``AgentLoop`` subclasses the sans-IO engine through its extension points (``request_for``,
``after_response``, ``after_tools``) and post-processes the actions the engine returns; the
async driver of loop/drivers.py performs them. Nothing here does I/O and there is no second loop.
What it adds to the engine's rules:

- the agent's instructions as the system message, and the session's context strategy, on
  every request;
- handoffs: a ``transfer_to_<agent>`` tool switches the agent (model, instructions, tools,
  policy) and the run continues with the same history;
- structured output: native ``response_format`` or a forced ``final_result`` tool, validated,
  with one corrective retry;
- reflection after the last allowed turn (``reflect_on_tool_use``);
- ``RunLimits`` bounds on model calls, tool calls and tokens;
- approvals: a call the policy defers to a person pauses the run (``paused``); a resumed run
  starts with that batch (``resume_batch``, built by state.py);
- what the async layer needs for the Agents SDK's API: the agent of each produced message
  (``owners``, for run items), the pending handoff input filter, the run context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import ValidationError

from ..core.errors import OutputValidationError
from ..core.types import ChatCompletionResponse, Message, ToolCall
from ..loop.engine import Action, CallModel, Fail, RunTools, ToolBatch, ToolCallRun, ToolLoop
from ..providers.base import ChatRequest, Provider
from ..tools.base import Tool, validation_summary
from ..tools.policy import ToolPolicyDecision, evaluate_policy
from ..tools.toolset import Tools
from .agent import FINAL_RESULT, Agent, AgentHandoff, OutputSpec, RunLimits
from .events import AgentEvent, Handoff, tool_call_events
from .items import HandoffInputData, RunItem, ToolApprovalItem, message_items
from .sdk import maybe_await, needs_approval_now

# Provider keys whose translators send response_format json_schema natively (OpenAI and
# Azure, Anthropic output_config, Gemini responseJsonSchema, the offline test model). A
# provider object may say otherwise with a ``supports_response_format`` bool attribute.
_NATIVE_OUTPUT_KEYS = frozenset({"openai", "azure", "anthropic", "google", "gemini", "test"})

_NO_OUTPUT: Any = object()


class _AgentPolicy:
    """The agent's tool policy for its own tools, plus approvals: a tool whose
    ``needs_approval`` says so is deferred to a person, unless a person already decided
    for every call of that tool (``always_approve`` / ``always_reject``). Handoff and
    final_result calls are the agent author's configuration, always allowed."""

    __slots__ = ("inner", "control", "tools", "approvals")

    def __init__(self, inner: Any, control: frozenset[str], tools: Optional[Tools],
                 approvals: "Approvals") -> None:
        self.inner = inner
        self.control = control
        self.tools = tools
        self.approvals = approvals

    def evaluate(self, ctx: Any) -> Any:
        if ctx.tool_name in self.control:
            return True
        standing = self.approvals.standing(ctx.tool_name)
        if standing is not None:
            return standing
        tool = self.tools.by_name.get(ctx.tool_name) if self.tools is not None else None
        if tool is not None and tool.needs_approval is not False:
            return self._with_approval(tool, ctx)
        return True if self.inner is None else evaluate_policy(self.inner, ctx)

    async def _with_approval(self, tool: Tool, ctx: Any) -> Any:
        if await needs_approval_now(tool, self.approvals.context, ctx.arguments, ctx.call_id):
            return ToolPolicyDecision.defer("the tool needs a person's approval")
        if self.inner is None:
            return True
        return await maybe_await(evaluate_policy(self.inner, ctx))


class Approvals:
    """A person's decisions on deferred calls of one run: per call id, and standing ones per
    tool name (``always_approve`` / ``always_reject``)."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.calls: dict[str, tuple[bool, Optional[str]]] = {}
        self.always: dict[str, tuple[bool, Optional[str]]] = {}

    def standing(self, tool_name: str) -> Any:
        decided = self.always.get(tool_name)
        if decided is None:
            return None
        return True if decided[0] else ToolPolicyDecision.deny(decided[1] or REJECTED)


#: What the model receives for a call a person rejected (after "Error: ").
REJECTED = "Tool execution was not approved."


@dataclass
class AgentSetup:
    """One agent's part of a run: its provider and base request (model, tools, settings;
    messages are filled per call), its tools and policy, and how it produces output."""

    agent: "Agent"
    provider: Provider
    request: ChatRequest
    tools: Optional[Tools]
    policy: Any
    output: Optional[OutputSpec]
    forced_output: bool  # output through the final_result tool (no native structured output)
    forced_choice: Any
    handoffs: dict[str, "Agent"]
    handoff_specs: dict[str, AgentHandoff]
    model: str = ""  # the agent's model, or the default model when it has none


def supports_native_output(key: str, provider: Any) -> bool:
    declared = getattr(provider, "supports_response_format", None)
    if isinstance(declared, bool):
        return declared
    return key in _NATIVE_OUTPUT_KEYS


# --- the engine ---------------------------------------------------------------------------------


class AgentLoop(ToolLoop):
    """The tool loop of an agent run. The async driver performs its actions; ``RunHooks``
    set ``message_id`` before each model call and read ``call_kind`` and ``outbox``."""

    def __init__(self, setup: AgentSetup, messages: list[dict[str, Any]], *, max_turns: int,
                 limits: "RunLimits", setup_for: Callable[["Agent"], AgentSetup],
                 context: Callable[[Sequence[dict[str, Any]]], list[dict[str, Any]]],
                 run_id: str, run_context: Any = None) -> None:
        super().__init__(setup.request.replace(messages=messages), setup.tools,
                         max_turns=max_turns, tool_policy=setup.policy, on_max_turns="return",
                         tool_timeout=setup.agent.tool_timeout,
                         max_tool_result_chars=setup.agent.max_tool_result_chars)
        self.setup = setup
        self.agent = setup.agent
        self.limits = limits
        self.run_id = run_id
        self._setup_for = setup_for
        self._context = context
        self.message_id = ""
        self.call_kind = "turn"  # "turn" | "reflection" | "output_retry", read by the hooks
        self.outbox: list[AgentEvent] = []  # events decided here, emitted by the run's hooks
        self.status: Optional[str] = None
        self.limit: Optional[str] = None
        self.output: Any = _NO_OUTPUT
        self.open_batch: Optional[ToolBatch] = None
        self.run_context = run_context  # the RunContextWrapper tools and callbacks receive
        self.owners: list["Agent"] = []  # the agent whose turn produced each produced message
        self.system_prompt: Optional[str] = None  # resolved callable instructions
        # A handoff whose input_filter the run applies before the next model call:
        # (the handoff, index in produced of the handoff turn's first message).
        self.pending_filter: Optional[tuple[AgentHandoff, int]] = None
        self.paused: Optional[ToolBatch] = None  # the batch waiting for a person
        self.resume_batch: Optional[ToolBatch] = None  # the batch a resumed run starts with
        self.resumed_ids: frozenset[str] = frozenset()  # calls requested before the pause
        self.resumed_done: frozenset[str] = frozenset()  # calls finished before the pause
        self.handoffs_done: list[tuple["Agent", "Agent"]] = []  # for the run's hooks
        self.session_count = 0  # leading messages of the history that came from a Session
        self._turn_start = 0
        self.tokens_used = 0
        self.cost_used = 0.0  # USD, counted only with RunLimits(max_cost=...)
        self.cost_unknown = False
        self._tool_calls = 0
        self._output_failures = 0
        self._reflecting = False
        self._limit_hit: Optional[str] = None

    # -- the engine's steps, with the run's bounds applied to what they return

    def start(self) -> Action:
        if self.resume_batch is not None:  # a resumed run: finish the paused batch first
            batch, self.resume_batch = self.resume_batch, None
            self.open_batch = batch
            return RunTools(batch)
        return self._gate(super().start())

    def model_responded(self, response: ChatCompletionResponse) -> Action:
        if response.usage is not None:
            self.tokens_used += response.usage.total_tokens
        self._turn_start = len(self.produced)
        agent = self.agent
        action = super().model_responded(response)  # (prices the response's usage)
        self._own(agent)
        if self.limits.max_cost is not None:
            cost = response.usage.cost if response.usage is not None else None
            if cost is None:
                self.cost_unknown = True  # cannot tell what the run spent: stop
            else:
                self.cost_used += cost
        if isinstance(action, RunTools):
            self.open_batch = action.batch
            for call in action.batch.calls:
                call.context = self.run_context
                call.can_defer = True
            self._screen(action.batch)
        return self._gate(action)

    def cancelled(self, reason: str = "") -> None:
        """Nothing here: the run itself answers the open calls once its task has stopped,
        saying why (cancelled, or its timeout_s limit); see ``AgentRun``."""

    def tools_done(self, batch: ToolBatch) -> Action:
        self.open_batch = None
        if any(call.deferred for call in batch.calls):
            # A person must decide: stop here, nothing of this batch recorded yet (the run
            # resumes with it, and then records its results in call order).
            self.paused = batch
            self.status = "interrupted"
            return self.finish(None)
        agent = self.agent
        action = super().tools_done(batch)
        self._own(agent)
        return self._gate(action)

    def _own(self, agent: "Agent") -> None:
        self.owners += [agent] * (len(self.produced) - len(self.owners))

    # -- extension points

    def request_for(self, turn: int, *, final_answer: bool) -> ChatRequest:
        messages = self._context(self.history)
        instructions = self.agent.instructions
        if callable(instructions):
            instructions = self.system_prompt  # resolved by the run before each call
        if instructions:
            messages = [{"role": "system", "content": instructions}, *messages]
        if self._reflecting:  # answer from the results: no more tools (or only final_result)
            choice = self.setup.forced_choice if self.setup.forced_output else "none"
            return self.setup.request.replace(messages=messages, tool_choice=choice)
        return self.setup.request.replace(messages=messages)

    def after_response(self, response: ChatCompletionResponse) -> Optional[Action]:
        message = response.choices[0].message if response.choices else None
        calls = message.tool_calls if message is not None else None
        setup = self.setup
        if calls:
            if self._reflecting and not setup.forced_output:
                # The model ignored tool_choice="none": answer its calls, run none of them.
                self._refuse(calls, "not executed: the run reached max_turns")
                return self._end("max_turns")
            return None
        if setup.output is not None:
            if setup.forced_output:
                return self._output_failed(
                    f"no {FINAL_RESULT} call", message.content if message else None,
                    f"Give your final answer by calling the {FINAL_RESULT} tool.")
            content = message.content if message is not None else None
            try:
                self.output = setup.output.parse_text(content)
            except ValidationError as exc:
                summary = validation_summary(exc)
                return self._output_failed(
                    summary, content,
                    f"Your answer does not match the required {setup.output.name} schema: "
                    f"{summary}. Answer again with only a JSON object matching the schema.")
        return self._end("max_turns") if self._reflecting else None

    def after_tools(self, batch: ToolBatch) -> Optional[Action]:
        if self._limit_hit is not None:
            return self._end("limit", self._limit_hit)
        setup = self.setup
        if setup.forced_output:
            final = next((c for c in batch.calls if c.name == FINAL_RESULT), None)
            if final is not None:
                if not final.is_error:
                    self.output = final.kwargs["output"]
                    return self._end("max_turns" if self._reflecting else "completed")
                # The error result already tells the model what was wrong.
                return self._output_failed(final.result, final.raw_arguments, None)
        handoff = next((c for c in batch.calls if c.name in setup.handoffs and not c.is_error),
                       None)
        if handoff is not None:
            return self._hand_off(handoff)
        if self._reflecting:  # forced output: the reflection call ran tools, not final_result
            return self._end("max_turns")
        if self.turn >= self.max_turns and self.agent.reflect_on_tool_use:
            self._reflecting = True
            self.call_kind = "reflection"
            return self._call_model(self.turn + 1)
        return None  # the engine's rule: next turn, or finish with "max_turns"

    # -- helpers

    def _screen(self, batch: ToolBatch) -> None:
        """Before anything runs: one handoff per turn; a final_result call ends the turn's
        other calls; calls beyond ``max_tool_calls`` are answered, not executed."""
        setup = self.setup
        taken: Optional[str] = None
        for call in batch.calls:
            if call.name in setup.handoffs:
                if taken is None:
                    taken = call.name
                else:
                    call.cancel(f"not executed: only one handoff per turn ({taken} was used)")
        if setup.forced_output and any(c.name == FINAL_RESULT for c in batch.calls):
            for call in batch.calls:
                if call.name != FINAL_RESULT:
                    call.cancel("not executed: the final result was given in the same turn")
        control = setup.handoffs.keys() | ({FINAL_RESULT} if setup.forced_output else set())
        pending = [c for c in batch.calls if not c.done and c.name not in control]
        bound = self.limits.max_tool_calls
        if bound is not None:
            room = max(0, bound - self._tool_calls)
            for call in pending[room:]:
                call.cancel(f"not executed: the run reached its limit of {bound} tool calls "
                            "(max_tool_calls)")
            if len(pending) > room:
                self._limit_hit = "max_tool_calls"
            pending = pending[:room]
        self._tool_calls += len(pending)

    def _gate(self, action: Action) -> Action:
        """A model call the run's bounds allow goes to the current agent's provider; one they
        forbid ends the run with status "limit"."""
        if isinstance(action, CallModel):
            limits = self.limits
            if limits.max_model_calls is not None and len(self.responses) >= limits.max_model_calls:
                return self._end("limit", "max_model_calls")
            if limits.max_total_tokens is not None and self.tokens_used >= limits.max_total_tokens:
                return self._end("limit", "max_total_tokens")
            if limits.max_cost is not None and (self.cost_unknown
                                                or self.cost_used >= limits.max_cost):
                return self._end("limit", "max_cost")
            action.provider = self.setup.provider
        return action

    def _end(self, status: str, limit: Optional[str] = None) -> Action:
        self.status = status
        self.limit = limit
        return self.finish(self.stop_reason)

    def _output_failed(self, error: str, raw: Any, feedback: Optional[str]) -> Action:
        """Invalid structured output: feed it back once (``feedback`` as a user message, or the
        tool's error result already in the history), then give up."""
        self._output_failures += 1
        spec = self.setup.output
        assert spec is not None
        if self._output_failures >= 2:
            return Fail(OutputValidationError(
                f"the model's output failed validation as {spec.name} twice (after one "
                f"corrective retry); last error: {error}", output=raw))
        if feedback is not None:
            self.history.append({"role": "user", "content": feedback})
            self.produced.append(Message(role="user", content=feedback))
        self.call_kind = "output_retry"
        return self._call_model(self.turn + 1)

    def _hand_off(self, call: ToolCallRun) -> Action:
        target = self.setup.handoffs[call.name]
        self.outbox.append(Handoff(
            run_id=self.run_id, agent_name=self.agent.name, message_id=self.message_id,
            call_id=call.call_id, from_agent=self.agent.name, to_agent=target.name))
        self.handoffs_done.append((self.agent, target))
        spec = self.setup.handoff_specs.get(call.name)
        if spec is not None and spec.input_filter is not None:
            self.pending_filter = (spec, self._turn_start)
        setup = self._setup_for(target)
        self.setup, self.agent = setup, target
        self.tools, self.policy = setup.tools, setup.policy
        self.tool_timeout = target.tool_timeout  # the receiving agent's tool bounds
        self.max_tool_result_chars = target.max_tool_result_chars
        self._reflecting = False
        self._output_failures = 0
        if self.turn >= self.max_turns:
            return self._end("handoff")  # the receiving agent gets no turn in this run
        return self._call_model(self.turn + 1)

    # -- the Agents SDK's view (used by the async layer in run.py)

    def items(self, start: int = 0, end: Optional[int] = None) -> list[RunItem]:
        """The run items of ``produced[start:end]``, each tied to the agent of its turn."""
        out: list[RunItem] = []
        # owners can lag produced until _own() runs: pairs stop at the shorter list.
        for message, owner in zip(self.produced[start:end], self.owners[start:end],
                                  strict=False):
            out += message_items(message, owner)
        return out

    def handoff_input(self) -> Optional[tuple[AgentHandoff, HandoffInputData]]:
        """The pending handoff's ``input_filter`` and the data it receives, if any."""
        if self.pending_filter is None:
            return None
        spec, start = self.pending_filter
        self.pending_filter = None
        return spec, HandoffInputData(
            input_history=tuple(dict(m) for m in self.request.messages),
            pre_handoff_items=tuple(self.items(0, start)), new_items=tuple(self.items(start)),
            run_context=self.run_context)

    def paused_items(self) -> list[ToolApprovalItem]:
        """The calls of the paused batch that wait for a person."""
        batch = self.paused
        if batch is None:
            return []
        message = self.produced[-1]
        calls = {c.id: c for c in (message.tool_calls or ())}
        return [ToolApprovalItem(self.agent, calls[c.call_id], message, tool_name=c.name)
                for c in batch.calls if c.deferred]

    def _refuse(self, calls: list[ToolCall], reason: str) -> None:
        runs = [self.new_call(call) for call in calls]
        self.abandon(ToolBatch(self.turn, runs, None, self._conversation), reason)
        # These calls never reach the driver's tool hooks: report them like any other call.
        events = [tool_call_events(self, run) for run in runs]
        self.outbox += [request for request, _ in events]
        self.outbox += [execution for _, execution in events]
