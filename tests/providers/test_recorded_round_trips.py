"""Recorded multi-step exchanges replayed the way a user runs them (tests/fixtures/recorded):
the reply we parsed goes back in the next request, and the next request must carry what the
service really received in the recording.

- Hugging Face (``test_max_completion_tokens``): the service got the limit as
  ``max_tokens``; whichever way the caller names the limit and whichever way the router is
  reached (the ``huggingface`` key, the ``openai`` key or a key registered with
  ``OpenAIProvider``, all pointed at the router), it goes out as ``max_tokens``.
- OpenRouter (``test_openrouter_stream_error``): the service got ``max_completion_tokens``
  as the caller sent it and applied it (finish reason ``length``); the limit goes out under
  the name the caller gave it (the ``openrouter`` key, or the ``openai`` key pointed at
  OpenRouter), not rewritten to ``max_tokens`` as for Hugging Face.
- Gemini (structured output with a function tool; a streamed tool call): the thought
  signature of each reply comes back on the next turn exactly as the service received it
  (base64url, as google-genai encodes it), on the part it came with.

Through the REAL vendor SDKs with HTTP mocked at httpcore2, sync and async, and through the
native transport (tests/support/transports.py: every test runs on both)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
import respx
from support.transports import each_transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.providers import registry as providers
from support.recorded import load_recorded

HF = load_recorded("huggingface/test_huggingface__test_max_completion_tokens.json")
HF_BODY = HF["interactions"][0]["request"]["body"]
HF_REPLY = HF["interactions"][0]["response"]["body"]
HF_URL = HF["base_url"] + "/chat/completions"

STRUCTURED = load_recorded(
    "google/google__test_structured_output__test_native_output_with_function_tools.json")
STREAMED = load_recorded(
    "google/test_google__test_google_streaming_tool_call_thought_signature.json")
GOOGLE = {"google": {"api_key": "AIzaSyREPLAYKEY-0123456789abcdefghij", "max_retries": 0}}


def create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(config)) as client:
            result = client.chat.completions.create(**kwargs)
            return result.get_final_response() if kwargs.get("stream") else result

    async def main() -> Any:
        async with ai.AsyncClient(with_transport(config)) as client:
            result = await client.chat.completions.create(**kwargs)
            return await result.get_final_response() if kwargs.get("stream") else result

    return asyncio.run(main())


# --- Hugging Face: the limit as the service got it ---------------------------------------------


@pytest.fixture()
def registered_router(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(providers, "_USER", dict(providers._USER))  # restored after the test
    ai.register_provider("hfrouter", "aisuite_like.providers.openai:OpenAIProvider")
    return "hfrouter"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("limit", ["max_tokens", "max_completion_tokens"])
@pytest.mark.parametrize("key", ["huggingface", "openai", "registered"])
def test_huggingface_limit_goes_out_as_recorded(mode: str, limit: str, key: str,
                                                registered_router: str,
                                                httpx2_mock: respx.Router) -> None:
    if key == "registered":
        key = registered_router
    route = httpx2_mock.post(HF_URL).respond(200, json=HF_REPLY)
    config = {key: {"api_key": "hf_test_0123456789", "base_url": HF["base_url"],
                    "max_retries": 0}}
    resp = create(mode, config, model=f"{key}:{HF_BODY['model']}",
                  messages=HF_BODY["messages"], **{limit: 100})
    sent = json.loads(route.calls[0].request.content)
    # what the service got, less the defaults we leave out ("stream": false, "tools": [])
    recorded = {k: v for k, v in HF_BODY.items() if k not in ("stream", "tools")}
    assert sent == recorded
    assert resp.choices[0].finish_reason == "length"  # the service applied the limit


@pytest.mark.parametrize("base_url", [None, "https://api.openai.com/v1",
                                      "https://eu.api.openai.com/v1"])
def test_openai_itself_keeps_max_completion_tokens(base_url: Any,
                                                   httpx2_mock: respx.Router) -> None:
    url = (base_url or "https://api.openai.com/v1") + "/chat/completions"
    route = httpx2_mock.post(url).respond(200, json={
        "id": "c", "object": "chat.completion", "created": 1, "model": "o3", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"},
             "finish_reason": "stop"}]})
    config: dict[str, Any] = {"api_key": "sk-test-0123456789", "max_retries": 0}
    if base_url:
        config["base_url"] = base_url
    create("sync", {"openai": config}, model="openai:o3",
           messages=[{"role": "user", "content": "hi"}], max_tokens=7)
    sent = json.loads(route.calls[0].request.content)
    assert sent["max_completion_tokens"] == 7 and "max_tokens" not in sent


# --- OpenRouter: the limit under the name the caller gave it ------------------------------------

OPENROUTER = load_recorded("openrouter/test_openrouter__test_openrouter_stream_error.json")
OPENROUTER_BODY = OPENROUTER["interactions"][0]["request"]["body"]
OPENROUTER_SSE = OPENROUTER["interactions"][0]["response"]["sse"].encode()
OPENROUTER_URL = OPENROUTER["base_url"] + "/chat/completions"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("limit", ["max_completion_tokens", "max_tokens"])
@pytest.mark.parametrize("key", ["openrouter", "openai"])
def test_openrouter_limit_goes_out_as_the_caller_named_it(mode: str, limit: str, key: str,
                                                         httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENROUTER_URL).respond(
        200, content=OPENROUTER_SSE, headers={"content-type": "text/event-stream"})
    config = {key: {"api_key": "sk-or-test-0123456789", "base_url": OPENROUTER["base_url"],
                    "max_retries": 0}}
    body = OPENROUTER_BODY
    finishes: list[Any] = []

    async def run_async() -> None:
        async with ai.AsyncClient(with_transport(config)) as client:
            stream = await client.chat.completions.create(
                model=f"{key}:{body['model']}", messages=body["messages"], stream=True,
                stream_options=body["stream_options"], **{limit: body["max_completion_tokens"]})
            async for chunk in stream:
                finishes.extend(c.finish_reason for c in chunk.choices)

    with pytest.raises(ai.APIError, match="Token limit reached"):  # the recorded error event
        if mode == "async":
            asyncio.run(run_async())
        else:
            with ai.Client(with_transport(config)) as client:
                for chunk in client.chat.completions.create(
                        model=f"{key}:{body['model']}", messages=body["messages"], stream=True,
                        stream_options=body["stream_options"],
                        **{limit: body["max_completion_tokens"]}):
                    finishes.extend(c.finish_reason for c in chunk.choices)
    sent = json.loads(route.calls[0].request.content)
    if limit == "max_completion_tokens":
        assert sent == body  # exactly what the service received
    else:
        assert sent == {**{k: v for k, v in body.items() if k != "max_completion_tokens"},
                        "max_tokens": body["max_completion_tokens"]}
    assert "length" in finishes  # the service applied the limit


# --- Gemini: thought signatures come back as the service got them ------------------------------


def get_user_country() -> str:
    """"""
    return "Mexico"


def get_country() -> str:
    """"""
    return "Mexico"


def _reply(response: dict[str, Any]) -> respx.MockResponse:
    if "sse" in response:
        return respx.MockResponse(200, content=response["sse"].encode(),
                                  headers={"content-type": "text/event-stream"})
    return respx.MockResponse(200, json=response["body"])


def _mock(router: respx.Router, recording: dict[str, Any], extra: int = 0) -> Any:
    replies = [_reply(i["response"]) for i in recording["interactions"]]
    replies += [replies[-1]] * extra
    return router.post(url__regex=r"generativelanguage\.googleapis\.com/").mock(
        side_effect=replies)


def _function_responses(content: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(id, name, the one value of ``response``): the recorded client named the value
    ``return_value``, we name it ``output``; Gemini reads either."""
    out = []
    for part in content["parts"]:
        fr = part["functionResponse"]
        (value,) = fr["response"].values()
        out.append((fr["id"], fr["name"], value))
    return out


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_structured_output_run_sends_the_signature_back_as_recorded(
        mode: str, httpx2_mock: respx.Router) -> None:
    first, second = (i["request"]["body"] for i in STRUCTURED["interactions"])
    route = _mock(httpx2_mock, STRUCTURED, extra=1)
    config = first["generationConfig"]
    schema = config["responseJsonSchema"]
    resp = create(mode, GOOGLE, model="google:gemini-3-flash-preview",
                  messages=[{"role": "user", "content": first["contents"][0]["parts"][0]["text"]}],
                  tools=[get_user_country], max_turns=3,
                  response_format={"type": "json_schema",
                                   "json_schema": {"name": "CityLocation", "schema": schema}})
    sent = [json.loads(c.request.content) for c in route.calls]
    assert len(sent) == 2
    # turn 2: the model's function call goes back with its signature, as the service got it
    assert sent[1]["contents"][:2] == second["contents"][:2]
    assert _function_responses(sent[1]["contents"][2]) == _function_responses(
        second["contents"][2])
    for body in sent:
        assert body["generationConfig"]["responseJsonSchema"] == schema
        assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert json.loads(resp.content) == {"city": "Mexico City", "country": "Mexico"}

    # Continuing after the structured answer: its text part goes back with its signature,
    # encoded as google-genai encodes a Part's thought_signature bytes.
    replied = STRUCTURED["interactions"][1]["response"]["body"]
    signature = replied["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    create(mode, GOOGLE, model="google:gemini-3-flash-preview",
           messages=[*resp.messages, {"role": "user", "content": "And the next one?"}])
    third = json.loads(route.calls[2].request.content)
    assert third["contents"][3] == {"role": "model", "parts": [{
        "text": replied["candidates"][0]["content"]["parts"][0]["text"],
        "thoughtSignature": base64.urlsafe_b64encode(base64.b64decode(signature)).decode()}]}


@pytest.mark.parametrize("reused_id", [False, True])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_function_call_after_the_structured_answer_keeps_its_signature(
        mode: str, stream: bool, reused_id: bool, httpx2_mock: respx.Router) -> None:
    """The recorded structured-output run, then a new turn in which Gemini calls the tool
    again: that call's signature goes back on its part, the earlier ones too. With
    ``reused_id`` the new call carries the id Gemini gave the recorded one (a replayed reply
    does): the call gets a new id (core/ids.py) and its signature follows it."""
    first = STRUCTURED["interactions"][0]["request"]["body"]
    schema = first["generationConfig"]["responseJsonSchema"]
    response_format = {"type": "json_schema",
                       "json_schema": {"name": "CityLocation", "schema": schema}}
    signature = base64.b64encode(b"signature of the second call").decode()
    recorded_call = STRUCTURED["interactions"][0]["response"]["body"]["candidates"][0][
        "content"]["parts"][0]["functionCall"]
    function_call: dict[str, Any] = {"name": "get_user_country", "args": {}}
    if reused_id:
        function_call["id"] = recorded_call["id"]
    call = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": function_call,
         "thoughtSignature": signature}]}, "finishReason": "STOP", "index": 0}],
        "responseId": "resp-3", "modelVersion": "gemini-3-flash-preview"}
    answer = STRUCTURED["interactions"][1]["response"]["body"]
    bodies = [*(i["response"]["body"] for i in STRUCTURED["interactions"]), call, answer]

    def reply(body: dict[str, Any]) -> respx.MockResponse:
        if stream:
            return respx.MockResponse(200, content=f"data: {json.dumps(body)}\r\n\r\n".encode(),
                                      headers={"content-type": "text/event-stream"})
        return respx.MockResponse(200, json=body)

    route = httpx2_mock.post(url__regex=r"generativelanguage\.googleapis\.com/").mock(
        side_effect=[reply(b) for b in bodies])
    kwargs: dict[str, Any] = {"model": "google:gemini-3-flash-preview", "max_turns": 3,
                              "tools": [get_user_country], "response_format": response_format,
                              "stream": stream}
    resp = create(mode, GOOGLE, **kwargs, messages=[
        {"role": "user", "content": first["contents"][0]["parts"][0]["text"]}])
    create(mode, GOOGLE, **kwargs,
           messages=[*resp.messages, {"role": "user", "content": "And once more?"}])
    sent = json.loads(route.calls[3].request.content)
    calls = [p for c in sent["contents"] for p in c["parts"] if "functionCall" in p]
    recorded = STRUCTURED["interactions"][1]["request"]["body"]["contents"][1]["parts"][0]
    assert calls[0]["thoughtSignature"] == recorded["thoughtSignature"]
    assert calls[-1]["thoughtSignature"] == base64.urlsafe_b64encode(
        b"signature of the second call").decode()
    if reused_id:
        assert calls[-1]["functionCall"]["id"] == recorded_call["id"] + "_2"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_streamed_tool_call_signature_goes_back_as_recorded(mode: str,
                                                            httpx2_mock: respx.Router) -> None:
    first, second = (i["request"]["body"] for i in STREAMED["interactions"])
    route = _mock(httpx2_mock, STREAMED)
    resp = create(mode, GOOGLE, model="google:gemini-3-pro-preview",
                  messages=[{"role": "user", "content": first["contents"][0]["parts"][0]["text"]}],
                  tools=[get_country], max_turns=3, stream=True)
    sent = [json.loads(c.request.content) for c in route.calls]
    assert len(sent) == 2
    ours, recorded = sent[1]["contents"][1], second["contents"][1]
    # The recorded client named the call (Gemini sent no id); ids aside, the part is the same.
    (our_part,), (recorded_part,) = ours["parts"], recorded["parts"]
    assert our_part["thoughtSignature"] == recorded_part["thoughtSignature"]
    assert {k: v for k, v in our_part["functionCall"].items() if k != "id"} == {
        k: v for k, v in recorded_part["functionCall"].items() if k != "id"}
    assert resp.content == "The capital of Mexico is Mexico City."


# --- the openai key behind a proxy -------------------------------------------------------------

_OK = {"id": "c", "object": "chat.completion", "created": 1, "model": "o3", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
GATEWAY = "https://llm-gateway.corp.example/v1"


def _gateway(proxy: Any = None) -> dict[str, Any]:
    config: dict[str, Any] = {"api_key": "sk-test-0123456789", "max_retries": 0,
                              "base_url": GATEWAY}
    if proxy is not None:
        config["openai_proxy"] = proxy
    return {"openai": config}


@pytest.mark.parametrize("proxy", [None, True, False])
@pytest.mark.parametrize("limit", ["max_completion_tokens", "max_tokens"])
def test_a_limit_the_caller_named_goes_out_under_that_name_at_a_gateway(
        limit: str, proxy: Any, httpx2_mock: respx.Router) -> None:
    """At a host that is not OpenAI's, ``max_completion_tokens=`` is not rewritten to
    ``max_tokens`` (which o-series and gpt-5 models refuse); with ``openai_proxy=True`` the
    endpoint is OpenAI's and takes OpenAI's field whatever the caller wrote."""
    route = httpx2_mock.post(f"{GATEWAY}/chat/completions").respond(200, json=_OK)
    create("sync", _gateway(proxy), model="openai:o3",
           messages=[{"role": "user", "content": "hi"}], **{limit: 7})
    sent = json.loads(route.calls[0].request.content)
    field = "max_completion_tokens" if proxy else limit
    assert sent[field] == 7 and len({"max_tokens", "max_completion_tokens"} & set(sent)) == 1


def test_openai_proxy_keeps_openais_model_rules(httpx2_mock: respx.Router) -> None:
    """``openai_proxy=True``: a model OpenAI's table knows not to reason is refused
    ``reasoning_effort`` before sending, and ``prompt_cache="auto"`` sends a key, as at
    api.openai.com; without it the gateway decides."""
    route = httpx2_mock.post(f"{GATEWAY}/chat/completions").respond(200, json=_OK)
    user = [{"role": "user", "content": "hi"}]
    with pytest.raises(ai.UnsupportedParameterError, match="does not reason"):
        create("sync", _gateway(True), model="openai:gpt-4o", messages=user,
               reasoning_effort="high")
    assert not route.calls
    create("sync", _gateway(True), model="openai:gpt-4o", messages=user, prompt_cache="auto")
    assert "prompt_cache_key" in json.loads(route.calls[0].request.content)
    create("sync", _gateway(False), model="openai:gpt-4o", messages=user,
           reasoning_effort="high", prompt_cache="auto")
    sent = json.loads(route.calls[1].request.content)
    assert sent["reasoning_effort"] == "high" and "prompt_cache_key" not in sent


def test_an_unknown_host_warns_once_that_openais_rules_are_off(
        httpx2_mock: respx.Router) -> None:
    """Once per host: the warning names the host and the setting; a host of the table, an
    explicit openai_proxy and a second client at the same host say nothing."""
    import warnings

    from aisuite_like.providers.openai import transport

    host = "warn-once.gateway.example"
    transport._warned_hosts.discard(host)
    config = {"api_key": "sk-test-0123456789", "base_url": f"https://{host}/v1"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            ai.Client({"openai": config})._provider("openai")
        ai.Client({"openai": {**config, "base_url": "https://other.gateway.example/v1",
                              "openai_proxy": False}})._provider("openai")
        ai.Client({"openai": {**config, "base_url": "https://api.groq.com/openai/v1"}}
                  )._provider("openai")
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and host in texts[0] and "openai_proxy" in texts[0]
    assert "sk-test" not in texts[0]


@pytest.mark.parametrize("key,value", [("openai", "yes"), ("groq", True)])
def test_openai_proxy_is_a_bool_of_the_openai_key(key: str, value: Any) -> None:
    with pytest.raises(ai.ConfigurationError, match="openai_proxy"):
        ai.Client({key: {"api_key": "sk-test-0123456789", "openai_proxy": value}}
                  )._provider(key)
