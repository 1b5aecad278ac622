"""Benchmarks: aisuite_like against the raw vendor SDKs on a loopback server, with the performance
budget (benchmarks/README.md) printed next to each ratio.

    make bench                                    # = .venv/bin/python benchmarks/run.py
    python benchmarks/run.py --quick              # tiny sizes, one repeat (the smoke test)
    python benchmarks/run.py --only streaming,rss --families openai

Every measurement runs in a fresh process (benchmarks/workloads.py); the two sides of one
comparison alternate, repeat after repeat, against the same server in the same run. Each
process warms up, then times many iterations and reports their median; the table shows the
median over repeats with the min-max of the repeats, and the ratio of the medians. Results go to
benchmarks/results/latest.json. Exit status: 1 if a measurement failed (not for a MISS).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from server import ServerProcess, measure_capacity  # noqa: E402

FAMILIES = ("openai", "anthropic", "google", "bedrock")
SCENARIOS = ("import", "coldstart", "sequential", "responses", "async", "streaming", "tool_loop", "rss",
             "otel", "mcp", "prompt_cache", "cache", "embeddings", "aloop", "native",
             "router", "checks", "native_endpoints", "native_httpx2")
#: The families that have a native transport (docs/transports.md).
NATIVE_FAMILIES = ("openai", "anthropic", "google")
IMPORT_MODULES = ("aisuite_like", "pydantic", "openai", "anthropic", "google.genai",
                  "botocore")
VENDOR_MODULES = ("openai", "anthropic", "google.genai", "botocore")

# Sizes: full run (make bench, < 10 minutes on 2 cores) and --quick (the smoke test).
FULL = {
    "import_samples": 10,
    "coldstart_samples": 6,
    "sequential": {"repeats": 3, "warmup": 30, "calls": 200},
    "responses": {"repeats": 3, "warmup": 30, "calls": 200},
    "async": {"repeats": 2, "warmup": 100, "requests": 2000, "concurrency": 100},
    "streaming": {"repeats": 3, "warmup": 1, "streams": 6, "chunks": 1000},
    "tool_loop_a": {"repeats": 3, "warmup": 1, "runs": 4, "tools": 4},
    "tool_loop_b": {"repeats": 3, "warmup": 5, "runs": 20, "tools": 1},
    "rss": {"repeats": 2},
    "otel": {"repeats": 3, "warmup": 30, "calls": 200, "streams": 6, "chunks": 1000},
    "prompt_cache": {"repeats": 3, "warmup": 500, "batches": 40, "batch": 200},
    "mcp_per_call": {"repeats": 3, "warmup": 20, "runs": 200},
    "mcp_ten_calls": {"repeats": 2, "runs": 2},
    "cache": {"repeats": 3, "warmup": 30, "calls": 200},
    "cache_memory": {"entries": 100_000},
    "router": {"repeats": 3, "warmup": 30, "calls": 300},
    "checks": {"repeats": 3, "warmup": 30, "calls": 300},
    "router_async": {"repeats": 2, "warmup": 100, "requests": 2000, "concurrency": 100},
    "embeddings_one": {"repeats": 3, "warmup": 30, "calls": 200, "inputs": 1},
    "embeddings_list": {"repeats": 3, "warmup": 2, "calls": 10, "inputs": 10_000},
    "aloop": {"repeats": 5, "warmup": 20, "runs": 100},
    "native_sequential": {"repeats": 3, "warmup": 30, "calls": 200},
    "native_streaming": {"repeats": 3, "warmup": 1, "streams": 6, "chunks": 1000},
    "native_async": {"repeats": 3, "warmup": 100, "requests": 2000, "concurrency": (100, 1000)},
    "native_inflight": {"repeats": 2, "n": 1000, "lat": 300},
    "native_embeddings": {"repeats": 3, "warmup": 30, "calls": 200, "inputs": 1},
    "native_httpx2": {"repeats": 3, "warmup": 100, "requests": 2000, "concurrency": 100},
}
QUICK = {
    "import_samples": 1,
    "coldstart_samples": 1,
    "sequential": {"repeats": 1, "warmup": 1, "calls": 3},
    "responses": {"repeats": 1, "warmup": 1, "calls": 3},
    "async": {"repeats": 1, "warmup": 4, "requests": 8, "concurrency": 4},
    "streaming": {"repeats": 1, "warmup": 1, "streams": 1, "chunks": 20},
    "tool_loop_a": {"repeats": 1, "warmup": 0, "runs": 1, "tools": 4},
    "tool_loop_b": {"repeats": 1, "warmup": 0, "runs": 1, "tools": 1},
    "rss": {"repeats": 1},
    "otel": {"repeats": 1, "warmup": 1, "calls": 3, "streams": 1, "chunks": 20},
    "prompt_cache": {"repeats": 1, "warmup": 1, "batches": 2, "batch": 2},
    "mcp_per_call": {"repeats": 1, "warmup": 1, "runs": 2},
    "mcp_ten_calls": {"repeats": 1, "runs": 1},
    "cache": {"repeats": 1, "warmup": 1, "calls": 3},
    "cache_memory": {"entries": 100},
    "router": {"repeats": 1, "warmup": 1, "calls": 4},
    "checks": {"repeats": 1, "warmup": 1, "calls": 4},
    "router_async": {"repeats": 1, "warmup": 4, "requests": 8, "concurrency": 4},
    "embeddings_one": {"repeats": 1, "warmup": 1, "calls": 3, "inputs": 1},
    "embeddings_list": {"repeats": 1, "warmup": 0, "calls": 1, "inputs": 3000},
    "aloop": {"repeats": 1, "warmup": 1, "runs": 2},
    "native_sequential": {"repeats": 1, "warmup": 1, "calls": 3},
    "native_streaming": {"repeats": 1, "warmup": 1, "streams": 1, "chunks": 20},
    "native_async": {"repeats": 1, "warmup": 4, "requests": 8, "concurrency": (4, 8)},
    "native_inflight": {"repeats": 1, "n": 8, "lat": 10},
    "native_embeddings": {"repeats": 1, "warmup": 1, "calls": 3, "inputs": 1},
    "native_httpx2": {"repeats": 1, "warmup": 4, "requests": 8, "concurrency": 4},
}

WORKER_TIMEOUT_S = 300
# Workers import aisuite_like from this checkout, installed or not. They keep the bytecode of
# our modules in a cache of their own, as an installed package has its .pyc files: with
# PYTHONDONTWRITEBYTECODE set (some environments set it) every worker would compile the
# package from source, and the import row would time the compiler.
WORKER_ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
              "PYTHONPYCACHEPREFIX": os.path.join(HERE, "results", "pycache"),
              "PYTHONPATH": os.pathsep.join(
                  p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)}


# ----------------------------------------------------------------------------- budget ---

@dataclass(frozen=True)
class Budget:
    """One line of the issue's budget: ``ours OP limit`` on the ratio (or difference)."""

    text: str
    check: Callable[[float], bool]


RATIO_LE = {x: Budget(f"<= {x:.2f}x", lambda r, x=x: r <= x)
            for x in (0.5, 0.6, 1.03, 1.05, 1.10, 1.15, 1.3)}
RATIO_GE_095 = Budget(">= 0.95x", lambda r: r >= 0.95)
RATIO_GE_05 = Budget(">= 0.50x", lambda r: r >= 0.5)
RSS_DIFF = Budget("<= +15 MiB", lambda d: d <= 15.0)
CACHE_DIFF = Budget("<= +25 us", lambda d: d <= 25.0)


@dataclass
class Row:
    scenario: str
    case: str
    unit: str
    ours: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    ours_label: str = "aisuite_like"
    raw_label: str = "raw SDK"
    budget: Optional[Budget] = None
    compare: str = "ratio"  # "ratio" (ours / raw) or "diff" (ours - raw)
    errors: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)
    note: str = ""

    def figure(self) -> Optional[float]:
        if not self.ours or not self.raw:
            return None
        a, b = statistics.median(self.ours), statistics.median(self.raw)
        return a - b if self.compare == "diff" else (a / b if b else None)

    def status(self) -> str:
        if self.errors:
            return "ERROR"
        figure = self.figure()
        if figure is None:
            return "n/a"
        if self.budget is None:
            return "info"
        return "PASS" if self.budget.check(figure) else "MISS"

    def to_json(self) -> dict[str, Any]:
        def stats(values: list[float]) -> Optional[dict[str, float]]:
            if not values:
                return None
            return {"median": statistics.median(values), "min": min(values), "max": max(values),
                    "n": len(values)}

        return {"scenario": self.scenario, "case": self.case, "unit": self.unit,
                "ours_label": self.ours_label, "raw_label": self.raw_label,
                "ours": stats(self.ours), "raw": stats(self.raw), "compare": self.compare,
                "figure": self.figure(), "budget": self.budget.text if self.budget else None,
                "status": self.status(), "errors": self.errors, "tracebacks": self.tracebacks,
                "note": self.note}


# ------------------------------------------------------------------------- processes ---

@dataclass
class Target:
    """Where one figure of a worker's result goes: a row, its side, the result key, a scale
    from the worker's unit to the row's."""

    row: Row
    side: str  # "ours" or "raw"
    pick: str = "value"
    scale: float = 1.0


@dataclass
class Job:
    """One measurement of one side, in one fresh process (or, with --quick, batched)."""

    task: dict[str, Any]
    targets: list[Target]

    @property
    def group(self) -> tuple[str, str]:
        return self.task["family"], self.task["side"].split("_")[0]


def _job(task: dict[str, Any], row: Row, side: str, scale: float = 1.0) -> Job:
    return Job(task, [Target(row, side, scale=scale)])


def _run_worker(tasks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    try:
        proc = subprocess.run([sys.executable, os.path.join(HERE, "workloads.py"),
                               json.dumps(tasks)], capture_output=True, text=True,
                              timeout=WORKER_TIMEOUT_S, cwd=ROOT, env=WORKER_ENV)
    except subprocess.TimeoutExpired:
        return {t["id"]: {"error": f"worker timed out after {WORKER_TIMEOUT_S}s"} for t in tasks}
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
            results[result.pop("id")] = result
    for t in tasks:
        if t["id"] not in results:
            results[t["id"]] = {"error": f"worker exited {proc.returncode} without a result: "
                                         f"{proc.stderr.strip()[-1500:]}"}
    return results


def _execute(jobs: list[Job], batched: bool, progress: Callable[[str], None]) -> None:
    """Run the jobs (one process each, in order; or one process per family and side) and
    store each result in its row."""
    for i, job in enumerate(jobs):
        job.task["id"] = i
    if batched:
        groups: dict[tuple[str, str], list[Job]] = {}
        for job in jobs:
            groups.setdefault(job.group, []).append(job)
        batches = list(groups.values())
    else:
        batches = [[job] for job in jobs]
    def run(batch: list[Job]) -> None:
        first = batch[0].task
        progress(f"{first['scenario']:<10} {first['family']:<9} {first['side']}"
                 + (f" (+{len(batch) - 1} more)" if len(batch) > 1 else ""))
        results = _run_worker([job.task for job in batch])
        for job in batch:
            result = results[job.task["id"]]
            for target in job.targets:
                if "error" in result:
                    target.row.errors.append(f"{job.task['side']}: {result['error']}")
                    target.row.tracebacks.append(result.get("traceback", ""))
                else:
                    getattr(target.row, target.side).append(result[target.pick] * target.scale)

    if batched:  # --quick: nothing is timed for real, so the batches may overlap
        with ThreadPoolExecutor(max_workers=3) as pool:
            list(pool.map(run, batches))
    else:
        for batch in batches:
            run(batch)


# ------------------------------------------------------------------------ scenarios ---

def _alternate(repeats: int, sides: list[tuple[str, str]]) -> list[tuple[int, str, str]]:
    """Repeat order that alternates which side goes first, so drift hits both alike."""
    order = []
    for r in range(repeats):
        for side, row_side in (sides if r % 2 == 0 else list(reversed(sides))):
            order.append((r, side, row_side))
    return order


_OURS_AND_RAW = [("ours", "ours"), ("raw", "raw")]


def _paired_jobs(row: Row, repeats: int, scale: float, scenario: str, family: str, base: str,
                 **params: Any) -> list[Job]:
    """The jobs of one ours-vs-raw row: both sides, alternating which goes first."""
    return [_job(_task(scenario, family, side, base, **params), row, row_side, scale=scale)
            for _, side, row_side in _alternate(repeats, _OURS_AND_RAW)]


def _task(scenario: str, family: str, side: str, base: str, **params: Any) -> dict[str, Any]:
    return {"scenario": scenario, "family": family, "side": side, "base": base, "params": params}


def plan_sequential(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    s = sizes["sequential"]
    rows, jobs = [], []
    for family in families:
        row = Row("sequential", f"{family}: non-streaming call", "ms/call",
                  budget=RATIO_LE[1.05])
        rows.append(row)
        jobs += _paired_jobs(row, s["repeats"], 1e3, "sequential", family, base,
                             warmup=s["warmup"], calls=s["calls"])
    return rows, jobs


def plan_responses(base: str, families: list[str], sizes: dict[str, Any]
                   ) -> tuple[list[Row], list[Job]]:
    """``client.responses.create`` per family beside the raw SDK: OpenAI's Responses API
    on both sides; elsewhere the family's own call on the raw side (ours translates)."""
    s = sizes["responses"]
    rows, jobs = [], []
    for family in families:
        raw = "responses.create" if family == "openai" else "native call"
        row = Row("responses", f"{family}: responses.create", "ms/call", raw_label=raw,
                  budget=RATIO_LE[1.05])
        rows.append(row)
        jobs += _paired_jobs(row, s["repeats"], 1e3, "responses", family, base,
                             warmup=s["warmup"], calls=s["calls"])
    return rows, jobs


# Async cases: (family, label, our side, raw side, budgeted). A side is "ours"/"raw" plus the
# transport ("_aiohttp", "_httpx2"); none means the client's default. google-genai's own
# default is aiohttp (when installed) while aisuite_like's google provider sends through
# httpx2 unless async_transport="aiohttp", so the budgeted google cases compare like with like
# and an info case shows the defaults against each other.
ASYNC_CASES = (
    ("openai", "httpx2 (default)", "ours", "raw", True),
    ("openai", "aiohttp", "ours_aiohttp", "raw_aiohttp", True),
    ("anthropic", "httpx2 (default)", "ours", "raw", True),
    ("anthropic", "aiohttp", "ours_aiohttp", "raw_aiohttp", True),
    ("google", "httpx2", "ours", "raw_httpx2", True),
    ("google", "aiohttp", "ours_aiohttp", "raw", True),
    ("google", "defaults: ours httpx2, SDK aiohttp", "ours", "raw", False),
    # botocore is sync-only: both sides run it on a pool of 32 threads (ours: the provider's
    # own bounded executor; raw: the same calls by hand on a ThreadPoolExecutor).
    ("bedrock", "thread pool (botocore is sync)", "ours", "raw", True),
)


def plan_async(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """One process per (family, side, repeat); a side shared by two cases is measured once
    and feeds both rows."""
    s = sizes["async"]
    params = {k: s[k] for k in ("warmup", "requests", "concurrency")}
    rows: list[Row] = []
    targets: dict[tuple[str, str], list[Target]] = {}
    for family, label, ours_side, raw_side, budgeted in ASYNC_CASES:
        if family not in families:
            continue
        row = Row("async", f"{family}: {s['requests']} req @ {s['concurrency']}, {label}",
                  "req/s", budget=RATIO_GE_095 if budgeted else None,
                  raw_label=f"raw SDK, {raw_side.partition('_')[2] or 'default'}")
        rows.append(row)
        targets.setdefault((family, ours_side), []).append(Target(row, "ours"))
        targets.setdefault((family, raw_side), []).append(Target(row, "raw"))
    jobs = []
    for family in families:
        sides = [side for (f, side) in targets if f == family]
        for r in range(s["repeats"]):
            for side in (sides if r % 2 == 0 else list(reversed(sides))):
                jobs.append(Job(_task("async", family, side, base, **params),
                                targets[(family, side)]))
    return rows, jobs


def transport_rows(rows: list[Row]) -> list[Row]:
    """Info rows: aiohttp against httpx2 (the default) for the raw SDK and for aisuite_like's
    ``async_transport="aiohttp"``: which transport is faster, measured."""
    out = []
    for family in FAMILIES:
        default = next((r for r in rows if r.case.startswith(family + ":")
                        and r.case.endswith("httpx2 (default)")), None)
        aio = next((r for r in rows if r.case.startswith(family + ":")
                    and r.case.endswith(", aiohttp")), None)
        if default is None or aio is None:
            continue
        for who in ("raw", "ours"):
            out.append(Row("async", f"{family}: aiohttp vs httpx2 transport ({who})", "req/s",
                           ours=list(getattr(aio, who)), raw=list(getattr(default, who)),
                           ours_label="aiohttp", raw_label="httpx2"))
    return out


def plan_streaming(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    s = sizes["streaming"]
    rows, jobs = [], []
    for family in families:
        row = Row("streaming", f"{family}: {s['chunks']}-chunk reply", "us/chunk",
                  budget=RATIO_LE[1.10])
        rows.append(row)
        jobs += _paired_jobs(row, s["repeats"], 1e6, "streaming", family, base,
                             warmup=s["warmup"], streams=s["streams"], chunks=s["chunks"])
    return rows, jobs


def plan_tool_loop(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    rows, jobs = [], []
    for variant, key in (("a", "tool_loop_a"), ("b", "tool_loop_b")):
        s = sizes[key]
        for family in families:
            if variant == "a":
                row = Row("tool_loop", f"{family}: (a) 2 rounds x {s['tools']} tools of 100 ms",
                          "ms/run", raw_label="theoretical min", budget=RATIO_LE[1.15],
                          note="min = 2 raw SDK calls + one 100 ms sleep per round")
            else:
                row = Row("tool_loop", f"{family}: (b) 2 rounds x 1 instant tool + answer",
                          "ms/run", raw_label="hand-written loop", budget=RATIO_LE[1.10])
            rows.append(row)
            jobs += _paired_jobs(row, s["repeats"], 1e3, "tool_loop", family, base,
                                 variant=variant, warmup=s["warmup"], runs=s["runs"],
                                 tools=s["tools"])
    return rows, jobs


def plan_rss(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    s = sizes["rss"]
    rows, jobs = [], []
    for family in families:
        after_import = Row("rss", f"{family}: peak RSS after import", "MiB", compare="diff",
                           note="aisuite_like alone: the vendor SDK is imported on first use")
        after_call = Row("rss", f"{family}: peak RSS after one call", "MiB", compare="diff",
                         budget=RSS_DIFF)
        rows += [after_import, after_call]
        for _, side, row_side in _alternate(s["repeats"], _OURS_AND_RAW):
            # one process, two figures: peak RSS after import and after one call
            jobs.append(Job(_task("rss", family, side, base), [
                Target(after_call, row_side), Target(after_import, row_side, "after_import")]))
    return rows, jobs


def plan_mcp(base: str, families: list[str], sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """MCP tools (no LLM server involved: a scripted model). Informational rows."""
    per_call, ten = sizes["mcp_per_call"], sizes["mcp_ten_calls"]
    rows = [Row("mcp", "MCP stdio tool call vs in-process tool (1-call run)", "ms/run",
                ours_label="MCP stdio, kept connection", raw_label="in-process function",
                note="runner + scripted model; the difference is the MCP round trip"),
            Row("mcp", "10-call run: one kept connection vs a process per call", "ms/run",
                ours_label="one connection (start + 10 calls + close)",
                raw_label="a server process per call (aisuite's way)")]
    jobs = (_paired_jobs(rows[0], per_call["repeats"], 1e3, "mcp", "mcp", base,
                         variant="per_call", warmup=per_call["warmup"], runs=per_call["runs"])
            + _paired_jobs(rows[1], ten["repeats"], 1e3, "mcp", "mcp", base,
                           variant="ten_calls", runs=ten["runs"]))
    return rows, jobs


def run_imports(samples: int, progress: Callable[[str], None]) -> tuple[list[Row], dict[str, Any]]:
    """Cold import in a fresh interpreter, timed inside it (interpreter start-up excluded)."""
    snippet = ("import time; t = time.perf_counter(); import {m}; t = time.perf_counter() - t; "
               "import sys, json; print('RESULT ' + json.dumps({{'s': t, 'vendor': sorted("
               "k for k in {vendor!r} if k in sys.modules)}}))")
    times: dict[str, list[float]] = {m: [] for m in IMPORT_MODULES}
    vendor_loaded: set[str] = set()
    errors: dict[str, str] = {}
    progress(f"import     {samples} x {', '.join(IMPORT_MODULES)}")
    for module in IMPORT_MODULES:  # fills the bytecode cache; not timed
        subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                       cwd=ROOT, env=WORKER_ENV, timeout=120)
    for _ in range(samples):
        for module in IMPORT_MODULES:  # interleaved, so load drift hits every module alike
            proc = subprocess.run([sys.executable, "-c", snippet.format(
                m=module, vendor=VENDOR_MODULES)], capture_output=True, text=True, cwd=ROOT,
                env=WORKER_ENV, timeout=120)
            line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
            if line is None:
                errors[module] = proc.stderr.strip()[-800:]
                continue
            data = json.loads(line[7:])
            times[module].append(data["s"] * 1e3)
            if module == "aisuite_like":
                vendor_loaded.update(data["vendor"])
    ours = times["aisuite_like"]
    rows = [Row("import", "import aisuite_like vs import pydantic", "ms", ours=ours,
                raw=times["pydantic"], raw_label="import pydantic", budget=RATIO_LE[1.3])]
    for module in VENDOR_MODULES:
        rows.append(Row("import", f"import aisuite_like vs import {module}", "ms", ours=ours,
                        raw=times[module], raw_label=f"import {module}"))
    sdk_row = Row("import", "vendor SDKs loaded by import aisuite_like", "modules",
                  ours=[float(len(vendor_loaded))], raw=[1.0], compare="diff",
                  budget=Budget("none", lambda d: d <= -1.0),
                  note=", ".join(sorted(vendor_loaded)) or "none")
    rows.append(sdk_row)
    for module, err in errors.items():
        target = rows[0] if module in ("aisuite_like", "pydantic") else next(
            r for r in rows if r.case.endswith(module))
        target.errors.append(f"import {module}: {err}")
    return rows, {"samples": samples, "vendor_loaded_by_aisuite_like": sorted(vendor_loaded)}


#: The sides of the cold-start rows: (coldstart.py side, row label, budget against raw).
COLDSTART_SIDES = (("ours", "SDK transport", RATIO_LE[1.05]),
                   ("ours_native", "native transport", RATIO_LE[0.5]))


def run_coldstart(base: str, families: list[str], samples: int,
                  progress: Callable[[str], None]) -> list[Row]:
    """Cold start to the first reply: a fresh process imports the library (or the vendor SDK),
    builds a client and reads its first reply from the loopback server, timed inside that
    process from before its first import (benchmarks/coldstart.py). Every sample of every side
    is its own process, the sides interleaved and their order rotated sample after sample; one
    untimed run per side first fills the bytecode cache and the OS's file cache."""
    rows: list[Row] = []
    for family in families:
        sides = ["raw"] + [side for side, _, _ in COLDSTART_SIDES
                           if side == "ours" or family in NATIVE_FAMILIES]
        family_rows: dict[str, tuple[Row, Row]] = {}
        for side, label, budget in COLDSTART_SIDES:
            if side not in sides:
                continue
            # bedrock: botocore loads no pydantic and builds no typed objects, so a library
            # that builds pydantic responses cannot come near it: information, no budget
            wall = Row("coldstart", f"{family}: import, client, first reply ({label})", "ms",
                       ours_label=label, budget=budget if family in NATIVE_FAMILIES else None)
            cpu = Row("coldstart", f"{family}: the same, CPU time of the process ({label})",
                      "ms", ours_label=label)
            family_rows[side] = (wall, cpu)
            rows += [wall, cpu]
        progress(f"coldstart  {family:<9} {samples} x {', '.join(sides)}")
        times: dict[str, list[float]] = {side: [] for side in sides}
        cpus: dict[str, list[float]] = {side: [] for side in sides}
        for sample in range(-1, samples):  # -1: the untimed warm-up round
            shift = max(sample, 0) % len(sides)
            for side in sides[shift:] + sides[:shift]:
                proc = subprocess.run([sys.executable, os.path.join(HERE, "coldstart.py"),
                                       side, family, base], capture_output=True, text=True,
                                      cwd=ROOT, env=WORKER_ENV, timeout=WORKER_TIMEOUT_S)
                line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")),
                            None)
                if line is None:
                    for pair in family_rows.values():
                        pair[0].errors.append(f"{side}: exited {proc.returncode}: "
                                              f"{proc.stderr.strip()[-800:]}")
                    continue
                if sample >= 0:
                    result = json.loads(line[7:])
                    times[side].append(result["value"] * 1e3)
                    cpus[side].append(result["cpu"] * 1e3)
        for side, (wall, cpu) in family_rows.items():
            wall.ours, wall.raw = times[side], times["raw"]
            cpu.ours, cpu.raw = cpus[side], cpus["raw"]
    return rows


def plan_otel(base: str, families: list[str],
              sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """aisuite_like with ``ai.instrument()`` (the OpenTelemetry SDK, spans to a batch processor
    whose exporter drops them, metrics aggregated in memory) against aisuite_like as shipped:
    what a span per call and the per-chunk bookkeeping of a stream cost."""
    s = sizes["otel"]
    sides = [("ours_otel", "ours"), ("ours", "raw")]
    rows, jobs = [], []
    for family in families:
        call = Row("otel", f"{family}: non-streaming call, instrumented vs not", "ms/call",
                   ours_label="instrument()", raw_label="not instrumented")
        chunked = Row("otel", f"{family}: {s['chunks']}-chunk reply, instrumented vs not",
                      "us/chunk", ours_label="instrument()", raw_label="not instrumented")
        rows += [call, chunked]
        for _, side, row_side in _alternate(s["repeats"], sides):
            jobs.append(_job(_task("sequential", family, side, base, warmup=s["warmup"],
                                   calls=s["calls"]), call, row_side, scale=1e3))
        for _, side, row_side in _alternate(s["repeats"], sides):
            jobs.append(_job(_task("streaming", family, side, base, warmup=1,
                                   streams=s["streams"], chunks=s["chunks"]), chunked,
                             row_side, scale=1e6))
    return rows, jobs


def plan_aloop(base: str, families: list[str],
               sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """(c) ``acreate(..., max_turns=2)`` with an instant sync tool, on the SDK transport and
    on the native one, against the hand-written sync loop of the raw SDK (issue 27)."""
    s = sizes["aloop"]
    rows, jobs = [], []
    for family in families:
        if family not in NATIVE_FAMILIES:
            continue
        for side, label in (("ours", "SDK transport"), ("ours_native", "native transport")):
            row = Row("aloop", f"{family}: (c) acreate, 2 rounds x 1 instant sync tool, {label}",
                      "ms/run", ours_label=f"acreate, {label}",
                      raw_label="sync hand-written loop", budget=RATIO_LE[1.05])
            rows.append(row)
            for _, task_side, row_side in _alternate(s["repeats"], [(side, "ours"),
                                                                   ("raw", "raw")]):
                jobs.append(_job(_task("acreate_loop", family, task_side, base,
                                       warmup=s["warmup"], runs=s["runs"]), row, row_side,
                                 scale=1e3))
        # what the async SDK alone costs: the same hand-written loop on its async client
        row = Row("aloop", f"{family}: (c) the hand-written loop on the async SDK", "ms/run",
                  ours_label="async SDK, by hand", raw_label="sync hand-written loop")
        rows.append(row)
        for _, task_side, row_side in _alternate(s["repeats"], [("raw_async", "ours"),
                                                               ("raw", "raw")]):
            jobs.append(_job(_task("acreate_loop", family, task_side, base,
                                   warmup=s["warmup"], runs=s["runs"]), row, row_side,
                             scale=1e3))
    return rows, jobs


def plan_native(base: str, families: list[str],
                sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """The native transport (``transport="native"``) beside the raw SDK and raw aiohttp: per
    call, per chunk, async fan-out at two concurrencies, memory per in-flight request."""
    rows: list[Row] = []
    jobs: list[Job] = []
    seq, stream = sizes["native_sequential"], sizes["native_streaming"]
    fan, mem = sizes["native_async"], sizes["native_inflight"]
    for family in families:
        if family not in NATIVE_FAMILIES:
            continue
        row = Row("native", f"{family}: native, non-streaming call", "ms/call",
                  ours_label="native", budget=RATIO_LE[0.6])
        rows.append(row)
        for _, side, row_side in _alternate(seq["repeats"], [("ours_native", "ours"),
                                                              ("raw", "raw")]):
            jobs.append(_job(_task("sequential", family, side, base, warmup=seq["warmup"],
                                   calls=seq["calls"]), row, row_side, scale=1e3))
        row = Row("native", f"{family}: native, {stream['chunks']}-chunk reply", "us/chunk",
                  ours_label="native", budget=RATIO_LE[1.10])
        rows.append(row)
        for _, side, row_side in _alternate(stream["repeats"], [("ours_native", "ours"),
                                                                 ("raw", "raw")]):
            jobs.append(_job(_task("streaming", family, side, base, warmup=stream["warmup"],
                                   streams=stream["streams"], chunks=stream["chunks"]), row,
                             row_side, scale=1e6))
        # google-genai's own async default is aiohttp; openai / anthropic on their aiohttp
        # transport: the fastest raw SDK in each case
        sdk_side = "raw" if family == "google" else "raw_aiohttp"
        for concurrency in fan["concurrency"]:
            vs_aio = Row("native", f"{family}: native, {fan['requests']} req @ {concurrency}",
                         "req/s", ours_label="native", raw_label="raw aiohttp",
                         budget=RATIO_GE_05 if concurrency == fan["concurrency"][0] else None)
            vs_sdk = Row("native", f"{family}: native vs SDK, {fan['requests']} req @ "
                         f"{concurrency}", "req/s", ours_label="native",
                         raw_label="raw SDK on aiohttp")
            rows += [vs_aio, vs_sdk]
            targets = {"ours_native": [Target(vs_aio, "ours"), Target(vs_sdk, "ours")],
                       "raw_aio": [Target(vs_aio, "raw")], sdk_side: [Target(vs_sdk, "raw")]}
            sides = list(targets)
            for r in range(fan["repeats"]):
                for side in (sides if r % 2 == 0 else list(reversed(sides))):
                    jobs.append(Job(_task("async", family, side, base, warmup=fan["warmup"],
                                          requests=fan["requests"], concurrency=concurrency),
                                    targets[side]))
        row = Row("native", f"{family}: memory per in-flight request ({mem['n']} at once)",
                  "KiB/req", ours_label="native", raw_label="raw aiohttp", compare="diff")
        # the native session opens a connection per request in flight; aiohttp's default
        # pool opens 100 and queues the rest: the same with one connection per request
        alike = Row("native", f"{family}: the same, raw aiohttp with a connection per request "
                    "(limit=0, as native)", "KiB/req", ours_label="native",
                    raw_label="raw aiohttp, limit=0", compare="diff")
        rows += [row, alike]
        targets = {"ours_native": [Target(row, "ours"), Target(alike, "ours")],
                   "raw_aio": [Target(row, "raw")], "raw_aio_unlimited": [Target(alike, "raw")]}
        for r in range(mem["repeats"]):
            for side in (list(targets) if r % 2 == 0 else list(reversed(list(targets)))):
                jobs.append(Job(_task("inflight", family, side, base, n=mem["n"],
                                      lat=mem["lat"]), targets[side]))
    return rows, jobs


def plan_prompt_cache(base: str, families: list[str],
                      sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """What ``prompt_cache="auto"`` adds to a call: the family's request translation of the
    third call of a tool run (system, user, two tool rounds, one tool) with and without it,
    in fresh processes taking turns. The difference is placing the cache breakpoints
    (anthropic, bedrock) or hashing the tools and system prompt into ``prompt_cache_key``
    (openai); google adds nothing. Budget: 25 us, 5% of a ~0.5 ms call (the sequential
    budget's margin)."""
    s = sizes["prompt_cache"]
    sides = [("ours_cache", "ours"), ("ours", "raw")]
    rows, jobs = [], []
    for family in families:
        row = Row("prompt_cache", f"{family}: translation of a tool run's 3rd call, "
                  "prompt_cache='auto' minus none", "us/call", compare="diff",
                  ours_label="prompt_cache='auto'", raw_label="no prompt_cache",
                  budget=CACHE_DIFF)
        rows.append(row)
        for _, side, row_side in _alternate(s["repeats"], sides):
            jobs.append(_job(_task("translate", family, side, base, warmup=s["warmup"],
                                   batches=s["batches"], batch=s["batch"]), row, row_side,
                             scale=1e6))
    return rows, jobs


def plan_cache(base: str, families: list[str],
               sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """The response cache (docs/cache.md), aisuite_like against itself: a hit against the
    same call sent to the loopback server (the saving), a miss (key, lookup, store) against
    no cache (its cost on every call sent), both per call; and the memory of 100,000 entries
    in a MemoryCache against the bytes of their JSON alone."""
    s, m = sizes["cache"], sizes["cache_memory"]
    rows, jobs = [], []
    for family in families:
        hit = Row("cache", f"{family}: cache hit vs the call sent", "ms/call",
                  ours_label="MemoryCache hit", raw_label="sent, no cache",
                  budget=RATIO_LE[0.5])
        miss = Row("cache", f"{family}: cache miss vs no cache", "ms/call",
                   ours_label="MemoryCache miss: key, lookup, store", raw_label="no cache",
                   note="what a cache costs a call it does not answer (informational: a "
                        "fixed ~0.1 ms against a ~1 ms loopback call)")
        rows += [hit, miss]
        for row, sides, unique in ((hit, [("hit", "ours"), ("off", "raw")], False),
                                   (miss, [("miss", "ours"), ("off", "raw")], True)):
            for _, side, row_side in _alternate(s["repeats"], sides):
                jobs.append(_job(_task("cache", family, side, base, warmup=s["warmup"],
                                       calls=s["calls"], unique=unique), row, row_side,
                                 scale=1e3))
    family = families[0]
    memory = Row("cache", f"MemoryCache: {m['entries']:,} entries ({family} replies)", "MiB",
                 ours_label="tracemalloc", raw_label="their JSON alone",
                 note="keys, values and LRU bookkeeping")
    rows.append(memory)
    jobs.append(Job(_task("cache", family, "hit", base, variant="memory",
                          entries=m["entries"]),
                    [Target(memory, "ours", scale=1 / 2**20),
                     Target(memory, "raw", "payload", scale=1 / 2**20)]))
    return rows, jobs


def plan_router(base: str, families: list[str],
                sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """The router (docs/router.md): (1) a call to an alias over one deployment against the
    plain model, interleaved on one client in each process (the router's own work per
    call); (2) async throughput at concurrency 100, an alias over 3 deployments against a
    plain client."""
    s, a = sizes["router"], sizes["router_async"]
    rows: list[Row] = []
    jobs: list[Job] = []
    for family in families:
        call = Row("router", f"{family}: call through a router alias vs the plain model",
                   "ms/call", ours_label="alias (1 deployment)", raw_label="plain model",
                   budget=RATIO_LE[1.03])
        spread = Row("router", f"{family}: {a['requests']} req @ {a['concurrency']}, alias "
                     "over 3 deployments vs plain client", "req/s",
                     ours_label="alias (3 deployments)", raw_label="plain client",
                     budget=RATIO_GE_095)
        rows += [call, spread]
        for _ in range(s["repeats"]):
            jobs.append(Job(_task("router", family, "ours", base, warmup=s["warmup"],
                                  calls=s["calls"]),
                            [Target(call, "ours", "routed", 1e3),
                             Target(call, "raw", "plain", 1e3)]))
        params = {k: a[k] for k in ("warmup", "requests", "concurrency")}
        for _, side, row_side in _alternate(a["repeats"], _OURS_AND_RAW):
            routes = 3 if side == "ours" else 0
            jobs.append(_job(_task("async", family, "ours", base, routes=routes, **params),
                             spread, row_side))
    return rows, jobs


def plan_checks(base: str, families: list[str],
                sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """The checks before sending (docs/models.md): a call to a model the snapshot knows
    against the same call with ``checks="off"``, interleaved on one client in each process."""
    s = sizes["checks"]
    rows: list[Row] = []
    jobs: list[Job] = []
    for family in families:
        row = Row("checks", f"{family}: call with the checks vs checks='off'", "ms/call",
                  ours_label="checks on", raw_label="checks off", budget=RATIO_LE[1.03])
        rows.append(row)
        for _ in range(s["repeats"]):
            jobs.append(Job(_task("checks", family, "ours", base, warmup=s["warmup"],
                                  calls=s["calls"]),
                            [Target(row, "ours", "checked", 1e3),
                             Target(row, "raw", "unchecked", 1e3)]))
    return rows, jobs


def plan_embeddings(base: str, families: list[str],
                    sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """``embeddings.create`` on the OpenAI wire (the loopback server's ``/v1/embeddings``):
    one text per call, and one list of 10,000 texts (the raw SDK sends it whole; aisuite_like
    splits it at OpenAI's 2,048 inputs per request and sends the parts concurrently)."""
    if "openai" not in families:
        return [], []
    rows, jobs = [], []
    for key, label in (("embeddings_one", "one text per call"),
                       ("embeddings_list", "{inputs:,}-text list per call")):
        s = sizes[key]
        row = Row("embeddings", f"openai: {label.format(inputs=s['inputs'])}", "ms/call",
                  budget=RATIO_LE[1.05])
        rows.append(row)
        jobs += _paired_jobs(row, s["repeats"], 1e3, "embeddings", "openai", base,
                             warmup=s["warmup"], calls=s["calls"], inputs=s["inputs"])
    return rows, jobs


def plan_native_endpoints(base: str, families: list[str],
                          sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """The endpoints beside chat on the native transport against the raw SDK, in one run:
    ``embeddings.create`` of one text per call on the OpenAI wire (the loopback server
    serves no other endpoint beside chat)."""
    if "openai" not in families:
        return [], []
    s = sizes["native_embeddings"]
    row = Row("native_endpoints", "openai: native embeddings, one text per call", "ms/call",
              ours_label="native", budget=RATIO_LE[0.6])
    jobs = [_job(_task("embeddings", "openai", side, base, warmup=s["warmup"],
                       calls=s["calls"], inputs=s["inputs"]), row, row_side, scale=1e3)
            for _, side, row_side in _alternate(s["repeats"], [("ours_native", "ours"),
                                                                ("raw", "raw")])]
    return [row], jobs


def plan_native_httpx2(base: str, families: list[str],
                       sizes: dict[str, Any]) -> tuple[list[Row], list[Job]]:
    """Native async on httpx2 (``async_transport="httpx2"``) beside native on aiohttp and
    raw aiohttp, in one run: requests per second at one concurrency."""
    rows: list[Row] = []
    jobs: list[Job] = []
    s = sizes["native_httpx2"]
    for family in families:
        if family not in NATIVE_FAMILIES:
            continue
        label = f"{s['requests']} req @ {s['concurrency']}"
        vs_aio = Row("native_httpx2", f"{family}: native on httpx2 vs raw aiohttp, {label}",
                     "req/s", ours_label="native httpx2", raw_label="raw aiohttp")
        vs_native = Row("native_httpx2", f"{family}: native on httpx2 vs native on aiohttp, "
                        f"{label}", "req/s", ours_label="native httpx2",
                        raw_label="native aiohttp")
        rows += [vs_aio, vs_native]
        targets = {"ours_native_httpx2": [Target(vs_aio, "ours"), Target(vs_native, "ours")],
                   "ours_native": [Target(vs_native, "raw")], "raw_aio": [Target(vs_aio, "raw")]}
        sides = list(targets)
        for r in range(s["repeats"]):
            for side in (sides if r % 2 == 0 else list(reversed(sides))):
                jobs.append(Job(_task("async", family, side, base, warmup=s["warmup"],
                                      requests=s["requests"], concurrency=s["concurrency"]),
                                targets[side]))
    return rows, jobs


PLANNERS = {"sequential": plan_sequential, "responses": plan_responses,
            "async": plan_async, "streaming": plan_streaming,
            "tool_loop": plan_tool_loop, "rss": plan_rss, "otel": plan_otel,
            "mcp": plan_mcp, "prompt_cache": plan_prompt_cache, "cache": plan_cache,
            "embeddings": plan_embeddings, "aloop": plan_aloop, "native": plan_native,
            "router": plan_router, "checks": plan_checks,
            "native_endpoints": plan_native_endpoints, "native_httpx2": plan_native_httpx2}


# ----------------------------------------------------------------------------- output ---

def _fmt(values: list[float], unit: str) -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    digits = 0 if unit in ("req/s",) or med >= 100 else (1 if med >= 10 else 2)
    if len(values) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def _fmt_figure(row: Row) -> str:
    figure = row.figure()
    if figure is None:
        return "-"
    if row.compare == "diff":
        return f"{figure:+.1f}"
    return f"{figure:.2f}x"


def render_table(rows: list[Row]) -> str:
    header = ("case", "unit", "aisuite_like / A", "raw SDK / B", "A vs B", "budget", "status")
    lines = []
    for row in rows:
        lines.append((row.case, row.unit,
                      f"{_fmt(row.ours, row.unit)}" + ("" if row.ours_label == "aisuite_like"
                                                       else f" ({row.ours_label})"),
                      f"{_fmt(row.raw, row.unit)} ({row.raw_label})",
                      _fmt_figure(row), row.budget.text if row.budget else "", row.status()))
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
    out = []
    current = None
    for row, line in zip(rows, lines):
        if row.scenario != current:
            current = row.scenario
            out.append("")
            out.append(f"== {current} ==")
            out.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        out.append("  ".join(str(c).ljust(w) for c, w in zip(line, widths)))
    return "\n".join(out)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=ROOT, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("openai", "anthropic", "google-genai", "pydantic", "httpx2", "aiohttp",
                 "aisuite-like"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


# ------------------------------------------------------------------------------- main ---

def _load(before: dict[str, Any], after: dict[str, Any], wall: float) -> dict[str, float]:
    """How busy the server was while a scenario ran (it must never be the bottleneck)."""
    cpu = after["cpu_s"] - before["cpu_s"]
    return {"requests": after["requests"] - before["requests"], "server_cpu_s": cpu,
            "wall_s": wall, "server_busy": cpu / wall if wall else 0.0}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="aisuite_like vs the raw SDKs on a loopback server")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one repeat, one process per family and side")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help=f"comma-separated scenarios out of {','.join(SCENARIOS)}")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--json", default=os.path.join(HERE, "results", "latest.json"),
                        help="where to write the results ('' for nowhere)")
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = set(only) - set(SCENARIOS) | set(families) - set(FAMILIES)
    if unknown:
        parser.error(f"unknown scenario/family: {', '.join(sorted(unknown))}")
    sizes = QUICK if args.quick else FULL
    started = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    rows: list[Row] = []
    meta: dict[str, Any] = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(
        timespec="seconds"), "quick": args.quick, "cpus": os.cpu_count(),
        "platform": platform.platform(), "commit": _commit(), "versions": _versions(),
        "sizes": sizes,
        "scenarios": only, "families": families}
    server_load: dict[str, Any] = {}
    if "import" in only:
        import_rows, meta["import"] = run_imports(sizes["import_samples"], progress)
        rows += import_rows
    with ServerProcess("asyncio") as server:
        progress(f"server on port {server.port}; measuring its capacity")
        capacity = measure_capacity(server.port, server.stats,
                                    seconds=0.2 if args.quick else 1.5)
        meta["server"] = {"impl": "asyncio", **capacity}
        if "coldstart" in only:
            before, t0 = server.stats(), time.perf_counter()
            rows += run_coldstart(server.base, families, sizes["coldstart_samples"], progress)
            server_load["coldstart"] = _load(before, server.stats(), time.perf_counter() - t0)
        plans = [(scenario, *PLANNERS[scenario](server.base, families, sizes))
                 for scenario in only if scenario not in ("import", "coldstart")]
        if args.quick:  # one process per family and side runs every scenario
            before, t0 = server.stats(), time.perf_counter()
            _execute([job for _, _, jobs in plans for job in jobs], True, progress)
            server_load["all"] = _load(before, server.stats(), time.perf_counter() - t0)
        for scenario, scenario_rows, jobs in plans:
            if not args.quick:
                before, t0 = server.stats(), time.perf_counter()
                _execute(jobs, False, progress)
                server_load[scenario] = _load(before, server.stats(), time.perf_counter() - t0)
            rows += scenario_rows
            if scenario == "async":
                rows += transport_rows(scenario_rows)
    meta["server_load"] = server_load
    meta["elapsed_s"] = time.perf_counter() - started

    fastest = max((v for r in rows if r.unit == "req/s" for v in r.ours + r.raw), default=0.0)
    print(render_table(rows))
    print()
    cap = meta["server"]
    print(f"server: {cap['server_cpu_us_per_request']:.1f} us CPU per request -> capacity "
          f"{cap['capacity_rps']:.0f} req/s on one core"
          + (f"; fastest client in this run {fastest:.0f} req/s "
             f"({cap['capacity_rps'] / fastest:.0f}x headroom)" if fastest else ""))
    busiest = max(server_load.items(), key=lambda kv: kv[1]["server_busy"], default=None)
    if busiest:
        print(f"server busy at most {busiest[1]['server_busy']:.0%} of wall time "
              f"(scenario {busiest[0]})")
    statuses = [r.status() for r in rows]
    print(f"{statuses.count('PASS')} PASS, {statuses.count('MISS')} MISS, "
          f"{statuses.count('ERROR')} ERROR in {meta['elapsed_s']:.0f}s")
    for row in rows:
        if row.errors:
            print(f"ERROR {row.case}: {row.errors[0][:600]}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "rows": [r.to_json() for r in rows]}, fh, indent=1)
            fh.write("\n")
    return 1 if "ERROR" in statuses else 0


if __name__ == "__main__":
    sys.exit(main())
