"""The ``aisuite-like`` command, run as a real subprocess (``python -m aisuite_like``)."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any, Union

import pytest

import aisuite_like as ai

ROOT = pathlib.Path(__file__).resolve().parents[2]


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
    ("gpt-4o", "InvalidModelError: Invalid model format. Expected 'provider:model'"),
    ("nosuch:model", "UnknownProviderError: Invalid provider key 'nosuch'"),
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
    assert rows["deepgram"][1:] == ["deepgram", "yes", "DEEPGRAM_API_KEY", "no"]
    assert out.stdout.splitlines()[0].split()[0] == "PROVIDER"


def test_providers_does_not_import_vendor_sdks() -> None:
    code = ("import sys; from aisuite_like.cli import main; main(['providers']); "
            "print([m for m in ('openai', 'anthropic', 'google.genai') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), cwd=ROOT, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]"


# --- input that is not UTF-8, malformed ids, a closed stdout: one line, no traceback --------

DEEP_ID = "batch_" + base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode().rstrip("=")


def run_bytes(*args: Union[str, bytes], stdin: bytes = b"", cwd: pathlib.Path = ROOT,
              **env: str) -> subprocess.CompletedProcess[bytes]:
    """``run_cli`` with raw bytes: arguments and stdin need not be UTF-8."""
    return subprocess.run([sys.executable, "-m", "aisuite_like", *args], input=stdin,
                          capture_output=True, cwd=cwd, env=_env(**env), timeout=120)


def one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert text.count("\n") == 1 and text.startswith("aisuite-like: "), text
    return text


@pytest.mark.parametrize("args, stdin, says", [
    (("chat", "-m", "test:x", "-"), b"caf\xe9 au lait\n", "the prompt on stdin"),
    (("chat", "-m", "test:x", b"caf\xe9"), b"", "the prompt"),
    (("chat", "-m", "test:x", "hi", "--system", b"\xff"), b"", "--system"),
    (("batch", "submit", "-"), b'{"custom_id": "caf\xe9"}\n', "stdin"),
], ids=["stdin-prompt", "argv-prompt", "argv-system", "batch-stdin"])
def test_input_that_is_not_utf8_is_a_usage_error(args: tuple[Any, ...], stdin: bytes,
                                                 says: str) -> None:
    out = run_bytes(*args, stdin=stdin, PYTHONIOENCODING="utf-8:strict")
    assert out.returncode == 2, out.stderr
    line = one_line(out.stderr)
    assert says in line and "not UTF-8" in line and out.stdout == b""


def test_a_batch_file_that_is_not_utf8_is_a_usage_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b'{"custom_id": "a"}\n{"custom_id": "caf\xe9"}\n')
    out = run_bytes("batch", "submit", str(path))
    assert out.returncode == 2
    line = one_line(out.stderr)
    assert f"{path}:2" in line and "not UTF-8" in line and "0xe9" in line


def test_a_batch_line_nested_5000_deep_is_a_usage_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text('{"custom_id": "a", "x": ' + "[" * 5000 + "]" * 5000 + "}\n")
    out = run_bytes("batch", "submit", str(path))
    assert out.returncode == 2
    assert f"{path}:1: not JSON (nested more than 200 levels deep)" in one_line(out.stderr)


@pytest.mark.parametrize("bad", ["", "batch_", "batch_!!!", DEEP_ID, b"batch_\xff"])
def test_malformed_batch_ids_exit_2(bad: Union[str, bytes]) -> None:
    for command in ("status", "results"):
        out = run_bytes("batch", command, bad)
        assert out.returncode == 2
        assert "InvalidBatchIdError" in one_line(out.stderr)


def test_a_closed_stdout_ends_with_one_line() -> None:
    """``aisuite-like ... | head``: the reader goes away while the answer streams."""
    proc = subprocess.Popen([sys.executable, "-m", "aisuite_like", "chat", "-m", "test:x",
                             "-", "--stream"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"word " * 200_000)
    proc.stdin.close()
    assert proc.stdout.read(10) == b"You said: "
    proc.stdout.close()
    code = proc.wait(timeout=120)
    line = one_line(proc.stderr.read())
    assert code == 141 and "stdout was closed" in line


def test_an_answer_stdout_cannot_encode_exits_1() -> None:
    out = run_bytes("chat", "-m", "test:x", "café", PYTHONIOENCODING="ascii")
    assert out.returncode == 1
    line = one_line(out.stderr)
    assert "cannot be written to stdout" in line and "PYTHONIOENCODING=utf-8" in line
