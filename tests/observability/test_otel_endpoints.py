"""Spans of the endpoints beside chat and of hosted tools (``ai.instrument``): one CLIENT
span per images / speech / moderations / files call, named by the operation, with the
provider, model, server and token usage; a ``gen_ai.hosted_tool.call`` event on the model
call's span per call a hosted tool made (streamed or not), its query only with content
capture. Through the real SDKs with HTTP mocked at httpcore2."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import respx
from opentelemetry.trace import SpanKind, StatusCode
from test_otel import Telemetry

import aisuite_like as ai
from support.recorded import RECORDED

KEY = "sk-test-secret-key-otel-endpoints-123"
ANT_KEY = "sk-ant-test-otel-endpoints-0123456789"
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "anthropic": {"api_key": ANT_KEY, "max_retries": 0}}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def telemetry(capture: bool = False) -> Telemetry:
    t = Telemetry()
    ai.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider,
                  capture_content=capture)
    return t


@pytest.fixture
def otel() -> Iterator[Telemetry]:
    t = telemetry()
    try:
        yield t
    finally:
        ai.uninstrument()
        assert KEY not in t.everything() and ANT_KEY not in t.everything()


def test_each_endpoint_call_is_a_client_span(otel: Telemetry,
                                             httpx2_mock: respx.Router) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    httpx2_mock.post("https://api.openai.com/v1/images/generations").respond(200, json={
        "created": 1, "data": [{"b64_json": png}], "usage": {
            "input_tokens": 7, "input_tokens_details": {"image_tokens": 0, "text_tokens": 7},
            "output_tokens": 272, "total_tokens": 279}})
    httpx2_mock.post("https://api.openai.com/v1/audio/speech").respond(
        200, content=b"ID3", headers={"content-type": "audio/mpeg"})
    httpx2_mock.post("https://api.openai.com/v1/files").respond(401, json={
        "error": {"message": f"bad key {KEY}", "type": "invalid_request_error"}})
    with ai.Client(CONFIGS) as client:
        client.images.generate(model="openai:gpt-image-1", prompt="a fox")
        client.audio.speech.create(model="openai:tts-1", voice="alloy", input="hi")
        with pytest.raises(ai.AuthenticationError):
            client.files.create(file=("a.txt", b"abc"), purpose="user_data")
    span = otel.one("images.generate gpt-image-1")
    assert span.kind == SpanKind.CLIENT
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "images.generate", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-image-1", "server.address": "api.openai.com",
        "server.port": 443, "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 272}
    assert otel.one("speech tts-1").attributes["gen_ai.operation.name"] == "speech"
    failed = otel.one("files.create")
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["error.type"] == "AuthenticationError"


def _web_search_reply() -> dict[str, Any]:
    path = RECORDED / "hosted" / "anthropic" / "test_anthropic__test_anthropic_web_search_tool.json"
    return json.loads(path.read_text())["interactions"][0]["response"]["body"]


@pytest.mark.parametrize("capture", [False, True])
def test_a_hosted_search_is_an_event_of_the_chat_span(capture: bool,
                                                      httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages").respond(
        200, json=_web_search_reply())
    t = telemetry(capture)
    try:
        with ai.Client(CONFIGS) as client:
            client.chat.completions.create(model="anthropic:claude-sonnet-4-0", messages=[
                {"role": "user", "content": "weather in SF?"}], tools=[ai.tools.WebSearch()])
    finally:
        ai.uninstrument()
    span = t.one("chat claude-sonnet-4-0")
    (event,) = [e for e in span.events if e.name == "gen_ai.hosted_tool.call"]
    attributes = dict(event.attributes or {})
    assert attributes["gen_ai.tool.name"] == "web_search"
    assert attributes["gen_ai.tool.call.id"].startswith("srvtoolu_")
    if capture:
        assert json.loads(attributes["gen_ai.tool.call.arguments"]) == {
            "query": "San Francisco weather today"}
        assert "accuweather.com" in attributes["gen_ai.tool.call.result"]
    else:
        assert "gen_ai.tool.call.arguments" not in attributes
    assert ANT_KEY not in t.everything()


def test_a_streamed_hosted_search_is_an_event_too(otel: Telemetry,
                                                 httpx2_mock: respx.Router) -> None:
    path = (RECORDED / "hosted" / "anthropic"
            / "test_anthropic__test_anthropic_web_search_tool_stream.json")
    sse = json.loads(path.read_text())["interactions"][0]["response"]["sse"]
    httpx2_mock.post("https://api.anthropic.com/v1/messages").respond(
        200, content=sse.encode(), headers={"content-type": "text/event-stream"})
    with ai.Client(CONFIGS) as client:
        with client.chat.completions.create(
                model="anthropic:claude-sonnet-4-0", stream=True, tools=[ai.tools.WebSearch()],
                messages=[{"role": "user", "content": "news?"}]) as stream:
            list(stream)
    span = otel.one("chat claude-sonnet-4-0")
    assert [e.attributes["gen_ai.tool.name"] for e in span.events
            if e.name == "gen_ai.hosted_tool.call"] == ["web_search", "web_search"]
