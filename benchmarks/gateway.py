"""The gateway's cost (docs/gateway.md, "Performance"): what it adds to a call against calling
the loopback upstream directly, its throughput at concurrency 100, and its memory over a soak.

The upstream is benchmarks/server.py (its own process). The gateway runs as ``aisuite-like
serve`` (its own process, one uvicorn worker) with a virtual key, over the openai family
pointed at the upstream. The load generator is one asyncio process on httpx2 sending the same
chat request to each; run on an idle machine for numbers worth keeping.

    python benchmarks/gateway.py                     # 2,000 latency samples, 5,000 at c=100,
                                                     # a 20,000-request soak
    python benchmarks/gateway.py --n 200 --throughput 1000 --soak 2000   # a quick look
    python benchmarks/gateway.py --litellm           # also LiteLLM's proxy, when installed

Goals: added latency <= 1 ms p50; throughput >= 0.5x direct; RSS flat over the soak.
LiteLLM's proxy is measured beside it only when ``litellm[proxy]`` is installed (pin an
exact release, never 1.82.7 or 1.82.8, the compromised ones).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from server import start_server_process  # noqa: E402

BODY = {"model": "gpt-bench", "messages": [{"role": "user",
                                            "content": "What is the capital of France?"}]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Gateway:
    """``aisuite-like serve`` in its own process, with one virtual key."""

    def __init__(self, upstream: str, transport: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="aisuite-like-gateway-bench-")
        self.port = _free_port()
        self.config = os.path.join(self.dir, "gateway.toml")
        with open(self.config, "w") as f:
            f.write(f"""[models]
gpt-bench = "openai:gpt-bench"

[providers.openai]
api_key = "bench-upstream-key"
base_url = "{upstream}/v1"
max_retries = 0
transport = "{transport}"

[server]
port = {self.port}
max_in_flight_per_key = 1000

[storage]
url = "sqlite:///{os.path.join(self.dir, 'gateway.db')}"
""")
        command = [sys.executable, "-m", "aisuite_like"]
        made = subprocess.run([*command, "gateway", "keys", "create", "--config", self.config,
                               "--name", "bench"], capture_output=True, text=True, check=True)
        self.key = made.stdout.strip()
        self.proc = subprocess.Popen([*command, "serve", "--config", self.config],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        import httpx2

        while True:
            try:
                if httpx2.get(self.base + "/health", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise RuntimeError(f"the gateway did not start: {err[-2000:]}")
            time.sleep(0.1)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


_PAYLOAD = json.dumps(BODY).encode()


async def _one(client: Any, url: str, headers: dict[str, str]) -> float:
    started = time.perf_counter()
    async with client.post(url, data=_PAYLOAD, headers=headers) as reply:
        text = await reply.read()
        if reply.status != 200:
            raise RuntimeError(f"{url}: HTTP {reply.status} {text[:200]!r}")
    return time.perf_counter() - started


def _session(connections: int) -> Any:
    """The load generator's HTTP client: aiohttp (a lighter client than the SDKs' httpx2, so
    the numbers are the servers', not the load generator's)."""
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections),
                                 timeout=aiohttp.ClientTimeout(total=120))


async def latencies(base: str, headers: dict[str, str], n: int) -> list[float]:
    """``n`` calls one after another on one keep-alive connection (after a warm-up)."""
    async with _session(1) as client:
        url = base + "/v1/chat/completions"
        for _ in range(min(50, n)):
            await _one(client, url, headers)
        return [await _one(client, url, headers) for _ in range(n)]


async def throughput(base: str, headers: dict[str, str], n: int, concurrency: int) -> float:
    """Requests per second for ``n`` calls, ``concurrency`` at a time."""
    async with _session(concurrency) as client:
        url = base + "/v1/chat/completions"
        left = n

        async def worker() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                await _one(client, url, headers)

        await asyncio.gather(*(worker() for _ in range(concurrency)))  # warm-up
        left = n
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return n / (time.perf_counter() - started)


async def soak(base: str, headers: dict[str, str], n: int, pid: int,
               samples: int = 10) -> list[tuple[int, int]]:
    """(requests done, RSS KiB of ``pid``) at ``samples`` points over ``n`` requests."""
    points = [(0, _rss_kib(pid))]
    async with _session(50) as client:
        url = base + "/v1/chat/completions"
        step = max(1, n // samples)
        done = 0
        while done < n:
            batch = min(step, n - done)
            await asyncio.gather(*(_one(client, url, headers) for _ in range(batch)))
            done += batch
            points.append((done, _rss_kib(pid)))
    return points


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000.0


def _litellm() -> str:
    """Where LiteLLM's proxy stands: not measured by this script yet (docs/status.md)."""
    if shutil.which("litellm") is None:
        return "not installed"
    return "installed, not measured: this script does not drive LiteLLM's proxy yet"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="latency samples per side")
    parser.add_argument("--throughput", type=int, default=5000,
                        help="requests of the throughput run per side")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--soak", type=int, default=20000, help="requests of the RSS soak")
    parser.add_argument("--transport", choices=("native", "sdk"), default="native",
                        help="the gateway's transport to the upstream (default native: "
                             "docs/transports.md)")
    parser.add_argument("--litellm", action="store_true",
                        help="also LiteLLM's proxy (when `litellm` is installed)")
    args = parser.parse_args(argv)
    with start_server_process() as upstream:
        gateway = Gateway(upstream.base, args.transport)
        try:
            auth = {"authorization": f"Bearer {gateway.key}",
                    "content-type": "application/json"}
            plain = {"authorization": "Bearer bench-upstream-key",
                     "content-type": "application/json"}
            direct = asyncio.run(latencies(upstream.base, plain, args.n))
            through = asyncio.run(latencies(gateway.base, auth, args.n))
            report: dict[str, Any] = {
                "latency_ms": {
                    "direct": {"p50": _ms(direct, 0.5), "p99": _ms(direct, 0.99)},
                    "gateway": {"p50": _ms(through, 0.5), "p99": _ms(through, 0.99)},
                    "added_p50": _ms(through, 0.5) - _ms(direct, 0.5),
                    "added_p99": _ms(through, 0.99) - _ms(direct, 0.99),
                    "added_mean": (statistics.mean(through) - statistics.mean(direct)) * 1000,
                }}
            direct_rps = asyncio.run(throughput(upstream.base, plain, args.throughput,
                                                args.concurrency))
            gateway_rps = asyncio.run(throughput(gateway.base, auth, args.throughput,
                                                 args.concurrency))
            report["throughput_rps"] = {"concurrency": args.concurrency, "direct": direct_rps,
                                        "gateway": gateway_rps,
                                        "ratio": gateway_rps / direct_rps}
            points = asyncio.run(soak(gateway.base, auth, args.soak, gateway.proc.pid))
            # after the warm-up tenth: growth over the rest of the soak
            settled = points[1][1]
            report["rss_kib"] = {"points": points, "after_first_tenth": settled,
                                 "end": points[-1][1],
                                 "growth_after_first_tenth": points[-1][1] - settled}
            if args.litellm:
                report["litellm"] = _litellm()
        finally:
            gateway.close()
    print(json.dumps(report, indent=2))
    lat, thr = report["latency_ms"], report["throughput_rps"]
    print(f"added latency p50 {lat['added_p50']:.3f} ms, p99 {lat['added_p99']:.3f} ms; "
          f"throughput {thr['gateway']:.0f} vs {thr['direct']:.0f} req/s direct "
          f"({thr['ratio']:.2f}x) at c={thr['concurrency']}; RSS "
          f"{report['rss_kib']['after_first_tenth']} -> {report['rss_kib']['end']} KiB over "
          f"{args.soak} requests", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
