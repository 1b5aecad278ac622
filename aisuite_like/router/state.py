"""Where the router keeps its deployments' records (docs/router.md, "Shared state").

A state runs a *transaction*: given the keys of some records and a function of them (the pure
arithmetic of ``limits.py``, which changes records in place and says which it changed), it
applies the function to the current records atomically and keeps the changes.
``MemoryState`` (the default) holds the records of one process under a lock;
``RedisState`` (``redis_state.py``) shares them between processes and machines.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .limits import Record, TransactionFn

__all__ = ["RouterState", "MemoryState"]


@runtime_checkable
class RouterState(Protocol):
    """What the router asks of a state (``transact`` in sync calls, ``atransact`` in async
    ones): run ``fn`` on the records of ``keys`` (a new ``Record`` for a key never seen)
    atomically, keep the records at the indices it returns, and return its result."""

    def transact(self, keys: Sequence[str], fn: TransactionFn) -> Any: ...

    async def atransact(self, keys: Sequence[str], fn: TransactionFn) -> Any: ...


class MemoryState:
    """The records of this process, in memory (the default ``state``). One lock serialises
    the transactions; each is a few microseconds of arithmetic, with no I/O inside."""

    __slots__ = ("_records", "_lock")

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryState({len(self._records)} deployments)"

    def transact(self, keys: Sequence[str], fn: TransactionFn) -> Any:
        records = self._records
        with self._lock:
            try:
                found = [records[key] for key in keys]
            except KeyError:  # the first transaction of a deployment
                found = [records.get(key) or records.setdefault(key, Record.new())
                         for key in keys]
            return fn(found)[1]  # the records were changed in place

    async def atransact(self, keys: Sequence[str], fn: TransactionFn) -> Any:
        return self.transact(keys, fn)  # no I/O: the lock is held for microseconds
