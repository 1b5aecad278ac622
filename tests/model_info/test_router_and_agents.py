"""What is known of a model, used by the rest (docs/models.md): the router skips a deployment
that cannot serve the request (the reason in ``fallback_errors``) and, with
``count_tokens=True``, paces its token buckets by the provider's count; an ``Agent`` with
tools refuses, at construction, a model known not to call tools."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY, completion, httpx2_mock  # noqa: F401

import aisuite_like as ai
from aisuite_like.testing import FakeClock

ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
CHAT = "https://api.openai.com/v1/chat/completions"
MESSAGES = [{"role": "user", "content": "Hello"}]
TOOLS = [{"type": "function", "function": {
    "name": "weather", "parameters": {"type": "object", "properties": {}}}}]


def test_the_router_skips_a_deployment_that_cannot_serve(httpx2_mock: respx.Router) -> None:
    chat = httpx2_mock.post(CHAT).mock(return_value=httpx.Response(200, json=completion()))
    router = ai.Router({"smart": [{"model": "openai:o1-mini", "weight": 1e9},
                                  {"model": "openai:gpt-4o", "weight": 1}]})
    client = ai.Client({"openai": {"api_key": KEY}}, router=router)
    reply = client.chat.completions.create(model="smart", messages=MESSAGES, tools=TOOLS)
    assert len(chat.calls) == 1 and json.loads(chat.calls[0].request.content)["model"] == \
        "gpt-4o"
    [skipped] = reply.fallback_errors
    assert skipped.error_type == "ModelCapabilityError" and "o1-mini" in skipped.model
    assert "does not call tools" in skipped.message
    # without tools the first deployment serves
    client.chat.completions.create(model="smart", messages=MESSAGES)
    assert json.loads(chat.calls[1].request.content)["model"] == "o1-mini"


def test_when_no_deployment_can_serve_the_error_says_why(httpx2_mock: respx.Router) -> None:
    chat = httpx2_mock.post(CHAT).mock(return_value=httpx.Response(200, json=completion()))
    router = ai.Router({"smart": [{"model": "openai:o1-mini"}, {"model": "openai:o3-mini"}]})
    client = ai.Client({"openai": {"api_key": KEY}}, router=router)
    image = [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}]
    with pytest.raises(ai.ModelCapabilityError) as raised:
        client.chat.completions.create(model="smart", messages=image)
    assert "every deployment failed" in str(raised.value)
    assert not chat.calls


def _anthropic_reply(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Hi"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


@pytest.mark.parametrize("counting", [True, False])
def test_the_routers_token_buckets_take_the_count(httpx2_mock: respx.Router,
                                                  counting: bool) -> None:
    count = httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": 900}))
    send = httpx2_mock.post("https://api.anthropic.com/v1/messages").mock(
        return_value=httpx.Response(200, json=_anthropic_reply(900, 10)))
    router = ai.Router({"smart": [{"model": "anthropic:claude-sonnet-4-5", "tpm": 1000}]},
                       max_retry_wait=0, clock=FakeClock())
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}}, router=router)
    call = {"model": "smart", "messages": MESSAGES, "max_tokens": 10,
            "count_tokens": counting}
    client.chat.completions.create(**call)  # 910 of the minute's 1000 tokens used
    if counting:  # the next call is 910 tokens by the count: it waits (here: refused)
        with pytest.raises(ai.RateLimitError):
            client.chat.completions.create(**call)
        assert len(count.calls) == 2 and len(send.calls) == 1
    else:  # estimated at a few tokens, it fits in the 90 left and goes out
        client.chat.completions.create(**call)
        assert not count.calls and len(send.calls) == 2


def test_an_agent_with_tools_checks_its_model_at_construction() -> None:
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    with pytest.raises(ai.ModelCapabilityError) as raised:
        ai.Agent(name="a", model="openai:o1-mini", tools=[weather])
    assert raised.value.model == "openai:o1-mini" and raised.value.parameter == "tools"
    ai.Agent(name="b", model="openai:o1-mini")  # no tools: fine
    ai.Agent(name="c", model="openai:gpt-4o", tools=[weather])
    ai.Agent(name="d", model="openai:my-own-model", tools=[weather])  # unknown: not refused
