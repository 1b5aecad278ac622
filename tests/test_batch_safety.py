"""client.batches never sends a key to another host, never builds a request path from an
unchecked provider batch id, and never creates a provider batch twice. Through the real SDKs
against the project's loopback batch server (tests/_batch_server.py); a second loopback
address (``Witness``, 127.0.0.2) stands for another host."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from _batch_server import BatchServer
from _fault_server import Witness

import aisuite_like as ai

KEYS = {"openai": "sk-test-OPENAI-SECRET-1234", "anthropic": "sk-ant-test-SECRET-5678",
        "google": "gem-test-SECRET-9012"}
MODELS = {"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5",
          "google": "google:gemini-2.5-flash"}


@pytest.fixture
def server() -> Iterator[BatchServer]:
    with BatchServer(polls_to_finish=1) as s:
        yield s


@pytest.fixture
def other() -> Iterator[Witness]:
    with Witness() as witness:
        yield witness


def configs(server: BatchServer, **extra: Any) -> dict[str, dict[str, Any]]:
    return {"openai": {"api_key": KEYS["openai"], "base_url": server.url + "/v1", **extra},
            "anthropic": {"api_key": KEYS["anthropic"], "base_url": server.url, **extra},
            "google": {"api_key": KEYS["google"], "base_url": server.url, **extra}}


def req(custom_id: str, family: str, text: str = "hi") -> dict[str, Any]:
    return {"custom_id": custom_id, "model": MODELS[family],
            "messages": [{"role": "user", "content": text}]}


def finished(client: ai.Client, batch_id: str) -> ai.Batch:
    while not (batch := client.batches.retrieve(batch_id)).done:
        pass
    return batch


# --- Anthropic results_url on another host ---------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_anthropic_results_url_on_another_host_is_not_fetched(
        mode: str, server: BatchServer, other: Witness) -> None:
    server.results_base = other.url
    with ai.Client(configs(server)) as client:
        batch = client.batches.create([req("ok-1", "anthropic"), req("ok-2", "anthropic")])
        assert finished(client, batch.id).status == "completed"
        if mode == "sync":
            results = dict(client.batches.results(batch.id))
        else:
            async def read() -> dict[str, Any]:
                async with ai.AsyncClient(configs(server)) as aclient:
                    return {k: v async for k, v in aclient.batches.results(batch.id)}
            results = asyncio.run(read())
    assert other.requests == []  # the key never went to the other host
    # ... and the results were read from the configured endpoint's results route
    assert server.routes()[-1] == "anthropic.results"
    assert KEYS["anthropic"] in str(server.requests[-1].headers)
    assert {k: v.choices[0].message.content for k, v in results.items()} == {
        "ok-1": "echo ok-1", "ok-2": "echo ok-2"}


def test_anthropic_results_url_on_the_configured_host_is_used_as_given(
        server: BatchServer) -> None:
    with ai.Client(configs(server)) as client:
        batch = client.batches.create([req("ok-1", "anthropic")])
        finished(client, batch.id)
        assert [k for k, _ in client.batches.results(batch.id)] == ["ok-1"]
    assert server.routes()[-1] == "anthropic.results"


# --- Gemini batch ids become request paths only encoded ---------------------------------------


def batch_id_for(*parts: tuple[str, str]) -> str:
    """A ``Batch.id`` in its documented format (``batch_`` + base64url JSON), as anyone
    holding one could alter it."""
    import base64
    import json

    raw = json.dumps({"v": 1, "p": [list(p) for p in parts], "t": 0}).encode()
    return "batch_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("gemini_id", [
    "batches/../../models/gemini-2.5-flash:generateContent",
    "batches/x/../../../files",
    "batches/abc?alt=sse&key=stolen",
    "batches/abc#frag",
])
@pytest.mark.parametrize("operation", ["retrieve", "cancel", "results"])
def test_gemini_batch_id_is_one_encoded_path_segment(
        gemini_id: str, operation: str, server: BatchServer) -> None:
    with ai.Client(configs(server, max_retries=0)) as client:
        call = getattr(client.batches, operation)
        with pytest.raises(ai.NotFoundError):
            result = call(batch_id_for(("google", gemini_id)))
            if operation == "results":
                list(result)
    assert server.requests, "nothing was sent"
    for request in server.requests:
        path = request.path
        assert path.startswith("/v1beta/batches/"), path
        segment = path[len("/v1beta/batches/"):].removesuffix(":cancel")
        assert "/" not in segment and "?" not in segment and "#" not in segment, path


@pytest.mark.parametrize("gemini_id", ["batches/", "batches/..", "batches/.", "models/x",
                                       "../batches/x", "batches/a\nb"])
def test_malformed_gemini_batch_id_is_refused_before_any_request(
        gemini_id: str, server: BatchServer) -> None:
    with ai.Client(configs(server)) as client:
        with pytest.raises(ai.InvalidBatchIdError, match="Gemini batch name"):
            client.batches.retrieve(batch_id_for(("google", gemini_id)))
    assert server.requests == []
