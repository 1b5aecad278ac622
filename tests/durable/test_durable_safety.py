"""A durable run read from the database imports only tools this process declared, and tools
a fresh process cannot import (defined in ``__main__``) are refused before a run starts.

The tampered run is written straight into a real SQLite DBOS database (through DBOS's own
client, as any writer with access could) and taken by a real worker process
(tests/support/durable_worker.py ``serve``) against the loopback model server
(tests/support/durable_server.py)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("dbos")

from support.durable_server import DurableServer

from aisuite_like import durable
from aisuite_like.durable import runs as durable_runs

HERE = pathlib.Path(__file__).parents[1]
WORKER = str(HERE / "support" / "durable_worker.py")
MESSAGES = [{"role": "user", "content": "record twice"}]

# A module no process of the program declares: importing it, or calling its function, leaves
# a mark on disk.
EVIL = textwrap.dedent("""
    import os
    with open(os.environ["EVIL_MARK"], "a") as f:
        f.write("imported\\n")

    def boom(n: int) -> str:
        with open(os.environ["EVIL_MARK"], "a") as f:
            f.write("called\\n")
        return "boom"
""")


def test_a_tool_defined_in_main_is_refused_before_the_run_starts() -> None:
    code = textwrap.dedent("""
        from aisuite_like import durable

        def lookup(n: int) -> str:
            '''A tool of the script itself.'''
            return str(n)

        for call in (durable.create, durable.submit):
            try:
                call(model="openai:gpt-x", messages=[{"role": "user", "content": "hi"}],
                     tools=[lookup], max_turns=2)
            except durable.NotDurableError as exc:
                print("REFUSED", exc)
        try:
            durable.register_tools(lookup)
        except durable.NotDurableError as exc:
            print("REFUSED", exc)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    refused = [line for line in proc.stdout.splitlines() if line.startswith("REFUSED")]
    assert len(refused) == 3, proc.stdout + proc.stderr
    for line in refused:
        assert "'lookup' is defined in __main__" in line
        assert "move it to a module of its own" in line


def test_register_tools_takes_only_importable_module_level_tools() -> None:
    with pytest.raises(durable.NotDurableError, match="module level"):
        durable.register_tools(lambda n: n)
    durable.register_tools(durable.configure)  # any importable module-level function
    assert f"{durable.configure.__module__}:configure" in durable_runs._DECLARED


def test_a_tampered_run_cannot_make_a_worker_import_an_undeclared_tool(
        tmp_path: pathlib.Path) -> None:
    from dbos import DBOSClient

    (tmp_path / "evil_tools.py").write_text(EVIL)
    mark = tmp_path / "evil.mark"
    url = f"sqlite:///{tmp_path / 'dbos.sqlite'}"
    with DurableServer(rounds=1) as server:
        env = dict(os.environ, DURABLE_BASE_URL=server.url, DURABLE_API_KEY="sk-durable-x",
                   DURABLE_TOOL_LOG=str(tmp_path / "tools.log"), EVIL_MARK=str(mark),
                   PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
                   PYTHONUNBUFFERED="1")
        env.pop("DBOS__VMID", None)
        worker = subprocess.Popen([sys.executable, WORKER, "serve", url, "unused"], env=env,
                                  cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            assert worker.stdout is not None
            assert worker.stdout.readline().strip() == "LAUNCHED", worker.stderr
            writer = DBOSClient(system_database_url=url, application_name="aisuite_like")
            for run_id, tool in (("tampered", "evil_tools:boom"),
                                 ("declared", "support.durable_tools:record")):
                writer.enqueue({"queue_name": durable.QUEUE_NAME,
                                "workflow_name": "aisuite_like.durable.create",
                                "workflow_id": run_id},
                               {"model": "openai:gpt-test", "messages": MESSAGES,
                                "tools": [tool], "max_turns": 3, "kwargs": {}})
            statuses = {}
            deadline = time.monotonic() + 60
            while len(statuses) < 2:
                assert time.monotonic() < deadline, statuses
                for run_id in ("tampered", "declared"):
                    status = writer.retrieve_workflow(run_id).get_status().status
                    if status in ("SUCCESS", "ERROR"):
                        statuses[run_id] = status
                time.sleep(0.1)
            assert statuses == {"tampered": "ERROR", "declared": "SUCCESS"}
            with pytest.raises(Exception, match="did not declare") as caught:
                writer.retrieve_workflow("tampered").get_result()
            assert "evil_tools:boom" in str(caught.value)
            assert json.dumps(writer.retrieve_workflow("declared").get_result().choices[0]
                              .message.content) == '"done after 1 tool calls"'
        finally:
            worker.kill()
            worker.communicate()
    assert not mark.exists()  # never imported, never called
