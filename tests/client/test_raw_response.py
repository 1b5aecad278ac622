"""``client.chat.completions.with_raw_response``: the HTTP status, headers and request id of
the reply each family's SDK received, through the real SDKs (respx on httpcore2) and real
botocore against the loopback Bedrock server; ``parse()`` is what ``create`` returns."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import httpx2
import pytest
import respx
from support.bedrock_server import BedrockServer, converse_text, stream_text
from support.openai_helpers import KEY, chunk, completion, httpx2_mock, sse  # noqa: F401

import aisuite_like as ai
from aisuite_like.core.exchange import CAPTURE
from aisuite_like.providers.base import ChatRequest, Provider
from aisuite_like.testing import FakeClock

USER = [{"role": "user", "content": "Hi"}]
OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GEMINI_URL = ("https://generativelanguage.googleapis.com/v1beta/models/"
              "gemini-2.5-flash:generateContent")
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-0123456789abcdefghij"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def raw_create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    """``with_raw_response.create`` on a fresh Client or AsyncClient."""
    return raw_and_chunks(mode, config, **kwargs)[0]


def raw_and_chunks(mode: str, config: dict[str, Any], **kwargs: Any) -> tuple[Any, list[Any]]:
    """``with_raw_response.create``, and a stream's chunks read to its end."""
    kwargs.setdefault("messages", USER)
    if mode == "sync":
        with ai.Client(config) as client:
            raw = client.chat.completions.with_raw_response.create(**kwargs)
            return raw, list(raw.parse()) if kwargs.get("stream") else []

    async def run() -> tuple[Any, list[Any]]:
        async with ai.AsyncClient(config) as client:
            raw = await client.chat.completions.with_raw_response.create(**kwargs)
            return raw, [c async for c in raw.parse()] if kwargs.get("stream") else []

    return asyncio.run(run())


# --- openai --------------------------------------------------------------------------------


def test_openai_status_headers_request_id_and_parse(mode: str, httpx2_mock: respx.Router
                                                    ) -> None:
    route = httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, json=completion("Hello!"),
        headers={"x-request-id": "req_123", "X-My-Header": "mine",
                 "x-ratelimit-remaining-requests": "99"}))
    raw = raw_create(mode, {"openai": {"api_key": KEY}}, model="openai:gpt-4o")
    assert route.call_count == 1
    assert raw.status_code == 200
    assert raw.request_id == "req_123"
    assert raw.headers.get("X-My-Header") == "mine"  # case-insensitive, as the SDK's
    assert raw.headers["x-ratelimit-remaining-requests"] == "99"
    assert isinstance(raw.http_response, httpx2.Response)
    assert raw.http_response.status_code == 200
    assert raw.url == OPENAI_URL
    assert raw.retries_taken == 0
    completion_ = raw.parse()
    assert isinstance(completion_, ai.ChatCompletionResponse)
    assert completion_.choices[0].message.content == "Hello!"
    assert json.loads(route.calls[0].request.content)["model"] == "gpt-4o"


def test_openai_stream_parse_is_the_stream(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, content=sse([chunk({"role": "assistant", "content": ""}),
                          chunk({"content": "Hel"}), chunk({"content": "lo"}),
                          chunk({}, finish="stop")]),
        headers={"content-type": "text/event-stream", "x-request-id": "req_s"}))
    raw, chunks = raw_and_chunks(mode, {"openai": {"api_key": KEY}}, model="openai:gpt-4o",
                                 stream=True)
    assert raw.status_code == 200 and raw.request_id == "req_s"
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello"


def test_retries_taken_counts_the_retry_policys_retries(mode: str, httpx2_mock: respx.Router
                                                        ) -> None:
    httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        httpx.Response(500, json={"error": {"message": "boom", "type": "server_error"}}),
        httpx.Response(200, json=completion("ok"), headers={"x-request-id": "req_2"})])
    clock = FakeClock()
    raw = raw_create(mode, {"openai": {"api_key": KEY, "retry_clock": clock}},
                     model="openai:gpt-4o")
    assert raw.retries_taken == 1 and raw.request_id == "req_2"
    assert len(clock.waits) == 1


def test_with_raw_response_parse_helper(httpx2_mock: respx.Router) -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        value: int

    httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, json=completion('{"value": 3}'), headers={"x-request-id": "req_p"}))
    client = ai.Client({"openai": {"api_key": KEY}})
    raw = client.chat.completions.with_raw_response.parse(
        model="openai:gpt-4o", messages=USER, response_format=Answer)
    assert raw.request_id == "req_p"
    assert raw.parse().choices[0].message.parsed == Answer(value=3)


def test_capture_ends_with_the_call(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        200, json=completion("x"), headers={"x-request-id": "req_1"}))
    client = ai.Client({"openai": {"api_key": KEY}})
    client.chat.completions.with_raw_response.create(model="openai:gpt-4o", messages=USER)
    assert CAPTURE.get() is None
    plain = client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert isinstance(plain, ai.ChatCompletionResponse)


def test_an_error_raises_as_create_does(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        401, json={"error": {"message": "bad key", "type": "invalid_request_error"}},
        headers={"x-request-id": "req_401"}))
    client = ai.Client({"openai": {"api_key": KEY, "max_retries": 0}})
    with pytest.raises(ai.AuthenticationError) as info:
        client.chat.completions.with_raw_response.create(model="openai:gpt-4o", messages=USER)
    assert info.value.request_id == "req_401"
    assert CAPTURE.get() is None


# --- anthropic, google ---------------------------------------------------------------------


def test_anthropic_headers_and_request_id(mode: str, httpx2_mock: respx.Router) -> None:
    body = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": "Hi there"}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
    route = httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json=body,
        headers={"request-id": "req_ant", "anthropic-ratelimit-requests-remaining": "7"}))
    raw = raw_create(mode, {"anthropic": {"api_key": ANTHROPIC_KEY}},
                     model="anthropic:claude-sonnet-4-5")
    assert route.call_count == 1
    assert (raw.status_code, raw.request_id) == (200, "req_ant")
    assert raw.headers["Anthropic-Ratelimit-Requests-Remaining"] == "7"
    assert raw.parse()._request_id == "req_ant"  # the OpenAI SDK's attribute, every family
    assert isinstance(raw.http_response, httpx2.Response)
    assert raw.parse().choices[0].message.content == "Hi there"


def test_google_headers_and_request_id(mode: str, httpx2_mock: respx.Router) -> None:
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello"}]},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 1,
                              "totalTokenCount": 3}, "modelVersion": "gemini-2.5-flash"}
    route = httpx2_mock.post(GEMINI_URL).mock(return_value=httpx.Response(
        200, json=body, headers={"x-request-id": "req_g", "X-Goog-Extra": "yes"}))
    raw = raw_create(mode, {"google": {"api_key": GEMINI_KEY}}, model="google:gemini-2.5-flash")
    assert route.call_count == 1
    assert (raw.status_code, raw.request_id) == (200, "req_g")
    assert raw.headers["x-goog-extra"] == "yes"
    assert raw.url == GEMINI_URL
    assert raw.parse()._request_id == "req_g"
    assert raw.http_response.status_code == 200  # google-genai hands over headers only
    assert raw.parse().choices[0].message.content == "Hello"


# --- bedrock (loopback server, real botocore) -----------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_bedrock_status_headers_and_request_id(mode: str, stream: bool) -> None:
    with BedrockServer() as server:
        server.reply(stream_text("Hel", "lo") if stream else converse_text("Hello"))
        raw, chunks = raw_and_chunks(mode, {"bedrock": server.config()},
                                     model="bedrock:anthropic.claude-x", stream=stream)
        assert len(server.requests) == 1
    assert raw.status_code == 200
    assert raw.request_id and raw.request_id.startswith("req-")
    assert raw.headers["X-Amzn-RequestId"] == raw.request_id  # botocore's HTTPHeaders
    assert raw.http_response.status_code == 200
    if stream:
        assert "".join(c.choices[0].delta.content or "" for c in chunks
                       if c.choices) == "Hello"
    else:
        assert raw.parse().choices[0].message.content == "Hello"
        assert raw.parse()._request_id == raw.request_id


# --- runs, fallbacks, refusals, providers without HTTP -------------------------------------


def test_fallback_reports_the_model_that_answered(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).mock(return_value=httpx.Response(
        503, json={"error": {"message": "down", "type": "server_error"}},
        headers={"x-request-id": "req_down"}))
    httpx2_mock.post(ANTHROPIC_URL).mock(return_value=httpx.Response(
        200, json={"id": "msg_1", "type": "message", "role": "assistant", "model": "c",
                   "content": [{"type": "text", "text": "from anthropic"}],
                   "stop_reason": "end_turn", "stop_sequence": None,
                   "usage": {"input_tokens": 1, "output_tokens": 1}},
        headers={"request-id": "req_fallback"}))
    client = ai.Client({"openai": {"api_key": KEY, "max_retries": 0},
                        "anthropic": {"api_key": ANTHROPIC_KEY}})
    raw = client.chat.completions.with_raw_response.create(
        model="openai:gpt-4o", messages=USER, fallbacks=["anthropic:claude-x"])
    assert raw.request_id == "req_fallback"
    assert raw.parse().choices[0].message.content == "from anthropic"


def test_tool_run_reports_the_last_model_call(httpx2_mock: respx.Router) -> None:
    def get_time() -> str:
        """The time."""
        return "noon"

    calls = [{"id": "c1", "type": "function", "function": {"name": "get_time",
                                                            "arguments": "{}"}}]
    httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        httpx.Response(200, json=completion(None, tool_calls=calls, finish="tool_calls"),
                        headers={"x-request-id": "req_turn1"}),
        httpx.Response(200, json=completion("It is noon."),
                        headers={"x-request-id": "req_turn2"})])
    client = ai.Client({"openai": {"api_key": KEY}})
    raw = client.chat.completions.with_raw_response.create(
        model="openai:gpt-4o", messages=USER, tools=[get_time], max_turns=3)
    assert raw.request_id == "req_turn2"
    assert raw.parse().choices[0].message.content == "It is noon."


def test_stream_with_max_turns_is_refused_before_sending(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENAI_URL)
    client = ai.Client({"openai": {"api_key": KEY}})
    with pytest.raises(ai.UnsupportedParameterError, match="max_turns"):
        client.chat.completions.with_raw_response.create(
            model="openai:gpt-4o", messages=USER, stream=True, max_turns=2)
    assert route.call_count == 0


def test_offline_providers_answer_200_with_the_response_id(mode: str) -> None:
    raw = raw_create(mode, {}, model="test:offline")
    assert raw.status_code == 200
    assert raw.request_id == raw.parse().id
    assert raw.headers["X-Request-Id"] == raw.parse().id


def test_a_provider_without_http_leaves_the_exchange_empty() -> None:
    class Mine(Provider):
        def complete(self, request: ChatRequest) -> ai.ChatCompletionResponse:
            return ai.ChatCompletionResponse(choices=[ai.Choice(
                message=ai.Message(role="assistant", content="mine"))])

    client = ai.Client(providers={"mine": Mine()})
    raw = client.chat.completions.with_raw_response.create(model="mine:x", messages=USER)
    assert raw.status_code is None and raw.request_id is None and raw.http_response is None
    assert dict(raw.headers) == {}
    assert raw.parse().choices[0].message.content == "mine"


# --- the native transport (docs/transports.md): the same exchange, from our own HTTP --------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_native_transport_reports_the_exchange(mode: str, family: str, stream: bool,
                                               httpx2_mock: respx.Router) -> None:
    from support.transports import aiohttp_via_httpcore2

    if family == "openai":
        url, model, config = OPENAI_URL, "openai:gpt-4o", {"api_key": KEY}
        headers = {"x-request-id": "req_n"}
        reply: Any = (sse([chunk({"role": "assistant", "content": "Hi"}),
                           chunk({}, finish="stop")]) if stream else completion("Hi"))
    elif family == "anthropic":
        url, model, config = ANTHROPIC_URL, "anthropic:claude-x", {"api_key": ANTHROPIC_KEY}
        headers = {"request-id": "req_n"}
        message = {"id": "msg_01", "type": "message", "role": "assistant", "model": "c",
                   "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
                   "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
        events = [("message_start", {"type": "message_start",
                                     "message": {**message, "content": []}}),
                  ("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "text_delta", "text": "Hi"}}),
                  ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                  ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 2},
                                     "delta": {"stop_reason": "end_turn"}}),
                  ("message_stop", {"type": "message_stop"})]
        reply = ("".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                         for name, data in events).encode() if stream else message)
    else:
        model, config = "google:gemini-2.5-flash", {"api_key": GEMINI_KEY}
        url = GEMINI_URL.replace(":generateContent", ":streamGenerateContent?alt=sse"
                                 if stream else ":generateContent")
        headers = {"x-request-id": "req_n"}
        candidate = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]},
                                     "finishReason": "STOP"}]}
        reply = f"data: {json.dumps(candidate)}\n\n".encode() if stream else candidate
    headers["X-Extra"] = "yes"
    if isinstance(reply, bytes):
        response = httpx.Response(200, content=reply,
                                  headers={**headers, "content-type": "text/event-stream"})
    else:
        response = httpx.Response(200, json=reply, headers=headers)
    route = httpx2_mock.post(url__startswith=url).mock(return_value=response)
    with aiohttp_via_httpcore2():
        raw, chunks = raw_and_chunks(mode, {family: {**config, "transport": "native"}},
                                     model=model, stream=stream)
    sent = route.calls[0].request
    assert "(native)" in sent.headers["user-agent"]  # our transport sent it
    assert (raw.status_code, raw.request_id) == (200, "req_n")
    assert raw.headers["x-extra"] == "yes" and raw.url == str(sent.url)
    assert raw.http_response.status_code == 200
    if stream:
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == "Hi"
    else:
        assert raw.parse()._request_id == "req_n"
        assert raw.parse().choices[0].message.content == "Hi"
