"""``client.embeddings.create`` on the google family through the real google-genai SDK
(``models.embed_content``), HTTP mocked at httpcore2 (respx), asserting the wire bodies:
``batchEmbedContents`` on the Gemini API, ``predict`` on Vertex AI, ``input_type`` as task
type, ``dimensions`` as output dimensionality, splitting at 100 inputs, base64, retries; the
Gemini API's on each transport (support/transports.py), Vertex AI's on the SDK's."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import threading
from typing import Any

import pytest
import respx
from support.client_calls import embed, wire
from support.transports import each_transport, native  # noqa: F401  (autouse fixture)

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "AIzaSyTESTKEY-0123456789abcdefghij"
URL = ("https://generativelanguage.googleapis.com/v1beta/models/"
       "gemini-embedding-001:batchEmbedContents")
MODEL = "google:gemini-embedding-001"
CONFIG = {"google": {"api_key": KEY, "max_retries": 0}}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "acreate", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def vector_of(text: str) -> list[float]:
    n = float(text[1:])
    return [n, n + 0.25]


def reply_for(body: dict[str, Any], usage: bool = False) -> dict[str, Any]:
    texts = [r["content"]["parts"][0]["text"] for r in body["requests"]]
    out: dict[str, Any] = {"embeddings": [{"values": vector_of(t)} for t in texts]}
    if usage:
        out["usageMetadata"] = {"promptTokenCount": 3 * len(texts),
                                "totalTokenCount": 3 * len(texts)}
    return out


def echo(mode: str, usage: bool = False) -> Any:
    def sync(request: Any) -> respx.MockResponse:
        return respx.MockResponse(200, json=reply_for(json.loads(request.content), usage))

    async def asynchronous(request: Any) -> respx.MockResponse:
        return sync(request)

    return sync if mode == "sync" else asynchronous


def test_the_gemini_api_gets_batch_embed_contents(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo(mode))
    resp = embed(mode, CONFIG, model=MODEL, input=["t1", "t2"], input_type="query",
                 dimensions=768)
    assert wire(route) == {"requests": [
        {"content": {"parts": [{"text": text}]}, "taskType": "RETRIEVAL_QUERY",
         "outputDimensionality": 768, "model": "models/gemini-embedding-001"}
        for text in ("t1", "t2")]}
    assert route.calls[0].request.headers["x-goog-api-key"] == KEY
    assert isinstance(resp, ai.CreateEmbeddingResponse) and resp.provider == "google"
    assert resp.model == "gemini-embedding-001"
    assert [(d.index, d.embedding) for d in resp.data] == [(0, [1.0, 1.25]), (1, [2.0, 2.25])]
    # The Gemini API reports no token count here: usage 0, no price.
    assert resp.usage.prompt_tokens == 0 and resp.usage.cost is None


def test_document_and_native_config_fields(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo("sync", usage=True))
    resp = embed("sync", CONFIG, model=MODEL, input="t5", input_type="document",
                 title="A title")
    assert wire(route)["requests"] == [{
        "content": {"parts": [{"text": "t5"}]}, "taskType": "RETRIEVAL_DOCUMENT",
        "title": "A title", "model": "models/gemini-embedding-001"}]
    assert resp.usage.prompt_tokens == 3 and resp.usage.total_tokens == 3
    assert resp.usage.cost == pytest.approx(3 * 0.15 / 1e6)


def test_base64_is_encoded_from_the_floats(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=echo(mode))
    resp = embed(mode, CONFIG, model=MODEL, input="t3", encoding_format="base64")
    raw = base64.b64decode(resp.data[0].embedding)
    assert struct.unpack("<2f", raw) == (3.0, 3.25)


def test_over_100_inputs_are_split_sent_concurrently_and_reassembled(
        mode: str, httpx2_mock: respx.Router) -> None:
    bodies: list[dict[str, Any]] = []
    barrier = threading.Barrier(3, timeout=10)
    state: dict[str, Any] = {"arrived": 0, "event": None}

    def sync(request: Any) -> respx.MockResponse:
        body = json.loads(request.content)
        bodies.append(body)
        barrier.wait()  # all three requests in flight at once
        return respx.MockResponse(200, json=reply_for(body, usage=True))

    async def asynchronous(request: Any) -> respx.MockResponse:
        body = json.loads(request.content)
        bodies.append(body)
        if state["event"] is None:
            state["event"] = asyncio.Event()
        state["arrived"] += 1
        if state["arrived"] == 3:
            state["event"].set()
        await asyncio.wait_for(state["event"].wait(), 10)
        return respx.MockResponse(200, json=reply_for(body, usage=True))

    httpx2_mock.post(URL).mock(side_effect=sync if mode == "sync" else asynchronous)
    texts = [f"t{i}" for i in range(250)]
    resp = embed(mode, CONFIG, model=MODEL, input=texts)
    assert sorted(len(b["requests"]) for b in bodies) == [50, 100, 100]
    assert [d.index for d in resp.data] == list(range(250))
    assert [d.embedding for d in resp.data] == [[float(i), i + 0.25] for i in range(250)]
    assert resp.usage.prompt_tokens == 750


@pytest.mark.sdk_only
def test_vertex_ai_gets_predict(httpx2_mock: respx.Router) -> None:
    url = ("https://aiplatform.googleapis.com/v1beta1/publishers/google/models/"
           "text-embedding-005:predict")
    route = httpx2_mock.post(url).respond(200, json={"predictions": [
        {"embeddings": {"values": [0.5, 0.25], "statistics": {"token_count": 4,
                                                               "truncated": False}}},
        {"embeddings": {"values": [0.75, 1.0], "statistics": {"token_count": 6,
                                                               "truncated": False}}}]})
    resp = embed("sync", {"google": {"vertexai": True, "api_key": KEY, "max_retries": 0}},
                 model="google:text-embedding-005", input=["first", "second"],
                 input_type="document", dimensions=2)
    assert wire(route) == {"instances": [{"content": "first", "task_type": "RETRIEVAL_DOCUMENT"},
                                         {"content": "second",
                                          "task_type": "RETRIEVAL_DOCUMENT"}],
                           "parameters": {"outputDimensionality": 2}}
    assert [d.embedding for d in resp.data] == [[0.5, 0.25], [0.75, 1.0]]
    assert resp.usage.prompt_tokens == 10


def test_a_429_is_retried(mode: str, httpx2_mock: respx.Router) -> None:
    clock = FakeClock()
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(429, json={"error": {"code": 429, "message": "quota",
                                                "status": "RESOURCE_EXHAUSTED"}}),
        respx.MockResponse(200, json={"embeddings": [{"values": [1.0]}]})])
    resp = embed(mode, {"google": {"api_key": KEY, "retry_clock": clock}}, model=MODEL,
                 input="t1")
    assert route.call_count == 2 and len(clock.waits) == 1
    assert resp.data[0].embedding == [1.0]


def test_the_key_never_shows_in_an_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(400, json={"error": {
        "code": 400, "message": f"API key not valid: {KEY}", "status": "INVALID_ARGUMENT"}})
    with pytest.raises(ai.BadRequestError) as info:
        embed("sync", CONFIG, model=MODEL, input="t1")
    assert KEY not in str(info.value) + repr(info.value) + repr(info.value.__cause__)


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"input": [[1, 2]]}, "input"),
    ({"user": "u1"}, "user"),
    ({"input_type": "query", "task_type": "CLUSTERING"}, "task_type"),
    ({"not_a_field": 1}, None),
])
def test_what_gemini_cannot_honour_raises_before_sending(
        kwargs: dict[str, Any], parameter: Any, httpx2_mock: respx.Router) -> None:
    kwargs.setdefault("input", "t1")
    with pytest.raises(ai.UnsupportedParameterError) as info:
        embed("sync", CONFIG, model=MODEL, **kwargs)
    if parameter is None and native():  # no google-genai to reject it: named here
        parameter = "not_a_field"
    assert info.value.parameter == parameter
    assert not httpx2_mock.calls


def test_a_reply_without_embeddings_is_a_typed_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json={"embeddings": [{"values": [1.0]}]})
    with pytest.raises(ai.APIResponseValidationError):  # one vector for two inputs
        embed("sync", CONFIG, model=MODEL, input=["t1", "t2"])
