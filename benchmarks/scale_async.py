"""Throughput of plain async calls with ``max_concurrency``, for docs/scale.md.

Runs N one-shot requests and N two-turn tool loops (one tool call, then the answer) through
``acreate`` against the loopback server (benchmarks/server.py, its own process), for each HTTP
family, at a given server latency, and prints requests or runs per second.

    python benchmarks/scale_async.py                 # N=1000, latency 0 and 50 ms, c=64
    python benchmarks/scale_async.py --n 200 --latency 0 --concurrency 16,64
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from server import start_server_process  # noqa: E402

import aisuite_like as ai  # noqa: E402

FAMILIES = ("openai", "anthropic", "google")
_MODELS = {"openai": "gpt-bench", "anthropic": "claude-bench", "google": "gemini-bench"}


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: 21 C"


def _client(family: str, base: str, concurrency: int) -> ai.AsyncClient:
    config: dict[str, Any] = {"api_key": "bench-key", "max_retries": 0,
                              "max_concurrency": concurrency,
                              "base_url": base + "/v1" if family == "openai" else base}
    return ai.AsyncClient({family: config})


async def _measure(family: str, base: str, n: int, latency_ms: int, concurrency: int,
                   tool_loop: bool) -> float:
    client = _client(family, base, concurrency)
    model = f"{family}:{_MODELS[family]}-lat{latency_ms}" + ("-tools1" if tool_loop else "")
    extra: dict[str, Any] = {"max_tokens": 64} if family == "anthropic" else {}
    if tool_loop:
        extra.update(tools=[get_weather], max_turns=2)
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]

    async def one() -> None:
        resp = await client.chat.completions.create(model=model, messages=messages, **extra)
        if tool_loop and len(resp.choices[0].intermediate_messages) < 2:
            raise RuntimeError("the tool loop did not call its tool")

    # Warm up first (SDK import, connection pool), so the rate is of steady state.
    await asyncio.gather(*(one() for _ in range(min(n, concurrency))))
    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    elapsed = time.perf_counter() - start
    await client.aclose()
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--latency", default="0,50", help="server latency in ms, comma list")
    parser.add_argument("--concurrency", default="64", help="max_concurrency, comma list")
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args()
    server = start_server_process()
    try:
        print(f"{'family':10} {'latency':>8} {'c':>4} {'calls/s':>9} {'2-turn runs/s':>14}")
        for family in args.families.split(","):
            for latency in (int(x) for x in args.latency.split(",")):
                for c in (int(x) for x in args.concurrency.split(",")):
                    calls = asyncio.run(_measure(family, server.base, args.n, latency, c, False))
                    runs = asyncio.run(_measure(family, server.base, args.n, latency, c, True))
                    print(f"{family:10} {latency:>6}ms {c:>4} {calls:>9.0f} {runs:>14.0f}")
    finally:
        server.close()


if __name__ == "__main__":
    main()
