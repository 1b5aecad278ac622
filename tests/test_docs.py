"""The documentation's Python blocks: each one runs in the suite (conftest.py at the top of the
repository collects them with sybil) or is marked ```python fragment; a fragment still has to
be valid Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(?P<fence>```+)(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)


def _blocks(page: Path) -> list[tuple[int, str, str]]:
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group("info").strip(), m.group("body"))
            for m in FENCE.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_runs_or_is_a_valid_fragment(page: Path) -> None:
    for line, info, body in _blocks(page):
        words = info.split()
        if not words or words[0].lower() not in ("python", "py", "python3", "pycon"):
            continue
        where = f"{page.relative_to(ROOT)}:{line}"
        assert info in ("python", "python fragment"), (
            f"{where}: ```{info} is neither run nor a marked fragment; write ```python (runs "
            "in the suite) or ```python fragment")
        try:  # a fragment too must parse: readers paste it
            compile(body, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError as exc:
            pytest.fail(f"{where}: not valid Python: {exc}")


def test_the_suite_collects_every_runnable_block() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_top_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    top = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(top)  # the top-level conftest: the collector of the pages
    from sybil import Sybil
    from sybil.parsers.markdown import PythonCodeBlockParser

    assert callable(top.pytest_collect_file)
    parser = Sybil(parsers=[PythonCodeBlockParser()])
    runnable = 0
    for page in PAGES:
        assert top.is_doc_page(page)
        text = page.read_text(encoding="utf-8")
        expected = len(re.findall(r"^(?:```python|<!-- invisible-code-block: python)\n", text,
                                  re.MULTILINE))
        assert len(list(parser.parse(page).examples())) == expected, page
        runnable += expected
    assert runnable >= 10
    import tomllib

    testpaths = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["testpaths"]
    assert {"tests", "README.md", "docs"} <= set(testpaths)
