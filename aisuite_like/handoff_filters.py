"""Handoff input filters of the Agents SDK (public import path; defined in
``aisuite_like.agents``), docs/agents.md."""

from __future__ import annotations

from .agents.handoff_filters import (
    remove_all_tools as remove_all_tools,
)

__all__ = [
    "remove_all_tools",
]
