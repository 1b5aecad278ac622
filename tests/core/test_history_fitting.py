"""The history fitting every translator runs first (aisuite_like/core/portability.py,
docs/portability.md): tool-call ids fitted to a target's rule, deterministically and with
calls and results still paired; orphaned calls repaired or refused; results without their
call refused with their index; parallel results in call order where the target pairs them by
position; the caller's messages never modified. Pure functions: tested on data."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

import aisuite_like as ai
from aisuite_like.core.portability import (
    SYNTHETIC_RESULT,
    HistoryRules,
    IdRule,
    fit_history,
    turn_lacks_own_reasoning,
)
from aisuite_like.providers.anthropic.translate import ANTHROPIC_IDS
from aisuite_like.providers.bedrock.translate import BEDROCK_IDS
from aisuite_like.providers.openai.responses import RESPONSES_IDS
from aisuite_like.providers.openai.services import KIMI_IDS, MISTRAL_IDS, OPENAI_IDS

RULES = {"anthropic": ANTHROPIC_IDS, "bedrock": BEDROCK_IDS, "mistral": MISTRAL_IDS,
         "openai": OPENAI_IDS, "responses": RESPONSES_IDS}
# The documented grammars, written out again (a rule that drifted from them fails here).
GRAMMARS = {"anthropic": r"[a-zA-Z0-9_-]+", "bedrock": r"[a-zA-Z0-9_-]{1,64}",
            "mistral": r"[a-zA-Z0-9]{9}", "openai": r"(?s).{1,40}", "responses": r"(?s).{1,64}"}
ODD_IDS = ["functions.get_weather:0", "call_abc|def", "x" * 80, "call with spaces",
           "toolu_01A09q90qw90lq917835lq9", "abc123XYZ", "id/with/slashes", "é-ü-ß", "a"]


def call(call_id: Any, name: str = "f", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def conversation(*ids: str) -> list[dict[str, Any]]:
    """A user question, one assistant message calling ``ids`` in parallel, their results,
    and the answer."""
    return [{"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [call(i) for i in ids]},
            *[{"role": "tool", "tool_call_id": i, "content": f"r{n}"} for n, i in enumerate(ids)],
            {"role": "assistant", "content": "done"}]


def pairs(messages: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return calls, results


@pytest.mark.parametrize("target", sorted(RULES))
def test_every_id_fits_the_target_and_calls_keep_their_results(target: str) -> None:
    rule = RULES[target]
    history = conversation(*ODD_IDS)
    before = copy.deepcopy(history)
    fitted = fit_history(history, HistoryRules(target, ids=rule))
    assert history == before  # the caller's messages, untouched
    calls, results = pairs(fitted.messages)
    assert calls == results  # each result still names its call
    assert len(set(calls)) == len(calls)  # still one id per call
    for sent, source in zip(calls, ODD_IDS, strict=True):
        assert re.fullmatch(GRAMMARS[target], sent), (target, source, sent)
        if rule.fits(source):
            assert sent == source  # an id that fits is sent as it is
    # the contents are the caller's, in order
    assert [m.get("content") for m in fitted.messages] == [m.get("content") for m in history]


@pytest.mark.parametrize("target", sorted(RULES))
def test_the_same_source_id_gets_the_same_id_on_every_request(target: str) -> None:
    rules = HistoryRules(target, ids=RULES[target])
    first = fit_history(conversation("functions.get_weather:0", "call_abc|def"), rules)
    longer = [
        *conversation("functions.get_weather:0", "call_abc|def")[:-1],
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": None, "tool_calls": [call("functions.get_time:1")]},
        {"role": "tool", "tool_call_id": "functions.get_time:1", "content": "noon"}]
    second = fit_history(longer, rules)
    assert pairs(second.messages)[0][:2] == pairs(first.messages)[0]
    assert fit_history(longer, rules).messages == second.messages  # deterministic


def test_ids_that_clean_up_to_the_same_text_stay_apart() -> None:
    fitted = fit_history(conversation("a.b", "a:b", "a_b", "a b"),
                         HistoryRules("anthropic", ids=ANTHROPIC_IDS))
    calls, results = pairs(fitted.messages)
    assert len(set(calls)) == 4 and calls == results
    assert calls[2] == "a_b"  # it fits: as is


def test_a_rewritten_id_never_takes_an_id_the_history_uses() -> None:
    taken = MISTRAL_IDS.rewrite("call_1")
    fitted = fit_history(conversation(taken, "call_1"), HistoryRules("mistral", ids=MISTRAL_IDS))
    calls, results = pairs(fitted.messages)
    assert calls[0] == taken and calls[1] != taken and calls == results


def test_a_reused_id_is_made_unique_where_the_api_wants_unique_ids() -> None:
    # Some servers number calls from 0 on every reply.
    history = [*conversation("call_0")[:-1], {"role": "user", "content": "more"},
               *conversation("call_0")[1:]]
    unique = fit_history(history, HistoryRules("anthropic", ids=ANTHROPIC_IDS))
    calls, results = pairs(unique.messages)
    assert calls[0] == "call_0" and calls[1] != "call_0" and calls == results
    same = fit_history(history, HistoryRules("openai", ids=OPENAI_IDS))
    assert not same.changed and same.messages is history  # OpenAI takes it as it is


def test_parallel_calls_with_one_id_pair_in_order() -> None:
    history = conversation("dup", "dup")
    fitted = fit_history(history, HistoryRules("anthropic", ids=ANTHROPIC_IDS))
    calls, results = pairs(fitted.messages)
    assert calls == results and calls[0] == "dup" and calls[1] != "dup"
    assert [m["content"] for m in fitted.messages if m["role"] == "tool"] == ["r0", "r1"]


def test_a_history_that_fits_is_the_callers_list_itself() -> None:
    history = conversation("call_abc", "call_def")
    fitted = fit_history(history, HistoryRules("openai", ids=OPENAI_IDS))
    assert not fitted.changed and fitted.messages is history
    assert list(fitted) == list(enumerate(history))


@pytest.mark.parametrize("target", ["openai", "anthropic"])
def test_a_call_without_its_result_gets_a_synthetic_error_result(target: str) -> None:
    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": None,
                "tool_calls": [call("a", "lookup"), call("b", "search")]},
               {"role": "tool", "tool_call_id": "b", "content": "found"},
               {"role": "user", "content": "never mind"}]
    before = copy.deepcopy(history)
    fitted = fit_history(history, HistoryRules(target, ids=RULES[target]))
    assert history == before
    assert [m["role"] for m in fitted.messages] == ["user", "assistant", "tool", "tool", "user"]
    synthetic = fitted.messages[3]
    assert synthetic == {"role": "tool", "tool_call_id": "a", "content": SYNTHETIC_RESULT,
                         "name": "lookup"}
    # errors of later messages still name the caller's indexes
    assert [i for i, _ in fitted] == [0, 1, 2, 1, 3]


def test_a_call_at_the_end_of_the_history_is_answered_too() -> None:
    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": None, "tool_calls": [call("a")]}]
    fitted = fit_history(history, HistoryRules("openai", ids=OPENAI_IDS))
    assert fitted.messages[-1]["content"] == SYNTHETIC_RESULT


def test_orphans_error_refuses_a_call_without_result_naming_it() -> None:
    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": None, "tool_calls": [call("a", "lookup")]},
               {"role": "user", "content": "never mind"}]
    with pytest.raises(ai.OrphanToolMessageError, match=r"messages\[1\].*'lookup'") as info:
        fit_history(history, HistoryRules("openai"), "error", provider="openai")
    assert info.value.index == 1 and info.value.tool_call_id == "a"
    assert info.value.provider == "openai"
    assert isinstance(info.value, ai.UnsupportedParameterError)


@pytest.mark.parametrize("orphans", ["repair", "error"])
@pytest.mark.parametrize("history, index, first_problem", [
    # a result with no call at all
    ([{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "x", "content": "r"}],
     1, 1),
    # a result whose call was closed by a user message
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": None, "tool_calls": [call("x")]},
      {"role": "user", "content": "wait"},
      {"role": "tool", "tool_call_id": "x", "content": "r"}], 3, 1),
    # a second result for one call
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": None, "tool_calls": [call("x")]},
      {"role": "tool", "tool_call_id": "x", "content": "r"},
      {"role": "tool", "tool_call_id": "x", "content": "again"}], 3, 3),
    # a result naming an id its assistant message does not have
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": None, "tool_calls": [call("x")]},
      {"role": "tool", "tool_call_id": "y", "content": "r"}], 2, 2),
])
def test_a_result_without_its_call_is_refused_with_its_index(
        history: list[dict[str, Any]], index: int, first_problem: int, orphans: str) -> None:
    # orphans="error" refuses the unanswered call first when it comes before
    expected = index if orphans == "repair" else first_problem
    with pytest.raises(ai.OrphanToolMessageError, match=rf"messages\[{expected}\]") as info:
        fit_history(history, HistoryRules("anthropic", ids=ANTHROPIC_IDS), orphans)
    assert info.value.index == expected


def test_a_call_without_an_id_is_refused_where_results_pair_by_id() -> None:
    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": None, "tool_calls": [call(7)]},
               {"role": "tool", "tool_call_id": "7", "content": "r"}]
    with pytest.raises(ai.UnsupportedParameterError, match=r"messages\[1\]\.tool_calls\[0\]"):
        fit_history(history, HistoryRules("bedrock", ids=BEDROCK_IDS))


def test_gemini_pairs_by_position_and_wants_results_in_call_order() -> None:
    rules = HistoryRules("google", results_in_call_order=True, results_by_position=True)
    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": None,
                "tool_calls": [call("a", "first"), call("b", "second"), call("c", "third")]},
               {"role": "tool", "tool_call_id": "c", "content": "3"},
               {"role": "tool", "content": "no id: the first open call, a"},
               {"role": "tool", "tool_call_id": "b", "content": "2"}]
    fitted = fit_history(history, rules)
    assert [m["content"] for m in fitted.messages[2:]] == [
        "no id: the first open call, a", "2", "3"]
    assert [i for i, _ in fitted][2:] == [3, 4, 2]


def test_names_are_left_out_where_the_api_refuses_them() -> None:
    history = [{"role": "user", "content": "q", "name": "ada"},
               {"role": "assistant", "content": "a", "name": "bot"},
               {"role": "assistant", "content": None, "tool_calls": [call("abcdefghi")]},
               {"role": "tool", "tool_call_id": "abcdefghi", "content": "r", "name": "f"}]
    fitted = fit_history(history, HistoryRules("mistral", ids=MISTRAL_IDS, message_names=False))
    assert "name" not in fitted.messages[0] and "name" not in fitted.messages[1]
    assert fitted.messages[3]["name"] == "f"  # a tool message's name is the tool's
    assert history[0]["name"] == "ada"


@pytest.mark.parametrize("rule, source", [
    (IdRule("x", chars="a-z", max_length=12), "ABC.def.GHI.jkl"),
    (IdRule("x", length=5, chars="a-zA-Z0-9"), "anything at all"),
    (IdRule("x", max_length=11), "call_" + "9" * 30),
])
def test_a_rewritten_id_fits_its_rule(rule: IdRule, source: str) -> None:
    assert not rule.fits(source)
    for attempt in range(5):
        assert rule.fits(rule.rewrite(source, attempt))
    assert len({rule.rewrite(source, attempt) for attempt in range(5)}) == 5


def test_the_turn_in_progress_is_told_apart() -> None:
    own = {"role": "assistant", "content": None, "tool_calls": [call("a")],
           "provider_specific_fields": {"thinking_blocks": [{"type": "thinking"}]}}
    foreign = {"role": "assistant", "content": None, "tool_calls": [call("b")]}

    def has_own(message: Any) -> bool:
        return bool((message.get("provider_specific_fields") or {}).get("thinking_blocks"))
    result = {"role": "tool", "tool_call_id": "b", "content": "r"}
    user = {"role": "user", "content": "q"}
    assert turn_lacks_own_reasoning([user, foreign, result], has_own)
    assert not turn_lacks_own_reasoning([user, own, result], has_own)
    assert turn_lacks_own_reasoning([user, own, result, foreign, result], has_own)
    # a foreign call in an earlier turn does not matter
    assert not turn_lacks_own_reasoning([user, foreign, result, user], has_own)


def test_kimi_numbers_the_calls_of_the_conversation() -> None:
    rules = HistoryRules("kimi", ids=KIMI_IDS)
    history = [*conversation("call_x", "call_y")[:-1], {"role": "user", "content": "more"},
               *conversation("call_z")[1:]]
    fitted = fit_history(history, rules)
    calls, results = pairs(fitted.messages)
    assert calls == ["functions.f:0", "functions.f:1", "functions.f:2"] and calls == results
    # a history Kimi made itself is already numbered so: sent as it is
    again = fit_history(fitted.messages, rules)
    assert not again.changed and again.messages is fitted.messages
