"""Profile one benchmark workload with cProfile, against the loopback server.

    python benchmarks/profile_workload.py sequential anthropic            # aisuite_like side
    python benchmarks/profile_workload.py async openai --side raw_aiohttp
    python benchmarks/profile_workload.py tool_loop openai --variant b --top 40

Prints the functions with the most cumulative and own time, and the share of the run spent in
aisuite_like's own code (own time of functions defined under aisuite_like/).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import run as bench_run  # noqa: E402
import workloads  # noqa: E402
from server import ServerProcess  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(workloads.SCENARIOS))
    parser.add_argument("family", choices=bench_run.FAMILIES)
    parser.add_argument("--side", default="ours")
    parser.add_argument("--variant", default="b", help="tool_loop variant: a or b")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    sizes = bench_run.FULL
    key = {"tool_loop": f"tool_loop_{args.variant}"}.get(args.scenario, args.scenario)
    params = {k: v for k, v in sizes.get(key, {}).items() if k != "repeats"}
    if args.scenario == "tool_loop":
        params["variant"] = args.variant
    with ServerProcess() as server:
        task = {"scenario": args.scenario, "family": args.family, "side": args.side,
                "base": server.base, "params": params}
        workloads.SCENARIOS[args.scenario](task)  # imports and first-use work stay out
        profiler = cProfile.Profile()
        profiler.enable()
        result = workloads.SCENARIOS[args.scenario](task)
        profiler.disable()
    print(f"result: {result}")
    stats = pstats.Stats(profiler)
    total = stats.total_tt  # type: ignore[attr-defined]
    ours = sum(tt for (file, _, _), (_, _, tt, _, _) in stats.stats.items()  # type: ignore[attr-defined]
               if f"{os.sep}aisuite_like{os.sep}" in file)
    print(f"own time in aisuite_like/: {ours:.3f}s of {total:.3f}s profiled "
          f"({ours / total:.1%})")
    for sort in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(sort).print_stats(args.top)
        print(out.getvalue())


if __name__ == "__main__":
    main()
