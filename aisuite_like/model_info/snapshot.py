"""The data snapshot shipped in the package (``data/snapshot.json``, written by
``scripts/model_snapshot.py``; docs/models.md): what is known about a model offline.

The file is read on the first question and kept; a model's answer is kept too, so the checks
of a call cost one dict lookup after the first call to a model. A model is found under the
entry whose genai-prices matching rules accept its name (the rules genai-prices prices it
by); a Bedrock model id may carry a region prefix (``us.``, ``eu.``, ``global.``...).
"""

from __future__ import annotations

import json
import re
import threading
from importlib import resources
from typing import Any, Optional

from ..providers.registry import canonical_key
from .types import FACT_FIELDS, FieldSource, ModelInfo, Prices

__all__ = ["snapshot_date", "snapshot_entry", "snapshot_info", "Facts", "facts_of"]

_lock = threading.Lock()
_data: Optional[dict[str, Any]] = None
_found: dict[tuple[str, str], Optional[dict[str, Any]]] = {}
_BEDROCK_REGION = re.compile(r"^(?:us|eu|apac|jp|au|ca|us-gov|global)\.")


def _snapshot() -> dict[str, Any]:
    global _data
    if _data is None:
        with _lock:
            if _data is None:
                text = resources.files(__package__).joinpath("data").joinpath("snapshot.json") \
                    .read_text(encoding="utf-8")
                _data = json.loads(text)
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
    and where each came from. Made once per model and kept."""

    __slots__ = ("model", "tools", "input_modalities", "max_output_tokens", "context_window",
                 "info", "known")

    def __init__(self, info: ModelInfo) -> None:
        self.info = info
        self.model = info.model
        self.tools = info.tools
        self.input_modalities = frozenset(info.input_modalities) \
            if info.input_modalities is not None else None
        self.max_output_tokens = info.max_output_tokens
        self.context_window = info.context_window
        #: Whether anything a check reads is known (else a call needs no checks layer).
        self.known = any(v is not None for v in (
            self.tools, self.input_modalities, self.max_output_tokens, self.context_window))


_facts: dict[tuple[str, str], Facts] = {}


def facts_of(key: str, model: str) -> Facts:
    """The snapshot's ``Facts`` of ``"key:model"`` (kept: one dict lookup after the first)."""
    found = _facts.get((key, model))
    if found is None:
        found = Facts(snapshot_info(key, model))
        with _lock:
            if len(_facts) > 4096:
                _facts.clear()
            _facts[(key, model)] = found
    return found
