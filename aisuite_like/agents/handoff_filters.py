"""Ready-made handoff input filters (the OpenAI Agents SDK's ``handoff_filters``).

    from aisuite_like import handoff, handoff_filters
    triage = ai.Agent("Triage",
                      handoffs=[handoff(faq, input_filter=handoff_filters.remove_all_tools)])
"""

from __future__ import annotations

from typing import Any

from .items import (
    HandoffCallItem,
    HandoffInputData,
    HandoffOutputItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
)

__all__ = ["remove_all_tools"]

_TOOL_ITEMS = (HandoffCallItem, HandoffOutputItem, ToolCallItem, ToolCallOutputItem,
               ToolApprovalItem)


def _without_tool_messages(history: tuple[Any, ...]) -> tuple[Any, ...]:
    kept = []
    for message in history:
        if not isinstance(message, dict):
            kept.append(message)
            continue
        if message.get("role") == "tool":
            continue
        if message.get("role") == "assistant" and message.get("tool_calls"):
            if not message.get("content"):
                continue
            message = {k: v for k, v in message.items() if k != "tool_calls"}
        kept.append(message)
    return tuple(kept)


def remove_all_tools(handoff_input_data: HandoffInputData) -> HandoffInputData:
    """Drop every tool call and tool result (handoffs included) from what the next agent
    sees: from the input history, the items before the handoff and the handoff turn's items.
    Assistant text is kept."""
    data = handoff_input_data

    def keep(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(i for i in items if not isinstance(i, _TOOL_ITEMS))

    return data.clone(
        input_history=_without_tool_messages(data.input_history),
        pre_handoff_items=keep(data.pre_handoff_items), new_items=keep(data.new_items),
        input_items=keep(data.input_items) if data.input_items is not None else None)
