"""The pure parts of budgets (docs/budgets.md): windows, the in-memory ledger, and the
admission of one call by several budgets, step by step."""

from __future__ import annotations

import calendar
import math
import threading

import pytest

import aisuite_like as ai
from aisuite_like.budgets.admission import Admission, perform
from aisuite_like.budgets.budget import Quote, window_of
from aisuite_like.budgets.state import Admit, Correct, Finish, MemoryState, Read


def at(*parts: int) -> float:
    return float(calendar.timegm((*parts, 0, 0, 0)[:6]))


def test_windows_are_calendar_hours_days_and_months_in_utc() -> None:
    now = at(2025, 12, 31, 23, 59, 30)
    assert window_of(None, now) == ("all", math.inf)
    assert window_of("1h", now) == ("2025-12-31T23", at(2026, 1, 1, 0, 0, 0))
    assert window_of("1d", now) == ("2025-12-31", at(2026, 1, 1, 0, 0, 0))
    assert window_of("1mo", now) == ("2025-12", at(2026, 1, 1, 0, 0, 0))
    assert window_of("1mo", at(2024, 2, 10, 5, 0, 0)) == ("2024-02", at(2024, 3, 1, 0, 0, 0))
    assert window_of("1h", at(2024, 2, 29, 0, 0, 0)) == ("2024-02-29T00",
                                                          at(2024, 2, 29, 1, 0, 0))


def test_the_memory_ledger_admits_within_the_limit_and_settles() -> None:
    state = MemoryState()

    def admit(rid: str, amount: int) -> bool:
        return bool(state.perform(Admit("b", "all", rid, amount, 1000, 0.0, 60.0, 0)).admitted)

    assert admit("a", 600) and admit("b", 400)
    assert not admit("c", 1)  # 600 + 400 reserved: full
    ledger = state.perform(Finish("b", "all", "a", 100))  # a cost 100 of its 600
    assert (ledger.spent, ledger.reserved) == (100, 400)
    assert admit("c", 500) and not admit("d", 1)
    state.perform(Finish("b", "all", "b", 0))  # released (failed)
    state.perform(Finish("b", "all", "c", 500))
    assert state.perform(Read("b", "all")) == state.perform(Read("b", "all"))
    assert state.perform(Read("b", "all")).spent == 600
    assert state.perform(Read("b", "all")).reserved == 0
    assert not state.perform(Admit("b", "all", "z", 0, 600, 0.0, 1.0, 0)).admitted  # spent out


def test_a_new_window_starts_empty_and_notes_correct_once() -> None:
    state = MemoryState()
    state.perform(Admit("b", "2025-06-01", "x", 500, 1000, 0.0, 1.0, 0))
    state.perform(Finish("b", "2025-06-01", "x", 500, note="n1", note_ttl=60))
    assert state.perform(Read("b", "2025-06-02")).spent == 0
    assert state.perform(Admit("b", "2025-06-02", "y", 1000, 1000, 0.0, 1.0, 0)).admitted
    assert state.perform(Correct("b", "n1", 200)) is True  # its window was pruned: no effect
    assert state.perform(Correct("b", "n1", 200)) is False


def test_concurrent_admissions_in_threads_never_pass_the_limit() -> None:
    state = MemoryState()
    admitted: list[bool] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        ok = bool(state.perform(Admit("t", "all", f"r{i}", 7, 100, 0.0, 1.0, 0)).admitted)
        with lock:
            admitted.append(ok)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert admitted.count(True) == 14  # 14 * 7 = 98 <= 100 < 15 * 7


def test_one_refusal_releases_what_the_other_budgets_reserved() -> None:
    first, second = ai.Budget(1.0, name="first"), ai.Budget(0.00001, name="second")
    admission = Admission([first, second], Quote(0.0001, 10, 10), "openai:gpt-4o")
    with pytest.raises(ai.BudgetExceededError) as caught:
        perform(admission.admit())
    assert caught.value.budget == "second"
    assert first.usage().reserved == 0 and second.usage().reserved == 0


def test_an_unknown_cost_at_settlement_charges_the_worst_case() -> None:
    budget = ai.Budget(1.0)
    admission = Admission([budget], Quote(0.25, 10, 10), "openai:gpt-4o")
    perform(admission.admit())
    assert budget.usage().reserved == pytest.approx(0.25)
    perform(admission.settle(None))
    assert budget.spent == pytest.approx(0.25) and budget.usage().reserved == 0


def test_unpriced_calls_raise_when_any_budget_is_strict() -> None:
    lenient, strict = ai.Budget(1.0, unpriced="allow"), ai.Budget(1.0, name="strict")
    with pytest.raises(ai.UnpricedModelError):
        Admission([lenient, strict], Quote(None, 10, 10), "ollama:llama3")
    admission = Admission([lenient], Quote(None, 10, 10), "ollama:llama3")
    perform(admission.admit())
    perform(admission.settle(None))
    assert lenient.usage().unpriced_calls == 1 and lenient.spent == 0
