"""The vendor SDKs' private internals are touched in one place per family: its ``_sdk_seam.py``
(docs/architecture.md, "providers"), written for the SDK releases its ``SDK_VERSIONS`` names.

- every ``aisuite_like/providers/*/_sdk_seam.py`` is found by itself; the installed release of
  each distribution its ``SDK_VERSIONS`` names satisfies the specifier, so an SDK upgrade past
  what a seam was written for fails here, loudly, rather than somewhere in a call;
- no other module of ``aisuite_like`` reads a private attribute of a vendor SDK or imports one
  of its private modules: an AST scan (``private_sdk_uses``) that follows the names bound to
  the SDKs' modules and to what comes out of them (``client = openai.OpenAI(...)``,
  ``self._sdk = anthropic``, ``with ... as response``), and that is tested on planted
  violations below.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ImportError:  # Python 3.10: the distributions' names are not checked against pyproject
    tomllib = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "aisuite_like"
SEAMS = sorted(PACKAGE.glob("providers/*/_sdk_seam.py"))

#: family -> the vendor SDK modules whose private internals only its seam may touch. The scan
#: looks for these in every module of the package.
SCANNED_SDKS: dict[str, tuple[str, ...]] = {
    "openai": ("openai",),
    "anthropic": ("anthropic",),
    "google": ("google.genai",),
    "bedrock": ("botocore",),
}


def _family(seam: Path) -> str:
    return seam.parent.name


# --- the seams and the SDK releases they were written for -----------------------------------


def test_the_seams_are_found() -> None:
    assert {"openai", "anthropic", "google", "bedrock"} <= {_family(seam) for seam in SEAMS}, SEAMS


def test_every_family_with_a_seam_is_scanned() -> None:
    """A family that has a seam has its SDK in the scan (else its private accesses could
    spread outside the seam unseen)."""
    missing = sorted({_family(seam) for seam in SEAMS} - set(SCANNED_SDKS))
    assert not missing, f"add the SDK modules of {missing} to SCANNED_SDKS"


def _declared_distributions() -> Optional[set[str]]:
    """The distributions pyproject.toml names in its extras."""
    if tomllib is None:
        return None
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = set()
    for requirements in project.get("optional-dependencies", {}).values():
        for text in requirements:
            names.add(canonicalize_name(Requirement(text).name))
    return names


@pytest.mark.parametrize("seam", SEAMS, ids=_family)
def test_the_installed_sdk_is_one_the_seam_was_written_for(seam: Path) -> None:
    module = importlib.import_module(f"aisuite_like.providers.{_family(seam)}._sdk_seam")
    versions = getattr(module, "SDK_VERSIONS", None)
    assert isinstance(versions, dict) and versions, (
        f"{seam.relative_to(ROOT)} needs SDK_VERSIONS = {{'<distribution>': '<specifier>'}}")
    declared = _declared_distributions()
    for distribution, specifier in versions.items():
        assert declared is None or canonicalize_name(distribution) in declared, (
            f"{distribution!r} is not a distribution pyproject.toml's extras name")
        try:
            allowed = SpecifierSet(specifier)
        except InvalidSpecifier as exc:
            pytest.fail(f"{seam.relative_to(ROOT)}: {distribution}: {exc}")
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{distribution} is not installed")
        assert allowed.contains(Version(installed), prereleases=True), (
            f"{distribution} {installed} is installed, but {seam.relative_to(ROOT)} was "
            f"written for {distribution}{specifier}: check every private internal it touches "
            "against the new release, then widen SDK_VERSIONS (and pyproject's extra)")


def test_a_release_outside_the_specifier_fails() -> None:
    """The comparison the test above makes, on an upgrade past the seam's releases."""
    assert SpecifierSet(">=3,<4").contains(Version("3.57.0"), prereleases=True)
    assert not SpecifierSet(">=3,<4").contains(Version("4.0.0"), prereleases=True)
    assert not SpecifierSet(">=3,<4").contains(Version("4.0.0rc1"), prereleases=True)


# --- the scan --------------------------------------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _within(path: Optional[str], sdks: Iterable[str]) -> Optional[str]:
    """The SDK module ``path`` (a dotted path from an SDK module) lies in, if any."""
    if path is None:
        return None
    return next((sdk for sdk in sdks if path == sdk or path.startswith(sdk + ".")), None)


def _private_module(module: str, sdks: Iterable[str]) -> bool:
    sdk = _within(module, sdks)
    return sdk is not None and any(_private(part) for part in module[len(sdk):].split(".") if part)


def _returned(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """The values a function's own ``return`` statements give (not those of nested ones)."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            yield node.value
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                   ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))


def _dotted(node: ast.expr) -> Optional[str]:
    """``self._sdk`` for an attribute chain on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


@dataclass(eq=False)
class _Scope:
    """The names a module, class or function binds: name -> the SDK path of its value (None:
    bound to something that is not from an SDK, which hides an outer binding)."""

    parent: Optional[_Scope]
    is_class: bool = False
    names: dict[str, Optional[str]] = field(default_factory=dict)

    def lookup(self, name: str) -> Optional[str]:
        scope: Optional[_Scope] = self
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.names:
                return scope.names[name]
            first = False
            scope = scope.parent
        return None


class _Scan:
    """Follows the values that come from an SDK through a module, flow-insensitively:
    a name (per scope) or an attribute (``self.x``, per module) bound anywhere to such a value
    is such a value everywhere, and so is a call of a function of the module (``self._client()``,
    by its name) that returns one. Derived values: an attribute, a call, an item, an awaited or
    entered value, a caught exception of an SDK type, a parameter annotated with an SDK type.
    An SDK value that reaches a function only as an unannotated argument is not followed.
    """

    def __init__(self, tree: ast.Module, sdks: tuple[str, ...]) -> None:
        self.sdks = sdks
        self.attrs: dict[str, Optional[str]] = {}
        self.returns: dict[str, Optional[str]] = {}  # function name -> what it returns
        # (scope, key, expression, suffix): key takes the path of expression + suffix
        self.bindings: list[tuple[_Scope, str, ast.expr, str]] = []
        self.nodes: list[tuple[ast.AST, _Scope]] = []
        self.findings: list[str] = []
        module = _Scope(None)
        self._walk(tree, module)
        self._settle()
        for node, scope in self.nodes:
            self._check(node, scope)

    # -- binding --

    def _bind(self, scope: _Scope, target: ast.expr, value: ast.expr, suffix: str) -> None:
        if isinstance(target, ast.Name):
            scope.names.setdefault(target.id, None)
            self.bindings.append((scope, target.id, value, suffix))
        elif isinstance(target, ast.Attribute):
            key = _dotted(target)
            if key is not None:
                self.attrs.setdefault(key, None)
                self.bindings.append((scope, "." + key, value, suffix))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                inner = element.value if isinstance(element, ast.Starred) else element
                self._bind(scope, inner, value, suffix + "[]")

    def _walk(self, node: ast.AST, scope: _Scope) -> None:
        for child in ast.iter_child_nodes(node):
            self._visit(child, scope)

    def _visit(self, node: ast.AST, scope: _Scope) -> None:
        self.nodes.append((node, scope))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for expr in [*node.args.defaults, *node.args.kw_defaults,
                         *getattr(node, "decorator_list", [])]:
                if expr is not None:
                    self._visit(expr, scope)
            if not isinstance(node, ast.Lambda):
                scope.names.setdefault(node.name, None)
            inner = _Scope(scope)
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                        *([args.vararg] if args.vararg else []),
                        *([args.kwarg] if args.kwarg else [])]:
                inner.names[arg.arg] = None
                if arg.annotation is not None:  # an instance of an SDK type
                    self.bindings.append((inner, arg.arg, arg.annotation, "()"))
            body = node.body if isinstance(node.body, list) else [node.body]
            if not isinstance(node, ast.Lambda):
                self.returns.setdefault(node.name, None)
                for returned in _returned(body):
                    self.bindings.append((inner, "def:" + node.name, returned, ""))
            for statement in body:
                self._visit(statement, inner)
        elif isinstance(node, ast.ClassDef):
            for expr in [*node.bases, *node.decorator_list]:
                self._visit(expr, scope)
            scope.names.setdefault(node.name, None)
            inner = _Scope(scope, is_class=True)
            for statement in node.body:
                self._visit(statement, inner)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    path: Optional[str] = alias.name
                    name = alias.asname
                else:
                    path = name = alias.name.split(".", 1)[0]
                scope.names[name] = path if _within(alias.name, self.sdks) else (
                    scope.names.get(name))
                if _private_module(alias.name, self.sdks):
                    self._found(node, f"imports the private module {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                bound = alias.asname or alias.name
                if node.level == 0 and _within(full, self.sdks):
                    scope.names[bound] = full
                    if _private_module(full, self.sdks):
                        self._found(node, f"imports the private {full}")
                else:
                    scope.names[bound] = None
        else:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    self._bind(scope, target, node.value, "")
            elif isinstance(node, ast.NamedExpr):
                self._bind(scope, node.target, node.value, "")
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind(scope, node.target, node.iter, "[]")
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self._bind(scope, node.optional_vars, node.context_expr, "()")
            elif isinstance(node, ast.ExceptHandler) and node.name and node.type is not None:
                scope.names.setdefault(node.name, None)
                self.bindings.append((scope, node.name, node.type, "()"))
            self._walk(node, scope)

    def _settle(self) -> None:
        changed = True
        while changed:
            changed = False
            for scope, key, value, suffix in self.bindings:
                path = self._path(value, scope)
                if path is None:
                    continue
                if key.startswith("."):
                    if self.attrs.get(key[1:]) is None:
                        self.attrs[key[1:]] = path + suffix
                        changed = True
                elif key.startswith("def:"):
                    if self.returns.get(key[4:]) is None:
                        self.returns[key[4:]] = path
                        changed = True
                elif scope.names.get(key) is None:
                    scope.names[key] = path + suffix
                    changed = True

    # -- values --

    def _path(self, node: ast.expr, scope: _Scope) -> Optional[str]:
        """The SDK path of what ``node`` evaluates to, or None when it is not from an SDK."""
        if isinstance(node, ast.Name):
            return scope.lookup(node.id)
        if isinstance(node, ast.Attribute):
            key = _dotted(node)
            if key is not None and self.attrs.get(key) is not None:
                return self.attrs[key]
            base = self._path(node.value, scope)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            attribute = self._getattr(node)
            if attribute is not None:
                base = self._path(node.args[0], scope)
                return f"{base}.{attribute}" if base else None
            base = self._path(node.func, scope)
            if base:
                return f"{base}()"
            function = node.func
            if isinstance(function, ast.Name):
                return self.returns.get(function.id)
            if (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)
                    and function.value.id in ("self", "cls")):
                return self.returns.get(function.attr)
            return None
        if isinstance(node, ast.Subscript):
            base = self._path(node.value, scope)
            return f"{base}[]" if base else None
        if isinstance(node, (ast.Await, ast.NamedExpr, ast.Starred)):
            return self._path(node.value, scope)
        if isinstance(node, ast.IfExp):
            return self._path(node.body, scope) or self._path(node.orelse, scope)
        if isinstance(node, (ast.BoolOp, ast.Tuple, ast.List, ast.Set)):
            elements = node.values if isinstance(node, ast.BoolOp) else node.elts
            return next((p for p in (self._path(e, scope) for e in elements) if p), None)
        return None

    @staticmethod
    def _getattr(node: ast.Call) -> Optional[str]:
        """The attribute name of ``getattr(x, "name")`` (and hasattr / setattr / delattr)."""
        if (isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            return node.args[1].value
        return None

    # -- findings --

    def _found(self, node: ast.AST, what: str) -> None:
        self.findings.append(f"line {getattr(node, 'lineno', '?')}: {what}")

    def _check(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, ast.Attribute) and _private(node.attr):
            sdk = _within(self._path(node.value, scope), self.sdks)
            if sdk is not None:
                self._found(node, f"`{ast.unparse(node)}` reads a private attribute of {sdk}")
        elif isinstance(node, ast.Call):
            attribute = self._getattr(node)
            if attribute is not None and _private(attribute):
                sdk = _within(self._path(node.args[0], scope), self.sdks)
                if sdk is not None:
                    self._found(node, f"`{ast.unparse(node)}` reaches a private attribute of "
                                      f"{sdk}")
            name = _dotted(node.func)
            if (name in ("importlib.import_module", "import_module", "__import__")
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and _private_module(node.args[0].value, self.sdks)):
                self._found(node, f"imports the private module {node.args[0].value}")


def private_sdk_uses(source: str, sdks: Iterable[str]) -> list[str]:
    """Where the module text ``source`` touches a private attribute or module of one of the
    SDK modules ``sdks`` (dotted names: ``openai``, ``google.genai``, ``botocore``)."""
    return _Scan(ast.parse(source), tuple(sdks)).findings


def _modules_outside_the_seams() -> Iterator[Path]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "_sdk_seam.py":
            yield path


def test_no_module_outside_a_seam_touches_sdk_internals() -> None:
    sdks = tuple(sdk for family in SCANNED_SDKS.values() for sdk in family)
    found = []
    for path in _modules_outside_the_seams():
        for finding in private_sdk_uses(path.read_text(encoding="utf-8"), sdks):
            found.append(f"{path.relative_to(ROOT)} {finding}")
    assert not found, ("move these into the family's _sdk_seam.py:\n" + "\n".join(found))


# --- the scan finds what it must, and only that ----------------------------------------------

PLANTED = {
    "private module": "import openai._base_client\n",
    "from a private module": "from openai._base_client import SyncAPIClient\n",
    "a private module by name": "from anthropic import _decoders\n",
    "a private module, deferred": (
        "def results():\n"
        "    from anthropic._decoders.jsonl import JSONLDecoder\n"
        "    return JSONLDecoder\n"),
    "import_module": "import importlib\nimportlib.import_module('openai._models')\n",
    "attribute of the module": "import openai\nopenai._base_client.SyncAPIClient\n",
    "attribute of an alias": "import anthropic as sdk\nsdk._exceptions\n",
    "attribute of an imported name": "from openai import OpenAI\nOpenAI._default_stream_cls\n",
    "the SDK client's http client": (
        "def _sync(self):\n"
        "    import openai\n"
        "    cls = openai.AzureOpenAI if self._azure else openai.OpenAI\n"
        "    client = cls(**self._client_kwargs())\n"
        "    bound_sync_io(client._client)\n"),
    "through an attribute of self": (
        "import anthropic\n"
        "class Provider:\n"
        "    def __init__(self):\n"
        "        self._anthropic = anthropic\n"
        "    def _sync_client(self):\n"
        "        client = self._anthropic.Anthropic()\n"
        "        self._sync = client\n"
        "        return self._sync._client\n"),
    "getattr": "import openai\nclient = openai.OpenAI()\ngetattr(client, '_client')\n",
    "what our own method returns": (
        "import botocore.session\n"
        "class Provider:\n"
        "    def __init__(self):\n"
        "        self._session = botocore.session.get_session()\n"
        "    def _client(self):\n"
        "        client = self._clients.get(1)\n"
        "        if client is None:\n"
        "            client = self._session.create_client('bedrock-runtime')\n"
        "        return client\n"
        "    def _converse_stream(self, kwargs):\n"
        "        return self._client().converse_stream(**kwargs)\n"
        "    def _stream(self, kwargs):\n"
        "        response = self._converse_stream(kwargs)\n"
        "        events = response['stream']\n"
        "        return getattr(events, '_raw_stream', None)\n"),
    "a response entered": (
        "async def f(client: 'x'):\n"
        "    import anthropic\n"
        "    async with anthropic.AsyncAnthropic().messages.with_streaming_response.create()"
        " as response:\n"
        "        return response._parsed_by_type\n"),
    "a parameter typed with an SDK class": (
        "import openai\n"
        "def f(client: openai.OpenAI):\n"
        "    return client._client\n"),
    "an SDK exception caught": (
        "import openai\n"
        "try:\n    pass\nexcept openai.APIStatusError as exc:\n    exc._private\n"),
    "google-genai's api client": (
        "from google import genai\n"
        "client = genai.Client(api_key='k')\n"
        "client.models._api_client.request('post', 'p', {})\n"),
    "google-genai's private module": "from google.genai import _transformers\n",
    "botocore's serializer": (
        "import botocore.session\n"
        "client = botocore.session.get_session().create_client('bedrock-runtime')\n"
        "client._serializer.serialize_to_request({}, None)\n"),
    "botocore's raw stream": (
        "import botocore.session\n"
        "response = botocore.session.Session().create_client('x').converse_stream()\n"
        "response['stream']._raw_stream\n"),
}

ALL_SDKS = ("openai", "anthropic", "google.genai", "botocore")


@pytest.mark.parametrize("source", PLANTED.values(), ids=PLANTED.keys())
def test_the_scan_finds_a_planted_violation(source: str) -> None:
    assert private_sdk_uses(source, ALL_SDKS), source


CLEAN = {
    "public API": (
        "import openai\n"
        "client = openai.OpenAI(max_retries=0)\n"
        "raw = client.chat.completions.with_raw_response.create(model='m', messages=[])\n"
        "raw.http_response.headers\n"
        "client.__enter__()\n"
        "exc = openai.APIStatusError\n"
        "exc.__name__\n"),
    "our own private attributes": (
        "import openai\n"
        "class Provider:\n"
        "    def _sync(self):\n"
        "        self._client = openai.OpenAI()\n"
        "        self._lock = object()\n"
        "        return self._client.close(), self._lock._private\n"),
    "a name that only shares the SDK's name": (
        "from . import openai\nopenai._timestamp\n"
        "from ..providers import anthropic\nanthropic._private\n"),
    "a parameter that hides the module": (
        "import openai\n"
        "def f(openai):\n"
        "    return openai._x\n"),
    "another package under google": "import google.protobuf\ngoogle.protobuf._internal\n",
    "values passed to our own code": (
        "import openai\n"
        "policy = CallPolicy(openai.OpenAI)\n"
        "policy._calls\n"),
    "what our own function returns that is not from an SDK": (
        "import openai\n"
        "class Provider:\n"
        "    def _error(self, exc):\n"
        "        return map_sdk_error(exc, openai.APIError)\n"
        "    def f(self, exc):\n"
        "        return self._error(exc)._private\n"),
    "an SDK absent from the list": "import botocore.session\nbotocore.session._x\n",
}


@pytest.mark.parametrize("source", CLEAN.values(), ids=CLEAN.keys())
def test_the_scan_passes_public_and_own_code(source: str) -> None:
    sdks = ("openai", "anthropic", "google.genai")
    assert private_sdk_uses(source, sdks) == []


def test_the_scan_names_the_line_and_the_access() -> None:
    found = private_sdk_uses(PLANTED["the SDK client's http client"], ("openai",))
    assert found == ["line 5: `client._client` reads a private attribute of openai"]


def test_the_package_scan_would_see_a_planted_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The package scan reads every module outside the seams, sub-packages included, and
    skips the seams only."""
    package = tmp_path / "aisuite_like"
    (package / "providers" / "openai").mkdir(parents=True)
    (package / "providers" / "openai" / "transport.py").write_text(PLANTED["getattr"])
    (package / "providers" / "openai" / "_sdk_seam.py").write_text(PLANTED["getattr"])
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError) as failed:
        test_no_module_outside_a_seam_touches_sdk_internals()
    assert "aisuite_like/providers/openai/transport.py line 3: `getattr(client, '_client')`" \
        in str(failed.value)
    assert "_sdk_seam.py line" not in str(failed.value)
