"""Code health of the package: ``ruff check`` and ``mypy`` (strict, configured in pyproject.toml)
pass on ``aisuite_like/`` and on the typing checks of the public API (tests/typing_checks.py),
and the modules' imports form no cycle."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "aisuite_like"
TYPING_CHECKS = "tests/typing_checks.py"


def _run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it is in the test extra: "
                    f"pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)


def test_ruff_check_passes() -> None:
    done = _run_tool("ruff", "check", "--no-cache", "aisuite_like", "tests/test_code_health.py",
                     "scripts/create_overloads.py", "scripts/record_doc_cassettes.py",
                     "conftest.py", TYPING_CHECKS)
    assert done.returncode == 0, f"ruff check found problems:\n{done.stdout}{done.stderr}"


def test_the_layers_hold() -> None:
    """Each module imports only its own layer or lower ones (docs/architecture.md), checked by
    import-linter's layers contract in pyproject.toml, TYPE_CHECKING imports included."""
    if importlib.util.find_spec("importlinter") is None:
        pytest.skip("import-linter is not installed (it is in the test extra)")
    done = subprocess.run([str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"an import breaks the layers:\n{done.stdout}{done.stderr}"


def test_mypy_strict_passes() -> None:
    # One run for the package and the typing checks; its cache (.mypy_cache) makes re-runs fast.
    done = _run_tool("mypy", "aisuite_like", TYPING_CHECKS)
    assert done.returncode == 0, f"mypy found problems:\n{done.stdout}{done.stderr}"
    assert "Success" in done.stdout


def test_mypy_rejects_what_the_typing_checks_would_miss(tmp_path: Path) -> None:
    """The checks are live: a wrong ``assert_type`` and an unneeded ``type: ignore`` fail."""
    wrong = tmp_path / "wrong_types.py"
    wrong.write_text(
        "from typing_extensions import assert_type\n"
        "import aisuite_like as ai\n"
        "agent = ai.Agent('a', model='scripted:m')\n"
        "result = ai.Runner.run_sync(agent, 'hi')\n"
        "assert_type(result.final_output_as(int), str)\n"
        "ai.Runner.run_sync(agent, 'hi')  # type: ignore[arg-type]\n", encoding="utf-8")
    done = _run_tool("mypy", "--config-file", "pyproject.toml", str(wrong))
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'wrong_types.py:5: error: Expression is of type "int", not "str"' in done.stdout
    assert "wrong_types.py:6: error: Unused \"type: ignore\" comment" in done.stdout


def test_mypy_outside_the_repository_finds_the_installed_package(tmp_path: Path) -> None:
    """An editable install is a path entry (a .pth file; the build backend is hatchling), so
    a type checker run from a user's own project, outside this checkout, finds the package
    and its ``py.typed`` (docs/typing.md)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the test extra)")
    user = tmp_path / "user_code.py"
    user.write_text("import aisuite_like\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=skip",
         "--config-file=", str(user)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mypy outside the checkout:\n{done.stdout}{done.stderr}"


def test_the_typing_checks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/typing_checks.py is real code: every expression it type-checks also runs."""
    spec = importlib.util.spec_from_file_location("typing_checks", ROOT / TYPING_CHECKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    module.run_all()


def test_the_create_overloads_agree() -> None:
    """The create / acreate / parse / aparse / stream overloads of client/facade.py list the same
    keyword parameters (the first create overload is the one to edit; ``make overloads``
    copies it into the others)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import create_overloads as overloads
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = overloads.CLIENT.read_text(encoding="utf-8")
    assert overloads.render(text) == text, "run: make overloads"
    # The check sees a difference: a parameter changed in one overload only is put back, in
    # a create overload and in a parse one (which has no general response_format).
    for changed in ("create", "parse"):
        one = next(m for m in overloads.overloads(text)[1:] if m.group(2) == changed)
        assert "        seed: Optional[int] = None,\n" in one.group(3)
        assert ("response_format: Any" in one.group(3)) is (changed == "create")
        drifted = (text[:one.start(3)]
                   + one.group(3).replace("seed: Optional[int]", "seed: Optional[str]")
                   + text[one.end(3):])
        assert drifted != text and overloads.render(drifted) == text


def _hand_written_lines(path: Path) -> int:
    """Lines of a module, less the overload parameters ``make overloads`` copies."""
    text = path.read_text(encoding="utf-8")
    if path.name == "facade.py" and path.parent.name == "client":
        sys.path.insert(0, str(ROOT / "scripts"))
        try:
            import create_overloads as overloads
        finally:
            sys.path.remove(str(ROOT / "scripts"))
        copied = sum(m.group(3).count("\n") for m in overloads.overloads(text)[1:])
        return text.count("\n") - copied
    return text.count("\n")


def test_no_hand_written_module_over_1000_lines() -> None:
    """A module that grows past 1,000 lines is split by what its parts do
    (docs/architecture.md)."""
    sizes = {str(path.relative_to(ROOT)): _hand_written_lines(path)
             for path in sorted((ROOT / "aisuite_like").rglob("*.py"))}
    assert sizes["aisuite_like/client/facade.py"] > 500  # the count is of the real file
    assert {name: n for name, n in sizes.items() if n > 1000} == {}


def test_every_lazy_name_is_visible_to_type_checkers() -> None:
    """``aisuite_like/__init__.py`` loads most names on first access (``_LAZY``); its
    ``if TYPE_CHECKING:`` block must import each from the same module, or type checkers and
    editors see ``Any``."""
    import aisuite_like

    seen: dict[str, object] = {}
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            if any(isinstance(stmt, ast.AnnAssign) for stmt in node.body):
                continue  # the module-level client's endpoints (tests/client/test_module_client)
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.level == 1, ast.unparse(stmt)
                for alias in stmt.names:
                    assert alias.asname == alias.name, f"re-export it: {alias.name} as {alias.name}"
                    seen[alias.name] = stmt.module
    assert seen == aisuite_like._LAZY


# --- import cycles ---------------------------------------------------------------------------
#
# A module depends on another when it imports it: at module level, inside a function (a
# deferred import that closes a cycle only hides it) or under ``if TYPE_CHECKING:`` (an
# annotation that names a module is a dependency too). The module-level graph is checked on
# its own as well: those are the imports that run at ``import``.


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(module: str, path: Path, known: dict[str, Path], *, deferred: bool
             ) -> dict[str, int]:
    """The package's modules ``module`` imports -> the line of the first import: every import
    (module level, in functions, under ``TYPE_CHECKING``), or with ``deferred=False`` only
    those that run at module level."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in known and target != module:
            found.setdefault(target, line)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in (child.body + child.orelse) if deferred else child.orelse:
                    visit_statement(stmt)
            else:
                visit_statement(child)

    def visit_statement(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if deferred:
                visit(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            names = [f"{base}.{alias.name}" for alias in node.names]
            submodules = [name for name in names if name in known]
            if len(submodules) < len(names):  # names defined in the module itself
                add(base, node.lineno)
            for name in submodules:
                add(name, node.lineno)
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components


def _graph(*, deferred: bool) -> dict[str, dict[str, int]]:
    known = _module_names()
    return {name: _imports(name, path, known, deferred=deferred)
            for name, path in known.items()}


def _describe(graph: dict[str, dict[str, int]], cycles: list[list[str]]) -> str:
    lines = []
    for members in cycles:
        lines.append("cycle among " + ", ".join(members) + ":")
        lines += [f"  {source} (line {line}) imports {target}"
                  for source in members for target, line in graph[source].items()
                  if target in members]
    return "\n".join(lines)


@pytest.mark.parametrize("deferred", [False, True], ids=["module-level", "every-import"])
def test_no_import_cycles(deferred: bool) -> None:
    graph = _graph(deferred=deferred)
    cycles = _cycles(graph)
    assert not cycles, _describe(graph, cycles)


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_import_graph_reads_every_kind_of_import() -> None:
    graph = _graph(deferred=True)
    top = _graph(deferred=False)
    assert "aisuite_like.client.facade" in graph["aisuite_like"]  # from .client.facade import
    assert "aisuite_like.providers.base" in graph["aisuite_like.providers"]  # from .base
    assert "aisuite_like.core.errors" in graph["aisuite_like.providers.retry"]  # from ..core
    # Deferred (function-level) and TYPE_CHECKING imports count only in the complete graph.
    assert "aisuite_like.loop.drivers" in graph["aisuite_like.client.facade"]
    assert "aisuite_like.loop.drivers" not in top["aisuite_like.client.facade"]
    assert "aisuite_like.core.types" in graph["aisuite_like.core.errors"]  # SkippedModel
    assert "aisuite_like.core.types" not in top["aisuite_like.core.errors"]


def test_a_private_module_is_imported_only_inside_its_package() -> None:
    # ``providers/_common.py`` and the like are their package's own: what other layers need
    # of them lives in a public module (core/reading.py: loads_json; core/content.py: text_of).
    # A family's ``_sdk_seam`` is the one exception by design: the only module that touches
    # its SDK's internals, which the family's batches go through too (docs/architecture.md).
    graph = _graph(deferred=True)
    outside = sorted(
        f"{source} (line {line}) imports {target}"
        for source, targets in graph.items() for target, line in targets.items()
        if target.rpartition(".")[2].startswith("_")
        and target.rpartition(".")[2] not in ("__main__", "_sdk_seam")
        and not (source + ".").startswith(target.rpartition(".")[0] + "."))
    assert not outside, "\n".join(outside)
