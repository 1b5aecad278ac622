"""The arithmetic of routing, pure: no I/O and no clock of its own (every function is given
``now``, in seconds). A deployment's :class:`Record` (its request and token buckets, its
cool-down, its latency) is read and changed here; where records live (this process, Redis)
is ``state.py``'s business (docs/router.md).

Buckets: a deployment with ``rpm=N`` has a request bucket of ``N`` requests that refills at
``N / 60`` per second (so ``N`` may go at once, then one every ``60 / N`` s); ``tpm`` the same
in tokens. A provider's rate-limit headers correct a bucket: ``remaining=R, reset in T s``
sets it to ``R`` (when that is lower than what the bucket holds) and stops its refill until
``T`` has passed. Without ``rpm`` / ``tpm`` a bucket is unlimited except while the headers say
otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional

__all__ = ["Bucket", "Record", "Limits", "Caps", "Pick", "take", "observe", "charge",
           "ready_in", "wait_of", "read_limits", "pick", "settle", "describe", "STRATEGIES",
           "MIN_COOLDOWN", "TransactionFn"]

STRATEGIES = ("weighted", "least-busy", "latency")
#: A cool-down is never shorter (a server asking ``Retry-After: 0.01`` would otherwise have a
#: waiting call try again hundreds of times).
MIN_COOLDOWN = 1.0
#: How long a header's ``remaining`` holds when the reply gave no reset time (Azure OpenAI
#: sends ``x-ratelimit-remaining-*`` without one).
DEFAULT_RESET = 1.0
_LATENCY_WEIGHT = 0.3  # of a new sample in the moving average


@dataclass(slots=True)
class Bucket:
    """``level``: what is left (None: as full as the cap allows, or unlimited without a cap);
    ``stamp``: when ``level`` was measured; ``hold``: no refill before this time (a server's
    reset time; 0: none)."""

    level: Optional[float] = None
    stamp: float = 0.0
    hold: float = 0.0


@dataclass(slots=True)
class Record:
    """What the router knows of one deployment, shared by every call (and, with
    ``RedisState``, every process): its buckets, its cool-down (``cool``: until when;
    ``why``: the error that caused it) and the moving average of its latency (seconds; a
    stream's time to first chunk) over ``samples`` successful calls."""

    requests: Bucket
    tokens: Bucket
    cool: float = 0.0
    why: str = ""
    latency: float = 0.0
    samples: int = 0

    @classmethod
    def new(cls) -> "Record":
        return cls(Bucket(), Bucket())

    def dump(self) -> list[Any]:
        r, t = self.requests, self.tokens
        return [r.level, r.stamp, r.hold, t.level, t.stamp, t.hold, self.cool, self.why,
                self.latency, self.samples]

    @classmethod
    def load(cls, data: Any) -> Optional["Record"]:
        """The record ``dump`` gave, or None when ``data`` is not one (another version's,
        garbage, a number that is not finite, a field of the wrong type: it comes from a
        shared store, so it is checked as any input from outside)."""
        if not isinstance(data, list) or len(data) != 10:
            return None
        level_r, stamp_r, hold_r, level_t, stamp_t, hold_t, cool, why, latency, samples = data
        times = (stamp_r, hold_r, stamp_t, hold_t, cool, latency)
        if not all(_finite(v) for v in times) or latency < 0 \
                or not all(v is None or _finite(v) for v in (level_r, level_t)) \
                or not isinstance(why, str) or len(why) > MAX_WHY \
                or not isinstance(samples, int) or isinstance(samples, bool) or samples < 0:
            return None
        return cls(Bucket(level_r, float(stamp_r), float(hold_r)),
                   Bucket(level_t, float(stamp_t), float(hold_t)),
                   float(cool), why, float(latency), samples)


#: The longest ``Record.why`` read back from a shared store.
MAX_WHY = 1000


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


# --- buckets -------------------------------------------------------------------------------


def _level(bucket: Bucket, cap: Optional[float], now: float) -> Optional[float]:
    """What ``bucket`` holds at ``now`` (None: unlimited)."""
    if now < bucket.hold:
        return bucket.level if bucket.level is not None else cap
    if cap is None:
        return None
    level = cap if bucket.level is None else bucket.level
    start = max(bucket.stamp, bucket.hold)
    if now > start and level < cap:
        level = min(cap, level + (now - start) * cap / 60.0)
    return level


def ready_in(bucket: Bucket, cap: Optional[float], amount: float, now: float) -> float:
    """Seconds until ``bucket`` can give ``amount`` (0: now). An amount over the cap needs a
    full bucket."""
    level = _level(bucket, cap, now)
    if level is None:
        return 0.0
    need = amount if cap is None else min(amount, cap)
    if level >= need:
        return 0.0
    if cap is None:  # held by the server's headers: free again at its reset
        return max(bucket.hold - now, 0.0)
    refill_from = max(now, bucket.hold)
    # at refill_from the level is still ``level`` (no refill during a hold)
    return refill_from - now + (need - level) * 60.0 / cap


def take(bucket: Bucket, cap: Optional[float], amount: float, now: float) -> None:
    """Take ``amount`` from ``bucket`` (ready: see :func:`ready_in`)."""
    level = _level(bucket, cap, now)
    if level is None:  # unlimited (a server's hold that has passed is forgotten)
        bucket.level, bucket.hold = None, 0.0
        return
    bucket.level = level - amount
    bucket.stamp = now
    if now >= bucket.hold:
        bucket.hold = 0.0


def observe(bucket: Bucket, cap: Optional[float], remaining: float, reset_in: float,
            now: float) -> None:
    """A server said ``remaining`` are left until ``reset_in`` seconds from ``now``: the bucket
    holds no more than that, and does not refill before then."""
    level = _level(bucket, cap, now)
    if level is not None and level <= remaining:
        return  # we already know of less (our own limit, or calls the server had not seen)
    bucket.level = remaining
    bucket.stamp = now
    bucket.hold = now + max(reset_in, 0.0)


def charge(bucket: Bucket, cap: Optional[float], extra: float, now: float) -> None:
    """Take ``extra`` more (a negative number gives back): a call's real token count against
    the estimate taken before it was sent."""
    level = _level(bucket, cap, now)
    if level is None:
        return
    level -= extra
    bucket.level = min(level, cap) if cap is not None and now >= bucket.hold else level
    bucket.stamp = now


# --- the providers' rate-limit headers ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits:
    """What a reply's headers said: requests / tokens remaining and seconds to their reset
    (None: not said)."""

    requests: Optional[tuple[float, float]] = None
    tokens: Optional[tuple[float, float]] = None

    def longest_exhausted_reset(self) -> Optional[float]:
        """The reset time of the longest limit that is used up (remaining < 1), or None."""
        waits = [limit[1] for limit in (self.requests, self.tokens)
                 if limit is not None and limit[0] < 1]
        return max(waits) if waits else None


def _duration(text: str) -> Optional[float]:
    """OpenAI's reset format: ``1s``, ``6m0s``, ``59.94s``, ``20ms``, ``1h2m3s``; also a bare
    number of seconds."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    total = 0.0
    number = ""
    i = 0
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    matched = False
    while i < len(text):
        ch = text[i]
        if ch.isdigit() or ch == ".":
            number += ch
            i += 1
            continue
        unit = "ms" if text.startswith("ms", i) else ch
        if unit not in units or not number:
            return None
        try:
            total += float(number) * units[unit]
        except ValueError:
            return None
        matched = True
        number = ""
        i += len(unit)
    return total if matched and not number else None


def _reset_seconds(text: Optional[str], wall_now: float) -> Optional[float]:
    """A reset header as seconds from now: a duration (OpenAI), or an RFC 3339 time
    (Anthropic: ``2025-01-01T00:00:30Z``), read against ``wall_now`` (``time.time()``)."""
    if not text:
        return None
    seconds = _duration(text)
    if seconds is None:
        try:
            when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            return None
        seconds = when.timestamp() - wall_now
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


def _number(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


# (remaining, reset) header names per limit, OpenAI's (and the compatible services') first.
_REQUEST_HEADERS = (
    ("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"),
    ("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"))
_TOKEN_HEADERS = (("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
                  ("anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"))
_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")


def _limit(found: Mapping[str, str], names: Sequence[tuple[str, str]], wall_now: float
           ) -> Optional[tuple[float, float]]:
    for remaining_name, reset_name in names:
        remaining = _number(found.get(remaining_name))
        if remaining is not None:
            reset = _reset_seconds(found.get(reset_name), wall_now)
            return remaining, DEFAULT_RESET if reset is None else reset
    return None


_FIRST_BYTES = frozenset(b"xXaA")  # what the names of rate-limit headers start with
_FIRST_CHARS = frozenset("xXaA")
_BYTE_PREFIXES = tuple(p.encode() for p in _PREFIXES)
_HTTPX_MODELS = ("httpx2._models", "httpx._models")


def read_limits(headers: Any, wall_now: float) -> Optional[Limits]:
    """The rate-limit headers of a reply (an ``httpx2.Headers``, a mapping, or None), or None
    when it has none. One pass over the headers (an ``httpx2.Headers``' bytes: nothing
    else is decoded); names are compared in lower case. Runs on every routed reply: a
    header that is not a rate-limit header costs one ``startswith`` (or set lookup)."""
    if headers is None:
        return None
    found: dict[str, str] = {}
    if type(headers).__module__ in _HTTPX_MODELS:
        # httpx2.Headers (as httpx's) keeps [(name, lower-case name, value), ...] as bytes;
        # its ``raw`` would copy that list on every read
        for _, bname, bvalue in headers._list:
            if bname.startswith(_BYTE_PREFIXES):
                found[bname.decode("latin-1")] = bvalue.decode("latin-1")
    elif isinstance(raw := getattr(headers, "raw", None), list):  # [(name, value)] as bytes
        for bname, bvalue in raw:
            if bname[0] in _FIRST_BYTES:
                bname = bname.lower()
                if bname.startswith(_BYTE_PREFIXES):
                    found[bname.decode("latin-1")] = bvalue.decode("latin-1")
    else:
        for name, value in headers.items():
            if name[:1] in _FIRST_CHARS:
                name = name.lower()
                if name.startswith(_PREFIXES):
                    found[name] = value
    if not found:
        return None
    limits = Limits(_limit(found, _REQUEST_HEADERS, wall_now),
                    _limit(found, _TOKEN_HEADERS, wall_now))
    return limits if limits.requests is not None or limits.tokens is not None else None


# --- choosing a deployment -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Caps:
    """A deployment's static limits and weight (from its ``rpm``, ``tpm``, ``weight``)."""

    weight: float = 1.0
    rpm: Optional[float] = None
    tpm: Optional[float] = None


@dataclass(slots=True)
class Pick:
    """``index``: the deployment to send to (its buckets already debited), or None; then
    ``wait``: seconds until one of the deployments not excluded is free (None: every one is
    excluded). ``others_ready``: another deployment could take the call right now."""

    index: Optional[int]
    wait: Optional[float] = None
    others_ready: bool = False
    #: whether the chosen deployment's record changed (a bucket was taken from)
    changed: bool = False


def wait_of(record: Record, caps: Caps, tokens: float, now: float) -> float:
    """Seconds until a deployment can take a call of ``tokens`` tokens (0: now)."""
    wait = record.cool - now
    if caps.rpm is not None or record.requests.hold > now:
        wait = max(wait, ready_in(record.requests, caps.rpm, 1.0, now))
    if caps.tpm is not None or record.tokens.hold > now:
        wait = max(wait, ready_in(record.tokens, caps.tpm, max(tokens, 1.0), now))
    return max(wait, 0.0)


def _weighted(candidates: Sequence[int], caps: Sequence[Caps], rand: float) -> int:
    if len(candidates) == 1:
        return candidates[0]
    total = 0.0
    for i in candidates:
        total += caps[i].weight
    point = rand * total
    for i in candidates:
        point -= caps[i].weight
        if point < 0:
            return i
    return candidates[-1]


def _choose(strategy: str, ready: list[int], caps: Sequence[Caps], records: Sequence[Record],
            busy: Sequence[int], rand: float) -> int:
    if strategy == "least-busy" and len(ready) > 1:
        fewest = min(busy[i] for i in ready)
        ready = [i for i in ready if busy[i] == fewest]
    elif strategy == "latency" and len(ready) > 1:
        unmeasured = [i for i in ready if records[i].samples == 0]
        if unmeasured:  # measure each deployment once before comparing
            ready = unmeasured
        else:
            best = min(records[i].latency for i in ready)
            ready = [i for i in ready if records[i].latency == best]
    return _weighted(ready, caps, rand)


def pick(strategy: str, caps: Sequence[Caps], records: Sequence[Record], busy: Sequence[int],
         excluded: Sequence[bool], tokens: float, now: float, rand: float) -> Pick:
    """Choose a deployment for a call of about ``tokens`` tokens among those not
    ``excluded`` and free now (not cooling down, their buckets not empty), by ``strategy``;
    take a request (and the tokens) from its buckets. ``rand`` is a number in [0, 1)."""
    ready: list[int] = []
    soonest: Optional[float] = None
    for i, record in enumerate(records):
        if excluded[i]:
            continue
        cap = caps[i]
        if record.cool <= now and cap.rpm is None and cap.tpm is None and \
                record.requests.hold <= now and record.tokens.hold <= now:
            ready.append(i)  # nothing can hold it back (wait_of would say 0): most calls
            continue
        wait = wait_of(record, cap, tokens, now)
        if wait <= 0.0:
            ready.append(i)
        elif soonest is None or wait < soonest:
            soonest = wait
    if not ready:
        return Pick(None, soonest)
    chosen = ready[0] if len(ready) == 1 else \
        _choose(strategy, ready, caps, records, busy, rand)
    record, cap = records[chosen], caps[chosen]
    changed = False
    if cap.rpm is not None or record.requests.hold:
        take(record.requests, cap.rpm, 1.0, now)
        changed = True
    if cap.tpm is not None or record.tokens.hold:
        take(record.tokens, cap.tpm, max(tokens, 1.0), now)
        changed = True
    return Pick(chosen, 0.0, len(ready) > 1, changed)


def settle(record: Record, caps: Caps, now: float, *, limits: Optional[Limits] = None,
           extra_tokens: float = 0.0, latency: Optional[float] = None,
           cool_for: Optional[float] = None, why: str = "") -> None:
    """What a call taught about its deployment: the reply's rate-limit headers, the tokens
    it used beyond its estimate (when no header said the level), its latency, a cool-down of
    ``cool_for`` seconds (``why``: the error)."""
    if limits is not None:
        if limits.requests is not None:
            observe(record.requests, caps.rpm, *limits.requests, now)
        if limits.tokens is not None:
            observe(record.tokens, caps.tpm, *limits.tokens, now)
    if extra_tokens and caps.tpm is not None and (limits is None or limits.tokens is None):
        charge(record.tokens, caps.tpm, extra_tokens, now)
    if latency is not None:
        record.latency = latency if record.samples == 0 else (
            record.latency + _LATENCY_WEIGHT * (latency - record.latency))
        record.samples += 1
    if cool_for is not None:
        until = now + max(cool_for, MIN_COOLDOWN)
        if until > record.cool:
            record.cool = until
            record.why = why


def describe(record: Record, caps: Caps, tokens: float, now: float) -> str:
    """Why a deployment cannot take a call now, for an error message."""
    parts = []
    if record.cool > now:
        parts.append(f"cooling down {record.cool - now:.1f} s more after "
                     f"{record.why or 'an error'}")
    if caps.rpm is not None or record.requests.hold > now:
        wait = ready_in(record.requests, caps.rpm, 1.0, now)
        if wait > 0:
            parts.append(f"request limit reached, free in {wait:.1f} s")
    if caps.tpm is not None or record.tokens.hold > now:
        wait = ready_in(record.tokens, caps.tpm, max(tokens, 1.0), now)
        if wait > 0:
            parts.append(f"token limit reached, free in {wait:.1f} s")
    return "; ".join(parts) or "free"


TransactionFn = Callable[[list[Record]], tuple[Sequence[int], Any]]
