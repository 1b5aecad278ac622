"""Bounded tools (docs/reliability.md), through the REAL vendor SDKs with HTTP mocked at
httpcore2: ``tool_timeout`` (``Tool(timeout=)`` wins), ``max_tool_result_chars`` (a 10 MB
result is cut with a visible marker, ``ToolEvent.truncated``), sync tools of the async runner
on a pool of ``max_tool_concurrency`` threads, and results that are always valid JSON."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
import respx
from support.tool_wire import FAMILIES, bodies, create, mock, openai_sent
from pydantic import BaseModel, ConfigDict

import aisuite_like as ai
from aisuite_like.runner import DEFAULT_MAX_TOOL_RESULT_CHARS

MESSAGES = [{"role": "user", "content": "Go."}]
ANSWER = "Done."


def ask(name: str, n: int = 1, args: Any = None) -> list[tuple[str, str, dict[str, Any]]]:
    return [(f"call_{i}", name, dict(args or {})) for i in range(n)]


def results_sent(family: str, body: dict[str, Any]) -> list[str]:
    """The tool results (text) a request sent back, in order."""
    if family == "openai":
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if family == "anthropic":
        out = []
        for m in body["messages"]:
            for b in m["content"] if isinstance(m["content"], list) else ():
                if b.get("type") == "tool_result":
                    c = b["content"]
                    out.append(c if isinstance(c, str) else "".join(p["text"] for p in c))
        return out
    out = []
    for content in body["contents"]:
        for p in content["parts"]:
            if "functionResponse" in p:
                (value,) = p["functionResponse"]["response"].values()
                out.append(value if isinstance(value, str) else json.dumps(value))
    return out


def strict_json(text: str) -> Any:
    """json.loads that refuses NaN / Infinity (RFC 8259 JSON)."""
    def refuse(name: str) -> Any:
        raise ValueError(f"not valid JSON: {name}")
    return json.loads(text, parse_constant=refuse)


# --- max_tool_result_chars ---------------------------------------------------------------------

BIG = "x" * 10_000_000


def huge() -> str:
    """A 10 MB result."""
    return BIG


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_10mb_result_is_cut_before_the_next_request(family: str, mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, False, [ask("huge"), ANSWER])
    resp, _ = create(mode, family, messages=MESSAGES, tools=[huge], max_turns=3)
    (event,) = resp.tool_events
    assert event.truncated is True and event.is_error is False
    limit = DEFAULT_MAX_TOOL_RESULT_CHARS
    marker = (f"\n[truncated: {len(BIG) - limit} of {len(BIG)} characters cut "
              f"(max_tool_result_chars={limit})]")
    assert event.result == "x" * limit + marker
    request = route.calls[1].request.content
    assert len(request) < limit + 10_000  # the 10 MB never went out
    assert results_sent(family, bodies(route)[1]) == [event.result]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_custom_limit_and_no_limit(mode: str, httpx2_mock: respx.Router) -> None:
    def word() -> str:
        """Twelve characters."""
        return "abcdefghijkl"

    route = mock(httpx2_mock, "openai", False, [ask("word"), ANSWER, ask("word"), ANSWER])
    resp, _ = create(mode, "openai", messages=MESSAGES, tools=[word], max_turns=3,
                     max_tool_result_chars=5)
    assert resp.tool_events[0].result == (
        "abcde\n[truncated: 7 of 12 characters cut (max_tool_result_chars=5)]")
    assert resp.tool_events[0].truncated is True
    resp, _ = create(mode, "openai", messages=MESSAGES, tools=[word], max_turns=3,
                     max_tool_result_chars=None)
    assert resp.tool_events[0].result == "abcdefghijkl"
    assert resp.tool_events[0].truncated is False
    sent = [results_sent("openai", b) for b in bodies(route)]
    assert sent[1][0].startswith("abcde\n[truncated: 7") and sent[3] == ["abcdefghijkl"]


def test_an_error_result_is_bounded_too(httpx2_mock: respx.Router) -> None:
    def loud() -> str:
        """Fails with a long message."""
        raise RuntimeError("e" * 500)

    mock(httpx2_mock, "openai", False, [ask("loud"), ANSWER])
    resp, _ = create("sync", "openai", messages=MESSAGES, tools=[loud], max_turns=3,
                     max_tool_result_chars=40)
    event = resp.tool_events[0]
    assert event.is_error and event.truncated
    assert event.result == ("Error: RuntimeError: " + "e" * 19 + "\n[truncated: 481 of 521 "
                            "characters cut (max_tool_result_chars=40)]")


@pytest.mark.parametrize("bad", [0, -1, 1.5, "100", True])
def test_bad_max_tool_result_chars_is_refused_before_sending(bad: Any,
                                                             httpx2_mock: respx.Router) -> None:
    with pytest.raises(ValueError, match="max_tool_result_chars"):
        create("sync", "openai", messages=MESSAGES, tools=[huge], max_turns=2,
               max_tool_result_chars=bad)
    assert httpx2_mock.calls.call_count == 0


@pytest.mark.parametrize("bad", [0, -2, "1", True, float("inf"), float("nan")])
def test_bad_tool_timeout_is_refused_before_sending(bad: Any, httpx2_mock: respx.Router) -> None:
    with pytest.raises(ValueError, match="tool_timeout"):
        create("sync", "openai", messages=MESSAGES, tools=[huge], max_turns=2, tool_timeout=bad)
    assert httpx2_mock.calls.call_count == 0


def test_bounds_without_max_turns_are_refused(httpx2_mock: respx.Router) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        create("sync", "openai", messages=MESSAGES, tools=[huge], tool_timeout=1.0)
    assert httpx2_mock.calls.call_count == 0


# --- tool_timeout ------------------------------------------------------------------------------

RELEASE = threading.Event()


def stuck_sync() -> str:
    """Blocks until released."""
    RELEASE.wait(30)
    return "released"


async def stuck_async() -> str:
    """Blocks until cancelled."""
    await asyncio.sleep(30)
    return "never"


def quick_sync() -> str:
    """Takes a moment."""
    time.sleep(0.3)
    return "quick"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fn", [stuck_sync, stuck_async], ids=["sync_tool", "async_tool"])
def test_tool_timeout_bounds_every_call_of_the_run(mode: str, fn: Any,
                                                   httpx2_mock: respx.Router) -> None:
    RELEASE.clear()
    try:
        route = mock(httpx2_mock, "openai", False, [ask(fn.__name__), ANSWER])
        resp, _ = create(mode, "openai", messages=MESSAGES, tools=[fn], max_turns=3,
                         tool_timeout=0.2)
    finally:
        RELEASE.set()
    event = resp.tool_events[0]
    assert event.is_error
    assert event.result == f"Error: tool {fn.__name__!r} timed out after 0.2 seconds"
    assert results_sent("openai", bodies(route)[1]) == [event.result]
    assert resp.content == ANSWER


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_tools_own_timeout_wins_over_the_runs(mode: str, httpx2_mock: respx.Router) -> None:
    patient = ai.Tool(quick_sync, timeout=30)
    mock(httpx2_mock, "openai", False, [ask("quick_sync"), ANSWER])
    resp, _ = create(mode, "openai", messages=MESSAGES, tools=[patient], max_turns=3,
                     tool_timeout=0.05)
    assert resp.tool_events[0].result == "quick" and not resp.tool_events[0].is_error


# --- the executor of sync tools in the async runner --------------------------------------------


class InFlight:
    """Counts calls running at once; a barrier of ``wave`` parties makes each wave of calls
    prove it ran concurrently (a smaller pool would leave the barrier broken)."""

    def __init__(self, wave: int) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.barrier = threading.Barrier(wave, timeout=20)

    def tool(self, n: int) -> str:
        """A slow sync tool."""
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            self.barrier.wait()
            time.sleep(0.02)
        finally:
            with self.lock:
                self.now -= 1
        return f"done {n}"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_twenty_sync_tools_run_in_waves_of_max_tool_concurrency(
        mode: str, httpx2_mock: respx.Router) -> None:
    counter = InFlight(wave=10)
    slow = ai.Tool(counter.tool, name="slow")
    calls = [(f"call_{n}", "slow", {"n": n}) for n in range(20)]
    route = mock(httpx2_mock, "openai", False, [calls, ANSWER])
    resp, _ = create(mode, "openai", messages=MESSAGES, tools=[slow], max_turns=3,
                     max_tool_concurrency=10)
    assert [e.result for e in resp.tool_events] == [f"done {n}" for n in range(20)]
    assert counter.most == 10  # 10 at once (not the default pool's size), never more
    assert not counter.barrier.broken
    assert results_sent("openai", bodies(route)[1]) == [
        f"done {n}" for n in range(20)]
    assert openai_sent(bodies(route)[1])[0][1] == [f"call_{n}" for n in range(20)]


# --- valid JSON --------------------------------------------------------------------------------


class Reading(BaseModel):
    model_config = ConfigDict(ser_json_inf_nan="constants")  # would write bare NaN
    value: float


def readings() -> dict[str, Any]:
    """Measurements, some missing."""
    return {"mean": float("nan"), "max": float("inf"), "min": float("-inf"),
            "label": "NaN and Infinity stay as text", "ok": 1.5,
            "model": Reading(value=float("nan"))}


def reading() -> Reading:
    """One measurement."""
    return Reading(value=float("-inf"))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_nan_and_infinity_results_are_sent_as_valid_json(family: str,
                                                          httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, False, [ask("readings") + [("c2", "reading", {})],
                                              ANSWER])
    resp, _ = create("async", family, messages=MESSAGES, tools=[readings, reading],
                     max_turns=3)
    first, second = (e.result for e in resp.tool_events)
    assert strict_json(first) == {"mean": None, "max": None, "min": None,
                                  "label": "NaN and Infinity stay as text", "ok": 1.5,
                                  "model": {"value": None}}
    assert strict_json(second) == {"value": None}
    raw = route.calls[1].request.content.decode()
    strict_json(raw)  # the whole request body is valid JSON
    assert [strict_json(r) for r in results_sent(family, bodies(route)[1])] == [
        strict_json(first), strict_json(second)]


def test_text_mentioning_nan_is_left_alone() -> None:
    from aisuite_like.tools.base import format_result

    assert format_result(["NaN", "Infinity"]) == '["NaN","Infinity"]'
    assert format_result("NaN") == "NaN"  # a str result is sent as is


# --- agents ------------------------------------------------------------------------------------


def test_agent_tool_bounds(httpx2_mock: respx.Router) -> None:
    RELEASE.clear()
    route = mock(httpx2_mock, "openai", False, [ask("huge") + [("c2", "stuck_sync", {})],
                                                ANSWER])
    agent = ai.Agent(name="bounded", model="openai:gpt-4o", tools=[huge, stuck_sync],
                     tool_timeout=0.2, max_tool_result_chars=60)
    try:
        with ai.Client(FAMILIES["openai"]["config"]) as client:
            result = ai.Runner.run_sync(agent, "Go.", client=client)
    finally:
        RELEASE.set()
    big, stuck = result.tool_events
    assert big.truncated and big.result.startswith("x" * 60 + "\n[truncated: ")
    assert stuck.result == "Error: tool 'stuck_sync' timed out after 0.2 seconds"
    assert results_sent("openai", bodies(route)[1]) == [big.result, stuck.result]


@pytest.mark.parametrize("field, bad", [("tool_timeout", -1), ("max_tool_result_chars", 0)])
def test_agent_refuses_bad_bounds(field: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=field):
        ai.Agent(name="a", model="openai:gpt-4o", **{field: bad})
