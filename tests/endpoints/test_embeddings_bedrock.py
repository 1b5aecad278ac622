"""``client.embeddings.create`` on Amazon Bedrock through real botocore (InvokeModel, SigV4)
against the loopback server of tests/support/bedrock_server.py: Titan Text Embeddings (one text per
request, dimensions, normalize) and Cohere Embed (96 texts per request, input_type), split
lists sent concurrently and reassembled in order, token counts from the reply header,
throttling retried, secrets never shown."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_server import (
    SECRET_KEY,
    BedrockServer,
    Recorded,
    cohere_embeddings,
    error,
    titan_embedding,
)
from support.client_calls import embed

import aisuite_like as ai
from aisuite_like.testing import FakeClock

TITAN = "bedrock:amazon.titan-embed-text-v2:0"
COHERE = "bedrock:cohere.embed-english-v3"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture
def server() -> Iterator[BedrockServer]:
    with BedrockServer() as s:
        yield s


@pytest.fixture(params=["sync", "acreate", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def titan_echo(recorded: Recorded) -> Any:
    """A Titan reply whose vector is made from the text ``t<n>``: [n, n + 0.5]."""
    n = float(recorded.json["inputText"][1:])
    return titan_embedding([n, n + 0.5], tokens=2)


def test_titan_gets_one_text_per_invoke_model(mode: str, server: BedrockServer) -> None:
    server.default = titan_echo
    resp = embed(mode, {"bedrock": server.config(max_retries=0)}, model=TITAN,
                 input=["t1", "t2", "t3"], dimensions=256)
    assert len(server.requests) == 3
    for recorded in server.requests:
        assert recorded.operation == "invoke"
        assert recorded.model_id == "amazon.titan-embed-text-v2:0"
        assert recorded.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=")
        assert recorded.headers["content-type"] == "application/json"
    assert sorted(r.json["inputText"] for r in server.requests) == ["t1", "t2", "t3"]
    assert all(r.json == {"inputText": r.json["inputText"], "dimensions": 256,
                          "normalize": True} for r in server.requests)
    assert isinstance(resp, ai.CreateEmbeddingResponse) and resp.provider == "bedrock"
    assert resp.model == "amazon.titan-embed-text-v2:0"
    assert [(d.index, d.embedding) for d in resp.data] == [
        (0, [1.0, 1.5]), (1, [2.0, 2.5]), (2, [3.0, 3.5])]
    assert resp.usage.prompt_tokens == 6 and resp.usage.total_tokens == 6
    assert resp.usage.cost == pytest.approx(6 * 0.02 / 1e6)


def test_titan_parts_go_out_concurrently(server: BedrockServer) -> None:
    barrier = threading.Barrier(4, timeout=10)

    def held(recorded: Recorded) -> Any:
        barrier.wait()  # four requests in flight at once, or this times out
        return titan_echo(recorded)

    server.default = held
    resp = embed("sync", {"bedrock": server.config(max_retries=0)}, model=TITAN,
                 input=[f"t{i}" for i in range(4)])
    assert [d.embedding[0] for d in resp.data] == [0.0, 1.0, 2.0, 3.0]


def test_native_fields_go_into_the_body(server: BedrockServer) -> None:
    server.default = titan_echo
    embed("sync", {"bedrock": server.config()}, model=TITAN, input="t1", normalize=False,
          embeddingTypes=["float"])
    assert server.requests[0].json == {"inputText": "t1", "normalize": False,
                                       "embeddingTypes": ["float"]}


def test_cohere_takes_96_texts_per_request_and_an_input_type(mode: str,
                                                             server: BedrockServer) -> None:
    def reply(recorded: Recorded) -> Any:
        texts = recorded.json["texts"]
        return cohere_embeddings([[float(t[1:])] for t in texts], texts, tokens=len(texts))

    server.default = reply
    texts = [f"t{i}" for i in range(200)]
    resp = embed(mode, {"bedrock": server.config(max_retries=0)}, model=COHERE, input=texts,
                 input_type="query")
    bodies = [r.json for r in server.requests]
    assert sorted(len(b["texts"]) for b in bodies) == [8, 96, 96]
    assert all(b["input_type"] == "search_query" and b["embedding_types"] == ["float"]
               for b in bodies)
    assert [d.embedding for d in resp.data] == [[float(i)] for i in range(200)]
    assert [d.index for d in resp.data] == list(range(200))
    assert resp.usage.prompt_tokens == 200


def test_cohere_defaults_to_search_document_and_reads_plain_floats(
        server: BedrockServer) -> None:
    server.reply(cohere_embeddings([[0.5, 0.25]], ["hello"], by_type=False))
    resp = embed("sync", {"bedrock": server.config()}, model="bedrock:cohere.embed-v4:0",
                 input="hello", dimensions=256, encoding_format="base64")
    assert server.requests[0].json == {"texts": ["hello"], "input_type": "search_document",
                                       "embedding_types": ["float"], "output_dimension": 256}
    import base64
    import struct

    assert struct.unpack("<2f", base64.b64decode(resp.data[0].embedding)) == (0.5, 0.25)


@pytest.mark.parametrize(("model", "kwargs", "error_type"), [
    (TITAN, {"dimensions": 300}, ai.UnsupportedParameterError),
    (TITAN, {"input_type": "query"}, ai.UnsupportedParameterError),
    ("bedrock:amazon.titan-embed-text-v1", {"dimensions": 256}, ai.UnsupportedParameterError),
    (COHERE, {"dimensions": 256}, ai.UnsupportedParameterError),
    (TITAN, {"user": "u1"}, ai.UnsupportedParameterError),
    (TITAN, {"input": [[1, 2]]}, ai.UnsupportedParameterError),
    (TITAN, {"inputText": "x"}, ai.UnsupportedParameterError),
    ("bedrock:anthropic.claude-3-haiku", {}, ai.UnsupportedFeatureError),
])
def test_what_the_model_cannot_honour_raises_before_sending(
        model: str, kwargs: dict[str, Any], error_type: type, server: BedrockServer) -> None:
    kwargs.setdefault("input", ["t1", "t2"])
    with pytest.raises(error_type):
        embed("sync", {"bedrock": server.config()}, model=model, **kwargs)
    assert server.requests == []


def test_throttling_is_retried(mode: str, server: BedrockServer) -> None:
    clock = FakeClock()
    server.reply(error(429, "ThrottlingException", "slow down"), titan_embedding([1.0]))
    resp = embed(mode, {"bedrock": server.config(retry_clock=clock)}, model=TITAN, input="t1")
    assert len(server.requests) == 2 and len(clock.waits) == 1
    assert resp.data[0].embedding == [1.0]


def test_the_secret_key_never_shows_in_an_error(server: BedrockServer) -> None:
    server.reply(error(400, "ValidationException", f"bad request signed with {SECRET_KEY}"))
    with pytest.raises(ai.BadRequestError) as info:
        embed("sync", {"bedrock": server.config(max_retries=0)}, model=TITAN, input="t1")
    text = str(info.value) + repr(info.value) + repr(info.value.__cause__)
    assert SECRET_KEY not in text


def test_a_reply_that_is_not_an_embedding_is_a_typed_error(server: BedrockServer) -> None:
    from support.bedrock_server import Json

    server.reply(Json({"unexpected": True}))
    with pytest.raises(ai.APIResponseValidationError):
        embed("sync", {"bedrock": server.config(max_retries=0)}, model=TITAN, input="t1")


def test_the_token_header_is_the_count(server: BedrockServer) -> None:
    from support.bedrock_server import Json

    server.reply(Json({"embedding": [1.0]}, headers={"X-Amzn-Bedrock-Input-Token-Count": "9"}))
    resp = embed("sync", {"bedrock": server.config()}, model=TITAN, input="t1")
    assert resp.usage.prompt_tokens == 9
    assert json.loads(server.requests[0].raw) == {"inputText": "t1", "normalize": True}
