"""``ai.instrument()`` covers ``client.responses``: a ``chat {model}`` span per model call
(native OpenAI calls included: the GenAI conventions have no operation of their own for the
Responses API), the run's spans around a ``max_turns`` run, and ``ai.trace(name)`` as a span
that parents what runs inside it. Read back with the OpenTelemetry SDK's in-memory exporter."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401  (the fixture)
from support.responses_helpers import respond, respond_stream
from opentelemetry.trace import SpanKind
from support.telemetry import Telemetry

import aisuite_like as ai

URL = "https://api.openai.com/v1/responses"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}


REPLY = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
         "model": "gpt-5-2025", "output": [
             {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
              "content": [{"type": "output_text", "text": "Hi!", "annotations": []}]}],
         "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
         "usage": {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 12}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_native_call_is_a_chat_span(mode: str, otel: Telemetry,
                                    httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=REPLY)
    respond(mode, CONFIG, model="openai:gpt-5", input="hi", temperature=0.5,
            max_output_tokens=40)
    span = otel.one("chat gpt-5")
    assert span.kind == SpanKind.CLIENT
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.provider.name"] == "openai"
    assert attributes["gen_ai.request.model"] == "gpt-5"
    assert attributes["gen_ai.request.temperature"] == 0.5
    assert attributes["gen_ai.request.max_tokens"] == 40
    assert attributes["gen_ai.response.id"] == "resp_1"
    assert attributes["gen_ai.response.model"] == "gpt-5-2025"
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert attributes["gen_ai.usage.input_tokens"] == 9
    assert attributes["gen_ai.usage.output_tokens"] == 3
    assert attributes["server.address"] == "api.openai.com"


def test_native_stream_span_ends_with_the_stream(otel: Telemetry,
                                                 httpx2_mock: respx.Router) -> None:
    events = [{"type": "response.created", "sequence_number": 0,
               "response": {**REPLY, "status": "in_progress", "output": [], "usage": None}},
              {"type": "response.completed", "sequence_number": 1, "response": REPLY}]
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    httpx2_mock.post(URL).mock(return_value=httpx.Response(
        200, content=text.encode(), headers={"content-type": "text/event-stream"}))
    respond_stream("sync", CONFIG, model="openai:gpt-5", input="hi")
    attributes = dict(otel.one("chat gpt-5").attributes or {})
    assert attributes["gen_ai.usage.output_tokens"] == 3
    assert attributes["gen_ai.response.id"] == "resp_1"


def test_translated_tool_run_has_its_run_and_tool_spans(otel: Telemetry) -> None:
    def get_weather(city: str) -> str:
        """Weather."""
        return "sunny"

    with ai.trace("Weather workflow", group_id="conv-7"):
        response = respond("sync", model="test:m", input="Weather?", tools=[get_weather],
                           max_turns=2)
    assert response.output_text == "Tool results: get_weather: sunny"
    workflow = otel.one("Weather workflow")
    assert dict(workflow.attributes or {})["gen_ai.conversation.id"] == "conv-7"
    assert otel.children(workflow) == ["invoke_agent"]
    run = otel.one("invoke_agent")
    assert otel.children(run) == ["chat m", "execute_tool get_weather", "chat m"]


def test_trace_marks_an_error_leaving_its_block(otel: Telemetry) -> None:
    with pytest.raises(RuntimeError):
        with ai.trace("Failing workflow"):
            raise RuntimeError("boom")
    span = otel.one("Failing workflow")
    assert dict(span.attributes or {})["error.type"] == "RuntimeError"
