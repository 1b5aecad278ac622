"""``reasoning_effort`` and ``prompt_cache="auto"``: what the families share, pure (no I/O, no
SDK). The tables and the rules are documented in docs/reasoning-and-caching.md.

- The portable efforts and the one rule for a model that cannot do what the effort asks
  (:func:`refuse`: an ``UnsupportedParameterError`` before anything is sent; ``"none"`` on a
  model that cannot reason is already honoured and sends nothing).
- Claude's thinking, shared by the anthropic and bedrock families: which kind of thinking a
  model name has (:func:`claude_kind`) and what an effort becomes (:func:`claude_thinking`).
- Where cache breakpoints go in a conversation (:func:`cache_turns`), for the families that
  mark them (anthropic, bedrock).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Optional

from ..core.checks import REASONING_EFFORTS
from ..core.errors import UnsupportedParameterError

__all__ = [
    "REASONING_EFFORTS", "CLAUDE_BUDGETS", "ADAPTIVE_EFFORTS", "MAX_CACHE_BREAKPOINTS",
    "ANSWER_ROOM", "ClaudeKind", "ClaudeThinking", "portable_effort", "refuse",
    "claude_kind", "claude_thinking", "cache_turns",
]

#: Effort -> Claude ``thinking.budget_tokens`` on models with budgeted extended thinking
#: (Claude 3.7 Sonnet to the 4.5 generation). 1024 is the API's minimum; 16384 plus the
#: default 4096 of answer room stays under the anthropic SDK's guard on non-streamed requests
#: that may take over 10 minutes (about 21,000 tokens).
CLAUDE_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
#: Effort -> Claude ``output_config.effort`` on models with adaptive thinking (4.6 and later).
ADAPTIVE_EFFORTS: dict[str, str] = {"minimal": "low", "low": "low", "medium": "medium",
                                    "high": "high"}
#: ``max_tokens`` room left for the answer when thinking needs a larger limit than the one
#: given (or when none was given and the provider has no default of its own).
ANSWER_ROOM = 4096
#: The most cache breakpoints one Anthropic / Bedrock-Claude request may carry.
MAX_CACHE_BREAKPOINTS = 4


def portable_effort(effort: str, provider: str, model: str) -> str:
    """``effort`` when it is one of the portable values; else the error naming them (the
    families that translate the effort know only these)."""
    if effort not in REASONING_EFFORTS:
        raise UnsupportedParameterError(
            f"reasoning_effort={effort!r} is not understood by {provider} (model {model!r}); "
            f"use one of {', '.join(map(repr, REASONING_EFFORTS))}",
            parameter="reasoning_effort", provider=provider)
    return effort


def refuse(provider: str, model: str, effort: str, why: str) -> UnsupportedParameterError:
    """The one rule for an effort a model cannot honour: refused before anything is sent,
    saying why and what to do."""
    return UnsupportedParameterError(
        f"reasoning_effort={effort!r} cannot be honoured by {provider} model {model!r}: {why}. "
        "Use a model that can (docs/reasoning-and-caching.md lists them), another effort, or "
        "leave reasoning_effort out", parameter="reasoning_effort", provider=provider)


# --- Claude ------------------------------------------------------------------------------------

#: ``none``: no extended thinking (before Claude 3.7); ``budget``: ``thinking.type "enabled"``
#: with ``budget_tokens`` (3.7 to 4.5); ``adaptive``: ``thinking.type "adaptive"`` with
#: ``output_config.effort`` (4.6 and later); ``adaptive_only``: adaptive, and thinking cannot be
#: turned off (Fable, Mythos); ``unknown``: a name that is not a Claude model name.
ClaudeKind = Literal["none", "budget", "adaptive", "adaptive_only", "unknown"]

_OLD_NAME = re.compile(r"claude-(\d+)(?:-(\d)(?!\d))?-(?:opus|sonnet|haiku)")
_NEW_NAME = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d)(?!\d))?")
_ADAPTIVE_ONLY = re.compile(r"claude-(?:fable|mythos)")
_BEFORE_3 = re.compile(r"claude-(?:v?[12](?!\d)|instant)")


@lru_cache(maxsize=256)
def claude_kind(model: str) -> ClaudeKind:
    """The kind of thinking a Claude model name (Anthropic's, or a Bedrock id such as
    ``us.anthropic.claude-sonnet-4-5-20250929-v1:0``) has, from its family and version."""
    name = model.lower()
    at = name.find("claude-")
    if at < 0:
        return "unknown"
    name = name[at:]
    if _ADAPTIVE_ONLY.match(name):
        return "adaptive_only"
    match = _OLD_NAME.match(name) or _NEW_NAME.match(name)
    if match is None:
        return "none" if _BEFORE_3.match(name) else "unknown"
    version = (int(match.group(1)), int(match.group(2) or 0))
    if version < (3, 7):
        return "none"
    return "budget" if version < (4, 6) else "adaptive"


@dataclass(frozen=True)
class ClaudeThinking:
    """What an effort adds to a Claude request: ``thinking`` (None: nothing), the
    ``output_config.effort`` (None: nothing) and the ``max_tokens`` to send (None: leave it)."""

    thinking: Optional[dict[str, Any]] = None
    effort: Optional[str] = None
    max_tokens: Optional[int] = None


def claude_thinking(effort: str, model: str, kind: ClaudeKind, *, max_tokens: Optional[int],
                    default_max_tokens: Optional[int], temperature: Optional[float],
                    top_p: Optional[float], forces_tool: bool, provider: str,
                    display: bool = False) -> ClaudeThinking:
    """``reasoning_effort`` -> Claude's thinking fields (docs/reasoning-and-caching.md).

    ``kind`` ``unknown`` is taken for the newest form (adaptive). ``max_tokens`` is the
    caller's (None: not given); ``default_max_tokens`` what is sent without one (None: the
    provider's own default). Thinking comes with the rules Anthropic sets for it: no
    ``temperature`` but 1, ``top_p`` of 0.95 or more, no forced tool choice; anything else is
    refused here, before anything is sent. ``display`` asks for the thinking text on models
    that omit it by default (``thinking.display: "summarized"``)."""
    effort = portable_effort(effort, provider, model)
    if kind == "none":
        if effort == "none":
            return ClaudeThinking()
        raise refuse(provider, model, effort, "this Claude model has no extended thinking")
    if effort == "none":
        if kind == "adaptive_only":
            raise refuse(provider, model, effort, "this model always thinks (thinking "
                         "cannot be turned off); use 'minimal' for the least thinking")
        return ClaudeThinking(thinking={"type": "disabled"})
    if temperature is not None and temperature != 1:
        raise UnsupportedParameterError(
            f"temperature={temperature!r} cannot be combined with reasoning_effort={effort!r} "
            f"on {provider}: Claude's thinking takes no temperature but 1. Leave temperature "
            "out, or set reasoning_effort='none'", parameter="temperature", provider=provider)
    if top_p is not None and top_p < 0.95:
        raise UnsupportedParameterError(
            f"top_p={top_p!r} cannot be combined with reasoning_effort={effort!r} on "
            f"{provider}: with thinking Claude takes top_p between 0.95 and 1",
            parameter="top_p", provider=provider)
    if forces_tool:
        raise UnsupportedParameterError(
            f"a tool_choice that forces a tool cannot be combined with reasoning_effort="
            f"{effort!r} on {provider}: Claude's thinking allows tool_choice 'auto' or 'none' "
            "only", parameter="tool_choice", provider=provider)
    room = CLAUDE_BUDGETS[effort]
    if kind == "budget":
        base = max_tokens if max_tokens is not None else (default_max_tokens or ANSWER_ROOM)
        # budget_tokens must stay below max_tokens: a limit that leaves no room is raised so
        # the answer keeps the room it was given.
        return ClaudeThinking(thinking={"type": "enabled", "budget_tokens": room},
                              max_tokens=base if base > room else room + base)
    thinking: dict[str, Any] = {"type": "adaptive"}
    if display:
        thinking["display"] = "summarized"
    # Adaptive thinking has no budget, but shares max_tokens with the answer: without a
    # limit from the caller, the default gets the room the budget table gives this effort.
    limit = None if max_tokens is not None else (default_max_tokens or ANSWER_ROOM) + room
    return ClaudeThinking(thinking=thinking, effort=ADAPTIVE_EFFORTS[effort], max_tokens=limit)


# --- prompt-cache breakpoints ------------------------------------------------------------------


def cache_turns(roles: list[Any]) -> list[int]:
    """Which wire turns of a conversation (their roles, in order) end a reusable prefix, most
    valuable first: the last turn (what the next call of the conversation reuses, written to
    the cache now), then the turn before the last assistant turn (where the previous call of
    the conversation ended: read from the cache now). The tool runner's history grows by an
    assistant turn and its results each turn, so these move forward with it."""
    if not roles:
        return []
    last = len(roles) - 1
    marks = [last]
    for index in range(last, 0, -1):
        if roles[index] == "assistant":
            marks.append(index - 1)
            break
    return marks
