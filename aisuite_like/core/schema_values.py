"""A deterministic example value that is valid against a JSON schema (used by the ``test`` model).

Covers what tool schemas use in practice: ``type`` (single or list), ``enum``/``const``,
``examples``/``default``, nested objects (required properties only), arrays (``items``,
``prefixItems``, ``minItems``, ``uniqueItems``), numeric and string bounds, ``format``,
``pattern`` (a shortest matching string is built from the regex), ``$ref`` into
``$defs``/``definitions``, ``anyOf``/``oneOf`` (first non-null branch) and ``allOf``.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any, Optional, cast

if sys.version_info >= (3, 11):  # sre_parse is deprecated there
    import re._parser as _re_parser  # type: ignore[import-not-found]  # no stub: private
else:  # pragma: no cover  (Python 3.10)
    import sre_parse as _re_parser

__all__ = ["example_for_schema"]

_MAX_DEPTH = 12

_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "12:00:00",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uri-reference": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


def example_for_schema(schema: Any, *, name: str = "") -> Any:
    """A value valid against ``schema`` (the root; ``$ref`` resolves against it)."""
    return _Generator(schema if isinstance(schema, dict) else {}).value(schema, name, 0, ())


class _Generator:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref ('#/...') is supported, got {ref!r}")
        node: Any = self.root
        for part in ref.lstrip("#").strip("/").split("/"):
            if not part:
                continue
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return cast(dict[str, Any], node)  # a $ref names a schema object

    def value(self, schema: Any, name: str, depth: int, refs: tuple[str, ...]) -> Any:
        """``refs``: the ``$ref``s being expanded, so a recursive model stops at an optional
        branch (``None`` / empty list) instead of recursing."""
        if schema is True or schema is None or schema == {}:
            return name or "example"
        if schema is False:
            raise ValueError(f"schema of {name or 'value'!r} is false: no value is valid")
        if depth > _MAX_DEPTH:
            return None
        if "$ref" in schema:
            merged = {**self.resolve(schema["$ref"]), **{k: v for k, v in schema.items()
                                                         if k != "$ref"}}
            return self.value(merged, name, depth + 1, (*refs, schema["$ref"]))
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        if schema.get("examples"):
            return schema["examples"][0]
        if "default" in schema:
            return schema["default"]
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                branches = schema[key]
                branch = next((b for b in branches if not _is_null(b)
                               and b.get("$ref") not in refs), None)
                if branch is None:
                    branch = next((b for b in branches if _is_null(b)), branches[0])
                return self.value(branch, name, depth + 1, refs)
        if schema.get("allOf"):
            return self.value(self.merge_all_of(schema), name, depth + 1, refs)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((t for t in kind if t != "null"), "null")
        if kind is None:
            if "properties" in schema or "required" in schema:
                kind = "object"
            elif "items" in schema or "prefixItems" in schema:
                kind = "array"
            else:
                return name or "example"
        if kind == "object":
            return self.object(schema, depth, refs)
        if kind == "array":
            return self.array(schema, name, depth, refs)
        if kind == "string":
            return _string(schema, name)
        if kind in ("integer", "number"):
            return _number(schema, integer=kind == "integer")
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        raise ValueError(f"unsupported JSON schema type {kind!r} for {name or 'value'!r}")

    def merge_all_of(self, schema: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            if "$ref" in part:
                part = self.resolve(part["$ref"])
            for key, val in part.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **val}
                elif key == "required":
                    merged["required"] = [*merged.get("required", []), *val]
                else:
                    merged.setdefault(key, val)
        return merged

    def object(self, schema: dict[str, Any], depth: int, refs: tuple[str, ...]) -> dict[str, Any]:
        props = schema.get("properties", {})
        out = {key: self.value(props.get(key, {}), key, depth + 1, refs)
               for key in schema.get("required", [])}
        extra = schema.get("additionalProperties")
        i = 0
        while len(out) < schema.get("minProperties", 0):
            key = f"key{i}"
            i += 1
            if key not in out:
                out[key] = self.value(extra if isinstance(extra, dict) else {}, key, depth + 1,
                                      refs)
        return out

    def array(self, schema: dict[str, Any], name: str, depth: int,
              refs: tuple[str, ...]) -> list[Any]:
        prefix = schema.get("prefixItems") or []
        out = [self.value(item, name, depth + 1, refs) for item in prefix]
        items = schema.get("items")
        recursive = isinstance(items, dict) and items.get("$ref") in refs
        count = max(schema.get("minItems", 0 if recursive else 1), len(out))
        if "maxItems" in schema:
            count = min(count, schema["maxItems"])
        if items is False or (not items and prefix) or len(out) >= count:
            return out[:count]
        base = self.value(items if isinstance(items, dict) else {}, name, depth + 1, refs)
        while len(out) < count:
            n = len(out)
            out.append(_variant(base, n) if schema.get("uniqueItems") else base)
        return out


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _variant(value: Any, n: int) -> Any:
    """A distinct sibling of ``value`` (for ``uniqueItems``)."""
    if isinstance(value, bool):
        return value if n == 0 else not value
    if isinstance(value, (int, float)):
        return value + n
    if isinstance(value, str):
        return f"{value}{n}"
    return value


def _number(schema: dict[str, Any], *, integer: bool) -> Any:
    """A number within the bounds (inclusive or exclusive) and a ``multipleOf``: 1 when it
    fits, else the first of a few candidates near the bounds that does."""
    low, low_open = _bound(schema, "minimum", "exclusiveMinimum", lower=True)
    high, high_open = _bound(schema, "maximum", "exclusiveMaximum", lower=False)
    multiple = schema.get("multipleOf")

    def fits(value: float) -> bool:
        if low is not None and (value < low or (low_open and value == low)):
            return False
        if high is not None and (value > high or (high_open and value == high)):
            return False
        return not multiple or abs(value / multiple - round(value / multiple)) < 1e-9

    seeds: list[float] = [1]
    if low is not None and high is not None:
        seeds.append((low + high) / 2)
    if low is not None:
        seeds += [low, low + 1]
    if high is not None:
        seeds += [high, high - 1]
    candidates: list[float] = []
    for seed in seeds:
        values = [math.ceil(seed), math.floor(seed), math.floor(seed) + 1, math.ceil(seed) - 1] \
            if integer else [seed]
        if multiple:
            values = [round(k * multiple, 12) for v in values
                      for k in (math.ceil(v / multiple), math.floor(v / multiple))]
        candidates += values
    value = next((v for v in candidates if fits(v) and (not integer or v == int(v))),
                 candidates[0])
    return int(value) if integer else float(value)


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str, *, lower: bool
           ) -> tuple[Optional[float], bool]:
    """(the tighter of the inclusive and exclusive bound, whether it is exclusive); the
    draft-4 boolean ``exclusiveMinimum: true`` form is understood too."""
    bound, is_open = schema.get(inclusive), False
    other = schema.get(exclusive)
    if other is True and bound is not None:
        return bound, True
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        tighter = bound is None or (other >= bound if lower else other <= bound)
        if tighter:
            bound, is_open = other, True
    return bound, is_open


def _string(schema: dict[str, Any], name: str) -> str:
    pattern = schema.get("pattern")
    fmt = schema.get("format")
    min_len = schema.get("minLength", 0)
    max_len = schema.get("maxLength")
    if pattern:
        text = _shortest_match(pattern, min_len, max_len)
        if text is not None:
            return text
        text = name or "example"
    elif fmt in _FORMATS:
        text = _FORMATS[fmt]
    else:
        text = name or "example"
    if len(text) < min_len:
        text = text + "x" * (min_len - len(text))
    if max_len is not None and len(text) > max_len:
        text = text[:max_len]
    return text


def _shortest_match(pattern: str, min_len: int = 0, max_len: Optional[int] = None
                    ) -> Optional[str]:
    """A short string matching ``pattern`` (checked with ``re.search``) whose length is within
    ``min_len`` / ``max_len``, or None. Repeats are pumped one step at a time until the string
    is long enough."""
    try:
        parsed = _re_parser.parse(pattern)
        for extra in range(min_len + 2):
            text = _from_parsed(parsed, extra)
            if max_len is not None and len(text) > max_len:
                return None
            if len(text) >= min_len and re.search(pattern, text):
                return text
    except Exception:  # an exotic construct: fall back to the caller's default
        return None
    return None


def _from_parsed(items: Any, extra: int = 0) -> str:
    """The string the parsed regex ``items`` spells with every repeat taken ``extra`` times
    more than its minimum (within its maximum)."""
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_from_class(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            out.append(_from_parsed(sub, extra) * min(low + extra, high))
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            out.append(_from_parsed(arg[-1], extra))
        elif name == "BRANCH":
            out.append(_from_parsed(arg[1][0], extra))
        elif name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF_EXISTS"):
            continue
        else:
            raise ValueError(name)
    return "".join(out)


def _from_class(items: Any) -> str:
    if any(str(op) == "NEGATE" for op, _ in items):
        return "a"  # the caller re-checks the whole string against the pattern
    op, arg = items[0]
    name = str(op)
    if name == "LITERAL":
        return chr(arg)
    if name == "RANGE":
        return chr(arg[0])
    if name == "CATEGORY":
        return {"CATEGORY_DIGIT": "0", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " ",
                "CATEGORY_NOT_DIGIT": "a", "CATEGORY_NOT_WORD": "-",
                "CATEGORY_NOT_SPACE": "a"}[str(arg)]
    raise ValueError(name)
