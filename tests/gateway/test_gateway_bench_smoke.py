"""benchmarks/gateway.py cannot rot: a tiny run of it, both sides, through a real gateway
process and the loopback upstream. No timing is asserted (speed is the benchmark's, never a
unit test's)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("aiohttp")

from support.timing import scaled

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_gateway_benchmark_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gateway.py"), "--n", "20", "--throughput",
         "40", "--concurrency", "4", "--soak", "20", "--rounds", "2", "--upstream-latency-ms", "5"],
        capture_output=True, text=True, timeout=scaled(180), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert set(report["latency_ms"]) >= {"direct", "gateway", "added_p50", "added_p99"}
    for run in ("throughput_rps", "throughput_rps_upstream_latency"):
        assert report[run]["gateway"] > 0 and report[run]["direct"] > 0
        assert report[run]["gateway_cpu_ms_per_request"] >= 0
    assert report["throughput_rps_upstream_latency"]["upstream_latency_ms"] == 5
    assert len(report["rss_kib"]["points"]) >= 2 and report["rss_kib"]["end"] > 0
    assert "litellm" not in report  # only with --litellm (tests/interop/test_litellm.py)
    assert "added latency p50" in done.stderr
