"""``client.models.count_tokens``: each family's counting API, the request compared on the
wire with the one the vendor SDK's own count method sends for the same input (both captured
by ``httpx2_mock`` or the loopback Bedrock server); elsewhere an estimate labelled one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401

import aisuite_like as ai

ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-0123456789abcdefghij"

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {
    "name": "weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
SYSTEM = "Answer briefly."


def _wire(request: httpx.Request) -> tuple[str, str, Any]:
    return request.method, str(request.url), json.loads(request.content)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def counted(mode: str, config: dict[str, Any], model: str, **kwargs: Any) -> ai.TokenCount:
    if mode == "sync":
        with ai.Client(config) as client:
            return client.models.count_tokens(model, MESSAGES, **kwargs)

    async def run() -> ai.TokenCount:
        async with ai.AsyncClient(config) as client:
            return await client.models.count_tokens(model, MESSAGES, **kwargs)

    return asyncio.run(run())


# --- anthropic: POST /v1/messages/count_tokens ------------------------------------------------

def test_anthropic_counts_with_the_sdks_own_request(mode: str,
                                                    httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": 412}))
    count = counted(mode, {"anthropic": {"api_key": ANTHROPIC_KEY}},
                    "anthropic:claude-sonnet-4-5", tools=TOOLS, system=SYSTEM)
    assert count == ai.TokenCount(input_tokens=412, exact=True,
                                  source="anthropic messages/count_tokens",
                                  model="anthropic:claude-sonnet-4-5")
    ours = route.calls[-1].request

    import anthropic

    anthropic.Anthropic(api_key=ANTHROPIC_KEY).messages.count_tokens(
        model="claude-sonnet-4-5", system=SYSTEM,
        messages=[{"role": "user", "content": [{"type": "text",
                                                "text": "What is the weather in Paris?"}]}],
        tools=[{"name": "weather", "description": "The weather in a city.",
                "input_schema": TOOLS[0]["function"]["parameters"]}])
    sdk = route.calls[-1].request
    assert _wire(ours) == _wire(sdk)
    assert ANTHROPIC_KEY in (ours.headers.get("x-api-key") or ours.headers["authorization"])
    assert "max_tokens" not in json.loads(ours.content)  # the count takes no sampling args


def test_anthropic_errors_are_typed_and_never_show_the_key(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(404, json={"type": "error", "error": {
            "type": "not_found_error", "message": f"model: nope ({ANTHROPIC_KEY})"}}))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY, "max_retries": 0}})
    with pytest.raises(ai.NotFoundError) as raised:
        client.models.count_tokens("anthropic:nope", MESSAGES)
    assert ANTHROPIC_KEY not in str(raised.value) and ANTHROPIC_KEY not in repr(raised.value)


def test_a_reply_of_another_shape_is_a_typed_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": "many"}))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    with pytest.raises(ai.APIResponseValidationError):
        client.models.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES)


# --- a family without a counting API: an estimate, labelled one --------------------------

def test_elsewhere_an_estimate_labelled_as_one(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route()
    client = ai.Client({"groq": {"api_key": KEY}, "test": {}})
    for model in ("groq:llama-3.3-70b-versatile", "test:offline"):
        count = client.models.count_tokens(model, MESSAGES, tools=TOOLS)
        assert count.exact is False and count.source.startswith("estimate")
        assert count.input_tokens > 10 and count.model == model
    assert not route.calls  # nothing sent


def test_bad_arguments_are_refused_before_sending(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route()
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    with pytest.raises(TypeError):
        client.models.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES,
                                   system=["not", "a", "string"])  # type: ignore[arg-type]
    with pytest.raises(ai.InvalidModelError):
        client.models.count_tokens("claude", MESSAGES)
    assert not route.calls


def test_the_callers_messages_are_not_mutated(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": 5}))
    messages = [{"role": "user", "content": "hi"}]
    before = json.dumps(messages)
    ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}}).models.count_tokens(
        "anthropic:claude-sonnet-4-5", messages, system=SYSTEM)
    assert json.dumps(messages) == before
