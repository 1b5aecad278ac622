"""The gateway's cost (docs/gateway.md, "Performance"): what it adds to a call against calling
the loopback upstream directly, its throughput at concurrency 100, and its memory over a soak;
with ``--litellm``, LiteLLM's proxy beside it (benchmarks/litellm_proxy.py).

The upstream is benchmarks/server.py (its own process), the same server for every side: it
answers from cached bytes (about 0.01 ms of CPU a request), so against it a ratio is the
gateway's own per-request work against nearly none. The gateway runs as ``aisuite-like serve``
(its own process, one uvicorn worker) with a virtual key and its SQLite records, over the
openai family pointed at the upstream. The load generator is one asyncio process on aiohttp
sending the same chat request to each side; the sides take turns in rounds, so load from
elsewhere on the machine falls on each alike.

Reported: latency (p50 / p99, one connection, calls one after another) and what the gateway
adds; throughput at concurrency 100 twice, against an upstream that answers at once (the
gateway's own cost is the whole difference) and one that answers in ``--upstream-latency-ms``
(100 by default, as a provider takes time: the ratio a client sees); the CPU each side's
process spends per request (steady under other load, where a rate is not), and the load
generator's own; the RSS over a soak.

    python benchmarks/gateway.py                     # 2,000 latency samples, 5,000 per
                                                     # throughput run, a 20,000-request soak
    python benchmarks/gateway.py --n 200 --throughput 1000 --soak 2000   # a quick look
    python benchmarks/gateway.py --litellm           # also LiteLLM's proxy, when installed
    python benchmarks/gateway.py --callgrind 240     # instructions per request (valgrind)

Goals: added latency <= 1 ms p50; throughput >= 0.5x direct; RSS flat over the soak.
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

    def __init__(self, upstream: str, transport: str, latencies_ms: tuple[int, ...] = (),
                 prefix: tuple[str, ...] = ()) -> None:
        self.dir = tempfile.mkdtemp(prefix="aisuite-like-gateway-bench-")
        self.port = _free_port()
        self.config = os.path.join(self.dir, "gateway.toml")
        with open(self.config, "w") as f:
            slow = "".join(f'gpt-bench-lat{ms} = "openai:gpt-bench-lat{ms}"\n'
                           for ms in latencies_ms if ms)
            f.write(f"""[models]
gpt-bench = "openai:gpt-bench"
{slow}
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
        self.proc = subprocess.Popen([*prefix, *command, "serve", "--config", self.config],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + (60 if not prefix else 1800)  # valgrind is slow
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


def _payload(latency_ms: int) -> bytes:
    model = BODY["model"] + (f"-lat{latency_ms}" if latency_ms else "")
    return json.dumps({**BODY, "model": model}).encode()


class Target:
    """One side of the comparison: where to send, with which key, and the process whose CPU
    and memory are its own (the upstream's for the direct side)."""

    def __init__(self, name: str, base: str, key: str, pid: int) -> None:
        self.name, self.base, self.pid = name, base, pid
        self.headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
        self.url = base + "/v1/chat/completions"


async def _one(client: Any, target: Target, payload: bytes) -> float:
    import aiohttp

    started = time.perf_counter()
    try:
        async with client.post(target.url, data=payload, headers=target.headers) as reply:
            text = await reply.read()
    except aiohttp.ClientError as exc:
        raise RuntimeError(f"{target.name} ({target.url}): {exc!r}") from exc
    if reply.status != 200:
        raise RuntimeError(f"{target.name} ({target.url}): HTTP {reply.status} {text[:200]!r}")
    return time.perf_counter() - started


def _session(connections: int) -> Any:
    """The load generator's HTTP client: aiohttp (a lighter client than the SDKs' httpx2, so
    the numbers are the servers', not the load generator's)."""
    import aiohttp

    # keep-alive shorter than the servers' (uvicorn's 5 s): a side waits idle while the
    # others take their turn, and a connection the server has just closed is not reused
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections,
                                                                keepalive_timeout=2.0),
                                 timeout=aiohttp.ClientTimeout(total=120))


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (and its children that have ended)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(v) for v in fields[11:15]) / ticks


async def latencies(targets: list[Target], n: int, rounds: int) -> dict[str, list[float]]:
    """``n`` calls per target, one after another on one keep-alive connection each, the
    targets taking turns in ``rounds`` rounds (so a burst of load from elsewhere on the
    machine falls on every side alike), after a warm-up."""
    payload = _payload(0)
    out: dict[str, list[float]] = {t.name: [] for t in targets}
    sessions = [_session(1) for _ in targets]
    try:
        for session, target in zip(sessions, targets, strict=True):
            for _ in range(min(50, n)):
                await _one(session, target, payload)
        per_round = max(1, n // rounds)
        while len(out[targets[0].name]) < n:
            for session, target in zip(sessions, targets, strict=True):
                out[target.name] += [await _one(session, target, payload)
                                     for _ in range(per_round)]
    finally:
        for session in sessions:
            await session.close()
    return out


async def _burst(session: Any, target: Target, payload: bytes, n: int,
                 concurrency: int) -> float:
    left = n

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await _one(session, target, payload)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


async def throughput(targets: list[Target], n: int, concurrency: int, rounds: int,
                     latency_ms: int) -> dict[str, dict[str, float]]:
    """Requests per second over ``n`` calls per target, ``concurrency`` at a time, the targets
    taking turns in ``rounds`` rounds (after a warm-up), and the CPU each target's process
    spent per request (robust to other load: a rate is not)."""
    payload = _payload(latency_ms)
    seconds = {t.name: 0.0 for t in targets}
    cpu = {t.name: 0.0 for t in targets}
    own_cpu = {t.name: 0.0 for t in targets}  # this load generator's, sending to each side
    ratios: dict[str, list[float]] = {t.name: [] for t in targets}
    sessions = [_session(concurrency) for _ in targets]
    try:
        for session, target in zip(sessions, targets, strict=True):
            await _burst(session, target, payload, min(n, 4 * concurrency), concurrency)
        per_round = max(concurrency, n // rounds)
        for _ in range(max(1, n // per_round)):
            took = {}
            for session, target in zip(sessions, targets, strict=True):
                before, own_before = _cpu_s(target.pid), time.process_time()
                took[target.name] = await _burst(session, target, payload, per_round,
                                                 concurrency)
                cpu[target.name] += _cpu_s(target.pid) - before
                own_cpu[target.name] += time.process_time() - own_before
                seconds[target.name] += took[target.name]
            for target in targets:
                ratios[target.name].append(took[targets[0].name] / took[target.name])
    finally:
        for session in sessions:
            await session.close()
    done = per_round * max(1, n // per_round)
    return {t.name: {"rps": done / seconds[t.name],
                     "ratio_median": statistics.median(ratios[t.name]),
                     "cpu_ms_per_request": cpu[t.name] / done * 1000.0,
                     "load_generator_cpu_ms_per_request": own_cpu[t.name] / done * 1000.0}
            for t in targets}


async def soak(target: Target, n: int, samples: int = 10) -> list[tuple[int, int]]:
    """(requests done, RSS KiB of the target's process) at ``samples`` points over ``n``
    requests."""
    payload = _payload(0)
    points = [(0, _rss_kib(target.pid))]
    async with _session(50) as client:
        step = max(1, n // samples)
        done = 0
        while done < n:
            batch = min(step, n - done)
            await asyncio.gather(*(_one(client, target, payload) for _ in range(batch)))
            done += batch
            points.append((done, _rss_kib(target.pid)))
    return points


def instructions(n: int, transport: str, concurrency: int = 10) -> float:
    """Instructions the gateway's process (every thread) runs per request under callgrind:
    counters zeroed after a warm-up that opens its connections a few at a time (under
    valgrind a cold burst would miss the upstream's connect timeout), then ``n`` requests
    ``concurrency`` at a time."""
    import aiohttp

    out = tempfile.mkdtemp(prefix="aisuite-like-gateway-callgrind-")
    with start_server_process() as upstream:
        gateway = Gateway(upstream.base, transport, prefix=(
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out"))
        target = Target("gateway", gateway.base, gateway.key, gateway.proc.pid)
        payload = _payload(0)

        async def burst(count: int, at_once: int) -> None:
            async with aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=at_once),
                    timeout=aiohttp.ClientTimeout(total=1800)) as session:
                await _burst(session, target, payload, count, at_once)

        try:
            for count, at_once in ((20, 1), (20, 2), (40, 5), (200, concurrency)):
                asyncio.run(burst(count, at_once))
            subprocess.run(["callgrind_control", "-z", str(gateway.proc.pid)], check=True,
                           capture_output=True)
            asyncio.run(burst(n, concurrency))
            subprocess.run(["callgrind_control", "-d", str(gateway.proc.pid)], check=True,
                           capture_output=True)
        finally:
            gateway.close()
    total = 0
    with open(os.path.join(out, "callgrind.out.1")) as f:  # the dump after the zeroing
        for line in f:
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
                break
    shutil.rmtree(out, ignore_errors=True)
    return total / n


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000.0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="latency samples per side")
    parser.add_argument("--throughput", type=int, default=5000,
                        help="requests of each throughput run per side")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds the sides take turns in (latency and throughput)")
    parser.add_argument("--upstream-latency-ms", type=int, default=100,
                        help="the upstream's answer time in the second throughput run, as a "
                             "provider's (the first run's upstream answers at once)")
    parser.add_argument("--soak", type=int, default=20000, help="requests of the RSS soak")
    parser.add_argument("--transport", choices=("native", "sdk"), default="native",
                        help="the gateway's transport to the upstream (default native: "
                             "docs/transports.md)")
    parser.add_argument("--litellm", action="store_true",
                        help="also LiteLLM's proxy (when installed: benchmarks/litellm.py)")
    parser.add_argument("--callgrind", type=int, default=0, metavar="N",
                        help="instead: the instructions the gateway's process runs per "
                             "request under valgrind's callgrind, over N requests at "
                             "concurrency 10 after a warm-up (240 in docs/gateway.md)")
    args = parser.parse_args(argv)
    if args.callgrind:
        per_request = instructions(args.callgrind, args.transport)
        print(json.dumps({"instructions_per_request": per_request, "requests": args.callgrind,
                          "transport": args.transport}))
        print(f"{per_request / 1e6:.3f} million instructions per request", file=sys.stderr)
        return 0
    from litellm_proxy import LiteLLMProxy, find_litellm

    with start_server_process() as upstream:
        gateway = Gateway(upstream.base, args.transport, (args.upstream_latency_ms,))
        litellm: Any = None
        report: dict[str, Any] = {
            "setup": {"transport": args.transport, "workers": 1, "rounds": args.rounds,
                      "concurrency": args.concurrency, "cpus": os.cpu_count(),
                      "load_average": list(os.getloadavg())}}
        try:
            targets = [Target("direct", upstream.base, "bench-upstream-key", upstream.proc.pid),
                       Target("gateway", gateway.base, gateway.key, gateway.proc.pid)]
            if args.litellm:
                found = find_litellm()
                if found is None:
                    report["litellm"] = "not installed"
                else:
                    litellm = LiteLLMProxy(found, upstream.base, (args.upstream_latency_ms,))
                    report["litellm"] = {"version": litellm.version}
                    targets.append(Target("litellm", litellm.base, litellm.key,
                                          litellm.proc.pid))
            lat = asyncio.run(latencies(targets, args.n, args.rounds))
            direct = lat["direct"]
            report["latency_ms"] = {"direct": {"p50": _ms(direct, 0.5),
                                               "p99": _ms(direct, 0.99)}}
            for target in targets[1:]:
                mine = lat[target.name]
                report["latency_ms"][target.name] = {"p50": _ms(mine, 0.5),
                                                     "p99": _ms(mine, 0.99)}
                prefix = "" if target.name == "gateway" else f"{target.name}_"
                report["latency_ms"].update({
                    f"{prefix}added_p50": _ms(mine, 0.5) - _ms(direct, 0.5),
                    f"{prefix}added_p99": _ms(mine, 0.99) - _ms(direct, 0.99),
                    f"{prefix}added_mean": (statistics.mean(mine) - statistics.mean(direct))
                    * 1000})
            for name, latency_ms in (("throughput_rps", 0),
                                     ("throughput_rps_upstream_latency",
                                      args.upstream_latency_ms)):
                runs = asyncio.run(throughput(targets, args.throughput, args.concurrency,
                                              args.rounds, latency_ms))
                row: dict[str, Any] = {"concurrency": args.concurrency,
                                       "upstream_latency_ms": latency_ms}
                for target in targets:
                    row[target.name] = runs[target.name]["rps"]
                    row[f"{target.name}_cpu_ms_per_request"] = \
                        runs[target.name]["cpu_ms_per_request"]
                    row[f"load_generator_cpu_ms_per_request_{target.name}"] = \
                        runs[target.name]["load_generator_cpu_ms_per_request"]
                    if target.name != "direct":
                        prefix = "" if target.name == "gateway" else f"{target.name}_"
                        row[f"{prefix}ratio"] = runs[target.name]["rps"] / runs["direct"]["rps"]
                        row[f"{prefix}ratio_median_of_rounds"] = \
                            runs[target.name]["ratio_median"]
                report[name] = row
            for target in targets[1:]:
                points = asyncio.run(soak(target, args.soak))
                # after the warm-up tenth: growth over the rest of the soak
                settled = points[1][1]
                key = "rss_kib" if target.name == "gateway" else f"{target.name}_rss_kib"
                report[key] = {"requests": args.soak, "points": points,
                               "after_first_tenth": settled, "end": points[-1][1],
                               "growth_after_first_tenth": points[-1][1] - settled}
        finally:
            gateway.close()
            if litellm is not None:
                litellm.close()
    report["setup"]["load_average_after"] = list(os.getloadavg())
    print(json.dumps(report, indent=2))
    lat, thr = report["latency_ms"], report["throughput_rps"]
    slow = report["throughput_rps_upstream_latency"]
    print(f"added latency p50 {lat['added_p50']:.3f} ms, p99 {lat['added_p99']:.3f} ms; "
          f"throughput {thr['gateway']:.0f} vs {thr['direct']:.0f} req/s direct "
          f"({thr['ratio']:.2f}x) at c={thr['concurrency']}, "
          f"{slow['gateway']:.0f} vs {slow['direct']:.0f} ({slow['ratio']:.2f}x) with a "
          f"{slow['upstream_latency_ms']} ms upstream; gateway CPU "
          f"{thr['gateway_cpu_ms_per_request']:.2f} ms/request (upstream "
          f"{thr['direct_cpu_ms_per_request']:.2f}, load generator "
          f"{thr['load_generator_cpu_ms_per_request_gateway']:.2f}); RSS "
          f"{report['rss_kib']['after_first_tenth']} -> {report['rss_kib']['end']} KiB over "
          f"{args.soak} requests", file=sys.stderr)
    if isinstance(report.get("litellm"), dict):
        print(f"LiteLLM {report['litellm']['version']}: added latency p50 "
              f"{lat['litellm_added_p50']:.3f} ms, p99 {lat['litellm_added_p99']:.3f} ms; "
              f"throughput {thr['litellm']:.0f} req/s ({thr['litellm_ratio']:.2f}x), "
              f"{slow['litellm']:.0f} ({slow['litellm_ratio']:.2f}x) with the slow upstream; "
              f"CPU {thr['litellm_cpu_ms_per_request']:.2f} ms/request; RSS "
              f"{report['litellm_rss_kib']['after_first_tenth']} -> "
              f"{report['litellm_rss_kib']['end']} KiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
