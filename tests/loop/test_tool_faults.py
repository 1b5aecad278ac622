"""Tool faults on the three families, through the real SDKs, against the project's own
loopback fault server (tests/support/fault_server.py): replies that repeat or omit tool-call ids,
a tool returning 10 MB, a tool returning NaN / Infinity. Each case asserts on what the
server received and records its outcome for the fault matrix of docs/reliability.md (with
``AISUITE_FAULT_MATRIX=<path>`` set, written to ``<path>.tools.json``; scripts/fault_matrix.py
merges it with the transport suite's)."""

from __future__ import annotations

import asyncio
import contextvars
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from support.fault_server import FaultServer, MatrixOutcomes, Reply, Stream
from support.timing import scaled
from support.tool_wire import FAMILIES as WIRE

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


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer) -> None:
    server.reset()


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(family: str, server: FaultServer, turns: list[Any], tools: list[Any],
        mode: str = "sync", **options: Any) -> Any:
    """Serve ``turns`` (tool calls or the answer) and run the tool loop over them."""
    server.queue(*(Reply(200, body=WIRE[family]["json"](n, t)) for n, t in enumerate(turns, 1)))
    base_url = server.url + "/v1" if family == "openai" else server.url
    configs = {family: {"api_key": KEYS[family], "base_url": base_url, "max_retries": 0}}
    if mode == "sync":
        with ai.Client(configs) as client:
            return client.chat.completions.create(model=WIRE[family]["model"], messages=USER,
                                                  tools=tools, max_turns=3, **options)

    async def main() -> Any:
        async with ai.AsyncClient(configs) as client:
            return await client.chat.completions.create(
                model=WIRE[family]["model"], messages=USER, tools=tools, max_turns=3, **options)
    return asyncio.run(main())


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
# --- tool_timeout against tools that do not cooperate ---------------------------------------

TOOL_TIMEOUT = 0.5
#: How long the uncooperative tools below go on: longer than the run's (scaled) bound, at
#: any scale, so a run that waited for them is told apart from one that timed them out.
UNCOOPERATIVE_FOR = 20


async def ignores_cancellation() -> str:
    """Swallows every CancelledError and goes on (for UNCOOPERATIVE_FOR s)."""
    end = time.monotonic() + UNCOOPERATIVE_FOR
    while time.monotonic() < end:
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            pass
    return "late"


async def blocks_the_loop() -> str:
    """Blocks its event loop (for UNCOOPERATIVE_FOR s)."""
    time.sleep(UNCOOPERATIVE_FOR)
    return "late"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("tool", [ignores_cancellation, blocks_the_loop],
                         ids=["ignores-cancellation", "blocks-the-loop"])
def test_tool_timeout_holds_for_an_async_tool_that_does_not_cooperate(
        family: str, mode: str, tool: Any, server: FaultServer) -> None:
    """The run goes on at the timeout with an error result for that call, and the program's
    ``asyncio.run`` (or the sync call) returns then: the tool ran on an event loop of its own,
    in a daemon thread, where it is left."""
    run(family, server, [ANSWER], [])  # the SDK imported and warm: only the run is timed
    server.reset()
    started = time.monotonic()
    resp = run(family, server, [[("c1", tool.__name__, {})], ANSWER], [tool], mode,
               tool_timeout=TOOL_TIMEOUT)
    elapsed = time.monotonic() - started
    bound = scaled(3 * TOOL_TIMEOUT + 1.0)  # at most 10 s: well under UNCOOPERATIVE_FOR
    assert elapsed < bound, f"the run took {elapsed:.2f} s (bound {bound:.1f} s)"
    event = resp.tool_events[0]
    assert event.is_error
    assert event.result == f"Error: tool {tool.__name__!r} timed out after 0.5 seconds"
    assert server.attempts == 2 and resp.content == ANSWER  # the run went on
    record({"ignores_cancellation": "async tool that catches CancelledError and goes on "
                                    "(tool_timeout=0.5)",
            "blocks_the_loop": "async tool that blocks its event loop with time.sleep "
                               "(tool_timeout=0.5)"}[tool.__name__], family,
           "timeout error result at the deadline; the run and asyncio.run go on")


REQUEST_TAG: "contextvars.ContextVar[str]" = contextvars.ContextVar("request_tag", default="")


def test_an_async_tool_with_a_deadline_runs_on_a_loop_of_its_own(server: FaultServer) -> None:
    """Under a deadline an async tool runs on an event loop of its own (the caller's
    context variables copied in); ``Tool(timeout=math.inf)`` keeps it on the caller's loop,
    without a deadline, for a tool that uses objects bound to that loop."""
    async def main() -> list[str]:
        caller = asyncio.get_running_loop()
        REQUEST_TAG.set("tagged")

        async def where() -> str:
            """Which loop runs this call."""
            loop = "caller" if asyncio.get_running_loop() is caller else "own"
            return f"{loop} {REQUEST_TAG.get()}"

        results = []
        configs = {"openai": {"api_key": KEYS["openai"], "base_url": server.url + "/v1",
                              "max_retries": 0}}
        async with ai.AsyncClient(configs) as client:
            for tool in (where, ai.Tool(where, timeout=math.inf)):
                server.queue(Reply(200, body=WIRE["openai"]["json"](1, [("c1", "where", {})])),
                             Reply(200, body=WIRE["openai"]["json"](2, ANSWER)))
                resp = await client.chat.completions.create(
                    model=WIRE["openai"]["model"], messages=USER, tools=[tool], max_turns=3,
                    tool_timeout=5)
                results.append(resp.tool_events[0].result)
        return results

    assert asyncio.run(main()) == ["own tagged", "caller tagged"]


def test_tasks_an_async_tool_starts_on_its_own_loop_end_with_the_call(
        server: FaultServer) -> None:
    ended = threading.Event()

    async def background() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            ended.set()

    async def spawn() -> str:
        """Starts a task and returns."""
        asyncio.get_running_loop().create_task(background())
        await asyncio.sleep(0)
        return "spawned"

    resp = run("openai", server, [[("c1", "spawn", {})], ANSWER], [spawn], "async",
               tool_timeout=5)
    assert resp.tool_events[0].result == "spawned"
    assert ended.wait(5)  # cancelled when the call ended, not left pending on a dead loop


# --- Ctrl-C while sync tools run in threads ---------------------------------------------------

SLOW_TOOLS = """
import sys, time

def slow_a() -> str:
    \"\"\"Takes a minute.\"\"\"
    print("tool running", flush=True)
    time.sleep(60)
    return "a"

def slow_b() -> str:
    \"\"\"Takes a minute.\"\"\"
    print("tool running", flush=True)
    time.sleep(60)
    return "b"
"""

PROGRAMS = {
    "sync": """
import aisuite_like as ai, mytools
client = ai.Client({"openai": {"base_url": sys.argv[1], "api_key": "k", "max_retries": 0}})
client.chat.completions.create(model="openai:gpt-x", messages=[{"role": "user", "content": "go"}],
                               tools=[mytools.slow_a, mytools.slow_b], max_turns=2)
""",
    "async": """
import asyncio, aisuite_like as ai, mytools
async def main():
    async with ai.AsyncClient({"openai": {"base_url": sys.argv[1], "api_key": "k",
                                          "max_retries": 0}}) as client:
        await client.chat.completions.create(
            model="openai:gpt-x", messages=[{"role": "user", "content": "go"}],
            tools=[mytools.slow_a, mytools.slow_b], max_turns=2)
asyncio.run(main())
""",
}


# A program started in the background of a non-interactive shell (`cmd &`, as CI scripts and
# nohup'd runs do) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
# handler: Ctrl-C would do nothing. The program under test gets SIGINT's default disposition
# back first, as it has when started from a terminal (an exec keeps SIG_DFL).
WITH_DEFAULT_SIGINT = [sys.executable, "-c",
                       "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                       "os.execv(sys.argv[1], sys.argv[1:])"]


@pytest.mark.parametrize("program", ["sync", "async", "cli"])
def test_ctrl_c_exits_promptly_while_sync_tools_run_in_threads(
        program: str, server: FaultServer, tmp_path: Path) -> None:
    """Two sync tools of one response run in the run's thread pool; Ctrl-C (SIGINT) ends the
    process at once: its tool threads are daemon threads, which the exit does not wait for."""
    (tmp_path / "mytools.py").write_text(textwrap.dedent(SLOW_TOOLS))
    calls = [("c1", "slow_a", {}), ("c2", "slow_b", {})]
    server.queue(Reply(200, body=WIRE["openai"]["json"](1, calls)))
    # PYTHONFAULTHANDLER: a process stuck after Ctrl-C dumps its threads on SIGABRT (below)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
           "PYTHONFAULTHANDLER": "1"}
    if program == "cli":
        env.update(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY="k")
        args = [sys.executable, "-m", "aisuite_like", "chat", "-m", "openai:gpt-x", "go",
                "--tool", "mytools:slow_a", "--tool", "mytools:slow_b", "--max-turns", "2"]
    else:
        script = tmp_path / "program.py"
        script.write_text("import sys\n" + textwrap.dedent(PROGRAMS[program]))
        args = [sys.executable, str(script), server.url + "/v1"]
    proc = subprocess.Popen([*WITH_DEFAULT_SIGINT, *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        seen = ""
        while seen.count("tool running") < 2:  # both tools have started (lines may mix)
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "no output"
            seen += line
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # faulthandler prints where every thread is
            _, stuck = proc.communicate(timeout=30)
            pytest.fail(f"no exit 30 s after Ctrl-C; the threads were at:\n{stuck[-6000:]}")
        elapsed = time.monotonic() - started
    finally:
        proc.kill()
        proc.wait()
    # the tools sleep 60 s: an exit waiting for them is told from a prompt one at any scale
    assert elapsed < scaled(5), f"the process took {elapsed:.1f} s to exit after Ctrl-C"
    if program == "cli":
        assert proc.returncode == 130
        assert proc.stderr is not None and "interrupted" in proc.stderr.read()
    record("Ctrl-C while two sync tools run (sync, async and CLI programs)", "openai",
           "the process exits at once (tool threads are daemon threads); CLI exit 130")
