"""The project's own fault matrix (docs/reliability.md, written by scripts/fault_matrix.py
from the fault suites' results), read back so that a fault row run against a server nobody
here wrote can be compared with what the project's own servers gave."""

from __future__ import annotations

import functools
import re
from pathlib import Path

_DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"
_START, _END = "<!-- fault-matrix:start -->", "<!-- fault-matrix:end -->"


@functools.cache
def fault_matrix() -> dict[str, dict[str, str]]:
    """fault row -> family -> outcome, as the table shows them."""
    text = _DOC.read_text(encoding="utf-8")
    table = text.partition(_START)[2].partition(_END)[0].strip().splitlines()
    cells = [[c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
             for line in table]
    families, rows = cells[0][1:], cells[2:]
    return {row[0]: dict(zip(families, row[1:], strict=True)) for row in rows}


def fault_matrix_cell(row: str, family: str) -> str:
    cell = fault_matrix()[row][family]
    if cell == "n/a":
        raise LookupError(f"the fault matrix has no {family} outcome for {row!r}")
    return cell
