"""Agents through the REAL vendor SDKs (openai, anthropic; groq for the forced-tool output path),
HTTP mocked at httpcore2 (pytest-httpx2's ``httpx2_mock``): every scenario asserts on the wire
JSON the SDK sent and on the RunResult / events. Pure-semantics cases (validation, context
strategies) use ``aisuite_like.testing.ScriptedProvider``.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any, Optional

import httpx
import pytest
from pydantic import BaseModel

import aisuite_like as ai
from aisuite_like.testing import ScriptedProvider, tool_call

KEY = "sk-test-agents-key-0123456789"
FAMILIES = ["openai", "anthropic"]


# --- the two wire formats ----------------------------------------------------------------------


class Family:
    """Response bodies and a common view of the request bodies of one provider family."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "anthropic":
            self.url = "https://api.anthropic.com/v1/messages"
            self.model = "anthropic:claude-sonnet-4-6"
        elif name == "groq":
            self.url = "https://api.groq.com/openai/v1/chat/completions"
            self.model = "groq:llama-3.3-70b"
        else:
            self.url = "https://api.openai.com/v1/chat/completions"
            self.model = "openai:gpt-4o"
        self.n = 0

    @property
    def config(self) -> dict[str, Any]:
        return {self.name: {"api_key": KEY, "max_retries": 0}}

    def client(self) -> ai.Client:
        return ai.Client(self.config)

    def reply(self, text: Optional[str] = None, calls: Optional[list[tuple]] = None,
              tokens: tuple[int, int] = (10, 5)) -> httpx.Response:
        """A response with ``text`` and/or tool ``calls`` [(id, name, args dict)]."""
        self.n += 1
        calls = calls or []
        if self.name == "anthropic":
            content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            content += [{"type": "tool_use", "id": cid, "name": name, "input": args}
                        for cid, name, args in calls]
            return httpx.Response(200, json={
                "id": f"msg_{self.n}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-6", "content": content,
                "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}})
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for cid, name, args in calls]
        return httpx.Response(200, json={
            "id": f"chatcmpl-{self.n}", "object": "chat.completion", "created": 1700000000,
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                      "total_tokens": sum(tokens)}})

    def view(self, body: dict[str, Any]) -> tuple[Optional[str], list[tuple]]:
        """(system prompt, conversation) where each entry is ("user", text),
        ("assistant", text or None, [(call id, name)]) or ("tool", call id, text)."""
        entries: list[tuple] = []
        if self.name == "anthropic":
            system = body.get("system")
            for m in body["messages"]:
                blocks = m["content"] if isinstance(m["content"], list) else [
                    {"type": "text", "text": m["content"]}]
                if m["role"] == "assistant":
                    text = "".join(b["text"] for b in blocks if b["type"] == "text") or None
                    entries.append(("assistant", text, [(b["id"], b["name"]) for b in blocks
                                                        if b["type"] == "tool_use"]))
                    continue
                for b in blocks:
                    if b["type"] == "text":
                        entries.append(("user", b["text"]))
                    elif b["type"] == "tool_result":
                        c = b["content"]
                        c = c if isinstance(c, str) else "".join(x["text"] for x in c)
                        entries.append(("tool", b["tool_use_id"], c))
            return system, entries
        messages = list(body["messages"])
        system = messages.pop(0)["content"] if messages and messages[0]["role"] == "system" \
            else None
        for m in messages:
            if m["role"] == "assistant":
                entries.append(("assistant", m.get("content"), [
                    (c["id"], c["function"]["name"]) for c in m.get("tool_calls") or []]))
            elif m["role"] == "tool":
                entries.append(("tool", m["tool_call_id"], m["content"]))
            else:
                entries.append((m["role"], m["content"]))
        return system, entries

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        if self.name == "anthropic":
            return [t["name"] for t in body.get("tools", [])]
        return [t["function"]["name"] for t in body.get("tools", [])]

    def tool_choice(self, body: dict[str, Any]) -> Any:
        choice = body.get("tool_choice")
        if self.name == "anthropic" and isinstance(choice, dict):
            return {"none": "none", "any": "required", "auto": "auto"}.get(
                choice["type"], choice.get("name"))
        if isinstance(choice, dict):
            return choice["function"]["name"]
        return choice


def bodies(route: Any) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest) -> Family:
    return Family(request.param)


# --- tools ---------------------------------------------------------------------------------------


def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: The city name.
    """
    return f"sunny in {city}"


def get_time(city: str) -> str:
    """Local time in a city.

    Args:
        city: The city name.
    """
    return f"14:05 in {city}"


def failing(city: str) -> str:
    """A tool that raises."""
    raise RuntimeError(f"no data for {city}")


def weather_agent(family: Family, **kw: Any) -> ai.Agent:
    return ai.Agent("weather", family.model, instructions="Be brief.",
                    tools=[get_weather, get_time], **kw)


# --- a multi-turn run ----------------------------------------------------------------------------


async def test_multi_turn_run(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "get_weather", {"city": "Paris"}),
                            ("c2", "get_time", {"city": "Paris"})], tokens=(10, 5)),
        family.reply(calls=[("c3", "get_weather", {"city": "Rome"})], tokens=(20, 5)),
        family.reply("Paris: sunny at 14:05; Rome: sunny.", tokens=(30, 8)),
    ])
    agent = weather_agent(family)
    result = await ai.Runner.run(agent, "Weather and time in Paris, and Rome?",
                                 client=family.client())

    sent = bodies(route)
    assert len(sent) == 3
    for body in sent:
        system, _ = family.view(body)
        assert system == "Be brief."  # the agent's instructions on every call
        assert family.tool_names(body) == ["get_weather", "get_time"]
    _, last = family.view(sent[2])
    assert last == [
        ("user", "Weather and time in Paris, and Rome?"),
        ("assistant", None, [("c1", "get_weather"), ("c2", "get_time")]),
        ("tool", "c1", "sunny in Paris"), ("tool", "c2", "14:05 in Paris"),
        ("assistant", None, [("c3", "get_weather")]),
        ("tool", "c3", "sunny in Rome"),
    ]
    assert result.status == "completed" and result.limit is None
    assert result.final_output == "Paris: sunny at 14:05; Rome: sunny."
    assert result.last_agent is agent
    assert result.usage is not None and result.usage.total_tokens == 15 + 25 + 38
    assert len(result.raw_responses) == 3
    assert [m.role for m in result.new_messages] == [
        "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert [m.role for m in result.messages] == ["user", *[m.role for m in result.new_messages]]
    assert [e.name for e in result.tool_events] == ["get_weather", "get_time", "get_weather"]
    assert result.tool_call_summary is None


async def test_tool_error_is_fed_back_not_raised(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "failing", {"city": "Oslo"})]),
        family.reply("No data for Oslo."),
    ])
    agent = ai.Agent("w", family.model, tools=[failing])
    result = await ai.Runner.run(agent, "Oslo?", client=family.client())
    _, conversation = family.view(bodies(route)[1])
    assert conversation[-1] == ("tool", "c1", "Error: RuntimeError: no data for Oslo")
    assert result.status == "completed" and result.tool_events[0].is_error


# --- reflection on / off ------------------------------------------------------------------------


async def test_reflection_off_summary_covers_every_round(family: Family, httpx2_mock: Any
                                                         ) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "get_weather", {"city": "Paris"}),
                            ("c2", "get_time", {"city": "Paris"})]),
        family.reply(calls=[("c3", "get_weather", {"city": "Rome"})]),
    ])
    agent = weather_agent(family, reflect_on_tool_use=False,
                          tool_call_summary_format="{tool_name}({arguments}) -> {result} "
                                                   "[{is_error}]")
    result = await ai.Runner.run(agent, "Paris and Rome?", client=family.client(), max_turns=2)

    assert route.call_count == 2  # no model call after the last round
    assert result.status == "max_turns"
    assert result.final_output == (
        'get_weather({"city": "Paris"}) -> sunny in Paris [False]\n'
        'get_time({"city": "Paris"}) -> 14:05 in Paris [False]\n'
        'get_weather({"city": "Rome"}) -> sunny in Rome [False]')
    summary = result.tool_call_summary
    assert summary is not None and str(summary) == result.final_output
    assert [e.call_id for e in summary.calls] == ["c1", "c2", "c3"]
    assert result.messages[-1].role == "tool"  # a valid history to continue from


async def test_autogen_default_turn(family: Family, httpx2_mock: Any) -> None:
    """max_turns=1 + reflect_on_tool_use=False: one model call, one round of tools, the raw
    results returned (default format "{result}", one line per call)."""
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "get_weather", {"city": "Paris"}),
                            ("c2", "get_time", {"city": "Paris"})]),
    ])
    agent = weather_agent(family, reflect_on_tool_use=False)
    result = await ai.Runner.run(agent, "Paris?", client=family.client(), max_turns=1)
    assert route.call_count == 1
    assert result.final_output == "sunny in Paris\n14:05 in Paris"


async def test_reflection_on_answers_from_results(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "get_weather", {"city": "Paris"})]),
        family.reply("It is sunny in Paris."),
    ])
    agent = weather_agent(family)  # reflect_on_tool_use=True by default
    result = await ai.Runner.run(agent, "Paris?", client=family.client(), max_turns=1)

    first, reflection = bodies(route)
    assert family.tool_choice(first) is None
    assert family.tool_choice(reflection) == "none"  # answer from the results, no more tools
    _, conversation = family.view(reflection)
    assert conversation[-1] == ("tool", "c1", "sunny in Paris")
    assert result.status == "max_turns"
    assert result.final_output == "It is sunny in Paris."
    kinds = [e.kind for e in result.events if e.type == "ModelRequest"]
    assert kinds == ["turn", "reflection"]


# --- handoffs ------------------------------------------------------------------------------------


def lookup_invoice(invoice_id: str) -> str:
    """Find an invoice.

    Args:
        invoice_id: The invoice id.
    """
    return f"invoice {invoice_id}: 42 EUR, paid"


async def test_handoff_across_providers(httpx2_mock: Any) -> None:
    """Triage (OpenAI) hands off to Billing (Anthropic): Billing continues with the history,
    its own instructions and tools; last_agent is Billing."""
    oa, an = Family("openai"), Family("anthropic")
    billing = ai.Agent("Billing", an.model, instructions="You handle invoices.",
                       tools=[lookup_invoice], handoff_description="invoices and payments")
    triage = ai.Agent("triage", oa.model, instructions="Route the user.", tools=[get_weather],
                      handoffs=[billing])
    oa_route = httpx2_mock.post(oa.url).mock(side_effect=[
        oa.reply(calls=[("h1", "transfer_to_billing", {})])])
    an_route = httpx2_mock.post(an.url).mock(side_effect=[
        an.reply(calls=[("t1", "lookup_invoice", {"invoice_id": "A7"})]),
        an.reply("Invoice A7 (42 EUR) is paid."),
    ])
    client = ai.Client({**oa.config, **an.config})
    result = await ai.Runner.run(triage, "Is invoice A7 paid?", client=client)

    (triage_body,) = bodies(oa_route)
    assert oa.tool_names(triage_body) == ["get_weather", "transfer_to_billing"]
    handoff_schema = triage_body["tools"][1]["function"]
    assert "invoices and payments" in handoff_schema["description"]
    billing_1, billing_2 = bodies(an_route)
    system, conversation = an.view(billing_1)
    assert system == "You handle invoices."
    assert an.tool_names(billing_1) == ["lookup_invoice"]
    assert conversation == [  # the handoff call has its result: no orphan
        ("user", "Is invoice A7 paid?"),
        ("assistant", None, [("h1", "transfer_to_billing")]),
        ("tool", "h1", "Transferred to Billing."),
    ]
    assert an.view(billing_2)[1][-1] == ("tool", "t1", "invoice A7: 42 EUR, paid")
    assert result.status == "completed"
    assert result.last_agent is billing
    assert result.final_output == "Invoice A7 (42 EUR) is paid."
    handoffs = [e for e in result.events if e.type == "Handoff"]
    assert len(handoffs) == 1
    h = handoffs[0]
    assert (h.from_agent, h.to_agent, h.call_id, h.agent_name) == (
        "triage", "Billing", "h1", "triage")
    request_ids = [e.message_id for e in result.events if e.type == "ModelRequest"]
    assert h.message_id == request_ids[0]  # tied to the message that asked for it
    assert [e.agent_name for e in result.events if e.type == "ModelRequest"] == [
        "triage", "Billing", "Billing"]


async def test_handoff_on_last_turn_ends_with_status_handoff(httpx2_mock: Any) -> None:
    oa = Family("openai")
    billing = ai.Agent("billing", oa.model)
    triage = ai.Agent("triage", oa.model, handoffs=[billing])
    route = httpx2_mock.post(oa.url).mock(side_effect=[
        oa.reply(calls=[("h1", "transfer_to_billing", {}), ("h2", "transfer_to_billing", {})])])
    result = await ai.Runner.run(triage, "Refund?", client=oa.client(), max_turns=1)
    assert route.call_count == 1
    assert result.status == "handoff" and result.last_agent is billing
    tool_messages = [m for m in result.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["h1", "h2"]  # both answered
    assert tool_messages[1].content.startswith("Error: not executed: only one handoff")


async def test_handoff_is_not_subject_to_the_tool_policy() -> None:
    billing = ai.Agent("billing", "scripted:b")
    triage = ai.Agent("triage", "scripted:a", tools=[get_weather], handoffs=[billing],
                      tool_policy=ai.AllowTools([]))
    provider = ScriptedProvider([[tool_call("get_weather", {"city": "X"}),
                                  tool_call("transfer_to_billing")], "billing answers"])
    result = await ai.Runner.run(triage, "hi", client=ai.Client(providers={"scripted": provider}))
    assert result.tool_events[0].result.startswith("Error: tool call denied by policy")
    assert result.last_agent is billing and result.final_output == "billing answers"


# --- structured output ---------------------------------------------------------------------------


class City(BaseModel):
    name: str
    population_millions: float


CITY = {"name": "Paris", "population_millions": 2.1}


async def test_structured_output_native_valid(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[family.reply(json.dumps(CITY))])
    agent = ai.Agent("geo", family.model, output_type=City)
    result = await ai.Runner.run(agent, "Paris as data", client=family.client())

    body = bodies(route)[0]
    if family.name == "anthropic":
        schema = body["output_config"]["format"]["schema"]
    else:
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "City"
        assert fmt["json_schema"]["strict"] is True
        schema = fmt["json_schema"]["schema"]
    assert schema["required"] == ["name", "population_millions"]
    assert schema["additionalProperties"] is False
    assert "tools" not in body
    assert result.final_output == City(**CITY)
    assert result.status == "completed"


async def test_structured_output_invalid_then_fixed(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(json.dumps({"name": "Paris"})),
        family.reply(json.dumps(CITY)),
    ])
    agent = ai.Agent("geo", family.model, output_type=City)
    result = await ai.Runner.run(agent, "Paris as data", client=family.client())

    _, conversation = family.view(bodies(route)[1])
    assert conversation[1] == ("assistant", '{"name": "Paris"}', [])
    role, feedback = conversation[2]
    assert role == "user" and "population_millions: Field required" in feedback
    assert result.final_output == City(**CITY)
    assert [e.kind for e in result.events if e.type == "ModelRequest"] == ["turn",
                                                                           "output_retry"]


async def test_structured_output_invalid_twice_raises(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply("not json"), family.reply(json.dumps({"name": 3}))])
    agent = ai.Agent("geo", family.model, output_type=City)
    session = ai.Session()
    with pytest.raises(ai.OutputValidationError) as info:
        await ai.Runner.run(agent, "Paris as data", client=family.client(), session=session)
    assert route.call_count == 2
    assert "twice" in str(info.value) and info.value.output == '{"name": 3}'
    assert len(session) == 0  # a run that raises leaves the session unchanged


async def test_structured_output_forced_tool_where_not_native(httpx2_mock: Any) -> None:
    """groq (OpenAI-compatible, no native json_schema here): a forced final_result tool;
    invalid arguments are fed back as the tool's error result, once."""
    groq = Family("groq")
    route = httpx2_mock.post(groq.url).mock(side_effect=[
        groq.reply(calls=[("f1", "final_result", {"name": "Paris"})]),
        groq.reply(calls=[("f2", "final_result", CITY)]),
    ])
    agent = ai.Agent("geo", groq.model, output_type=City)
    result = await ai.Runner.run(agent, "Paris as data", client=groq.client())

    first, second = bodies(route)
    assert "response_format" not in first
    assert first["tool_choice"] == {"type": "function", "function": {"name": "final_result"}}
    params = first["tools"][0]["function"]["parameters"]
    assert params["required"] == ["name", "population_millions"]
    _, conversation = groq.view(second)
    assert conversation[-1][0:2] == ("tool", "f1")
    assert conversation[-1][2].startswith(
        "Error: invalid arguments for tool 'final_result': population_millions: Field required")
    assert result.final_output == City(**CITY) and result.status == "completed"
    assert result.messages[-1].role == "tool"  # the final_result call is answered too


async def test_structured_output_forced_tool_invalid_twice(httpx2_mock: Any) -> None:
    groq = Family("groq")
    httpx2_mock.post(groq.url).mock(side_effect=[
        groq.reply(calls=[("f1", "final_result", {"name": "Paris"})]),
        groq.reply("plain text instead"),
    ])
    agent = ai.Agent("geo", groq.model, output_type=City, tools=[get_weather])
    with pytest.raises(ai.OutputValidationError, match="twice"):
        await ai.Runner.run(agent, "Paris as data", client=groq.client())


# --- sessions ----------------------------------------------------------------------------------


async def test_session_history_and_concurrency_error(family: Family, httpx2_mock: Any) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def slow_lookup(city: str) -> str:
        """Slow."""
        started.set()
        await release.wait()
        return f"found {city}"

    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "slow_lookup", {"city": "Oslo"})]),
        family.reply("Oslo found."),
        family.reply("You asked about Oslo."),
    ])
    agent = ai.Agent("w", family.model, tools=[slow_lookup])
    session = ai.Session()
    client = family.client()
    first = asyncio.ensure_future(ai.Runner.run(agent, "Find Oslo", client=client,
                                                session=session))
    await started.wait()
    with pytest.raises(ai.ConcurrentRunError):
        await ai.Runner.run(agent, "Something else", client=client, session=session)
    assert route.call_count == 1  # the second run sent nothing
    release.set()
    assert (await first).final_output == "Oslo found."
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]

    again = await ai.Runner.run(agent, "What did I ask?", client=client, session=session)
    _, conversation = family.view(bodies(route)[2])
    assert conversation[0] == ("user", "Find Oslo")
    assert conversation[-2] == ("assistant", "Oslo found.", [])
    assert conversation[-1] == ("user", "What did I ask?")
    assert len(again.messages) == 6 and len(again.new_messages) == 1


async def test_session_context_strategy_on_the_wire(httpx2_mock: Any) -> None:
    oa = Family("openai")
    route = httpx2_mock.post(oa.url).mock(side_effect=[oa.reply("ok")])
    history = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "A"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "assistant", "content": "a1"},
    ]
    session = ai.Session(history, context_strategy=ai.keep_last(3))
    agent = ai.Agent("w", oa.model, instructions="sys", tools=[get_weather])
    await ai.Runner.run(agent, "q2", client=oa.client(), session=session)
    system, conversation = oa.view(bodies(route)[0])
    # last 3 = [tool r1, a1, q2]: the orphaned tool result is dropped, instructions kept
    assert system == "sys"
    assert conversation == [("assistant", "a1", []), ("user", "q2")]
    assert len(session) == 6  # the stored history is never trimmed


def test_context_strategies_never_orphan_a_tool_result() -> None:
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "c", "content": "x" * 40}
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "u" * 40}, call,
            result, result]
    assert ai.keep_last(2)(msgs) == [msgs[0], call, result, result]  # nothing else fits
    assert ai.keep_last(3)(msgs) == [msgs[0], call, result, result]
    assert ai.keep_last(10)(msgs) == msgs
    tail = [*msgs, {"role": "assistant", "content": "done"}]
    assert ai.keep_last(2)(tail) == [msgs[0], tail[-1]]
    assert ai.fit_tokens(20)(tail) == [msgs[0], tail[-1]]
    assert ai.fit_tokens(10_000)(tail) == tail
    with pytest.raises(ValueError):
        ai.keep_last(0)
    with pytest.raises(ValueError):
        ai.fit_tokens(0)


# --- limits --------------------------------------------------------------------------------------


def _loop_forever(family: Family, n: int) -> list[httpx.Response]:
    return [family.reply(calls=[(f"c{i}", "get_weather", {"city": f"C{i}"})])
            for i in range(n)]


async def test_limit_max_model_calls(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=_loop_forever(family, 5))
    result = await ai.Runner.run(weather_agent(family), "go", client=family.client(),
                                 limits=ai.RunLimits(max_model_calls=2))
    assert route.call_count == 2
    assert (result.status, result.limit) == ("limit", "max_model_calls")
    assert result.messages[-1].role == "tool"  # the tools of the last call were answered
    assert result.final_output == "sunny in C0\nsunny in C1"  # summary of every round


async def test_limit_max_tool_calls(family: Family, httpx2_mock: Any) -> None:
    calls = [(f"c{i}", "get_weather", {"city": f"C{i}"}) for i in range(3)]
    route = httpx2_mock.post(family.url).mock(side_effect=[family.reply(calls=calls)])
    result = await ai.Runner.run(weather_agent(family), "go", client=family.client(),
                                 limits=ai.RunLimits(max_tool_calls=2))
    assert route.call_count == 1
    assert (result.status, result.limit) == ("limit", "max_tool_calls")
    results = [e.result for e in result.tool_events]
    assert results[:2] == ["sunny in C0", "sunny in C1"]
    assert results[2].startswith("Error: not executed: the run reached its limit of 2 tool")
    assert [m.tool_call_id for m in result.new_messages if m.role == "tool"] == ["c0", "c1", "c2"]


async def test_limit_max_total_tokens(family: Family, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(family.url).mock(side_effect=_loop_forever(family, 5))
    result = await ai.Runner.run(weather_agent(family), "go", client=family.client(),
                                 limits=ai.RunLimits(max_total_tokens=25))
    assert route.call_count == 2  # 15 tokens, then 30 >= 25: no third call
    assert (result.status, result.limit) == ("limit", "max_total_tokens")
    assert result.usage is not None and result.usage.total_tokens == 30


async def test_limit_timeout_s(family: Family, httpx2_mock: Any) -> None:
    async def slow(city: str) -> str:
        """Slow."""
        await asyncio.sleep(10)
        return "never"

    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "slow", {"city": "X"})])])
    agent = ai.Agent("w", family.model, tools=[slow])
    result = await ai.Runner.run(agent, "go", client=family.client(),
                                 limits=ai.RunLimits(timeout_s=0.2))
    assert route.call_count == 1
    assert (result.status, result.limit) == ("limit", "timeout_s")
    assert result.messages[-1].role == "tool" and result.messages[-1].tool_call_id == "c1"
    assert "timeout_s" in result.messages[-1].content
    assert result.events[-1].type == "RunCompleted" and result.events[-1].status == "limit"


def test_limits_validated() -> None:
    for bad in ({"max_model_calls": 0}, {"max_tool_calls": -1}, {"timeout_s": 0},
                {"max_total_tokens": True}):
        with pytest.raises(ValueError):
            ai.RunLimits(**bad)


# --- cancellation --------------------------------------------------------------------------------


async def test_cancellation_mid_tool(family: Family, httpx2_mock: Any) -> None:
    started = asyncio.Event()
    finished: list[str] = []

    async def slow(city: str) -> str:
        """Slow."""
        started.set()
        await asyncio.sleep(10)
        finished.append(city)
        return "never"

    async def quick(city: str) -> str:
        """Quick."""
        return f"sunny in {city}"

    route = httpx2_mock.post(family.url).mock(side_effect=[
        family.reply(calls=[("c1", "quick", {"city": "A"}), ("c2", "slow", {"city": "B"})])])
    agent = ai.Agent("w", family.model, tools=[quick, slow])
    session = ai.Session()
    task = asyncio.ensure_future(ai.Runner.run(agent, "go", client=family.client(),
                                               session=session))
    await started.wait()
    task.cancel()
    result = await task
    assert route.call_count == 1 and not finished
    assert result.status == "cancelled" and result.limit is None
    tool_messages = [m for m in result.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["c1", "c2"]  # no orphan call
    assert tool_messages[0].content == "sunny in A"
    assert tool_messages[1].content == "Error: tool call not finished: the run was cancelled"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "tool"]
    assert result.events[-1].type == "RunCompleted" and result.events[-1].status == "cancelled"


# --- events --------------------------------------------------------------------------------------


def _openai_sse(text: Optional[str], calls: list[tuple] = (), n: int = 1) -> httpx.Response:
    def chunk(delta: dict[str, Any], finish: Optional[str] = None) -> str:
        return "data: " + json.dumps({
            "id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4o", "choices": [{"index": 0, "delta": delta,
                                            "finish_reason": finish}]}) + "\n\n"

    events = [chunk({"role": "assistant", "content": ""})]
    if text:
        events += [chunk({"content": text[:5]}), chunk({"content": text[5:]})]
    for i, (cid, name, args) in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": i, "id": cid, "type": "function",
                                             "function": {"name": name,
                                                          "arguments": json.dumps(args)}}]}))
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    events.append("data: " + json.dumps({
        "id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1,
        "model": "gpt-4o", "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}) + "\n\n")
    events.append("data: [DONE]\n\n")
    return httpx.Response(200, content="".join(events).encode(),
                          headers={"content-type": "text/event-stream"})


async def test_streamed_event_order_and_ids(httpx2_mock: Any) -> None:
    oa = Family("openai")
    route = httpx2_mock.post(oa.url).mock(side_effect=[
        _openai_sse("Let me check.", [("c1", "get_weather", {"city": "Paris"})], n=1),
        _openai_sse("Sunny in Paris.", n=2),
    ])
    agent = weather_agent(oa)
    events = [e async for e in ai.Runner.run_streamed(agent, "Paris?", client=oa.client())]

    assert [e.type for e in events] == [
        "RunStarted", "ModelRequest", "TextDelta", "TextDelta", "ToolCallRequestEvent",
        "ToolCallExecutionEvent", "ModelRequest", "TextDelta", "TextDelta", "RunCompleted"]
    assert all(e.type == type(e).__name__ for e in events)
    assert len({e.run_id for e in events}) == 1 and events[0].run_id.startswith("run_")
    assert {e.agent_name for e in events} == {"weather"}
    first, second = events[1].message_id, events[6].message_id
    assert first != second
    assert [e.message_id for e in events[1:6]] == [first] * 5
    assert [e.message_id for e in events[6:9]] == [second] * 3
    assert "".join(e.text for e in events[2:4]) == "Let me check."
    assert events[4].call_id == events[5].call_id == "c1"
    assert events[5].result == "sunny in Paris" and not events[5].is_error
    done = events[-1]
    assert done.status == "completed" and done.final_output == "Sunny in Paris."
    assert done.result.events == events and done.result.usage.total_tokens == 30
    for body in bodies(route):
        assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_non_streamed_events_have_one_text_delta_per_reply(httpx2_mock: Any) -> None:
    an = Family("anthropic")
    httpx2_mock.post(an.url).mock(side_effect=[
        an.reply("Checking.", calls=[("c1", "get_weather", {"city": "Paris"})]),
        an.reply("Sunny.")])
    result = await ai.Runner.run(weather_agent(an), "Paris?", client=an.client())
    assert [e.type for e in result.events] == [
        "RunStarted", "ModelRequest", "TextDelta", "ToolCallRequestEvent",
        "ToolCallExecutionEvent", "ModelRequest", "TextDelta", "RunCompleted"]
    assert [e.text for e in result.events if e.type == "TextDelta"] == ["Checking.", "Sunny."]


async def test_stream_backpressure_slows_the_run(httpx2_mock: Any) -> None:
    oa = Family("openai")
    executed: list[str] = []

    def record(city: str) -> str:
        """Record."""
        executed.append(city)
        return "ok"

    route = httpx2_mock.post(oa.url).mock(side_effect=[
        _openai_sse("Working on it", [("c1", "record", {"city": "A"})], n=1),
        _openai_sse("Done.", n=2)])
    agent = ai.Agent("w", oa.model, tools=[record])
    stream = ai.Runner.run_streamed(agent, "go", client=oa.client(), buffer_size=1)
    first = await stream.__anext__()
    assert first.type == "RunStarted"
    await asyncio.sleep(0.2)  # a slow consumer: the run cannot get far ahead of it
    assert executed == [] and route.call_count <= 1
    rest = [e async for e in stream]
    assert executed == ["A"] and rest[-1].type == "RunCompleted"


async def test_leaving_the_stream_early_cancels_the_run(httpx2_mock: Any) -> None:
    oa = Family("openai")
    route = httpx2_mock.post(oa.url).mock(side_effect=[
        _openai_sse(None, [(f"c{i}", "get_weather", {"city": "X"})], n=i) for i in range(5)])
    session = ai.Session()
    stream = ai.Runner.run_streamed(weather_agent(oa), "go", client=oa.client(),
                                    session=session, buffer_size=1)
    async for event in stream:
        if event.type == "ToolCallExecutionEvent":
            break
    await stream.aclose()
    assert route.call_count <= 2  # at most one event ahead of the consumer
    history = session.messages
    assert [m.role for m in history[:3]] == ["user", "assistant", "tool"]
    called = [c.id for m in history if m.role == "assistant" for c in m.tool_calls or []]
    answered = [m.tool_call_id for m in history if m.role == "tool"]
    assert called == answered  # cancelled mid-way, still no orphan
    # the session is free again
    httpx2_mock.post(oa.url).mock(side_effect=[oa.reply("ok")])
    assert (await ai.Runner.run(weather_agent(oa), "again", client=oa.client(),
                                session=session)).status == "completed"


def test_print_trace_plain_and_coloured(httpx2_mock: Any) -> None:
    oa = Family("openai")
    httpx2_mock.post(oa.url).mock(side_effect=[
        oa.reply(calls=[("c1", "get_weather", {"city": "Paris"})]), oa.reply("Sunny.")])
    result = ai.Runner.run_sync(weather_agent(oa), "Paris?", client=oa.client())
    plain = io.StringIO()
    result.print_trace(plain)
    text = plain.getvalue()
    assert "\x1b[" not in text
    assert 'get_weather({"city": "Paris"})' in text and "sunny in Paris" in text
    assert "run completed" in text and "final output: Sunny." in text

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    coloured = Tty()
    result.print_trace(coloured)
    assert "\x1b[" in coloured.getvalue()


# --- run_sync and the client -------------------------------------------------------------------


def test_run_sync_outside_a_loop(httpx2_mock: Any) -> None:
    oa = Family("openai")
    httpx2_mock.post(oa.url).mock(side_effect=[oa.reply("one"), oa.reply("two")])
    client = oa.client()
    agent = ai.Agent("a", oa.model)
    assert ai.Runner.run_sync(agent, "1", client=client).final_output == "one"
    assert ai.Runner.run_sync(agent, "2", client=client).final_output == "two"  # same client


async def test_run_sync_inside_a_running_loop(httpx2_mock: Any) -> None:
    an = Family("anthropic")
    route = httpx2_mock.post(an.url).mock(side_effect=[
        an.reply(calls=[("c1", "get_weather", {"city": "Oslo"})]), an.reply("Sunny in Oslo.")])
    asyncio.get_running_loop()  # we are inside a running loop
    result = ai.Runner.run_sync(weather_agent(an), "Oslo?", client=an.client())
    assert result.final_output == "Sunny in Oslo." and route.call_count == 2


def test_client_none_uses_the_environment(httpx2_mock: Any, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    oa = Family("openai")
    route = httpx2_mock.post(oa.url).mock(side_effect=[oa.reply("hi")])
    result = ai.Runner.run_sync(ai.Agent("a", oa.model), "hello")
    assert result.final_output == "hi"
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in repr(result) and KEY not in repr(result.last_agent)


# --- construction --------------------------------------------------------------------------------


def test_agent_is_immutable_and_validated() -> None:
    agent = ai.Agent("ok-name_1", "openai:gpt-4o", tools=[get_weather])
    with pytest.raises(Exception):
        agent.name = "other"  # type: ignore[misc]
    assert agent.max_turns == 10 and agent.reflect_on_tool_use is True
    assert isinstance(agent.tools, tuple)
    for bad in ("", " ", " lead", "trail ", "tab\tname", "new\nline", "bell\x07"):
        with pytest.raises(ValueError, match="control characters"):
            ai.Agent(bad, "openai:gpt-4o")
    with pytest.raises(ValueError):
        ai.Agent("a", "no-provider")
    with pytest.raises(ValueError, match="max_turns"):
        ai.Agent("a", "openai:gpt-4o", max_turns=0)
    with pytest.raises(ValueError, match="unique"):
        ai.Agent("a", "openai:gpt-4o", tools=[get_weather, get_weather])
    b1, b2 = ai.Agent("Billing", "openai:x"), ai.Agent("billing", "openai:y")
    with pytest.raises(ValueError, match="transfer_to_billing"):
        ai.Agent("a", "openai:gpt-4o", handoffs=[b1, b2])

    def transfer_to_billing() -> str:
        """Clash."""
        return ""

    with pytest.raises(ValueError, match="transfer_to_billing"):
        ai.Agent("a", "openai:gpt-4o", tools=[transfer_to_billing], handoffs=[b1])
    with pytest.raises(ValueError, match="placeholders"):
        ai.Agent("a", "openai:gpt-4o", tool_call_summary_format="{name}")
    with pytest.raises(ValueError, match="schema dict"):
        ai.Agent("a", "openai:gpt-4o", tools=[{"type": "function", "function": {"name": "f"}}])
    with pytest.raises(ValueError, match="model_settings"):
        ai.Agent("a", "openai:gpt-4o", model_settings={"tools": []})
    class Opaque:  # no schema pydantic could describe
        pass

    with pytest.raises(TypeError, match="pydantic"):
        ai.Agent("a", "openai:gpt-4o", output_type=Opaque)
    settings = {"temperature": 0.2}
    agent = ai.Agent("a", "openai:gpt-4o", model_settings=settings)
    settings["temperature"] = 1.0
    assert agent.model_settings["temperature"] == 0.2  # a private, read-only copy
    assert agent.clone(max_turns=3).max_turns == 3


def test_runner_argument_errors() -> None:
    agent = ai.Agent("a", "openai:gpt-4o")
    with pytest.raises(ValueError, match="max_turns"):
        ai.Runner.run_sync(agent, "x", max_turns=0)
    with pytest.raises(TypeError):
        ai.Runner.run_sync("agent", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no input"):
        ai.Runner.run_sync(agent, [])


async def test_model_settings_reach_the_wire(httpx2_mock: Any) -> None:
    an = Family("anthropic")
    route = httpx2_mock.post(an.url).mock(side_effect=[an.reply("ok")])
    agent = ai.Agent("a", an.model, model_settings={"max_tokens": 77, "stop": ["END"]})
    caller_input = [{"role": "user", "content": "hi"}]
    snapshot = json.dumps(caller_input)
    await ai.Runner.run(agent, caller_input, client=an.client())
    body = bodies(route)[0]
    assert body["max_tokens"] == 77 and body["stop_sequences"] == ["END"]
    assert json.dumps(caller_input) == snapshot  # the caller's messages are not mutated


def test_one_agent_serves_concurrent_runs() -> None:
    agent = ai.Agent("a", "scripted:x", tools=[get_weather])

    async def main() -> list[Any]:
        runs = []
        for i in range(5):
            provider = ScriptedProvider([tool_call("get_weather", {"city": f"C{i}"}), f"A{i}"])
            runs.append(ai.Runner.run(agent, f"q{i}",
                                      client=ai.Client(providers={"scripted": provider})))
        return await asyncio.gather(*runs)

    results = asyncio.run(main())
    assert [r.final_output for r in results] == [f"A{i}" for i in range(5)]
    assert [r.tool_events[0].result for r in results] == [f"sunny in C{i}" for i in range(5)]
