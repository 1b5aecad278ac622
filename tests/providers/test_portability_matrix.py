"""The portability matrix (docs/portability.md): every history a family produced (its
recorded replies, or replies in its format, through the real client) or a caller wrote by
hand, sent to every other family, sync and async, streamed and not, through the real SDKs
to a loopback server that checks each request against the target API's rules
(tests/support/portability_rules.py: id grammar and length, tool-result adjacency,
alternation, Gemini's call/response pairing and signatures, Bedrock's toolUseId, reasoning
only where it was issued). A violation is that API's 400: the test fails. Each case then
answers the call the target made and sends again (the same ids, the target's own id and
reasoning back as given), and its facts must be the ones docs/portability.md's table shows
for that pair (scripts/portability_matrix.py writes the table from these cases)."""

from __future__ import annotations

import copy
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from support.portability_cases import (
    COLUMNS,
    FAMILIES,
    NATIVE,
    SOURCES,
    cases,
    current_table,
    parse_table,
    produce,
    render,
    run_case,
)
from support.portability_server import TARGETS, PortabilityServer

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "portability.md"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # Bedrock clients are built here


@pytest.fixture(scope="module")
def server() -> Iterator[PortabilityServer]:
    with PortabilityServer() as srv:
        yield srv


_HISTORIES: dict[str, list[dict[str, Any]]] = {}


def history(server: PortabilityServer, name: str) -> list[dict[str, Any]]:
    if name not in _HISTORIES:
        _HISTORIES[name] = produce(server, name)
    return copy.deepcopy(_HISTORIES[name])


@pytest.mark.parametrize("source, target, mode", cases(),
                         ids=[f"{s}-to-{t}-{m}" for s, t, m in cases()])
def test_a_history_is_sent_correctly_to_every_family(server: PortabilityServer, source: str,
                                                      target: str, mode: str) -> None:
    facts = run_case(server, history(server, source), source, target, mode)
    documented = parse_table(DOC.read_text(encoding="utf-8"))[(facts.family, target)]
    for column in COLUMNS:
        assert set(facts.cells[column]) <= documented[column], (
            f"{column}: {facts.cells[column]} is not what docs/portability.md says "
            f"({sorted(documented[column])}): run scripts/portability_matrix.py")


# Our own HTTP transport (docs/transports.md) sends what the translators make, as the SDKs do:
# one history of each family to every target it serves, sync and async-streamed.
NATIVE_CASES = [(name, target, mode) for name in sorted(
    {next(s.name for s in SOURCES.values() if s.family == f) for f in (*FAMILIES, "hand")})
    for target in NATIVE for mode in ("sync", "async-stream")]


@pytest.mark.parametrize("source, target, mode", NATIVE_CASES,
                         ids=[f"{s}-to-{t}-{m}" for s, t, m in NATIVE_CASES])
def test_the_native_transport_sends_the_same(server: PortabilityServer, source: str,
                                             target: str, mode: str) -> None:
    sdk = run_case(server, history(server, source), source, target, mode)
    native = run_case(server, history(server, source), source, target, mode, "native")
    assert native.cells == sdk.cells


def test_the_table_is_what_the_cases_see(server: PortabilityServer) -> None:
    """Every source to every target once (sync): the facts, rendered, are the table of
    docs/portability.md, to the letter (the cases above check each mode against it)."""
    facts = [run_case(server, history(server, name), name, target, "sync")
             for name in SOURCES for target in TARGETS]
    assert render(facts) == current_table(DOC.read_text(encoding="utf-8")), (
        "docs/portability.md's table is stale: run scripts/portability_matrix.py")


def test_the_table_has_every_ordered_pair() -> None:
    table = parse_table(DOC.read_text(encoding="utf-8"))
    families = {s.family for s in SOURCES.values()}
    assert families == {*FAMILIES, "hand"}
    assert set(table) == {(f, t) for f in families for t in TARGETS}
