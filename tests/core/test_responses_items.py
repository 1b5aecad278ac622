"""The pure translation between the Responses API's shape and Chat Completions'
(``core/responses_items.py``): items <-> messages, the event builder's streams (validated by
the openai SDK's own event types), and the cost of a ``ResponseUsage``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter

import aisuite_like as ai
from aisuite_like.core.cost import attach_price_ref
from aisuite_like.core.responses_events import EventBuilder
from aisuite_like.core.responses_items import (
    PSF_ITEMS,
    decode_state,
    encode_state,
    input_to_messages,
    is_items_input,
    message_items,
    messages_to_items,
    usage_to_response,
)
from aisuite_like.core.types import (
    ChatCompletionChunk,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
)

EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def chunk(**delta: Any) -> ChatCompletionChunk:
    return ChatCompletionChunk(id="c1", model="m", provider="p",
                               choices=[ChunkChoice(delta=ChoiceDelta(**delta))])


def call_delta(index: int, *, id: str | None = None, name: str | None = None,
               arguments: str | None = None) -> ChatCompletionChunk:
    return chunk(tool_calls=[ChoiceDeltaToolCall(
        index=index, id=id, type="function" if id else None,
        function=ChoiceDeltaFunction(name=name, arguments=arguments))])


def test_a_conversation_round_trips_through_items() -> None:
    psf = {"thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}]}
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Look:"},
                                     {"type": "image_url",
                                      "image_url": {"url": "https://x/a.png", "detail": "high"}}]},
        {"role": "assistant", "content": "Let me check.", "reasoning_content": "t",
         "provider_specific_fields": psf,
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "f", "arguments": "{}"}},
                        {"id": "c2", "type": "function",
                         "function": {"name": "g", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "one", "name": "f"},
        {"role": "tool", "tool_call_id": "c2", "content": "two", "name": "g"},
        {"role": "assistant", "content": "Done."},
    ]
    items = messages_to_items(messages)
    assert [i.get("type", i.get("role")) for i in items] == [
        "system", "user", "reasoning", "assistant", "function_call", "function_call",
        "function_call_output", "function_call_output", "assistant"]
    assert items[1]["content"][1] == {"type": "input_image", "image_url": "https://x/a.png",
                                      "detail": "high"}
    assert decode_state(items[2]["encrypted_content"]) == psf
    assert is_items_input(items)
    assert input_to_messages(items) == messages


def test_openai_cannot_read_another_providers_reasoning() -> None:
    message = {"role": "assistant", "content": "x", "reasoning_content": "r",
               "provider_specific_fields": {"thinking_blocks": [1]}}
    assert messages_to_items([message], for_openai=True) == [
        {"role": "assistant", "content": "x"}]


def test_recorded_items_go_back_with_the_call_ids_the_trace_holds() -> None:
    recorded = [{"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "e"},
                {"id": "fc_1", "type": "function_call", "call_id": "call_0", "name": "f",
                 "arguments": "{}"}]
    # the tool runner renamed the duplicate id call_0 -> call_0_dup
    message = ai.Message(role="assistant", tool_calls=[ai.ToolCall(
        id="call_0_dup", function=ai.Function(name="f", arguments="{}"))],
        provider_specific_fields={PSF_ITEMS: recorded})
    items = messages_to_items([message])
    assert items[0] == recorded[0] and items[1]["call_id"] == "call_0_dup"
    assert recorded[1]["call_id"] == "call_0"  # the recorded items are not modified
    [reasoning, call] = message_items(message, "b", 0)
    assert reasoning.encrypted_content == "e" and call.call_id == "call_0_dup"


@pytest.mark.parametrize("text", [None, 3, "other-provider-opaque", "aisuite-like:v1:!!!",
                                  encode_state({"a": 1})[:-3]])
def test_state_that_is_not_ours_decodes_to_nothing(text: Any) -> None:
    assert decode_state(text) is None


@pytest.mark.parametrize("value, expected", [
    ([{"role": "user", "content": "hi"}], False),
    ([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], False),
    ([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}], True),
    ([{"type": "function_call_output", "call_id": "c", "output": "x"}], True),
    ([{"type": "message", "role": "assistant", "content": []}], True),
    ("hi", False),
])
def test_items_are_told_from_chat_messages(value: Any, expected: bool) -> None:
    assert is_items_input(value) is expected


def test_builder_streams_parallel_calls_refusal_and_summaries_as_sdk_events() -> None:
    builder = EventBuilder({"reasoning": {"summary": "auto"}}, summary=True)
    events = []
    for c in [chunk(role="assistant", reasoning_content="Hm"), chunk(reasoning_content="m."),
              chunk(refusal="No"), chunk(refusal="pe."),
              call_delta(0, id="a", name="f", arguments='{"x"'),
              call_delta(1, id="b", name="g", arguments="{}"),
              call_delta(0, arguments=": 1}")]:
        events += builder.add(c)
    events += builder.complete(None, "tool_calls")
    checked = [EVENTS.validate_python(json.loads(e.model_dump_json())) for e in events]
    assert [e.sequence_number for e in checked] == list(range(len(checked)))
    kinds = [e.type for e in checked]
    assert kinds.count("response.reasoning_summary_text.delta") == 2
    assert "response.refusal.done" in kinds and "response.output_text.delta" not in kinds
    response = builder.response
    assert response is not None
    reasoning, message, first, second = response.output
    assert reasoning.summary[0].text == "Hmm." and message.content[0].refusal == "Nope."
    assert (first.call_id, first.arguments) == ("a", '{"x": 1}')  # a late piece still lands
    assert (second.call_id, second.name) == ("b", "g")


def test_response_usage_is_priced_like_the_chat_call() -> None:
    pytest.importorskip("genai_prices")
    response = ai.ChatCompletionResponse(
        id="r", model="gpt-4o", provider="openai",
        usage=ai.Usage(prompt_tokens=1000, completion_tokens=500, total_tokens=1500))
    attach_price_ref(response, "gpt-4o")
    usage = usage_to_response(response.usage)
    assert usage is not None and usage.cost is not None
    assert usage.cost == response.usage.cost > 0
    assert usage.chat_usage() is response.usage
