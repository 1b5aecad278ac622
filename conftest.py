"""The documentation runs in the test suite (docs/testing.md, "Documentation that runs").

Every ```python block of README.md and docs/**/*.md is a test (sybil); the blocks of one page
run in order in one namespace, as a reader would paste them. A block marked ```python fragment
is an illustration and is not run. Hidden set-up a page needs (a tool function, a client) is
an HTML comment ``<!-- invisible-code-block: python ... -->`` on the page itself.

A page runs with no developer key in the environment, inside ``block_real_requests()``, so a
block that would call a real provider fails at once; a page with a cassette in
``tests/doc_cassettes/`` (written by ``scripts/record_doc_cassettes.py``) runs inside
``replay()`` of it instead, with placeholder keys.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

ROOT = Path(__file__).resolve().parent
DOC_CASSETTES = ROOT / "tests" / "doc_cassettes"

#: Environment variables a page never sees (a developer's keys, endpoints and AWS set-up).
_SECRET_VAR = re.compile(r"(_API_KEY|_TOKEN|_BASE_URL|_ENDPOINT|_API_VERSION)$|^AWS_|^GOOGLE_")
#: Placeholder keys for a page replayed from a cassette (its recording used the same ones).
DOC_KEYS = {"OPENAI_API_KEY": "sk-doc-placeholder-key-0000",
            "ANTHROPIC_API_KEY": "sk-ant-doc-placeholder-key-0000",
            "GEMINI_API_KEY": "doc-placeholder-gemini-key-0000"}


def doc_cassette(page: Path) -> Path:
    """The cassette of a documentation page: ``tests/doc_cassettes/<page path>.json``."""
    return DOC_CASSETTES / (page.resolve().relative_to(ROOT).as_posix().replace("/", "__")
                            + ".json")


def is_doc_page(path: Path) -> bool:
    return path.suffix == ".md" and (path == ROOT / "README.md" or ROOT / "docs" in path.parents)


class _ReaderCodeBlocks(PythonCodeBlockParser):
    """The page's Python blocks, each run as a reader would paste it: a hidden block
    (``<!-- invisible-code-block: python -->``) sees the page's names, to check what the
    visible blocks did, but the names it binds are undone after it, so no visible block can
    depend on hidden set-up."""

    def __call__(self, document: Any) -> Iterator[Any]:
        for region in super().__call__(document):
            if str(region.lexemes.get("directive", "")).startswith("invisible"):
                region.evaluator = _checks_only(region.evaluator)
            yield region


def _checks_only(evaluate: Any) -> Any:
    def run(example: Any) -> Any:
        namespace = example.namespace
        before = dict(namespace)
        try:
            return evaluate(example)
        finally:
            namespace.clear()
            namespace.update(before)
    return run


_sybil_collect = Sybil(parsers=[_ReaderCodeBlocks()], patterns=["*.md"],
                       fixtures=["_doc_page"]).pytest()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[Any]:
    if is_doc_page(file_path):
        return _sybil_collect(file_path, parent)
    return None


#: Test files that take long for their number of tests (subprocesses, servers, timeouts):
#: handed out first under xdist, so that no worker starts one of them when the others are done.
_LONG_FILES = ("test_llama_cpp.py", "test_litellm.py",  # make interop only: minutes each
               "test_benchmarks_smoke.py", "test_durable_postgres.py", "test_durable.py",
               "test_mcp.py", "test_llm_katan.py", "test_llmock.py",  # + a 45 s install
               "test_independent_bench.py",
               "test_transport_faults.py", "test_durable_bench_smoke.py",
               "test_scale_async_smoke.py", "test_bedrock_retries.py",
               "test_router_redis.py", "test_gateway_safety.py", "test_gateway_cli.py",
               "test_gateway_shared.py", "test_gateway_ui.py",
               "test_code_health.py")  # mypy: a minute on a fresh clone (no .mypy_cache)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order xdist hands files out in (``--dist loadfile --no-loadscope-reorder``): the
    long files above, then the others by their number of tests, largest first; a file's own
    tests keep their order (and a documentation page's blocks, which share a namespace, stay
    together on one worker)."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(str(item.path), []).append(item)

    def rank(path: str) -> tuple[int, int]:
        name = Path(path).name
        first = _LONG_FILES.index(name) if name in _LONG_FILES else len(_LONG_FILES)
        return first, -len(files[path])

    items[:] = [item for path in sorted(files, key=rank) for item in files[path]]


@pytest.fixture(scope="module")  # a page (sybil's file node stands in for the module)
def _doc_page(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[None]:
    from aisuite_like.testing import block_real_requests, replay

    page = Path(str(request.node.path))
    cassette = doc_cassette(page)
    with pytest.MonkeyPatch.context() as env:
        for name in list(os.environ):
            if _SECRET_VAR.search(name):
                env.delenv(name)
        env.setenv("AWS_EC2_METADATA_DISABLED", "true")
        env.chdir(tmp_path_factory.mktemp("doc"))  # files a page writes stay out of the tree
        if cassette.exists():
            for name, value in DOC_KEYS.items():
                env.setenv(name, value)
            with replay(cassette) as active:
                yield
            active.assert_all_used()
        else:
            with block_real_requests():
                yield
