"""The OpenAI Agents SDK's run flow on our Runner: guardrails, lifecycle hooks, handoff() with
its options and filters, typed run items, to_input_list(), and the SDK's stream events beside
our own. Semantics on the scripted provider; the handoff filter also on the real openai SDK's
wire (HTTP mocked at httpcore2)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import aisuite_like as ai
from aisuite_like.testing import FunctionProvider, ScriptedProvider, tool_call

OPENAI_URL = "https://api.openai.com/v1/chat/completions"


def scripted(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


# --- guardrails ----------------------------------------------------------------------------


class Homework(BaseModel):
    is_homework: bool
    reasoning: str


@ai.input_guardrail
async def homework_guardrail(ctx: ai.RunContextWrapper[Any], agent: ai.Agent,
                             input: Any) -> ai.GuardrailFunctionOutput:
    text = input if isinstance(input, str) else json.dumps(input)
    info = Homework(is_homework="homework" in text, reasoning="keyword")
    return ai.GuardrailFunctionOutput(output_info=info, tripwire_triggered=info.is_homework)


async def test_input_guardrail_passes_and_its_result_is_reported() -> None:
    client, _ = scripted("Paris.")
    agent = ai.Agent("Tutor", "scripted:m", input_guardrails=[homework_guardrail])
    result = await ai.Runner.run(agent, "Capital of France?", client=client)
    assert result.final_output == "Paris."
    [report] = result.input_guardrail_results
    assert report.guardrail is homework_guardrail and not report.output.tripwire_triggered


async def test_parallel_input_guardrail_cancels_the_first_model_call() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow_model(messages: Any, tools: Any, **kwargs: Any) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    @ai.input_guardrail
    async def trip_when_model_started(ctx: Any, agent: Any, input: Any
                                      ) -> ai.GuardrailFunctionOutput:
        await started.wait()  # proves the two run side by side
        return ai.GuardrailFunctionOutput(output_info={"why": "no"}, tripwire_triggered=True)

    client = ai.Client(providers={"slow": FunctionProvider(slow_model)})
    session = ai.Session()
    agent = ai.Agent("A", "slow:m", input_guardrails=[trip_when_model_started])
    with pytest.raises(ai.InputGuardrailTripwireTriggered) as info:
        await asyncio.wait_for(ai.Runner.run(agent, "do my homework", client=client,
                                             session=session), 10)
    assert cancelled.is_set()
    assert info.value.guardrail_result.output.output_info == {"why": "no"}
    assert "trip_when_model_started" in str(info.value)
    assert len(session) == 0  # a run that raises leaves the session unchanged


async def test_no_tool_runs_before_parallel_guardrails_pass() -> None:
    ran: list[str] = []
    release = asyncio.Event()

    def side_effect() -> str:
        """Do something irreversible."""
        ran.append("tool")
        return "done"

    @ai.input_guardrail
    async def late_trip(ctx: Any, agent: Any, input: Any) -> ai.GuardrailFunctionOutput:
        await release.wait()
        return ai.GuardrailFunctionOutput(output_info=None, tripwire_triggered=True)

    client, _ = scripted([tool_call("side_effect")], "ok")
    agent = ai.Agent("A", "scripted:m", tools=[side_effect], input_guardrails=[late_trip])
    task = asyncio.ensure_future(ai.Runner.run(agent, "go", client=client))
    await asyncio.sleep(0.2)  # the model replied with the tool call; the guardrail still runs
    assert ran == []
    release.set()
    with pytest.raises(ai.InputGuardrailTripwireTriggered):
        await task
    assert ran == []


async def test_blocking_input_guardrail_runs_before_any_model_call() -> None:
    client, provider = scripted("never used")

    @ai.input_guardrail(run_in_parallel=False, name="blocker")
    def blocker(ctx: Any, agent: Any, input: Any) -> ai.GuardrailFunctionOutput:  # sync
        return ai.GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    agent = ai.Agent("A", "scripted:m", input_guardrails=[blocker])
    with pytest.raises(ai.InputGuardrailTripwireTriggered, match="blocker"):
        await ai.Runner.run(agent, "hi", client=client)
    assert provider.requests == []


async def test_output_guardrail_trips_on_the_final_output() -> None:
    class Answer(BaseModel):
        text: str

    @ai.output_guardrail
    def no_secrets(ctx: Any, agent: ai.Agent, output: Answer) -> ai.GuardrailFunctionOutput:
        return ai.GuardrailFunctionOutput(output_info={"agent": agent.name},
                                          tripwire_triggered="secret" in output.text)

    agent = ai.Agent("A", "scripted:m", output_type=Answer, output_guardrails=[no_secrets])
    client, _ = scripted(tool_call("final_result", {"text": "all fine"}))
    result = await ai.Runner.run(agent, "hi", client=client)
    assert result.output_guardrail_results[0].agent_output == Answer(text="all fine")
    client, _ = scripted(tool_call("final_result", {"text": "the secret is 42"}))
    with pytest.raises(ai.OutputGuardrailTripwireTriggered) as info:
        await ai.Runner.run(agent, "hi", client=client)
    assert info.value.guardrail_result.output.output_info == {"agent": "A"}
    with pytest.raises(TypeError, match="input_guardrail"):
        ai.Agent("A", "scripted:m", input_guardrails=[lambda *a: None])


# --- hooks ---------------------------------------------------------------------------------


class RecordingRunHooks(ai.RunHooks):
    def __init__(self) -> None:
        self.log: list[str] = []

    async def on_agent_start(self, context: Any, agent: ai.Agent) -> None:
        self.log.append(f"agent_start {agent.name}")

    async def on_agent_end(self, context: Any, agent: ai.Agent, output: Any) -> None:
        self.log.append(f"agent_end {agent.name} {output}")

    def on_handoff(self, context: Any, from_agent: ai.Agent, to_agent: ai.Agent) -> None:
        self.log.append(f"handoff {from_agent.name}->{to_agent.name}")  # a sync hook

    async def on_tool_start(self, context: Any, agent: ai.Agent, tool: Any) -> None:
        self.log.append(f"tool_start {tool.name}")

    async def on_tool_end(self, context: Any, agent: ai.Agent, tool: Any, result: str) -> None:
        self.log.append(f"tool_end {tool.name}={result}")

    async def on_llm_start(self, context: Any, agent: ai.Agent, system_prompt: Any,
                           input_items: list[Any]) -> None:
        self.log.append(f"llm_start {agent.name} {system_prompt} {len(input_items)}")

    async def on_llm_end(self, context: Any, agent: ai.Agent, response: Any) -> None:
        self.log.append(f"llm_end {agent.name} usage={context.usage.requests}")


class RecordingAgentHooks(ai.AgentHooks):
    def __init__(self) -> None:
        self.log: list[str] = []

    def on_start(self, context: Any, agent: ai.Agent) -> None:
        self.log.append(f"start {agent.name}")

    async def on_handoff(self, context: Any, agent: ai.Agent, source: ai.Agent) -> None:
        self.log.append(f"handoff from {source.name}")

    async def on_end(self, context: Any, agent: ai.Agent, output: Any) -> None:
        self.log.append(f"end {output}")


async def test_run_and_agent_hooks_in_order() -> None:
    billing_hooks = RecordingAgentHooks()
    billing = ai.Agent("Billing agent", "scripted:m", instructions="Refunds.", tools=[add],
                       hooks=billing_hooks)
    triage = ai.Agent("Triage", "scripted:m", instructions="Route.", handoffs=[billing])
    client, _ = scripted([tool_call("transfer_to_billing_agent")],
                         [tool_call("add", {"a": 2, "b": 3})], "5 EUR refunded")
    hooks = RecordingRunHooks()
    result = await ai.Runner.run(triage, "refund", client=client, hooks=hooks)
    assert result.final_output == "5 EUR refunded"
    assert hooks.log == [
        "agent_start Triage", "llm_start Triage Route. 1", "llm_end Triage usage=1",
        "handoff Triage->Billing agent", "agent_start Billing agent",
        "llm_start Billing agent Refunds. 3", "llm_end Billing agent usage=2",
        "tool_start add", "tool_end add=5",
        "llm_start Billing agent Refunds. 5", "llm_end Billing agent usage=3",
        "agent_end Billing agent 5 EUR refunded"]
    assert billing_hooks.log == ["handoff from Triage", "start Billing agent",
                                 "end 5 EUR refunded"]
    with pytest.raises(TypeError, match="RunHooks"):
        await ai.Runner.run(triage, "x", client=client, hooks=object())


async def test_a_raising_hook_aborts_the_run() -> None:
    class Broken(ai.RunHooks):
        async def on_llm_start(self, *args: Any) -> None:
            raise RuntimeError("hook failed")

    client, _ = scripted("x")
    with pytest.raises(RuntimeError, match="hook failed"):
        await ai.Runner.run(ai.Agent("A", "scripted:m"), "hi", client=client, hooks=Broken())


# --- handoff() -----------------------------------------------------------------------------


class Escalation(BaseModel):
    reason: str


async def test_handoff_with_input_type_on_handoff_and_overrides() -> None:
    seen: list[Any] = []

    async def on_escalate(ctx: ai.RunContextWrapper[dict], data: Escalation) -> None:
        seen.append((ctx.context["user"], data))

    manager = ai.Agent("Manager", "scripted:m")
    front = ai.Agent("Front desk", "scripted:m", handoffs=[ai.handoff(
        manager, tool_name_override="escalate", tool_description_override="Escalate it.",
        on_handoff=on_escalate, input_type=Escalation)])
    client, provider = scripted([tool_call("escalate", {"wrong": 1})],
                                [tool_call("escalate", {"reason": "angry"})], "Manager here.")
    result = await ai.Runner.run(front, "I want a manager", client=client,
                                 context={"user": "Ada"})
    assert result.final_output == "Manager here." and result.last_agent is manager
    tool = provider.requests[0].tools[0]["function"]
    assert tool["name"] == "escalate" and tool["description"] == "Escalate it."
    assert tool["parameters"]["properties"] == {"reason": {"type": "string"}}
    assert result.tool_events[0].is_error  # invalid input: no handoff, the model retries
    assert seen == [("Ada", Escalation(reason="angry"))]
    with pytest.raises(ValueError, match="two arguments"):
        ai.handoff(manager, on_handoff=lambda ctx: None, input_type=Escalation)
    with pytest.raises(ValueError, match="on_handoff"):
        ai.handoff(manager, input_type=Escalation)
    with pytest.raises(ValueError, match="one argument"):
        ai.handoff(manager, on_handoff=lambda ctx, x: None)


async def test_a_failing_on_handoff_is_an_error_result_and_no_handoff() -> None:
    def refuse(ctx: Any) -> None:
        raise RuntimeError("manager is out")

    manager = ai.Agent("Manager", "scripted:m")
    front = ai.Agent("Front", "scripted:m", handoffs=[ai.handoff(manager, on_handoff=refuse)])
    client, _ = scripted([tool_call("transfer_to_manager")], "I will help myself.")
    result = await ai.Runner.run(front, "manager!", client=client)
    assert result.last_agent is front
    assert result.tool_events[0].result == "Error: RuntimeError: manager is out"


async def test_handoff_input_filter_remove_all_tools_on_the_wire(httpx2_mock: Any) -> None:
    def reply(text: Any = None, calls: Any = None) -> httpx.Response:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [{"id": cid, "type": "function", "function": {
                "name": name, "arguments": json.dumps(args)}} for cid, name, args in calls]
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    route = httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        reply(calls=[("c1", "add", {"a": 1, "b": 2})]),
        reply("Let me pass you on.", calls=[("c2", "transfer_to_faq_agent", {})]),
        reply("FAQ: 3.")])
    faq = ai.Agent("FAQ agent", "openai:gpt-4o", instructions="Answer FAQs.")
    triage = ai.Agent("Triage", "openai:gpt-4o", tools=[add], handoffs=[
        ai.handoff(faq, input_filter=ai.handoff_filters.remove_all_tools)])
    session = ai.Session([{"role": "user", "content": "earlier"}])
    client = ai.Client({"openai": {"api_key": "sk-x", "max_retries": 0}})
    result = await ai.Runner.run(triage, "1+2?", client=client, session=session)
    assert result.final_output == "FAQ: 3." and result.last_agent is faq
    last = json.loads(route.calls[2].request.content)["messages"]
    assert last == [{"role": "system", "content": "Answer FAQs."},
                    {"role": "user", "content": "earlier"}, {"role": "user", "content": "1+2?"},
                    {"role": "assistant", "content": "Let me pass you on."}]
    # the run's own record keeps everything (new_items, new_messages, the session)
    assert [i.type for i in result.new_items] == [
        "tool_call_item", "tool_call_output_item", "message_output_item", "handoff_call_item",
        "handoff_output_item", "message_output_item"]
    assert len(session) == 2 + 5


async def test_a_custom_async_input_filter_and_its_data() -> None:
    seen: dict[str, Any] = {}

    async def keep_last_user_only(data: ai.HandoffInputData) -> ai.HandoffInputData:
        seen["history"] = data.input_history
        seen["pre"] = [i.type for i in data.pre_handoff_items]
        seen["new"] = [i.type for i in data.new_items]
        seen["ctx"] = data.run_context.context
        return data.clone(input_history=data.input_history[-1:], pre_handoff_items=(),
                          new_items=())

    second = ai.Agent("Second", "scripted:m")
    first = ai.Agent("First", "scripted:m", tools=[add], handoffs=[
        ai.handoff(second, input_filter=keep_last_user_only)])
    client, provider = scripted([tool_call("add", {"a": 1, "b": 1})],
                                [tool_call("transfer_to_second")], "two")
    await ai.Runner.run(first, [{"role": "user", "content": "a"},
                                {"role": "user", "content": "b"}], client=client, context=7)
    assert seen["history"] == ({"role": "user", "content": "a"}, {"role": "user", "content": "b"})
    assert seen["pre"] == ["tool_call_item", "tool_call_output_item"]
    assert seen["new"] == ["handoff_call_item", "handoff_output_item"]
    assert seen["ctx"] == 7
    assert provider.requests[2].messages == [{"role": "user", "content": "b"}]


# --- result items and to_input_list ---------------------------------------------------------


async def test_new_items_and_to_input_list() -> None:
    client, _ = scripted([tool_call("add", {"a": 2, "b": 2}, id="call_1")], "It is 4.")
    agent = ai.Agent("Calc", "scripted:m", tools=[add])
    result = await ai.Runner.run(agent, "2+2?", client=client)
    call, output, message = result.new_items
    assert isinstance(call, ai.ToolCallItem) and call.agent is agent
    assert (call.raw_item.name, call.raw_item.arguments, call.call_id) == (
        "add", '{"a": 2, "b": 2}', "call_1")
    assert isinstance(output, ai.ToolCallOutputItem) and output.output == "4"
    assert isinstance(message, ai.MessageOutputItem)
    assert ai.ItemHelpers.text_message_output(message) == "It is 4."
    assert ai.ItemHelpers.text_message_outputs(result.new_items) == "It is 4."
    # the Agents SDK's shape: Responses input items
    history = result.to_input_list()
    assert history == [
        {"role": "user", "content": "2+2?"},
        {"type": "function_call", "call_id": "call_1", "name": "add",
         "arguments": '{"a": 2, "b": 2}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "4"},
        {"role": "assistant", "content": "It is 4."}]
    assert call.to_input_item() == history[1] and output.to_input_item() == history[2]
    assert message.to_input_item() == history[3]
    # the list is valid input for a next run, which sends it as the same chat messages
    client2, provider2 = scripted("Yes.")
    await ai.Runner.run(agent, [*history, {"role": "user", "content": "sure?"}],
                        client=client2)
    assert provider2.requests[0].messages[:4] == [
        m.model_dump(exclude_none=True) for m in result.messages]
    assert result.raw_responses[0].choices[0].message.tool_calls[0].id == "call_1"
    assert result.last_response_id == result.raw_responses[-1].id


# --- stream events ---------------------------------------------------------------------------


async def test_stream_events_of_the_sdk_shape() -> None:
    triage_target = ai.Agent("Joker", "scripted:m", tools=[add])
    triage = ai.Agent("Triage", "scripted:m", handoffs=[triage_target])
    client, _ = scripted([tool_call("transfer_to_joker")], [tool_call("add", {"a": 1, "b": 2})],
                         "Three jokes.")
    streamed = ai.Runner.run_streamed(triage, "Hello", client=client)
    assert not streamed.is_complete and streamed.final_output is None
    seen: list[str] = []
    text = ""
    raw: list[str] = []
    async for event in streamed.stream_events():
        if event.type == "raw_response_event":
            # the Responses API's stream events, one response.created ... response.completed
            # per model call
            raw.append(event.data.type)
            if isinstance(event.data, ai.responses.ResponseTextDeltaEvent):
                text += event.data.delta
        elif event.type == "agent_updated_stream_event":
            seen.append(f"agent {event.new_agent.name}")
        elif event.type == "run_item_stream_event":
            seen.append(f"{event.name} {event.item.type}")
    assert seen == [
        "agent Triage", "handoff_requested handoff_call_item",
        "handoff_occured handoff_output_item", "agent Joker", "tool_called tool_call_item",
        "tool_output tool_call_output_item", "message_output_created message_output_item"]
    assert text == "Three jokes."
    assert raw.count("response.created") == raw.count("response.completed") == 3
    assert "response.function_call_arguments.done" in raw
    assert streamed.is_complete and streamed.final_output == "Three jokes."
    assert streamed.current_agent is triage_target and streamed.last_agent is triage_target
    assert [i.type for i in streamed.new_items][-1] == "message_output_item"


async def test_our_events_still_stream_and_a_stream_is_read_once() -> None:
    client, _ = scripted("hi there")
    streamed = ai.Runner.run_streamed(ai.Agent("A", "scripted:m"), "hi", client=client)
    with pytest.raises(AttributeError, match="complete"):
        streamed.new_items
    types = [event.type async for event in streamed]
    assert types[0] == "RunStarted" and types[-1] == "RunCompleted" and "TextDelta" in types
    assert streamed.final_output == "hi there"
    with pytest.raises(RuntimeError, match="once"):
        streamed.stream_events()
