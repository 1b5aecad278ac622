"""The OpenAI Agents SDK's names on our Agent / Runner: agent names, function_tool and
Annotated descriptions, run context, dynamic instructions, usage, the default model, and
output_type of any type. Wire-level cases go through the real openai SDK (HTTP mocked at
httpcore2); semantic cases use the scripted provider."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

import httpx
import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
KEY = "sk-test-agents-sdk-0123456789"


def openai_client() -> ai.Client:
    return ai.Client({"openai": {"api_key": KEY, "max_retries": 0}})


def openai_reply(text: Any = None, calls: Any = None, tokens: tuple[int, int] = (10, 5)
                 ) -> httpx.Response:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{"id": cid, "type": "function", "function": {
            "name": name, "arguments": json.dumps(args)}} for cid, name, args in calls]
    return httpx.Response(200, json={
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-4o", "choices": [{"index": 0, "message": message,
                                         "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                  "total_tokens": sum(tokens)}})


def mock_openai(httpx2_mock: Any, *responses: httpx.Response) -> Any:
    return httpx2_mock.post(OPENAI_URL).mock(side_effect=list(responses))


def bodies(route: Any) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


def scripted(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


# --- names ---------------------------------------------------------------------------------


def test_agent_names_are_free_text_and_tool_names_snake_cased() -> None:
    billing = ai.Agent("Billing agent", "openai:gpt-4o")
    refunds = ai.Agent("Refunds & returns (EU)", "openai:gpt-4o")
    triage = ai.Agent("Triage", "openai:gpt-4o", handoffs=[billing, refunds])
    assert list(triage._handoff_map) == ["transfer_to_billing_agent",
                                         "transfer_to_refunds___returns__eu_"]
    assert ai.Agent("Agent été 2", "openai:gpt-4o").name == "Agent été 2"
    # "Billing agent" and "billing-agent" derive the same tool name: refused, with both names.
    other = ai.Agent("billing-agent", "openai:gpt-4o")
    with pytest.raises(ValueError, match="transfer_to_billing_agent.*'Billing agent'.*"
                                         "'billing-agent'"):
        ai.Agent("Triage", "openai:gpt-4o", handoffs=[billing, other])
    # ... unless one of them is renamed with handoff(tool_name_override=...)
    ok = ai.Agent("Triage", "openai:gpt-4o",
                  handoffs=[billing, ai.handoff(other, tool_name_override="to_other")])
    assert list(ok._handoff_map) == ["transfer_to_billing_agent", "to_other"]
    with pytest.raises(ValueError, match="too long"):
        ai.Agent("T", "openai:gpt-4o", handoffs=[ai.Agent("x" * 60, "openai:gpt-4o")])


# --- tools ---------------------------------------------------------------------------------


@ai.function_tool
def get_weather(city: Annotated[str, "The city to look up"],
                unit: Annotated[str, "celsius or fahrenheit"] = "celsius") -> str:
    """Get the weather for a city."""
    return f"sunny in {city} ({unit})"


@ai.function_tool(name_override="lookup", description_override="Look an order up.",
                  strict_mode=False)
def lookup_order(ctx: ai.RunContextWrapper[dict], order_id: str) -> str:
    """Ignored docstring."""
    ctx.context["seen"].append(order_id)
    return f"order {order_id} for {ctx.context['user']}"


def test_function_tool_schema_with_annotated_descriptions_and_overrides() -> None:
    schema = get_weather.to_openai()["function"]
    assert schema["name"] == "get_weather"
    assert schema["description"] == "Get the weather for a city."
    assert schema["strict"] is True  # the SDK's default strict_mode=True
    props = schema["parameters"]["properties"]
    assert props["city"]["description"] == "The city to look up"
    assert props["unit"]["description"] == "celsius or fahrenheit"
    other = lookup_order.to_openai()["function"]
    assert other["name"] == "lookup" and other["description"] == "Look an order up."
    assert list(other["parameters"]["properties"]) == ["order_id"]  # no ctx in the schema
    assert get_weather("Paris") == "sunny in Paris (celsius)"  # still callable


def test_annotated_description_on_plain_tools_and_docstring_precedence() -> None:
    def f(a: Annotated[int, "from Annotated"], b: Annotated[int, "annotated b"]) -> int:
        """Add.

        Args:
            b: from the docstring
        """
        return a + b

    props = ai.Tool(f).parameters["properties"]
    assert props["a"]["description"] == "from Annotated"
    assert props["b"]["description"] == "from the docstring"  # the SDK's precedence


def test_context_parameter_must_come_first() -> None:
    def bad(x: int, ctx: ai.RunContextWrapper[Any]) -> int:
        return x

    with pytest.raises(TypeError, match="first"):
        ai.function_tool(bad)
    with pytest.raises(TypeError, match="needs_approval"):
        ai.function_tool(needs_approval="yes")  # type: ignore[arg-type]


def test_tool_taking_context_in_the_plain_tool_runner_gets_an_empty_context() -> None:
    seen: list[Any] = []

    def probe(ctx: ai.RunContextWrapper[Any], x: int) -> int:
        seen.append(ctx.context)
        return x

    client, _ = scripted([tool_call("probe", {"x": 2})], "done")
    resp = client.chat.completions.create(model="scripted:m", messages=[
        {"role": "user", "content": "go"}], tools=[probe], max_turns=2)
    assert resp.tool_events[0].result == "2" and seen == [None]


async def test_run_context_reaches_tools_and_dynamic_instructions_on_the_wire(
        httpx2_mock: Any) -> None:
    route = mock_openai(httpx2_mock,
                        openai_reply(calls=[("c1", "lookup", {"order_id": "A17"})],
                                     tokens=(30, 7)),
                        openai_reply("Order A17 is Ada's.", tokens=(50, 9)))
    calls: list[int] = []

    async def instructions(ctx: ai.RunContextWrapper[dict], agent: ai.Agent) -> str:
        calls.append(ctx.usage.requests)
        return f"Help {ctx.context['user']}; you are {agent.name}."

    agent = ai.Agent("Support agent", "openai:gpt-4o", instructions=instructions,
                     tools=[lookup_order])
    context = {"user": "Ada", "seen": []}
    result = await ai.Runner.run(agent, "Whose order is A17?", context=context,
                                 client=openai_client())
    assert result.final_output == "Order A17 is Ada's."
    assert context["seen"] == ["A17"]  # the tool got our context object itself
    sent = bodies(route)
    assert [b["messages"][0] for b in sent] == [
        {"role": "system", "content": "Help Ada; you are Support agent."}] * 2
    assert calls == [0, 1]  # called before each model call, usage growing
    usage = result.context_wrapper.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        2, 80, 16, 96)
    assert result.context_wrapper.context is context


async def test_instructions_returning_a_non_string_is_a_clear_error() -> None:
    client, _ = scripted("x")
    agent = ai.Agent("A", "scripted:m", instructions=lambda ctx, agent: 42)
    with pytest.raises(TypeError, match="must return a str"):
        await ai.Runner.run(agent, "hi", client=client)
    with pytest.raises(TypeError, match="instructions"):
        ai.Agent("A", "scripted:m", instructions=42)


# --- default model -------------------------------------------------------------------------


def test_default_model_is_used_by_agents_without_one() -> None:
    client, provider = scripted("hello")
    agent = ai.Agent(name="Assistant", instructions="Be brief.")
    ai.set_default_model(None)
    with pytest.raises(ValueError, match="set_default_model"):
        ai.Runner.run_sync(agent, "hi", client=client)
    with pytest.raises(ValueError):
        ai.set_default_model("no-provider-part")
    ai.set_default_model("scripted:default-model")
    try:
        result = ai.Runner.run_sync(agent, "hi", client=client)
        assert result.final_output == "hello"
        assert provider.requests[0].model == "default-model"
        assert result.events[1].model == "scripted:default-model"  # ModelRequest
        # an agent's own model wins
        own = ai.Agent("Own", "scripted:own")
        client2, provider2 = scripted("x")
        ai.Runner.run_sync(own, "hi", client=client2)
        assert provider2.requests[0].model == "own"
    finally:
        ai.set_default_model(None)


# --- output_type ---------------------------------------------------------------------------


class City(BaseModel):
    name: str
    population_millions: float


class Point(TypedDict):
    x: int
    y: int


@dataclass
class Weather:
    city: str
    degrees: int


@pytest.mark.parametrize("output_type, reply, expected, wrapped", [
    (int, '{"response": 42}', 42, True),
    (list[str], '{"response": ["a", "b"]}', ["a", "b"], True),
    (Point, '{"x": 1, "y": 2}', {"x": 1, "y": 2}, False),
    (Weather, '{"response": {"city": "Paris", "degrees": 21}}', Weather("Paris", 21), True),
    (City, '{"name": "Paris", "population_millions": 2.1}', City(name="Paris",
                                                                 population_millions=2.1), False),
])
async def test_output_type_of_any_type_on_the_wire(httpx2_mock: Any, output_type: Any,
                                                   reply: str, expected: Any,
                                                   wrapped: bool) -> None:
    route = mock_openai(httpx2_mock, openai_reply(reply))
    agent = ai.Agent("Typed", "openai:gpt-4o", output_type=output_type)
    result = await ai.Runner.run(agent, "answer", client=openai_client())
    assert result.final_output == expected
    assert result.final_output_as(type(expected), raise_if_incorrect_type=True) == expected
    fmt = bodies(route)[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["type"] == "object"
    if wrapped:
        assert list(schema["properties"]) == ["response"] and schema["required"] == ["response"]


async def test_str_output_type_is_plain_text_and_final_output_as_checks() -> None:
    client, provider = scripted("plain words")
    agent = ai.Agent("Text", "scripted:m", output_type=str)
    result = await ai.Runner.run(agent, "hi", client=client)
    assert result.final_output == "plain words"
    assert provider.requests[0].response_format is None
    with pytest.raises(TypeError, match="not of type int"):
        result.final_output_as(int, raise_if_incorrect_type=True)
    assert result.final_output_as(int) == "plain words"  # a cast only, as in the SDK


async def test_wrapped_output_through_the_forced_tool_with_one_retry() -> None:
    client, provider = scripted(tool_call("final_result", {"response": "many"}),
                                tool_call("final_result", {"response": 7}))
    agent = ai.Agent("Count", "scripted:m", output_type=int)
    result = await ai.Runner.run(agent, "how many?", client=client)
    assert result.final_output == 7
    tool = provider.requests[0].tools[0]["function"]
    assert tool["name"] == "final_result"
    assert tool["parameters"]["properties"]["response"] == {"type": "integer"}
    retry = provider.requests[1].messages[-1]
    assert retry["role"] == "tool" and retry["content"].startswith("Error: invalid arguments")
