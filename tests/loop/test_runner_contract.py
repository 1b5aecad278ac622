"""The tool runner, agents and the testing kit (docs/tool-runner.md, docs/agents.md,
docs/testing.md) used as a user of aisuite / pydantic-ai / AutoGen would: each test pins a
behaviour such a user relies on.

Offline providers (``aisuite_like.testing``) play the model here: the promises checked are the
runner's, the agents' and the testing kit's, not a vendor SDK's.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Annotated, Any, Optional

import pytest
from pydantic import Field

import aisuite_like as ai
from aisuite_like.core.schema_values import example_for_schema
from aisuite_like.testing import ScriptedProvider, tool_call

ROOT = pathlib.Path(__file__).resolve().parents[2]
USER = [{"role": "user", "content": "go"}]


def echo(text: str) -> str:
    """Echo the text."""
    return text


def _unanswered_calls(messages: list[ai.Message]) -> set[str]:
    """Tool call ids of assistant messages that no tool message answers (an invalid history:
    OpenAI rejects it with 400, Anthropic too)."""
    asked = {c.id for m in messages if m.role == "assistant" for c in m.tool_calls or ()}
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    return asked - answered


# --- runner: on_max_turns="final_answer" when the model ignores tool_choice="none" ------------


def test_final_answer_calls_are_answered_not_executed_sync() -> None:
    ran: list[str] = []

    def record(text: str) -> str:
        ran.append(text)
        return text

    provider = ScriptedProvider([tool_call("record", {"text": "1"}, id="a"),
                                 tool_call("record", {"text": "2"}, id="b")])
    client = ai.Client(providers={"s": provider})
    resp = client.chat.completions.create(model="s:m", messages=USER, tools=[record],
                                          max_turns=1, on_max_turns="final_answer")
    assert provider.requests[1].tool_choice == "none"
    assert ran == ["1"]  # the forced answer's call is not executed
    assert resp.stop_reason == "max_turns"
    # ...but answered, so resp.messages is a valid history to continue from.
    assert _unanswered_calls(resp.messages) == set()
    last = resp.messages[-1]
    assert last.role == "tool" and last.tool_call_id == "b"
    assert last.content.startswith("Error: ") and "max_turns" in last.content
    event = resp.tool_events[-1]
    assert (event.call_id, event.is_error, event.duration_s) == ("b", True, 0.0)
    assert resp.choices[0].intermediate_messages == resp.messages[len(USER):]


def test_final_answer_calls_are_answered_not_executed_async_stream() -> None:
    async def main() -> ai.ChatCompletionResponse:
        provider = ScriptedProvider([tool_call("echo", {"text": "1"}, id="a"),
                                     tool_call("echo", {"text": "2"}, id="b")])
        client = ai.AsyncClient(providers={"s": provider})
        stream = await client.chat.completions.create(
            model="s:m", messages=USER, tools=[echo], max_turns=1,
            on_max_turns="final_answer", stream=True)
        async with stream:
            async for _ in stream:
                pass
        return await stream.get_final_response()

    resp = asyncio.run(main())
    assert _unanswered_calls(resp.messages) == set()
    assert [e.call_id for e in resp.tool_events] == ["a", "b"]
    assert resp.tool_events[1].is_error


# --- agents ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["billing\n", "billing\r\n", " billing", "bill\ting"])
def test_agent_name_must_be_usable_in_a_tool_name(name: str) -> None:
    # "$" in a regex also matches before a trailing newline: "billing\n" slipped through and
    # became the tool name "transfer_to_billing\n", which providers reject.
    with pytest.raises(ValueError, match="agent name"):
        ai.Agent(name, "test:m")


@pytest.mark.parametrize("name, tool", [("bill ing", "transfer_to_bill_ing"),
                                        ("bill.ing", "transfer_to_bill_ing")])
def test_free_text_agent_names_give_valid_tool_names(name: str, tool: str) -> None:
    triage = ai.Agent("triage", "test:m", handoffs=[ai.Agent(name, "test:m")])
    assert list(triage._handoff_map) == [tool]


# --- the test model: arguments valid against tricky schemas ---------------------------------


def constrained(
    code: Annotated[str, Field(min_length=5, pattern=r"^[a-z]+$")],
    short: Annotated[str, Field(max_length=4, pattern=r"^[a-z]+\d*$")],
    ratio: Annotated[float, Field(gt=0, lt=0.1)],
    narrow: Annotated[float, Field(gt=1, lt=1.2)],
    step: Annotated[float, Field(multiple_of=0.1, gt=1, le=1.25)],
    negative: Annotated[int, Field(lt=-3)],
    odd: Annotated[int, Field(ge=10, le=14, multiple_of=3)],
    tag: Annotated[str, Field(min_length=8, pattern=r"^(ab|c)+$")],
    maybe: Optional[Annotated[float, Field(gt=0.5, lt=0.75)]] = None,
) -> str:
    """Constrained parameters."""
    return "ok"


def test_test_model_arguments_satisfy_constrained_schemas() -> None:
    client = ai.Client()
    for strict in (False, True):
        resp = client.chat.completions.create(
            model="test:m", messages=USER, tools=[ai.Tool(constrained, strict=strict)],
            max_turns=2)
        event = resp.tool_events[0]
        assert not event.is_error, (strict, event.arguments, event.result)
        assert event.result == "ok"


@pytest.mark.parametrize("schema", [
    {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.01},
    {"type": "number", "minimum": -2.5, "maximum": -2.5},
    {"type": "integer", "exclusiveMinimum": 7, "exclusiveMaximum": 9},
    {"type": "integer", "minimum": 100, "multipleOf": 7},
    {"type": "number", "minimum": 0.3, "maximum": 0.35, "multipleOf": 0.05},
    {"type": "string", "pattern": "^x+$", "minLength": 3, "maxLength": 3},
    {"type": "string", "pattern": "^[A-Z]{2}\\d{0,4}$", "minLength": 5},
])
def test_example_values_respect_bounds(schema: dict[str, Any]) -> None:
    # Checked with pydantic (the validator the runner uses), built from the same constraints.
    from pydantic import TypeAdapter

    kind = schema["type"]
    constraints = {
        "gt": schema.get("exclusiveMinimum"), "lt": schema.get("exclusiveMaximum"),
        "ge": schema.get("minimum"), "le": schema.get("maximum"),
        "multiple_of": schema.get("multipleOf"), "pattern": schema.get("pattern"),
        "min_length": schema.get("minLength"), "max_length": schema.get("maxLength")}
    field = Field(**{k: v for k, v in constraints.items() if v is not None})
    python_type = {"number": float, "integer": int, "string": str}[kind]
    value = example_for_schema(schema)
    TypeAdapter(Annotated[python_type, field]).validate_python(value)


# --- CLI ------------------------------------------------------------------------------------


def _cli(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "aisuite_like", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("spec, fragment", [
    ("badtools:untyped", "no type annotation"),
    ("badtools:star_args", "*args"),
])
def test_cli_tool_that_cannot_be_a_tool_is_a_usage_error(tmp_path: pathlib.Path, spec: str,
                                                         fragment: str) -> None:
    (tmp_path / "badtools.py").write_text(textwrap.dedent("""
        def untyped(city):
            return city

        def star_args(*cities: str) -> str:
            return ",".join(cities)
    """))
    out = _cli("chat", "-m", "test:offline", "--tool", spec, "hi", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert f"--tool {spec!r}" in out.stderr and fragment in out.stderr


def test_cli_two_tools_with_one_name_is_a_usage_error(tmp_path: pathlib.Path) -> None:
    (tmp_path / "t1.py").write_text("def get(x: str) -> str:\n    return x\n")
    (tmp_path / "t2.py").write_text("def get(y: int) -> int:\n    return y\n")
    out = _cli("chat", "-m", "test:offline", "--tool", "t1:get", "--tool", "t2:get", "hi",
               cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "'get'" in out.stderr


def test_reflection_calls_refused_are_in_the_event_stream() -> None:
    # The model ignores tool_choice="none" on the reflection call: its calls are answered
    # (not run) in messages and tool_events, so the events must show them too.
    provider = ScriptedProvider([tool_call("echo", {"text": "1"}, id="a"),
                                 tool_call("echo", {"text": "2"}, id="b")])
    agent = ai.Agent("w", "s:m", tools=[echo])
    result = ai.Runner.run_sync(agent, "go", client=ai.Client(providers={"s": provider}),
                                max_turns=1)
    assert result.status == "max_turns"
    assert _unanswered_calls(result.messages) == set()
    assert [e.call_id for e in result.tool_events] == ["a", "b"]
    types = [e.type for e in result.events]
    assert types == ["RunStarted", "ModelRequest", "ToolCallRequestEvent",
                     "ToolCallExecutionEvent", "ModelRequest", "ToolCallRequestEvent",
                     "ToolCallExecutionEvent", "RunCompleted"]
    reflection = result.events[4]
    assert reflection.kind == "reflection"
    request, execution = result.events[5], result.events[6]
    assert request.call_id == execution.call_id == "b"
    assert request.message_id == execution.message_id == reflection.message_id
    assert execution.is_error and execution.result == result.tool_events[1].result


def test_scripted_auto_ids_follow_the_reply_number() -> None:
    # Documented: call_<reply number>_<index>. A scripted error is a reply too.
    provider = ScriptedProvider([ai.RateLimitError("slow down", status_code=429), "retry",
                                 [tool_call("echo", {"text": "a"}), tool_call("echo")]])
    client = ai.Client(providers={"s": provider})
    with pytest.raises(ai.RateLimitError):
        client.chat.completions.create(model="s:m", messages=USER)
    assert client.chat.completions.create(model="s:m", messages=USER).id == "scripted-2"
    resp = client.chat.completions.create(model="s:m", messages=USER)
    assert [c.id for c in resp.choices[0].message.tool_calls] == ["call_3_0", "call_3_1"]
    assert resp.id == "scripted-3"
