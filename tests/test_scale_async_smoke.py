"""The plain-async throughput script of docs/scale.md runs (tiny sizes): it must not rot.
No rate is asserted (speed is measured by benchmarks/, never by a timed test)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parent.parent / "benchmarks" / "scale_async.py"


def test_scale_async_measures_calls_and_tool_loops() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--n", "5", "--latency", "0",
                           "--concurrency", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines()[1:] if line.strip()]
    assert [row[0] for row in rows] == ["openai", "anthropic", "google"]
    assert all(float(row[3]) > 0 and float(row[4]) > 0 for row in rows)
