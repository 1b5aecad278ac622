"""Cancelling a run mid-way (docs/reliability.md): the async tool runner and agents'
``Runner.run`` stop (no further model call, running async tools cancelled, the HTTP
connection of a pending model call closed) and leave a consistent trace: every tool call of
the trace has its result, so the trace is a valid history to continue from. Through the REAL
vendor SDKs: HTTP mocked at httpcore2, or a loopback server of our own that stalls."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Optional

import pytest
import respx
from support.tool_wire import FAMILIES, bodies, mock

import aisuite_like as ai

MESSAGES = [{"role": "user", "content": "Weather in A and B?"}]
ANSWER = "Done."
NOT_FINISHED = "Error: tool call not finished: the run was cancelled"


class Tools:
    """An async tool that answers at once and one that waits until cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled: list[str] = []
        self.finished: list[str] = []

    async def quick(self, city: str) -> str:
        """Quick."""
        return f"sunny in {city}"

    async def slow(self, city: str) -> str:
        """Slow."""
        self.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled.append(city)
            raise
        self.finished.append(city)
        return "never"

    def all(self) -> list[Any]:
        return [ai.Tool(self.quick, name="quick"), ai.Tool(self.slow, name="slow")]


CALLS = [("c1", "quick", {"city": "A"}), ("c2", "slow", {"city": "B"})]


def sent_pairs(family: str, body: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    return FAMILIES[family]["sent"](body)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_cancelling_the_runner_task_mid_tool_stops_the_run(family: str,
                                                           httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, False, [CALLS, ANSWER])
    tools = Tools()

    async def main() -> None:
        async with ai.AsyncClient(FAMILIES[family]["config"]) as client:
            task = asyncio.ensure_future(client.chat.completions.create(
                model=FAMILIES[family]["model"], messages=MESSAGES, tools=tools.all(),
                max_turns=5))
            await tools.started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task  # cancellation propagates: asyncio.timeout / TaskGroup see it
            await asyncio.sleep(0)
            assert asyncio.all_tasks() == {asyncio.current_task()}  # nothing left running

    asyncio.run(main())
    assert route.call_count == 1  # no model call after the cancellation
    assert tools.cancelled == ["B"] and tools.finished == []


@pytest.fixture(params=[False, True], ids=["plain", "instrumented"])
def instrumented(request: pytest.FixtureRequest) -> Any:
    """The run as is, and under ``ai.instrument()`` (OpenTelemetry drives the same engine)."""
    if not request.param:
        yield False
        return
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    ai.instrument(tracer_provider=TracerProvider(), meter_provider=MeterProvider())
    try:
        yield True
    finally:
        ai.uninstrument()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_cancelled_streamed_run_keeps_a_consistent_trace(family: str, instrumented: bool,
                                                           httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, True, [CALLS, ANSWER])
    tools = Tools()

    async def main() -> tuple[ai.ChatCompletionResponse, list[Any]]:
        async with ai.AsyncClient(FAMILIES[family]["config"]) as client:
            stream = await client.chat.completions.create(
                model=FAMILIES[family]["model"], messages=MESSAGES, tools=tools.all(),
                max_turns=5, stream=True)

            async def consume() -> None:
                async for _ in stream:
                    pass

            task = asyncio.ensure_future(consume())
            await tools.started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return await stream.get_final_response(), stream.chunks

    partial, chunks = asyncio.run(main())
    assert route.call_count == 1 and tools.cancelled == ["B"]
    assert chunks and {c.turn for c in chunks} == {1}
    assert partial.stop_reason == "cancelled"
    assert [(e.call_id, e.result, e.is_error) for e in partial.tool_events] == [
        ("c1", "sunny in A", False), ("c2", NOT_FINISHED, True)]
    assert [(m.role, m.tool_call_id) for m in partial.messages] == [
        ("user", None), ("assistant", None), ("tool", "c1"), ("tool", "c2")]

    # The trace continues as a valid history: every call answered, on the wire.
    route2 = mock(httpx2_mock, family, False, [ANSWER])
    from support.tool_wire import create

    resp, _ = create("sync", family, messages=partial.messages)
    assert resp.content == ANSWER
    body = bodies(route2)[-1]
    assert sent_pairs(family, body) == [(["c1", "c2"], ["c1", "c2"])]


# --- a model call cancelled while the server has not answered (loopback) ----------------------


class StallingServer:
    """OpenAI-shaped loopback server: the first request gets a reply asking for one tool,
    later requests get no answer at all; records when a client closes its connection."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.stalled = threading.Event()
        self.closed_while_stalled = threading.Event()
        self._ready = threading.Event()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self.port = 0

    def __enter__(self) -> "StallingServer":
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode().split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                self.requests.append(json.loads(await reader.readexactly(length)))
                if len(self.requests) > 1:
                    self.stalled.set()
                    await reader.read()  # returns b"" once the client closes the connection
                    self.closed_while_stalled.set()
                    return
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {
                        "name": "quick", "arguments": '{"city": "A"}'}}]}
                if self.requests[0].get("stream"):
                    delta = {**message, "tool_calls": [{"index": 0, **message["tool_calls"][0]}]}
                    event = {"id": "chatcmpl-1", "object": "chat.completion.chunk",
                             "created": 1, "model": "gpt-4o", "choices": [
                                 {"index": 0, "delta": delta, "finish_reason": "tool_calls"}]}
                    reply = f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n".encode()
                    kind = b"text/event-stream"
                else:
                    reply = json.dumps({
                        "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                        "model": "gpt-4o", "choices": [{
                            "index": 0, "finish_reason": "tool_calls", "message": message}],
                    }).encode()
                    kind = b"application/json"
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: " + kind +
                             b"\r\ncontent-length: " + str(len(reply)).encode() +
                             b"\r\n\r\n" + reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def config(self) -> dict[str, Any]:
        return {"openai": {"api_key": "sk-test-cancel-0123456789", "max_retries": 0,
                           "base_url": f"http://127.0.0.1:{self.port}/v1"}}


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_cancelling_during_a_model_call_closes_its_connection(streamed: bool) -> None:
    tools = Tools()
    with StallingServer() as server:
        async def main() -> Optional[ai.ChatCompletionResponse]:
            async with ai.AsyncClient(server.config()) as client:
                result: dict[str, Any] = {}

                async def run() -> None:
                    out = await client.chat.completions.create(
                        model="openai:gpt-4o", messages=MESSAGES, tools=tools.all(),
                        max_turns=5, stream=streamed)
                    if streamed:
                        result["stream"] = out
                        async for _ in out:
                            pass

                task = asyncio.ensure_future(run())
                for _ in range(1000):
                    if server.stalled.is_set() or task.done():
                        break
                    await asyncio.sleep(0.01)
                assert server.stalled.is_set(), task
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                if streamed:
                    return await result["stream"].get_final_response()
                return None

        partial = asyncio.run(main())
        assert server.closed_while_stalled.wait(10)  # the pending request was abandoned
    assert len(server.requests) == 2
    if partial is not None:  # streamed: the stream holds the partial run
        assert partial.stop_reason == "cancelled"
        assert [(m.role, m.tool_call_id, m.content) for m in partial.messages] == [
            ("user", None, MESSAGES[0]["content"]), ("assistant", None, None),
            ("tool", "c1", "sunny in A")]


# --- agents ------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_cancelled_agent_run_leaves_a_session_that_continues(family: str,
                                                               httpx2_mock: respx.Router) -> None:
    route = mock(httpx2_mock, family, False, [CALLS, ANSWER])
    tools = Tools()
    agent = ai.Agent("w", FAMILIES[family]["model"], tools=tools.all())
    session = ai.Session()

    async def main() -> tuple[Any, Any]:
        async with ai.AsyncClient(FAMILIES[family]["config"]) as client:
            task = asyncio.ensure_future(ai.Runner.run(agent, "go", client=client,
                                                       session=session))
            await tools.started.wait()
            task.cancel()
            first = await task
            second = await ai.Runner.run(agent, "and now?", client=client, session=session)
            return first, second

    first, second = asyncio.run(main())
    assert first.status == "cancelled" and tools.cancelled == ["B"]
    assert [e.result for e in first.tool_events] == ["sunny in A", NOT_FINISHED]
    assert second.status == "completed" and second.final_output == ANSWER
    assert route.call_count == 2
    assert sent_pairs(family, bodies(route)[1]) == [(["c1", "c2"], ["c1", "c2"])]
