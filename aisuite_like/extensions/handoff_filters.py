"""The Agents SDK's ``agents.extensions.handoff_filters`` path (docs/agents.md): the handoff
input filters, defined in ``aisuite_like.agents``."""

from __future__ import annotations

from ..agents.handoff_filters import remove_all_tools as remove_all_tools

__all__ = ["remove_all_tools"]
