"""``client.models.count_tokens``: each family's counting API, the request compared on the
wire with the one the vendor SDK's own count method sends for the same input (both captured
by ``httpx2_mock`` or the loopback Bedrock server); elsewhere an estimate labelled one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401

import aisuite_like as ai

ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-0123456789abcdefghij"

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {
    "name": "weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
SYSTEM = "Answer briefly."


def _wire(request: httpx.Request) -> tuple[str, str, Any]:
    return request.method, str(request.url), json.loads(request.content)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def counted(mode: str, config: dict[str, Any], model: str, **kwargs: Any) -> ai.TokenCount:
    if any(c.get("transport") == "native" for c in config.values()):
        from support.transports import aiohttp_via_httpcore2

        with aiohttp_via_httpcore2():  # the native async transport's aiohttp, on the mock
            return _counted(mode, config, model, **kwargs)
    return _counted(mode, config, model, **kwargs)


def _counted(mode: str, config: dict[str, Any], model: str, **kwargs: Any) -> ai.TokenCount:
    if mode == "sync":
        with ai.Client(config) as client:
            return client.models.count_tokens(model, MESSAGES, **kwargs)

    async def run() -> ai.TokenCount:
        async with ai.AsyncClient(config) as client:
            return await client.models.count_tokens(model, MESSAGES, **kwargs)

    return asyncio.run(run())


# --- anthropic: POST /v1/messages/count_tokens ------------------------------------------------

@pytest.mark.parametrize("transport", ["sdk", "native"])
def test_anthropic_counts_with_the_sdks_own_request(mode: str, transport: str,
                                                    httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": 412}))
    count = counted(mode, {"anthropic": {"api_key": ANTHROPIC_KEY, "transport": transport}},
                    "anthropic:claude-sonnet-4-5", tools=TOOLS, system=SYSTEM)
    assert count == ai.TokenCount(input_tokens=412, exact=True,
                                  source="anthropic messages/count_tokens",
                                  model="anthropic:claude-sonnet-4-5")
    ours = route.calls[-1].request

    import anthropic

    anthropic.Anthropic(api_key=ANTHROPIC_KEY).messages.count_tokens(
        model="claude-sonnet-4-5", system=SYSTEM,
        messages=[{"role": "user", "content": [{"type": "text",
                                                "text": "What is the weather in Paris?"}]}],
        tools=[{"name": "weather", "description": "The weather in a city.",
                "input_schema": TOOLS[0]["function"]["parameters"]}])
    sdk = route.calls[-1].request
    assert _wire(ours) == _wire(sdk)
    assert ANTHROPIC_KEY in (ours.headers.get("x-api-key") or ours.headers["authorization"])
    assert "max_tokens" not in json.loads(ours.content)  # the count takes no sampling args


def test_anthropic_errors_are_typed_and_never_show_the_key(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(404, json={"type": "error", "error": {
            "type": "not_found_error", "message": f"model: nope ({ANTHROPIC_KEY})"}}))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY, "max_retries": 0}})
    with pytest.raises(ai.NotFoundError) as raised:
        client.models.count_tokens("anthropic:nope", MESSAGES)
    assert ANTHROPIC_KEY not in str(raised.value) and ANTHROPIC_KEY not in repr(raised.value)


def test_a_reply_of_another_shape_is_a_typed_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": "many"}))
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    with pytest.raises(ai.APIResponseValidationError):
        client.models.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES)


# --- a family without a counting API: an estimate, labelled one --------------------------

def test_elsewhere_an_estimate_labelled_as_one(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route()
    client = ai.Client({"groq": {"api_key": KEY}, "test": {}})
    for model in ("groq:llama-3.3-70b-versatile", "test:offline"):
        count = client.models.count_tokens(model, MESSAGES, tools=TOOLS)
        assert count.exact is False and count.source.startswith("estimate")
        assert count.input_tokens > 10 and count.model == model
    assert not route.calls  # nothing sent


def test_bad_arguments_are_refused_before_sending(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route()
    client = ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}})
    with pytest.raises(TypeError):
        client.models.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES,
                                   system=["not", "a", "string"])  # type: ignore[arg-type]
    with pytest.raises(ai.InvalidModelError):
        client.models.count_tokens("claude", MESSAGES)
    assert not route.calls


def test_the_callers_messages_are_not_mutated(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post("https://api.anthropic.com/v1/messages/count_tokens").mock(
        return_value=httpx.Response(200, json={"input_tokens": 5}))
    messages = [{"role": "user", "content": "hi"}]
    before = json.dumps(messages)
    ai.Client({"anthropic": {"api_key": ANTHROPIC_KEY}}).models.count_tokens(
        "anthropic:claude-sonnet-4-5", messages, system=SYSTEM)
    assert json.dumps(messages) == before


# --- openai: POST /v1/responses/input_tokens -------------------------------------------------

@pytest.mark.parametrize("transport", ["sdk", "native"])
def test_openai_counts_with_the_sdks_own_request(mode: str, transport: str,
                                                 httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.openai.com/v1/responses/input_tokens").mock(
        return_value=httpx.Response(200, json={"object": "response.input_tokens",
                                               "input_tokens": 57}))
    count = counted(mode, {"openai": {"api_key": KEY, "transport": transport}},
                    "openai:gpt-4o", tools=TOOLS, system=SYSTEM)
    assert (count.input_tokens, count.exact, count.source) == (
        57, True, "openai responses/input_tokens")
    ours = route.calls[-1].request

    import openai

    openai.OpenAI(api_key=KEY).responses.input_tokens.count(
        model="gpt-4o",
        input=[{"role": "system", "content": SYSTEM},
               {"role": "user", "content": "What is the weather in Paris?"}],
        tools=[{"type": "function", "name": "weather",
                "description": "The weather in a city.",
                "parameters": TOOLS[0]["function"]["parameters"],
                "strict": False}])  # a chat tool is not strict unless it says so
    assert _wire(ours) == _wire(route.calls[-1].request)
    assert ours.headers["authorization"] == f"Bearer {KEY}"


def test_an_openai_compatible_service_estimates(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route()
    count = ai.Client({"groq": {"api_key": KEY}}).models.count_tokens(
        "groq:llama-3.3-70b-versatile", MESSAGES)
    assert count.exact is False and not route.calls


# --- google: models/{model}:countTokens --------------------------------------------------------

GEMINI_COUNT = ("https://generativelanguage.googleapis.com/v1beta/models/"
                "gemini-2.5-flash:countTokens")


@pytest.mark.parametrize("transport", ["sdk", "native"])
def test_gemini_counts_with_the_sdks_own_request(mode: str, transport: str,
                                                 httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEMINI_COUNT).mock(
        return_value=httpx.Response(200, json={"totalTokens": 9}))
    count = counted(mode, {"google": {"api_key": GEMINI_KEY, "transport": transport}},
                    "google:gemini-2.5-flash")
    assert (count.input_tokens, count.exact, count.source) == (9, True, "gemini countTokens")
    ours = route.calls[-1].request

    from google import genai

    sdk = genai.Client(api_key=GEMINI_KEY, http_options={"api_version": "v1beta"})
    sdk.models.count_tokens(model="gemini-2.5-flash", contents=[
            {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}])
    assert _wire(ours) == _wire(route.calls[-1].request)
    assert ours.headers["x-goog-api-key"] == GEMINI_KEY


@pytest.mark.parametrize("transport", ["sdk", "native"])
def test_gemini_counts_a_system_prompt_and_tools_inside_a_whole_request(
        transport: str, httpx2_mock: respx.Router) -> None:
    # google-genai refuses system_instruction / tools in count_tokens on the Gemini API;
    # the REST API counts them inside generateContentRequest (Google's reference).
    route = httpx2_mock.post(GEMINI_COUNT).mock(
        return_value=httpx.Response(200, json={"totalTokens": 61}))
    count = ai.Client({"google": {"api_key": GEMINI_KEY, "transport": transport}}).models \
        .count_tokens("google:gemini-2.5-flash", MESSAGES, tools=TOOLS, system=SYSTEM)
    assert count.input_tokens == 61
    assert json.loads(route.calls[-1].request.content) == {"generateContentRequest": {
        "model": "models/gemini-2.5-flash",
        "contents": [{"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}],
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "tools": [{"functionDeclarations": [{
            "name": "weather", "description": "The weather in a city.",
            "parametersJsonSchema": TOOLS[0]["function"]["parameters"]}]}]}}


# --- bedrock: CountTokens (the loopback Bedrock server, real botocore) -----------------------

@pytest.mark.usefixtures("isolated_aws")
def test_bedrock_counts_with_botocores_own_request(mode: str) -> None:
    from support.bedrock_server import REGION, BedrockServer, Json

    model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
    with BedrockServer() as server:
        server.reply(Json({"inputTokens": 33}), Json({"inputTokens": 33}))
        count = counted(mode, {"bedrock": server.config()}, f"bedrock:{model}", tools=TOOLS,
                        system=SYSTEM)
        import botocore.session

        sdk = botocore.session.get_session().create_client(
            "bedrock-runtime", region_name=REGION, endpoint_url=server.url,
            **{k: v for k, v in server.config().items() if k.startswith("aws_")})
        sdk.count_tokens(modelId=model, input={"converse": {
            "messages": [{"role": "user",
                          "content": [{"text": "What is the weather in Paris?"}]}],
            "system": [{"text": SYSTEM}],
            "toolConfig": {"tools": [{"toolSpec": {
                "name": "weather", "description": "The weather in a city.",
                "inputSchema": {"json": TOOLS[0]["function"]["parameters"]}}}]}}})
        ours, theirs = server.requests
    assert (count.input_tokens, count.exact, count.source) == (33, True, "bedrock CountTokens")
    assert (ours.method, ours.path) == (theirs.method, theirs.path)
    assert ours.path.endswith("/count-tokens")
    assert json.loads(ours.raw) == json.loads(theirs.raw)
