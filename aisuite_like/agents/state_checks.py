"""The checks of a run state read back from JSON (``RunState.from_json``, docs/agents.md):
every field of what ``to_json`` writes, its type and its bounds, and the optional HMAC
signature. Pure: no I/O. Anything that ``to_json`` would not have written is a ``ValueError``
that names the field, so a state stored where others can write is never read past its
bounds (a ``turn`` below zero, a call id the paused reply does not have, a NaN)."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Callable, Collection
from typing import Any, Optional, Union

from ..core.types import ChatCompletionResponse, ToolCall, ToolEvent

__all__ = ["check_state", "sign", "verify", "SIGNATURE_FIELD", "check_signing_key", "SigningKey"]

#: Where ``to_json(signing_key=...)`` writes the signature.
SIGNATURE_FIELD = "$signature"
_SCHEME = "hmac-sha256:"

SigningKey = Union[str, bytes]


def _bad(where: str, problem: str) -> ValueError:
    return ValueError(f"the run state's {where} {problem}; it is not what RunState.to_json() "
                      "writes (was it changed?)")


def _int(data: dict[str, Any], name: str, where: str, low: int = 0,
         high: Optional[int] = None) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(f"{where}{name}", f"must be an int, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise _bad(f"{where}{name}", f"must be {bound}, got {value}")
    return value


def _str(data: dict[str, Any], name: str, where: str = "", *, optional: bool = False
         ) -> Optional[str]:
    value = data.get(name)
    if value is None and optional and name in data:
        return None
    if not isinstance(value, str):
        raise _bad(f"{where}{name}", f"must be text, got {type(value).__name__}")
    return value


def _bool(data: dict[str, Any], name: str, where: str = "") -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise _bad(f"{where}{name}", f"must be true or false, got {type(value).__name__}")
    return value


def _dicts(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    value = data.get(name)
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _bad(name, "must be a list of objects")
    return value


def _message(value: dict[str, Any]) -> None:
    """A message as the run keeps it: an object with a role (its content as the provider
    took it: the run's own types do not describe every part)."""
    if not isinstance(value.get("role"), str):
        raise TypeError("no role")


def _each(items: list[dict[str, Any]], name: str, check: Callable[[Any], Any]) -> None:
    for i, item in enumerate(items):
        try:
            check(item)
        except Exception as exc:  # pydantic's ValidationError, a TypeError of our types
            raise _bad(f"{name}[{i}]", f"does not read ({type(exc).__name__})") from None


def _decisions(data: dict[str, Any], name: str, allowed: Optional[Collection[str]]) -> None:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise _bad(name, "must be an object")
    for key, decision in value.items():
        if allowed is not None and key not in allowed:
            raise _bad(f"{name}[{key!r}]", "names no tool call that waits for a decision")
        if not isinstance(decision, list) or len(decision) != 2 \
                or not isinstance(decision[0], bool) \
                or not (decision[1] is None or isinstance(decision[1], str)):
            raise _bad(f"{name}[{key!r}]", "must be [approved (true/false), message or null]")


def _usage(value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise _bad("usage", "must be an object")
    for name in ("requests", "input_tokens", "output_tokens", "total_tokens"):
        if name in value and value[name] is not None:
            _int(value, name, "usage.")
    entries = value.get("request_usage_entries") or []
    if not isinstance(entries, list):
        raise _bad("usage.request_usage_entries", "must be a list")
    for i, entry in enumerate(entries):
        where = f"usage.request_usage_entries[{i}]."
        if not isinstance(entry, dict):
            raise _bad(where[:-1], "must be an object")
        for name in ("input_tokens", "output_tokens", "total_tokens"):
            if entry.get(name) is not None:
                _int(entry, name, where)
        for name in ("input_tokens_details", "output_tokens_details"):
            details = entry.get(name)
            if details is None:
                continue
            if not isinstance(details, dict) or not all(
                    isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                    and v >= 0 for k, v in details.items()):
                raise _bad(where + name, "must be an object of token counts")
    try:  # the details' own fields
        from ..core.run_context import RunUsage

        RunUsage.from_dict(value)
    except Exception as exc:
        raise _bad("usage", f"does not read ({type(exc).__name__})") from None


def _pending(data: dict[str, Any], turn: int, replied: dict[str, str]) -> set[str]:
    """The paused batch checked against the paused reply's tool calls; the waiting ids."""
    pending = data.get("pending")
    if not isinstance(pending, dict):
        raise _bad("pending", "must be an object")
    _int(pending, "turn", "pending.", 0, turn)
    calls = pending.get("calls")
    if not isinstance(calls, list) or not calls:
        raise _bad("pending.calls", "must be a non-empty list")
    waiting: set[str] = set()
    seen: set[str] = set()
    for i, call in enumerate(calls):
        where = f"pending.calls[{i}]."
        if not isinstance(call, dict):
            raise _bad(where[:-1], "must be an object")
        call_id = _str(call, "call_id", where)
        name = _str(call, "name", where)
        assert call_id is not None and name is not None
        if replied.get(call_id) != name or call_id in seen:
            raise _bad(f"{where}call_id", f"{call_id!r} ({name!r}) is not a tool call of the "
                                          "paused reply, or is there twice")
        seen.add(call_id)
        state = call.get("state")
        if state == "waiting":
            waiting.add(call_id)
        elif state == "done":
            _str(call, "result", where)
            _bool(call, "is_error", where)
            _bool(call, "allowed", where)
            _str(call, "reason", where, optional=True)
            duration = call.get("duration_s")
            if not isinstance(duration, (int, float)) or isinstance(duration, bool) \
                    or not math.isfinite(duration) or duration < 0:
                raise _bad(f"{where}duration_s", "must be a number of seconds >= 0")
        else:
            raise _bad(f"{where}state", f"must be 'waiting' or 'done', got {state!r}")
    return waiting


def check_state(data: dict[str, Any], agents: Collection[str]) -> None:
    """``ValueError`` naming the first field of ``data`` (a state's JSON, its kind and version
    already checked) that ``to_json`` would not have written; ``agents``: the names of the
    agents reachable from the starting one."""
    for name in ("run_id", "starting_agent", "current_agent", "message_id"):
        _str(data, name)
    for name in ("current_agent",):
        if data[name] not in agents:
            raise _bad(name, f"{data[name]!r} is not the starting agent or reachable from it "
                             f"through handoffs; known agents: {sorted(agents)}")
    max_turns = _int(data, "max_turns", "", 1)
    turn = _int(data, "turn", "", 0, max_turns)
    for name in ("session_count", "tokens_used", "tool_calls", "output_failures"):
        _int(data, name, "")
    _bool(data, "reflecting")
    for name in ("input", "base_messages", "history"):
        _each(_dicts(data, name), name, _message)
    produced = _dicts(data, "produced")
    if not produced:
        raise _bad("produced", "must hold the paused reply")
    _each(produced, "produced", _message)
    owners = data.get("owners")
    if not isinstance(owners, list) or not all(isinstance(o, str) and o in agents
                                               for o in owners):
        raise _bad("owners", f"must be a list of agent names among {sorted(agents)}")
    _each(_dicts(data, "responses"), "responses", ChatCompletionResponse.model_validate)
    _each(_dicts(data, "tool_events"), "tool_events", ToolEvent.model_validate)
    tool_calls = produced[-1].get("tool_calls")
    if not isinstance(tool_calls, list) or not tool_calls:
        raise _bad("produced[-1].tool_calls", "must hold the paused tool calls")
    replied: dict[str, str] = {}
    for call in tool_calls:
        try:
            parsed = ToolCall.model_validate(call)
        except Exception:
            raise _bad("produced[-1].tool_calls", "must be tool calls with an id and a "
                                                  "name") from None
        replied[parsed.id] = parsed.function.name
    waiting = _pending(data, turn, replied)
    _decisions(data, "decisions", waiting)
    _decisions(data, "always", None)
    _usage(data.get("usage"))


# --- signing -----------------------------------------------------------------------------


def check_signing_key(key: Any) -> bytes:
    """A signing key as bytes (text is UTF-8): non-empty."""
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes) or not key:
        raise TypeError("signing_key must be non-empty bytes or text (keep it secret: whoever "
                        "has it can write states your program will trust)")
    return key


def _digest(data: dict[str, Any], key: bytes) -> str:
    body = {k: v for k, v in data.items() if k != SIGNATURE_FIELD}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)
    return _SCHEME + hmac.new(key, text.encode("ascii"), hashlib.sha256).hexdigest()


def sign(data: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    """``data`` with its signature (HMAC-SHA256 of its canonical JSON under ``key``)."""
    return {**data, SIGNATURE_FIELD: _digest(data, check_signing_key(key))}


def verify(data: dict[str, Any], key: SigningKey) -> None:
    """``ValueError`` unless ``data`` carries the signature ``key`` gives it."""
    given = data.get(SIGNATURE_FIELD)
    if given is None:
        raise ValueError("the run state is not signed, but a signing_key was given: it was not "
                         "written by to_json(signing_key=...), or its signature was removed")
    try:
        expected = _digest(data, check_signing_key(key))
    except ValueError:  # a NaN in it: not what to_json writes
        raise ValueError("the run state's signature does not match") from None
    if not isinstance(given, str) or not hmac.compare_digest(given, expected):
        raise ValueError("the run state's signature does not match: it was changed after "
                         "to_json(signing_key=...), or signed with another key")
