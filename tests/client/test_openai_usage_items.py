"""The OpenAI SDK's own usage items (tests/support/openai_usage_items.py: 30, from its README,
helpers.md, examples/ and API tests) run with only the import and the model strings changed,
through the real ``openai`` SDK inside our client, against mocked HTTP (respx on httpcore2)
that answers as OpenAI does. Each item's expected outcome is pinned (strictly: an item that
starts or stops running fails its test), and the count of items that run unchanged is
reported and held to the target (docs/migration.md, "OpenAI usage items")."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import json
import re
import sys
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY
from support.openai_usage_items import ITEMS, Item

import aisuite_like as ai

# Model names of the OpenAI API in the items' string literals: prefixed with "openai:".
_MODEL_LITERAL = re.compile(
    r"""(["'])((?:gpt-|o[1-9]|chatgpt-|text-embedding-|whisper-|tts-|dall-e)[^"']*)\1""")
_FROM_IMPORT = re.compile(r"^(\s*)from openai import ", re.M)
_IMPORT = re.compile(r"^(\s*)import openai\s*$", re.M)

MODELS = {"object": "list", "data": [
    {"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "system"},
    {"id": "gpt-5.5", "object": "model", "created": 1760000000, "owned_by": "system"}]}
HEADERS = {"x-request-id": "req_123", "X-My-Header": "my-value"}


#: An item's placeholder for the reader's endpoint (``openai.base_url = "https://..."``), filled
#: in with the mocked API's, as a reader fills it in with theirs.
_BASE_URL_PLACEHOLDER = '"https://..."'


def ported(source: str) -> str:
    """The item as a user of aisuite-like writes it: the import lines name ``aisuite_like``
    instead of ``openai``, and model names get their ``openai:`` prefix. Nothing else but
    the placeholder ``"https://..."`` of a base URL, which becomes the mocked API's."""
    source = source.replace(_BASE_URL_PLACEHOLDER, '"https://api.openai.com/v1"')
    source = _FROM_IMPORT.sub(r"\1from aisuite_like import ", source)
    source = _IMPORT.sub(r"\1import aisuite_like as openai", source)
    return _MODEL_LITERAL.sub(lambda m: f"{m.group(1)}openai:{m.group(2)}{m.group(1)}",
                              source)


def _completion(item: Item, request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    if item.status != 200:
        return httpx.Response(item.status, headers=HEADERS, json={"error": {
            "message": "Invalid request", "type": "invalid_request_error", "code": None}})
    message: dict[str, Any] = {"role": "assistant", "content": item.content, "refusal": None}
    finish = "stop"
    if item.tool_call is not None:
        name, arguments = item.tool_call
        message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": name, "arguments": arguments}}]}
        finish = "tool_calls"
    usage = {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}
    head = {"id": "chatcmpl-1", "created": 1727000000, "model": body["model"]}
    if not body.get("stream"):
        return httpx.Response(200, headers=HEADERS, json={
            **head, "object": "chat.completion", "unknown_prop": "surprise",
            "choices": [{"index": 0, "message": message, "finish_reason": finish,
                         "logprobs": None}], "usage": usage})
    chunk = {**head, "object": "chat.completion.chunk"}
    deltas = [{"role": "assistant", "content": ""}]
    text = item.content if item.tool_call is None else ""
    deltas += [{"content": text[i:i + 7]} for i in range(0, len(text), 7)]
    events = [{**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
              for d in deltas]
    events.append({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({**chunk, "choices": [], "usage": usage})
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return httpx.Response(200, headers={**HEADERS, "content-type": "text/event-stream"},
                          content=sse.encode())


@contextlib.contextmanager
def openai_api(item: Item) -> Iterator[respx.Router]:
    """OpenAI's API as the items need it (chat, models, embeddings, transcriptions)."""
    with respx.mock(using="httpcore2", assert_all_called=False) as api:
        base = "https://api.openai.com/v1"
        api.post(f"{base}/chat/completions").mock(side_effect=lambda r: _completion(item, r))
        api.get(f"{base}/models").mock(return_value=httpx.Response(200, json=MODELS,
                                                                   headers=HEADERS))
        api.post(f"{base}/embeddings").mock(return_value=httpx.Response(200, headers=HEADERS,
                                                                        json={
            "object": "list", "model": "text-embedding-3-small",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.25]}],
            "usage": {"prompt_tokens": 9, "total_tokens": 9}}))
        api.post(f"{base}/audio/transcriptions").mock(return_value=httpx.Response(
            200, headers=HEADERS, json={"text": "the quick brown fox"}))
        yield api


def run_item(item: Item, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    """Run the ported item. Returns ("runs", output) or ("fails", the exception)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    from aisuite_like.client.module_client import SETTINGS

    for name in SETTINGS:  # an item's ``openai.api_key = ...`` is undone after it
        monkeypatch.setattr(ai, name, getattr(ai, name))
    monkeypatch.setitem(sys.modules, "rich", types.SimpleNamespace(print=print))
    source = ported(item.context + item.code)
    out = io.StringIO()
    namespace: dict[str, Any] = {"__name__": "__main__"}
    try:
        code = compile(source, item.id, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                       dont_inherit=True)  # not this file's ``from __future__`` imports
        with openai_api(item), contextlib.redirect_stdout(out):
            result = eval(code, namespace)  # a coroutine when the item awaits at top level
            if asyncio.iscoroutine(result):
                asyncio.run(result)
    except Exception as exc:  # the item's own ``raise`` of an SDK error is how it ends
        if item.raises is None or not isinstance(exc, getattr(ai, item.raises)):
            return "fails", exc
    if item.prints and item.prints not in out.getvalue():
        return "fails", AssertionError(f"{item.prints!r} not in the output:\n{out.getvalue()}")
    return "runs", out.getvalue()


@pytest.mark.parametrize("item", ITEMS, ids=[item.id for item in ITEMS])
def test_usage_item(item: Item, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, detail = run_item(item, monkeypatch)
    if item.expected == "runs":
        assert outcome == "runs", f"{item.id} ({item.source}) does not run: {detail!r}"
    else:  # refused: the documented error, not a crash; the test fails when it starts running
        assert outcome == "fails", f"{item.id} runs now: mark it 'runs' (and docs/migration.md)"
        refusals = (getattr(ai, item.refused_with),) if item.refused_with else (
            TypeError, AttributeError, ImportError)
        assert isinstance(detail, refusals), repr(detail)
        assert KEY not in str(detail)


def test_refused_client_settings_show_the_line_to_write(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    item = next(i for i in ITEMS if i.id == "readme-client-api-key")
    outcome, detail = run_item(item, monkeypatch)
    assert outcome == "fails" and isinstance(detail, TypeError)
    assert 'ai.Client(provider_configs={"openai": {"api_key": "..."}})' in str(detail)


def test_the_port_changes_only_imports_and_model_strings() -> None:
    item = next(i for i in ITEMS if i.id == "readme-chat")
    before, after = item.code.splitlines(), ported(item.code).splitlines()
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [("from openai import OpenAI", "from aisuite_like import OpenAI"),
                       ('    model="gpt-5.5",', '    model="openai:gpt-5.5",')]


def test_count_of_items_that_run_unchanged() -> None:
    """The number reported in docs/migration.md: items that run here unchanged (each one is
    checked to run by ``test_usage_item``)."""
    runs = sum(item.expected == "runs" for item in ITEMS)
    print(f"OpenAI usage items that run unchanged: {runs}/{len(ITEMS)}")
    assert runs == 26
