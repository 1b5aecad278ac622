"""One conversation, any provider (docs/portability.md): a history made by one family, or
written by hand in the OpenAI shape, fitted to the rules of the API it is sent to.

Every translator calls :func:`fit_history` on the request's messages before translating
them, with the target's :class:`HistoryRules`. It returns the messages as that API needs them,
in the OpenAI shape still (the translator does the rest):

- **tool-call ids** that do not fit the target's :class:`IdRule` (its characters, its length,
  uniqueness) are rewritten, deterministically: a rewritten id is built from the source id
  and a hash of it, so the same source id always becomes the same target id, on every
  request of the conversation, and a call and its result keep matching. Ids that fit are
  sent as they are. The caller's history keeps its own ids (nothing is written back), and a
  reply carries the target's own ids, so a round trip is stable;
- **orphans**: a tool call without a result gets a synthetic error result (``orphans=
  "repair"``, the default) or is refused (``"error"``); a tool result that answers no open
  call (its call is missing, already answered, or was closed by a later message) is refused,
  naming its index (:class:`~.errors.OrphanToolMessageError`);
- **parallel results** are put in call order where the target pairs them by position
  (Gemini); the translators then group them as their API wants (one user turn);
- ``name`` on user, system and assistant messages is left out where the API refuses it.

Pure: no I/O; the caller's messages are never modified (changed messages are new dicts).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from .errors import OrphanToolMessageError, UnsupportedParameterError

__all__ = ["IdRule", "HistoryRules", "FittedHistory", "fit_history", "ORPHAN_RULES",
           "SYNTHETIC_RESULT", "turn_lacks_own_reasoning"]

#: The values of ``create(..., orphans=...)``.
ORPHAN_RULES = ("repair", "error")

#: The content of the result given to a tool call that has none (``orphans="repair"``).
SYNTHETIC_RESULT = ("Error: this tool call has no result in the conversation (it was not "
                    "kept); call the tool again if its result is still needed.")

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_HASH_CHARS = 10  # of a rewritten id that keeps a readable prefix


def _digest(text: str, length: int, alphabet: str = _BASE62) -> str:
    """``length`` characters of ``alphabet`` from the sha256 of ``text`` (deterministic)."""
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest(),
                            "big")
    base = len(alphabet)
    out = []
    for _ in range(length):
        number, digit = divmod(number, base)
        out.append(alphabet[digit])
    return "".join(out)


@lru_cache(maxsize=32)
def _alphabet(chars: Optional[str]) -> str:
    """The letters and digits a rule allows (a rewritten id's hash is written in them)."""
    if chars is None:
        return _BASE62
    allowed = "".join(c for c in _BASE62 if _pattern(chars).fullmatch(c))
    if not allowed:
        raise ValueError(f"an id rule must allow some letters or digits, got [{chars}]")
    return allowed


@lru_cache(maxsize=32)
def _pattern(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]+")


@lru_cache(maxsize=32)
def _not_allowed(chars: str) -> re.Pattern[str]:
    return re.compile(f"[^{chars}]+")


@dataclass(frozen=True)
class IdRule:
    """The tool-call ids an API accepts.

    ``chars``: the characters allowed, as the body of a regular-expression class
    (``"a-zA-Z0-9_-"``; None: any). ``max_length`` / ``length``: the longest id, or the only
    length, it takes (None: any). ``unique``: the API refuses two calls with one id in a
    request (a source that reused an id gets a new one from its second call on).
    ``numbered``: the model reads ids as ``functions.<tool name>:<n>``, ``n`` counting the
    calls of the conversation from 0 (Kimi K2): a call whose id is not its own such id gets
    it. ``name`` says whose rule it is (in docs and errors).
    """

    name: str
    chars: Optional[str] = None
    max_length: Optional[int] = None
    length: Optional[int] = None
    unique: bool = False
    numbered: bool = False

    def fits(self, value: str) -> bool:
        """Whether ``value`` is an id this API takes as it is."""
        if not value or self.numbered:
            return False
        if self.length is not None and len(value) != self.length:
            return False
        if self.max_length is not None and len(value) > self.max_length:
            return False
        return self.chars is None or _pattern(self.chars).fullmatch(value) is not None

    def rewrite(self, source: str, attempt: int = 0) -> str:
        """The id ``source`` becomes (``attempt`` > 0: the next candidate after a collision).
        A fixed length is filled with a hash of the source; otherwise the source's allowed
        characters are kept as a prefix, followed by ``_`` and a hash, within the length.
        (Remembered: a tool run sends its history again on every turn.)"""
        return _rewrite(self, source, attempt)

    def _make(self, source: str, attempt: int) -> str:
        key = source if attempt == 0 else f"{source}\0{attempt}"
        alphabet = _alphabet(self.chars)
        if self.length is not None:
            return _digest(key, self.length, alphabet)
        prefix = _not_allowed(self.chars).sub("_", source) if self.chars else source
        limit = self.max_length if self.max_length is not None else 64
        room = max(limit - _HASH_CHARS - 1, 0)
        prefix = prefix[:room].strip("_") if room else ""
        digest = _digest(key, min(_HASH_CHARS, limit), alphabet)
        return f"{prefix}_{digest}" if prefix else digest


@lru_cache(maxsize=4096)
def _rewrite(rule: IdRule, source: str, attempt: int) -> str:
    return rule._make(source, attempt)


@dataclass(frozen=True)
class HistoryRules:
    """What one target API requires of a history (beside its own wire format).

    ``ids``: its tool-call id rule (None: any id). ``results_in_call_order``: parallel
    results are paired with their calls by position (Gemini), so they are sent in call
    order. ``results_by_position``: a tool message without ``tool_call_id`` may answer the
    next open call (Gemini); elsewhere it is refused. ``message_names``: ``name`` on user,
    system and assistant messages is part of the API (OpenAI); where it is not (Mistral
    refuses it), it is left out.
    """

    target: str
    ids: Optional[IdRule] = None
    results_in_call_order: bool = False
    results_by_position: bool = False
    message_names: bool = True


class FittedHistory:
    """The messages :func:`fit_history` made, each with the index of the caller's message it
    comes from (for errors; a synthetic result has the index of the call it answers).
    Iterating gives ``(index, message)`` pairs. ``changed`` is False when the messages are
    the caller's list itself."""

    __slots__ = ("messages", "positions", "changed")

    def __init__(self, messages: list[dict[str, Any]], positions: Optional[list[int]],
                 changed: bool) -> None:
        self.messages = messages
        self.positions = positions
        self.changed = changed

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        if self.positions is None:
            return iter(enumerate(self.messages))
        return iter(zip(self.positions, self.messages, strict=True))

    def __len__(self) -> int:
        return len(self.messages)


class _Call:
    __slots__ = ("source", "target", "name", "index", "order", "answered")

    def __init__(self, source: str, target: str, name: Any, index: int, order: int) -> None:
        self.source = source
        self.target = target
        self.name = name
        self.index = index
        self.order = order
        self.answered = False


class _Ids:
    """The target ids of one request's history, assigned in order."""

    __slots__ = ("rule", "mapping", "used", "calls_seen", "count")

    def __init__(self, rule: IdRule) -> None:
        self.rule = rule
        self.mapping: dict[tuple[str, int], str] = {}
        self.used: set[str] = set()
        self.calls_seen: dict[str, int] = {}
        self.count = 0  # calls of the conversation so far

    def for_call(self, source: str, name: Any) -> str:
        """The id a call named ``source`` (of the tool ``name``) goes out with."""
        rule = self.rule
        position, self.count = self.count, self.count + 1
        if rule.numbered:
            return f"functions.{name}:{position}"
        seen = self.calls_seen.get(source, 0)
        self.calls_seen[source] = seen + 1
        occurrence = seen if rule.unique else 0
        key = (source, occurrence)
        target = self.mapping.get(key)
        if target is not None:
            return target
        if occurrence == 0 and rule.fits(source) and source not in self.used:
            target = source
        else:
            base = source if occurrence == 0 else f"{source}\0#{occurrence}"
            attempt = 0
            target = rule.rewrite(base)
            while target in self.used:
                attempt += 1
                target = rule.rewrite(base, attempt)
        self.mapping[key] = target
        self.used.add(target)
        return target


def fit_history(messages: Sequence[Mapping[str, Any]], rules: HistoryRules,
                orphans: Optional[str] = None, *, provider: Optional[str] = None
                ) -> FittedHistory:
    """``messages`` (OpenAI-shape dicts, the caller's: never modified) fitted to ``rules``
    (see the module docstring). ``orphans`` is ``"repair"`` (None) or ``"error"``.
    ``provider`` is named in errors."""
    if _already_fits(messages, rules):  # the common case: nothing to copy or check again
        return FittedHistory(messages, None, False)  # type: ignore[arg-type]
    repair = orphans != "error"
    id_rule = rules.ids
    ids = _Ids(id_rule) if id_rule is not None else None
    out: list[dict[str, Any]] = []
    positions: list[int] = []
    changed = False
    open_calls: list[_Call] = []
    group_start = 0  # where in ``out`` the results of the open calls begin

    def close() -> None:
        nonlocal changed
        missing = [c for c in open_calls if not c.answered]
        if missing:
            if not repair:
                raise _unanswered(missing[0], provider)
            for call in missing:
                result: dict[str, Any] = {"role": "tool", "tool_call_id": call.target,
                                          "content": SYNTHETIC_RESULT}
                if isinstance(call.name, str) and call.name:
                    result["name"] = call.name
                out.append(result)
                positions.append(call.index)
            changed = True
        if rules.results_in_call_order and len(out) - group_start > 1:
            group = list(zip(out[group_start:], positions[group_start:], strict=True))
            keyed = sorted(group, key=lambda pair: _order_of(pair[0], open_calls))
            if [m for m, _ in keyed] != [m for m, _ in group]:
                out[group_start:] = [m for m, _ in keyed]
                positions[group_start:] = [p for _, p in keyed]
                changed = True
        open_calls.clear()

    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            answered = _answer(message, index, open_calls, rules, provider)
            if answered is not None and answered.target != message.get("tool_call_id"):
                message = {**message, "tool_call_id": answered.target}
                changed = True
            out.append(message)  # type: ignore[arg-type]
            positions.append(index)
            continue
        if open_calls:
            close()
        if not rules.message_names and "name" in message:
            message = {k: v for k, v in message.items() if k != "name"}
            changed = True
        calls = message.get("tool_calls") if role == "assistant" else None
        if calls:
            new_calls: Optional[list[Any]] = None
            for order, call in enumerate(calls):
                source = call.get("id") if isinstance(call, Mapping) else None
                function = call.get("function") if isinstance(call, Mapping) else None
                name = function.get("name") if isinstance(function, Mapping) else None
                if not isinstance(source, str) or not source:
                    if rules.results_by_position and source in (None, ""):
                        # Gemini: a call without an id, answered by position
                        open_calls.append(_Call("", "", name, index, order))
                        continue
                    raise _no_call_id(index, order, source, provider)
                target = ids.for_call(source, name) if ids is not None else source
                open_calls.append(_Call(source, target, name, index, order))
                if target != source:
                    if new_calls is None:
                        new_calls = list(calls)
                    new_calls[order] = {**call, "id": target}
            if new_calls is not None:
                message = {**message, "tool_calls": new_calls}
                changed = True
        out.append(message)  # type: ignore[arg-type]
        positions.append(index)
        group_start = len(out)
    if open_calls:
        close()
    if not changed:
        return FittedHistory(messages, None, False)  # type: ignore[arg-type]
    same_places = positions == list(range(len(messages)))
    return FittedHistory(out, None if same_places else positions, True)


def _already_fits(messages: Sequence[Any], rules: HistoryRules) -> bool:
    """Whether ``messages`` need nothing: every call's id fits the rule and is answered, in
    order where the rule wants it, by the tool messages right after it, and no ``name`` is
    to be left out. One quick pass over plain dicts; anything else (a rewrite, an orphan,
    an object that is not a dict, Kimi's numbering) takes the full pass."""
    rule = rules.ids
    if rule is not None and rule.numbered:
        return False
    fits = rule.fits if rule is not None else None
    seen: Optional[set[str]] = set() if rule is not None and rule.unique else None
    in_order = rules.results_in_call_order
    names = rules.message_names
    pending: list[Any] = []
    for message in messages:
        if type(message) is not dict:
            return False
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not pending or (pending[0] != call_id if in_order else call_id not in pending):
                return False
            pending.remove(call_id)
            continue
        if pending or (not names and "name" in message):
            return False
        calls = message.get("tool_calls") if role == "assistant" else None
        if calls:
            for call in calls:
                call_id = call.get("id") if type(call) is dict else None
                if type(call_id) is not str or not call_id or (
                        fits is not None and not fits(call_id)) or call_id in pending:
                    return False
                if seen is not None:
                    if call_id in seen:
                        return False
                    seen.add(call_id)
                pending.append(call_id)
    return not pending


def _order_of(message: Mapping[str, Any], open_calls: list[_Call]) -> int:
    call_id = message.get("tool_call_id")
    for call in open_calls:
        if call.target == call_id:
            return call.order
    return len(open_calls)  # not one of these calls (cannot happen): last, in place


def _answer(message: Mapping[str, Any], index: int, open_calls: list[_Call],
            rules: HistoryRules, provider: Optional[str]) -> Optional[_Call]:
    """The open call the tool message at ``index`` answers (marked answered)."""
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        if rules.results_by_position:
            call = next((c for c in open_calls if not c.answered), None)
            if call is not None:
                call.answered = True
            return call  # None: the translator says what it needs
        from .checks import tool_call_id_of

        tool_call_id_of(message, index, provider)  # raises: no id to pair it with
    for call in open_calls:
        if not call.answered and call.source == call_id:
            call.answered = True
            return call
    raise _orphan_result(message, index, open_calls, provider)


def _orphan_result(message: Mapping[str, Any], index: int, open_calls: list[_Call],
                   provider: Optional[str]) -> OrphanToolMessageError:
    call_id = message.get("tool_call_id")
    if any(c.source == call_id for c in open_calls):
        why = "a tool message before it already answers that call"
    elif open_calls:
        why = "the assistant message before it has no call with that id"
    else:
        why = "no assistant message with that tool call comes right before it (only tool " \
              "messages may stand between a call and its result)"
    return OrphanToolMessageError(
        f"messages[{index}] is a tool result for tool_call_id={call_id!r}, but {why}. Keep "
        "the assistant message with its tool_calls right before its results, or remove the "
        "result (docs/portability.md)", index=index, tool_call_id=call_id,
        provider=provider)


def _no_call_id(index: int, order: int, value: Any,
                provider: Optional[str]) -> UnsupportedParameterError:
    got = "no id" if value in (None, "") else f"the id {value!r} ({type(value).__name__})"
    return UnsupportedParameterError(
        f"messages[{index}].tool_calls[{order}] has {got}; a tool call needs an id, a "
        "non-empty string, which its result names as tool_call_id", parameter="messages",
        provider=provider)


def _unanswered(call: _Call, provider: Optional[str]) -> OrphanToolMessageError:
    return OrphanToolMessageError(
        f"messages[{call.index}] calls tool {call.name!r} (tool_call_id={call.source!r}) and "
        "no tool message answers it before the next message. Add its result, or pass "
        "orphans='repair' to send a synthetic error result (docs/portability.md)",
        index=call.index, tool_call_id=call.source, provider=provider)


def turn_lacks_own_reasoning(messages: Sequence[Mapping[str, Any]],
                             has_own: Callable[[Mapping[str, Any]], bool]) -> bool:
    """Whether the assistant turn in progress (the messages after the last user message)
    holds a tool call whose assistant message carries no reasoning of the target's own
    (``has_own(message)``): one made by another family, or by this one without thinking.
    Claude takes one thinking setting per assistant turn, so such a turn is finished with
    thinking off (docs/portability.md)."""
    for message in reversed(messages):
        role = message.get("role")
        if role == "user":
            return False
        if role == "assistant" and message.get("tool_calls") and not has_own(message):
            return True
    return False
