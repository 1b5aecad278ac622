"""``prompt_cache="auto"`` on every family, checked on the wire (docs/reasoning-and-caching.md):
Anthropic ``cache_control`` and Bedrock ``cachePoint`` breakpoints (tools, system prompt, the
end of the reusable prefix; at most four; moved forward by the tool runner), OpenAI's
``prompt_cache_key``, nothing for Gemini; cache reads and writes reported the same way in
``usage`` on every family, and priced."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from support import client_calls as calls
import httpx
import pytest
import respx
from support.bedrock_server import (
    BedrockServer,
    Stream,
    converse_text,
    converse_tools,
    event,
    isolate_aws,
    usage,
)
from support.client_calls import wire

import aisuite_like as ai
from support.recorded import load_recorded

MODES = ["sync", "async"]
SYSTEM = {"role": "system", "content": "You are a weather bot. " * 50}
USER = {"role": "user", "content": "Weather in Paris?"}


@pytest.fixture
def httpx2_mock() -> Iterator[Any]:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny in {city}"


def get_time(city: str) -> str:
    """Local time in a city."""
    return "12:00"


# =============================================================================================
# Anthropic: cache_control breakpoints
# =============================================================================================

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
ANTHROPIC = {"anthropic": {"api_key": "sk-ant-api03-TESTKEY-0123456789abcdef",
                           "max_retries": 0}}
EPHEMERAL = {"type": "ephemeral"}


def claude_reply(content: list[dict[str, Any]], stop_reason: str = "end_turn",
                 **usage_kw: int) -> httpx.Response:
    return httpx.Response(200, json={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 5, **usage_kw}})


def claude_text(text: str = "ok", **usage_kw: int) -> httpx.Response:
    return claude_reply([{"type": "text", "text": text}], **usage_kw)


def breakpoints(body: dict[str, Any]) -> list[str]:
    """Where the request's cache_control markers are: "tools[i]", "system[i]",
    "messages[i][j]"."""
    where = [f"tools[{i}]" for i, t in enumerate(body.get("tools") or ())
             if t.get("cache_control")]
    system = body.get("system")
    if isinstance(system, list):
        where += [f"system[{i}]" for i, b in enumerate(system) if b.get("cache_control")]
    for i, turn in enumerate(body["messages"]):
        where += [f"messages[{i}][{j}]" for j, b in enumerate(turn["content"])
                  if b.get("cache_control")]
    return where


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_auto_marks_tools_system_and_prefix(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_text(
        cache_read_input_tokens=900, cache_creation_input_tokens=100))
    messages = [SYSTEM, USER, {"role": "assistant", "content": "Which day?"},
                {"role": "user", "content": "Today."}]
    before = copy.deepcopy(messages)
    resp = calls.create(mode, ANTHROPIC, model="anthropic:claude-sonnet-4-6", messages=messages,
                        tools=[get_weather, get_time], prompt_cache="auto")
    body = wire(route)
    assert breakpoints(body) == ["tools[1]", "system[0]", "messages[0][0]", "messages[2][0]"]
    assert body["system"] == [{"type": "text", "text": SYSTEM["content"],
                               "cache_control": EPHEMERAL}]
    assert "cache_control" not in body["tools"][0]
    assert messages == before  # the caller's dicts are never marked
    details = resp.usage.prompt_tokens_details
    assert (details.cached_tokens, details.cache_creation_tokens) == (900, 100)
    assert resp.usage.prompt_tokens == 20 + 900 + 100


def test_anthropic_without_prompt_cache_nothing_is_marked(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_text())
    calls.create("sync", ANTHROPIC, model="anthropic:claude-sonnet-4-6",
                 messages=[SYSTEM, USER], tools=[get_weather])
    body = wire(route)
    assert breakpoints(body) == [] and body["system"] == SYSTEM["content"]


@pytest.mark.parametrize("mode", MODES)
def test_client_default_and_per_call_opt_out(mode: str, httpx2_mock: Any) -> None:
    import asyncio

    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_text())
    kwargs = {"model": "anthropic:claude-sonnet-4-6", "messages": [SYSTEM, USER]}
    if mode == "sync":
        with ai.Client(ANTHROPIC, prompt_cache="auto") as client:
            client.chat.completions.create(**kwargs)
            client.chat.completions.create(**kwargs, prompt_cache=False)
    else:
        async def run() -> None:
            async with ai.AsyncClient(ANTHROPIC, prompt_cache="auto") as client:
                await client.chat.completions.create(**kwargs)
                await client.chat.completions.create(**kwargs, prompt_cache=False)
        asyncio.run(run())
    assert breakpoints(wire(route, 0)) == ["system[0]", "messages[0][0]"]
    assert breakpoints(wire(route, 1)) == []


@pytest.mark.parametrize("value", ["on", True, "AUTO", 1])
def test_prompt_cache_values_are_checked(value: Any, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL)
    with pytest.raises(ai.UnsupportedParameterError, match="'auto' or False"):
        calls.create("sync", ANTHROPIC, model="anthropic:claude-sonnet-4-6", messages=[USER],
                     prompt_cache=value)
    with pytest.raises(ai.UnsupportedParameterError, match="'auto' or False"):
        ai.Client(ANTHROPIC, prompt_cache=value)
    assert not route.called


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_runner_moves_the_breakpoint_forward(mode: str, httpx2_mock: Any) -> None:
    """Each turn's request marks its own end (written to the cache) and the end of the
    previous turn's request (read from it), with the tools and the system prompt: four."""
    def call(call_id: str, name: str) -> dict[str, Any]:
        return {"type": "tool_use", "id": call_id, "name": name, "input": {"city": "Paris"}}

    route = httpx2_mock.post(ANTHROPIC_URL).mock(side_effect=[
        claude_reply([call("t1", "get_weather")], "tool_use"),
        claude_reply([call("t2", "get_time")], "tool_use"),
        claude_text("Sunny, noon.")])
    resp = calls.create(mode, ANTHROPIC, model="anthropic:claude-sonnet-4-6",
                        messages=[SYSTEM, USER], tools=[get_weather, get_time], max_turns=3,
                        prompt_cache="auto")
    assert resp.choices[0].message.content == "Sunny, noon."
    assert breakpoints(wire(route, 0)) == ["tools[1]", "system[0]", "messages[0][0]"]
    assert breakpoints(wire(route, 1)) == ["tools[1]", "system[0]", "messages[0][0]",
                                           "messages[2][0]"]
    assert breakpoints(wire(route, 2)) == ["tools[1]", "system[0]", "messages[2][0]",
                                           "messages[4][0]"]
    # what turn 2 marked as its end is what turn 3 marks as the previous end: the same block
    assert wire(route, 1)["messages"][2] == wire(route, 2)["messages"][2]


def test_anthropic_callers_own_breakpoints_count_toward_four(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_text())
    marked = {"type": "text", "text": "Long document. " * 100, "cache_control": EPHEMERAL}
    messages = [{"role": "system", "content": [marked]},
                {"role": "user", "content": [marked, {"type": "text", "text": "Summarise."}]},
                {"role": "assistant", "content": "Done."},
                {"role": "user", "content": [marked, {"type": "text", "text": "Shorter."}]}]
    calls.create("sync", ANTHROPIC, model="anthropic:claude-sonnet-4-6", messages=messages,
                 tools=[get_weather], prompt_cache="auto")
    body = wire(route)
    # three of the caller's, one added (the most valuable: the end of the request)
    assert breakpoints(body) == ["system[0]", "messages[0][0]", "messages[2][0]",
                                 "messages[2][1]"]


def test_anthropic_top_level_cache_control_counts_and_thinking_is_never_marked(
        httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_text())
    thought = {"type": "thinking", "thinking": "t", "signature": "s=="}
    messages = [USER, {"role": "assistant", "content": None,
                       "provider_specific_fields": {"thinking_blocks": [thought]}}]
    calls.create("sync", ANTHROPIC, model="anthropic:claude-sonnet-4-6", messages=messages,
                 prompt_cache="auto", cache_control={"type": "ephemeral", "ttl": "1h"})
    body = wire(route)
    assert body["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    # the last turn is thinking only (cannot carry a marker); the turn before it is marked
    assert breakpoints(body) == ["messages[0][0]"]
    assert body["messages"][1]["content"] == [thought]


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_stream_reports_cache_usage(mode: str, httpx2_mock: Any) -> None:
    events = [
        {"type": "message_start", "message": {
            "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [], "stop_reason": None, "usage": {
                "input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 700,
                "cache_creation_input_tokens": 60}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 3}},
        {"type": "message_stop"}]
    data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, content=data.encode(), headers={"content-type": "text/event-stream"}))
    _, final, error, _ = calls.stream(mode, ANTHROPIC, model="anthropic:claude-sonnet-4-6",
                                           messages=[SYSTEM, USER], prompt_cache="auto")
    assert error is None and breakpoints(wire(route)) == ["system[0]", "messages[0][0]"]
    details = final.usage.prompt_tokens_details
    assert (final.usage.prompt_tokens, details.cached_tokens,
            details.cache_creation_tokens) == (765, 700, 60)


# =============================================================================================
# Bedrock: cachePoint blocks, on the models that take them
# =============================================================================================

POINT = {"cachePoint": {"type": "default"}}


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[BedrockServer]:
    isolate_aws(monkeypatch, tmp_path)
    with BedrockServer() as server:
        yield server


def points(body: dict[str, Any]) -> list[str]:
    where = [f"tools[{i}]" for i, t in enumerate(body.get("toolConfig", {}).get("tools", ()))
             if "cachePoint" in t]
    where += [f"system[{i}]" for i, b in enumerate(body.get("system") or ())
              if "cachePoint" in b]
    for i, turn in enumerate(body["messages"]):
        where += [f"messages[{i}][{j}]" for j, b in enumerate(turn["content"])
                  if "cachePoint" in b]
    return where


@pytest.mark.parametrize("mode", MODES)
def test_bedrock_claude_gets_cache_points_and_the_runner_moves_them(
        mode: str, bedrock: BedrockServer) -> None:
    bedrock.reply(converse_tools(("tu_1", "get_weather", {"city": "Paris"})),
                  converse_text("Sunny.", cacheReadInputTokens=800, cacheWriteInputTokens=40))
    resp = calls.create(mode, {"bedrock": bedrock.config()},
                        model="bedrock:us.anthropic.claude-sonnet-4-6", messages=[SYSTEM, USER],
                        tools=[get_weather], max_turns=2, prompt_cache="auto")
    first, second = (r.json for r in bedrock.requests)
    assert points(first) == ["tools[1]", "system[1]", "messages[0][1]"]
    assert first["toolConfig"]["tools"][1] == POINT and first["system"][1] == POINT
    assert points(second) == ["tools[1]", "system[1]", "messages[0][1]", "messages[2][1]"]
    assert second["messages"][2]["content"][0]["toolResult"]["toolUseId"] == "tu_1"
    details = resp.usage.prompt_tokens_details  # summed over the run's two calls
    assert (details.cached_tokens, details.cache_creation_tokens) == (800, 40)


@pytest.mark.parametrize("model,expected", [
    ("amazon.nova-pro-v1:0", ["system[1]", "messages[0][1]"]),  # Nova: no cache points in tools
    ("meta.llama3-3-70b-instruct-v1:0", []),
    ("anthropic.claude-3-haiku-20240307-v1:0", []),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", ["tools[1]", "system[1]", "messages[0][1]"]),
])
def test_bedrock_cache_points_per_model(model: str, expected: list[str],
                                        bedrock: BedrockServer) -> None:
    bedrock.reply(converse_text("ok"))
    calls.create("sync", {"bedrock": bedrock.config()}, model=f"bedrock:{model}",
                 messages=[SYSTEM, USER], tools=[get_weather], prompt_cache="auto")
    assert points(bedrock.requests[0].json) == expected


def test_bedrock_callers_cache_points_count_and_native_lists_are_copied(
        bedrock: BedrockServer) -> None:
    bedrock.reply(converse_text("ok"))
    system = [{"text": "Rules."}, POINT, {"text": "More rules."}, POINT]
    before = copy.deepcopy(system)
    messages = [{"role": "user", "content": [{"type": "text", "text": "Doc",
                                              "cache_control": EPHEMERAL}]},
                {"role": "assistant", "content": "Read."}, USER]
    calls.create("sync", {"bedrock": bedrock.config()},
                 model="bedrock:anthropic.claude-sonnet-4-5-v1:0", messages=messages,
                 system=system, prompt_cache="auto")
    body = bedrock.requests[0].json
    assert points(body) == ["system[1]", "system[3]", "messages[0][1]", "messages[2][1]"]
    assert system == before


@pytest.mark.parametrize("mode", MODES)
def test_bedrock_stream_reports_cache_usage(mode: str, bedrock: BedrockServer) -> None:
    bedrock.reply(Stream([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"delta": {"text": "ok"}, "contentBlockIndex": 0}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("messageStop", {"stopReason": "end_turn"}),
        event("metadata", {"usage": usage(5, 2, cacheReadInputTokens=300,
                                          cacheWriteInputTokens=30),
                           "metrics": {"latencyMs": 3}})]))
    _, final, error, _ = calls.stream(mode, {"bedrock": bedrock.config()},
                                           model="bedrock:anthropic.claude-sonnet-4-5-v1:0",
                                           messages=[SYSTEM, USER], prompt_cache="auto")
    assert error is None and points(bedrock.requests[0].json) == ["system[1]",
                                                                  "messages[0][1]"]
    details = final.usage.prompt_tokens_details
    assert (final.usage.prompt_tokens, details.cached_tokens,
            details.cache_creation_tokens) == (335, 300, 30)


# =============================================================================================
# OpenAI: prompt_cache_key; the compatible services and Gemini: nothing to add
# =============================================================================================

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
OPENAI = {"openai": {"api_key": "sk-test-secret-key-1234567890", "max_retries": 0}}


def openai_reply(**usage_details: int) -> httpx.Response:
    return httpx.Response(200, json={
        "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-5",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 5, "total_tokens": 1005,
                  "prompt_tokens_details": usage_details}})


@pytest.mark.parametrize("mode", MODES)
def test_openai_gets_a_stable_prompt_cache_key(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(return_value=openai_reply(cached_tokens=768))
    for messages in ([SYSTEM, USER], [SYSTEM, {"role": "user", "content": "And Rome?"}],
                     [{"role": "system", "content": "Other."}, USER]):
        resp = calls.create(mode, OPENAI, model="openai:gpt-5", messages=messages,
                            tools=[get_weather], prompt_cache="auto")
    keys = [wire(route, i)["prompt_cache_key"] for i in range(3)]
    assert keys[0] == keys[1] != keys[2]  # the same tools and system prompt: the same key
    assert keys[0].startswith("aisuite-") and len(keys[0]) == len("aisuite-") + 32
    assert resp.usage.prompt_tokens_details.cached_tokens == 768


def test_openai_callers_key_wins_and_services_get_none(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(return_value=openai_reply())
    calls.create("sync", OPENAI, model="openai:gpt-5", messages=[USER],
                 prompt_cache="auto", prompt_cache_key="tenant-7")
    assert wire(route)["prompt_cache_key"] == "tenant-7"
    groq = httpx2_mock.post("https://api.groq.com/openai/v1/chat/completions").mock(
        return_value=openai_reply())
    calls.create("sync", {"groq": {"api_key": "gsk_test_0123456789", "max_retries": 0}},
                 model="groq:llama-3.3-70b-versatile", messages=[SYSTEM, USER],
                 prompt_cache="auto")
    assert "prompt_cache_key" not in wire(groq)  # Groq caches by itself


def test_recorded_openai_cache_reads_and_writes(httpx2_mock: Any) -> None:
    """OpenAI reports cache writes as ``prompt_tokens_details.cache_write_tokens``: our
    ``cache_creation_tokens``, as Anthropic's and Bedrock's writes."""
    fixture = load_recorded(
        "openai/test_openai_prompt_cache__test_openai_chat_prompt_cache_e2e.json")
    write, read = fixture["interactions"]
    route = httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        httpx.Response(200, json=write["response"]["body"]),
        httpx.Response(200, json=read["response"]["body"])])
    request = write["request"]["body"]
    results = [calls.create("sync", OPENAI, model=f"openai:{request['model']}",
                            messages=request["messages"], prompt_cache="auto",
                            prompt_cache_key=request["prompt_cache_key"]) for _ in range(2)]
    assert route.call_count == 2
    details = [r.usage.prompt_tokens_details for r in results]
    assert (details[0].cached_tokens, details[0].cache_creation_tokens) == (0, 4012)
    assert (details[1].cached_tokens, details[1].cache_creation_tokens) == (4012, 0)
    # to_dict() stays what OpenAI sent
    assert results[0].usage.to_dict()["prompt_tokens_details"] == \
        write["response"]["body"]["usage"]["prompt_tokens_details"]


@pytest.mark.parametrize("mode", MODES)
def test_gemini_needs_nothing(mode: str, httpx2_mock: Any) -> None:
    url = ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
           ":generateContent")
    route = httpx2_mock.post(url).mock(return_value=httpx.Response(200, json={
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 2,
                          "cachedContentTokenCount": 1024, "totalTokenCount": 1202}}))
    config = {"google": {"api_key": "AIzaSyTESTKEY-0123456789abcdefghij", "max_retries": 0}}
    resp = calls.create(mode, config, model="google:gemini-2.5-flash", messages=[SYSTEM, USER],
                        tools=[get_weather], prompt_cache="auto")
    calls.create(mode, config, model="google:gemini-2.5-flash", messages=[SYSTEM, USER],
                 tools=[get_weather])
    assert wire(route, 0) == wire(route, 1)  # implicit caching: the same body
    assert resp.usage.prompt_tokens_details.cached_tokens == 1024


# =============================================================================================
# Cost: cache reads and writes priced on every family
# =============================================================================================


@pytest.mark.parametrize("family", ["anthropic", "bedrock", "openai", "google"])
def test_cost_prices_cache_reads_and_writes(family: str) -> None:
    """core/cost.py hands every family's cache reads and writes to genai-prices: a cached
    prompt costs less than the same prompt uncached, a written one (where writes cost extra)
    more."""
    import genai_prices

    from aisuite_like.core.cost import attach_price_ref
    from aisuite_like.core.types import ChatCompletionResponse, PromptTokensDetails, Usage

    model = {"anthropic": "claude-sonnet-4-5",
             "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
             "openai": "gpt-5", "google": "gemini-2.5-flash"}[family]

    def cost(cached: int, written: int) -> float:
        response = ChatCompletionResponse(
            id="r", model=model, provider=family, choices=[],
            usage=Usage(prompt_tokens=100_000, completion_tokens=10, total_tokens=100_010,
                        prompt_tokens_details=PromptTokensDetails(
                            cached_tokens=cached, cache_creation_tokens=written)))
        attach_price_ref(response, model)
        assert response.usage is not None and response.usage.cost is not None
        return response.usage.cost

    plain, read = cost(0, 0), cost(80_000, 0)
    assert read < plain
    provider_id = "aws" if family == "bedrock" else family
    price = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=100_000, cache_read_tokens=80_000, output_tokens=10),
        model, provider_id=provider_id)
    assert read == pytest.approx(float(price.total_price))
    if family in ("anthropic", "bedrock"):  # writes cost more than plain input there
        assert cost(0, 80_000) > plain
