"""Throughput of ``client.batches`` end to end on the loopback batch server: submit N
requests, wait for the batch, read every result; requests per second, per family.

    .venv/bin/python benchmarks/scale_batches.py             # N=1000 per family, 3 repeats
    .venv/bin/python benchmarks/scale_batches.py --n 5000 --repeats 1
    .venv/bin/python benchmarks/scale_batches.py --quick     # N=20, one repeat (smoke test)

The server (tests/support/batch_server.py) runs in its own process, so it does not share this
process's GIL; it ends a batch on the first poll after create. What is measured is our side
of a batch: validating and translating N requests exactly as ``create`` would, building and
uploading the JSONL (OpenAI) or the request list (Anthropic, Gemini inline), polling, and
downloading and translating N results into ``ChatCompletionResponse``s. A provider's own
queueing time (minutes to hours) is not part of it. One warm-up batch of 5 requests per
family and mode runs first (SDK imports, first connections). Prints a table and one JSON line
(a full run also writes it to benchmarks/results/scale_batches.json).

Garbage collection: a batch of N results leaves some 20 N new container objects alive, so
every sample or two CPython runs a full collection, which walks the whole heap (the three SDKs
imported: ~250,000 objects, 0.05-0.2 s here). Where that pause lands depends on what ran
before, not on the step it lands in, so each sample starts from ``gc.collect()`` and the time
spent in collections during the sample is reported beside the steps (``gc s``, part of the
step it fell in).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAMILIES = {"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5",
            "google": "google:gemini-2.5-flash"}


class _GcTimer:
    """Seconds spent in garbage collections since ``start`` (via ``gc.callbacks``)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._began = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._began

    def start(self) -> None:
        gc.collect()
        self.total = 0.0


_GC = _GcTimer()


def _serve() -> None:
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from support.batch_server import BatchServer

    with BatchServer(polls_to_finish=1) as server:
        print(server.url, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


def _client_configs(url: str) -> dict[str, dict[str, Any]]:
    return {"openai": {"api_key": "sk-bench", "base_url": url + "/v1", "max_retries": 0},
            "anthropic": {"api_key": "sk-ant-bench", "base_url": url, "max_retries": 0},
            "google": {"api_key": "gem-bench", "base_url": url, "max_retries": 0}}


def _requests(family: str, n: int) -> list[dict[str, Any]]:
    return [{"custom_id": f"r{i}", "model": FAMILIES[family], "max_tokens": 64,
             "messages": [{"role": "system", "content": "Answer in one word."},
                          {"role": "user", "content": f"Question number {i}?"}]}
            for i in range(n)]


def _run_sync(url: str, family: str, n: int) -> dict[str, float]:
    import aisuite_like as ai

    requests = _requests(family, n)
    with ai.Client(provider_configs=_client_configs(url)) as client:
        _GC.start()
        t0 = time.perf_counter()
        batch = client.batches.create(requests)
        t1 = time.perf_counter()
        batch = client.batches.wait(batch.id, poll_interval=0.01, timeout=300)
        t2 = time.perf_counter()
        results = list(client.batches.results(batch.id))
        t3 = time.perf_counter()
    ok = sum(1 for _, r in results if isinstance(r, ai.ChatCompletionResponse))
    assert ok == n, f"{family}: {ok}/{n} results"
    return {"submit_s": t1 - t0, "wait_s": t2 - t1, "results_s": t3 - t2, "total_s": t3 - t0,
            "gc_s": _GC.total}


def _run_async(url: str, family: str, n: int) -> dict[str, float]:
    import aisuite_like as ai

    requests = _requests(family, n)

    async def main() -> dict[str, float]:
        async with ai.AsyncClient(provider_configs=_client_configs(url)) as client:
            _GC.start()
            t0 = time.perf_counter()
            batch = await client.batches.create(requests)
            t1 = time.perf_counter()
            batch = await client.batches.wait(batch.id, poll_interval=0.01, timeout=300)
            t2 = time.perf_counter()
            results = [item async for item in client.batches.results(batch.id)]
            t3 = time.perf_counter()
        assert len(results) == n
        return {"submit_s": t1 - t0, "wait_s": t2 - t1, "results_s": t3 - t2,
                "total_s": t3 - t0, "gc_s": _GC.total}

    return asyncio.run(main())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="requests per batch (default 1000)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="N=20, one repeat")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve()
        return 0
    n, repeats = (20, 1) if args.quick else (args.n, args.repeats)
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        rows = []
        for family in FAMILIES:
            for mode, runner in (("sync", _run_sync), ("async", _run_async)):
                runner(url, family, 5)  # warm-up: SDK imports and first connections
                samples = [runner(url, family, n) for _ in range(repeats)]
                median = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
                rows.append({"family": family, "mode": mode, "n": n, "repeats": repeats,
                             "requests_per_s": n / median["total_s"],
                             **{k: round(v, 4) for k, v in median.items()}})
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)
    print(f"{'family':<10} {'mode':<6} {'N':>6} {'req/s':>9} {'submit s':>9} "
          f"{'wait s':>8} {'results s':>10} {'total s':>8} {'gc s':>6}")
    for r in rows:
        print(f"{r['family']:<10} {r['mode']:<6} {r['n']:>6} {r['requests_per_s']:>9.0f} "
              f"{r['submit_s']:>9.3f} {r['wait_s']:>8.3f} {r['results_s']:>10.3f} "
              f"{r['total_s']:>8.3f} {r['gc_s']:>6.3f}")
    report = {"benchmark": "scale_batches", "rows": rows}
    print(json.dumps(report))
    if not args.quick:  # the last full run, beside the other benchmark results
        with open(os.path.join(HERE, "results", "scale_batches.json"), "w") as handle:
            json.dump(report, handle, indent=1)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
