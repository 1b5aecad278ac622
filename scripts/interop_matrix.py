"""Run the client against the servers nobody here wrote and write docs/interop.md from what
happened (server, version, row, result), as scripts/fault_matrix.py writes the fault matrix.

    .venv/bin/python scripts/interop_matrix.py           # `make interop`: every part
    .venv/bin/python scripts/interop_matrix.py --quick   # llmock and llm-katan only
    .venv/bin/python scripts/interop_matrix.py --from .interop/results   # render again

The tests (tests/interop/) write one JSON file each into the folder ``AISUITE_INTEROP_RESULTS``
names; with ``AISUITE_INTEROP_FULL=1`` the slow part (LiteLLM's proxy) runs too. The page's
generated part, between the ``interop`` markers, is replaced only when every test passed
(documented differences are strict xfails: they must still fail as documented).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "interop.md"
START, END = "<!-- interop:start -->", "<!-- interop:end -->"
SUITE = "tests/interop"
#: The transports each row runs on (tests/support/transports.py): the vendor SDK, the native
#: one, and the native one with its async calls on httpx2 instead of aiohttp.
TRANSPORTS = ("sdk", "native", "native-httpx2")
#: Where the results of the last run are kept, so ``--from`` can render them again.
RESULTS = ROOT / ".interop" / "results"
TOTAL = "total_seconds.txt"  # the whole run's time, beside the results
#: The transport of a row of a client nobody here wrote calling the gateway
#: (tests/interop/test_clients.py): the project's client is not the one calling.
GATEWAY = "gateway"


def run_suite(folder: Path, full: bool) -> float:
    env = {**os.environ, "AISUITE_INTEROP_RESULTS": str(folder)}
    if full:
        env["AISUITE_INTEROP_FULL"] = "1"
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "-n", "2", "-rxXs", SUITE], cwd=ROOT, env=env)
    if proc.returncode != 0:
        sys.exit(f"{SUITE} failed: docs/interop.md is left as it was")
    return time.monotonic() - started


def load(folder: Path) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    rows: list[dict[str, str]] = []
    timings: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        rows += data["rows"]
        timings += data["timings"]
    return rows, timings


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_rows(rows: list[dict[str, str]]) -> str:
    """One line per (server, row): the result, once when every transport it ran on agrees."""
    merged: dict[tuple[str, str, str], dict[str, str]] = {}
    for item in rows:
        key = (item["server"], item["version"], item["row"])
        merged.setdefault(key, {})[item["transport"]] = item["result"]
    lines = ["| server | version | row | result |", "|---|---|---|---|"]
    for (server, version, row), by_transport in merged.items():
        results = [by_transport.get(t) for t in TRANSPORTS]
        if set(by_transport) == {GATEWAY}:
            result = by_transport[GATEWAY]
        elif len(set(results)) == 1:
            result = f"{results[0]} (every transport)"
        else:
            result = "; ".join(f"{t}: {r or 'not run'}" for t, r in zip(TRANSPORTS, results,
                                                                        strict=True))
        lines.append(f"| {server} | {version} | {_cell(row)} | {_cell(result)} |")
    return "\n".join(lines)


def render_differences(rows: list[dict[str, str]]) -> str:
    seen: dict[tuple[str, str], str] = {}
    for item in rows:
        result = item["result"]
        if result.startswith(("documented difference", "known defect")):
            seen.setdefault((item["server"], item["row"]), result)
    if not seen:
        return "None."
    return "\n".join(f"- **{server}**, {row}: {result}" for (server, row), result in seen.items())


def render_timings(timings: list[dict[str, Any]], total: float) -> str:
    summed: dict[tuple[str, str], list[float]] = {}
    for item in timings:
        summed.setdefault((item["server"], item["part"]), []).append(float(item["seconds"]))
    lines = ["| server | part | seconds |", "|---|---|---|"]
    for (server, part), values in summed.items():
        shown = (f"{values[0]:.1f}" if len(values) == 1
                 else f"{sum(values):.1f} ({len(values)} times, {max(values):.1f} at most)")
        lines.append(f"| {server} | {_cell(part)} | {shown} |")
    if total:
        lines.append(f"| all | the whole run (`pytest -n 2 {SUITE}`) | {total:.1f} |")
    return "\n".join(lines)


def render(rows: list[dict[str, str]], timings: list[dict[str, Any]], total: float) -> str:
    servers = sorted({(r["server"], r["version"]) for r in rows if r["transport"] != GATEWAY})
    clients = sorted({(r["server"], r["version"]) for r in rows if r["transport"] == GATEWAY})
    listed = ", ".join(f"{name} {version}" for name, version in servers)
    by_client = "; ".join(f"{name} ({version})" for name, version in clients)
    client_rows = [r for r in rows if r["transport"] == GATEWAY]
    server_rows = [r for r in rows if r["transport"] != GATEWAY]
    return "\n\n".join([
        f"Servers: {listed}. {len(server_rows)} results "
        f"({len({(r['server'], r['row']) for r in server_rows})} rows, each on "
        f"{', '.join(TRANSPORTS)})."
        + (f" Clients against the gateway: {by_client}. {len(client_rows)} results."
           if clients else ""),
        "### Differences and known defects", render_differences(rows),
        "### Results", render_rows(rows),
        "### Time each part takes", render_timings(timings, total)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", help="a folder of saved results")
    parser.add_argument("--quick", action="store_true",
                        help="only the quick part (llmock, llm-katan), as `make test` runs it")
    args = parser.parse_args()
    total = 0.0
    if args.source:
        rows, timings = load(Path(args.source))
        saved = Path(args.source) / TOTAL
        total = float(saved.read_text()) if saved.exists() else 0.0
    else:
        RESULTS.parent.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(dir=RESULTS.parent) as tmp:
            total = run_suite(Path(tmp), full=not args.quick)
            rows, timings = load(Path(tmp))
            (Path(tmp) / TOTAL).write_text(f"{total:.1f}\n")
            # kept only from a run that passed (run_suite exits otherwise)
            shutil.rmtree(RESULTS, ignore_errors=True)
            Path(tmp).rename(RESULTS)
            Path(tmp).mkdir()  # for TemporaryDirectory's own clean-up
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n{render(rows, timings, total)}\n{END}{tail}",
                   encoding="utf-8")
    print(f"{DOC.relative_to(ROOT)}: {len(rows)} results rendered")


if __name__ == "__main__":
    main()
