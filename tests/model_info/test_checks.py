"""The checks before sending (docs/models.md): tools, modalities, the output cap and, with
``count_tokens=True``, the context window, each refused with a typed error naming model,
limit and source, and nothing on the wire; ``checks="off"`` per call or client; the budgets
admitting at the counted number."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY, completion, httpx2_mock  # noqa: F401

import aisuite_like as ai

ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
CHAT = "https://api.openai.com/v1/chat/completions"
MESSAGES = [{"role": "user", "content": "Hello"}]
TOOLS = [{"type": "function", "function": {
    "name": "weather", "parameters": {"type": "object", "properties": {}}}}]
IMAGE = [{"role": "user", "content": [
    {"type": "text", "text": "What is this?"},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]
AUDIO = [{"role": "user", "content": [
    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]}]
PDF = [{"role": "user", "content": [
    {"type": "file", "file": {"filename": "paper.pdf",
                              "file_data": "data:application/pdf;base64,JVBERi0="}}]}]


@pytest.fixture
def chat(httpx2_mock: respx.Router) -> respx.Route:
    return httpx2_mock.post(CHAT).mock(return_value=httpx.Response(200, json=completion()))


def openai_client(**options: Any) -> ai.Client:
    return ai.Client({"openai": {"api_key": KEY}}, **options)


def test_tools_to_a_model_that_does_not_call_tools(chat: respx.Route) -> None:
    with pytest.raises(ai.ModelCapabilityError) as raised:
        openai_client().chat.completions.create(model="openai:o1-mini", messages=MESSAGES,
                                                tools=TOOLS)
    error = raised.value
    assert isinstance(error, ai.UnsupportedParameterError)
    assert (error.model, error.parameter, error.limit) == ("openai:o1-mini", "tools", False)
    assert error.source.startswith("snapshot ") and "o1-mini" in error.source
    assert "openai:o1-mini" in str(error) and error.source in str(error)
    assert not chat.calls  # nothing sent


@pytest.mark.parametrize(("model", "messages", "needed"), [
    ("openai:o3-mini", IMAGE, "image"),
    ("openai:gpt-4o", AUDIO, "audio"),
    ("groq:llama-3.3-70b-versatile", PDF, "pdf"),
])
def test_a_part_the_model_does_not_take(httpx2_mock: respx.Router, model: str,
                                        messages: list[dict[str, Any]], needed: str) -> None:
    route = httpx2_mock.route()
    client = ai.Client({"openai": {"api_key": KEY}, "groq": {"api_key": KEY}})
    with pytest.raises(ai.ModelCapabilityError) as raised:
        client.chat.completions.create(model=model, messages=messages)
    assert raised.value.parameter == "messages" and needed in str(raised.value)
    assert "text" in raised.value.limit
    assert not route.calls


def test_max_tokens_above_the_output_cap(chat: respx.Route) -> None:
    client = openai_client()
    for name in ("max_tokens", "max_completion_tokens"):
        with pytest.raises(ai.ModelCapabilityError) as raised:
            client.chat.completions.create(model="openai:gpt-4o", messages=MESSAGES,
                                           **{name: 16_385})
        assert (raised.value.parameter, raised.value.limit) == (name, 16_384)
    assert not chat.calls
    client.chat.completions.create(model="openai:gpt-4o", messages=MESSAGES,
                                   max_tokens=16_384)  # at the cap: sent
    assert len(chat.calls) == 1


def test_what_the_model_can_do_is_sent(chat: respx.Route) -> None:
    client = openai_client()
    client.chat.completions.create(model="openai:gpt-4o", messages=IMAGE, tools=TOOLS)
    client.chat.completions.create(model="openai:gpt-4o", messages=PDF)
    assert len(chat.calls) == 2


def test_an_unknown_model_or_fact_checks_nothing(chat: respx.Route) -> None:
    client = openai_client()
    client.chat.completions.create(model="openai:my-finetune", messages=AUDIO, tools=TOOLS,
                                   max_tokens=1_000_000)
    assert len(chat.calls) == 1


def test_checks_off_per_call_and_per_client(chat: respx.Route) -> None:
    openai_client().chat.completions.create(model="openai:o1-mini", messages=MESSAGES,
                                            tools=TOOLS, checks="off")
    openai_client(checks="off").chat.completions.create(
        model="openai:o1-mini", messages=MESSAGES, tools=TOOLS)
    assert len(chat.calls) == 2
    body = json.loads(chat.calls[-1].request.content)
    assert "checks" not in body and body["tools"]  # ours, never sent
    with pytest.raises(ai.ModelCapabilityError):  # a call's "on" over the client's "off"
        openai_client(checks="off").chat.completions.create(
            model="openai:o1-mini", messages=MESSAGES, tools=TOOLS, checks="on")
    with pytest.raises(ValueError):
        openai_client().chat.completions.create(model="openai:gpt-4o", messages=MESSAGES,
                                                checks=False)  # type: ignore[call-overload]
    with pytest.raises(ValueError):
        ai.Client(checks="no")  # type: ignore[arg-type]
    assert len(chat.calls) == 2


def test_async_streams_and_tool_runs_are_checked(chat: respx.Route) -> None:
    async def run() -> None:
        async with ai.AsyncClient({"openai": {"api_key": KEY}}) as client:
            with pytest.raises(ai.ModelCapabilityError):
                await client.chat.completions.create(model="openai:o1-mini",
                                                     messages=MESSAGES, tools=TOOLS)
            with pytest.raises(ai.ModelCapabilityError):
                stream = await client.chat.completions.create(
                    model="openai:gpt-4o", messages=MESSAGES, max_tokens=20_000, stream=True)
                async for _ in stream:
                    pass

    asyncio.run(run())
    with pytest.raises(ai.ModelCapabilityError):
        for _ in openai_client().chat.completions.create(
                model="openai:gpt-4o", messages=MESSAGES, max_tokens=20_000, stream=True):
            pass

    def weather() -> str:
        return "sunny"

    with pytest.raises(ai.ModelCapabilityError):
        openai_client().chat.completions.create(model="openai:o1-mini", messages=MESSAGES,
                                                tools=[weather], max_turns=3)
    assert not chat.calls


def test_a_fallback_moves_past_a_model_that_cannot_serve(chat: respx.Route) -> None:
    reply = openai_client().chat.completions.create(
        model="openai:o1-mini", messages=MESSAGES, tools=TOOLS,
        fallbacks=["openai:gpt-4o"])
    assert [s.model for s in reply.fallback_errors] == ["openai:o1-mini"]
    assert reply.fallback_errors[0].error_type == "ModelCapabilityError"
    assert len(chat.calls) == 1
    assert json.loads(chat.calls[0].request.content)["model"] == "gpt-4o"


# --- count_tokens=True: the context window -----------------------------------------------------

COUNT = "https://api.anthropic.com/v1/messages/count_tokens"
MESSAGES_URL = "https://api.anthropic.com/v1/messages"


def _anthropic_reply() -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 2}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_prompt_over_the_context_window_is_refused(httpx2_mock: respx.Router,
                                                     mode: str) -> None:
    count = httpx2_mock.post(COUNT).mock(
        return_value=httpx.Response(200, json={"input_tokens": 200_001}))
    send = httpx2_mock.post(MESSAGES_URL).mock(
        return_value=httpx.Response(200, json=_anthropic_reply()))
    config = {"anthropic": {"api_key": ANTHROPIC_KEY}}
    call = {"model": "anthropic:claude-sonnet-4-5", "messages": MESSAGES,
            "count_tokens": True}
    with pytest.raises(ai.PromptTooLongError) as raised:
        if mode == "sync":
            ai.Client(config).chat.completions.create(**call)
        else:
            async def run() -> None:
                async with ai.AsyncClient(config) as client:
                    await client.chat.completions.create(**call)

            asyncio.run(run())
    error = raised.value
    assert isinstance(error, ai.ContextWindowExceededError)
    assert (error.model, error.limit, error.input_tokens) == (
        "anthropic:claude-sonnet-4-5", 200_000, 200_001)
    assert error.source.startswith("snapshot") and error.status_code is None
    assert len(count.calls) == 1 and not send.calls


def test_a_max_tokens_that_leaves_the_answer_no_room_is_refused(
        httpx2_mock: respx.Router) -> None:
    # 199,000 counted + max_tokens=2,000 is over Claude's 200,000: Anthropic's API refuses the
    # sum, so it is refused here first, naming the most max_tokens that fits
    httpx2_mock.post(COUNT).mock(return_value=httpx.Response(200, json={"input_tokens": 199_000}))
    send = httpx2_mock.post(MESSAGES_URL).mock(
        return_value=httpx.Response(200, json=_anthropic_reply()))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    call = {"model": "anthropic:claude-sonnet-4-5", "messages": MESSAGES, "count_tokens": True}
    with pytest.raises(ai.PromptTooLongError, match="max_tokens to at most 1000") as raised:
        client.chat.completions.create(**call, max_tokens=2000)
    assert (raised.value.limit, raised.value.input_tokens) == (200_000, 199_000)
    assert not send.calls
    client.chat.completions.create(**call, max_tokens=1000)  # fits exactly: sent
    client.chat.completions.create(**call)  # no max_tokens given: the prompt alone fits
    assert len(send.calls) == 2
    assert json.loads(send.calls[0].request.content)["max_tokens"] == 1000


def test_gemini_is_not_refused_for_the_answers_room(httpx2_mock: respx.Router) -> None:
    # Gemini caps the answer at what is left instead of refusing the request
    base = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
    httpx2_mock.post(f"{base}:countTokens").mock(
        return_value=httpx.Response(200, json={"totalTokens": 1_048_000}))
    send = httpx2_mock.post(f"{base}:generateContent").mock(return_value=httpx.Response(
        200, json={"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]},
                                   "finishReason": "STOP"}],
                   "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1}}))
    client = ai.Client({"google": {"api_key": "gemini-test-key-not-real"}})
    client.chat.completions.create(model="google:gemini-2.5-flash", messages=MESSAGES,
                                   count_tokens=True, max_tokens=8000)
    assert len(send.calls) == 1


def test_counting_is_opt_in_and_a_prompt_that_fits_is_sent(httpx2_mock: respx.Router) -> None:
    count = httpx2_mock.post(COUNT).mock(
        return_value=httpx.Response(200, json={"input_tokens": 12}))
    send = httpx2_mock.post(MESSAGES_URL).mock(
        return_value=httpx.Response(200, json=_anthropic_reply()))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=MESSAGES)
    assert not count.calls and len(send.calls) == 1  # not asked: not counted
    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=MESSAGES,
                                   count_tokens=True)
    assert len(count.calls) == 1 and len(send.calls) == 2
    with pytest.raises(TypeError):
        client.chat.completions.create(model="anthropic:claude-sonnet-4-5",
                                       messages=MESSAGES, count_tokens="yes")


def test_an_estimate_never_refuses(httpx2_mock: respx.Router) -> None:
    # groq has no counting API: count_tokens=True estimates, and an estimate is no fact
    chat = httpx2_mock.post("https://api.groq.com/openai/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=completion()))
    client = ai.Client({"groq": {"api_key": KEY}})
    client.chat.completions.create(model="groq:llama-3.3-70b-versatile", count_tokens=True,
                                   messages=[{"role": "user", "content": "word " * 200_000}])
    assert len(chat.calls) == 1  # about 250,000 tokens estimated, over 131,072: sent


def test_budgets_admit_at_the_counted_number(httpx2_mock: respx.Router) -> None:
    count = httpx2_mock.post(COUNT).mock(
        return_value=httpx.Response(200, json={"input_tokens": 1_000_000}))
    send = httpx2_mock.post(MESSAGES_URL).mock(
        return_value=httpx.Response(200, json=_anthropic_reply()))
    budget = ai.Budget(1.0, name="b")
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}}, budget=budget,
                       checks="off")  # the budget sees the count even without the checks
    with pytest.raises(ai.BudgetExceededError) as raised:  # 1M tokens x $3/M > $1
        client.chat.completions.create(model="anthropic:claude-sonnet-4-5",
                                       messages=MESSAGES, max_tokens=10, count_tokens=True)
    assert raised.value.estimated is False and raised.value.needed > 1.0
    assert len(count.calls) == 1 and not send.calls
    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=MESSAGES,
                                   max_tokens=10)  # estimated: a few tokens, admitted
    assert len(send.calls) == 1


def test_one_count_serves_the_budget_and_the_check(httpx2_mock: respx.Router) -> None:
    count = httpx2_mock.post(COUNT).mock(
        return_value=httpx.Response(200, json={"input_tokens": 20}))
    send = httpx2_mock.post(MESSAGES_URL).mock(
        return_value=httpx.Response(200, json=_anthropic_reply()))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}},
                       budget=ai.Budget(10.0, name="b"))
    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=MESSAGES,
                                   max_tokens=10, count_tokens=True)
    assert len(count.calls) == 1 and len(send.calls) == 1


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_stream_falls_back_and_routes_past_a_model_that_cannot_serve(mode: str) -> None:
    from aisuite_like.testing import ScriptedProvider

    router = ai.Router({"smart": [{"model": "openai:o1-mini", "weight": 1e9},
                                  {"model": "openai:gpt-4o", "weight": 1}]})
    scripted = ScriptedProvider(["Hi", "Hi"])
    options: dict[str, Any] = {"providers": {"openai": scripted}, "router": router}
    calls = [{"model": "openai:o1-mini", "fallbacks": ["openai:gpt-4o"]}, {"model": "smart"}]
    for call in calls:
        if mode == "sync":
            stream = ai.Client(**options).chat.completions.create(
                messages=MESSAGES, tools=TOOLS, stream=True, **call)
            chunks = list(stream)
        else:
            async def run(call: dict[str, Any] = call) -> list[Any]:
                async with ai.AsyncClient(**options) as client:
                    stream = await client.chat.completions.create(
                        messages=MESSAGES, tools=TOOLS, stream=True, **call)
                    return [chunk async for chunk in stream]

            chunks = asyncio.run(run())
        assert [s.error_type for s in chunks[0].fallback_errors] == ["ModelCapabilityError"]
        assert "o1-mini" in chunks[0].fallback_errors[0].model
    assert [r.model for r in scripted.requests] == ["gpt-4o", "gpt-4o"]  # o1-mini: nothing
