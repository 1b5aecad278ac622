"""Where a budget keeps what it spent and what calls in flight hold (docs/budgets.md).

A budget's ledger is one record per window (``spent``, ``reserved``, ``unpriced`` calls),
in integer nano-USD so that sums never drift. A state performs four operations, each
atomic: ``Admit`` (reserve ``amount`` unless the window could then spend more than its
limit), ``Finish`` (drop a reservation and charge the call's real cost: 0 for a failed or
cancelled call), ``Correct`` (replace a noted charge by the real cost, once: a batch's
results) and ``Read``. ``MemoryState`` (the default) holds the ledgers of one process under a
lock; ``RedisState`` (``redis_state.py``) shares them between processes and machines.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Union, runtime_checkable

__all__ = ["BudgetState", "MemoryState", "Admit", "Finish", "Correct", "Read", "Ledger",
           "Op", "NANO"]

#: Ledgers count nano-USD (1e-9 USD) in integers.
NANO = 1_000_000_000


@dataclass(frozen=True)
class Admit:
    """Reserve ``amount`` for call ``id`` in window ``window`` of budget ``name``, unless
    ``spent + reserved + amount`` would pass ``limit`` (a call of amount 0 is refused once
    ``spent + reserved`` has reached the limit). ``expires`` (epoch seconds): when a shared
    state may drop the reservation of a process that died; ``ttl``: seconds the window's
    record must live."""

    name: str
    window: str
    id: str
    amount: int
    limit: int
    now: float
    expires: float
    ttl: int


@dataclass(frozen=True)
class Finish:
    """Drop call ``id``'s reservation and charge ``cost`` (count one unpriced call when
    ``unpriced``). With ``note``, remember ``cost`` under that key for ``note_ttl`` seconds
    so a later ``Correct`` can replace it by the real cost."""

    name: str
    window: str
    id: str
    cost: int
    unpriced: bool = False
    ttl: int = 0
    note: Optional[str] = None
    note_ttl: int = 0


@dataclass(frozen=True)
class Correct:
    """Replace the charge noted under ``note`` by ``cost``, once (a second ``Correct`` of
    the same note finds nothing and changes nothing). Answers whether it corrected."""

    name: str
    note: str
    cost: int


@dataclass(frozen=True)
class Read:
    """The ledger of ``window`` of budget ``name``."""

    name: str
    window: str


Op = Union[Admit, Finish, Correct, Read]


@dataclass(frozen=True)
class Ledger:
    """A window's record: spent and reserved (nano-USD), unpriced calls; for an ``Admit``,
    whether it was admitted (the figures then include its reservation)."""

    spent: int = 0
    reserved: int = 0
    unpriced: int = 0
    admitted: bool = True


@runtime_checkable
class BudgetState(Protocol):
    """What a budget asks of its state: ``perform`` one operation (``aperform`` in async
    code) atomically and answer a ``Ledger`` (``Correct``: a bool)."""

    def perform(self, op: Op) -> Any: ...

    async def aperform(self, op: Op) -> Any: ...


class _Window:
    __slots__ = ("spent", "reserved", "unpriced", "holds")

    def __init__(self) -> None:
        self.spent = 0
        self.reserved = 0
        self.unpriced = 0
        self.holds: dict[str, int] = {}


def refused(spent: int, reserved: int, amount: int, limit: int) -> bool:
    """Whether a call of worst case ``amount`` must be refused (the rule of every state)."""
    if amount <= 0:
        return spent + reserved >= limit
    return spent + reserved + amount > limit


class MemoryState:
    """The ledgers of this process, in memory (the default state: each ``Budget`` has its
    own unless given one to share). One lock serialises the operations, each a few
    microseconds of arithmetic with no I/O inside. Reservations are released by the call
    that made them (a failure, a cancellation, a stream closed or garbage-collected)."""

    __slots__ = ("_windows", "_notes", "_lock")

    def __init__(self) -> None:
        self._windows: dict[tuple[str, str], _Window] = {}
        self._notes: dict[tuple[str, str], tuple[str, int]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryState({len(self._windows)} windows)"

    def _window(self, name: str, window: str) -> _Window:
        found = self._windows.get((name, window))
        if found is None:
            # a new window of this budget: earlier ones with nothing in flight are done
            for key in [k for k, w in self._windows.items()
                        if k[0] == name and k[1] != window and not w.holds]:
                del self._windows[key]
            found = self._windows[(name, window)] = _Window()
        return found

    def perform(self, op: Op) -> Any:
        with self._lock:
            if isinstance(op, Admit):
                w = self._window(op.name, op.window)
                if refused(w.spent, w.reserved, op.amount, op.limit):
                    return Ledger(w.spent, w.reserved, w.unpriced, admitted=False)
                w.reserved += op.amount
                w.holds[op.id] = op.amount
                return Ledger(w.spent, w.reserved, w.unpriced)
            if isinstance(op, Finish):
                w = self._window(op.name, op.window)
                w.reserved -= w.holds.pop(op.id, 0)
                w.spent += op.cost
                if op.unpriced:
                    w.unpriced += 1
                if op.note is not None:
                    self._notes[(op.name, op.note)] = (op.window, op.cost)
                return Ledger(w.spent, w.reserved, w.unpriced)
            if isinstance(op, Correct):
                noted = self._notes.pop((op.name, op.note), None)
                if noted is None:
                    return False
                window, charged = noted
                ledger = self._windows.get((op.name, window))
                if ledger is not None:
                    ledger.spent += op.cost - charged
                return True
            found = self._windows.get((op.name, op.window))
            if found is None:
                return Ledger()
            return Ledger(found.spent, found.reserved, found.unpriced)

    async def aperform(self, op: Op) -> Any:
        return self.perform(op)  # no I/O: the lock is held for microseconds
