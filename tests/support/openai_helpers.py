"""Builders for OpenAI-shaped HTTP bodies and a sync/async call helper, shared by the OpenAI
family's tests (no logic under test lives here)."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest
import respx
from support.client_calls import create, stream, wire  # noqa: F401  (re-exported)

KEY = "sk-test-secret-key-1234567890"


@pytest.fixture
def httpx2_mock() -> Any:
    """pytest-httpx2's fixture (respx on httpcore2), without "every route must be called":
    some tests prove that NO request was made; all others assert on the wire themselves."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def completion(content: Optional[str] = "Hello!", *, tool_calls: Optional[list[dict]] = None,
               finish: str = "stop", usage: Optional[dict] = None, model: str = "gpt-4o-2024",
               id: str = "chatcmpl-1", extra_message: Optional[dict] = None,
               choices: Optional[list[dict]] = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    message.update(extra_message or {})
    return {
        "id": id, "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": choices or [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage if usage is not None else {
            "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def call(id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def sse(events: list[Any], done: bool = True) -> bytes:
    body = "".join(f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events)
    if done:
        body += "data: [DONE]\n\n"
    return body.encode()


def chunk(delta: dict[str, Any], *, finish: Optional[str] = None, index: int = 0,
          usage: Optional[dict] = None, id: str = "chatcmpl-1", model: str = "gpt-4o-2024",
          no_choices: bool = False) -> dict[str, Any]:
    event: dict[str, Any] = {"id": id, "object": "chat.completion.chunk", "created": 1700000000,
                             "model": model,
                             "choices": [] if no_choices else [
                                 {"index": index, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        event["usage"] = usage
    return event

