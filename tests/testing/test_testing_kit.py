"""aisuite_like.testing: ScriptedProvider, FunctionProvider, the test model, the offline guard."""

from __future__ import annotations

import asyncio
import enum
import json
import subprocess
import sys
import threading
from typing import Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

import aisuite_like as ai
from aisuite_like import testing
from aisuite_like.core.schema_values import example_for_schema
from aisuite_like.testing import (
    FunctionProvider,
    RealRequestBlockedError,
    ScriptedProvider,
    ScriptExhaustedError,
    TestProvider,
    block_real_requests,
    tool_call,
)

USER = [{"role": "user", "content": "What is the weather in Paris?"}]


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Weather in a city."""
    return f"sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def scripted_client(*replies: Any) -> tuple[ai.Client, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    return ai.Client(providers={"scripted": provider}), provider


# --- ScriptedProvider ------------------------------------------------------------------------


def test_text_reply_is_an_ordinary_response() -> None:
    client, provider = scripted_client("Hello there")
    resp = client.chat.completions.create(model="scripted:my-model", messages=USER)
    assert isinstance(resp, ai.ChatCompletionResponse)
    assert resp.choices[0].message.role == "assistant"
    assert resp.choices[0].message.content == "Hello there"
    assert resp.choices[0].message.tool_calls is None
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == "my-model" and resp.provider == "scripted"
    assert resp.id and resp.created > 0
    # Documented formula: ceil(len / 4) per side.
    assert resp.usage == ai.Usage(prompt_tokens=8, completion_tokens=3, total_tokens=11)
    provider.assert_all_used()


def test_tool_call_replies() -> None:
    client, _ = scripted_client(
        tool_call("get_weather", {"city": "Paris"}),
        [tool_call("add", {"a": 1, "b": 2}, id="mine"), tool_call("add", '{"a": ')],
    )
    first = client.chat.completions.create(model="scripted:m", messages=USER, tools=[get_weather])
    msg = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert msg.content is None
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in msg.tool_calls] \
        == [("call_1_0", "get_weather", {"city": "Paris"})]
    second = client.chat.completions.create(model="scripted:m", messages=USER, tools=[add])
    calls = second.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["mine", "call_2_1"]
    assert calls[1].function.arguments == '{"a": '  # raw strings are sent as is


def test_exception_reply_is_raised_sync_and_async() -> None:
    error = ai.RateLimitError("slow down", status_code=429, retry_after=2.0, provider="scripted")
    client, provider = scripted_client(error, "recovered")
    with pytest.raises(ai.RateLimitError) as info:
        client.chat.completions.create(model="scripted:m", messages=USER)
    assert info.value.retry_after == 2.0
    assert client.chat.completions.create(model="scripted:m", messages=USER).content == "recovered"
    assert len(provider.requests) == 2

    aclient = ai.AsyncClient(providers={"s": ScriptedProvider([ai.APITimeoutError("t")])})
    with pytest.raises(ai.APITimeoutError):
        asyncio.run(aclient.chat.completions.create(model="s:m", messages=USER))


def test_full_response_reply_is_returned_as_a_copy() -> None:
    scripted = ai.ChatCompletionResponse(
        id="r1", model="x", choices=[ai.Choice(message=ai.Message(role="assistant", content="hi"),
                                               finish_reason="length")])
    client, provider = scripted_client(scripted)
    resp = client.chat.completions.create(model="scripted:m", messages=USER)
    assert resp == scripted and resp is not scripted
    resp.choices[0].message.content = "changed"
    assert provider.replies[0].choices[0].message.content == "hi"


def test_requests_record_what_was_sent_and_are_not_changed_later() -> None:
    client, provider = scripted_client("a", "b")
    messages = [{"role": "user", "content": "one"}]
    client.chat.completions.create(model="scripted:m", messages=messages, temperature=0.2,
                                   native_flag=True, tools=[add])
    messages.append({"role": "assistant", "content": "a"})
    messages.append({"role": "user", "content": "two"})
    client.chat.completions.create(model="scripted:m", messages=messages)
    first, second = provider.requests
    assert first.messages == [{"role": "user", "content": "one"}]
    assert first.temperature == 0.2 and first.extra == {"native_flag": True}
    assert first.tools[0]["function"]["name"] == "add"
    assert [m["content"] for m in second.messages] == ["one", "a", "two"]
    assert messages[0] == {"role": "user", "content": "one"}  # caller's data untouched


def test_running_out_fails_clearly() -> None:
    client, provider = scripted_client("only one")
    client.chat.completions.create(model="scripted:m", messages=USER)
    with pytest.raises(ScriptExhaustedError) as info:
        client.chat.completions.create(model="scripted:m", messages=USER)
    assert isinstance(info.value, AssertionError)
    assert "ran out of replies" in str(info.value) and "has 1" in str(info.value)
    assert "request #2" in str(info.value)
    assert len(provider.requests) == 2  # the failing request is recorded too


def test_assert_all_used() -> None:
    client, provider = scripted_client("a", tool_call("add", {"a": 1, "b": 1}), "c")
    client.chat.completions.create(model="scripted:m", messages=USER)
    with pytest.raises(AssertionError) as info:
        provider.assert_all_used()
    text = str(info.value)
    assert "2 of 3 scripted replies were never used" in text
    assert "#2: tool_call('add'" in text and "#3: 'c'" in text
    assert len(provider.remaining) == 2


@pytest.mark.parametrize("bad, fragment", [
    (42, "int is not a reply"),
    ([], "empty list"),
    (ai.RateLimitError, "exception instance"),
    (["text", tool_call("f")], "list is not a reply"),
    (ai.Message(role="user", content="x"), "role 'assistant'"),
])
def test_bad_replies_are_rejected_at_once(bad: Any, fragment: str) -> None:
    with pytest.raises(TypeError, match="reply") as info:
        ScriptedProvider(["fine", bad])
    assert fragment in str(info.value) and "#2" in str(info.value)


def test_replies_must_be_a_list() -> None:
    with pytest.raises(TypeError, match="list of replies"):
        ScriptedProvider("hello")  # type: ignore[arg-type]


def test_concurrent_calls_take_distinct_replies() -> None:
    provider = ScriptedProvider([str(i) for i in range(50)])
    client = ai.Client(providers={"s": provider})
    seen: list[str] = []
    lock = threading.Lock()

    def call() -> None:
        content = client.chat.completions.create(model="s:m", messages=USER).content
        with lock:
            seen.append(content)

    threads = [threading.Thread(target=call) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen, key=int) == [str(i) for i in range(50)]
    provider.assert_all_used()


# --- streaming ---------------------------------------------------------------------------------


def test_scripted_stream_has_openai_chunk_shape() -> None:
    client, _ = scripted_client([tool_call("add", {"a": 1, "b": 2}),
                                 tool_call("get_weather", {"city": "Paris"})], "Two words")
    with client.chat.completions.create(model="scripted:m", messages=USER, stream=True) as s:
        chunks = list(s)
        final = s.get_final_response()
    assert chunks[0].choices[0].delta.role == "assistant"
    headers = [tc for c in chunks for ch in c.choices for tc in ch.delta.tool_calls or ()
               if tc.id]
    assert [(h.index, h.id, h.function.name) for h in headers] == [
        (0, "call_1_0", "add"), (1, "call_1_1", "get_weather")]
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-1].usage is not None and chunks[-1].choices[0].finish_reason == "tool_calls"
    assert [json.loads(c.function.arguments) for c in final.message.tool_calls] == [
        {"a": 1, "b": 2}, {"city": "Paris"}]
    assert final.choices[0].finish_reason == "tool_calls"

    with client.chat.completions.create(model="scripted:m", messages=USER, stream=True) as s:
        pieces = [c.choices[0].delta.content for c in s if c.choices and c.choices[0].delta.content]
    assert pieces == ["Two ", "words"]


def test_async_stream_and_scripted_error_in_stream() -> None:
    async def run() -> tuple[str, Any]:
        provider = ScriptedProvider(["streamed text", ai.InternalServerError("overloaded")])
        aclient = ai.AsyncClient(providers={"s": provider})
        stream = await aclient.chat.completions.create(model="s:m", messages=USER, stream=True)
        async with stream:
            final = await stream.get_final_response()
        with pytest.raises(ai.InternalServerError):  # raised at create(), as an HTTP error is
            await aclient.chat.completions.create(model="s:m", messages=USER, stream=True)
        return final.content, final.usage

    content, usage = asyncio.run(run())
    assert content == "streamed text"
    assert usage.completion_tokens == 4


# --- FunctionProvider ---------------------------------------------------------------------------


def test_function_provider_receives_messages_tools_and_kwargs() -> None:
    seen: dict[str, Any] = {}

    def fn(messages: list, tools: list, **kwargs: Any) -> Any:
        seen.update(messages=messages, tools=tools, kwargs=kwargs)
        messages.append({"role": "user", "content": "mutating my copy"})
        if not any(m["role"] == "tool" for m in messages):
            return tool_call("add", {"a": 2, "b": 3})
        return "done"

    client = ai.Client(providers={"fn": FunctionProvider(fn)})
    resp = client.chat.completions.create(model="fn:m1", messages=USER, tools=[add],
                                          temperature=0.1, tool_choice="auto", custom=1)
    assert resp.choices[0].finish_reason == "tool_calls"
    assert seen["messages"][0] == USER[0]
    assert [t["function"]["name"] for t in seen["tools"]] == ["add"]
    assert seen["kwargs"] == {"model": "m1", "stream": False, "temperature": 0.1,
                              "tool_choice": "auto", "custom": 1}
    assert USER == [{"role": "user", "content": "What is the weather in Paris?"}]

    resp2 = client.chat.completions.create(model="fn:m1", messages=[
        *USER, resp.choices[0].message,
        {"role": "tool", "tool_call_id": resp.message.tool_calls[0].id, "content": "5"}])
    assert resp2.content == "done" and seen["tools"] == []


def test_function_provider_async_fn_from_sync_and_async_clients() -> None:
    async def fn(messages: list, tools: list, **kwargs: Any) -> str:
        await asyncio.sleep(0)
        return f"async answer to {messages[-1]['content']}"

    provider = FunctionProvider(fn)
    sync_resp = ai.Client(providers={"f": provider}).chat.completions.create(
        model="f:m", messages=[{"role": "user", "content": "x"}])
    assert sync_resp.content == "async answer to x"

    async def run() -> str:
        aclient = ai.AsyncClient(providers={"f": provider})
        resp = await aclient.chat.completions.create(model="f:m", messages=[
            {"role": "user", "content": "y"}])
        # A sync client used inside a running loop still works (fn runs in its own loop).
        inner = ai.Client(providers={"f": provider}).chat.completions.create(
            model="f:m", messages=[{"role": "user", "content": "z"}])
        return resp.content + " / " + inner.content

    assert asyncio.run(run()) == "async answer to y / async answer to z"


def test_function_provider_bad_return_and_raising_fn() -> None:
    client = ai.Client(providers={"f": FunctionProvider(lambda m, t, **k: {"content": "x"})})
    with pytest.raises(TypeError, match="dict is not a reply"):
        client.chat.completions.create(model="f:m", messages=USER)
    client = ai.Client(providers={"f": FunctionProvider(
        lambda m, t, **k: ai.AuthenticationError("bad key", status_code=401))})
    with pytest.raises(ai.AuthenticationError):
        client.chat.completions.create(model="f:m", messages=USER)
    with pytest.raises(TypeError, match="callable"):
        FunctionProvider("not callable")  # type: ignore[arg-type]


# --- the test model -----------------------------------------------------------------------------


class Address(BaseModel):
    street: str
    zip_code: str = Field(pattern=r"^\d{5}$")


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Order(BaseModel):
    items: list[str] = Field(min_length=2)
    quantity: int = Field(ge=10, le=20, multiple_of=5)
    price: float = Field(gt=0, lt=1)
    color: Color
    address: Address
    gift: Optional[Address]
    code: Union[int, str]
    size: Literal["S", "M", "L"]
    tags: set[int] = Field(min_length=3)
    pair: tuple[int, str]
    note: str = Field(min_length=12, max_length=14)
    parent: Optional["Order"] = None


def create_order(order: Order, urgent: bool, notes: Optional[str] = None) -> str:
    """Create an order."""
    return "ok"


def test_test_model_calls_every_tool_with_valid_arguments() -> None:
    client = ai.Client()
    resp = client.chat.completions.create(model="test:anything", messages=USER,
                                          tools=[get_weather, add, create_order])
    calls = resp.choices[0].message.tool_calls
    assert resp.choices[0].finish_reason == "tool_calls" and resp.provider == "test"
    assert [c.function.name for c in calls] == ["get_weather", "add", "create_order"]
    assert len({c.id for c in calls}) == 3
    for call, fn in zip(calls, (get_weather, add, create_order)):
        ai.Tool(fn).model.model_validate_json(call.function.arguments)  # valid, or raises
    assert json.loads(calls[1].function.arguments) == {"a": 1, "b": 1}


@pytest.mark.parametrize("model", [Order, Address])
def test_generated_values_validate(model: type[BaseModel]) -> None:
    Order.model_rebuild()
    model.model_validate(example_for_schema(model.model_json_schema()))


def test_generated_values_for_raw_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "kind": {"const": "fixed"},
            "either": {"oneOf": [{"type": "null"}, {"type": "integer", "minimum": 7}]},
            "both": {"allOf": [{"$ref": "#/definitions/Point"}]},
            "nullable": {"type": ["null", "boolean"]},
            "tree": {"$ref": "#/$defs/Node"},
            "free": {},
        },
        "required": ["when", "kind", "either", "both", "nullable", "tree", "free"],
        "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "number"}},
                                  "required": ["x"]}},
        "$defs": {"Node": {"type": "object", "required": ["children"], "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
    }
    value = example_for_schema(schema)
    assert value["when"] == "2024-01-01T00:00:00Z" and value["kind"] == "fixed"
    assert value["either"] == 7 and value["both"] == {"x": 1.0}
    assert value["nullable"] is True and value["tree"] == {"children": []}


def test_test_model_answers_from_tool_results_after_a_round() -> None:
    client = ai.Client()
    first = client.chat.completions.create(model="test:x", messages=USER, tools=[get_weather])
    call = first.message.tool_calls[0]
    history = [*USER, first.message,
               {"role": "tool", "tool_call_id": call.id, "content": "sunny, 22C"}]
    second = client.chat.completions.create(model="test:x", messages=history,
                                            tools=[get_weather])
    assert second.choices[0].finish_reason == "stop"
    assert second.content == "Tool results: get_weather: sunny, 22C"
    # A new user message starts a new round: tools are called again.
    third = client.chat.completions.create(
        model="test:x", messages=[*history, second.message, {"role": "user", "content": "again"}],
        tools=[get_weather])
    assert third.choices[0].finish_reason == "tool_calls"


def test_test_model_without_tools_echoes_the_prompt() -> None:
    resp = ai.Client().chat.completions.create(model="test:x", messages=[
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text",
                                                                        "text": "there"}]}])
    assert resp.content == 'You said: "Hi there"'
    # 16 prompt characters -> 4 tokens; 20 answer characters -> 5 tokens.
    assert resp.usage == ai.Usage(prompt_tokens=4, completion_tokens=5, total_tokens=9)


def test_test_model_tool_choice_and_parallel_flag() -> None:
    client = ai.Client()
    none = client.chat.completions.create(model="test:x", messages=USER, tools=[add],
                                          tool_choice="none")
    assert none.message.tool_calls is None and none.choices[0].finish_reason == "stop"
    named = client.chat.completions.create(
        model="test:x", messages=USER, tools=[add, get_weather],
        tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert [c.function.name for c in named.message.tool_calls] == ["get_weather"]
    with pytest.raises(ai.UnsupportedParameterError, match="nope"):
        client.chat.completions.create(model="test:x", messages=USER, tools=[add],
                                       tool_choice={"type": "function",
                                                    "function": {"name": "nope"}})
    one = client.chat.completions.create(model="test:x", messages=USER, tools=[add, get_weather],
                                         parallel_tool_calls=False)
    assert [c.function.name for c in one.message.tool_calls] == ["add"]
    history = [*USER, one.message, {"role": "tool", "tool_call_id": one.message.tool_calls[0].id,
                                    "content": "2"}]
    nxt = client.chat.completions.create(model="test:x", messages=history,
                                         tools=[add, get_weather], parallel_tool_calls=False)
    assert [c.function.name for c in nxt.message.tool_calls] == ["get_weather"]
    required = client.chat.completions.create(model="test:x", messages=history, tools=[add],
                                              tool_choice="required")
    assert required.message.tool_calls


def test_test_model_structured_output_and_limits() -> None:
    client = ai.Client()
    fmt = {"type": "json_schema", "json_schema": {"name": "Address",
                                                  "schema": Address.model_json_schema()}}
    resp = client.chat.completions.create(model="test:x", messages=USER, response_format=fmt)
    Address.model_validate_json(resp.content)
    obj = client.chat.completions.create(model="test:x", messages=USER,
                                         response_format={"type": "json_object"})
    assert json.loads(obj.content) == {"answer": 'You said: "What is the weather in Paris?"'}
    cut = client.chat.completions.create(model="test:x", messages=USER, max_tokens=2)
    assert cut.content == "You said" and cut.choices[0].finish_reason == "length"
    stopped = client.chat.completions.create(model="test:x", messages=USER, stop=["weather"])
    assert stopped.content == 'You said: "What is the ' and stopped.choices[0].finish_reason \
        == "stop"
    with pytest.raises(ai.UnsupportedParameterError, match="n=1"):
        client.chat.completions.create(model="test:x", messages=USER, n=2)


def test_test_model_streams_tool_calls_and_text() -> None:
    client = ai.Client()
    stream = client.chat.completions.create(model="test:x", messages=USER, tools=[add],
                                            stream=True)
    final = stream.get_final_response()
    direct = client.chat.completions.create(model="test:x", messages=USER, tools=[add])
    assert final.message.tool_calls[0].function == direct.message.tool_calls[0].function
    assert final.usage == direct.usage
    assert stream.chunks[-1].usage == direct.usage

    async def run() -> str:
        aclient = ai.AsyncClient()
        s = await aclient.chat.completions.create(model="test:x", messages=USER, stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in s if c.choices])

    assert asyncio.run(run()) == 'You said: "What is the weather in Paris?"'


def test_test_model_is_deterministic_apart_from_ids_and_time() -> None:
    def strip(resp: ai.ChatCompletionResponse) -> dict:
        return resp.model_dump(exclude={"id", "created"})

    a = ai.Client().chat.completions.create(model="test:x", messages=USER, tools=[create_order])
    b = ai.Client().chat.completions.create(model="test:x", messages=USER, tools=[create_order])
    assert strip(a) == strip(b)
    assert isinstance(TestProvider(), ai.Provider)


# --- block_real_requests --------------------------------------------------------------------------


class _RealProvider(ai.Provider):
    """Stands for any real provider: not marked offline."""

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
        self.calls += 1
        return ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
            role="assistant", content="real"), finish_reason="stop")])


def test_block_real_requests_blocks_real_and_allows_offline() -> None:
    real = _RealProvider()
    client = ai.Client(providers={"real": real, "s": ScriptedProvider(["fine"])})
    with block_real_requests():
        with pytest.raises(RealRequestBlockedError, match="'real'"):
            client.chat.completions.create(model="real:m", messages=USER)
        assert client.chat.completions.create(model="s:m", messages=USER).content == "fine"
        assert client.chat.completions.create(model="test:m", messages=USER).content
        with pytest.raises(RealRequestBlockedError):
            asyncio.run(ai.AsyncClient(providers={"real": real}).chat.completions.create(
                model="real:m", messages=USER))
    assert real.calls == 0
    assert client.chat.completions.create(model="real:m", messages=USER).content == "real"
    assert isinstance(RealRequestBlockedError("x"), ai.AisuiteLikeError)


def test_block_real_requests_refuses_before_loading_the_sdk() -> None:
    code = (
        "import sys, aisuite_like as ai\n"
        "from aisuite_like.testing import block_real_requests, RealRequestBlockedError\n"
        "with block_real_requests():\n"
        "    try:\n"
        "        ai.Client({'openai': {'api_key': 'k'}}).chat.completions.create(\n"
        "            model='openai:gpt-4o', messages=[{'role': 'user', 'content': 'x'}])\n"
        "    except RealRequestBlockedError:\n"
        "        print('blocked', 'openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "blocked False"


def test_block_real_requests_nests_and_survives_errors() -> None:
    client = ai.Client(providers={"real": _RealProvider()})
    with block_real_requests():
        with block_real_requests():
            pass
        with pytest.raises(RealRequestBlockedError):  # the outer block still holds
            client.chat.completions.create(model="real:m", messages=USER)
    with pytest.raises(KeyError):
        with block_real_requests():
            raise KeyError("boom")
    assert client.chat.completions.create(model="real:m", messages=USER).content == "real"


def test_block_real_requests_is_thread_safe() -> None:
    from aisuite_like.core.guard import BLOCK_REAL_REQUESTS

    barrier = threading.Barrier(16)

    def worker() -> None:
        barrier.wait()
        for _ in range(200):
            with block_real_requests():
                pass

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert BLOCK_REAL_REQUESTS[0] == 0


# --- through the tool runner ----------------------------------------------------------------------



def test_user_style_test_with_only_the_public_api() -> None:
    """How a user tests their own agent code: script the model, assert on what was sent."""

    def lookup_order(order_id: str) -> dict:
        """Look an order up."""
        return {"id": order_id, "status": "shipped"}

    def my_support_bot(client: ai.Client, question: str) -> str:  # the user's code under test
        resp = client.chat.completions.create(
            model="scripted:any", messages=[{"role": "user", "content": question}],
            tools=[lookup_order], max_turns=3)
        return resp.choices[0].message.content

    provider = ai.testing.ScriptedProvider([
        ai.testing.tool_call("lookup_order", {"order_id": "A17"}),
        "Your order A17 has shipped.",
    ])
    with ai.testing.block_real_requests():
        answer = my_support_bot(ai.Client(providers={"scripted": provider}), "Where is A17?")
    assert answer == "Your order A17 has shipped."
    provider.assert_all_used()
    second_turn = provider.requests[1].messages
    assert second_turn[-1]["role"] == "tool"
    assert json.loads(second_turn[-1]["content"]) == {"id": "A17", "status": "shipped"}


def test_test_model_drives_the_runner_to_a_final_answer() -> None:
    resp = ai.Client().chat.completions.create(model="test:x", messages=USER,
                                               tools=[get_weather, add], max_turns=4)
    assert resp.stop_reason == "completed"
    assert [e.name for e in resp.tool_events] == ["get_weather", "add"]
    assert not any(e.is_error for e in resp.tool_events)
    assert resp.content == "Tool results: get_weather: sunny in city; add: 2"
    assert len(resp.intermediate_responses) == 1


def test_scripted_error_reply_through_the_runner() -> None:
    provider = ScriptedProvider([tool_call("add", {"a": 1, "b": 2}),
                                 ai.RateLimitError("slow", status_code=429)])
    client = ai.Client(providers={"s": provider})
    with pytest.raises(ai.RateLimitError):
        client.chat.completions.create(model="s:m", messages=USER, tools=[add], max_turns=3)
    provider.assert_all_used()
    assert provider.requests[1].messages[-1]["content"] == "3"


def test_module_is_reachable_lazily() -> None:
    assert ai.testing is testing


# --- the test model: reasoning_effort and prompt_cache="auto" --------------------------------


def test_test_model_reasons_when_asked() -> None:
    client = ai.Client()
    messages = [{"role": "user", "content": "Is 17 prime?"}]
    plain = client.chat.completions.create(model="test:m", messages=messages)
    assert plain.choices[0].message.reasoning_content is None
    assert plain.usage.completion_tokens_details is None
    none = client.chat.completions.create(model="test:m", messages=messages,
                                          reasoning_effort="none")
    assert none.choices[0].message.reasoning_content is None
    resp = client.chat.completions.create(model="test:m", messages=messages,
                                          reasoning_effort="high")
    message = resp.choices[0].message
    assert message.content == 'You said: "Is 17 prime?"'
    assert message.reasoning_content == 'Thought about "Is 17 prime?" with high effort.'
    reasoning = resp.usage.completion_tokens_details.reasoning_tokens
    assert reasoning == -(-len(message.reasoning_content) // 4)
    assert resp.usage.completion_tokens == plain.usage.completion_tokens + reasoning
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    with client.chat.completions.create(model="test:m", messages=messages, stream=True,
                                        reasoning_effort="low") as stream:
        deltas = [c.choices[0].delta.reasoning_content for c in stream
                  if c.choices and c.choices[0].delta.reasoning_content]
    assert deltas == ['Thought about "Is 17 prime?" with low effort.']


def test_test_model_reports_prompt_cache_usage_like_a_provider() -> None:
    """With prompt_cache="auto" the messages before the last assistant message (what the
    previous call of the conversation sent) are reported as cache reads, the rest as writes;
    in a tool run the cached part grows turn by turn."""
    def get_weather(city: str) -> str:
        """Weather in a city."""
        return "Sunny"

    client = ai.Client(prompt_cache="auto")
    resp = client.chat.completions.create(
        model="test:m", messages=[{"role": "system", "content": "Be brief. " * 20},
                                  {"role": "user", "content": "Weather in Paris?"}],
        tools=[get_weather], max_turns=3)
    first, second = [*resp.intermediate_responses, resp]
    details = first.usage.prompt_tokens_details
    assert (details.cached_tokens, details.cache_creation_tokens) == (
        0, first.usage.prompt_tokens)
    # resp.usage sums the run's two calls: the second call's own numbers are the difference
    prompt = second.usage.prompt_tokens - first.usage.prompt_tokens
    cached = second.usage.prompt_tokens_details.cached_tokens - details.cached_tokens
    written = (second.usage.prompt_tokens_details.cache_creation_tokens
               - details.cache_creation_tokens)
    assert first.usage.prompt_tokens - 1 <= cached < prompt  # the first call's prompt, read
    assert cached + written == prompt
    off = client.chat.completions.create(model="test:m", messages=[
        {"role": "user", "content": "hi"}], prompt_cache=False)
    assert off.usage.prompt_tokens_details is None


def test_function_provider_receives_reasoning_effort_but_not_prompt_cache() -> None:
    seen: list[dict[str, Any]] = []

    def fn(messages: Any, tools: Any, **kwargs: Any) -> str:
        seen.append(kwargs)
        return "ok"

    client = ai.Client(providers={"fn": FunctionProvider(fn)}, prompt_cache="auto")
    client.chat.completions.create(model="fn:m", messages=[{"role": "user", "content": "x"}],
                                   reasoning_effort="medium")
    assert seen[0]["reasoning_effort"] == "medium" and "prompt_cache" not in seen[0]
