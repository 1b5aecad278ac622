"""What the client is asked to do against a server nobody here wrote (tests/interop): each
check runs one kind of call through ``aisuite_like`` with the given ``provider_configs`` and
model, asserts what it must give, and returns a short description of what happened (a row
result of docs/interop.md: stable from run to run, never the server's random text).

``Wire``, when the server keeps a journal of what it received (llmock does), lets a check
assert on the requests themselves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, Optional

from pydantic import BaseModel

import aisuite_like as ai

USER = [{"role": "user", "content": "What is the weather in Paris?"}]
#: The requests a server received, oldest first, as JSON bodies (None: it keeps no journal).
Wire = Optional[Callable[[], list[dict[str, Any]]]]


class City(BaseModel):
    name: str
    population: int


class WeatherTool:
    """A tool that counts its runs (the run's tool results are checked against it)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, city: str) -> str:
        """Get the weather for a city."""
        self.calls.append(city)
        return f"sunny in {city}"

    def as_function(self) -> Callable[[str], str]:
        def get_weather(city: str) -> str:
            """Get the weather for a city."""
            return self(city)
        return get_weather


def _text(reply: Any) -> str:
    text = reply.choices[0].message.content
    assert isinstance(text, str) and text.strip(), f"no text in the reply: {reply!r}"
    return text


def chat(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        reply = client.chat.completions.create(model=model, messages=USER)
    _text(reply)
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.total_tokens >= 0
    return "text; finish_reason stop; usage read"


def chat_async(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    async def run() -> Any:
        async with ai.AsyncClient(configs) as client:
            return await client.chat.completions.create(model=model, messages=USER)
    reply = asyncio.run(run())
    _text(reply)
    assert reply.choices[0].finish_reason == "stop"
    return "text; finish_reason stop"


def _read_stream(chunks: Any) -> tuple[str, list[str]]:
    pieces: list[str] = []
    finishes: list[str] = []
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                pieces.append(choice.delta.content)
            if choice.finish_reason:
                finishes.append(choice.finish_reason)
    return "".join(pieces), finishes


def stream(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        with client.chat.completions.create(model=model, messages=USER, stream=True) as chunks:
            text, finishes = _read_stream(chunks)
    assert text.strip() and finishes[-1:] == ["stop"], (text, finishes)
    return "text in pieces; finish_reason stop"


def stream_async(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    async def run() -> tuple[str, list[str]]:
        pieces: list[str] = []
        finishes: list[str] = []
        async with ai.AsyncClient(configs) as client:
            chunks = await client.chat.completions.create(model=model, messages=USER,
                                                          stream=True)
            async with chunks:
                async for chunk in chunks:
                    for choice in chunk.choices:
                        pieces.append(choice.delta.content or "")
                        if choice.finish_reason:
                            finishes.append(choice.finish_reason)
        return "".join(pieces), finishes
    text, finishes = asyncio.run(run())
    assert text.strip() and finishes[-1:] == ["stop"], (text, finishes)
    return "text in pieces; finish_reason stop"


def tools_manual(configs: dict[str, Any], model: str, wire: Wire = None,
                 answer_model: Optional[str] = None) -> str:
    """The caller runs the tool and sends the result back (the second turn offers no tools,
    so a server that calls a tool whenever one is offered answers in text; ``answer_model``:
    the second turn goes to that model, for a mock that only ever calls the tool)."""
    weather = WeatherTool()
    with ai.Client(configs) as client:
        first = client.chat.completions.create(model=model, messages=USER,
                                               tools=[weather.as_function()])
        calls = first.choices[0].message.tool_calls
        assert calls and calls[0].function.name == "get_weather", first
        assert first.choices[0].finish_reason == "tool_calls"
        args = json.loads(calls[0].function.arguments)
        messages = [*USER, first.choices[0].message,
                    {"role": "tool", "tool_call_id": calls[0].id, "content": weather(**args)}]
        second = client.chat.completions.create(model=answer_model or model,
                                                messages=messages)
    _text(second)
    if wire is not None:
        sent = wire()[-1]
        assert_tool_turn_paired(sent, calls[0].id)
        return "tool call read; the result sent back paired with its id (checked on the wire)"
    return "tool call read; the result sent back; text answer"


def assert_tool_turn_paired(body: dict[str, Any], call_id: str) -> None:
    """The history of ``body`` carries the tool call and its result under the same id (the
    OpenAI chat shape or Anthropic's content blocks)."""
    text = json.dumps(body)
    assert text.count(call_id) >= 2, f"the call id {call_id} is not sent twice: {text[:600]}"


def tool_call_message_has_null_content(configs: dict[str, Any], model: str,
                                       wire: Wire = None) -> str:
    """The assistant message that only calls tools goes back with ``content: null`` (as the
    OpenAI SDK's own objects serialize; llama.cpp's chat templates cannot read one without)."""
    assert wire is not None
    tools_manual(configs, model, wire)
    assistant = [m for m in wire()[-1]["messages"] if m.get("role") == "assistant"]
    assert assistant and "content" in assistant[0] and assistant[0]["content"] is None, \
        assistant
    return "sent with content: null"


def tools_run(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    weather = WeatherTool()
    with ai.Client(configs) as client:
        reply = client.chat.completions.create(model=model, messages=USER,
                                               tools=[weather.as_function()], max_turns=3)
    return _describe_run(reply.stop_reason, len(weather.calls), reply.choices[0].message)


def _describe_run(stop_reason: Optional[str], tool_runs: int, message: Any) -> str:
    if stop_reason == "completed":
        assert tool_runs >= 1
        _text_of(message)
        return f"tool ran {tool_runs}x, then a text answer; stop_reason completed"
    # A server that calls a tool whenever one is offered never answers: the run stops at
    # max_turns with every call executed (docs/tool-runner.md).
    assert stop_reason == "max_turns" and tool_runs == 3, (stop_reason, tool_runs)
    return ("the server calls the tool on every turn: tool ran 3x; "
            "stop_reason max_turns (as documented)")


def _text_of(message: Any) -> str:
    text = message.content if not isinstance(message, dict) else message.get("content")
    assert isinstance(text, str) and text.strip(), message
    return text


def tools_run_stream(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    weather = WeatherTool()
    with ai.Client(configs) as client:
        with client.chat.completions.create(model=model, messages=USER,
                                            tools=[weather.as_function()], max_turns=3,
                                            stream=True) as chunks:
            text, finishes = _read_stream(chunks)
    assert weather.calls, "the tool never ran"
    if finishes and finishes[-1] == "stop":
        assert text.strip()
        return f"tool ran {len(weather.calls)}x, then text in pieces; finish_reason stop"
    assert len(weather.calls) == 3, (weather.calls, finishes)
    return "the server calls the tool on every turn: tool ran 3x; the stream ends at max_turns"


def tools_run_async(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    weather = WeatherTool()

    async def run() -> Any:
        async with ai.AsyncClient(configs) as client:
            return await client.chat.completions.create(
                model=model, messages=USER, tools=[weather.as_function()], max_turns=3)
    reply = asyncio.run(run())
    return _describe_run(reply.stop_reason, len(weather.calls), reply.choices[0].message)


def parse(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        reply = client.chat.completions.parse(model=model, messages=USER, response_format=City)
    parsed = reply.choices[0].message.parsed
    assert isinstance(parsed, City), reply
    return "message.parsed is a City"


def responses(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        reply = client.responses.create(model=model, input="What is the weather in Paris?")
    assert reply.status == "completed" and reply.output_text.strip(), reply
    return "status completed; output_text"


def responses_stream(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        with client.responses.create(model=model, input="What is the weather in Paris?",
                                     stream=True) as events:
            kinds = [event.type for event in events]
        final = events.get_final_response()
    assert "response.output_text.delta" in kinds and kinds[-1] == "response.completed", kinds
    assert final.output_text.strip()
    return "output_text deltas, then response.completed"


def responses_tools(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    weather = WeatherTool()
    with ai.Client(configs) as client:
        reply = client.responses.create(model=model, input="What is the weather in Paris?",
                                        tools=[weather.as_function()], max_turns=3)
    kinds = [item.type for item in reply.output]
    assert weather.calls and "function_call_output" in kinds, kinds
    if kinds[-1] == "message":
        return f"tool ran {len(weather.calls)}x; function_call_output items, then a message"
    assert len(weather.calls) == 3, kinds
    return "the server calls the tool on every turn: tool ran 3x; the run stops at max_turns"


def embeddings(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    with ai.Client(configs) as client:
        reply = client.embeddings.create(model=model, input=["first text", "second text"])
    assert [item.index for item in reply.data] == [0, 1], reply
    sizes = {len(item.embedding) for item in reply.data}
    assert len(sizes) == 1 and sizes.pop() > 0
    return f"one vector per input ({len(reply.data[0].embedding)} floats each)"


def models(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
    key, _, name = model.partition(":")
    with ai.Client(configs) as client:
        ids = [m.id for m in client.models.list()]
    assert f"{key}:{name}" in ids or any(i.startswith(f"{key}:") for i in ids), ids
    return "the served models listed under the key"


def refused(check: Callable[..., str], error: type[Exception],
            why: str = "not offered by the server") -> Callable[..., str]:
    """A check for what the server does not offer, or answers wrongly: the call raises
    ``error`` (typed)."""
    def run(configs: dict[str, Any], model: str, wire: Wire = None) -> str:
        try:
            check(configs, model, wire)
        except error as exc:
            status = getattr(exc, "status_code", None)
            return f"{why}: {type(exc).__name__}" + (f" (HTTP {status})" if status else "")
        raise AssertionError(f"expected {error.__name__}: {why}")
    return run


CHECKS: dict[str, Callable[..., str]] = {
    "chat": chat,
    "chat, async": chat_async,
    "stream": stream,
    "stream, async": stream_async,
    "tools, by hand": tools_manual,
    "tools, max_turns run": tools_run,
    "tools, max_turns run, streamed": tools_run_stream,
    "tools, max_turns run, async": tools_run_async,
    "parse()": parse,
    "Responses": responses,
    "Responses, streamed": responses_stream,
    "Responses, max_turns run": responses_tools,
    "embeddings": embeddings,
    "models": models,
}
