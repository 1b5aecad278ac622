"""The Agents SDK's ``agents.tool_context`` path (docs/agents.md, "Agents SDK compatibility")."""

from __future__ import annotations

from .core.run_context import ToolContext as ToolContext

__all__ = ["ToolContext"]
