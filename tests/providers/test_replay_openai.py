"""Replay of the recorded OpenAI and OpenAI-compatible exchanges (tests/support/recorded.py).

Each chat-completions interaction is replayed through the real SDK (HTTP mocked at httpcore2
with the recorded reply): the request built from the recorded body must go out as exactly that
body, and the reply must parse into the unified types with the content, reasoning, tool calls,
finish_reason and usage computed HERE, independently, from the recorded JSON. Streamed replies
are accumulated and compared the same way; recorded HTTP errors and error events must raise
the typed error. Exchanges of other APIs (e.g. the Responses API) are skipped with a reason.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

import pytest
import respx
from support.openai_helpers import httpx2_mock  # noqa: F401  (the fixture)
from support.transports import native, provider_config, transport  # noqa: F401  (the fixture)

import aisuite_like as ai
from aisuite_like.providers import ChatRequest
from aisuite_like.providers.openai import OpenAIProvider, parse_response
from support.recorded import recorded_files

SERVICES = ("openai", "groq", "openrouter", "mistral", "deepseek", "cerebras", "huggingface",
            "ollama")


def _cases() -> list[Any]:
    cases = []
    for service in SERVICES:
        for path in recorded_files(service):
            data = json.loads(path.read_text())
            for n, interaction in enumerate(data["interactions"]):
                url = interaction["request"]["url"].split("#")[0]
                case_id = f"{service}/{path.stem[:70]}#{n}"
                marks = ()
                if not url.endswith("/chat/completions"):
                    marks = pytest.mark.skip(reason=f"not a chat-completions exchange: {url}")
                cases.append(pytest.param(service, url, interaction, id=case_id, marks=marks))
    return cases


CASES = _cases()


def test_fixtures_are_present() -> None:
    assert len(CASES) > 150, "recorded fixtures missing: see tests/support/recorded.py"


# --- independent expectations from the recorded JSON ---------------------------------------

_NORMAL = {"stop", "length", "tool_calls", "content_filter"}


def _expected_finish(native: Optional[str], has_calls: bool) -> Optional[str]:
    if native is None:
        return None
    if has_calls and native != "length":
        return "tool_calls"
    return native if native in _NORMAL else "stop"


def _text_and_thinking(content: Any) -> tuple[str, str]:
    if isinstance(content, list):
        text = "".join(p["text"] for p in content if p.get("type") == "text")
        thinking = "".join(t["text"] for p in content if p.get("type") == "thinking"
                           for t in p["thinking"])
        return text, thinking
    return content or "", ""


def _expected_usage(u: Optional[dict]) -> Optional[tuple]:
    if not u:
        return None
    cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens")
    for name in ("prompt_cache_hit_tokens", "num_cached_tokens", "cached_tokens"):
        if cached is None:  # DeepSeek's, Mistral's and Hugging Face's names for cache reads
            cached = u.get(name)
    reasoning = (u.get("completion_tokens_details") or {}).get("reasoning_tokens")
    return (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"], cached, reasoning)


def _usage_tuple(usage: Optional[ai.Usage]) -> Optional[tuple]:
    if usage is None:
        return None
    return (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens,
            usage.prompt_tokens_details and usage.prompt_tokens_details.cached_tokens,
            usage.completion_tokens_details and usage.completion_tokens_details.reasoning_tokens)


def _expected_from_body(body: dict) -> list[dict]:
    out = []
    for c in body["choices"]:
        m = c["message"]
        text, thinking = _text_and_thinking(m.get("content"))
        # A call without arguments (recorded from OpenRouter) means no arguments: "{}".
        calls = [(tc["id"], tc["function"]["name"], tc["function"].get("arguments") or "{}")
                 for tc in m.get("tool_calls") or []]
        out.append({"content": text or None,
                    "reasoning": m.get("reasoning_content") or m.get("reasoning") or thinking
                    or None,
                    "calls": calls, "finish": _expected_finish(c["finish_reason"], bool(calls))})
    return out


def _expected_from_sse(text: str) -> tuple[list[dict], Optional[dict], Optional[dict]]:
    """(choices, usage, error event) folded from the raw SSE text."""
    choices: dict[int, dict] = {}
    usage = error = None
    for line in text.split("\n"):
        if not line.startswith("data: ") or line[6:].strip() == "[DONE]":
            continue
        event = json.loads(line[6:])
        if event.get("error"):
            error = event["error"]
            break
        for c in event.get("choices") or []:
            st = choices.setdefault(c["index"], {"content": "", "reasoning": "", "calls": {},
                                                 "native": None})
            d = c.get("delta") or {}
            text_part, thinking = _text_and_thinking(d.get("content"))
            st["content"] += text_part
            st["reasoning"] += d.get("reasoning_content") or d.get("reasoning") or thinking
            for tc in d.get("tool_calls") or []:
                call = st["calls"].setdefault(tc["index"], {"id": None, "name": None,
                                                            "args": ""})
                call["id"] = call["id"] or tc.get("id")
                fn = tc.get("function") or {}
                call["name"] = call["name"] or fn.get("name")
                call["args"] += fn.get("arguments") or ""
            if c.get("finish_reason"):
                st["native"] = c["finish_reason"]
        if event.get("usage"):
            usage = event["usage"]
    out = []
    for _, st in sorted(choices.items()):
        calls = [(c["id"], c["name"], c["args"] or "{}") for _, c in sorted(st["calls"].items())]
        out.append({"content": st["content"] or None, "reasoning": st["reasoning"] or None,
                    "calls": calls, "finish": _expected_finish(st["native"], bool(calls))})
    return out, usage, error


def _actual(resp: ai.ChatCompletionResponse) -> list[dict]:
    return [{"content": c.message.content, "reasoning": c.message.reasoning_content,
             "calls": [(t.id, t.function.name, t.function.arguments)
                       for t in c.message.tool_calls or []],
             "finish": c.finish_reason} for c in resp.choices]


# --- replay through the SDK ------------------------------------------------------------------

_FIELDS = ("tools", "tool_choice", "stream_options")


def _request(body: dict) -> ChatRequest:
    """The recorded body as a ChatRequest: messages and tools as given, every other key as a
    provider-native argument (so the wire body must come out identical)."""
    extra = {k: v for k, v in body.items()
             if k not in ("model", "messages", "stream", *_FIELDS)}
    return ChatRequest(model=body["model"], messages=body["messages"],
                       stream=bool(body.get("stream")), extra=extra,
                       **{k: body[k] for k in _FIELDS if k in body})


def _provider(service: str, url: str) -> OpenAIProvider:
    base_url = url[: -len("/chat/completions")]
    return OpenAIProvider(service=service, **provider_config(service, {
        "api_key": "recorded-key", "base_url": base_url, "max_retries": 0}))


def _mock(router: respx.Router, url: str, response: dict) -> respx.Route:
    headers = {k: v for k, v in response.get("headers", {}).items()}
    if "sse" in response:
        return router.post(url).respond(response["status"], content=response["sse"].encode(),
                                        headers=headers)
    return router.post(url).respond(response["status"], json=response["body"],
                                    headers={k: v for k, v in headers.items()
                                             if k != "content-type"})


def _run(provider: OpenAIProvider, request: ChatRequest, mode: str) -> tuple[Any, list]:
    """(response or raised error, chunks received)."""
    chunks: list = []
    if mode == "sync":
        try:
            if request.stream:
                stream = ai.Stream(provider.stream(request))
                try:
                    for c in stream:
                        chunks.append(c)
                finally:
                    stream.close()
                return stream.get_final_response(), chunks
            return provider.complete(request), chunks
        except ai.APIError as exc:
            return exc, chunks

    async def run() -> Any:
        try:
            if request.stream:
                stream = ai.AsyncStream(provider.astream(request))
                async for c in stream:
                    chunks.append(c)
                return await stream.get_final_response()
            return await provider.acomplete(request)
        except ai.APIError as exc:
            return exc
        finally:
            await provider.aclose()

    return asyncio.run(run()), chunks


_STATUS_ERRORS = {400: ai.BadRequestError, 401: ai.AuthenticationError,
                  404: ai.NotFoundError, 429: ai.RateLimitError}


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("service, url, interaction", CASES)
def test_replay(service: str, url: str, interaction: dict, mode: str,
                httpx2_mock: respx.Router) -> None:
    body, response = interaction["request"]["body"], interaction["response"]
    route = _mock(httpx2_mock, url, response)
    result, chunks = _run(_provider(service, url), _request(body), mode)

    # The request went out as recorded (messages, tools and every other field; an explicit
    # "stream": false is the default and is not sent).
    recorded = {k: v for k, v in body.items() if not (k == "stream" and v is False)}
    assert json.loads(route.calls[0].request.content) == recorded

    status = response["status"]
    if status != 200:
        assert type(result) is _STATUS_ERRORS[status], result
        assert result.status_code == status and result.provider == service
        if status == 429 and "retry-after" in response.get("headers", {}):
            assert result.retry_after == float(response["headers"]["retry-after"])
        return
    if "sse" in response:
        expected, usage, error = _expected_from_sse(response["sse"])
        if error is not None:
            assert isinstance(result, ai.APIError), result
            assert error["message"] in str(result)
            assert result.provider == service
            if not native():  # the SDK's exception, as its Stream raises it, is __cause__
                import openai

                assert type(result.__cause__) is openai.APIError, repr(result.__cause__)
                assert result.__cause__.body == error
            received = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            assert received == (expected[0]["content"] or "") if expected else True
            return
        assert isinstance(result, ai.ChatCompletionResponse), result
        assert _actual(result) == expected
        assert _usage_tuple(result.usage) == _expected_usage(usage)
        assert result.provider == service
        return
    assert isinstance(result, ai.ChatCompletionResponse), result
    assert _actual(result) == _expected_from_body(response["body"])
    assert _usage_tuple(result.usage) == _expected_usage(response["body"].get("usage"))
    assert result.id == response["body"]["id"] and result.model == response["body"]["model"]
    assert result.provider == service


@pytest.mark.parametrize("service, url, interaction",
                         [c for c in CASES if "body" in c.values[2]["response"]
                          and c.values[2]["response"]["status"] == 200])
def test_recorded_reply_round_trips_as_next_request(service: str, url: str,
                                                    interaction: dict) -> None:
    """The parsed assistant message, dumped and sent back, is a valid wire message: the
    reply's content and tool calls survive, and no field of ours leaks to the wire."""
    from aisuite_like.providers.openai import SERVICES, build_create_kwargs

    resp = parse_response(interaction["response"]["body"], service)
    message = resp.choices[0].message.model_dump(exclude_none=True)
    kwargs = build_create_kwargs(
        ChatRequest(model="m", messages=[{"role": "user", "content": "q"}, message]),
        SERVICES[service], frozenset())
    sent = kwargs["messages"][1]
    assert "provider_specific_fields" not in sent
    assert sent.get("content") == resp.choices[0].message.content
    assert [tc["id"] for tc in sent.get("tool_calls", [])] == [
        tc.id for tc in resp.choices[0].message.tool_calls or []]
    if service != "deepseek":
        assert "reasoning_content" not in sent


# --- the recorded requests as a caller writes them ------------------------------------------

# (Mistral's recorded tools leave out "type": "function", which create refuses, as the OpenAI
# SDK's types do.)
_CHAT_CASES = [c for c in CASES if not c.marks and all(
    "type" in t for t in c.values[2]["request"]["body"].get("tools", ()))]


@pytest.mark.parametrize("service, url, interaction", _CHAT_CASES)
def test_recorded_request_passes_create_and_its_native_fields_go_out(
        service: str, url: str, interaction: dict, httpx2_mock: respx.Router) -> None:
    """A recorded body given to ``create`` as keyword arguments is sent: no field of the
    service's own API (Groq's ``reasoning_format``, OpenRouter's ``preset`` / ``usage``,
    Cerebras' ``clear_thinking``, ...) is refused as a misspelt portable argument, and each
    goes out as given."""
    from aisuite_like.core.checks import KNOWN_KEYWORDS

    body, response = interaction["request"]["body"], interaction["response"]
    route = _mock(httpx2_mock, url, response)
    kwargs = {k: v for k, v in body.items() if k != "model"}
    config = {"api_key": "recorded-key", "base_url": url[: -len("/chat/completions")],
              "max_retries": 0}
    with ai.Client({service: config}) as client:
        try:
            result = client.chat.completions.create(model=f"{service}:{body['model']}",
                                                    **kwargs)
            if body.get("stream"):
                list(result)
        except ai.APIError:
            pass  # a recorded error reply: the request went out, which is what is checked
    sent = json.loads(route.calls[0].request.content)
    native = {k: v for k, v in body.items() if k not in KNOWN_KEYWORDS and k != "messages"}
    assert {k: sent.get(k) for k in native} == native
