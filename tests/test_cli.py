"""The ``aisuite-like`` command, run as a real subprocess (``python -m aisuite_like``)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import aisuite_like as ai

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict[str, str]:
    # conftest's autouse fixture already removed the developer's keys from os.environ; drop
    # anything key-shaped it may not list, too.
    env = {k: v for k, v in os.environ.items()
           if not k.endswith(("_API_KEY", "_TOKEN")) and k != "OPENAI_BASE_URL"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_cli(*args: str, stdin: str = "", cwd: pathlib.Path = ROOT,
            **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aisuite_like", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd, env=_env(**env), timeout=120)


def test_chat_with_the_test_model() -> None:
    out = run_cli("chat", "-m", "test:offline", "Hello there", "--system", "be brief")
    assert out.returncode == 0, out.stderr
    assert out.stdout == 'You said: "Hello there"\n'
    assert out.stderr == ""


def test_prompt_from_stdin_and_stream() -> None:
    out = run_cli("chat", "-m", "test:x", "-", "--stream", stdin="piped prompt\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout == 'You said: "piped prompt"\n'


def test_json_output_parses() -> None:
    out = run_cli("chat", "-m", "test:x", "hi", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    response = ai.ChatCompletionResponse.model_validate(data)
    assert response.choices[0].message.content == 'You said: "hi"'
    assert data["usage"]["total_tokens"] == 5 and data["provider"] == "test"


def test_stream_json_prints_one_chunk_per_line() -> None:
    out = run_cli("chat", "-m", "test:x", "two words", "--stream", "--json")
    assert out.returncode == 0, out.stderr
    chunks = [ai.ChatCompletionChunk.model_validate_json(line)
              for line in out.stdout.splitlines()]
    assert len(chunks) > 2 and chunks[-1].usage is not None
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == 'You said: "two words"'


@pytest.fixture()
def tools_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "mytools.py").write_text(textwrap.dedent('''
        def shout(text: str) -> str:
            """Upper-case a text."""
            return text.upper() + "!"

        NOT_A_FUNCTION = 3
    '''))
    return tmp_path



def test_tool_from_a_module_path_runs_in_the_loop(tools_dir: pathlib.Path) -> None:
    out = run_cli("chat", "-m", "test:x", "shout please", "--tool", "mytools:shout",
                  "--max-turns", "3", cwd=tools_dir)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Tool results: shout: TEXT!\n"
    assert '-> shout({"text": "text"}) = TEXT!' in out.stderr


def test_tool_from_a_file_path_with_json(tools_dir: pathlib.Path) -> None:
    out = run_cli("chat", "-m", "test:x", "go", "--tool", str(tools_dir / "mytools.py") + ":shout",
                  "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["stop_reason"] == "completed"
    assert [e["name"] for e in data["tool_events"]] == ["shout"]


@pytest.mark.parametrize("spec, fragment", [
    ("nosuchmodule_xyz:f", "cannot import 'nosuchmodule_xyz'"),
    ("mytools:missing", "has no attribute 'missing'"),
    ("mytools:NOT_A_FUNCTION", "not a function"),
    ("mytools", "expected MODULE:FUNC"),
    ("./nowhere.py:f", "no such file"),
])
def test_bad_tool_path_is_a_usage_error(tools_dir: pathlib.Path, spec: str,
                                        fragment: str) -> None:
    out = run_cli("chat", "-m", "test:x", "hi", "--tool", spec, cwd=tools_dir)
    assert out.returncode == 2
    assert fragment in out.stderr and out.stdout == ""


@pytest.mark.parametrize("model, fragment", [
    ("gpt-4o", "InvalidModelError: model must be 'provider:model'"),
    ("nosuch:model", "UnknownProviderError: unknown provider 'nosuch'"),
])
def test_bad_model_is_a_usage_error_with_help(model: str, fragment: str) -> None:
    out = run_cli("chat", "-m", model, "hi")
    assert out.returncode == 2
    assert fragment in out.stderr
    assert "aisuite-like providers" in out.stderr and "test:offline" in out.stderr


@pytest.mark.parametrize("args", [
    (), ("chat", "hi"), ("chat", "-m", "test:x"), ("chat", "-m", "test:x", "hi",
                                                   "--max-turns", "0"), ("frobnicate",),
])
def test_argparse_errors_exit_2(args: tuple[str, ...]) -> None:
    out = run_cli(*args)
    assert out.returncode == 2 and "usage:" in out.stderr


def test_empty_stdin_prompt_is_a_usage_error() -> None:
    out = run_cli("chat", "-m", "test:x", "-", stdin="  \n")
    assert out.returncode == 2 and "prompt is empty" in out.stderr


def test_api_error_exits_1_with_its_type() -> None:
    out = run_cli("chat", "-m", "openai:gpt-4o-mini", "hi")  # no key in the environment
    assert out.returncode == 1
    assert out.stderr.startswith("aisuite-like: error: AuthenticationError:")
    assert "OPENAI_API_KEY" in out.stderr


def test_providers_lists_every_key_and_never_prints_keys() -> None:
    secret = "sk-proj-THISISASECRETVALUE0123456789"
    out = run_cli("providers", OPENAI_API_KEY=secret, HF_TOKEN="hf_ALSOSECRET12345")
    assert out.returncode == 0, out.stderr
    assert secret not in out.stdout + out.stderr and "ALSOSECRET" not in out.stdout
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()[1:]}
    assert set(rows) == set(ai.provider_keys())
    assert rows["openai"][1:] == ["openai", "yes", "OPENAI_API_KEY", "yes"]
    assert rows["anthropic"][-1] == "no"
    assert rows["huggingface"][-1] == "yes"
    assert rows["test"][1:3] == ["-", "built-in"]
    assert out.stdout.splitlines()[0].split()[0] == "PROVIDER"


def test_providers_does_not_import_vendor_sdks() -> None:
    code = ("import sys; from aisuite_like.cli import main; main(['providers']); "
            "print([m for m in ('openai', 'anthropic', 'google.genai') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), cwd=ROOT, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]"
