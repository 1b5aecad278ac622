"""Conversation state that outlives a run: ``Session`` and its context strategies.

A ``Session`` is explicit history: each run reads it, then appends what it added (input and
produced messages). The stored history is never trimmed; a *context strategy* only chooses
which part of it is sent on each model call:

- ``keep_last(n)``: the last ``n`` messages;
- ``fit_tokens(budget)``: the newest messages that fit an estimated token budget.

Both keep leading ``system`` / ``developer`` messages, and never send a tool result without the
assistant message that made its call: a window that would start inside a tool round starts
after it instead (or, when nothing else fits, with the whole round).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Optional

from ..core.content import text_of
from ..core.errors import ConcurrentRunError
from ..core.types import Message

__all__ = ["Session", "keep_last", "fit_tokens", "ContextStrategy"]

#: A strategy takes the conversation (OpenAI-style dicts, oldest first, read-only) and returns
#: the messages to send (a new list).
ContextStrategy = Callable[[Sequence[dict[str, Any]]], list[dict[str, Any]]]

_PINNED_ROLES = ("system", "developer")


def _split_pinned(messages: Sequence[dict[str, Any]]) -> int:
    """Index of the first message after the leading system/developer messages."""
    i = 0
    while i < len(messages) and messages[i].get("role") in _PINNED_ROLES:
        i += 1
    return i


def _safe_start(messages: Sequence[dict[str, Any]], start: int, floor: int) -> int:
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


class _KeepLast:
    def __init__(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"keep_last(n) needs an int n >= 1, got {n!r}")
        self.n = n

    def __call__(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        floor = _split_pinned(messages)
        if len(messages) - floor <= self.n:
            return list(messages)
        start = _safe_start(messages, len(messages) - self.n, floor)
        return [*messages[:floor], *messages[start:]]

    def __repr__(self) -> str:
        return f"keep_last({self.n})"


def _estimate_tokens(message: dict[str, Any]) -> int:
    """About four characters a token, over the text and the tool calls, plus 4 per message."""
    chars = len(text_of(message.get("content")))
    for call in message.get("tool_calls") or ():
        fn = (call.get("function") or {}) if isinstance(call, dict) else call.function
        if isinstance(fn, dict):
            chars += len(fn.get("name") or "") + len(fn.get("arguments") or "")
        else:
            chars += len(fn.name) + len(fn.arguments or "")
    return 4 + -(-chars // 4)


class _FitTokens:
    def __init__(self, budget: int, count: Optional[Callable[[dict[str, Any]], int]]) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"fit_tokens(budget) needs an int budget >= 1, got {budget!r}")
        if count is not None and not callable(count):
            raise TypeError("fit_tokens(count=...) must be a callable (message dict) -> int")
        self.budget = budget
        self.count = count or _estimate_tokens

    def __call__(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        floor = _split_pinned(messages)
        used = sum(self.count(m) for m in messages[:floor])
        start = len(messages)
        while start > floor:
            cost = self.count(messages[start - 1])
            if used + cost > self.budget and start < len(messages):
                break  # the newest message is always sent, even alone over budget
            used += cost
            start -= 1
        if start == floor:
            return list(messages)
        start = _safe_start(messages, start, floor)
        return [*messages[:floor], *messages[start:]]

    def __repr__(self) -> str:
        return f"fit_tokens({self.budget})"


def keep_last(n: int) -> ContextStrategy:
    """Send the last ``n`` messages (plus leading system messages), never starting with a
    tool result whose call was cut off."""
    return _KeepLast(n)


def fit_tokens(budget: int, *, count: Optional[Callable[[dict[str, Any]], int]] = None
               ) -> ContextStrategy:
    """Send the newest messages whose estimated tokens fit ``budget`` (plus leading system
    messages; the newest message always). ``count(message_dict) -> int`` replaces the default
    estimate (about four characters a token, plus 4 per message)."""
    return _FitTokens(budget, count)


class Session:
    """Explicit conversation history shared by successive runs.

        session = ai.Session(context_strategy=ai.keep_last(20))
        await ai.Runner.run(agent, "Hi, I'm Ada", session=session)
        await ai.Runner.run(agent, "What's my name?", session=session)

    A run reads the history, and when it ends (completed, max_turns, handoff, limit or
    cancelled) appends its input and every message it produced; a run that raises leaves the
    session unchanged. One session serves one run at a time: a second concurrent run raises
    ``ConcurrentRunError`` at once.
    """

    def __init__(self, messages: Optional[Iterable[Any]] = None, *,
                 context_strategy: Optional[ContextStrategy] = None) -> None:
        from ..client.base import normalize_messages

        if context_strategy is not None and not callable(context_strategy):
            raise TypeError("context_strategy must be keep_last(n), fit_tokens(budget) or a "
                            "callable (messages) -> messages")
        # Private copies: the session owns its history and never mutates the caller's dicts.
        self._history: list[dict[str, Any]] = [
            dict(m) for m in normalize_messages(list(messages or ()))]
        self.context_strategy = context_strategy
        self._busy = threading.Lock()

    @property
    def messages(self) -> list[Message]:
        """The whole stored history (a new list; editing it does not change the session)."""
        from ..loop.engine import to_message

        return [to_message(m) for m in self._history]

    def add(self, messages: Iterable[Any]) -> None:
        """Append messages (dicts or ``Message``) to the history."""
        from ..client.base import normalize_messages

        with self._guard():
            self._history.extend(dict(m) for m in normalize_messages(list(messages)))

    def clear(self) -> None:
        """Forget the history."""
        with self._guard():
            self._history.clear()

    def __len__(self) -> int:
        return len(self._history)

    def __repr__(self) -> str:
        return f"Session(messages={len(self._history)}, context_strategy={self.context_strategy!r})"

    # -- used by the runner

    def _guard(self) -> "_SessionUse":
        return _SessionUse(self)

    def _context(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        strategy = self.context_strategy
        return list(messages) if strategy is None else strategy(messages)


class _SessionUse:
    """Holds a session for one run (or one edit); a second holder fails at once."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def __enter__(self) -> Session:
        if not self.session._busy.acquire(blocking=False):
            raise ConcurrentRunError(
                "this Session is already in use by a running run; wait for that run to "
                "finish, or give each concurrent run its own Session")
        return self.session

    def __exit__(self, *exc: Any) -> None:
        self.session._busy.release()
