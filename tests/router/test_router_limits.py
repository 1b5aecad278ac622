"""The router's arithmetic, from data: buckets, the providers' rate-limit headers, the choice
of a deployment (aisuite_like/router/limits.py, pure)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from aisuite_like.router.limits import (
    MIN_COOLDOWN,
    Bucket,
    Caps,
    Record,
    charge,
    observe,
    pick,
    read_limits,
    ready_in,
    settle,
    take,
)


def test_a_bucket_gives_its_cap_at_once_then_refills_at_cap_per_minute() -> None:
    bucket = Bucket()
    for _ in range(60):
        assert ready_in(bucket, 60.0, 1, 0.0) == 0
        take(bucket, 60.0, 1, 0.0)
    assert ready_in(bucket, 60.0, 1, 0.0) == pytest.approx(1.0)  # one a second after that
    assert ready_in(bucket, 60.0, 1, 0.5) == pytest.approx(0.5)
    assert ready_in(bucket, 60.0, 1, 1.0) == 0
    take(bucket, 60.0, 1, 1.0)
    assert ready_in(bucket, 60.0, 1, 1.0) == pytest.approx(1.0)
    # never more than the cap, however long it rested
    assert ready_in(bucket, 60.0, 61, 10_000.0) == 0  # an amount over the cap needs it full
    take(bucket, 60.0, 60, 10_000.0)
    assert ready_in(bucket, 60.0, 1, 10_000.0) == pytest.approx(1.0)


def test_without_a_cap_a_bucket_is_unlimited_until_a_header_holds_it() -> None:
    bucket = Bucket()
    for _ in range(1000):
        take(bucket, None, 1, 0.0)
    assert ready_in(bucket, None, 1, 0.0) == 0
    observe(bucket, None, 2, 20.0, 5.0)  # "2 left, reset in 20 s", at t=5
    take(bucket, None, 1, 6.0)
    take(bucket, None, 1, 6.0)
    assert ready_in(bucket, None, 1, 6.0) == pytest.approx(19.0)
    assert ready_in(bucket, None, 1, 25.0) == 0  # reset: unlimited again
    take(bucket, None, 1, 25.0)
    assert bucket.hold == 0 and bucket.level is None


def test_a_header_lowers_a_bucket_and_stops_its_refill_until_the_reset() -> None:
    bucket = Bucket()
    observe(bucket, 60.0, 0, 10.0, 0.0)
    assert ready_in(bucket, 60.0, 1, 0.0) == pytest.approx(11.0)  # reset, then a refill of 1 s
    assert ready_in(bucket, 60.0, 1, 9.0) == pytest.approx(2.0)
    assert ready_in(bucket, 60.0, 1, 11.0) == 0
    # a header saying more than we know of does not raise the level
    full = Bucket()
    take(full, 60.0, 59, 0.0)
    observe(full, 60.0, 30, 10.0, 0.0)
    assert full.level == 1 and full.hold == 0


def test_charge_takes_tokens_beyond_the_estimate_and_gives_back_the_rest() -> None:
    bucket = Bucket()
    take(bucket, 1000.0, 100, 0.0)
    charge(bucket, 1000.0, 400, 0.0)  # the call used 500
    assert bucket.level == pytest.approx(500)
    charge(bucket, 1000.0, -800, 0.0)  # never above the cap
    assert bucket.level == pytest.approx(1000)


@pytest.mark.parametrize("text,seconds", [
    ("1s", 1.0), ("6m0s", 360.0), ("59.94s", 59.94), ("20ms", 0.02), ("1h2m3s", 3723.0),
    ("2", 2.0), ("0.5", 0.5)])
def test_openai_reset_durations(text: str, seconds: float) -> None:
    limits = read_limits({"x-ratelimit-remaining-requests": "0",
                          "x-ratelimit-reset-requests": text}, 0.0)
    assert limits is not None and limits.requests == (0.0, pytest.approx(seconds))


def test_openai_headers_give_requests_and_tokens() -> None:
    limits = read_limits({"X-RateLimit-Remaining-Requests": "499",
                          "x-ratelimit-reset-requests": "120ms",
                          "x-ratelimit-remaining-tokens": "149984",
                          "x-ratelimit-reset-tokens": "6ms", "content-type": "x"}, 0.0)
    assert limits is not None
    assert limits.requests == (499.0, pytest.approx(0.12))
    assert limits.tokens == (149984.0, pytest.approx(0.006))
    assert limits.longest_exhausted_reset() is None


def test_anthropic_headers_reset_at_an_rfc3339_time() -> None:
    now = 1_700_000_000.0
    reset = datetime.fromtimestamp(now, timezone.utc) + timedelta(seconds=30)
    limits = read_limits({
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": reset.isoformat().replace("+00:00", "Z"),
        "anthropic-ratelimit-tokens-remaining": "5000",
        "anthropic-ratelimit-tokens-reset": reset.isoformat()}, now)
    assert limits is not None
    assert limits.requests == (0.0, pytest.approx(30.0))
    assert limits.tokens == (5000.0, pytest.approx(30.0))
    assert limits.longest_exhausted_reset() == pytest.approx(30.0)


@pytest.mark.parametrize("headers", [
    None, {}, {"content-type": "application/json"},
    {"x-ratelimit-remaining-requests": "lots"}, {"x-ratelimit-remaining-requests": "-1"},
    {"x-ratelimit-remaining-requests": "nan"}, {"x-ratelimit-limit-requests": "500"}])
def test_no_usable_rate_limit_header_is_no_limit(headers: object) -> None:
    assert read_limits(headers, 0.0) is None


def test_an_unreadable_reset_holds_for_a_second() -> None:
    limits = read_limits({"x-ratelimit-remaining-requests": "0",
                          "x-ratelimit-reset-requests": "soon"}, 0.0)
    assert limits is not None and limits.requests == (0.0, 1.0)  # Azure sends no reset


def _records(n: int) -> list[Record]:
    return [Record.new() for _ in range(n)]


def test_pick_skips_cooling_and_empty_deployments_and_says_when_one_is_free() -> None:
    caps = [Caps(1.0), Caps(1.0, rpm=1.0), Caps(1.0)]
    records = _records(3)
    settle(records[0], caps[0], 0.0, cool_for=30.0, why="RateLimitError 429")
    take(records[1].requests, 1.0, 1, 0.0)  # its one request a minute is used
    settle(records[2], caps[2], 0.0, cool_for=5.0, why="InternalServerError 503")
    chosen = pick("weighted", caps, records, [0, 0, 0], [False] * 3, 0.0, 1.0, 0.5)
    assert chosen.index is None and chosen.wait == pytest.approx(4.0)  # 5 s from t=0
    chosen = pick("weighted", caps, records, [0, 0, 0], [False] * 3, 0.0, 5.0, 0.5)
    assert chosen.index == 2 and not chosen.others_ready
    chosen = pick("weighted", caps, records, [0, 0, 0], [False, False, True], 0.0, 5.0, 0.5)
    assert chosen.index is None and chosen.wait == pytest.approx(25.0)  # 1: 55 s, 0: 25 s


def test_pick_by_weight_least_busy_and_latency() -> None:
    caps = [Caps(1.0), Caps(3.0)]
    rs = _records(2)
    assert pick("weighted", caps, rs, [0, 0], [False] * 2, 0, 0, 0.24).index == 0
    assert pick("weighted", caps, rs, [0, 0], [False] * 2, 0, 0, 0.26).index == 1
    assert pick("least-busy", caps, rs, [0, 5], [False] * 2, 0, 0, 0.99).index == 0
    assert pick("least-busy", caps, rs, [2, 2], [False] * 2, 0, 0, 0.99).index == 1
    settle(rs[1], caps[1], 0, latency=0.5)
    # a deployment never measured is tried first; then the lowest average wins
    assert pick("latency", caps, rs, [0, 0], [False] * 2, 0, 0, 0.99).index == 0
    settle(rs[0], caps[0], 0, latency=0.9)
    assert pick("latency", caps, rs, [0, 0], [False] * 2, 0, 0, 0.01).index == 1
    settle(rs[1], caps[1], 0, latency=2.0)  # the average moves: 0.5 + 0.3 * 1.5 = 0.95
    assert rs[1].latency == pytest.approx(0.95)
    assert pick("latency", caps, rs, [0, 0], [False] * 2, 0, 0, 0.01).index == 0


def test_a_cool_down_is_never_shorter_than_the_floor_nor_shortened() -> None:
    record = Record.new()
    settle(record, Caps(), 0.0, cool_for=0.001, why="RateLimitError 429")
    assert record.cool == MIN_COOLDOWN
    settle(record, Caps(), 0.0, cool_for=30.0, why="InternalServerError 503")
    settle(record, Caps(), 0.0, cool_for=2.0, why="RateLimitError 429")
    assert record.cool == 30.0 and record.why == "InternalServerError 503"


def test_a_record_survives_its_json_form() -> None:
    record = Record.new()
    observe(record.requests, 10.0, 3, 4.0, 1.0)
    settle(record, Caps(), 1.0, latency=0.25, cool_for=9.0, why="x")
    again = Record.load(record.dump())
    assert again == record
    assert math.isclose(again.requests.hold, 5.0)
