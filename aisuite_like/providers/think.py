"""``<think>...</think>`` extraction (``ai.Client(extract_thinking=True)``; docs/client.md,
"Reasoning"): aisuite moves a reply's leading ``<think>`` block into ``reasoning_content``;
the OpenAI SDK leaves content as the model wrote it, and so does aisuite_like by default.

``extract_think`` does it on a complete reply (in place: the reply is the provider's fresh
object); ``ThinkStream`` does it on a stream's chunks as they pass (content inside a leading
``<think>`` block becomes ``reasoning_content`` deltas). ``ThinkTagsProvider`` wraps a
provider so every reply of a call (each turn of the tool runner, agents included) is read
that way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Optional

from .base import ChatRequest, Provider
from .wrapper import WrapperProvider

__all__ = ["extract_think", "ThinkStream", "ThinkTagsProvider"]

_OPEN, _CLOSE = "<think>", "</think>"


def _split(content: str) -> Optional[tuple[str, str]]:
    """(reasoning, content) of a text that starts with a ``<think>`` block (aisuite's rule:
    after leading whitespace, with a closing tag), else None."""
    text = content.strip()
    if not text.startswith(_OPEN) or _CLOSE not in text:
        return None
    end = text.find(_CLOSE)
    return text[len(_OPEN):end].strip(), text[end + len(_CLOSE):].strip()


def _join(existing: Any, extracted: str) -> str:
    return f"{existing}\n{extracted}" if isinstance(existing, str) and existing else extracted


def extract_think(response: Any) -> Any:
    """``response`` with each choice's leading ``<think>`` block moved from ``content`` into
    ``reasoning_content`` (after any reasoning the provider marked itself). Any object with
    ``choices[i].message.content`` works (aisuite providers' replies included); anything else
    is returned as is."""
    for choice in getattr(response, "choices", None) or ():
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str) or _OPEN not in content:
            continue
        parts = _split(content)
        if parts is not None:
            message.reasoning_content = _join(  # type: ignore[union-attr]
                getattr(message, "reasoning_content", None), parts[0])
            message.content = parts[1]  # type: ignore[union-attr]
    return response


class _ChoiceState:
    """Where one choice's stream is: ``detect`` (leading text buffered until it shows whether
    a ``<think>`` block opens), ``inside`` the block (a possible partial closing tag kept
    back), ``after`` it (leading whitespace dropped), or ``plain`` (no block: as is)."""

    __slots__ = ("state", "buffer")

    def __init__(self) -> None:
        self.state = "detect"
        self.buffer = ""

    def feed(self, text: str) -> tuple[str, str]:
        """(reasoning, content) to send for a content delta of ``text``."""
        reasoning = content = ""
        if self.state == "detect":
            self.buffer += text
            lead = self.buffer.lstrip()
            if not lead or (len(lead) < len(_OPEN) and _OPEN.startswith(lead)):
                return "", ""
            if not lead.startswith(_OPEN):
                self.state, content, self.buffer = "plain", self.buffer, ""
                return "", content
            self.state, text, self.buffer = "inside", lead[len(_OPEN):], ""
        if self.state == "inside":
            self.buffer += text
            end = self.buffer.find(_CLOSE)
            if end < 0:  # keep back what could be the start of the closing tag
                keep = next((n for n in range(len(_CLOSE) - 1, 0, -1)
                             if self.buffer.endswith(_CLOSE[:n])), 0)
                cut = len(self.buffer) - keep
                reasoning, self.buffer = self.buffer[:cut], self.buffer[cut:]
                return reasoning, ""
            reasoning, text = self.buffer[:end], self.buffer[end + len(_CLOSE):]
            self.state, self.buffer = "after", ""
        if self.state == "after":
            text = text.lstrip()
            if text:
                self.state = "plain"
            return reasoning, text
        return reasoning, text

    def flush(self) -> tuple[str, str]:
        """What is still held back when the choice finishes."""
        held, self.buffer = self.buffer, ""
        if self.state == "inside":
            return held, ""
        self.state = "plain"
        return "", held


class ThinkStream:
    """Moves the content of a leading ``<think>`` block of each choice into
    ``reasoning_content`` deltas, chunk by chunk (a chunk that only carried held-back text
    still passes, with no content). In a stream, a block that never closes is reasoning to
    the end (a complete reply keeps it as content: it cannot be told before the end)."""

    def __init__(self) -> None:
        self._choices: dict[int, _ChoiceState] = {}
        self._open = False

    def feed(self, chunk: Any) -> Any:
        changed: Optional[list[Any]] = None
        for position, choice in enumerate(chunk.choices):
            state = self._choices.get(choice.index)
            if state is None:
                state = self._choices[choice.index] = _ChoiceState()
            if state.state == "plain" and choice.finish_reason is None:
                continue
            delta = choice.delta
            reasoning, content = state.feed(delta.content) if delta.content else ("", "")
            if choice.finish_reason is not None:
                held_reasoning, held_content = state.flush()
                reasoning, content = reasoning + held_reasoning, content + held_content
            if reasoning == "" and content == (delta.content or ""):
                continue
            if changed is None:
                changed = list(chunk.choices)
            changed[position] = choice.model_copy(update={"delta": delta.model_copy(update={
                "content": content or None,
                "reasoning_content": (delta.reasoning_content or "") + reasoning or None})})
        return chunk if changed is None else chunk.model_copy(update={"choices": changed})

    def sync(self, chunks: Iterator[Any]) -> Iterator[Any]:
        for chunk in chunks:
            yield self.feed(chunk)

    async def aio(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for chunk in chunks:
            yield self.feed(chunk)


class ThinkTagsProvider(WrapperProvider):
    """``inner`` whose replies have their ``<think>`` blocks extracted (module docstring);
    everything else is ``inner``'s. An aisuite provider's manual call (``as_given``) is
    extracted in place too."""

    def __init__(self, inner: Provider) -> None:
        super().__init__(inner)
        as_given, aas_given = inner.as_given, inner.aas_given
        if as_given is not None:
            self.as_given = lambda request: extract_think(as_given(request))
        if aas_given is not None:
            async def extracted(request: ChatRequest) -> Any:
                return extract_think(await aas_given(request))

            self.aas_given = extracted

    def __repr__(self) -> str:
        return repr(self.wrapped)

    def complete(self, request: ChatRequest) -> Any:
        return extract_think(self.wrapped.complete(request))

    async def acomplete(self, request: ChatRequest) -> Any:
        return extract_think(await self.wrapped.acomplete(request))

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        return ThinkStream().sync(self.wrapped.stream(request))

    def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        return ThinkStream().aio(self.wrapped.astream(request))
