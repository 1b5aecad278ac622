"""``reasoning_effort`` on every family, checked on the wire (docs/reasoning-and-caching.md):
through the real SDKs with HTTP mocked at httpcore2 (openai, anthropic, google) and through real
botocore against the Bedrock loopback server. Also: reasoning text comes back in
``message.reasoning_content`` / ``delta.reasoning_content``, and is sent back on the next turn
(signatures included), by hand and by the tool runner."""

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
    converse,
    converse_text,
    event,
    isolate_aws,
    usage,
)
from support.client_calls import wire

import aisuite_like as ai
from support.recorded import load_recorded

MODES = ["sync", "async"]
USER = [{"role": "user", "content": "Is 17 prime?"}]


@pytest.fixture
def httpx2_mock() -> Iterator[Any]:
    """respx on httpcore2 without "every route must be called": refused requests send nothing."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny in {city}"


# =============================================================================================
# Anthropic: extended thinking (budget), adaptive thinking, the rules thinking comes with
# =============================================================================================

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
ANTHROPIC = {"anthropic": {"api_key": "sk-ant-api03-TESTKEY-0123456789abcdef",
                           "max_retries": 0}}


def claude_reply(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 30}}


THOUGHT = {"type": "thinking", "thinking": "17 has no divisor but 1 and 17.",
           "signature": "EqQBCkYIBxgCKkA-sig=="}


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_budget_model_gets_extended_thinking(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([THOUGHT, {"type": "text", "text": "Yes."}])))
    resp = calls.create(mode, ANTHROPIC, model="anthropic:claude-sonnet-4-5", messages=USER,
                        reasoning_effort="high")
    body = wire(route)
    # the table's budget; max_tokens (default 4096) raised to leave the answer its room
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert body["max_tokens"] == 16384 + 4096
    assert "output_config" not in body
    message = resp.choices[0].message
    assert message.content == "Yes."
    assert message.reasoning_content == THOUGHT["thinking"]
    assert message.provider_specific_fields == {"thinking_blocks": [THOUGHT]}


@pytest.mark.parametrize("effort,budget", [("minimal", 1024), ("low", 2048), ("medium", 8192),
                                           ("high", 16384)])
@pytest.mark.parametrize("max_tokens,sent", [(None, None), (1000, "raised"), (20000, 20000)])
def test_anthropic_budget_table_and_max_tokens(effort: str, budget: int, max_tokens: Any,
                                               sent: Any, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([{"type": "text", "text": "ok"}])))
    kwargs = {} if max_tokens is None else {"max_tokens": max_tokens}
    if max_tokens is None:  # stream=True: the SDK's 10-minute guard is for non-streamed calls
        calls.stream("sync", ANTHROPIC, model="anthropic:claude-3-7-sonnet-latest",
                     messages=USER, reasoning_effort=effort)
    else:
        calls.create("sync", ANTHROPIC, model="anthropic:claude-3-7-sonnet-latest",
                     messages=USER, reasoning_effort=effort, **kwargs)
    body = wire(route)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    base = 4096 if max_tokens is None else max_tokens
    expected = sent if isinstance(sent, int) else (base if base > budget else budget + base)
    assert body["max_tokens"] == expected and body["max_tokens"] > budget


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7",
                                   "claude-opus-5", "claude-future-9"])
def test_anthropic_adaptive_model_gets_adaptive_thinking_and_effort(
        mode: str, model: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([THOUGHT, {"type": "text", "text": '{"prime": true}'}])))
    schema = {"type": "object", "properties": {"prime": {"type": "boolean"}},
              "required": ["prime"], "additionalProperties": False}
    resp = calls.create(mode, ANTHROPIC, model=f"anthropic:{model}", messages=USER,
                        reasoning_effort="minimal", response_format={
                            "type": "json_schema", "json_schema": {"name": "a", "schema": schema}})
    body = wire(route)
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    # the effort joins the structured output's output_config; minimal is Claude's "low"
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema},
                                     "effort": "low"}
    assert body["max_tokens"] == 4096 + 1024
    assert resp.choices[0].message.reasoning_content == THOUGHT["thinking"]


@pytest.mark.parametrize("model,thinking", [
    ("claude-sonnet-4-5", {"type": "disabled"}), ("claude-opus-4-6", {"type": "disabled"}),
    ("claude-3-5-haiku-latest", None)])
def test_anthropic_none_turns_thinking_off_or_sends_nothing(model: str, thinking: Any,
                                                            httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([{"type": "text", "text": "ok"}])))
    calls.create("sync", ANTHROPIC, model=f"anthropic:{model}", messages=USER,
                 reasoning_effort="none")
    body = wire(route)
    assert body.get("thinking") == thinking
    assert body["max_tokens"] == 4096 and "output_config" not in body
    assert "reasoning_effort" not in body  # translated, never passed through


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model,effort,match", [
    ("claude-3-5-haiku-latest", "low", "has no extended thinking"),
    ("claude-3-haiku-20240307", "high", "has no extended thinking"),
    ("claude-fable-5", "none", "always thinks"),
    ("claude-mythos-preview", "none", "always thinks"),
    ("claude-sonnet-4-5", "extreme", "use one of 'none', 'minimal', 'low', 'medium', 'high'"),
])
def test_anthropic_refuses_an_effort_the_model_cannot_honour(
        mode: str, model: str, effort: str, match: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL)
    with pytest.raises(ai.UnsupportedParameterError, match=match) as info:
        calls.create(mode, ANTHROPIC, model=f"anthropic:{model}", messages=USER,
                     reasoning_effort=effort)
    assert info.value.parameter == "reasoning_effort" and info.value.provider == "anthropic"
    assert not route.called


@pytest.mark.parametrize("kwargs,parameter", [
    ({"temperature": 0.2}, "temperature"),
    ({"top_p": 0.5}, "top_p"),
    ({"tools": [get_weather], "tool_choice": "required"}, "tool_choice"),
    ({"tools": [get_weather],
      "tool_choice": {"type": "function", "function": {"name": "get_weather"}}}, "tool_choice"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2000}}, "thinking"),
])
@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-opus-4-6"])
def test_anthropic_thinking_rules_are_checked_before_sending(
        kwargs: dict[str, Any], parameter: str, model: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL)
    with pytest.raises(ai.UnsupportedParameterError) as info:
        calls.create("sync", ANTHROPIC, model=f"anthropic:{model}", messages=USER,
                     reasoning_effort="medium", **kwargs)
    assert info.value.parameter == parameter
    assert not route.called


def test_anthropic_thinking_allows_what_claude_allows(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([{"type": "text", "text": "ok"}])))
    calls.create("sync", ANTHROPIC, model="anthropic:claude-sonnet-4-5", messages=USER,
                 reasoning_effort="low", temperature=1, top_p=0.95, tools=[get_weather],
                 tool_choice="auto")
    body = wire(route)
    assert body["thinking"]["type"] == "enabled" and body["tool_choice"] == {"type": "auto"}
    assert body["temperature"] == 1 and body["top_p"] == 0.95


def claude_stream(blocks: list[dict[str, Any]], stop_reason: str = "end_turn") -> httpx.Response:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **claude_reply([], None), "usage": {"input_tokens": 20, "output_tokens": 1}}}]  # type: ignore[arg-type]
    for i, block in enumerate(blocks):
        if block["type"] == "thinking":
            events += [{"type": "content_block_start", "index": i, "content_block": {
                "type": "thinking", "thinking": "", "signature": ""}},
                {"type": "content_block_delta", "index": i,
                 "delta": {"type": "thinking_delta", "thinking": block["thinking"][:5]}},
                {"type": "content_block_delta", "index": i,
                 "delta": {"type": "thinking_delta", "thinking": block["thinking"][5:]}},
                {"type": "content_block_delta", "index": i,
                 "delta": {"type": "signature_delta", "signature": block["signature"]}}]
        else:
            events += [{"type": "content_block_start", "index": i,
                        "content_block": {"type": "text", "text": ""}},
                       {"type": "content_block_delta", "index": i,
                        "delta": {"type": "text_delta", "text": block["text"]}}]
        events.append({"type": "content_block_stop", "index": i})
    events += [{"type": "message_delta", "delta": {"stop_reason": stop_reason},
                "usage": {"output_tokens": 30}}, {"type": "message_stop"}]
    data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, content=data.encode(),
                          headers={"content-type": "text/event-stream"})


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_stream_carries_reasoning_deltas(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=claude_stream(
        [THOUGHT, {"type": "text", "text": "Yes."}]))
    chunks, final, error, _ = calls.stream(mode, ANTHROPIC, model="anthropic:claude-opus-4-6",
                                           messages=USER, reasoning_effort="high")
    assert error is None
    assert wire(route)["stream"] is True and wire(route)["output_config"] == {"effort": "high"}
    deltas = [c.choices[0].delta.reasoning_content for c in chunks
              if c.choices and c.choices[0].delta.reasoning_content]
    assert "".join(deltas) == THOUGHT["thinking"] and len(deltas) == 2
    assert final.choices[0].message.reasoning_content == THOUGHT["thinking"]
    assert final.choices[0].message.provider_specific_fields == {"thinking_blocks": [THOUGHT]}


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_runner_sends_thinking_back_with_its_signature(mode: str,
                                                                 httpx2_mock: Any) -> None:
    """Claude's thinking with tool use: the assistant turn that made the call goes back with
    its thinking block first, signature unchanged, on the tool runner's next call."""
    route = httpx2_mock.post(ANTHROPIC_URL).mock(side_effect=[
        httpx.Response(200, json=claude_reply([
            THOUGHT, {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                      "input": {"city": "Paris"}}], "tool_use")),
        httpx.Response(200, json=claude_reply([{"type": "text", "text": "Sunny."}]))])
    resp = calls.create(mode, ANTHROPIC, model="anthropic:claude-sonnet-4-5",
                        messages=[{"role": "user", "content": "Weather in Paris?"}],
                        tools=[get_weather], max_turns=3, reasoning_effort="low")
    assert resp.choices[0].message.content == "Sunny."
    second = wire(route, 1)
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert second["messages"][1] == {"role": "assistant", "content": [
        THOUGHT, {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                  "input": {"city": "Paris"}}]}
    assert second["messages"][2]["content"][0]["type"] == "tool_result"


def test_anthropic_agent_model_settings_carry_the_effort(httpx2_mock: Any) -> None:
    from aisuite_like.agents import Agent, Runner

    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=claude_reply([THOUGHT, {"type": "text", "text": "Yes."}])))
    agent = Agent(name="math", instructions="Answer briefly.",
                  model="anthropic:claude-opus-4-6", model_settings={"reasoning_effort": "high"})
    with ai.Client(ANTHROPIC) as client:
        result = Runner.run_sync(agent, "Is 17 prime?", client=client)
    assert result.final_output == "Yes."
    body = wire(route)
    assert body["thinking"]["type"] == "adaptive" and body["output_config"] == {"effort": "high"}


def test_anthropic_translation_never_changes_the_callers_data() -> None:
    from aisuite_like.providers.anthropic.translate import build_request
    from aisuite_like.providers.base import ChatRequest

    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": "x",
                 "provider_specific_fields": {"thinking_blocks": [dict(THOUGHT)]}},
                {"role": "user", "content": "again"}]
    before = copy.deepcopy(messages)
    request = ChatRequest(model="claude-sonnet-4-5", messages=messages, reasoning_effort="high",
                          max_tokens=100, prompt_cache="auto")
    build_request(request)
    assert messages == before and request.max_tokens == 100


# =============================================================================================
# Bedrock: Claude thinking, Nova 2 reasoningConfig, gpt-oss reasoning_effort, the rest refused
# =============================================================================================


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[BedrockServer]:
    isolate_aws(monkeypatch, tmp_path)
    with BedrockServer() as server:
        yield server


REASONED = [{"reasoningContent": {"reasoningText": {"text": "17 is prime.",
                                                    "signature": "sig-17=="}}},
            {"text": "Yes."}]


def bedrock_create(mode: str, server: BedrockServer, model: str, **kwargs: Any) -> Any:
    kwargs.setdefault("messages", USER)
    return calls.create(mode, {"bedrock": server.config()}, model=f"bedrock:{model}", **kwargs)


@pytest.mark.parametrize("mode", MODES)
def test_bedrock_claude_budget_thinking(mode: str, bedrock: BedrockServer) -> None:
    bedrock.reply(converse(REASONED))
    resp = bedrock_create(mode, bedrock, "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                          reasoning_effort="medium", max_tokens=1000)
    body = bedrock.requests[0].json
    assert body["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 8192}}
    assert body["inferenceConfig"] == {"maxTokens": 8192 + 1000}
    message = resp.choices[0].message
    assert message.reasoning_content == "17 is prime." and message.content == "Yes."
    assert message.provider_specific_fields == {"reasoning_blocks": [
        {"reasoningText": {"text": "17 is prime.", "signature": "sig-17=="}}]}


@pytest.mark.parametrize("model,effort,fields,max_tokens", [
    ("anthropic.claude-opus-4-6-v1", "high",
     {"thinking": {"type": "adaptive"}, "output_config": {"effort": "high"}}, 4096 + 16384),
    ("anthropic.claude-sonnet-4-20250514-v1:0", "none", {"thinking": {"type": "disabled"}},
     None),
    ("amazon.nova-2-lite-v1:0", "medium",
     {"reasoningConfig": {"type": "enabled", "maxReasoningEffort": "medium"}}, None),
    ("amazon.nova-2-lite-v1:0", "none", None, None),
    ("openai.gpt-oss-120b-1:0", "minimal", {"reasoning_effort": "low"}, None),
    ("meta.llama3-3-70b-instruct-v1:0", "none", None, None),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", "none", None, None),
])
def test_bedrock_effort_table(model: str, effort: str, fields: Any, max_tokens: Any,
                              bedrock: BedrockServer) -> None:
    bedrock.reply(converse_text("ok"))
    bedrock_create("sync", bedrock, model, reasoning_effort=effort)
    body = bedrock.requests[0].json
    assert body.get("additionalModelRequestFields") == fields
    assert body.get("inferenceConfig", {}).get("maxTokens") == max_tokens


@pytest.mark.parametrize("model,effort,match", [
    ("meta.llama3-3-70b-instruct-v1:0", "high", "does not reason"),
    ("amazon.nova-pro-v1:0", "low", "does not reason"),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", "low", "no extended thinking"),
    ("deepseek.r1-v1:0", "high", "always reasons"),
    ("openai.gpt-oss-20b-1:0", "none", "always reasons"),
    ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc", "high",
     "not in the table"),
])
def test_bedrock_refuses_before_sending(model: str, effort: str, match: str,
                                        bedrock: BedrockServer) -> None:
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        bedrock_create("sync", bedrock, model, reasoning_effort=effort)
    assert bedrock.requests == []


def test_bedrock_native_thinking_and_effort_clash(bedrock: BedrockServer) -> None:
    with pytest.raises(ai.UnsupportedParameterError, match="thinking"):
        bedrock_create("sync", bedrock, "anthropic.claude-sonnet-4-5-v1:0",
                       reasoning_effort="low", thinking={"type": "enabled", "budget_tokens": 1})
    assert bedrock.requests == []


@pytest.mark.parametrize("mode", MODES)
def test_bedrock_stream_reasoning_and_runner_round_trip(mode: str,
                                                        bedrock: BedrockServer) -> None:
    """The tool runner streams reasoning deltas and sends the reasoning block (signature
    included) back before the tool call on its next turn."""
    bedrock.reply(Stream([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"text": "Need the "}},
                                    "contentBlockIndex": 0}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"text": "weather."}},
                                    "contentBlockIndex": 0}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"signature": "sig-w=="}},
                                    "contentBlockIndex": 0}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("contentBlockStart", {"start": {"toolUse": {"toolUseId": "tu_1",
                                                          "name": "get_weather"}},
                                    "contentBlockIndex": 1}),
        event("contentBlockDelta", {"delta": {"toolUse": {"input": '{"city": "Paris"}'}},
                                    "contentBlockIndex": 1}),
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("messageStop", {"stopReason": "tool_use"}),
        event("metadata", {"usage": usage(), "metrics": {"latencyMs": 3}}),
    ]), Stream([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"delta": {"text": "Sunny."}, "contentBlockIndex": 0}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("messageStop", {"stopReason": "end_turn"}),
        event("metadata", {"usage": usage(), "metrics": {"latencyMs": 3}}),
    ]))
    chunks, final, error, _ = calls.stream(
        mode, {"bedrock": bedrock.config()}, model="bedrock:anthropic.claude-sonnet-4-5-v1:0",
        messages=[{"role": "user", "content": "Weather in Paris?"}], tools=[get_weather],
        max_turns=2, reasoning_effort="low")
    assert error is None and final.choices[0].message.content == "Sunny."
    assert "".join(c.choices[0].delta.reasoning_content for c in chunks if c.choices
                   and c.choices[0].delta.reasoning_content) == "Need the weather."
    second = bedrock.requests[1].json
    assert second["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
    assert second["messages"][1]["content"][:2] == [
        {"reasoningContent": {"reasoningText": {"text": "Need the weather.",
                                                "signature": "sig-w=="}}},
        {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris"}}}]


# =============================================================================================
# Gemini: thinkingConfig (level for 3, budget for 2.5) with includeThoughts
# =============================================================================================

GEMINI = {"google": {"api_key": "AIzaSyTESTKEY-0123456789abcdefghij", "max_retries": 0}}
GEMINI_BASE = "https://generativelanguage.googleapis.com/v1beta/models/"


def gemini_reply(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "index": 0,
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 2,
                              "thoughtsTokenCount": 12, "totalTokenCount": 22},
            "modelVersion": "gemini-x", "responseId": "r1"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model,effort,config", [
    ("gemini-2.5-flash", "low", {"thinkingBudget": 1024, "includeThoughts": True}),
    ("gemini-2.5-flash", "none", {"thinkingBudget": 0}),
    ("gemini-2.5-pro", "high", {"thinkingBudget": 24576, "includeThoughts": True}),
    ("gemini-2.5-flash-lite", "minimal", {"thinkingBudget": 512, "includeThoughts": True}),
    ("gemini-3-flash-preview", "medium", {"thinkingLevel": "MEDIUM", "includeThoughts": True}),
    ("gemini-3-pro-preview", "medium", {"thinkingLevel": "HIGH", "includeThoughts": True}),
    ("gemini-3-pro-preview", "minimal", {"thinkingLevel": "LOW", "includeThoughts": True}),
    ("gemini-3.5-flash", "minimal", {"thinkingLevel": "MINIMAL", "includeThoughts": True}),
    ("gemini-2.0-flash", "none", None),
])
def test_gemini_thinking_config(mode: str, model: str, effort: str, config: Any,
                                httpx2_mock: Any) -> None:
    route = httpx2_mock.post(f"{GEMINI_BASE}{model}:generateContent").mock(
        return_value=httpx.Response(200, json=gemini_reply(
            {"text": "17 has no other divisor.", "thought": True}, {"text": "Yes."})))
    resp = calls.create(mode, GEMINI, model=f"google:{model}", messages=USER,
                        reasoning_effort=effort, max_tokens=500)
    generation = wire(route)["generationConfig"]
    assert generation.get("thinkingConfig") == config
    assert generation["maxOutputTokens"] == 500
    message = resp.choices[0].message
    assert message.content == "Yes." and message.reasoning_content == "17 has no other divisor."
    assert resp.usage.completion_tokens_details.reasoning_tokens == 12


@pytest.mark.parametrize("model,effort,match", [
    ("gemini-3-pro-preview", "none", "always think"),
    ("gemini-2.5-pro", "none", "always thinks"),
    ("gemini-2.0-flash", "low", "does not think"),
    ("gemma-3-27b-it", "high", "does not think"),
    ("gemini-2.5-flash", "max", "use one of"),
])
def test_gemini_refuses_before_sending(model: str, effort: str, match: str,
                                       httpx2_mock: Any) -> None:
    route = httpx2_mock.post(f"{GEMINI_BASE}{model}:generateContent")
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        calls.create("sync", GEMINI, model=f"google:{model}", messages=USER,
                     reasoning_effort=effort)
    assert not route.called


def test_gemini_native_thinking_config_and_effort_clash(httpx2_mock: Any) -> None:
    route = httpx2_mock.post(f"{GEMINI_BASE}gemini-2.5-flash:generateContent")
    with pytest.raises(ai.UnsupportedParameterError, match="thinkingConfig"):
        calls.create("sync", GEMINI, model="google:gemini-2.5-flash", messages=USER,
                     reasoning_effort="low", thinking_config={"thinking_budget": 10})
    assert not route.called


@pytest.mark.parametrize("mode", MODES)
def test_gemini_stream_carries_thought_deltas(mode: str, httpx2_mock: Any) -> None:
    events = [gemini_reply({"text": "Divisors: ", "thought": True}),
              gemini_reply({"text": "none.", "thought": True}), gemini_reply({"text": "Yes."})]
    data = "".join(f"data: {json.dumps(e)}\r\n\r\n" for e in events)
    route = httpx2_mock.post(f"{GEMINI_BASE}gemini-3-flash-preview:streamGenerateContent").mock(
        return_value=httpx.Response(200, content=data.encode(),
                                    headers={"content-type": "text/event-stream"}))
    chunks, final, error, _ = calls.stream(mode, GEMINI, model="google:gemini-3-flash-preview",
                                           messages=USER, reasoning_effort="high")
    assert error is None
    assert wire(route)["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "HIGH", "includeThoughts": True}
    assert [c.choices[0].delta.reasoning_content for c in chunks
            if c.choices and c.choices[0].delta.reasoning_content] == ["Divisors: ", "none."]
    assert final.choices[0].message.reasoning_content == "Divisors: none."


# =============================================================================================
# OpenAI and the compatible services: as given, OpenRouter's reasoning object, the model table
# =============================================================================================

OPENAI_URL = "https://api.openai.com/v1/chat/completions"


def openai_reply(**message: Any) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Yes.", **message}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 40, "total_tokens": 49,
                      "completion_tokens_details": {"reasoning_tokens": 38}}}


def openai_config(key: str, **extra: Any) -> dict[str, Any]:
    return {key: {"api_key": "sk-test-secret-key-1234567890", "max_retries": 0, **extra}}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model,effort", [("o3", "high"), ("gpt-5", "minimal"),
                                          ("gpt-5.1", "none"), ("gpt-5.2", "xhigh")])
def test_openai_sends_the_effort_as_given(mode: str, model: str, effort: str,
                                          httpx2_mock: Any) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, json=openai_reply()))
    resp = calls.create(mode, openai_config("openai"), model=f"openai:{model}", messages=USER,
                        reasoning_effort=effort)
    assert wire(route)["reasoning_effort"] == effort
    assert resp.usage.completion_tokens_details.reasoning_tokens == 38


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-4-turbo",
                                   "gpt-3.5-turbo", "ft:gpt-4o-mini:org::abc", "chatgpt-4o-latest"])
def test_openai_model_that_cannot_reason(model: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, json=openai_reply()))
    with pytest.raises(ai.UnsupportedParameterError, match="does not reason"):
        calls.create("sync", openai_config("openai"), model=f"openai:{model}", messages=USER,
                     reasoning_effort="low")
    assert not route.called
    calls.create("sync", openai_config("openai"), model=f"openai:{model}", messages=USER,
                 reasoning_effort="none")  # already honoured: nothing is sent
    assert "reasoning_effort" not in wire(route)


@pytest.mark.parametrize("mode", MODES)
def test_openrouter_takes_its_reasoning_object(mode: str, httpx2_mock: Any) -> None:
    route = httpx2_mock.post("https://openrouter.ai/api/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_reply(reasoning="Check divisors.")))
    resp = calls.create(mode, openai_config("openrouter"),
                        model="openrouter:anthropic/claude-sonnet-4.5", messages=USER,
                        reasoning_effort="medium", reasoning={"exclude": False})
    body = wire(route)
    assert body["reasoning"] == {"effort": "medium", "exclude": False}
    assert "reasoning_effort" not in body
    assert resp.choices[0].message.reasoning_content == "Check divisors."


def test_openrouter_effort_given_twice_is_refused(httpx2_mock: Any) -> None:
    route = httpx2_mock.post("https://openrouter.ai/api/v1/chat/completions")
    with pytest.raises(ai.UnsupportedParameterError, match="both set the effort"):
        calls.create("sync", openai_config("openrouter"), model="openrouter:x/y", messages=USER,
                     reasoning_effort="low", reasoning={"effort": "high"})
    assert not route.called


def test_openai_key_pointed_at_openrouter_follows_its_row(httpx2_mock: Any) -> None:
    route = httpx2_mock.post("https://openrouter.ai/api/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_reply()))
    calls.create("sync", openai_config("openai", base_url="https://openrouter.ai/api/v1"),
                 model="openai:openai/gpt-4o", messages=USER, reasoning_effort="low")
    assert wire(route)["reasoning"] == {"effort": "low"}  # not refused: OpenRouter's names


# The recorded exchanges of pydantic-ai's reasoning wire contract: our request carries the
# effort exactly where the recorded (accepted) request did, and the reply's reasoning comes back.
RECORDED_CONTRACT = [
    ("groq/test_thinking_wire_contract__test_reasoning_wire_contract__groq-gpt-oss-thinking-high"
     ".json", "groq", "high"),
    ("groq/test_thinking_wire_contract__test_reasoning_wire_contract__groq-qwen3-disable-"
     "overrides-effort-setting.json", "groq", "none"),
    ("mistral/test_thinking_wire_contract__test_reasoning_wire_contract__mistral-small-thinking-"
     "high.json", "mistral", "high"),
    ("mistral/test_thinking_wire_contract__test_reasoning_wire_contract__mistral-small-disable"
     ".json", "mistral", "none"),
    ("cerebras/test_cerebras__test_cerebras_disable_reasoning_setting.json", "cerebras", "none"),
    ("openrouter/test_openrouter__test_openrouter_thinking_false_supports_thinking_model.json",
     "openrouter", "none"),
    ("openrouter/test_openrouter__test_openrouter_thinking_true_emits_effort_medium.json",
     "openrouter", "medium"),
]


@pytest.mark.parametrize("path,key,effort", RECORDED_CONTRACT)
def test_recorded_reasoning_wire_contract(path: str, key: str, effort: str,
                                          httpx2_mock: Any) -> None:
    (interaction,) = load_recorded(path)["interactions"]
    recorded = interaction["request"]["body"]
    route = httpx2_mock.post(interaction["request"]["url"]).mock(return_value=httpx.Response(
        200, json=interaction["response"]["body"]))
    resp = calls.create("sync", openai_config(key), model=f"{key}:{recorded['model']}",
                        messages=recorded["messages"], reasoning_effort=effort)
    body = wire(route)
    if key == "openrouter":
        assert body["reasoning"]["effort"] == recorded["reasoning"]["effort"]
    else:
        assert body["reasoning_effort"] == recorded["reasoning_effort"]
    reply = interaction["response"]["body"]["choices"][0]["message"]
    content = reply.get("content")
    thinking_parts = [p for p in content if p.get("type") == "thinking"] \
        if isinstance(content, list) else []
    returned = resp.choices[0].message.reasoning_content
    assert bool(returned) == bool(reply.get("reasoning") or reply.get("reasoning_content")
                                  or thinking_parts)
    if reply.get("reasoning"):
        assert returned == reply["reasoning"]
