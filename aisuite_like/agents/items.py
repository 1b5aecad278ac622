"""The OpenAI Agents SDK's view of a run: typed run items and stream events.

A run produces chat messages (``RunResult.new_messages``); the items are a view of them in the
Agents SDK's shape, each tied to the agent that produced it: an assistant reply with text is a
``MessageOutputItem``, each of its tool calls a ``ToolCallItem`` (or ``HandoffCallItem``), each
tool result a ``ToolCallOutputItem`` (or ``HandoffOutputItem``); calls waiting for a person are
``ToolApprovalItem``. ``items_to_messages`` turns a (possibly filtered) list of items back into
messages, which is how a handoff ``input_filter`` edits what the next agent sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from ..core.content import text_of
from ..core.responses import TResponseInputItem
from ..core.responses_items import messages_to_items
from ..core.types import ChatCompletionResponse, ToolCall

if TYPE_CHECKING:
    from .agent import Agent

__all__ = [
    "MessageOutputItem", "ToolCallItem", "ToolCallOutputItem", "HandoffCallItem",
    "HandoffOutputItem", "ToolApprovalItem", "RunItem", "ItemHelpers",
    "RawResponsesStreamEvent", "RunItemStreamEvent", "AgentUpdatedStreamEvent", "StreamEvent",
    "HandoffInputData", "ModelResponse", "TResponseInputItem",
]

#: What ``on_llm_end`` hooks receive: the model call's response (the Agents SDK's name; here
#: the ``ai.ChatCompletionResponse``).
ModelResponse = ChatCompletionResponse


@dataclass
class _Item:
    agent: "Agent"
    raw_item: Any
    # The message the item was read from (one assistant message gives several items).
    _source: Any = field(default=None, repr=False, compare=False)

    def to_input_item(self) -> dict[str, Any]:
        """The item as a Responses input item (as in ``RunResult.to_input_list()``)."""
        return messages_to_items(items_to_messages([self]))[-1]


@dataclass
class MessageOutputItem(_Item):
    """The text of an assistant reply; ``raw_item`` is the ``ai.Message``."""

    type: Literal["message_output_item"] = "message_output_item"


@dataclass
class _CallItem(_Item):
    @property
    def call_id(self) -> str:
        return str(self.raw_item.id)

    @property
    def tool_name(self) -> str:
        return str(self.raw_item.function.name)

    @property
    def arguments(self) -> str:
        return str(self.raw_item.function.arguments or "")


@dataclass
class ToolCallItem(_CallItem):
    """A tool call the model made; ``raw_item`` is the ``ai.ToolCall`` (``.name``,
    ``.arguments``, ``.call_id`` read it like the SDK's function call)."""

    type: Literal["tool_call_item"] = "tool_call_item"


@dataclass
class HandoffCallItem(_CallItem):
    """A handoff tool call the model made; ``raw_item`` is the ``ai.ToolCall``."""

    type: Literal["handoff_call_item"] = "handoff_call_item"


@dataclass
class ToolCallOutputItem(_Item):
    """A tool call's result; ``raw_item`` is the ``role: "tool"`` message dict, ``output`` the
    text sent to the model."""

    output: Any = None
    type: Literal["tool_call_output_item"] = "tool_call_output_item"

    @property
    def call_id(self) -> str:
        return str(self.raw_item.get("tool_call_id"))


@dataclass
class HandoffOutputItem(_Item):
    """The result of a handoff call: the conversation moved from ``source_agent`` to
    ``target_agent``."""

    source_agent: Optional["Agent"] = None
    target_agent: Optional["Agent"] = None
    type: Literal["handoff_output_item"] = "handoff_output_item"


@dataclass(eq=False)
class ToolApprovalItem(_Item):
    """A tool call waiting for a person: pass it to ``RunState.approve`` or
    ``RunState.reject``. ``raw_item`` is the ``ai.ToolCall``."""

    tool_name: Optional[str] = None
    type: Literal["tool_approval_item"] = "tool_approval_item"

    @property
    def name(self) -> str:
        return self.tool_name or str(self.raw_item.function.name)

    @property
    def arguments(self) -> str:
        return str(self.raw_item.function.arguments or "")

    @property
    def call_id(self) -> str:
        return str(self.raw_item.id)

    def to_input_item(self) -> dict[str, Any]:
        raise TypeError("a ToolApprovalItem is a pending call, not an input message")


RunItem = Union[MessageOutputItem, ToolCallItem, ToolCallOutputItem, HandoffCallItem,
                HandoffOutputItem, ToolApprovalItem]


# --- messages <-> items --------------------------------------------------------------------


def message_items(message: Any, agent: "Agent") -> list[RunItem]:
    """The items of one message (``ai.Message`` or dict) that ``agent``'s turn produced."""
    handoffs = agent._handoff_map
    if isinstance(message, dict):
        role, content = message.get("role"), message.get("content")
        calls: Sequence[ToolCall] = ()
    else:
        role, content = message.role, message.content
        calls = message.tool_calls or ()
    if role == "assistant":
        items: list[RunItem] = []
        if content or not calls:
            items.append(MessageOutputItem(agent, message, message))
        for call in calls:
            kind = HandoffCallItem if call.function.name in handoffs else ToolCallItem
            items.append(kind(agent, call, message))
        return items
    if role == "tool":
        raw = message if isinstance(message, dict) else message.model_dump(exclude_none=True)
        name = raw.get("name")
        if isinstance(name, str) and name in handoffs:
            return [HandoffOutputItem(agent, raw, message, source_agent=agent,
                                      target_agent=handoffs[name])]
        return [ToolCallOutputItem(agent, raw, message, output=text_of(content))]
    return []  # user feedback messages (structured-output retries) are not run items


def _as_dict(message: Any) -> dict[str, Any]:
    return dict(message) if isinstance(message, dict) else message.model_dump(exclude_none=True)


def items_to_messages(items: Iterable[Any]) -> list[dict[str, Any]]:
    """Messages from items, in order: the items of one assistant message are merged back into
    it (text only if its ``MessageOutputItem`` is kept; only the tool calls whose items are
    kept). Dicts pass through (input history entries)."""
    out: list[dict[str, Any]] = []
    current_source: Any = None
    current: Optional[dict[str, Any]] = None
    for item in items:
        if isinstance(item, dict):
            out.append(dict(item))
            current_source = current = None
            continue
        if isinstance(item, ToolApprovalItem):
            continue
        if isinstance(item, (MessageOutputItem, ToolCallItem, HandoffCallItem)):
            source = item._source
            if source is not current_source or current is None:
                base = _as_dict(source)
                base.pop("tool_calls", None)
                base["content"] = None
                current_source, current = source, base
                out.append(base)
            if isinstance(item, MessageOutputItem):
                current["content"] = _as_dict(source).get("content")
            else:
                current.setdefault("tool_calls", []).append(item.raw_item.model_dump(
                    exclude_none=True))
            continue
        out.append(dict(item.raw_item))
        current_source = current = None
    kept = []
    for m in out:
        if m.get("role") == "assistant" and m.get("content") is None:
            if not m.get("tool_calls"):
                continue  # nothing of this reply survived
            del m["content"]
        kept.append(m)
    return kept


# --- helpers and events ------------------------------------------------------------------


class ItemHelpers:
    """The Agents SDK's helpers for reading items."""

    @classmethod
    def text_message_output(cls, message: MessageOutputItem) -> str:
        """The text of one ``MessageOutputItem``."""
        raw = message.raw_item
        return text_of(raw.get("content") if isinstance(raw, dict) else raw.content)

    @classmethod
    def text_message_outputs(cls, items: Iterable[Any]) -> str:
        """The text of every ``MessageOutputItem`` among ``items``, concatenated."""
        return "".join(cls.text_message_output(i) for i in items
                       if isinstance(i, MessageOutputItem))

    @classmethod
    def input_to_new_input_list(cls, input: Any) -> list[TResponseInputItem]:
        """A prompt string or a list of input items -> a new list of input items."""
        if isinstance(input, str):
            return [{"role": "user", "content": input}]
        return [_as_dict(m) for m in input]


@dataclass
class RawResponsesStreamEvent:
    """One Responses stream event of a streamed model call (``data``: e.g. an
    ``ai.responses.ResponseTextDeltaEvent``, whose ``delta`` is a piece of text; each model
    call goes from ``response.created`` to ``response.completed``)."""

    data: Any
    type: Literal["raw_response_event"] = "raw_response_event"


@dataclass
class RunItemStreamEvent:
    """A new run item: ``name`` is ``"message_output_created"``, ``"tool_called"``,
    ``"tool_output"``, ``"handoff_requested"``, ``"handoff_occured"`` (the SDK's spelling) or
    ``"tool_approval_requested"``."""

    name: str
    item: Any
    type: Literal["run_item_stream_event"] = "run_item_stream_event"


@dataclass
class AgentUpdatedStreamEvent:
    """An agent starts working: at the start of the run and after each handoff."""

    new_agent: "Agent"
    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"


StreamEvent = Union[RawResponsesStreamEvent, RunItemStreamEvent, AgentUpdatedStreamEvent]

_ITEM_EVENT_NAMES = {
    "message_output_item": "message_output_created", "tool_call_item": "tool_called",
    "tool_call_output_item": "tool_output", "handoff_call_item": "handoff_requested",
    "handoff_output_item": "handoff_occured", "tool_approval_item": "tool_approval_requested",
}


def item_event(item: RunItem) -> RunItemStreamEvent:
    return RunItemStreamEvent(_ITEM_EVENT_NAMES[item.type], item)


@dataclass(frozen=True)
class HandoffInputData:
    """What a handoff's ``input_filter`` receives and returns: ``input_history`` (the messages
    before this run's items: session history and input, as dicts), ``pre_handoff_items`` (the
    run's items before the handoff turn), ``new_items`` (the handoff turn's items: the reply
    with the handoff call and the tool results) and ``run_context``. The next agent sees
    ``input_history`` + ``pre_handoff_items`` + (``input_items`` if set, else ``new_items``)."""

    input_history: tuple[Any, ...]
    pre_handoff_items: tuple[Any, ...]
    new_items: tuple[Any, ...]
    run_context: Any = None
    input_items: Optional[tuple[Any, ...]] = None

    def clone(self, **changes: Any) -> "HandoffInputData":
        """A copy with some fields changed."""
        from dataclasses import replace

        return replace(self, **changes)

    def messages(self) -> list[dict[str, Any]]:
        """The conversation the next agent receives."""
        last = self.input_items if self.input_items is not None else self.new_items
        return items_to_messages([*self.input_history, *self.pre_handoff_items, *last])
