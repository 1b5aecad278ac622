"""``RedisState``: budgets' ledgers in Redis, shared by every process and machine that uses the
same server (docs/budgets.md, "Shared budgets"). Needs redis-py (``pip install
"aisuite-like[redis]"``), imported on first use.

Each operation is one Lua script, so it is atomic on the server: two processes admitting at
the same time never both take the last of a budget. A window's ledger is a hash (``spent``,
``reserved``, ``unpriced``) beside the reservations in flight (their amounts, and a sorted set
of when each expires: a process that died mid-call leaves a reservation that the next
``Admit`` drops once its lease has passed). Keys live a little past the end of their window.
What the scripts are given and how their replies are read is the same code for the sync and
the async client (``_script_call`` / ``_reply``); only the call differs.

Redis unreachable (or answering an error) fails closed: the call is refused with a
``BudgetStateError`` naming the server (never its password), before anything is sent. A
settlement that fails after the reply arrived is logged; the reservation then expires with
its lease.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Optional

from ..core.errors import BudgetStateError, ConfigurationError
from ..core.redis_endpoint import import_redis, redis_endpoint
from .state import Admit, Correct, Finish, Ledger, Op, Read

__all__ = ["RedisState"]

_log = logging.getLogger("aisuite_like.budgets")

# KEYS: ledger hash, amounts hash, expiry zset. ARGV: id, amount, limit, now, expires, ttl
# (seconds the keys live; 0: no window, they never expire).
_ADMIT = """
local now = tonumber(ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, rid in ipairs(expired) do
  local held = redis.call('HGET', KEYS[2], rid)
  if held then
    redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(held))
    redis.call('HDEL', KEYS[2], rid)
  end
  redis.call('ZREM', KEYS[3], rid)
end
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local unpriced = tonumber(redis.call('HGET', KEYS[1], 'unpriced') or '0')
local amount = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local over
if amount <= 0 then
  over = spent + reserved >= limit
else
  over = spent + reserved + amount > limit
end
if over then return {0, spent, reserved, unpriced} end
redis.call('HINCRBY', KEYS[1], 'reserved', amount)
redis.call('HSET', KEYS[2], ARGV[1], amount)
redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[1])
local ttl = tonumber(ARGV[6])
if ttl > 0 then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
return {1, spent, reserved + amount, unpriced}
"""

# KEYS: ledger hash, amounts hash, expiry zset, note. ARGV: id, cost, unpriced (0/1), ttl,
# window, note ttl (0: no note).
_FINISH = """
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then
  redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(held))
  redis.call('HDEL', KEYS[2], ARGV[1])
end
redis.call('ZREM', KEYS[3], ARGV[1])
local spent = redis.call('HINCRBY', KEYS[1], 'spent', tonumber(ARGV[2]))
local unpriced = 0
if ARGV[3] == '1' then
  unpriced = redis.call('HINCRBY', KEYS[1], 'unpriced', 1)
else
  unpriced = tonumber(redis.call('HGET', KEYS[1], 'unpriced') or '0')
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
if tonumber(ARGV[6]) > 0 then
  redis.call('HSET', KEYS[4], 'w', ARGV[5], 'c', ARGV[2])
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[6]))
end
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
return {1, spent, reserved, unpriced}
"""

# KEYS: note, then the ledger hash of every window the note may name is found from the note
# itself: the note stores its window, the script is given the ledger key prefix. ARGV: ledger
# key prefix, cost.
_CORRECT = """
local window = redis.call('HGET', KEYS[1], 'w')
if not window then return 0 end
local charged = tonumber(redis.call('HGET', KEYS[1], 'c') or '0')
redis.call('DEL', KEYS[1])
local ledger = ARGV[1] .. window
if redis.call('EXISTS', ledger) == 1 then
  redis.call('HINCRBY', ledger, 'spent', tonumber(ARGV[2]) - charged)
end
return 1
"""


def _ints(raw: Any) -> list[int]:
    """A script's reply: a list of integers (anything else is a ``BudgetStateError``)."""
    if not isinstance(raw, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise BudgetStateError(f"budget state: Redis answered {type(raw).__name__}, not the "
                               "list of integers the script returns")
    return list(raw)


class RedisState:
    """Budgets' ledgers in Redis at ``url`` (``redis://[:password@]host:port/db``,
    ``rediss://`` for TLS), under keys starting with ``prefix``. ``timeout`` bounds each
    Redis operation (seconds); ``lease``: how long a reservation outlives a process that
    died before settling it (seconds; longer than your longest call). ``redis_options`` go
    to ``redis.Redis.from_url``."""

    def __init__(self, url: str, *, prefix: str = "aisuite_like:budget:",
                 timeout: float = 2.0, lease: float = 3600.0,
                 redis_options: Optional[dict[str, Any]] = None) -> None:
        endpoint = redis_endpoint(url, timeout=timeout, seconds={"lease": lease},
                                  redis_options=redis_options)
        if not isinstance(prefix, str):
            raise ConfigurationError(f"RedisState prefix must be a str, got {prefix!r}")
        self._url, self._where = endpoint.url, endpoint.where
        self._prefix = prefix
        self.lease = float(lease)
        self._options = endpoint.options
        self._lock = threading.Lock()
        self._sync: Any = None
        self._sync_scripts: dict[str, Any] = {}
        self._async: Any = None
        self._async_scripts: dict[str, Any] = {}
        self._async_loop: Any = None

    def __repr__(self) -> str:  # never the password
        return f"RedisState({self._where!r})"

    @property
    def shared(self) -> bool:
        """Ledgers here are seen by every process (budgets sharing it need a name)."""
        return True

    # -- what each operation sends and how its reply reads (sync and async alike) --

    def _base(self, name: str) -> str:
        return f"{self._prefix}{{{name}}}:"  # {name}: one hash slot per budget (Cluster)

    def _script_call(self, op: Op) -> tuple[str, list[str], list[Any]]:
        if isinstance(op, Read):
            base = self._base(op.name) + op.window
            return "read", [base], []
        if isinstance(op, Admit):
            base = self._base(op.name) + op.window
            return "admit", [base, base + ":a", base + ":x"], [
                op.id, op.amount, op.limit, repr(op.now), repr(op.expires),
                max(op.ttl, 0)]
        if isinstance(op, Finish):
            base = self._base(op.name) + op.window
            note = self._base(op.name) + "note:" + (op.note or "")
            return "finish", [base, base + ":a", base + ":x", note], [
                op.id, op.cost, "1" if op.unpriced else "0", max(op.ttl, 0), op.window,
                op.note_ttl if op.note is not None else 0]
        return "correct", [self._base(op.name) + "note:" + op.note], [
            self._base(op.name), op.cost]

    @staticmethod
    def _reply(op: Op, raw: Any) -> Any:
        if isinstance(op, Correct):
            return raw == 1
        if isinstance(op, Read):
            values = raw if isinstance(raw, (list, tuple)) else [None, None, None]
            numbers = []
            for value in values:
                try:
                    numbers.append(int(value) if value is not None else 0)
                except (TypeError, ValueError):
                    raise BudgetStateError("budget state: a ledger in Redis holds a value "
                                           "that is not an integer") from None
            return Ledger(numbers[0], numbers[1], numbers[2])
        admitted, spent, reserved, unpriced = [*_ints(raw), 0, 0, 0, 0][:4]
        return Ledger(spent, reserved, unpriced, admitted=admitted == 1)

    def _failed(self, exc: BaseException) -> BudgetStateError:
        _log.warning("budget state at %s failed (%s)", self._where, type(exc).__name__)
        return BudgetStateError(
            f"the budget state at {self._where} could not be reached ({type(exc).__name__}); "
            "nothing was sent. Check that Redis is up, or use a budget without "
            "state=RedisState(...) (this process's own ledger)")

    # -- clients (made on first use) --

    @staticmethod
    def _redis() -> Any:
        return import_redis()

    def _scripts_sync(self) -> tuple[Any, dict[str, Any]]:
        if self._sync is None:
            with self._lock:
                if self._sync is None:
                    client = self._redis().Redis.from_url(self._url, **self._options)
                    self._sync_scripts = {
                        "admit": client.register_script(_ADMIT),
                        "finish": client.register_script(_FINISH),
                        "correct": client.register_script(_CORRECT)}
                    self._sync = client
        return self._sync, self._sync_scripts

    def _scripts_async(self) -> tuple[Any, dict[str, Any]]:
        loop = asyncio.get_running_loop()
        if self._async is None or self._async_loop is not loop:
            # redis.asyncio connections belong to the loop they were made on
            self._redis()
            import redis.asyncio

            client = redis.asyncio.Redis.from_url(self._url, **self._options)
            self._async_scripts = {
                "admit": client.register_script(_ADMIT),
                "finish": client.register_script(_FINISH),
                "correct": client.register_script(_CORRECT)}
            self._async, self._async_loop = client, loop
        return self._async, self._async_scripts

    # -- the operations --

    def perform(self, op: Op) -> Any:
        redis = self._redis()
        name, keys, args = self._script_call(op)
        try:
            client, scripts = self._scripts_sync()
            if name == "read":
                raw = client.hmget(keys[0], "spent", "reserved", "unpriced")
            else:
                raw = scripts[name](keys=keys, args=args)
        except (redis.RedisError, OSError) as exc:
            raise self._failed(exc) from None
        return self._reply(op, raw)

    async def aperform(self, op: Op) -> Any:
        redis = self._redis()
        name, keys, args = self._script_call(op)
        try:
            client, scripts = self._scripts_async()
            if name == "read":
                raw = await client.hmget(keys[0], "spent", "reserved", "unpriced")
            else:
                raw = await scripts[name](keys=keys, args=args)
        except (redis.RedisError, OSError) as exc:
            raise self._failed(exc) from None
        return self._reply(op, raw)

    def close(self) -> None:
        """Close the sync connection pool (the async one belongs to its event loop)."""
        client, self._sync = self._sync, None
        if client is not None:
            client.close()
