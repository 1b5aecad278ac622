"""MCP servers as tools, against REAL servers the tests start: the toolbox MCPServer
(tests/mcp_servers/toolbox.py) as a stdio subprocess and as a streamable-HTTP server on
127.0.0.1. The model side is scripted (ScriptedProvider) or the deterministic test model."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp")

from support.mcp_http import toolbox_http

import aisuite_like as ai
from aisuite_like.mcp import MCPServerHTTP, MCPServerStdio, MCPToolResult
from aisuite_like.testing import ScriptedProvider, tool_call

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOLBOX = str(ROOT / "tests" / "mcp_servers" / "toolbox.py")
USER = [{"role": "user", "content": "go"}]


def _pids(path: pathlib.Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_dead(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def pid_file(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "pids.txt"


@pytest.fixture
def toolbox(pid_file: pathlib.Path) -> Iterator[MCPServerStdio]:
    server = MCPServerStdio(sys.executable, [TOOLBOX], env={"TOOLBOX_PID_FILE": str(pid_file)},
                            name="toolbox", timeout=20)
    yield server
    server.close()


def _scripted(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with toolbox_http() as port:
        yield f"http://127.0.0.1:{port}/mcp"


# --- manual mode -------------------------------------------------------------------------


def test_manual_mode_sends_the_server_schemas_and_call_tool_runs_the_call(toolbox):
    client, provider = _scripted([tool_call("add", {"a": 2, "b": 40}, id="c1")])
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox])
    sent = {t["function"]["name"]: t["function"] for t in provider.requests[0].tools}
    assert {"add", "echo", "forecast", "slow"} <= set(sent)
    assert sent["add"]["description"] == "Add two integers."
    assert sent["add"]["parameters"]["properties"].keys() == {"a", "b"}
    assert sent["add"]["parameters"]["required"] == ["a", "b"]
    call = resp.choices[0].message.tool_calls[0]
    result = toolbox.call_tool(call.function.name, json.loads(call.function.arguments))
    assert isinstance(result, MCPToolResult)
    assert (result.content, result.is_error) == ("42", False)
    assert [t.to_openai() for t in toolbox.list_tools()] == provider.requests[0].tools
    client.close()


def test_result_mapping_structured_image_and_is_error(toolbox):
    assert toolbox.call_tool("forecast", {"city": "Paris"}).structured_content == {
        "city": "Paris", "temperature_c": 21, "sky": "clear"}
    assert json.loads(toolbox.call_tool("forecast", {"city": "Oslo"}).content)["city"] == "Oslo"
    image = toolbox.call_tool("red_pixel")
    assert image.content == "[image image/png, 69 bytes: not shown to the model]"
    failed = toolbox.call_tool("divide", {"a": 1, "b": 0})
    assert failed.is_error and "divide" in failed.content


def test_is_error_becomes_an_error_result_in_the_runner(toolbox):
    client, _ = _scripted(tool_call("divide", {"a": 1, "b": 0}), "ok")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                          max_turns=2)
    event = resp.tool_events[0]
    assert event.is_error and event.result.startswith("Error: MCPToolError: ")
    assert resp.stop_reason == "completed"
    client, _ = _scripted(tool_call("divide", {"a": 1, "b": 0}), "never used")
    with pytest.raises(ai.ToolExecutionError) as info:
        client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                       max_turns=2, on_tool_error="raise")
    assert info.value.tool_name == "divide"


# --- the runner: sync, async, streamed, agents ---------------------------------------------


def test_sync_runner_executes_mcp_tools_through_the_session(toolbox, pid_file):
    client, provider = _scripted([tool_call("add", {"a": 1, "b": 2}),
                                  tool_call("echo", {"text": "hé"})], "done")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                          max_turns=3)
    assert [(e.name, e.result, e.is_error) for e in resp.tool_events] == [
        ("add", "3", False), ("echo", "hé", False)]
    tool_messages = [m for m in resp.messages if m.role == "tool"]
    assert [m.content for m in tool_messages] == ["3", "hé"]
    assert resp.choices[0].message.content == "done"
    assert len(_pids(pid_file)) == 1
    client.close()


async def test_async_runner_and_acall_tool(toolbox, pid_file):
    provider = ScriptedProvider([tool_call("add", {"a": 5, "b": 6}), "eleven"])
    aclient = ai.AsyncClient(providers={"scripted": provider})
    resp = await aclient.chat.completions.create(model="scripted:x", messages=USER,
                                                 tools=[toolbox], max_turns=2)
    assert resp.tool_events[0].result == "11"
    assert (await toolbox.acall_tool("echo", {"text": "a"})).content == "a"
    assert [t.name for t in await toolbox.alist_tools()][:2] == ["add", "echo"]
    await aclient.aclose()
    assert len(_pids(pid_file)) == 1


async def _largest_loop_stall(coro: Any) -> tuple[Any, float]:
    """Run ``coro`` while a ticker measures the longest time the event loop was blocked."""
    gaps = [0.0]

    async def tick() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps[0] = max(gaps[0], now - last)
            last = now

    ticker = asyncio.ensure_future(tick())
    await asyncio.sleep(0.05)  # the ticker is running before the work starts
    try:
        result = await coro
    finally:
        ticker.cancel()
    return result, gaps[0]


async def test_async_first_use_starts_the_server_without_blocking_the_loop(pid_file):
    server = MCPServerStdio(sys.executable, [TOOLBOX], env={"TOOLBOX_PID_FILE": str(pid_file)})
    provider = ScriptedProvider([tool_call("add", {"a": 1, "b": 1}), "two",
                                 tool_call("echo", {"text": "agent"}), "done"])
    aclient = ai.AsyncClient(providers={"scripted": provider})
    resp, stall = await _largest_loop_stall(aclient.chat.completions.create(
        model="scripted:x", messages=USER, tools=[server], max_turns=2))
    assert resp.tool_events[0].result == "2"
    assert stall < 0.5  # the start-up (about a second or more) happened off the loop
    await aclient.aclose()
    assert not server.is_connected

    client = ai.Client(providers={"scripted": provider})
    agent = ai.Agent(name="helper", model="scripted:x", tools=[server])
    result, stall = await _largest_loop_stall(ai.Runner.run(agent, "go", client=client))
    assert result.final_output == "done" and stall < 0.5
    server.close()


def test_one_server_serves_several_event_loops(toolbox, pid_file):
    async def one(text: str) -> str:
        return (await toolbox.acall_tool("echo", {"text": text})).content

    assert asyncio.run(one("first")) == "first"
    assert asyncio.run(one("second")) == "second"
    assert toolbox.call_tool("echo", {"text": "sync"}).content == "sync"
    assert len(_pids(pid_file)) == 1


def test_streamed_tool_loop(toolbox):
    client, _ = _scripted(tool_call("add", {"a": 20, "b": 22}), "forty-two")
    stream = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                            max_turns=2, stream=True)
    with stream:
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    final = stream.get_final_response()
    assert text == "forty-two"
    assert final.tool_events[0].result == "42"


def test_agent_runs_mcp_tools(toolbox):
    client, _ = _scripted(tool_call("echo", {"text": "from mcp"}), "relayed")
    agent = ai.Agent(name="helper", model="scripted:x", tools=[toolbox])
    result = ai.Runner.run_sync(agent, "go", client=client)
    assert result.final_output == "relayed"
    assert [m.content for m in result.messages if m.role == "tool"] == ["from mcp"]


async def test_agent_streamed_with_an_inline_config(pid_file):
    inline = {"type": "mcp", "name": "tb", "command": sys.executable, "args": [TOOLBOX],
              "env": {"TOOLBOX_PID_FILE": str(pid_file)}, "allowed_tools": ["add"],
              "use_tool_prefix": True}
    provider = ScriptedProvider([tool_call("tb__add", {"a": 1, "b": 1}), "two"])
    agent = ai.Agent(name="helper", model="scripted:x", tools=[inline])
    client = ai.Client(providers={"scripted": provider})
    events = [e async for e in ai.Runner.run_streamed(agent, "go", client=client)]
    executed = [e for e in events if e.type == "ToolCallExecutionEvent"]
    assert executed and "2" in str(executed[0])
    assert [t["function"]["name"] for t in provider.requests[0].tools] == ["tb__add"]
    client.close()  # the client opened it: the process ends
    pid = _pids(pid_file)[0]
    assert _wait_dead(pid)


# --- policies, names ------------------------------------------------------------------------


def test_policy_denial_applies_to_mcp_tools(toolbox):
    client, _ = _scripted(tool_call("echo", {"text": "x"}), "fine")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                          max_turns=2, tool_policy=ai.DenyAll("not today"))
    event = resp.tool_events[0]
    assert (event.allowed, event.is_error) == (False, True)
    assert event.result == "Error: tool call denied by policy: not today"


def test_duplicate_names_across_servers_need_a_prefix(toolbox, pid_file):
    other = MCPServerStdio(sys.executable, [TOOLBOX], name="other", allowed_tools=["add"],
                           env={"TOOLBOX_PID_FILE": str(pid_file)})
    client, provider = _scripted(tool_call("other__add", {"a": 2, "b": 2}), "four")
    try:
        with pytest.raises(ValueError, match="tool_prefix"):
            client.chat.completions.create(model="scripted:x", messages=USER,
                                           tools=[toolbox, other])

        def echo(text: str) -> str:
            return text

        with pytest.raises(ValueError, match="'echo'"):
            client.chat.completions.create(model="scripted:x", messages=USER,
                                           tools=[echo, toolbox])
        prefixed = MCPServerStdio(sys.executable, [TOOLBOX], name="other",
                                  allowed_tools=["add"], tool_prefix="other",
                                  env={"TOOLBOX_PID_FILE": str(pid_file)})
        resp = client.chat.completions.create(model="scripted:x", messages=USER,
                                              tools=[toolbox, prefixed], max_turns=2)
        assert resp.tool_events[0].name == "other__add" and resp.tool_events[0].result == "4"
        assert prefixed.call_tool("other__add", {"a": 1, "b": 1}).content == "2"
        with pytest.raises(ValueError, match="allowed_tools"):
            prefixed.call_tool("echo", {"text": "no"})
    finally:
        client.close()
        other.close()


# --- one connection, lifecycle ----------------------------------------------------------


def test_fifty_runs_through_one_server_start_one_process(pid_file):
    server = MCPServerStdio(sys.executable, [TOOLBOX], env={"TOOLBOX_PID_FILE": str(pid_file)},
                            allowed_tools=["add"], name="toolbox")
    client = ai.Client()
    for _ in range(50):
        resp = client.chat.completions.create(model="test:x", messages=USER, tools=[server],
                                              max_turns=3)
        assert resp.tool_events[0].name == "add" and not resp.tool_events[0].is_error
    pids = _pids(pid_file)
    assert len(pids) == 1 and _alive(pids[0])
    client.close()  # the client opened it lazily: it closes it
    assert _wait_dead(pids[0])
    assert not server.is_connected


def test_with_block_keeps_the_connection_and_closes_it(pid_file):
    server = MCPServerStdio(sys.executable, [TOOLBOX], env={"TOOLBOX_PID_FILE": str(pid_file)})
    assert server.name == "toolbox"
    client, _ = _scripted(tool_call("pid"), "a", tool_call("pid"), "b")
    with server:
        first = client.chat.completions.create(model="scripted:x", messages=USER,
                                               tools=[server], max_turns=2)
        client.close()  # the client did not open it: it stays open
        second = client.chat.completions.create(model="scripted:x", messages=USER,
                                                tools=[server], max_turns=2)
        assert first.tool_events[0].result == second.tool_events[0].result
        assert server.is_connected
    pid = _pids(pid_file)[0]
    assert str(pid) == first.tool_events[0].result
    assert _wait_dead(pid)


def test_server_killed_mid_run_gives_an_error_result_and_the_run_goes_on(toolbox, pid_file):
    client, _ = _scripted(tool_call("crash"), tool_call("add", {"a": 1, "b": 1}), "recovered")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                          max_turns=3)
    crash, add = resp.tool_events
    assert crash.is_error and crash.result.startswith("Error: MCPError: MCP server 'toolbox'")
    assert "closed the connection" in crash.result
    assert "crashing on purpose" not in crash.result  # its stderr is for the developer
    assert (add.result, add.is_error) == ("2", False)  # a new connection served the next call
    assert resp.choices[0].message.content == "recovered"
    first, second = _pids(pid_file)
    assert first != second and not _alive(first)


def test_slow_tool_hits_the_timeout_and_the_connection_stays(pid_file):
    server = MCPServerStdio(sys.executable, [TOOLBOX], env={"TOOLBOX_PID_FILE": str(pid_file)},
                            timeout=1)
    server.connect()  # the start-up has its own bound (startup_timeout, 30 s)
    client, _ = _scripted(tool_call("slow", {"seconds": 5}), tool_call("add", {"a": 3, "b": 4}),
                          "done")
    try:
        resp = client.chat.completions.create(model="scripted:x", messages=USER,
                                              tools=[server], max_turns=3)
        slow, add = resp.tool_events
        assert slow.is_error and "did not answer within 1 seconds" in slow.result
        assert 0.9 < slow.duration_s < 4
        assert add.result == "7"
        assert len(_pids(pid_file)) == 1
        from aisuite_like.errors import MCPError

        with pytest.raises(MCPError, match="did not answer within 1 seconds"):
            server.call_tool("slow", {"seconds": 5})
    finally:
        server.close()


def test_tool_list_changed_notification_refreshes_the_list(toolbox):
    assert "shout" not in [t.name for t in toolbox.list_tools()]
    assert toolbox.call_tool("enable_shout").content == "shout enabled"
    deadline = time.monotonic() + 5
    while "shout" not in [t.name for t in toolbox.list_tools()]:
        assert time.monotonic() < deadline, "the list_changed notification was not applied"
        time.sleep(0.02)
    client, provider = _scripted(tool_call("shout", {"text": "hey"}), "done")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[toolbox],
                                          max_turns=2)
    assert "shout" in [t["function"]["name"] for t in provider.requests[0].tools]
    assert resp.tool_events[0].result == "HEY"


def test_a_server_that_fails_to_start_raises_mcp_error_with_its_stderr(tmp_path):
    server = MCPServerStdio(sys.executable, [TOOLBOX], name="broken",
                            env={"TOOLBOX_FAIL_AT_START": "fatal: no config file found"})
    with pytest.raises(ai.MCPError) as info:
        server.list_tools()
    message = str(info.value)
    assert "MCP server 'broken' failed to start" in message
    assert TOOLBOX in message  # the command
    assert "fatal: no config file found" in message  # the stderr tail
    client, _ = _scripted("never")
    with pytest.raises(ai.MCPError):
        client.chat.completions.create(model="scripted:x", messages=USER, tools=[server])
    missing = MCPServerStdio(str(tmp_path / "no-such-server"), name="missing")
    with pytest.raises(ai.MCPError, match="failed to start.*no-such-server"):
        missing.connect()
    pid_file = tmp_path / "silent.pid"
    silent = MCPServerStdio(sys.executable, ["-c", "import os, time; open(os.environ['P'], 'w')"
                                             ".write(str(os.getpid())); time.sleep(60)"],
                            env={"P": str(pid_file)}, name="silent", startup_timeout=1)
    with pytest.raises(ai.MCPError, match="no answer to the MCP handshake within 1 seconds"):
        silent.connect()
    assert _wait_dead(int(pid_file.read_text()))  # not left running


def test_bad_configuration_is_refused_before_anything_starts():
    with pytest.raises(TypeError, match="args must be a list"):
        MCPServerStdio("python", "server.py")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        MCPServerStdio("python", ["s.py"], timeout=0)
    with pytest.raises(ValueError, match="url"):
        MCPServerHTTP("127.0.0.1:8000/mcp")
    client, _ = _scripted("x")
    with pytest.raises(ValueError, match="exactly one of 'command'"):
        client.chat.completions.create(model="scripted:x", messages=USER,
                                       tools=[{"type": "mcp", "name": "x"}])
    with pytest.raises(ValueError, match="unknown keys \\['comand'\\]"):
        client.chat.completions.create(model="scripted:x", messages=USER,
                                       tools=[{"type": "mcp", "name": "x", "comand": "p"}])
    server = MCPServerHTTP("http://127.0.0.1:1/mcp", headers={"Authorization": "Bearer s3cret"})
    assert "s3cret" not in repr(server)


def test_inline_config_keeps_one_process_across_calls_until_client_close(pid_file):
    inline = {"type": "mcp", "name": "calc", "command": sys.executable, "args": [TOOLBOX],
              "env": {"TOOLBOX_PID_FILE": str(pid_file)}, "allowed_tools": ["add", "pid"]}
    original = json.loads(json.dumps(inline))
    client, provider = _scripted(tool_call("add", {"a": 1, "b": 2}), "3",
                                 tool_call("add", {"a": 2, "b": 2}), "4")
    for expected in ("3", "4"):
        resp = client.chat.completions.create(model="scripted:x", messages=USER,
                                              tools=[inline], max_turns=2)
        assert resp.tool_events[0].result == expected
    assert [t["function"]["name"] for t in provider.requests[0].tools] == ["add", "pid"]
    assert inline == original  # the caller's dict is not mutated
    pids = _pids(pid_file)
    assert len(pids) == 1
    client.close()
    assert _wait_dead(pids[0])


# --- streamable HTTP ------------------------------------------------------------------------


def test_http_server_sync_runner_and_manual_calls(http_url):
    server = MCPServerHTTP(http_url, headers={"X-Test": "1"}, name="web", tool_prefix="web")
    client, provider = _scripted(tool_call("web__add", {"a": 10, "b": 5}), "fifteen")
    try:
        resp = client.chat.completions.create(model="scripted:x", messages=USER,
                                              tools=[server], max_turns=2)
        assert resp.tool_events[0].result == "15"
        assert "web__echo" in [t["function"]["name"] for t in provider.requests[0].tools]
        assert server.call_tool("web__echo", {"text": "over http"}).content == "over http"
    finally:
        client.close()
    assert not server.is_connected


async def test_http_server_async(http_url):
    async with MCPServerHTTP(http_url, name="web") as server:
        provider = ScriptedProvider([tool_call("forecast", {"city": "Rome"}), "sunny"])
        aclient = ai.AsyncClient(providers={"scripted": provider})
        resp = await aclient.chat.completions.create(model="scripted:x", messages=USER,
                                                     tools=[server], max_turns=2)
        assert json.loads(resp.tool_events[0].result)["city"] == "Rome"
        assert (await server.acall_tool("add", {"a": 1, "b": 2})).content == "3"
    assert not server.is_connected


def test_http_server_gone_mid_run_gives_an_error_result(tmp_path):
    with toolbox_http() as port:  # the server stops when the block ends
        server = MCPServerHTTP(f"http://127.0.0.1:{port}/mcp", name="web", timeout=5)
        assert server.call_tool("add", {"a": 1, "b": 1}).content == "2"
        assert "add" in [t.name for t in server.list_tools()]  # listed: a run needs no I/O
    client, _ = _scripted(tool_call("add", {"a": 1, "b": 2}), "gone")
    resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[server],
                                          max_turns=2)
    event = resp.tool_events[0]
    assert event.is_error and event.result.startswith("Error: MCPError: MCP server 'web'")
    assert resp.choices[0].message.content == "gone"
    with pytest.raises(ai.MCPError, match="could not be reached"):
        server.call_tool("add", {"a": 1, "b": 2})
    server.close()


# --- process hygiene ----------------------------------------------------------------------


def test_interpreter_exit_closes_open_servers_without_warnings(tmp_path):
    pid_file = tmp_path / "pids.txt"
    script = (
        "import sys, aisuite_like as ai\n"
        "from aisuite_like.mcp import MCPServerStdio\n"
        f"s = MCPServerStdio(sys.executable, [{TOOLBOX!r}], "
        f"env={{'TOOLBOX_PID_FILE': {str(pid_file)!r}}})\n"
        "c = ai.Client()\n"
        "r = c.chat.completions.create(model='test:x', messages=[{'role': 'user', 'content': "
        "'hi'}], tools=[s], max_turns=2)\n"
        "print(len(r.tool_events))\n"
    )
    out = subprocess.run([sys.executable, "-W", "error", "-c", script],
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no ResourceWarning, no "Task was destroyed"
    pids = _pids(pid_file)
    assert len(pids) == 1 and _wait_dead(pids[0])


def test_importing_the_package_imports_no_mcp():
    code = ("import sys, aisuite_like, aisuite_like.mcp; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_without_the_sdk_first_use_names_the_extra():
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from aisuite_like.mcp import MCPServerStdio\n"
            "s = MCPServerStdio('python', ['server.py'])\n"
            "try:\n    s.list_tools()\nexcept ImportError as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.stdout.startswith("MissingDependencyError"), out.stderr
    assert 'pip install "aisuite-like[mcp]"' in out.stdout
