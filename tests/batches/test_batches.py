"""client.batches against the project's loopback batch server (tests/support/batch_server.py),
through the real openai, anthropic and google-genai SDKs, and on the native transport
(support/transports.py: google's batches stay on google-genai there). Assertions are on the
wire: the uploaded JSONL, the batch request bodies, the routes polled."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.batch_server import DEEP, BatchServer
from support.fault_server import Reply
from support.timing import scaled
from support.transports import each_transport, with_transport  # noqa: F401  (autouse)
from pydantic import BaseModel, ValidationError

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEYS = {"openai": "sk-test-OPENAI-SECRET-1234", "anthropic": "sk-ant-test-SECRET-5678",
        "google": "gem-test-SECRET-9012", "groq": "gsk-test-SECRET-3456"}
MODELS = {"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5",
          "google": "google:gemini-2.5-flash"}


@pytest.fixture
def server() -> Iterator[BatchServer]:
    with BatchServer(polls_to_finish=2) as s:
        yield s


def configs(server: BatchServer, clock: Any = None, **extra: Any) -> dict[str, dict[str, Any]]:
    base = {"retry_clock": clock} if clock is not None else {}
    return with_transport(_configs(server, base, extra))


def _configs(server: BatchServer, base: dict[str, Any], extra: dict[str, Any]
             ) -> dict[str, dict[str, Any]]:
    return {"openai": {"api_key": KEYS["openai"], "base_url": server.url + "/v1", **base, **extra},
            "groq": {"api_key": KEYS["groq"], "base_url": server.url + "/v1", **base, **extra},
            "anthropic": {"api_key": KEYS["anthropic"], "base_url": server.url, **base, **extra},
            "google": {"api_key": KEYS["google"], "base_url": server.url, **base, **extra}}


def make_client(server: BatchServer, clock: Any = None, **extra: Any) -> ai.Client:
    return ai.Client(provider_configs=configs(server, clock, **extra))


def req(custom_id: str, family: str, text: str = "hi", **kwargs: Any) -> dict[str, Any]:
    return {"custom_id": custom_id, "model": MODELS[family],
            "messages": [{"role": "user", "content": text}], **kwargs}


def drain(client: ai.Client, batch_id: str) -> dict[str, Any]:
    return dict(client.batches.results(batch_id))


# --- end to end, per family -------------------------------------------------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_submit_wait_results_per_family(server: BatchServer, family: str) -> None:
    client = make_client(server)
    batch = client.batches.create([req("ok-1", family, "first"), req("fail-1", family),
                                   req("ok-2", family, "second")], metadata={"run": "t1"})
    assert batch.status in ("validating", "in_progress")  # Anthropic has no validating
    assert batch.request_counts.total in (0, 3)
    assert [p.family for p in batch.parts] == [family]
    assert batch.id.startswith("batch_") and batch.metadata == {"run": "t1"}

    seen = []
    while not (b := client.batches.retrieve(batch.id)).done:
        seen.append(b.status)
    assert seen and set(seen) <= {"validating", "in_progress", "finalizing"}
    assert b.status == "completed"
    assert b.request_counts.model_dump() == {"total": 3, "completed": 2, "failed": 1}

    results = drain(client, batch.id)
    assert set(results) == {"ok-1", "ok-2", "fail-1"}
    for custom_id in ("ok-1", "ok-2"):
        response = results[custom_id]
        assert isinstance(response, ai.ChatCompletionResponse)
        assert response.choices[0].message.content == f"echo {custom_id}"
        assert response.provider == ("google" if family == "google" else family)
        assert response.usage is not None and response.usage.total_tokens == 5
    error = results["fail-1"]
    assert isinstance(error, ai.BadRequestError) and error.provider == family
    assert "injected bad request" in str(error)


def test_openai_wire_upload_and_batch_create(server: BatchServer) -> None:
    client = make_client(server)
    client.batches.create([req("a", "openai", "one"), req("b", "openai", "two", max_tokens=7)],
                          metadata={"team": "x"})
    assert server.routes() == ["openai.upload", "openai.create"]
    data, fields = server.uploads[0]
    assert fields == {"purpose": "batch"}
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert lines == [
        {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions",
         "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "one"}]}},
        {"custom_id": "b", "method": "POST", "url": "/v1/chat/completions",
         "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "two"}],
                  "max_tokens": 7}}]
    create = server.requests[1]
    assert create.body == {"input_file_id": "file-1", "endpoint": "/v1/chat/completions",
                           "completion_window": "24h", "metadata": {"team": "x"}}
    assert create.headers["authorization"] == f"Bearer {KEYS['openai']}"


def test_anthropic_and_gemini_wire(server: BatchServer) -> None:
    client = make_client(server)
    client.batches.create([req("a", "anthropic", "one", max_tokens=9),
                           req("g", "google", "two", temperature=0.5)])
    anthropic, gemini = server.requests
    assert anthropic.path == "/v1/messages/batches"
    assert anthropic.body == {"requests": [{"custom_id": "a", "params": {
        "model": "claude-haiku-4-5", "max_tokens": 9,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "one"}]}]}}]}
    assert gemini.path == "/v1beta/models/gemini-2.5-flash:batchGenerateContent"
    assert gemini.body["batch"]["inputConfig"]["requests"]["requests"] == [
        {"request": {"contents": [{"role": "user", "parts": [{"text": "two"}]}],
                     "generationConfig": {"temperature": 0.5}},
         "metadata": {"custom_id": "g"}}]
    assert gemini.headers["x-goog-api-key"] == KEYS["google"]


# --- a batch line is exactly what create() sends ----------------------------------------


def get_weather(city: str, unit: str = "celsius") -> str:
    """Weather for a city."""
    return f"sunny in {city}"


class Answer(BaseModel):
    city: str
    degrees: float


RICH: dict[str, dict[str, Any]] = {
    "openai": dict(tools=[get_weather], tool_choice="required", temperature=0.2, top_p=0.9,
                   max_tokens=50, stop=["END"], seed=7, user="u-1", response_format=Answer,
                   logprobs=True, extra_body={"service_tier": "flex"}),
    "anthropic": dict(tools=[get_weather], tool_choice="required", temperature=0.2, top_p=0.9,
                      max_tokens=50, stop="END", user="u-1", response_format=Answer,
                      top_k=5),
    "google": dict(tools=[get_weather], tool_choice="required", temperature=0.2, top_p=0.9,
                   max_tokens=50, stop=["END"], seed=7, response_format=Answer, top_k=5),
}
MESSAGES = [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
             "content": "sunny"}]


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_batch_line_body_equals_create_body(server: BatchServer, family: str) -> None:
    client = make_client(server)
    client.chat.completions.create(model=MODELS[family], messages=MESSAGES, **RICH[family])
    sent = server.requests[-1].body
    server.reset()
    client.batches.create([{"custom_id": "x", "model": MODELS[family], "messages": MESSAGES,
                            **RICH[family]}])
    if family == "openai":
        line = json.loads(server.uploads[0][0])["body"]
    elif family == "anthropic":
        line = server.requests[0].body["requests"][0]["params"]
    else:
        line = server.requests[0].body["batch"]["inputConfig"]["requests"]["requests"][0][
            "request"]
    assert line == sent
    assert "tools" in line  # the rich arguments really went out
    assert json.dumps(line).count("get_weather") >= 2


# --- splitting ----------------------------------------------------------------------------


def test_mixed_providers_are_split_per_key_and_gemini_model(server: BatchServer) -> None:
    client = make_client(server)
    batch = client.batches.create([
        req("o1", "openai"), req("a1", "anthropic"), req("g1", "google"),
        {**req("g2", "google"), "model": "google:gemini-2.5-pro"},
        {**req("q1", "openai"), "model": "groq:llama-3.1-8b-instant"},
        req("o2", "openai"), {**req("g3", "google"), "model": "gemini:gemini-2.5-flash"}])
    assert [(p.provider, p.family) for p in batch.parts] == [
        ("openai", "openai"), ("anthropic", "anthropic"), ("google", "google"),
        ("google", "google"), ("groq", "openai")]
    assert [r for r in server.routes()] == [
        "openai.upload", "openai.create", "anthropic.create", "gemini.create",
        "gemini.create", "openai.upload", "openai.create"]
    openai_lines = [json.loads(x)["custom_id"] for x in server.uploads[0][0].splitlines()]
    groq_lines = [json.loads(x)["custom_id"] for x in server.uploads[1][0].splitlines()]
    assert openai_lines == ["o1", "o2"] and groq_lines == ["q1"]
    flash = server.requests[3].body["batch"]["inputConfig"]["requests"]["requests"]
    assert [r["metadata"]["custom_id"] for r in flash] == ["g1", "g3"]
    assert server.requests[6].headers["authorization"] == f"Bearer {KEYS['groq']}"
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "completed" and done.request_counts.completed == 7
    assert set(drain(client, batch.id)) == {"o1", "o2", "a1", "g1", "g2", "g3", "q1"}


# --- validation before any I/O -----------------------------------------------------------


@pytest.mark.parametrize("requests, error, text", [
    ([], ai.BatchRequestError, "empty"),
    ({"custom_id": "a"}, ai.BatchRequestError, "list of dicts"),
    (["x"], ai.BatchRequestError, "expected a dict"),
    ([{"model": "openai:m", "messages": [{"role": "user", "content": "x"}]}],
     ai.BatchRequestError, "custom_id"),
    ([req("", "openai")], ai.BatchRequestError, "non-empty"),
    ([req("a", "openai"), req("a", "anthropic")], ai.BatchRequestError, "used twice"),
    ([req("a", "openai", stream=True)], ai.BatchRequestError, "stream"),
    ([req("a", "openai", max_turns=3)], ai.BatchRequestError, "max_turns"),
    ([req("a", "openai", tool_policy=None)], ai.BatchRequestError, "tool runner"),
    ([req("a", "openai", fallbacks=["anthropic:x"])], ai.BatchRequestError, "fallbacks"),
    ([req("a", "openai", timeout=5)], ai.BatchRequestError, "timeout"),
    ([{"custom_id": "a", "model": "openai:m"}], ai.BatchRequestError, "messages"),
    ([{**req("a", "openai"), "model": "nope"}], ai.InvalidModelError, "provider:model"),
    ([{**req("a", "openai"), "model": "unknown:m"}], ai.UnknownProviderError, "unknown"),
    ([{**req("a", "openai"), "model": "test:m"}], ai.BatchRequestError, "no batch API"),
    ([req("a", "openai"), req("b", "anthropic", seed=3)], ai.UnsupportedParameterError,
     "seed"),
    ([req("a", "google", user="u")], ai.UnsupportedParameterError, "user"),
    ([{**req("a", "openai"), "messages": []}], ai.UnsupportedParameterError, "empty"),
    ([req("a", "openai", temprature=0.1)], TypeError, "did you mean"),
    ([req("a", "openai", temperature="hot")], ValueError, "temperature"),
    ([req("a", "anthropic", extra_headers={"x": "y"})], ai.BatchRequestError, "extra_headers"),
])
def test_bad_input_is_refused_before_anything_is_sent(
        server: BatchServer, requests: Any, error: type[Exception], text: str) -> None:
    client = make_client(server)
    original = copy.deepcopy(requests)
    with pytest.raises(error) as info:
        client.batches.create(requests)
    assert text in str(info.value)
    assert server.requests == []  # nothing sent, not even for the valid requests before it
    assert requests == original


def test_request_errors_name_the_request(server: BatchServer) -> None:
    client = make_client(server)
    with pytest.raises(ai.BatchRequestError) as info:
        client.batches.create([req("a", "openai"), req("b", "openai", stream=True)])
    assert info.value.index == 1 and info.value.custom_id == "b"
    assert "requests[1] ('b')" in str(info.value)
    with pytest.raises(ai.UnsupportedParameterError, match=r"requests\[0\] \('z'\)"):
        client.batches.create([req("z", "anthropic", seed=1)])


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_provider_limits_are_checked_before_any_provider_gets_a_batch(
        server: BatchServer, monkeypatch: pytest.MonkeyPatch, family: str) -> None:
    from aisuite_like.batches import (
        anthropic as _batch_anthropic,
        google as _batch_google,
        openai as _batch_openai,
    )

    # Lowered so a test can exceed them; the real ones are 50,000 requests / 200 MB
    # (OpenAI), 100,000 / 256 MB (Anthropic), 20 MB inline (Gemini).
    monkeypatch.setattr(_batch_openai, "MAX_REQUESTS", 2)
    monkeypatch.setattr(_batch_anthropic, "MAX_BYTES", 400)
    monkeypatch.setattr(_batch_google, "MAX_INLINE_BYTES", 300)
    others = [req(f"other-{f}", f) for f in MODELS if f != family]
    big = [req(f"{family}-{i}", family, "x" * 50) for i in range(3)]
    with pytest.raises(ai.BatchRequestError, match="split"):
        client = make_client(server)
        client.batches.create([*others, *big])
    assert server.requests == []


@pytest.mark.parametrize("metadata", [{"a": 1}, "x", {f"k{i}": "v" for i in range(17)}])
def test_bad_metadata(server: BatchServer, metadata: Any) -> None:
    with pytest.raises(ai.BatchRequestError, match="metadata"):
        make_client(server).batches.create([req("a", "openai")], metadata=metadata)
    assert server.requests == []


def test_callers_requests_are_not_mutated(server: BatchServer) -> None:
    client = make_client(server)
    requests = [{"custom_id": "x", "model": MODELS[f], "messages": MESSAGES, **RICH[f]}
                for f in ("openai",)] + [req("y", "anthropic", max_tokens=5, stop="END")]
    snapshot = copy.deepcopy(requests)
    message_ids = [id(m) for m in MESSAGES]
    batch = client.batches.create(requests)
    assert requests == snapshot and [id(m) for m in MESSAGES] == message_ids
    client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert requests == snapshot


# --- ids: restart without local state, malformed ids ------------------------------------


def test_id_survives_a_fresh_client_in_a_new_process(server: BatchServer) -> None:
    batch = make_client(server).batches.create([req("a", "openai"), req("b", "anthropic"),
                                                req("c", "google")], metadata={"k": "v"})
    code = f"""
import json, sys
sys.path[:0] = [{str(__import__('pathlib').Path(__file__).parent)!r}, {str(__import__('pathlib').Path(__file__).parents[1])!r}]
import aisuite_like as ai
from test_batches import configs
class S: url = {server.url!r}
client = ai.Client(provider_configs=configs(S))
b = client.batches.wait({batch.id!r}, poll_interval=0.001, timeout={scaled(30)})
out = {{k: type(v).__name__ for k, v in client.batches.results(b.id)}}
print(json.dumps([b.status, b.metadata, [p.batch_id for p in b.parts], out]))
"""
    # the bounds scaled: on a busy machine the fresh process's first poll (three SDKs
    # imported) alone can take most of 30 s
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=scaled(30) + 90)
    assert run.returncode == 0, run.stderr
    status, metadata, ids, out = json.loads(run.stdout)
    assert status == "completed" and metadata == {"k": "v"}
    assert ids == [p.batch_id for p in batch.parts]
    assert out == {"a": "ChatCompletionResponse", "b": "ChatCompletionResponse",
                   "c": "ChatCompletionResponse"}
    for key in KEYS.values():
        assert key not in batch.id


def test_batches_on_the_native_transport_import_no_vendor_sdk(server: BatchServer) -> None:
    """create, wait and results of every family's batch on ``transport="native"``, in a
    fresh process: no vendor SDK is imported."""
    code = f"""
import json, sys
sys.path[:0] = [{str(__import__('pathlib').Path(__file__).parent)!r}, {str(__import__('pathlib').Path(__file__).parents[1])!r}]
import aisuite_like as ai
from test_batches import _configs, req
class S: url = {server.url!r}
client = ai.Client(provider_configs=_configs(S, {{}}, {{}}), transport="native")
b = client.batches.create([req("a", "openai"), req("b", "anthropic"), req("c", "google")])
b = client.batches.wait(b.id, poll_interval=0.001, timeout={scaled(30)})
out = {{k: type(v).__name__ for k, v in client.batches.results(b.id)}}
loaded = sorted(m for m in ("openai", "anthropic", "google.genai") if m in sys.modules)
print(json.dumps([b.status, out, loaded]))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=scaled(30) + 90)
    assert run.returncode == 0, run.stderr
    status, out, loaded = json.loads(run.stdout)
    assert status == "completed" and loaded == []
    assert out == dict.fromkeys("abc", "ChatCompletionResponse")


@pytest.mark.parametrize("bad", [
    "", "abc", "batch_", "batch_!!!", "batch_" + "eyJ2IjoyfQ", "batch_bnVsbA",
    "batch_eyJ2IjoxLCJwIjpbXSwidCI6MX0", "batch_eyJ2IjoxLCJwIjpbWyJvcGVuYWkiXV0sInQiOjF9",
    None, 42])
def test_malformed_ids_are_refused(server: BatchServer, bad: Any) -> None:
    client = make_client(server)
    for call in (client.batches.retrieve, client.batches.cancel, client.batches.results):
        with pytest.raises(ai.InvalidBatchIdError, match="not a batch id"):
            call(bad)
    with pytest.raises(ai.InvalidBatchIdError):
        client.batches.wait(bad, poll_interval=1)
    assert isinstance(ai.InvalidBatchIdError("x"), ValueError)
    assert server.requests == []


def test_unknown_provider_batch_is_a_not_found(server: BatchServer) -> None:
    from aisuite_like.batches.core import encode_id

    client = make_client(server, max_retries=0)
    with pytest.raises(ai.NotFoundError):
        client.batches.retrieve(encode_id([("openai", "batch_nope")], 1, None))


# --- faults --------------------------------------------------------------------------------


@pytest.mark.parametrize("family, route", [("openai", "openai.retrieve"),
                                           ("anthropic", "anthropic.retrieve"),
                                           ("google", "gemini.retrieve")])
def test_429_and_500_on_polls_are_retried(server: BatchServer, family: str, route: str) -> None:
    clock = FakeClock()
    client = make_client(server, clock)
    batch = client.batches.create([req("a", family)])
    server.fail(route, Reply(429, headers={"retry-after": "3"}), Reply(500))
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "completed"
    assert clock.waits[:2] == [3.0, 1.0]  # Retry-After honoured, then backoff
    assert server.routes().count(route) >= 2 + 2


def test_polls_fail_once_retries_are_spent(server: BatchServer) -> None:
    clock = FakeClock()
    client = make_client(server, clock, max_retries=1)
    batch = client.batches.create([req("a", "openai")])
    server.fail("openai.retrieve", Reply(503), Reply(503))
    with pytest.raises(ai.InternalServerError) as info:
        client.batches.retrieve(batch.id)
    assert info.value.status_code == 503 and len(clock.waits) == 1


def test_upload_failure_is_typed_and_retried(server: BatchServer) -> None:
    clock = FakeClock()
    client = make_client(server, clock)
    server.fail("openai.upload", Reply(500))
    batch = client.batches.create([req("a", "openai")])
    assert server.routes() == ["openai.upload", "openai.upload", "openai.create"]
    assert len(batch.parts) == 1
    server.fail("anthropic.create", Reply(401))
    with pytest.raises(ai.AuthenticationError) as info:
        client.batches.create([req("b", "anthropic")])
    assert KEYS["anthropic"] not in repr(info.value) + str(info.value)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_failed_submit_hands_back_what_was_already_submitted(server: BatchServer,
                                                               mode: str) -> None:
    """Mixed input, the second provider refuses its batch: the error carries the provider
    batches already submitted as a Batch whose id reads them; an error before any submit
    carries None."""
    server.fail("anthropic.create", Reply(401))
    requests = [req("o1", "openai"), req("a1", "anthropic"), req("g1", "google")]
    if mode == "sync":
        client = make_client(server)
        with pytest.raises(ai.AuthenticationError) as info:
            client.batches.create(requests, metadata={"job": "7"})
    else:
        async def run() -> None:
            async with ai.AsyncClient(provider_configs=configs(server)) as aclient:
                await aclient.batches.create(requests, metadata={"job": "7"})

        with pytest.raises(ai.AuthenticationError) as info:
            asyncio.run(run())
        client = make_client(server)
    assert server.routes() == ["openai.upload", "openai.create", "anthropic.create"]
    submitted = info.value.submitted_batch
    assert [p.provider for p in submitted.parts] == ["openai"]
    assert submitted.metadata == {"job": "7"}
    assert KEYS["anthropic"] not in repr(info.value) + str(info.value)
    done = client.batches.wait(submitted.id, poll_interval=0.001, timeout=30)
    assert done.status == "completed" and set(drain(client, submitted.id)) == {"o1"}

    server.fail("openai.upload", *[Reply(400)])
    with pytest.raises(ai.BadRequestError) as first:
        client.batches.create(requests)
    assert first.value.submitted_batch is None


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_malformed_result_lines_are_errors_for_their_request_only(
        server: BatchServer, family: str) -> None:
    client = make_client(server)
    batch = client.batches.create([req("ok-1", family), req("garbled-1", family),
                                   req("bad-1", family), req("ok-2", family)])
    client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    results = drain(client, batch.id)
    assert set(results) == {"ok-1", "ok-2", "garbled-1", "bad-1"}
    assert isinstance(results["ok-1"], ai.ChatCompletionResponse)
    assert isinstance(results["ok-2"], ai.ChatCompletionResponse)
    for custom_id in ("garbled-1", "bad-1"):
        assert isinstance(results[custom_id], ai.APIResponseValidationError)
        assert results[custom_id].provider == family


@pytest.mark.usefixtures("no_collector_midway")
@pytest.mark.parametrize("family", ["openai", "anthropic"])
def test_a_deeply_nested_result_line_is_an_error_for_its_request_only(
        server: BatchServer, family: str) -> None:
    client = make_client(server)
    batch = client.batches.create([req("ok-1", family), req("deep-1", family)])
    client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    results = drain(client, batch.id)
    assert isinstance(results["ok-1"], ai.ChatCompletionResponse)
    assert isinstance(results["deep-1"], ai.APIResponseValidationError)
    assert "nested more than 200 levels deep" in str(results["deep-1"])


@pytest.mark.usefixtures("no_collector_midway")
def test_a_deeply_nested_gemini_batch_reply_is_a_typed_error(server: BatchServer) -> None:
    """Gemini sends the results inside the batch itself: the reply cannot be read."""
    client = make_client(server)
    batch = client.batches.create([req("ok-1", "google"), req("deep-1", "google")])
    with pytest.raises(ai.APIResponseValidationError, match="nested more than 200"):
        client.batches.wait(batch.id, poll_interval=0.001, timeout=30)


def test_a_deeply_nested_batch_id_is_refused(server: BatchServer) -> None:
    bad = "batch_" + base64.urlsafe_b64encode(DEEP.encode()).decode().rstrip("=")
    client = make_client(server)
    for call in (client.batches.retrieve, client.batches.cancel, client.batches.results):
        with pytest.raises(ai.InvalidBatchIdError, match="not a batch id"):
            call(bad)
    assert server.requests == []


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_a_batch_that_expires(server: BatchServer, family: str) -> None:
    server.outcome = "expired"
    client = make_client(server)
    batch = client.batches.create([req("a", family), req("b", family)])
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "expired" and done.done
    results = drain(client, batch.id)
    if family == "google":  # Gemini returns no per-request output for an expired batch
        assert results == {}
    else:
        assert set(results) == {"a", "b"}
        assert all(isinstance(r, ai.BatchRequestExpiredError) for r in results.values())


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_cancel(server: BatchServer, family: str) -> None:
    client = make_client(server)
    batch = client.batches.create([req("a", family), req("b", family)])
    cancelling = client.batches.cancel(batch.id)
    assert cancelling.status == "cancelling" or (family == "google"
                                                 and cancelling.status == "cancelled")
    assert server.routes()[-1 if family != "google" else -2].endswith(".cancel")
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "cancelled"
    results = drain(client, batch.id)
    if family != "google":
        assert all(isinstance(r, ai.BatchRequestCancelledError) for r in results.values())


def test_wait_timeout_names_the_batch_and_its_status(server: BatchServer) -> None:
    server.polls_to_finish = 10_000
    clock = FakeClock()
    client = make_client(server)
    batch = client.batches.create([req("a", "openai"), req("b", "anthropic")])
    with pytest.raises(ai.BatchTimeoutError) as info:
        client.batches.wait(batch.id, poll_interval=4, timeout=10, clock=clock)
    assert info.value.batch_id == batch.id and info.value.status == "validating"
    assert batch.id in str(info.value) and "last status: validating" in str(info.value)
    assert clock.waits == [4, 4, 2]  # bounded: never sleeps past the timeout
    assert isinstance(info.value, TimeoutError)


@pytest.mark.parametrize("kwargs", [{"poll_interval": 0}, {"poll_interval": -1},
                                    {"poll_interval": "1"}, {"poll_interval": 1, "timeout": 0}])
def test_wait_arguments_are_checked(server: BatchServer, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        make_client(server).batches.wait("batch_x", **kwargs)


# --- secrets ------------------------------------------------------------------------------


def test_no_key_in_batches_reprs_or_errors(server: BatchServer) -> None:
    client = make_client(server, max_retries=0)
    batch = client.batches.create([req("a", "openai"), req("fail-b", "anthropic"),
                                   req("c", "google")])
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    texts = [batch.id, repr(batch), batch.model_dump_json(), repr(done), str(done),
             repr(client.batches), repr(client)]
    results = drain(client, batch.id)
    texts += [repr(r) + str(r) for r in results.values()]
    server.fail("gemini.retrieve", Reply(401, body={"error": {
        "code": 401, "message": f"bad key {KEYS['google']}", "status": "UNAUTHENTICATED"}}))
    with pytest.raises(ai.AuthenticationError) as info:
        client.batches.retrieve(batch.id)
    texts += [repr(info.value), str(info.value), str(info.value.__cause__)]
    blob = "\n".join(texts)
    for key in KEYS.values():
        assert key not in blob


# --- async --------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google"])
def test_async_client_end_to_end(server: BatchServer, family: str) -> None:
    async def main() -> tuple[Any, dict[str, Any]]:
        async with ai.AsyncClient(provider_configs=configs(server)) as client:
            batch = await client.batches.create([req("ok-1", family), req("fail-1", family)])
            await client.batches.retrieve(batch.id)
            done = await client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
            results = {k: v async for k, v in client.batches.results(batch.id)}
            return done, results

    done, results = asyncio.run(main())
    assert done.status == "completed"
    assert results["ok-1"].choices[0].message.content == "echo ok-1"
    assert isinstance(results["fail-1"], ai.BadRequestError)


def test_async_twins_on_the_sync_client(server: BatchServer) -> None:
    client = make_client(server)

    async def main() -> Any:
        batch = await client.batches.acreate([req("a", "openai"), req("b", "google")])
        cancelled = await client.batches.acancel(batch.id)
        assert cancelled.status == "cancelling"
        done = await client.batches.await_(batch.id, poll_interval=0.001, timeout=30,
                                           clock=None)
        results = [k async for k, _ in client.batches.aresults(batch.id)]
        return done, results

    done, results = asyncio.run(main())
    assert done.status == "cancelled"
    assert results == ["a"]  # OpenAI lists the cancelled request; Gemini returns none
    with pytest.raises(ai.InvalidBatchIdError):
        client.batches.aresults("nope")


def test_async_wait_timeout_uses_the_clock(server: BatchServer) -> None:
    server.polls_to_finish = 10_000
    clock = FakeClock()

    async def main() -> None:
        async with ai.AsyncClient(provider_configs=configs(server)) as client:
            batch = await client.batches.create([req("a", "google")])
            await client.batches.wait(batch.id, poll_interval=5, timeout=12, clock=clock)

    with pytest.raises(ai.BatchTimeoutError):
        asyncio.run(main())
    assert clock.waits == [5, 5, 2]


# --- import weight ------------------------------------------------------------------------


def test_batches_load_no_sdk_until_used() -> None:
    code = ("import sys, aisuite_like as ai; ai.Client(); ai.Batch; ai.Client().batches; "
            "print(sorted(m for m in ('openai', 'anthropic', 'google.genai') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    code = "import sys, aisuite_like; print('aisuite_like.batches' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "False"


# --- the pure parts -----------------------------------------------------------------------


@pytest.mark.parametrize("statuses, merged", [
    (["completed"], "completed"), (["completed", "in_progress"], "in_progress"),
    (["validating", "finalizing"], "validating"), (["cancelling", "validating"], "cancelling"),
    (["failed", "completed"], "completed"), (["failed", "expired"], "expired"),
    (["cancelled", "failed"], "cancelled"), (["failed"], "failed"),
])
def test_merge_status(statuses: list[str], merged: str) -> None:
    from aisuite_like.batches.core import merge_status

    assert merge_status(statuses) == merged


def test_id_round_trip_keeps_unicode_and_metadata() -> None:
    from aisuite_like.batches.core import decode_id, encode_id

    parts = [("openai", "batch_1"), ("google", "batches/xyz")]
    batch_id = encode_id(parts, 1700000000, {"note": "été ✓"})
    assert decode_id(batch_id) == (parts, 1700000000, {"note": "été ✓"})
    assert set(batch_id[6:]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789-_")


def test_batch_is_typed_and_frozen(server: BatchServer) -> None:
    batch = make_client(server).batches.create([req("a", "openai")])
    assert isinstance(batch, ai.Batch) and isinstance(batch.parts[0], ai.BatchPart)
    with pytest.raises(ValidationError):
        batch.status = "completed"  # type: ignore[misc]
    assert ai.Batch.model_validate(batch.model_dump()) == batch




def test_scale_benchmark_quick_runs() -> None:
    """benchmarks/scale_batches.py --quick: the code keeps working (its numbers mean
    nothing at N=20)."""
    from pathlib import Path

    script = Path(__file__).parents[2] / "benchmarks" / "scale_batches.py"
    done = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert {(r["family"], r["mode"]) for r in report["rows"]} == {
        (f, m) for f in ("openai", "anthropic", "google") for m in ("sync", "async")}
    assert all(r["n"] == 20 and r["requests_per_s"] > 0 for r in report["rows"])


@pytest.mark.parametrize("family, route", [("openai", "openai.retrieve"),
                                           ("anthropic", "anthropic.retrieve"),
                                           ("google", "gemini.retrieve")])
def test_a_stalled_poll_times_out_typed(server: BatchServer, family: str, route: str) -> None:
    from support.fault_server import Stall

    client = make_client(server, max_retries=0, timeout=scaled(0.3))
    batch = client.batches.create([req("a", family)])
    server.fail(route, Stall())
    with pytest.raises(ai.APITimeoutError) as info:
        client.batches.retrieve(batch.id)
    assert info.value.provider == family


# --- per-request errors map as create maps them (the pure result translators) ---------------


@pytest.mark.parametrize("response, error", [
    ({"status_code": 400, "body": {"error": {"message": "This model's maximum context length "
                                              "is 128000 tokens", "type": "invalid_request_error",
                                              "code": "context_length_exceeded"}}},
     ai.ContextWindowExceededError),
    ({"status_code": 429, "body": {"error": {"message": "slow down"}}}, ai.RateLimitError),
    ({"status_code": 500, "body": {"error": {"message": "boom"}}}, ai.InternalServerError),
    ({"status_code": 404, "body": {"error": {"message": "no model"}}}, ai.NotFoundError),
])
def test_openai_result_line_errors(response: dict[str, Any], error: type[Exception]) -> None:
    from aisuite_like.batches.openai import line_result

    result = line_result({"custom_id": "x", "response": {**response, "request_id": "req_9"},
                          "error": None}, "openai")
    assert type(result) is error and result.request_id == "req_9"


@pytest.mark.parametrize("error, expected", [
    ({"type": "invalid_request_error", "message": "prompt is too long: 250000 tokens > 200000"},
     ai.ContextWindowExceededError),
    ({"type": "overloaded_error", "message": "Overloaded"}, ai.InternalServerError),
    ({"type": "rate_limit_error", "message": "x"}, ai.RateLimitError),
    ({"type": "authentication_error", "message": "x"}, ai.AuthenticationError),
])
def test_anthropic_result_errors(error: dict[str, Any], expected: type[Exception]) -> None:
    from aisuite_like.batches.anthropic import line_result

    result = line_result({"type": "errored", "error": {"type": "error", "error": error}},
                         "anthropic")
    assert type(result) is expected


@pytest.mark.parametrize("code, expected", [
    (3, ai.BadRequestError), (8, ai.RateLimitError), (5, ai.NotFoundError),
    (13, ai.InternalServerError), (429, ai.RateLimitError)])
def test_gemini_inline_errors(code: int, expected: type[Exception]) -> None:
    from aisuite_like.batches.google import read_inline

    raw = {"name": "batches/1", "metadata": {"state": "BATCH_STATE_SUCCEEDED", "output": {
        "inlinedResponses": {"inlinedResponses": [
            {"metadata": {"custom_id": "x"}, "error": {"code": code, "message": "m"}},
            {"response": {"candidates": []}}]}}}}
    (first_id, first), (second_id, second) = read_inline(raw, "google")
    assert first_id == "x" and type(first) is expected
    assert second_id == "" and isinstance(second, ai.APIResponseValidationError)


def test_openai_line_that_is_json_but_not_an_object_keeps_the_others() -> None:
    from aisuite_like.batches.openai import read_lines

    ok = {"custom_id": "ok", "response": {"status_code": 200, "body": {
        "id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": "hi"}}]}}, "error": None}
    data = "\n".join(["[1, 2]", json.dumps(ok), '{"custom_id": "cut\\"q", "resp', "",
                      json.dumps({"custom_id": "e", "response": None,
                                  "error": {"code": "batch_cancelled", "message": "c"}})])
    results = read_lines(data.encode(), "openai")
    assert [r[0] for r in results] == ["", "ok", 'cut"q', "e"]
    assert isinstance(results[1][1], ai.ChatCompletionResponse)
    assert isinstance(results[0][1], ai.APIResponseValidationError)
    assert isinstance(results[2][1], ai.APIResponseValidationError)
    assert isinstance(results[3][1], ai.BatchRequestCancelledError)


def test_block_real_requests_covers_batches(server: BatchServer) -> None:
    from aisuite_like import testing

    client = make_client(server)
    batch = client.batches.create([req("a", "openai")])
    server.reset()
    fresh = make_client(server)
    with testing.block_real_requests():
        with pytest.raises(testing.RealRequestBlockedError):
            fresh.batches.create([req("b", "anthropic")])
        with pytest.raises(testing.RealRequestBlockedError):
            fresh.batches.retrieve(batch.id)
    assert server.requests == []


@pytest.mark.parametrize("family", ["openai", "google"])
def test_a_batch_that_fails_as_a_whole_says_why(server: BatchServer, family: str) -> None:
    server.outcome = "failed"
    client = make_client(server)
    batch = client.batches.create([req("a", family)])
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "failed" and done.parts[0].status == "failed"
    assert done.parts[0].error == {
        "openai": "invalid_json_line: line 1 is not valid (line 1)",
        "google": "INVALID_ARGUMENT: input did not validate"}[family]
    assert drain(client, batch.id) == {}
