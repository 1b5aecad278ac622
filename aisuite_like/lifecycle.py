"""The Agents SDK's ``agents.lifecycle`` path (docs/agents.md, "Agents SDK compatibility"): the
hooks of a run and of one agent, defined in ``aisuite_like.agents``."""

from __future__ import annotations

from .agents.agent import AgentHooks as AgentHooks, RunHooks as RunHooks

__all__ = ["RunHooks", "AgentHooks"]
