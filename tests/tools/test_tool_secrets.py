"""A tool whose exception quotes a configured key does not pass it on: not in the tool result
sent to the model, not in ``ToolEvent``, not in the spans (content capture on), not in
``ToolExecutionError`` (message, repr, traceback). The three families through their real
SDKs against the loopback fault server (tests/support/fault_server.py), sync and async tools."""

from __future__ import annotations

import asyncio
import json
import traceback
from typing import Any
from urllib.parse import quote

import pytest
from support.fault_server import FaultServer, Reply
from support.tool_wire import FAMILIES as WIRE

import aisuite_like as ai

FAMILIES = ("openai", "anthropic", "google")
# Not key-shaped: only the redaction of configured keys can hide them.
KEYS = {"openai": "opn-ToolLeak-4f8a1c9e7b2d", "anthropic": "ant-ToolLeak-9c2e7f1a3b5d",
        "google": "ggl-ToolLeak-1b3d5f7a9c2e"}
USER = [{"role": "user", "content": "go"}]


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer) -> None:
    server.reset()


def leaky_tools(key: str) -> list[Any]:
    def lookup(q: str) -> str:
        """Look something up."""
        raise ConnectionError(f"upstream refused key {key} (url-encoded: {quote(key)})")

    async def alookup(q: str) -> str:
        """Look something up, asynchronously."""
        raise PermissionError(f"bad credentials {key!r}")

    return [lookup, alookup]


def run(family: str, server: FaultServer, tool: str, **kwargs: Any) -> Any:
    server.queue(Reply(200, body=WIRE[family]["json"](1, [("c1", tool, {"q": "x"})])),
                 Reply(200, body=WIRE[family]["json"](2, "done")))
    base_url = server.url + "/v1" if family == "openai" else server.url
    configs = {family: {"api_key": KEYS[family], "base_url": base_url, "max_retries": 0}}

    async def arun() -> Any:
        async with ai.AsyncClient(configs) as client:
            return await client.chat.completions.create(
                model=WIRE[family]["model"], messages=USER, tools=leaky_tools(KEYS[family]),
                max_turns=3, **kwargs)
    return asyncio.run(arun())


def no_key(family: str, text: str) -> bool:
    key = KEYS[family]
    return key not in text and quote(key) not in text and "ToolLeak" not in text


@pytest.mark.parametrize("tool", ["lookup", "alookup"])
@pytest.mark.parametrize("family", FAMILIES)
def test_tool_exception_quoting_the_key_reaches_no_one(family: str, tool: str,
                                                       server: FaultServer) -> None:
    from support.telemetry import instrumented

    with instrumented(capture_content=True) as otel:
        response = run(family, server, tool)
    sent = json.dumps(server.requests[1].body)
    assert "Error: " in sent and "[REDACTED]" in sent  # the model still learns what failed
    assert no_key(family, sent)
    (event,) = response.tool_events
    assert event.is_error and "[REDACTED]" in event.result and no_key(family, event.result)
    spans = [json.dumps(dict(s.attributes or {}), default=str) + str(s.status.description)
             for s in otel.spans()]
    assert any("execute_tool" in s.name for s in otel.spans())
    assert all(no_key(family, text) for text in spans)


@pytest.mark.parametrize("family", FAMILIES)
def test_tool_execution_error_does_not_show_the_key(family: str, server: FaultServer) -> None:
    with pytest.raises(ai.ToolExecutionError) as caught:
        run(family, server, "lookup", on_tool_error="raise")
    error = caught.value
    assert "upstream refused key [REDACTED]" in str(error)
    texts = [str(error), repr(error), "".join(traceback.format_exception(error))]
    assert all(no_key(family, text) for text in texts)
