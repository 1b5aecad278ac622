"""Write the ordered-pair table of docs/portability.md from the portability matrix's cases.

    .venv/bin/python scripts/portability_matrix.py

Runs every case of tests/providers/test_portability_matrix.py (each history a family
produced, or a caller wrote, sent to every family in the four modes, through the real SDKs
to the loopback server that checks each target's rules: tests/support/portability_*.py) and,
when every case passed, replaces the text between the ``portability-matrix`` markers of
docs/portability.md with the facts the cases saw. The matrix tests fail while the table
says something else (a stale table).
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "portability.md"


def main() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    with tempfile.TemporaryDirectory() as tmp:  # no credentials or AWS config of yours
        for var in [v for v in os.environ if v.startswith("AWS_") or v.endswith("_API_KEY")]:
            del os.environ[var]
        os.environ.update({"AWS_CONFIG_FILE": f"{tmp}/none", "AWS_EC2_METADATA_DISABLED":
                           "true", "AWS_SHARED_CREDENTIALS_FILE": f"{tmp}/none"})
        from support.portability_cases import END, START, cases, produce, render, run_case
        from support.portability_server import PortabilityServer

        facts, failed = [], 0
        with PortabilityServer() as server:
            histories = {}
            for source, target, mode in cases():
                try:
                    if source not in histories:
                        histories[source] = produce(server, source)
                    facts.append(run_case(server, histories[source], source, target, mode))
                except Exception:
                    failed += 1
                    print(f"FAILED {source} -> {target} ({mode})", file=sys.stderr)
                    traceback.print_exc()
    if failed:
        sys.exit(f"{failed} cases failed: the table is left as it was")
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n{render(facts)}\n{END}{tail}", encoding="utf-8")
    print(f"{DOC.relative_to(ROOT)}: {len(facts)} cases rendered")


if __name__ == "__main__":
    main()
