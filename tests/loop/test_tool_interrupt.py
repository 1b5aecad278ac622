"""A tool that raises ``KeyboardInterrupt`` (or ``SystemExit``) stops the run and reaches the
caller as itself (docs/tool-runner.md, "Ctrl-C in a tool"), on every way of running tools: sync
and async clients, parallel calls, a tool with a timeout, agents (``Runner.run``, ``run_sync``,
``run_streamed``); nothing else is printed (no "Task exception was never retrieved", no dead
background loop: the next run works). Each case runs in an interpreter of its own, so what it
prints is seen whole."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = r'''
import asyncio, sys
import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

variant, kind = sys.argv[1], sys.argv[2]
RAISE = KeyboardInterrupt if kind == "KeyboardInterrupt" else SystemExit

async def boom(n: int = 0) -> str:
    """Boom."""
    await asyncio.sleep(0)
    raise RAISE

async def fine(n: int = 0) -> str:
    """Fine."""
    await asyncio.sleep(0.05)
    return "ok"

def calls():
    return [tool_call("fine", {"n": 1}, id="c1"), tool_call("boom", {"n": 2}, id="c2")]

def providers(*replies):
    return {"scripted": ScriptedProvider(list(replies) or [calls(), "done"])}

USER = [{"role": "user", "content": "hi"}]
TOOLS = [fine, boom]

def run():
    if variant == "async-client":
        async def main():
            client = ai.AsyncClient(providers=providers())
            return await client.chat.completions.create(model="scripted:m", messages=USER,
                                                        tools=TOOLS, max_turns=3)
        return asyncio.run(main())
    if variant == "async-stream":
        async def main():
            client = ai.AsyncClient(providers=providers())
            stream = await client.chat.completions.create(
                model="scripted:m", messages=USER, tools=TOOLS, max_turns=3, stream=True)
            async for _ in stream:
                pass
        return asyncio.run(main())
    if variant == "timeout":
        async def main():
            client = ai.AsyncClient(providers=providers())
            tools = [ai.Tool(fine, timeout=5), ai.Tool(boom, timeout=5)]
            return await client.chat.completions.create(model="scripted:m", messages=USER,
                                                        tools=tools, max_turns=3)
        return asyncio.run(main())
    if variant == "sync-client":
        return ai.Client(providers=providers()).chat.completions.create(
            model="scripted:m", messages=USER, tools=TOOLS, max_turns=3)
    agent = ai.Agent("A", "scripted:m", tools=TOOLS)
    if variant == "agent-run-sync":
        return ai.Runner.run_sync(agent, "hi", client=ai.Client(providers=providers()))
    if variant == "agent-run":
        return asyncio.run(ai.Runner.run(agent, "hi",
                                         client=ai.AsyncClient(providers=providers())))
    if variant == "agent-run-one-call":
        one = providers([tool_call("boom", {"n": 1}, id="c1")], "done")
        return asyncio.run(ai.Runner.run(agent, "hi", client=ai.AsyncClient(providers=one)))
    if variant == "agent-streamed":
        async def main():
            result = ai.Runner.run_streamed(agent, "hi",
                                            client=ai.AsyncClient(providers=providers()))
            async for _ in result.stream_events():
                pass
        return asyncio.run(main())
    raise AssertionError(variant)

try:
    run()
    print("no interrupt")
except RAISE:
    print("interrupt reached the caller")
# the library still works: a background loop did not die with the interrupt
again = ai.Runner.run_sync(ai.Agent("B", "scripted:m"), "hi",
                           client=ai.Client(providers=providers("fine")))
print("next run:", again.final_output)
'''


@pytest.mark.parametrize("kind", ["KeyboardInterrupt", "SystemExit"])
@pytest.mark.parametrize("variant", ["async-client", "async-stream", "timeout", "sync-client",
                                     "agent-run-sync", "agent-run", "agent-run-one-call",
                                     "agent-streamed"])
def test_a_tool_raising_keyboard_interrupt_ends_the_run_cleanly(variant: str,
                                                                kind: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROGRAM, variant, kind], capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.splitlines() == ["interrupt reached the caller", "next run: fine"], \
        (out.stdout, out.stderr[-3000:])
    assert out.returncode == 0
    assert out.stderr == "", out.stderr[-3000:]
