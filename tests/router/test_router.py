"""The router through the real vendor SDKs, each deployment a loopback server of its own that
counts what it receives (docs/router.md). Time is a ``testing.FakeClock`` where it matters:
cool-downs and pacing pass without sleeping."""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from support.fault_server import Reply, Reset, Stream, stream_events, success_body
from _router_servers import KEYS, USER, Deployment, deployment

import aisuite_like as ai
from aisuite_like.testing import FakeClock

FAMILIES = ["openai", "anthropic", "google"]


@pytest.fixture
def servers() -> Iterator[list[Deployment]]:
    made = [Deployment(), Deployment(), Deployment()]
    for server in made:
        server.__enter__()
    try:
        yield made
    finally:
        for server in made:
            server.__exit__(None, None, None)


def router(family: str, servers: list[Deployment], weights: list[float], *,
           transport: str = "sdk", **options: Any) -> ai.Router:
    extra = {"transport": "native"} if transport == "native" else {}
    specs = [deployment(family, s, f"m-{i}", weight=w, **extra)
             for i, (s, w) in enumerate(zip(servers, weights, strict=True))]
    return ai.Router({"smart": specs}, **options)


def within_binomial(count: int, n: int, p: float) -> bool:
    """``count`` of ``n`` draws of probability ``p`` lies within 5 standard deviations."""
    return abs(count - n * p) <= 5 * math.sqrt(n * p * (1 - p))


# --- spreading -------------------------------------------------------------------------------


def test_weights_hold_within_noise(servers: list[Deployment]) -> None:
    n = 600
    with ai.Client(router=router("openai", servers, [1, 2, 7])) as client:
        served = Counter(client.chat.completions.create(model="smart", messages=USER).model
                         for _ in range(n))
    counts = [s.attempts for s in servers]
    assert sum(counts) == n
    for count, p in zip(counts, [0.1, 0.2, 0.7], strict=True):
        assert within_binomial(count, n, p), counts
    assert served == Counter({f"m-{i}": c for i, c in enumerate(counts)})


def test_least_busy_sends_to_the_deployment_with_fewest_calls_in_flight(
        servers: list[Deployment]) -> None:
    import threading

    from support.fault_server import Hold

    release = threading.Event()
    servers[0].queue(Hold(release))  # deployment 0 holds its first call until released

    async def run() -> list[str]:
        # the weights would send (almost) everything to deployment 0
        r = router("openai", servers[:2], [1e9, 1], strategy="least-busy")
        async with ai.AsyncClient(router=r) as client:
            slow = asyncio.create_task(
                client.chat.completions.create(model="smart", messages=USER))
            while servers[0].attempts == 0:
                await asyncio.sleep(0.005)
            others = [await client.chat.completions.create(model="smart", messages=USER)
                      for _ in range(5)]
            release.set()
            assert (await slow).model == "m-0"
            after = await client.chat.completions.create(model="smart", messages=USER)
            return [r.model for r in others] + [after.model]

    models = asyncio.run(run())
    # while a call is in flight on deployment 0, every other call goes to deployment 1;
    # once it is back, the tie goes by weight
    assert models == ["m-1"] * 5 + ["m-0"]


def test_latency_prefers_the_faster_deployment_once_both_are_measured(
        servers: list[Deployment]) -> None:
    from support.fault_server import Delay

    # a call through the SDK first, elsewhere: its one-time costs (imports, models built on
    # first use) would otherwise be measured as the latency of the first deployment asked
    warm = ai.Router({"warm": [deployment("openai", servers[2], "w")]})
    with ai.Client(router=warm) as c:
        c.chat.completions.create(model="warm", messages=USER)
    servers[0].queue(*[Delay(0.2)] * 50)
    with ai.Client(router=router("openai", servers[:2], [1, 1], strategy="latency")) as c:
        for _ in range(12):
            c.chat.completions.create(model="smart", messages=USER)
    assert servers[0].attempts == 1 and servers[1].attempts == 11


# --- 429 / 5xx: move at once, cool down ------------------------------------------------------


@pytest.mark.parametrize("transport", ["sdk", "native"])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("mode", ["sync", "async", "stream", "astream"])
def test_a_429_moves_the_call_at_once_and_the_cooled_deployment_gets_nothing(
        family: str, mode: str, transport: str, servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"retry-after": "20"}))
    clock = FakeClock()
    # deployment 0 is (almost) always the first choice: it is asked first, answers 429
    r = router(family, [a, b], [1e9, 1], clock=clock, transport=transport)

    def call(client: Any) -> Any:
        resp = client.chat.completions.create(model="smart", messages=USER,
                                              stream=mode == "stream")
        return resp.get_final_response() if mode == "stream" else resp

    async def acall(client: Any) -> Any:
        resp = await client.chat.completions.create(model="smart", messages=USER,
                                                    stream=mode == "astream")
        return await resp.get_final_response() if mode == "astream" else resp

    def run(n: int) -> list[Any]:
        if mode in ("sync", "stream"):
            with ai.Client(router=r) as client:
                return [call(client) for _ in range(n)]

        async def go() -> list[Any]:
            async with ai.AsyncClient(router=r) as client:
                return [await acall(client) for _ in range(n)]
        return asyncio.run(go())

    [first] = run(1)
    assert a.attempts == 1  # no retry of the deployment that answered 429
    assert b.attempts == 1
    assert (first.provider, first.model) == (family, "m-1")
    assert [(s.model, s.error_type, s.status_code) for s in first.fallback_errors] == [
        (f"{family}:m-0", "RateLimitError", 429)]
    assert clock.waits == []  # moved without waiting
    run(20)  # during the 20 s cool-down: all to deployment 1
    assert a.attempts == 1 and b.attempts == 21
    clock.sleep(20)
    [after] = run(1)  # cooled down: deployment 0 again
    assert a.attempts == 2 and after.model == "m-0"


def test_a_5xx_moves_the_call_and_cools_for_cooldown(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(503))
    clock = FakeClock()
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=clock,
                                 cooldown=7)) as client:
        resp = client.chat.completions.create(model="smart", messages=USER)
        assert resp.model == "m-1" and a.attempts == 1
        assert resp.fallback_errors[0].error_type == "InternalServerError"
        clock.sleep(6.9)
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-1"
        clock.sleep(0.2)
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"


def test_a_connection_reset_moves_the_call(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reset())
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=FakeClock())) as client:
        resp = client.chat.completions.create(model="smart", messages=USER)
    assert resp.model == "m-1" and a.attempts == 1
    assert resp.fallback_errors[0].error_type == "APIConnectionError"


def test_a_429_without_retry_after_cools_until_its_limit_resets(
        servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"x-ratelimit-remaining-requests": "0",
                        "x-ratelimit-reset-requests": "7s"}))
    clock = FakeClock()
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=clock)) as client:
        client.chat.completions.create(model="smart", messages=USER)
        clock.sleep(6.5)
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-1"
        clock.sleep(0.6)  # 7 s: not the 30 s cooldown
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"


def test_a_lone_deployment_keeps_its_own_retries(servers: list[Deployment]) -> None:
    """With nowhere else to go, a 503 is retried by the deployment's own retry policy."""
    a = servers[0]
    a.queue(Reply(503))
    spec = deployment("openai", a, "m-0", retry_clock=FakeClock())
    with ai.Client(router=ai.Router({"solo": [spec]}, clock=FakeClock())) as client:
        resp = client.chat.completions.create(model="solo", messages=USER)
    assert resp.model == "m-0" and a.attempts == 2 and resp.fallback_errors == []


def test_a_429_is_the_routers_to_wait_for_even_on_a_lone_deployment(
        servers: list[Deployment]) -> None:
    """The cool-down is shared with every other call, and the router's clock waits it."""
    a = servers[0]
    a.queue(Reply(429, {"retry-after": "3"}))
    retry_clock, clock = FakeClock(), FakeClock()
    spec = deployment("openai", a, "m-0", retry_clock=retry_clock)
    with ai.Client(router=ai.Router({"solo": [spec]}, clock=clock)) as client:
        resp = client.chat.completions.create(model="solo", messages=USER)
    assert resp.model == "m-0" and a.attempts == 2
    assert retry_clock.waits == [] and clock.waits == [pytest.approx(3.0, abs=1e-3)]


def test_every_deployment_failing_raises_the_last_error_naming_them(
        servers: list[Deployment]) -> None:
    for server in servers:
        server.queue(Reply(503), Reply(503), Reply(503))
    with ai.Client(router=router("openai", servers, [1, 1, 1], clock=FakeClock())) as client:
        with pytest.raises(ai.InternalServerError) as info:
            client.chat.completions.create(model="smart", messages=USER)
    assert "router alias 'smart': every deployment failed" in str(info.value)
    assert len(info.value.fallback_errors) == 2  # type: ignore[attr-defined]
    # each deployment once; the last (nowhere else to go) with its own retries
    assert sorted(s.attempts for s in servers) == [1, 1, 3]


def test_when_every_deployment_cools_the_call_waits_or_raises_naming_them(
        servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"retry-after": "20"}))
    b.queue(Reply(429, {"retry-after": "5"}))
    clock = FakeClock()
    r = router("openai", [a, b], [1, 1], clock=clock, max_retry_wait=4)
    with ai.Client(router=r) as client:
        with pytest.raises(ai.RateLimitError) as info:
            client.chat.completions.create(model="smart", messages=USER)
        error = info.value
        text = str(error)
        assert "no deployment can take the call" in text
        assert "'openai:m-0': cooling down 20.0 s more after RateLimitError 429" in text
        assert "'openai:m-1': cooling down 5.0 s more after RateLimitError 429" in text
        assert error.retry_after == pytest.approx(5.0)
        assert [s.model for s in error.fallback_errors] == ["openai:m-0", "openai:m-1"] or \
            [s.model for s in error.fallback_errors] == ["openai:m-1", "openai:m-0"]
        assert a.attempts == 1 and b.attempts == 1 and clock.waits == []
        # with max_retry_wait=10 the next call waits the 5 s and is served by deployment 1
        r.max_retry_wait = 10
        resp = client.chat.completions.create(model="smart", messages=USER)
        assert resp.model == "m-1"
        assert clock.waits == [pytest.approx(5.0, abs=1e-3)]
        assert a.attempts == 1


def test_a_bad_request_is_raised_at_once_without_moving(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(400))
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=FakeClock())) as client:
        with pytest.raises(ai.BadRequestError):
            client.chat.completions.create(model="smart", messages=USER)
    assert a.attempts == 1 and b.attempts == 0


# --- streams ------------------------------------------------------------------------------------


def test_a_stream_moves_only_before_its_first_chunk(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Stream(cut_after=0, then="reset"))  # fails before a first chunk: moves
    a.queue(Stream(cut_after=2, then="reset"))  # fails after chunks: raised, not moved
    clock = FakeClock()
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=clock,
                                 cooldown=1)) as client:
        stream = client.chat.completions.create(model="smart", messages=USER, stream=True)
        chunks = list(stream)
        assert {c.model for c in chunks} == {"m-1"}
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == \
            "hello world"
        assert stream.get_final_response().fallback_errors[0].model == "openai:m-0"
        clock.sleep(1)  # deployment 0 cooled down
        stream = client.chat.completions.create(model="smart", messages=USER, stream=True)
        with pytest.raises(ai.APIConnectionError):
            list(stream)
    assert a.attempts == 2 and b.attempts == 1


# --- pacing: rpm, tpm, headers ----------------------------------------------------------------


def test_rpm_paces_the_calls(servers: list[Deployment]) -> None:
    a = servers[0]
    clock = FakeClock()
    spec = deployment("openai", a, "m-0", rpm=30)
    with ai.Client(router=ai.Router({"smart": [spec]}, clock=clock)) as client:
        for _ in range(30):
            client.chat.completions.create(model="smart", messages=USER)
        assert clock.waits == [] and a.attempts == 30  # a full minute's worth at once
        for _ in range(5):  # then one every 2 s
            client.chat.completions.create(model="smart", messages=USER)
        assert clock.waits == [pytest.approx(2.0, abs=1e-3)] * 5 and a.attempts == 35


def test_rpm_over_the_wait_budget_raises_before_sending(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    clock = FakeClock()
    specs = [deployment("openai", a, "m-0", rpm=2), deployment("openai", b, "m-1", rpm=1)]
    with ai.Client(router=ai.Router({"smart": specs}, clock=clock,
                                    max_retry_wait=0)) as client:
        for _ in range(3):
            client.chat.completions.create(model="smart", messages=USER)
        with pytest.raises(ai.RateLimitError) as info:
            client.chat.completions.create(model="smart", messages=USER)
    assert a.attempts == 2 and b.attempts == 1
    assert "'openai:m-0': request limit reached, free in 30.0 s" in str(info.value)
    assert "'openai:m-1': request limit reached, free in 60.0 s" in str(info.value)
    assert info.value.retry_after == pytest.approx(30.0)


def test_tpm_paces_by_the_tokens_the_replies_used(servers: list[Deployment]) -> None:
    a = servers[0]
    clock = FakeClock()
    # every reply says it used 5 tokens (the loopback's usage); 12 tokens a minute
    spec = deployment("openai", a, "m-0", tpm=12)
    with ai.Client(router=ai.Router({"smart": [spec]}, clock=clock)) as client:
        for _ in range(4):
            client.chat.completions.create(model="smart", messages=USER)
    assert a.attempts == 4
    # a call of "Hi" is estimated at 1 token; each reply corrects that to its 5: 12 - 5 - 5
    # leave 2, the third call takes 1 and uses 5 (-3); the fourth waits for 4 tokens, 20 s
    assert clock.waits == [pytest.approx(20.0, abs=1e-3)]


@pytest.mark.parametrize("transport", ["sdk", "native"])
@pytest.mark.parametrize("family", ["openai", "anthropic"])
def test_rate_limit_headers_hold_a_deployment_until_their_reset(
        family: str, transport: str, servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    if family == "openai":
        limited = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s",
                   "x-ratelimit-remaining-tokens": "10000", "x-ratelimit-reset-tokens": "1s"}
    else:
        reset = (datetime.now(timezone.utc) + timedelta(seconds=20)).isoformat()
        limited = {"anthropic-ratelimit-requests-remaining": "0",
                   "anthropic-ratelimit-requests-reset": reset.replace("+00:00", "Z")}
    a.queue(Reply(200, limited))  # served, saying it has no request left for 20 s
    clock = FakeClock()
    options = {"transport": "native"} if transport == "native" else {}
    specs = [deployment(family, s, f"m-{i}", weight=w, **options)
             for i, (s, w) in enumerate([(a, 1e9), (b, 1)])]
    with ai.Client(router=ai.Router({"smart": specs}, clock=clock)) as client:
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"
        for _ in range(10):
            assert client.chat.completions.create(model="smart", messages=USER).model == "m-1"
        assert a.attempts == 1 and clock.waits == []
        clock.sleep(20.5)
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"


@pytest.mark.parametrize("family", ["openai", "anthropic"])
@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_a_streams_rate_limit_headers_hold_its_deployment(
        family: str, mode: str, servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    if family == "openai":
        limited = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s"}
    else:
        reset = (datetime.now(timezone.utc) + timedelta(seconds=20)).isoformat()
        limited = {"anthropic-ratelimit-requests-remaining": "0",
                   "anthropic-ratelimit-requests-reset": reset.replace("+00:00", "Z")}
    a.queue(Stream(events=stream_events(family, "Hello", "m-0"), headers=limited))
    clock = FakeClock()
    r = router(family, [a, b], [1e9, 1], clock=clock)

    def models() -> list[str]:
        if mode == "stream":
            with ai.Client(router=r) as client:
                return [client.chat.completions.create(
                    model="smart", messages=USER, stream=True).get_final_response().model
                    for _ in range(3)]

        async def go() -> list[str]:
            async with ai.AsyncClient(router=r) as client:
                return [(await (await client.chat.completions.create(
                    model="smart", messages=USER, stream=True)).get_final_response()).model
                    for _ in range(3)]
        return asyncio.run(go())

    # the first stream's headers say deployment 0 has nothing left for 20 s
    assert models() == ["m-0", "m-1", "m-1"]
    assert a.attempts == 1 and clock.waits == []


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
def test_with_raw_response_over_an_alias_is_the_serving_deployments_reply(
        family: str, mode: str, servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"retry-after": "20"}))
    b.queue(Stream(events=stream_events(family, "Hello", "m-1"), headers={"x-served-by": "b"})
            if mode == "stream" else Reply(200, {"x-served-by": "b"},
                                           success_body(family, "Hello", "m-1")))
    r = router(family, [a, b], [1e9, 1], clock=FakeClock())
    if mode == "async":
        async def go() -> Any:
            async with ai.AsyncClient(router=r) as client:
                return await client.chat.completions.with_raw_response.create(
                    model="smart", messages=USER)
        raw = asyncio.run(go())
    else:
        with ai.Client(router=r) as client:
            raw = client.chat.completions.with_raw_response.create(
                model="smart", messages=USER, stream=mode == "stream")
            parsed = raw.parse()
            if mode == "stream":
                parsed = parsed.get_final_response()
    if mode == "async":
        parsed = raw.parse()
    assert a.attempts == 1 and b.attempts == 1
    assert raw.status_code == 200 and raw.headers["x-served-by"] == "b"
    assert raw.retries_taken == 0
    assert (parsed.provider, parsed.model) == (family, "m-1")


def test_remaining_requests_in_headers_are_used_up_then_held(
        servers: list[Deployment]) -> None:
    a = servers[0]
    a.queue(Reply(200, {"x-ratelimit-remaining-requests": "2",
                        "x-ratelimit-reset-requests": "10s"}))
    clock = FakeClock()
    spec = deployment("openai", a, "m-0")
    with ai.Client(router=ai.Router({"smart": [spec]}, clock=clock)) as client:
        for _ in range(4):
            client.chat.completions.create(model="smart", messages=USER)
    # one call, then the 2 the header allowed, then the 4th waits for the reset
    assert a.attempts == 4 and clock.waits == [pytest.approx(10.0, abs=1e-3)]


# --- the alias is a model everywhere ----------------------------------------------------------


def _offline_router(**options: Any) -> ai.Router:
    return ai.Router({"smart": [{"model": "test:a", "weight": 1},
                                {"model": "test:b", "weight": 1}]}, **options)


def test_the_alias_works_in_the_tool_runner_and_agents() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    client = ai.Client(router=_offline_router())
    resp = client.chat.completions.create(model="router:smart", messages=USER, tools=[add],
                                          max_turns=3)
    assert resp.model in ("a", "b") and resp.tool_events and resp.provider == "test"
    agent = ai.Agent(name="helper", model="router:smart", tools=[add])
    result = ai.Runner.run_sync(agent, "add", client=client)
    assert result.final_output

    async def run() -> Any:
        aclient = ai.AsyncClient(router=_offline_router())
        return await aclient.chat.completions.create(model="smart", messages=USER,
                                                     tools=[add], max_turns=3)
    assert asyncio.run(run()).tool_events


def test_agents_with_structured_output_over_an_alias() -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    agent = ai.Agent(name="helper", model="router:smart", output_type=Answer)
    result = ai.Runner.run_sync(agent, "hi", client=ai.Client(router=_offline_router()))
    assert isinstance(result.final_output, Answer)


def test_unused_fallbacks_of_a_routed_call_need_no_key(servers: list[Deployment],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The router path keeps fallbacks lazy: no anthropic key anywhere, never needed."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with ai.Client(router=router("openai", servers[:2], [1, 1], clock=FakeClock())) as c:
        resp = c.chat.completions.create(model="smart", messages=USER,
                                         fallbacks=["anthropic:claude-x"])
        assert resp.provider == "openai"
        stream = c.chat.completions.create(model="smart", messages=USER, stream=True,
                                           fallbacks=["anthropic:claude-x"])
        assert stream.get_final_response().provider == "openai"


def test_a_routed_call_falls_back_when_the_alias_is_exhausted(
        servers: list[Deployment]) -> None:
    a, b, c = servers
    a.queue(Reply(429, {"retry-after": "100"}))
    b.queue(Reply(429, {"retry-after": "100"}))
    configs = {"anthropic": {"api_key": KEYS["anthropic"], "base_url": c.url}}
    r = router("openai", [a, b], [1, 1], clock=FakeClock(), max_retry_wait=0)
    with ai.Client(configs, router=r) as client:
        resp = client.chat.completions.create(model="smart", messages=USER,
                                              fallbacks=["anthropic:claude-x"])
    assert (resp.provider, resp.model) == ("anthropic", "claude-x")
    assert [s.model for s in resp.fallback_errors] == ["smart"]


def test_chat_spans_name_the_deployment_that_was_tried(servers: list[Deployment],
                                                       otel: Any) -> None:
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"retry-after": "20"}))
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=FakeClock())) as c:
        c.chat.completions.create(model="smart", messages=USER)
    spans = otel.spans()
    seen = [(s.name, s.attributes.get("gen_ai.request.model"),
             s.attributes.get("server.port"), s.attributes.get("error.type"))
            for s in spans if s.name.startswith("chat")]
    assert seen == [("chat m-0", "m-0", a.port, "RateLimitError"),
                    ("chat m-1", "m-1", b.port, None)]
    text = repr([dict(s.attributes or {}) for s in spans])
    assert KEYS["openai"] not in text


# --- checks before anything is sent, secrets ---------------------------------------------------


@pytest.mark.parametrize("deployments,message", [
    ({}, "needs deployments"),
    ({"a:b": [{"model": "test:x"}]}, "alias must be a name without ':'"),
    ({"smart": []}, "non-empty list of deployments"),
    ({"smart": [{"model": "gpt-4o"}]},
     r"deployment #1: Invalid model format\. Expected 'provider:model'"),
    ({"smart": [{"model": "test:x", "weight": 0}]}, "weight must be a number > 0"),
    ({"smart": [{"model": "test:x", "rpm": -1}]}, "rpm must be a number > 0"),
    ({"smart": [{"model": "test:x", "tpm": "lots"}]}, "tpm must be a number > 0"),
    ({"smart": [{"model": "test:x", "name": "n"}, {"model": "test:y", "name": "n"}]},
     "names must be unique"),
])
def test_bad_deployments_are_refused_when_the_router_is_made(deployments: Any,
                                                             message: str) -> None:
    with pytest.raises(ai.ConfigurationError, match=message):
        ai.Router(deployments)


def test_bad_router_options_are_refused() -> None:
    good = {"smart": [{"model": "test:x"}]}
    with pytest.raises(ai.ConfigurationError, match="did you mean 'least-busy'"):
        ai.Router(good, strategy="least_busy")
    with pytest.raises(ai.ConfigurationError, match="cooldown must be a number of seconds > 0"):
        ai.Router(good, cooldown=0)
    with pytest.raises(ai.ConfigurationError, match="max_retry_wait"):
        ai.Router(good, max_retry_wait=-1)
    with pytest.raises(TypeError, match="state must be"):
        ai.Router(good, state=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"router must be an aisuite_like\.Router"):
        ai.Client(router=object())  # type: ignore[arg-type]
    with pytest.raises(ai.UnknownProviderError, match="nosuch"):
        ai.Client(router=ai.Router({"smart": [{"model": "nosuch:x"}]}))


def test_model_names_an_alias_or_a_provider() -> None:
    client = ai.Client(router=_offline_router())
    with pytest.raises(ai.InvalidModelError, match="its aliases: 'smart'"):
        client.chat.completions.create(model="smrt", messages=USER)
    with pytest.raises(ai.InvalidModelError, match="alias of this client's router"):
        client.chat.completions.create(model="router:nope", messages=USER)
    assert client.chat.completions.create(model="test:x", messages=USER).model == "x"
    with pytest.raises(ai.ConfigurationError, match="this client has no router"):
        ai.Client().chat.completions.create(model="router:smart", messages=USER)


def test_bad_arguments_of_a_routed_call_raise_before_anything_is_sent(
        servers: list[Deployment]) -> None:
    with ai.Client(router=router("openai", servers[:2], [1, 1])) as client:
        with pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model="smart", messages=USER, temperature="hot")
        with pytest.raises(TypeError, match="did you mean"):
            client.chat.completions.create(model="smart", messages=USER, temprature=1)
    assert servers[0].attempts == servers[1].attempts == 0


def test_a_deployment_without_a_key_says_which(servers: list[Deployment]) -> None:
    spec = {"model": "openai:m-0", "base_url": servers[0].url + "/v1", "max_retries": 0}
    with ai.Client(router=ai.Router({"smart": [spec]})) as client:
        with pytest.raises(ai.AuthenticationError,
                           match="router alias 'smart', deployment 'openai:m-0': no API key"):
            client.chat.completions.create(model="smart", messages=USER)


def test_no_key_in_any_repr_or_error(servers: list[Deployment]) -> None:
    key = KEYS["openai"]
    a = servers[0]
    a.queue(Reply(401, body={"error": {"message": f"bad key {key}", "type": "x"}}))
    r = router("openai", [a], [1])
    with ai.Client(router=r) as client:
        with pytest.raises(ai.AuthenticationError) as info:
            client.chat.completions.create(model="smart", messages=USER)
        texts = [repr(r), repr(client), str(info.value), repr(info.value),
                 repr(r.deployments("smart"))]
    assert not any(key in t for t in texts), texts


def test_the_callers_deployments_are_not_changed() -> None:
    specs = [{"model": "test:a", "api_key": "  tk-abc  ", "weight": 2}]
    before = [dict(s) for s in specs]
    ai.Router({"smart": specs})
    assert specs == before


def test_deployment_settings_make_providers_of_their_own(servers: list[Deployment]) -> None:
    a, b = servers[0], servers[1]
    # two deployments of one model on two endpoints, with two keys
    specs = [deployment("openai", a, "gpt-x", weight=1),
             deployment("openai", b, "gpt-x", weight=1, api_key="opn-Other-Key-7d1e")]
    r = ai.Router({"smart": specs})
    assert [d.name for d in r.deployments("smart")] == ["openai:gpt-x", "openai:gpt-x#2"]
    with ai.Client(router=r) as client:
        for _ in range(40):
            client.chat.completions.create(model="smart", messages=USER)
    assert a.attempts > 0 and b.attempts > 0
    assert {s.requests[0].headers["authorization"] for s in (a, b)} == {
        f"Bearer {KEYS['openai']}", "Bearer opn-Other-Key-7d1e"}


def test_with_options_keeps_the_router_and_applies_to_the_deployments(
        servers: list[Deployment]) -> None:
    a = servers[0]
    a.queue(Reply(503), Reply(503))
    r = ai.Router({"smart": [deployment("openai", a, "m-0", max_retries=2)]},
                  clock=FakeClock())
    with ai.Client(router=r) as client:
        copy = client.with_options(max_retries=0)
        with pytest.raises(ai.APIStatusError):  # the copy's max_retries=0 over the deployment's
            copy.chat.completions.create(model="smart", messages=USER)
        assert a.attempts == 1
        copy.close()
        # the original keeps the deployment's own max_retries=2: after the cool-down, a 503
        # retried, then served
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"
    assert a.attempts == 3


def test_import_aisuite_like_loads_no_redis() -> None:
    import subprocess
    import sys

    code = ("import sys, aisuite_like as ai; ai.Router; ai.router.RedisState; "
            "print('redis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_the_response_cache_answers_an_alias_before_it_is_routed(
        servers: list[Deployment]) -> None:
    """A hit sends nothing and takes nothing from the deployments' limits."""
    a = servers[0]
    spec = deployment("openai", a, "m-0", rpm=1)
    r = ai.Router({"smart": [spec]}, clock=FakeClock(), max_retry_wait=0)
    with ai.Client(cache=ai.cache.MemoryCache(), router=r) as client:
        first = client.chat.completions.create(model="smart", messages=USER)
        again = client.chat.completions.create(model="router:smart", messages=USER)
        assert (first.cache_hit, again.cache_hit) == (False, True)
        assert again.model == "m-0" and a.attempts == 1
        with pytest.raises(ai.RateLimitError):  # not from the cache: routed, rpm used up
            client.chat.completions.create(model="smart", messages=USER, cache=False)
    assert a.attempts == 1


@pytest.mark.parametrize("stream", [False, True])
def test_responses_create_routes_an_alias(servers: list[Deployment], stream: bool) -> None:
    """client.responses.create on an alias: the chat translation, routed like create."""
    a, b = servers[0], servers[1]
    a.queue(Reply(429, {"retry-after": "20"}))
    with ai.Client(router=router("openai", [a, b], [1e9, 1], clock=FakeClock())) as client:
        if stream:
            events = list(client.responses.create(model="smart", input="Hi", stream=True))
            response = events[-1].response
        else:
            response = client.responses.create(model="smart", input="Hi")
    assert response.output_text == "hello world" and response.model == "m-1"
    assert a.attempts == 1 and b.attempts == 1
    assert b.requests[0].path.endswith("/chat/completions")


# --- embeddings over an alias -------------------------------------------------------------------


def _embedding_reply(n: int, model: str) -> dict[str, Any]:
    return {"object": "list", "model": model,
            "data": [{"object": "embedding", "index": i, "embedding": [0.5, -0.25]}
                     for i in range(n)],
            "usage": {"prompt_tokens": n, "total_tokens": n}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_embeddings_over_an_alias_move_at_once_on_a_429(mode: str) -> None:
    import respx

    specs = [{"model": f"openai:e-{i}", "base_url": f"https://d{i}.example/v1",
              "api_key": KEYS["openai"], "weight": w} for i, w in enumerate([1e9, 1])]
    clock = FakeClock()
    r = ai.Router({"vectors": specs}, clock=clock)
    with respx.mock(using="httpcore2") as mock:
        a = mock.post("https://d0.example/v1/embeddings").mock(
            return_value=respx.MockResponse(429, headers={"retry-after": "20"},
                                         json={"error": {"message": "slow down"}}))
        b = mock.post("https://d1.example/v1/embeddings").mock(
            side_effect=lambda request: respx.MockResponse(
                200, json=_embedding_reply(len(json.loads(request.content)["input"]),
                                           "e-1")))

        def run(n: int) -> list[Any]:
            if mode == "sync":
                with ai.Client(router=r) as client:
                    return [client.embeddings.create(model="vectors", input=["a", "b"])
                            for _ in range(n)]

            async def go() -> list[Any]:
                async with ai.AsyncClient(router=r) as client:
                    return [await client.embeddings.create(model="vectors", input=["a", "b"])
                            for _ in range(n)]
            return asyncio.run(go())

        [first] = run(1)
        assert a.call_count == 1 and b.call_count == 1  # no retry of the 429, moved at once
        assert (first.provider, first.model, len(first.data)) == ("openai", "e-1", 2)
        assert clock.waits == []
        run(5)  # during the cool-down: all to deployment 1
        assert a.call_count == 1 and b.call_count == 6
        assert json.loads(b.calls[-1].request.content)["model"] == "e-1"


def test_embeddings_over_an_alias_are_checked_by_every_deployment_before_sending() -> None:
    r = ai.Router({"mixed": [{"model": "test:e"}, {"model": "anthropic:claude-x",
                                                    "api_key": KEYS["anthropic"]}]})
    with ai.Client(router=r) as client:
        with pytest.raises(ai.UnsupportedFeatureError,
                           match="router alias 'mixed', deployment 'anthropic:claude-x'"):
            client.embeddings.create(model="mixed", input="hi")


@pytest.mark.parametrize("kind", ["client's own", "own settings"])
def test_configure_moves_an_alias_to_the_new_config_on_its_next_call(
        servers: list[Deployment], kind: str) -> None:
    # a deployment's stack is kept between calls: configure() must still reach it
    first, second = servers[0], servers[1]
    spec = {"model": "openai:m-0"} if kind == "client's own" else \
        {"model": "openai:m-0", "max_retries": 0}
    config = {"api_key": KEYS["openai"], "base_url": first.url + "/v1"}
    with ai.Client({"openai": config}, router=ai.Router({"smart": [spec]})) as client:
        assert client.chat.completions.create(model="smart", messages=USER).model == "m-0"
        client.configure({"openai": {**config, "base_url": second.url + "/v1"}})
        client.chat.completions.create(model="smart", messages=USER)
    assert (len(first.requests), len(second.requests)) == (1, 1)


def test_instrument_after_the_first_routed_call_traces_the_next(
        servers: list[Deployment]) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    r = router("openai", servers[:1], [1])
    with ai.Client(router=r) as client:
        client.chat.completions.create(model="smart", messages=USER)
        ai.instrument(tracer_provider=tracer_provider)
        try:
            client.chat.completions.create(model="smart", messages=USER)
        finally:
            ai.uninstrument()
    assert len(exporter.get_finished_spans()) == 1
