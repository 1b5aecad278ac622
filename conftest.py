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


_sybil_collect = Sybil(parsers=[PythonCodeBlockParser()], patterns=["*.md"],
                       fixtures=["_doc_page"]).pytest()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[Any]:
    if is_doc_page(file_path):
        return _sybil_collect(file_path, parent)
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The blocks of one page share a namespace: under xdist (--dist loadgroup) they stay on
    # one worker, in order.
    for item in items:
        if is_doc_page(Path(str(item.path))):
            item.add_marker(pytest.mark.xdist_group(f"doc:{item.path}"))


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
