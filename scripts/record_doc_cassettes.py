"""(Re)record the cassettes of the documentation pages whose examples call a provider.

    python scripts/record_doc_cassettes.py            # scripted replies, no key needed
    python scripts/record_doc_cassettes.py --real     # the real providers, with your keys
    python scripts/record_doc_cassettes.py README.md  # one page

A page's runnable blocks run in order, as the test suite runs them (conftest.py at the top
of the repository), inside ``aisuite_like.testing.record()`` of the page's cassette
(``tests/doc_cassettes/``): the requests are the ones the real provider code and SDK send.
By default the provider's side is scripted here, in each API's own format, at the HTTP
connection layer below the SDK (respx on httpcore2), so no key is needed; ``--real`` sends
them to the providers (the keys come from the environment; none is written to the file).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conftest import DOC_KEYS, doc_cassette  # noqa: E402  (the suite's own page rules)

OPENAI = "https://api.openai.com/v1/chat/completions"
ANTHROPIC = "https://api.anthropic.com/v1/messages"


def _openai_call(name: str, arguments: str) -> dict[str, Any]:
    return {"id": "chatcmpl-doc-1", "object": "chat.completion", "created": 1767225600,
            "model": "gpt-4o-2024-08-06", "choices": [{
                "index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_doc_1", "type": "function",
                        "function": {"name": name, "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 18, "total_tokens": 98}}


def _openai_text(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-doc-2", "object": "chat.completion", "created": 1767225601,
            "model": "gpt-4o-2024-08-06", "choices": [{
                "index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}}


def _anthropic(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_doc", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 90, "output_tokens": 20}}


def _readme(router: Any) -> None:
    router.post(ANTHROPIC).mock(side_effect=[
        _respond(200, _anthropic([{"type": "tool_use", "id": "toolu_doc_1", "name": "get_weather",
                                   "input": {"city": "Paris"}}], "tool_use")),
        _respond(200, _anthropic([{"type": "text", "text": "It is sunny in Paris."}],
                                 "end_turn")),
    ])


def _tool_runner(router: Any) -> None:
    router.post(OPENAI).mock(side_effect=[
        _respond(200, _openai_call("get_weather", '{"city": "Paris"}')),
        _respond(200, _openai_text("It is 21C in Paris.")),
    ])


def _reliability(router: Any) -> None:
    router.post(OPENAI).mock(side_effect=[_respond(429, {"error": {
        "message": "Rate limit reached for gpt-4o", "type": "requests", "code":
        "rate_limit_exceeded"}}, {"retry-after": "1"})])
    router.post(ANTHROPIC).mock(side_effect=[
        _respond(200, _anthropic([{"type": "text", "text": "Hello!"}], "end_turn"))])


def _respond(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    import respx

    return respx.MockResponse(status, json=body, headers=headers)


#: The pages whose runnable blocks call a provider, and their scripted provider side.
PAGES: dict[str, Callable[[Any], None]] = {
    "README.md": _readme,
    "docs/tool-runner.md": _tool_runner,
    "docs/reliability.md": _reliability,
}


def record_page(page: str, real: bool) -> Path:
    import pytest_httpx2._plugin  # noqa: F401  (registers respx's "httpcore2" mocker)
    import respx
    from sybil import Sybil
    from sybil.parsers.markdown import PythonCodeBlockParser

    from aisuite_like.testing import record

    path = ROOT / page
    cassette = doc_cassette(path)
    document = Sybil(parsers=[PythonCodeBlockParser()]).parse(path)
    document.namespace["_doc_page"] = None
    saved_env, cwd = dict(os.environ), os.getcwd()
    if not real:
        os.environ.update(DOC_KEYS)
    try:
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            with record(cassette):
                if real:
                    for example in document.examples():
                        example.evaluate()
                else:
                    with respx.mock(using="httpcore2", assert_all_called=True) as router:
                        PAGES[page](router)
                        for example in document.examples():
                            example.evaluate()
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return cassette


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help=f"pages to record (default: {', '.join(PAGES)})")
    parser.add_argument("--real", action="store_true",
                        help="send the requests to the real providers (keys from the environment)")
    args = parser.parse_args()
    for page in args.pages or list(PAGES):
        if page not in PAGES:
            parser.error(f"{page} has no provider calls to record; pages: {', '.join(PAGES)}")
        print(f"{page} -> {record_page(page, args.real).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
