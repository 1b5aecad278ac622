"""What a user's type checker sees of the public API: ``mypy --strict`` checks this file in
tests/test_code_health.py, and that test also runs it (``run_all()``), so every expression
checked here is real, offline code (the scripted provider).

``assert_type`` fails under mypy when the inferred type differs, ``Any`` included; a
``# type: ignore[code]`` in ``_rejected`` fails (as an unused ignore) when mypy stops rejecting
that misuse.

Not collected by pytest (the name does not start with ``test_``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from pydantic import BaseModel
from typing_extensions import assert_type

import aisuite_like as ai
from aisuite_like.client.stream_events import StreamEvent as CompletionStreamEvent
from aisuite_like.core.audio import TranscriptionStreamEvent
from aisuite_like.endpoints.audio import AsyncTranscriptionStream, TranscriptionStream
from aisuite_like.testing import ScriptedProvider, tool_call

if TYPE_CHECKING:  # annotation-only names (see docs/typing.md); used in assert_type strings
    from aisuite_like.core.types import ParsedChatCompletion  # noqa: F401


class Weather(BaseModel):
    city: str
    celsius: int


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _client(*replies: Any) -> ai.Client:
    return ai.Client(providers={"scripted": ScriptedProvider(list(replies))})


def _async_client(*replies: Any) -> ai.AsyncClient:
    return ai.AsyncClient(providers={"scripted": ScriptedProvider(list(replies))})


PARIS = '{"city": "Paris", "celsius": 21}'


def check_public_names() -> None:
    assert_type(ai.Client(), ai.Client)
    assert_type(ai.AsyncClient(), ai.AsyncClient)
    assert_type(ai.Agent("a", model="scripted:m"), ai.Agent)
    assert_type(ai.RunLimits(max_model_calls=3), ai.RunLimits)
    assert_type(ai.Session(), ai.Session)
    assert_type(ai.testing.ScriptedProvider(["hi"]), ScriptedProvider)
    router = ai.Router({"smart": [{"model": "test:m", "weight": 2, "rpm": 60}]})
    assert_type(router, ai.Router)
    assert_type(ai.Client(router=router), ai.Client)
    assert_type(ai.AsyncClient(router=router), ai.AsyncClient)
    agent = ai.Agent("a", model="scripted:m", instructions=lambda ctx, agent: "Be brief.",
                     tool_policy=ai.AllowTools(["get_weather"]), hooks=ai.AgentHooks())
    assert_type(agent.hooks, Optional[ai.AgentHooks[Any]])
    assert_type(agent.input_guardrails, Sequence[ai.InputGuardrail[Any]])

    def allow(ctx: ai.ToolPolicyContext) -> bool:
        return True

    async def decide(ctx: ai.ToolPolicyContext) -> ai.ToolPolicyDecision:
        return ai.ToolPolicyDecision(True)

    for policy in (allow, decide, ai.RequireApproval(), ai.DenyAll(), None):
        ai.Agent("a", model="scripted:m", tool_policy=policy)


def check_create() -> None:
    """``create``'s result type follows ``stream``; messages may be TypedDicts, Message objects
    or any mapping."""
    client = _client("hi", "hello there", tool_call("get_weather", {"city": "Paris"}), "Sunny.")
    system: ai.ChatCompletionMessageParam = {"role": "system", "content": "Be brief."}
    plain = client.chat.completions.create(
        model="scripted:m", messages=[system, {"role": "user", "content": "hi"}],
        temperature=0.2, max_tokens=50)
    assert_type(plain, ai.ChatCompletionResponse)
    assert plain.choices[0].message.content == "hi"
    stream = client.chat.completions.create(
        model="scripted:m", messages=[ai.Message(role="user", content="hi")], stream=True)
    assert_type(stream, ai.Stream)
    for chunk in stream:
        assert_type(chunk, ai.ChatCompletionChunk)
    final = stream.get_final_response()
    assert_type(final, ai.ChatCompletionResponse)
    assert final.choices[0].message.content == "hello there"
    ran = client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[get_weather], max_turns=3, reasoning_effort="low", prompt_cache="auto")
    assert_type(ran, ai.ChatCompletionResponse)
    assert ran.choices[0].message.content == "Sunny."
    # A plain dict (of any shape) and a stream flag known only at run time.
    flag: bool = False
    message: dict[str, Any] = {"role": "user", "content": "hi"}
    either = _client("ok").chat.completions.create(model="scripted:m", messages=[message],
                                                   stream=flag)
    assert_type(either, "ai.Stream | ai.ChatCompletionResponse")
    assert isinstance(either, ai.ChatCompletionResponse)


async def check_acreate() -> None:
    client = _client("hi", "streamed")
    plain = await client.chat.completions.acreate(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}])
    assert_type(plain, ai.ChatCompletionResponse)
    stream = await client.chat.completions.acreate(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert_type(stream, ai.AsyncStream)
    async for chunk in stream:
        assert_type(chunk, ai.ChatCompletionChunk)
    final = await stream.get_final_response()
    assert_type(final, ai.ChatCompletionResponse)
    assert final.choices[0].message.content == "streamed"


async def check_async_client_create() -> None:
    client = ai.AsyncClient(providers={"scripted": ScriptedProvider(
        ["hi", "streamed", tool_call("get_weather", {"city": "Paris"}), "Sunny."])})
    plain = await client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}], seed=1)
    assert_type(plain, ai.ChatCompletionResponse)
    stream = await client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert_type(stream, ai.AsyncStream)
    async for chunk in stream:
        assert_type(chunk, ai.ChatCompletionChunk)
    assert_type(await stream.get_final_response(), ai.ChatCompletionResponse)
    ran = await client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
        tools=[get_weather], max_turns=3)
    assert_type(ran, ai.ChatCompletionResponse)
    assert ran.choices[0].message.content == "Sunny."


def check_run_sync() -> None:
    agent = ai.Agent("weather", model="scripted:m", tools=[get_weather])
    client = _client(tool_call("get_weather", {"city": "Paris"}), "It is sunny.")
    result = ai.Runner.run_sync(agent, "Weather in Paris?", client=client, max_turns=3)
    assert_type(result, ai.RunResult)
    assert_type(result.final_output, Any)
    assert_type(result.final_output_as(str), str)
    assert_type(result.last_agent, ai.Agent)
    assert_type(result.status, str)
    assert_type(result.limit, Optional[str])
    assert_type(result.messages, list[ai.Message])
    assert_type(result.new_messages, list[ai.Message])
    assert_type(result.usage, Optional[ai.Usage])
    assert_type(result.events, list[ai.AgentEvent])
    assert_type(result.tool_events, list[ai.ToolEvent])
    assert_type(result.new_items, list[ai.RunItem])
    assert_type(result.interruptions, list[ai.ToolApprovalItem])
    assert_type(result.input_guardrail_results, list[ai.InputGuardrailResult])
    assert_type(result.tool_call_summary, Optional[ai.ToolCallSummary])
    assert_type(result.to_input_list(), list[dict[str, Any]])
    assert result.final_output_as(str, raise_if_incorrect_type=True) == "It is sunny."
    # A next run takes the previous one's messages as its input.
    again = ai.Runner.run_sync(agent, [*result.to_input_list(), {"role": "user", "content": "?"}],
                               client=_client("Still sunny."))
    assert_type(again, ai.RunResult)


def check_structured_output() -> None:
    agent = ai.Agent("typed", model="scripted:m", output_type=int)
    # The scripted provider has no native structured output: the forced final_result tool.
    answer = tool_call("final_result", {"response": 4})
    result = ai.Runner.run_sync(agent, "2 + 2?", client=_client(answer))
    assert_type(result.final_output_as(int), int)
    assert result.final_output_as(int, raise_if_incorrect_type=True) == 4
    weather = ai.Agent("weather", model="scripted:m", output_type=Weather)
    reply = tool_call("final_result", {"city": "Paris", "celsius": 21})
    typed = ai.Runner.run_sync(weather, "Paris?", client=_client(reply))
    assert_type(typed.final_output_as(Weather), Weather)
    assert typed.final_output_as(Weather).celsius == 21


async def check_async_and_streamed() -> None:
    agent = ai.Agent("a", model="scripted:m")
    result = await ai.Runner.run(agent, {"role": "user", "content": "hi"}, client=_client("hey"))
    assert_type(result, ai.RunResult)
    streamed = ai.Runner.run_streamed(agent, "hi", client=_client("hey there"))
    assert_type(streamed, ai.RunResultStreaming)
    kinds = []
    async for event in streamed:
        assert_type(event, ai.AgentEvent)
        kinds.append(event.type)
    assert kinds[0] == "RunStarted" and kinds[-1] == "RunCompleted"
    sdk_events = ai.Runner.run_streamed(agent, "hi", client=_client("hey")).stream_events()
    assert_type(sdk_events, AsyncIterator[ai.StreamEvent])
    async for sdk_event in sdk_events:
        assert_type(sdk_event, ai.StreamEvent)


@dataclass
class UserInfo:
    name: str


def check_context_types() -> None:
    def greet(ctx: ai.RunContextWrapper[UserInfo], agent: ai.Agent[UserInfo]) -> str:
        return f"Call the user {ctx.context.name}."

    class Counter(ai.RunHooks[UserInfo]):
        calls = 0

        async def on_llm_end(self, context: ai.RunContextWrapper[UserInfo], agent: ai.Agent,
                             response: ai.ChatCompletionResponse) -> None:
            Counter.calls += 1

    agent = ai.Agent[UserInfo]("a", model="scripted:m", instructions=greet)
    assert_type(agent, ai.Agent[UserInfo])
    assert_type(agent.clone(name="b"), ai.Agent[UserInfo])
    result = ai.Runner.run_sync(agent, "hi", context=UserInfo("Ada"), hooks=Counter(),
                                client=_client("Hello Ada"))
    assert_type(result.context_wrapper, Optional[ai.RunContextWrapper[Any]])
    assert result.context_wrapper is not None and result.context_wrapper.context.name == "Ada"
    assert Counter.calls == 1
    # Any type pydantic validates is an output type, special forms included.
    ai.Agent("listing", model="scripted:m", output_type=list[int])
    ai.Agent("maybe", model="scripted:m", output_type=Optional[int])


def check_paused_run_state() -> None:
    @ai.function_tool(needs_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    assert_type(delete, ai.Tool)
    agent = ai.Agent("files", model="scripted:m", tools=[delete])
    provider = ScriptedProvider([tool_call("delete", {"path": "a.txt"}), "Done."])
    client = ai.Client(providers={"scripted": provider})
    paused = ai.Runner.run_sync(agent, "delete a.txt", client=client)
    assert paused.status == "interrupted"
    state = paused.to_state()
    assert_type(state, ai.RunState)
    data = state.to_json()
    assert_type(data, dict[str, Any])
    restored = ai.RunState.from_json(agent, data)
    assert_type(restored, ai.RunState)
    assert_type(ai.RunState.from_string(agent, state.to_string()), ai.RunState)
    for item in restored.get_interruptions():
        assert_type(item, ai.ToolApprovalItem)
        restored.approve(item)
    resumed = ai.Runner.run_sync(agent, restored, client=client)
    assert_type(resumed, ai.RunResult)
    assert resumed.final_output == "Done."


def check_decorators_and_handoffs() -> None:
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    assert_type(ai.function_tool(shout), ai.Tool)
    named = ai.function_tool(name_override="yell")
    assert_type(named, Callable[[Callable[..., Any]], ai.Tool])
    assert named(shout).name == "yell"

    @ai.input_guardrail
    def no_secrets(ctx: ai.RunContextWrapper[None], agent: ai.Agent,
                   input: Any) -> ai.GuardrailFunctionOutput:
        return ai.GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    assert_type(no_secrets, ai.InputGuardrail[Any])

    @ai.output_guardrail(name="short")
    def short(ctx: ai.RunContextWrapper[None], agent: ai.Agent,
              output: Any) -> ai.GuardrailFunctionOutput:
        return ai.GuardrailFunctionOutput(output_info=None, tripwire_triggered=len(output) > 99)

    assert_type(short, ai.OutputGuardrail[Any])
    faq = ai.Agent("faq", model="scripted:m")
    assert_type(ai.handoff(faq), ai.AgentHandoff)
    billing = ai.Agent("billing", model="scripted:m")
    triage = ai.Agent("triage", model="scripted:m", handoffs=[ai.handoff(faq), billing],
                      input_guardrails=[no_secrets], output_guardrails=[short])
    assert_type(triage.clone(name="triage 2"), ai.Agent)


def check_stream_items_and_runner_streams() -> None:
    """A stream is ``Stream[ChatCompletionChunk]`` (a plain ``ai.Stream`` means that), with or
    without the tool runner."""
    stream = _client("hello").chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert_type(stream, ai.Stream[ai.ChatCompletionChunk])
    with stream as entered:
        assert_type(entered, ai.Stream[ai.ChatCompletionChunk])
        assert_type(next(entered), ai.ChatCompletionChunk)
    assert_type(stream.chunks, list[ai.ChatCompletionChunk])
    client = _client(tool_call("get_weather", {"city": "Paris"}), "Sunny.")
    ran = client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[get_weather], max_turns=3, stream=True)
    assert_type(ran, ai.Stream[ai.ChatCompletionChunk])
    turns = {chunk.turn for chunk in ran}
    assert turns == {1, 2}, turns
    final = ran.get_final_response()
    assert_type(final, ai.ChatCompletionResponse)
    assert_type(final.tool_events, list[ai.ToolEvent])
    assert_type(final.choices[0].intermediate_messages, list[ai.Message])
    assert final.choices[0].message.content == "Sunny."
    assert_type(final.usage, Optional[ai.Usage])


async def check_async_runner_streams() -> None:
    client = _async_client(tool_call("get_weather", {"city": "Paris"}), "Sunny.")
    ran = await client.chat.completions.create(
        model="scripted:m", messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[get_weather], max_turns=3, stream=True)
    assert_type(ran, ai.AsyncStream[ai.ChatCompletionChunk])
    async with ran as entered:
        async for chunk in entered:
            assert_type(chunk, ai.ChatCompletionChunk)
    assert_type(ran.chunks, list[ai.ChatCompletionChunk])
    final = await ran.get_final_response()
    assert final.choices[0].message.content == "Sunny."
    sync_client = _client(tool_call("get_weather", {"city": "Paris"}), "Sunny.")
    acreated = await sync_client.chat.completions.acreate(
        model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
        tools=[get_weather], max_turns=3)
    assert_type(acreated, ai.ChatCompletionResponse)
    assert acreated.choices[0].message.content == "Sunny."


def check_parse() -> None:
    """``parse``: ``message.parsed`` has the type of the ``response_format`` class."""
    client = _client(PARIS, PARIS, tool_call("get_weather", {"city": "Paris"}), PARIS, "{}")
    messages: list[ai.ChatCompletionMessageParam] = [{"role": "user", "content": "Paris?"}]
    completion = client.chat.completions.parse(model="scripted:m", messages=messages,
                                               response_format=Weather)
    assert_type(completion, "ParsedChatCompletion[Weather]")
    assert isinstance(completion, ai.ChatCompletionResponse)  # the same class at run time
    weather = completion.choices[0].message.parsed
    assert_type(weather, Optional[Weather])
    assert weather is not None and weather.celsius == 21
    assert_type(completion.choices[0].message.content, "str | list[dict[str, Any]] | None")
    beta = client.beta.chat.completions.parse(model="scripted:m", messages=messages,
                                              response_format=Weather, temperature=0)
    assert_type(beta, "ParsedChatCompletion[Weather]")
    ran = client.chat.completions.parse(model="scripted:m", messages=messages,
                                        response_format=Weather, tools=[get_weather],
                                        max_turns=3)
    assert_type(ran.choices[0].message.parsed, Optional[Weather])
    assert ran.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    untyped = client.chat.completions.parse(
        model="scripted:m", messages=messages, response_format={"type": "json_object"})
    assert_type(untyped, "ParsedChatCompletion[None]")
    assert untyped.choices[0].message.parsed is None


async def check_aparse() -> None:
    client = _client(PARIS)
    completion = await client.chat.completions.aparse(
        model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
        response_format=Weather)
    assert_type(completion, "ParsedChatCompletion[Weather]")
    assert_type(completion.choices[0].message.parsed, Optional[Weather])
    aclient = _async_client(PARIS)
    acompletion = await aclient.chat.completions.parse(
        model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
        response_format=Weather)
    assert_type(acompletion, "ParsedChatCompletion[Weather]")
    parsed = acompletion.choices[0].message.parsed
    assert parsed is not None and parsed.city == "Paris"


def check_stream_helper() -> None:
    """``chat.completions.stream(...)``: events, and the parsed final completion."""
    client = _client(PARIS)
    with client.chat.completions.stream(
            model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
            response_format=Weather) as stream:
        assert_type(stream, ai.ChatCompletionStream[Weather])
        for event in stream:
            assert_type(event, CompletionStreamEvent)
        final = stream.get_final_completion()
    assert_type(final, "ParsedChatCompletion[Weather]")
    assert_type(final.choices[0].message.parsed, Optional[Weather])
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    plain = _client("hi").chat.completions.stream(
        model="scripted:m", messages=[{"role": "user", "content": "hi"}])
    assert_type(plain, ai.ChatCompletionStream[None])
    assert plain.get_final_completion().choices[0].message.content == "hi"


async def check_async_stream_helper() -> None:
    aclient = _async_client(PARIS)
    async with aclient.chat.completions.stream(
            model="scripted:m", messages=[{"role": "user", "content": "Paris?"}],
            response_format=Weather) as stream:
        assert_type(stream, ai.AsyncChatCompletionStream[Weather])
        async for event in stream:
            assert_type(event, CompletionStreamEvent)
        final = await stream.get_final_completion()
    assert_type(final.choices[0].message.parsed, Optional[Weather])
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)


def check_tool_decorator() -> None:
    @ai.tool
    def plain(city: str) -> str:
        """The weather."""
        return city

    @ai.tool(name="weather_now", timeout=5)
    def named(city: str) -> str:
        """The weather."""
        return city

    assert_type(plain, ai.Tool)
    assert_type(named, ai.Tool)
    assert named.name == "weather_now" and plain("x") == "x"


def check_response_cache() -> None:
    cache = ai.cache.MemoryCache(maxsize=10)
    client = ai.Client(providers={"scripted": ScriptedProvider(["hi"])}, cache=cache,
                       cache_ttl=60)
    first = client.chat.completions.create(model="scripted:m", messages=[
        {"role": "user", "content": "x"}])
    again = client.chat.completions.create(model="scripted:m", messages=[
        {"role": "user", "content": "x"}], cache=True)
    assert_type(again.cache_hit, bool)
    for chunk in client.chat.completions.create(model="scripted:m", messages=[
            {"role": "user", "content": "x"}], stream=True, cache=True):
        assert_type(chunk.cache_hit, bool)
    backend: ai.cache.CacheBackend = ai.cache.SQLiteCache(":memory:")
    assert_type(backend.get("k"), Optional[bytes])
    assert not first.cache_hit and again.cache_hit


def _rejected() -> None:
    """Misuses the type checker must reject (never called)."""
    agent = ai.Agent("a", model="scripted:m")
    ai.Runner.run_sync(agent, 42)  # type: ignore[arg-type]
    ai.Runner.run_sync(agent, "hi", hooks=object())  # type: ignore[arg-type]
    ai.Runner.run_sync(agent, "hi", client="openai")  # type: ignore[arg-type]
    ai.Runner.run_sync(agent, "hi", limits={"max_model_calls": 1})  # type: ignore[arg-type]
    ai.Runner.run_sync(agent, "hi").final_output_as(int).upper()  # type: ignore[attr-defined]
    ai.Agent("a", instructions=42)  # type: ignore[arg-type]
    ai.Agent("a", input_guardrails=[print])  # type: ignore[list-item]
    ai.Agent("a", hooks=ai.RunHooks())  # type: ignore[arg-type]
    ai.Agent("a", tool_policy="allow")  # type: ignore[arg-type]
    typed = ai.Agent[UserInfo]("typed")
    ai.Runner.run_sync(typed, "hi", context=42)  # type: ignore[misc]
    client = ai.Client()
    ai.Client(cache=object())  # type: ignore[arg-type]
    client.chat.completions.create(  # type: ignore[call-overload]
        model="m", messages=[], cache="no")
    client.chat.completions.create(model="m", messages="hi")  # type: ignore[arg-type]
    client.chat.completions.create(  # type: ignore[call-overload]
        model="m", messages=[], temperature="hot")
    client.chat.completions.create(  # type: ignore[call-overload]
        model="m", messages=[], prompt_cache=True)
    client.chat.completions.create(  # type: ignore[call-overload]
        model="m", messages=[], reasoning_effort=3)
    ai.Client(prompt_cache="on")  # type: ignore[arg-type]
    reply = client.chat.completions.create(model="m", messages=[])
    print(reply.choices[0].nope)  # type: ignore[attr-defined]
    # ``parsed`` is known only on what ``parse`` returns.
    print(reply.choices[0].message.parsed)  # type: ignore[attr-defined]
    parsed = client.chat.completions.parse(model="m", messages=[], response_format=Weather)
    print(parsed.choices[0].message.parsed.celsius)  # type: ignore[union-attr]
    client.chat.completions.parse(model="m", messages=[], response_format=42)  # type: ignore[call-overload]
    client.chat.completions.parse(  # type: ignore[call-overload]
        model="m", messages=[], response_format=Weather, max_tokens="many")
    client.chat.completions.stream(  # type: ignore[call-overload]
        model="m", messages=[], temperature="hot")
    for chunk in client.chat.completions.create(model="m", messages=[], stream=True):
        print(chunk.nope)  # type: ignore[attr-defined]


def check_responses() -> None:
    client = ai.Client()
    plain = client.responses.create(model="test:m", input="hi")
    assert_type(plain, ai.Response)
    assert_type(plain.output_text, str)
    stream = client.responses.create(model="test:m", input="hi", stream=True)
    assert_type(stream, ai.ResponseStream)
    for event in stream:
        assert_type(event, ai.ResponseStreamEvent)
        if isinstance(event, ai.responses.ResponseTextDeltaEvent):
            assert_type(event.delta, str)
        if event.type == "response.output_text.delta":  # narrows as the openai SDK's union
            assert_type(event, ai.responses.ResponseTextDeltaEvent)
            assert_type(event.delta, str)
        elif event.type == "response.completed":
            assert_type(event.response, ai.Response)
    for item in plain.output:
        if item.type == "message":
            assert_type(item, ai.responses.ResponseOutputMessage)
        elif item.type == "function_call":
            assert_type(item.arguments, str)
    assert_type(stream.get_final_response(), ai.Response)
    ran = client.responses.create(model="test:m", input="Paris?", tools=[get_weather],
                                  max_turns=2)
    assert_type(ran, ai.Response)
    assert ran.output_text.startswith("Tool results")


async def check_async_responses() -> None:
    aclient = ai.AsyncClient()
    plain = await aclient.responses.create(model="test:m", input="hi")
    assert_type(plain, ai.Response)
    stream = await aclient.responses.create(model="test:m", input="hi", stream=True)
    assert_type(stream, ai.AsyncResponseStream)
    async for event in stream:
        assert_type(event, ai.ResponseStreamEvent)
    assert_type(await stream.get_final_response(), ai.Response)
    with ai.trace("typed"):
        pass


SPEECH = Path(__file__).resolve().parent / "fixtures" / "audio" / "speech.wav"


def check_audio() -> None:
    client = ai.Client()
    plain = client.audio.transcriptions.create(model="test:whisper", file=SPEECH)
    assert_type(plain, ai.Transcription)
    assert_type(plain.text, str)
    verbose = client.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                                 response_format="verbose_json",
                                                 timestamp_granularities=["word"])
    assert_type(verbose, ai.Transcription)
    assert verbose.words and verbose.words[0].end > 0
    subtitles = client.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                                   response_format="srt")
    assert_type(subtitles, str)
    with client.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                            stream=True) as stream:
        assert_type(stream, TranscriptionStream)
        for event in stream:
            assert_type(event, TranscriptionStreamEvent)


async def check_async_audio() -> None:
    aclient = ai.AsyncClient()
    plain = await aclient.audio.transcriptions.create(model="test:whisper", file=SPEECH)
    assert_type(plain, ai.Transcription)
    text = await aclient.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                                     response_format="text")
    assert_type(text, str)
    stream = await aclient.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                                       stream=True)
    assert_type(stream, AsyncTranscriptionStream)
    async for event in stream:
        assert_type(event, TranscriptionStreamEvent)


def run_all() -> None:
    check_audio()
    asyncio.run(check_async_audio())
    check_responses()
    asyncio.run(check_async_responses())
    check_public_names()
    check_create()
    asyncio.run(check_acreate())
    asyncio.run(check_async_client_create())
    check_run_sync()
    check_structured_output()
    asyncio.run(check_async_and_streamed())
    check_context_types()
    check_paused_run_state()
    check_decorators_and_handoffs()
    check_stream_items_and_runner_streams()
    asyncio.run(check_async_runner_streams())
    check_parse()
    asyncio.run(check_aparse())
    check_stream_helper()
    asyncio.run(check_async_stream_helper())
    check_tool_decorator()
    check_response_cache()
