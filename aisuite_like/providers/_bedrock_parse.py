"""A faster reading of successful Converse replies, plugged into botocore's parser seam.

botocore parses every reply body by walking the operation's output shape member by member
(``RestJSONParser``): for a Converse reply that walk costs more than the ``json.loads`` under
it. The provider's botocore session gets a ``response_parser_factory`` component (public
``Session.register_component``) whose rest-json parsers read a *successful* ``Converse`` body
with one ``json.loads`` and build the same dict botocore would: the body's modelled
top-level members plus ``ResponseMetadata`` (``RequestId``, ``HTTPStatusCode``,
``HTTPHeaders``; botocore's retry layer adds ``RetryAttempts``).

Everything else goes to botocore's own parser, unchanged: error statuses (so errors,
throttling and their retry decisions map exactly as before), ConverseStream and other
operations, and any successful body the fast path is not sure to read exactly as botocore
would: one that contains ``null`` (botocore drops null members), a
blob (``"bytes"``, ``"redactedContent"``: botocore base64-decodes them), or when the
``botocore.parsers`` logger is enabled for DEBUG (botocore logs every body there). A body
that is not a JSON object (not JSON, not UTF-8, a list) has no members, as botocore reads a
body that is not JSON (on the last two botocore's parser itself failed with a
``UnicodeDecodeError`` / ``AttributeError``): the provider then reports a reply that is not
the expected shape.

Only public botocore names are used: ``ResponseParserFactory.create_parser`` and the
parser's ``parse(response, shape)``, wrapped by composition.
"""

from __future__ import annotations

import json
import logging
from typing import Any

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
        data = json.loads(body)
    except ValueError:  # not JSON (also empty, or not UTF-8): no members, as botocore reads it
        return {}
    if not isinstance(data, dict):  # botocore's parser fails on these with an AttributeError
        return {}
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
