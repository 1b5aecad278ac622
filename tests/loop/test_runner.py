"""The tool runner's semantics (docs/tool-runner.md), sync and async, streamed and not.

The model is a small ``Provider`` subclass returning scripted responses (the public Provider
API, as a user would write it); the real SDKs are exercised in loop/test_runner_providers.py.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Optional, Union

import pytest
from pydantic import BaseModel

import aisuite_like as ai
from aisuite_like.loop.drivers import drive_async, drive_sync
from aisuite_like.runner import CallModel, Finish, RunHooks, ToolLoop
from aisuite_like.tools import Tool, Tools

# A reply: text, or a list of (call_id, tool name, arguments: dict or raw JSON string).
Reply = Union[str, list[tuple[str, str, Union[dict[str, Any], str]]]]


class Scripted(ai.Provider):
    """Returns the scripted replies in order; records every request it received."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[ai.ChatRequest] = []

    def _next(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
        self.requests.append(request)
        n = len(self.requests)
        reply = self.replies.pop(0)
        if isinstance(reply, str):
            message = ai.Message(role="assistant", content=reply)
            finish = "stop"
        else:
            message = ai.Message(role="assistant", tool_calls=[
                ai.ToolCall(id=cid, function=ai.Function(
                    name=name, arguments=args if isinstance(args, str) else json.dumps(args)))
                for cid, name, args in reply])
            finish = "tool_calls"
        return ai.ChatCompletionResponse(
            id=f"resp-{n}", model="scripted-1", provider="scripted",
            choices=[ai.Choice(message=message, finish_reason=finish)],
            usage=ai.Usage(prompt_tokens=10 * n, completion_tokens=n, total_tokens=11 * n))

    def complete(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
        return self._next(request)

    async def acomplete(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
        return self._next(request)

    def _chunks(self, request: ai.ChatRequest) -> list[ai.ChatCompletionChunk]:
        resp = self._next(request)
        msg = resp.choices[0].message
        base = dict(id=resp.id, model=resp.model, provider=resp.provider)
        out = [ai.ChatCompletionChunk(**base, choices=[{"delta": {"role": "assistant"}}])]
        if msg.content:
            for piece in (msg.content[:2], msg.content[2:]):
                out.append(ai.ChatCompletionChunk(**base, choices=[{"delta": {"content": piece}}]))
        for i, tc in enumerate(msg.tool_calls or []):
            args = tc.function.arguments
            out.append(ai.ChatCompletionChunk(**base, choices=[{"delta": {"tool_calls": [
                {"index": i, "id": tc.id, "type": "function",
                 "function": {"name": tc.function.name, "arguments": args[:3]}}]}}]))
            out.append(ai.ChatCompletionChunk(**base, choices=[{"delta": {"tool_calls": [
                {"index": i, "function": {"arguments": args[3:]}}]}}]))
        out.append(ai.ChatCompletionChunk(**base, choices=[
            {"delta": {}, "finish_reason": resp.choices[0].finish_reason}]))
        out.append(ai.ChatCompletionChunk(**base, choices=[], usage=resp.usage))
        return out

    def stream(self, request: ai.ChatRequest) -> Iterator[ai.ChatCompletionChunk]:
        yield from self._chunks(request)

    async def astream(self, request: ai.ChatRequest) -> AsyncIterator[ai.ChatCompletionChunk]:
        for chunk in self._chunks(request):
            yield chunk


USER = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"}]


def run(mode: str, provider: ai.Provider, messages: Any = None, **kwargs: Any) -> Any:
    """One create() through the sync client or the async one."""
    messages = USER if messages is None else messages
    if mode == "sync":
        client = ai.Client(providers={"s": provider})
        return client.chat.completions.create(model="s:m", messages=messages, **kwargs)
    aclient = ai.AsyncClient(providers={"s": provider})
    return asyncio.run(aclient.chat.completions.create(model="s:m", messages=messages, **kwargs))


MODES = pytest.mark.parametrize("mode", ["sync", "async"])


def get_weather(city: str, unit: str = "C") -> str:
    """Get the weather.

    Args:
        city: The city.
        unit: C or F.
    """
    return f"{city}: 21{unit}"


class Forecast(BaseModel):
    city: str
    days: int


def get_forecast(city: str, days: int) -> Forecast:
    """Forecast."""
    return Forecast(city=city, days=days)


def boom(x: int) -> str:
    """Always fails."""
    raise ValueError(f"boom {x}")


# --- the loop and the finalized response -------------------------------------------------


@MODES
def test_two_turn_loop_and_finalized_response(mode: str) -> None:
    provider = Scripted([
        [("c1", "get_weather", {"city": "Paris"}), ("c2", "get_forecast",
                                                    {"city": "Rome", "days": 2})],
        [("c3", "get_weather", {"city": "Oslo", "unit": "F"})],
        "Paris 21C, Oslo 21F.",
    ])
    resp = run(mode, provider, tools=[get_weather, get_forecast], max_turns=5)

    assert resp.stop_reason == "completed"
    assert resp.content == "Paris 21C, Oslo 21F."
    assert resp.id == "resp-3"
    assert [r.id for r in resp.intermediate_responses] == ["resp-1", "resp-2"]
    assert all(r.stop_reason is None and r.messages is None for r in resp.intermediate_responses)
    # usage summed over the three model calls
    assert resp.usage.prompt_tokens == 10 + 20 + 30
    assert resp.usage.completion_tokens == 1 + 2 + 3
    assert resp.usage.total_tokens == 11 + 22 + 33

    produced = resp.choices[0].intermediate_messages
    assert [(m.role, m.tool_call_id) for m in produced] == [
        ("assistant", None), ("tool", "c1"), ("tool", "c2"), ("assistant", None),
        ("tool", "c3"), ("assistant", None)]
    assert produced[-1].content == "Paris 21C, Oslo 21F."
    assert produced[1].content == "Paris: 21C" and produced[1].name == "get_weather"
    assert produced[2].content == '{"city":"Rome","days":2}'  # pydantic model as JSON
    assert all(isinstance(m, ai.Message) for m in resp.messages)
    assert [m.model_dump(exclude_none=True) for m in resp.messages[:2]] == USER
    assert resp.messages[2:] == produced

    assert [(e.call_id, e.name, e.arguments, e.allowed, e.result, e.is_error, e.turn)
            for e in resp.tool_events] == [
        ("c1", "get_weather", {"city": "Paris"}, True, "Paris: 21C", False, 1),
        ("c2", "get_forecast", {"city": "Rome", "days": 2}, True, '{"city":"Rome","days":2}',
         False, 1),
        ("c3", "get_weather", {"city": "Oslo", "unit": "F"}, True, "Oslo: 21F", False, 2),
    ]
    assert all(e.duration_s >= 0.0 for e in resp.tool_events)

    # what the model received on each turn
    r1, r2, r3 = provider.requests
    assert r1.messages == USER
    assert r1.tools == [Tool(get_weather).to_openai(), Tool(get_forecast).to_openai()]
    assert r2.messages[2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "c2", "type": "function",
         "function": {"name": "get_forecast", "arguments": '{"city": "Rome", "days": 2}'}}]}
    assert r2.messages[3:] == [
        {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "Paris: 21C"},
        {"role": "tool", "tool_call_id": "c2", "name": "get_forecast",
         "content": '{"city":"Rome","days":2}'}]
    assert len(r3.messages) == 7 and r3.messages[:5] == r2.messages
    assert r3.messages[6] == {"role": "tool", "tool_call_id": "c3", "name": "get_weather",
                              "content": "Oslo: 21F"}
    assert r1.tools is r3.tools  # schemas are not rebuilt per turn


@MODES
def test_no_tool_calls_is_one_call(mode: str) -> None:
    provider = Scripted(["Hello."])
    resp = run(mode, provider, tools=[get_weather], max_turns=3)
    assert resp.stop_reason == "completed" and resp.intermediate_responses == []
    assert resp.tool_events == [] and len(provider.requests) == 1
    assert [m.role for m in resp.messages] == ["system", "user", "assistant"]


@MODES
def test_caller_messages_not_mutated(mode: str) -> None:
    messages: list[Any] = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                           ai.Message(role="assistant", content="hello"),
                           {"role": "user", "content": "weather?"}]
    before = copy.deepcopy(messages)
    provider = Scripted([[("c1", "get_weather", {"city": "Paris"})], "ok"])
    resp = run(mode, provider, messages=messages, tools=[get_weather], max_turns=3)
    assert messages == before
    assert len(resp.messages) == 6
    assert len(provider.requests[0].messages) == 3  # a request already sent never changes


# --- concurrency --------------------------------------------------------------------------


def barrier_tools(parties: int) -> tuple[list[Any], threading.Barrier]:
    """``parties`` sync tools that can only finish if they all run at the same time."""
    barrier = threading.Barrier(parties, timeout=10)

    def make(i: int) -> Tool:
        def meet() -> str:
            barrier.wait()  # BrokenBarrierError (-> an error result) if they are not concurrent
            return f"met {i}"
        return Tool(meet, name=f"meet{i}")

    return [make(i) for i in range(parties)], barrier


@MODES
def test_sync_tools_run_concurrently(mode: str) -> None:
    tools, _ = barrier_tools(3)
    provider = Scripted([[(f"c{i}", f"meet{i}", {}) for i in range(3)], "done"])
    resp = run(mode, provider, tools=tools, max_turns=2)
    assert [(e.result, e.is_error) for e in resp.tool_events] == [
        ("met 0", False), ("met 1", False), ("met 2", False)]


def test_async_tools_run_concurrently_in_async_runner() -> None:
    state = {"arrived": 0}

    def make(i: int) -> Tool:
        async def meet() -> str:
            # an asyncio barrier: the third arrival releases everyone
            if "event" not in state:
                state["event"] = asyncio.Event()
            state["arrived"] += 1
            if state["arrived"] == 3:
                state["event"].set()
            await asyncio.wait_for(state["event"].wait(), 10)
            return f"met {i}"
        return Tool(meet, name=f"meet{i}")

    provider = Scripted([[(f"c{i}", f"meet{i}", {}) for i in range(3)], "done"])
    resp = run("async", provider, tools=[make(i) for i in range(3)], max_turns=2)
    assert [(e.result, e.is_error) for e in resp.tool_events] == [
        ("met 0", False), ("met 1", False), ("met 2", False)]


def test_async_tools_run_concurrently_in_sync_runner() -> None:
    barrier = threading.Barrier(3, timeout=10)

    def make(i: int) -> Tool:
        async def meet() -> str:
            await asyncio.to_thread(barrier.wait)
            return f"met {i}"
        return Tool(meet, name=f"meet{i}")

    provider = Scripted([[(f"c{i}", f"meet{i}", {}) for i in range(3)], "done"])
    resp = run("sync", provider, tools=[make(i) for i in range(3)], max_turns=2)
    assert [e.result for e in resp.tool_events] == ["met 0", "met 1", "met 2"]


@MODES
def test_results_in_call_order_not_completion_order(mode: str) -> None:
    first_may_finish = threading.Event()

    def slow() -> str:
        assert first_may_finish.wait(10)  # finishes only after `fast` finished
        return "slow"

    def fast() -> str:
        first_may_finish.set()
        return "fast"

    provider = Scripted([[("a", "slow", {}), ("b", "fast", {})], "done"])
    resp = run(mode, provider, tools=[slow, fast], max_turns=2)
    assert [(m.tool_call_id, m.content) for m in resp.messages if m.role == "tool"] == [
        ("a", "slow"), ("b", "fast")]


@MODES
def test_concurrency_bound(mode: str) -> None:
    lock = threading.Lock()
    active = {"now": 0, "max": 0}
    pair = threading.Barrier(2, timeout=10)  # two calls must overlap, pairwise

    def make(i: int) -> Tool:
        def work() -> str:
            with lock:
                active["now"] += 1
                active["max"] = max(active["max"], active["now"])
            try:
                pair.wait()
            finally:
                with lock:
                    active["now"] -= 1
            return "ok"
        return Tool(work, name=f"w{i}")

    provider = Scripted([[(f"c{i}", f"w{i}", {}) for i in range(4)], "done"])
    resp = run(mode, provider, tools=[make(i) for i in range(4)], max_turns=2,
               max_tool_concurrency=2)
    assert [e.result for e in resp.tool_events] == ["ok"] * 4
    assert active["max"] == 2


@MODES
def test_sequential_tool_runs_alone(mode: str) -> None:
    lock = threading.Lock()
    active: set[str] = set()
    log: list[tuple[str, frozenset[str]]] = []
    ab = threading.Barrier(2, timeout=10)

    def track(name: str, wait: bool) -> str:
        with lock:
            active.add(name)
            log.append((name, frozenset(active)))
        if wait:
            ab.wait()
        with lock:
            active.discard(name)
        return name

    def a() -> str:
        return track("a", True)

    def b() -> str:
        return track("b", True)

    def c() -> str:
        return track("c", False)

    def s() -> str:
        return track("s", False)

    provider = Scripted([[("1", "a", {}), ("2", "b", {}), ("3", "s", {}), ("4", "c", {})],
                         "done"])
    resp = run(mode, provider, tools=[a, b, Tool(s, sequential=True), c], max_turns=2)
    assert [e.result for e in resp.tool_events] == ["a", "b", "s", "c"]
    seen = dict(log)
    assert seen["s"] == {"s"}  # nothing else was running when the sequential tool started
    assert [name for name, _ in log][2:] == ["s", "c"]  # a and b together first, then s, then c


def test_async_tool_in_sync_runner_and_sync_tool_in_async_runner() -> None:
    main_thread = threading.get_ident()
    seen: dict[str, int] = {}

    async def atool() -> str:
        await asyncio.sleep(0)
        return "async ok"

    def stool() -> str:
        seen["thread"] = threading.get_ident()
        return "sync ok"

    provider = Scripted([[("1", "atool", {})], "done"])
    assert run("sync", provider, tools=[atool], max_turns=2).tool_events[0].result == "async ok"

    # In the async runner a sync tool runs in a thread: it can wait for an async tool of the
    # same response without blocking the event loop.
    released = threading.Event()

    async def releaser() -> str:
        await asyncio.sleep(0)
        released.set()
        return "released"

    def waiter() -> str:
        seen["thread"] = threading.get_ident()
        return "waited" if released.wait(10) else "timed out"

    provider = Scripted([[("1", "waiter", {}), ("2", "releaser", {})], "done"])
    resp = run("async", provider, tools=[waiter, releaser], max_turns=2)
    assert [e.result for e in resp.tool_events] == ["waited", "released"]
    assert seen["thread"] != main_thread
    assert stool() == "sync ok"


def test_async_tool_in_sync_client_inside_running_loop() -> None:
    async def atool() -> str:
        return "async ok"

    async def main() -> Any:
        # the sync client called from async code: the async tool gets its own loop
        return run("sync", Scripted([[("1", "atool", {})], "done"]), tools=[atool],
                   max_turns=2, tool_policy=ai.RequireApproval(approve_async))

    async def approve_async(ctx: ai.ToolPolicyContext) -> bool:
        return True

    resp = asyncio.run(main())
    assert resp.tool_events[0].result == "async ok"


# --- timeouts -----------------------------------------------------------------------------


@MODES
def test_sync_tool_timeout(mode: str) -> None:
    never = threading.Event()

    def hang() -> str:
        never.wait(30)
        return "late"

    try:
        provider = Scripted([[("1", "hang", {}), ("2", "get_weather", {"city": "P"})], "ok"])
        resp = run(mode, provider, tools=[Tool(hang, timeout=0.2), get_weather], max_turns=2)
    finally:
        never.set()  # release the abandoned thread
    first, second = resp.tool_events
    assert first.result == "Error: tool 'hang' timed out after 0.2 seconds" and first.is_error
    assert first.duration_s > 0
    assert second.result == "P: 21C"
    assert provider.requests[1].messages[3]["content"] == first.result


@MODES
def test_async_tool_timeout(mode: str) -> None:
    async def hang() -> str:
        await asyncio.Event().wait()
        return "never"

    provider = Scripted([[("1", "hang", {})], "ok"])
    resp = run(mode, provider, tools=[Tool(hang, timeout=0.1)], max_turns=2)
    assert resp.tool_events[0].result == "Error: tool 'hang' timed out after 0.1 seconds"


@MODES
def test_tool_raising_timeout_error_is_not_a_timeout(mode: str) -> None:
    def flaky() -> str:
        raise TimeoutError("upstream slow")

    provider = Scripted([[("1", "flaky", {})], "ok"])
    resp = run(mode, provider, tools=[Tool(flaky, timeout=5)], max_turns=2)
    assert resp.tool_events[0].result == "Error: TimeoutError: upstream slow"


# --- error results ------------------------------------------------------------------------


@MODES
def test_every_failure_becomes_an_error_result(mode: str) -> None:
    provider = Scripted([[
        ("c1", "boom", {"x": 1}),
        ("c2", "nosuch", {}),
        ("c3", "get_weather", '{"city": "Par'),
        ("c4", "get_weather", '["Paris"]'),
        ("c5", "get_weather", {"city": 3, "extra": 1}),
        ("c6", "get_weather", {"city": "Paris"}),
    ], "recovered"])
    resp = run(mode, provider, tools=[boom, get_weather], max_turns=2)
    assert resp.stop_reason == "completed" and resp.content == "recovered"
    results = [e.result for e in resp.tool_events]
    assert results[0] == "Error: ValueError: boom 1"
    assert results[1] == "Error: unknown tool 'nosuch'; available tools: boom, get_weather"
    assert results[2].startswith("Error: the arguments of tool 'get_weather' are not valid JSON (")
    assert results[2].endswith('got: {"city": "Par')
    assert results[3] == ("Error: the arguments of tool 'get_weather' must be a JSON object, "
                          'got: ["Paris"]')
    assert results[4] == ("Error: invalid arguments for tool 'get_weather': city: Input should "
                          "be a valid string; extra: Extra inputs are not permitted")
    assert results[5] == "Paris: 21C"
    assert [e.is_error for e in resp.tool_events] == [True] * 5 + [False]
    # arguments: the parsed dict, or the raw string when it did not parse
    assert resp.tool_events[2].arguments == '{"city": "Par'
    assert resp.tool_events[3].arguments == '["Paris"]'
    assert resp.tool_events[4].arguments == {"city": 3, "extra": 1}
    # calls never executed have duration 0.0
    assert [e.duration_s == 0.0 for e in resp.tool_events[1:5]] == [True] * 4
    assert [e.allowed for e in resp.tool_events] == [True, False, False, False, True, True]
    # the model got every result, paired with its id, in call order
    sent = provider.requests[1].messages[3:]
    assert [(m["tool_call_id"], m["content"]) for m in sent] == [
        (e.call_id, e.result) for e in resp.tool_events]


@MODES
def test_empty_arguments_mean_no_arguments(mode: str) -> None:
    def ping() -> str:
        return "pong"

    provider = Scripted([[("c1", "ping", "")], "ok"])
    assert run(mode, provider, tools=[ping], max_turns=2).tool_events[0].result == "pong"


@MODES
def test_on_tool_error_raise(mode: str) -> None:
    provider = Scripted([[("c1", "get_weather", {"city": "P"}), ("c2", "boom", {"x": 7})],
                         "never sent"])
    with pytest.raises(ai.ToolExecutionError) as info:
        run(mode, provider, tools=[get_weather, boom], max_turns=3, on_tool_error="raise")
    err = info.value
    assert str(err) == "tool call 'c2' to 'boom' failed: ValueError: boom 7"
    assert err.call_id == "c2" and err.tool_name == "boom"
    assert isinstance(err.__cause__, ValueError)
    partial = err.response
    assert partial.stop_reason is None and len(provider.requests) == 1
    assert [(m.role, m.content) for m in partial.messages[2:]] == [
        ("assistant", None), ("tool", "P: 21C"), ("tool", "Error: ValueError: boom 7")]
    assert [e.is_error for e in partial.tool_events] == [False, True]
    assert partial.usage.total_tokens == 11


@MODES
def test_on_tool_error_raise_covers_denials_and_unknown_tools(mode: str) -> None:
    provider = Scripted([[("c1", "nosuch", {})]])
    with pytest.raises(ai.ToolExecutionError, match="unknown tool 'nosuch'") as info:
        run(mode, provider, tools=[get_weather], max_turns=3, on_tool_error="raise")
    assert info.value.__cause__ is None
    provider = Scripted([[("c1", "get_weather", {"city": "P"})]])
    with pytest.raises(ai.ToolExecutionError, match="denied by policy: read only"):
        run(mode, provider, tools=[get_weather], max_turns=3, on_tool_error="raise",
            tool_policy=ai.DenyAll("read only"))


# --- policies -----------------------------------------------------------------------------


@MODES
def test_policies_allow_and_deny(mode: str) -> None:
    calls: list[str] = []

    def delete_file(path: str) -> str:
        calls.append(path)
        return "deleted"

    script = [[("c1", "get_weather", {"city": "P"}), ("c2", "delete_file", {"path": "/x"})],
              "ok"]

    resp = run(mode, Scripted(script), tools=[get_weather, delete_file], max_turns=2,
               tool_policy=ai.AllowTools(["get_weather"]))
    assert [(e.allowed, e.result) for e in resp.tool_events] == [
        (True, "P: 21C"),
        (False, "Error: tool call denied by policy: tool 'delete_file' is not allowed "
                "(allowed tools: get_weather)")]
    assert resp.tool_events[1].reason == ("tool 'delete_file' is not allowed "
                                          "(allowed tools: get_weather)")
    assert resp.tool_events[1].duration_s == 0.0 and calls == []

    resp = run(mode, Scripted(script), tools=[get_weather, delete_file], max_turns=2,
               tool_policy=ai.DenyAll("read-only mode"))
    assert [e.result for e in resp.tool_events] == [
        "Error: tool call denied by policy: read-only mode"] * 2
    assert calls == []

    resp = run(mode, Scripted(script), tools=[get_weather, delete_file], max_turns=2,
               tool_policy=ai.AllowAll())
    assert [e.result for e in resp.tool_events] == ["P: 21C", "deleted"]
    assert calls == ["/x"]


@MODES
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_require_approval(mode: str, kind: str) -> None:
    asked: list[ai.ToolPolicyContext] = []

    def approve_sync(ctx: ai.ToolPolicyContext) -> bool:
        asked.append(ctx)
        return ctx.arguments["city"] != "Mordor"

    async def approve_async(ctx: ai.ToolPolicyContext) -> Any:
        await asyncio.sleep(0)
        asked.append(ctx)
        return (True if ctx.arguments["city"] != "Mordor"
                else ai.ToolPolicyDecision(False, "too dangerous"))

    callback = approve_sync if kind == "sync" else approve_async
    provider = Scripted([[("c1", "get_weather", {"city": "Paris"}),
                          ("c2", "get_weather", {"city": "Mordor"})], "ok"])
    resp = run(mode, provider, tools=[get_weather], max_turns=2,
               tool_policy=ai.RequireApproval(callback))
    reason = "not approved" if kind == "sync" else "too dangerous"
    assert [e.result for e in resp.tool_events] == [
        "Paris: 21C", f"Error: tool call denied by policy: {reason}"]
    assert [c.call_id for c in asked] == ["c1", "c2"]  # asked in call order


@MODES
def test_policy_callables_and_objects(mode: str) -> None:
    async def async_fn(ctx: ai.ToolPolicyContext) -> bool:
        return ctx.tool_name == "get_weather"

    class Evaluator:
        def evaluate(self, ctx: ai.ToolPolicyContext) -> ai.ToolPolicyDecision:
            return ai.ToolPolicyDecision(ctx.arguments.get("city") == "P", "only P")

    for policy in (lambda ctx: ctx.tool_name == "get_weather", async_fn, Evaluator()):
        provider = Scripted([[("c1", "get_weather", {"city": "P"}), ("c2", "boom", {"x": 1})],
                             "ok"])
        resp = run(mode, provider, tools=[get_weather, boom], max_turns=2, tool_policy=policy)
        assert resp.tool_events[0].result == "P: 21C"
        assert resp.tool_events[1].result.startswith("Error: tool call denied by policy: ")
        assert resp.tool_events[1].allowed is False


@MODES
def test_policy_context_fields(mode: str) -> None:
    seen: list[ai.ToolPolicyContext] = []

    def record(ctx: ai.ToolPolicyContext) -> bool:
        seen.append(ctx)
        return True

    provider = Scripted([[("c1", "get_weather", {"city": "Paris"})],
                         [("c2", "get_weather", {"city": "Rome", "unit": "F"})], "done"])
    run(mode, provider, tools=[get_weather], max_turns=3, tool_policy=record)
    first, second = seen
    assert (first.tool_name, first.arguments, first.call_id, first.turn) == (
        "get_weather", {"city": "Paris"}, "c1", 1)
    assert (second.arguments, second.call_id, second.turn) == (
        {"city": "Rome", "unit": "F"}, "c2", 2)
    assert all(isinstance(m, ai.Message) for m in second.messages)
    assert [m.role for m in first.messages] == ["system", "user", "assistant"]
    assert first.messages[-1].tool_calls[0].id == "c1"
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "tool",
                                                 "assistant"]
    assert second.messages[-1].tool_calls[0].id == "c2"


@MODES
def test_policy_arguments_are_checked_before_validation(mode: str) -> None:
    # policy first, then validation: an invalid call that the policy denies is a denial
    provider = Scripted([[("c1", "get_weather", {"city": 3})], "ok"])
    resp = run(mode, provider, tools=[get_weather], max_turns=2,
               tool_policy=ai.DenyAll("no"))
    assert resp.tool_events[0].result == "Error: tool call denied by policy: no"


@MODES
def test_policy_bad_return_type_raises(mode: str) -> None:
    provider = Scripted([[("c1", "get_weather", {"city": "P"})], "ok"])
    with pytest.raises(TypeError, match="must return True / False"):
        run(mode, provider, tools=[get_weather], max_turns=2, tool_policy=lambda ctx: "yes")


# --- max_turns ----------------------------------------------------------------------------


def looping(n: int) -> Scripted:
    return Scripted([[(f"c{i}", "get_weather", {"city": f"City{i}"})] for i in range(1, n + 1)]
                    + ["final text"])


@MODES
def test_max_turns_return(mode: str) -> None:
    provider = looping(5)
    resp = run(mode, provider, tools=[get_weather], max_turns=2)
    assert resp.stop_reason == "max_turns"
    assert len(provider.requests) == 2
    # the tools of the last allowed turn were executed: a valid history to continue from
    assert [m.role for m in resp.messages[2:]] == ["assistant", "tool", "assistant", "tool"]
    assert resp.messages[-1].content == "City2: 21C"
    assert resp.id == "resp-2" and len(resp.intermediate_responses) == 1


@MODES
def test_max_turns_raise(mode: str) -> None:
    provider = looping(5)
    with pytest.raises(ai.MaxTurnsExceeded, match="max_turns=1") as info:
        run(mode, provider, tools=[get_weather], max_turns=1, on_max_turns="raise")
    partial = info.value.response
    assert partial.stop_reason == "max_turns"
    assert [m.role for m in partial.messages[2:]] == ["assistant", "tool"]
    assert partial.tool_events[0].result == "City1: 21C"


@MODES
def test_max_turns_final_answer(mode: str) -> None:
    provider = Scripted([[("c1", "get_weather", {"city": "A"})],
                         [("c2", "get_weather", {"city": "B"})], "From the results: A, B."])
    resp = run(mode, provider, tools=[get_weather], max_turns=2, on_max_turns="final_answer",
               tool_choice="auto")
    assert resp.stop_reason == "max_turns"
    assert resp.content == "From the results: A, B."
    assert len(provider.requests) == 3
    assert [r.tool_choice for r in provider.requests] == ["auto", "auto", "none"]
    assert provider.requests[2].tools == provider.requests[0].tools  # same tools
    assert [m.role for m in resp.messages[2:]] == [
        "assistant", "tool", "assistant", "tool", "assistant"]
    assert resp.usage.total_tokens == 11 + 22 + 33


@MODES
def test_final_answer_tool_calls_are_not_executed(mode: str) -> None:
    executed = []

    def t(x: int) -> int:
        executed.append(x)
        return x

    provider = Scripted([[("c1", "t", {"x": 1})], [("c2", "t", {"x": 2})]])
    resp = run(mode, provider, tools=[t], max_turns=1, on_max_turns="final_answer")
    assert executed == [1] and resp.stop_reason == "max_turns"
    # c2 is answered (not executed), so resp.messages stays a valid history.
    assert [e.call_id for e in resp.tool_events] == ["c1", "c2"]
    assert resp.tool_events[1].is_error and resp.tool_events[1].duration_s == 0.0
    assert resp.messages[-1].tool_call_id == "c2"


@MODES
def test_max_turns_not_reached_when_answer_arrives(mode: str) -> None:
    provider = Scripted([[("c1", "get_weather", {"city": "A"})], "done"])
    resp = run(mode, provider, tools=[get_weather], max_turns=2, on_max_turns="raise")
    assert resp.stop_reason == "completed"


@MODES
@pytest.mark.parametrize("bad", [0, -1, True, False, "3", 2.0, None.__class__])
def test_max_turns_validated(mode: str, bad: Any) -> None:
    provider = Scripted(["never"])
    with pytest.raises(ValueError, match="max_turns must be an int >= 1"):
        run(mode, provider, tools=[get_weather], max_turns=bad)
    assert provider.requests == []


@MODES
@pytest.mark.parametrize("kwargs, error, match", [
    ({"on_tool_error": "ignore"}, ValueError, "on_tool_error must be one of"),
    ({"on_max_turns": "continue"}, ValueError, "on_max_turns must be one of"),
    ({"max_tool_concurrency": 0}, ValueError, "max_tool_concurrency must be an int >= 1"),
    ({"max_tool_concurrency": True}, ValueError, "max_tool_concurrency"),
    ({"tool_policy": 42}, TypeError, "tool_policy must be None"),
    ({"n": 2}, ai.UnsupportedParameterError, "n > 1 cannot be combined with max_turns"),
])
def test_runner_options_validated(mode: str, kwargs: dict[str, Any], error: type,
                                  match: str) -> None:
    provider = Scripted(["never"])
    with pytest.raises(error, match=match):
        run(mode, provider, tools=[get_weather], max_turns=2, **kwargs)
    assert provider.requests == []


@MODES
def test_dict_schemas_with_max_turns_is_a_clear_error(mode: str) -> None:
    schema = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {}}}}
    provider = Scripted(["never"])
    with pytest.raises(ValueError, match=r"\['lookup'\] are JSON schema dicts with no Python"):
        run(mode, provider, tools=[get_weather, schema], max_turns=2)
    assert provider.requests == []
    # without max_turns the schema is simply sent (manual mode)
    provider = Scripted(["manual"])
    assert run(mode, provider, tools=[schema]).content == "manual"
    assert provider.requests[0].tools == [schema]


@MODES
def test_max_turns_without_tools(mode: str) -> None:
    provider = Scripted(["plain"])
    resp = run(mode, provider, max_turns=1)
    assert resp.stop_reason == "completed" and resp.content == "plain"
    assert provider.requests[0].tools is None


# --- streaming through the runner ---------------------------------------------------------


def test_streamed_run_sync() -> None:
    executed = []

    def note(text: str) -> str:
        executed.append(text)
        return "noted"

    provider = Scripted([[("c1", "note", {"text": "a"}), ("c2", "note", {"text": "b"})],
                         "All noted."])
    client = ai.Client(providers={"s": provider})
    stream = client.chat.completions.create(model="s:m", messages=USER, tools=[note],
                                            max_turns=3, stream=True)
    assert isinstance(stream, ai.Stream)
    turns_seen = []
    with stream:
        for chunk in stream:
            turns_seen.append(chunk.turn)
            if chunk.turn == 2:
                assert executed == ["a", "b"]  # tools ran between the turns
            else:
                assert executed == []
        final = stream.get_final_response()
    assert turns_seen[0] == 1 and turns_seen[-1] == 2 and set(turns_seen) == {1, 2}
    text = "".join(c.choices[0].delta.content or "" for c in stream.chunks
                   if c.turn == 2 and c.choices)
    assert text == "All noted."
    assert final.stop_reason == "completed" and final.content == "All noted."
    assert len(final.intermediate_responses) == 1
    first = final.intermediate_responses[0]
    assert [tc.function.arguments for tc in first.choices[0].message.tool_calls] == [
        '{"text": "a"}', '{"text": "b"}']
    assert final.usage.total_tokens == 11 + 22
    assert [e.result for e in final.tool_events] == ["noted", "noted"]
    assert all(r.stream for r in provider.requests)
    # usage is summed over the turns, so the runner asks for stream usage unless told otherwise
    assert all(r.stream_options == {"include_usage": True} for r in provider.requests)
    assert provider.requests[1].messages[3] == {"role": "tool", "tool_call_id": "c1",
                                                "name": "note", "content": "noted"}


def test_streamed_run_async_with_final_answer() -> None:
    async def main() -> tuple[list[int], ai.ChatCompletionResponse, Scripted]:
        provider = Scripted([[("c1", "get_weather", {"city": "A"})], "Answer."])
        aclient = ai.AsyncClient(providers={"s": provider})
        stream = await aclient.chat.completions.create(
            model="s:m", messages=USER, tools=[get_weather], max_turns=1, stream=True,
            on_max_turns="final_answer")
        assert isinstance(stream, ai.AsyncStream)
        turns = []
        async with stream:
            async for chunk in stream:
                turns.append(chunk.turn)
            final = await stream.get_final_response()
        return turns, final, provider

    turns, final, provider = asyncio.run(main())
    assert sorted(set(turns)) == [1, 2]
    assert final.stop_reason == "max_turns" and final.content == "Answer."
    assert provider.requests[1].tool_choice == "none"
    assert final.tool_events[0].result == "A: 21C"


def test_streamed_run_error_raises_while_iterating() -> None:
    provider = Scripted([[("c1", "boom", {"x": 1})]])
    stream = ai.Client(providers={"s": provider}).chat.completions.create(
        model="s:m", messages=USER, tools=[boom], max_turns=2, stream=True,
        on_tool_error="raise")
    with pytest.raises(ai.ToolExecutionError) as info:
        for _ in stream:
            pass
    assert info.value.response.tool_events[0].result == "Error: ValueError: boom 1"
    assert len(stream.chunks) > 0  # the first turn's chunks stay available


def test_streamed_run_keeps_the_callers_stream_options() -> None:
    provider = Scripted(["hi"])
    stream = ai.Client(providers={"s": provider}).chat.completions.create(
        model="s:m", messages=USER, max_turns=1, stream=True,
        stream_options={"include_usage": False})
    assert stream.get_final_response().content == "hi"
    assert provider.requests[0].stream_options == {"include_usage": False}


def test_stream_closed_early_has_no_final_response() -> None:
    provider = Scripted([[("c1", "get_weather", {"city": "A"})], "never"])
    stream = ai.Client(providers={"s": provider}).chat.completions.create(
        model="s:m", messages=USER, tools=[get_weather], max_turns=2, stream=True)
    next(iter(stream))
    stream.close()
    with pytest.raises(RuntimeError, match="did not finish"):
        stream.get_final_response()
    assert len(provider.requests) == 1


# --- the engine is reusable (agents/turn.py) ----------------------------------------------


def test_engine_extension_points_and_hooks_sync() -> None:
    class StopAfterTools(ToolLoop):
        def after_tools(self, batch: Any) -> Optional[Any]:
            return self.finish("completed")  # e.g. a handoff or a final_result tool

    events: list[str] = []

    class Recorder(RunHooks):
        def on_model_request(self, engine: ToolLoop, action: CallModel) -> None:
            events.append(f"request {action.turn}")

        def on_model_response(self, engine: ToolLoop, response: Any) -> None:
            events.append(f"response {response.id}")

        def on_tool_batch(self, engine: ToolLoop, batch: Any) -> None:
            events.append(f"batch {[c.call_id for c in batch.calls]}")

        def on_tool_result(self, engine: ToolLoop, call: Any) -> None:
            events.append(f"result {call.call_id} {call.result}")

    provider = Scripted([[("c1", "get_weather", {"city": "A"})], "unused"])
    request = ai.ChatRequest(model="m", messages=list(USER),
                             tools=Tools([get_weather]).schemas)
    engine = StopAfterTools(request, Tools([get_weather]), max_turns=3)
    assert list(drive_sync(engine, provider, Recorder())) == []
    assert events == ["request 1", "response resp-1", "batch ['c1']", "result c1 A: 21C"]
    assert engine.result is not None and engine.result.tool_events[0].result == "A: 21C"
    assert len(provider.requests) == 1


def test_engine_async_hooks_may_be_coroutines() -> None:
    chunks: list[int] = []

    class Recorder(RunHooks):
        async def on_chunk(self, engine: ToolLoop, chunk: Any) -> None:
            await asyncio.sleep(0)
            chunks.append(chunk.turn)

    async def main() -> ToolLoop:
        provider = Scripted([[("c1", "get_weather", {"city": "A"})], "ok"])
        tools = Tools([get_weather])
        engine = ToolLoop(ai.ChatRequest(model="m", messages=list(USER), tools=tools.schemas,
                                         stream=True), tools, max_turns=2)
        async for _ in drive_async(engine, provider, Recorder()):
            pass
        return engine

    engine = asyncio.run(main())
    assert isinstance(engine.result, ai.ChatCompletionResponse)
    assert set(chunks) == {1, 2}


def test_engine_steps_without_io() -> None:
    """The engine alone: feed responses, get actions (no provider, no threads)."""
    tools = Tools([get_weather])
    engine = ToolLoop(ai.ChatRequest(model="m", messages=list(USER), tools=tools.schemas),
                      tools, max_turns=2)
    action = engine.start()
    assert isinstance(action, CallModel) and action.turn == 1
    response = Scripted([[("c1", "get_weather", {"city": "A"})]])._next(action.request)
    action = engine.model_responded(response)
    batch = action.batch  # type: ignore[union-attr]
    (call,) = batch.calls
    assert call.runnable and call.kwargs == {"city": "A", "unit": "C"}
    call.succeed("sunny", 0.5)
    action = engine.tools_done(batch)
    assert isinstance(action, CallModel) and action.turn == 2
    assert action.request.messages[-1]["content"] == "sunny"
    action = engine.model_responded(Scripted(["bye"])._next(action.request))
    assert isinstance(action, Finish) and action.response.stop_reason == "completed"
    assert action.response.tool_events[0].duration_s == 0.5
