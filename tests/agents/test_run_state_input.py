"""A resumable run state is input (docs/agents.md, "Approvals that pause"): ``RunState.from_json``
checks every field and its bounds and raises ``ValueError`` for anything ``to_json`` would not
have written (a missing field, a wrong type, ``turn=-1000``, a call id that is not in the paused
reply, a NaN), never a raw ``KeyError`` / ``IndexError`` / ``TypeError``. A state signed with an
HMAC key (``to_json(signing_key=...)``) is read back only with that key and unchanged: a forged
approval is refused."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

RAN: list[str] = []
KEY = b"state-signing-key-for-tests-0123456789"


@ai.function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(path)
    return f"deleted {path}"


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _agent() -> ai.Agent:
    return ai.Agent("File assistant", "scripted:m", tools=[get_weather, delete_file],
                    max_turns=5)


def _client(*replies: Any) -> ai.Client:
    return ai.Client(providers={"scripted": ScriptedProvider(list(replies))})


@pytest.fixture(autouse=True)
def _clean() -> None:
    RAN.clear()


def _paused(**to_json: Any) -> dict[str, Any]:
    client = _client([tool_call("get_weather", {"city": "Oslo"}, id="c1"),
                      tool_call("delete_file", {"path": "/a"}, id="c2")])
    result = ai.Runner.run_sync(_agent(), "weather, then delete", client=client,
                                context={"user": "ada"})
    assert result.interruptions
    data: dict[str, Any] = result.to_state().to_json(**to_json)
    return data


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]
    return change


BAD: dict[str, Callable[[dict[str, Any]], None]] = {
    "turn below zero": _set("turn", -1000),
    "turn past max_turns": _set("turn", 10_000),
    "turn not an int": _set("turn", "3"),
    "turn a bool": _set("turn", True),
    "max_turns zero": _set("max_turns", 0),
    "tokens_used negative": _set("tokens_used", -5),
    "tool_calls negative": _set("tool_calls", -1),
    "output_failures a float": _set("output_failures", 0.5),
    "reflecting a string": _set("reflecting", "no"),
    "session_count negative": _set("session_count", -1),
    "run_id a number": _set("run_id", 7),
    "message_id missing": _drop("message_id"),
    "current_agent a list": _set("current_agent", ["x"]),
    "owners naming nobody": _set("owners", ["Nobody"]),
    "owners not a list": _set("owners", "File assistant"),
    "produced empty": _set("produced", []),
    "produced not messages": _set("produced", [1, 2]),
    "last reply without tool calls": _set("produced.0.tool_calls", None),
    "history not a list": _set("history", {"a": 1}),
    "base_messages holding a string": _set("base_messages", ["hi"]),
    "input not a list": _set("input", "hi"),
    "responses not responses": _set("responses", [{"choices": "x"}]),
    "tool_events not events": _set("tool_events", [{"name": 5}]),
    "pending missing": _drop("pending"),
    "pending a list": _set("pending", []),
    "pending turn negative": _set("pending.turn", -2),
    "pending calls not a list": _set("pending.calls", {"a": 1}),
    "pending call empty": _set("pending.calls", [{}]),
    "pending call of another id": _set("pending.calls.1.call_id", "c999"),
    "pending call of another tool": _set("pending.calls.1.name", "get_weather"),
    "pending call in an unknown state": _set("pending.calls.1.state", "approved"),
    "done call with a NaN duration": _set("pending.calls.0.duration_s", float("nan")),
    "done call with a numeric result": _set("pending.calls.0.result", 5),
    "done call with is_error a string": _set("pending.calls.0.is_error", "false"),
    "decisions not a dict": _set("decisions", ["c2"]),
    "decision not a pair": _set("decisions", {"c2": "yes"}),
    "decision for a call not waiting": _set("decisions", {"c1": [True, None]}),
    "decision message a number": _set("decisions", {"c2": [False, 5]}),
    "always not a dict": _set("always", [1]),
    "always not a pair": _set("always", {"delete_file": [1, 2, 3]}),
    "usage not a dict": _set("usage", "lots"),
    "usage requests a string": _set("usage", {"requests": "many"}),
    "usage entry not a dict": _set("usage", {"requests": 1, "request_usage_entries": [3]}),
    "usage details not a dict": _set("usage", {"request_usage_entries": [
        {"input_tokens_details": [1]}]}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_state_is_a_value_error(name: str) -> None:
    data = _paused()
    BAD[name](data)
    with pytest.raises(ValueError, match="run state"):
        ai.RunState.from_json(_agent(), data)
    with pytest.raises(ValueError, match="run state"):
        ai.RunState.from_json(_agent(), json.dumps(data))


_VALUES = (None, 1, -1, 1.5, "x", True, [], {}, [1], {"a": 1})


def test_every_field_of_any_type_is_read_or_refused_with_a_value_error() -> None:
    """Every top-level field and every field of a paused call, deleted or set to a value of
    each JSON type: from_json either reads it (then the state answers its questions) or
    raises ValueError; nothing else."""
    base = _paused()
    paths = [k for k in base if k not in ("kind", "$schemaVersion")]
    paths += [f"pending.calls.{i}.{k}" for i, call in enumerate(base["pending"]["calls"])
              for k in call]
    for path in paths:
        for change in (_drop(path), *(_set(path, v) for v in _VALUES)):
            data = copy.deepcopy(base)
            change(data)
            try:
                state = ai.RunState.from_json(_agent(), data)
            except ValueError:
                continue
            except Exception as exc:  # pragma: no cover - the failure this test looks for
                raise AssertionError(f"{path}: {type(exc).__name__}: {exc}") from exc
            state.get_interruptions()
            repr(state)


def test_turn_minus_1000_cannot_get_past_max_turns() -> None:
    data = _paused()
    data["turn"] = -1000
    with pytest.raises(ValueError, match="turn"):
        ai.RunState.from_json(_agent(), data)


def test_a_signed_state_resumes_with_its_key() -> None:
    text = json.dumps(_paused(signing_key=KEY))
    state = ai.RunState.from_json(_agent(), text, signing_key=KEY)
    [item] = state.get_interruptions()
    state.approve(item)
    resumed = ai.Runner.run_sync(_agent(), state, client=_client("Done."))
    assert resumed.final_output == "Done." and RAN == ["/a"]
    # to_string / from_string take the key too, and a state approved then signed keeps it
    state = ai.RunState.from_string(_agent(), text, signing_key=KEY)
    state.approve(state.get_interruptions()[0])
    again = ai.RunState.from_string(_agent(), state.to_string(signing_key=KEY),
                                    signing_key=KEY)
    assert again.get_interruptions() == []


@pytest.mark.parametrize("forgery", ["approval", "always", "turn", "tool result"])
def test_a_changed_signed_state_is_refused(forgery: str) -> None:
    data = _paused(signing_key=KEY)
    if forgery == "approval":
        data["decisions"] = {"c2": [True, None]}
    elif forgery == "always":
        data["always"] = {"delete_file": [True, None]}
    elif forgery == "turn":
        data["turn"] = 0
    else:
        data["pending"]["calls"][0]["result"] = "rainy"
    with pytest.raises(ValueError, match="signature"):
        ai.RunState.from_json(_agent(), data, signing_key=KEY)
    assert RAN == []


def test_a_signing_key_refuses_unsigned_and_otherwise_signed_states() -> None:
    with pytest.raises(ValueError, match="not signed"):
        ai.RunState.from_json(_agent(), _paused(), signing_key=KEY)
    with pytest.raises(ValueError, match="signature"):
        ai.RunState.from_json(_agent(), _paused(signing_key=b"another key"), signing_key=KEY)
    for key in ("", b"", 5):
        with pytest.raises((TypeError, ValueError), match="signing_key"):
            _paused(signing_key=key)
