"""The Agents SDK's Responses-shaped surface on ``Runner``: input items in, input items out
(``to_input_list()``), ``AgentHookContext.turn_input``, ``ToolContext``,
``RunUsage.request_usage_entries`` (kept in a paused run's state), ``last_response_id``,
server-side conversation ids refused before any call, and ``ai.trace``."""

from __future__ import annotations

import json
from typing import Any

import pytest

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call


def scripted(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_input_items_reach_the_model_as_messages() -> None:
    client, provider = scripted("A bison.")
    image = "data:image/jpeg;base64,/9j/4AAQ"
    items = [{"role": "user", "content": [{"type": "input_image", "detail": "auto",
                                           "image_url": image}]},
             {"role": "user", "content": "What do you see in this image?"}]
    agent = ai.Agent("Assistant", "scripted:m", instructions="Be helpful.")
    result = await ai.Runner.run(agent, items, client=client)
    assert provider.requests[0].messages == [
        {"role": "system", "content": "Be helpful."},
        {"role": "user", "content": [{"type": "image_url",
                                      "image_url": {"url": image, "detail": "auto"}}]},
        {"role": "user", "content": "What do you see in this image?"}]
    # the input items come back as given, then what the run produced
    assert result.to_input_list() == [*items, {"role": "assistant", "content": "A bison."}]


async def test_a_previous_runs_items_continue_the_conversation() -> None:
    client, provider = scripted([tool_call("add", {"a": 1, "b": 2}, id="c1")], "3.", "Yes.")
    agent = ai.Agent("Calc", "scripted:m", tools=[add])
    first = await ai.Runner.run(agent, "1+2?", client=client)
    items = first.to_input_list()
    assert [i.get("type", "message") for i in items] == [
        "message", "function_call", "function_call_output", "message"]
    second = await ai.Runner.run(agent, [*items, {"role": "user", "content": "Sure?"}],
                                 client=client)
    assert second.final_output == "Yes."
    assert provider.requests[2].messages == [
        {"role": "user", "content": "1+2?"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "3", "name": "add"},
        {"role": "assistant", "content": "3."}, {"role": "user", "content": "Sure?"}]
    assert first.last_response_id == first.raw_responses[-1].id


@pytest.mark.parametrize("name", ["previous_response_id", "conversation_id"])
async def test_server_side_conversations_are_refused_before_any_call(name: str) -> None:
    client, provider = scripted("never")
    agent = ai.Agent("A", "scripted:m")
    with pytest.raises(ai.UnsupportedParameterError, match=f"{name} continues a conversation"):
        await ai.Runner.run(agent, "hi", client=client, **{name: "resp_1"})
    with pytest.raises(ai.UnsupportedParameterError):
        ai.Runner.run_sync(agent, "hi", client=client, **{name: "resp_1"})
    with pytest.raises(ai.UnsupportedParameterError):
        ai.Runner.run_streamed(agent, "hi", client=client, **{name: "resp_1"})
    assert provider.requests == []


async def test_hook_contexts_carry_the_turn_input_and_the_tool_call() -> None:
    seen: list[Any] = []

    class Hooks(ai.RunHooks[Any]):
        async def on_agent_start(self, context: Any, agent: ai.Agent) -> None:
            assert isinstance(context, ai.AgentHookContext)
            seen.append(("start", context.turn_input, context.context))

        async def on_tool_start(self, context: Any, agent: ai.Agent, tool: Any) -> None:
            assert isinstance(context, ai.ToolContext)
            seen.append(("tool", context.tool_name, context.tool_call_id,
                         json.loads(context.tool_arguments), context.usage.requests))

    client, _ = scripted([tool_call("add", {"a": 2, "b": 3}, id="c9")], "5")
    agent = ai.Agent("Calc", "scripted:m", tools=[add])
    await ai.Runner.run(agent, "2+3?", client=client, hooks=Hooks(), context={"user": "u1"})
    assert seen == [("start", [{"role": "user", "content": "2+3?"}], {"user": "u1"}),
                    ("tool", "add", "c9", {"a": 2, "b": 3}, 1)]


async def test_request_usage_entries_one_per_model_call() -> None:
    usage = [ai.Usage(prompt_tokens=10, completion_tokens=4, total_tokens=14,
                      prompt_tokens_details=ai.PromptTokensDetails(cached_tokens=6)),
             ai.Usage(prompt_tokens=20, completion_tokens=1, total_tokens=21)]
    replies = [ai.ChatCompletionResponse(
        id=f"r{i}", model="m", choices=[ai.Choice(message=message, finish_reason=finish)],
        usage=u) for i, (message, finish, u) in enumerate([
            (ai.Message(role="assistant", tool_calls=[ai.ToolCall(
                id="c1", function=ai.Function(name="add", arguments='{"a":1,"b":1}'))]),
             "tool_calls", usage[0]),
            (ai.Message(role="assistant", content="2"), "stop", usage[1])])]
    client, _ = scripted(*replies)
    result = await ai.Runner.run(ai.Agent("Calc", "scripted:m", tools=[add]), "1+1?",
                                 client=client)
    run_usage = result.context_wrapper.usage
    assert (run_usage.requests, run_usage.input_tokens, run_usage.output_tokens) == (2, 30, 5)
    first, second = run_usage.request_usage_entries
    assert (first.input_tokens, first.output_tokens, first.total_tokens) == (10, 4, 14)
    assert first.input_tokens_details.cached_tokens == 6
    assert (second.input_tokens, second.output_tokens) == (20, 1)


async def test_request_usage_entries_survive_a_paused_runs_state() -> None:
    @ai.function_tool(needs_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    client, _ = scripted([tool_call("delete_file", {"path": "/a"}, id="c1")], "Done.")
    agent = ai.Agent("Files", "scripted:m", tools=[delete_file])
    paused = await ai.Runner.run(agent, "delete /a", client=client)
    state = ai.RunState.from_json(agent, paused.to_state().to_string())
    [entry] = state.context_wrapper.usage.request_usage_entries
    assert entry.input_tokens == paused.raw_responses[0].usage.prompt_tokens
    state.approve(state.get_interruptions()[0])
    resumed = await ai.Runner.run(agent, state, client=client)
    assert len(resumed.context_wrapper.usage.request_usage_entries) == 2


def test_trace_is_a_no_op_when_not_instrumented() -> None:
    with ai.trace("Joke workflow", group_id="conv-1", metadata={"k": "v"}) as t:
        client, _ = scripted("hi")
        result = ai.Runner.run_sync(ai.Agent("A", "scripted:m"), "hi", client=client)
    assert result.final_output == "hi"
    assert t.name == "Joke workflow" and t.trace_id.startswith("trace_")
    t.start()
    t.finish()  # start / finish outside a block work too
    with pytest.raises(ValueError):
        ai.trace("")
