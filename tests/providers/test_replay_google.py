"""Replay of the recorded Gemini exchanges (tests/fixtures/recorded/google) through the real
google-genai SDK with HTTP mocked at httpcore2.

For every generateContent / streamGenerateContent interaction:

- the recorded request is turned back into OpenAI-style messages and arguments (by a small
  reverse translator written here, independent of the code under test) and sent through
  ``create``; the body the SDK put on the wire must equal the recorded body on the parts that
  matter (contents, system instruction, tools, tool config, generation config);
- the recorded response (JSON body, or raw SSE text for streams) is served back and the
  unified response must carry the content, reasoning, tool calls, finish_reason, usage and
  thought signatures computed here from the recorded JSON.

Exchanges of other Gemini endpoints are skipped (see ``_cases``).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
import respx
from support.transports import transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from support.recorded import recorded_files

KEY = "AIzaSyREPLAYKEY-0123456789abcdefghij"
CONFIG = {"google": {"api_key": KEY, "max_retries": 0}}
_ENDPOINT = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)")


def _cases() -> list[Any]:
    cases = []
    for path in recorded_files("google"):
        data = json.loads(path.read_text())
        for i, interaction in enumerate(data["interactions"]):
            match = _ENDPOINT.search(interaction["request"]["url"])
            marks = () if match else (pytest.mark.skip(reason="not a generateContent exchange"),)
            cases.append(pytest.param(data, i, id=f"{path.stem}[{i}]", marks=marks))
    return cases


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


# --- recorded request -> OpenAI-style call (independent reverse translation) ----------------


def _get(d: dict, camel: str) -> Any:
    snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel)
    return d.get(camel, d.get(snake))


def _messages(body: dict) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    system = _get(body, "systemInstruction")
    if system:
        messages.append({"role": "system",
                         "content": "".join(p.get("text", "") for p in system["parts"])})
    for content in body["contents"]:
        parts = content["parts"]
        if content["role"] == "model":
            message: dict[str, Any] = {"role": "assistant", "content": None}
            texts, thoughts, calls, signatures = [], [], [], []
            for part in parts:
                call = _get(part, "functionCall")
                signature = _get(part, "thoughtSignature")
                if call is not None:
                    calls.append({"id": call["id"], "type": "function", "function": {
                        "name": call["name"], "arguments": json.dumps(call.get("args", {}))}})
                    if signature:
                        signatures.append({"part": "function_call", "id": call["id"],
                                           "signature": signature})
                elif part.get("thought"):
                    thoughts.append(part.get("text", ""))
                    if signature:
                        signatures.append({"part": "thought", "signature": signature})
                else:
                    texts.append(part.get("text", ""))
                    if signature:
                        signatures.append({"part": "text", "signature": signature})
            if texts:
                message["content"] = "".join(texts)
            if thoughts:
                message["reasoning_content"] = "".join(thoughts)
            if calls:
                message["tool_calls"] = calls
            if signatures:
                message["provider_specific_fields"] = {"thought_signatures": signatures}
            messages.append(message)
            continue
        for part in parts:
            response = _get(part, "functionResponse")
            if response is not None:
                messages.append({"role": "tool", "tool_call_id": response.get("id"),
                                 "name": response["name"],
                                 "content": json.dumps(response.get("response", {}))})
            else:
                messages.append({"role": "user", "content": part.get("text", "")})
    return messages


def _kwargs(body: dict) -> dict[str, Any]:
    """Tools, tool config and generation config of a recorded request -> create() kwargs."""
    kwargs: dict[str, Any] = {}
    tools = []
    for tool in body.get("tools") or ():
        for decl in _get(tool, "functionDeclarations") or ():
            fn = {"name": decl["name"], "description": decl.get("description", "")}
            schema = _get(decl, "parametersJsonSchema")
            if schema is not None:
                fn["parameters"] = schema
            tools.append({"type": "function", "function": fn})
    if tools:
        kwargs["tools"] = tools
    calling = (_get(body, "toolConfig") or {}).get("functionCallingConfig")
    if calling:
        names = _get(calling, "allowedFunctionNames")
        if calling["mode"] == "NONE":
            kwargs["tool_choice"] = "none"
        elif calling["mode"] == "ANY" and not names:
            kwargs["tool_choice"] = "required"
        elif calling["mode"] == "ANY" and len(names) == 1:
            kwargs["tool_choice"] = {"type": "function", "function": {"name": names[0]}}
        else:  # several allowed names: no portable spelling; pass it natively
            kwargs["tool_config"] = _get(body, "toolConfig")
    gen = dict(_get(body, "generationConfig") or {})
    portable = {"temperature": "temperature", "topP": "top_p", "maxOutputTokens": "max_tokens"}
    for wire_name, name in portable.items():
        if wire_name in gen:
            kwargs[name] = gen.pop(wire_name)
    mime = gen.pop("responseMimeType", None)
    schema = gen.pop("responseJsonSchema", None)
    if schema is not None:
        kwargs["response_format"] = {"type": "json_schema",
                                     "json_schema": {"name": "out", "schema": schema}}
    elif mime == "application/json":
        kwargs["response_format"] = {"type": "json_object"}
    kwargs.update(gen)  # the rest (responseModalities, thinkingConfig) as native arguments
    return kwargs


def _uses_legacy_schema(body: dict) -> bool:
    """Requests declaring tools with the OpenAPI-style ``parameters`` field (type "OBJECT");
    this library sends ``parametersJsonSchema``, so only names and descriptions compare."""
    return any("parameters" in d for t in body.get("tools") or ()
               for d in _get(t, "functionDeclarations") or ())


# --- normalised view of a request body, for comparison ------------------------------------


def _norm_parts(parts: list[dict]) -> list[Any]:
    out: list[Any] = []
    for part in parts:
        call = _get(part, "functionCall")
        response = _get(part, "functionResponse")
        signature = _get(part, "thoughtSignature")
        if call is not None:
            if signature == "skip_thought_signature_validator":
                # Google's documented placeholder, sent on a first call Gemini did not sign;
                # the recorded client sent none there (Gemini 2.x accepts both).
                signature = None
            out.append(("call", call["name"], call.get("args", {}), call.get("id"), signature))
        elif response is not None:
            # The result payload's shape is each client's choice ({"output": ...} here).
            out.append(("result", response["name"], response.get("id")))
        elif part.get("thought"):
            if signature:  # thought parts without a signature need not be sent back
                out.append(("thought", part.get("text", ""), signature))
        elif out and out[-1][0] == "text" and out[-1][2] is None:
            out[-1] = ("text", out[-1][1] + part.get("text", ""), signature)
        else:
            out.append(("text", part.get("text", ""), signature))
    return out


def _norm_contents(body: dict) -> list[tuple[str, list[Any]]]:
    merged: list[tuple[str, list[Any]]] = []
    for content in body["contents"]:
        parts = _norm_parts(content["parts"])
        if merged and merged[-1][0] == content["role"]:
            merged[-1] = (content["role"], merged[-1][1] + parts)
        else:
            merged.append((content["role"], parts))
    return merged


def _norm_tools(body: dict, legacy: bool) -> list[Any]:
    out = []
    for tool in body.get("tools") or ():
        for d in _get(tool, "functionDeclarations") or ():
            schema = None if legacy else _get(d, "parametersJsonSchema")
            out.append((d["name"], d.get("description", ""), schema))
    return out


def _assert_request_matches(sent: dict, recorded: dict) -> None:
    assert _norm_contents(sent) == _norm_contents(recorded)
    system = _get(recorded, "systemInstruction")
    assert (_get(sent, "systemInstruction") or {}).get("parts") == (
        system["parts"] if system else None)
    legacy = _uses_legacy_schema(recorded)
    assert _norm_tools(sent, legacy) == _norm_tools(recorded, legacy)
    assert sent.get("toolConfig") == _get(recorded, "toolConfig")
    assert sent.get("generationConfig", {}) == (_get(recorded, "generationConfig") or {})


# --- expectations from the recorded response -----------------------------------------------

_FILTERED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}


def _sse_events(text: str) -> list[dict]:
    events = []
    for block in re.split(r"\r?\n\r?\n", text):
        block = block.strip()
        if block.startswith("data: "):
            events.append(json.loads(block[len("data: "):]))
    return events


def _merged_reply(events: list[dict]) -> dict:
    """SSE events -> one response body: parts concatenated, last finishReason and usage."""
    parts: list[dict] = []
    finish = None
    usage = None
    for e in events:
        for cand in e.get("candidates", []):
            parts.extend(cand.get("content", {}).get("parts", []))
            finish = cand.get("finishReason", finish)
        usage = e.get("usageMetadata", usage)
    cand = {"content": {"parts": parts}, "finishReason": finish}
    return {"candidates": [cand], "usageMetadata": usage,
            "responseId": events[-1].get("responseId"), "modelVersion": events[-1].get("modelVersion")}


def _assert_reply(resp: ai.ChatCompletionResponse, body: dict, model: str) -> None:
    assert resp.provider == "google"
    assert resp.model == (body.get("modelVersion") or model)
    cand = body["candidates"][0]
    parts = cand.get("content", {}).get("parts", [])
    message = resp.choices[0].message
    texts = [p["text"] for p in parts if "text" in p and not p.get("thought")]
    thoughts = [p["text"] for p in parts if p.get("thought")]
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    assert message.content == ("".join(texts) or None)
    assert message.reasoning_content == ("".join(thoughts) or None)
    got_calls = message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in got_calls] == [
        (c["name"], c.get("args", {})) for c in calls]
    for got, call in zip(got_calls, calls):
        assert got.id == call["id"] if "id" in call else got.id.startswith("call_")
    assert len({c.id for c in got_calls}) == len(got_calls)
    ids = iter(c.id for c in got_calls)
    signatures = []
    for p in parts:
        if "thoughtSignature" in p:
            kind = ("function_call" if "functionCall" in p else
                    "thought" if p.get("thought") else "text")
            entry = {"part": kind, "signature": p["thoughtSignature"]}
            if kind == "function_call":
                entry = {"part": kind, "id": next(ids), "signature": p["thoughtSignature"]}
            signatures.append(entry)
        elif "functionCall" in p:
            next(ids)
    psf = message.provider_specific_fields or {}
    assert psf.get("thought_signatures", []) == signatures
    native = cand.get("finishReason")
    expected_finish = ("length" if native == "MAX_TOKENS" else "tool_calls" if calls else
                       "content_filter" if native in _FILTERED else "stop")
    assert resp.choices[0].finish_reason == expected_finish
    assert resp.choices[0].native_finish_reason == native
    meta = body["usageMetadata"]
    prompt = meta.get("promptTokenCount", 0) + meta.get("toolUsePromptTokenCount", 0)
    completion = meta.get("candidatesTokenCount", 0) + meta.get("thoughtsTokenCount", 0)
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (prompt, completion)
    assert resp.usage.total_tokens == meta["totalTokenCount"]
    if "thoughtsTokenCount" in meta:
        assert resp.usage.completion_tokens_details.reasoning_tokens == meta["thoughtsTokenCount"]
    if "cachedContentTokenCount" in meta:
        assert resp.usage.prompt_tokens_details.cached_tokens == meta["cachedContentTokenCount"]


# --- the replay ----------------------------------------------------------------------------


def _run(mode: str, kwargs: dict[str, Any]) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(CONFIG)) as client:
            result = client.chat.completions.create(**kwargs)
            return result.get_final_response() if kwargs.get("stream") else result

    async def run() -> Any:
        async with ai.AsyncClient(with_transport(CONFIG)) as client:
            result = await client.chat.completions.create(**kwargs)
            return await result.get_final_response() if kwargs.get("stream") else result

    return asyncio.run(run())


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fixture, index", _cases())
def test_recorded_exchange(fixture: dict, index: int, mode: str,
                           httpx2_mock: respx.Router) -> None:
    interaction = fixture["interactions"][index]
    request, response = interaction["request"], interaction["response"]
    match = _ENDPOINT.search(request["url"])
    model, method = match["model"], match["method"]
    route = httpx2_mock.post(url__regex=rf"https://generativelanguage\.googleapis\.com/v1[a-z0-9]*"
                                        rf"/models/{re.escape(model)}:{method}")
    status = response["status"]
    if "sse" in response:
        route.respond(status, content=response["sse"].encode(),
                      headers={"content-type": "text/event-stream"})
    else:
        route.respond(status, json=response["body"])
    kwargs = {"model": f"google:{model}", "messages": _messages(request["body"]),
              "stream": method == "streamGenerateContent", **_kwargs(request["body"])}
    if status != 200:
        error = response["body"]["error"]
        with pytest.raises(ai.APIError) as info:
            _run(mode, kwargs)
        assert info.value.status_code == status
        assert error["message"] in str(info.value)
        if status == 404:
            assert isinstance(info.value, ai.NotFoundError)
        return
    resp = _run(mode, kwargs)
    _assert_request_matches(json.loads(route.calls[0].request.content), request["body"])
    body = _merged_reply(_sse_events(response["sse"])) if "sse" in response else response["body"]
    _assert_reply(resp, body, model)


def test_every_recorded_google_exchange_is_covered() -> None:
    """The fixture folder is not empty and every interaction is a generateContent call (so
    nothing is silently skipped)."""
    cases = _cases()
    assert len(cases) >= 39
    assert all(not c.marks for c in cases)
