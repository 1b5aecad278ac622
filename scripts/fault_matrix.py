"""Render the fault matrix of docs/reliability.md from the fault suite's own results.

    .venv/bin/python scripts/fault_matrix.py            # run the suite, rewrite the table
    .venv/bin/python scripts/fault_matrix.py --from results.json   # render saved results

The suites (tests/providers/test_transport_faults.py and tests/loop/test_tool_faults.py for the HTTP
families, tests/providers/test_bedrock_retries.py for Bedrock) record what happened per fault and family
when ``AISUITE_FAULT_MATRIX`` names a file (the tool faults write ``<file>.tools.json``); this
script runs each that way, and only when every case passed, replaces the text between the
``fault-matrix`` markers of docs/reliability.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "reliability.md"
START, END = "<!-- fault-matrix:start -->", "<!-- fault-matrix:end -->"
FAMILIES = ("openai", "anthropic", "google", "bedrock")
SUITES = ("tests/providers/test_transport_faults.py", "tests/loop/test_tool_faults.py",
          "tests/providers/test_bedrock_retries.py",
          "tests/providers/test_reply_faults.py")


def run_suite() -> list[dict[str, str]]:
    outcomes: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, suite in enumerate(SUITES):
            out = Path(tmp) / f"outcomes-{n}.json"
            env = {**os.environ, "AISUITE_FAULT_MATRIX": str(out)}
            proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                                   "no:cacheprovider", suite], cwd=ROOT, env=env)
            if proc.returncode != 0:
                sys.exit(f"{suite} failed: the matrix is left as it was")
            for written in (out, Path(str(out) + ".tools.json")):
                if written.exists():
                    outcomes += json.loads(written.read_text(encoding="utf-8"))
    return outcomes


def render(outcomes: list[dict[str, str]]) -> str:
    faults: dict[str, dict[str, list[str]]] = {}
    for item in outcomes:
        cells = faults.setdefault(item["fault"], {f: [] for f in FAMILIES})
        if item["outcome"] not in cells[item["family"]]:
            cells[item["family"]].append(item["outcome"])
    lines = ["| fault | " + " | ".join(FAMILIES) + " |",
             "|---|" + "---|" * len(FAMILIES)]
    for fault, cells in faults.items():
        row = [("; ".join(cells[f]) or "n/a").replace("|", "\\|") for f in FAMILIES]
        lines.append(f"| {fault} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", help="a saved outcomes JSON file")
    args = parser.parse_args()
    outcomes = (json.loads(Path(args.source).read_text(encoding="utf-8")) if args.source
                else run_suite())
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n{render(outcomes)}\n{END}{tail}", encoding="utf-8")
    print(f"{DOC.relative_to(ROOT)}: {len(outcomes)} outcomes rendered")


if __name__ == "__main__":
    main()
