"""Every example of examples/agents/ (written as the OpenAI Agents SDK's docs write them) runs
offline in a subprocess, with the test model, and prints output of the expected shape."""

from __future__ import annotations

import os
import re
import subprocess
import sys
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


# --- the Agents SDK's own basic examples (tests/agents_sdk_examples/: copies of
# openai-agents-python's examples/basic/ with only the imports changed, see its README) -------

SDK_EXAMPLES = EXAMPLES.parent / "tests" / "agents_sdk_examples"


def run_sdk_example(name: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith(("_API_KEY", "_TOKEN")) and k != "AGENTS_SDK_EXAMPLE_MODEL"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLES.parent),
                                                      env.get("PYTHONPATH")]))
    env["EXAMPLES_INTERACTIVE_MODE"] = "auto"  # the SDK's examples/auto_mode.py
    return subprocess.run([sys.executable, f"{name}.py"], capture_output=True, text=True,
                          cwd=SDK_EXAMPLES, env=env, timeout=120)


def sdk_hello_world(lines: list[str]) -> None:
    assert lines == ['You said: "Tell me about recursion in programming."']


def sdk_dynamic_system_prompt(lines: list[str]) -> None:
    assert re.fullmatch(r"Using style: (haiku|pirate|robot)", lines[0])
    assert lines[1:] == ["", "User: Tell me a joke.", 'Assistant: You said: "Tell me a joke."']


def sdk_tools(lines: list[str]) -> None:
    assert lines == ["[debug] get_weather called",
                     'Tool results: get_weather: {"city":"city","temperature_range":"14-20C",'
                     '"conditions":"Sunny with wind."}']


def sdk_stream_items(lines: list[str]) -> None:
    assert lines[:3] == ["=== Run starting ===", "Agent updated: Joker",
                         "-- Tool was called: how_many_jokes"]
    count = re.fullmatch(r"-- Tool output: (\d+)", lines[3])
    assert count and 1 <= int(count.group(1)) <= 10
    assert lines[4:] == ["-- Message output:", f" Tool results: how_many_jokes: {count.group(1)}",
                         "=== Run complete ==="]


def sdk_stream_text(lines: list[str]) -> None:
    # printed delta by delta (ResponseTextDeltaEvent.delta), no newline at the end
    assert lines == ['You said: "Please tell me 5 jokes."']


def sdk_stream_function_call_args(lines: list[str]) -> None:
    text = "\n".join(lines)
    for name, arguments in (
            ("write_file", '{"filename": "filename", "content": "content"}'),
            ("create_config", '{"project_name": "project_name", "version": "version", '
                              '"dependencies": ["dependencies"]}')):
        assert f"📞 Function call streaming started: {name}()" in lines
        assert f"✅ Function call streaming completed: {name}" in lines
        assert arguments in lines  # the argument deltas, printed as they came
        assert re.search(rf"  - #call_\w+: {name}\({re.escape(arguments)}\)", text)
    assert lines[-1] == ("Result: Tool results: write_file: File filename written "
                         "successfully; create_config: Config for project_name vversion created")


def sdk_lifecycle_example(lines: list[str]) -> None:
    events = [re.sub(r"^### \d+: ", "", line) for line in lines if line.startswith("### ")]
    assert [" ".join(e.split(" ")[:2]) for e in events] == [
        "Agent Start", "LLM started.", "LLM ended.", "Tool random_number", "Tool random_number",
        "Handoff from", "Agent Multiply", "LLM started.", "LLM ended.", "Tool multiply_by_two",
        "Tool multiply_by_two", "LLM started.", "LLM ended.", "Agent Multiply"]
    # AgentHookContext.turn_input: the Responses input items the agent starts from
    assert events[0].startswith("Agent Start Agent started. turn_input: [{'role': 'user', "
                                "'content': 'Generate a random number between 0 and 50.'}]")
    assert "{'type': 'function_call_output', 'call_id': " in events[6]
    # ToolContext: the call's name, id and arguments; usage grows with each model call
    assert re.match(r"Tool random_number started\. name=random_number, call_id=call_\w+, "
                    r"args=\{\"max\": \d+\}\. Usage: 1 requests, \d+ input tokens", events[3])
    assert re.match(r"Agent Multiply Agent ended with output number=\d+\. Usage: 3 requests",
                    events[-1])
    assert lines[-1] == "Done!"


def sdk_agent_lifecycle_example(lines: list[str]) -> None:
    steps = [re.sub(r"^### \((.+?)\) \d+: ", r"\1: ", line) for line in lines
             if line.startswith("### ")]
    assert [s.split(" with ")[0] for s in steps] == [
        "Start Agent: Agent Start Agent started",
        "Start Agent: Agent Start Agent started tool random_number",
        "Start Agent: Agent Start Agent ended tool random_number",
        "Multiply Agent: Agent Start Agent handed off to Multiply Agent",
        "Multiply Agent: Agent Multiply Agent started",
        "Multiply Agent: Agent Multiply Agent started tool multiply_by_two",
        "Multiply Agent: Agent Multiply Agent ended tool multiply_by_two",
        "Multiply Agent: Agent Multiply Agent ended"]
    assert lines[-1] == "Done!"


def sdk_usage_tracking(lines: list[str]) -> None:
    values = dict(line.split(": ") for line in lines if line.startswith(
        ("Input tokens", "Output tokens", "Total tokens", "Requests")))
    assert values["Requests"] == "2"
    entries = [re.fullmatch(r"  \d: (\d+) input, (\d+) output", line) for line in lines
               if line.startswith("  ")]
    assert len(entries) == 2 and all(entries)
    # RunUsage.request_usage_entries: one per model call, summing to the run's usage
    assert sum(int(m.group(1)) for m in entries if m) == int(values["Input tokens"])
    assert sum(int(m.group(2)) for m in entries if m) == int(values["Output tokens"])


def sdk_image(lines: list[str]) -> None:
    # the image went in as an input_image part; the test model answers the text
    assert lines == ['You said: "What do you see in this image?"']


SDK_CHECKS: dict[str, Callable[[list[str]], None]] = {
    "hello_world": sdk_hello_world,
    "dynamic_system_prompt": sdk_dynamic_system_prompt,
    "tools": sdk_tools,
    "stream_items": sdk_stream_items,
    "stream_text": sdk_stream_text,
    "stream_function_call_args": sdk_stream_function_call_args,
    "lifecycle_example": sdk_lifecycle_example,
    "agent_lifecycle_example": sdk_agent_lifecycle_example,
    "usage_tracking": sdk_usage_tracking,
    "local_image": sdk_image,
    "remote_image": sdk_image,
}
#: The SDK's examples that do not run here, with the reason (the README's table).
SDK_NOT_RUNNING = {"previous_response_id": "previous_response_id"}


def test_every_sdk_example_is_accounted_for() -> None:
    present = {p.stem for p in SDK_EXAMPLES.glob("*.py")
               if not p.name.startswith("_") and p.stem != "auto_mode"}
    assert present == set(SDK_CHECKS) | set(SDK_NOT_RUNNING)
    assert len(present) == 12 and len(SDK_CHECKS) >= 11


@pytest.mark.parametrize("name", sorted(SDK_CHECKS))
def test_agents_sdk_example_runs_with_only_its_imports_changed(name: str) -> None:
    out = run_sdk_example(name)
    assert out.returncode == 0, f"{name} failed:\n{out.stdout}\n{out.stderr}"
    assert out.stderr == ""
    SDK_CHECKS[name](out.stdout.splitlines())


def test_previous_response_id_example_stops_with_a_clear_error() -> None:
    out = run_sdk_example("previous_response_id")
    assert out.returncode == 1
    assert out.stdout.splitlines()[:2] == [
        "=== Non-streaming Example ===", 'You said: "What is the largest country in South '
        'America?"']
    assert ("UnsupportedParameterError: previous_response_id continues a conversation stored "
            "on OpenAI's server" in out.stderr)


def test_sdk_examples_differ_from_the_sdk_only_in_imports() -> None:
    """Every line naming aisuite_like, the model set-up or the copied helper is an import."""
    for path in SDK_EXAMPLES.glob("*.py"):
        if path.name.startswith("_") or path.stem == "auto_mode":
            continue
        text = path.read_text()
        assert "from agents" not in text and "openai" not in text.replace(
            "OpenAI", ""), path.name
        for line in text.splitlines():
            if "aisuite_like" in line or "_setup" in line or "from auto_mode" in line:
                assert line.startswith(("from ", "import ")), (path.name, line)
