"""`aisuite-like batch submit / status / results` against the loopback batch server (the
real SDKs, configured from the environment as the command is)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.batch_server import BatchServer

from aisuite_like.cli import main

KEY = "sk-test-CLI-SECRET-4242"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    with BatchServer(polls_to_finish=2) as s:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", s.url + "/v1")
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY + "-ant")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", s.url)
        yield s


def cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def write_requests(tmp_path: Path, *lines: Any) -> str:
    path = tmp_path / "requests.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return str(path)


REQUESTS = [
    {"custom_id": "a", "model": "openai:gpt-4o-mini",
     "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5},
    {"custom_id": "fail-b", "model": "anthropic:claude-haiku-4-5",
     "messages": [{"role": "user", "content": "yo"}]},
]


def test_submit_wait_status_results(server: BatchServer, tmp_path: Path) -> None:
    code, out, err = cli("batch", "submit", write_requests(tmp_path, *REQUESTS), "--wait",
                         "--poll-interval", "0.01", "--metadata", "team=qa")
    assert code == 0
    batch_id = out.strip()
    assert batch_id.startswith("batch_") and "\n" not in batch_id
    assert "submitted 2 requests in 2 provider batches: openai, anthropic" in err
    assert "batch: completed 2/2 done (1 failed)" in err.splitlines()[-1]
    assert json.loads(server.uploads[0][0])["body"]["max_tokens"] == 5

    code, out, _ = cli("batch", "status", batch_id)
    assert code == 0
    assert out.splitlines()[0] == "completed 2/2 done (1 failed)"
    assert "  anthropic msgbatch_3: completed (ended) 1/1" in out.splitlines()
    code, out, _ = cli("batch", "status", batch_id, "--json")
    assert json.loads(out)["metadata"] == {"team": "qa"}

    code, out, err = cli("batch", "results", batch_id)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["custom_id"] == "a"
    assert lines[0]["response"]["choices"][0]["message"]["content"] == "echo a"
    assert lines[1] == {"custom_id": "fail-b", "error": {
        "type": "BadRequestError", "status_code": 400,
        "message": "anthropic batch request error (invalid_request_error): injected bad request"}}
    assert err == "2 results: 1 ok, 1 errors (batch completed)\n"
    assert KEY not in out + err


def test_submit_from_stdin_without_wait(server: BatchServer) -> None:
    code, out, err = cli("batch", "submit", "-", stdin=json.dumps(REQUESTS[0]) + "\n\n")
    assert code == 0 and out.startswith("batch_")
    assert err == "submitted 1 requests in 1 provider batch: openai\n"  # no progress lines
    code, out, _ = cli("batch", "results", out.strip(), "--wait", "--poll-interval", "0.01")
    assert code == 0 and json.loads(out)["custom_id"] == "a"


@pytest.mark.parametrize("lines, text", [
    (["not json"], "requests.jsonl:1: not JSON"),
    ([REQUESTS[0], "[1]"], "requests.jsonl:2: expected a JSON object"),
    ([REQUESTS[0], REQUESTS[0]], "used twice"),
    ([{**REQUESTS[0], "stream": True}], "stream"),
    ([{**REQUESTS[0], "temprature": 0.1}], "did you mean"),
    ([{**REQUESTS[0], "temperature": "hot"}], "temperature"),
    ([{**REQUESTS[1], "seed": 1}], "UnsupportedParameterError"),
    ([{**REQUESTS[0], "model": "nope"}], "InvalidModelError"),
])
def test_bad_files_exit_2_before_anything_is_sent(server: BatchServer, tmp_path: Path,
                                                   lines: list[Any], text: str) -> None:
    code, out, err = cli("batch", "submit", write_requests(tmp_path, *lines))
    assert code == 2 and out == "" and text in err
    assert server.requests == []


def test_usage_errors(server: BatchServer, tmp_path: Path) -> None:
    code, _, err = cli("batch", "status", "batch_nope")
    assert code == 2 and "InvalidBatchIdError" in err
    code, _, err = cli("batch", "submit", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err
    code, _, err = cli("batch", "submit", write_requests(tmp_path, REQUESTS[0]),
                       "--metadata", "novalue")
    assert code == 2 and "KEY=VALUE" in err
    with pytest.raises(SystemExit) as info:
        cli("batch", "status", "x", "--poll-interval", "0")
    assert info.value.code == 2
    assert server.requests == []


def test_wait_timeout_exits_1(server: BatchServer, tmp_path: Path) -> None:
    server.polls_to_finish = 10_000
    code, out, err = cli("batch", "submit", write_requests(tmp_path, REQUESTS[0]), "--wait",
                         "--poll-interval", "0.01", "--timeout", "0.05")
    assert code == 1 and out.startswith("batch_")
    assert "BatchTimeoutError" in err and "last status: validating" in err
