"""client.batches.results reads what it needs and no more: one retrieve of the batch, then
its results bodies read line by line as they arrive (never held whole), a body cut short
read again from where it broke. Against the loopback batch server through the real SDKs;
assertions on the wire (the routes the server saw) and on what the caller receives."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Optional

import pytest
from support.batch_server import BatchServer
from support.fault_server import Raw
from test_batches import KEYS, configs, make_client, req

import aisuite_like as ai
from aisuite_like.batches.core import LineReader
from aisuite_like.testing import FakeClock

RETRIEVE = {"openai": "openai.retrieve", "anthropic": "anthropic.retrieve",
            "google": "gemini.retrieve"}
BODY_ROUTE = {"openai": "openai.content", "anthropic": "anthropic.results"}


@pytest.fixture
def server() -> Any:
    with BatchServer(polls_to_finish=2) as s:
        yield s


def collect(client: ai.Client, batch_id: str, mode: str) -> list[tuple[str, Any]]:
    if mode == "sync":
        return list(client.batches.results(batch_id))

    async def main() -> list[tuple[str, Any]]:
        return [item async for item in client.batches.aresults(batch_id)]

    return asyncio.run(main())


def finished(server: BatchServer, client: ai.Client, family: str,
             custom_ids: list[str]) -> ai.Batch:
    batch = client.batches.create([req(c, family) for c in custom_ids])
    done = client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert done.status == "completed"
    return done


def results_body(server: BatchServer, family: str, batch: ai.Batch) -> bytes:
    """The results body the server sends for this batch (its output file on OpenAI)."""
    native = server.batches[batch.parts[0].batch_id]
    if family == "openai":
        return server.files[native.files["output"]]
    return server._anthropic_results(native).encode()


def cut_reply(server: BatchServer, body: bytes, cut: int) -> Raw:
    """A 200 announcing the whole body, of which only ``cut`` bytes come before the close."""
    head = server._head(200, {"content-type": "application/octet-stream"}, len(body))
    return Raw(head + body[:cut])


# --- what goes on the wire ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family, reads", [
    ("openai", ["openai.retrieve", "openai.content", "openai.content"]),  # output, error file
    ("anthropic", ["anthropic.retrieve", "anthropic.results"]),
    ("google", ["gemini.retrieve"])])  # inline responses come with the batch
def test_wait_polls_then_results_retrieve_once_and_read_once(
        server: BatchServer, family: str, reads: list[str], mode: str) -> None:
    client = make_client(server)
    batch = client.batches.create([req("ok-1", family), req("fail-1", family),
                                   req("ok-2", family)])
    server.reset()
    client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
    assert server.routes() == [RETRIEVE[family]] * 2  # polls_to_finish=2, nothing else
    server.reset()
    results = dict(collect(client, batch.id, mode))
    assert server.routes() == reads
    assert set(results) == {"ok-1", "fail-1", "ok-2"}
    assert isinstance(results["fail-1"], ai.BadRequestError)
    assert results["ok-2"].choices[0].message.content == "echo ok-2"
    if family == "anthropic":  # the results URL of the batch, read as the SDK reads it
        fetch = server.requests[-1]
        assert fetch.path == f"/v1/messages/batches/{batch.parts[0].batch_id}/results"
        auth = fetch.headers.get("x-api-key") or fetch.headers.get("authorization", "")
        assert KEYS["anthropic"] in auth
        assert fetch.headers["accept"] == "application/binary"


# --- a body cut short -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", ["openai", "anthropic"])
def test_a_body_cut_short_is_read_again_and_each_result_comes_once(
        server: BatchServer, family: str, mode: str) -> None:
    clock = FakeClock()
    client = make_client(server, clock)
    custom_ids = [f"ok-{i}" for i in range(5)]
    batch = finished(server, client, family, custom_ids)
    body = results_body(server, family, batch)
    cut = body.index(b"\n", body.index(b"\n") + 1) + 40  # two lines and part of the third
    server.reset()
    server.fail(BODY_ROUTE[family], cut_reply(server, body, cut))
    results = collect(client, batch.id, mode)
    assert [c for c, _ in results] == custom_ids  # in order, none twice, none lost
    assert all(isinstance(r, ai.ChatCompletionResponse) for _, r in results)
    assert server.routes().count(BODY_ROUTE[family]) == 2
    assert len(clock.waits) == 1  # one retry, with the policy's backoff


@pytest.mark.parametrize("family", ["openai", "anthropic"])
def test_a_body_cut_past_the_retries_raises_typed_after_what_had_arrived(
        server: BatchServer, family: str) -> None:
    client = make_client(server, max_retries=0)
    custom_ids = [f"ok-{i}" for i in range(5)]
    batch = finished(server, client, family, custom_ids)
    body = results_body(server, family, batch)
    server.fail(BODY_ROUTE[family],
                cut_reply(server, body, body.index(b"\n", body.index(b"\n") + 1) + 40))
    results = client.batches.results(batch.id)
    first, second = next(results), next(results)  # yielded before the body broke
    assert (first[0], second[0]) == ("ok-0", "ok-1")
    assert isinstance(second[1], ai.ChatCompletionResponse)
    with pytest.raises(ai.APIConnectionError) as info:
        next(results)
    assert info.value.provider == family
    assert KEYS[family] not in str(info.value) + repr(info.value)


# --- memory: results stream -----------------------------------------------------------------


@pytest.fixture(scope="module")
def remote_url() -> Any:
    """A batch server in its own process, so that tracemalloc sees only the client."""
    serve = Path(__file__).parents[2] / "benchmarks" / "scale_batches.py"
    process = subprocess.Popen([sys.executable, str(serve), "--serve"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdin is not None
    try:
        yield process.stdout.readline().strip()
    finally:
        process.stdin.close()
        process.wait(10)


def peak_reading_results(url: str, family: str, n: int) -> int:
    server = SimpleNamespace(url=url)
    with ai.Client(provider_configs=configs(server)) as client:  # type: ignore[arg-type]
        batch = client.batches.create([req(f"r{i}", family) for i in range(n)])
        client.batches.wait(batch.id, poll_interval=0.001, timeout=30)
        for _ in client.batches.results(batch.id):  # first use: lazy imports, SDK set-up
            break
        tracemalloc.start()
        try:
            count = sum(1 for _ in client.batches.results(batch.id))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert count == n
    return peak


@pytest.mark.parametrize("family", ["openai", "anthropic"])
def test_reading_results_takes_the_same_memory_for_8x_the_results(remote_url: str,
                                                                   family: str) -> None:
    # Read whole, the body (bytes, text, lines) and every result are held at once: the peak
    # grows with N (x8 here). Read as it arrives, it is a few network chunks and one result.
    small, large = (peak_reading_results(remote_url, family, n) for n in (500, 4000))
    assert large < 1.5 * small, (small, large)


# --- the line reader (sans-IO) --------------------------------------------------------------


def _parse(line: str, number: int) -> Optional[tuple[str, Any]]:
    return None if not line.strip() else (str(number), line)


BODY = b'{"a": 1}\r\n\n{"b": "\xc3\xa9"}\n\xff\n{"c": 3}'
EXPECTED = [("1", '{"a": 1}'), ("3", '{"b": "\u00e9"}'), ("4", "\ufffd"), ("5", '{"c": 3}')]


@pytest.mark.parametrize("size", [1, 2, 3, 7, len(BODY)])
def test_line_reader_reads_the_same_however_the_body_is_chunked(size: int) -> None:
    reader = LineReader(_parse)
    got = []
    for start in range(0, len(BODY), size):
        got += reader.feed(BODY[start:start + size])
    assert got + reader.end() == EXPECTED


@pytest.mark.parametrize("cut", [0, 5, 10, 11, 15, 30])
def test_line_reader_restarted_skips_the_lines_already_read(cut: int) -> None:
    reader = LineReader(_parse)
    first = reader.feed(BODY[:cut])
    reader.restart()
    assert first + reader.feed(BODY[:cut // 2]) + reader.feed(BODY[cut // 2:]) \
        + reader.end() == EXPECTED
