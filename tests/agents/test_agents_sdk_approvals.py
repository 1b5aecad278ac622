"""Approvals that pause a run: needs_approval (bool or callable) and a deferring
RequireApproval stop the run with result.interruptions; RunState approve / reject resumes it,
also from JSON text after every object of the first run is gone. Semantics on the scripted
provider; the resumed conversation also on the real openai SDK's wire (HTTP mocked at
httpcore2)."""

from __future__ import annotations

import gc
import json
import weakref
from typing import Any

import httpx
import pytest

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
DELETED: list[str] = []


def scripted(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@ai.function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    DELETED.append(path)
    return f"deleted {path}"


def build_agents() -> ai.Agent:
    """The same agent definitions, as a new process would build them."""
    return ai.Agent("File assistant", "scripted:m", tools=[get_weather, delete_file])


@pytest.fixture(autouse=True)
def _clean() -> None:
    DELETED.clear()


async def test_a_tool_needing_approval_pauses_the_run_and_resumes_approved() -> None:
    client, _ = scripted([tool_call("get_weather", {"city": "Oslo"}, id="c1"),
                          tool_call("delete_file", {"path": "/tmp/a"}, id="c2")],
                         "Done: sunny, and deleted.")
    agent = build_agents()
    result = await ai.Runner.run(agent, "weather in Oslo, then delete /tmp/a", client=client)
    assert result.status == "interrupted" and result.final_output is None
    [item] = result.interruptions
    assert isinstance(item, ai.ToolApprovalItem) and item.agent is agent
    assert (item.name, item.arguments, item.call_id) == ("delete_file", '{"path": "/tmp/a"}',
                                                          "c2")
    assert DELETED == []  # not run; the other call of the same reply did run
    assert [e.type for e in result.events][-3:] == ["ToolCallRequestEvent",
                                                    "ToolCallExecutionEvent", "RunCompleted"]
    state = result.to_state()
    assert [i.call_id for i in state.get_interruptions()] == ["c2"]
    state.approve(item)
    assert state.get_interruptions() == []
    resumed = await ai.Runner.run(agent, state, client=client)
    assert resumed.status == "completed" and resumed.final_output == "Done: sunny, and deleted."
    assert DELETED == ["/tmp/a"]
    assert [(m.role, m.content) for m in resumed.new_messages[1:3]] == [
        ("tool", "sunny in Oslo"), ("tool", "deleted /tmp/a")]  # in call order
    assert [(e.name, e.allowed, e.reason) for e in resumed.tool_events] == [
        ("get_weather", True, None), ("delete_file", True, "approved by a person")]
    assert resumed.run_id == result.run_id
    assert resumed.context_wrapper.usage.requests == 2
    executed = [e.tool_name for e in resumed.events if e.type == "ToolCallExecutionEvent"]
    assert executed == ["delete_file"]  # get_weather was reported by the first part


async def test_rejected_calls_get_an_error_result_and_the_model_goes_on() -> None:
    client, provider = scripted([tool_call("delete_file", {"path": "/a"}, id="c1"),
                                 tool_call("delete_file", {"path": "/b"}, id="c2")],
                                "Nothing deleted.")
    agent = build_agents()
    result = await ai.Runner.run(agent, "delete /a and /b", client=client)
    state = result.to_state()
    first, second = result.interruptions
    state.reject(first)
    state.reject(second, rejection_message="The user said no to /b.")
    resumed = await ai.Runner.run(agent, state, client=client)
    assert resumed.final_output == "Nothing deleted." and DELETED == []
    sent = provider.requests[-1].messages
    assert sent[-2:] == [
        {"role": "tool", "tool_call_id": "c1", "name": "delete_file",
         "content": "Error: Tool execution was not approved."},
        {"role": "tool", "tool_call_id": "c2", "name": "delete_file",
         "content": "Error: The user said no to /b."}]
    assert [(e.allowed, e.is_error) for e in resumed.tool_events] == [(False, True)] * 2


async def test_an_undecided_call_pauses_again_and_always_approve_sticks() -> None:
    client, _ = scripted([tool_call("delete_file", {"path": "/a"}, id="c1"),
                          tool_call("delete_file", {"path": "/b"}, id="c2")],
                         [tool_call("delete_file", {"path": "/c"}, id="c3")], "all gone")
    agent = build_agents()
    result = await ai.Runner.run(agent, "delete three files", client=client)
    state = result.to_state()
    state.approve(result.interruptions[0])  # c2 left undecided
    again = await ai.Runner.run(agent, state, client=client)
    assert again.status == "interrupted" and DELETED == ["/a"]
    assert [i.call_id for i in again.interruptions] == ["c2"]
    state = again.to_state()
    state.approve(again.interruptions[0], always_approve=True)
    final = await ai.Runner.run(agent, state, client=client)
    assert final.final_output == "all gone" and DELETED == ["/a", "/b", "/c"]
    with pytest.raises(ValueError, match="waits for approval"):
        state.approve("c9")
    with pytest.raises(ValueError, match="interrupted"):
        final.to_state()


async def test_needs_approval_callables_sync_and_async() -> None:
    seen: list[Any] = []

    def only_root(ctx: ai.RunContextWrapper[dict], args: dict[str, Any]) -> bool:
        seen.append((ctx.context["user"], args))
        return args["path"].startswith("/root")

    async def by_call_id(ctx: Any, args: dict[str, Any], call_id: str) -> bool:
        return call_id == "c2"

    def remove(path: str) -> str:
        """Remove a path."""
        DELETED.append(path)
        return "ok"

    for rule, expect_waiting in ((only_root, ["c2"]), (by_call_id, ["c2"])):
        DELETED.clear()
        tool = ai.function_tool(remove, needs_approval=rule)
        client, _ = scripted([tool_call("remove", {"path": "/tmp/x"}, id="c1"),
                              tool_call("remove", {"path": "/root/y"}, id="c2")], "ok")
        agent = ai.Agent("A", "scripted:m", tools=[tool])
        result = await ai.Runner.run(agent, "clean up", client=client, context={"user": "ada"})
        assert [i.call_id for i in result.interruptions] == expect_waiting
        assert DELETED == ["/tmp/x"]
    assert seen == [("ada", {"path": "/tmp/x"}), ("ada", {"path": "/root/y"})]


async def test_a_deferring_require_approval_policy_pauses_too() -> None:
    client, _ = scripted([tool_call("get_weather", {"city": "Rome"}, id="c1")], "Sunny.")
    agent = ai.Agent("A", "scripted:m", tools=[get_weather],
                     tool_policy=ai.RequireApproval())
    result = await ai.Runner.run(agent, "weather?", client=client)
    assert [i.name for i in result.interruptions] == ["get_weather"]
    state = result.to_state()
    state.approve(result.interruptions[0])
    assert (await ai.Runner.run(agent, state, client=client)).final_output == "Sunny."

    def decide(ctx: ai.ToolPolicyContext) -> Any:
        return ai.ToolPolicyDecision.defer() if ctx.arguments["city"] == "Rome" else True

    # The plain tool runner cannot wait: a deferred call is answered as denied.
    client, _ = scripted([tool_call("get_weather", {"city": "Rome"})], "ok")
    resp = client.chat.completions.create(model="scripted:m", messages=[
        {"role": "user", "content": "x"}], tools=[get_weather], max_turns=2,
        tool_policy=ai.RequireApproval(decide))
    event = resp.tool_events[0]
    assert event.is_error and "cannot wait" in event.result and "ai.Agent" in event.result


async def test_resume_from_json_text_after_every_object_is_gone() -> None:
    client, _ = scripted([tool_call("get_weather", {"city": "Oslo"}, id="c1"),
                          tool_call("delete_file", {"path": "/tmp/a"}, id="c2")])
    agent = build_agents()
    result = await ai.Runner.run(agent, "weather, then delete", client=client,
                                 context={"user": "ada", "tickets": [1, 2]})
    text = result.to_state().to_string()
    probes = [weakref.ref(x) for x in (agent, result, client)]
    del agent, result, client
    gc.collect()
    assert all(p() is None for p in probes)  # nothing of the first run survives but text

    data = json.loads(text)
    assert data["$schemaVersion"] == "1" and data["current_agent"] == "File assistant"
    agent = build_agents()
    state = await ai.RunState.from_json(agent, text)  # awaitable, like the SDK's
    assert state.context_wrapper.context == {"user": "ada", "tickets": [1, 2]}
    [item] = state.get_interruptions()
    assert (item.name, item.call_id, item.agent is agent) == ("delete_file", "c2", True)
    state.approve(item)
    client, provider = scripted("Sunny, and /tmp/a is deleted.")
    resumed = await ai.Runner.run(agent, state, client=client)
    assert resumed.final_output == "Sunny, and /tmp/a is deleted." and DELETED == ["/tmp/a"]
    sent = provider.requests[0].messages
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert [m["content"] for m in sent[2:]] == ["sunny in Oslo", "deleted /tmp/a"]
    assert resumed.context_wrapper.usage.requests == 2
    assert [m.role for m in resumed.new_messages] == ["assistant", "tool", "tool", "assistant"]
    assert resumed.to_input_list()[0] == {"role": "user", "content": "weather, then delete"}


def test_from_json_checks_version_agent_and_context() -> None:
    client, _ = scripted([tool_call("delete_file", {"path": "/a"}, id="c1")])
    agent = build_agents()
    result = ai.Runner.run_sync(agent, "delete", client=client, context={"k": 1})
    data = result.to_state().to_json()
    with pytest.raises(ValueError, match="schema version"):
        ai.RunState.from_json(agent, {**data, "$schemaVersion": "99"})
    with pytest.raises(ValueError, match="not a run state"):
        ai.RunState.from_json(agent, {"foo": 1})
    with pytest.raises(ValueError, match="not valid JSON"):
        ai.RunState.from_json(agent, "{nope")
    with pytest.raises(ValueError, match="started by agent"):
        ai.RunState.from_json(ai.Agent("Other", "scripted:m"), data)
    state = ai.RunState.from_json(agent, json.dumps(data), context_override={"k": 2})
    assert state.context_wrapper.context == {"k": 2}
    with pytest.raises(ValueError, match="resume it with that agent"):
        ai.Runner.run_sync(ai.Agent("Other", "scripted:m"), state, client=client)

    class Opaque:
        pass

    result = ai.Runner.run_sync(agent, "delete", client=scripted(
        [tool_call("delete_file", {"path": "/a"})])[0], context=Opaque())
    with pytest.raises(TypeError, match="context_serializer"):
        result.to_state().to_json()
    raw = result.to_state().to_json(context_serializer=lambda c: "opaque")
    state = ai.RunState.from_json(agent, raw, context_deserializer=lambda d: (d, "rebuilt"))
    assert state.context_wrapper.context == ("opaque", "rebuilt")


async def test_a_pause_inside_a_handoff_target_resumes_from_json() -> None:
    admin = ai.Agent("Admin agent", "scripted:m", tools=[delete_file])
    triage = ai.Agent("Triage", "scripted:m", handoffs=[admin])
    client, _ = scripted([tool_call("transfer_to_admin_agent")],
                         [tool_call("delete_file", {"path": "/x"}, id="d1")])
    result = await ai.Runner.run(triage, "delete /x", client=client)
    assert result.interruptions[0].agent is admin and result.last_agent is admin
    text = result.to_state().to_string()
    fresh_admin = ai.Agent("Admin agent", "scripted:m", tools=[delete_file])
    fresh_triage = ai.Agent("Triage", "scripted:m", handoffs=[fresh_admin])
    state = ai.RunState.from_string(fresh_triage, text)
    assert state.get_interruptions()[0].agent is fresh_admin
    state.approve(state.get_interruptions()[0])
    client, _ = scripted("Deleted /x.")
    resumed = await ai.Runner.run(fresh_triage, state, client=client)
    assert resumed.last_agent is fresh_admin and resumed.final_output == "Deleted /x."
    assert [i.type for i in resumed.new_items] == [
        "handoff_call_item", "handoff_output_item", "tool_call_item", "tool_call_output_item",
        "message_output_item"]
    assert [i.agent.name for i in resumed.new_items] == ["Triage", "Triage", "Admin agent",
                                                         "Admin agent", "Admin agent"]


async def test_a_streamed_run_reports_the_approval_request() -> None:
    client, _ = scripted([tool_call("delete_file", {"path": "/s"}, id="s1")], "ok")
    agent = build_agents()
    streamed = ai.Runner.run_streamed(agent, "delete /s", client=client)
    names = [e.name async for e in streamed.stream_events() if e.type == "run_item_stream_event"]
    assert names == ["tool_called", "tool_approval_requested"]
    assert [i.call_id for i in streamed.interruptions] == ["s1"]
    state = streamed.to_state()
    state.approve(streamed.interruptions[0])
    streamed = ai.Runner.run_streamed(agent, state, client=client)
    names = [e.name async for e in streamed.stream_events() if e.type == "run_item_stream_event"]
    assert names == ["tool_output", "message_output_created"] and DELETED == ["/s"]


async def test_session_receives_the_run_once_it_resumes_and_ends() -> None:
    client, _ = scripted([tool_call("delete_file", {"path": "/q"}, id="q1")], "done")
    agent = build_agents()
    session = ai.Session([{"role": "user", "content": "earlier"}])
    result = await ai.Runner.run(agent, "delete /q", client=client, session=session)
    assert len(session) == 1  # a paused run has not ended: nothing recorded yet
    state = result.to_state()
    state.approve(result.interruptions[0])
    await ai.Runner.run(agent, state, client=client, session=session)
    assert [m.role for m in session.messages] == ["user", "user", "assistant", "tool",
                                                  "assistant"]


async def test_resume_on_the_openai_wire(httpx2_mock: Any) -> None:
    def reply(text: Any = None, calls: Any = None) -> httpx.Response:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [{"id": cid, "type": "function", "function": {
                "name": name, "arguments": json.dumps(args)}} for cid, name, args in calls]
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})

    route = httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        reply(calls=[("call_a", "get_weather", {"city": "Oslo"}),
                     ("call_b", "delete_file", {"path": "/w"})]),
        reply("All done.")])
    agent = ai.Agent("Wire agent", "openai:gpt-4o", tools=[get_weather, delete_file])
    client = ai.Client({"openai": {"api_key": "sk-wire", "max_retries": 0}})
    result = await ai.Runner.run(agent, "go", client=client)
    assert len(route.calls) == 1
    text = result.to_state().to_string()
    state = ai.RunState.from_string(agent, text)
    state.approve(state.get_interruptions()[0])
    resumed = await ai.Runner.run(agent, state, client=client)
    assert resumed.final_output == "All done."
    body = json.loads(route.calls[1].request.content)
    assert body["messages"][1]["tool_calls"][1]["id"] == "call_b"
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny in Oslo"},
        {"role": "tool", "tool_call_id": "call_b", "content": "deleted /w"}]
    assert resumed.usage.total_tokens == 10


async def test_resume_on_the_anthropic_wire(httpx2_mock: Any) -> None:
    def reply(text: Any = None, calls: Any = None) -> httpx.Response:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": cid, "name": name, "input": args}
                    for cid, name, args in calls or ()]
        return httpx.Response(200, json={
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": content, "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 4, "output_tokens": 2}})

    route = httpx2_mock.post("https://api.anthropic.com/v1/messages").mock(side_effect=[
        reply("Checking.", calls=[("toolu_a", "delete_file", {"path": "/1"}),
                                  ("toolu_b", "get_weather", {"city": "Bergen"})]),
        reply("Rain in Bergen; /1 kept.")])
    agent = ai.Agent("Claude files", "anthropic:claude-sonnet-4-6",
                     tools=[get_weather, delete_file])
    client = ai.Client({"anthropic": {"api_key": "sk-ant-wire", "max_retries": 0}})
    result = await ai.Runner.run(agent, "go", client=client)
    state = ai.RunState.from_string(agent, result.to_state().to_string())
    state.reject(state.get_interruptions()[0], rejection_message="Keep /1.")
    resumed = await ai.Runner.run(agent, state, client=client)
    assert resumed.final_output == "Rain in Bergen; /1 kept." and DELETED == []
    body = json.loads(route.calls[1].request.content)
    assert body["messages"][1]["content"][0] == {"type": "text", "text": "Checking."}
    results = body["messages"][2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [
        ("tool_result", "toolu_a"), ("tool_result", "toolu_b")]
    assert json.dumps(results[0]).count("Error: Keep /1.") == 1
    assert json.dumps(results[1]).count("sunny in Bergen") == 1
