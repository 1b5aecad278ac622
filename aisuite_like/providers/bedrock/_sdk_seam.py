"""Everything of the bedrock family that touches botocore's private internals (listed in
docs/status.md and docs/providers/bedrock.md, "Speed"), behind small functions the
transport calls. botocore is never imported here: these functions receive its objects.

- **Replies**: the session's ``response_parser_factory`` component (public
  ``Session.register_component``, but the parser interface it serves is botocore's own) is
  wrapped so its rest-json parsers read a successful ``Converse`` body the fast way
  (wire.py). Everything else goes to botocore's parser, unchanged: error statuses (so
  errors, throttling and their retry decisions map exactly as before), ConverseStream and
  other operations, bodies wire.py leaves to botocore, and any body while the
  ``botocore.parsers`` logger is enabled for DEBUG (botocore logs every body there).
- **Requests**: the client's serializer (the private ``client._serializer``) is wrapped so
  plain Converse request bodies are one ``json.dumps`` (wire.py); botocore still renders
  the URL, headers and host from the ``modelId``.
- **Streams**: the HTTP body of a ConverseStream (``EventStream._raw_stream``) is read by
  the family's own ``EventStreamDecoder``.
- **Deadlines**: the connection pools of the client's HTTP session
  (``client._endpoint.http_session._pool_classes_by_scheme``) make sockets that honour the
  attempt deadline.

Each falls back to botocore's own behaviour on a botocore without the attribute.
``SDK_VERSIONS`` names the releases this was written for (pyproject's ``bedrock`` extra,
below botocore 2); the test suite checks the installed one against it.
"""

from __future__ import annotations

import logging
from typing import Any

from .._common import bound_pool_classes
from .wire import CONVERSE_OPERATIONS, body_is_json, converse_body, read_converse_body

__all__ = [
    "SDK_VERSIONS",
    "ConverseParserFactory",
    "ConverseSerializer",
    "install_parser",
    "install_serializer",
    "raw_body",
    "bound_io",
]

SDK_VERSIONS = {"botocore": ">=1.34,<2"}

#: The Converse output shape's name in botocore's model.
_CONVERSE_OUTPUT = "ConverseResponse"
_PARSER_LOG = logging.getLogger("botocore.parsers")


# ----------------------------------------------------------------------------- replies ---


class _ConverseParser:
    """botocore's rest-json parser, with successful Converse bodies read by
    ``wire.read_converse_body``. botocore's own parser is created only when it is needed."""

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


def install_parser(session: Any) -> None:
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


class ConverseSerializer:
    """botocore's serializer, with the JSON body of plain Converse requests written by
    ``wire.converse_body``."""

    __slots__ = ("_serializer", "_checked")

    def __init__(self, serializer: Any) -> None:
        self._serializer = serializer
        self._checked: dict[str, bool] = {}  # operation name -> its input writes as JSON

    def _applies(self, operation_model: Any) -> bool:
        name = operation_model.name
        applies = self._checked.get(name)
        if applies is None:
            applies = self._checked[name] = (name in CONVERSE_OPERATIONS
                                             and body_is_json(operation_model.input_shape))
        return applies

    def serialize_to_request(self, parameters: dict[str, Any], operation_model: Any) -> Any:
        if "modelId" in parameters and self._applies(operation_model):
            encoded = converse_body(parameters)
            if encoded is not None:
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


# ------------------------------------------------------------------ streams, deadlines ---


def raw_body(events: Any) -> Any:
    """The HTTP body under a ConverseStream's ``EventStream`` (botocore's private
    ``_raw_stream``: a urllib3 response, read with ``stream()``), or None when it has none
    (then the ``EventStream`` is iterated)."""
    body = getattr(events, "_raw_stream", None)
    return body if body is not None and hasattr(body, "stream") else None


def bound_io(client: Any) -> bool:
    """Make a botocore client's connections honour the attempt deadline (see
    ``_common.bound_pool_classes``). Call it before the client's first request. False when
    the session is not the urllib3 one botocore builds (then each read is bounded by the
    read timeout only)."""
    session = getattr(getattr(client, "_endpoint", None), "http_session", None)
    return bound_pool_classes(getattr(session, "_pool_classes_by_scheme", None))
