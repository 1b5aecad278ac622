"""Bedrock through the shared retry layer (aisuite_like.providers.retry), via real botocore against the
loopback Bedrock server (tests/support/bedrock_server.py): what is retried and how long we wait
(``FakeClock`` records the waits), streams retried only before their first chunk, and
``max_concurrency`` bounding requests in flight. Every failing case also checks that the AWS
secret key and session token show in no error text, traceback or DEBUG log record.

Each case records its outcome as tests/providers/test_transport_faults.py does (same fault names where
the fault is the same); with ``AISUITE_FAULT_MATRIX=<path>`` set they are written there as
JSON, and ``scripts/fault_matrix.py`` renders them as the bedrock column of docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from support.bedrock_server import (
    SECRET_KEY,
    SESSION_TOKEN,
    BedrockServer,
    Hang,
    Json,
    Recorded,
    Stream,
    Trickle,
    converse_text,
    encode_message,
    error,
    event,
    exception_event,
    stream_text,
)
from support.timing import scaled
from test_provider_bedrock import verify_sigv4

import aisuite_like as ai
from aisuite_like.testing import FakeClock

USER = [{"role": "user", "content": "Hi"}]
MODEL = "bedrock:anthropic.claude-sonnet-4-v1:0"
# Echoed by the server in error messages: only the provider's redaction can hide them.
ECHO = f"token {SESSION_TOKEN} secret {SECRET_KEY}"

_OUTCOMES: list[dict[str, str]] = []


def record(fault: str, outcome: str) -> None:
    _OUTCOMES.append({"fault": fault, "family": "bedrock", "outcome": outcome})


@pytest.fixture(scope="module", autouse=True)
def _write_matrix() -> Iterator[None]:
    yield
    path = os.environ.get("AISUITE_FAULT_MATRIX")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(_OUTCOMES, f, indent=1)


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture
def server() -> Iterator[BedrockServer]:
    with BedrockServer() as s:
        yield s


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every logger at DEBUG (botocore then logs the signed headers, session token included)."""
    with caplog.at_level(logging.DEBUG):
        yield caplog


def config(server: BedrockServer, clock: FakeClock, **overrides: Any) -> dict[str, Any]:
    return server.config(aws_session_token=SESSION_TOKEN, retry_clock=clock, **overrides)


def create(mode: str, cfg: dict[str, Any], **kwargs: Any) -> Any:
    kwargs.setdefault("model", MODEL)
    kwargs.setdefault("messages", USER)
    if mode == "sync":
        return ai.Client({"bedrock": cfg}).chat.completions.create(**kwargs)

    async def run() -> Any:
        client = ai.AsyncClient({"bedrock": cfg})
        return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


def stream_into(mode: str, cfg: dict[str, Any], chunks: list[Any]) -> None:
    """Consume a stream, appending each chunk to ``chunks`` as it arrives (so a test sees
    what came before an error)."""
    if mode == "sync":
        with ai.Client({"bedrock": cfg}).chat.completions.create(
                model=MODEL, messages=USER, stream=True) as stream:
            for chunk in stream:
                chunks.append(chunk)
        return

    async def run() -> None:
        client = ai.AsyncClient({"bedrock": cfg})
        stream = await client.chat.completions.create(model=MODEL, messages=USER, stream=True)
        async with stream:
            async for chunk in stream:
                chunks.append(chunk)

    asyncio.run(run())


def text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def assert_no_secret(err: BaseException, logs: pytest.LogCaptureFixture) -> None:
    texts = [str(err), repr(err), "".join(traceback.format_exception(err)),
             *(r.getMessage() for r in logs.records), logs.text]
    cause = err.__cause__
    if cause is not None:
        texts += [str(cause), repr(cause)]
    for text in texts:
        assert SECRET_KEY not in text and SESSION_TOKEN not in text, text


def assert_same_request_signed(requests: list[Recorded]) -> None:
    """Every attempt sent the same body, each signed afresh with the session's credentials."""
    assert len({r.raw for r in requests}) == 1
    for request in requests:
        assert request.headers["x-amz-security-token"] == SESSION_TOKEN
        verify_sigv4(request, token=SESSION_TOKEN)


# ------------------------------------------------------------------------- completions ---

def test_throttling_with_retry_hint_then_success(server: BedrockServer, mode: str,
                                                 logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.reply(error(429, "ThrottlingException", ECHO, headers={"Retry-After": "3"}),
                 converse_text("ok"))
    resp = create(mode, config(server, clock))
    assert resp.content == "ok"
    assert len(server.requests) == 2 and clock.waits == [3.0]
    assert_same_request_signed(server.requests)
    assert "x-amz-security-token" in logs.text.lower()  # botocore did log the signed headers
    assert SECRET_KEY not in logs.text and SESSION_TOKEN not in logs.text
    record("429 with Retry-After: 3", "retried after 3 s; success on attempt 2")


def test_throttling_without_hint_backs_off(server: BedrockServer, mode: str) -> None:
    clock = FakeClock()
    server.reply(error(429, "ThrottlingException", "Too many requests, please wait."),
                 error(429, "ThrottlingException", "Too many requests, please wait.",
                       via="body"),
                 converse_text("ok"))
    assert create(mode, config(server, clock)).content == "ok"
    assert len(server.requests) == 3 and clock.waits == [0.5, 1.0]
    assert_same_request_signed(server.requests)
    record("429 ThrottlingException twice (no Retry-After), then 200",
           "retried (0.5 s, 1 s); success on attempt 3")


@pytest.mark.parametrize("value", ["0", "-3", "NaN", "inf"])
def test_throttling_retry_after_zero_negative_or_nan_backs_off(server: BedrockServer,
                                                               value: str) -> None:
    """A Retry-After that is no usable wait falls back to the backoff (not immediate retries)."""
    clock = FakeClock()
    server.reply(*[error(429, "ThrottlingException", "slow", headers={"Retry-After": value})] * 2,
                 converse_text("ok"))
    assert create("sync", config(server, clock)).content == "ok"
    assert len(server.requests) == 3 and clock.waits == [0.5, 1.0]
    record("429 with Retry-After: 0, negative, NaN or infinite (or retry-after-ms)",
           "exponential backoff (0.5 s, 1 s); the demand is ignored")


def test_backoff_has_jitter(server: BedrockServer) -> None:
    clock = FakeClock(jitter=1.0)  # the most jitter: a quarter off each wait
    server.reply(error(429, "ThrottlingException", "slow"), error(503, "ServiceUnavailable"
                                                                  "Exception", "busy"),
                 converse_text("ok"))
    assert create("sync", config(server, clock)).content == "ok"
    assert clock.waits == [0.375, 0.75]


def test_retry_hint_over_max_retry_wait_gives_up_at_once(server: BedrockServer, mode: str,
                                                         logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.default = converse_text("ok")  # what a retry would get
    server.reply(error(429, "ThrottlingException", ECHO, headers={"Retry-After": "120"}))
    with pytest.raises(ai.RateLimitError) as info:
        create(mode, config(server, clock))
    assert info.value.retry_after == 120.0
    assert len(server.requests) == 1 and clock.waits == []
    assert_no_secret(info.value, logs)
    # A longer max_retry_wait honours the same kind of demand.
    server.reply(error(429, "ThrottlingException", "slow", headers={"Retry-After": "90"}))
    assert create(mode, config(server, clock, max_retry_wait=90)).content == "ok"
    assert len(server.requests) == 3 and clock.waits == [90.0]
    record("429 asking 120 s (> max_retry_wait 60 s)",
           "RateLimitError(retry_after=120) at once, 1 attempt")


@pytest.mark.parametrize("status, code", [(500, "InternalServerException"),
                                          (503, "ServiceUnavailableException")])
@pytest.mark.parametrize("max_retries", [2, 4])
def test_persistent_5xx_gives_up_after_max_retries(server: BedrockServer, mode: str,
                                                   status: int, code: str, max_retries: int,
                                                   logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.default = error(status, code, ECHO)
    with pytest.raises(ai.InternalServerError) as info:
        create(mode, config(server, clock, max_retries=max_retries))
    assert info.value.status_code == status and info.value.provider == "bedrock"
    assert len(server.requests) == max_retries + 1
    assert clock.waits == [0.5, 1.0, 2.0, 4.0][:max_retries]
    assert "[REDACTED]" in str(info.value)
    assert_no_secret(info.value, logs)
    if max_retries == 2:
        record(f"{status} on every attempt", "InternalServerError after 3 attempts")


def test_500_twice_then_success(server: BedrockServer, mode: str) -> None:
    clock = FakeClock()
    server.reply(error(500, "InternalServerException", "oops"),
                 error(500, "InternalServerException", "oops", via="body"), converse_text("ok"))
    assert create(mode, config(server, clock)).content == "ok"
    assert len(server.requests) == 3 and clock.waits == [0.5, 1.0]
    record("500 twice, then 200", "retried (0.5 s, 1 s); success on attempt 3")


@pytest.mark.parametrize("status, code, expected", [
    (503, "ServiceUnavailableException", ai.InternalServerError),
    (429, "ModelNotReadyException", ai.InternalServerError),
    (408, "ModelTimeoutException", ai.APITimeoutError),
])
def test_other_transient_errors_are_retried(server: BedrockServer, status: int, code: str,
                                            expected: type) -> None:
    clock = FakeClock()
    server.reply(error(status, code, "transient"), converse_text("ok"))
    assert create("sync", config(server, clock)).content == "ok"
    assert len(server.requests) == 2 and clock.waits == [0.5]
    # ... and what the caller gets when they persist
    server.default = error(status, code, "transient")
    with pytest.raises(expected):
        create("sync", config(server, clock, max_retries=1))
    assert len(server.requests) == 4
    record(f"{status} {code} once, then 200", "retried (0.5 s); success on attempt 2; "
           f"{expected.__name__} when it persists")


@pytest.mark.parametrize("row, status, code, expected", [
    ("400", 400, "ValidationException", ai.BadRequestError),
    ("403", 403, "AccessDeniedException", ai.PermissionDeniedError),
    ("404", 404, "ResourceNotFoundException", ai.NotFoundError),
    ("403 UnrecognizedClientException (bad credentials)", 403, "UnrecognizedClientException",
     ai.AuthenticationError),
    ("424 ModelErrorException", 424, "ModelErrorException", ai.InternalServerError),
    ("400 ServiceQuotaExceededException", 400, "ServiceQuotaExceededException",
     ai.RateLimitError),
])
def test_request_errors_are_not_retried(server: BedrockServer, mode: str, row: str,
                                        status: int, code: str, expected: type,
                                        logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.reply(error(status, code, ECHO), converse_text("never sent"))
    with pytest.raises(expected) as info:
        create(mode, config(server, clock))
    assert type(info.value) is expected and info.value.status_code == status
    assert len(server.requests) == 1 and server.unused == 1 and clock.waits == []
    assert_no_secret(info.value, logs)
    record(row, f"{expected.__name__}, 1 attempt (never retried)")


@pytest.mark.parametrize("status, code, expected", [
    (503, "ServiceUnavailableException", ai.InternalServerError),
    (429, "ThrottlingException", ai.RateLimitError),
])
def test_max_retries_0_is_one_attempt(server: BedrockServer, mode: str, status: int,
                                      code: str, expected: type) -> None:
    clock = FakeClock()
    server.reply(error(status, code, "busy"), converse_text("never sent"))
    with pytest.raises(expected):
        create(mode, config(server, clock, max_retries=0))
    assert len(server.requests) == 1 and server.unused == 1 and clock.waits == []
    record(f"{status} with max_retries=0", f"{expected.__name__}, 1 attempt")


def test_read_timeout_is_retried_per_attempt(server: BedrockServer, mode: str) -> None:
    clock = FakeClock()
    server.reply(Hang(scaled(5.0)), converse_text("ok"))
    started = time.monotonic()
    assert create(mode, config(server, clock, timeout=scaled(0.3))).content == "ok"
    assert len(server.requests) == 2 and clock.waits == [0.5]
    # the first attempt gave up after 0.3 s, not 5 (both scaled: support/timing.py)
    assert time.monotonic() - started < scaled(4.0)
    record("server hangs once (timeout=0.3), then answers",
           "the attempt times out and is retried; success")


def test_server_that_never_answers_times_out_per_attempt(
        server: BedrockServer, mode: str, logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.default = Hang(scaled(5.0))
    started = time.monotonic()
    with pytest.raises(ai.APITimeoutError, match="127.0.0.1") as info:
        create(mode, config(server, clock, timeout=scaled(1.0), max_retries=1))
    elapsed = time.monotonic() - started
    assert len(server.requests) == 2 and clock.waits == [0.5]
    # two attempts of 1 s each, not the server's 5 s (all scaled: support/timing.py)
    assert scaled(1.5) <= elapsed < scaled(8.0)
    assert_no_secret(info.value, logs)
    record("server never answers",
           "APITimeoutError; each attempt bounded by the timeout")


TIMEOUT = 0.5  # a whole attempt, in the tests below; "near the timeout" = within 3x of it


def _ended_near_the_timeout(server: BedrockServer) -> None:
    """The attempt ended within 3x the (scaled) timeout of the server seeing the request."""
    assert server.requests, "the server never saw the request"
    elapsed = time.monotonic() - server.requests[0].at
    timeout = scaled(TIMEOUT)
    assert elapsed < 3 * timeout, f"the attempt took {elapsed:.2f} s (timeout {timeout} s)"


def test_trickled_body_times_out_near_the_timeout(server: BedrockServer, mode: str,
                                                  logs: pytest.LogCaptureFixture) -> None:
    """A Converse body sent a byte every 0.25 s: each read returns in time, but ``timeout``
    bounds the whole attempt."""
    server.reply(Trickle(), converse_text("never sent"))
    with pytest.raises(ai.APITimeoutError, match=r"127\.0\.0\.1") as info:
        create(mode, config(server, FakeClock(), timeout=scaled(TIMEOUT), max_retries=0))
    _ended_near_the_timeout(server)
    assert len(server.requests) == 1
    assert_no_secret(info.value, logs)
    record("reply body trickled, a byte every 0.25 s (timeout=0.5)",
           "APITimeoutError near the timeout: it bounds the whole attempt")


@pytest.mark.parametrize("after", [0, 2], ids=["before-first", "after-first"])
def test_trickled_stream_times_out_near_the_timeout(server: BedrockServer, mode: str,
                                                    after: int) -> None:
    """An event stream trickled a byte at a time: the first chunk must come within
    ``timeout`` of the attempt's start, each later one within ``stream_gap_timeout``
    (default ``timeout``) of the caller asking for it."""
    server.reply(Trickle(frames=stream_text("par", "tial").frames, after=after))
    chunks: list[Any] = []
    with pytest.raises(ai.APITimeoutError):
        stream_into(mode, config(server, FakeClock(), timeout=scaled(TIMEOUT), max_retries=0),
                    chunks)
    _ended_near_the_timeout(server)
    assert text_of(chunks) == ("par" if after else "")
    assert len(server.requests) == 1
    record("stream body trickled, a byte every 0.25 s (timeout=0.5)",
           "APITimeoutError near the timeout")


def test_a_stream_longer_than_the_timeout_with_steady_chunks_completes(
        server: BedrockServer, mode: str) -> None:
    pieces = ("one ", "two ", "three ", "four ", "five ", "six")
    reply = stream_text(*pieces)
    timeout = scaled(TIMEOUT)  # a busy machine gets a longer timeout and slower chunks alike
    reply.delay_s = timeout / 5  # 10 frames: about 2x the timeout in all, gaps well under it
    server.reply(reply)
    chunks: list[Any] = []
    started = time.monotonic()
    stream_into(mode, config(server, FakeClock(), timeout=timeout, max_retries=0), chunks)
    assert text_of(chunks) == "".join(pieces)
    assert time.monotonic() - started > timeout
    record("stream longer than the timeout, chunks 0.1 to 0.3 s apart (timeout=0.5)",
           "completes: the whole stream is not bounded, only its waits")


def test_a_bad_stream_gap_timeout_is_refused(server: BedrockServer) -> None:
    with pytest.raises(ai.ConfigurationError, match="stream_gap_timeout"):
        create("sync", config(server, FakeClock(), stream_gap_timeout=0))
    assert server.requests == []


def test_connection_refused_is_retried(mode: str, logs: pytest.LogCaptureFixture) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    clock = FakeClock()
    cfg = {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "us-east-1",
           "aws_access_key_id": "AKIDLOOPBACKEXAMPLE", "aws_secret_access_key": SECRET_KEY,
           "aws_session_token": SESSION_TOKEN, "retry_clock": clock}
    with pytest.raises(ai.APIConnectionError, match=f"127.0.0.1:{port}") as info:
        create(mode, cfg)
    assert clock.waits == [0.5, 1.0]
    assert_no_secret(info.value, logs)
    record("connection refused", "APIConnectionError naming the host after 3 attempts")


def test_bad_retry_settings_are_configuration_errors() -> None:
    base = {"region_name": "us-east-1", "aws_access_key_id": "AKID",
            "aws_secret_access_key": SECRET_KEY}
    for bad in ({"max_retries": -1}, {"max_retries": True}, {"max_retry_wait": -1},
                {"max_concurrency": 0}, {"retry_clock": object()}):
        key = next(iter(bad))
        with pytest.raises(ai.ConfigurationError, match=key):
            ai.Client({"bedrock": {**base, **bad}}).chat.completions.create(
                model=MODEL, messages=USER)


# ----------------------------------------------------------------------------- streams ---

BEFORE_FIRST_EVENT = {  # fault -> the reply (the fault names are the matrix rows)
    "stream answered 503 (before its body)": error(503, "ServiceUnavailableException", ECHO),
    "stream's first event is a throttlingException":
        Stream([exception_event("throttlingException", ECHO)]),
    "stream closed before its first event": Stream([], cut=True),
}


@pytest.mark.parametrize("fault", list(BEFORE_FIRST_EVENT))
def test_stream_failing_before_its_first_event_is_retried(server: BedrockServer, mode: str,
                                                          fault: str) -> None:
    clock = FakeClock()
    server.reply(BEFORE_FIRST_EVENT[fault], stream_text("Hel", "lo"))
    chunks: list[Any] = []
    stream_into(mode, config(server, clock), chunks)
    assert text_of(chunks) == "Hello"
    assert chunks[0].choices[0].delta.role == "assistant"  # nothing of the failed attempt
    assert len(server.requests) == 2 and clock.waits == [0.5]
    assert {r.operation for r in server.requests} == {"converse-stream"}
    assert_same_request_signed(server.requests)
    record(fault, "retried; the caller sees one whole reply")


@pytest.mark.parametrize("fault", list(BEFORE_FIRST_EVENT))
def test_stream_failing_before_its_first_event_gives_up(server: BedrockServer, mode: str,
                                                        fault: str,
                                                        logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    server.default = BEFORE_FIRST_EVENT[fault]
    chunks: list[Any] = []
    with pytest.raises(ai.APIError) as info:
        stream_into(mode, config(server, clock, max_retries=1), chunks)
    assert chunks == [] and len(server.requests) == 2 and clock.waits == [0.5]
    assert_no_secret(info.value, logs)


AFTER_FIRST_CHUNK: dict[str, tuple[Callable[[list[bytes]], Stream], type]] = {
    "stream sends a throttlingException after its first chunk": (
        lambda frames: Stream([*frames, exception_event("throttlingException", ECHO)],
                              delay_s=0.05), ai.RateLimitError),
    "stream closed after its first chunk": (lambda frames: Stream(frames, cut=True, delay_s=0.05),
                       ai.APIConnectionError),
}


@pytest.mark.parametrize("fault", list(AFTER_FIRST_CHUNK))
def test_stream_failing_after_its_first_chunk_is_not_retried(
        server: BedrockServer, mode: str, fault: str, logs: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    reply, expected = AFTER_FIRST_CHUNK[fault]
    frames = [event("messageStart", {"role": "assistant"}),
              event("contentBlockDelta", {"delta": {"text": "par"}, "contentBlockIndex": 0})]
    server.reply(reply(frames), stream_text("never sent"))
    chunks: list[Any] = []
    with pytest.raises(expected) as info:
        stream_into(mode, config(server, clock), chunks)
    assert text_of(chunks) == "par"  # the caller saw part of the reply: no second attempt
    assert len(server.requests) == 1 and server.unused == 1 and clock.waits == []
    assert_no_secret(info.value, logs)
    record(fault, f"{expected.__name__} after the chunks already seen; not retried")


def test_stream_event_that_is_not_utf8_is_a_typed_error(server: BedrockServer, mode: str,
                                                        logs: pytest.LogCaptureFixture) -> None:
    """An event payload whose bytes are not UTF-8: a malformed reply
    (``APIResponseValidationError``), never a UnicodeDecodeError; not retried."""
    clock = FakeClock()
    bad = encode_message({":event-type": "contentBlockDelta",
                          ":content-type": "application/json", ":message-type": "event"},
                         b'{"delta": {"text": "wo\xff\xferld"}, "contentBlockIndex": 0}')
    frames = [event("messageStart", {"role": "assistant"}),
              event("contentBlockDelta", {"delta": {"text": "par"}, "contentBlockIndex": 0}),
              bad]
    server.reply(Stream(frames), stream_text("never sent"))
    chunks: list[Any] = []
    with pytest.raises(ai.APIResponseValidationError) as info:
        stream_into(mode, config(server, clock), chunks)
    assert "UTF-8" in str(info.value)
    assert text_of(chunks) == "par"
    assert len(server.requests) == 1 and clock.waits == []
    assert_no_secret(info.value, logs)
    record("stream event that is not UTF-8 (after the first chunk)",
           "APIResponseValidationError after the chunks already seen; not retried")


# ------------------------------------------------------------------------- concurrency ---

class InFlight:
    """A server reply that counts the requests being answered at once."""

    def __init__(self, reply: Json | Stream, seconds: float = 0.03) -> None:
        self.reply = reply
        self.seconds = seconds
        self.now = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, _request: Recorded) -> Json | Stream:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(self.seconds)
        with self._lock:
            self.now -= 1
        return self.reply


def test_max_concurrency_bounds_sync_threads(server: BedrockServer) -> None:
    counter = InFlight(converse_text("ok"))
    server.default = counter
    client = ai.Client({"bedrock": config(server, FakeClock(), max_concurrency=3)})
    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(lambda _: client.chat.completions.create(
            model=MODEL, messages=USER).content, range(36)))
    assert results == ["ok"] * 36 and len(server.requests) == 36
    assert 1 <= counter.most <= 3
    record("36 requests from 12 threads, max_concurrency=3",
           f"all succeed; at most {counter.most} in flight")


@pytest.mark.parametrize("limit", [None, 4])
def test_max_concurrency_bounds_async_requests(server: BedrockServer,
                                               limit: int | None) -> None:
    counter = InFlight(converse_text("ok"))
    server.default = counter
    cfg = config(server, FakeClock(), **({"max_concurrency": limit} if limit else {}))

    async def run() -> list[Any]:
        client = ai.AsyncClient({"bedrock": cfg})
        return await asyncio.gather(*(client.chat.completions.create(model=MODEL, messages=USER)
                                      for _ in range(48)))

    responses = asyncio.run(run())
    assert [r.content for r in responses] == ["ok"] * 48 and len(server.requests) == 48
    if limit is None:
        assert counter.most > 4  # without a limit the bridge's 32 threads run at once
    else:
        assert 1 <= counter.most <= limit
    record(f"48 concurrent async requests, max_concurrency={limit}",
           f"all succeed; at most {counter.most} in flight" if limit else
           "all succeed; up to the async bridge's 32 threads in flight")


def test_max_concurrency_holds_a_slot_for_a_whole_stream(server: BedrockServer,
                                                         mode: str) -> None:
    """A stream is in flight until it ends: with max_concurrency=1 the next request waits."""
    server.reply(Stream(stream_text("a", "b", "c").frames, delay_s=0.1), converse_text("ok"))
    cfg = config(server, FakeClock(), max_concurrency=1)
    if mode == "sync":
        client = ai.Client({"bedrock": cfg})
        stream = client.chat.completions.create(model=MODEL, messages=USER, stream=True)
        first = next(iter(stream))
        with ThreadPoolExecutor(1) as pool:
            later = pool.submit(client.chat.completions.create, model=MODEL, messages=USER)
            time.sleep(0.2)
            assert not later.done() and len(server.requests) == 1
            rest = list(stream)
            assert later.result(timeout=5).content == "ok"
        assert text_of([first, *rest]) == "abc"
        record("a stream open, max_concurrency=1", "the next request waits for it to end")
        return

    async def run() -> None:
        client = ai.AsyncClient({"bedrock": cfg})
        stream = await client.chat.completions.create(model=MODEL, messages=USER, stream=True)
        async with stream:
            first = await stream.__anext__()
            later = asyncio.ensure_future(client.chat.completions.create(model=MODEL,
                                                                         messages=USER))
            await asyncio.sleep(0.2)
            assert not later.done() and len(server.requests) == 1
            rest = [c async for c in stream]
        assert (await asyncio.wait_for(later, 5)).content == "ok"
        assert text_of([first, *rest]) == "abc"

    asyncio.run(run())
    record("a stream open, max_concurrency=1", "the next request waits for it to end")
