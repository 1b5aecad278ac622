"""Every example runs offline (no key in the environment) in a subprocess, exits 0, announces
the model it uses on its first line, and prints output of the expected shape."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
from collections.abc import Callable

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
OFFLINE_FIRST_LINE = "Using test:offline (no API key found; set OPENAI_API_KEY to use OpenAI"


def _env() -> dict[str, str]:
    # conftest's autouse fixture already removed the known key variables from os.environ.
    env = {k: v for k, v in os.environ.items()
           if not k.endswith(("_API_KEY", "_TOKEN")) and k not in ("EXAMPLE_MODEL",
                                                                   "OPENAI_BASE_URL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run_example(name: str) -> list[str]:
    out = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                         cwd=ROOT, env=_env(), timeout=120)
    assert out.returncode == 0, f"{name} failed:\n{out.stdout}\n{out.stderr}"
    assert out.stderr == "", out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(OFFLINE_FIRST_LINE), lines[0]
    return lines[1:]


def check_quickstart(lines: list[str]) -> None:
    assert lines == ['Answer: You said: "What is the capital of France?"',
                     "finish_reason=stop tokens=27"]  # 63 + 42 characters: 16 + 11


def check_manual_tools(lines: list[str]) -> None:
    assert lines == [
        "Model asked for 1 tool call(s) (finish_reason=tool_calls)",
        '  get_exchange_rate({"base": "EUR", "quote": "USD"}) -> 1.08',
        "Final answer: Tool results: get_exchange_rate: 1.08",
    ]


_CALL_LINE = re.compile(r"^  turn (\d+): (\w+)\((\{.*\})\) -> (.+) \[(ok|error), [\d.]+ ms\]$")


def _trace(lines: list[str], *, model_calls: int, tools: list[str]) -> list[re.Match]:
    start = lines.index(f"Trace ({model_calls} model call(s), {len(tools)} tool call(s)):")
    calls = [_CALL_LINE.match(line) for line in lines[start + 1:start + 1 + len(tools)]]
    assert all(calls), lines
    assert [m.group(2) for m in calls] == tools
    assert all(m.group(5) == "ok" for m in calls)
    for m in calls:
        json.loads(m.group(3))  # arguments are printed as JSON
    assert re.match(r"^Final answer \(stop_reason=completed, \d+ tokens\):$",
                    lines[start + 1 + len(tools)])
    return calls


def check_tool_loop(lines: list[str]) -> None:
    calls = _trace(lines, model_calls=2, tools=["get_weather", "get_local_time"])
    assert calls[0].group(3) == '{"city": "Paris"}'
    assert calls[0].group(4) == "sunny, 22 degrees celsius in Paris"
    assert lines[-1] == ("  Tool results: get_weather: sunny, 22 degrees celsius in Paris; "
                         'get_local_time: {"city":"Paris","local_time":"14:05",'
                         '"timezone":"Europe/Paris"}')


def check_streamed_tool_loop(lines: list[str]) -> None:
    assert "[turn 1] <calls search_docs> " in lines
    assert any(line.startswith("[turn 2] Tool results: search_docs: ") for line in lines)
    _trace(lines, model_calls=2, tools=["search_docs"])


def check_async_fanout(lines: list[str]) -> None:
    prompts = [line for line in lines if line.startswith("- ")]
    assert len(prompts) == 8
    assert lines[1] == '  You said: "Give one fun fact about the number 1."'
    assert re.match(r"^8 prompts, 0 failed, [\d.]+s$", lines[-1])


def check_structured_output(lines: list[str]) -> None:
    assert len(lines) == 1 and lines[0].startswith("Validated City: ")
    data = json.loads(lines[0].removeprefix("Validated City: "))
    assert set(data) == {"name", "country", "population_millions", "landmarks"}


def check_agent_handoff(lines: list[str]) -> None:
    # The timeline of print_trace() comes first; its exact layout belongs to agents/run.py.
    assert any("transfer_to_billing" in line for line in lines[:-3])
    assert lines[-3] == ("Tools called: lookup_order, list_payments, transfer_to_billing, "
                         "issue_refund")
    assert lines[-2] == "Final output (status=completed, last agent=billing):"
    assert "issue_refund: refunded 42.50 EUR on order A17" in lines[-1]


def check_observability(lines: list[str]) -> None:
    shape = [re.sub(r"\[[\d.]+ ms\]", "[ms]", line) for line in lines]
    assert shape[0] == "Spans:"
    assert shape[1] == "invoke_agent  [ms]  tokens in=47 out=44"
    assert shape[2] == "  chat offline  [ms]  tokens in=7 out=14  finish=tool_calls"
    assert sorted(shape[3:5]) == ["  execute_tool get_pollen  [ms]  ERROR ConnectionError",
                                  "  execute_tool get_weather  [ms]"]  # they run concurrently
    assert shape[5] == "  chat offline  [ms]  tokens in=40 out=30  finish=stop"
    assert shape[6] == "Metrics:"
    assert shape[7:9] == ["  gen_ai.client.token.usage (input): 2 calls, sum 47 {token}",
                          "  gen_ai.client.token.usage (output): 2 calls, sum 44 {token}"]
    assert shape[9].startswith("  gen_ai.client.operation.duration: 2 calls, sum ")
    assert shape[10:] == ["Cost of the run: unknown (no price for this model)"]


def check_mcp_tools(lines: list[str]) -> None:
    assert lines[0] == "Server tools: get_forecast, word_count"
    calls = _trace(lines, model_calls=2, tools=["get_forecast", "word_count"])
    assert json.loads(calls[0].group(4)) == {"city": "Paris", "temperature_c": 22,
                                             "sky": "sunny"}
    assert calls[1].group(4) == "4"
    assert lines[-1] == "Manual call: word_count -> 3 (is_error=False)"


CHECKS: dict[str, Callable[[list[str]], None]] = {
    "quickstart.py": check_quickstart,
    "manual_tools.py": check_manual_tools,
    "tool_loop.py": check_tool_loop,
    "streamed_tool_loop.py": check_streamed_tool_loop,
    "async_fanout.py": check_async_fanout,
    "structured_output.py": check_structured_output,
    "agent_handoff.py": check_agent_handoff,
    "observability.py": check_observability,
    "mcp_tools.py": check_mcp_tools,
}
# Not examples of their own: files an example starts.
HELPERS = {"mcp_server.py"}


def test_every_example_is_checked() -> None:
    present = {p.name for p in EXAMPLES.glob("*.py")
               if not p.name.startswith("_") and p.name not in HELPERS}
    assert present == set(CHECKS), f"examples without a test: {present - set(CHECKS)}"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_example_runs_offline(name: str) -> None:
    CHECKS[name](run_example(name))


def test_make_demo_runs_the_tool_loop() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "$(PY) examples/tool_loop.py" in makefile


@pytest.fixture()
def pick_model(monkeypatch: pytest.MonkeyPatch) -> Callable[[], str]:
    spec = importlib.util.spec_from_file_location("_examples_common", EXAMPLES / "_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delenv("EXAMPLE_MODEL", raising=False)
    return module.pick_model


@pytest.mark.parametrize("variables, expected", [
    ({}, "Using test:offline (no API key found"),
    ({"OPENAI_API_KEY": "sk-x", "ANTHROPIC_API_KEY": "y"}, "Using openai:gpt-4o-mini "),
    ({"ANTHROPIC_API_KEY": "y"}, "Using anthropic:"),
    ({"GEMINI_API_KEY": "z"}, "Using google:gemini"),
    ({"GOOGLE_API_KEY": "z"}, "Using google:gemini"),
    ({"EXAMPLE_MODEL": "groq:llama", "OPENAI_API_KEY": "sk-x"}, "Using groq:llama "),
])
def test_pick_model_prefers_real_keys(pick_model: Callable[[], str], variables: dict,
                                      expected: str, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    model = pick_model()
    line = capsys.readouterr().out
    assert line.startswith(expected) and line.count("\n") == 1
    assert model == line.split()[1]
    for value in variables.values():  # a key's value is never printed
        if value.startswith("sk-"):
            assert value not in line
