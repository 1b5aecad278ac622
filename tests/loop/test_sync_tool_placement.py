"""Where the async runner runs a sync tool (docs/tool-runner.md#where-sync-tools-run): in a
worker thread until the tool has shown itself instant, then on the event loop (no thread
hop); a tool that was once slow stays in threads; ``Tool(inline=True/False)`` decides for
itself. Offline providers play the model: the promise checked is the runner's."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any

import pytest

import aisuite_like as ai
from aisuite_like.loop import execute
from aisuite_like.loop.execute import INSTANT_CALLS
from aisuite_like.testing import ScriptedProvider, tool_call

USER = [{"role": "user", "content": "go"}]
#: "instant" for these tests: wide enough that a loaded machine never makes a no-op slow
INSTANT_CALL_S = 0.05


@pytest.fixture(autouse=True)
def _wide_instant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(execute, "INSTANT_CALL_S", INSTANT_CALL_S)
SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


def run_calls(tool: Any, calls: int) -> list[bool]:
    """``calls`` runs of one tool call each, on one event loop; for each call whether the
    tool ran on the event loop's thread."""
    on_loop: list[bool] = []
    fn = tool.fn if isinstance(tool, ai.Tool) else tool

    def where(city: str) -> str:
        on_loop.append(threading.current_thread() is threading.main_thread())
        return fn(city)

    where.__name__ = "where"
    wrapped = ai.Tool(where, inline=tool.inline) if isinstance(tool, ai.Tool) else ai.Tool(where)

    async def main() -> None:
        for i in range(calls):
            provider = ScriptedProvider([tool_call("where", {"city": str(i)}, id=f"c{i}"),
                                         "done"])
            client = ai.AsyncClient(providers={"s": provider})
            resp = await client.chat.completions.create(model="s:m", messages=USER,
                                                        tools=[wrapped], max_turns=2)
            assert [e.is_error for e in resp.tool_events] == [False]

    asyncio.run(main())
    return on_loop


def instant(city: str) -> str:
    return f"sunny in {city}"


def test_an_instant_sync_tool_moves_onto_the_loop_after_proving_itself() -> None:
    placement = run_calls(instant, INSTANT_CALLS + 3)
    assert placement == [False] * INSTANT_CALLS + [True] * 3


def test_a_slow_sync_tool_stays_in_threads() -> None:
    def slow(city: str) -> str:
        time.sleep(INSTANT_CALL_S * 1.5)
        return city

    assert run_calls(slow, INSTANT_CALLS + 2) == [False] * (INSTANT_CALLS + 2)


def test_a_tool_slow_once_on_the_loop_goes_back_to_threads_for_good() -> None:
    durations = [0.0] * INSTANT_CALLS + [INSTANT_CALL_S * 1.5] + [0.0] * 4

    def sometimes_slow(city: str) -> str:
        time.sleep(durations.pop(0))
        return city

    placement = run_calls(sometimes_slow, len(durations))
    # proven instant, then one slow call on the loop (the one the rule cannot foresee), then
    # threads for good
    assert placement == [False] * INSTANT_CALLS + [True] + [False] * 4


@pytest.mark.parametrize("inline", [True, False])
def test_inline_set_on_the_tool_decides(inline: bool) -> None:
    assert run_calls(ai.Tool(instant, inline=inline), 5) == [inline] * 5


def test_an_inline_tool_keeps_its_context_changes_to_itself() -> None:
    def setter(city: str) -> str:
        SEEN.set(city)
        return city

    async def main() -> str:
        provider = ScriptedProvider([tool_call("setter", {"city": "Paris"}, id="c1"), "ok"])
        client = ai.AsyncClient(providers={"s": provider})
        await client.chat.completions.create(model="s:m", messages=USER,
                                             tools=[ai.Tool(setter, inline=True)], max_turns=2)
        return SEEN.get()

    assert asyncio.run(main()) == "unset"


def test_inline_must_be_a_bool_or_none() -> None:
    with pytest.raises(TypeError, match="inline"):
        ai.Tool(instant, inline="yes")  # type: ignore[arg-type]
