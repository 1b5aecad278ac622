"""The cache tests count every request a server receives, so each test has a server of its own
(tests/conftest.py's ``server`` is one per module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.fault_server import FaultServer


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer() as s:
        yield s
