"""OpenTelemetry instrumentation (``ai.instrument``): the spans and metrics the OpenTelemetry SDK
receives, read back with its in-memory exporter and metric reader. Providers are driven through
their real SDKs with HTTP mocked at httpcore2; the offline providers serve where the provider is
not the point (a stream that fails mid-way, a tool that calls the model)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, Optional

import pytest
import respx
from support.openai_helpers import KEY, chunk, completion, httpx2_mock, sse  # noqa: F401
from opentelemetry.trace import SpanKind, StatusCode
from support.telemetry import Telemetry

import aisuite_like as ai
from aisuite_like.providers.base import Provider
from aisuite_like.testing import ScriptedProvider, tool_call

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0},
          "anthropic": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "user", "content": "Hi"}]
SSE = {"content-type": "text/event-stream"}


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def create(mode: str, config: Any = CONFIG, providers: Any = None, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(config, providers=providers) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(config, providers=providers) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


def consume(mode: str, stop_after: Optional[int] = None, config: Any = CONFIG,
            providers: Any = None, **kwargs: Any) -> tuple[list[Any], Optional[BaseException]]:
    """Stream; with ``stop_after`` close the stream after that many chunks."""
    kwargs["stream"] = True
    seen: list[Any] = []
    if mode == "sync":
        client = ai.Client(config, providers=providers)
        try:
            s = client.chat.completions.create(**kwargs)
            with s:
                for c in s:
                    seen.append(c)
                    if stop_after is not None and len(seen) >= stop_after:
                        break
        except ai.AisuiteLikeError as exc:
            return seen, exc
        finally:
            client.close()
        return seen, None

    async def run() -> tuple[list[Any], Optional[BaseException]]:
        async with ai.AsyncClient(config, providers=providers) as client:
            try:
                s = await client.chat.completions.create(**kwargs)
                async with s:
                    async for c in s:
                        seen.append(c)
                        if stop_after is not None and len(seen) >= stop_after:
                            break
            except ai.AisuiteLikeError as exc:
                return seen, exc
        return seen, None

    return asyncio.run(run())


# --- a plain call ----------------------------------------------------------------------------


def test_plain_call_is_a_client_span_with_request_and_response_attributes(
        mode: str, otel: Telemetry, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hello!", usage={
        "prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29,
        "prompt_tokens_details": {"cached_tokens": 4}}))
    create(mode, model="openai:gpt-4o", messages=USER, temperature=0.2, top_p=0.9,
           max_tokens=50, seed=7, stop=["END"], frequency_penalty=0.5)
    span = otel.one("chat gpt-4o")
    assert span.kind is SpanKind.CLIENT and span.parent is None
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o", "server.address": "api.openai.com",
        "server.port": 443, "gen_ai.request.temperature": 0.2, "gen_ai.request.top_p": 0.9,
        "gen_ai.request.max_tokens": 50, "gen_ai.request.seed": 7,
        "gen_ai.request.stop_sequences": ("END",), "gen_ai.request.frequency_penalty": 0.5,
        "gen_ai.response.id": "chatcmpl-1", "gen_ai.response.model": "gpt-4o-2024",
        "gen_ai.response.finish_reasons": ("stop",), "gen_ai.usage.input_tokens": 20,
        "gen_ai.usage.output_tokens": 9, "gen_ai.usage.cache_read.input_tokens": 4,
    }  # no content without capture_content
    assert span.status.status_code is StatusCode.UNSET
    metric_base = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                   "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024",
                   "server.address": "api.openai.com", "server.port": 443}
    tokens = {a["gen_ai.token.type"]: p for a, p in otel.points("gen_ai.client.token.usage")}
    assert tokens["input"].sum == 20 and tokens["input"].count == 1
    assert tokens["output"].sum == 9 and tokens["output"].count == 1
    for attributes, _ in otel.points("gen_ai.client.token.usage"):
        assert {k: v for k, v in attributes.items() if k != "gen_ai.token.type"} == metric_base
    ((attributes, point),) = otel.points("gen_ai.client.operation.duration")
    assert attributes == metric_base and point.count == 1 and 0 < point.sum < 10


def test_content_is_captured_only_when_asked(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Bonjour"))
    t = Telemetry()
    ai.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider,
                  capture_content=True)
    try:
        create(mode, model="openai:gpt-4o",
               messages=[{"role": "system", "content": "Be brief"}, *USER])
    finally:
        ai.uninstrument()
    attributes = dict(t.one("chat gpt-4o").attributes or {})
    assert json.loads(attributes["gen_ai.input.messages"]) == [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief"}]},
        {"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
    assert json.loads(attributes["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Bonjour"}],
         "finish_reason": "stop"}]
    t.assert_no_key()


def test_capture_content_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Telemetry()
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    ai.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    try:
        create("sync", model="test:m", messages=USER)
    finally:
        ai.uninstrument()
    assert "gen_ai.input.messages" in (t.one("chat m").attributes or {})
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "false")
    t2 = Telemetry()
    ai.instrument(tracer_provider=t2.tracer_provider, meter_provider=t2.meter_provider)
    try:
        create("sync", model="test:m", messages=USER)
    finally:
        ai.uninstrument()
    assert "gen_ai.input.messages" not in (t2.one("chat m").attributes or {})


def test_capture_content_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="capture_content"):
        ai.instrument(capture_content="yes")  # type: ignore[arg-type]


def test_uninstrument_stops_the_spans(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json=completion("Hello!"))
    t = Telemetry()
    ai.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    ai.uninstrument()
    create("sync", model="openai:gpt-4o", messages=USER)
    assert t.spans() == []


# --- errors ----------------------------------------------------------------------------------


def test_api_error_marks_the_span_and_the_duration(mode: str, otel: Telemetry,
                                                   httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}."}})
    with pytest.raises(ai.AuthenticationError):
        create(mode, model="openai:gpt-4o", messages=USER)
    span = otel.one("chat gpt-4o")
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "AuthenticationError"
    assert span.status.description and span.status.description.startswith(
        "AuthenticationError: ")
    assert "gen_ai.response.id" not in (span.attributes or {})
    ((attributes, point),) = otel.points("gen_ai.client.operation.duration")
    assert attributes["error.type"] == "AuthenticationError" and point.count == 1
    assert otel.points("gen_ai.client.token.usage") == []
    otel.assert_no_key()  # the server echoed the key: it is in no span


# --- streams ---------------------------------------------------------------------------------

STREAM_EVENTS = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hel"}),
    chunk({"content": "lo"}),
    chunk({}, finish="stop"),
    chunk({}, no_choices=True, usage={"prompt_tokens": 10, "completion_tokens": 5,
                                      "total_tokens": 15}),
]


def test_stream_span_ends_with_the_stream(mode: str, otel: Telemetry,
                                          httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, content=sse(STREAM_EVENTS), headers=SSE)

    def check_open(client_stream_started: bool) -> None:
        assert otel.named("chat gpt-4o") == []  # open while the stream is being read

    if mode == "sync":
        with ai.Client(CONFIG) as client:
            s = client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                               stream=True, stream_options={"include_usage": True})
            next(s)
            check_open(True)
            rest = list(s)
    else:
        async def run() -> list[Any]:
            async with ai.AsyncClient(CONFIG) as client:
                s = await client.chat.completions.create(
                    model="openai:gpt-4o", messages=USER, stream=True,
                    stream_options={"include_usage": True})
                await s.__anext__()
                check_open(True)
                return [c async for c in s]

        rest = asyncio.run(run())
    assert len(rest) == 4
    span = otel.one("chat gpt-4o")
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert attributes["gen_ai.usage.input_tokens"] == 10
    assert attributes["gen_ai.usage.output_tokens"] == 5
    assert attributes["gen_ai.response.id"] == "chatcmpl-1"
    assert attributes["server.address"] == "api.openai.com"
    assert span.status.status_code is StatusCode.UNSET
    tokens = {a["gen_ai.token.type"]: p.sum for a, p in otel.points("gen_ai.client.token.usage")}
    assert tokens == {"input": 10, "output": 5}


def test_stream_closed_early_ends_its_span(mode: str, otel: Telemetry,
                                           httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, content=sse(STREAM_EVENTS), headers=SSE)
    seen, error = consume(mode, stop_after=2, model="openai:gpt-4o", messages=USER)
    assert error is None and len(seen) == 2
    span = otel.one("chat gpt-4o")
    assert span.end_time is not None and span.status.status_code is StatusCode.UNSET
    attributes = dict(span.attributes or {})
    assert "gen_ai.usage.input_tokens" not in attributes  # never arrived
    assert "gen_ai.response.finish_reasons" not in attributes
    ((_, point),) = otel.points("gen_ai.client.operation.duration")
    assert point.count == 1


class _BreaksMidStream(Provider):
    """A provider whose stream fails after one chunk (a dropped connection)."""

    def _chunks(self) -> list[Any]:
        return [ai.ChatCompletionChunk(id="s1", model="m", choices=[
            {"index": 0, "delta": {"content": "par"}}])]

    def stream(self, request: Any) -> Iterator[Any]:
        yield from self._chunks()
        raise ai.APIConnectionError("connection lost mid-stream", provider="breaks")

    async def astream(self, request: Any) -> Any:
        for c in self._chunks():
            yield c
        raise ai.APIConnectionError("connection lost mid-stream", provider="breaks")


def test_stream_that_fails_ends_its_span_with_the_error(mode: str, otel: Telemetry) -> None:
    seen, error = consume(mode, config=None, providers={"breaks": _BreaksMidStream()},
                          model="breaks:m", messages=USER)
    assert isinstance(error, ai.APIConnectionError) and len(seen) == 1
    span = otel.one("chat m")
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "APIConnectionError"
    assert (span.attributes or {})["gen_ai.provider.name"] == "breaks"


# --- tool loop -------------------------------------------------------------------------------


def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def broken_tool(city: str) -> str:
    """A tool that fails."""
    raise RuntimeError("station offline")


def _tool_turns() -> list[respx.MockResponse]:
    calls = [{"id": "c1", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
             {"id": "c2", "type": "function",
              "function": {"name": "broken_tool", "arguments": '{"city": "Oslo"}'}}]
    return [respx.MockResponse(200, json=completion(None, tool_calls=calls, finish="tool_calls",
                                                    id="chatcmpl-1")),
            respx.MockResponse(200, json=completion("Paris is sunny.", id="chatcmpl-2"))]


def _check_tool_run(otel: Telemetry) -> None:
    run = otel.one("invoke_agent")
    assert run.parent is None and run.kind is SpanKind.INTERNAL
    assert otel.children(run) == ["chat gpt-4o", "execute_tool get_weather",
                                  "execute_tool broken_tool", "chat gpt-4o"] or \
        otel.children(run) == ["chat gpt-4o", "execute_tool broken_tool",
                               "execute_tool get_weather", "chat gpt-4o"]  # concurrent tools
    attributes = dict(run.attributes or {})
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.request.model"] == "gpt-4o"
    assert attributes["gen_ai.usage.input_tokens"] == 20  # summed over both calls
    ok = otel.one("execute_tool get_weather")
    assert dict(ok.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "c1", "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Weather of a city."}
    assert ok.status.status_code is StatusCode.UNSET
    failed = otel.one("execute_tool broken_tool")
    assert (failed.attributes or {})["error.type"] == "RuntimeError"
    assert (failed.attributes or {})["gen_ai.tool.call.id"] == "c2"
    assert failed.status.status_code is StatusCode.ERROR
    assert "station offline" not in str(failed.status.description)  # content: not captured
    assert run.status.status_code is StatusCode.UNSET  # the run itself went on


def test_tool_loop_run_parents_its_model_and_tool_spans(mode: str, otel: Telemetry,
                                                        httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=_tool_turns())
    response = create(mode, model="openai:gpt-4o", messages=USER,
                      tools=[get_weather, broken_tool], max_turns=3)
    assert response.content == "Paris is sunny."
    _check_tool_run(otel)


def _stream_turns() -> list[respx.MockResponse]:
    calls = [
        chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {
            "name": "broken_tool", "arguments": '{"city": "Oslo"}'}}]}),
        chunk({}, finish="tool_calls"),
        chunk({}, no_choices=True, usage={"prompt_tokens": 10, "completion_tokens": 5,
                                          "total_tokens": 15})]
    answer = [chunk({"content": "Paris is sunny."}), chunk({}, finish="stop"),
              chunk({}, no_choices=True, usage={"prompt_tokens": 10, "completion_tokens": 5,
                                                "total_tokens": 15})]
    return [respx.MockResponse(200, content=sse(calls), headers=SSE),
            respx.MockResponse(200, content=sse(answer), headers=SSE)]


def test_streamed_tool_loop_run_parents_its_spans(mode: str, otel: Telemetry,
                                                  httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=_stream_turns())
    seen, error = consume(mode, model="openai:gpt-4o", messages=USER,
                          tools=[get_weather, broken_tool], max_turns=3)
    assert error is None and seen
    _check_tool_run(otel)


def test_streamed_tool_loop_closed_early_ends_the_run_span(mode: str, otel: Telemetry,
                                                           httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=_stream_turns())
    seen, error = consume(mode, stop_after=1, model="openai:gpt-4o", messages=USER,
                          tools=[get_weather, broken_tool], max_turns=3)
    assert error is None and len(seen) == 1
    run = otel.one("invoke_agent")
    assert otel.children(run) == ["chat gpt-4o"]
    assert run.status.status_code is StatusCode.UNSET


def test_tool_loop_error_marks_the_run(mode: str, otel: Telemetry,
                                       httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        _tool_turns()[0], respx.MockResponse(500, json={"error": {"message": "boom"}})])
    with pytest.raises(ai.InternalServerError):
        create(mode, model="openai:gpt-4o", messages=USER, tools=[get_weather, broken_tool],
               max_turns=3)
    run = otel.one("invoke_agent")
    assert run.status.status_code is StatusCode.ERROR
    assert (run.attributes or {})["error.type"] == "InternalServerError"
    failed_chat = otel.named("chat gpt-4o")[-1]
    assert (failed_chat.attributes or {})["error.type"] == "InternalServerError"
    assert failed_chat.parent is not None and failed_chat.parent.span_id == run.context.span_id


def test_tool_calls_that_never_run_have_a_span_saying_why(mode: str, otel: Telemetry) -> None:
    provider = ScriptedProvider([
        [tool_call("get_weather", {"city": "Paris"}, id="ok"),
         tool_call("get_weather", {"town": "Paris"}, id="bad-args"),
         tool_call("get_weather", "{not json", id="not-json"),
         tool_call("no_such_tool", {}, id="unknown"),
         tool_call("broken_tool", {"city": "Oslo"}, id="denied")],
        "done"])
    create(mode, config=None, providers={"scripted": provider}, model="scripted:m",
           messages=USER, tools=[get_weather, broken_tool], max_turns=2,
           tool_policy=lambda ctx: ctx.tool_name != "broken_tool")
    by_id = {(s.attributes or {})["gen_ai.tool.call.id"]: s for s in otel.spans()
             if s.name.startswith("execute_tool")}
    assert sorted(by_id) == ["bad-args", "denied", "not-json", "ok", "unknown"]
    errors = {i: (s.attributes or {}).get("error.type") for i, s in by_id.items()}
    assert errors == {"ok": None, "bad-args": "invalid_arguments",
                      "not-json": "invalid_arguments", "unknown": "tool_not_found",
                      "denied": "denied"}
    assert by_id["unknown"].name == "execute_tool no_such_tool"
    run = otel.one("invoke_agent")
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id
               for s in by_id.values())


def test_model_call_inside_a_tool_nests_under_the_tool_span(mode: str, otel: Telemetry) -> None:
    inner = ai.Client()

    def ask_model(question: str) -> str:
        """Ask another model."""
        return inner.chat.completions.create(
            model="test:inner", messages=[{"role": "user", "content": question}]).content or ""

    provider = ScriptedProvider([tool_call("ask_model", {"question": "2+2?"}), "done"])
    create(mode, config=None, providers={"scripted": provider}, model="scripted:outer",
           messages=USER, tools=[ask_model], max_turns=2)
    tool_span = otel.one("execute_tool ask_model")
    assert otel.children(tool_span) == ["chat inner"]


# --- agents ----------------------------------------------------------------------------------


def lookup_invoice(invoice_id: str) -> str:
    """Find an invoice."""
    return f"invoice {invoice_id}: paid"


def _anthropic_reply(n: int, text: Optional[str] = None,
                     calls: Optional[list[tuple[str, str, dict[str, Any]]]] = None
                     ) -> respx.MockResponse:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": cid, "name": name, "input": args}
                for cid, name, args in calls or []]
    return respx.MockResponse(200, json={
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 6}})


@pytest.mark.parametrize("how", ["run", "run_sync", "run_streamed"])
def test_agent_run_with_a_handoff(how: str, otel: Telemetry, httpx2_mock: respx.Router) -> None:
    billing = ai.Agent("Billing", "anthropic:claude-sonnet-4-6", tools=[lookup_invoice])
    triage = ai.Agent("triage", "openai:gpt-4o", handoffs=[billing])
    handoff_call = [{"id": "h1", "type": "function",
                     "function": {"name": "transfer_to_billing", "arguments": "{}"}}]
    if how == "run_streamed":
        httpx2_mock.post(OPENAI_URL).respond(200, headers=SSE, content=sse([
            chunk({"tool_calls": [{"index": 0, **handoff_call[0]}]}),
            chunk({}, finish="tool_calls"),
            chunk({}, no_choices=True, usage={"prompt_tokens": 10, "completion_tokens": 5,
                                              "total_tokens": 15})]))
    else:
        httpx2_mock.post(OPENAI_URL).respond(200, json=completion(
            None, tool_calls=handoff_call, finish="tool_calls"))
    if how == "run_streamed":
        def sse_reply(n: int, text: Optional[str], call: Optional[tuple]) -> respx.MockResponse:
            events: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": {
                "id": f"msg_{n}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-6", "content": [], "stop_reason": None,
                "usage": {"input_tokens": 12, "output_tokens": 0}}})]
            if text:
                events += [("content_block_start", {"index": 0, "content_block": {
                    "type": "text", "text": ""}}),
                    ("content_block_delta", {"index": 0, "delta": {"type": "text_delta",
                                                                   "text": text}}),
                    ("content_block_stop", {"index": 0})]
            if call:
                events += [("content_block_start", {"index": 0, "content_block": {
                    "type": "tool_use", "id": call[0], "name": call[1], "input": {}}}),
                    ("content_block_delta", {"index": 0, "delta": {
                        "type": "input_json_delta", "partial_json": json.dumps(call[2])}}),
                    ("content_block_stop", {"index": 0})]
            events += [("message_delta", {"delta": {"stop_reason": "tool_use" if call
                                                    else "end_turn"},
                                          "usage": {"output_tokens": 6}}),
                       ("message_stop", {})]
            body = "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
                           for name, data in events)
            return respx.MockResponse(200, content=body.encode(), headers=SSE)

        httpx2_mock.post(ANTHROPIC_URL).mock(side_effect=[
            sse_reply(1, None, ("t1", "lookup_invoice", {"invoice_id": "A7"})),
            sse_reply(2, "Invoice A7 is paid.", None)])
    else:
        httpx2_mock.post(ANTHROPIC_URL).mock(side_effect=[
            _anthropic_reply(1, calls=[("t1", "lookup_invoice", {"invoice_id": "A7"})]),
            _anthropic_reply(2, text="Invoice A7 is paid.")])
    client = ai.Client(CONFIG)
    if how == "run":
        result = asyncio.run(ai.Runner.run(triage, "Is A7 paid?", client=client))
    elif how == "run_sync":
        result = ai.Runner.run_sync(triage, "Is A7 paid?", client=client)
    else:
        async def streamed() -> Any:
            events = [e async for e in ai.Runner.run_streamed(triage, "Is A7 paid?",
                                                              client=client)]
            return events[-1].result

        result = asyncio.run(streamed())
    assert result.final_output == "Invoice A7 is paid." and result.last_agent is billing
    root = otel.one("invoke_agent triage")
    assert root.parent is None
    assert dict(root.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o", "gen_ai.agent.name": "triage",
        "gen_ai.usage.input_tokens": 34, "gen_ai.usage.output_tokens": 17,
        "gen_ai.response.model": "claude-sonnet-4-6"}
    assert otel.children(root) == ["chat gpt-4o", "execute_tool transfer_to_billing",
                                   "invoke_agent Billing"]
    billing_span = otel.one("invoke_agent Billing")
    assert otel.children(billing_span) == ["chat claude-sonnet-4-6",
                                           "execute_tool lookup_invoice",
                                           "chat claude-sonnet-4-6"]
    assert (billing_span.attributes or {})["gen_ai.provider.name"] == "anthropic"
    claude = otel.named("chat claude-sonnet-4-6")[0]
    assert (claude.attributes or {})["server.address"] == "api.anthropic.com"
    assert (claude.attributes or {})["gen_ai.provider.name"] == "anthropic"
    by_provider = {a["gen_ai.provider.name"]: p.count
                   for a, p in otel.points("gen_ai.client.operation.duration")}
    assert by_provider == {"openai": 1, "anthropic": 2}


def test_agent_run_nests_under_the_callers_span(otel: Telemetry) -> None:
    agent = ai.Agent("helper", "test:m")
    tracer = otel.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("request"):
        ai.Runner.run_sync(agent, "hi")
    (request,) = otel.named("request")
    assert otel.children(request) == ["invoke_agent helper"]
    assert otel.children(otel.one("invoke_agent helper")) == ["chat m"]


def test_agent_run_that_fails_marks_its_span(otel: Telemetry) -> None:
    agent = ai.Agent("helper", "scripted:m")
    provider = ScriptedProvider([ai.RateLimitError("slow down", provider="scripted")])
    with pytest.raises(ai.RateLimitError):
        ai.Runner.run_sync(agent, "hi", client=ai.Client(providers={"scripted": provider}))
    root = otel.one("invoke_agent helper")
    assert root.status.status_code is StatusCode.ERROR
    assert (root.attributes or {})["error.type"] == "RateLimitError"
    assert otel.children(root) == ["chat m"]


# --- not instrumented ------------------------------------------------------------------------


def test_not_instrumented_imports_no_opentelemetry() -> None:
    code = (
        "import sys, aisuite_like as ai\n"
        "r = ai.Client().chat.completions.create(model='test:m', "
        "messages=[{'role': 'user', 'content': 'hi'}])\n"
        "s = ai.Client().chat.completions.create(model='test:m', stream=True, "
        "messages=[{'role': 'user', 'content': 'hi'}])\n"
        "list(s)\n"
        "assert r.content and r.usage.cost is None, r\n"  # unpriced: genai_prices not loaded
        "bad = sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'genai_prices')))\n"
        "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_instrument_without_opentelemetry_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry'] = None\n"  # as if not installed
        "import aisuite_like as ai\n"
        "try:\n"
        "    ai.instrument()\n"
        "except ai.MissingDependencyError as exc:\n"
        "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert 'pip install "aisuite-like[otel]"' in out.stdout
