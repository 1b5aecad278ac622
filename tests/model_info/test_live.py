"""``client.models.info(model, live=True)``: the provider's own model endpoint (through its
SDK, mocked at the HTTP layer) overrides the snapshot, and a conflict stays visible in
``sources``."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import respx
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401

import aisuite_like as ai
from aisuite_like.model_info.snapshot import snapshot_date

GEMINI_KEY = "AIzaSyTESTKEY-0123456789abcdefghij"
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"


def info(config: dict[str, Any], model: str, mode: str = "sync") -> ai.ModelInfo:
    if mode == "sync":
        with ai.Client(config) as client:
            return client.models.info(model, live=True)

    async def run() -> ai.ModelInfo:
        async with ai.AsyncClient(config) as client:
            return await client.models.info(model, live=True)

    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gemini_token_limits_override_the_snapshot(httpx2_mock: respx.Router,
                                                   mode: str) -> None:
    route = httpx2_mock.get("https://generativelanguage.googleapis.com/v1beta/models").mock(
        return_value=httpx.Response(200, json={"models": [{
            "name": "models/gemini-2.5-flash", "inputTokenLimit": 1_000_000,
            "outputTokenLimit": 65_536, "thinking": True,
            "supportedGenerationMethods": ["generateContent", "countTokens"]}]}))
    found = info({"google": {"api_key": GEMINI_KEY}}, "google:gemini-2.5-flash", mode)
    assert len(route.calls) == 1
    assert found.context_window == 1_000_000 and found.max_output_tokens == 65_536
    window = found.sources["context_window"]
    assert (window.origin, window.detail) == ("provider", "inputTokenLimit")
    assert window.conflicts == {"snapshot": 1_048_576}  # what the snapshot said
    assert found.sources["max_output_tokens"].conflicts == {}  # they agree
    assert found.sources["tools"].origin == "snapshot"  # not reported: the snapshot's
    assert found.sources["tools"].date == snapshot_date()


def test_openrouter_context_and_supported_parameters(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get("https://openrouter.ai/api/v1/models").mock(
        return_value=httpx.Response(200, json={"data": [{
            "id": "acme/small", "name": "Acme Small", "context_length": 32_768,
            "architecture": {"input_modalities": ["text", "image"],
                             "output_modalities": ["text"]},
            "top_provider": {"max_completion_tokens": 4_096},
            "supported_parameters": ["max_tokens", "temperature", "response_format"]}]}))
    found = info({"openrouter": {"api_key": KEY}}, "openrouter:acme/small")
    assert (found.context_window, found.max_output_tokens) == (32_768, 4_096)
    assert found.input_modalities == ("text", "image")
    assert found.tools is False and found.json_schema is False and found.reasoning is False
    assert found.sources["tools"].detail == "supported_parameters"


def test_vllm_max_model_len(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get("http://localhost:8000/v1/models").mock(
        return_value=httpx.Response(200, json={"object": "list", "data": [{
            "id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm",
            "max_model_len": 40_960}]}))
    found = info({"vllm": {}}, "vllm:Qwen/Qwen3-8B")
    assert found.context_window == 40_960
    assert found.sources["context_window"].detail == "max_model_len"
    assert found.unknown == [n for n in found.unknown if n != "context_window"]


def test_ollama_api_show(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("http://localhost:11434/api/show").mock(
        return_value=httpx.Response(200, json={
            "capabilities": ["completion", "vision"],
            "model_info": {"general.architecture": "gemma3",
                           "gemma3.context_length": 131_072}}))
    found = info({"ollama": {}}, "ollama:gemma3:4b")
    assert route.calls[0].request.content == b'{"model":"gemma3:4b"}'
    assert found.context_window == 131_072 and found.tools is False
    assert found.input_modalities == ("text", "image")


def test_anthropic_and_a_model_the_provider_does_not_list(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get("https://api.anthropic.com/v1/models").mock(
        return_value=httpx.Response(200, json={"data": [{
            "type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5",
            "created_at": "2025-09-29T00:00:00Z", "max_input_tokens": 1_000_000,
            "max_tokens": 64_000}], "has_more": False, "last_id": "claude-sonnet-4-5"}))
    config = {"anthropic": {"api_key": ANTHROPIC_KEY}}
    found = info(config, "anthropic:claude-sonnet-4-5")
    assert found.context_window == 1_000_000
    assert found.sources["context_window"].conflicts == {"snapshot": 200_000}
    with pytest.raises(ai.NotFoundError):
        info(config, "anthropic:claude-nope")
    offline = ai.Client(config).models.info("anthropic:claude-sonnet-4-5")  # not asked
    assert offline.context_window == 200_000


def test_a_reply_with_odd_values_states_nothing(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get("https://generativelanguage.googleapis.com/v1beta/models").mock(
        return_value=httpx.Response(200, json={"models": [{
            "name": "models/gemini-2.5-flash", "inputTokenLimit": "lots",
            "outputTokenLimit": -1, "thinking": "yes"}]}))
    found = info({"google": {"api_key": GEMINI_KEY}}, "google:gemini-2.5-flash")
    assert found.sources["context_window"].origin == "snapshot"
    assert found.context_window == 1_048_576
