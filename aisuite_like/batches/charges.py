"""What a batch costs its budgets (docs/budgets.md, "Batches"), sans-IO.

``create`` prices each provider batch's requests at batch prices (their worst case: input
estimate plus ``max_tokens``) and has every budget admit all of them before anything is
submitted; a provider batch that was submitted is charged its worst case at once and the
charge noted under its provider batch id; one that failed to submit is released. Reading the
results of a provider batch to its end replaces the noted charge by the real cost of its
results at batch prices (once per note: reading them again changes nothing). A result whose
cost is unknown keeps the worst case for its provider batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Optional

from ..budgets.admission import Admission, Step
from ..budgets.budget import Budget, Quote, embeddings_worst_case, worst_case
from ..core.cost import price_usage
from ..core.errors import APIError, BudgetExceededError
from ..providers.base import EmbeddingRequest

__all__ = ["admissions", "admit_all", "release_all", "note_of", "NOTE_TTL", "PartTally"]

#: How long a provider batch's noted charge waits for its results to be read (seconds).
NOTE_TTL = 30 * 86400


def note_of(key: str, provider_batch_id: str) -> str:
    """The note a provider batch's charge is kept under (bounded, whatever the id)."""
    return "batch:" + hashlib.sha256(f"{key}\0{provider_batch_id}".encode()).hexdigest()[:32]


def _quote(key: str, request: Any) -> Quote:
    if isinstance(request, EmbeddingRequest):
        return embeddings_worst_case(key, request.model, request.input, request.tokens,
                                     batch=True)
    return worst_case(key, (request.model,), request.messages, request.tools,
                      request.max_tokens, request.n, batch=True)


def admissions(budgets: Sequence[Budget], groups: Sequence[Any]) -> list[Admission]:
    """One admission per provider batch: the sum of its requests' worst cases at batch
    prices (unknown when one request's price is)."""
    out = []
    for group in groups:
        quotes = [_quote(group.key, request) for request in group.requests]
        costs = [q.cost for q in quotes]
        total = None if any(c is None for c in costs) else sum(c for c in costs if c)
        quote = Quote(total, sum(q.input_tokens for q in quotes),
                      sum(q.output_tokens for q in quotes), batch=True)
        models = sorted({getattr(r, "model", "") for r in group.requests})
        out.append(Admission(budgets, quote, f"{group.key}:{','.join(models)} (batch)"))
    return out


def admit_all(charges: Sequence[Admission]) -> Step:
    """Admit every provider batch, or none: a refusal releases the ones admitted."""
    done: list[Admission] = []
    try:
        for charge in charges:
            yield from charge.admit()
            done.append(charge)
    except BudgetExceededError:
        for charge in done:
            yield from charge.release()
        raise


def release_all(charges: Sequence[Admission]) -> Step:
    for charge in charges:
        yield from charge.release()


class PartTally:
    """The real cost of one provider batch's results at batch prices (None: unknown)."""

    __slots__ = ("key", "cost")

    def __init__(self, key: str) -> None:
        self.key = key
        self.cost: Optional[float] = 0.0

    def add(self, result: Any) -> None:
        if self.cost is None or isinstance(result, APIError):
            return  # a request that failed is not billed
        usage = getattr(result, "usage", None)
        if usage is None:
            self.cost = None
            return
        cost = price_usage(usage, self.key, getattr(result, "model", ""), batch=True)
        self.cost = None if cost is None else self.cost + cost
