"""The Agents SDK's ``agents.items`` path (docs/agents.md, "Agents SDK compatibility"): the run
items, ``ModelResponse`` and ``TResponseInputItem``, defined in ``aisuite_like.agents`` (the
stream events are in ``aisuite_like.stream_events``, as in the SDK)."""

from __future__ import annotations

from .agents.items import (
    HandoffCallItem as HandoffCallItem,
    HandoffInputData as HandoffInputData,
    HandoffOutputItem as HandoffOutputItem,
    ItemHelpers as ItemHelpers,
    MessageOutputItem as MessageOutputItem,
    ModelResponse as ModelResponse,
    RunItem as RunItem,
    ToolApprovalItem as ToolApprovalItem,
    ToolCallItem as ToolCallItem,
    ToolCallOutputItem as ToolCallOutputItem,
    TResponseInputItem as TResponseInputItem,
)

__all__ = [
    "MessageOutputItem", "ToolCallItem", "ToolCallOutputItem", "HandoffCallItem",
    "HandoffOutputItem", "ToolApprovalItem", "RunItem", "ItemHelpers",
    "HandoffInputData", "ModelResponse", "TResponseInputItem",
]
