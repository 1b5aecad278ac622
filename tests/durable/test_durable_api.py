"""aisuite_like.durable's checks before anything starts, and its lazy import of DBOS (no DBOS
is launched here; the runs themselves are in durable/test_durable.py and durable/test_durable_postgres.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import aisuite_like as ai
from aisuite_like import durable
from aisuite_like.durable import runs as durable_runs
from aisuite_like.errors import MissingDependencyError

MESSAGES = [{"role": "user", "content": "hi"}]


def module_tool(n: int) -> str:
    """A module-level tool."""
    return str(n)


@ai.function_tool
def decorated_tool(n: int) -> str:
    """A module-level tool made with function_tool."""
    return str(n)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)


def test_importing_the_package_and_durable_does_not_import_dbos() -> None:
    proc = run_python("import sys, aisuite_like, aisuite_like.durable\n"
                      "from aisuite_like import durable\n"
                      "durable.configure(None)\n"
                      "print(sorted(m for m in sys.modules if m.split('.')[0] == 'dbos'))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_without_dbos_a_typed_error_names_the_extra() -> None:
    proc = run_python("import sys\nsys.modules['dbos'] = None\n"
                      "from aisuite_like import durable\nimport aisuite_like as ai\n"
                      "try:\n    durable.launch()\n"
                      "except ai.MissingDependencyError as exc:\n    print('ERR', exc)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ERR ")
    assert "pip install 'aisuite-like[dbos]'" in proc.stdout
    assert issubclass(MissingDependencyError, ImportError)


@pytest.mark.parametrize("tool", [
    lambda n: n,
    pytest.param("closure", id="closure"),
])
def test_a_tool_a_fresh_process_cannot_import_is_refused_before_anything_starts(
        tool: object) -> None:
    if tool == "closure":
        def local_tool(n: int) -> int:
            return n
        tool = local_tool
    with pytest.raises(durable.NotDurableError, match="module level"):
        durable.create(model="openai:gpt-x", messages=MESSAGES, tools=[tool], max_turns=2)


def test_a_shadowed_name_is_refused() -> None:
    def module_tool(n: int) -> str:  # same qualname as the module's, but not it
        return str(n)
    module_tool.__qualname__ = "module_tool"
    with pytest.raises(durable.NotDurableError, match="is not what"):
        durable_runs._tool_ref(module_tool)


def test_module_level_tools_are_recorded_by_import_path() -> None:
    assert durable_runs._tool_ref(module_tool) == f"{__name__}:module_tool"
    assert durable_runs._tool_ref(decorated_tool) == f"{__name__}:decorated_tool"
    assert durable_runs._resolve_tool(f"{__name__}:decorated_tool") is decorated_tool
    with pytest.raises(durable.NotDurableError, match="cannot be imported"):
        durable_runs._resolve_tool(f"{__name__}:gone")


@pytest.mark.parametrize("kwargs, match", [
    ({"api_key": "sk-x"}, "credential"),
    ({"extra_headers": {"Authorization": "Bearer x"}}, "credential"),
    ({"aws_secret_access_key": "x"}, "credential"),
    ({"headers": {}}, "credential"),
    ({"stream": True}, "cannot stream"),
    ({"tool_policy": ai.AllowAll()}, "tool_policy"),
    ({"budget": ai.Budget(1.0)}, "client"),
    ({"context": ai.context.Trim(1000)}, "context"),
])
def test_arguments_a_run_must_not_record_are_refused(kwargs: dict[str, object],
                                                     match: str) -> None:
    with pytest.raises(durable.NotDurableError, match=match):
        durable.create(model="openai:gpt-x", messages=MESSAGES, tools=[module_tool],
                       max_turns=2, **kwargs)


def test_bad_arguments_and_no_launch_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="max_turns"):
        durable.create(model="openai:gpt-x", messages=MESSAGES, max_turns=0)
    with pytest.raises(RuntimeError, match=r"durable\.launch\(\)"):
        durable.create(model="openai:gpt-x", messages=MESSAGES, tools=[module_tool],
                       max_turns=2)
    with pytest.raises(TypeError, match=r"ai\.Agent"):
        durable.DurableAgent("not an agent")  # type: ignore[arg-type]


def test_durable_agents_are_found_by_name_so_names_are_unique() -> None:
    agent = ai.Agent(name="durable api test agent", model="openai:gpt-x")
    first = durable.DurableAgent(agent)
    assert repr(first) == "DurableAgent('durable api test agent')"
    durable.DurableAgent(agent)  # the same agent again: fine
    with pytest.raises(ValueError, match="exists already"):
        durable.DurableAgent(ai.Agent(name="durable api test agent", model="openai:gpt-x"))
    with pytest.raises(RuntimeError, match=r"durable\.launch\(\)"):
        first.run_sync("hi")


def test_ordinary_parameters_with_token_or_key_in_their_name_pass_the_check() -> None:
    # Refused only for want of launch(), i.e. after the recording checks passed.
    with pytest.raises(RuntimeError, match=r"durable\.launch\(\)"):
        durable.create(model="openai:gpt-x", messages=MESSAGES, tools=[module_tool],
                       max_turns=2, max_tokens=5, max_completion_tokens=None,
                       prompt_cache_key="k1")


def test_only_this_modules_queue_warning_is_silenced() -> None:
    """The filter on DBOS's logger drops its "already exists in queue" warning for a run id
    started again one way after the other on aisuite_like's queue, and nothing else (the runs
    themselves: durable/test_durable.py::test_reusing_a_run_id_prints_no_dbos_queue_warning)."""
    import logging

    pytest.importorskip("dbos")
    durable_runs._dbos()  # what every durable call does first: installs the filter
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger = logging.getLogger("dbos")
    handler = Keep()
    logger.addHandler(handler)
    try:
        text = ("Workflow already exists in queue: {}, but the provided queue name is: {}. "
                "The queue is not updated.")
        for old, new in ((durable.QUEUE_NAME, None), (None, durable.QUEUE_NAME),
                         ("their_queue", None), (durable.QUEUE_NAME, "their_queue")):
            logger.warning(text.format(old, new))
        logger.warning("another warning")
    finally:
        logger.removeHandler(handler)
    assert seen == [text.format("their_queue", None),
                    text.format(durable.QUEUE_NAME, "their_queue"), "another warning"]
