"""The admission of one call by every budget that applies to it (sans-IO; docs/budgets.md).

``Admission`` prices the call's worst case when it is made (nothing is sent yet; a model
without a price raises ``UnpricedModelError`` here unless every budget allows unpriced
calls) and then yields the state operations of each step, which a driver performs on each
budget's state: ``perform`` in sync code, ``aperform`` in async code, nothing else differs.

- ``admit()``: reserve the worst case in every budget, in order; the first refusal releases
  what the others reserved and raises ``BudgetExceededError`` (nothing was sent).
- ``settle(cost)``: drop the reservations and charge the real cost (None: the reply's cost
  is unknown, so the worst case is charged); ``release()``: charge nothing (the call failed
  or was cancelled before the provider answered).
- ``charge_note(note)``: charge the worst case and note it (a batch: corrected to the real
  cost when its results are read, ``correct``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Generator, Sequence
from typing import Any, Optional

from ..core.errors import BudgetExceededError, UnpricedModelError
from .budget import Budget, Quote, window_of
from .state import NANO, Admit, Correct, Finish, Ledger, Op

__all__ = ["Admission", "Step", "perform", "aperform", "correct"]

#: What a step yields: the state to perform an operation on, and the operation.
Step = Generator[tuple[Any, Op], Any, Any]

# How long a window's ledger outlives its end in a shared state (seconds): a reservation
# made just before the end settles into it.
_WINDOW_GRACE = 86400


def _ttl(ends: float, now: float, lease: float) -> int:
    if ends == float("inf"):
        return 0  # no window: the ledger never expires
    return int(ends - now + lease + _WINDOW_GRACE)


def _usd(nano: int) -> float:
    return nano / NANO


class Admission:
    """One call's admission by ``budgets`` (each once), priced from ``quote``: its worst
    case (``quote.cost`` None: the model has no known price). ``model`` names the call in
    errors (``"provider:model"``)."""

    __slots__ = ("budgets", "quote", "model", "amount", "unpriced", "now", "entries",
                 "admitted")

    def __init__(self, budgets: Sequence[Budget], quote: Quote, model: str) -> None:
        self.budgets = tuple(budgets)
        self.quote = quote
        self.model = model
        self.unpriced = quote.cost is None
        if self.unpriced:
            strict = next((b for b in self.budgets if b.unpriced == "raise"), None)
            if strict is not None:
                raise UnpricedModelError(
                    f"budget {strict.name!r} cannot admit a call to {model!r}: its price is "
                    "unknown (genai-prices has none for it, or is not installed: pip install "
                    "\"aisuite-like[prices]\"). Pass ai.Budget(..., unpriced='allow') to admit "
                    "such calls, counted as unpriced", budget=strict.name, model=model)
        cost = quote.cost or 0.0
        self.amount = max(int(-(-cost * NANO // 1)), 0)  # rounded up: never short
        self.now = time.time()
        # (budget, window label, window end, reservation id) of each budget, in order
        self.entries = [(b, *window_of(b.window, self.now), uuid.uuid4().hex)
                        for b in self.budgets]
        self.admitted = 0  # how many budgets hold a reservation

    @property
    def needed(self) -> float:
        """The call's worst case in USD."""
        return _usd(self.amount)

    def _lease(self, budget: Budget) -> float:
        return float(getattr(budget.state, "lease", 3600.0))

    def admit(self) -> Step:
        """Reserve in every budget, or release and raise ``BudgetExceededError``."""
        for budget, label, ends, rid in self.entries:
            lease = self._lease(budget)
            ledger: Ledger = yield budget.state, Admit(
                budget.name, label, rid, self.amount, budget.limit_nano, self.now,
                self.now + lease, _ttl(ends, self.now, lease))
            if not ledger.admitted:
                yield from self._finish(None)
                raise self._refusal(budget, label, ledger)
            self.admitted += 1

    def _refusal(self, budget: Budget, label: str, ledger: Ledger) -> BudgetExceededError:
        spent, reserved, needed = _usd(ledger.spent), _usd(ledger.reserved), self.needed
        window = f" in its window {label} ({budget.window})" if budget.window else ""
        how = "estimated" if self.quote.estimated else "counted"
        return BudgetExceededError(
            f"budget {budget.name!r} refused a call to {self.model!r} before sending it: its "
            f"limit is ${budget.max_cost:.6f}{window}, ${spent:.6f} is spent and "
            f"${reserved:.6f} reserved by calls in flight, and this call may cost up to "
            f"${needed:.6f} ({self.quote.input_tokens} input tokens, {how}, and "
            f"{self.quote.output_tokens} output tokens at most). Lower max_tokens, wait for "
            "the window to end, or raise max_cost", budget=budget.name,
            limit=budget.max_cost, spent=spent, reserved=reserved, needed=needed,
            window=budget.window, estimated=self.quote.estimated)

    def settle(self, cost: Optional[float]) -> Step:
        """The reply arrived and cost ``cost`` USD (None: unknown, the worst case is
        charged)."""
        if self.unpriced and cost is None:
            yield from self._finish(0, unpriced=True)
            return
        nano = self.amount if cost is None else max(round(cost * NANO), 0)
        yield from self._finish(nano)

    def release(self) -> Step:
        """The call failed or was cancelled before the provider answered: nothing charged."""
        yield from self._finish(None)

    def charge_note(self, note: str, note_ttl: int) -> Step:
        """Charge the worst case now and note it under ``note`` (a submitted batch)."""
        yield from self._finish(self.amount, note=note, note_ttl=note_ttl,
                                unpriced=self.unpriced)

    def _finish(self, cost: Optional[int], *, unpriced: bool = False,
                note: Optional[str] = None, note_ttl: int = 0) -> Step:
        taken, self.admitted = self.entries[:self.admitted], 0
        for budget, label, ends, rid in taken:
            yield budget.state, Finish(
                budget.name, label, rid, cost or 0, unpriced=unpriced,
                ttl=_ttl(ends, self.now, self._lease(budget)) if cost else 0, note=note,
                note_ttl=note_ttl)


def correct(budgets: Sequence[Budget], note: str, cost: Optional[float]) -> Step:
    """Replace the charge noted under ``note`` in each budget by ``cost`` USD (None: keep
    the noted worst case); once per note."""
    if cost is None:
        return
    nano = max(round(cost * NANO), 0)
    for budget in budgets:
        yield budget.state, Correct(budget.name, note, nano)


def perform(steps: Step) -> Any:
    """Perform ``steps`` in sync code: each operation on its state, in order."""
    try:
        state, op = next(steps)
        while True:
            state, op = steps.send(state.perform(op))
    except StopIteration as done:
        return done.value


async def aperform(steps: Step) -> Any:
    """Perform ``steps`` in async code."""
    try:
        state, op = next(steps)
        while True:
            state, op = steps.send(await state.aperform(op))
    except StopIteration as done:
        return done.value
