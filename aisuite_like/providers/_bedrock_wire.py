"""The Converse JSON on the wire, faster than botocore's shape-driven code, behind its seams.

botocore reads every reply and writes every request by walking the operation's shapes
member by member; for Converse those walks cost more than the ``json.loads`` /
``json.dumps`` under them. Two seams, each falling back to botocore's own code whenever it
is not sure to produce exactly what botocore would:

**Replies** (public API). The provider's botocore session gets a ``response_parser_factory``
component (``Session.register_component``) whose rest-json parsers read a *successful*
``Converse`` body with one ``json.loads`` and build the same dict botocore would: the body's
modelled top-level members plus ``ResponseMetadata`` (``RequestId``, ``HTTPStatusCode``,
``HTTPHeaders``; botocore's retry layer adds ``RetryAttempts``). Everything else goes to
botocore's parser, unchanged: error statuses (so errors, throttling and their retry
decisions map exactly as before), ConverseStream and other operations, and a successful body
that contains ``null`` (botocore drops null members), a blob (``"bytes"``,
``"redactedContent"``: botocore base64-decodes them) or token counts that are not JSON
integers (botocore converts them), or any body while the
``botocore.parsers`` logger is enabled for DEBUG (botocore logs every body there). A body
that is not a JSON object (not JSON, not UTF-8, a list) has no members, as botocore reads a
body that is not JSON (on the last two botocore's parser itself failed with a
``UnicodeDecodeError`` / ``AttributeError``): the provider then reports a reply that is not
the expected shape.

**Requests** (a private attribute: ``client._serializer``). :func:`install_serializer`
wraps the client's serializer: botocore still renders the URL, headers and host from the
``modelId``; the JSON body is one ``json.dumps`` of the other arguments, byte for byte what
botocore's serializer writes (same key order, blobs as base64). It applies when the
operation's input model has blobs only inside ``messages`` / ``system`` and no timestamps
or renamed members (checked once per operation), and the request's content blocks are of
kinds without blobs (text, toolUse, toolResult of text / json, cachePoint, reasoning text);
a float that is not finite, a ``Decimal``, or any value ``json`` cannot write falls back too.
A botocore without ``_serializer`` keeps its own.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from ._common import JSONTooDeepError, loads_json

#: The Converse output shape's name in botocore's model.
_CONVERSE_OUTPUT = "ConverseResponse"
# Bytes whose presence means the fast path could differ from botocore's shape-driven parse.
_NEEDS_BOTOCORE = (b"null", b'"bytes"', b'"redactedContent"')
_PARSER_LOG = logging.getLogger("botocore.parsers")


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


class _ConverseParser:
    """botocore's rest-json parser, with successful Converse bodies read by
    :func:`read_converse_body`. botocore's own parser is created only when it is needed."""

    __slots__ = ("_factory", "_protocol")

    def __init__(self, factory: Any, protocol: str) -> None:
        self._factory = factory
        self._protocol = protocol

    def parse(self, response: dict[str, Any], shape: Any) -> Any:
        if (shape is not None and response["status_code"] < 300
                and shape.name == _CONVERSE_OUTPUT
                and not _PARSER_LOG.isEnabledFor(logging.DEBUG)):
            members = read_converse_body(response["body"], shape.members)
            if members is not None:
                headers = response["headers"]
                metadata: dict[str, Any] = {}
                if "x-amzn-requestid" in headers:
                    metadata["RequestId"] = headers["x-amzn-requestid"]
                elif "x-amz-request-id" in headers:
                    metadata["RequestId"] = headers["x-amz-request-id"]
                    metadata["HostId"] = headers.get("x-amz-id-2", "")
                metadata["HTTPStatusCode"] = response["status_code"]
                metadata["HTTPHeaders"] = {k.lower(): v for k, v in headers.items()}
                checksum = response.get("context", {}).get("checksum", {})
                if checksum.get("response_algorithm"):
                    metadata["ChecksumAlgorithm"] = checksum["response_algorithm"]
                parsed = {"ResponseMetadata": metadata}  # botocore's key order
                parsed.update(members)
                return parsed
        return self._factory.create_parser(self._protocol).parse(response, shape)


class ConverseParserFactory:
    """A botocore ``response_parser_factory`` component: botocore's factory, whose rest-json
    parsers take the fast path for successful Converse replies."""

    __slots__ = ("_factory",)

    def __init__(self, factory: Any) -> None:
        self._factory = factory

    def create_parser(self, protocol_name: str) -> Any:
        if protocol_name == "rest-json":
            return _ConverseParser(self._factory, protocol_name)
        return self._factory.create_parser(protocol_name)


def install(session: Any) -> None:
    """Make ``session``'s clients read successful Converse replies the fast way. A botocore
    without the component (or a factory already replaced) keeps its own parsing."""
    try:
        factory = session.get_component("response_parser_factory")
    except Exception:  # any botocore that lacks the seam: keep its parser
        return
    if isinstance(factory, ConverseParserFactory) or not hasattr(factory, "create_parser"):
        return
    session.register_component("response_parser_factory", ConverseParserFactory(factory))


# ---------------------------------------------------------------------------- requests ---

_CONVERSE_OPERATIONS = frozenset({"Converse", "ConverseStream"})
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


def _body_is_json(input_shape: Any) -> bool:
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


class ConverseSerializer:
    """botocore's serializer, with the JSON body of plain Converse requests written by one
    ``json.dumps`` (see the module docstring)."""

    __slots__ = ("_serializer", "_checked")

    def __init__(self, serializer: Any) -> None:
        self._serializer = serializer
        self._checked: dict[str, bool] = {}  # operation name -> its input writes as JSON

    def _applies(self, operation_model: Any) -> bool:
        name = operation_model.name
        applies = self._checked.get(name)
        if applies is None:
            applies = self._checked[name] = (name in _CONVERSE_OPERATIONS
                                             and _body_is_json(operation_model.input_shape))
        return applies

    def serialize_to_request(self, parameters: dict[str, Any], operation_model: Any) -> Any:
        if "modelId" in parameters and self._applies(operation_model) and _plain_request(
                parameters):
            body = {k: v for k, v in parameters.items() if k != "modelId" and v is not None}
            try:
                encoded = json.dumps(body, default=_json_value, allow_nan=False).encode()
            except (TypeError, ValueError):
                pass
            else:
                request = self._serializer.serialize_to_request(
                    {"modelId": parameters["modelId"]}, operation_model)
                request["body"] = encoded
                return request
        return self._serializer.serialize_to_request(parameters, operation_model)


def install_serializer(client: Any) -> None:
    """Wrap ``client``'s serializer (botocore's private ``_serializer`` attribute; a client
    without it keeps botocore's serializer)."""
    serializer = getattr(client, "_serializer", None)
    if serializer is None or isinstance(serializer, ConverseSerializer) or not hasattr(
            serializer, "serialize_to_request"):
        return
    client._serializer = ConverseSerializer(serializer)
