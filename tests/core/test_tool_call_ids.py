"""Unique tool-call ids (docs/reliability.md) through the REAL vendor SDKs, HTTP mocked at
httpcore2: a reply repeating an id, omitting ids, or reusing an id of an earlier turn gets
unique ids before any tool runs and before the caller sees it (manual mode too), and the
results sent back in the next request pair with those ids, for every family, sync and async,
streamed and not."""

from __future__ import annotations

import asyncio
from typing import Any, Optional

import pytest
import respx
from support.tool_wire import FAMILIES, anthropic_sent, bodies, create as _create, mock

import aisuite_like as ai
from aisuite_like.core.ids import unique_tool_call_ids

MESSAGES = [{"role": "user", "content": "Weather in Paris and Rome?"}]
ANSWER = "Sunny in both."

Call = tuple[Optional[str], str, dict[str, Any]]  # (id or None, name, args)

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather of a city."""
    RAN.append(city)
    return f"sunny in {city}"


def _calls(ids: list[Optional[str]]) -> list[Call]:
    cities = ["Paris", "Rome", "Oslo"]
    return [(cid, "get_weather", {"city": cities[i]}) for i, cid in enumerate(ids)]


def create(mode: str, family: str, **kwargs: Any) -> tuple[Any, list[Any]]:
    return _create(mode, family, tools=[get_weather], **kwargs)


def chunk_ids(chunks: list[Any]) -> list[str]:
    return [tc.id for c in chunks for ch in c.choices for tc in ch.delta.tool_calls or ()
            if tc.id is not None]


def assert_unique_and_paired(sent: list[tuple[list[str], list[str]]]) -> list[str]:
    every = [cid for calls, _ in sent for cid in calls]
    assert len(every) == len(set(every)), sent
    assert all(isinstance(cid, str) and cid for cid in every), sent
    for calls, results in sent:
        assert results == calls  # one result per call, in call order, each with its id
    return every


# --- the runner ----------------------------------------------------------------------------

CASES = {
    "duplicate": [_calls(["dup", "dup", "dup"]), ANSWER],
    "missing": [_calls([None, None]), ANSWER],
    "reused_across_turns": [_calls(["c1"]), _calls(["c1"]), ANSWER],
}


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("case", list(CASES))
def test_runner_sends_unique_paired_ids(family: str, mode: str, streamed: bool, case: str,
                                        httpx2_mock: respx.Router) -> None:
    turns = CASES[case]
    route = mock(httpx2_mock, family, streamed, turns)
    RAN.clear()
    resp, chunks = create(mode, family, messages=MESSAGES, max_turns=5, stream=streamed)
    sent = bodies(route)
    assert len(sent) == len(turns)
    every = assert_unique_and_paired(FAMILIES[family]["sent"](sent[-1]))
    n_calls = sum(len(t) for t in turns if not isinstance(t, str))
    assert len(every) == n_calls
    assert len(RAN) == n_calls  # every call ran once: none skipped, none twice
    # the trace and the events carry the same ids, each answered once
    assert [e.call_id for e in resp.tool_events] == every
    assert [tc.id for m in resp.messages if m.tool_calls for tc in m.tool_calls] == every
    assert [m.tool_call_id for m in resp.messages if m.role == "tool"] == every
    if case == "duplicate" and family != "google":
        assert every == ["dup", "dup_2", "dup_3"]  # the first use keeps its id
    if streamed:
        assert chunk_ids(chunks) == every  # what the caller saw pairs with the trace


def test_anthropic_call_without_id_runs_once_and_pairs(httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, "anthropic", False, [_calls([None, "toolu_1"]), ANSWER])
    RAN.clear()
    resp, _ = create("sync", "anthropic", messages=MESSAGES, max_turns=3)
    assert resp.stop_reason == "completed" and resp.content == ANSWER
    assert RAN == ["Paris", "Rome"]
    assert anthropic_sent(bodies(route)[1]) == [(["call_0_0", "toolu_1"],
                                                 ["call_0_0", "toolu_1"])]


# --- manual mode: the caller gets unique ids and can answer them -----------------------------


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_manual_mode_returns_unique_ids_the_caller_can_answer(
        family: str, mode: str, streamed: bool, httpx2_mock: respx.Router) -> None:
    # The conversation already holds a call "dup"; the reply repeats it twice.
    history = [*MESSAGES,
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "dup", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
               {"role": "tool", "tool_call_id": "dup", "name": "get_weather",
                "content": "sunny in Oslo"}]
    route = mock(httpx2_mock, family, streamed, [_calls(["dup", "dup"]), ANSWER])
    resp, chunks = create(mode, family, messages=history, stream=streamed)
    ids = [tc.id for tc in resp.choices[0].message.tool_calls]
    assert len(set(ids)) == 2 and "dup" not in ids
    if family != "google":
        assert ids == ["dup_2", "dup_3"]
    if streamed:
        assert chunk_ids(chunks) == ids
    follow_up = [*history, resp.choices[0].message,
                 *({"role": "tool", "tool_call_id": cid, "name": "get_weather",
                    "content": "sunny"} for cid in ids)]
    create(mode, family, messages=follow_up, stream=streamed)
    sent = FAMILIES[family]["sent"](bodies(route)[1])
    assert assert_unique_and_paired(sent) == ["dup", *ids]


def test_replies_without_calls_are_returned_as_is() -> None:
    resp = ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
        role="assistant", content="hi"))])
    assert unique_tool_call_ids(resp, MESSAGES) is resp


def test_the_reply_object_is_not_modified() -> None:
    call = ai.ToolCall(id="a", function=ai.Function(name="f", arguments="{}"))
    resp = ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
        role="assistant", tool_calls=[call, call.model_copy()]))])
    fixed = unique_tool_call_ids(resp)
    assert [tc.id for tc in fixed.choices[0].message.tool_calls] == ["a", "a_2"]
    assert [tc.id for tc in resp.choices[0].message.tool_calls] == ["a", "a"]


def test_scripted_stream_chunks_are_not_modified() -> None:
    from aisuite_like.core.streaming import ChunkAccumulator
    from aisuite_like.types import (
        ChatCompletionChunk,
        ChoiceDelta,
        ChoiceDeltaFunction,
        ChoiceDeltaToolCall,
        ChunkChoice,
    )

    def chunk(i: int) -> ChatCompletionChunk:
        return ChatCompletionChunk(choices=[ChunkChoice(delta=ChoiceDelta(tool_calls=[
            ChoiceDeltaToolCall(index=i, id="x", function=ChoiceDeltaFunction(
                name="f", arguments="{}"))]))])

    acc = ChunkAccumulator()
    originals = [chunk(0), chunk(1)]
    passed = [acc.add(c) for c in originals]
    assert passed[0] is originals[0]
    assert passed[1].choices[0].delta.tool_calls[0].id == "x_2"
    assert originals[1].choices[0].delta.tool_calls[0].id == "x"
    assert [tc.id for tc in acc.build().choices[0].message.tool_calls] == ["x", "x_2"]


# --- agents: what the hooks see is what the trace holds ---------------------------------------


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_agent_hooks_and_trace_see_the_same_unique_ids(family: str, streamed: bool,
                                                       httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, streamed, [_calls(["dup", "dup"]), ANSWER])
    seen: list[list[str]] = []

    class Hooks(ai.RunHooks):  # type: ignore[misc]
        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
            seen.append([tc.id for tc in response.choices[0].message.tool_calls or ()])

    agent = ai.Agent("w", FAMILIES[family]["model"], tools=[get_weather])
    RAN.clear()

    async def main() -> Any:
        async with ai.AsyncClient(FAMILIES[family]["config"]) as client:
            if not streamed:
                return await ai.Runner.run(agent, "go", client=client, hooks=Hooks())
            final = None
            async for event in ai.Runner.run_streamed(agent, "go", client=client,
                                                      hooks=Hooks()):
                if event.type == "RunCompleted":
                    final = event.result
            return final

    result = asyncio.run(main())
    ids = [e.call_id for e in result.tool_events]
    assert len(set(ids)) == 2 and len(RAN) == 2
    assert seen[0] == ids  # the hook saw the ids the trace holds
    assert assert_unique_and_paired(FAMILIES[family]["sent"](bodies(route)[1])) == ids


def test_what_a_provider_saved_under_a_call_id_follows_the_new_id() -> None:
    """Gemini's thought signatures name their call by id: two calls the model gave one id
    (and a third that keeps its own) keep their own signatures, in order; the caller's
    ``provider_specific_fields`` is not modified."""
    from aisuite_like.core.ids import follow_renamed_ids

    psf = {"thought_signatures": [
        {"part": "function_call", "id": "a", "signature": "first"},
        {"part": "function_call", "id": "a", "signature": "second"},
        {"part": "text", "signature": "of the text"},
        {"part": "function_call", "id": "b", "signature": "third"}], "other": 1}
    before = repr(psf)
    out = follow_renamed_ids(psf, [("a", "a"), ("a", "a_2"), ("b", "b")])
    assert [e.get("id") for e in out["thought_signatures"]] == ["a", "a_2", None, "b"]
    assert [e["signature"] for e in out["thought_signatures"]] == [
        "first", "second", "of the text", "third"]
    assert out["other"] == 1 and repr(psf) == before
    assert follow_renamed_ids(psf, [("a", "a"), ("b", "b")]) is psf
    assert follow_renamed_ids(None, [("a", "a_2")]) is None
