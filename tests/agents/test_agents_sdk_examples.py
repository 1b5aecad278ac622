"""Every example of examples/agents/ (written as the OpenAI Agents SDK's docs write them) runs
offline in a subprocess, with the test model, and prints output of the expected shape."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.test_examples import EXAMPLES, OFFLINE_FIRST_LINE, run_example


def check_hello_world(lines: list[str]) -> None:
    assert lines == ['You said: "Tell me about recursion in programming."']


def check_tools_with_context(lines: list[str]) -> None:
    assert lines[0] == ("Tool results: fetch_user_age: The user John is 47 years old; "
                        "get_weather: The weather in city is sunny")
    assert re.fullmatch(r"Model calls: 2, tokens: \d+", lines[1])


def check_dynamic_instructions(lines: list[str]) -> None:
    assert lines == ["Using style: pirate", "User: Tell me a joke.",
                     'Assistant: You said: "Tell me a joke."']


def check_guardrails(lines: list[str]) -> None:
    assert lines == ["Math homework guardrail tripped (is_homework=True)",
                     "Answer passed the output guardrail: response"]


def check_lifecycle_hooks(lines: list[str]) -> None:
    events = [re.sub(r"^### \d+: ", "", line) for line in lines if line.startswith("###")]
    assert [e.split(" ")[0] + " " + e.split(" ")[1] for e in events] == [
        "Agent Start", "LLM started", "LLM ended", "Tool random_number", "Tool random_number",
        "Handoff from", "Agent Multiply", "LLM started", "LLM ended", "Tool multiply_by_two",
        "Tool multiply_by_two", "LLM started", "LLM ended", "Agent Multiply"]
    assert "    (agent hook) Multiply Agent is taking over" in lines
    assert re.match(r"Agent Multiply Agent ended with output number=\d+\. Usage: 3 requests",
                    events[-1])
    assert lines[-1] == "Done!"


def check_handoff_input_filter(lines: list[str]) -> None:
    assert lines[0] == "-- handing off after 1 model call(s)"
    assert lines[1] == "Last agent: Spanish Assistant"
    assert lines[2:7] == ["  Assistant: tool_call_item", "  Assistant: handoff_call_item",
                          "  Assistant: tool_call_output_item",
                          "  Assistant: handoff_output_item",
                          "  Spanish Assistant: message_output_item"]
    # the filter removed the tool calls: the Spanish assistant saw no tool results
    assert lines[7].startswith('Final output: You said: "Hi, my name is Sora.')


def check_stream_items(lines: list[str]) -> None:
    assert lines == ["=== Run starting ===", "Agent updated: Joker",
                     "-- Tool was called: how_many_jokes", "-- Tool output: 3",
                     "-- Message output:", " Tool results: how_many_jokes: 3",
                     "=== Run complete ==="]


def check_structured_output(lines: list[str]) -> None:
    assert lines[0] == "1 landmark(s), each a Landmark:"
    assert re.fullmatch(r"  \w+ \(\w+, -?\d+\)", lines[1])


def check_human_in_the_loop(lines: list[str]) -> None:
    assert lines[:3] == ["Run status: interrupted",
                         'Waiting for approval: delete_file({"path": "path"}) requested by '
                         "File Assistant", "State saved to run_state.json"]
    assert lines[3].startswith(OFFLINE_FIRST_LINE)  # the second process announces its model
    assert lines[4:] == ["Approved: delete_file", "Run status: completed",
                         "Final output: Tool results: get_weather: The weather in city is "
                         "sunny; delete_file: Deleted path"]


CHECKS: dict[str, Callable[[list[str]], None]] = {
    "hello_world.py": check_hello_world,
    "tools_with_context.py": check_tools_with_context,
    "dynamic_instructions.py": check_dynamic_instructions,
    "guardrails.py": check_guardrails,
    "lifecycle_hooks.py": check_lifecycle_hooks,
    "handoff_input_filter.py": check_handoff_input_filter,
    "stream_items.py": check_stream_items,
    "structured_output.py": check_structured_output,
    "human_in_the_loop.py": check_human_in_the_loop,
}


def test_every_agents_example_is_checked() -> None:
    present = {p.name for p in (EXAMPLES / "agents").glob("*.py") if not p.name.startswith("_")}
    assert present == set(CHECKS), f"examples without a test: {present ^ set(CHECKS)}"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_agents_example_runs_offline(name: str) -> None:
    CHECKS[name](run_example(f"agents/{name}"))


# Names the OpenAI Agents SDK exports under the same spelling (``handoff_filters`` lives in
# ``agents.extensions`` there).
SDK_NAMES = {
    "Agent", "AgentHooks", "GuardrailFunctionOutput", "InputGuardrailTripwireTriggered",
    "ItemHelpers", "OutputGuardrailTripwireTriggered", "RunContextWrapper", "RunHooks",
    "RunState", "Runner", "Tool", "function_tool", "handoff", "handoff_filters",
    "input_guardrail", "output_guardrail",
}


def test_examples_import_only_the_agents_sdk_names() -> None:
    """Besides the model set-up line, an example imports the Agents SDK's names only, so the
    same code runs on the SDK after changing the import."""
    for name in CHECKS:
        text = (EXAMPLES / "agents" / name).read_text()
        blocks = re.findall(r"^from aisuite_like import (\([^)]*\)|.*)$", text, re.MULTILINE)
        names = {n.strip() for block in blocks for n in block.strip("()").split(",")} - {""}
        assert names and names <= SDK_NAMES, (name, names - SDK_NAMES)
