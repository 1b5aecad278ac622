"""The Agents SDK's ``agents.stream_events`` path (docs/agents.md, "Agents SDK compatibility"):
what ``Runner.run_streamed(...).stream_events()`` yields, defined in ``aisuite_like.agents``."""

from __future__ import annotations

from .agents.items import (
    AgentUpdatedStreamEvent as AgentUpdatedStreamEvent,
    RawResponsesStreamEvent as RawResponsesStreamEvent,
    RunItemStreamEvent as RunItemStreamEvent,
    StreamEvent as StreamEvent,
)

__all__ = ["RawResponsesStreamEvent", "RunItemStreamEvent", "AgentUpdatedStreamEvent",
           "StreamEvent"]
