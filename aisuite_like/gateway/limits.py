"""A virtual key's limits (docs/gateway.md, "Limits"): its rpm / tpm on the router's token
buckets (``router/limits.py``: the same arithmetic, kept in the router's states, so with
Redis every worker shares them), its requests in flight (per worker), and its ``ai.Budget``.
"""

from __future__ import annotations

import time
from typing import Any, Optional

from ..budgets.budget import Budget
from ..router.limits import Record, charge, ready_in, take
from .store import VirtualKey

__all__ = ["KeyLimits", "Refusal"]


class Refusal(Exception):
    """A key's limit refused a request: ``retry_after`` seconds until it may pass."""

    def __init__(self, message: str, retry_after: Optional[float]) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class KeyLimits:
    """Every key's limits in one place: ``state`` a router state (``ai.router.MemoryState``
    or ``RedisState``), ``budget_state`` a budgets state (None: each key's budget keeps its
    own ledger in this process), ``max_in_flight`` per key."""

    def __init__(self, state: Any, budget_state: Any, max_in_flight: int) -> None:
        self._state = state
        self._budget_state = budget_state
        self._max_in_flight = max_in_flight
        self._in_flight: dict[str, int] = {}
        self._budgets: dict[str, tuple[tuple[Any, ...], Budget]] = {}

    def budget(self, key: VirtualKey) -> Optional[Budget]:
        """The key's ``ai.Budget`` (one object per key and setting, so its ledger lasts)."""
        if key.budget is None:
            return None
        setting = (key.budget, key.budget_window, key.created)
        known = self._budgets.get(key.name)
        if known is None or known[0] != setting:
            budget = Budget(key.budget, window=key.budget_window, name=f"key:{key.name}",
                            state=self._budget_state)
            known = self._budgets[key.name] = (setting, budget)
        return known[1]

    def enter(self, key: VirtualKey) -> None:
        """One more request of ``key`` in flight, or ``Refusal``."""
        count = self._in_flight.get(key.name, 0)
        if count >= self._max_in_flight:
            raise Refusal(f"key {key.name!r} has {count} requests in flight, the most allowed; "
                          "wait for one to finish", 1.0)
        self._in_flight[key.name] = count + 1

    def leave(self, key: VirtualKey) -> None:
        count = self._in_flight.get(key.name, 1) - 1
        if count <= 0:
            self._in_flight.pop(key.name, None)
        else:
            self._in_flight[key.name] = count

    def in_flight(self) -> int:
        return sum(self._in_flight.values())

    async def admit(self, key: VirtualKey, tokens: int) -> None:
        """Take one request and ``tokens`` (an estimate) from the key's buckets, or raise
        ``Refusal`` with the wait."""
        if key.rpm is None and key.tpm is None:
            return
        now = time.time()
        rpm = float(key.rpm) if key.rpm is not None else None
        tpm = float(key.tpm) if key.tpm is not None else None

        def fn(records: list[Record]) -> tuple[list[int], float]:
            record = records[0]
            wait = max(ready_in(record.requests, rpm, 1.0, now),
                       ready_in(record.tokens, tpm, float(tokens), now))
            if wait > 0:
                return [], wait
            take(record.requests, rpm, 1.0, now)
            take(record.tokens, tpm, float(tokens), now)
            return [0], 0.0

        wait = await self._state.atransact([_bucket_key(key)], fn)
        if wait > 0:
            which = "requests per minute" if key.rpm is not None else "tokens per minute"
            raise Refusal(f"key {key.name!r} is over its {which}; retry in {wait:.1f} s", wait)

    async def settle(self, key: VirtualKey, estimated: int, real: Optional[int]) -> None:
        """Correct the key's token bucket by the reply's real count."""
        if key.tpm is None or real is None or real == estimated:
            return
        now = time.time()
        tpm = float(key.tpm)

        def fn(records: list[Record]) -> tuple[list[int], None]:
            charge(records[0].tokens, tpm, float(real - estimated), now)
            return [0], None

        await self._state.atransact([_bucket_key(key)], fn)


def _bucket_key(key: VirtualKey) -> str:
    # the key's creation time: a key made again under a revoked one's name starts afresh
    return f"gateway-key:{key.name}:{key.created!r}"
