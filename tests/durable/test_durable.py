"""Durable runs on DBOS (aisuite_like.durable): crash and resume with SQLite, exactly once.

Every run happens in worker processes (tests/support/durable_worker.py) against a loopback
OpenAI-compatible server started here (tests/support/durable_server.py) that counts the model
calls it answered; the tool appends to a file, so executions are counted across processes.
A worker is killed with SIGKILL while its second model request is held by the server (so
the first model call and the first tool call are recorded, and the held request was never
answered); a new process launches, resumes the run, and it completes.
"""

from __future__ import annotations

import base64
import json
import os
import pathlib
import pickle
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("dbos")

from support.durable_server import DurableServer

HERE = pathlib.Path(__file__).parents[1]
WORKER = str(HERE / "support" / "durable_worker.py")
API_KEY = "sk-durable-test-3c1f0e9a7b55d2"


class Workers:
    def __init__(self, tmp: pathlib.Path, server: DurableServer) -> None:
        self.tmp = tmp
        self.log = tmp / "tools.log"
        self.env = dict(os.environ, DURABLE_BASE_URL=server.url, DURABLE_API_KEY=API_KEY,
                        DURABLE_TOOL_LOG=str(self.log), PYTHONUNBUFFERED="1")
        self.env.pop("DBOS__VMID", None)
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, *args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, WORKER, *args], env=self.env, cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def finish(self, proc: subprocess.Popen[str], timeout: float = 60) -> dict[str, Any]:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err[-3000:]
        line = next(x for x in out.splitlines() if x.startswith("RESULT "))
        return json.loads(line[len("RESULT "):])  # type: ignore[no-any-return]

    def tool_runs(self) -> list[str]:
        """The calls the tool executed, in order (each line: n, then the process id)."""
        return [line.split()[0] for line in self.tool_lines()]

    def tool_lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def kill_when_held(server: DurableServer, proc: subprocess.Popen[str]) -> None:
    """SIGKILL ``proc`` once the server holds its request; the held request stays unanswered."""
    if not server.held.wait(60):
        proc.kill()
        raise AssertionError("the worker never sent the held request: "
                             + proc.communicate()[1][-3000:])
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    server.drop_held()


def decoded_values(db: pathlib.Path) -> list[str]:
    """Every text value of every table, and its base64-pickle decoding where it has one
    (DBOS stores inputs and outputs pickled)."""
    out: list[str] = []
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, (bytes, str)):
                        out.append(value.decode("latin-1") if isinstance(value, bytes) else value)
                        try:
                            out.append(repr(pickle.loads(base64.b64decode(value))))
                        except Exception:
                            pass
    return out


@pytest.fixture
def crash_setup(tmp_path: pathlib.Path) -> Any:
    with DurableServer(rounds=2, hold_at=1) as server:
        workers = Workers(tmp_path, server)
        try:
            yield server, workers, f"sqlite:///{tmp_path / 'dbos.sqlite'}"
        finally:
            workers.close()


@pytest.mark.parametrize("mode", ["create", "agent", "agent-async"])
def test_killed_run_resumes_in_a_new_process_exactly_once(crash_setup: Any, mode: str,
                                                          tmp_path: pathlib.Path) -> None:
    server, workers, url = crash_setup
    first = workers.start(mode, url, "run-1")
    kill_when_held(server, first)
    # Killed after its first model call and first tool call, before the second was answered.
    assert server.answered == Counter({0: 1})
    assert workers.tool_runs() == ["1"]

    resumed = workers.finish(workers.start("resume", url, "run-1"))
    if mode == "create":
        assert resumed == {"content": "done after 2 tool calls", "stop_reason": "completed"}
    else:
        assert resumed == {"final_output": "done after 2 tool calls", "status": "completed"}
    # Each model call answered exactly once (the held one was never answered), each tool
    # executed exactly once, across both processes.
    assert server.answered == Counter({0: 1, 1: 1, 2: 1})
    assert server.received == Counter({0: 1, 1: 2, 2: 1})
    assert workers.tool_runs() == ["1", "2"]
    assert server.authorization == {f"Bearer {API_KEY}"}  # the key came from each process

    # The same run id again: the recorded result, no new model call, no tool run.
    again = workers.finish(workers.start(mode, url, "run-1"))
    assert again["stop_reason" if mode == "create" else "status"] == "completed"
    assert server.answered == Counter({0: 1, 1: 1, 2: 1})
    assert workers.tool_runs() == ["1", "2"]

    # The API key is nowhere in the database: not in the file, not in any decoded value.
    db = tmp_path / "dbos.sqlite"
    assert API_KEY.encode() not in db.read_bytes()
    values = decoded_values(db)
    assert any("record twice" in v for v in values)  # the scan does see the recorded inputs
    assert not [v for v in values if API_KEY in v]


def test_runs_inside_a_program_workflow_are_its_children(tmp_path: pathlib.Path) -> None:
    with DurableServer(rounds=2) as server:
        workers = Workers(tmp_path, server)
        try:
            out = workers.finish(workers.start("child", f"sqlite:///{tmp_path / 'db.sqlite'}",
                                               "user-1"))
        finally:
            workers.close()
    assert out == {"content": "done after 2 tool calls",
                   "final_output": "done after 2 tool calls", "parents": ["user-1", "user-1"]}
    assert server.answered == Counter({0: 2, 1: 2, 2: 2})
    assert workers.tool_runs() == ["1", "2", "1", "2"]


def test_a_paused_approval_waits_durably_across_a_crash(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with DurableServer(rounds=1) as server:
        workers = Workers(tmp_path, server)
        try:
            first = workers.start("approval-run", url, "ask-1")
            assert first.stdout is not None
            line = first.stdout.readline()
            while line and not line.startswith("PENDING "):
                line = first.stdout.readline()
            assert line, first.communicate()[1][-3000:]
            waiting = json.loads(line[len("PENDING "):])
            assert [(w["call_id"], w["tool_name"]) for w in waiting] == [("call_1", "sensitive")]
            first.send_signal(signal.SIGKILL)  # the run waits for a person; its process dies
            first.wait(10)
            assert server.answered == Counter({0: 1})
            assert workers.tool_runs() == []  # not run before approval

            # A process that never launches approves; then a new worker resumes the run.
            approved = workers.finish(workers.start("approve", url, "ask-1"))
            assert approved["approved"] == waiting
            resumed = workers.finish(workers.start("resume", url, "ask-1"))
        finally:
            workers.close()
    assert resumed == {"final_output": "done after 1 tool calls", "status": "completed"}
    assert server.answered == Counter({0: 1, 1: 1})
    assert workers.tool_runs() == ["1"]


def test_concurrent_tool_calls_of_one_response_replay_in_call_order(
        tmp_path: pathlib.Path) -> None:
    """Three calls per response run concurrently, each its own step; killed during the second
    model call and resumed, each ran once and each result is paired with its call."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with DurableServer(rounds=2, hold_at=1, calls=3) as server:
        workers = Workers(tmp_path, server)
        try:
            kill_when_held(server, workers.start("parallel", url, "par-1"))
            assert sorted(workers.tool_runs()) == ["1", "2", "3"]
            resumed = workers.finish(workers.start("parallel", url, "par-1"))
        finally:
            workers.close()
    assert resumed["content"] == "done after 6 tool calls"
    assert resumed["tool_results"] == [f"recorded {n}" for n in range(1, 7)]
    assert sorted(workers.tool_runs()) == ["1", "2", "3", "4", "5", "6"]
    assert server.answered == Counter({0: 1, 1: 1, 2: 1})


def test_a_rejected_call_is_not_run_and_the_model_is_told(tmp_path: pathlib.Path) -> None:
    with DurableServer(rounds=1) as server:
        workers = Workers(tmp_path, server)
        try:
            out = workers.finish(workers.start("reject-run", f"sqlite:///{tmp_path / 'db'}",
                                               "no-1"))
        finally:
            workers.close()
    assert out == {"waiting": ["call_1"], "status": "completed",
                   "results": ["Error: Not today."], "pending_after": [],
                   "unknown": "no call 'call_9' of run 'no-1' waits for approval now; "
                              "waiting: ['call_1'] (see durable.pending)"}
    assert workers.tool_runs() == []
    assert server.answered == Counter({0: 1, 1: 1})


def test_instrumented_resume_spans_only_what_this_process_executed(crash_setup: Any) -> None:
    """Under ai.instrument(), a durable run's tool calls get execute_tool spans, emitted
    inside their step: a resumed run spans the tool call it executes, not the replayed one."""
    server, workers, url = crash_setup
    workers.env["DURABLE_TRACE"] = "1"
    first = workers.start("create", url, "run-t")
    kill_when_held(server, first)
    assert workers.tool_runs() == ["1"]

    resumed = workers.finish(workers.start("resume", url, "run-t"))
    assert resumed["stop_reason"] == "completed"
    assert workers.tool_runs() == ["1", "2"]
    tool_spans = [name for name in resumed["spans"] if name.startswith("execute_tool")]
    assert tool_spans == ["execute_tool record"]  # call 2 only: call 1 was replayed


def test_reusing_a_run_id_prints_no_dbos_queue_warning(tmp_path: pathlib.Path) -> None:
    """A run id given again (the documented way to make a run idempotent) returns the
    recorded run, also when one start was queued (submit, start(queue=True)) and the other
    direct (create, run_sync): DBOS's "Workflow already exists in queue" warning about that
    is not printed; each run still ran once."""
    with DurableServer(rounds=1) as server:
        workers = Workers(tmp_path, server)
        try:
            proc = workers.start("reuse", f"sqlite:///{tmp_path / 'db.sqlite'}", "again")
            out, err = proc.communicate(timeout=120)
        finally:
            workers.close()
    assert proc.returncode == 0, err[-3000:]
    line = next(x for x in out.splitlines() if x.startswith("RESULT "))
    assert json.loads(line[len("RESULT "):]) == {"same": [True, True]}
    assert "Workflow already exists" not in out + err, err[-3000:]
    assert server.answered == Counter({0: 3, 1: 3})  # three runs, each answered once per turn
    assert workers.tool_runs() == ["1", "1", "1"]


@pytest.mark.parametrize("mode, run_span", [("create", "invoke_agent"),
                                            ("agent", "invoke_agent recorder")])
def test_instrumented_resume_has_a_run_span_over_what_this_process_executed(
        crash_setup: Any, mode: str, run_span: str) -> None:
    """Under ai.instrument(), the process that resumes a durable run gives it a run span there,
    the parent of the model and tool calls it executes (the replayed ones have no span)."""
    server, workers, url = crash_setup
    workers.env["DURABLE_TRACE"] = "1"
    first = workers.start(mode, url, "run-s")
    kill_when_held(server, first)
    resumed = workers.finish(workers.start("resume", url, "run-s"))
    assert workers.tool_runs() == ["1", "2"]
    assert resumed["span_parents"] == sorted([
        [run_span, ""], ["chat gpt-test", run_span], ["chat gpt-test", run_span],
        ["execute_tool record", run_span]])
