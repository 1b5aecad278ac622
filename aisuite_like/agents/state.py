"""A paused agent run as data: ``RunState`` (the OpenAI Agents SDK's name).

A run pauses when a tool call waits for a person (``needs_approval``, or a policy that defers
it). ``result.to_state()`` captures everything needed to go on: the conversation as sent and
as produced, the model responses, the counters of the run's bounds, the paused batch of tool
calls (the ones already finished with their results, the ones waiting), the person's decisions,
the usage and the user's context. ``to_json()`` writes it as JSON-compatible data with a schema
version; ``RunState.from_json(agent, data)`` reads it back in any process, finding agents by
name from the starting agent and its handoffs, and tools by name. Resuming drives the same
engine: the paused batch is finished (approved calls run, rejected ones get an error result),
then the run continues as usual.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from typing import Any, Optional, Protocol

from pydantic_core import to_jsonable_python

from ..core.reading import loads_json
from ..core.run_context import RunContextWrapper, RunUsage
from ..core.types import ChatCompletionResponse, ToolCall, ToolEvent
from ..loop.engine import DEFERRED, DONE, ToolBatch, ToolCallRun, to_message
from .agent import Agent
from .items import ToolApprovalItem
from .state_checks import SIGNATURE_FIELD, SigningKey, check_signing_key, check_state, sign, verify
from .turn import REJECTED, AgentLoop, AgentSetup, Approvals

__all__ = ["RunState", "SCHEMA_VERSION"]

#: The version of the JSON ``to_json`` writes; ``from_json`` reads this version only.
SCHEMA_VERSION = "1"


class _RunSettings(Protocol):
    """What a paused run's snapshot and its restore read from the run (``run.AgentRun``)."""

    run_id: str
    agent: Agent
    original_input: Any
    input: list[Any]
    approvals: Approvals
    max_turns: int
    limits: Any
    context: Any


_KIND = "aisuite_like.RunState"


def _agents_by_name(start: "Agent") -> dict[str, "Agent"]:
    """The starting agent and every agent reachable through handoffs, by name."""
    found: dict[str, "Agent"] = {}
    todo = [start]
    while todo:
        agent = todo.pop()
        if agent.name in found:
            continue
        found[agent.name] = agent
        todo += list(agent._handoff_map.values())
    return found


def snapshot_loop(loop: AgentLoop, run: "_RunSettings") -> dict[str, Any]:
    """The paused run as plain data (copies: later changes of the loop do not leak in)."""
    batch = loop.paused
    assert batch is not None
    calls = []
    for call in batch.calls:
        entry: dict[str, Any] = {"call_id": call.call_id, "name": call.name,
                                 "arguments": call.raw_arguments}
        if call.deferred:
            entry["state"] = "waiting"
        else:
            entry.update(state="done", result=call.result, is_error=call.is_error,
                         allowed=call.allowed, reason=call.reason, duration_s=call.duration_s)
        calls.append(entry)
    return {
        "$schemaVersion": SCHEMA_VERSION,
        "kind": _KIND,
        "run_id": run.run_id,
        "starting_agent": run.agent.name,
        "current_agent": loop.agent.name,
        "original_input": to_jsonable_python(run.original_input),
        "input": [dict(m) for m in run.input],
        "session_count": loop.session_count,
        "base_messages": [dict(m) for m in loop.request.messages],
        "history": [dict(m) for m in loop.history],
        "produced": [m.model_dump(exclude_none=True) for m in loop.produced],
        "owners": [a.name for a in loop.owners],
        "responses": [r.model_dump(exclude={"raw"}) for r in loop.responses],
        "tool_events": [e.model_dump() for e in loop.tool_events],
        "max_turns": loop.max_turns,
        "turn": loop.turn,
        "tokens_used": loop.tokens_used,
        "tool_calls": loop._tool_calls,
        "output_failures": loop._output_failures,
        "reflecting": loop._reflecting,
        "message_id": loop.message_id,
        "pending": {"turn": batch.turn, "calls": calls},
        "always": {name: list(decision) for name, decision in run.approvals.always.items()},
    }


class RunState:
    """A paused run: ``get_interruptions()``, ``approve(item)`` / ``reject(item)``, then
    ``await Runner.run(agent, state)`` resumes it. ``to_json()`` / ``to_string()`` and
    ``RunState.from_json(agent, data)`` / ``from_string(agent, text)`` carry it to another
    process (the user's ``context`` must be JSON-compatible, or give
    ``context_serializer`` / ``context_deserializer``)."""

    def __init__(self, data: dict[str, Any], starting_agent: "Agent",
                 context: RunContextWrapper[Any]) -> None:
        self._data = data
        self._starting_agent = starting_agent
        self._agents = _agents_by_name(starting_agent)
        self.context_wrapper = context
        # call id -> (approved, rejection message)
        self._decisions: dict[str, tuple[bool, Optional[str]]] = {
            call_id: (bool(d[0]), d[1]) for call_id, d in data.get("decisions", {}).items()}
        self._always: dict[str, tuple[bool, Optional[str]]] = {
            name: (bool(d[0]), d[1]) for name, d in data.get("always", {}).items()}
        current = data["current_agent"]
        if current not in self._agents:
            raise ValueError(f"the state's current agent {current!r} is not {starting_agent.name!r}"
                             f" or reachable from it through handoffs; known agents: "
                             f"{sorted(self._agents)}")

    @classmethod
    def _from_snapshot(cls, snapshot: dict[str, Any], starting_agent: "Agent",
                       context: RunContextWrapper[Any]) -> "RunState":
        data = json.loads(json.dumps(to_jsonable_python(snapshot)))  # a private copy
        usage = context.usage.copy()
        return cls(data, starting_agent, RunContextWrapper(context.context, usage))

    # -- reading

    @property
    def run_id(self) -> str:
        return str(self._data["run_id"])

    @property
    def max_turns(self) -> int:
        return int(self._data["max_turns"])

    @property
    def original_input(self) -> Any:
        return self._data["original_input"]

    @property
    def input(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self._data["input"]]

    @property
    def session_count(self) -> int:
        return int(self._data["session_count"])

    @property
    def current_agent(self) -> "Agent":
        return self._agents[self._data["current_agent"]]

    def get_interruptions(self) -> list[ToolApprovalItem]:
        """The calls still waiting for a decision."""
        message = self._data["produced"][-1]
        by_id = {c["id"]: c for c in message.get("tool_calls") or ()}
        agent = self.current_agent
        source = to_message(message)
        return [ToolApprovalItem(agent, ToolCall.model_validate(by_id[c["call_id"]]), source,
                                 tool_name=c["name"])
                for c in self._data["pending"]["calls"]
                if c["state"] == "waiting" and c["call_id"] not in self._decisions]

    # -- deciding

    def _waiting_ids(self) -> dict[str, str]:
        return {c["call_id"]: c["name"] for c in self._data["pending"]["calls"]
                if c["state"] == "waiting"}

    def _decide(self, item: Any, approved: bool, always: bool, message: Optional[str]) -> None:
        call_id = item if isinstance(item, str) else getattr(item, "call_id", None)
        waiting = self._waiting_ids()
        if call_id not in waiting:
            raise ValueError(f"no tool call {call_id!r} waits for approval in this state; "
                             f"waiting: {sorted(waiting)}")
        self._decisions[call_id] = (approved, message)
        if always:
            self._always[waiting[call_id]] = (approved, message)

    def approve(self, approval_item: Any, always_approve: bool = False) -> None:
        """Let this call run when the state resumes; ``always_approve=True`` also approves
        every later call of the same tool in this run."""
        self._decide(approval_item, True, always_approve, None)

    def reject(self, approval_item: Any, always_reject: bool = False, *,
               rejection_message: Optional[str] = None) -> None:
        """Do not run this call: the model receives ``Error: <rejection_message>`` (default
        ``"Tool execution was not approved."``); ``always_reject=True`` also rejects every
        later call of the same tool in this run."""
        self._decide(approval_item, False, always_reject, rejection_message)

    # -- to and from JSON

    def to_json(self, *, context_serializer: Optional[Callable[[Any], Any]] = None,
                signing_key: Optional[SigningKey] = None) -> dict[str, Any]:
        """The state as JSON-compatible data (``json.dumps`` it), schema version included.
        The context is written as JSON (pydantic models and dataclasses as objects); pass
        ``context_serializer(context) -> JSON-compatible`` for other objects. With
        ``signing_key`` (bytes or text, kept secret), the data carries an HMAC-SHA256
        signature that ``from_json(..., signing_key=...)`` checks."""
        key = check_signing_key(signing_key) if signing_key is not None else None
        data = {k: v for k, v in self._data.items() if k != SIGNATURE_FIELD}
        context = self.context_wrapper.context
        try:
            data["context"] = (context_serializer(context) if context_serializer is not None
                               else to_jsonable_python(context))
            json.dumps(data["context"])
        except Exception as exc:
            raise TypeError(f"the run's context ({type(context).__name__}) cannot be written "
                            f"as JSON ({exc}); pass to_json(context_serializer=...) and "
                            "from_json(..., context_deserializer=...)") from None
        data["usage"] = self.context_wrapper.usage.to_dict()
        data["decisions"] = {k: list(v) for k, v in self._decisions.items()}
        data["always"] = {k: list(v) for k, v in self._always.items()}
        return sign(data, key) if key is not None else data

    def to_string(self, **kwargs: Any) -> str:
        """``to_json()`` as a JSON string."""
        return json.dumps(self.to_json(**kwargs), ensure_ascii=False)

    @staticmethod
    def from_json(initial_agent: "Agent", state_json: Any, *,
                  context_override: Any = None,
                  context_deserializer: Optional[Callable[[Any], Any]] = None,
                  signing_key: Optional[SigningKey] = None) -> "RunState":
        """Rebuild a state written by ``to_json()`` (a dict, or its JSON text). Agents are
        found by name from ``initial_agent`` (the run's starting agent) and its handoffs.
        ``context_override`` replaces the stored context; ``context_deserializer(data)``
        rebuilds it. Every field is checked (``ValueError`` naming the first that
        ``to_json`` would not have written); with ``signing_key``, the state must carry the
        signature ``to_json(signing_key=...)`` gave it. Works with ``await`` too, as in the
        Agents SDK."""
        if not isinstance(initial_agent, Agent):
            raise TypeError(f"from_json needs the run's starting ai.Agent first, got "
                            f"{type(initial_agent).__name__}")
        if isinstance(state_json, (str, bytes)):
            try:
                state_json = loads_json(state_json)
            except ValueError as exc:
                raise ValueError(f"the run state is not valid JSON: {exc}") from None
        if not isinstance(state_json, dict) or state_json.get("kind") != _KIND:
            raise ValueError("this is not a run state written by aisuite_like RunState.to_json()")
        version = state_json.get("$schemaVersion")
        if version != SCHEMA_VERSION:
            raise ValueError(f"run state schema version {version!r} is not supported (this "
                             f"version of aisuite_like reads {SCHEMA_VERSION!r})")
        if signing_key is not None:
            verify(state_json, signing_key)
        if state_json.get("starting_agent") != initial_agent.name:
            raise ValueError(f"the state was started by agent "
                             f"{state_json.get('starting_agent')!r}, not "
                             f"{initial_agent.name!r}: pass the run's starting agent")
        try:
            data = json.loads(json.dumps(state_json, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the run state is not JSON data ({exc})") from None
        check_state(data, _agents_by_name(initial_agent))
        if context_override is not None:
            context = context_override
        elif context_deserializer is not None:
            context = context_deserializer(data.get("context"))
        else:
            context = data.get("context")
        usage = RunUsage.from_dict(data.get("usage") or {})
        wrapper = (context if isinstance(context, RunContextWrapper)
                   else RunContextWrapper(context, usage))
        return RunState(data, initial_agent, wrapper)

    @staticmethod
    def from_string(initial_agent: "Agent", state_string: str, **kwargs: Any) -> "RunState":
        """``from_json`` from the JSON text of ``to_string()``."""
        return RunState.from_json(initial_agent, state_string, **kwargs)

    def __await__(self) -> Generator[Any, None, "RunState"]:
        """``await RunState.from_json(...)`` (the Agents SDK's form) gives the state."""
        async def itself() -> "RunState":
            return self

        return itself().__await__()

    def _check_agent(self, agent: "Agent") -> None:
        if agent.name != self._data["starting_agent"]:
            raise ValueError(f"this state belongs to a run started by agent "
                             f"{self._data['starting_agent']!r}; resume it with that agent, "
                             f"not {agent.name!r}")

    def __repr__(self) -> str:
        return (f"RunState(run_id={self.run_id!r}, current_agent={self._data['current_agent']!r}"
                f", waiting={len(self.get_interruptions())})")


def restore_loop(state: RunState, run: "_RunSettings", setup_for: Callable[["Agent"], AgentSetup],
                 context: Callable[[Sequence[dict[str, Any]]], list[dict[str, Any]]]
                 ) -> AgentLoop:
    """An engine in the paused run's state, whose first action finishes the paused batch."""
    data = state._data
    agents = state._agents
    current = state.current_agent
    setup = setup_for(current)
    loop = AgentLoop(setup, list(data["base_messages"]), max_turns=run.max_turns,
                     limits=run.limits, setup_for=setup_for, context=context,
                     run_id=run.run_id, run_context=run.context)
    try:
        loop.owners = [agents[name] for name in data["owners"]]
    except KeyError as exc:
        raise ValueError(f"the state names agent {exc.args[0]!r}, which is not reachable from "
                         f"{state._starting_agent.name!r}") from None
    loop.history = [dict(m) for m in data["history"]]
    loop.produced = [to_message(m) for m in data["produced"]]
    loop.responses = [ChatCompletionResponse.model_validate(r) for r in data["responses"]]
    loop.tool_events = [ToolEvent.model_validate(e) for e in data["tool_events"]]
    loop.turn = int(data["turn"])
    loop.tokens_used = int(data["tokens_used"])
    loop._tool_calls = int(data["tool_calls"])
    loop._output_failures = int(data["output_failures"])
    loop._reflecting = bool(data["reflecting"])
    loop.message_id = str(data["message_id"])
    message = loop.produced[-1]
    by_id = {c.id: c for c in message.tool_calls or ()}
    calls: list[ToolCallRun] = []
    done: set[str] = set()
    for entry in data["pending"]["calls"]:
        call_id = entry["call_id"]
        call = ToolCallRun(by_id[call_id], setup.tools, int(data["pending"]["turn"]),
                           timeout=loop.tool_timeout,
                           max_result_chars=loop.max_tool_result_chars)
        call.context, call.can_defer = run.context, True
        if entry["state"] == "done":
            call.result, call.is_error = entry["result"], bool(entry["is_error"])
            call.allowed, call.reason = bool(entry["allowed"]), entry["reason"]
            call.duration_s = float(entry["duration_s"])
            call.state = DONE
            done.add(call_id)
        elif call.done:
            pass  # the call could not be rebuilt (e.g. its tool is gone): its error stands
        elif call_id in state._decisions:
            approved, text = state._decisions[call_id]
            if approved:
                call.allow()
                call.reason = "approved by a person"
            else:
                call.reason = "rejected by a person"
                call.cancel(text or REJECTED)
        else:
            call.state = DEFERRED  # still waiting: the run pauses again on it
        calls.append(call)
    loop.resume_batch = ToolBatch(int(data["pending"]["turn"]), calls, setup.policy,
                                  loop._conversation)
    loop.resumed_ids = frozenset(by_id)
    loop.resumed_done = frozenset(done)
    return loop
