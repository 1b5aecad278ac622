"""Throughput of durable runs (aisuite_like.durable on DBOS) against the same runs not durable.

    .venv/bin/python benchmarks/scale_durable.py                # 200 runs per measurement
    .venv/bin/python benchmarks/scale_durable.py --runs 50 --threads 4

Each run is a 2-turn tool loop on the loopback server (benchmarks/server.py, its own process):
the model asks for one tool call, the tool runs, the model answers; ``max_turns=3``. A durable
run records 3 steps (2 model calls, 1 tool call) plus the workflow's own rows. Measured, each
in a fresh process (DBOS is one per process): plain ``client.chat.completions.create`` runs,
durable runs on SQLite (a file in a temporary directory), and durable runs on Postgres (a
server this script starts in a temporary directory, when the Postgres server binaries are
installed), each one after another ("sequential") and from ``--threads`` threads at once.
Prints runs/s and writes benchmarks/results/durable.json (``--out``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "openai:gpt-bench-tools1-rounds1"
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


# --- one measurement, in its own process ------------------------------------------------------


def _timed(run: Callable[[int], Any], runs: int, threads: int) -> float:
    """Runs per second of ``runs`` calls of ``run(i)`` from ``threads`` threads."""
    start = time.perf_counter()
    if threads == 1:
        for i in range(runs):
            run(i)
    else:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, range(runs)))
    return runs / (time.perf_counter() - start)


def child(backend: str, base_url: str, database_url: Optional[str], runs: int,
          threads: int) -> dict[str, Any]:
    import aisuite_like as ai

    client = ai.Client(provider_configs={"openai": {
        "api_key": "sk-bench", "base_url": base_url + "/v1", "max_retries": 0}})
    if backend == "plain":
        def run(i: int) -> Any:
            resp = client.chat.completions.create(model=MODEL, messages=MESSAGES,
                                                  tools=[get_weather], max_turns=3)
            assert resp.stop_reason == "completed", resp.stop_reason
            return resp
    else:
        from aisuite_like import durable

        # A durable run's tools must be importable by name in any process, so not from
        # __main__ (this script): the same function through the module's own name.
        sys.path.insert(0, HERE)
        from scale_durable import get_weather as tool

        durable.configure(database_url, client=client)
        durable.launch()
        tag = f"{backend}-{os.getpid()}"

        def run(i: int) -> Any:
            resp = durable.create(client, model=MODEL, messages=MESSAGES, tools=[tool],
                                  max_turns=3, run_id=f"{tag}-{i}")
            assert resp.stop_reason == "completed", resp.stop_reason
            return resp
    for i in range(-5, 0):  # warm-up (imports, connections, first steps)
        run(i - 10_000)
    sequential = _timed(run, runs, 1)
    concurrent = _timed(lambda i: run(i + runs), runs, threads)
    return {"backend": backend, "runs": runs, "threads": threads,
            "sequential_runs_per_s": round(sequential, 1),
            "concurrent_runs_per_s": round(concurrent, 1)}


# --- Postgres in a temporary directory ---------------------------------------------------------


class TempPostgres:
    """A Postgres server in a temporary directory on 127.0.0.1 (as the ``postgres`` user when
    run as root: initdb refuses root)."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise RuntimeError("no Postgres server binaries (/usr/lib/postgresql/*/bin)")
        self.bin = os.path.dirname(found[-1])
        self.prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.root = tempfile.mkdtemp(prefix="aisuite-like-pg-bench-")
        if self.prefix:
            shutil.chown(self.root, "postgres", "postgres")
        self.data = os.path.join(self.root, "data")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
                                 "check": True}
        subprocess.run([*self.prefix, f"{self.bin}/initdb", "-D", self.data, "-A", "trust",
                        "-U", "postgres", "--no-sync"], **quiet)
        # Durable settings (fsync on): what a production database does.
        subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", self.data, "-l",
                        os.path.join(self.root, "log"), "-w", "-o",
                        f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1",
                        "start"], **quiet)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/durable_bench"

    def close(self) -> None:
        subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", self.data, "-m", "fast",
                        "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)


def measure(backend: str, base_url: str, database_url: Optional[str], runs: int,
            threads: int) -> dict[str, Any]:
    args = [sys.executable, os.path.abspath(__file__), "--child", backend, "--base-url",
            base_url, "--runs", str(runs), "--threads", str(threads)]
    if database_url:
        args += ["--database-url", database_url]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{backend} measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    parser.add_argument("--no-postgres", action="store_true", help="skip the Postgres case")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "durable.json"),
                        help="where to write the results (JSON)")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.base_url, args.database_url, args.runs,
                               args.threads)))
        return

    sys.path.insert(0, HERE)
    from server import start_server_process

    results: list[dict[str, Any]] = []
    tmp = tempfile.mkdtemp(prefix="aisuite-like-durable-bench-")
    with start_server_process() as server:
        cases: list[tuple[str, Optional[str]]] = [
            ("plain", None), ("sqlite", f"sqlite:///{os.path.join(tmp, 'dbos.sqlite')}")]
        postgres: Optional[TempPostgres] = None
        if not args.no_postgres:
            try:
                postgres = TempPostgres()
                cases.append(("postgres", postgres.url))
            except (RuntimeError, subprocess.CalledProcessError) as exc:
                print(f"postgres: skipped ({exc})", file=sys.stderr)
        try:
            for backend, url in cases:
                result = measure(backend, server.base, url, args.runs, args.threads)
                results.append(result)
                print(f"{backend:>9}: {result['sequential_runs_per_s']:8.1f} runs/s sequential"
                      f"  {result['concurrent_runs_per_s']:8.1f} runs/s with {args.threads} "
                      "threads", flush=True)
        finally:
            if postgres is not None:
                postgres.close()
            shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"workload": "2-turn tool loop (2 model calls, 1 tool call), max_turns=3",
                   "cpu_count": os.cpu_count(), "results": results}, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()
