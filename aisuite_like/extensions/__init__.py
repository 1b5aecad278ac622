"""The Agents SDK's ``agents.extensions`` path (docs/agents.md, "Agents SDK compatibility"):
``from aisuite_like.extensions import handoff_filters``."""

from __future__ import annotations

from . import handoff_filters as handoff_filters

__all__ = ["handoff_filters"]
