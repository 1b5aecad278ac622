"""Budgets on the wire (docs/budgets.md): every call goes through the real openai SDK to a
loopback server (tests/support/model_server.py) whose replies report fixed usage, so the prices are
genai-prices' own for gpt-4o. What is asserted is what the server received (a refused call
sends nothing) and what the budget's ledger holds."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import genai_prices
import pytest
from support.batch_server import BatchServer
from support.fault_server import Reply, Request
from support.model_server import (
    Hold,
    ModelServer,
    chat_reply,
    embeddings_reply,
    responses_reply,
    responses_tool_call_reply,
    sse_reply,
    streamed,
    tool_call_reply,
)

import aisuite_like as ai
from aisuite_like.budgets import MemoryState

MODEL = "openai:gpt-4o"
MESSAGES = [{"role": "user", "content": "What is two plus two? Answer with one word."}]


def price(input_tokens: int, output_tokens: int, *, model: str = "gpt-4o",
          batch: bool = False) -> float:
    calc = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens), model,
        provider_id="openai", price_context={"processing": "batch"} if batch else None)
    return float(calc.total_price)


def client_for(server: Any, **options: Any) -> ai.Client:
    return ai.Client({"openai": {"api_key": "sk-test-budget", "base_url": server.url + "/v1",
                                 "max_retries": 0}}, **options)


def aclient_for(server: Any, **options: Any) -> ai.AsyncClient:
    return ai.AsyncClient({"openai": {"api_key": "sk-test-budget",
                                      "base_url": server.url + "/v1", "max_retries": 0}},
                          **options)


@pytest.fixture
def cheap() -> Iterator[ModelServer]:
    """Every chat call answers with 3 input and 2 output tokens."""
    with ModelServer(lambda r: chat_reply("four", usage=(3, 2))) as server:
        yield server


# --- admission and settlement ----------------------------------------------------------------


def test_a_call_over_the_budget_is_refused_before_anything_is_sent(cheap: ModelServer) -> None:
    budget = ai.Budget(0.0001, name="tiny")
    client = client_for(cheap, budget=budget)
    quote = budget.quote(MODEL, MESSAGES, max_tokens=100)
    assert quote.cost == pytest.approx(price(quote.input_tokens, 100))
    assert quote.estimated and quote.output_tokens == 100
    with pytest.raises(ai.BudgetExceededError) as caught:
        client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=100)
    error = caught.value
    assert cheap.requests == []  # nothing was sent
    assert (error.budget, error.limit, error.spent, error.reserved) == ("tiny", 0.0001, 0, 0)
    assert error.needed == pytest.approx(quote.cost, rel=1e-6) and error.estimated
    assert "'tiny'" in str(error) and "estimated" in str(error) and "max_tokens" in str(error)
    assert "sk-test-budget" not in str(error)


def test_a_call_settles_to_the_cost_its_reply_reports() -> None:
    with ModelServer(lambda r: chat_reply("ok", usage=(120, 30))) as server:
        budget = ai.Budget(1.0)
        response = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=500)
    usage = budget.usage()
    assert usage.spent == pytest.approx(price(120, 30)) == pytest.approx(response.usage.cost)
    assert usage.reserved == 0 and usage.remaining == pytest.approx(1.0 - usage.spent)
    assert len(server.requests) == 1


async def test_fifty_concurrent_calls_admit_exactly_as_many_as_the_budget_holds() -> None:
    """50 calls at once against a budget of 7 calls' worst case (plus half of one): exactly 7
    reach the server while the replies are held, the 43 others are refused at once; each
    reply costs exactly its reservation, so the spend ends at 7 reservations, under the
    limit."""
    budget = ai.Budget(1.0)  # to price the quote
    quote = budget.quote(MODEL, MESSAGES, max_tokens=20)
    assert quote.cost is not None
    reply = chat_reply("four", usage=(quote.input_tokens, 20))
    with ModelServer(lambda r: Hold(reply)) as server:
        budget = ai.Budget(7.5 * quote.cost, name="fifty")
        client = aclient_for(server, budget=budget)
        refused = 0

        async def one() -> bool:
            nonlocal refused
            try:
                await client.chat.completions.create(model=MODEL, messages=MESSAGES,
                                                     max_tokens=20)
                return True
            except ai.BudgetExceededError:
                refused += 1
                return False

        tasks = [asyncio.ensure_future(one()) for _ in range(50)]
        deadline = time.monotonic() + 60
        while (len(server.requests) < 7 or refused < 43) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert (len(server.requests), refused) == (7, 43)
        held = await budget.ausage()
        assert held.reserved == pytest.approx(7 * quote.cost, rel=1e-6) and held.spent == 0
        server.release()
        outcomes = await asyncio.gather(*tasks)
    assert outcomes.count(True) == 7 and len(server.requests) == 7
    usage = budget.usage()
    assert usage.spent == pytest.approx(7 * quote.cost, rel=1e-6) and usage.reserved == 0
    assert usage.spent <= budget.max_cost


def test_sequential_calls_spend_the_budget_to_within_one_reservation(cheap: ModelServer) -> None:
    budget = ai.Budget(1.0)
    quote = budget.quote(MODEL, MESSAGES, max_tokens=50)
    assert quote.cost is not None
    budget = ai.Budget(10 * quote.cost)
    client = client_for(cheap, budget=budget)
    admitted = 0
    with pytest.raises(ai.BudgetExceededError) as caught:
        for _ in range(1000):
            client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=50)
            admitted += 1
    usage = budget.usage()
    one_call = price(3, 2)
    assert usage.spent == pytest.approx(admitted * one_call, rel=1e-6)
    assert usage.spent <= budget.max_cost  # never past the limit
    # refused only once a worst case no longer fits
    assert budget.max_cost - usage.spent < quote.cost
    assert admitted == len(cheap.requests) > 10  # each real call cost less than its reservation
    assert caught.value.spent == pytest.approx(usage.spent, rel=1e-6)


def test_every_budget_that_applies_must_admit_and_each_is_charged(cheap: ModelServer) -> None:
    team, call = ai.Budget(1.0, name="team"), ai.Budget(1.0, name="call")
    client = client_for(cheap, budget=team)
    client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10, budget=call)
    assert team.spent == pytest.approx(price(3, 2)) == pytest.approx(call.spent)
    with pytest.raises(ai.BudgetExceededError) as caught:
        client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10,
                                       budget=ai.Budget(0.0, name="empty"))
    assert caught.value.budget == "empty" and len(cheap.requests) == 1
    assert team.usage().reserved == 0  # the team's reservation was released on the refusal
    assert team.spent == pytest.approx(price(3, 2))


def test_a_failed_call_releases_its_reservation() -> None:
    with ModelServer(lambda r: Reply(500)) as server:
        budget = ai.Budget(1.0)
        with pytest.raises(ai.InternalServerError):
            client_for(server, budget=budget).chat.completions.create(
                model=MODEL, messages=MESSAGES, max_tokens=10)
    usage = budget.usage()
    assert (usage.spent, usage.reserved, len(server.requests)) == (0, 0, 1)


async def test_a_cancelled_call_releases_its_reservation() -> None:
    with ModelServer(lambda r: Hold(chat_reply("late"), timeout=60)) as server:
        budget = ai.Budget(1.0)
        task = asyncio.ensure_future(aclient_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=10))
        deadline = time.monotonic() + 30
        while not server.requests and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert (await budget.ausage()).reserved > 0
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        server.release()
    usage = budget.usage()
    assert (usage.spent, usage.reserved) == (0, 0)


def test_a_model_without_a_price_raises_unless_allowed() -> None:
    with ModelServer(lambda r: chat_reply(usage=(3, 2), model="my-own-finetune-xyz")) as cheap:
        _unpriced(cheap)


def _unpriced(cheap: ModelServer) -> None:
    client = client_for(cheap, budget=ai.Budget(1.0, name="strict"))
    with pytest.raises(ai.UnpricedModelError) as caught:
        client.chat.completions.create(model="openai:my-own-finetune-xyz", messages=MESSAGES)
    assert caught.value.budget == "strict" and "unpriced='allow'" in str(caught.value)
    assert cheap.requests == []
    lenient = ai.Budget(1.0, unpriced="allow")
    client_for(cheap, budget=lenient).chat.completions.create(
        model="openai:my-own-finetune-xyz", messages=MESSAGES)
    usage = lenient.usage()
    assert (usage.spent, usage.unpriced_calls, len(cheap.requests)) == (0, 1, 1)


def test_without_max_tokens_the_worst_case_assumes_the_documented_output_cap() -> None:
    budget = ai.Budget(1.0)
    quote = budget.quote(MODEL, MESSAGES)
    assert quote.output_tokens == ai.budgets.DEFAULT_OUTPUT_TOKENS
    assert budget.quote(MODEL, MESSAGES, max_tokens=10, n=3).output_tokens == 30


def test_no_budget_means_no_wrapper(cheap: ModelServer) -> None:
    from aisuite_like.client.prepare import prepare_call

    client = client_for(cheap)
    call = prepare_call(client, MODEL, MESSAGES, {})
    assert type(call.provider).__name__ != "BudgetProvider"
    budgeted = prepare_call(client, MODEL, MESSAGES, {"budget": ai.Budget(1.0)})
    assert type(budgeted.provider).__name__ == "BudgetProvider"


def test_budget_arguments_are_checked() -> None:
    for bad in (-1, float("nan"), "5", True):
        with pytest.raises(ai.ConfigurationError):
            ai.Budget(bad)
    with pytest.raises(ai.ConfigurationError, match="window"):
        ai.Budget(1.0, window="1w")
    with pytest.raises(ai.ConfigurationError, match="unpriced"):
        ai.Budget(1.0, unpriced="maybe")
    with pytest.raises(ai.ConfigurationError, match="needs a name"):
        ai.Budget(1.0, state=ai.budgets.RedisState("redis://127.0.0.1:1/0"))
    with pytest.raises(TypeError, match=r"ai\.Budget"):
        ai.Client(budget=5.0)  # type: ignore[arg-type]


# --- streams, the cache, acreate --------------------------------------------------------------


def test_a_stream_settles_from_its_final_usage() -> None:
    with ModelServer(lambda r: sse_reply("two plus two is four", usage=(40, 9))) as server:
        budget = ai.Budget(1.0)
        stream = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=50, stream=True)
        assert budget.usage().reserved > 0  # admitted when the stream started
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text.startswith("two")
    assert server.requests[0].body["stream_options"] == {"include_usage": True}
    usage = budget.usage()
    assert usage.spent == pytest.approx(price(40, 9)) and usage.reserved == 0


def test_a_stream_without_usage_is_charged_by_its_estimate() -> None:
    with ModelServer(lambda r: sse_reply("x" * 400, usage=None)) as server:
        budget = ai.Budget(1.0)
        quote = budget.quote(MODEL, MESSAGES, max_tokens=500)
        for _ in client_for(server, budget=budget).chat.completions.create(
                model=MODEL, messages=MESSAGES, max_tokens=500, stream=True):
            pass
    # the input's estimate plus the 400 characters streamed (100 tokens)
    assert budget.spent == pytest.approx(price(quote.input_tokens, 100))


def test_a_stream_closed_early_is_charged_for_what_it_used() -> None:
    with ModelServer(lambda r: sse_reply("a b c d e f", usage=(40, 9))) as server:
        budget = ai.Budget(1.0)
        stream = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=50, stream=True)
        next(iter(stream))
        stream.close()
    usage = budget.usage()
    assert usage.reserved == 0 and 0 < usage.spent < price(40, 50)


async def test_async_calls_and_streams_are_charged() -> None:
    replies = {"stream": sse_reply("four", usage=(40, 9)), "plain": chat_reply(usage=(50, 7))}

    def respond(request: Request) -> Any:
        return replies["stream" if request.body.get("stream") else "plain"]

    with ModelServer(respond) as server:
        budget = ai.Budget(1.0)
        client = aclient_for(server, budget=budget)
        await client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=20)
        stream = await client.chat.completions.create(model=MODEL, messages=MESSAGES,
                                                      max_tokens=20, stream=True)
        async for _ in stream:
            pass
    assert budget.spent == pytest.approx(price(50, 7) + price(40, 9))
    assert budget.usage().reserved == 0


def test_a_cache_hit_costs_nothing(cheap: ModelServer) -> None:
    budget = ai.Budget(1.0)
    client = client_for(cheap, budget=budget, cache=ai.cache.MemoryCache())
    first = client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10)
    second = client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10)
    assert not first.cache_hit and second.cache_hit and len(cheap.requests) == 1
    assert budget.spent == pytest.approx(price(3, 2))
    assert budget.usage().reserved == 0


# --- tool runs, the Responses API, embeddings, agents -----------------------------------------


def lookup(city: str) -> str:
    """The weather of a city."""
    return f"sunny in {city}"


def _tool_run_server(calls: int) -> ModelServer:
    """A model that calls ``lookup`` on every turn until ``calls`` calls, then answers."""
    seen = [0]

    def respond(request: Request) -> Any:
        seen[0] += 1
        if request.path.endswith("/responses"):
            return (responses_tool_call_reply(f"call_{seen[0]}", "lookup", {"city": "Paris"},
                                              usage=(100, 20)) if seen[0] <= calls
                    else responses_reply("done", usage=(100, 20)))
        if seen[0] <= calls:
            reply = tool_call_reply(f"call_{seen[0]}", "lookup", {"city": "Paris"},
                                    usage=(100, 20))
        else:
            reply = chat_reply("done", usage=(100, 20))
        return streamed(reply) if request.stream else reply

    return ModelServer(respond)


def _valid_history(messages: list[Any]) -> bool:
    calls = [tc.id for m in messages if m.role == "assistant" for tc in (m.tool_calls or ())]
    results = [m.tool_call_id for m in messages if m.role == "tool"]
    return calls == results


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_run_ends_with_stop_reason_budget_and_a_valid_history(stream: bool) -> None:
    one_turn = price(100, 20)
    with _tool_run_server(calls=10) as server:
        budget = ai.Budget(1.0)
        worst = budget.quote(MODEL, MESSAGES, max_tokens=20).cost
        assert worst is not None
        # room for three turns: the fourth's worst case no longer fits
        budget = ai.Budget(3 * one_turn + worst * 0.9, name="run")
        response = client_for(server).chat.completions.create(
            model=MODEL, messages=MESSAGES, tools=[lookup], max_turns=10, max_tokens=20,
            budget=budget, stream=stream)
        if stream:
            for _ in response:
                pass
            response = response.get_final_response()
    assert response.stop_reason == "budget"
    assert len(server.requests) == 3 and len(response.tool_events) == 3
    assert _valid_history(response.messages) and response.messages[-1].role == "tool"
    assert budget.spent == pytest.approx(3 * one_turn)
    assert budget.usage().reserved == 0


def test_a_tool_run_whose_first_call_is_refused_raises() -> None:
    with _tool_run_server(calls=10) as server:
        with pytest.raises(ai.BudgetExceededError):
            client_for(server).chat.completions.create(
                model=MODEL, messages=MESSAGES, tools=[lookup], max_turns=5,
                budget=ai.Budget(0.0))
    assert server.requests == []


async def test_an_async_tool_run_is_charged_for_every_model_call() -> None:
    with _tool_run_server(calls=2) as server:
        budget = ai.Budget(1.0)
        response = await aclient_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, tools=[lookup], max_turns=5, max_tokens=20)
    assert response.stop_reason == "completed" and len(server.requests) == 3
    assert budget.spent == pytest.approx(3 * price(100, 20)) == pytest.approx(
        response.usage.cost)


def test_the_native_responses_api_is_charged() -> None:
    with ModelServer(lambda r: responses_reply("hi", usage=(60, 12))) as server:
        budget = ai.Budget(1.0)
        response = client_for(server, budget=budget).responses.create(
            model=MODEL, input="Say hi", max_output_tokens=30)
    assert response.output_text == "hi" and server.requests[0].path.endswith("/responses")
    assert budget.spent == pytest.approx(price(60, 12))
    with pytest.raises(ai.BudgetExceededError):
        client_for(server, budget=ai.Budget(0.0)).responses.create(model=MODEL, input="Hi")


def test_the_responses_runner_is_charged_and_ends_on_the_budget() -> None:
    with _tool_run_server(calls=10) as server:
        budget = ai.Budget(1.0)
        worst = budget.quote(MODEL, MESSAGES, max_tokens=20).cost
        assert worst is not None
        budget = ai.Budget(2 * price(100, 20) + worst * 0.9)
        response = client_for(server, budget=budget).responses.create(
            model=MODEL, input="weather?", tools=[lookup], max_turns=10,
            max_output_tokens=20)
    assert response.stop_reason == "budget" and len(server.requests) == 2


def test_embeddings_are_charged() -> None:
    with ModelServer(lambda r: embeddings_reply(2, tokens=8)) as server:
        budget = ai.Budget(1.0)
        client_for(server, budget=budget).embeddings.create(
            model="openai:text-embedding-3-small", input=["one", "two"])
    assert budget.spent == pytest.approx(price(8, 0, model="text-embedding-3-small"))


def test_an_agent_run_ends_with_limit_budget() -> None:
    with _tool_run_server(calls=10) as server:
        budget = ai.Budget(1.0)
        worst = budget.quote(MODEL, MESSAGES, max_tokens=20).cost
        assert worst is not None
        budget = ai.Budget(2 * price(100, 20) + worst * 0.9)
        agent = ai.Agent(name="weather", model=MODEL, tools=[lookup],
                         model_settings={"max_tokens": 20})
        result = ai.Runner.run_sync(agent, "weather?", client=client_for(server), max_turns=8,
                                    limits=ai.RunLimits(budget=budget))
    assert (result.status, result.limit) == ("limit", "budget")
    assert len(server.requests) == 2 and budget.spent == pytest.approx(2 * price(100, 20))


# --- routed and batched calls ----------------------------------------------------------------


def test_a_routed_call_is_charged_at_the_deployment_s_price_and_skips_a_spent_deployment(
        ) -> None:
    with ModelServer(lambda r: chat_reply("a", usage=(100, 10), model="gpt-4o")) as first, \
            ModelServer(lambda r: chat_reply("b", usage=(100, 10), model="gpt-4o-mini")) \
            as second:
        spent_out = ai.Budget(0.0, name="first-deployment")
        router = ai.Router({"smart": [
            {"model": "openai:gpt-4o", "base_url": first.url + "/v1", "api_key": "sk-test-1",
             "budget": spent_out, "weight": 1000},
            {"model": "openai:gpt-4o-mini", "base_url": second.url + "/v1",
             "api_key": "sk-test-2", "weight": 1}]})
        team = ai.Budget(1.0, name="team")
        client = ai.Client({"openai": {"api_key": "sk-test", "max_retries": 0}},
                           router=router, budget=team)
        response = client.chat.completions.create(model="smart", messages=MESSAGES,
                                                  max_tokens=20)
        assert response.model == "gpt-4o-mini" and first.requests == []
        assert [s.model for s in response.fallback_errors] == ["openai:gpt-4o"]
        assert response.fallback_errors[0].error_type == "BudgetExceededError"
        assert team.spent == pytest.approx(price(100, 10, model="gpt-4o-mini"))
        with pytest.raises(ai.BudgetExceededError, match="every deployment"):
            client.chat.completions.create(model="smart", messages=MESSAGES, max_tokens=20,
                                           budget=ai.Budget(0.0))
    assert len(second.requests) == 1


def test_a_batch_is_charged_at_batch_prices_and_settled_by_its_results() -> None:
    with BatchServer(polls_to_finish=1) as server:
        budget = ai.Budget(1.0, name="batches")
        client = ai.Client({"openai": {"api_key": "sk-test", "base_url": server.url + "/v1",
                                       "max_retries": 0}}, budget=budget)
        requests = [{"custom_id": f"q{i}", "model": "openai:gpt-4o-mini", "messages": MESSAGES,
                     "max_tokens": 100} for i in range(3)]
        quote = budget.quote("openai:gpt-4o-mini", MESSAGES, max_tokens=100, batch=True)
        assert quote.cost == pytest.approx(
            price(quote.input_tokens, 100, model="gpt-4o-mini", batch=True))
        batch = client.batches.create(requests)
        assert budget.spent == pytest.approx(3 * quote.cost)  # charged its worst case
        client.batches.wait(batch.id, poll_interval=0.01)
        results = dict(client.batches.results(batch.id))
        assert len(results) == 3
        real = sum(price(r.usage.prompt_tokens, r.usage.completion_tokens,
                         model="gpt-4o-mini", batch=True) for r in results.values())
        assert budget.spent == pytest.approx(real)  # settled to the results, at batch prices
        dict(client.batches.results(batch.id))
        assert budget.spent == pytest.approx(real)  # once
        uploads = [r for r in server.requests if r.path.endswith("/files")]
        with pytest.raises(ai.BudgetExceededError):
            client.batches.create(requests, budget=ai.Budget(0.0))
        assert len([r for r in server.requests if r.path.endswith("/files")]) == len(uploads)
    with pytest.raises(ai.BatchRequestError, match="budget"):
        client.batches.create([{**requests[0], "budget": budget}])


def test_budgets_shared_by_a_state_object() -> None:
    state = MemoryState()
    a, b = ai.Budget(1.0, name="shared", state=state), ai.Budget(1.0, name="shared", state=state)
    with ModelServer(lambda r: chat_reply(usage=(100, 10))) as server:
        client_for(server, budget=a).chat.completions.create(model=MODEL, messages=MESSAGES,
                                                            max_tokens=10)
    assert b.spent == pytest.approx(price(100, 10))  # the same ledger
    assert json.dumps(repr(a))  # repr is plain text


def test_a_fallback_is_charged_at_the_price_of_the_model_that_answered() -> None:
    def respond(request: Request) -> Any:
        if request.body["model"] == "gpt-4o":
            return Reply(500)
        return chat_reply("from the fallback", usage=(1000, 100), model="gpt-4o-mini")

    with ModelServer(respond) as server:
        budget = ai.Budget(1.0)
        response = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=100, fallbacks=["openai:gpt-4o-mini"])
    assert response.model == "gpt-4o-mini" and len(server.requests) == 2
    assert budget.spent == pytest.approx(price(1000, 100, model="gpt-4o-mini"))
    assert budget.spent < price(1000, 100)  # not at gpt-4o's price


def test_a_native_responses_stream_settles_from_its_completed_event() -> None:
    from support.fault_server import Stream

    final = responses_reply("hi there", usage=(70, 9)).body
    assert isinstance(final, dict)
    events = [{"type": "response.created", "sequence_number": 0,
               "response": {**final, "status": "in_progress", "output": [], "usage": None}},
              {"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_1",
               "output_index": 0, "content_index": 0, "delta": "hi there"},
              {"type": "response.completed", "sequence_number": 2, "response": final}]
    sse = Stream(events=[f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
                         for e in events])
    with ModelServer(lambda r: sse) as server:
        budget = ai.Budget(1.0)
        with client_for(server, budget=budget).responses.create(
                model=MODEL, input="Say hi", max_output_tokens=30, stream=True) as stream:
            kinds = [event.type for event in stream]
    assert kinds[-1] == "response.completed"
    assert budget.spent == pytest.approx(price(70, 9)) and budget.usage().reserved == 0


def test_a_model_its_budget_refuses_falls_back_to_one_that_fits() -> None:
    with ModelServer(lambda r: chat_reply("cheap", usage=(100, 10), model="gpt-4o-mini")) \
            as server:
        budget = ai.Budget(1.0)
        worst_4o = budget.quote(MODEL, MESSAGES, max_tokens=1000).cost
        worst_mini = budget.quote("openai:gpt-4o-mini", MESSAGES, max_tokens=1000).cost
        assert worst_4o is not None and worst_mini is not None and worst_mini < worst_4o
        budget = ai.Budget((worst_4o + worst_mini) / 2)  # room for the small model only
        response = client_for(server, budget=budget).chat.completions.create(
            model=MODEL, messages=MESSAGES, max_tokens=1000,
            fallbacks=["openai:gpt-4o-mini"])
    assert [r.body["model"] for r in server.requests] == ["gpt-4o-mini"]
    assert [(s.model, s.error_type) for s in response.fallback_errors] == [
        ("openai:gpt-4o", "BudgetExceededError")]
    assert budget.spent == pytest.approx(price(100, 10, model="gpt-4o-mini"))


def test_an_aisuite_provider_s_reply_as_given_is_admitted_and_charged() -> None:
    from types import SimpleNamespace

    class AisuiteStyle:  # aisuite's provider interface: its reply is returned as it gives it
        calls = 0

        def chat_completions_create(self, model: str, messages: Any, **kwargs: Any) -> Any:
            AisuiteStyle.calls += 1
            return SimpleNamespace(
                choices=[SimpleNamespace(message=SimpleNamespace(content="as given"))],
                usage=SimpleNamespace(prompt_tokens=100, completion_tokens=10))

    budget = ai.Budget(1.0)
    client = ai.Client(providers={"openai": AisuiteStyle()}, budget=budget)
    reply = client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10)
    assert isinstance(reply, SimpleNamespace)  # aisuite's shape, kept
    assert budget.spent == pytest.approx(price(100, 10))
    with pytest.raises(ai.BudgetExceededError):
        client.chat.completions.create(model=MODEL, messages=MESSAGES, budget=ai.Budget(0.0))
    assert AisuiteStyle.calls == 1


def test_a_transcription_refuses_a_budget_it_cannot_price() -> None:
    client = ai.Client({"openai": {"api_key": "sk-test"}})
    with pytest.raises(ai.UnsupportedParameterError, match="transcriptions"):
        client.audio.transcriptions.create(model="openai:whisper-1", file=b"RIFF",
                                           budget=ai.Budget(1.0))
