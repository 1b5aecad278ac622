"""The data snapshot shipped in the package (``data/snapshot.json``, written by
``scripts/model_snapshot.py``; docs/models.md): what is known about a model offline.

The file is read on the first question and kept; a model's answer is kept too, so the checks
of a call cost one dict lookup after the first call to a model. A model is found under the
entry whose genai-prices matching rules accept its name (the rules genai-prices prices it
by); a Bedrock model id may carry a region prefix (``us.``, ``eu.``, ``global.``...).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any, Optional

from ..providers.registry import canonical_key
from .types import FACT_FIELDS, FieldSource, ModelInfo, Prices

__all__ = ["snapshot_date", "snapshot_entry", "snapshot_info", "Facts", "facts_of"]

_lock = threading.Lock()
_data: Optional[dict[str, Any]] = None
_found: dict[tuple[str, str], Optional[dict[str, Any]]] = {}
_BEDROCK_REGION = re.compile(r"^(?:us|eu|apac|jp|au|ca|us-gov|global)\.")


def _read_snapshot() -> str:
    """The file's text: read beside this module where the package is plain files (no
    ``importlib.resources`` to import on a first call), through ``importlib.resources``
    where it is not (a zip)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "snapshot.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:  # not a plain file: inside a zip, say
        from importlib import resources

        return resources.files(__package__).joinpath("data").joinpath("snapshot.json") \
            .read_text(encoding="utf-8")


def _snapshot() -> dict[str, Any]:
    global _data
    if _data is None:
        with _lock:
            if _data is None:
                _data = json.loads(_read_snapshot())
    return _data


def snapshot_date() -> str:
    """The day the snapshot was written (``YYYY-MM-DD``)."""
    return str(_snapshot()["date"])


def _matches(clause: Any, name: str) -> bool:
    if "or" in clause:
        return any(_matches(c, name) for c in clause["or"])
    if "and" in clause:
        return all(_matches(c, name) for c in clause["and"])
    if "equals" in clause:
        return bool(name == clause["equals"])
    if "starts_with" in clause:
        return name.startswith(clause["starts_with"])
    if "ends_with" in clause:
        return name.endswith(clause["ends_with"])
    if "contains" in clause:
        return clause["contains"] in name
    if "regex" in clause:
        return re.search(clause["regex"], name) is not None
    return False


def snapshot_entry(key: str, model: str) -> Optional[dict[str, Any]]:
    """The snapshot's entry for ``model`` of provider ``key`` (None: not in the snapshot). An
    entry whose id is the name itself wins; else the first whose rules accept it."""
    found_key = (key, model)
    if found_key in _found:
        return _found[found_key]
    entries = _snapshot()["families"].get(canonical_key(key), ())
    name = model.lower()
    candidates = [name]
    if canonical_key(key) == "bedrock" and _BEDROCK_REGION.match(name):
        candidates.append(_BEDROCK_REGION.sub("", name))
    entry: Optional[dict[str, Any]] = None
    for candidate in candidates:
        entry = next((e for e in entries if e["id"] == candidate), None) or next(
            (e for e in entries if _matches(e["match"], candidate)), None)
        if entry is not None:
            break
    with _lock:
        if len(_found) > 4096:  # a bounded memo (model names come from callers)
            _found.clear()
        _found[found_key] = entry
    return entry


def snapshot_info(key: str, model: str) -> ModelInfo:
    """``ModelInfo`` of ``"key:model"`` from the snapshot alone (every fact None when the
    model is not in it)."""
    entry = snapshot_entry(key, model)
    if entry is None:
        return ModelInfo(model=f"{key}:{model}")
    date = snapshot_date()
    values: dict[str, Any] = {}
    sources: dict[str, FieldSource] = {}
    conflicts = entry.get("conflicts") or {}
    for name in FACT_FIELDS:
        if name not in entry["facts"]:
            continue
        value = entry["facts"][name]
        values[name] = Prices(**value) if name == "prices" else \
            tuple(value) if isinstance(value, list) else value
        other = conflicts.get(name)
        sources[name] = FieldSource(
            origin="snapshot", date=date, detail=entry["sources"].get(name, ""),
            conflicts={other["by"]: other["snapshot"]} if other else {})
    return ModelInfo(model=f"{key}:{model}", sources=sources, matched=entry["id"], **values)


class Facts:
    """What the checks before sending read of a model (docs/models.md, "Checks"): the facts
    and where each came from. Made once per model and kept. The snapshot's facts are read
    from its entry as they are; the ``ModelInfo`` behind them (the sources an error names) is
    built when first asked for, so a first call builds no pydantic validator for it."""

    __slots__ = ("model", "tools", "input_modalities", "max_output_tokens", "context_window",
                 "known", "_info", "_make_info")

    def __init__(self, model: str, facts: Mapping[str, Any],
                 make_info: Callable[[], ModelInfo]) -> None:
        self.model = model
        self.tools: Optional[bool] = facts.get("tools")
        modalities = facts.get("input_modalities")
        self.input_modalities = frozenset(modalities) if modalities is not None else None
        self.max_output_tokens: Optional[int] = facts.get("max_output_tokens")
        self.context_window: Optional[int] = facts.get("context_window")
        self._info: Optional[ModelInfo] = None
        self._make_info = make_info
        #: Whether anything a check reads is known (else a call needs no checks layer).
        self.known = any(v is not None for v in (
            self.tools, self.input_modalities, self.max_output_tokens, self.context_window))

    @classmethod
    def of_info(cls, info: ModelInfo) -> Facts:
        """The facts of a ``ModelInfo`` already built (a probe profile merged in)."""
        return cls(info.model, {name: getattr(info, name) for name in _CHECKED}, lambda: info)

    @property
    def info(self) -> ModelInfo:
        """The ``ModelInfo`` these facts come from (with each fact's source)."""
        if self._info is None:
            self._info = self._make_info()
        return self._info


#: The facts the checks read (``Facts``' own attributes).
_CHECKED = ("tools", "input_modalities", "max_output_tokens", "context_window")


def _snapshot_facts(key: str, model: str) -> Facts:
    entry = snapshot_entry(key, model)
    facts = entry["facts"] if entry is not None else {}
    return Facts(f"{key}:{model}", facts, lambda: snapshot_info(key, model))


_facts: dict[tuple[str, str], Facts] = {}


def facts_of(key: str, model: str) -> Facts:
    """The snapshot's ``Facts`` of ``"key:model"`` (kept: one dict lookup after the first)."""
    found = _facts.get((key, model))
    if found is None:
        found = _snapshot_facts(key, model)
        with _lock:
            if len(_facts) > 4096:
                _facts.clear()
            _facts[(key, model)] = found
    return found
