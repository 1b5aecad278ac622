"""The durable throughput benchmark runs (tiny sizes, SQLite only): it must not rot."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("dbos")

SCRIPT = pathlib.Path(__file__).parents[2] / "benchmarks" / "scale_durable.py"


def test_scale_durable_measures_plain_and_durable_runs(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "durable.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--runs", "4", "--threads", "2",
                           "--no-postgres", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())["results"]
    assert [r["backend"] for r in results] == ["plain", "sqlite"]
    assert all(r["sequential_runs_per_s"] > 0 and r["concurrent_runs_per_s"] > 0
               for r in results)
