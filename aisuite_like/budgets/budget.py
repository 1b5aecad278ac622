"""``ai.Budget``: a cost limit that admits each model call before it is sent (docs/budgets.md).

A budget is configuration and a ledger: ``max_cost`` USD per ``window`` (``None``: for its
whole life; ``"1h"`` / ``"1d"`` / ``"1mo"``: per calendar hour, day or month in UTC), kept in
its ``state`` (this process's memory by default; ``RedisState`` shares it between processes).
The admission of a call (``admission.py``) reserves the call's worst case, and settles it to
the real cost when the reply arrives.
"""

from __future__ import annotations

import calendar
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ..context.tokens import estimate_request
from ..core.cost import price_tokens
from ..core.errors import ConfigurationError
from .state import NANO, BudgetState, Ledger, MemoryState, Read

__all__ = ["Budget", "BudgetUsage", "Quote", "WINDOWS", "window_of", "worst_case",
           "embeddings_worst_case", "output_bound", "check_budgets", "DEFAULT_OUTPUT_TOKENS"]

#: The windows a budget may have (None: one window for the budget's whole life).
WINDOWS = (None, "1h", "1d", "1mo")

#: The output tokens a call's worst case assumes when it gives no ``max_tokens`` and the
#: model's output cap is unknown (what the Anthropic family sends when none is given).
DEFAULT_OUTPUT_TOKENS = 4096

_UNPRICED = ("raise", "allow")


def window_of(window: Optional[str], now: float) -> tuple[str, float]:
    """The label of the window ``now`` (epoch seconds) falls in, and when that window ends
    (epoch seconds; ``inf`` without a window). Windows are calendar hours, days and months
    in UTC."""
    if window is None:
        return "all", math.inf
    t = time.gmtime(now)
    if window == "1h":
        start = calendar.timegm((t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, 0, 0))
        return time.strftime("%Y-%m-%dT%H", t), float(start + 3600)
    if window == "1d":
        start = calendar.timegm((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0))
        return time.strftime("%Y-%m-%d", t), float(start + 86400)
    year, month = (t.tm_year + 1, 1) if t.tm_mon == 12 else (t.tm_year, t.tm_mon + 1)
    return time.strftime("%Y-%m", t), float(calendar.timegm((year, month, 1, 0, 0, 0)))


@dataclass(frozen=True)
class Quote:
    """A call's worst case as a budget prices it: ``input_tokens`` (``estimated``: from the
    estimate of docs/context.md, not the provider's count), ``output_tokens`` (``max_tokens``
    times ``n``, or the assumed cap), and ``cost`` in USD (None: the model has no known
    price)."""

    cost: Optional[float]
    input_tokens: int
    output_tokens: int
    estimated: bool = True
    batch: bool = False


@dataclass(frozen=True)
class BudgetUsage:
    """A budget's current window: ``limit``, ``spent`` and ``reserved`` (calls in flight) in
    USD, ``remaining`` (``limit - spent - reserved``, never below 0), ``unpriced_calls``
    (admitted with ``unpriced="allow"`` and counted as unknown), ``window`` (its label, e.g.
    ``"2025-06-01"``) and when it ends (epoch seconds; ``inf`` without a window)."""

    limit: float
    spent: float
    reserved: float
    remaining: float
    unpriced_calls: int
    window: str
    ends_at: float


class Budget:
    """A cost limit for model calls (docs/budgets.md).

        budget = ai.Budget(5.00, window="1d", name="team-a")
        client = ai.Client(budget=budget)                  # every call of the client
        client.chat.completions.create(..., budget=other)  # this call too

    ``max_cost`` is in USD per ``window`` (None, ``"1h"``, ``"1d"``, ``"1mo"``). ``name``
    names the budget in errors and, with ``state=RedisState(url)``, its ledger in Redis
    (budgets of the same name share it; required then). ``unpriced="raise"`` refuses a call
    to a model without a known price (``UnpricedModelError``, before sending); ``"allow"``
    admits it at 0 and counts it in ``unpriced_calls``. Every budget that applies to a call
    must admit it; a refusal is a ``BudgetExceededError`` before anything is sent.
    """

    __slots__ = ("max_cost", "window", "name", "state", "unpriced", "_limit")

    def __init__(self, max_cost: float, *, window: Optional[str] = None,
                 name: Optional[str] = None, state: Optional[BudgetState] = None,
                 unpriced: str = "raise") -> None:
        if isinstance(max_cost, bool) or not isinstance(max_cost, (int, float)) or \
                not math.isfinite(max_cost) or max_cost < 0:
            raise ConfigurationError(f"Budget max_cost must be a number of USD >= 0, got "
                                     f"{max_cost!r}")
        if window not in WINDOWS:
            raise ConfigurationError(f"Budget window must be one of {WINDOWS}, got {window!r}")
        if unpriced not in _UNPRICED:
            raise ConfigurationError(f"Budget unpriced must be 'raise' or 'allow', got "
                                     f"{unpriced!r}")
        if state is not None and not isinstance(state, BudgetState):
            raise ConfigurationError(
                f"Budget state must be ai.budgets.RedisState(url), a MemoryState or None, got "
                f"{type(state).__name__}")
        if name is not None and (not isinstance(name, str) or not name.strip()
                                 or any(c in name for c in "{}\r\n")):
            raise ConfigurationError(f"Budget name must be non-empty text without braces or "
                                     f"line breaks, got {name!r}")
        if name is None and getattr(state, "shared", False):
            raise ConfigurationError(
                "a Budget with a shared state (RedisState) needs a name: budgets of the same "
                "name share one ledger, e.g. ai.Budget(5.0, name='team-a', state=...)")
        self.max_cost = float(max_cost)
        self.window = window
        #: The budget's name (in errors; its ledger's key in a shared state).
        self.name = name if name is not None else f"budget-{id(self):x}"
        self.state: BudgetState = state if state is not None else MemoryState()
        self.unpriced = unpriced
        self._limit = round(self.max_cost * NANO)

    def __repr__(self) -> str:
        window = f", window={self.window!r}" if self.window else ""
        return f"Budget({self.max_cost:g}{window}, name={self.name!r}, state={self.state!r})"

    @property
    def limit_nano(self) -> int:
        """``max_cost`` in nano-USD (what the ledgers count)."""
        return self._limit

    def _usage(self, ledger: Ledger, label: str, ends: float) -> BudgetUsage:
        spent, reserved = ledger.spent / NANO, ledger.reserved / NANO
        return BudgetUsage(limit=self.max_cost, spent=spent, reserved=reserved,
                           remaining=max(self.max_cost - spent - reserved, 0.0),
                           unpriced_calls=ledger.unpriced, window=label, ends_at=ends)

    def usage(self) -> BudgetUsage:
        """The current window's figures (read from the state: Redis for a shared one)."""
        label, ends = window_of(self.window, time.time())
        return self._usage(self.state.perform(Read(self.name, label)), label, ends)

    async def ausage(self) -> BudgetUsage:
        """Async ``usage``."""
        label, ends = window_of(self.window, time.time())
        return self._usage(await self.state.aperform(Read(self.name, label)), label, ends)

    @property
    def spent(self) -> float:
        """USD spent in the current window (``usage().spent``)."""
        return self.usage().spent

    @property
    def remaining(self) -> float:
        """USD left in the current window (``usage().remaining``)."""
        return self.usage().remaining

    def quote(self, model: str, messages: Any, *, tools: Any = None,
              max_tokens: Optional[int] = None, n: Optional[int] = None,
              batch: bool = False) -> Quote:
        """What a call to ``model`` (``"provider:model"``) with these messages (dicts or
        ``Message`` objects) and tool schemas reserves: its worst case, priced as admission
        prices it. Nothing is sent and nothing is reserved."""
        key, _, name = model.partition(":") if isinstance(model, str) else ("", "", "")
        if not key or not name:
            raise ConfigurationError(f"quote() needs a model 'provider:model', got {model!r}")
        dicts = [m if isinstance(m, dict) else m.model_dump(exclude_none=True)
                 for m in messages]
        return worst_case(key, (name,), dicts, tools, max_tokens, n, batch=batch)


def worst_case(key: str, models: tuple[str, ...], messages: Sequence[dict[str, Any]],
               tools: Any, max_tokens: Optional[int], n: Optional[int], *,
               batch: bool = False, output_cap: Optional[int] = None,
               counted: Optional[int] = None) -> Quote:
    """A call's worst case: its input tokens (``counted`` by the provider when given, else
    the estimate) times the input price, plus its output bound times the output price
    (``max_tokens``, else ``output_cap``, else ``DEFAULT_OUTPUT_TOKENS``; times ``n``),
    priced by genai-prices for the first of ``models`` it knows (at batch prices when
    ``batch``)."""
    input_tokens = counted if counted is not None else estimate_request(messages, tools)
    bound = output_bound(max_tokens if max_tokens is not None else output_cap)
    output_tokens = bound * (n if n is not None and n > 1 else 1)
    cost = price_tokens(key, models, {"input_tokens": input_tokens,
                                      "output_tokens": output_tokens}, batch=batch)
    return Quote(cost, input_tokens, output_tokens, estimated=counted is None, batch=batch)


def embeddings_worst_case(key: str, model: str, inputs: Sequence[Any], tokens: bool, *,
                          batch: bool = False) -> Quote:
    """An embeddings request's cost: its inputs' tokens (their lengths when they are token
    arrays, else their text / 4) times the model's input price."""
    size = sum(len(item) for item in inputs)
    count = size if tokens else -(-size // 4)
    return Quote(price_tokens(key, (model,), {"input_tokens": count}, batch=batch), count, 0,
                 batch=batch)


def output_bound(max_tokens: Any) -> int:
    """The output tokens a worst case assumes: ``max_tokens``, else the documented default."""
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens > 0:
        return max_tokens
    return DEFAULT_OUTPUT_TOKENS


def check_budgets(value: Any, where: str = "budget") -> tuple[Budget, ...]:
    """``budget=``: None, a ``Budget`` or a list of them -> a tuple of budgets (each once)."""
    if value is None:
        return ()
    if isinstance(value, Budget):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(b, Budget) for b in value):
        return tuple({id(b): b for b in value}.values())
    raise TypeError(f"{where} must be an ai.Budget (or a list of them), got "
                    f"{type(value).__name__}")
