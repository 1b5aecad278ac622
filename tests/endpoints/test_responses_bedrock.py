"""``client.responses.create`` on Bedrock: translated through the Converse translator and
botocore, against the project's loopback Bedrock server; plain, streamed and a tool run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.bedrock_calls import MODEL, MODEL_ID
from support.bedrock_server import BedrockServer, converse_text, converse_tools, stream_text
from support.responses_helpers import respond, respond_stream, sdk_events, sdk_response


@pytest.fixture
def server() -> Iterator[BedrockServer]:
    with BedrockServer() as s:
        yield s


def get_weather(city: str) -> str:
    """Current weather."""
    return f"sunny in {city}"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_plain_and_tool_run(mode: str, server: BedrockServer) -> None:
    server.reply(converse_text("Paris.", input_tokens=12, output_tokens=3))
    response = respond(mode, {"bedrock": server.config()}, model=MODEL, input="Capital?",
                       instructions="Be brief.", max_output_tokens=50)
    body = server.requests[0].json
    assert server.requests[0].model_id == MODEL_ID
    assert body["system"] == [{"text": "Be brief."}]
    assert body["messages"] == [{"role": "user", "content": [{"text": "Capital?"}]}]
    assert body["inferenceConfig"]["maxTokens"] == 50
    sdk = sdk_response(response)
    assert sdk.output_text == "Paris." and sdk.usage.input_tokens == 12
    server.reply(converse_tools(("t1", "get_weather", {"city": "Oslo"})),
                 converse_text("Sunny."))
    run = respond(mode, {"bedrock": server.config()}, model=MODEL, input="Weather?",
                  tools=[get_weather], max_turns=2)
    assert server.requests[-1].json["messages"][2]["content"][0]["toolResult"][
        "toolUseId"] == "t1"
    assert [i.type for i in sdk_response(run).output] == [
        "function_call", "function_call_output", "message"]


def test_stream(server: BedrockServer) -> None:
    server.reply(stream_text("Hel", "lo"))
    events, final = respond_stream("sync", {"bedrock": server.config()}, model=MODEL,
                                   input="hi")
    sdk_events(events)
    assert final.output_text == "Hello" and server.requests[0].operation == "converse-stream"
