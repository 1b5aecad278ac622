"""A budget shared through a real ``redis-server`` (tests/support/redis_server.py starts one): two
processes admitting calls at once never overshoot together, a reservation left by a process
that died expires with its lease, and a Redis that cannot be reached refuses the call before
anything is sent (docs/budgets.md, "Shared budgets")."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from support.fault_server import Delay
from support.model_server import ModelServer, chat_reply
from support.redis_server import RedisServer

import aisuite_like as ai
from aisuite_like.budgets.state import Admit, Correct, Finish

pytest.importorskip("redis")

WORKER = str(pathlib.Path(__file__).parents[1] / "support" / "budget_worker.py")
MODEL = "openai:gpt-4o"
MESSAGES = [{"role": "user", "content": "What is two plus two? Answer with one word."}]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with RedisServer() as server:
        yield server.url


def _name() -> str:
    return f"budget-{uuid.uuid4().hex[:8]}"


def test_two_processes_admit_exactly_as_many_calls_as_the_shared_budget_holds(
        redis_url: str) -> None:
    quote = ai.Budget(1.0).quote(MODEL, MESSAGES, max_tokens=20)
    assert quote.cost is not None
    # each reply costs exactly its reservation: whatever the interleaving, 7 fit, never 8
    reply = chat_reply("four", usage=(quote.input_tokens, 20))
    name, limit = _name(), 7.5 * quote.cost
    with ModelServer(lambda r: Delay(0.2, reply)) as server:
        workers = [subprocess.Popen(
            [sys.executable, WORKER, redis_url, server.url + "/v1", name, repr(limit), "25"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outputs = []
        for worker in workers:
            out, err = worker.communicate(timeout=240)
            assert worker.returncode == 0, err[-2000:]
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    assert sum(o["admitted"] for o in outputs) == 7
    assert sum(o["refused"] for o in outputs) == 43
    assert len(server.requests) == 7
    shared = ai.Budget(limit, name=name, state=ai.budgets.RedisState(redis_url)).usage()
    assert shared.spent == pytest.approx(7 * quote.cost, rel=1e-6) and shared.reserved == 0
    assert shared.spent <= limit


def test_a_call_in_this_process_is_settled_in_redis(redis_url: str) -> None:
    name = _name()
    budget = ai.Budget(1.0, name=name, state=ai.budgets.RedisState(redis_url), window="1d")
    with ModelServer(lambda r: chat_reply(usage=(100, 10))) as server:
        ai.Client({"openai": {"api_key": "sk-test", "base_url": server.url + "/v1"}},
                  budget=budget).chat.completions.create(model=MODEL, messages=MESSAGES,
                                                          max_tokens=10)
    other = ai.Budget(1.0, name=name, state=ai.budgets.RedisState(redis_url), window="1d")
    usage = other.usage()
    assert usage.spent > 0 and usage.reserved == 0 and usage.window == time.strftime(
        "%Y-%m-%d", time.gmtime())


def test_a_reservation_left_by_a_dead_process_expires_with_its_lease(redis_url: str) -> None:
    state = ai.budgets.RedisState(redis_url, lease=1.0)
    name, now = _name(), time.time()
    # a process reserved 0.8 of 1.0 and died before settling
    held = state.perform(Admit(name, "all", "dead", 800, 1000, now, now + 1.0, 3600))
    assert held.admitted and held.reserved == 800
    assert not state.perform(Admit(name, "all", "next", 500, 1000, now, now + 1.0, 3600)).admitted
    time.sleep(1.5)
    later = time.time()
    admitted = state.perform(Admit(name, "all", "next", 500, 1000, later, later + 1.0, 3600))
    assert admitted.admitted and admitted.reserved == 500


def test_a_noted_charge_is_corrected_once(redis_url: str) -> None:
    state = ai.budgets.RedisState(redis_url)
    name, now = _name(), time.time()
    state.perform(Admit(name, "all", "b1", 900, 10_000, now, now + 60, 3600))
    state.perform(Finish(name, "all", "b1", 900, note="batch:x", note_ttl=60))
    assert state.perform(Correct(name, "batch:x", 300)) is True
    assert state.perform(Correct(name, "batch:x", 300)) is False
    budget = ai.Budget(1.0, name=name, state=state)
    assert budget.usage().spent == pytest.approx(300e-9)


def test_redis_out_of_reach_refuses_before_sending() -> None:
    state = ai.budgets.RedisState("redis://:s3cret-pass@127.0.0.1:1/0", timeout=0.5)
    assert "s3cret" not in repr(state)
    with ModelServer(lambda r: chat_reply()) as server:
        client = ai.Client({"openai": {"api_key": "sk-test", "base_url": server.url + "/v1"}},
                           budget=ai.Budget(1.0, name="down", state=state))
        with pytest.raises(ai.BudgetStateError) as caught:
            client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=10)
    assert server.requests == [] and "s3cret" not in str(caught.value)
    assert "127.0.0.1:1" in str(caught.value)


def test_a_ledger_lives_as_long_as_its_window(redis_url: str) -> None:
    import redis

    raw = redis.Redis.from_url(redis_url)
    forever, daily = _name(), _name()
    with ModelServer(lambda r: chat_reply(usage=(100, 10))) as server:
        for name, window in ((forever, None), (daily, "1d")):
            budget = ai.Budget(1.0, name=name, window=window,
                               state=ai.budgets.RedisState(redis_url))
            ai.Client({"openai": {"api_key": "sk-test", "base_url": server.url + "/v1"}},
                      budget=budget).chat.completions.create(model=MODEL, messages=MESSAGES,
                                                              max_tokens=10)
    assert raw.ttl(f"aisuite_like:budget:{{{forever}}}:all") == -1  # no window: kept
    label = time.strftime("%Y-%m-%d", time.gmtime())
    ttl = raw.ttl(f"aisuite_like:budget:{{{daily}}}:{label}")
    assert 3600 < ttl <= 2 * 86400 + 3600  # the day, its lease and a day's grace
    raw.close()
