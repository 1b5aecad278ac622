"""``ai.context`` on the wire (docs/context.md): long tool runs through the real openai and
anthropic SDKs against a loopback model (tests/support/model_server.py) that calls a tool on every
turn. What is asserted is what each request the server received held: its size by the
estimate, every tool result with its call and every call with its result."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from support.fault_server import Reply, Request
from support.model_server import ModelServer, chat_reply, streamed, tool_call_reply

import aisuite_like as ai
from aisuite_like.context import estimate_request
from aisuite_like.context.strategies import RunWindow

MODEL = "openai:gpt-4o"
SYSTEM = {"role": "system", "content": "You look things up, one at a time."}
TASK = {"role": "user", "content": "Look up the 40 cities, one per call."}


def lookup(city: str) -> str:
    """Facts about a city."""
    return f"{city}: " + "a long paragraph of facts " * 12


def client_for(server: ModelServer, **options: Any) -> ai.Client:
    return ai.Client({"openai": {"api_key": "sk-test", "base_url": server.url + "/v1",
                                 "max_retries": 0},
                      "groq": {"api_key": "gsk-test", "base_url": server.url + "/v1",
                               "max_retries": 0},
                      "anthropic": {"api_key": "sk-ant-test", "base_url": server.url,
                                    "max_retries": 0}}, **options)


def caller(turns: int, *, summarizer: str = "gpt-4o-mini") -> Any:
    """A model that calls ``lookup`` for ``turns`` turns, then answers; requests for the
    ``summarizer`` model (no tools) are answered with a summary."""
    seen = [0]

    def respond(request: Request) -> Any:
        body = request.body
        if body.get("model") == summarizer or not body.get("tools"):
            return chat_reply(f"summary of {len(body['messages'][-1]['content'])} chars",
                              usage=(200, 20), model=body.get("model", ""))
        seen[0] += 1
        reply = (tool_call_reply(f"call_{seen[0]}", "lookup", {"city": f"city-{seen[0]}"},
                                 usage=(100, 10)) if seen[0] <= turns
                 else chat_reply("all done", usage=(100, 10)))
        return streamed(reply) if request.stream else reply

    return respond


def paired(messages: list[dict[str, Any]]) -> bool:
    """Every tool result follows the assistant message with its call, and every call of an
    assistant message has its result in the same request."""
    open_calls: set[str] = set()
    for message in messages:
        if message["role"] == "assistant":
            if open_calls:
                return False  # a call left without its result
            open_calls = {c["id"] for c in message.get("tool_calls") or ()}
        elif message["role"] == "tool":
            if message["tool_call_id"] not in open_calls:
                return False  # a result without its call
            open_calls.discard(message["tool_call_id"])
        elif open_calls:
            return False
    return not open_calls


def chat_requests(server: ModelServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.body.get("tools")]


# --- Trim ------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_forty_turn_tool_run_stays_under_its_window_on_every_request(stream: bool) -> None:
    window = 1500
    with ModelServer(caller(40)) as server:
        response = client_for(server).chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=41,
            context=ai.context.Trim(window), stream=stream)
        if stream:
            for _ in response:
                pass
            response = response.get_final_response()
    bodies = chat_requests(server)
    assert len(bodies) == 41 and response.stop_reason == "completed"
    for body in bodies:
        assert estimate_request(body["messages"], body["tools"]) <= window
        assert body["messages"][0] == SYSTEM  # kept
        assert paired(body["messages"])
    assert len(bodies[-1]["messages"]) < 40  # the window slid
    # the run's trace is whole: 2 inputs, 40 calls and results, the answer
    assert len(response.messages) == 2 + 40 * 2 + 1
    events = response.context_events
    assert events and all(e.strategy == "trim" and not e.counted for e in events)
    assert all(e.tokens_after <= window < e.tokens_before for e in events)
    assert len({e.turn for e in events}) == len(events)  # one per change


def test_keep_last_turns_sends_at_most_that_many_turns() -> None:
    with ModelServer(caller(6)) as server:
        response = client_for(server).chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=7,
            context=ai.context.Trim(keep_last_turns=2))
    for body in chat_requests(server):
        turns = [m for m in body["messages"][1:] if m["role"] != "tool"]
        assert len(turns) <= 2 and paired(body["messages"])
    assert response.context_events[0].removed >= 1


def test_keep_system_false_lets_the_system_message_go() -> None:
    with ModelServer(caller(4)) as server:
        client_for(server).chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=5,
            context=ai.context.Trim(keep_last_turns=1, keep_system=False))
    assert chat_requests(server)[-1]["messages"][0]["role"] != "system"


def test_the_responses_runner_and_acreate_take_a_context() -> None:
    with ModelServer(caller(5)) as server:
        response = client_for(server).responses.create(
            model="groq:llama-3.3-70b-versatile", input="look them up", tools=[lookup],
            max_turns=6, context=ai.context.Trim(keep_last_turns=2))
    assert response.context_events and response.stop_reason == "completed"


async def test_acreate_takes_a_context() -> None:
    with ModelServer(caller(5)) as server:
        client = ai.AsyncClient({"openai": {"api_key": "sk-test",
                                            "base_url": server.url + "/v1"}})
        response = await client.chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=6,
            context=ai.context.Trim(keep_last_turns=2))
    assert response.context_events
    assert all(paired(b["messages"]) for b in chat_requests(server))


def test_context_needs_a_tool_run_and_a_strategy() -> None:
    client = ai.Client({"openai": {"api_key": "sk-test"}})
    with pytest.raises(ValueError, match="max_turns"):
        client.chat.completions.create(model=MODEL, messages=[TASK],
                                       context=ai.context.Trim(100))
    with pytest.raises(TypeError, match=r"ai\.context"):
        client.chat.completions.create(model=MODEL, messages=[TASK], max_turns=2,
                                       context=lambda m: m)
    for bad in (dict(), dict(max_tokens=0), dict(keep_last_turns=-1)):
        with pytest.raises(ValueError):
            ai.context.Trim(**bad)  # type: ignore[arg-type]


# --- orphan-safe cuts, pure --------------------------------------------------------------------


def _call(i: int, n: int = 1) -> list[dict[str, Any]]:
    calls = [{"id": f"c{i}-{k}", "type": "function",
              "function": {"name": "lookup", "arguments": json.dumps({"city": "x" * 40})}}
             for k in range(n)]
    return [{"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": c["id"], "name": "lookup",
               "content": "y" * 200} for c in calls)]


def test_cuts_fall_between_turns_whatever_the_budget() -> None:
    history = [SYSTEM, TASK, *_call(1, 3), *_call(2, 2), *_call(3, 1),
               {"role": "user", "content": "and now?"}, *_call(4, 4)]
    for limit in range(10, 1200, 7):
        sent = RunWindow(ai.context.Trim(limit)).view(history, 1)
        assert sent[0] == SYSTEM and paired(sent)
        assert sent[-1] == history[-1]  # the newest turn always goes


def test_a_history_that_starts_with_results_of_a_call_already_cut() -> None:
    history = [{"role": "tool", "tool_call_id": "gone", "content": "z" * 400},
               TASK, *_call(1)]
    sent = RunWindow(ai.context.Trim(120, keep_system=False)).view(history, 1)
    assert sent[0]["role"] != "tool" and paired(sent)


def test_the_strategies_are_session_strategies_too() -> None:
    history = [SYSTEM, TASK, *_call(1), *_call(2)]
    assert ai.context.Trim(keep_last_turns=1)(history) == [SYSTEM, *_call(2)]
    assert ai.context.Native()(history) == history
    with pytest.raises(TypeError, match="model call"):
        ai.context.Summarize(when_over=10)(history)


# --- Summarize -------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_summarize_folds_the_oldest_turns_into_a_summary_by_the_chosen_model(
        stream: bool) -> None:
    budget = ai.Budget(1.0)
    with ModelServer(caller(12)) as server:
        response = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=13,
            context=ai.context.Summarize("openai:gpt-4o-mini", when_over=1200,
                                         keep_last_turns=2), stream=stream)
        if stream:
            for _ in response:
                pass
            response = response.get_final_response()
    summaries = [r.body for r in server.requests if r.body["model"] == "gpt-4o-mini"]
    assert summaries, "the summarizer was never called"
    for body in summaries:
        assert "tools" not in body and body["messages"][0]["role"] == "system"
        assert body["max_tokens"] == 1024
    events = [e for e in response.context_events if e.strategy == "summarize"]
    assert len(events) == len(summaries)
    assert all(e.model == "openai:gpt-4o-mini" and e.summary for e in events)
    later = chat_requests(server)[-1]["messages"]
    assert later[0] == SYSTEM and "[Summary of the earlier conversation]" in later[1]["content"]
    assert paired(later)
    assert len(response.messages) == 2 + 12 * 2 + 1  # the trace is whole
    # the summary calls are charged and counted in the run's usage
    assert response.usage.prompt_tokens == 13 * 100 + len(summaries) * 200
    assert budget.spent == pytest.approx(response.usage.cost, rel=1e-6)


def test_summarize_without_a_model_uses_the_run_s_model() -> None:
    with ModelServer(caller(8, summarizer="none")) as server:
        response = client_for(server).chat.completions.create(
            model=MODEL, messages=[SYSTEM, TASK], tools=[lookup], max_turns=9,
            context=ai.context.Summarize(when_over=500))
    folds = [r.body for r in server.requests if not r.body.get("tools")]
    assert folds and all(b["model"] == "gpt-4o" for b in folds)
    assert any(e.strategy == "summarize" for e in response.context_events)


# --- Native ----------------------------------------------------------------------------------


def test_native_sends_anthropic_context_editing() -> None:
    with ModelServer(lambda r: Reply()) as server:
        client_for(server).chat.completions.create(
            model="anthropic:claude-sonnet-4-5", messages=[TASK], tools=[lookup], max_turns=2,
            context=ai.context.Native(trigger_tokens=30_000, keep_tool_uses=2))
    request = server.requests[0]
    assert request.path.endswith("/v1/messages")
    assert request.body["context_management"] == {"edits": [{
        "type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 2},
        "trigger": {"type": "input_tokens", "value": 30_000}}]}
    assert "context-management-2025-06-27" in request.headers["anthropic-beta"]


def test_native_on_openai_chat_is_refused_before_sending() -> None:
    with ModelServer(lambda r: chat_reply()) as server:
        with pytest.raises(ai.UnsupportedFeatureError, match="Responses API"):
            client_for(server).chat.completions.create(
                model=MODEL, messages=[TASK], tools=[lookup], max_turns=2,
                context=ai.context.Native())
    assert server.requests == []


# --- agents ----------------------------------------------------------------------------------


def test_an_agent_session_with_trim_emits_a_context_event_per_change() -> None:
    with ModelServer(caller(10)) as server:
        agent = ai.Agent(name="researcher", model=MODEL, instructions="Look things up.",
                         tools=[lookup])
        session = ai.Session(context_strategy=ai.context.Trim(1000))
        result = ai.Runner.run_sync(agent, "look up ten cities", client=client_for(server),
                                    session=session, max_turns=11)
    assert result.status == "completed"
    changes = [e for e in result.events if isinstance(e, ai.ContextUpdated)]
    assert changes and all(c.event is not None and c.event.strategy == "trim" for c in changes)
    for body in chat_requests(server):
        assert body["messages"][0]["role"] == "system" and paired(body["messages"])
        assert estimate_request(body["messages"], body["tools"]) <= 1000
    assert len(session) == 1 + 10 * 2 + 1  # the session keeps everything
    trace = io.StringIO()
    result.print_trace(file=trace)
    assert "context trim:" in trace.getvalue()


def test_an_agent_session_with_summarize_uses_the_agent_s_model() -> None:
    with ModelServer(caller(8, summarizer="none")) as server:
        agent = ai.Agent(name="researcher", model=MODEL, tools=[lookup])
        session = ai.Session(context_strategy=ai.context.Summarize(when_over=500))
        result = ai.Runner.run_sync(agent, "look up eight cities", client=client_for(server),
                                    session=session, max_turns=9)
    assert result.status == "completed"
    folds = [r.body for r in server.requests if not r.body.get("tools")]
    assert folds and all(b["model"] == "gpt-4o" for b in folds)
    assert any(isinstance(e, ai.ContextUpdated) and e.event is not None
               and e.event.strategy == "summarize" for e in result.events)


def test_native_compaction_on_the_openai_responses_runner() -> None:
    from support.model_server import responses_reply, responses_tool_call_reply

    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"}
    seen: list[int] = []

    def respond(request: Request) -> Any:
        seen.append(1)
        if len(seen) == 1:
            reply = responses_tool_call_reply("call_1", "lookup", {"city": "Paris"})
            assert isinstance(reply.body, dict)
            reply.body["output"].insert(0, compaction)  # the provider compacted
            return reply
        return responses_reply("done")

    with ModelServer(respond) as server:
        response = client_for(server).responses.create(
            model=MODEL, input="look it up", tools=[lookup], max_turns=3,
            context=ai.context.Native(trigger_tokens=50_000))
    first, second = (r.body for r in server.requests)
    assert first["context_management"] == [{"type": "compaction",
                                            "compact_threshold": 50_000}]
    assert compaction in second["input"]  # the compaction item goes back as it came
    native = [e for e in response.context_events if e.strategy == "native"]
    assert len(native) == 1 and native[0].turn == 1 and native[0].counted


def test_native_records_the_edits_anthropic_reports() -> None:
    from support.fault_server import success_body

    body = success_body("anthropic", "done", "claude-sonnet-4-5")
    body["context_management"] = {"applied_edits": [{
        "type": "clear_tool_uses_20250919", "cleared_tool_uses": 4,
        "cleared_input_tokens": 12_000}]}
    with ModelServer(lambda r: Reply(body=body)) as server:
        response = client_for(server).chat.completions.create(
            model="anthropic:claude-sonnet-4-5", messages=[TASK], tools=[lookup],
            max_turns=2, context=ai.context.Native())
    (event,) = response.context_events
    assert (event.strategy, event.removed, event.tokens_before, event.counted) == (
        "native", 4, 12_000, True)
    assert "trigger" not in server.requests[0].body["context_management"]["edits"][0]
