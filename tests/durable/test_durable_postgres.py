"""Durable runs shared by two worker processes through a DBOS queue on one Postgres.

The test starts its own Postgres server in a temporary directory (initdb / pg_ctl from
/usr/lib/postgresql/*/bin, run as the ``postgres`` user when the test runs as root, since
initdb refuses root), on 127.0.0.1 and a free port. It skips, saying why, when the server
binaries are not installed (``.ci/run`` installs them from Debian).

Two workers (executor ids w1 and w2) take runs from the queue. A producer that never
launches submits one run; the worker that takes it is SIGKILLed while the server holds its
second model request (its first model call and tool call are recorded). The surviving worker
is told to recover the dead executor's runs (``durable.recover(["w1"])``, what an operator or
supervisor does when a worker will not come back under its id); it resumes the run, which
completes with each model call answered once and each tool call executed once.
"""

from __future__ import annotations

import base64
import glob
import os
import pathlib
import pickle
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("dbos")
psycopg = pytest.importorskip("psycopg")

from support.durable_server import DurableServer  # noqa: E402
from test_durable import API_KEY, Workers, kill_when_held  # noqa: E402


def _server_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("no Postgres server binaries (/usr/lib/postgresql/*/bin/initdb); install "
                    "the Debian package 'postgresql' (.ci/run does) to run this test")
    return os.path.dirname(found[-1])


def _as_postgres() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' user to run initdb as")
    return ["runuser", "-u", "postgres", "--"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    bindir = _server_bin()
    prefix = _as_postgres()
    root = tempfile.mkdtemp(prefix="aisuite-like-pg-")
    data = os.path.join(root, "data")
    if prefix:
        shutil.chown(root, "postgres", "postgres")
    port = _free_port()
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE,
                             "check": True, "timeout": 60}
    try:
        subprocess.run([*prefix, f"{bindir}/initdb", "-D", data, "-A", "trust", "-U",
                        "postgres", "--no-sync"], **quiet)
        subprocess.run([*prefix, f"{bindir}/pg_ctl", "-D", data, "-l",
                        os.path.join(root, "log"), "-w", "-o",
                        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                        "-c synchronous_commit=off -c full_page_writes=off", "start"], **quiet)
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run([*prefix, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _decoded_values(url: str) -> list[str]:
    """Every text value of every table of the DBOS schema, and its base64-pickle decoding."""
    out: list[str] = []
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'dbos'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM dbos."{table}"'):
                for value in row:
                    if isinstance(value, (bytes, str)):
                        out.append(value.decode("latin-1") if isinstance(value, bytes)
                                   else value)
                        try:
                            out.append(repr(pickle.loads(base64.b64decode(value))))
                        except Exception:
                            pass
    return out


def _wait_launched(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("LAUNCHED"), proc.communicate()[1][-3000:]


def test_two_workers_share_a_queue_and_a_killed_workers_run_completes_once(
        postgres_url: str, tmp_path: pathlib.Path) -> None:
    url = f"{postgres_url}/durable_queue"
    with DurableServer(rounds=2, hold_at=1) as server:
        workers = Workers(tmp_path, server)
        try:
            w1 = workers.start("serve", url, "-", "w1")
            _wait_launched(w1)  # w1 creates the database and the queue first
            w2 = workers.start("serve", url, "-", "w2")
            _wait_launched(w2)
            by_executor = {"w1": w1, "w2": w2}
            submitted = workers.finish(workers.start("submit", url, "queued-1"))
            assert submitted == {"run_id": "queued-1"}

            assert server.held.wait(60), "no worker took the run from the queue"
            first = workers.tool_lines()
            assert [line.split()[0] for line in first] == ["1"]
            taker = next(e for e, p in by_executor.items() if str(p.pid) == first[0].split()[1])
            survivor = "w2" if taker == "w1" else "w1"
            kill_when_held(server, by_executor[taker])
            assert server.answered == Counter({0: 1})

            (tmp_path / f"recover-{taker}").touch()  # the survivor recovers the dead one's runs
            done = workers.finish(workers.start("wait", url, "queued-1"))
            assert by_executor[survivor].poll() is None
        finally:
            workers.close()
    assert done == {"content": "done after 2 tool calls", "stop_reason": "completed"}
    assert server.answered == Counter({0: 1, 1: 1, 2: 1})
    lines = workers.tool_lines()
    assert [line.split()[0] for line in lines] == ["1", "2"]
    assert lines[1].split()[1] == str(by_executor[survivor].pid)  # resumed by the survivor
    values = _decoded_values(url)
    assert any("record twice" in v for v in values)
    assert not [v for v in values if API_KEY in v]
