"""Streaming against a REAL HTTP server on 127.0.0.1 (asyncio, started by the test in its own
thread), speaking OpenAI SSE, through the real SDK and its real transports (httpx2, and the
aiohttp one).

1. The server sends two chunks, then waits on an Event that only the consumer sets after it
   has RECEIVED those chunks: the consumer gets chunks before the server has finished.
   (No clocks: if the client buffered the whole body, the server would never be released;
   its wait has a generous guard so a regression fails instead of hanging.)
2. The server drops the connection mid-stream: the consumer gets APIConnectionError at the
   break and ``stream.chunks`` holds what arrived.
Every test runs on both transports, the SDK's and the native one (tests/support/transports.py).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Optional

import pytest
from support.transports import each_transport, native, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai

GUARD_S = 30.0  # deadlock guard only; never reached when the code works


def _event(delta: dict, finish: Optional[str] = None) -> bytes:
    data = {"id": "chatcmpl-loop", "object": "chat.completion.chunk", "created": 1,
            "model": "loop-model", "choices": [{"index": 0, "delta": delta,
                                                "finish_reason": finish}]}
    return f"data: {json.dumps(data)}\n\n".encode()


FIRST = [_event({"role": "assistant", "content": "one "}), _event({"content": "two "})]
REST = [_event({"content": "three"}), _event({}, finish="stop"), b"data: [DONE]\n\n"]


class SSEServer:
    """A tiny HTTP/1.1 server: reads one request, answers with chunked SSE.

    ``behaviour`` "slow": send FIRST, wait for ``release``, send REST. "drop": send FIRST, then
    abort the TCP connection (an incomplete chunked body).
    """

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.release = threading.Event()      # set by the consumer
        self.finished = threading.Event()     # set by the server after its last byte
        self.guard_expired = False
        self.requests: list[dict[str, Any]] = []
        self._ready = threading.Event()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self.port = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "SSEServer":
        self._thread.start()
        assert self._ready.wait(GUARD_S), "loopback server did not start"
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(GUARD_S)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:] if line)
        length = int({k.lower(): v for k, v in headers.items()}["content-length"])
        self.requests.append(json.loads(await reader.readexactly(length)))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n")
        for piece in FIRST:
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        if self.behaviour == "drop":
            writer.transport.abort()  # mid-body: no terminating chunk
            self.finished.set()
            return
        released = await asyncio.get_running_loop().run_in_executor(
            None, self.release.wait, GUARD_S)
        self.guard_expired = not released
        for piece in REST:
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        self.finished.set()
        writer.close()


def _config(server: SSEServer, transport: str = "httpx") -> dict[str, Any]:
    if native():  # aiohttp for async calls, always
        if transport == "aiohttp":
            pytest.skip("the native transport's async requests are aiohttp's already")
        return with_transport({"vllm": {"base_url": server.base_url, "max_retries": 0}})
    return {"vllm": {"base_url": server.base_url, "max_retries": 0,
                     "async_transport": transport}}


# --- 1. chunks arrive before the server has finished ----------------------------------------


def test_sync_consumer_sees_chunks_before_server_finishes() -> None:
    with SSEServer("slow") as server:
        client = ai.Client(_config(server))
        stream = client.chat.completions.create(model="vllm:m", messages=[
            {"role": "user", "content": "count"}], stream=True)
        got = []
        with stream:
            for chunk in stream:
                got.append(chunk.choices[0].delta.content)
                if len(got) == 2:
                    # Two chunks are here while the server is still waiting for us.
                    assert not server.finished.is_set()
                    server.release.set()
            final = stream.get_final_response()
        client.close()
    assert not server.guard_expired
    assert got[:2] == ["one ", "two "]
    assert final.choices[0].message.content == "one two three"
    assert final.choices[0].finish_reason == "stop"
    assert server.requests[0]["stream"] is True


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_async_consumer_sees_chunks_before_server_finishes(transport: str) -> None:
    async def run(server: SSEServer) -> tuple[list, ai.ChatCompletionResponse]:
        async with ai.AsyncClient(_config(server, transport)) as client:
            stream = await client.chat.completions.create(model="vllm:m", messages=[
                {"role": "user", "content": "count"}], stream=True)
            got = []
            async with stream:
                async for chunk in stream:
                    got.append(chunk.choices[0].delta.content)
                    if len(got) == 2:
                        assert not server.finished.is_set()
                        server.release.set()
                final = await stream.get_final_response()
            return got, final

    with SSEServer("slow") as server:
        got, final = asyncio.run(run(server))
    assert not server.guard_expired
    assert got[:2] == ["one ", "two "]
    assert final.choices[0].message.content == "one two three"


# --- 2. the connection drops mid-stream -----------------------------------------------------


def test_sync_dropped_connection_raises_typed_error_and_keeps_chunks() -> None:
    with SSEServer("drop") as server:
        client = ai.Client(_config(server))
        stream = client.chat.completions.create(model="vllm:m", messages=[
            {"role": "user", "content": "count"}], stream=True)
        got = []
        with pytest.raises(ai.APIConnectionError) as info:
            for chunk in stream:
                got.append(chunk.choices[0].delta.content)
        client.close()
    assert isinstance(info.value, ai.APIError) and info.value.provider == "vllm"
    assert got == ["one ", "two "]
    assert [c.choices[0].delta.content for c in stream.chunks] == ["one ", "two "]


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_async_dropped_connection_raises_typed_error_and_keeps_chunks(transport: str) -> None:
    async def run(server: SSEServer) -> tuple[list, Any, BaseException]:
        async with ai.AsyncClient(_config(server, transport)) as client:
            stream = await client.chat.completions.create(model="vllm:m", messages=[
                {"role": "user", "content": "count"}], stream=True)
            got = []
            try:
                async for chunk in stream:
                    got.append(chunk.choices[0].delta.content)
            except ai.AisuiteLikeError as exc:
                return got, stream, exc
            raise AssertionError("the stream ended without an error")

    with SSEServer("drop") as server:
        got, stream, error = asyncio.run(run(server))
    assert isinstance(error, ai.APIConnectionError) and error.provider == "vllm"
    assert got == ["one ", "two "]
    assert [c.choices[0].delta.content for c in stream.chunks] == ["one ", "two "]
