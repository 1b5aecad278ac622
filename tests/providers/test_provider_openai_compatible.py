"""Every OpenAI-compatible row: default base URL and key variable on the wire, base_url
override, per-service wire differences (max-tokens field, reasoning sent back), reasoning in
replies, and Azure's URL shape. Through the real SDK, HTTP mocked at httpcore2."""

from __future__ import annotations

import copy
import json

import pytest
import respx
from support.openai_helpers import call, chunk, completion, create, httpx2_mock, sse, stream, wire  # noqa: F401  (httpx2_mock: the fixture)

import aisuite_like as ai
from aisuite_like.providers.openai.services import MISTRAL_IDS

USER = [{"role": "user", "content": "Hi"}]

# Written out here (not read from the module under test): key -> (chat URL, key variable).
EXPECTED = {
    "groq": ("https://api.groq.com/openai/v1/chat/completions", "GROQ_API_KEY"),
    "mistral": ("https://api.mistral.ai/v1/chat/completions", "MISTRAL_API_KEY"),
    "deepseek": ("https://api.deepseek.com/chat/completions", "DEEPSEEK_API_KEY"),
    "xai": ("https://api.x.ai/v1/chat/completions", "XAI_API_KEY"),
    "together": ("https://api.together.xyz/v1/chat/completions", "TOGETHER_API_KEY"),
    "fireworks": ("https://api.fireworks.ai/inference/v1/chat/completions",
                  "FIREWORKS_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1/chat/completions", "OPENROUTER_API_KEY"),
    "cerebras": ("https://api.cerebras.ai/v1/chat/completions", "CEREBRAS_API_KEY"),
    "perplexity": ("https://api.perplexity.ai/chat/completions", "PERPLEXITY_API_KEY"),
    "huggingface": ("https://router.huggingface.co/v1/chat/completions", "HF_TOKEN"),
    "nebius": ("https://api.studio.nebius.com/v1/chat/completions", "NEBIUS_API_KEY"),
    "sambanova": ("https://api.sambanova.ai/v1/chat/completions", "SAMBANOVA_API_KEY"),
    "inception": ("https://api.inceptionlabs.ai/v1/chat/completions", "INCEPTION_API_KEY"),
    "cohere": ("https://api.cohere.ai/compatibility/v1/chat/completions", "COHERE_API_KEY"),
}
LOCAL = {  # no key needed: key -> (chat URL, optional key variable, placeholder sent)
    "ollama": ("http://localhost:11434/v1/chat/completions", "OLLAMA_API_KEY", "ollama"),
    "lmstudio": ("http://localhost:1234/v1/chat/completions", "LMSTUDIO_API_KEY", "lm-studio"),
    "vllm": ("http://localhost:8000/v1/chat/completions", "VLLM_API_KEY", "EMPTY"),
}
MAX_COMPLETION_TOKENS = {"groq"}  # the rest take max_tokens


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def test_every_compatible_key_is_covered_here() -> None:
    from aisuite_like.providers.registry import _OPENAI_COMPATIBLE

    assert set(_OPENAI_COMPATIBLE) == {*EXPECTED, *LOCAL, "azure"}


@pytest.mark.parametrize("service", sorted(EXPECTED))
def test_default_base_url_and_key_variable(service: str, mode: str, httpx2_mock: respx.Router,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    url, var = EXPECTED[service]
    monkeypatch.setenv(var, f"{service}-env-key")
    # OpenAI's own settings must never leak to another service.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak-123")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://wrong.example.com/v1")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-must-not-leak")
    route = httpx2_mock.post(url).respond(200, json=completion("ok"))
    resp = create(mode, {}, model=f"{service}:some/model", messages=USER, max_tokens=5)
    request = route.calls[0].request
    assert request.headers["authorization"] == f"Bearer {service}-env-key"
    assert "openai-organization" not in request.headers
    assert "openai-project" not in request.headers
    sent = wire(route)
    assert sent["model"] == "some/model"
    field = "max_completion_tokens" if service in MAX_COMPLETION_TOKENS else "max_tokens"
    assert sent[field] == 5 and len([k for k in sent if k.startswith("max_")]) == 1
    assert resp.provider == service and resp.choices[0].message.content == "ok"


@pytest.mark.parametrize("service", sorted(EXPECTED))
def test_missing_key_names_the_variable(service: str, mode: str, httpx2_mock: respx.Router,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-be-used-123")
    route = httpx2_mock.post(EXPECTED[service][0]).respond(200, json=completion())
    with pytest.raises(ai.AuthenticationError) as info:
        create(mode, {}, model=f"{service}:m", messages=USER)
    assert EXPECTED[service][1] in str(info.value) and info.value.provider == service
    assert not route.called


@pytest.mark.parametrize("service", sorted(LOCAL))
def test_local_servers_need_no_key(service: str, mode: str, httpx2_mock: respx.Router,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    url, var, placeholder = LOCAL[service]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak-123")
    route = httpx2_mock.post(url).respond(200, json=completion("local"))
    resp = create(mode, {}, model=f"{service}:llama3.2", messages=USER)
    assert route.calls[0].request.headers["authorization"] == f"Bearer {placeholder}"
    assert resp.choices[0].message.content == "local"
    monkeypatch.setenv(var, "real-local-key")
    create(mode, {}, model=f"{service}:llama3.2", messages=USER)
    assert route.calls[1].request.headers["authorization"] == "Bearer real-local-key"


@pytest.mark.parametrize("service", sorted([*EXPECTED, *LOCAL]))
def test_base_url_override(service: str, mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("http://gateway.internal:9000/proxy/v1/chat/completions").respond(
        200, json=completion("via proxy"))
    resp = create(mode, {service: {"api_key": "k-123", "base_url":
                                   "http://gateway.internal:9000/proxy/v1"}},
                  model=f"{service}:m", messages=USER)
    assert route.calls[0].request.headers["authorization"] == "Bearer k-123"
    assert resp.choices[0].message.content == "via proxy"


def test_openai_only_settings_rejected_elsewhere() -> None:
    with pytest.raises(ai.ConfigurationError, match="organization"):
        ai.Client({"groq": {"api_key": "k", "organization": "org"}}).chat.completions.create(
            model="groq:m", messages=USER)


# --- reasoning: replies and what is sent back ------------------------------------------------

ASSISTANT = {"role": "assistant", "content": "4", "reasoning_content": "2+2 makes 4",
             "provider_specific_fields": {"reasoning_details": [{"type": "reasoning.text",
                                                                 "text": "2+2 makes 4"}],
                                          "thinking_blocks": [{"signature": "s"}]},
             "tool_calls": [call("c1", "f", "{}")]}
HISTORY = [{"role": "developer", "content": "Be exact."}, {"role": "user", "content": "2+2?"},
           ASSISTANT, {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "ok"}]
BARE_ASSISTANT = {"role": "assistant", "content": "4", "tool_calls": [call("c1", "f", "{}")]}
SENT_BACK = {
    # DeepSeek thinking mode requires reasoning_content back on tool-call turns.
    "deepseek": {**BARE_ASSISTANT, "reasoning_content": "2+2 makes 4"},
    "openrouter": {**BARE_ASSISTANT, "reasoning": "2+2 makes 4", "reasoning_details": [
        {"type": "reasoning.text", "text": "2+2 makes 4"}]},
    "cerebras": {**BARE_ASSISTANT, "reasoning": "2+2 makes 4"},
    "ollama": {**BARE_ASSISTANT, "reasoning": "2+2 makes 4"},
    "vllm": {**BARE_ASSISTANT, "reasoning": "2+2 makes 4"},
}


@pytest.mark.parametrize("service", sorted([*EXPECTED, *LOCAL]))
def test_what_is_sent_back_per_service(service: str, mode: str,
                                       httpx2_mock: respx.Router) -> None:
    url = (EXPECTED.get(service) or LOCAL[service])[0]
    route = httpx2_mock.post(url).respond(200, json=completion())
    before = copy.deepcopy(HISTORY)
    create(mode, {service: {"api_key": "k"}}, model=f"{service}:m", messages=HISTORY)
    assert HISTORY == before
    # Mistral takes nine letters and digits as tool-call ids: "c1" goes out fitted
    # (docs/portability.md), the same on the call and on its result.
    call_id = MISTRAL_IDS.rewrite("c1") if service == "mistral" else "c1"
    assistant = SENT_BACK.get(service, BARE_ASSISTANT)
    if call_id != "c1":
        assistant = {**assistant, "tool_calls": [call(call_id, "f", "{}")]}
    assert wire(route)["messages"] == [
        {"role": "system", "content": "Be exact."},  # only OpenAI knows "developer"
        {"role": "user", "content": "2+2?"},
        assistant,
        {"role": "tool", "tool_call_id": call_id, "content": "ok"},
    ]


def test_reasoning_field_config_overrides_the_table(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(EXPECTED["groq"][0]).respond(200, json=completion())
    create(mode, {"groq": {"api_key": "k", "reasoning_field": "reasoning"}}, model="groq:m",
           messages=HISTORY)
    assert wire(route)["messages"][2]["reasoning"] == "2+2 makes 4"
    route = httpx2_mock.post(EXPECTED["deepseek"][0]).respond(200, json=completion())
    create(mode, {"deepseek": {"api_key": "k", "reasoning_field": ""}}, model="deepseek:m",
           messages=HISTORY)
    assert wire(route)["messages"][2] == BARE_ASSISTANT


@pytest.mark.parametrize("service, message, reasoning, content", [
    ("deepseek", {"content": "4", "reasoning_content": "adding"}, "adding", "4"),
    ("groq", {"content": "4", "reasoning": "adding"}, "adding", "4"),
    ("cerebras", {"content": "4", "reasoning": "adding"}, "adding", "4"),
    ("mistral", {"content": [{"type": "thinking", "thinking": [{"type": "text",
                                                                 "text": "add"}]},
                             {"type": "text", "text": "4"}]}, "add", "4"),
    ("ollama", {"content": "", "reasoning": "adding",
                "tool_calls": [call("c", "f", "{}")]}, "adding", None),
])
def test_reasoning_in_replies(service: str, message: dict, reasoning: str, content: str,
                              mode: str, httpx2_mock: respx.Router) -> None:
    url = (EXPECTED.get(service) or LOCAL[service])[0]
    httpx2_mock.post(url).respond(200, json=completion(choices=[
        {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}]))
    resp = create(mode, {service: {"api_key": "k"}}, model=f"{service}:m", messages=USER)
    msg = resp.choices[0].message
    assert msg.reasoning_content == reasoning and msg.content == content
    if msg.tool_calls:
        assert resp.choices[0].finish_reason == "tool_calls"


def test_openrouter_reasoning_details_round_trip(mode: str, httpx2_mock: respx.Router) -> None:
    details = [{"type": "reasoning.text", "text": "think", "signature": "sig",
                "format": "anthropic-claude-v1", "index": 0}]
    route = httpx2_mock.post(EXPECTED["openrouter"][0]).respond(200, json=completion(
        "4", extra_message={"reasoning": "think", "reasoning_details": details}))
    first = create(mode, {"openrouter": {"api_key": "k"}}, model="openrouter:m", messages=USER)
    assert first.choices[0].message.provider_specific_fields == {"reasoning_details": details}
    create(mode, {"openrouter": {"api_key": "k"}}, model="openrouter:m",
           messages=[*USER, first.choices[0].message, {"role": "user", "content": "more"}])
    assert wire(route)["messages"][1] == {"role": "assistant", "content": "4",
                                          "reasoning": "think", "reasoning_details": details}


def test_usage_variants(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(EXPECTED["deepseek"][0]).respond(200, json=completion(usage={
        "prompt_tokens": 563, "completion_tokens": 116, "total_tokens": 679,
        "prompt_cache_hit_tokens": 512, "prompt_cache_miss_tokens": 51,
        "completion_tokens_details": {"reasoning_tokens": 60}}))
    resp = create(mode, {"deepseek": {"api_key": "k"}}, model="deepseek:m", messages=USER)
    assert resp.usage.prompt_tokens == 563
    assert resp.usage.prompt_tokens_details.cached_tokens == 512
    assert resp.usage.completion_tokens_details.reasoning_tokens == 60
    httpx2_mock.post(LOCAL["ollama"][0]).respond(200, json=completion(usage={
        "prompt_tokens": 3, "completion_tokens": 4}))
    resp = create(mode, {}, model="ollama:m", messages=USER)
    assert (resp.usage.total_tokens, resp.usage.prompt_tokens_details) == (7, None)


# --- streaming reasoning -------------------------------------------------------------------


def test_stream_reasoning_deltas(mode: str, httpx2_mock: respx.Router) -> None:
    events = [
        chunk({"role": "assistant", "content": "", "reasoning": "Let me "}),
        chunk({"reasoning": "add.", "reasoning_details": [
            {"type": "reasoning.text", "text": "Let me add.", "index": 0}]}),
        chunk({"reasoning_details": [{"type": "reasoning.text", "text": "", "index": 0,
                                      "signature": "sig"}]}),
        chunk({"content": "4"}),
        chunk({}, finish="stop"),
        chunk({}, finish="stop"),  # OpenRouter may repeat the finish
    ]
    httpx2_mock.post(EXPECTED["openrouter"][0]).respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})
    seen, final, error, _ = stream(mode, {"openrouter": {"api_key": "k"}},
                                   model="openrouter:m", messages=USER)
    assert error is None
    assert [c.choices[0].delta.reasoning_content for c in seen
            if c.choices[0].delta.reasoning_content] == ["Let me ", "add."]
    msg = final.choices[0].message
    assert (msg.reasoning_content, msg.content) == ("Let me add.", "4")
    assert msg.provider_specific_fields == {"reasoning_details": [
        {"type": "reasoning.text", "text": "Let me add.", "index": 0, "signature": "sig"}]}


def test_stream_mistral_thinking_parts(mode: str, httpx2_mock: respx.Router) -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}]}),
        chunk({"content": "Cross"}), chunk({"content": " safely."}, finish="stop"),
    ]
    httpx2_mock.post(EXPECTED["mistral"][0]).respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})
    _, final, error, _ = stream(mode, {"mistral": {"api_key": "k"}}, model="mistral:m",
                                messages=USER)
    assert error is None
    assert (final.choices[0].message.reasoning_content,
            final.choices[0].message.content) == ("hm", "Cross safely.")


def test_stream_error_event_with_code(mode: str, httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": "x"}),
              {"error": {"message": "tool call validation failed", "type":
                         "invalid_request_error", "code": "tool_use_failed"}}]
    httpx2_mock.post(EXPECTED["groq"][0]).respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})
    _, _, error, kept = stream(mode, {"groq": {"api_key": "k"}}, model="groq:m", messages=USER)
    assert isinstance(error, ai.BadRequestError) and "tool_use_failed" in str(error)
    assert error.provider == "groq" and len(kept) == 1


# --- azure ---------------------------------------------------------------------------------

AZ = "https://my-res.openai.azure.com"


def test_azure_url_with_deployment_and_api_version(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(f"{AZ}/openai/deployments/prod-4o/chat/completions").respond(
        200, json=completion("from azure"))
    resp = create(mode, {"azure": {"api_key": "az-key", "azure_endpoint": AZ,
                                   "api_version": "2024-10-21",
                                   "azure_deployment": "prod-4o", "max_retries": 0}},
                  model="azure:gpt-4o", messages=USER, max_tokens=7)
    request = route.calls[0].request
    assert request.url.params["api-version"] == "2024-10-21"
    assert request.headers["api-key"] == "az-key"
    assert wire(route)["max_completion_tokens"] == 7
    assert resp.provider == "azure" and resp.choices[0].message.content == "from azure"


def test_azure_from_environment_uses_model_as_deployment(mode: str, httpx2_mock: respx.Router,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-env-key")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", AZ)
    monkeypatch.setenv("OPENAI_API_VERSION", "2025-01-01-preview")
    route = httpx2_mock.post(f"{AZ}/openai/deployments/my-gpt/chat/completions").respond(
        200, json=completion())
    create(mode, {}, model="azure:my-gpt", messages=USER)
    request = route.calls[0].request
    assert request.url.params["api-version"] == "2025-01-01-preview"
    assert request.headers["api-key"] == "az-env-key"


def test_azure_base_url_override(mode: str, httpx2_mock: respx.Router) -> None:
    # The SDK adds /deployments/<model> when the base URL does not name a deployment.
    route = httpx2_mock.post("https://gw.example.com/az/deployments/m/chat/completions").respond(
        200, json=completion())
    create(mode, {"azure": {"api_key": "k", "base_url": "https://gw.example.com/az",
                            "api_version": "2024-10-21"}}, model="azure:m", messages=USER)
    assert route.calls[0].request.url.params["api-version"] == "2024-10-21"


@pytest.mark.parametrize("config, error, names", [
    ({"azure_endpoint": AZ, "api_version": "v"}, ai.AuthenticationError, "AZURE_OPENAI_API_KEY"),
    ({"api_key": "k", "api_version": "v"}, ai.ConfigurationError, "AZURE_OPENAI_ENDPOINT"),
    ({"api_key": "k", "azure_endpoint": AZ, "base_url": AZ, "api_version": "v"},
     ai.ConfigurationError, "base_url"),
])
def test_azure_incomplete_configuration(config: dict, error: type, names: str) -> None:
    # (no api_version: a documented default, tests/client/test_dropin_aisuite.py)
    with pytest.raises(error, match=names):
        ai.Client({"azure": config}).chat.completions.create(model="azure:m", messages=USER)


def test_azure_ad_token_needs_no_key(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(f"{AZ}/openai/deployments/m/chat/completions").respond(
        200, json=completion())
    ai.Client({"azure": {"azure_ad_token": "entra-token", "azure_endpoint": AZ,
                         "api_version": "v"}}).chat.completions.create(model="azure:m",
                                                                       messages=USER)
    assert route.calls[0].request.headers["authorization"] == "Bearer entra-token"


def test_azure_stream(mode: str, httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": "A"}), chunk({"content": "z"},
                                                                  finish="stop")]
    route = httpx2_mock.post(f"{AZ}/openai/deployments/d/chat/completions").respond(
        200, content=sse(events), headers={"content-type": "text/event-stream"})
    _, final, error, _ = stream(mode, {"azure": {"api_key": "k", "azure_endpoint": AZ,
                                                 "azure_deployment": "d",
                                                 "api_version": "v"}},
                                model="azure:gpt", messages=USER)
    assert error is None and final.choices[0].message.content == "Az"
    assert json.loads(route.calls[0].request.content)["stream"] is True
