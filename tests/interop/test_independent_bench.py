"""benchmarks/independent.py cannot rot: ``--quick`` runs the sequential and concurrency rows
(the SDK transport's and the native one's) against llm-katan and the project's own server,
both sides, and writes the verdict. No timing
is asserted (speed is measured by benchmarks/, never by a timed test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.interop import QUICK_PINS, tool_env
from support.timing import scaled

ROOT = Path(__file__).resolve().parents[2]


def test_quick_independent_benchmark(tmp_path: Path) -> None:
    tool_env(QUICK_PINS)  # skips with the reason when llm-katan cannot be installed
    out = tmp_path / "independent.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "independent.py"),
                           "--quick", "--json", str(out)], capture_output=True, text=True,
                          timeout=scaled(300), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text(encoding="utf-8"))
    cases = [row["case"] for row in results["rows"]]
    # three rows per transport (per call, req/s, client CPU), each on both servers
    assert len(cases) == 12 and sum("llm-katan" in case for case in cases) == 6, cases
    for row in results["rows"]:
        assert row["ours"] and row["raw"] and not row["errors"], row
    assert len(results["agreement"]) == 6
    assert all(isinstance(v["agree_within_noise"], bool) for v in results["agreement"])
