"""``/v1/messages`` in Anthropic's shape, called by the real Anthropic SDK with only its
``base_url`` and key changed: messages, tools, the SSE events of a stream, count_tokens, and
errors in Anthropic's shape (docs/gateway.md, "Anthropic's API")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
anthropic = pytest.importorskip("anthropic")

from support.gateway_server import GatewayServer, base_config  # noqa: E402
from support.model_server import ModelServer, chat_reply, streamed, tool_call_reply  # noqa: E402
from support.timing import scaled  # noqa: E402

WEATHER = {"name": "weather", "description": "The weather in a city",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}


@pytest.fixture(scope="module")
def gateway() -> Iterator[GatewayServer]:
    with GatewayServer(base_config({"fast": "test:offline"})) as server:
        yield server


def _sdk(server: GatewayServer, key: str) -> Any:
    return anthropic.Anthropic(base_url=server.url, api_key=key, timeout=scaled(30),
                               max_retries=0)


def test_a_message_and_a_tool_call(gateway: GatewayServer) -> None:
    client = _sdk(gateway, gateway.new_key("claude-user"))
    message = client.messages.create(model="fast", max_tokens=100, system="Be brief.",
                                     messages=[{"role": "user", "content": "hi"}])
    assert message.content[0].type == "text"
    assert message.content[0].text == 'You said: "hi"'
    assert message.stop_reason == "end_turn" and message.model == "fast"
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
    call = client.messages.create(model="fast", max_tokens=100, tools=[WEATHER],
                                  messages=[{"role": "user", "content": "Weather in Paris?"}])
    assert call.stop_reason == "tool_use"
    (use,) = [b for b in call.content if b.type == "tool_use"]
    assert use.name == "weather" and isinstance(use.input["city"], str)
    answer = client.messages.create(model="fast", max_tokens=100, tools=[WEATHER], messages=[
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": use.id,
                                           "name": "weather", "input": use.input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                      "content": "sunny"}]}])
    assert answer.content[0].text == "Tool results: weather: sunny"


def test_a_stream_of_anthropic_events(gateway: GatewayServer) -> None:
    client = _sdk(gateway, gateway.new_key("streamer"))
    with client.messages.stream(model="fast", max_tokens=100,
                                messages=[{"role": "user", "content": "hello"}]) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_start" in kinds and "content_block_stop" in kinds
    assert final.content[0].text == 'You said: "hello"'
    assert final.stop_reason == "end_turn" and final.usage.output_tokens > 0
    with client.messages.stream(model="fast", max_tokens=100, tools=[WEATHER],
                                messages=[{"role": "user", "content": "Paris?"}]) as stream:
        final = stream.get_final_message()
    (use,) = final.content
    assert use.type == "tool_use" and use.name == "weather" and "city" in use.input
    assert final.stop_reason == "tool_use"


def test_count_tokens_and_errors_in_anthropic_shape(gateway: GatewayServer) -> None:
    client = _sdk(gateway, gateway.new_key("counter"))
    count = client.messages.count_tokens(model="fast", messages=[
        {"role": "user", "content": "How many tokens is this sentence, roughly?"}])
    assert count.input_tokens > 0
    with pytest.raises(anthropic.NotFoundError) as missing:
        client.messages.create(model="claude-nope", max_tokens=10,
                               messages=[{"role": "user", "content": "hi"}])
    assert missing.value.body["type"] == "error"
    assert missing.value.body["error"]["type"] == "not_found_error"
    with pytest.raises(anthropic.AuthenticationError) as refused:
        _sdk(gateway, "sk-gw-wrong").messages.create(
            model="fast", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert refused.value.body["error"]["type"] == "authentication_error"
    with pytest.raises(anthropic.BadRequestError) as bad:
        client.messages.create(model="fast", max_tokens=10,
                               messages=[{"role": "user", "content": "hi"}],
                               extra_body={"provider_configs": {"x": {}}})
    assert bad.value.body["error"]["type"] == "invalid_request_error"


def test_count_tokens_is_the_models_own_count() -> None:
    """``messages.count_tokens`` through the gateway asks the counting API of the family
    behind the alias (Anthropic's ``/v1/messages/count_tokens``, OpenAI's
    ``/v1/responses/input_tokens``, a router alias's first deployment's), with the gateway's
    own provider key; a family that cannot count (here ``test``) gets the estimate. The
    header ``x-aisuite-token-count`` says which."""
    from support.fault_server import Reply

    upstream_key = "sk-upstream-count-0123456789"

    def respond(request: Any) -> Any:
        if request.path.endswith("/v1/messages/count_tokens"):
            return Reply(body={"input_tokens": 412})
        if request.path.endswith("/v1/responses/input_tokens"):
            return Reply(body={"object": "response.input_tokens", "input_tokens": 57})
        return Reply(status=404, body={"error": {"message": "not here"}})

    with ModelServer(respond) as upstream:
        config = base_config(
            {"claude": "anthropic:claude-haiku-4-5", "gpt": "openai:gpt-4o",
             "local": "test:offline", "smart": "router:smart"},
            providers={"anthropic": {"api_key": upstream_key, "base_url": upstream.url,
                                     "max_retries": 0},
                       "openai": {"api_key": upstream_key, "base_url": upstream.url + "/v1",
                                  "max_retries": 0, "transport": "native"}},
            router={"deployments": {"smart": [{"model": "anthropic:claude-haiku-4-5"},
                                              {"model": "openai:gpt-4o"}]}})
        with GatewayServer(config) as gateway:
            gateway_key = gateway.new_key("counter")
            client = _sdk(gateway, gateway_key)
            question = [{"role": "user", "content": "How many tokens is this sentence?"}]

            def count(model: str) -> tuple[int, str]:
                raw = client.messages.with_raw_response.count_tokens(
                    model=model, system="Be brief.", tools=[WEATHER], messages=question)
                return raw.parse().input_tokens, raw.headers["x-aisuite-token-count"]

            assert count("claude") == (412, "exact")
            (sent,) = upstream.requests
            assert upstream_key in (sent.headers.get("x-api-key"),
                                    sent.headers.get("authorization", "")[7:])
            assert sent.body["model"] == "claude-haiku-4-5"
            assert sent.body["system"] == "Be brief."
            assert json.dumps(sent.body["messages"]).count(question[0]["content"]) == 1
            assert [tool["name"] for tool in sent.body["tools"]] == ["weather"]
            assert "max_tokens" not in sent.body
            assert count("gpt") == (57, "exact")
            sent = upstream.requests[-1]
            assert sent.path.endswith("/v1/responses/input_tokens")
            assert sent.body["model"] == "gpt-4o"
            assert sent.headers["authorization"] == f"Bearer {upstream_key}"
            assert count("smart") == (412, "exact")
            assert upstream.requests[-1].body["model"] == "claude-haiku-4-5"
            seen = len(upstream.requests)
            tokens, source = count("local")
            assert source == "estimate" and tokens > 0
            assert len(upstream.requests) == seen  # an estimate sends nothing
            records = [r for r in gateway.records() if r["endpoint"] == "messages.count_tokens"]
            assert [r["deployment"] for r in records] == [
                "anthropic:claude-haiku-4-5", "openai:gpt-4o", "anthropic:claude-haiku-4-5",
                "test:offline"]
            assert all(gateway_key not in json.dumps(r.headers) for r in upstream.requests)


def test_messages_reach_an_openai_upstream_translated() -> None:
    """The Anthropic request, translated once into the OpenAI shape the client takes, is
    sent by the openai family: what the upstream receives is an ordinary chat request."""
    replies = iter([tool_call_reply("call_1", "weather", {"city": "Paris"}),
                    streamed(chat_reply("It is sunny.", usage=(30, 6)))])
    with ModelServer(lambda request: next(replies)) as upstream:
        config = base_config({"gpt": "openai:gpt-4o"}, providers={
            "openai": {"api_key": "sk-upstream-0123456789", "base_url": upstream.url + "/v1",
                       "max_retries": 0}})
        with GatewayServer(config) as gateway:
            client = _sdk(gateway, gateway.new_key("team"))
            first = client.messages.create(
                model="gpt", max_tokens=50, system="You are terse.", tools=[WEATHER],
                tool_choice={"type": "any"},
                messages=[{"role": "user", "content": "Weather in Paris?"}])
            (use,) = first.content
            assert use.type == "tool_use" and use.input == {"city": "Paris"}
            with client.messages.stream(model="gpt", max_tokens=50, tools=[WEATHER], messages=[
                    {"role": "user", "content": "Weather in Paris?"},
                    {"role": "assistant", "content": first.model_dump()["content"]},
                    {"role": "user", "content": [{"type": "tool_result",
                                                  "tool_use_id": use.id,
                                                  "content": "sunny"}]}]) as stream:
                text = stream.get_final_text()
            assert text == "It is sunny."
            records = gateway.records()
    sent = [r.body for r in upstream.requests]
    assert sent[0]["messages"][0] == {"role": "system", "content": "You are terse."}
    assert sent[0]["tool_choice"] == "required" and sent[0]["max_tokens"] == 50
    assert sent[0]["tools"][0]["function"]["name"] == "weather"
    assert [m["role"] for m in sent[1]["messages"]] == ["user", "assistant", "tool"]
    assert json.loads(sent[1]["messages"][1]["tool_calls"][0]["function"]["arguments"]) == \
        {"city": "Paris"}
    assert sent[1]["messages"][2]["content"] == "sunny" and sent[1]["stream"] is True
    assert [r["endpoint"] for r in records] == ["messages", "messages"]
    assert records[1]["prompt_tokens"] == 30 and records[1]["completion_tokens"] == 6


def test_an_upstream_failure_mid_stream_is_an_error_event() -> None:
    from support.fault_server import Stream
    from support.model_server import sse_reply

    events = sse_reply("one two three").events
    with ModelServer(lambda request: Stream(events=events, cut_after=2, then="reset")) \
            as upstream:
        config = base_config({"gpt": "openai:gpt-4o"}, providers={
            "openai": {"api_key": "sk-upstream-0123456789", "base_url": upstream.url + "/v1",
                       "max_retries": 0}})
        with GatewayServer(config) as gateway:
            client = _sdk(gateway, gateway.new_key("cut"))
            seen: list[str] = []
            with pytest.raises(anthropic.APIStatusError) as failed:
                with client.messages.stream(model="gpt", max_tokens=50, messages=[
                        {"role": "user", "content": "hi"}]) as stream:
                    for event in stream:
                        seen.append(event.type)
            records = gateway.records()
    assert seen[0] == "message_start" and "message_stop" not in seen
    assert failed.value.body["type"] == "error"
    assert records[0]["status"] == 502 and records[0]["error_type"] == "APIConnectionError"
