"""The Responses API's objects in OpenAI's shape (docs/responses.md): ``Response``, its output
items, its usage and its stream events, as pydantic models of our own (the openai SDK is not
imported). Their JSON validates as the openai SDK's ``openai.types.responses.Response`` and
``ResponseStreamEvent``; fields a provider sends that we do not model are kept (extra fields),
so a native OpenAI reply round-trips unchanged.

Item and event classes carry the openai SDK's names (``ResponseOutputMessage``,
``ResponseTextDeltaEvent``, ...), so code written against the SDK reads them the same way.
"""

# Pydantic copies a mutable default per instance (the base class is pydantic's, which ruff
# cannot see through the import).
# ruff: noqa: RUF012
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional, Union

from pydantic import Discriminator, Field, Tag

from .types import ToolEvent, Usage, _Model

__all__ = [
    "Response", "ResponseUsage", "InputTokensDetails", "OutputTokensDetails",
    "ResponseOutputText", "ResponseOutputRefusal", "ResponseContentPart",
    "ResponseOutputMessage", "ResponseFunctionToolCall", "ResponseReasoningItem",
    "ReasoningSummary", "ReasoningContent", "ResponseFunctionToolCallOutputItem",
    "ResponseOutputItemOther", "ResponseOutputItem", "TResponseInputItem",
    "ResponseEvent", "ResponseStreamEvent", "ResponseCreatedEvent", "ResponseInProgressEvent",
    "ResponseCompletedEvent", "ResponseIncompleteEvent", "ResponseFailedEvent",
    "ResponseOutputItemAddedEvent", "ResponseOutputItemDoneEvent",
    "ResponseContentPartAddedEvent", "ResponseContentPartDoneEvent", "ResponseTextDeltaEvent",
    "ResponseTextDoneEvent", "ResponseRefusalDeltaEvent", "ResponseRefusalDoneEvent",
    "ResponseFunctionCallArgumentsDeltaEvent", "ResponseFunctionCallArgumentsDoneEvent",
    "ResponseReasoningTextDeltaEvent", "ResponseReasoningTextDoneEvent",
    "ResponseReasoningSummaryPartAddedEvent", "ResponseReasoningSummaryPartDoneEvent",
    "ResponseReasoningSummaryTextDeltaEvent", "ResponseReasoningSummaryTextDoneEvent",
    "ResponseErrorEvent", "parse_event", "EVENT_TYPES",
]

#: One item of a Responses ``input`` list (a message, ``function_call``,
#: ``function_call_output``, ``reasoning``, ...), as a dict: the Agents SDK's name.
TResponseInputItem = dict[str, Any]


def _tag(value: Any, known: frozenset[str]) -> str:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    return kind if kind in known else "other"


# --- content parts ---------------------------------------------------------------------------


class ResponseOutputText(_Model):
    """A text part of an assistant message (``type="output_text"``)."""

    type: Literal["output_text"] = "output_text"
    text: str = ""
    annotations: list[Any] = []


class ResponseOutputRefusal(_Model):
    """A refusal part of an assistant message."""

    type: Literal["refusal"] = "refusal"
    refusal: str = ""


class ResponseContentPart(_Model):
    """Any other content part, as sent (its fields are extra fields)."""

    type: str


_PART_TYPES = frozenset({"output_text", "refusal"})

ContentPart = Annotated[
    Union[Annotated[ResponseOutputText, Tag("output_text")],
          Annotated[ResponseOutputRefusal, Tag("refusal")],
          Annotated[ResponseContentPart, Tag("other")]],
    Discriminator(lambda v: _tag(v, _PART_TYPES)),
]


# --- output items ----------------------------------------------------------------------------


class ResponseOutputMessage(_Model):
    """An assistant message: ``content`` holds ``output_text`` / ``refusal`` parts."""

    id: str
    type: Literal["message"] = "message"
    role: Literal["assistant"] = "assistant"
    status: str = "completed"
    content: list[ContentPart] = []


class ResponseFunctionToolCall(_Model):
    """A function call the model made: ``call_id`` pairs it with its
    ``function_call_output``; ``arguments`` is a JSON string."""

    type: Literal["function_call"] = "function_call"
    id: Optional[str] = None
    call_id: str
    name: str
    arguments: str = ""
    status: Optional[str] = None


class ReasoningSummary(_Model):
    type: Literal["summary_text"] = "summary_text"
    text: str = ""


class ReasoningContent(_Model):
    type: Literal["reasoning_text"] = "reasoning_text"
    text: str = ""


class ResponseReasoningItem(_Model):
    """Reasoning the model did. ``encrypted_content`` is opaque state to send back on the next
    turn (OpenAI's encrypted reasoning; for the translated families, what the provider needs
    back, e.g. Anthropic's signed thinking blocks)."""

    id: str
    type: Literal["reasoning"] = "reasoning"
    summary: list[ReasoningSummary] = []
    content: Optional[list[ReasoningContent]] = None
    encrypted_content: Optional[str] = None
    status: Optional[str] = None


class ResponseFunctionToolCallOutputItem(_Model):
    """A tool result the tool runner sent back (``max_turns`` runs)."""

    id: str
    type: Literal["function_call_output"] = "function_call_output"
    call_id: str
    output: Union[str, list[Any]] = ""
    status: str = "completed"


class ResponseOutputItemOther(_Model):
    """Any other output item (a hosted tool's call, ...), as sent. Its ``type`` is any other
    string at run time; type checkers see the hosted items' names, so that ``item.type ==
    "message"`` narrows ``Response.output``'s items as the openai SDK's do."""

    if TYPE_CHECKING:
        type: Literal["web_search_call", "file_search_call", "computer_call",
                      "code_interpreter_call", "image_generation_call", "local_shell_call",
                      "mcp_call", "mcp_list_tools", "mcp_approval_request",
                      "custom_tool_call", "web_fetch_call"]
    else:
        type: str
    id: Optional[str] = None


_ITEM_TYPES = frozenset({"message", "function_call", "reasoning", "function_call_output"})

#: One item of ``Response.output``.
ResponseOutputItem = Annotated[
    Union[Annotated[ResponseOutputMessage, Tag("message")],
          Annotated[ResponseFunctionToolCall, Tag("function_call")],
          Annotated[ResponseReasoningItem, Tag("reasoning")],
          Annotated[ResponseFunctionToolCallOutputItem, Tag("function_call_output")],
          Annotated[ResponseOutputItemOther, Tag("other")]],
    Discriminator(lambda v: _tag(v, _ITEM_TYPES)),
]


# --- usage and the response ------------------------------------------------------------------


class InputTokensDetails(_Model):
    cached_tokens: int = 0
    cache_write_tokens: int = 0


class OutputTokensDetails(_Model):
    reasoning_tokens: int = 0


def _input_details() -> InputTokensDetails:
    return InputTokensDetails()


def _output_details() -> OutputTokensDetails:
    return OutputTokensDetails()


#: Key in ``ResponseUsage.__dict__`` (not a field) of the chat ``Usage`` it was made from: it
#: carries the price reference, so ``cost`` is priced like a chat call's.
CHAT_USAGE = "_chat_usage"


class ResponseUsage(_Model):
    """Tokens with the Responses API's names: ``input_tokens`` (cache reads included, in
    ``input_tokens_details.cached_tokens``), ``output_tokens`` (reasoning included, in
    ``output_tokens_details.reasoning_tokens``), ``total_tokens``."""

    input_tokens: int = 0
    input_tokens_details: InputTokensDetails = Field(default_factory=_input_details)
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails = Field(default_factory=_output_details)
    total_tokens: int = 0

    @property
    def cost(self) -> Optional[float]:
        """The price in USD (genai-prices, extra ``[prices]``), as ``Usage.cost``: ``None``
        when the model's price is unknown. On a ``max_turns`` run: the sum of its calls."""
        chat = self.__dict__.get(CHAT_USAGE)
        if chat is None:
            return None
        cost: Optional[float] = chat.cost
        return cost

    def chat_usage(self) -> Usage:
        """The same numbers with Chat Completions' names (``ai.Usage``)."""
        chat = self.__dict__.get(CHAT_USAGE)
        if isinstance(chat, Usage):
            return chat
        from .types import CompletionTokensDetails, PromptTokensDetails

        return Usage(
            prompt_tokens=self.input_tokens, completion_tokens=self.output_tokens,
            total_tokens=self.total_tokens,
            prompt_tokens_details=PromptTokensDetails(
                cached_tokens=self.input_tokens_details.cached_tokens,
                cache_creation_tokens=self.input_tokens_details.cache_write_tokens or None),
            completion_tokens_details=CompletionTokensDetails(
                reasoning_tokens=self.output_tokens_details.reasoning_tokens))


class Response(_Model):
    """The result of ``client.responses.create``: OpenAI's ``Response`` shape.

    ``output`` holds the items the model produced (``message``, ``function_call``,
    ``reasoning``; with ``max_turns`` also the ``function_call_output`` items of the tools the
    run executed, in order); ``output_text`` is their text. ``provider`` is ours: the
    provider key that served it. With ``max_turns``: ``stop_reason`` (``"completed"`` /
    ``"max_turns"``), ``tool_events`` (one per tool call, as in the tool runner) and
    ``usage`` summed over the run's model calls. ``raw`` may hold the provider's own reply
    (never dumped)."""

    id: str
    object: Literal["response"] = "response"
    created_at: float = 0
    model: str = ""
    status: Optional[str] = "completed"
    output: list[ResponseOutputItem] = []
    usage: Optional[ResponseUsage] = None
    instructions: Union[str, list[Any], None] = None
    tools: list[Any] = []
    tool_choice: Any = "auto"
    parallel_tool_calls: bool = True
    temperature: Optional[float] = None
    top_p: Optional[float] = None
    max_output_tokens: Optional[int] = None
    previous_response_id: Optional[str] = None
    reasoning: Optional[dict[str, Any]] = None
    text: Optional[dict[str, Any]] = None
    error: Optional[dict[str, Any]] = None
    incomplete_details: Optional[dict[str, Any]] = None
    metadata: Optional[dict[str, Any]] = None
    provider: str = ""
    stop_reason: Optional[str] = None
    tool_events: list[ToolEvent] = []
    raw: Any = Field(default=None, exclude=True, repr=False)

    @property
    def output_text(self) -> str:
        """The text of every ``output_text`` part of the output messages, concatenated (the
        openai SDK's property)."""
        texts: list[str] = []
        for item in self.output:
            if isinstance(item, ResponseOutputMessage):
                for part in item.content:
                    if isinstance(part, ResponseOutputText):
                        texts.append(part.text)
        return "".join(texts)


# --- stream events -----------------------------------------------------------------------------


class ResponseEvent(_Model):
    """Base of every stream event: ``type`` and ``sequence_number``. An event type without a
    class of its own (a hosted tool's progress, ...) is a ``ResponseEvent`` holding its fields
    as sent."""

    type: str
    sequence_number: int = 0


class _ResponseLifecycle(ResponseEvent):
    response: Response


class ResponseCreatedEvent(_ResponseLifecycle):
    type: Literal["response.created"] = "response.created"


class ResponseInProgressEvent(_ResponseLifecycle):
    type: Literal["response.in_progress"] = "response.in_progress"


class ResponseCompletedEvent(_ResponseLifecycle):
    type: Literal["response.completed"] = "response.completed"


class ResponseIncompleteEvent(_ResponseLifecycle):
    type: Literal["response.incomplete"] = "response.incomplete"


class ResponseFailedEvent(_ResponseLifecycle):
    type: Literal["response.failed"] = "response.failed"


class ResponseOutputItemAddedEvent(ResponseEvent):
    type: Literal["response.output_item.added"] = "response.output_item.added"
    output_index: int = 0
    item: ResponseOutputItem


class ResponseOutputItemDoneEvent(ResponseEvent):
    type: Literal["response.output_item.done"] = "response.output_item.done"
    output_index: int = 0
    item: ResponseOutputItem


class ResponseContentPartAddedEvent(ResponseEvent):
    type: Literal["response.content_part.added"] = "response.content_part.added"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    part: ContentPart


class ResponseContentPartDoneEvent(ResponseEvent):
    type: Literal["response.content_part.done"] = "response.content_part.done"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    part: ContentPart


class ResponseTextDeltaEvent(ResponseEvent):
    """A piece of an output message's text: ``delta``."""

    type: Literal["response.output_text.delta"] = "response.output_text.delta"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta: str = ""
    logprobs: list[Any] = []


class ResponseTextDoneEvent(ResponseEvent):
    type: Literal["response.output_text.done"] = "response.output_text.done"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    text: str = ""
    logprobs: list[Any] = []


class ResponseRefusalDeltaEvent(ResponseEvent):
    type: Literal["response.refusal.delta"] = "response.refusal.delta"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta: str = ""


class ResponseRefusalDoneEvent(ResponseEvent):
    type: Literal["response.refusal.done"] = "response.refusal.done"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    refusal: str = ""


class ResponseFunctionCallArgumentsDeltaEvent(ResponseEvent):
    """A piece of a function call's arguments (JSON text): ``delta``."""

    type: Literal["response.function_call_arguments.delta"] = \
        "response.function_call_arguments.delta"
    item_id: str = ""
    output_index: int = 0
    delta: str = ""


class ResponseFunctionCallArgumentsDoneEvent(ResponseEvent):
    type: Literal["response.function_call_arguments.done"] = \
        "response.function_call_arguments.done"
    item_id: str = ""
    output_index: int = 0
    name: Optional[str] = None
    arguments: str = ""


class ResponseReasoningTextDeltaEvent(ResponseEvent):
    type: Literal["response.reasoning_text.delta"] = "response.reasoning_text.delta"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta: str = ""


class ResponseReasoningTextDoneEvent(ResponseEvent):
    type: Literal["response.reasoning_text.done"] = "response.reasoning_text.done"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    text: str = ""


class ResponseReasoningSummaryPartAddedEvent(ResponseEvent):
    type: Literal["response.reasoning_summary_part.added"] = \
        "response.reasoning_summary_part.added"
    item_id: str = ""
    output_index: int = 0
    summary_index: int = 0
    part: ReasoningSummary


class ResponseReasoningSummaryPartDoneEvent(ResponseEvent):
    type: Literal["response.reasoning_summary_part.done"] = \
        "response.reasoning_summary_part.done"
    item_id: str = ""
    output_index: int = 0
    summary_index: int = 0
    part: ReasoningSummary


class ResponseReasoningSummaryTextDeltaEvent(ResponseEvent):
    type: Literal["response.reasoning_summary_text.delta"] = \
        "response.reasoning_summary_text.delta"
    item_id: str = ""
    output_index: int = 0
    summary_index: int = 0
    delta: str = ""


class ResponseReasoningSummaryTextDoneEvent(ResponseEvent):
    type: Literal["response.reasoning_summary_text.done"] = \
        "response.reasoning_summary_text.done"
    item_id: str = ""
    output_index: int = 0
    summary_index: int = 0
    text: str = ""


class ResponseErrorEvent(ResponseEvent):
    type: Literal["error"] = "error"
    message: str = ""
    code: Optional[str] = None
    param: Optional[str] = None


_EVENT_CLASSES: tuple[type[ResponseEvent], ...] = (
    ResponseCreatedEvent, ResponseInProgressEvent, ResponseCompletedEvent,
    ResponseIncompleteEvent, ResponseFailedEvent, ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent, ResponseContentPartAddedEvent, ResponseContentPartDoneEvent,
    ResponseTextDeltaEvent, ResponseTextDoneEvent, ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent, ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent, ResponseReasoningTextDeltaEvent,
    ResponseReasoningTextDoneEvent, ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryPartDoneEvent, ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent, ResponseErrorEvent,
)

#: What a Responses stream yields (the openai SDK's name): one of the event classes, told
#: apart by ``type`` as in the SDK (``if event.type == "response.output_text.delta":
#: event.delta``). An event of a type without a class of its own (a hosted tool's progress,
#: ...) arrives as a plain ``ResponseEvent`` (the base of them all) with its fields as sent.
ResponseStreamEvent = Union[
    ResponseCreatedEvent, ResponseInProgressEvent, ResponseCompletedEvent,
    ResponseIncompleteEvent, ResponseFailedEvent, ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent, ResponseContentPartAddedEvent, ResponseContentPartDoneEvent,
    ResponseTextDeltaEvent, ResponseTextDoneEvent, ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent, ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent, ResponseReasoningTextDeltaEvent,
    ResponseReasoningTextDoneEvent, ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryPartDoneEvent, ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent, ResponseErrorEvent,
]

#: event ``type`` -> its class.
EVENT_TYPES: dict[str, type[ResponseEvent]] = {
    cls.model_fields["type"].default: cls for cls in _EVENT_CLASSES}


def parse_event(data: Mapping[str, Any]) -> ResponseEvent:
    """One stream event's JSON -> its event object (a ``ResponseEvent`` for a type without a
    class of its own)."""
    cls = EVENT_TYPES.get(str(data.get("type")), ResponseEvent)
    return cls.model_validate(data)
