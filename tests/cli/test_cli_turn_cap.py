"""``aisuite-like chat --tool ... --max-turns N`` when the run reaches the cap with the model
still asking for tools: no final answer, so exit 1 with a message naming the cap and how to
raise it (the tool trace is still printed). Run as a real subprocess."""

from __future__ import annotations

import json
import pathlib
import textwrap

import pytest
from test_cli import run_cli


@pytest.fixture()
def tools_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "captools.py").write_text(textwrap.dedent('''
        def shout(text: str) -> str:
            """Upper-case a text."""
            return text.upper() + "!"
    '''))
    return tmp_path


MESSAGE = ("aisuite-like: error: the run reached --max-turns 1 while the model still asked "
           "for tools, so there is no final answer; raise it (e.g. --max-turns 2) to let the "
           "run continue\n")


@pytest.mark.parametrize("extra", [(), ("--stream",)], ids=["plain", "stream"])
def test_turn_cap_hit_exits_1_with_the_reason(tools_dir: pathlib.Path,
                                              extra: tuple[str, ...]) -> None:
    out = run_cli("chat", "-m", "test:x", "shout please", "--tool", "captools:shout",
                  "--max-turns", "1", *extra, cwd=tools_dir)
    assert out.returncode == 1
    assert out.stderr.endswith(MESSAGE)
    assert '-> shout({"text": "text"}) = TEXT!' in out.stderr  # what the run did
    assert out.stdout.strip() == ""  # no answer was given: nothing pretends to be one


def test_turn_cap_hit_with_json_prints_the_response_and_exits_1(tools_dir: pathlib.Path) -> None:
    out = run_cli("chat", "-m", "test:x", "go", "--tool", "captools:shout", "--max-turns", "1",
                  "--json", cwd=tools_dir)
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data["stop_reason"] == "max_turns"
    assert [e["result"] for e in data["tool_events"]] == ["TEXT!"]
    assert out.stderr == MESSAGE


def test_enough_turns_still_exit_0(tools_dir: pathlib.Path) -> None:
    out = run_cli("chat", "-m", "test:x", "go", "--tool", "captools:shout", "--max-turns", "2",
                  cwd=tools_dir)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Tool results: shout: TEXT!\n"
