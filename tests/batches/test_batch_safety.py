"""client.batches never sends a key to another host, never builds a request path from an
unchecked provider batch id, and never creates a provider batch twice. Through the real SDKs
against the project's loopback batch server (tests/support/batch_server.py); a second loopback
address (``Witness``, 127.0.0.2) stands for another host."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from support.batch_server import BatchServer
from support.fault_server import Witness
from support.timing import scaled

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


# --- one provider batch per create(), even when its reply is lost -----------------------------

CREATE_ROUTE = {"openai": "openai.create", "anthropic": "anthropic.create",
                "google": "gemini.create"}


def submit(mode: str, server: BatchServer, family: str, **extra: Any) -> ai.Batch:
    requests = [req("ok-1", family), req("ok-2", family)]
    if mode == "sync":
        with ai.Client(configs(server, **extra)) as client:
            return client.batches.create(requests)

    async def run() -> ai.Batch:
        async with ai.AsyncClient(configs(server, **extra)) as client:
            return await client.batches.create(requests)
    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", ["openai", "google"])
def test_create_accepted_but_unanswered_finds_the_batch_instead_of_a_second(
        family: str, mode: str, server: BatchServer) -> None:
    from support.batch_server import AcceptThenStall

    server.fail(CREATE_ROUTE[family], AcceptThenStall())
    batch = submit(mode, server, family, timeout=scaled(0.5))
    assert len(server.batches) == 1  # exactly one provider batch exists
    (only,) = server.batches
    assert [p.batch_id for p in batch.parts] == [only]  # ... and it is the one handed back
    assert server.routes().count(CREATE_ROUTE[family]) == 1  # the create was not sent again
    with ai.Client(configs(server)) as client:
        finished(client, batch.id)
        assert sorted(k for k, _ in client.batches.results(batch.id)) == ["ok-1", "ok-2"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_anthropic_create_accepted_but_unanswered_is_raised_not_resubmitted(
        mode: str, server: BatchServer) -> None:
    from support.batch_server import AcceptThenStall

    server.fail("anthropic.create", AcceptThenStall())
    with pytest.raises(ai.APITimeoutError) as caught:
        submit(mode, server, "anthropic", timeout=scaled(0.5))
    assert len(server.batches) == 1 and server.routes() == ["anthropic.create"]
    message = str(caught.value)
    assert "whether the batch was created is unknown" in message
    assert "not sent again" in message and KEYS["anthropic"] not in message


@pytest.mark.parametrize("family", ["openai", "google"])
def test_create_unanswered_and_not_found_is_raised_not_resubmitted(
        family: str, server: BatchServer) -> None:
    from support.fault_server import Stall

    server.fail(CREATE_ROUTE[family], Stall())  # read, never performed, never answered
    with pytest.raises(ai.APITimeoutError, match="no batch it created was found"):
        submit("sync", server, family, timeout=scaled(0.5))
    assert server.batches == {} and server.routes().count(CREATE_ROUTE[family]) == 1


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_create_refused_with_a_status_is_still_retried(family: str,
                                                       server: BatchServer) -> None:
    from support.fault_server import Reply

    from aisuite_like.testing import FakeClock

    server.fail(CREATE_ROUTE[family], Reply(503))  # the server said no: nothing was created
    batch = submit("sync", server, family, retry_clock=FakeClock())
    assert len(server.batches) == 1 and len(batch.parts) == 1
    assert server.routes().count(CREATE_ROUTE[family]) == 2
