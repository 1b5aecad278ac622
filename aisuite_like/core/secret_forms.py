"""The remembered secrets and their forms: the registry ``errors`` and ``_secrets`` share.

Kept apart (no imports from this package) so the error tree can redact without importing the
configuration and logging side of ``_secrets``.
"""

from __future__ import annotations

import threading
from typing import Optional

__all__ = ["REDACTED", "remember", "redact"]

REDACTED = "[REDACTED]"

# A shorter string is never treated as a secret: no real API key is that short, and replacing
# e.g. a test key "k" everywhere would mangle ordinary text.
_MIN_SECRET_LENGTH = 8

# Every form of every remembered key, longest first (a form containing another is replaced
# before it). Replaced as a whole tuple, so readers need no lock.
_FORMS: tuple[str, ...] = ()
_KNOWN: set[str] = set()
_LOCK = threading.Lock()


def _forms(key: str) -> set[str]:
    """The key as it may appear in a text: as given, stripped, and escaped the ways errors,
    logs and URLs escape it."""
    import json
    from urllib.parse import quote, quote_plus

    out = set()
    for base in {key, key.strip()}:
        if not base:
            continue
        out.add(base)
        out.add(json.dumps(base)[1:-1])
        out.add(json.dumps(base)[1:-1].replace("/", "\\/"))  # JSON may escape "/" too
        out.add(repr(base)[1:-1])
        out.add(repr(base.encode("utf-8", "backslashreplace"))[2:-1])
        out.add(quote(base, safe=""))
        out.add(quote_plus(base, safe=""))
    return {f for f in out if len(f) >= _MIN_SECRET_LENGTH}


def remember(key: Optional[str]) -> None:
    """Redact ``key`` (all its forms) from now on, process-wide. Short strings are ignored."""
    global _FORMS
    if not isinstance(key, str) or len(key.strip()) < _MIN_SECRET_LENGTH or key in _KNOWN:
        return
    with _LOCK:
        if key in _KNOWN:
            return
        _KNOWN.add(key)
        forms = set(_FORMS) | _forms(key)
        _FORMS = tuple(sorted(forms, key=len, reverse=True))


def redact(text: str) -> str:
    """``text`` with every remembered key replaced by ``[REDACTED]`` (the same object back when
    none occurs)."""
    for form in _FORMS:
        if form in text:
            text = text.replace(form, REDACTED)
    return text
