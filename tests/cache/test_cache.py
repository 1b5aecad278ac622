"""The response cache (docs/cache.md), through the real SDKs on the loopback servers: a hit
sends nothing (the server counts what it received), returns a copy marked ``cache_hit`` that
costs 0, replays as a stream, and shows on the span; the key follows the request and never
credentials, headers or timeouts; ``cache=False`` bypasses; errors are never stored; each model
call of a tool run is looked up on its own; identical calls at the same time make one upstream
call. The shared stores (SQLite across processes, Redis across clients) are in
tests/test_cache_stores.py."""

from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from support.bedrock_server import BedrockServer, converse_text, isolate_aws, stream_text
from support.fault_server import Delay, FaultServer, Reply, Stream

import aisuite_like as ai
from aisuite_like.cache import MemoryCache, request_key
from aisuite_like.providers.base import ChatRequest

KEY = "sk-cache-secret-0123456789abcdefXYZ"
OTHER_KEY = "sk-cache-other-9876543210fedcbaQRS"
USER = [{"role": "user", "content": "Hi"}]
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-5",
          "google": "google:gemini-2.5-flash"}
FAMILIES = tuple(MODELS)


def config(family: str, url: str, key: str = KEY, **extra: Any) -> dict[str, Any]:
    base = url + "/v1" if family == "openai" else url
    return {family: {"base_url": base, "api_key": key, "max_retries": 0, **extra}}


def openai_client(server: FaultServer, cache: Any = None, **kwargs: Any) -> ai.Client:
    return ai.Client(config("openai", server.url),
                     cache=cache if cache is not None else MemoryCache(), **kwargs)


def stored_values(cache: MemoryCache) -> list[bytes]:
    return [value for value, _ in cache._entries.values()]


# --- hits ------------------------------------------------------------------------------------


def test_one_provider_key_at_two_endpoints_shares_no_entry(server: FaultServer) -> None:
    """An ``openai`` key pointed at another server (a local one, say) answers from its own
    entries, whatever cache the two clients share; the same endpoint with another key shares."""
    cache = MemoryCache()
    with FaultServer() as other:
        ai.Client(config("openai", server.url), cache=cache).chat.completions.create(
            model="openai:gpt-4o", messages=USER)
        again = ai.Client(config("openai", other.url), cache=cache).chat.completions.create(
            model="openai:gpt-4o", messages=USER)
        assert again.cache_hit is False and (server.attempts, other.attempts) == (1, 1)
    shared = ai.Client(config("openai", server.url, key=OTHER_KEY), cache=cache)
    assert shared.chat.completions.create(model="openai:gpt-4o", messages=USER).cache_hit
    assert server.attempts == 1
    assert not any(KEY.encode() in value or OTHER_KEY.encode() in value
                   for value in stored_values(cache))



@pytest.mark.parametrize("family", FAMILIES)
def test_a_hit_sends_nothing_and_replays_as_a_stream_on_every_family(
        family: str, server: FaultServer) -> None:
    cache = MemoryCache()
    cfg = config(family, server.url)
    client = ai.Client(cfg, cache=cache)
    first = client.chat.completions.create(model=MODELS[family], messages=USER)
    assert server.attempts == 1 and first.cache_hit is False
    assert first.content == "hello world"

    second = client.chat.completions.create(model=MODELS[family], messages=USER)
    assert server.attempts == 1  # nothing sent
    assert second.cache_hit is True and second is not first
    assert second.model_dump() == first.model_dump()
    assert second.usage is not None and second.usage.cost == 0.0
    assert "cache_hit" not in second.model_dump()

    stream = client.chat.completions.create(model=MODELS[family], messages=USER, stream=True)
    chunks = list(stream)
    assert chunks and all(c.cache_hit for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == \
        "hello world"
    assert chunks[-1].usage is not None
    final = stream.get_final_response()
    assert final.cache_hit and final.content == "hello world"
    assert final.usage is not None and final.usage.cost == 0.0

    async def run() -> tuple[Any, str]:
        async with ai.AsyncClient(cfg, cache=cache) as aclient:
            resp = await aclient.chat.completions.create(model=MODELS[family], messages=USER)
            astream = await aclient.chat.completions.create(model=MODELS[family],
                                                            messages=USER, stream=True)
            text = "".join([c.choices[0].delta.content or "" async for c in astream
                            if c.choices])
            return resp, text

    resp, text = asyncio.run(run())
    assert resp.cache_hit and resp.content == "hello world" and text == "hello world"
    assert server.attempts == 1


def test_a_hit_sends_nothing_on_bedrock(tmp_path: pathlib.Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_aws(monkeypatch, tmp_path)
    with BedrockServer() as server:
        server.reply(converse_text("hello bedrock"))
        client = ai.Client({"bedrock": server.config(max_retries=0)}, cache=MemoryCache())
        model = "bedrock:anthropic.claude-v1:0"
        first = client.chat.completions.create(model=model, messages=USER)
        second = client.chat.completions.create(model=model, messages=USER)
        stream = client.chat.completions.create(model=model, messages=USER, stream=True)
        final = stream.get_final_response()
        assert len(server.requests) == 1
    assert first.cache_hit is False and second.cache_hit and final.cache_hit
    assert second.content == final.content == "hello bedrock"


def test_a_streamed_miss_is_stored_when_read_to_its_end_and_serves_plain_calls(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_aws(monkeypatch, tmp_path)
    with BedrockServer() as server:
        server.reply(stream_text("hello ", "stream"), stream_text("hello ", "stream"))
        client = ai.Client({"bedrock": server.config(max_retries=0)}, cache=MemoryCache())
        model = "bedrock:anthropic.claude-v1:0"
        with client.chat.completions.create(model=model, messages=USER, stream=True) as s:
            next(iter(s))  # closed after its first chunk: not stored
        stream = client.chat.completions.create(model=model, messages=USER, stream=True)
        assert stream.get_final_response().cache_hit is False
        hit = client.chat.completions.create(model=model, messages=USER)
        assert len(server.requests) == 2
    assert hit.cache_hit and hit.content == "hello stream"
    assert hit.choices[0].finish_reason == "stop"


def test_thinking_tool_calls_and_signatures_survive_the_store_and_the_replay(
        server: FaultServer) -> None:
    body = {"id": "msg_9", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "thinking", "thinking": "Add them.", "signature": "c2ln=="},
                        {"type": "text", "text": "Adding."},
                        {"type": "tool_use", "id": "toolu_1", "name": "add",
                         "input": {"a": 1, "b": 2}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 20,
                      "cache_read_input_tokens": 4}}
    server.queue(Reply(body=body))
    client = ai.Client(config("anthropic", server.url), cache=MemoryCache())
    first = client.chat.completions.create(model=MODELS["anthropic"], messages=USER)
    hit = client.chat.completions.create(model=MODELS["anthropic"], messages=USER)
    replay = client.chat.completions.create(model=MODELS["anthropic"], messages=USER,
                                            stream=True).get_final_response()
    assert server.attempts == 1
    message = first.choices[0].message
    assert message.reasoning_content == "Add them." and message.provider_specific_fields
    assert hit.choices[0].message.model_dump() == message.model_dump()
    assert hit.usage == first.usage
    replayed = replay.choices[0].message
    for field in ("content", "reasoning_content", "tool_calls", "provider_specific_fields"):
        assert getattr(replayed, field) == getattr(message, field), field
    assert replay.choices[0].finish_reason == "tool_calls"
    # The hit, sent back as the next turn, carries the signature as the first did.
    server.queue(Reply())
    client.chat.completions.create(model=MODELS["anthropic"], messages=[
        *USER, hit.choices[0].message, {"role": "tool", "tool_call_id": "toolu_1",
                                        "content": "3"}])
    sent = server.requests[-1].body["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "Add them.", "signature": "c2ln=="}


def test_a_hit_is_a_copy_the_caller_may_change(server: FaultServer) -> None:
    client = openai_client(server)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    hit = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    hit.choices[0].message.content = "changed"
    again = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert again.content == "hello world" and server.attempts == 1


# --- the key ---------------------------------------------------------------------------------


def test_the_key_follows_the_request_never_credentials_headers_or_timeouts(
        server: FaultServer) -> None:
    cache = MemoryCache()
    a = ai.Client(config("openai", server.url), cache=cache)
    b = ai.Client(config("openai", server.url, key=OTHER_KEY), cache=cache)
    create_a, create_b = a.chat.completions.create, b.chat.completions.create
    create_a(model="openai:gpt-4o", messages=USER, temperature=0.5)
    assert server.attempts == 1
    # Another key, a timeout, headers, max_completion_tokens for max_tokens: the same entry.
    hit = create_b(model="openai:gpt-4o", messages=USER, temperature=0.5, timeout=30,
                   extra_headers={"X-Trace": "1"})
    assert hit.cache_hit and server.attempts == 1
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    # Anything that changes the answer is another entry.
    create_a(model="openai:gpt-4o", messages=USER, temperature=0.7)
    create_a(model="openai:gpt-4o-mini", messages=USER, temperature=0.5)
    create_a(model="openai:gpt-4o", messages=[*USER, {"role": "user", "content": "More"}],
             temperature=0.5)
    create_a(model="openai:gpt-4o", messages=USER, temperature=0.5, logit_bias={"1": 2})
    create_a(model="openai:gpt-4o", messages=USER, temperature=0.5, max_tokens=9)
    assert server.attempts == 6
    assert [r.body.get("logit_bias") for r in server.requests] == \
        [None, None, None, None, {"1": 2}, None]


def test_request_key_is_canonical() -> None:
    base = ChatRequest(model="m", messages=[{"role": "user", "content": "Hi"}],
                       temperature=1)
    key = request_key("openai", base)
    assert len(key) == 64 and int(key, 16) >= 0
    same = [
        base.replace(temperature=1.0),
        base.replace(messages=[{"content": "Hi", "role": "user", "name": None}]),
        base.replace(timeout=5.0, stream=True, stream_options={"include_usage": True}),
        base.replace(extra={"extra_headers": {"Authorization": "Bearer x"}, "timeout": 3,
                            "api_key": "sk-x", "x_client_secret": "s", "session_token": "t"}),
        base.replace(max_tokens_as="max_completion_tokens"),
        base.replace(prompt_cache="auto"),
    ]
    assert all(request_key("openai", r) == key for r in same)
    different = [
        request_key("anthropic", base),
        request_key("openai", base.replace(model="m2")),
        request_key("openai", base.replace(temperature=0.5)),
        request_key("openai", base.replace(top_p=0.5)),
        request_key("openai", base.replace(seed=1)),
        request_key("openai", base.replace(reasoning_effort="high")),
        request_key("openai", base.replace(stop=["x"])),
        request_key("openai", base.replace(user="u1")),
        request_key("openai", base.replace(tool_choice="none")),
        request_key("openai", base.replace(response_format={"type": "json_object"})),
        request_key("openai", base.replace(tools=[{"type": "function",
                                                    "function": {"name": "f"}}])),
        request_key("openai", base.replace(extra={"top_k": 3})),
        request_key("openai", base.replace(extra={"extra_body": {"x": 1}})),
        request_key("openai", base.replace(messages=[{"role": "user", "content": "Ho"}])),
    ]
    assert len({key, *different}) == len(different) + 1


def test_a_request_the_cache_cannot_key_is_refused_before_anything_is_sent(
        server: FaultServer) -> None:
    client = openai_client(server)
    with pytest.raises(TypeError, match="cache=False"):
        client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                       extra_body={"x": object()})
    assert server.attempts == 0


# --- bypass, errors, expiry ------------------------------------------------------------------


def test_cache_false_neither_reads_nor_stores(server: FaultServer) -> None:
    client = openai_client(server)
    create = client.chat.completions.create
    assert create(model="openai:gpt-4o", messages=USER, cache=False).cache_hit is False
    assert create(model="openai:gpt-4o", messages=USER).cache_hit is False  # not stored
    assert create(model="openai:gpt-4o", messages=USER).cache_hit is True
    assert create(model="openai:gpt-4o", messages=USER, cache=False).cache_hit is False
    assert create(model="openai:gpt-4o", messages=USER, cache=True).cache_hit is True
    assert server.attempts == 3


def test_errors_are_never_stored(server: FaultServer) -> None:
    client = openai_client(server)
    create = client.chat.completions.create
    server.queue(Reply(500), Stream(cut_after=2, then="close"))
    with pytest.raises(ai.InternalServerError):
        create(model="openai:gpt-4o", messages=USER)
    with pytest.raises(ai.APIConnectionError):
        "".join(c.choices[0].delta.content or ""
                for c in create(model="openai:gpt-4o", messages=USER, stream=True))
    assert create(model="openai:gpt-4o", messages=USER).cache_hit is False
    assert create(model="openai:gpt-4o", messages=USER).cache_hit is True
    assert server.attempts == 3


def test_entries_expire_after_cache_ttl(server: FaultServer) -> None:
    client = openai_client(server, cache_ttl=0.3)
    create = client.chat.completions.create
    create(model="openai:gpt-4o", messages=USER)
    assert create(model="openai:gpt-4o", messages=USER).cache_hit
    time.sleep(0.4)
    assert create(model="openai:gpt-4o", messages=USER).cache_hit is False
    assert server.attempts == 2


def test_memory_cache_drops_the_least_recently_used_entry() -> None:
    cache = MemoryCache(maxsize=2)
    cache.set("a", b"1", None)
    cache.set("b", b"2", None)
    assert cache.get("a") == b"1"  # a is now the most recently used
    cache.set("c", b"3", None)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (b"1", None, b"3", 2)
    cache.set("d", b"4", 0.05)
    time.sleep(0.1)
    assert cache.get("d") is None
    cache.delete("a")
    cache.clear()
    assert len(cache) == 0


# --- tool runs, fallbacks --------------------------------------------------------------------


def _tool_call_body(a: int, b: int) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [{
                    "id": "call_1", "type": "function", "function": {
                        "name": "add", "arguments": json.dumps({"a": a, "b": b})}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}


def test_each_model_call_of_a_tool_run_is_looked_up_on_its_own(server: FaultServer) -> None:
    offset = [0]
    executed: list[int] = []

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        executed.append(a + b)
        return a + b + offset[0]

    client = openai_client(server)

    def run() -> Any:
        return client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                              tools=[add], max_turns=3)

    server.queue(Reply(body=_tool_call_body(1, 2)), Reply(text="three"))
    first = run()
    assert server.attempts == 2 and first.content == "three"
    second = run()  # both model calls answered by the cache; the tool runs again
    assert server.attempts == 2 and executed == [3, 3]
    assert second.cache_hit and second.intermediate_responses[0].cache_hit
    assert second.content == "three" and second.usage is not None
    assert second.usage.cost == 0.0
    offset[0] = 10  # the tool's result changes: the second model call is another request
    server.queue(Reply(text="thirteen"))
    third = run()
    assert server.attempts == 3 and executed == [3, 3, 3]
    assert third.intermediate_responses[0].cache_hit and not third.cache_hit
    assert third.content == "thirteen"
    assert server.requests[-1].body["messages"][-1]["content"] == "13"


def test_each_model_a_fallback_chain_tries_is_looked_up_on_its_own(server: FaultServer) -> None:
    cfg = {**config("openai", server.url), **config("anthropic", server.url)}
    client = ai.Client(cfg, cache=MemoryCache())

    def call() -> Any:
        return client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                              fallbacks=[MODELS["anthropic"]])

    server.queue(Reply(429), Reply(), Reply(429))
    first = call()
    assert first.provider == "anthropic" and not first.cache_hit
    second = call()  # the failed model is tried again (errors are not stored); the next hits
    assert second.provider == "anthropic" and second.cache_hit
    assert [s.model for s in second.fallback_errors] == ["openai:gpt-4o"]
    assert [r.format for r in server.requests] == ["openai", "anthropic", "openai"]


# --- single flight ---------------------------------------------------------------------------


def test_identical_calls_at_once_make_one_upstream_call(server: FaultServer) -> None:
    client = openai_client(server)
    server.queue(Delay(1.0))
    barrier = threading.Barrier(6)
    results: list[Any] = []

    def call() -> None:
        barrier.wait()
        results.append(client.chat.completions.create(model="openai:gpt-4o", messages=USER))

    threads = [threading.Thread(target=call) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert server.attempts == 1
    assert sorted(r.cache_hit for r in results) == [False] + [True] * 5
    assert {r.content for r in results} == {"hello world"}


def test_identical_async_calls_at_once_make_one_upstream_call(server: FaultServer) -> None:
    server.queue(Delay(0.5))

    async def run() -> list[Any]:
        async with ai.AsyncClient(config("openai", server.url), cache=MemoryCache()) as c:
            return await asyncio.gather(*[c.chat.completions.create(
                model="openai:gpt-4o", messages=USER) for _ in range(6)])

    results = asyncio.run(run())
    assert server.attempts == 1
    assert sorted(r.cache_hit for r in results) == [False] + [True] * 5


def test_calls_waiting_on_a_failing_call_share_its_error_and_nothing_is_stored(
        server: FaultServer) -> None:
    client = openai_client(server)
    server.queue(Delay(1.0, Reply(503)))
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def call() -> None:
        barrier.wait()
        try:
            client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        except ai.APIError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert server.attempts == 1 and len(errors) == 4
    assert all(isinstance(e, ai.InternalServerError) for e in errors)
    assert client.chat.completions.create(model="openai:gpt-4o",
                                          messages=USER).cache_hit is False
    assert server.attempts == 2


def test_a_cancelled_first_call_lets_the_waiting_ones_call(server: FaultServer) -> None:
    server.queue(Delay(1.0))

    async def run() -> Any:
        async with ai.AsyncClient(config("openai", server.url), cache=MemoryCache()) as c:
            def call() -> Any:
                return c.chat.completions.create(model="openai:gpt-4o", messages=USER)

            first = asyncio.create_task(call())
            await asyncio.sleep(0.2)
            second = asyncio.create_task(call())
            await asyncio.sleep(0.1)
            first.cancel()
            return await asyncio.wait_for(second, 10)

    response = asyncio.run(run())
    assert response.content == "hello world" and response.cache_hit is False
    assert server.attempts == 2


def test_a_provider_that_calls_the_client_again_with_the_same_request_does_not_wait_on_itself(
) -> None:
    from aisuite_like.testing import FunctionProvider

    depth = [0]
    client: ai.Client

    def answer(messages: list[dict[str, Any]], tools: Any, **kwargs: Any) -> str:
        depth[0] += 1
        if depth[0] == 1:  # the same request, from inside the first call
            return "outer saw: " + str(client.chat.completions.create(
                model="fn:m", messages=messages).content)
        return "inner"

    client = ai.Client(providers={"fn": FunctionProvider(answer)}, cache=MemoryCache())
    done = threading.Event()
    out: list[Any] = []

    def run() -> None:
        out.append(client.chat.completions.create(model="fn:m", messages=USER))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(10), "the nested call waited on itself"
    assert out[0].content == "outer saw: inner"


# --- secrets ---------------------------------------------------------------------------------


def test_no_key_in_the_store_and_a_response_echoing_one_is_not_stored(
        server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    cache = MemoryCache()
    client = openai_client(server, cache=cache)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    server.queue(Reply(text=f"your key is {KEY}"), Reply(text=f"your key is {KEY}"))
    messages = [{"role": "user", "content": "What is my key?"}]
    with caplog.at_level(logging.WARNING, logger="aisuite_like.cache"):
        client.chat.completions.create(model="openai:gpt-4o", messages=messages)
        again = client.chat.completions.create(model="openai:gpt-4o", messages=messages)
    assert again.cache_hit is False and server.attempts == 3
    assert "holds a configured API key" in caplog.text and KEY not in caplog.text
    values = stored_values(cache)
    assert len(values) == 1
    assert all(KEY.encode() not in v for v in values)
    assert all(KEY not in k for k in cache._entries)


# --- observability ---------------------------------------------------------------------------


def test_the_chat_span_says_whether_the_cache_answered(server: FaultServer, otel: Any) -> None:
    client = openai_client(server)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    list(client.chat.completions.create(model="openai:gpt-4o", messages=USER, stream=True))
    ai.Client(config("openai", server.url)).chat.completions.create(
        model="openai:gpt-4o", messages=USER)
    spans = otel.named("chat gpt-4o")
    points = otel.points
    assert [s.attributes.get("aisuite_like.cache_hit") for s in spans] == \
        [False, True, True, None]
    assert spans[1].attributes["gen_ai.usage.input_tokens"] == 3
    tokens = points("gen_ai.client.token.usage")
    # Input and output tokens of the two calls sent, none of the hits.
    assert sum(p.count for _, p in tokens) == 4
    assert all(a.get("aisuite_like.cache_hit") is not True for a, _ in tokens)
    durations = points("gen_ai.client.operation.duration")
    assert sorted(str(a.get("aisuite_like.cache_hit")) for a, _ in durations) == \
        ["False", "None", "True"]
    assert all(KEY not in str(dict(s.attributes or {})) for s in spans)


# --- configuration ---------------------------------------------------------------------------


def test_bad_cache_settings_are_refused_before_anything_is_sent(server: FaultServer) -> None:
    with pytest.raises(TypeError, match="MemoryCache"):
        ai.Client(cache=object())  # type: ignore[arg-type]
    for ttl in (0, -1, float("nan"), float("inf"), "60", True):
        with pytest.raises(ValueError, match="cache_ttl"):
            ai.Client(cache=MemoryCache(), cache_ttl=ttl)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cache="):
        ai.Client(cache_ttl=60)
    with pytest.raises(ValueError, match="maxsize"):
        MemoryCache(maxsize=0)
    plain = ai.Client(config("openai", server.url))
    with pytest.raises(ValueError, match="needs a response cache"):
        plain.chat.completions.create(model="openai:gpt-4o", messages=USER, cache=True)
    client = openai_client(server)
    with pytest.raises(ai.UnsupportedParameterError, match="cache"):
        client.chat.completions.create(model="openai:gpt-4o", messages=USER, cache="no")
    with pytest.raises(TypeError, match="did you mean 'cache'"):
        client.chat.completions.create(model="openai:gpt-4o", messages=USER, cahce=False)
    assert plain.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                         cache=False).cache_hit is False
    assert server.attempts == 1


def test_a_batch_refuses_cache() -> None:
    client = ai.Client({"openai": {"api_key": KEY}}, cache=MemoryCache())
    with pytest.raises(ValueError, match="response cache"):
        client.batches.create([{"custom_id": "a", "model": "openai:gpt-4o",
                                "messages": USER, "cache": True}])


def test_import_loads_no_redis_and_redis_cache_names_its_extra() -> None:
    code = ("import sys, aisuite_like as ai\n"
            "c = ai.Client(cache=ai.cache.MemoryCache())\n"
            "assert c.chat.completions.create(model='test:m', messages=[{'role': 'user', "
            "'content': 'x'}]).content\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'redis'))\n"
            "sys.modules['redis'] = None\n"
            "try:\n"
            "    ai.cache.RedisCache('redis://localhost:1/0')\n"
            "except ai.MissingDependencyError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[]"
    assert "pip install 'aisuite-like[redis]'" in lines[1]


# --- a streamed call replayed as it was streamed -----------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_a_streamed_hit_replays_the_chunks_as_they_were_stored(
        family: str, store: str, server: FaultServer, tmp_path: pathlib.Path) -> None:
    """A UI that streams sees the answer arrive in the pieces it first came in, not the whole
    text at once; the chunks are marked as hits and the final response is the same."""
    cache: Any = MemoryCache() if store == "memory" else ai.cache.SQLiteCache(
        tmp_path / "cache.db")
    server.queue(Stream(text="one two three four"))
    client = ai.Client(config(family, server.url), cache=cache)
    kwargs = {"model": MODELS[family], "messages": USER, "stream": True}

    def pieces(chunks: list[Any]) -> list[str]:
        return [c.choices[0].delta.content for c in chunks
                if c.choices and c.choices[0].delta.content]

    with client.chat.completions.create(**kwargs) as first:
        missed = list(first)
        missed_final = first.get_final_response()
    with client.chat.completions.create(**kwargs) as second:
        hit = list(second)
        hit_final = second.get_final_response()
    assert server.attempts == 1
    assert len(pieces(missed)) == 4 and pieces(hit) == pieces(missed)
    assert all(c.cache_hit for c in hit) and not any(c.cache_hit for c in missed)
    assert [c.id for c in hit] == [c.id for c in missed]
    assert hit_final.content == missed_final.content == "one two three four"
    assert hit_final.cache_hit  # usage as streamed (an OpenAI stream has none unasked)
    assert hit_final.usage is None or hit_final.usage.cost == 0

    async def replay() -> list[str]:
        async with ai.AsyncClient(config(family, server.url), cache=cache) as aclient:
            stream = await aclient.chat.completions.create(**kwargs)
            return pieces([c async for c in stream])

    assert asyncio.run(replay()) == pieces(missed)
    plain = client.chat.completions.create(model=MODELS[family], messages=USER)
    assert plain.cache_hit and plain.content == "one two three four"  # serves plain calls too
    assert server.attempts == 1
