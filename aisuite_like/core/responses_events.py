"""A chat stream as Responses stream events (docs/responses.md, "Streams"). Pure: no I/O.

:class:`EventBuilder` turns the chunks of one or more model turns (a stream, or the stream of
a ``max_turns`` run) into the Responses API's stream events, with the output items
:mod:`.responses_items` builds for whole replies.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from .responses import (
    ReasoningSummary,
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseIncompleteEvent,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryPartDoneEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseReasoningTextDoneEvent,
    ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from .responses_items import (
    PSF_ITEMS,
    call_item,
    construct,
    encode_state,
    field_of,
    finish_status,
    message_item,
    parse_items,
    reasoning_item,
    response_id,
    response_shell,
)
from .types import ChatCompletionChunk

__all__ = ["EventBuilder"]


class _Open:
    """The output item a stream is writing."""

    __slots__ = ("kind", "index", "item_id", "parts", "refusal", "call_id", "name", "chunk_index")

    def __init__(self, kind: str, index: int, item_id: str) -> None:
        self.kind = kind
        self.index = index
        self.item_id = item_id
        self.parts: list[str] = []
        self.refusal: list[str] = []
        self.call_id = ""
        self.name = ""
        self.chunk_index = -1


class EventBuilder:
    """Chunks of one or more model turns (a stream, or a ``max_turns`` run's stream) ->
    Responses stream events, sans-IO. ``start`` gives ``response.created`` /
    ``response.in_progress``; ``add`` the events of one chunk; ``end_turn`` closes the turn's
    open items; ``add_items`` adds finished items (the run's tool results); ``complete``
    gives ``response.completed`` (or ``response.incomplete``) with the whole ``Response``,
    which ``response`` also holds. Every event has the next ``sequence_number``."""

    def __init__(self, echo: Mapping[str, Any], *, summary: bool = False) -> None:
        self.echo = echo
        self.summary = summary
        self.seq = 0
        self.output: list[Any] = []
        self.id = ""
        self.base = ""
        self.model = ""
        self.provider = ""
        self.created: float = 0
        self.started = False
        self.response: Optional[Response] = None
        self._open: Optional[_Open] = None
        self._calls: dict[int, _Open] = {}
        self._state: dict[str, Any] = {}
        self._reasoning: Optional[ResponseReasoningItem] = None
        self._turn_start: Optional[int] = None  # where the current reply's items begin
        self._recorded: list[Any] = []  # the reply's own items (a Responses API's), in order

    # -- helpers

    def _event(self, cls: type[ResponseEvent], **values: Any) -> ResponseEvent:
        event = construct(cls, sequence_number=self.seq, **values)
        self.seq += 1
        return event

    def _shell(self, status: str, output: list[Any], usage: Optional[ResponseUsage] = None,
               incomplete: Optional[dict[str, Any]] = None) -> Response:
        return response_shell(self.echo, id=self.id, model=self.model, created=self.created,
                              provider=self.provider, status=status, output=output,
                              usage=usage, incomplete_details=incomplete)

    def start(self, chunk_id: str, model: str, created: float, provider: str
              ) -> list[ResponseEvent]:
        self.started = True
        self.id = response_id(chunk_id)
        self.base = self.id[len("resp_"):] or "0"
        self.model = model
        self.provider = provider
        self.created = created or time.time()
        shell = self._shell("in_progress", [])
        return [self._event(ResponseCreatedEvent, type="response.created", response=shell),
                self._event(ResponseInProgressEvent, type="response.in_progress",
                            response=shell)]

    def _next_id(self, prefix: str) -> tuple[int, str]:
        index = len(self.output)
        return index, f"{prefix}_{self.base}_{index}"

    def _close(self) -> list[ResponseEvent]:
        current, self._open = self._open, None
        if current is None:
            return []
        item = self.output[current.index]
        events: list[ResponseEvent] = []
        if current.kind == "reasoning":
            text = "".join(current.parts)
            final = reasoning_item(current.item_id, text, self._state, self.summary)
            self.output[current.index] = final
            self._reasoning = final
            if self.summary:
                summary_part = construct(ReasoningSummary, type="summary_text", text=text)
                events.append(self._event(
                    ResponseReasoningSummaryTextDoneEvent,
                    type="response.reasoning_summary_text.done", item_id=current.item_id,
                    output_index=current.index, summary_index=0, text=text))
                events.append(self._event(
                    ResponseReasoningSummaryPartDoneEvent,
                    type="response.reasoning_summary_part.done", item_id=current.item_id,
                    output_index=current.index, summary_index=0, part=summary_part))
            else:
                events.append(self._event(
                    ResponseReasoningTextDoneEvent, type="response.reasoning_text.done",
                    item_id=current.item_id, output_index=current.index, content_index=0,
                    text=text))
            item = final
        elif current.kind == "message":
            text = "".join(current.parts)
            refusal = "".join(current.refusal)
            index = 0
            if current.parts:
                part = construct(ResponseOutputText, type="output_text", text=text,
                                                          annotations=[])
                events.append(self._event(
                    ResponseTextDoneEvent, type="response.output_text.done",
                    item_id=current.item_id, output_index=current.index, content_index=0,
                    text=text, logprobs=[]))
                events.append(self._event(
                    ResponseContentPartDoneEvent, type="response.content_part.done",
                    item_id=current.item_id, output_index=current.index, content_index=0,
                    part=part))
                index = 1
            if current.refusal:
                rpart = construct(ResponseOutputRefusal, type="refusal", refusal=refusal)
                events.append(self._event(
                    ResponseRefusalDoneEvent, type="response.refusal.done",
                    item_id=current.item_id, output_index=current.index,
                    content_index=index, refusal=refusal))
                events.append(self._event(
                    ResponseContentPartDoneEvent, type="response.content_part.done",
                    item_id=current.item_id, output_index=current.index,
                    content_index=index, part=rpart))
            item = message_item(current.item_id, text, refusal or None)
            self.output[current.index] = item
        else:  # function_call
            arguments = "".join(current.parts)
            events.append(self._event(
                ResponseFunctionCallArgumentsDoneEvent,
                type="response.function_call_arguments.done", item_id=current.item_id,
                output_index=current.index, name=current.name, arguments=arguments))
            item = call_item(current.item_id, current.call_id, current.name, arguments)
            self.output[current.index] = item
        events.append(self._event(ResponseOutputItemDoneEvent, type="response.output_item.done",
                                  output_index=current.index, item=item))
        return events

    def _open_item(self, kind: str) -> list[ResponseEvent]:
        """Close the open item, open a ``reasoning`` or ``message`` one."""
        events = self._close()
        index, item_id = self._next_id("rs" if kind == "reasoning" else "msg")
        self._open = _Open(kind, index, item_id)
        item: Any
        if kind == "reasoning":
            item = construct(ResponseReasoningItem,
                id=item_id, type="reasoning", summary=[], content=None,
                encrypted_content=None, status="in_progress")
        else:
            item = message_item(item_id, None, None, "in_progress")
        self.output.append(item)
        events.append(self._event(ResponseOutputItemAddedEvent,
                                  type="response.output_item.added", output_index=index,
                                  item=item))
        if kind == "reasoning" and self.summary:
            events.append(self._event(
                ResponseReasoningSummaryPartAddedEvent,
                type="response.reasoning_summary_part.added", item_id=item_id,
                output_index=index, summary_index=0,
                part=construct(ReasoningSummary, type="summary_text", text="")))
        return events

    # -- input

    def add(self, chunk: ChatCompletionChunk) -> list[ResponseEvent]:
        """The events of one chunk (of choice 0)."""
        events: list[ResponseEvent] = []
        if not self.started:
            events.extend(self.start(chunk.id, chunk.model, chunk.created, chunk.provider))
        if not chunk.choices:
            return events
        if self._turn_start is None:
            self._turn_start = len(self.output)
        delta = chunk.choices[0].delta
        if delta.provider_specific_fields:
            for key, value in delta.provider_specific_fields.items():
                if key == PSF_ITEMS:
                    events.extend(self._recorded_items(value))
                    continue
                old = self._state.get(key)
                self._state[key] = old + value if isinstance(value, list) and isinstance(
                    old, list) else value
        if delta.reasoning_content:
            if self._open is None or self._open.kind != "reasoning":
                events.extend(self._open_item("reasoning"))
            current = self._open
            assert current is not None
            current.parts.append(delta.reasoning_content)
            if self.summary:
                events.append(self._event(
                    ResponseReasoningSummaryTextDeltaEvent,
                    type="response.reasoning_summary_text.delta", item_id=current.item_id,
                    output_index=current.index, summary_index=0,
                    delta=delta.reasoning_content))
            else:
                events.append(self._event(
                    ResponseReasoningTextDeltaEvent, type="response.reasoning_text.delta",
                    item_id=current.item_id, output_index=current.index, content_index=0,
                    delta=delta.reasoning_content))
        if delta.content or delta.refusal:
            if self._open is None or self._open.kind != "message":
                events.extend(self._open_item("message"))
            current = self._open
            assert current is not None
            if delta.content:
                if not current.parts:
                    events.append(self._event(
                        ResponseContentPartAddedEvent, type="response.content_part.added",
                        item_id=current.item_id, output_index=current.index, content_index=0,
                        part=construct(ResponseOutputText, type="output_text", text="",
                                                                annotations=[])))
                current.parts.append(delta.content)
                events.append(self._event(
                    ResponseTextDeltaEvent, type="response.output_text.delta",
                    item_id=current.item_id, output_index=current.index, content_index=0,
                    delta=delta.content, logprobs=[]))
            if delta.refusal:
                index = 1 if current.parts else 0
                if not current.refusal:
                    events.append(self._event(
                        ResponseContentPartAddedEvent, type="response.content_part.added",
                        item_id=current.item_id, output_index=current.index,
                        content_index=index,
                        part=construct(ResponseOutputRefusal, type="refusal",
                                                                   refusal="")))
                current.refusal.append(delta.refusal)
                events.append(self._event(
                    ResponseRefusalDeltaEvent, type="response.refusal.delta",
                    item_id=current.item_id, output_index=current.index, content_index=index,
                    delta=delta.refusal))
        for call in delta.tool_calls or ():
            current = self._calls.get(call.index)
            if current is None:
                events.extend(self._close())
                index, item_id = self._next_id("fc")
                current = self._open = _Open("function_call", index, item_id)
                current.call_id = call.id or f"call_{index}"
                current.name = (call.function.name if call.function else None) or ""
                self._calls[call.index] = current
                item = call_item(item_id, current.call_id, current.name, "", "in_progress")
                self.output.append(item)
                events.append(self._event(ResponseOutputItemAddedEvent,
                                          type="response.output_item.added",
                                          output_index=index, item=item))
            piece = call.function.arguments if call.function else None
            if piece:
                current.parts.append(piece)
                if current is not self._open and current.index < len(self.output) and \
                        getattr(self.output[current.index], "status", None) == "completed":
                    # a late piece of a call already done (calls interleaved): the response
                    # still gets the whole arguments
                    self.output[current.index] = call_item(
                        current.item_id, current.call_id, current.name, "".join(current.parts))
                events.append(self._event(
                    ResponseFunctionCallArgumentsDeltaEvent,
                    type="response.function_call_arguments.delta", item_id=current.item_id,
                    output_index=current.index, delta=piece))
        return events

    def _recorded_items(self, items: Sequence[Any]) -> list[ResponseEvent]:
        """Finished items of a Responses API's reply (OpenAI's own, sent back as they are):
        a reasoning item that streamed no text is added and done here, in its place."""
        events: list[ResponseEvent] = []
        for item in items:
            self._recorded.append(item)
            if field_of(item, "type") != "reasoning":
                continue
            if self._open is not None and self._open.kind == "reasoning":
                events.extend(self._close())
                continue
            events.extend(self._close())
            [parsed] = parse_items([item])
            events.extend(self.add_items([parsed]))
        return events

    def end_turn(self) -> list[ResponseEvent]:
        """The end of one model reply: its open items are done (and when the reply came with
        its own items, the response holds those, in their place)."""
        events = self._close()
        for current in self._calls.values():
            item = self.output[current.index]
            if getattr(item, "status", None) == "in_progress":  # a call left open earlier
                arguments = "".join(current.parts)
                item = call_item(current.item_id, current.call_id, current.name, arguments)
                self.output[current.index] = item
                events.append(self._event(
                    ResponseFunctionCallArgumentsDoneEvent,
                    type="response.function_call_arguments.done", item_id=current.item_id,
                    output_index=current.index, name=current.name, arguments=arguments))
                events.append(self._event(ResponseOutputItemDoneEvent,
                                          type="response.output_item.done",
                                          output_index=current.index, item=item))
        if self._state:
            if self._reasoning is not None:  # what the provider needs back, on its item
                self._reasoning.encrypted_content = encode_state(self._state)
            else:
                index, item_id = self._next_id("rs")
                item = reasoning_item(item_id, None, self._state, self.summary)
                self.output.append(item)
                events.append(self._event(ResponseOutputItemAddedEvent,
                                          type="response.output_item.added",
                                          output_index=index, item=item))
                events.append(self._event(ResponseOutputItemDoneEvent,
                                          type="response.output_item.done",
                                          output_index=index, item=item))
        start = self._turn_start
        if self._recorded and start is not None \
                and len(self._recorded) == len(self.output) - start:
            self.output[start:] = parse_items(self._recorded)
        self._calls = {}
        self._state = {}
        self._reasoning = None
        self._turn_start = None
        self._recorded = []
        return events

    def add_items(self, items: Iterable[Any]) -> list[ResponseEvent]:
        """Finished items (a run's tool results): added and done at once."""
        events: list[ResponseEvent] = []
        for item in items:
            index = len(self.output)
            self.output.append(item)
            events.append(self._event(ResponseOutputItemAddedEvent,
                                      type="response.output_item.added", output_index=index,
                                      item=item))
            events.append(self._event(ResponseOutputItemDoneEvent,
                                      type="response.output_item.done", output_index=index,
                                      item=item))
        return events

    def complete(self, usage: Optional[ResponseUsage], finish_reason: Optional[str],
                 **extra: Any) -> list[ResponseEvent]:
        """The last event: ``response.completed`` (``response.incomplete`` when the reply
        was cut), carrying the whole ``Response``."""
        events = self.end_turn()
        status, incomplete = finish_status(finish_reason)
        response = self._shell(status, list(self.output), usage, incomplete)
        for key, value in extra.items():
            setattr(response, key, value)
        self.response = response
        if status == "incomplete":
            events.append(self._event(ResponseIncompleteEvent, type="response.incomplete",
                                      response=response))
        else:
            events.append(self._event(ResponseCompletedEvent, type="response.completed",
                                      response=response))
        return events
