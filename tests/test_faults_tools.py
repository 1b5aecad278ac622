"""Tool faults on the three families, through the real SDKs, against the project's own
loopback fault server (tests/_fault_server.py): replies that repeat or omit tool-call ids,
a tool returning 10 MB, a tool returning NaN / Infinity. Each case asserts on what the
server received and records its outcome for the fault matrix of docs/reliability.md (with
``AISUITE_FAULT_MATRIX=<path>`` set, written to ``<path>.tools.json``; scripts/fault_matrix.py
merges it with the transport suite's)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, Optional

import pytest
from _fault_server import FaultServer, MatrixOutcomes, Reply
from _tool_wire import FAMILIES as WIRE

import aisuite_like as ai
from aisuite_like.runner import DEFAULT_MAX_TOOL_RESULT_CHARS

FAMILIES = ("openai", "anthropic", "google")
KEYS = {"openai": "opn-Tools-4f8a1c9e7b2d", "anthropic": "ant-Tools-9c2e7f1a3b5d",
        "google": "ggl-Tools-1b3d5f7a9c2e"}
USER = [{"role": "user", "content": "go"}]
ANSWER = "done"

_OUTCOMES = MatrixOutcomes(".tools.json")
record = _OUTCOMES.record


@pytest.fixture(scope="module", autouse=True)
def _write_matrix() -> Iterator[None]:
    yield
    _OUTCOMES.write()


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer) -> None:
    server.reset()


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(family: str, server: FaultServer, turns: list[Any], tools: list[Any]) -> Any:
    """Serve ``turns`` (tool calls or the answer) and run the tool loop over them."""
    server.queue(*(Reply(200, body=WIRE[family]["json"](n, t)) for n, t in enumerate(turns, 1)))
    base_url = server.url + "/v1" if family == "openai" else server.url
    configs = {family: {"api_key": KEYS[family], "base_url": base_url, "max_retries": 0}}
    with ai.Client(configs) as client:
        return client.chat.completions.create(model=WIRE[family]["model"], messages=USER,
                                              tools=tools, max_turns=3)


def pairs_sent(family: str, server: FaultServer) -> list[tuple[list[str], list[str]]]:
    return WIRE[family]["sent"](server.requests[-1].body)


def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"not valid JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def test_reply_repeating_a_tool_call_id(family: str, server: FaultServer) -> None:
    ran: list[str] = []

    def lookup(q: str) -> str:
        """Look up."""
        ran.append(q)
        return q.upper()

    calls = [("dup", "lookup", {"q": q}) for q in ("a", "b", "c")]
    resp = run(family, server, [calls, ANSWER], [lookup])
    (sent,) = pairs_sent(family, server)
    ids, results = sent
    assert ids == results and len(set(ids)) == 3  # unique, and each result pairs
    assert sorted(ran) == ["a", "b", "c"] and resp.content == ANSWER
    if family != "google":  # Gemini's own ids come back as given unless repeated
        assert ids == ["dup", "dup_2", "dup_3"]
    record("reply repeats one tool-call id for 3 calls", family,
           "each call runs once under a unique id (first keeps it); results pair on the wire")


def test_reply_omitting_tool_call_ids(family: str, server: FaultServer) -> None:
    def lookup(q: str) -> str:
        """Look up."""
        return q.upper()

    calls = [(None, "lookup", {"q": q}) for q in ("a", "b")]
    resp = run(family, server, [calls, ANSWER], [lookup])
    (sent,) = pairs_sent(family, server)
    ids, results = sent
    assert ids == results and len(set(ids)) == 2 and all(ids)
    assert [e.call_id for e in resp.tool_events] == ids
    record("reply omits the tool-call ids", family,
           "unique ids assigned before the tools run; results pair on the wire")


def test_a_10mb_tool_result(family: str, server: FaultServer) -> None:
    def huge() -> str:
        """10 MB."""
        return "x" * 10_000_000

    resp = run(family, server, [[("c1", "huge", {})], ANSWER], [huge])
    event = resp.tool_events[0]
    assert event.truncated and len(event.result) < DEFAULT_MAX_TOOL_RESULT_CHARS + 200
    second = json.dumps(server.requests[1].body)
    assert len(second) < DEFAULT_MAX_TOOL_RESULT_CHARS + 10_000
    assert "[truncated: 9900000 of 10000000 characters cut" in second
    record("tool returns 10 MB", family,
           "cut to 100,000 characters + a marker saying how much; ToolEvent.truncated")


def test_nan_and_infinity_tool_results(family: str, server: FaultServer) -> None:
    def stats() -> dict[str, Any]:
        """Statistics."""
        return {"mean": math.nan, "max": math.inf, "min": -math.inf, "n": 3}

    resp = run(family, server, [[("c1", "stats", {})], ANSWER], [stats])
    assert strict_json(resp.tool_events[0].result) == {"mean": None, "max": None,
                                                       "min": None, "n": 3}
    body: Optional[Any] = server.requests[1].body
    assert body is not None  # the server parsed it: valid JSON went out
    assert "NaN" not in json.dumps(body) and "Infinity" not in json.dumps(body)
    record("tool returns NaN / Infinity", family,
           "sent as null: the tool result and the request are valid JSON")
