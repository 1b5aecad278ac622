"""Reply faults on the three families, through the real SDKs, against the project's loopback
fault server (tests/support/fault_server.py): malformed 200 bodies, error objects inside a 200,
malformed, misshapen and truncated stream events, and malformed request arguments (refused
before anything is sent). Each case asserts the typed error, the number of attempts, and that
the key shows in no exception text, traceback, repr or log record (DEBUG, every logger).

Outcomes are recorded for the fault matrix of docs/reliability.md: with
``AISUITE_FAULT_MATRIX=<path>`` set they are written there as JSON (``scripts/fault_matrix.py``
runs each fault suite on its own and renders their rows in turn).
"""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from collections.abc import Iterator
from typing import Any, Optional

import pytest
from support.fault_server import (
    FaultServer,
    MatrixOutcomes,
    Reply,
    Stream,
    stream_events,
    success_body,
)
from support.malformed_arguments import MALFORMED_ARGUMENTS
from support.transports import each_transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.testing import FakeClock

FAMILIES = ("openai", "anthropic", "google")
FORMAT = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}
MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x", "google": "google:gemini-x"}
KEYS = {"openai": "opn-Reply-Secret-5e1c9a7b3d", "anthropic": "ant-Reply-Secret-2f6b8d4c1a",
        "google": "ggl-Reply-Secret-7a3c5e9b1d"}
USER = [{"role": "user", "content": "hi"}]

_OUTCOMES = MatrixOutcomes()
record = _OUTCOMES.record


@pytest.fixture(scope="module", autouse=True)
def _write_matrix() -> Iterator[None]:
    yield
    _OUTCOMES.write()


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    server.reset()
    caplog.set_level(logging.DEBUG)


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _config(family: str, server: FaultServer) -> dict[str, Any]:
    base_url = server.url + "/v1" if family == "openai" else server.url
    return with_transport({family: {"api_key": KEYS[family], "base_url": base_url,
                                    "max_retries": 2, "retry_clock": FakeClock()}})


def _fail(family: str, server: FaultServer, mode: str = "sync", stream: bool = False,
          seen: Optional[list[str]] = None, **kwargs: Any) -> BaseException:
    """One request that must fail; returns its error (text pieces streamed go to ``seen``)."""
    seen = [] if seen is None else seen
    configs = _config(family, server)
    kwargs.setdefault("messages", USER)
    events = kwargs.pop("events", None)
    if events is not None:
        server.queue(Stream(events=events))
    try:
        if mode == "sync":
            with ai.Client(configs) as client:
                result = client.chat.completions.create(model=MODELS[family], stream=stream,
                                                        **kwargs)
                for chunk in result if stream else ():
                    if chunk.choices and chunk.choices[0].delta.content:
                        seen.append(chunk.choices[0].delta.content)
        else:
            async def run() -> None:
                async with ai.AsyncClient(configs) as client:
                    result = await client.chat.completions.create(
                        model=MODELS[family], stream=stream, **kwargs)
                    if stream:
                        async for chunk in result:
                            if chunk.choices and chunk.choices[0].delta.content:
                                seen.append(chunk.choices[0].delta.content)
            asyncio.run(run())
    except (ai.AisuiteLikeError, TypeError, ValueError) as exc:
        return exc
    raise AssertionError("the request did not fail")


def _assert_no_key(family: str, exc: BaseException, caplog: pytest.LogCaptureFixture) -> None:
    key = KEYS[family]
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    for rec in caplog.records:
        texts += [rec.getMessage(), repr(rec.args)]
        if rec.exc_info:
            texts.append("".join(traceback.format_exception(*rec.exc_info)))
    assert not [t for t in texts if key in t]


# --- malformed 200 bodies --------------------------------------------------------------------


def _bodies(family: str) -> dict[str, Any]:
    """fault -> the 200 body that carries it, for ``family``."""
    good = success_body(FORMAT[family])
    if family == "openai":
        return {
            "200 body that is not JSON": b"<html>502 from a proxy</html>",
            "200 body that is a JSON array": [],
            "200 with the reply list of the wrong type": {**good, "choices": "abc"},
            "200 with an empty reply list": {**good, "choices": []},
            "200 without the reply list": {"id": "x", "object": "chat.completion"},
            "200 with the message of the wrong type": {**good, "choices": [
                {"index": 0, "message": "hello", "finish_reason": "stop"}]},
            "200 with a tool call without a name": {**good, "choices": [
                {"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}}]},
        }
    if family == "anthropic":
        return {
            "200 body that is not JSON": b"<html>502 from a proxy</html>",
            "200 body that is a JSON array": [],
            "200 with the reply list of the wrong type": {**good, "content": "abc"},
            "200 with an empty reply list": None,  # an empty content list is a valid reply
            "200 without the reply list": {k: v for k, v in good.items() if k != "content"},
            "200 with the message of the wrong type": {**good, "content": ["hello"]},
            "200 with a tool call without a name": {**good, "stop_reason": "tool_use",
                                                    "content": [{"type": "tool_use", "id": "t1",
                                                                 "input": {}}]},
        }
    return {
        "200 body that is not JSON": b"<html>502 from a proxy</html>",
        "200 body that is a JSON array": [],
        "200 with the reply list of the wrong type": {**good, "candidates": "abc"},
        "200 with an empty reply list": {**good, "candidates": []},
        "200 without the reply list": {k: v for k, v in good.items() if k != "candidates"},
        "200 with the message of the wrong type": {**good, "candidates": [
            {"content": "hello", "finishReason": "STOP", "index": 0}]},
        "200 with a tool call without a name": {**good, "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"args": {}}}]},
             "finishReason": "STOP", "index": 0}]},
    }


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault", list(_bodies("openai")))
def test_malformed_200_body(family: str, fault: str, mode: str, server: FaultServer,
                            caplog: pytest.LogCaptureFixture) -> None:
    body = _bodies(family)[fault]
    if body is None:
        record(fault, family, "a valid reply (content may be empty)")
        return
    server.queue(Reply(200, body=body))
    error = _fail(family, server, mode)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert error.status_code == 200 and error.provider == family
    assert server.attempts == 1  # a malformed reply is not retried
    _assert_no_key(family, error, caplog)
    record(fault, family, "APIResponseValidationError (HTTP 200, naming what was wrong), 1 attempt")


ERROR_OBJECTS = {
    "error object in a 200 (rate limit)": {
        "openai": {"error": {"message": "Rate limit reached", "type": "rate_limit_error",
                             "code": 429}},
        "anthropic": {"type": "error", "error": {"type": "rate_limit_error",
                                                 "message": "slow down"}},
        "google": {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}},
    },
    "error object in a 200 (server overloaded)": {
        "openai": {"error": {"message": "The server is overloaded", "type": "server_error"}},
        "anthropic": {"type": "error", "error": {"type": "overloaded_error",
                                                 "message": "Overloaded"}},
        "google": {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}},
    },
}


@pytest.mark.parametrize("fault", list(ERROR_OBJECTS))
def test_error_object_in_a_200(family: str, fault: str, server: FaultServer,
                               caplog: pytest.LogCaptureFixture) -> None:
    """The error object means what its status means: retried as that status would be."""
    server.queue(*[Reply(200, body=ERROR_OBJECTS[fault][family])] * 3)
    error = _fail(family, server)
    expected = ai.RateLimitError if "rate" in fault else ai.InternalServerError
    assert type(error) is expected, repr(error)
    assert server.attempts == 3
    _assert_no_key(family, error, caplog)
    record(fault, family, f"{expected.__name__} after 3 attempts (retried as its status)")


# --- streams -------------------------------------------------------------------------------


def _cut(family: str) -> bytes:
    """An event whose JSON stops half-way."""
    return {"openai": b'data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "cho',
            "anthropic": b'event: content_block_delta\ndata: {"type": "content_block_delta", '
                         b'"index": 0, "delta": {"type": "text_d',
            "google": b'data: {"candidates": [{"content": {"role": "model", "parts": [{"te',
            }[family]


def _bad_shape(family: str) -> bytes:
    data = {"openai": {"id": "c", "object": "chat.completion.chunk", "choices": "abc"},
            "anthropic": {"type": "content_block_delta", "index": 0, "delta": "abc"},
            "google": {"candidates": "abc"}}[family]
    head = b"event: content_block_delta\n" if family == "anthropic" else b""
    return head + b"data: " + json.dumps(data).encode() + b"\n\n"


def _head(family: str) -> list[bytes]:
    """The first events of a normal stream: the caller has seen 'hello '."""
    events = stream_events(FORMAT[family])
    return events[:{"openai": 2, "anthropic": 3, "google": 1}[family]]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault,tail,then,expected,outcome", [
    ("stream event that is not JSON (after the first chunk)",
     lambda f: [b"data: {not json}\n\n"], "close", ai.APIResponseValidationError,
     "APIResponseValidationError after the chunks already seen; not retried"),
    ("stream event of the wrong shape (after the first chunk)",
     lambda f: [_bad_shape(f)], "close", ai.APIResponseValidationError,
     "APIResponseValidationError after the chunks already seen; not retried"),
    ("stream cut mid-event (JSON cut off, then the connection closes)",
     lambda f: [_cut(f)], "close", ai.APIConnectionError,
     "APIConnectionError after the chunks already seen; not retried"),
    ("stream cut mid-event (JSON cut off, then a reset)",
     lambda f: [_cut(f)], "reset", ai.APIConnectionError,
     "APIConnectionError after the chunks already seen; not retried"),
], ids=["not-json", "wrong-shape", "cut-close", "cut-reset"])
def test_stream_fault_after_first_chunk(family: str, fault: str, tail: Any, then: str,
                                        expected: type, outcome: str, mode: str,
                                        server: FaultServer,
                                        caplog: pytest.LogCaptureFixture) -> None:
    events = _head(family) + tail(family)
    server.queue(Stream(events=events, cut_after=len(events), then=then))
    seen: list[str] = []
    error = _fail(family, server, mode, stream=True, seen=seen)
    assert type(error) is expected, repr(error)
    assert "".join(seen) == "hello "
    assert server.attempts == 1
    _assert_no_key(family, error, caplog)
    record(fault, family, outcome)


def _ok_stream(family: str, mode: str, server: FaultServer, events: list[bytes]) -> str:
    """Serve ``events`` as one stream and return the text the caller saw."""
    server.queue(Stream(events=events))
    seen: list[str] = []
    configs = _config(family, server)
    if mode == "sync":
        with ai.Client(configs) as client:
            with client.chat.completions.create(model=MODELS[family], messages=USER,
                                                stream=True) as stream:
                for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        seen.append(chunk.choices[0].delta.content)
    else:
        async def run() -> None:
            async with ai.AsyncClient(configs) as client:
                stream = await client.chat.completions.create(model=MODELS[family],
                                                              messages=USER, stream=True)
                async with stream:
                    async for chunk in stream:
                        if chunk.choices and chunk.choices[0].delta.content:
                            seen.append(chunk.choices[0].delta.content)
        asyncio.run(run())
    return "".join(seen)


SSE_FIELDS = {
    "SSE event carrying only retry: (first and mid-stream)":
        lambda ev: [b"retry: 3000\n\n", *ev[:1], b"retry: 10\n\n", *ev[1:]],
    "SSE comment lines (': keep-alive') between and inside events":
        lambda ev: [b": keep-alive\n\n", b":\n", *ev[:1], b": ping\n",
                    *(b": inside\n" + e for e in ev[1:])],
    "SSE id: fields on every event, and an event carrying only id:":
        lambda ev: [b"id: 0\n" + ev[0], b"id: 99\n\n",
                    *(b"id: %d\n" % n + e for n, e in enumerate(ev[1:], 1))],
    "SSE lines ending in CR LF or a lone CR":
        lambda ev: [e.replace(b"\n", b"\r\n") for e in ev[:2]]
                   + [e.replace(b"\n", b"\r") for e in ev[2:]],
}


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault", list(SSE_FIELDS))
def test_valid_sse_fields_are_read(family: str, fault: str, mode: str,
                                   server: FaultServer) -> None:
    """retry:, id: and comment lines are valid SSE (a keep-alive, a reconnection hint): the
    reply reads as if they were not there, on every family."""
    events = SSE_FIELDS[fault](stream_events(FORMAT[family]))
    assert _ok_stream(family, mode, server, events) == "hello world"
    assert server.attempts == 1
    record(fault, family, "read as valid SSE; the whole reply")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_stream_with_invalid_utf8_is_a_typed_error(family: str, mode: str, server: FaultServer,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """Bytes that are not UTF-8 inside an event: the reply is malformed (its JSON cannot be
    text), never a UnicodeDecodeError and never silently replaced characters."""
    events = stream_events(FORMAT[family])
    at = {"openai": 2, "anthropic": 3, "google": 1}[family]  # the event after "hello "
    events[at] = events[at].replace(b"world", b"wo\xff\xferld")
    seen: list[str] = []
    error = _fail(family, server, mode, stream=True, seen=seen, events=events)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert "UTF-8" in str(error)
    assert "".join(seen) == "hello "
    assert server.attempts == 1
    _assert_no_key(family, error, caplog)
    record("stream event that is not UTF-8 (after the first chunk)", family,
           "APIResponseValidationError after the chunks already seen; not retried")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_openai_stream_cut_inside_its_usage_chunk(mode: str, server: FaultServer) -> None:
    """A cut after the finish reason, inside the final usage chunk, is seen (the body ends
    inside an event) rather than a reply silently without usage."""
    cut = (b'data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], '
           b'"usage": {"prompt_tok')
    events = [*stream_events("openai")[:-1], cut]
    error = _fail("openai", server, mode, stream=True, events=events)
    assert type(error) is ai.APIConnectionError, repr(error)
    assert server.attempts == 1
    record("stream cut inside its last (usage) event, after the finish reason", "openai",
           "APIConnectionError after the chunks already seen; not retried")


# --- malformed arguments -------------------------------------------------------------------


def test_malformed_arguments_are_refused_before_sending(family: str, server: FaultServer,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    refused = 0
    for _case, kwargs, expected, fragment in MALFORMED_ARGUMENTS:
        kwargs = dict(kwargs)
        model = kwargs.pop("model", None)
        configs = _config(family, server)
        with pytest.raises(expected) as info:
            with ai.Client(configs) as client:
                client.chat.completions.create(model=model or MODELS[family],
                                               **{"messages": USER, **kwargs})
        assert fragment in str(info.value)
        _assert_no_key(family, info.value, caplog)
        refused += 1
    assert server.attempts == 0
    assert refused >= 40
    record(f"{refused} malformed request arguments (types, values, typos, empty messages)",
           family, "the typed error before anything is sent; 0 requests")


# --- JSON nested 5,000 levels deep -----------------------------------------------------------

DEEP = b"[" * 5000 + b"]" * 5000


def _deep_event(family: str) -> bytes:
    head = b"event: content_block_delta\n" if family == "anthropic" else b""
    return head + b'data: {"type": "content_block_delta", "x": ' + DEEP + b"}\n\n"


@pytest.mark.usefixtures("no_collector_midway")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_deeply_nested_200_body(family: str, mode: str, server: FaultServer,
                                caplog: pytest.LogCaptureFixture) -> None:
    """Python's JSON parser raises RecursionError near 1,000 levels: a typed error instead."""
    server.queue(Reply(200, body=b'{"id": "x", "extra": ' + DEEP + b"}"))
    error = _fail(family, server, mode)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert error.status_code == 200 and "nested" in str(error)
    assert server.attempts == 1
    _assert_no_key(family, error, caplog)
    record("200 body of JSON nested 5,000 levels deep", family,
           "APIResponseValidationError (HTTP 200, nested too deeply), 1 attempt")


@pytest.mark.usefixtures("no_collector_midway")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_deeply_nested_stream_event(family: str, mode: str, server: FaultServer,
                                    caplog: pytest.LogCaptureFixture) -> None:
    """The SDKs decode OpenAI's and Gemini's events themselves; the project Anthropic's."""
    events = [*_head(family), _deep_event(family)]
    server.queue(Stream(events=events))
    seen: list[str] = []
    error = _fail(family, server, mode, stream=True, seen=seen)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert "nested" in str(error) and "".join(seen) == "hello "
    assert server.attempts == 1
    _assert_no_key(family, error, caplog)
    record("stream event of JSON nested 5,000 levels deep (after the first chunk)", family,
           "APIResponseValidationError after the chunks already seen; not retried")


@pytest.mark.usefixtures("no_collector_midway")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_deeply_nested_error_body(family: str, mode: str, server: FaultServer,
                                  caplog: pytest.LogCaptureFixture) -> None:
    """A 400 whose body nests 5,000 levels: the SDKs read error bodies themselves; a typed
    error either way (google-genai's parser gives up, so the status is not known there)."""
    server.queue(Reply(400, body=b'{"error": ' + DEEP + b"}"))
    error = _fail(family, server, mode)
    expected = ai.APIResponseValidationError if family == "google" else ai.BadRequestError
    assert type(error) is expected, repr(error)
    assert server.attempts == 1
    _assert_no_key(family, error, caplog)
    record("error body (HTTP 400) of JSON nested 5,000 levels deep", family,
           f"{expected.__name__}, 1 attempt")


# --- a stream request answered with a plain JSON body ----------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_stream_request_answered_with_a_plain_reply_gives_that_reply(
        family: str, mode: str, server: FaultServer) -> None:
    """Some servers answer a stream request with the whole reply as JSON (not SSE): it is read
    as the reply it is, streamed as its chunks, in one attempt (no lost connection)."""
    server.queue(Reply(200, body=success_body(FORMAT[family])))
    configs = _config(family, server)
    if mode == "sync":
        with ai.Client(configs) as client:
            stream = client.chat.completions.create(model=MODELS[family], messages=USER,
                                                    stream=True)
            text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
            final = stream.get_final_response()
    else:
        async def run() -> tuple[str, Any]:
            async with ai.AsyncClient(configs) as client:
                stream = await client.chat.completions.create(model=MODELS[family],
                                                              messages=USER, stream=True)
                pieces = [c.choices[0].delta.content or "" async for c in stream
                          if c.choices]
                return "".join(pieces), await stream.get_final_response()
        text, final = asyncio.run(run())
    assert text == "hello world" == final.choices[0].message.content
    assert final.choices[0].finish_reason == "stop"
    assert server.attempts == 1
    record("stream request answered with a plain JSON reply", family,
           "the reply, as its chunks; 1 attempt")


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault", list(ERROR_OBJECTS))
def test_stream_request_answered_with_a_plain_error_object(
        family: str, fault: str, mode: str, server: FaultServer,
        caplog: pytest.LogCaptureFixture) -> None:
    """An error object as the plain body of a stream request is the typed error it stands
    for, retried as its status would be: never an APIConnectionError."""
    server.queue(*[Reply(200, body=ERROR_OBJECTS[fault][family])] * 3)
    error = _fail(family, server, mode, stream=True)
    expected = ai.RateLimitError if "rate" in fault else ai.InternalServerError
    assert type(error) is expected, repr(error)
    assert server.attempts == 3
    _assert_no_key(family, error, caplog)
    record(fault.replace("error object in a 200", "stream request answered with a plain "
                         "error object"), family,
           f"{expected.__name__} after 3 attempts (retried as its status)")


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("body", [b"{not json", b"[1, 2"], ids=["bad-json", "cut-json"])
def test_stream_request_answered_with_plain_bad_json(family: str, body: bytes, mode: str,
                                                     server: FaultServer) -> None:
    server.queue(Reply(200, body=body, headers={"content-type": "application/json"}))
    error = _fail(family, server, mode, stream=True)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert server.attempts == 1


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("bad", [b"data: {not json}\n\n", b'data: {"choices": [\n\n'],
                         ids=["not-json", "cut-json"])
def test_one_malformed_event_in_a_stream_that_goes_on_is_a_response_error(
        family: str, bad: bytes, mode: str, server: FaultServer) -> None:
    """An event whose JSON does not parse, followed by more of the stream: the server sent a
    bad event (the SSE framing arrived whole), not a lost connection."""
    events = _head(family) + [bad] + stream_events(FORMAT[family])[len(_head(family)):]
    server.queue(Stream(events=events))
    error = _fail(family, server, mode, stream=True)
    assert type(error) is ai.APIResponseValidationError, repr(error)
    assert server.attempts == 1
    record("one malformed stream event in a stream that goes on", family,
           "APIResponseValidationError; not retried")
