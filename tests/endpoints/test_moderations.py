"""``client.moderations`` through the real ``openai`` SDK, HTTP mocked at httpcore2: OpenAI's
request as its SDK sends it and its verdict as its SDK's type; Mistral's moderation API on the
``mistral`` key, its categories mapped onto OpenAI's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
import respx
from support.transports import each_transport, with_transport  # noqa: F401  (autouse)

import aisuite_like as ai

KEY = "sk-test-secret-key-moderation-123456"
MISTRAL_KEY = "mistral-test-key-0123456789abcdef"
URL = "https://api.openai.com/v1/moderations"
MISTRAL_URL = "https://api.mistral.ai/v1/moderations"
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "mistral": {"api_key": MISTRAL_KEY, "max_retries": 0},
           "anthropic": {"api_key": "sk-ant-test"}}
CATEGORIES = ("harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
              "illicit/violent", "self-harm", "self-harm/instructions", "self-harm/intent",
              "sexual", "sexual/minors", "violence", "violence/graphic")
OPENAI_REPLY = {"id": "modr-1", "model": "omni-moderation-latest", "results": [{
    "flagged": True,
    "categories": {c: c == "violence" for c in CATEGORIES},
    "category_scores": {c: 0.91 if c == "violence" else 0.01 for c in CATEGORIES},
    "category_applied_input_types": {c: ["text", "image"] if c == "violence" else ["text"]
                                     for c in CATEGORIES}}]}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def moderate(mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(CONFIGS)) as client:
            return client.moderations.create(**kwargs)

    async def run() -> Any:
        if mode == "acreate":
            with ai.Client(with_transport(CONFIGS)) as client:
                return await client.moderations.acreate(**kwargs)
        async with ai.AsyncClient(with_transport(CONFIGS)) as aclient:
            return await aclient.moderations.create(**kwargs)
    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "acreate", "async"])
def test_openai_moderation_is_the_sdks_call_and_type(mode: str,
                                                     httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).respond(200, json=OPENAI_REPLY)
    parts = [{"type": "text", "text": "I will hurt you"},
             {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]
    given = json.loads(json.dumps(parts))
    resp = moderate(mode, model="openai:omni-moderation-latest", input=parts)
    ours = json.loads(route.calls.last.request.content)
    openai.OpenAI(api_key=KEY, max_retries=0).moderations.create(
        model="omni-moderation-latest", input=parts)
    assert ours == json.loads(route.calls.last.request.content)
    assert parts == given  # the caller's parts are not changed
    result = resp.results[0]
    assert result.flagged and result.categories.violence and not result.categories.hate
    assert result.category_scores.violence == 0.91
    assert result.categories.self_harm is False
    sdk = openai.types.ModerationCreateResponse.model_validate(resp.model_dump())
    assert sdk.results[0].categories.violence is True
    assert sdk.results[0].category_applied_input_types.violence == ["text", "image"]
    assert resp.to_dict()["results"][0]["categories"]["self-harm"] is False


def test_mistral_categories_are_mapped_onto_openais(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(MISTRAL_URL).respond(200, json={
        "id": "mod-e1", "model": "mistral-moderation-2411", "results": [
            {"categories": {"sexual": False, "hate_and_discrimination": True,
                            "violence_and_threats": False, "dangerous_and_criminal_content":
                            False, "selfharm": False, "health": False, "financial": False,
                            "law": False, "pii": True},
             "category_scores": {"sexual": 0.01, "hate_and_discrimination": 0.8,
                                 "violence_and_threats": 0.02,
                                 "dangerous_and_criminal_content": 0.01, "selfharm": 0.0,
                                 "health": 0.0, "financial": 0.0, "law": 0.0, "pii": 0.7}},
            {"categories": {"sexual": False, "hate_and_discrimination": False},
             "category_scores": {"sexual": 0.0, "hate_and_discrimination": 0.0}}]})
    resp = moderate("sync", model="mistral:mistral-moderation-latest", input=["a", "b"])
    request = route.calls.last.request
    assert json.loads(request.content) == {"model": "mistral-moderation-latest",
                                           "input": ["a", "b"]}
    assert request.headers["authorization"] == f"Bearer {MISTRAL_KEY}"
    first, second = resp.results
    assert first.flagged and first.categories.hate and first.category_scores.hate == 0.8
    assert first.categories.pii is True and first.category_scores.pii == 0.7  # Mistral's own
    assert not second.flagged
    assert resp.provider == "mistral" and resp.model == "mistral-moderation-2411"
    openai.types.ModerationCreateResponse.model_validate(resp.model_dump())


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"model": "anthropic:claude-sonnet-4-5", "input": "x"}, ai.UnsupportedFeatureError,
     "the families that have it: openai, mistral"),
    ({"model": "mistral:mistral-moderation-latest",
      "input": [{"type": "image_url", "image_url": {"url": "https://x"}}]},
     ai.UnsupportedParameterError, "mistral moderates text"),
    ({"model": "openai:omni-moderation-latest", "input": []}, TypeError, "non-empty list"),
    ({"model": "openai:omni-moderation-latest", "input": [3]}, TypeError, "input\\[0\\]"),
    ({"model": "openai:omni-moderation-latest", "input": "x", "modle": "y"}, TypeError,
     "did you mean 'model'"),
])
def test_bad_moderations_are_refused_before_sending(kwargs: dict[str, Any], error: type,
                                                    words: str,
                                                    httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with pytest.raises(error, match=words):
        moderate("sync", **kwargs)
    assert not route.called


def test_a_malformed_verdict_is_a_validation_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json={"id": "m", "results": [
        {"flagged": "yes", "categories": {}}]})
    with pytest.raises(ai.APIResponseValidationError, match="flagged"):
        moderate("sync", model="openai:omni-moderation-latest", input="x")
