"""``ai.context``: what a run sends of its history on each model call (docs/context.md).

A strategy is configuration; each run makes its own ``RunWindow`` (``strategy.window(...)``),
which the tool loop's engine asks before every model call. The history itself (the run's
trace, ``response.messages``) is never cut: a strategy only chooses what is sent.

- ``Trim(max_tokens, keep_system=True, keep_last_turns=None)``: the newest turns that fit
  ``max_tokens`` (and at most ``keep_last_turns`` of them), the leading system messages kept.
- ``Summarize(model, when_over)``: once the input passes ``when_over`` tokens, the oldest
  turns are folded into a summary message written by ``model`` (None: the run's model).
- ``Native()``: the provider's own context management (Anthropic's context editing; OpenAI's
  compaction on the Responses API), where the family has one.

Cuts fall between turns (``tokens.turn_starts``), so a tool result never loses its call and
a call never loses its result. Token counts are the estimate of ``tokens.py``. Each change is
one ``ContextEvent`` on the run's response (``context_events``) and, in an agent run, its
event stream. Everything here is pure; the summary call is a ``Condense`` action of the
engine, which the drivers perform.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..core.content import text_of
from ..core.errors import UnsupportedFeatureError
from ..core.types import ContextEvent
from .tokens import estimate_message, estimate_tools, pinned_count, turn_starts

__all__ = ["ContextWindow", "Trim", "Summarize", "Native", "RunWindow", "SummaryRequest",
           "ContextPlan", "check_context", "NATIVE_FAMILIES", "SUMMARY_INSTRUCTIONS"]

#: The provider keys whose API manages context itself, and how (``Native()``).
NATIVE_FAMILIES = {
    "anthropic": "context editing: tool results older than the last few are cleared "
                 "server-side once the input passes the trigger",
    "openai": "compaction on the Responses API (client.responses.create, or api='responses')",
    "azure": "compaction on the Responses API (client.responses.create, or api='responses')",
}

#: What ``Summarize`` asks its model, unless given ``instructions``.
SUMMARY_INSTRUCTIONS = (
    "You condense conversations for an assistant that will continue them. Summarize the "
    "conversation below: the user's requests, facts learned, decisions made, tool results "
    "that still matter (with their values) and what remains to be done. Write plain text, "
    "as short as the content allows.")

_SUMMARY_PREFIX = "[Summary of the earlier conversation]\n"


def _positive(name: str, value: Any) -> Optional[int]:
    """An int >= 1 or None."""
    return None if value is None else _required(name, value, " or None")


def _required(name: str, value: Any, alternative: str = "") -> int:
    """An int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1{alternative}, got {value!r}")
    return value


class ContextWindow:
    """The base of the strategies of ``ai.context``."""

    #: The strategy's name in ``ContextEvent.strategy``.
    kind = ""

    def window(self, tools: Optional[Sequence[Any]] = None) -> "RunWindow":
        """The state of one run (the run's tool schemas count in every request)."""
        return RunWindow(self, tools)

    def __call__(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages to send (a session's ``context_strategy``; no events)."""
        return self.window().view(messages, 0)

    def native_options(self, provider_key: str, api: Optional[str]) -> dict[str, Any]:
        """The provider-native arguments every request of the run carries (``Native``)."""
        return {}


class Trim(ContextWindow):
    """Send the newest turns whose estimated tokens (with the leading system messages and
    the tool schemas) fit ``max_tokens``, and at most ``keep_last_turns`` turns. A turn is a
    message that is not a tool result, with the tool results that answer it; the newest turn
    is always sent, even alone over ``max_tokens``. ``keep_system=False`` lets the leading
    system / developer messages be cut too."""

    kind = "trim"

    def __init__(self, max_tokens: Optional[int] = None, *, keep_system: bool = True,
                 keep_last_turns: Optional[int] = None) -> None:
        self.max_tokens = _positive("Trim(max_tokens=...)", max_tokens)
        self.keep_last_turns = _positive("Trim(keep_last_turns=...)", keep_last_turns)
        if self.max_tokens is None and self.keep_last_turns is None:
            raise ValueError("Trim needs max_tokens=..., keep_last_turns=... or both")
        if not isinstance(keep_system, bool):
            raise TypeError(f"keep_system must be a bool, got {keep_system!r}")
        self.keep_system = keep_system

    def __repr__(self) -> str:
        return (f"Trim(max_tokens={self.max_tokens}, keep_system={self.keep_system}, "
                f"keep_last_turns={self.keep_last_turns})")


class Summarize(ContextWindow):
    """Once the estimated input passes ``when_over`` tokens, fold the oldest turns (all but
    the last ``keep_last_turns``) into one summary message, written by ``model``
    (``"provider:model"``; None: the run's own model) with ``instructions`` and at most
    ``max_summary_tokens``. Later folds summarize the previous summary with the next turns.
    The summary call goes through the client like any call (budgets, cache, tracing)."""

    kind = "summarize"

    def __init__(self, model: Optional[str] = None, when_over: int = 0, *,
                 keep_last_turns: int = 2, instructions: Optional[str] = None,
                 max_summary_tokens: int = 1024, keep_system: bool = True) -> None:
        if model is not None and (not isinstance(model, str) or ":" not in model):
            raise ValueError(f"Summarize(model=...) must be 'provider:model' or None (the "
                             f"run's model), got {model!r}")
        self.model = model
        self.when_over = _required("Summarize(when_over=...)", when_over)
        self.keep_last_turns = _required("Summarize(keep_last_turns=...)", keep_last_turns)
        self.max_summary_tokens = _required("Summarize(max_summary_tokens=...)",
                                            max_summary_tokens)
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(f"instructions must be a str, got {type(instructions).__name__}")
        self.instructions = instructions or SUMMARY_INSTRUCTIONS
        self.keep_system = bool(keep_system)

    def __repr__(self) -> str:
        return (f"Summarize(model={self.model!r}, when_over={self.when_over}, "
                f"keep_last_turns={self.keep_last_turns})")

    def __call__(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        raise TypeError("Summarize needs a model call, which a session's context_strategy "
                        "cannot make; pass it to the run: create(..., max_turns=N, "
                        "context=ai.context.Summarize(...)) or Runner.run(..., "
                        "context_strategy=...)")


class Native(ContextWindow):
    """The provider's own context management, where the family has one (``NATIVE_FAMILIES``):
    on Anthropic, context editing clears tool results older than the last ``keep_tool_uses``
    once the input passes ``trigger_tokens`` (the provider's default when None); on OpenAI and
    Azure over the Responses API, compaction at ``trigger_tokens`` (``compact_threshold``).
    Any other family raises ``UnsupportedFeatureError`` before anything is sent. The history
    is sent whole: the provider edits it."""

    kind = "native"

    def __init__(self, trigger_tokens: Optional[int] = None, *, keep_tool_uses: int = 3
                 ) -> None:
        self.trigger_tokens = _positive("Native(trigger_tokens=...)", trigger_tokens)
        self.keep_tool_uses = _required("Native(keep_tool_uses=...)", keep_tool_uses)

    def __repr__(self) -> str:
        return f"Native(trigger_tokens={self.trigger_tokens})"

    def native_options(self, provider_key: str, api: Optional[str]) -> dict[str, Any]:
        if provider_key == "anthropic":
            edit: dict[str, Any] = {"type": "clear_tool_uses_20250919",
                                    "keep": {"type": "tool_uses", "value": self.keep_tool_uses}}
            if self.trigger_tokens is not None:
                edit["trigger"] = {"type": "input_tokens", "value": self.trigger_tokens}
            return {"context_management": {"edits": [edit]},
                    "extra_headers": {"anthropic-beta": "context-management-2025-06-27"}}
        if provider_key in ("openai", "azure") and api == "responses":
            compaction: dict[str, Any] = {"type": "compaction"}
            if self.trigger_tokens is not None:
                compaction["compact_threshold"] = self.trigger_tokens
            return {"context_management": [compaction]}
        families = "; ".join(f"{k}: {v}" for k, v in NATIVE_FAMILIES.items())
        raise UnsupportedFeatureError(
            f"ai.context.Native(): provider {provider_key!r}"
            f"{' over Chat Completions' if provider_key in ('openai', 'azure') else ''} has no "
            f"native context management. Families that do: {families}. Use "
            "ai.context.Trim(...) or Summarize(...) elsewhere", feature="context",
            provider=provider_key)

    def __call__(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(messages)


class ContextPlan:
    """A strategy bound to one call by the client: the provider key the run sends to (for
    ``Native``) and the summarizer of ``Summarize`` (the provider and base request of its
    model; None: the run's own)."""

    __slots__ = ("strategy", "provider_key", "summarizer")

    def __init__(self, strategy: ContextWindow, provider_key: Optional[str] = None,
                 summarizer: Optional[tuple[Any, Any]] = None) -> None:
        self.strategy = strategy
        self.provider_key = provider_key
        self.summarizer = summarizer


def check_context(value: Any) -> Optional[ContextWindow]:
    """``context=``: None or a strategy of ``ai.context``."""
    if value is None or isinstance(value, ContextWindow):
        return value
    if isinstance(value, ContextPlan):
        return value.strategy
    raise TypeError(f"context must be ai.context.Trim(...), Summarize(...) or Native(), got "
                    f"{type(value).__name__}")


class SummaryRequest:
    """What the engine asks to be summarized before a model call: ``messages`` for the
    summarizing model, and what the fold will leave out."""

    __slots__ = ("messages", "upto", "turn", "tokens_before", "max_tokens")

    def __init__(self, messages: list[dict[str, Any]], upto: int, turn: int,
                 tokens_before: int, max_tokens: int) -> None:
        self.messages = messages
        self.upto = upto
        self.turn = turn
        self.tokens_before = tokens_before
        self.max_tokens = max_tokens


def _render(message: dict[str, Any]) -> str:
    """One message of a folded stretch, as a line of the transcript the summarizer reads."""
    role = message.get("role", "")
    text = text_of(message.get("content"))
    if role == "tool":
        return f"tool {message.get('name') or ''} ({message.get('tool_call_id', '')}): {text}"
    calls = []
    for call in message.get("tool_calls") or ():
        fn = (call.get("function") or {}) if isinstance(call, dict) else {}
        calls.append(f"{fn.get('name', '')}({fn.get('arguments') or ''})")
    line = f"{role}: {text}" if text else f"{role}:"
    return line + (f" [called {', '.join(calls)}]" if calls else "")


class RunWindow:
    """One run's context state (sans-IO): the view of the history to send before each model
    call, the summary so far, and the ``ContextEvent`` of every change."""

    def __init__(self, strategy: ContextWindow, tools: Optional[Sequence[Any]] = None) -> None:
        self.strategy = strategy
        self.tool_tokens = estimate_tools(tools)
        #: Tokens each request sends besides the history and the tools (an agent's
        #: instructions), counted in the window.
        self.extra_tokens = 0
        self.events: list[ContextEvent] = []
        self._cut: Optional[int] = None  # where the last view started (Trim)
        self.summary: Optional[str] = None
        self.folded = 0  # messages of the history folded into the summary (Summarize)
        self.summarizer_model: Optional[str] = None

    # -- helpers

    def _floor(self, messages: Sequence[dict[str, Any]]) -> int:
        keep = getattr(self.strategy, "keep_system", True)
        return pinned_count(messages) if keep else 0

    def _tokens(self, messages: Sequence[dict[str, Any]]) -> int:
        return sum(estimate_message(m) for m in messages) + self.tool_tokens + \
            self.extra_tokens

    # -- the view sent before model call ``turn``

    def view(self, history: Sequence[dict[str, Any]], turn: int) -> list[dict[str, Any]]:
        strategy = self.strategy
        if isinstance(strategy, Trim):
            return self._trimmed(history, turn, strategy)
        if isinstance(strategy, Summarize):
            return self._summarized(history)
        return list(history)

    def _trimmed(self, history: Sequence[dict[str, Any]], turn: int, trim: Trim
                 ) -> list[dict[str, Any]]:
        floor = self._floor(history)
        starts = turn_starts(history, floor)
        if not starts:
            return list(history)
        first = 0  # index into starts of the oldest turn sent
        if trim.keep_last_turns is not None and len(starts) > trim.keep_last_turns:
            first = len(starts) - trim.keep_last_turns
        sizes = [estimate_message(m) for m in history]
        head = sum(sizes[:floor]) + self.tool_tokens + self.extra_tokens
        total = head + sum(sizes[starts[first]:])
        if trim.max_tokens is not None:
            while first < len(starts) - 1 and total > trim.max_tokens:
                end = starts[first + 1]
                total -= sum(sizes[starts[first]:end])
                first += 1
        start = starts[first]
        before = head + sum(sizes[floor:])
        if start != floor and start != self._cut:
            kept = floor + len(history) - start
            self.events.append(ContextEvent(
                turn=turn, strategy="trim", removed=start - floor, kept=kept,
                tokens_before=before, tokens_after=total))
        self._cut = start if start != floor else self._cut
        if start == floor:
            return list(history)
        return [*history[:floor], *history[start:]]

    def _summarized(self, history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        floor = self._floor(history)
        head = list(history[:floor])
        if self.summary is None:
            return list(history)
        rest = history[max(self.folded, floor):]
        return [*head, {"role": "user", "content": _SUMMARY_PREFIX + self.summary}, *rest]

    # -- Summarize: whether a summary is needed before model call ``turn``

    def summary_needed(self, history: Sequence[dict[str, Any]], turn: int
                       ) -> Optional[SummaryRequest]:
        strategy = self.strategy
        if not isinstance(strategy, Summarize):
            return None
        view = self._summarized(history)
        tokens = self._tokens(view)
        if tokens <= strategy.when_over:
            return None
        floor = self._floor(history)
        starts = turn_starts(history, max(self.folded, floor))
        if len(starts) <= strategy.keep_last_turns:
            return None  # nothing old enough to fold
        upto = starts[len(starts) - strategy.keep_last_turns]
        stretch = history[max(self.folded, floor):upto]
        transcript = "\n".join(_render(m) for m in stretch)
        if self.summary is not None:
            transcript = f"Summary so far:\n{self.summary}\n\nConversation since:\n{transcript}"
        messages = [{"role": "system", "content": strategy.instructions},
                    {"role": "user", "content": transcript}]
        return SummaryRequest(messages, upto, turn, tokens, strategy.max_summary_tokens)

    def folded_into(self, pending: SummaryRequest, summary: str,
                    history: Sequence[dict[str, Any]]) -> None:
        """The summarizer answered ``summary``: the history up to ``pending.upto`` is
        folded (one ``ContextEvent``)."""
        removed = pending.upto - max(self.folded, self._floor(history))
        self.summary = summary.strip() or "(nothing to summarize)"
        self.folded = pending.upto
        view = self._summarized(history)
        self.events.append(ContextEvent(
            turn=pending.turn, strategy="summarize", removed=removed, kept=len(view),
            tokens_before=pending.tokens_before, tokens_after=self._tokens(view),
            summary=self.summary, model=self.summarizer_model))

    # -- Native: what the provider reported it edited

    def observe(self, response: Any, turn: int) -> None:
        """Record a ``ContextEvent`` for an edit the provider reports on ``response``:
        Anthropic's ``context_management.applied_edits``, an OpenAI compaction item."""
        if not isinstance(self.strategy, Native):
            return
        raw = getattr(response, "raw", None)
        applied = (raw.get("context_management") or {}).get("applied_edits") \
            if isinstance(raw, dict) else None
        if isinstance(applied, list):
            for edit in applied:
                if not isinstance(edit, dict):
                    continue
                cleared = edit.get("cleared_input_tokens")
                removed = edit.get("cleared_tool_uses")
                self.events.append(ContextEvent(
                    turn=turn, strategy="native",
                    removed=removed if isinstance(removed, int) else 0,
                    tokens_before=cleared if isinstance(cleared, int) else 0, counted=True))
        message = response.choices[0].message if getattr(response, "choices", None) else None
        fields = getattr(message, "provider_specific_fields", None) or {}
        items = fields.get("responses_items") if isinstance(fields, dict) else None
        for item in items or ():
            if isinstance(item, dict) and item.get("type") == "compaction":
                self.events.append(ContextEvent(turn=turn, strategy="native", counted=True))
