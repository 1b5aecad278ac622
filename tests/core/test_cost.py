"""``usage.cost`` (USD, from genai-prices), summed over runs; ``RunLimits(max_cost=)``; the
CLI's ``--usage``. Providers go through their real SDKs with HTTP mocked at httpcore2."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import genai_prices
import pytest
import respx
from support.openai_helpers import KEY, chunk, completion, httpx2_mock, sse  # noqa: F401

import aisuite_like as ai
from aisuite_like import cli

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0},
          "anthropic": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "user", "content": "Hi"}]
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
         "prompt_tokens_details": {"cached_tokens": 200}}


def expected(model: str, provider: str, **tokens: int) -> float:
    """The oracle: genai-prices itself, given the token counts in its own vocabulary."""
    return float(genai_prices.calc_price(genai_prices.Usage(**tokens), model,
                                         provider_id=provider).total_price)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def create(mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(CONFIG) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(CONFIG) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


# --- one call --------------------------------------------------------------------------------


def test_openai_call_cost_counts_cached_tokens_at_their_price(
        mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion(
        "Hello!", usage=USAGE, model="gpt-4o-2024-08-06"))
    response = create(mode, model="openai:gpt-4o", messages=USER)
    cost = response.usage.cost
    # gpt-4o: $2.50 / M input, $1.25 / M cached input, $10 / M output; prompt_tokens
    # includes the 200 cached ones.
    assert cost == pytest.approx((800 * 2.5 + 200 * 1.25 + 100 * 10) / 1e6)
    assert cost == pytest.approx(expected("gpt-4o-2024-08-06", "openai", input_tokens=1000,
                                          cache_read_tokens=200, output_tokens=100))
    assert response.usage.cost is cost  # computed once, then cached


def test_anthropic_cost_prices_cache_reads_and_writes(mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(ANTHROPIC_URL).respond(200, json={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 50,
                                         "cache_read_input_tokens": 1000,
                                         "cache_creation_input_tokens": 300}})
    response = create(mode, model="anthropic:claude-sonnet-4-6", messages=USER, max_tokens=100)
    assert response.usage.prompt_tokens == 1400
    assert response.usage.cost == pytest.approx(expected(
        "claude-sonnet-4-6", "anthropic", input_tokens=1400, cache_read_tokens=1000,
        cache_write_tokens=300, output_tokens=50))
    no_cache = expected("claude-sonnet-4-6", "anthropic", input_tokens=1400, output_tokens=50)
    assert response.usage.cost < no_cache  # cache reads are cheaper, and were priced so


def test_streamed_call_cost(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, headers={"content-type": "text/event-stream"},
                                         content=sse([
        chunk({"content": "Hi"}, model="gpt-4o-2024-08-06"),
        chunk({}, finish="stop", model="gpt-4o-2024-08-06"),
        chunk({}, no_choices=True, usage=USAGE, model="gpt-4o-2024-08-06")]))
    if mode == "sync":
        with ai.Client(CONFIG) as client:
            s = client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                               stream=True)
            final = s.get_final_response()
    else:
        async def run() -> Any:
            async with ai.AsyncClient(CONFIG) as client:
                s = await client.chat.completions.create(model="openai:gpt-4o",
                                                         messages=USER, stream=True)
                return await s.get_final_response()

        final = asyncio.run(run())
    assert final.usage.cost == pytest.approx(0.00325)


def test_unknown_price_is_none(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion(
        "Hello!", usage=USAGE, model="my-finetune-that-no-one-prices"))
    response = create("sync", model="openai:my-finetune-that-no-one-prices", messages=USER)
    assert response.usage.cost is None
    offline = ai.Client().chat.completions.create(model="test:m", messages=USER)
    assert offline.usage is not None and offline.usage.cost is None


def test_an_unknown_model_is_looked_up_once(httpx2_mock: respx.Router,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """genai-prices scans every model it knows for one it does not (milliseconds a call): a
    miss is remembered, so a gateway serving an unpriced model does not pay it per request."""
    asked: list[str] = []
    real = genai_prices.calc_price

    def counted(usage: Any, model: str, **kwargs: Any) -> Any:
        asked.append(model)
        return real(usage, model, **kwargs)

    monkeypatch.setattr(genai_prices, "calc_price", counted)
    name = "a-model-only-the-cost-cache-test-names"
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hi", usage=USAGE, model=name))
    for _ in range(3):
        assert create("sync", model=f"openai:{name}", messages=USER).usage.cost is None
    assert asked == [name]
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hi", usage=USAGE,
                                                              model="gpt-4o"))
    assert create("sync", model="openai:gpt-4o", messages=USER).usage.cost > 0


def test_cost_is_not_dumped_and_does_not_change_equality(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hello!", usage=USAGE))
    usage = create("sync", model="openai:gpt-4o", messages=USER).usage
    assert usage.cost is not None
    assert "cost" not in usage.model_dump()
    assert usage == ai.Usage(prompt_tokens=1000, completion_tokens=100, total_tokens=1100,
                             prompt_tokens_details=ai.PromptTokensDetails(cached_tokens=200))


def test_a_cost_the_provider_reports_wins() -> None:
    assert ai.Usage(prompt_tokens=5, cost=0.25).cost == 0.25  # e.g. OpenRouter's usage.cost


# --- runs ------------------------------------------------------------------------------------


def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def _tool_reply(n: int) -> respx.MockResponse:
    calls = [{"id": f"c{n}", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    return respx.MockResponse(200, json=completion(None, tool_calls=calls, finish="tool_calls",
                                                   usage=USAGE, model="gpt-4o-2024-08-06"))


def test_runner_run_cost_is_the_sum_over_its_calls(mode: str,
                                                   httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        _tool_reply(1),
        respx.MockResponse(200, json=completion("Sunny.", usage={
            "prompt_tokens": 2000, "completion_tokens": 10, "total_tokens": 2010},
            model="gpt-4o-2024-08-06"))])
    response = create(mode, model="openai:gpt-4o", messages=USER, tools=[get_weather],
                      max_turns=3)
    first = response.intermediate_responses[0].usage.cost
    assert first == pytest.approx(0.00325)
    assert response.usage.cost == pytest.approx(0.00325 + (2000 * 2.5 + 10 * 10) / 1e6)


def test_a_sum_with_an_unpriced_part_has_no_cost(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hello!", usage=USAGE))
    priced = create("sync", model="openai:gpt-4o", messages=USER).usage
    assert priced.cost is not None
    assert (priced + ai.Usage(prompt_tokens=3)).cost is None  # never silently short


def test_agent_run_cost_and_max_cost_limit(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(side_effect=[_tool_reply(n) for n in range(1, 6)])
    agent = ai.Agent("looper", "openai:gpt-4o", tools=[get_weather])
    result = ai.Runner.run_sync(agent, "Weather?", client=ai.Client(CONFIG),
                                limits=ai.RunLimits(max_cost=0.005))
    # Each call costs $0.00325: after the second (0.0065 >= 0.005) no call starts.
    assert route.call_count == 2
    assert (result.status, result.limit) == ("limit", "max_cost")
    assert result.usage.cost == pytest.approx(2 * 0.00325)
    assert [e.call_id for e in result.tool_events] == ["c1", "c2"]


def test_max_cost_needs_a_known_price_for_every_reachable_agent(
        httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENAI_URL).respond(200, json=completion("x"))
    unpriced = ai.Agent("local", "ollama:llama3")
    triage = ai.Agent("triage", "openai:gpt-4o", handoffs=[unpriced])
    with pytest.raises(ValueError, match="'ollama:llama3'.*genai-prices does not know"):
        ai.Runner.run_sync(triage, "hi", client=ai.Client(CONFIG),
                           limits=ai.RunLimits(max_cost=1.0))
    assert route.call_count == 0  # refused before anything was sent


@pytest.mark.parametrize("bad", [0, -1.0, True, "1", float("nan"), float("inf")])
def test_max_cost_must_be_positive_usd(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_cost"):
        ai.RunLimits(max_cost=bad)


# --- the CLI ---------------------------------------------------------------------------------


def test_cli_usage_shows_the_cost(httpx2_mock: respx.Router,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hello!", usage=USAGE,
                                                              model="gpt-4o-2024-08-06"))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["chat", "-m", "openai:gpt-4o", "Hi", "--usage"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == "Hello!\n"
    assert err.getvalue() == "usage: 1000 input + 100 output tokens, cost $0.003250\n"
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["chat", "-m", "openai:gpt-4o", "Hi", "--json"], stdout=out, stderr=err)
    assert code == 0 and json.loads(out.getvalue())["usage"]["cost"] == pytest.approx(0.00325)


def test_cli_usage_says_when_the_price_is_unknown() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["chat", "-m", "test:offline", "Hi", "--usage", "--stream"],
                    stdout=out, stderr=err) == 0
    assert err.getvalue() == ("usage: 1 input + 4 output tokens, cost unknown "
                              "(no price for this model)\n")
