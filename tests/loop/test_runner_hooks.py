"""The hook points of the tool loop's drivers (``aisuite_like.runner.RunHooks``,
docs/tool-runner.md "Reusing the engine"): the run's start and end, the context entered around
the driver's own work, the context entered where each tool executes, and the point after the
policy decided; sync and async drivers, streamed or not. The offline providers of
``aisuite_like.testing`` play the model."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Iterator
from typing import Any, Optional

import pytest

import aisuite_like as ai
from aisuite_like.loop.hooks import _chain
from aisuite_like.loop.drivers import drive_async, drive_sync
from aisuite_like.runner import RunHooks, ToolLoop
from aisuite_like.testing import ScriptedProvider, tool_call
from aisuite_like.tools import Tools

USER = [{"role": "user", "content": "Hi"}]

# What the hooks' contexts put in force, read where the work happens.
IN_RUN: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("IN_RUN", default=None)
IN_TOOL: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("IN_TOOL", default=None)
TOOL_THREADS: dict[str, int] = {}


def where(city: str) -> str:
    """Say which contexts are in force where the tool runs."""
    TOOL_THREADS[city] = threading.get_ident()
    return f"{city} run={IN_RUN.get()} tool={IN_TOOL.get()}"


async def awhere(city: str) -> str:
    """The same, async."""
    await asyncio.sleep(0)
    return f"{city} run={IN_RUN.get()} tool={IN_TOOL.get()}"


def _timed(city: str) -> str:
    """The same, with a timeout (a thread of its own)."""
    return f"{city} run={IN_RUN.get()} tool={IN_TOOL.get()}"


timed_where = ai.Tool(_timed, name="timed_where", timeout=5)


def secret() -> str:
    """A tool the policy denies."""
    raise AssertionError("a denied tool never runs")


class RunScope:
    """A reusable context manager: IN_RUN is "run" while it is entered. Records how often it
    is entered, how deep, and what each exit got."""

    def __init__(self) -> None:
        self.tokens: list[contextvars.Token[Optional[str]]] = []
        self.entries = 0
        self.deepest = 0
        self.exits: list[Optional[BaseException]] = []

    def __enter__(self) -> None:
        self.tokens.append(IN_RUN.set("run"))
        self.entries += 1
        self.deepest = max(self.deepest, len(self.tokens))

    def __exit__(self, kind: Any, error: Optional[BaseException], tb: Any) -> None:
        IN_RUN.reset(self.tokens.pop())  # ValueError if left in another context than entered
        self.exits.append(error)

    def balanced(self) -> bool:
        return self.entries == len(self.exits) >= 1 and self.deepest == 1 and not self.tokens


class Recorder(RunHooks):
    """Records every hook in order (chunks apart), and where the run's context was seen."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.scope = RunScope()
        self.chunk_contexts: list[Optional[str]] = []
        self.request_contexts: list[Optional[str]] = []
        self.tool_entries: dict[str, int] = {}  # call id -> thread that entered its context
        self.ends: list[Optional[BaseException]] = []

    def on_run_start(self, engine: ToolLoop) -> None:
        self.events.append(f"run start, run={IN_RUN.get()}")

    def on_run_end(self, engine: ToolLoop, error: Optional[BaseException]) -> None:
        self.events.append(f"run end, run={IN_RUN.get()}")
        self.ends.append(error)

    def run_context(self, engine: ToolLoop) -> RunScope:
        return self.scope

    def tool_context(self, engine: ToolLoop, call: Any) -> Any:
        self.events.append(f"tool_context {call.call_id}")
        return self._in_tool(call.call_id)

    @contextlib.contextmanager
    def _in_tool(self, call_id: str) -> Iterator[None]:
        self.tool_entries[call_id] = threading.get_ident()
        token = IN_TOOL.set(call_id)
        try:
            yield
        finally:
            IN_TOOL.reset(token)

    def on_model_request(self, engine: ToolLoop, action: Any) -> None:
        self.request_contexts.append(IN_RUN.get())
        self.events.append(f"request {action.turn}")

    def on_chunk(self, engine: ToolLoop, chunk: Any) -> None:
        self.chunk_contexts.append(IN_RUN.get())

    def on_model_response(self, engine: ToolLoop, response: Any) -> None:
        self.events.append("response")

    def on_tool_batch(self, engine: ToolLoop, batch: Any) -> None:
        self.events.append(f"batch {[c.call_id for c in batch.calls]}")

    def on_tools_decided(self, engine: ToolLoop, batch: Any) -> None:
        self.events.append("decided " + ", ".join(
            f"{c.call_id}:{'runnable' if c.runnable else 'done' if c.done else '?'}"
            for c in batch.calls))

    def on_tool_start(self, engine: ToolLoop, call: Any) -> None:
        self.events.append(f"tool start {call.call_id}")

    def on_tool_end(self, engine: ToolLoop, call: Any) -> None:
        self.events.append(f"tool end {call.call_id}")

    def on_tool_result(self, engine: ToolLoop, call: Any) -> None:
        self.events.append(f"result {call.call_id}: {call.result}")


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def engine_for(provider: ScriptedProvider, tools: list[Any], stream: bool = False,
               **options: Any) -> ToolLoop:
    toolset = Tools(tools)
    return ToolLoop(ai.ChatRequest(model="m", messages=list(USER), tools=toolset.schemas,
                                   stream=stream), toolset, max_turns=3, **options)


def drive(mode: str, engine: ToolLoop, provider: ScriptedProvider, hooks: Any,
          stop_after: Optional[int] = None) -> tuple[list[Optional[str]], Optional[Exception]]:
    """Run ``engine`` with the driver of ``mode`` as a consumer would; ``stop_after`` closes
    the stream after that many chunks. Returns what the consumer saw of the run's context at
    each chunk, and the error the driver raised."""
    seen: list[Optional[str]] = []
    if mode == "sync":
        chunks: Any = drive_sync(engine, provider, hooks)
        try:
            for _ in chunks:
                seen.append(IN_RUN.get())
                if stop_after is not None and len(seen) >= stop_after:
                    chunks.close()
                    break
        except Exception as exc:
            return seen, exc
        return seen, None

    async def main() -> Optional[Exception]:
        chunks: Any = drive_async(engine, provider, hooks)
        try:
            async for _ in chunks:
                seen.append(IN_RUN.get())
                if stop_after is not None and len(seen) >= stop_after:
                    await chunks.aclose()
                    break
        except Exception as exc:
            return exc
        return None

    return seen, asyncio.run(main())


# --- the run's start and end, and the order of the hooks --------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_hooks_frame_the_run_in_order(mode: str, stream: bool) -> None:
    provider = ScriptedProvider([tool_call("where", {"city": "A"}, id="c1"), "Done."])
    hooks = Recorder()
    seen, error = drive(mode, engine_for(provider, [where], stream), provider, hooks)
    assert error is None
    assert hooks.events == [
        "run start, run=None", "request 1", "response", "batch ['c1']", "decided c1:runnable",
        "tool_context c1", "tool start c1", "tool end c1", "result c1: A run=run tool=c1",
        "request 2", "response", "run end, run=None"]
    assert hooks.ends == [None]
    assert hooks.request_contexts == ["run", "run"]
    assert hooks.scope.balanced() and hooks.scope.exits == [None] * hooks.scope.entries
    assert IN_RUN.get() is None
    if stream:  # the driver's work is in the run's context; the consumer's time with a chunk not
        assert seen and seen == [None] * len(seen)
        assert hooks.chunk_contexts == ["run"] * len(seen)
        assert hooks.scope.entries == len(seen) + 1  # re-entered after each chunk
    else:
        assert seen == [] and hooks.scope.entries == 1


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_run_end_gets_the_error_that_ends_the_run(mode: str, stream: bool) -> None:
    failure = ai.RateLimitError("slow down", provider="scripted")
    provider = ScriptedProvider([tool_call("where", {"city": "A"}, id="c1"), failure])
    hooks = Recorder()
    _, error = drive(mode, engine_for(provider, [where], stream), provider, hooks)
    assert error is failure
    assert hooks.ends == [failure]
    assert hooks.events[-1] == "run end, run=None"
    assert hooks.scope.balanced() and hooks.scope.exits[-1] is failure  # the last exit has it
    assert set(hooks.scope.exits[:-1]) <= {None}


def test_a_stream_closed_early_ends_the_run_without_error(mode: str) -> None:
    provider = ScriptedProvider([tool_call("where", {"city": "A"}, id="c1"), "Done."])
    hooks = Recorder()
    seen, error = drive(mode, engine_for(provider, [where], True), provider, hooks, stop_after=1)
    assert error is None and seen == [None]
    assert hooks.events == ["run start, run=None", "request 1", "run end, run=None"]
    assert hooks.ends == [None]
    assert hooks.scope.balanced() and hooks.scope.exits == [None]


def test_a_cancelled_run_ends_with_the_cancellation() -> None:
    started = asyncio.Event()

    async def wait_forever() -> str:
        """Never returns."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    provider = ScriptedProvider([tool_call("wait_forever", {}, id="c1"), "Done."])
    hooks = Recorder()

    async def main() -> None:
        async def consume() -> None:
            async for _ in drive_async(engine_for(provider, [wait_forever]), provider, hooks):
                pass

        task = asyncio.ensure_future(consume())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    (error,) = hooks.ends
    assert isinstance(error, asyncio.CancelledError)
    assert hooks.scope.balanced() and hooks.scope.exits[-1] is error
    assert "tool start c1" in hooks.events and "tool end c1" not in hooks.events


# --- where the contexts are in force -----------------------------------------------------------


def test_each_tool_runs_in_the_run_context_and_its_own_tool_context(mode: str) -> None:
    """Four calls of one response run concurrently: a sync tool (pool threads, or the async
    run's threads), an async tool (its own task), a sync tool with a timeout (a thread of its
    own). Each sees the run's context and its own call's context."""
    provider = ScriptedProvider([[tool_call("where", {"city": "A"}, id="c1"),
                                  tool_call("awhere", {"city": "B"}, id="c2"),
                                  tool_call("timed_where", {"city": "C"}, id="c3"),
                                  tool_call("where", {"city": "D"}, id="c4")], "Done."])
    hooks = Recorder()
    TOOL_THREADS.clear()
    engine = engine_for(provider, [where, awhere, timed_where])
    _, error = drive(mode, engine, provider, hooks)
    assert error is None
    assert engine.result is not None
    assert [e.result for e in engine.result.tool_events] == [
        "A run=run tool=c1", "B run=run tool=c2", "C run=run tool=c3", "D run=run tool=c4"]
    assert sorted(hooks.tool_entries) == ["c1", "c2", "c3", "c4"]
    if mode == "sync":  # entered in the thread that runs the tool, not in the driver's
        assert hooks.tool_entries["c1"] == TOOL_THREADS["A"] != threading.get_ident()
        assert hooks.tool_entries["c4"] == TOOL_THREADS["D"] != threading.get_ident()
    assert hooks.scope.balanced()


def test_calls_that_never_execute_are_done_when_the_batch_is_decided(mode: str) -> None:
    provider = ScriptedProvider([[tool_call("where", {"city": "A"}, id="ok"),
                                  tool_call("where", {"town": "A"}, id="bad"),
                                  tool_call("nope", {}, id="unknown"),
                                  tool_call("secret", {}, id="denied")], "Done."])
    hooks = Recorder()
    engine = engine_for(provider, [where, secret],
                        tool_policy=lambda ctx: ctx.tool_name != "secret")
    _, error = drive(mode, engine, provider, hooks)
    assert error is None
    assert "decided ok:runnable, bad:done, unknown:done, denied:done" in hooks.events
    assert [e for e in hooks.events if e.startswith(("tool_context", "tool start"))] == [
        "tool_context ok", "tool start ok"]  # asked and entered for the executed call only
    assert list(hooks.tool_entries) == ["ok"]


# --- several hooks objects as one ---------------------------------------------------------------


class Named(RunHooks):
    def __init__(self, name: str, log: list[str], asynchronous: bool = False) -> None:
        self.name = name
        self.log = log
        self.asynchronous = asynchronous

    def on_model_request(self, engine: ToolLoop, action: Any) -> Any:
        if not self.asynchronous:
            self.log.append(f"{self.name} request {action.turn}")
            return None

        async def later() -> None:
            await asyncio.sleep(0)
            self.log.append(f"{self.name} request {action.turn}")

        return later()

    def run_context(self, engine: ToolLoop) -> Any:
        log, name = self.log, self.name

        class Scope:
            def __enter__(self) -> None:
                log.append(f"{name} enter")

            def __exit__(self, *exc: Any) -> None:
                log.append(f"{name} exit")

        return Scope()


def test_chained_hooks_run_in_order_and_their_contexts_nest(mode: str) -> None:
    log: list[str] = []
    first, second, plain = Named("a", log, asynchronous=True), Named("b", log), RunHooks()
    hooks = _chain(first, None, second, plain)
    assert _chain(None, first, None) is first and _chain(None) is None
    provider = ScriptedProvider([tool_call("where", {"city": "A"}, id="c1"), "Done."])
    _, error = drive(mode, engine_for(provider, [where]), provider, hooks)
    assert error is None
    assert log == ["a enter", "b enter", "a request 1", "b request 1", "a request 2",
                   "b request 2", "b exit", "a exit"]  # b after a's coroutine finished


def test_a_hook_only_one_of_the_chain_overrides_costs_no_extra_call() -> None:
    recorder = Recorder()
    hooks = _chain(RunHooks(), recorder)
    assert hooks is not None and hooks.on_chunk == recorder.on_chunk


# --- with the OpenTelemetry instrumentation ----------------------------------------------------


def test_instrumentation_watches_a_run_along_with_its_own_hooks(mode: str, otel: Any) -> None:
    from opentelemetry import trace

    current: list[str] = []

    class Spans(Recorder):
        def on_model_request(self, engine: ToolLoop, action: Any) -> None:
            super().on_model_request(engine, action)
            current.append(getattr(trace.get_current_span(), "name", "none"))

    consumer: list[bool] = []
    provider = ScriptedProvider([tool_call("where", {"city": "A"}, id="c1"), "Done."])
    hooks = Spans()
    engine = engine_for(provider, [where], stream=True)
    if mode == "sync":
        for _ in drive_sync(engine, provider, hooks):
            consumer.append(trace.get_current_span().get_span_context().is_valid)
    else:
        async def main() -> None:
            async for _ in drive_async(engine, provider, hooks):
                consumer.append(trace.get_current_span().get_span_context().is_valid)

        asyncio.run(main())
    assert hooks.events[0] == "run start, run=None" and hooks.events[-1] == "run end, run=None"
    assert "result c1: A run=run tool=c1" in hooks.events  # both contexts in force in the tool
    assert hooks.scope.balanced()
    assert current == ["invoke_agent", "invoke_agent"]  # the run's span, while the driver works
    assert consumer and not any(consumer)  # not while the consumer holds a chunk
    spans = otel.spans()
    (run,) = [s for s in spans if s.name == "invoke_agent"]
    assert [s.name for s in spans if s.parent is not None
            and s.parent.span_id == run.context.span_id] == ["execute_tool where"]
