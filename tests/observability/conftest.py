"""The observability tests' ``otel`` (tests/conftest.py's, instrumented into an in-memory
exporter and metric reader) also holds that no API key reached any span or metric."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.telemetry import Telemetry


@pytest.fixture
def otel(otel: Telemetry) -> Iterator[Telemetry]:
    yield otel
    otel.assert_no_key()
