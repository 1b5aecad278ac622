"""QA of the public contract (docs/client.md, docs/reliability.md) across provider families, as a user
of the OpenAI SDK would exercise it: through ``import aisuite_like as ai`` and the real vendor
SDKs, HTTP mocked at the httpcore2 layer, asserting on what was sent and what came back."""

from __future__ import annotations

import asyncio
import json
import traceback
from typing import Any

import pytest
import respx

import aisuite_like as ai

SECRET = "my-custom-secret-value-XYZ"  # not key-shaped: only the configured key can catch it
OPENAI_URL = "https://api.openai.com/v1/chat/completions"
VLLM_URL = "http://localhost:8000/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GOOGLE_BASE = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
GOOGLE_URL = GOOGLE_BASE + ":generateContent"
GOOGLE_STREAM_URL = GOOGLE_BASE + ":streamGenerateContent"
MODELS = {"openai": "openai:gpt-4o", "vllm": "vllm:my-model", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-2.5-flash"}
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def _config(key: str = SECRET) -> dict[str, dict[str, Any]]:
    return {family: {"api_key": key, "max_retries": 0} for family in MODELS}


def _sse(events: list[dict[str, Any]], sep: str = "\n\n") -> bytes:
    return "".join(f"data: {json.dumps(e)}{sep}" for e in events).encode()


def _ok_body(family: str) -> dict[str, Any]:
    if family in ("openai", "vllm"):
        return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
    if family == "anthropic":
        return {"id": "m1", "type": "message", "role": "assistant", "model": "claude-x",
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
            "responseId": "r1", "modelVersion": "gemini-2.5-flash"}


# --- section 6: no API key in any message, repr or trace ------------------------------------

# A 401 whose body echoes the (non key-shaped) key back, per family.
_ECHO_401 = {
    "openai": (OPENAI_URL, {"error": {"message": f"Incorrect API key provided: {SECRET}",
                                      "type": "invalid_request_error",
                                      "code": "invalid_api_key"}}),
    "vllm": (VLLM_URL, {"error": {"message": f"bad key {SECRET}", "type": "auth"}}),
    "anthropic": (ANTHROPIC_URL, {"type": "error", "error": {
        "type": "authentication_error", "message": f"invalid x-api-key {SECRET}"}}),
    "google": (GOOGLE_URL, {"error": {"code": 401, "message": f"API key not valid {SECRET}",
                                      "status": "UNAUTHENTICATED"}}),
}


def _call(family: str, mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(_config()) as client:
            return client.chat.completions.create(model=MODELS[family], messages=USER, **kwargs)
    if mode == "stream":
        with ai.Client(_config()) as client:
            with client.chat.completions.create(model=MODELS[family], messages=USER,
                                                stream=True, **kwargs) as stream:
                return stream.get_final_response()

    async def run() -> Any:
        async with ai.AsyncClient(_config()) as client:
            return await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                        **kwargs)

    return asyncio.run(run())


def _assert_no_secret_anywhere(error: BaseException) -> None:
    trace = "".join(traceback.format_exception(error))
    assert SECRET not in trace
    assert SECRET not in repr(error) and SECRET not in str(error)
    cause = error.__cause__
    assert cause is not None  # the SDK exception is still chained, only scrubbed
    assert SECRET not in repr(cause.args)
    for attr in ("message", "body", "details"):
        assert SECRET not in repr(getattr(cause, attr, None))


@pytest.mark.parametrize("family", sorted(_ECHO_401))
@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
def test_echoed_key_is_scrubbed_from_the_whole_traceback(family: str, mode: str,
                                                         httpx2_mock: respx.Router) -> None:
    url, body = _ECHO_401[family]
    if family == "google" and mode == "stream":
        httpx2_mock.post(url__startswith=GOOGLE_STREAM_URL).mock(
            return_value=respx.MockResponse(401, json=body))
    else:
        httpx2_mock.post(url).mock(return_value=respx.MockResponse(401, json=body))
    with pytest.raises(ai.AuthenticationError) as info:
        _call(family, mode)
    assert info.value.status_code == 401
    assert type(info.value.__cause__).__module__.split(".")[0] in ("openai", "anthropic", "google")
    _assert_no_secret_anywhere(info.value)


@pytest.mark.parametrize("family", ["openai", "vllm", "google"])
def test_error_event_in_a_stream_echoing_the_key_is_scrubbed(family: str,
                                                           httpx2_mock: respx.Router) -> None:
    if family == "google":
        body = _sse([{"error": {"code": 500, "message": f"key {SECRET}", "status": "INTERNAL"}}],
                    "\r\n\r\n")
        httpx2_mock.post(url__startswith=GOOGLE_STREAM_URL).mock(
            return_value=respx.MockResponse(200, content=body,
                                            headers={"content-type": "text/event-stream"}))
    else:
        body = _sse([{"error": {"message": f"bad key {SECRET}", "type": "server_error"}}])
        httpx2_mock.post(_ECHO_401[family][0]).mock(
            return_value=respx.MockResponse(200, content=body,
                                            headers={"content-type": "text/event-stream"}))
    with pytest.raises(ai.InternalServerError) as info:
        _call(family, "stream")
    trace = "".join(traceback.format_exception(info.value))
    assert SECRET not in trace
    assert "[REDACTED]" in str(info.value)


# --- section 6: error classes ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
def test_openai_context_length_exceeded_code_is_a_context_window_error(
        mode: str, httpx2_mock: respx.Router) -> None:
    # The code names it even when the message has none of the usual words.
    body = {"error": {"message": "Input is too large for this model.", "param": "messages",
                      "type": "invalid_request_error", "code": "context_length_exceeded"}}
    httpx2_mock.post(OPENAI_URL).mock(return_value=respx.MockResponse(400, json=body))
    with pytest.raises(ai.ContextWindowExceededError) as info:
        _call("openai", mode)
    assert isinstance(info.value, ai.BadRequestError) and info.value.status_code == 400


def test_openai_context_length_exceeded_error_event_in_stream(httpx2_mock: respx.Router) -> None:
    body = _sse([{"error": {"message": "Input is too large.", "type": "invalid_request_error",
                            "code": "context_length_exceeded"}}])
    httpx2_mock.post(OPENAI_URL).mock(return_value=respx.MockResponse(
        200, content=body, headers={"content-type": "text/event-stream"}))
    with pytest.raises(ai.ContextWindowExceededError):
        _call("openai", "stream")


# --- section 2: provider-native arguments the SDK rejects --------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
def test_google_native_value_the_sdk_cannot_send_is_unsupported_parameter(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__startswith=GOOGLE_BASE).mock(
        return_value=respx.MockResponse(200, json=_ok_body("google")))
    with pytest.raises(ai.UnsupportedParameterError) as info:
        _call("google", mode, labels={"team": object()})  # not JSON: the SDK raises TypeError
    assert "google" in str(info.value)
    assert not route.calls


# --- section 2: the gemini alias ---------------------------------------------------------------


def test_gemini_alias_shares_one_provider_and_config(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GOOGLE_URL).mock(
        return_value=respx.MockResponse(200, json=_ok_body("google")))
    with ai.Client({"gemini": {"api_key": SECRET, "max_retries": 0}}) as client:
        a = client.chat.completions.create(model="google:gemini-2.5-flash", messages=USER)
        b = client.chat.completions.create(model="gemini:gemini-2.5-flash", messages=USER)
    assert a.provider == b.provider == "google"
    assert [c.request.headers["x-goog-api-key"] for c in route.calls] == [SECRET, SECRET]


def test_different_configs_under_google_and_gemini_raise_instead_of_dropping_one() -> None:
    with pytest.raises(ai.ConfigurationError, match="gemini.*google|google.*gemini"):
        ai.Client({"google": {"api_key": "AIza-one"}, "gemini": {"api_key": "AIza-two"}})
    # The same config under both keys is not a conflict.
    ai.Client({"google": {"api_key": "k"}, "gemini": {"api_key": "k"}})


# --- section 2: bad values of portable arguments are typed errors ------------------------------


@pytest.mark.parametrize("family", ["anthropic", "google"])
@pytest.mark.parametrize("stop", [5, [1, 2], {"a": 1}])
def test_bad_stop_is_a_typed_error_before_sending(family: str, stop: Any,
                                                  httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=".*").mock(
        return_value=respx.MockResponse(200, json=_ok_body(family)))
    with pytest.raises(ai.UnsupportedParameterError, match="stop"):
        _call(family, "sync", stop=stop)
    assert not route.calls


@pytest.mark.parametrize("n", [0, -1, 1.5, "2"])
def test_google_bad_n_is_a_typed_error_like_openai(n: Any, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=".*").mock(
        return_value=respx.MockResponse(200, json=_ok_body("google")))
    for family in ("openai", "google"):
        with pytest.raises(ai.UnsupportedParameterError, match="n must be"):
            _call(family, "sync", n=n)
    assert not route.calls


# --- section 2: streams ------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_bad_argument_raises_at_create_with_stream_too(family: str,
                                                       httpx2_mock: respx.Router) -> None:
    """As in the OpenAI SDK (and as without stream), a bad argument raises at create(), not on
    the first iteration of the returned stream."""
    route = httpx2_mock.post(url__regex=".*").mock(return_value=respx.MockResponse(500))
    bad = {"openai": {"n": 0}, "anthropic": {"seed": 1}, "google": {"user": "u"}}[family]
    with ai.Client(_config()) as client:
        with pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model=MODELS[family], messages=USER, stream=True,
                                           **bad)

    async def run() -> None:
        async with ai.AsyncClient(_config()) as aclient:
            with pytest.raises(ai.UnsupportedParameterError):
                await aclient.chat.completions.create(model=MODELS[family], messages=USER,
                                                      stream=True, **bad)

    asyncio.run(run())
    assert not route.calls


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_http_error_of_a_stream_raises_at_create(family: str, httpx2_mock: respx.Router) -> None:
    """As in the OpenAI SDK: `try: stream = create(stream=True)` catches a 401."""
    httpx2_mock.post(url__regex=".*").mock(return_value=respx.MockResponse(
        401, json={"error": {"message": "bad key", "type": "authentication_error",
                             "code": 401, "status": "UNAUTHENTICATED"}}))
    with ai.Client(_config()) as client:
        with pytest.raises(ai.AuthenticationError):
            client.chat.completions.create(model=MODELS[family], messages=USER, stream=True)

    async def run() -> None:
        async with ai.AsyncClient(_config()) as aclient:
            with pytest.raises(ai.AuthenticationError):
                await aclient.chat.completions.create(model=MODELS[family], messages=USER,
                                                      stream=True)

    asyncio.run(run())


# --- section 2: provider config ----------------------------------------------------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_unknown_config_key_is_a_configuration_error_on_every_family(
        family: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=".*").mock(
        return_value=respx.MockResponse(200, json=_ok_body(family)))
    with pytest.raises(ai.ConfigurationError, match="bogus_option"):
        ai.Client({family: {"api_key": "k", "bogus_option": 1}}).chat.completions.create(
            model=MODELS[family], messages=USER)
    assert not route.calls


@pytest.mark.parametrize("timeout", ["abc", -1, object()])
def test_google_bad_timeout_is_a_typed_error(timeout: Any, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=".*").mock(
        return_value=respx.MockResponse(200, json=_ok_body("google")))
    with pytest.raises(ai.UnsupportedParameterError, match="timeout"):
        _call("google", "sync", timeout=timeout)
    assert not route.calls


# --- section 2: messages -----------------------------------------------------------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_dict_message_holding_tool_call_objects_is_sent_as_openai_shape(
        family: str, httpx2_mock: respx.Router) -> None:
    """The OpenAI SDK idiom {"role": "assistant", "tool_calls": message.tool_calls} works on
    every family (the objects are read as dicts; the caller's message is left alone)."""
    url = {"openai": OPENAI_URL, "anthropic": ANTHROPIC_URL, "google": GOOGLE_URL}[family]
    route = httpx2_mock.post(url).mock(return_value=respx.MockResponse(200, json=_ok_body(family)))
    calls = [ai.ToolCall(id="c1", function=ai.Function(name="f", arguments='{"x": 1}'))]
    assistant = {"role": "assistant", "content": None, "tool_calls": calls}
    with ai.Client(_config()) as client:
        client.chat.completions.create(model=MODELS[family], messages=[
            *USER, assistant, {"role": "tool", "tool_call_id": "c1", "content": "2"}])
    sent = json.loads(route.calls[0].request.content)
    if family == "openai":
        assert sent["messages"][1]["tool_calls"] == [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]
    elif family == "anthropic":
        assert sent["messages"][1]["content"] == [
            {"type": "tool_use", "id": "c1", "name": "f", "input": {"x": 1}}]
    else:
        # a call Gemini never signed carries Google's documented placeholder signature
        assert sent["contents"][1]["parts"] == [
            {"functionCall": {"name": "f", "args": {"x": 1}, "id": "c1"},
             "thoughtSignature": "skip_thought_signature_validator"}]
    assert assistant["tool_calls"] is calls and isinstance(calls[0], ai.ToolCall)
