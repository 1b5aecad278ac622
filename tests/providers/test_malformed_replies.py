"""Replies that are not the shape their API defines (docs/reliability.md), on the three
families, sync and async, streams included, through the real SDKs (HTTP mocked at httpcore2).

Each malformed reply must raise ``ai.APIResponseValidationError`` naming the provider, the HTTP
status, the request id and the path of what was wrong, never the reply itself; an error object
inside a 200 raises the mapped typed error; a stream cut mid-event is an ``APIConnectionError``.
Never a bare AttributeError / KeyError / TypeError, never a response with zero choices."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpcore2
import httpx
import pytest
import respx
from support.client_calls import create, stream

import aisuite_like as ai

MARK = "RAW-BODY-MARKER-7f3a"  # put in malformed bodies: must never reach an error message
KEYS = {"openai": "sk-test-malformed-0123456789", "anthropic": "sk-ant-test-malformed-012345",
        "google": "AIzaSyTESTKEY-malformed-0123456789"}
CONFIG = {family: {"api_key": key, "max_retries": 0} for family, key in KEYS.items()}
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-2.5-flash"}
URLS = {"openai": "https://api.openai.com/v1/chat/completions",
        "anthropic": "https://api.anthropic.com/v1/messages",
        "google": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
                  ":generateContent"}
STREAM_URLS = {**URLS, "google": "https://generativelanguage.googleapis.com/v1beta/models/"
                                 "gemini-2.5-flash:streamGenerateContent"}
REQUEST_ID_HEADER = {"openai": "x-request-id", "anthropic": "request-id",
                     "google": "x-request-id"}
USER = [{"role": "user", "content": "hi"}]
MODES = ["sync", "async"]
FAMILIES = ["openai", "anthropic", "google"]


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


# --- bodies --------------------------------------------------------------------------------


def openai_ok(message: Any = None, **choice: Any) -> dict[str, Any]:
    msg = {"role": "assistant", "content": "ok"} if message is None else message
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": msg, "finish_reason": "stop", **choice}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def anthropic_ok(content: Any = None, **extra: Any) -> dict[str, Any]:
    return {"id": "m1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": "ok"}] if content is None else content,
            "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1},
            **extra}


def google_ok(parts: Any = None, **extra: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model",
                                        "parts": [{"text": "ok"}] if parts is None else parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
            "responseId": "r1", "modelVersion": "gemini-2.5-flash", **extra}


def _with(body: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**body, **changes}


def _choice(**changes: Any) -> dict[str, Any]:
    body = openai_ok()
    return {**body, "choices": [{**body["choices"][0], **changes}]}


def _candidate(**changes: Any) -> dict[str, Any]:
    body = google_ok()
    return {**body, "candidates": [{**body["candidates"][0], **changes}]}


# (family, case id, body: bytes or JSON value, a fragment the error message must contain)
MALFORMED: list[tuple[str, str, Any, str]] = []
for _family in FAMILIES:
    MALFORMED += [
        (_family, "not-json", f"<html>{MARK}</html>".encode(), "not JSON"),
        (_family, "empty-body", b"", "empty"),
        (_family, "list", [], "the reply is an array, expected an object"),
        (_family, "string", MARK, "the reply is a string"),
        (_family, "null", None, "the reply is missing"),
    ]
MALFORMED += [
    ("openai", "no-choices", {"id": "c1", "object": "chat.completion"}, "choices is missing"),
    ("openai", "choices-string", _with(openai_ok(), choices="abc"), "choices is a string"),
    ("openai", "choices-empty", _with(openai_ok(), choices=[]), "at least one choice"),
    ("openai", "choice-string", _with(openai_ok(), choices=[MARK]), "choices[0] is a string"),
    ("openai", "message-string", openai_ok(f"hello {MARK}"), "choices[0].message is a string"),
    ("openai", "message-missing", _choice(message=None), "choices[0].message is missing"),
    ("openai", "content-number", openai_ok({"role": "assistant", "content": 5}),
     "choices[0].message.content is a number"),
    ("openai", "tool-calls-string", openai_ok({"role": "assistant", "tool_calls": MARK}),
     "choices[0].message.tool_calls is a string"),
    ("openai", "tool-call-without-name", openai_ok({"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}),
     "choices[0].message.tool_calls[0].function.name is missing"),
    ("openai", "tool-call-function-string", openai_ok({"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": MARK}]}),
     "tool_calls[0].function is a string"),
    ("openai", "finish-reason-number", _choice(finish_reason=3),
     "choices[0].finish_reason is a number"),
    ("openai", "usage-string", _with(openai_ok(), usage=MARK), "usage is a string"),
    ("openai", "usage-tokens-string", _with(openai_ok(), usage={"prompt_tokens": "10"}),
     "usage.prompt_tokens is a string"),
    ("anthropic", "no-content", _with(anthropic_ok(), content=None), "content is missing"),
    ("anthropic", "content-string", anthropic_ok(MARK), "content is a string"),
    ("anthropic", "block-string", anthropic_ok([MARK]), "content[0] is a string"),
    ("anthropic", "text-number", anthropic_ok([{"type": "text", "text": 5}]),
     "content[0].text is a number"),
    ("anthropic", "tool-use-without-name", anthropic_ok([{"type": "tool_use", "id": "t1",
                                                          "input": {}}]),
     "content[0].name is missing"),
    ("anthropic", "stop-reason-number", _with(anthropic_ok(), stop_reason=1),
     "stop_reason is a number"),
    ("anthropic", "usage-list", _with(anthropic_ok(), usage=[MARK]), "usage is an array"),
    ("google", "no-candidates", {"responseId": "r1", "usageMetadata": {}},
     "candidates is missing"),
    ("google", "candidates-empty", _with(google_ok(), candidates=[]), "at least one candidate"),
    ("google", "candidates-string", _with(google_ok(), candidates=MARK),
     "candidates is a string"),
    ("google", "candidate-string", _with(google_ok(), candidates=[MARK]),
     "candidates[] is a string"),
    ("google", "content-string", _candidate(content=MARK), "candidates[].content is a string"),
    ("google", "parts-string", _candidate(content={"parts": MARK}),
     "candidates[].content.parts is a string"),
    ("google", "part-string", google_ok([MARK]), "parts[] is a string"),
    ("google", "function-call-without-name", google_ok([{"functionCall": {"args": {}}}]),
     "functionCall.name is missing"),
    ("google", "text-number", google_ok([{"text": 7}]), "parts[].text is a number"),
    ("google", "finish-reason-number", _candidate(finishReason=2),
     "candidates[].finishReason is a number"),
    ("google", "usage-string", _with(google_ok(), usageMetadata=MARK),
     "usageMetadata is a string"),
]


def _response(body: Any, family: str, status: int = 200) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers={
        "content-type": "application/json", REQUEST_ID_HEADER[family]: "req-malformed-1"})


def _assert_no_leak(error: BaseException, family: str) -> None:
    import traceback

    text = "".join(traceback.format_exception(error)) + repr(error) + str(error)
    assert MARK not in str(error) and MARK not in repr(error)
    assert KEYS[family] not in text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family,case,body,fragment", MALFORMED,
                         ids=[f"{f}-{c}" for f, c, _, _ in MALFORMED])
def test_malformed_reply_is_a_validation_error(family: str, case: str, body: Any,
                                               fragment: str, mode: str,
                                               httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URLS[family]).mock(return_value=_response(body, family))
    with pytest.raises(ai.APIResponseValidationError) as info:
        create(mode, CONFIG, model=MODELS[family], messages=USER)
    error = info.value
    assert route.call_count == 1
    assert isinstance(error, ai.APIError)
    assert error.provider == family and error.status_code == 200
    assert error.request_id == "req-malformed-1"
    assert fragment in str(error), str(error)
    assert family in str(error) and "HTTP 200" in str(error) and "req-malformed-1" in str(error)
    assert error.body is None
    _assert_no_leak(error, family)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family,body", [
    ("anthropic", anthropic_ok([{"type": "tool_use", "id": "t1", "name": "f", "input": "x"}],
                               stop_reason="tool_use")),
    ("google", google_ok([{"functionCall": {"name": "f", "args": "x"}}])),
])
def test_tool_arguments_that_are_not_an_object_are_kept(family: str, body: Any, mode: str,
                                                        httpx2_mock: respx.Router) -> None:
    """A model's string where the API promises an object is the model's mistake, not a broken
    reply: the call keeps it (as JSON text), and the tool runner answers the model that the
    arguments must be an object (tests/loop/test_tool_faults.py)."""
    httpx2_mock.post(URLS[family]).mock(return_value=_response(body, family))
    resp = create(mode, CONFIG, model=MODELS[family], messages=USER)
    (call,) = resp.choices[0].message.tool_calls
    assert call.function.name == "f" and call.function.arguments == '"x"'


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family,body,expected", [
    ("openai", {"error": {"message": "Rate limit reached", "type": "rate_limit_error",
                          "code": 429}}, ai.RateLimitError),
    ("openai", {"error": {"message": "bad request", "type": "invalid_request_error"}},
     ai.BadRequestError),
    ("openai", {"error": {"message": "This model's maximum context length is 8192 tokens",
                          "type": "invalid_request_error",
                          "code": "context_length_exceeded"}}, ai.ContextWindowExceededError),
    ("openai", {"error": {"message": "upstream failed"}}, ai.InternalServerError),
    ("anthropic", {"type": "error", "error": {"type": "overloaded_error",
                                              "message": "Overloaded"}}, ai.InternalServerError),
    ("anthropic", {"type": "error", "error": {"type": "authentication_error",
                                              "message": "invalid x-api-key"}},
     ai.AuthenticationError),
    ("anthropic", {"type": "error", "error": {"type": "rate_limit_error",
                                              "message": "slow down"}}, ai.RateLimitError),
    ("google", {"error": {"code": 429, "message": "Quota exceeded",
                          "status": "RESOURCE_EXHAUSTED"}}, ai.RateLimitError),
    ("google", {"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}},
     ai.InternalServerError),
    ("google", {"error": {"code": 400, "message": "Invalid argument",
                          "status": "INVALID_ARGUMENT"}}, ai.BadRequestError),
])
def test_error_object_in_a_200_raises_the_mapped_error(family: str, body: dict[str, Any],
                                                       expected: type, mode: str,
                                                       httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URLS[family]).mock(return_value=_response(body, family))
    with pytest.raises(ai.APIError) as info:
        create(mode, CONFIG, model=MODELS[family], messages=USER)
    assert type(info.value) is expected, repr(info.value)
    assert info.value.provider == family
    assert info.value.request_id == "req-malformed-1"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES)
def test_a_valid_reply_still_parses(family: str, mode: str, httpx2_mock: respx.Router) -> None:
    """The checks reject nothing a real reply carries (the replay tests cover recorded ones)."""
    body = {"openai": openai_ok(), "anthropic": anthropic_ok(), "google": google_ok()}[family]
    httpx2_mock.post(URLS[family]).mock(return_value=_response(body, family))
    response = create(mode, CONFIG, model=MODELS[family], messages=USER)
    assert response.choices[0].message.content == "ok"


def test_google_prompt_blocked_without_candidates_is_not_malformed(
        httpx2_mock: respx.Router) -> None:
    body = {"promptFeedback": {"blockReason": "SAFETY"}, "responseId": "r1"}
    httpx2_mock.post(URLS["google"]).mock(return_value=_response(body, "google"))
    response = create("sync", CONFIG, model=MODELS["google"], messages=USER)
    assert response.choices[0].finish_reason == "content_filter"


def test_anthropic_tool_use_without_id_is_not_malformed(httpx2_mock: respx.Router) -> None:
    """A missing id is replaced by a unique one (section 9), not a validation error."""
    body = anthropic_ok([{"type": "tool_use", "name": "f", "input": {}}], stop_reason="tool_use")
    httpx2_mock.post(URLS["anthropic"]).mock(return_value=_response(body, "anthropic"))
    response = create("sync", CONFIG, model=MODELS["anthropic"], messages=USER)
    assert response.choices[0].message.tool_calls[0].function.name == "f"


# --- streams -------------------------------------------------------------------------------


def openai_event(delta: Any = None, finish: Any = None, **extra: Any) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": {"content": "Hel"} if delta is None else delta,
                         "finish_reason": finish}], **extra}


def anthropic_start() -> list[dict[str, Any]]:
    return [{"type": "message_start", "message": {
                "id": "m1", "type": "message", "role": "assistant", "model": "claude-x",
                "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "Hel"}}]


def google_event(parts: Any = None, **extra: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model",
                                        "parts": [{"text": "Hel"}] if parts is None else parts},
                            "index": 0}], "responseId": "r1", **extra}


def _sse(family: str, events: list[Any], tail: str = "") -> bytes:
    """SSE text of ``events`` (dicts are JSON-encoded, strings sent as they are), then
    ``tail`` as raw text (e.g. a cut-off event)."""
    out = []
    for e in events:
        data = e if isinstance(e, str) else json.dumps(e)
        name = e.get("type") if family == "anthropic" and isinstance(e, dict) else None
        out.append((f"event: {name}\n" if name else "") + f"data: {data}\n\n")
    return ("".join(out) + tail).encode()


FIRST = {"openai": [openai_event({"role": "assistant", "content": "Hel"})],
         "anthropic": anthropic_start(), "google": [google_event()]}

# (family, case id, the bad event, a fragment of the message); the stream's first good
# events come before it, so the caller has seen "Hel".
BAD_EVENTS: list[tuple[str, str, Any, str]] = []
for _family in FAMILIES:
    BAD_EVENTS += [
        (_family, "not-json", "{not json " + MARK, "not JSON"),
        (_family, "list", [MARK], "is an array, expected an object"),
        (_family, "string", json.dumps(MARK), "is a string, expected an object"),
    ]
BAD_EVENTS += [
    ("openai", "choices-string", {**openai_event(), "choices": MARK}, "choices is a string"),
    ("openai", "choice-string", {**openai_event(), "choices": [MARK]}, "choices[] is a string"),
    ("openai", "delta-string", openai_event(MARK), "delta is a string"),
    ("openai", "tool-calls-string", openai_event({"tool_calls": MARK}), "tool_calls is a string"),
    ("openai", "tool-call-without-name", openai_event({"tool_calls": [
        {"index": 0, "id": "c1", "type": "function", "function": {"arguments": "{"}}]}),
     "function.name is missing"),
    ("openai", "finish-reason-number", openai_event({}, finish=5), "finish_reason is a number"),
    ("openai", "usage-string", {**openai_event(), "usage": MARK}, "usage is a string"),
    ("anthropic", "delta-string", {"type": "content_block_delta", "index": 0, "delta": MARK},
     "content_block_delta.delta is a string"),
    ("anthropic", "text-number", {"type": "content_block_delta", "index": 0,
                                  "delta": {"type": "text_delta", "text": 5}},
     "delta.text is a number"),
    ("anthropic", "block-start-string", {"type": "content_block_start", "index": 1,
                                         "content_block": MARK},
     "content_block_start.content_block is a string"),
    ("anthropic", "tool-use-without-name", {"type": "content_block_start", "index": 1,
                                            "content_block": {"type": "tool_use", "id": "t1",
                                                              "input": {}}},
     "content_block.name is missing"),
    ("anthropic", "message-delta-string", {"type": "message_delta", "delta": MARK},
     "message_delta.delta is a string"),
    ("anthropic", "stop-reason-number", {"type": "message_delta", "delta": {"stop_reason": 4}},
     "stop_reason is a number"),
    ("google", "candidates-string", {"candidates": MARK}, "candidates is a string"),
    ("google", "candidate-string", {"candidates": [MARK]}, "candidates[] is a string"),
    ("google", "parts-string", google_event(MARK), "parts is a string"),
    ("google", "function-call-without-name", google_event([{"functionCall": {"args": {}}}]),
     "functionCall.name is missing"),
    ("google", "finish-reason-number", {"candidates": [{"content": {"parts": []},
                                                        "finishReason": 9}]},
     "finishReason is a number"),
    ("google", "usage-string", {**google_event(), "usageMetadata": MARK},
     "usageMetadata is a string"),
]


def _stream_route(httpx2_mock: respx.Router, family: str, content: Any) -> Any:
    kwargs: dict[str, Any] = {"content": content} if isinstance(content, bytes) else {
        "stream": content}
    return httpx2_mock.post(STREAM_URLS[family]).mock(return_value=httpx.Response(
        200, headers={"content-type": "text/event-stream"}, **kwargs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family,case,event,fragment", BAD_EVENTS,
                         ids=[f"{f}-{c}" for f, c, _, _ in BAD_EVENTS])
def test_malformed_stream_event_is_a_validation_error(family: str, case: str, event: Any,
                                                      fragment: str, mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    bad = event if isinstance(event, str) else json.dumps(event)
    _stream_route(httpx2_mock, family, _sse(family, [*FIRST[family], bad]))
    seen, final, error, _ = stream(mode, CONFIG, model=MODELS[family], messages=USER)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert error.provider == family
    assert fragment in str(error), str(error)
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Hel"
    assert final is None
    _assert_no_leak(error, family)


# A stream cut in the middle of an event: the JSON of the last event is incomplete.
_CUT = {"openai": 'data: {"id": "c1", "object": "chat.completion.chunk", "choices": [{"ind',
        "anthropic": 'event: content_block_delta\ndata: {"type": "content_block_delta", "ind',
        "google": 'data: {"candidates": [{"content": {"parts": [{"text": "lo'}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("terminated", [False, True], ids=["at-eof", "blank-line-after"])
@pytest.mark.parametrize("family", FAMILIES)
def test_stream_cut_mid_event_is_a_connection_error(family: str, terminated: bool, mode: str,
                                                    httpx2_mock: respx.Router) -> None:
    tail = _CUT[family] + ("\n\n" if terminated else "")
    _stream_route(httpx2_mock, family, _sse(family, FIRST[family], tail=tail))
    seen, final, error, _ = stream(mode, CONFIG, model=MODELS[family], messages=USER)
    assert type(error) is ai.APIConnectionError, repr(error)
    assert error.provider == family
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Hel"


class _DroppedMidEvent(httpx.SyncByteStream, httpx.AsyncByteStream):
    """Sends complete events and half of the next one, then the connection resets."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        raise httpcore2.ReadError("connection reset by peer")

    async def __aiter__(self) -> Any:
        yield self.head
        raise httpcore2.ReadError("connection reset by peer")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES)
def test_connection_dropped_mid_event_is_a_connection_error(family: str, mode: str,
                                                            httpx2_mock: respx.Router) -> None:
    head = _sse(family, FIRST[family], tail=_CUT[family])
    _stream_route(httpx2_mock, family, _DroppedMidEvent(head))
    seen, final, error, _ = stream(mode, CONFIG, model=MODELS[family], messages=USER)
    assert type(error) is ai.APIConnectionError, repr(error)
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Hel"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family,event,expected", [
    ("openai", {"error": {"message": "overloaded", "type": "server_error"}},
     ai.InternalServerError),
    ("openai", {"error": {"message": "slow down", "code": 429}}, ai.RateLimitError),
    ("anthropic", {"type": "error", "error": {"type": "overloaded_error",
                                              "message": "Overloaded"}}, ai.InternalServerError),
    ("google", {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}},
     ai.RateLimitError),
])
def test_error_event_in_a_stream_raises_the_mapped_error(family: str, event: dict[str, Any],
                                                         expected: type, mode: str,
                                                         httpx2_mock: respx.Router) -> None:
    _stream_route(httpx2_mock, family, _sse(family, [*FIRST[family], event]))
    _, _, error, _ = stream(mode, CONFIG, model=MODELS[family], messages=USER)
    assert type(error) is expected, repr(error)


# --- the translators alone (no I/O) ----------------------------------------------------------


def _parsers() -> dict[str, Callable[[Any], Any]]:
    from aisuite_like.providers import anthropic, google, openai

    return {"openai": lambda d: openai.parse_response(d, "openai"),
            "anthropic": lambda d: anthropic.parse_response(d),
            "google": lambda d: google.parse_response(d)}


@pytest.mark.parametrize("family,case,body,fragment",
                         [m for m in MALFORMED if not isinstance(m[2], bytes)],
                         ids=[f"{f}-{c}" for f, c, b, _ in MALFORMED if not isinstance(b, bytes)])
def test_translators_raise_the_typed_error_on_their_own(family: str, case: str, body: Any,
                                                        fragment: str) -> None:
    with pytest.raises(ai.APIResponseValidationError) as info:
        _parsers()[family](body)
    assert fragment in info.value.problem or fragment in str(info.value)
