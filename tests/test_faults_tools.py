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
from _fault_server import FaultServer, MatrixOutcomes, Reply, Stream
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


# --- malformed tool arguments: an error result for the model, the run goes on ---------------

DEEP = "[" * 5000 + "]" * 5000  # JSON nested 5,000 levels deep


def lookup(q: str) -> str:
    """Look up."""
    return q.upper()


def run_actions(family: str, server: FaultServer, first: Any, stream: bool = False) -> Any:
    """The model's first reply is ``first`` (an action); its second answers; the tool loop
    runs over both."""
    second = (Stream(events=[WIRE[family]["sse"](2, ANSWER)]) if stream
              else Reply(200, body=WIRE[family]["json"](2, ANSWER)))
    server.queue(first, second)
    base_url = server.url + "/v1" if family == "openai" else server.url
    configs = {family: {"api_key": KEYS[family], "base_url": base_url, "max_retries": 0}}
    with ai.Client(configs) as client:
        result = client.chat.completions.create(model=WIRE[family]["model"], messages=USER,
                                                tools=[lookup], max_turns=3, stream=stream)
        if not stream:
            return result
        for _ in result:
            pass
        return result.get_final_response()


def _with_arguments(family: str, raw: bytes, stream: bool) -> Any:
    """The first reply calling ``lookup`` with ``raw`` where its arguments go: the JSON text
    of OpenAI's ``arguments`` string / Anthropic's streamed ``partial_json``, or the JSON value
    of Anthropic's ``input`` / Gemini's ``args``."""
    marker = {"q": "MARK-ARGS"}
    if stream:
        body = WIRE[family]["sse"](1, [("c1", "lookup", marker)])
        assert json.dumps(json.dumps(marker)).encode() in body
        return Stream(events=[body.replace(json.dumps(json.dumps(marker)).encode(), raw)])
    body = json.dumps(WIRE[family]["json"](1, [("c1", "lookup", marker)])).encode()
    text = json.dumps(json.dumps(marker)).encode() if family == "openai" else json.dumps(
        marker).encode()
    assert text in body
    return Reply(200, body=body.replace(text, raw))


def _assert_error_result(family: str, server: FaultServer, resp: Any, says: str) -> None:
    (event,) = resp.tool_events
    assert event.is_error and says in event.result, event.result
    assert resp.content == ANSWER and server.attempts == 2  # the run went on
    assert says in json.dumps(server.requests[1].body)  # the model was told why


CASES = {
    # (family, streamed, the raw arguments, what the error result says)
    "openai arguments nested 5,000 levels deep": (
        "openai", False, json.dumps(DEEP).encode(), "nested more than 200 levels deep"),
    "openai streamed arguments nested 5,000 levels deep": (
        "openai", True, json.dumps(DEEP).encode(), "nested more than 200 levels deep"),
    "anthropic streamed input_json nested 5,000 levels deep": (
        "anthropic", True, json.dumps(DEEP).encode(), "nested more than 200 levels deep"),
    "anthropic tool_use input that is a string": (
        "anthropic", False, b'"oops"', "must be a JSON object"),
    "anthropic tool_use input that is an array": (
        "anthropic", False, b'["q"]', "must be a JSON object"),
    "gemini functionCall args that are a string": (
        "google", False, b'"oops"', "must be a JSON object"),
    "gemini streamed functionCall args that are a string": (
        "google", True, b'"oops"', "must be a JSON object"),
    "anthropic streamed input_json piece that is a number": (
        "anthropic", True, b"5", "must be a JSON object"),
    "anthropic streamed input_json that is not valid JSON": (
        "anthropic", True, b'"{not json"', "not valid JSON"),
    "openai streamed arguments that are not valid JSON": (
        "openai", True, b'"{not json"', "not valid JSON"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_tool_arguments_get_an_error_result(case: str, server: FaultServer) -> None:
    family, stream, raw, says = CASES[case]
    if family == "google" and stream:  # Gemini's stream carries the args as a JSON value
        body = WIRE[family]["sse"](1, [("c1", "lookup", {"q": "MARK-ARGS"})])
        assert b'{"q": "MARK-ARGS"}' in body
        first: Any = Stream(events=[body.replace(b'{"q": "MARK-ARGS"}', raw)])
    else:
        first = _with_arguments(family, raw, stream)
    resp = run_actions(family, server, first, stream)
    _assert_error_result(family, server, resp, says)
    record(f"model sends {case.split(' ', 1)[1]}", family,
           "an error result to the model saying why; the run goes on")
