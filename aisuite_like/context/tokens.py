"""Token estimates and orphan-safe cuts of a conversation (docs/context.md).

Pure functions over OpenAI-style message dicts, shared by the context strategies of this
package, agents' sessions (``keep_last`` / ``fit_tokens``) and budgets (a call's worst case):

- ``estimate_message`` / ``estimate_request``: about four characters a token over the text,
  the tool calls and the tool schemas, plus 4 per message. Images, audio and files are not
  counted (the provider's counting API does: ``count_tokens=True``).
- ``pinned_count``: how many leading ``system`` / ``developer`` messages there are.
- ``safe_start``: a start for a window of the newest messages that orphans no tool result.
- ``turn_starts``: where each turn begins (a message that is not a tool result, with the tool
  results that answer it), so that a cut between two turns keeps every tool call with its
  results and every result with its call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from ..core.content import text_of

__all__ = ["estimate_message", "estimate_messages", "estimate_tools", "estimate_request",
           "pinned_count", "safe_start", "turn_starts", "PINNED_ROLES"]

#: Roles kept at the head of a conversation by the strategies that keep system messages.
PINNED_ROLES = ("system", "developer")


def estimate_message(message: Any) -> int:
    """About four characters a token, over the text and the tool calls, plus 4 per message."""
    if not isinstance(message, dict):
        message = message.model_dump(exclude_none=True)
    chars = len(text_of(message.get("content")))
    for call in message.get("tool_calls") or ():
        fn = (call.get("function") or {}) if isinstance(call, dict) else call.function
        if isinstance(fn, dict):
            chars += len(fn.get("name") or "") + len(fn.get("arguments") or "")
        else:
            chars += len(fn.name) + len(fn.arguments or "")
    return 4 + -(-chars // 4)


def estimate_messages(messages: Sequence[Any]) -> int:
    """The estimate of every message of ``messages``."""
    return sum(estimate_message(m) for m in messages)


def estimate_tools(tools: Optional[Sequence[Any]]) -> int:
    """The estimate of the tool schemas sent with a request (their JSON / 4)."""
    if not tools:
        return 0
    try:
        chars = len(json.dumps(list(tools), separators=(",", ":"), default=str))
    except (TypeError, ValueError):
        chars = len(str(tools))
    return -(-chars // 4)


def estimate_request(messages: Sequence[Any], tools: Optional[Sequence[Any]] = None) -> int:
    """The estimated input tokens of a request: its messages and its tool schemas."""
    return estimate_messages(messages) + estimate_tools(tools)


def pinned_count(messages: Sequence[dict[str, Any]]) -> int:
    """Index of the first message after the leading system/developer messages."""
    i = 0
    while i < len(messages) and messages[i].get("role") in PINNED_ROLES:
        i += 1
    return i


def safe_start(messages: Sequence[dict[str, Any]], start: int, floor: int) -> int:
    """A window start that orphans no tool result: move forward past tool results; when that
    leaves nothing, move back to the assistant message that made the calls."""
    forward = start
    while forward < len(messages) and messages[forward].get("role") == "tool":
        forward += 1
    if forward < len(messages):
        return forward
    back = start
    while back > floor and messages[back].get("role") == "tool":
        back -= 1
    return back


def turn_starts(messages: Sequence[dict[str, Any]], floor: int = 0) -> list[int]:
    """The indices (from ``floor``) where a turn begins: every message that is not a tool
    result (a tool result belongs to the turn of the call it answers). A conversation that
    begins with tool results (their call already cut) starts a turn there too."""
    starts = [i for i in range(floor, len(messages)) if messages[i].get("role") != "tool"]
    if len(messages) > floor and (not starts or starts[0] != floor):
        starts.insert(0, floor)
    return starts
