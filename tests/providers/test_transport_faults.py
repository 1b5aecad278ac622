"""Transport faults on the three families, through the real SDKs, against the project's own
loopback fault server (tests/support/fault_server.py): retries and their waits, timeouts, resets,
truncated and stalled streams, cancellation, concurrency bounds, fallbacks. Every failing
case also checks that the API key shows in no exception text, traceback, repr or log record.

Every case runs on both transports, the SDK's and the native one (tests/support/transports.py). Each
case records its outcome per family; with ``AISUITE_FAULT_MATRIX=<path>`` set, the
outcomes are written there as JSON (``scripts/fault_matrix.py`` renders them into
docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

import pytest
from support.bedrock_server import isolate_aws
from support.fault_server import (
    Delay,
    FaultServer,
    MatrixOutcomes,
    Reply,
    Reset,
    Stall,
    Stream,
    Trickle,
    error_body,
)
from support.timing import scaled
from support.transports import each_transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.testing import FakeClock

FAMILIES = ("openai", "anthropic", "google")
MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x", "google": "google:gemini-x"}
# Not key-shaped on purpose: only the redaction of configured secrets can hide them.
KEYS = {"openai": "opn-Secret-4f8a1c9e7b2d", "anthropic": "ant-Secret-9c2e7f1a3b5d",
        "google": "ggl-Secret-1b3d5f7a9c2e"}
USER = [{"role": "user", "content": "hi"}]

_OUTCOMES = MatrixOutcomes()
record = _OUTCOMES.record


@pytest.fixture(scope="module", autouse=True)
def _write_matrix() -> Iterator[None]:
    yield
    _OUTCOMES.write()


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    server.reset()
    caplog.set_level(logging.DEBUG)  # the root logger: every library's DEBUG records


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def config(family: str, server: FaultServer, clock: Optional[FakeClock] = None,
           **extra: Any) -> dict[str, Any]:
    base_url = server.url + "/v1" if family == "openai" else server.url
    cfg: dict[str, Any] = {"api_key": KEYS[family], "base_url": base_url, **extra}
    if clock is not None:
        cfg["retry_clock"] = clock
    return with_transport({family: cfg})


def create(family: str, server: FaultServer, clock: Optional[FakeClock] = None,
           mode: str = "sync", cfg: Optional[dict[str, Any]] = None, **kwargs: Any) -> Any:
    configs = config(family, server, clock, **(cfg or {}))
    if mode == "sync":
        with ai.Client(configs) as client:
            return client.chat.completions.create(model=MODELS[family], messages=USER,
                                                  **kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(configs) as client:
            return await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                        **kwargs)
    return asyncio.run(run())


def stream_text(family: str, server: FaultServer, clock: FakeClock, mode: str = "sync",
                seen: Optional[list[str]] = None, **kwargs: Any) -> str:
    """Stream a reply; the text pieces the caller saw go to ``seen`` as they arrive."""
    seen = [] if seen is None else seen
    configs = config(family, server, clock, **kwargs.pop("cfg", {}))
    if mode == "sync":
        with ai.Client(configs) as client:
            with client.chat.completions.create(model=MODELS[family], messages=USER,
                                                stream=True, **kwargs) as stream:
                for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        seen.append(chunk.choices[0].delta.content)
        return "".join(seen)

    async def run() -> str:
        async with ai.AsyncClient(configs) as client:
            stream = await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                          stream=True, **kwargs)
            async with stream:
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        seen.append(chunk.choices[0].delta.content)
        return "".join(seen)
    return asyncio.run(run())


def assert_no_key(family: str, exc: BaseException, caplog: pytest.LogCaptureFixture) -> None:
    key = KEYS[family]
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    for rec in caplog.records:
        texts.append(rec.getMessage())
        texts.append(repr(rec.args))
        if rec.exc_info:
            texts.append("".join(traceback.format_exception(*rec.exc_info)))
    for text in texts:
        assert key not in text


# --- retries and waits ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_429_retry_after_seconds_is_honoured(family: str, mode: str, server: FaultServer) -> None:
    server.queue(Reply(429, {"retry-after": "3"}))
    clock = FakeClock()
    resp = create(family, server, clock, mode)
    assert resp.content == "hello world"
    assert server.attempts == 2 and clock.waits == [3.0]
    record("429 with Retry-After: 3", family, "retried after 3 s; success on attempt 2")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_429_retry_after_ms_is_honoured(family: str, mode: str, server: FaultServer) -> None:
    server.queue(Reply(429, {"retry-after-ms": "250"}), Reply(429, {"retry-after-ms": "40"}))
    clock = FakeClock()
    resp = create(family, server, clock, mode)
    assert resp.content == "hello world"
    assert server.attempts == 3 and clock.waits == [0.25, 0.04]
    record("429 with retry-after-ms", family, "retried after the asked waits; success")


@pytest.mark.parametrize("headers", [
    {"retry-after": "0"}, {"retry-after": "-5"}, {"retry-after": "NaN"},
    {"retry-after": "inf"}, {"retry-after-ms": "0"}, {"retry-after-ms": "-250"},
    {"retry-after-ms": "nan", "retry-after": "0"}])
def test_429_retry_after_zero_negative_or_nan_backs_off(family: str, headers: dict[str, str],
                                                        server: FaultServer) -> None:
    """A demand that is no usable wait (0, negative, NaN, infinite) is not honoured: the
    exponential backoff applies, so a server answering this forever cannot make a client
    hammer it."""
    server.queue(*[Reply(429, headers)] * 2)
    clock = FakeClock()
    assert create(family, server, clock).content == "hello world"
    assert server.attempts == 3 and clock.waits == [0.5, 1.0]
    server.reset()
    server.queue(*[Reply(429, headers)] * 3)
    with pytest.raises(ai.RateLimitError) as info:
        create(family, server, FakeClock())
    assert info.value.retry_after is None
    record("429 with Retry-After: 0, negative, NaN or infinite (or retry-after-ms)", family,
           "exponential backoff (0.5 s, 1 s); the demand is ignored")


def test_429_demand_over_max_retry_wait_fails_at_once(
        family: str, server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    server.queue(Reply(429, {"retry-after": "120"}))
    clock = FakeClock()
    with pytest.raises(ai.RateLimitError) as info:
        create(family, server, clock)
    assert info.value.retry_after == 120.0 and info.value.status_code == 429
    assert server.attempts == 1 and clock.waits == []
    assert_no_key(family, info.value, caplog)
    record("429 asking 120 s (> max_retry_wait 60 s)", family,
           "RateLimitError(retry_after=120) at once, 1 attempt")


def test_429_over_a_configured_max_retry_wait(family: str, server: FaultServer) -> None:
    server.queue(Reply(429, {"retry-after": "5"}))
    with pytest.raises(ai.RateLimitError) as info:
        create(family, server, FakeClock(), cfg={"max_retry_wait": 2})
    assert info.value.retry_after == 5.0 and server.attempts == 1


@pytest.mark.parametrize("status", [500, 502, 503])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_5xx_then_success(family: str, status: int, mode: str, server: FaultServer) -> None:
    server.queue(Reply(status), Reply(status))
    clock = FakeClock()
    resp = create(family, server, clock, mode)
    assert resp.content == "hello world"
    # exponential backoff without a Retry-After: 0.5 s, then 1 s (jitter 0 on the fake clock)
    assert server.attempts == 3 and clock.waits == [0.5, 1.0]
    record(f"{status} twice, then 200", family, "retried (0.5 s, 1 s); success on attempt 3")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_5xx_persistent_gives_up_after_max_retries(
        family: str, mode: str, server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    server.queue(*[Reply(503)] * 5)
    clock = FakeClock()
    with pytest.raises(ai.InternalServerError) as info:
        create(family, server, clock, mode)
    assert info.value.status_code == 503 and info.value.provider == family
    assert server.attempts == 3 and clock.waits == [0.5, 1.0]
    assert_no_key(family, info.value, caplog)
    record("503 on every attempt", family, "InternalServerError after 3 attempts")


def test_503_retry_after_is_honoured(family: str, server: FaultServer) -> None:
    server.queue(Reply(503, {"retry-after": "7"}))
    clock = FakeClock()
    assert create(family, server, clock).content == "hello world"
    assert clock.waits == [7.0]


def test_backoff_is_capped_and_jittered(family: str, server: FaultServer) -> None:
    server.queue(*[Reply(500)] * 6)
    clock = FakeClock(jitter=0.999)
    assert create(family, server, clock, cfg={"max_retries": 6}).content == "hello world"
    base = [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert server.attempts == 7
    assert all(0.75 * b <= w < b for w, b in zip(clock.waits, base)), clock.waits


def test_max_retries_zero_is_one_attempt(family: str, server: FaultServer) -> None:
    server.queue(Reply(503))
    clock = FakeClock()
    with pytest.raises(ai.InternalServerError):
        create(family, server, clock, cfg={"max_retries": 0})
    assert server.attempts == 1 and clock.waits == []
    record("503 with max_retries=0", family, "InternalServerError, 1 attempt")


@pytest.mark.parametrize("status", [408, 409])
def test_408_and_409_are_retried(family: str, status: int, server: FaultServer) -> None:
    server.queue(Reply(status))
    clock = FakeClock()
    assert create(family, server, clock).content == "hello world"
    assert server.attempts == 2 and clock.waits == [0.5]


@pytest.mark.parametrize("status,error", [(400, ai.BadRequestError),
                                          (401, ai.AuthenticationError),
                                          (403, ai.PermissionDeniedError),
                                          (404, ai.NotFoundError)])
def test_other_4xx_are_never_retried(family: str, status: int, error: type,
                                     server: FaultServer,
                                     caplog: pytest.LogCaptureFixture) -> None:
    server.queue(Reply(status))
    clock = FakeClock()
    with pytest.raises(error) as info:
        create(family, server, clock)
    assert server.attempts == 1 and clock.waits == []
    assert_no_key(family, info.value, caplog)
    record(f"{status}", family, f"{error.__name__}, 1 attempt (never retried)")


def test_a_key_echoed_by_the_server_is_redacted(family: str, server: FaultServer,
                                                caplog: pytest.LogCaptureFixture) -> None:
    body = error_body({"openai": "openai", "anthropic": "anthropic", "google": "gemini"}[family],
                      401, f"invalid api key {KEYS[family]}")
    server.queue(Reply(401, body=body))
    with pytest.raises(ai.AuthenticationError) as info:
        create(family, server, FakeClock())
    assert "[REDACTED]" in str(info.value)
    assert_no_key(family, info.value, caplog)
    record("401 echoing the key", family, "AuthenticationError, key redacted")


# --- connection faults ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("mid_body", [False, True], ids=["before-reply", "mid-body"])
def test_reset_is_retried(family: str, mode: str, mid_body: bool, server: FaultServer) -> None:
    server.queue(Reset(mid_body=mid_body))
    clock = FakeClock()
    assert create(family, server, clock, mode).content == "hello world"
    assert server.attempts == 2 and clock.waits == [0.5]
    record(f"connection reset {'mid-body' if mid_body else 'before the reply'}", family,
           "retried; success on attempt 2")


def test_persistent_reset_names_the_host(family: str, server: FaultServer,
                                         caplog: pytest.LogCaptureFixture) -> None:
    server.queue(*[Reset()] * 3)
    with pytest.raises(ai.APIConnectionError) as info:
        create(family, server, FakeClock())
    assert f"127.0.0.1:{server.port}" in str(info.value)
    assert family in str(info.value)
    assert server.attempts == 3
    assert_no_key(family, info.value, caplog)
    record("connection reset on every attempt", family,
           "APIConnectionError naming the host after 3 attempts")


def test_refused_connection_names_the_host(family: str, caplog: pytest.LogCaptureFixture) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if family == "openai" else "")
    clock = FakeClock()
    client = ai.Client(with_transport({family: {"api_key": KEYS[family], "base_url": base,
                                                "retry_clock": clock}}))
    with pytest.raises(ai.APIConnectionError) as info:
        client.chat.completions.create(model=MODELS[family], messages=USER)
    assert f"127.0.0.1:{port}" in str(info.value)
    assert clock.waits == [0.5, 1.0]
    assert_no_key(family, info.value, caplog)
    record("connection refused", family, "APIConnectionError naming the host after 3 attempts")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_server_that_never_answers_times_out_per_attempt(
        family: str, mode: str, server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    server.queue(Stall(), Stall())
    clock = FakeClock()
    started = time.monotonic()
    with pytest.raises(ai.APITimeoutError) as info:
        create(family, server, clock, mode, cfg={"max_retries": 1, "timeout": scaled(0.3)})
    elapsed = time.monotonic() - started
    assert server.attempts == 2 and clock.waits == [0.5]
    assert scaled(0.5) <= elapsed < scaled(10)  # two attempts of 0.3 s, no real backoff sleep
    assert_no_key(family, info.value, caplog)
    record("server never answers", family,
           "APITimeoutError; each attempt bounded by the timeout")


TIMEOUT = 0.5  # a whole attempt, in the tests below; "near the timeout" = within 3x of it


def _ended_near_the_timeout(server: FaultServer, timeout: float = TIMEOUT) -> float:
    """Seconds from the request's arrival at the server to now (the error was just raised);
    asserts the attempt ended within a generous 3x of ``timeout`` (scaled: support/timing.py)."""
    timeout = scaled(timeout)
    elapsed = time.monotonic() - server.requests[0].at
    assert elapsed < 3 * timeout, f"the attempt took {elapsed:.2f} s (timeout {timeout} s)"
    return elapsed


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_trickled_body_times_out_near_the_timeout(
        family: str, mode: str, server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    """A reply body sent one byte every 0.25 s: every read returns in time, but the whole
    attempt is bounded by ``timeout``."""
    server.queue(Trickle())
    with pytest.raises(ai.APITimeoutError) as info:
        create(family, server, FakeClock(), mode,
               cfg={"max_retries": 0, "timeout": scaled(TIMEOUT)})
    _ended_near_the_timeout(server)
    assert server.attempts == 1
    assert_no_key(family, info.value, caplog)
    record("reply body trickled, a byte every 0.25 s (timeout=0.5)", family,
           "APITimeoutError near the timeout: it bounds the whole attempt")


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("where", ["before-first", "after-first", "trickled"])
def test_stream_kept_alive_without_chunks_times_out(
        family: str, mode: str, where: str, server: FaultServer,
        caplog: pytest.LogCaptureFixture) -> None:
    """SSE comments every 0.1 s (or a body trickled a byte at a time) keep the connection
    busy but bring no chunk: the first chunk must come within ``timeout`` of the attempt's
    start, each later one within ``stream_gap_timeout`` (default: ``timeout``) of the
    caller asking for it."""
    first = {"openai": 2, "anthropic": 3, "google": 1}[family]
    server.queue({"before-first": Stream(cut_after=0, then="keepalive"),
                  "after-first": Stream(cut_after=first, then="keepalive"),
                  "trickled": Trickle()}[where])
    seen: list[str] = []
    with pytest.raises(ai.APITimeoutError) as info:
        stream_text(family, server, FakeClock(), mode, seen=seen,
                    cfg={"max_retries": 0, "timeout": scaled(TIMEOUT)})
    _ended_near_the_timeout(server)
    assert seen == (["hello "] if where == "after-first" else [])
    assert server.attempts == 1
    assert_no_key(family, info.value, caplog)
    record({"before-first": "stream of SSE comments only, no event (timeout=0.5)",
            "after-first": "stream sends its first chunk, then only SSE comments (timeout=0.5)",
            "trickled": "stream body trickled, a byte every 0.25 s (timeout=0.5)"}[where],
           family, "APITimeoutError near the timeout" + (
               "; not retried" if where == "after-first" else ""))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_stream_longer_than_the_timeout_with_steady_chunks_completes(
        family: str, mode: str, server: FaultServer) -> None:
    """A legitimate long stream is not cut: only the time to the first chunk and the gaps
    between chunks are bounded, not the stream's whole length."""
    text = "one two three four five six"
    server.queue(Stream(text=text, interval=scaled(0.1)))  # 6 to 10 events: up to 1 s in all
    started = time.monotonic()
    assert stream_text(family, server, FakeClock(), mode,
                       cfg={"max_retries": 0, "timeout": scaled(TIMEOUT)}) == text
    assert time.monotonic() - started > scaled(TIMEOUT)  # longer than the timeout, not cut
    record("stream longer than the timeout, chunks 0.1 to 0.3 s apart (timeout=0.5)", family,
           "completes: the whole stream is not bounded, only its waits")


@pytest.mark.sdk_only
@pytest.mark.parametrize("family", FAMILIES)
def test_a_long_stream_over_aiohttp_completes(family: str, server: FaultServer) -> None:
    """The same over ``async_transport="aiohttp"`` (its own total timeout is not applied to
    a stream: the bounds above are)."""
    text = "one two three four five six"
    server.queue(Stream(text=text, interval=scaled(0.1)))
    assert stream_text(family, server, FakeClock(), "async",
                       cfg={"max_retries": 0, "timeout": scaled(TIMEOUT),
                            "async_transport": "aiohttp"}) == text


def test_stream_gap_timeout_bounds_the_wait_for_each_later_chunk(family: str,
                                                                 server: FaultServer) -> None:
    server.queue(Stream(interval=scaled(0.6)))
    seen: list[str] = []
    with pytest.raises(ai.APITimeoutError) as info:
        stream_text(family, server, FakeClock(), seen=seen,
                    cfg={"max_retries": 0, "timeout": scaled(5),
                         "stream_gap_timeout": scaled(0.2)})
    assert "stream_gap_timeout" in str(info.value)
    assert len(seen) <= 1 and server.attempts == 1
    _ended_near_the_timeout(server, 0.6 + 0.2)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_bad_stream_gap_timeout_is_refused(family: str, bad: Any, server: FaultServer) -> None:
    with pytest.raises(ai.ConfigurationError, match="stream_gap_timeout"):
        create(family, server, FakeClock(), cfg={"stream_gap_timeout": bad})
    assert server.attempts == 0


def test_per_call_timeout_overrides_config(family: str, server: FaultServer) -> None:
    server.queue(Stall())
    with pytest.raises(ai.APITimeoutError):
        create(family, server, FakeClock(), cfg={"max_retries": 0, "timeout": 30},
               timeout=scaled(0.3))
    assert server.attempts == 1


def test_no_server_timeout_header_unless_configured(family: str, server: FaultServer) -> None:
    create(family, server, FakeClock())
    assert "x-server-timeout" not in server.requests[-1].headers
    if family == "google":  # google-genai's header, sent when the user sets a timeout
        create(family, server, FakeClock(), cfg={"timeout": 30})
        assert server.requests[-1].headers["x-server-timeout"] == "30"


def test_sdk_retries_are_off(family: str, server: FaultServer) -> None:
    """One attempt per try of ours: the SDK adds none (max_retries=0 means one request)."""
    server.queue(Reply(500), Reset())
    with pytest.raises(ai.InternalServerError):
        create(family, server, FakeClock(), cfg={"max_retries": 0})
    assert server.attempts == 1


# --- streams -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("then", ["close", "reset"])
def test_stream_cut_before_first_chunk_is_retried(family: str, mode: str, then: str,
                                                  server: FaultServer) -> None:
    server.queue(Stream(cut_after=0, then=then))
    clock = FakeClock()
    assert stream_text(family, server, clock, mode) == "hello world"
    assert server.attempts == 2 and clock.waits == [0.5]
    record(f"stream {'closed' if then == 'close' else 'reset'} before its first event",
           family, "retried; the caller sees one whole reply")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_stream_stalled_before_first_chunk_is_retried(family: str, mode: str,
                                                      server: FaultServer) -> None:
    server.queue(Stream(cut_after=0, then="stall"))
    clock = FakeClock()
    assert stream_text(family, server, clock, mode, timeout=scaled(0.3)) == "hello world"
    assert server.attempts == 2 and clock.waits == [0.5]
    record("stream stalls before its first event (timeout=0.3)", family,
           "the attempt times out and is retried; success")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_stream_cut_after_first_chunk_is_not_retried(
        family: str, mode: str, server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    # openai: role + first word; anthropic: message_start, block start, first word;
    # gemini: first word
    server.queue(Stream(cut_after={"openai": 2, "anthropic": 3, "google": 1}[family],
                        then="reset"))
    clock = FakeClock()
    seen: list[str] = []
    with pytest.raises(ai.APIConnectionError) as info:
        stream_text(family, server, clock, mode, seen=seen)
    assert seen == ["hello "]
    assert server.attempts == 1 and clock.waits == []
    assert_no_key(family, info.value, caplog)
    record("stream reset after its first chunk", family,
           "APIConnectionError after the chunks already seen; not retried")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_stream_stalled_after_first_chunk_times_out(family: str, mode: str,
                                                    server: FaultServer) -> None:
    server.queue(Stream(cut_after={"openai": 2, "anthropic": 3, "google": 1}[family],
                        then="stall"))
    clock = FakeClock()
    seen: list[str] = []
    with pytest.raises(ai.APITimeoutError):
        stream_text(family, server, clock, mode, seen=seen, timeout=scaled(0.3))
    assert seen == ["hello "]
    assert server.attempts == 1 and clock.waits == []
    record("stream stalls after its first chunk (timeout=0.3)", family,
           "APITimeoutError; not retried")


def test_stream_429_is_retried(family: str, server: FaultServer) -> None:
    server.queue(Reply(429, {"retry-after": "1"}))
    clock = FakeClock()
    assert stream_text(family, server, clock) == "hello world"
    assert server.attempts == 2 and clock.waits == [1.0]


# --- cancellation --------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_cancellation_mid_request(family: str, stream: bool, server: FaultServer) -> None:
    server.queue(Stall() if not stream else Stream(cut_after=0, then="stall"))

    async def run() -> None:
        async with ai.AsyncClient(config(family, server, FakeClock())) as client:
            async def call() -> Any:
                if not stream:
                    return await client.chat.completions.create(model=MODELS[family],
                                                                messages=USER)
                s = await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                         stream=True)
                async for _ in s:
                    pass
            task = asyncio.ensure_future(call())
            for _ in range(200):
                await asyncio.sleep(0.01)
                if server.attempts:
                    break
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(run())
    assert server.attempts == 1  # a cancelled call is not retried
    for _ in range(100):  # the connection was closed, so the server is free again
        if server.in_flight == 0:
            break
        time.sleep(0.02)
    assert server.in_flight == 0
    record(f"task cancelled mid-{'stream' if stream else 'request'}", family,
           "CancelledError, connection closed, no retry")


def _tool_call_body(family: str) -> dict[str, Any]:
    """A reply asking for one call of ``add(a=2, b=3)``, in ``family``'s wire format."""
    if family == "openai":
        return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]}}]}
    if family == "anthropic":
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                             "input": {"a": 2, "b": 3}}], "stop_reason": "tool_use",
                "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
    return {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}}]},
        "finishReason": "STOP", "index": 0}], "responseId": "r1", "modelVersion": "m"}


def test_cancellation_mid_run(family: str, server: FaultServer) -> None:
    """The tool ran, the second model call hangs: cancelling the task stops the run there."""
    server.queue(Reply(body=_tool_call_body(family)), Stall())
    ran: list[int] = []

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        ran.append(a + b)
        return a + b

    async def run() -> None:
        async with ai.AsyncClient(config(family, server, FakeClock())) as client:
            task = asyncio.ensure_future(client.chat.completions.create(
                model=MODELS[family], messages=USER, tools=[add], max_turns=3))
            for _ in range(300):
                await asyncio.sleep(0.01)
                if server.attempts == 2:
                    break
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(run())
    assert ran == [5] and server.attempts == 2
    second = server.requests[1].body
    assert "5" in json.dumps(second)  # the tool result went out with the second call
    for _ in range(100):
        if server.in_flight == 0:
            break
        time.sleep(0.02)
    assert server.in_flight == 0
    record("task cancelled mid-run (tool ran, next model call hangs)", family,
           "CancelledError, connection closed, no retry")


def test_google_retry_info_is_honoured(server: FaultServer) -> None:
    body = {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED",
                      "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                   "retryDelay": "2s"}]}}
    server.queue(Reply(429, body=body))
    clock = FakeClock()
    assert create("google", server, clock).content == "hello world"
    assert clock.waits == [2.0] and server.attempts == 2
    record("429 with Gemini RetryInfo retryDelay 2s (no header)", "google",
           "retried after 2 s; success on attempt 2")


# --- concurrency ---------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [None, 8])
def test_500_concurrent_async_requests(family: str, limit: Optional[int],
                                       server: FaultServer) -> None:
    n = 500
    # unbounded, each request is held long enough that a busy machine still overlaps them
    server.queue(*[Delay(0.005 if limit else scaled(0.05))] * n)
    # 500 connections at once to a server in this process: room for a busy machine to accept
    # them all (the SDKs' own connect timeout is 5 s)
    cfg: dict[str, Any] = {"timeout": scaled(30)}
    if limit:
        cfg["max_concurrency"] = limit

    async def run() -> list[Any]:
        async with ai.AsyncClient(config(family, server, FakeClock(), **cfg)) as client:
            return await asyncio.gather(*(client.chat.completions.create(
                model=MODELS[family], messages=USER) for _ in range(n)))

    responses = asyncio.run(run())
    assert len(responses) == n and all(r.content == "hello world" for r in responses)
    assert server.attempts == n
    if limit is None:
        assert server.max_in_flight > 8
    else:
        assert server.max_in_flight <= limit
    record(f"500 concurrent async requests, max_concurrency={limit}", family,
           f"all succeed; at most {server.max_in_flight} in flight" if limit else
           "all succeed; unbounded")


def test_max_concurrency_sync_threads(family: str, server: FaultServer) -> None:
    server.queue(*[Delay(0.02)] * 60)
    with ai.Client(config(family, server, FakeClock(), max_concurrency=3)) as client:
        with ThreadPoolExecutor(20) as pool:
            results = list(pool.map(lambda _: client.chat.completions.create(
                model=MODELS[family], messages=USER).content, range(60)))
    assert results == ["hello world"] * 60
    assert server.max_in_flight <= 3


def test_max_concurrency_across_event_loops(family: str, server: FaultServer) -> None:
    """The sync client's acreate runs on whatever loop calls it: one bound for all of them."""
    server.queue(*[Delay(0.03)] * 30)
    with ai.Client(config(family, server, FakeClock(), max_concurrency=2)) as client:
        async def batch() -> list[Any]:
            return await asyncio.gather(*(client.chat.completions.acreate(
                model=MODELS[family], messages=USER) for _ in range(10)))

        results = [r for _ in range(3) for r in asyncio.run(batch())]  # three event loops
    assert [r.content for r in results] == ["hello world"] * 30
    assert server.max_in_flight <= 2


def test_concurrency_limit_is_shared_by_threads_and_loops() -> None:
    from aisuite_like.providers.retry import ConcurrencyLimit

    limit = ConcurrencyLimit(3)
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def enter() -> None:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])

    def leave() -> None:
        with lock:
            state["now"] -= 1

    async def one() -> None:
        await limit.aacquire()
        try:
            enter()
            await asyncio.sleep(0.005)
            leave()
        finally:
            limit.release()

    async def cancelled_waiter() -> None:  # a cancelled waiter must not leak a slot
        task = asyncio.ensure_future(limit.aacquire())
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        else:
            limit.release()

    def loop_thread() -> None:
        async def main() -> None:
            await asyncio.gather(*(one() for _ in range(25)), cancelled_waiter())
        asyncio.run(main())

    def sync_thread() -> None:
        for _ in range(10):
            limit.acquire()
            try:
                enter()
                time.sleep(0.002)
                leave()
            finally:
                limit.release()

    threads = [threading.Thread(target=loop_thread) for _ in range(4)]
    threads += [threading.Thread(target=sync_thread) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert state["peak"] == 3 and state["now"] == 0
    assert limit._free == 3 and not limit._waiters  # every slot came back


def test_max_concurrency_holds_for_streams(family: str, server: FaultServer) -> None:
    server.queue(*[Delay(0.02, Stream())] * 30)

    async def run() -> list[str]:
        async with ai.AsyncClient(config(family, server, FakeClock(), max_concurrency=2)) as c:
            async def one() -> str:
                s = await c.chat.completions.create(model=MODELS[family], messages=USER,
                                                    stream=True)
                return (await s.get_final_response()).content or ""
            return await asyncio.gather(*(one() for _ in range(30)))

    assert asyncio.run(run()) == ["hello world"] * 30
    assert server.max_in_flight <= 2


# --- fallbacks -----------------------------------------------------------------------------


def _other(family: str) -> str:
    return {"openai": "anthropic", "anthropic": "google", "google": "openai"}[family]


def fallback_client(family: str, server: FaultServer, clock: FakeClock,
                    async_: bool = False) -> Any:
    other = _other(family)
    configs = {**config(family, server, clock), **config(other, server, clock)}
    return ai.AsyncClient(configs) if async_ else ai.Client(configs)


@pytest.mark.parametrize("fault", [Reply(429, {"retry-after": "120"}), Reply(503), Reset()],
                         ids=["429", "503", "reset"])
def test_fallback_to_the_next_model(family: str, fault: Any, server: FaultServer) -> None:
    other = _other(family)
    # the first model's own retries happen first (none for a 429 asking too long a wait)
    first_attempts = 1 if isinstance(fault, Reply) and fault.status == 429 else 3
    server.queue(*[fault] * first_attempts)
    clock = FakeClock()
    with fallback_client(family, server, clock) as client:
        resp = client.chat.completions.create(model=MODELS[family], messages=USER,
                                              fallbacks=[MODELS[other]])
    assert resp.content == "hello world" and resp.provider == other
    skipped = resp.fallback_errors
    assert [e.model for e in skipped] == [MODELS[family]]
    assert skipped[0].error_type in ("RateLimitError", "InternalServerError",
                                     "APIConnectionError")
    assert server.attempts == first_attempts + 1
    assert server.requests[-1].format == {"openai": "openai", "anthropic": "anthropic",
                                          "google": "gemini"}[other]
    what = (f"answers {fault.status}" + (" asking 120 s" if fault.status == 429 else "")
            if isinstance(fault, Reply) else "resets the connection")
    record(f"fallbacks=[other model]: first model {what} every time", family,
           f"served by the fallback ({other}); fallback_errors lists the skipped model")


def test_fallback_not_used_for_a_bad_request(family: str, server: FaultServer) -> None:
    server.queue(Reply(400))
    with fallback_client(family, server, FakeClock()) as client:
        with pytest.raises(ai.BadRequestError):
            client.chat.completions.create(model=MODELS[family], messages=USER,
                                           fallbacks=[MODELS[_other(family)]])
    assert server.attempts == 1


def test_fallback_async_and_stream(family: str, server: FaultServer) -> None:
    other = _other(family)
    server.queue(*[Reply(503)] * 3, Reply(), *[Stream(cut_after=0, then="close")] * 3)

    async def run() -> tuple[Any, Any]:
        async with fallback_client(family, server, FakeClock(), async_=True) as client:
            resp = await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                        fallbacks=[MODELS[other]])
            stream = await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                          stream=True,
                                                          fallbacks=[MODELS[other]])
            final = await stream.get_final_response()
            return resp, final

    resp, final = asyncio.run(run())
    assert resp.provider == other and resp.content == "hello world"
    assert final.provider == other and final.content == "hello world"
    assert [e.model for e in resp.fallback_errors] == [MODELS[family]]
    assert [e.model for e in final.fallback_errors] == [MODELS[family]]
    assert final.fallback_errors[0].error_type == "APIConnectionError"


def test_streamed_fallback_tells_what_it_skipped(family: str, server: FaultServer) -> None:
    """Sync streams, plain and in the tool runner: the final response lists the skipped
    model; the first chunk of the model that served carries the same list."""
    other = _other(family)
    server.queue(*[Reply(503)] * 3, Reply(), *[Reply(503)] * 3, Reply())
    with fallback_client(family, server, FakeClock()) as client:
        stream = client.chat.completions.create(model=MODELS[family], messages=USER,
                                                stream=True, fallbacks=[MODELS[other]])
        final = stream.get_final_response()
        first = stream.chunks[0]
        run = client.chat.completions.create(model=MODELS[family], messages=USER, stream=True,
                                             max_turns=2, tools=[], fallbacks=[MODELS[other]])
        ran = run.get_final_response()
    assert final.provider == other and final.content == "hello world"
    assert [e.model for e in final.fallback_errors] == [MODELS[family]]
    assert final.fallback_errors[0].status_code == 503
    assert first.fallback_errors == final.fallback_errors
    assert ran.provider == other and [e.model for e in ran.fallback_errors] == [MODELS[family]]
    assert server.attempts == 8


def test_all_fallbacks_fail(family: str, server: FaultServer) -> None:
    other = _other(family)
    server.queue(*[Reply(503)] * 6)
    with fallback_client(family, server, FakeClock()) as client:
        with pytest.raises(ai.InternalServerError) as info:
            client.chat.completions.create(model=MODELS[family], messages=USER,
                                           fallbacks=[MODELS[other]])
    assert info.value.provider == other  # the last model's error
    assert server.attempts == 6


# A fallback whose provider has no key: the three families each lack one in turn.
_UNUSABLE = {"openai": "google:gemini-2.5-flash", "anthropic": "bedrock:anthropic.claude-x",
             "google": "anthropic:claude-x"}


@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
def test_an_unused_fallback_needs_no_key(family: str, mode: str, server: FaultServer,
                                         monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Any) -> None:
    """A fallback's provider (and its key) is resolved only when the call reaches it."""
    isolate_aws(monkeypatch, tmp_path)  # no AWS region or credentials from this machine
    fallbacks = [_UNUSABLE[family]]

    async def run_async() -> Any:
        async with ai.AsyncClient(config(family, server, FakeClock())) as client:
            return await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                        fallbacks=fallbacks)

    if mode == "async":
        resp = asyncio.run(run_async())
    else:
        with ai.Client(config(family, server, FakeClock())) as client:
            resp = client.chat.completions.create(model=MODELS[family], messages=USER,
                                                  fallbacks=fallbacks, stream=mode == "stream")
            if mode == "stream":
                resp = resp.get_final_response()
    assert resp.provider == family and resp.content == "hello world"
    assert server.attempts == 1
    record("fallbacks=[model whose provider has no key]: the first model answers", family,
           "served; the unused fallback's provider and key are never resolved")


def test_a_reached_fallback_without_a_key_says_it_was_a_fallback(
        family: str, server: FaultServer, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Any) -> None:
    isolate_aws(monkeypatch, tmp_path)  # no AWS region or credentials from this machine
    server.queue(*[Reply(503)] * 3)
    fallback = _UNUSABLE[family]
    with ai.Client(config(family, server, FakeClock())) as client:
        with pytest.raises(ai.AisuiteLikeError) as info:
            client.chat.completions.create(model=MODELS[family], messages=USER,
                                           fallbacks=[fallback])
    error = info.value
    assert isinstance(error, (ai.AuthenticationError, ai.ConfigurationError)), repr(error)
    assert f"fallback model {fallback!r}" in str(error)
    assert f"after {MODELS[family]!r} failed (InternalServerError)" in str(error)
    assert [e.model for e in error.fallback_errors] == [MODELS[family]]  # type: ignore[attr-defined]
    assert server.attempts == 3
    record("fallbacks=[model whose provider has no key]: the first model answers 503", family,
           "the fallback's key error, saying it was the fallback tried after the first model")


@pytest.mark.parametrize("fallbacks,expected", [
    (["gemini-x"], ai.InvalidModelError), (["nosuch:model"], ai.UnknownProviderError),
    ("anthropic:claude-x", TypeError)])
def test_a_malformed_fallback_is_refused_before_sending(family: str, fallbacks: Any,
                                                       expected: type,
                                                       server: FaultServer) -> None:
    with ai.Client(config(family, server, FakeClock())) as client:
        with pytest.raises(expected):
            client.chat.completions.create(model=MODELS[family], messages=USER,
                                           fallbacks=fallbacks)
    assert server.attempts == 0


def test_fallback_in_the_tool_runner(family: str, server: FaultServer) -> None:
    other = _other(family)

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.queue(*[Reply(503)] * 3)
    with fallback_client(family, server, FakeClock()) as client:
        resp = client.chat.completions.create(model=MODELS[family], messages=USER,
                                              tools=[add], max_turns=2,
                                              fallbacks=[MODELS[other]])
    assert resp.provider == other and resp.content == "hello world"
    assert [e.model for e in resp.fallback_errors] == [MODELS[family]]


def test_agent_falls_back_through_model_settings(family: str, server: FaultServer) -> None:
    other = _other(family)
    server.queue(*[Reply(429, {"retry-after": "300"})])
    agent = ai.Agent(name="helper", model=MODELS[family], instructions="Be brief.",
                     model_settings={"fallbacks": [MODELS[other]]})
    with fallback_client(family, server, FakeClock()) as client:
        result = ai.Runner.run_sync(agent, "hi", client=client)
    assert result.final_output == "hello world"
    assert [r.format for r in server.requests] == [
        {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}[f]
        for f in (family, other)]
    record("agent: first model rate-limited, fallbacks in model_settings", family,
           f"the run continues on the fallback ({other})")
