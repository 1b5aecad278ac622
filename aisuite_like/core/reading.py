"""Reading what comes from outside (docs/reliability.md): JSON with a nesting limit (reply
bodies, stream events, tool arguments, batch ids and results, stored records, input files),
and a reply that cannot be read as a typed error that names what was wrong, never the
reply itself."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Optional, TypeVar

from .errors import AisuiteLikeError, APIError, APIResponseValidationError

__all__ = ["MAX_JSON_DEPTH", "JSONTooDeepError", "loads_json", "decode_json", "read_reply",
           "unreadable", "SHAPE_ERRORS"]

#: The deepest nesting of arrays / objects ``loads_json`` reads (pydantic's JSON parser stops at
#: the same depth). Python's own parser recurses once per level and raises RecursionError
#: somewhere near 1,000 levels, depending on how deep the caller's stack already is.
MAX_JSON_DEPTH = 200

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JSONTooDeepError(ValueError):
    """JSON nested deeper than ``MAX_JSON_DEPTH`` (a ``ValueError``, like any JSON that cannot
    be read; ``msg`` as on ``json.JSONDecodeError``)."""

    def __init__(self) -> None:
        self.msg = f"nested more than {MAX_JSON_DEPTH} levels deep"
        super().__init__(self.msg)


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests brackets more than ``MAX_JSON_DEPTH`` deep outside its strings
    (two regex passes and a running sum, all in C)."""
    skeleton = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, skeleton)), default=0) > MAX_JSON_DEPTH


def loads_json(text: "str | bytes | bytearray") -> Any:
    """``json.loads`` for JSON that comes from outside (reply bodies, stream events, tool
    arguments, batch ids and results, input files): nesting deeper than ``MAX_JSON_DEPTH`` raises
    ``JSONTooDeepError``, never ``RecursionError``. Text with no more opening brackets than the
    limit (nearly all of it) is not scanned."""
    if isinstance(text, (bytes, bytearray)):
        if text.count(b"[") + text.count(b"{") > MAX_JSON_DEPTH:
            text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads
    if isinstance(text, str) and text.count("[") + text.count("{") > MAX_JSON_DEPTH \
            and _too_deep(text):
        raise JSONTooDeepError()
    try:
        return json.loads(text)
    except RecursionError:  # the caller's stack was already deep
        raise JSONTooDeepError() from None


def decode_json(body: Any, provider: str, *, status_code: Optional[int] = None,
                request_id: Optional[str] = None) -> Any:
    """A reply body (bytes or str) -> its JSON value; a body that is not JSON is an
    ``APIResponseValidationError`` (an empty body too, and one nested deeper than
    ``MAX_JSON_DEPTH``)."""
    try:
        return loads_json(body)
    except JSONTooDeepError as exc:
        raise APIResponseValidationError(
            f"the body is JSON {exc.msg}", provider=provider, status_code=status_code,
            request_id=request_id) from None
    except ValueError as exc:
        kind = "empty" if not body else "not JSON"
        raise APIResponseValidationError(
            f"the body is {kind} ({len(body) if body else 0} bytes)", provider=provider,
            status_code=status_code, request_id=request_id) from exc


# --- a reply a translator could not read --------------------------------------------------

#: What a translator raises reading a reply of a shape nobody foresaw (``read_reply`` turns
#: them into ``APIResponseValidationError``).
SHAPE_ERRORS = (AttributeError, KeyError, TypeError, IndexError, ValueError)


def unreadable(provider: str, exc: BaseException,
               what: str = "the reply") -> APIResponseValidationError:
    """A stray exception raised while reading a reply -> the typed error (its type only: its
    text may quote the reply)."""
    return APIResponseValidationError(
        f"{what} could not be read ({type(exc).__name__} while translating it)",
        provider=provider)


T = TypeVar("T")


def read_reply(parse: Callable[[], T], provider: str, status_code: Optional[int],
               request_id: Optional[str]) -> T:
    """Run a translator's ``parse_response``: its validation errors get the HTTP status and
    request id; a typed error it raises for an error object in the reply gets the request id;
    a stray exception becomes an ``APIResponseValidationError``."""
    try:
        return parse()
    except APIResponseValidationError as exc:
        exc._add_context(status_code, request_id)
        raise
    except APIError as exc:  # an error object inside a 200: the mapped error, as is
        if not exc.request_id:
            exc.request_id = request_id
        raise
    except AisuiteLikeError:
        raise
    except SHAPE_ERRORS as exc:
        error = unreadable(provider, exc)
        error._add_context(status_code, request_id)
        raise error from exc
