"""The sequential and concurrency-100 rows of run.py (openai family: aisuite_like against the
raw openai SDK), and the native transport's (per call against the raw SDK; the fan-out at 100
against raw aiohttp) against a server nobody here wrote, beside the project's own loopback server,
in one run: the published ratios must not rest on one server's behaviour.

    .venv/bin/python benchmarks/independent.py           # full sizes (~3 min here)
    .venv/bin/python benchmarks/independent.py --quick   # tiny sizes (numbers mean nothing)
    .venv/bin/python benchmarks/independent.py --rows native   # the native transport's only

The independent server is llm-katan in echo mode (PyPI, pinned as tests/interop pins it, in
the environment tests/interop makes: ``.venv/interop``); of the independent servers the
interop suite runs it is the one that answers the openai SDK's chat call with the least work
of its own. Each measurement is a fresh workloads.py process, as in run.py; the jobs of the
two servers interleave repeat by repeat, so load drift on this shared machine hits both.

"Agree within noise": the per-repeat ratios (ours / raw of the same repeat) of one server
span a band [min, max]; the two servers agree when their bands overlap. Results go to
benchmarks/results/independent.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import run  # noqa: E402
from run import (  # noqa: E402
    FULL,
    QUICK,
    RATIO_GE_05,
    RATIO_GE_095,
    RATIO_LE,
    Job,
    Row,
    Target,
    _execute,
    _paired_jobs,
    render_table,
)
from server import ServerProcess as OwnServer  # noqa: E402

KATAN_MODEL = "gpt-bench"  # the workloads' openai model name; llm-katan serves that name


def plan(base: str, label: str, sizes: dict[str, Any],
         **checks: Any) -> tuple[list[Row], list[Job]]:
    seq, fan = sizes["sequential"], sizes["async"]
    sequential = Row("sequential", f"openai: non-streaming call ({label})", "ms/call",
                     budget=RATIO_LE[1.05])
    concurrent = Row("async", f"openai: {fan['requests']} req @ {fan['concurrency']}, "
                     f"httpx2 (default) ({label})", "req/s", budget=RATIO_GE_095,
                     raw_label="raw SDK, default")
    jobs = _paired_jobs(sequential, seq["repeats"], 1e3, "sequential", "openai", base,
                        warmup=seq["warmup"], calls=seq["calls"], **checks)
    fan_jobs = _paired_jobs(concurrent, fan["repeats"], 1.0, "async", "openai", base,
                            warmup=fan["warmup"], requests=fan["requests"],
                            concurrency=fan["concurrency"])
    # the same processes' CPU per request: req/s on this shared machine moves with the other
    # processes' load; the client's own CPU time much less
    cpu = Row("async", f"openai: client CPU per request @ {fan['concurrency']} ({label})",
              "us/req", raw_label="raw SDK, default", note="info")
    for job in fan_jobs:
        job.targets.append(Target(cpu, job.targets[0].side, pick="cpu_us_per_request"))
    return [sequential, concurrent, cpu], jobs + fan_jobs


def plan_native(base: str, label: str, sizes: dict[str, Any],
                **checks: Any) -> tuple[list[Row], list[Job]]:
    """run.py's native rows of openai (``transport="native"``): per call against the raw SDK,
    and the fan-out at the first concurrency against raw aiohttp (the same processes' CPU
    per request beside it)."""
    seq, fan = sizes["native_sequential"], sizes["async"]
    per_call = Row("native", f"openai: native, non-streaming call ({label})", "ms/call",
                   ours_label="native", budget=RATIO_LE[0.6])
    jobs = [run._job(run._task("sequential", "openai", side, base, warmup=seq["warmup"],
                               calls=seq["calls"], **checks), per_call, row_side, scale=1e3)
            for _, side, row_side in run._alternate(seq["repeats"], [("ours_native", "ours"),
                                                                      ("raw", "raw")])]
    fan_out = Row("native", f"openai: native, {fan['requests']} req @ {fan['concurrency']} "
                  f"({label})", "req/s", ours_label="native", raw_label="raw aiohttp",
                  budget=RATIO_GE_05)
    cpu = Row("native", f"openai: native, client CPU per request @ {fan['concurrency']} "
              f"({label})", "us/req", ours_label="native", raw_label="raw aiohttp",
              note="info")
    fan_jobs = [run._job(run._task("async", "openai", side, base, warmup=fan["warmup"],
                                   requests=fan["requests"], concurrency=fan["concurrency"]),
                         fan_out, row_side)
                for _, side, row_side in run._alternate(fan["repeats"],
                                                        [("ours_native", "ours"),
                                                         ("raw_aio", "raw")])]
    for job in fan_jobs:
        job.targets.append(Target(cpu, job.targets[0].side, pick="cpu_us_per_request"))
    return [per_call, fan_out, cpu], jobs + fan_jobs


def band(row: Row) -> Optional[tuple[float, float]]:
    """The [min, max] of the per-repeat ratios (ours / raw of the same repeat)."""
    ratios = [a / b for a, b in zip(row.ours, row.raw, strict=False) if b]
    return (min(ratios), max(ratios)) if ratios else None


def agreement(own: Row, other: Row) -> dict[str, Any]:
    a, b = band(own), band(other)
    agree = a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]
    return {"case": own.case.rsplit(" (", 1)[0], "own_ratio": own.figure(),
            "own_band": a, "independent_ratio": other.figure(), "independent_band": b,
            "agree_within_noise": agree}


def _katan(quick: bool) -> Any:
    """llm-katan (echo) on a free port, from the interop suite's environment."""
    import pytest
    from support.interop import QUICK_PINS, ServerProcess, tool_env

    try:
        env = tool_env(QUICK_PINS)
    except pytest.skip.Exception as exc:
        sys.exit(f"llm-katan could not be installed: {exc}")
    argv = lambda port: [  # noqa: E731
        env.script("llm-katan"), "--model", KATAN_MODEL, "--backend", "echo", "--host",
        "127.0.0.1", "--port", str(port), "--providers", "openai", "--stats-file", "",
        "--disable-dashboard", "--log-level", "WARNING"]
    return ServerProcess("llm-katan", argv), env.versions["llm-katan"]


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--rows", choices=("all", "sdk", "native"), default="all",
                        help="the SDK transport's rows, the native transport's, or both")
    parser.add_argument("--json", default=None, help="where to write the results ('' for "
                        "nowhere; default results/independent.json, or independent_<rows>.json)")
    args = parser.parse_args(argv)
    if args.json is None:
        name = "independent.json" if args.rows == "all" else f"independent_{args.rows}.json"
        args.json = os.path.join(HERE, "results", name)
    # four repeats of the fan-out (run.py: two): its spread is the noise the verdict reads
    sizes = QUICK if args.quick else {**FULL, "async": {**FULL["async"], "repeats": 4}}
    started = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    katan, version = _katan(args.quick)
    with OwnServer("asyncio") as own, katan:
        own_rows: list[Row] = []
        own_jobs: list[Job] = []
        katan_rows: list[Row] = []
        katan_jobs: list[Job] = []
        plans = {"sdk": [plan], "native": [plan_native], "all": [plan, plan_native]}
        for make in plans[args.rows]:
            rows_, jobs_ = make(own.base, "own server", sizes)
            own_rows += rows_
            own_jobs += jobs_
            # its echo text is not the loopback server's answer: any text will do
            rows_, jobs_ = make(katan.url, f"llm-katan {version}", sizes, expect_text=None)
            katan_rows += rows_
            katan_jobs += jobs_
        # one job of each server in turn: drift hits both alike
        jobs = [job for pair in itertools.zip_longest(own_jobs, katan_jobs) for job in pair
                if job is not None]
        _execute(jobs, False, progress)
    rows = [row for pair in zip(own_rows, katan_rows, strict=True) for row in pair]
    print(render_table(rows))
    verdicts = [agreement(a, b) for a, b in zip(own_rows, katan_rows, strict=True)]
    print()
    for v in verdicts:
        if v["own_band"] is None or v["independent_band"] is None:
            print(f"{v['case']}: not measured on both servers (see the errors below)")
            continue
        print(f"{v['case']}: own server {v['own_ratio']:.2f}x "
              f"[{v['own_band'][0]:.2f}-{v['own_band'][1]:.2f}], llm-katan "
              f"{v['independent_ratio']:.2f}x [{v['independent_band'][0]:.2f}-"
              f"{v['independent_band'][1]:.2f}]: "
              + ("agree within noise" if v["agree_within_noise"] else "DO NOT agree"))
    errors = [row for row in rows if row.errors]
    for row in errors:
        print(f"ERROR {row.case}: {row.errors[0][:600]}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"meta": {"quick": args.quick, "commit": run._commit(),
                                "versions": {**run._versions(), "llm-katan": version},
                                "sizes": {k: sizes[k] for k in ("sequential", "async",
                                                                 "native_sequential")},
                                "elapsed_s": time.perf_counter() - started},
                       "rows": [r.to_json() for r in rows], "agreement": verdicts,
                       "medians": {r.case: [statistics.median(r.ours) if r.ours else None,
                                            statistics.median(r.raw) if r.raw else None]
                                   for r in rows}}, fh, indent=1)
            fh.write("\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
