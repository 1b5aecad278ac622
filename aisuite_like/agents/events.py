"""The typed events of an agent run, and their rendering for a person (``print_trace``).

Events are small frozen dataclasses (built per streamed chunk, so no validation cost). Every
event has ``type`` (its class name), ``run_id`` and ``agent_name``; the model-related ones also
``message_id``, shared by a ``ModelRequest``, the ``TextDelta`` events of its reply and the tool
events and ``Handoff`` that reply caused.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional, TextIO, Union

from ..core.types import ContextEvent, Usage

__all__ = [
    "RunStarted", "ModelRequest", "TextDelta", "ToolCallRequestEvent",
    "ToolCallExecutionEvent", "Handoff", "RunCompleted", "ContextUpdated", "AgentEvent",
]


@dataclass(frozen=True)
class _Event:
    run_id: str
    agent_name: str

    @property
    def type(self) -> str:
        """The event's class name, e.g. ``"TextDelta"``."""
        return type(self).__name__


@dataclass(frozen=True)
class RunStarted(_Event):
    """The run began with ``input`` (the new input messages, as dicts)."""

    input: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ModelRequest(_Event):
    """A model call is about to be made. ``kind``: ``"turn"`` (a normal turn),
    ``"reflection"`` (the answer-from-results call after the last allowed turn) or
    ``"output_retry"`` (the corrective call after invalid structured output)."""

    message_id: str = ""
    turn: int = 0
    model: str = ""
    kind: str = "turn"


@dataclass(frozen=True)
class TextDelta(_Event):
    """Text of the reply to the ``ModelRequest`` with the same ``message_id``: one event per
    streamed piece, or one with the whole text when the run does not stream."""

    message_id: str = ""
    text: str = ""


@dataclass(frozen=True)
class _ToolCallEvent(_Event):
    """What both tool-call events say: which call, of which model message."""

    message_id: str = ""
    call_id: str = ""
    tool_name: str = ""


@dataclass(frozen=True)
class ToolCallRequestEvent(_ToolCallEvent):
    """The model asked for a tool call (before the policy and execution)."""

    arguments: str = ""


@dataclass(frozen=True)
class ToolCallExecutionEvent(_ToolCallEvent):
    """A tool call's outcome: ``result`` is the exact text sent to the model."""

    arguments: Union[dict[str, Any], str] = ""
    result: str = ""
    is_error: bool = False
    allowed: bool = False
    reason: Optional[str] = None
    duration_s: float = 0.0


def tool_call_events(engine: Any, call: Any) -> tuple[ToolCallRequestEvent,
                                                     ToolCallExecutionEvent]:
    """The request and execution events of one tool call (a ``runner.ToolCallRun``) made by
    the model message ``engine.message_id`` of an agent run."""
    base = dict(run_id=engine.run_id, agent_name=engine.agent.name,
                message_id=engine.message_id, call_id=call.call_id, tool_name=call.name)
    return (ToolCallRequestEvent(**base, arguments=call.raw_arguments or ""),
            ToolCallExecutionEvent(**base, arguments=call.arguments, result=call.result,
                                   is_error=call.is_error, allowed=call.allowed,
                                   reason=call.reason, duration_s=call.duration_s))


@dataclass(frozen=True)
class Handoff(_Event):
    """``from_agent`` handed the conversation to ``to_agent`` (tool call ``call_id``)."""

    message_id: str = ""
    call_id: str = ""
    from_agent: str = ""
    to_agent: str = ""


@dataclass(frozen=True)
class ContextUpdated(_Event):
    """Before the next model call, the run's context strategy changed what is sent:
    ``event`` says how (a ``ContextEvent``: cut, summarized, or edited by the provider;
    docs/context.md)."""

    event: Optional[ContextEvent] = None


@dataclass(frozen=True)
class RunCompleted(_Event):
    """The run is over; ``result`` is its ``RunResult`` (also what ``Runner.run`` returns)."""

    status: str = ""
    limit: Optional[str] = None
    final_output: Any = None
    usage: Optional[Usage] = None
    result: Any = field(default=None, repr=False, compare=False)


AgentEvent = Union[RunStarted, ModelRequest, TextDelta, ToolCallRequestEvent,
                   ToolCallExecutionEvent, Handoff, ContextUpdated, RunCompleted]


# --- rendering -----------------------------------------------------------------------------

_COLOURS = {"dim": "2", "bold": "1", "model": "36", "tool": "33", "ok": "32", "error": "31",
            "handoff": "35"}


def _shorten(value: Any, limit: int = 160) -> str:
    text = str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_trace(events: list[Any], file: Optional[TextIO] = None) -> None:
    """Write the events as a timeline, one line per step; ANSI colours only when ``file`` is
    a terminal (and ``NO_COLOR`` is not set)."""
    out = file if file is not None else sys.stdout
    isatty = getattr(out, "isatty", None)
    colour = bool(isatty and isatty()) and not os.environ.get("NO_COLOR")

    def paint(text: str, style: str) -> str:
        return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m" if colour else text

    lines: list[str] = []
    text_parts: list[str] = []
    text_owner: Optional[str] = None

    def flush_text() -> None:
        nonlocal text_owner
        if text_parts:
            lines.append(f"    {paint('text', 'dim')} {_shorten(''.join(text_parts), 400)}")
            text_parts.clear()
        text_owner = None

    for event in events:
        if isinstance(event, TextDelta):
            if text_owner not in (None, event.message_id):
                flush_text()
            text_owner = event.message_id
            text_parts.append(event.text)
            continue
        flush_text()
        if isinstance(event, RunStarted):
            lines.append(paint(f"run {event.run_id}", "bold") + f" started with agent "
                         f"{event.agent_name!r}")
        elif isinstance(event, ModelRequest):
            kind = "" if event.kind == "turn" else f", {event.kind}"
            lines.append(f"  {paint('model', 'model')} [{event.agent_name}] {event.model} "
                         f"(turn {event.turn}{kind}) {paint(event.message_id, 'dim')}")
        elif isinstance(event, ToolCallRequestEvent):
            lines.append(f"    {paint('call', 'tool')} {event.tool_name}"
                         f"({_shorten(event.arguments, 120)}) {paint(event.call_id, 'dim')}")
        elif isinstance(event, ToolCallExecutionEvent):
            status = paint("error", "error") if event.is_error else paint("ok", "ok")
            lines.append(f"    {paint('result', 'tool')} {event.tool_name} -> "
                         f"{_shorten(event.result)} [{status}, "
                         f"{event.duration_s * 1000:.1f} ms]")
        elif isinstance(event, Handoff):
            lines.append(f"  {paint('handoff', 'handoff')} {event.from_agent} -> "
                         f"{event.to_agent}")
        elif isinstance(event, ContextUpdated) and event.event is not None:
            change = event.event
            lines.append(f"  {paint('context', 'dim')} {change.strategy}: {change.removed} "
                         f"messages left out, {change.tokens_before} -> "
                         f"{change.tokens_after} tokens")
        elif isinstance(event, RunCompleted):
            limit = f" ({event.limit})" if event.limit else ""
            tokens = f", {event.usage.total_tokens} tokens" if event.usage is not None else ""
            style = "ok" if event.status == "completed" else "error"
            lines.append(paint(f"run {event.status}{limit}", style) + f" with agent "
                         f"{event.agent_name!r}{tokens}")
            lines.append(f"  final output: {_shorten(event.final_output, 400)}")
    flush_text()
    out.write("\n".join(lines) + ("\n" if lines else ""))
