"""The Agents SDK's ``agents.run_context`` path (docs/agents.md, "Agents SDK compatibility")."""

from __future__ import annotations

from .core.run_context import (
    AgentHookContext as AgentHookContext,
    RunContextWrapper as RunContextWrapper,
)

__all__ = ["RunContextWrapper", "AgentHookContext"]
