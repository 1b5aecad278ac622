"""``embeddings {model}`` spans (``ai.instrument``): one CLIENT span per request to the provider,
each part of a split input its own, with the GenAI attributes and the token metric; a failure
marks its span. Driven through the real ``openai`` SDK with HTTP mocked at httpcore2."""

from __future__ import annotations

import json
from typing import Any

import pytest
import respx
from support.client_calls import embed
from support.openai_helpers import KEY
from opentelemetry.trace import SpanKind, StatusCode
from support.telemetry import Telemetry

import aisuite_like as ai

URL = "https://api.openai.com/v1/embeddings"
MODEL = "openai:text-embedding-3-small"


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def reply(request: Any) -> respx.MockResponse:
    body = json.loads(request.content)
    n = len(body["input"])
    return respx.MockResponse(200, json={
        "object": "list", "model": "text-embedding-3-small",
        "data": [{"object": "embedding", "index": i, "embedding": [0.5]} for i in range(n)],
        "usage": {"prompt_tokens": 4 * n, "total_tokens": 4 * n}})


async def areply(request: Any) -> respx.MockResponse:
    return reply(request)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_embeddings_call_is_a_client_span(mode: str, otel: Telemetry,
                                             httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=reply if mode == "sync" else areply)
    embed(mode, {"openai": {"api_key": KEY, "max_retries": 0}}, model=MODEL,
          input=["a", "b"], dimensions=64)
    span = otel.one("embeddings text-embedding-3-small")
    assert span.kind == SpanKind.CLIENT
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "embeddings", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "text-embedding-3-small", "server.address": "api.openai.com",
        "server.port": 443, "gen_ai.request.encoding_formats": ("float",),
        "gen_ai.embeddings.dimension.count": 64,
        "gen_ai.response.model": "text-embedding-3-small", "gen_ai.usage.input_tokens": 8}
    (attributes, point), = otel.points("gen_ai.client.token.usage")
    assert attributes["gen_ai.token.type"] == "input" and point.sum == 8
    assert attributes["gen_ai.operation.name"] == "embeddings"
    otel.assert_no_key()


def test_each_part_of_a_split_input_is_a_span(otel: Telemetry,
                                              httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=reply)
    resp = embed("sync", {"openai": {"api_key": KEY, "max_embedding_inputs": 2}}, model=MODEL,
                 input=["a", "b", "c", "d", "e"])
    spans = otel.named("embeddings text-embedding-3-small")
    assert sorted(s.attributes["gen_ai.usage.input_tokens"] for s in spans) == [4, 8, 8]
    assert resp.usage.prompt_tokens == 20


def test_a_failure_marks_the_span(otel: Telemetry, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(401, json={"error": {"message": f"bad key {KEY}"}})
    with pytest.raises(ai.AuthenticationError):
        embed("sync", {"openai": {"api_key": KEY, "max_retries": 0}}, model=MODEL, input="a")
    span = otel.one("embeddings text-embedding-3-small")
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "AuthenticationError"
    otel.assert_no_key()
