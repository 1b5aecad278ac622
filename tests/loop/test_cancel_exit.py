"""A cancelled async call with a sync tool still running does not hold the program's exit
(docs/tool-runner.md, "Cancellation"): the tool keeps its daemon thread, and ``asyncio.run``
returns at once; on the async tool runner (clients and agents) and on aisuite's
``Tools.aexecute_tool``. The tool here blocks for ever: a program that waited for it would
never end (the subprocess' own time limit is the failure)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.timing import scaled

PROGRAM = r'''
import asyncio, sys, threading
import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

STARTED = threading.Event()

def stuck(n: int = 0) -> str:
    """Blocks for ever (a sync tool waiting on something that never comes)."""
    STARTED.set()
    threading.Event().wait()
    return "never"

variant = sys.argv[1]
USER = [{"role": "user", "content": "hi"}]
CALLS = [tool_call("stuck", {"n": 1}, id="c1"), tool_call("stuck", {"n": 2}, id="c2")]

def work():
    if variant == "aexecute_tool":
        calls = [{"id": "c1", "type": "function",
                  "function": {"name": "stuck", "arguments": '{"n": 1}'}}]
        return ai.Tools([stuck]).aexecute_tool(calls)
    providers = {"scripted": ScriptedProvider([CALLS, "done"])}
    if variant == "client":
        return ai.AsyncClient(providers=providers).chat.completions.create(
            model="scripted:m", messages=USER, tools=[stuck], max_turns=3)
    if variant == "agent":
        return ai.Runner.run(ai.Agent("A", "scripted:m", tools=[stuck]), "hi",
                             client=ai.AsyncClient(providers=providers))
    raise AssertionError(variant)

async def main():
    task = asyncio.ensure_future(work())
    while not STARTED.is_set():
        await asyncio.sleep(0.01)
    task.cancel()
    try:
        outcome = await task
    except asyncio.CancelledError:
        outcome = "cancelled"
    print("run:", getattr(outcome, "status", outcome))

asyncio.run(main())
print("asyncio.run returned")
'''


@pytest.mark.parametrize("variant", ["aexecute_tool", "client", "agent"])
def test_a_cancelled_run_does_not_wait_for_its_sync_tools(variant: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROGRAM, variant], capture_output=True,
                         text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[-1] == "asyncio.run returned", out.stdout
    assert out.stderr == "", out.stderr[-3000:]
