"""The Converse JSON on the wire, faster than botocore's shape-driven code: the decisions,
pure (no botocore import). _sdk_seam.py plugs them into botocore; each falls back to
botocore's own code whenever it is not sure to produce exactly what botocore would
(docs/providers/bedrock.md, "Speed").

**Replies.** A *successful* ``Converse`` body is read with one ``json.loads`` into the same
dict botocore would build: the body's modelled top-level members (``ResponseMetadata`` is
added by the parser in _sdk_seam.py). botocore's parser reads, unchanged, a successful body
that contains ``null`` (botocore drops null members), a blob (``"bytes"``,
``"redactedContent"``: botocore base64-decodes them) or token counts that are not JSON
integers (botocore converts them). A body that is not a JSON object (not JSON, not UTF-8, a
list) has no members, as botocore reads a body that is not JSON (on the last two botocore's
parser itself failed with a ``UnicodeDecodeError`` / ``AttributeError``): the provider then
reports a reply that is not the expected shape.

**Requests.** The JSON body of a Converse request is one ``json.dumps`` of the arguments
other than ``modelId``, byte for byte what botocore's serializer writes (same key order,
blobs as base64). It applies when the operation's input model has blobs only inside
``messages`` / ``system`` and no timestamps or renamed members (``body_is_json``, checked
once per operation), and the request's content blocks are of kinds without blobs (text,
toolUse, toolResult of text / json, cachePoint, reasoning text); a float that is not
finite, a ``Decimal``, or any value ``json`` cannot write falls back too.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Optional

from ...core.reading import JSONTooDeepError, loads_json

__all__ = ["CONVERSE_OPERATIONS", "read_converse_body", "converse_body", "body_is_json"]

# Bytes whose presence means the fast path could differ from botocore's shape-driven parse.
_NEEDS_BOTOCORE = (b"null", b'"bytes"', b'"redactedContent"')


def read_converse_body(body: bytes, members: Any) -> dict[str, Any] | None:
    """The reply body of a successful Converse call -> its modelled top-level members, or
    None when botocore's own parser must read it (see the module docstring)."""
    if any(marker in body for marker in _NEEDS_BOTOCORE):
        return None
    try:
        data = loads_json(body)
    except JSONTooDeepError:
        return None  # botocore reads it as it would (a RecursionError becomes a typed error)
    except ValueError:  # not JSON (also empty, or not UTF-8): no members, as botocore reads it
        return {}
    if not isinstance(data, dict):  # botocore's parser fails on these with an AttributeError
        return {}
    usage = data.get("usage")
    if isinstance(usage, dict) and not all(type(v) is int for v in usage.values()):
        return None  # botocore turns "10" into 10 (the only numbers the translation reads)
    return {name: value for name, value in data.items() if name in members}


# The operations whose request bodies converse_body may write.
CONVERSE_OPERATIONS = frozenset({"Converse", "ConverseStream"})
# Content blocks whose every field is a string, a number, a bool or a JSON document.
_PLAIN_BLOCKS = frozenset({"text", "toolUse", "cachePoint"})
_PLAIN_RESULT_BLOCKS = frozenset({"text", "json"})


def _blob_free(blocks: Any) -> bool:
    """Whether a ``messages[].content`` / ``system`` list holds no field botocore would
    base64-encode (a str in a blob field would be encoded, which ``json.dumps`` cannot tell)."""
    if not isinstance(blocks, list):
        return False
    for block in blocks:
        if not isinstance(block, dict) or len(block) != 1:
            return False
        kind, value = next(iter(block.items()))
        if kind in _PLAIN_BLOCKS:
            continue
        if kind == "toolResult" and isinstance(value, dict):
            content = value.get("content")
            if isinstance(content, list) and all(
                    isinstance(item, dict) and len(item) == 1 and next(iter(item))
                    in _PLAIN_RESULT_BLOCKS for item in content):
                continue
            return False
        if kind == "reasoningContent" and isinstance(value, dict) and set(value) == {
                "reasoningText"}:
            continue
        return False
    return True


def _plain_request(parameters: dict[str, Any]) -> bool:
    messages = parameters.get("messages")
    if messages is not None:
        if not isinstance(messages, list):
            return False
        for message in messages:
            if not isinstance(message, dict) or not _blob_free(message.get("content")):
                return False
    system = parameters.get("system")
    return system is None or _blob_free(system)


def _json_value(value: Any) -> Any:
    """``json.dumps``' fallback: bytes as botocore writes a blob; anything else is refused
    (botocore's serializer then writes the request)."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(type(value).__name__)


def converse_body(parameters: dict[str, Any]) -> Optional[bytes]:
    """The JSON body of a Converse request (``parameters`` without ``modelId``), or None when
    botocore's serializer must write it (see the module docstring)."""
    if not _plain_request(parameters):
        return None
    body = {k: v for k, v in parameters.items() if k != "modelId" and v is not None}
    try:
        return json.dumps(body, default=_json_value, allow_nan=False).encode()
    except (TypeError, ValueError):
        return None


def body_is_json(input_shape: Any) -> bool:
    """Whether an operation's input writes as plain JSON: blobs only under ``messages`` /
    ``system``, no timestamps, no renamed members, and only ``modelId`` outside the body."""
    if input_shape is None:
        return False
    for name, member in input_shape.members.items():
        location = member.serialization.get("location")
        if name == "modelId":
            if location != "uri":
                return False
            continue
        if location is not None or not _member_is_json(member, name in ("messages", "system"),
                                                        set()):
            return False
    return True


def _member_is_json(shape: Any, blobs_allowed: bool, seen: set[str]) -> bool:
    if shape.name in seen:
        return True
    seen = seen | {shape.name}
    if shape.serialization.get("name") or shape.type_name == "timestamp":
        return False
    if shape.type_name == "blob":
        return blobs_allowed
    if shape.type_name == "structure" and not getattr(shape, "is_document_type", False):
        return all(_member_is_json(m, blobs_allowed, seen) for m in shape.members.values())
    if shape.type_name == "list":
        return _member_is_json(shape.member, blobs_allowed, seen)
    if shape.type_name == "map":
        return _member_is_json(shape.value, blobs_allowed, seen)
    return True
