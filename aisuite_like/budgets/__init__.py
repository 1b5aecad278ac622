"""Budgets: a cost limit that admits every model call before it is sent (docs/budgets.md).

    import aisuite_like as ai
    budget = ai.Budget(5.00, window="1d", name="team-a")
    client = ai.Client(budget=budget)

``Budget`` (``budget.py``) is the limit and its ledger; ``MemoryState`` / ``RedisState``
(``state.py``, ``redis_state.py``) keep the ledger in this process or in Redis; the
admission of one call is sans-IO (``admission.py``) and performed by ``BudgetProvider``
(``provider.py``), the budgets' wrapper in each call's provider stack.
"""

from __future__ import annotations

from ..core.errors import BudgetExceededError, BudgetStateError, UnpricedModelError
from .budget import DEFAULT_OUTPUT_TOKENS, WINDOWS, Budget, BudgetUsage, Quote
from .redis_state import RedisState
from .state import BudgetState, MemoryState

__all__ = ["Budget", "BudgetUsage", "Quote", "MemoryState", "RedisState", "BudgetState",
           "BudgetExceededError", "UnpricedModelError", "BudgetStateError", "WINDOWS",
           "DEFAULT_OUTPUT_TOKENS"]
