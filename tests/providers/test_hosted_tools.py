"""Hosted tools (``ai.tools.WebSearch`` / ``CodeExecution`` / ``WebFetch``) through the real
SDKs, HTTP mocked at httpcore2, the replies taken from pydantic-ai's recorded exchanges
(tests/fixtures/recorded/hosted): each family's own server tool goes on the wire beside the
function tools, the citations come back as ``message.annotations`` in OpenAI's
``url_citation`` shape (the same on every family, streamed or not), each hosted call is a
hosted ``ToolEvent``, and ``usage.server_tool_use`` counts them (priced in ``usage.cost``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import respx

import aisuite_like as ai
from support.recorded import RECORDED

ANT_KEY = "sk-ant-test-hosted-0123456789abcdef"
OPENAI_KEY = "sk-test-hosted-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-hosted-0123456789abcdef"
CONFIGS = {"anthropic": {"api_key": ANT_KEY, "max_retries": 0},
           "openai": {"api_key": OPENAI_KEY, "max_retries": 0},
           "google": {"api_key": GEMINI_KEY, "max_retries": 0}}
ANTHROPIC = "https://api.anthropic.com/v1/messages"
RESPONSES = "https://api.openai.com/v1/responses"
CHAT = "https://api.openai.com/v1/chat/completions"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/"
QUESTION = [{"role": "user", "content": "What is the weather in San Francisco today?"}]


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def recorded(name: str, i: int = 0) -> dict[str, Any]:
    provider = name.split("__", 1)[0].removeprefix("test_").split("_")[0]
    data = json.loads((RECORDED / "hosted" / provider / f"{name}.json").read_text())
    return data["interactions"][i]


def reply_of(interaction: dict[str, Any]) -> respx.MockResponse:
    response = interaction["response"]
    if "sse" in response:
        return respx.MockResponse(200, content=response["sse"].encode(),
                                  headers={"content-type": "text/event-stream"})
    return respx.MockResponse(200, json=response["body"])


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


def create(mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(CONFIGS) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(CONFIGS) as aclient:
            return await aclient.chat.completions.create(**kwargs)
    return asyncio.run(run())


def streamed(**kwargs: Any) -> tuple[list[Any], Any]:
    with ai.Client(CONFIGS) as client:
        stream = client.chat.completions.create(stream=True, **kwargs)
        with stream:
            chunks = list(stream)
        return chunks, stream.get_final_response()


def check_citations(message: Any) -> None:
    """The shape every family's citations have: OpenAI's chat ``url_citation`` annotations,
    each pointing at a span of the message's content."""
    assert message.annotations, "no citations"
    for annotation in message.annotations:
        assert set(annotation) == {"type", "url_citation"}
        assert annotation["type"] == "url_citation"
        cited = annotation["url_citation"]
        assert set(cited) == {"url", "title", "start_index", "end_index"}
        assert cited["url"].startswith("https://") and isinstance(cited["title"], str)
        assert 0 <= cited["start_index"] < cited["end_index"] <= len(message.content)


def sent_tools(route: Any, key: str = "tools") -> Any:
    return json.loads(route.calls.last.request.content).get(key)


# --- anthropic ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_anthropic_web_search_from_a_recorded_reply(mode: str,
                                                    httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_anthropic__test_anthropic_web_search_tool")
    route = httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(interaction))
    resp = create(mode, model="anthropic:claude-sonnet-4-0", messages=QUESTION,
                  tools=[ai.tools.WebSearch(max_uses=3, blocked_domains=["example.com"],
                                            user_location={"city": "San Francisco",
                                                           "country": "US"}), get_weather])
    tools = sent_tools(route)
    assert tools[0]["name"] == "get_weather"
    assert tools[1] == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3,
                        "blocked_domains": ["example.com"], "user_location": {
                            "type": "approximate", "city": "San Francisco", "country": "US"}}
    recorded_tool = interaction["request"]["body"]["tools"][0]  # what pydantic-ai sent
    assert {k: v for k, v in recorded_tool.items() if v is not None} == \
        {"name": "web_search", "type": "web_search_20250305"}
    message = resp.choices[0].message
    check_citations(message)
    body = interaction["response"]["body"]
    cited_blocks = [b for b in body["content"] if b["type"] == "text" and b.get("citations")]
    assert len(message.annotations) == sum(len(b["citations"]) for b in cited_blocks)
    first = message.annotations[0]["url_citation"]
    assert message.content[first["start_index"]:first["end_index"]] == cited_blocks[0]["text"]
    assert first["url"] == cited_blocks[0]["citations"][0]["url"]
    (event,) = resp.tool_events
    assert event.hosted and event.name == "web_search"
    assert event.arguments == {"query": "San Francisco weather today"}
    assert "accuweather.com" in event.result
    assert resp.usage.server_tool_use.web_search_requests == 1
    import genai_prices

    def price(**searches: int) -> float:
        return float(genai_prices.calc_price(genai_prices.Usage(
            input_tokens=resp.usage.prompt_tokens, output_tokens=resp.usage.completion_tokens,
            **searches), resp.model, provider_id="anthropic").total_price)
    assert resp.usage.cost == pytest.approx(price(web_searches=1))
    assert resp.usage.cost == pytest.approx(price() + 0.01)  # $10 per 1,000 searches


def test_anthropic_web_search_stream_carries_the_citations(httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_anthropic__test_anthropic_web_search_tool_stream")
    httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(interaction))
    chunks, final = streamed(model="anthropic:claude-sonnet-4-0", messages=QUESTION,
                             tools=[ai.tools.WebSearch()])
    check_citations(final.choices[0].message)
    assert any((c.choices and (c.choices[0].delta.model_extra or {}).get("annotations"))
               for c in chunks)
    assert [e.name for e in final.tool_events] == ["web_search", "web_search"]
    assert final.tool_events[0].arguments == {"query": "top world news today"}
    assert final.usage.server_tool_use.web_search_requests == 2  # as message_delta says


def test_anthropic_web_fetch_and_code_execution_with_their_betas(
        httpx2_mock: respx.Router) -> None:
    fetch = recorded("test_anthropic__test_anthropic_web_fetch_tool")
    code = recorded("test_anthropic__test_anthropic_code_execution_tool")
    route = httpx2_mock.post(ANTHROPIC).mock(side_effect=[reply_of(fetch), reply_of(code)])
    resp = create("sync", model="anthropic:claude-sonnet-4-5", messages=[
        {"role": "user", "content": "What is https://ai.pydantic.dev about?"}],
        tools=[ai.tools.WebFetch(allowed_domains=["ai.pydantic.dev"])])
    assert sent_tools(route) == [{"type": "web_fetch_20250910", "name": "web_fetch",
                                  "allowed_domains": ["ai.pydantic.dev"]}]
    assert route.calls.last.request.headers["anthropic-beta"] == "web-fetch-2025-09-10"
    assert [(e.name, e.arguments) for e in resp.tool_events] == [
        ("web_fetch", {"url": "https://ai.pydantic.dev"})]
    assert resp.usage.server_tool_use.web_fetch_requests == 1
    resp = create("sync", model="anthropic:claude-sonnet-4-5", messages=[
        {"role": "user", "content": "What is 3 * 12390?"}], tools=[ai.tools.CodeExecution()])
    assert sent_tools(route) == [{"type": "code_execution_20250825", "name": "code_execution"}]
    assert route.calls.last.request.headers["anthropic-beta"] == "code-execution-2025-08-25"
    (event,) = resp.tool_events
    assert event.name == "bash_code_execution" and event.result.strip() == "37170"
    assert event.arguments == {"command": "echo $((3 * 12390))"}
    assert resp.usage.server_tool_use.code_execution_requests == 1
    assert "37,170" in resp.choices[0].message.content


def test_anthropic_code_execution_stream(httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_anthropic__test_anthropic_code_execution_tool_stream")
    httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(interaction))
    _, final = streamed(model="anthropic:claude-sonnet-4-5", messages=[
        {"role": "user", "content": "compute"}], tools=[ai.tools.CodeExecution()])
    assert final.tool_events and all(e.hosted for e in final.tool_events)
    assert final.tool_events[0].name.endswith("code_execution")
    assert final.usage.server_tool_use.code_execution_requests >= 1


# --- google -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gemini_google_search_from_a_recorded_reply(mode: str,
                                                    httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_google__test_google_model_web_search_tool")
    route = httpx2_mock.post(GEMINI + "gemini-2.5-pro:generateContent").mock(
        return_value=reply_of(interaction))
    resp = create(mode, model="google:gemini-2.5-pro", messages=QUESTION,
                  tools=[ai.tools.WebSearch()])
    assert sent_tools(route) == interaction["request"]["body"]["tools"] == [
        {"googleSearch": {}}]
    message = resp.choices[0].message
    check_citations(message)
    meta = interaction["response"]["body"]["candidates"][0]["groundingMetadata"]
    support = meta["groundingSupports"][0]
    first = message.annotations[0]["url_citation"]
    assert message.content[first["start_index"]:first["end_index"]] == \
        support["segment"]["text"]
    chunk = meta["groundingChunks"][support["groundingChunkIndices"][0]]["web"]
    assert (first["url"], first["title"]) == (chunk["uri"], chunk["title"])
    assert [e.arguments for e in resp.tool_events] == [
        {"query": q} for q in meta["webSearchQueries"]]
    assert resp.usage.server_tool_use.web_search_requests == len(meta["webSearchQueries"])


def test_gemini_offsets_are_characters_not_bytes(httpx2_mock: respx.Router) -> None:
    text = "Zürich: ☀ 21°C. Genève: 19°C."
    second = "Genève: 19°C."
    start = len(text.encode()) - len(second.encode())
    httpx2_mock.post(GEMINI + "gemini-2.5-flash:generateContent").respond(200, json={
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "STOP", "groundingMetadata": {
                            "webSearchQueries": ["weather zurich geneva"],
                            "groundingChunks": [{"web": {"uri": "https://meteo.example/ge",
                                                         "title": "meteo"}}],
                            "groundingSupports": [{"segment": {
                                "startIndex": start, "endIndex": len(text.encode()),
                                "text": second}, "groundingChunkIndices": [0]}]}}]})
    resp = create("sync", model="google:gemini-2.5-flash", messages=QUESTION,
                  tools=[ai.tools.WebSearch()])
    cited = resp.choices[0].message.annotations[0]["url_citation"]
    assert resp.choices[0].message.content[cited["start_index"]:cited["end_index"]] == second


def test_gemini_stream_citations(httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_google__test_google_model_web_search_tool_stream")
    httpx2_mock.post(GEMINI + "gemini-2.5-pro:streamGenerateContent").mock(
        return_value=reply_of(interaction))
    _, final = streamed(model="google:gemini-2.5-pro", messages=QUESTION,
                        tools=[ai.tools.WebSearch()])
    message = final.choices[0].message
    check_citations(message)
    events = [json.loads(line[5:]) for line in interaction["response"]["sse"].splitlines()
              if line.startswith("data:")]
    support = events[-1]["candidates"][0]["groundingMetadata"]["groundingSupports"][0]
    first = message.annotations[0]["url_citation"]
    assert message.content[first["start_index"]:first["end_index"]] == \
        support["segment"]["text"]
    assert final.tool_events and final.tool_events[0].name == "web_search"


def test_gemini_url_context_and_code_execution(httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_google__test_google_model_web_fetch_tool")
    route = httpx2_mock.post(GEMINI + "gemini-2.5-flash:generateContent").mock(side_effect=[
        reply_of(interaction),
        respx.MockResponse(200, json={"candidates": [{"content": {"role": "model", "parts": [
            {"executableCode": {"language": "PYTHON", "code": "print(3 * 12390)"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "37170\n"}},
            {"text": "3 * 12390 = 37170"}]}, "finishReason": "STOP"}]})])
    resp = create("sync", model="google:gemini-2.5-flash", messages=[
        {"role": "user", "content": "What is https://ai.pydantic.dev about?"}],
        tools=[ai.tools.WebFetch()])
    assert sent_tools(route) == [{"urlContext": {}}]
    check_citations(resp.choices[0].message)
    assert [(e.name, e.arguments["url"]) for e in resp.tool_events] == [
        ("web_fetch", "https://ai.pydantic.dev")]
    resp = create("sync", model="google:gemini-2.5-flash", messages=QUESTION,
                  tools=[ai.tools.CodeExecution(), get_weather])
    tools = sent_tools(route)
    assert tools[-1] == {"codeExecution": {}} and "functionDeclarations" in tools[0]
    (event,) = resp.tool_events
    assert (event.name, event.arguments["code"], event.result) == (
        "code_execution", "print(3 * 12390)", "37170\n")
    assert resp.usage is None or resp.usage.server_tool_use is None or \
        resp.usage.server_tool_use.code_execution_requests == 1


# --- openai -------------------------------------------------------------------------------


RESPONSES_REPLY = {
    "id": "resp_1", "object": "response", "created_at": 1760000000, "status": "completed",
    "model": "gpt-5", "output": [
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "weather San Francisco today",
                    "sources": [{"type": "url", "url": "https://weather.example/sf"}]}},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "logprobs": [],
                      "text": "It is 69°F and sunny in San Francisco.",
                      "annotations": [{"type": "url_citation", "start_index": 0,
                                       "end_index": 38, "url": "https://weather.example/sf",
                                       "title": "SF weather"}]}]}],
    "usage": {"input_tokens": 300, "input_tokens_details": {"cached_tokens": 0},
              "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 0},
              "total_tokens": 340}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_openai_chat_with_web_search_goes_over_the_responses_api(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(RESPONSES).respond(200, json=RESPONSES_REPLY)
    resp = create(mode, model="openai:gpt-5", messages=QUESTION, tools=[
        ai.tools.WebSearch(allowed_domains=["weather.example"],
                           user_location=ai.tools.UserLocation(city="San Francisco",
                                                               country="US")),
        ai.tools.CodeExecution(), get_weather])
    tools = sent_tools(route)
    assert tools[0]["type"] == "function" and tools[0]["name"] == "get_weather"
    assert tools[1:] == [
        {"type": "web_search", "filters": {"allowed_domains": ["weather.example"]},
         "user_location": {"type": "approximate", "city": "San Francisco", "country": "US"}},
        {"type": "code_interpreter", "container": {"type": "auto"}}]
    message = resp.choices[0].message
    check_citations(message)
    assert message.annotations == [{"type": "url_citation", "url_citation": {
        "end_index": 38, "start_index": 0, "title": "SF weather",
        "url": "https://weather.example/sf"}}]
    (event,) = resp.tool_events
    assert event.name == "web_search" and event.arguments["query"].startswith("weather")
    assert event.result == "https://weather.example/sf"
    assert resp.usage.server_tool_use.web_search_requests == 1


def test_openai_recorded_web_search_and_code_interpreter(httpx2_mock: respx.Router) -> None:
    search = recorded("test_openai_responses__test_openai_responses_model_web_search_tool")
    code = recorded(
        "test_openai_responses__test_openai_responses_thinking_with_code_execution_tool")
    route = httpx2_mock.post(RESPONSES).mock(side_effect=[reply_of(search), reply_of(code)])
    resp = create("sync", model="openai:gpt-5", messages=QUESTION,
                  tools=[ai.tools.WebSearch()])
    assert sent_tools(route) == [{"type": "web_search"}]
    assert [(e.name, e.arguments) for e in resp.tool_events] == [
        ("web_search", {"query": "weather: San Francisco, CA", "type": "search"})]
    assert "San Francisco" in resp.choices[0].message.content
    resp = create("sync", model="openai:gpt-5", messages=[
        {"role": "user", "content": "65465-6544 * 65464-6+1.02255"}],
        tools=[ai.tools.CodeExecution()])
    assert sent_tools(route) == code["request"]["body"]["tools"]
    (event,) = resp.tool_events
    assert event.name == "code_execution" and event.result == "-428330955.97745"
    assert resp.usage.server_tool_use.code_execution_requests == 1


def test_openai_responses_stream_carries_the_citations(httpx2_mock: respx.Router) -> None:
    text = RESPONSES_REPLY["output"][1]["content"][0]["text"]
    annotation = RESPONSES_REPLY["output"][1]["content"][0]["annotations"][0]
    events = [
        {"type": "response.created", "response": {**RESPONSES_REPLY, "output": [],
                                                  "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0,
         "item": RESPONSES_REPLY["output"][0]},
        {"type": "response.content_part.added", "output_index": 1, "content_index": 0,
         "item_id": "msg_1", "part": {"type": "output_text", "text": "", "annotations": []}},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
         "content_index": 0, "delta": text[:10]},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
         "content_index": 0, "delta": text[10:]},
        {"type": "response.output_text.annotation.added", "item_id": "msg_1",
         "output_index": 1, "content_index": 0, "annotation_index": 0,
         "annotation": annotation},
        {"type": "response.output_item.done", "output_index": 1,
         "item": RESPONSES_REPLY["output"][1]},
        {"type": "response.completed", "response": RESPONSES_REPLY}]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    httpx2_mock.post(RESPONSES).respond(200, content=body.encode(),
                                        headers={"content-type": "text/event-stream"})
    _, final = streamed(model="openai:gpt-5", messages=QUESTION,
                        tools=[ai.tools.WebSearch()])
    check_citations(final.choices[0].message)
    assert final.choices[0].message.content == text
    assert [e.name for e in final.tool_events] == ["web_search"]
    assert final.usage.server_tool_use.web_search_requests == 1


def test_openai_chat_search_models_take_web_search_options(httpx2_mock: respx.Router) -> None:
    interaction = recorded("test_openai__test_openai_web_search_tool")
    route = httpx2_mock.post(CHAT).mock(return_value=reply_of(interaction))
    resp = create("sync", model="openai:gpt-4o-search-preview", messages=[
        {"role": "user", "content": "What day is today?"}],
        tools=[ai.tools.WebSearch(user_location={"city": "Paris", "country": "FR"})],
        web_search_options={"search_context_size": "low"})
    sent = json.loads(route.calls.last.request.content)
    assert sent["web_search_options"] == {
        "search_context_size": "low",
        "user_location": {"type": "approximate", "approximate": {"city": "Paris",
                                                                  "country": "FR"}}}
    assert "tools" not in sent
    assert resp.choices[0].message.content.startswith("May 14, 2025")


# --- the same question on three families ------------------------------------------------


def test_citations_have_the_same_shape_on_openai_anthropic_and_google(
        httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(RESPONSES).respond(200, json=RESPONSES_REPLY)
    httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(
        recorded("test_anthropic__test_anthropic_web_search_tool")))
    httpx2_mock.post(GEMINI + "gemini-2.5-pro:generateContent").mock(return_value=reply_of(
        recorded("test_google__test_google_model_web_search_tool")))
    shapes = set()
    for model in ("openai:gpt-5", "anthropic:claude-sonnet-4-0", "google:gemini-2.5-pro"):
        resp = create("sync", model=model, messages=QUESTION, tools=[ai.tools.WebSearch()])
        message = resp.choices[0].message
        check_citations(message)
        shapes |= {(a["type"], tuple(sorted(a["url_citation"]))) for a in message.annotations}
        assert [e.name for e in resp.tool_events] == ["web_search"]
        assert resp.usage.server_tool_use.web_search_requests >= 1
    assert shapes == {("url_citation", ("end_index", "start_index", "title", "url"))}


# --- refused where a family has none ------------------------------------------------------


@pytest.mark.parametrize(("model", "tool", "words"), [
    ("openai:gpt-5", ai.tools.WebFetch(), "no hosted web_fetch tool; the families that have "
     "it: anthropic, google"),
    ("groq:llama-3.3-70b-versatile", ai.tools.WebSearch(), "no hosted web_search tool"),
    ("openai:gpt-5", ai.tools.WebSearch(max_uses=2), "max_uses"),
    ("openai:gpt-5", ai.tools.WebSearch(blocked_domains=["x.com"]), "allowed_domains only"),
    ("google:gemini-2.5-flash", ai.tools.WebSearch(allowed_domains=["x.com"]),
     "allowed_domains"),
    ("google:gemini-2.5-flash", ai.tools.WebSearch(blocked_domains=["x.com"]),
     "Vertex AI's has"),
    ("openai:gpt-4o-search-preview", ai.tools.CodeExecution(), "search the web and do "
     "nothing else"),
])
def test_what_a_family_lacks_is_refused_before_sending(model: str, tool: Any, words: str,
                                                       httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    configs = {**CONFIGS, "groq": {"api_key": "gsk-test"}}
    with ai.Client(configs) as client:
        with pytest.raises((ai.UnsupportedFeatureError, ai.UnsupportedParameterError),
                           match=words):
            client.chat.completions.create(model=model, messages=QUESTION, tools=[tool])
    assert not route.called


def test_a_provider_of_your_own_refuses_hosted_tools() -> None:
    from aisuite_like.testing import ScriptedProvider

    client = ai.Client(providers={"mine": ScriptedProvider(["hi"])})
    with pytest.raises(ai.UnsupportedFeatureError, match="the families that have it"):
        client.chat.completions.create(model="mine:x", messages=QUESTION,
                                       tools=[ai.tools.WebSearch()])


# --- runs: mixed with function tools, max_turns ---------------------------------------------


def test_a_tool_run_keeps_the_hosted_calls_in_its_trace(httpx2_mock: respx.Router) -> None:
    call = {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                 "input": {"city": "San Francisco"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}
    route = httpx2_mock.post(ANTHROPIC).mock(side_effect=[
        respx.MockResponse(200, json=call),
        reply_of(recorded("test_anthropic__test_anthropic_web_search_tool"))])
    resp = create("sync", model="anthropic:claude-sonnet-4-5", messages=QUESTION,
                  tools=[get_weather, ai.tools.WebSearch()], max_turns=3)
    assert route.call_count == 2
    for request in route.calls:  # every turn offers both tools
        assert [t.get("name") for t in json.loads(request.request.content)["tools"]] == [
            "get_weather", "web_search"]
    assert [(e.name, e.hosted) for e in resp.tool_events] == [
        ("get_weather", False), ("web_search", True)]
    check_citations(resp.choices[0].message)
    assert resp.usage.server_tool_use.web_search_requests == 1


def test_hosted_tools_are_checked_when_made() -> None:
    with pytest.raises(ValueError, match="not both"):
        ai.tools.WebSearch(allowed_domains=["a.com"], blocked_domains=["b.com"])
    with pytest.raises(ValueError, match="max_uses"):
        ai.tools.WebFetch(max_uses=0)
    with pytest.raises(TypeError, match="list of domain names"):
        ai.tools.WebSearch(allowed_domains="a.com")
    with pytest.raises(ValueError, match="city, region, country"):
        ai.tools.WebSearch(user_location={"town": "x"})
    with pytest.raises(ValueError, match="two hosted web_search"):
        ai.Tools([ai.tools.WebSearch(), ai.tools.WebSearch(max_uses=1)])



# --- client.responses.create --------------------------------------------------------------


def test_responses_create_takes_the_hosted_tools_on_every_family(
        httpx2_mock: respx.Router) -> None:
    native = httpx2_mock.post(RESPONSES).respond(200, json=RESPONSES_REPLY)
    httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(
        recorded("test_anthropic__test_anthropic_web_search_tool")))
    with ai.Client(CONFIGS) as client:
        resp = client.responses.create(model="openai:gpt-5", input="weather in SF?",
                                       tools=[ai.tools.WebSearch(), get_weather])
        assert sent_tools(native)[0] == {"type": "web_search"}
        assert sent_tools(native)[1]["name"] == "get_weather"
        assert resp.output_text.startswith("It is 69")
        translated = client.responses.create(model="anthropic:claude-sonnet-4-0",
                                             input="weather in SF?",
                                             tools=[ai.tools.WebSearch()])
    message = next(i for i in translated.output if i.type == "message")
    (part,) = message.content
    assert part.annotations and all(
        set(a) == {"type", "url", "title", "start_index", "end_index"}
        for a in part.annotations)
    first = part.annotations[0]
    assert part.text[first["start_index"]:first["end_index"]]
    assert {"type": "web_search"} in [dict(t) if isinstance(t, dict) else t
                                      for t in translated.tools]
    assert [e.name for e in translated.tool_events] == ["web_search"]
    from openai.types.responses import Response as SDKResponse

    SDKResponse.model_validate(translated.model_dump())


def test_an_agent_takes_hosted_tools(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(ANTHROPIC).mock(return_value=reply_of(
        recorded("test_anthropic__test_anthropic_web_search_tool")))
    agent = ai.Agent(name="researcher", instructions="Answer with sources.",
                     model="anthropic:claude-sonnet-4-0",
                     tools=[ai.tools.WebSearch(max_uses=2), get_weather])
    result = ai.Runner.run_sync(agent, "What is the weather in San Francisco today?",
                                client=ai.Client(CONFIGS))
    assert [t.get("name") for t in sent_tools(route)] == ["get_weather", "web_search"]
    assert "San Francisco" in result.final_output
    assert [(e.name, e.hosted) for e in result.tool_events] == [("web_search", True)]


# --- bedrock (Amazon Nova's system tools) ---------------------------------------------------


def test_nova_code_interpreter_from_a_recorded_reply(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Any) -> None:
    from support.bedrock_server import BedrockServer, Json, isolate_aws

    isolate_aws(monkeypatch, tmp_path)
    interaction = recorded("test_bedrock__test_bedrock_model_with_code_execution_tool")
    with BedrockServer() as server:
        server.reply(Json(interaction["response"]["body"]))
        with ai.Client({"bedrock": server.config()}) as client:
            resp = client.chat.completions.create(
                model="bedrock:us.amazon.nova-2-lite-v1:0",
                messages=[{"role": "user", "content": "What is 1234 * 5678?"}],
                tools=[ai.tools.CodeExecution(), get_weather])
            sent = server.requests[-1].json
            with pytest.raises(ai.UnsupportedFeatureError, match="Amazon Nova models"):
                client.chat.completions.create(
                    model="bedrock:anthropic.claude-3-5-haiku-20241022-v1:0",
                    messages=QUESTION, tools=[ai.tools.WebSearch()])
        assert len(server.requests) == 1
    recorded_tools = json.loads(interaction["request"]["body"])["toolConfig"]["tools"] \
        if isinstance(interaction["request"]["body"], str) \
        else interaction["request"]["body"]["toolConfig"]["tools"]
    assert recorded_tools[-1] == sent["toolConfig"]["tools"][-1] == {
        "systemTool": {"name": "nova_code_interpreter"}}
    assert sent["toolConfig"]["tools"][0]["toolSpec"]["name"] == "get_weather"
    (event,) = resp.tool_events
    assert (event.name, event.arguments, event.result) == (
        "code_execution", {"snippet": "1234 * 5678"}, "7006652")
    assert [c.function.name for c in resp.choices[0].message.tool_calls] == ["final_result"]
    assert resp.usage.server_tool_use.code_execution_requests == 1


def test_nova_web_grounding_citations(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from support.bedrock_server import BedrockServer, Json, isolate_aws

    isolate_aws(monkeypatch, tmp_path)
    reply = {"output": {"message": {"role": "assistant", "content": [
        {"text": "Here is today's weather. "},
        {"citationsContent": {"content": [{"text": "San Francisco is 69°F and sunny."}],
                              "citations": [{"title": "SF weather", "location": {"web": {
                                  "url": "https://weather.example/sf",
                                  "domain": "weather.example"}}}]}}]}},
        "stopReason": "end_turn", "usage": {"inputTokens": 20, "outputTokens": 12,
                                            "totalTokens": 32}, "metrics": {"latencyMs": 1}}
    with BedrockServer() as server:
        server.reply(Json(reply))
        with ai.Client({"bedrock": server.config()}) as client:
            resp = client.chat.completions.create(
                model="bedrock:us.amazon.nova-premier-v1:0", messages=QUESTION,
                tools=[ai.tools.WebSearch()])
        assert server.requests[-1].json["toolConfig"]["tools"] == [
            {"systemTool": {"name": "nova_grounding"}}]
    check_citations(resp.choices[0].message)
    cited = resp.choices[0].message.annotations[0]["url_citation"]
    assert resp.choices[0].message.content[cited["start_index"]:cited["end_index"]] == \
        "San Francisco is 69°F and sunny."


def test_each_fallback_must_run_the_hosted_tools(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    configs = {**CONFIGS, "groq": {"api_key": "gsk-test"}}
    with ai.Client(configs) as client:
        with pytest.raises(ai.UnsupportedFeatureError, match="provider 'groq' has no hosted"):
            client.chat.completions.create(
                model="anthropic:claude-sonnet-4-5", messages=QUESTION,
                tools=[ai.tools.WebSearch()], fallbacks=["groq:llama-3.3-70b-versatile"])
    assert not route.called
