"""Agents: ``Agent`` and ``Runner``, run results, events, sessions and limits
(docs/agents.md)."""

from __future__ import annotations

from .run import (
    Agent as Agent,
    AgentEvent as AgentEvent,
    ContextStrategy as ContextStrategy,
    Handoff as Handoff,
    ModelRequest as ModelRequest,
    RunCompleted as RunCompleted,
    RunLimits as RunLimits,
    Runner as Runner,
    RunResult as RunResult,
    RunStarted as RunStarted,
    Session as Session,
    TextDelta as TextDelta,
    ToolCallExecutionEvent as ToolCallExecutionEvent,
    ToolCallRequestEvent as ToolCallRequestEvent,
    ToolCallSummary as ToolCallSummary,
    fit_tokens as fit_tokens,
    keep_last as keep_last,
)

__all__ = [
    "Agent", "Runner", "RunResult", "RunLimits", "ToolCallSummary", "Session", "keep_last",
    "fit_tokens", "ContextStrategy", "AgentEvent", "RunStarted", "ModelRequest", "TextDelta",
    "ToolCallRequestEvent", "ToolCallExecutionEvent", "Handoff", "RunCompleted",
]
