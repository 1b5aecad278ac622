"""The provider stack (client/prepare.py, docs/architecture.md "The provider stack"): one
declared order of the wrappers, the same in the code and in the docs, and a call through
every layer at once behaving as each layer alone does, on the wire."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.cache.provider import CachedProvider
from aisuite_like.client.prepare import STACK, prepare_call
from aisuite_like.model_info.checks import ChecksProvider
from aisuite_like.observability.otel import _TracedProvider
from aisuite_like.providers.fallback import FallbackProvider
from aisuite_like.providers.think import ThinkTagsProvider
from aisuite_like.providers.wrapper import WrapperProvider

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
GATEWAY = "http://gw.example.test/v1"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
USER = [{"role": "user", "content": "Hi"}]
_LAYERS = {ThinkTagsProvider: "think", FallbackProvider: "fallbacks",
           _TracedProvider: "tracing", CachedProvider: "cache", ChecksProvider: "checks"}


def _layers(provider: Any) -> list[str]:
    """The layer names of a stack, outermost first, down to its transport."""
    names = []
    while isinstance(provider, WrapperProvider):
        names.append(_LAYERS[type(provider)])
        provider = provider.wrapped
    return [*names, "transport"]


def test_the_docs_list_the_order_of_the_code() -> None:
    section = DOCS.read_text().split("## The provider stack", 1)[1].split("\n## ", 1)[0]
    assert tuple(re.findall(r"^\d+\. `(\w+)`", section, re.M)) == STACK


def _claude(text: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 3}}


def test_a_call_through_every_layer(httpx2_mock: respx.Router, otel: Any) -> None:
    openai = httpx2_mock.post(f"{GATEWAY}/chat/completions").respond(
        429, json={"error": {"message": "slow down", "type": "rate_limit"}})
    claude = httpx2_mock.post(ANTHROPIC_URL).respond(200, json=_claude(
        "<think>plan</think>answer"))
    client = ai.Client({"openai": {"api_key": KEY, "base_url": GATEWAY, "max_retries": 0},
                        "anthropic": {"api_key": KEY, "max_retries": 0}},
                       cache=ai.cache.MemoryCache(), extract_thinking=True)
    kwargs = {"fallbacks": ["anthropic:claude-x"]}
    prepared = prepare_call(client, "openai:gpt-4o", USER, dict(kwargs))
    assert _layers(prepared.provider) == [  # gpt-4o is known: its facts are checked
        name for name in STACK if name != "budgets"]  # no budget given
    replies = [client.chat.completions.create(model="openai:gpt-4o", messages=USER, **kwargs)
               for _ in range(2)]
    for reply in replies:  # <think> extracted from whichever model served
        assert (reply.choices[0].message.content,
                reply.choices[0].message.reasoning_content) == ("answer", "plan")
        assert [s.model for s in reply.fallback_errors] == ["openai:gpt-4o"]
    assert openai.call_count == 2 and claude.call_count == 1  # the second is a cache hit
    chat = [s for s in otel.spans() if s.name.startswith("chat ")]
    seen = [(s.name, s.attributes.get("server.address"), s.attributes.get("error.type"),
             s.attributes.get("aisuite_like.cache_hit")) for s in chat]
    assert seen == [  # a span per model tried, the endpoint told from the transport
        ("chat gpt-4o", "gw.example.test", "RateLimitError", None),
        ("chat claude-x", "api.anthropic.com", None, False),
        ("chat gpt-4o", "gw.example.test", "RateLimitError", None),
        ("chat claude-x", "api.anthropic.com", None, True)]


def test_a_layer_not_asked_for_is_not_there() -> None:
    client = ai.Client({"openai": {"api_key": KEY}})
    prepared = prepare_call(client, "openai:my-own-model", USER, {})  # nothing known of it
    assert _layers(prepared.provider) == ["transport"]
    assert prepared.provider is client._provider("openai")
    for off in (prepare_call(client, "openai:gpt-4o", USER, {"checks": "off"}),
                prepare_call(ai.Client({"openai": {"api_key": KEY}}, checks="off"),
                             "openai:gpt-4o", USER, {})):
        assert _layers(off.provider) == ["transport"]
    assert _layers(prepare_call(client, "openai:gpt-4o", USER, {}).provider) == [
        "checks", "transport"]


def test_a_router_alias_is_cached_whole_and_traced_per_deployment(otel: Any) -> None:
    router = ai.Router(deployments={"smart": [{"model": "test:one"}]})
    client = ai.Client(router=router, cache=ai.cache.MemoryCache())
    prepared = prepare_call(client, "smart", USER, {})
    assert _layers(prepared.provider) == ["cache", "transport"]
    routing = prepared.provider.wrapped
    assert type(routing).__name__ == "RoutingProvider"
    assert _layers(routing.deployment_provider(0)) == ["tracing", "transport"]
    client.chat.completions.create(model="smart", messages=USER)
    assert [s.name for s in otel.spans()] == ["chat one"]
