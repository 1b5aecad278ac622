"""``client.embeddings.create`` on the OpenAI family through the real ``openai`` SDK, HTTP mocked
at httpcore2 (respx), asserting the wire bodies: the services' columns (dimensions field,
base64, token arrays), splitting over the per-request limit (sent concurrently, reassembled in
order), retries, redaction, usage and cost. Sync, the sync client's ``acreate`` and
``AsyncClient`` alike, on each transport (support/transports.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import threading
import time
from typing import Any

import pytest
import respx
from support.client_calls import embed, wire
from support.openai_helpers import KEY
from support.transports import each_transport  # noqa: F401  (autouse: every transport)

import aisuite_like as ai
from aisuite_like.testing import FakeClock

URL = "https://api.openai.com/v1/embeddings"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}
MODEL = "openai:text-embedding-3-small"


@pytest.fixture
def httpx2_mock() -> Any:
    """respx on httpcore2, without "every route must be called" (some tests prove that no
    request was made)."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "acreate", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def b64(values: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def floats(text: str) -> list[float]:
    raw = base64.b64decode(text)
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def vector_of(item: Any) -> list[float]:
    """The test server's vector for one input: [n, n + 0.5] for the text "t<n>"."""
    n = float(item[1:]) if isinstance(item, str) else float(sum(item))
    return [n, n + 0.5]


def reply_for(body: dict[str, Any], *, reverse: bool = True, tokens_each: int = 2,
              model: str = "text-embedding-3-small") -> dict[str, Any]:
    """An OpenAI ``/embeddings`` reply to ``body``: a vector per input, in the encoding asked
    for, listed in reverse index order (the index is what places a vector)."""
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    want_b64 = body.get("encoding_format") == "base64"
    data = [{"object": "embedding", "index": i,
             "embedding": b64(vector_of(x)) if want_b64 else vector_of(x)}
            for i, x in enumerate(inputs)]
    if reverse:
        data.reverse()
    n = tokens_each * len(inputs)
    return {"object": "list", "data": data, "model": model,
            "usage": {"prompt_tokens": n, "total_tokens": n}}


def echo(mode: str, **options: Any) -> Any:
    """A respx side effect answering each request with ``reply_for`` its body (async for the
    async client)."""
    def sync(request: Any) -> respx.MockResponse:
        return respx.MockResponse(200, json=reply_for(json.loads(request.content), **options))

    async def asynchronous(request: Any) -> respx.MockResponse:
        return sync(request)

    return sync if mode == "sync" else asynchronous


# --- one request ------------------------------------------------------------------------------


def test_a_text_goes_out_and_floats_come_back(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo(mode))
    resp = embed(mode, CONFIG, model=MODEL, input="t3")
    # Asked for as base64 (as the OpenAI SDK asks: a smaller reply), decoded to floats.
    assert wire(route) == {"model": "text-embedding-3-small", "input": ["t3"],
                           "encoding_format": "base64"}
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    assert isinstance(resp, ai.CreateEmbeddingResponse)
    assert resp.object == "list" and resp.provider == "openai"
    assert resp.model == "text-embedding-3-small"
    assert [(d.object, d.index, d.embedding) for d in resp.data] == [
        ("embedding", 0, [3.0, 3.5])]
    assert resp.usage.prompt_tokens == 2 and resp.usage.total_tokens == 2
    assert resp.usage.cost == pytest.approx(2 * 0.02 / 1e6)


def test_base64_comes_back_as_openai_sends_it(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo(mode))
    resp = embed(mode, CONFIG, model=MODEL, input=["t1", "t2"], encoding_format="base64",
                 dimensions=2, user="user-42")
    assert wire(route) == {"model": "text-embedding-3-small", "input": ["t1", "t2"],
                           "dimensions": 2, "encoding_format": "base64", "user": "user-42"}
    assert [d.embedding for d in resp.data] == [b64([1.0, 1.5]), b64([2.0, 2.5])]
    assert [floats(d.embedding) for d in resp.data] == [[1.0, 1.5], [2.0, 2.5]]


def test_token_arrays_are_sent_as_given(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo(mode))
    one = embed(mode, CONFIG, model=MODEL, input=[5, 6])
    assert wire(route)["input"] == [[5, 6]]
    assert one.data[0].embedding == [11.0, 11.5]
    two = embed(mode, CONFIG, model=MODEL, input=[[1, 2], (3,)])
    assert wire(route)["input"] == [[1, 2], [3]]
    assert [d.embedding for d in two.data] == [[3.0, 3.5], [3.0, 3.5]]


def test_provider_native_arguments_pass_through(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(URL).mock(side_effect=echo(mode))
    embed(mode, CONFIG, model=MODEL, input="t1", extra_headers={"x-trace": "abc"},
          extra_body={"a": 1}, b=2)
    assert wire(route) == {"model": "text-embedding-3-small", "input": ["t1"],
                           "encoding_format": "base64", "a": 1, "b": 2}
    assert route.calls[0].request.headers["x-trace"] == "abc"


def test_the_callers_list_is_not_changed(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).mock(side_effect=echo("sync"))
    texts = ["t1", "t2", "t3"]
    embed("sync", {"openai": {"api_key": KEY, "max_embedding_inputs": 2}}, model=MODEL,
          input=texts)
    assert texts == ["t1", "t2", "t3"]


# --- the services' columns --------------------------------------------------------------------

SERVICE_URLS = {
    "mistral": "https://api.mistral.ai/v1/embeddings",
    "together": "https://api.together.xyz/v1/embeddings",
    "cohere": "https://api.cohere.ai/compatibility/v1/embeddings",
    "ollama": "http://localhost:11434/v1/embeddings",
    "vllm": "http://localhost:8000/v1/embeddings",
}


def test_mistral_takes_dimensions_as_output_dimension(mode: str,
                                                      httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(SERVICE_URLS["mistral"]).mock(side_effect=echo(mode))
    resp = embed(mode, {"mistral": {"api_key": KEY}}, model="mistral:codestral-embed",
                 input=["t1"], dimensions=256)
    assert wire(route) == {"model": "codestral-embed", "input": ["t1"],
                           "encoding_format": "base64", "output_dimension": 256}
    assert resp.provider == "mistral" and resp.data[0].embedding == [1.0, 1.5]


def test_a_service_without_base64_is_asked_for_floats_and_encoded_here(
        mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(SERVICE_URLS["together"]).mock(side_effect=echo(mode))
    resp = embed(mode, {"together": {"api_key": KEY}}, model="together:BAAI/bge-base-en-v1.5",
                 input=["t1", "t2"], encoding_format="base64")
    assert wire(route)["encoding_format"] == "float"
    assert [floats(d.embedding) for d in resp.data] == [[1.0, 1.5], [2.0, 2.5]]


@pytest.mark.parametrize(("key", "model", "kwargs", "parameter"), [
    ("together", "together:m", {"dimensions": 64}, "dimensions"),
    ("cohere", "cohere:embed-v4.0", {"input": [[1, 2]]}, "input"),
    ("openai", MODEL, {"input_type": "query"}, "input_type"),
])
def test_what_a_service_cannot_honour_raises_before_sending(
        key: str, model: str, kwargs: dict[str, Any], parameter: str,
        httpx2_mock: respx.Router) -> None:
    kwargs.setdefault("input", "t1")
    with pytest.raises(ai.UnsupportedParameterError) as info:
        embed("sync", {key: {"api_key": KEY}}, model=model, **kwargs)
    assert info.value.parameter == parameter and info.value.provider == key
    assert not httpx2_mock.calls


def test_a_service_without_embeddings_says_which_have_them(httpx2_mock: respx.Router) -> None:
    with pytest.raises(ai.UnsupportedFeatureError) as info:
        embed("sync", {"groq": {"api_key": KEY}}, model="groq:any", input="t1")
    assert info.value.feature == "embeddings" and info.value.provider == "groq"
    assert "openai" in str(info.value) and "google" in str(info.value)
    assert not httpx2_mock.calls


def test_local_servers_need_no_key_and_take_token_arrays(mode: str,
                                                         httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(SERVICE_URLS["vllm"]).mock(side_effect=echo(mode))
    resp = embed(mode, {}, model="vllm:intfloat/e5-small", input=[[4]], dimensions=2)
    assert wire(route) == {"model": "intfloat/e5-small", "input": [[4]], "dimensions": 2,
                           "encoding_format": "base64"}
    assert resp.data[0].embedding == [4.0, 4.5]


# --- splitting over the per-request limit -----------------------------------------------------


class Gate:
    """A respx side effect that holds every request until ``parties`` are in flight at once
    (so they were sent concurrently; a deadlock would time out), then answers it."""

    def __init__(self, mode: str, parties: int) -> None:
        self.mode = mode
        self.parties = parties
        self.bodies: list[dict[str, Any]] = []
        self.barrier = threading.Barrier(parties, timeout=10)
        self.arrived = 0
        self.event: Any = None

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.bodies.append(body)
        if self.mode == "sync":
            self.barrier.wait()
            return respx.MockResponse(200, json=reply_for(body))

        async def later() -> respx.MockResponse:
            if self.event is None:
                self.event = asyncio.Event()
            self.arrived += 1
            if self.arrived >= self.parties:
                self.event.set()
            await asyncio.wait_for(self.event.wait(), 10)
            return respx.MockResponse(200, json=reply_for(body))

        return later()


def test_a_long_list_is_split_sent_concurrently_and_reassembled_in_order(
        mode: str, httpx2_mock: respx.Router) -> None:
    gate = Gate(mode, parties=3)
    httpx2_mock.post(URL).mock(side_effect=gate)
    texts = [f"t{i}" for i in range(5000)]
    resp = embed(mode, CONFIG, model=MODEL, input=texts)
    # OpenAI's 2048 inputs per request: three requests, all in flight together.
    assert sorted(len(b["input"]) for b in gate.bodies) == [904, 2048, 2048]
    assert sorted(x for b in gate.bodies for x in b["input"]) == sorted(texts)
    assert [d.index for d in resp.data] == list(range(5000))
    assert [d.embedding for d in resp.data] == [[float(i), i + 0.5] for i in range(5000)]
    assert resp.usage.prompt_tokens == resp.usage.total_tokens == 10000
    assert resp.usage.cost == pytest.approx(10000 * 0.02 / 1e6)


def test_max_concurrency_bounds_the_parts_in_flight(mode: str,
                                                    httpx2_mock: respx.Router) -> None:
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def enter() -> None:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])

    def leave(body: dict[str, Any]) -> respx.MockResponse:
        with lock:
            state["now"] -= 1
        return respx.MockResponse(200, json=reply_for(body))

    def sync(request: Any) -> respx.MockResponse:
        enter()
        time.sleep(0.05)
        return leave(json.loads(request.content))

    async def asynchronous(request: Any) -> respx.MockResponse:
        enter()
        await asyncio.sleep(0.05)
        return leave(json.loads(request.content))

    route = httpx2_mock.post(URL).mock(side_effect=sync if mode == "sync" else asynchronous)
    config = {"openai": {"api_key": KEY, "max_retries": 0, "max_concurrency": 2,
                         "max_embedding_inputs": 3}}
    resp = embed(mode, config, model=MODEL, input=[f"t{i}" for i in range(20)])
    assert route.call_count == 7 and state["most"] == 2
    assert [d.embedding[0] for d in resp.data] == [float(i) for i in range(20)]


def test_a_failed_part_fails_the_call_with_its_typed_error(mode: str,
                                                           httpx2_mock: respx.Router) -> None:
    def sync(request: Any) -> respx.MockResponse:
        body = json.loads(request.content)
        if "t3" in body["input"]:
            return respx.MockResponse(400, json={"error": {"message": "bad input",
                                                           "type": "invalid_request_error"}})
        return respx.MockResponse(200, json=reply_for(body))

    async def asynchronous(request: Any) -> respx.MockResponse:
        return sync(request)

    httpx2_mock.post(URL).mock(side_effect=sync if mode == "sync" else asynchronous)
    config = {"openai": {"api_key": KEY, "max_retries": 0, "max_embedding_inputs": 2}}
    with pytest.raises(ai.BadRequestError, match="bad input"):
        embed(mode, config, model=MODEL, input=[f"t{i}" for i in range(8)])


# --- retries, errors, redaction ---------------------------------------------------------------


def test_a_429_is_retried(mode: str, httpx2_mock: respx.Router) -> None:
    clock = FakeClock()
    ok = reply_for({"input": ["t1"], "encoding_format": "base64"})
    route = httpx2_mock.post(URL).mock(side_effect=[
        respx.MockResponse(429, json={"error": {"message": "slow down"}},
                           headers={"retry-after": "2"}),
        respx.MockResponse(200, json=ok)])
    resp = embed(mode, {"openai": {"api_key": KEY, "retry_clock": clock}}, model=MODEL,
                 input="t1")
    assert route.call_count == 2 and clock.waits == [2.0]
    assert resp.data[0].embedding == [1.0, 1.5]


def test_the_key_never_shows_in_an_error(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}."}})
    with pytest.raises(ai.AuthenticationError) as info:
        embed(mode, CONFIG, model=MODEL, input="t1")
    text = str(info.value) + repr(info.value) + repr(info.value.__cause__)
    assert KEY not in text and "[REDACTED]" in text


@pytest.mark.parametrize("reply", [
    {"object": "list", "data": [{"index": 0, "embedding": [1.0]},
                                {"index": 1, "embedding": [2.0]}]},  # one too many
    {"object": "list", "data": []},
    {"object": "list", "data": [{"index": 0, "embedding": "not base64!"}]},
    {"object": "list", "data": [{"index": 0, "embedding": {"a": 1}}]},
    {"object": "list"},
])
def test_a_malformed_reply_is_a_typed_error(reply: dict[str, Any],
                                            httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=reply)
    with pytest.raises(ai.APIResponseValidationError) as info:
        embed("sync", CONFIG, model=MODEL, input="t1")
    assert info.value.provider == "openai"


def test_a_reply_without_usage_is_unpriced(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json={"object": "list", "model": "m", "data": [
        {"index": 0, "embedding": [1.0]}]})
    resp = embed("sync", CONFIG, model=MODEL, input="t1")
    assert resp.usage.prompt_tokens == 0 and resp.usage.cost is None


# --- arguments checked before anything is sent ------------------------------------------------


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"input": ""}, ai.UnsupportedParameterError, "empty string"),
    ({"input": []}, ai.UnsupportedParameterError, "empty list"),
    ({"input": ["a", ""]}, ai.UnsupportedParameterError, r"input\[1\] is an empty string"),
    ({"input": ["a", 1]}, ai.UnsupportedParameterError, r"input\[1\]"),
    ({"input": b"bytes"}, ai.UnsupportedParameterError, "input must be"),
    ({"input": [[1], []]}, ai.UnsupportedParameterError, r"input\[1\]"),
    ({"input": "a", "dimensions": 0}, ai.UnsupportedParameterError, "dimensions"),
    ({"input": "a", "encoding_format": "int8"}, ai.UnsupportedParameterError,
     "encoding_format"),
    ({"input": "a", "input_type": "search_query"}, ai.UnsupportedParameterError,
     "input_type"),
    ({"input": "a", "timeout": -1}, ai.UnsupportedParameterError, "timeout"),
    ({"input": "a", "dimension": 8}, TypeError, "did you mean 'dimensions'"),
    ({"input": "a", "messages": []}, TypeError, "chat argument 'messages'"),
    ({"input": "a", "cache": False}, TypeError, "'cache'"),
    ({"input": "a", "reasoning_effort": "low"}, TypeError, "'reasoning_effort'"),
    ({"input": "a", "prompt_cache": "auto"}, TypeError, "'prompt_cache'"),
    ({"input": "a", "model": "nocolon"}, ai.InvalidModelError, "provider:model"),
])
def test_bad_arguments_raise_before_anything_is_sent(kwargs: dict[str, Any], error: type,
                                                     match: str,
                                                     httpx2_mock: respx.Router) -> None:
    kwargs.setdefault("model", MODEL)
    with pytest.raises(error, match=match):
        embed("sync", CONFIG, **kwargs)
    assert not httpx2_mock.calls


def test_anthropic_refuses_before_sending(mode: str, httpx2_mock: respx.Router) -> None:
    with pytest.raises(ai.UnsupportedFeatureError) as info:
        embed(mode, {"anthropic": {"api_key": "sk-ant-test-key-0123456789"}},
              model="anthropic:claude-sonnet-4-5", input="t1")
    text = str(info.value)
    assert info.value.provider == "anthropic" and info.value.feature == "embeddings"
    for family in ("openai", "mistral", "google", "bedrock", "cohere"):
        assert family in text
    assert not httpx2_mock.calls


# --- more services on the wire ----------------------------------------------------------------


def test_azure_sends_to_the_deployment_with_its_key_header(httpx2_mock: respx.Router) -> None:
    url = ("https://my-resource.openai.azure.com/openai/deployments/text-embedding-3-small/"
           "embeddings")
    route = httpx2_mock.post(url).mock(side_effect=echo("sync"))
    resp = embed("sync", {"azure": {"api_key": KEY, "azure_endpoint":
                                    "https://my-resource.openai.azure.com",
                                    "api_version": "2024-10-21"}},
                 model="azure:text-embedding-3-small", input=["t1", "t2"], dimensions=2)
    request = route.calls[0].request
    assert request.url.params["api-version"] == "2024-10-21"
    assert request.headers["api-key"] == KEY
    assert wire(route) == {"model": "text-embedding-3-small", "input": ["t1", "t2"],
                           "dimensions": 2, "encoding_format": "base64"}
    assert resp.provider == "azure" and [d.embedding for d in resp.data] == [
        [1.0, 1.5], [2.0, 2.5]]


@pytest.mark.parametrize(("key", "url", "model", "kwargs", "sent"), [
    ("cohere", SERVICE_URLS["cohere"], "cohere:embed-v4.0", {},
     {"model": "embed-v4.0", "input": ["t1"], "encoding_format": "base64"}),
    ("ollama", SERVICE_URLS["ollama"], "ollama:nomic-embed-text", {"dimensions": 2},
     {"model": "nomic-embed-text", "input": ["t1"], "dimensions": 2,
      "encoding_format": "base64"}),
    ("fireworks", "https://api.fireworks.ai/inference/v1/embeddings",
     "fireworks:nomic-ai/nomic-embed-text-v1.5", {"dimensions": 2},
     {"model": "nomic-ai/nomic-embed-text-v1.5", "input": ["t1"], "dimensions": 2,
      "encoding_format": "float"}),
    ("lmstudio", "http://localhost:1234/v1/embeddings", "lmstudio:text-embedding-nomic", {},
     {"model": "text-embedding-nomic", "input": ["t1"], "encoding_format": "float"}),
])
def test_each_service_gets_its_row_on_the_wire(key: str, url: str, model: str,
                                               kwargs: dict[str, Any], sent: dict[str, Any],
                                               httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url).mock(side_effect=echo("sync"))
    config = {key: {"api_key": KEY}} if key in ("cohere", "fireworks") else {}
    resp = embed("sync", config, model=model, input="t1", **kwargs)
    assert wire(route) == sent
    assert resp.provider == key and resp.data[0].embedding == [1.0, 1.5]


def test_fireworks_splits_at_its_own_limit(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.fireworks.ai/inference/v1/embeddings").mock(
        side_effect=echo("sync"))
    resp = embed("sync", {"fireworks": {"api_key": KEY}},
                 model="fireworks:nomic-ai/nomic-embed-text-v1.5",
                 input=[f"t{i}" for i in range(20)])
    assert sorted(len(json.loads(c.request.content)["input"]) for c in route.calls) == [4, 8, 8]
    assert [d.embedding[0] for d in resp.data] == [float(i) for i in range(20)]
