"""Shared fixtures. HTTP is mocked at the httpcore2 layer (pytest-httpx2's ``httpx2_mock``), so
every provider test goes through the real vendor SDK."""

from __future__ import annotations

import gc
import pathlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest

# The test files live in folders that mirror the package; the servers and helpers they share
# (``support.fault_server.py``, ``support.bedrock_server.py``, ...) live here, importable from every folder.
_HERE = str(pathlib.Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


_KEY_VARS = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION", "GROQ_API_KEY",
    "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY", "OPENROUTER_API_KEY", "CEREBRAS_API_KEY", "PERPLEXITY_API_KEY",
    "HF_TOKEN", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "NEBIUS_API_KEY", "SAMBANOVA_API_KEY",
    "INCEPTION_API_KEY", "COHERE_API_KEY",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sdk_only: runs on the SDK transport only (tests/support/transports.py)")


@pytest.fixture
def no_collector_midway() -> Iterator[None]:
    """For tests whose reply is JSON nested 5,000 levels deep, parsed by a vendor SDK or
    botocore down to Python's recursion limit: garbage is collected first and the cyclic
    collector is held off until the test ends. A finalizer the collector runs at that depth
    (an earlier test's unclosed socket warns) leaves pytest's unraisable hook no stack, and
    the hook's own RecursionError would fail whichever test happened to be parsing."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's real keys or endpoints."""
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _provider_registry() -> Iterator[None]:
    """``register_provider`` is process-wide: what a test registers ends with the test, so
    tests that share a process (an xdist worker runs many files) do not see each other's."""
    from aisuite_like.providers import registry

    saved = dict(registry._USER)
    yield
    registry._USER.clear()
    registry._USER.update(saved)


# --- what several test folders share ----------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    """A loopback ``FaultServer`` (support/fault_server.py) for the module's tests; a file that
    needs another server defines its own ``server``."""
    from support.fault_server import FaultServer

    with FaultServer() as srv:
        yield srv


@pytest.fixture
def otel() -> Iterator[Any]:
    """``ai.instrument()`` into an in-memory exporter and metric reader for the test
    (support/telemetry.py: ``Telemetry``)."""
    pytest.importorskip("opentelemetry.sdk")
    from support.telemetry import instrumented

    with instrumented() as telemetry:
        yield telemetry


@pytest.fixture
def isolated_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    """No developer AWS credentials, config files or instance metadata reach the test (for
    the files that build Bedrock clients: ``pytestmark = pytest.mark.usefixtures(...)``)."""
    from support.bedrock_server import isolate_aws

    isolate_aws(monkeypatch, tmp_path)

