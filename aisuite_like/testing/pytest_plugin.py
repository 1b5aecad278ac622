"""The pytest plugin of aisuite-like (registered as a ``pytest11`` entry point, so installing
the package is enough): the ``cassette`` fixture and the ``--record-cassettes`` option
(docs/testing.md, "Record and replay").

    def test_weather(cassette):
        resp = ai.Client().chat.completions.create(model="openai:gpt-4o", messages=[...])

replays ``cassettes/<test module>/<test name>.json`` next to the test file, offline. With
``pytest --record-cassettes`` (or ``AISUITE_LIKE_RECORD_CASSETTES=1``) the test talks to the
real provider and (re)writes that file. ``@pytest.mark.cassette("other.json",
ignore_fields=["run_at"])`` names another file (relative to the test file's folder) or leaves
body fields out of the match. Loading this plugin imports no vendor SDK.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from .cassette import RECORD_ENV, Cassette, record, replay

__all__ = ["cassette", "cassette_path", "recording"]

_OPTION = "--record-cassettes"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_FAILED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("aisuite_like").addoption(
        _OPTION, action="store_true", default=False,
        help="the cassette fixture records real exchanges (rewriting its file) instead of "
             f"replaying them; also {RECORD_ENV}=1")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cassette(path=None, *, ignore_fields=()): the file and the matching of the "
        "cassette fixture (aisuite_like.testing)")


def recording(config: pytest.Config) -> bool:
    """Whether the ``cassette`` fixture records in this run (opt-in)."""
    flag = os.environ.get(RECORD_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    return bool(config.getoption(_OPTION, default=False)) or flag


def cassette_path(request: pytest.FixtureRequest) -> Path:
    """``cassettes/<module>/<test name>.json`` beside the test file, or the marker's path."""
    folder = Path(request.node.path).parent
    marker = request.node.get_closest_marker("cassette")
    given = marker.kwargs.get("path", marker.args[0] if marker.args else None) if marker else None
    if given is not None:
        return folder / str(given)
    name = _UNSAFE.sub("_", request.node.name).strip("_") or "test"
    return folder / "cassettes" / Path(request.node.path).stem / f"{name}.json"


@pytest.fixture
def cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """Replays this test's cassette (offline), or records it with ``--record-cassettes``."""
    marker = request.node.get_closest_marker("cassette")
    ignore = marker.kwargs.get("ignore_fields", ()) if marker else ()
    path = cassette_path(request)
    use = record if recording(request.config) else replay
    active = use(path, ignore_fields=ignore).__enter__()
    try:
        yield active
    finally:  # a failed test's recording is not written (the file stays as it was)
        active.close(save=not request.node.stash.get(_FAILED, False))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    if report.when == "call" and report.failed:
        item.stash[_FAILED] = True
    return report
