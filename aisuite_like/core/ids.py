"""Unique tool-call ids (docs/reliability.md), decided in one place for every family.

A model reply may repeat a tool-call id, omit one, or reuse an id an earlier turn of the
conversation already used (some servers number calls from 0 on every reply). Results pair
with calls by id, so such a reply is given unique ids before anything runs and before it
reaches the caller: the first use of an id keeps it; a missing id becomes
``call_<choice>_<index>``; a taken id gets the first free suffix ``_2``, ``_3``, ...
Deterministic on purpose: the same reply and history always give the same ids (recorded
replays and tests stay stable). Pure: no I/O; the caller's objects are never modified.

What a provider saved about a call under its id in ``provider_specific_fields`` (Gemini's
thought signatures: entries ``{"part": "function_call", "id": ...}``) follows the call to its
new id (:func:`follow_renamed_ids`), or it would no longer find its call on the next turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional, TypeVar

if TYPE_CHECKING:
    from .types import ChatCompletionChunk, ChatCompletionResponse

__all__ = ["CallIdAssigner", "follow_renamed_ids", "unique_tool_call_ids"]

# A chunk of any ChatCompletionChunk class: copies keep the class of the chunk they copy.
_ChunkT = TypeVar("_ChunkT", bound="ChatCompletionChunk")


def _ids_in(messages: Sequence[Any]) -> set[str]:
    """Every tool-call id the conversation already holds (assistant calls and tool results),
    from message dicts or ``Message`` objects."""
    taken: set[str] = set()
    for m in messages:
        if isinstance(m, dict):
            calls, answered = m.get("tool_calls"), m.get("tool_call_id")
        else:
            calls, answered = getattr(m, "tool_calls", None), getattr(m, "tool_call_id", None)
        if isinstance(answered, str) and answered:
            taken.add(answered)
        for call in calls or ():
            cid = call.get("id") if isinstance(call, dict) else getattr(call, "id", None)
            if isinstance(cid, str) and cid:
                taken.add(cid)
    return taken


class CallIdAssigner:
    """Hands out the ids of ONE model reply. ``prior`` is the conversation sent with the
    request; it is read once, and only when the reply carries a tool call."""

    __slots__ = ("_prior", "_taken")

    def __init__(self, prior: Sequence[Any] = ()) -> None:
        self._prior = prior
        self._taken: Optional[set[str]] = None

    def assign(self, proposed: Optional[str], choice: int, index: int) -> str:
        """The id to use for the call the model named ``proposed`` (None or "" if none)."""
        taken = self._taken
        if taken is None:
            taken = self._taken = _ids_in(self._prior)
        cid = proposed if isinstance(proposed, str) and proposed else f"call_{choice}_{index}"
        if cid in taken:
            suffix = 2
            while f"{cid}_{suffix}" in taken:
                suffix += 1
            cid = f"{cid}_{suffix}"
        taken.add(cid)
        return cid


def follow_renamed_ids(psf: Any, ids: Sequence[tuple[Any, str]]) -> Any:
    """``psf`` (a message's ``provider_specific_fields``) with every list entry that names a
    call by ``"id"`` given that call's new id. ``ids`` is (id the model gave, id assigned) per
    call, in order, so two calls the model gave one id pair with their entries in order. A
    copy when an entry changed, else ``psf`` itself."""
    if not isinstance(psf, dict) or all(old == new for old, new in ids):
        return psf
    unused = list(ids)
    out = dict(psf)
    changed = False
    for key, value in psf.items():
        if not isinstance(value, list):
            continue
        entries = list(value)
        for i, entry in enumerate(entries):
            cid = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(cid, str):
                continue
            match = next((j for j, (old, _) in enumerate(unused) if old == cid), None)
            if match is None:
                continue
            new = unused.pop(match)[1]
            if new != cid:
                entries[i] = {**entry, "id": new}
                out[key] = entries
                changed = True
    return out if changed else psf


def unique_tool_call_ids(response: "ChatCompletionResponse", prior: Sequence[Any] = ()
                         ) -> "ChatCompletionResponse":
    """``response`` with unique tool-call ids (unique within the reply and against ``prior``):
    the same object when nothing had to change, else a copy (the original is left as is)."""
    choices = response.choices
    if not any(getattr(getattr(c, "message", None), "tool_calls", None) for c in choices):
        return response  # the common case: no tool call, nothing to read
    ids = CallIdAssigner(prior)
    fixed = list(choices)
    changed = False
    for position, choice in enumerate(choices):
        message = getattr(choice, "message", None)
        calls = getattr(message, "tool_calls", None)
        if not calls or message is None:
            continue
        new_calls = []
        for index, call in enumerate(calls):
            cid = ids.assign(call.id, choice.index, index)
            new_calls.append(call if cid == call.id else call.model_copy(update={"id": cid}))
        if any(a is not b for a, b in zip(new_calls, calls, strict=True)):
            changed = True
            psf = follow_renamed_ids(message.provider_specific_fields,
                                     [(a.id, b.id) for a, b in zip(calls, new_calls,
                                                                   strict=True)])
            fixed[position] = choice.model_copy(update={"message": message.model_copy(
                update={"tool_calls": new_calls, "provider_specific_fields": psf})})
    return response.model_copy(update={"choices": fixed}) if changed else response


def _chunk_with_ids(chunk: _ChunkT, ids: dict[tuple[int, int], str]) -> _ChunkT:
    """A copy of ``chunk`` whose tool-call deltas at (choice position, delta position) carry
    the given ids (the chunk itself may be the caller's: never modified)."""
    choices = list(chunk.choices)
    for position in {p for p, _ in ids}:
        choice = choices[position]
        deltas = list(choice.delta.tool_calls or ())
        for (p, d), cid in ids.items():
            if p == position:
                deltas[d] = deltas[d].model_copy(update={"id": cid})
        choices[position] = choice.model_copy(update={
            "delta": choice.delta.model_copy(update={"tool_calls": deltas})})
    return chunk.model_copy(update={"choices": choices})
