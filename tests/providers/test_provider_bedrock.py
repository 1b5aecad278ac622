"""Amazon Bedrock (Converse / ConverseStream) through real botocore against a loopback server of
our own (tests/support/bedrock_server.py): SigV4 signing, the JSON body on the wire, the binary event
stream, errors with their HTTP status and AWS error codes."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_calls import MODEL, MODEL_ID, USER, create
from support.bedrock_server import (
    ACCESS_KEY,
    REGION,
    SECRET_KEY,
    SESSION_TOKEN,
    BedrockServer,
    Hang,
    Json,
    Raw,
    Recorded,
    Stream,
    converse,
    converse_text,
    converse_tools,
    encode_message,
    error,
    event,
    exception_event,
    stream_text,
    stream_tools,
    usage,
)
from support.timing import scaled
from pydantic import BaseModel

import aisuite_like as ai

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture
def server() -> Iterator[BedrockServer]:
    with BedrockServer() as s:
        yield s


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)



def stream_all(mode: str, config: dict[str, Any], **kwargs: Any) -> tuple[list[Any], Any]:
    """Every chunk of a stream, and its final response."""
    kwargs.setdefault("model", MODEL)
    kwargs.setdefault("messages", USER)
    if mode == "sync":
        with ai.Client({"bedrock": config}).chat.completions.create(stream=True,
                                                                     **kwargs) as stream:
            chunks = list(stream)
            return chunks, stream.get_final_response()

    async def run() -> tuple[list[Any], Any]:
        client = ai.AsyncClient({"bedrock": config})
        stream = await client.chat.completions.create(stream=True, **kwargs)
        async with stream:
            chunks = [c async for c in stream]
            return chunks, await stream.get_final_response()

    return asyncio.run(run())


def verify_sigv4(request: Recorded, secret: str = SECRET_KEY,
                 token: str | None = None) -> None:
    """Recompute the SigV4 signature of a received request with botocore's signer: the header
    must name our key, region and service, and the signature must match the bytes received."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = request.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=" + ACCESS_KEY + "/")
    fields = dict(part.strip().split("=", 1) for part in auth[len("AWS4-HMAC-SHA256 "):]
                  .split(","))
    date = request.headers["x-amz-date"]
    assert fields["Credential"] == f"{ACCESS_KEY}/{date[:8]}/{REGION}/bedrock/aws4_request"
    signed = fields["SignedHeaders"].split(";")
    headers = {name: request.headers[name] for name in signed}
    host = request.headers["host"]
    aws_request = AWSRequest(method="POST", url=f"http://{host}{request.path}",
                             data=request.raw, headers=headers)
    aws_request.context["timestamp"] = date
    signer = SigV4Auth(Credentials(ACCESS_KEY, secret, token), "bedrock", REGION)
    canonical = signer.canonical_request(aws_request)
    expected = signer.signature(signer.string_to_sign(aws_request, canonical), aws_request)
    assert fields["Signature"] == expected


# ------------------------------------------------------------------------ round trips ---

def test_plain_call_is_signed_and_translated(server: BedrockServer, mode: str) -> None:
    server.reply(converse_text("Paris.", input_tokens=20, output_tokens=3,
                               cacheReadInputTokens=100, cacheWriteInputTokens=7))
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "developer", "content": [{"type": "text", "text": "Answer in English."}]},
                {"role": "user", "content": "Capital of France?"}]
    before = copy.deepcopy(messages)
    resp = create(mode, server.config(), messages=messages, max_tokens=50, temperature=0.2,
                  top_p=0.9, stop=["END"], user="user-42")
    assert messages == before
    (request,) = server.requests
    assert request.path == "/model/anthropic.claude-sonnet-4-v1%3A0/converse"
    assert request.model_id == MODEL_ID
    verify_sigv4(request)
    assert request.json == {
        "messages": [{"role": "user", "content": [{"text": "Capital of France?"}]}],
        "system": [{"text": "Be brief."}, {"text": "Answer in English."}],
        "inferenceConfig": {"maxTokens": 50, "temperature": 0.2, "topP": 0.9,
                            "stopSequences": ["END"]},
        "requestMetadata": {"user": "user-42"},
    }
    assert isinstance(resp, ai.ChatCompletionResponse)
    assert resp.provider == "bedrock" and resp.model == MODEL_ID and resp.id.startswith("req-")
    choice = resp.choices[0]
    assert choice.message.content == "Paris." and choice.message.tool_calls is None
    assert (choice.finish_reason, choice.native_finish_reason) == ("stop", "end_turn")
    assert resp.usage is not None
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens,
            resp.usage.total_tokens) == (127, 3, 130)
    assert resp.usage.prompt_tokens_details is not None
    assert resp.usage.prompt_tokens_details.cached_tokens == 100
    assert resp.usage.prompt_tokens_details.cache_creation_tokens == 7


def test_session_token_is_signed(server: BedrockServer) -> None:
    server.reply(converse_text("ok"))
    create("sync", server.config(aws_session_token=SESSION_TOKEN))
    (request,) = server.requests
    assert request.headers["x-amz-security-token"] == SESSION_TOKEN
    verify_sigv4(request, token=SESSION_TOKEN)


def test_aws_alias_and_environment_credentials(server: BedrockServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_REGION", REGION)
    server.reply(converse_text("ok"))
    client = ai.Client({"aws": {"endpoint_url": server.url}})
    resp = client.chat.completions.create(model="aws:amazon.nova-lite-v1:0", messages=USER)
    assert resp.content == "ok"
    verify_sigv4(server.requests[0])


@pytest.mark.parametrize("stop_reason, finish", [
    ("end_turn", "stop"), ("stop_sequence", "stop"), ("max_tokens", "length"),
    ("guardrail_intervened", "content_filter"), ("content_filtered", "content_filter"),
    ("model_context_window_exceeded", "length"), ("malformed_model_output", "stop"),
])
def test_stop_reasons(server: BedrockServer, stop_reason: str, finish: str) -> None:
    server.reply(converse_text("x", stop_reason))
    choice = create("sync", server.config()).choices[0]
    assert (choice.finish_reason, choice.native_finish_reason) == (finish, stop_reason)


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny in {city}"


def test_manual_tool_round_trip_with_parallel_calls(server: BedrockServer, mode: str) -> None:
    server.reply(converse_tools(("tu_1", "get_weather", {"city": "Paris"}),
                                ("tu_2", "get_weather", {"city": "Rome"}), text="Checking."),
                 converse_text("Both sunny."))
    first = create(mode, server.config(), tools=[get_weather], tool_choice="auto")
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.content == "Checking."
    assert [(c.id, c.function.name, json.loads(c.function.arguments))
            for c in message.tool_calls] == [("tu_1", "get_weather", {"city": "Paris"}),
                                             ("tu_2", "get_weather", {"city": "Rome"})]
    tool_spec = {"toolSpec": {"name": "get_weather", "description": "Current weather in a city.",
                              "inputSchema": {"json": {
                                  "type": "object",
                                  "properties": {"city": {"type": "string"}},
                                  "required": ["city"]}}}}
    sent = server.requests[0].json
    assert sent["toolConfig"]["toolChoice"] == {"auto": {}}
    assert sent["toolConfig"]["tools"][0]["toolSpec"]["name"] == "get_weather"
    assert sent["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]["properties"] == \
        tool_spec["toolSpec"]["inputSchema"]["json"]["properties"]

    history = [*USER, message.model_dump(exclude_none=True),
               {"role": "tool", "tool_call_id": "tu_1", "content": "Sunny in Paris"},
               {"role": "tool", "tool_call_id": "tu_2", "content": ""},
               {"role": "user", "content": "And tomorrow?"}]
    second = create(mode, server.config(), messages=history, tools=[get_weather])
    assert second.content == "Both sunny."
    assert server.requests[1].json["messages"] == [
        {"role": "user", "content": [{"text": "Hi"}]},
        {"role": "assistant", "content": [
            {"text": "Checking."},
            {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris"}}},
            {"toolUse": {"toolUseId": "tu_2", "name": "get_weather", "input": {"city": "Rome"}}},
        ]},
        {"role": "user", "content": [  # consecutive results merged, then the user's text
            {"toolResult": {"toolUseId": "tu_1", "content": [{"text": "Sunny in Paris"}]}},
            {"toolResult": {"toolUseId": "tu_2", "content": [{"text": " "}]}},
            {"text": "And tomorrow?"},
        ]},
    ]
    assert "toolChoice" not in server.requests[1].json["toolConfig"]


@pytest.mark.parametrize("tool_choice, wire", [
    ("required", {"any": {}}),
    ({"type": "function", "function": {"name": "get_weather"}}, {"tool": {"name": "get_weather"}}),
    ({"tool": {"name": "get_weather"}}, {"tool": {"name": "get_weather"}}),
])
def test_tool_choice(server: BedrockServer, tool_choice: Any, wire: dict[str, Any]) -> None:
    server.reply(converse_text("ok"))
    create("sync", server.config(), tools=[get_weather], tool_choice=tool_choice)
    assert server.requests[0].json["toolConfig"]["toolChoice"] == wire


def test_tool_choice_none_sends_no_tools_and_history_as_text(server: BedrockServer) -> None:
    server.reply(converse_text("It is sunny."))
    history = [*USER, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "tu_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "tu_1", "content": "Sunny in Paris"}]
    create("sync", server.config(), messages=history, tools=[get_weather], tool_choice="none")
    sent = server.requests[0].json
    assert "toolConfig" not in sent
    assert sent["messages"][1:] == [
        {"role": "assistant",
         "content": [{"text": '[tool call tu_1: get_weather({"city": "Paris"})]'}]},
        {"role": "user", "content": [{"text": "[tool result tu_1: Sunny in Paris]"}]},
    ]


def test_forcing_a_tool_without_tools_raises_before_sending(server: BedrockServer) -> None:
    with pytest.raises(ai.UnsupportedParameterError, match="no tools"):
        create("sync", server.config(), tool_choice="required")
    assert server.requests == []


@pytest.mark.parametrize("kwargs, parameter", [
    ({"seed": 1}, "seed"),
    ({"n": 2}, "n"),
    ({"parallel_tool_calls": False, "tools": [get_weather]}, "parallel_tool_calls"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"stream_options": {"include_obfuscation": True}, "stream": True},
     "stream_options.include_obfuscation"),
    ({"inferenceConfig": {"maxTokens": 5}, "max_tokens": 9}, "inferenceConfig"),
    ({"system": [{"text": "x"}], "messages": [{"role": "system", "content": "y"}, *USER]},
     "system"),
    ({"modelId": "other"}, "modelId"),
])
def test_unsupported_arguments_raise_before_sending(server: BedrockServer, kwargs: dict[str, Any],
                                                    parameter: str) -> None:
    with pytest.raises(ai.UnsupportedParameterError) as info:
        result = create("sync", server.config(), **kwargs)
        if kwargs.get("stream"):
            list(result)
    assert info.value.parameter == parameter
    assert server.requests == []


def test_native_arguments(server: BedrockServer) -> None:
    server.reply(converse_text("ok"))
    guardrail = {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"}
    create("sync", server.config(), max_tokens=2048, top_k=40,
           thinking={"type": "enabled", "budget_tokens": 1024}, guardrailConfig=guardrail,
           inferenceConfig={"temperature": 0.1}, performanceConfig={"latency": "optimized"})
    sent = server.requests[0].json
    assert sent["additionalModelRequestFields"] == {
        "top_k": 40, "thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert sent["guardrailConfig"] == guardrail
    assert sent["inferenceConfig"] == {"maxTokens": 2048, "temperature": 0.1}
    assert sent["performanceConfig"] == {"latency": "optimized"}


def test_native_tool_config_keeps_tool_blocks(server: BedrockServer) -> None:
    server.reply(converse_text("ok"))
    native = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
    history = [*USER, {"role": "assistant", "tool_calls": [
        {"id": "tu_9", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "tu_9", "content": "done"}]
    create("sync", server.config(), messages=history, toolConfig=native)
    sent = server.requests[0].json
    assert sent["toolConfig"] == native
    assert sent["messages"][1]["content"] == [
        {"toolUse": {"toolUseId": "tu_9", "name": "f", "input": {}}}]


def test_response_format_json_schema_is_native(server: BedrockServer) -> None:
    server.reply(converse_text('{"city": "Paris"}'))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    resp = create("sync", server.config(), response_format={
        "type": "json_schema", "json_schema": {"name": "place", "schema": schema}})
    assert json.loads(resp.content) == {"city": "Paris"}
    text_format = server.requests[0].json["outputConfig"]["textFormat"]
    assert text_format["type"] == "json_schema"
    definition = text_format["structure"]["jsonSchema"]
    assert definition["name"] == "place" and json.loads(definition["schema"]) == schema


def test_cache_control_becomes_a_cache_point(server: BedrockServer) -> None:
    server.reply(converse_text("ok"))
    long_text = {"type": "text", "text": "Long reference text.",
                 "cache_control": {"type": "ephemeral"}}
    create("sync", server.config(), messages=[
        {"role": "system", "content": [long_text]},
        {"role": "user", "content": [long_text, {"type": "text", "text": "Question?"}]}])
    sent = server.requests[0].json
    assert sent["system"] == [{"text": "Long reference text."}, {"cachePoint": {"type": "default"}}]
    assert sent["messages"][0]["content"] == [
        {"text": "Long reference text."}, {"cachePoint": {"type": "default"}},
        {"text": "Question?"}]


def test_images_travel_as_bytes(server: BedrockServer) -> None:
    server.reply(converse_text("A PNG."))
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    pdf = "data:application/pdf;base64," + base64.b64encode(b"%PDF-1.4 tiny").decode()
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": data_url}},
        {"type": "image_url", "image_url": {"url": "s3://bucket/cat.jpeg"}},
        {"type": "file", "file": {"file_data": pdf, "filename": "report.v2.pdf"}},
        {"cachePoint": {"type": "default"}},
    ]}]
    create("sync", server.config(), messages=messages)
    content = server.requests[0].json["messages"][0]["content"]
    assert content[0] == {"text": "What is this?"}
    # botocore sends blobs base64-encoded in the JSON body: the exact bytes we were given.
    assert content[1]["image"]["format"] == "png"
    assert base64.b64decode(content[1]["image"]["source"]["bytes"]) == PNG
    assert content[2] == {"image": {"format": "jpeg",
                                    "source": {"s3Location": {"uri": "s3://bucket/cat.jpeg"}}}}
    assert content[3]["document"]["format"] == "pdf"
    assert content[3]["document"]["name"] == "report-v2"
    assert base64.b64decode(content[3]["document"]["source"]["bytes"]) == b"%PDF-1.4 tiny"
    assert content[4] == {"cachePoint": {"type": "default"}}


@pytest.mark.parametrize("url, match", [
    ("https://example.com/cat.png", "not a web address"),
    ("data:image/tiff;base64,AAAA", "image/tiff"),
    ("data:image/png;base64,***", "not valid base64"),
])
def test_bad_images_raise_before_sending(server: BedrockServer, url: str, match: str) -> None:
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        create("sync", server.config(), messages=messages)
    assert server.requests == []


def test_empty_user_message_raises_naming_its_index(server: BedrockServer) -> None:
    with pytest.raises(ValueError, match=r"messages\[1\]"):
        create("sync", server.config(), messages=[*USER, {"role": "user", "content": ""}])
    assert server.requests == []


# --------------------------------------------------------------------------- reasoning ---

REASONING = [
    {"reasoningContent": {"reasoningText": {"text": "Paris is the capital.",
                                            "signature": "sig-abc=="}}},
    {"reasoningContent": {"redactedContent": base64.b64encode(b"\x00opaque\xff").decode()}},
    {"text": "Paris."},
]


def test_reasoning_round_trips_with_its_signature(server: BedrockServer, mode: str) -> None:
    server.reply(converse(REASONING), converse_text("Yes."))
    first = create(mode, server.config(), thinking={"type": "enabled", "budget_tokens": 1024})
    message = first.choices[0].message
    assert message.content == "Paris." and message.reasoning_content == "Paris is the capital."
    stored = message.provider_specific_fields["reasoning_blocks"]
    assert stored == [
        {"reasoningText": {"text": "Paris is the capital.", "signature": "sig-abc=="}},
        {"redactedContent": base64.b64encode(b"\x00opaque\xff").decode()}]
    history = [*USER, message.model_dump(exclude_none=True), {"role": "user", "content": "Sure?"}]
    create(mode, server.config(), messages=history)
    assert server.requests[1].json["messages"][1] == {"role": "assistant", "content": REASONING}


def test_streamed_reasoning_equals_the_non_streamed_message(server: BedrockServer,
                                                            mode: str) -> None:
    redacted = base64.b64encode(b"\x00opaque\xff").decode()
    server.reply(Stream([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"text": "Paris is "}},
                                    "contentBlockIndex": 0}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"text": "the capital."}},
                                    "contentBlockIndex": 0}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"signature": "sig-abc=="}},
                                    "contentBlockIndex": 0}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("contentBlockDelta", {"delta": {"reasoningContent": {"redactedContent": redacted}},
                                    "contentBlockIndex": 1}),
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("contentBlockDelta", {"delta": {"text": "Paris."}, "contentBlockIndex": 2}),
        event("contentBlockStop", {"contentBlockIndex": 2}),
        event("messageStop", {"stopReason": "end_turn"}),
        event("metadata", {"usage": usage(), "metrics": {"latencyMs": 3}}),
    ]), converse(REASONING))
    chunks, final = stream_all(mode, server.config())
    assert [c.choices[0].delta.reasoning_content for c in chunks
            if c.choices[0].delta.reasoning_content] == ["Paris is ", "the capital."]
    plain = create(mode, server.config()).choices[0].message
    streamed = final.choices[0].message
    assert streamed.content == plain.content
    assert streamed.reasoning_content == plain.reasoning_content
    assert streamed.provider_specific_fields == plain.provider_specific_fields


# --------------------------------------------------------------------------- streaming ---

def test_stream_text_usage_on_the_last_chunk(server: BedrockServer, mode: str) -> None:
    server.reply(stream_text("Hel", "lo", input_tokens=12, output_tokens=2,
                             cacheReadInputTokens=4))
    chunks, final = stream_all(mode, server.config(), max_tokens=10)
    assert server.requests[0].operation == "converse-stream"
    assert server.requests[0].json["inferenceConfig"] == {"maxTokens": 10}
    verify_sigv4(server.requests[0])
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content] == \
        ["Hel", "lo"]
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and last.usage is not None
    assert all(c.usage is None for c in chunks[:-1])
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (16, 2)
    assert final.content == "Hello" and final.usage.prompt_tokens_details.cached_tokens == 4


def test_stream_tool_call_deltas(server: BedrockServer, mode: str) -> None:
    server.reply(stream_tools(("tu_1", "get_weather", ['{"ci', 'ty": "Paris"}']),
                              ("tu_2", "get_weather", ['{"city": "Rome"}']), text="Let me see."))
    chunks, final = stream_all(mode, server.config(), tools=[get_weather])
    deltas = [tc for c in chunks for tc in (c.choices[0].delta.tool_calls or [])]
    assert [(d.index, d.id, d.function.name, d.function.arguments) for d in deltas] == [
        (0, "tu_1", "get_weather", ""), (0, None, None, '{"ci'), (0, None, None, 'ty": "Paris"}'),
        (1, "tu_2", "get_weather", ""), (1, None, None, '{"city": "Rome"}')]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    message = final.choices[0].message
    assert message.content == "Let me see."
    assert [(c.id, json.loads(c.function.arguments)) for c in message.tool_calls] == [
        ("tu_1", {"city": "Paris"}), ("tu_2", {"city": "Rome"})]


def test_stream_without_metadata_still_finishes(server: BedrockServer, mode: str) -> None:
    server.reply(Stream([event("messageStart", {"role": "assistant"}),
                         event("contentBlockDelta", {"delta": {"text": "x"},
                                                     "contentBlockIndex": 0}),
                         event("messageStop", {"stopReason": "max_tokens"})]))
    chunks, final = stream_all(mode, server.config())
    assert chunks[-1].choices[0].finish_reason == "length" and chunks[-1].usage is None
    assert final.content == "x"


def test_stream_cut_mid_way_is_a_connection_error(server: BedrockServer, mode: str) -> None:
    frames = stream_text("a", "b").frames
    server.reply(Stream(frames[:2], cut=True))
    with pytest.raises(ai.APIConnectionError):
        stream_all(mode, server.config())


def test_stream_ending_before_message_stop_is_a_connection_error(server: BedrockServer,
                                                                 mode: str) -> None:
    server.reply(Stream(stream_text("a").frames[:2]))
    with pytest.raises(ai.APIConnectionError, match="messageStop"):
        stream_all(mode, server.config())


def test_async_stream_closed_early_releases_the_worker(server: BedrockServer) -> None:
    frames = stream_text(*["x"] * 50).frames
    server.reply(Stream(frames, delay_s=0.01), converse_text("next"))

    async def run() -> str:
        client = ai.AsyncClient({"bedrock": server.config(max_concurrency=1)})
        stream = await client.chat.completions.create(model=MODEL, messages=USER, stream=True)
        async with stream:
            async for _chunk in stream:
                break
        # The one worker thread is free again: the next call does not wait for the stream.
        resp = await asyncio.wait_for(
            client.chat.completions.create(model=MODEL, messages=USER), timeout=5)
        return str(resp.content)

    assert asyncio.run(run()) == "next"


# ------------------------------------------------------------------------------ errors ---

ERRORS = [
    (429, "ThrottlingException", "Too many requests, please wait.", ai.RateLimitError),
    (400, "ValidationException", "Malformed input request.", ai.BadRequestError),
    (400, "ValidationException", "Input is too long for requested model.",
     ai.ContextWindowExceededError),
    (400, "ValidationException", "prompt is too long: 210000 tokens > 200000 maximum",
     ai.ContextWindowExceededError),
    (403, "AccessDeniedException", "You don't have access to the model.",
     ai.PermissionDeniedError),
    (404, "ResourceNotFoundException", "Model not found.", ai.NotFoundError),
    (500, "InternalServerException", "Internal failure.", ai.InternalServerError),
    (503, "ServiceUnavailableException", "Service unavailable.", ai.InternalServerError),
    (429, "ModelNotReadyException", "Model is not ready.", ai.InternalServerError),
    (424, "ModelErrorException", "The model failed.", ai.InternalServerError),
    (408, "ModelTimeoutException", "Model timed out.", ai.APITimeoutError),
    (403, "UnrecognizedClientException", "The security token is invalid.",
     ai.AuthenticationError),
]


@pytest.mark.parametrize("via", ["header", "body"])
@pytest.mark.parametrize("status, code, message, expected", ERRORS)
def test_errors_are_mapped(server: BedrockServer, status: int, code: str, message: str,
                           expected: type, via: str) -> None:
    server.reply(error(status, code, message, via=via))
    with pytest.raises(ai.APIError) as info:
        create("sync", server.config(max_retries=0))  # retries: tests/providers/test_bedrock_retries.py
    err = info.value
    assert type(err) is expected
    assert err.provider == "bedrock" and err.status_code == status
    assert err.request_id and err.request_id.startswith("req-")
    assert code in str(err) and message in str(err)
    assert err.__cause__ is not None
    assert len(server.requests) == 1


def test_throttling_carries_retry_after(server: BedrockServer, mode: str) -> None:
    server.reply(error(429, "ThrottlingException", "slow down", headers={"Retry-After": "7"}))
    with pytest.raises(ai.RateLimitError) as info:
        create(mode, server.config(max_retries=0))
    assert info.value.retry_after == 7.0


@pytest.mark.parametrize("exception_type, expected", [
    ("throttlingException", ai.RateLimitError),
    ("validationException", ai.BadRequestError),
    ("modelStreamErrorException", ai.InternalServerError),
    ("internalServerException", ai.InternalServerError),
    ("serviceUnavailableException", ai.InternalServerError),
])
def test_stream_exception_events_are_mapped(server: BedrockServer, mode: str,
                                            exception_type: str, expected: type) -> None:
    server.reply(Stream([event("messageStart", {"role": "assistant"}),
                         event("contentBlockDelta", {"delta": {"text": "par"},
                                                     "contentBlockIndex": 0}),
                         exception_event(exception_type, "went wrong mid-stream")]))
    with pytest.raises(ai.APIError) as info:
        stream_all(mode, server.config())
    assert type(info.value) is expected
    assert "went wrong mid-stream" in str(info.value)
    assert info.value.request_id and info.value.request_id.startswith("req-")


def test_stream_error_before_the_body_is_mapped(server: BedrockServer, mode: str) -> None:
    server.reply(error(403, "AccessDeniedException", "no access"))
    with pytest.raises(ai.PermissionDeniedError):
        stream_all(mode, server.config())


DEEP = b"[" * 5000 + b"]" * 5000  # JSON nested 5,000 levels deep


@pytest.mark.usefixtures("no_collector_midway")
@pytest.mark.parametrize("body,status", [
    (b'{"output": ' + DEEP + b"}", 200),  # our Converse fast path hands it to botocore
    (b'{"metrics": null, "output": ' + DEEP + b"}", 200),  # botocore's own parser
    (b'{"message": ' + DEEP + b"}", 400),  # an error body: botocore's parser
], ids=["converse", "converse-botocore", "error-body"])
def test_deeply_nested_bodies_are_typed_errors(server: BedrockServer, mode: str, body: bytes,
                                               status: int) -> None:
    """Python's JSON parser raises RecursionError near 1,000 levels: a typed error instead."""
    server.reply(Raw(body, status=status))
    with pytest.raises(ai.APIResponseValidationError, match="nested too deeply"):
        create(mode, server.config(max_retries=0))
    assert len(server.requests) == 1


@pytest.mark.usefixtures("no_collector_midway")
def test_deeply_nested_stream_event_is_a_typed_error(server: BedrockServer, mode: str) -> None:
    server.reply(Stream([event("messageStart", {"role": "assistant"}), encode_message(
        {":event-type": "contentBlockDelta", ":content-type": "application/json",
         ":message-type": "event"}, b'{"delta": ' + DEEP + b"}")]))
    with pytest.raises(ai.APIError, match="nested more than 200 levels deep"):
        stream_all(mode, server.config(max_retries=0))


def test_connection_refused_names_the_host(mode: str) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": REGION,
              "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY,
              "max_retries": 0}
    with pytest.raises(ai.APIConnectionError, match=f"127.0.0.1:{port}"):
        create(mode, config)


def test_read_timeout(server: BedrockServer, mode: str) -> None:
    server.reply(Hang(scaled(1.5)))
    with pytest.raises(ai.APITimeoutError, match="127.0.0.1"):
        create(mode, server.config(timeout=scaled(0.3), max_retries=0))


def test_per_call_timeout(server: BedrockServer) -> None:
    server.reply(Hang(scaled(1.5)))
    with pytest.raises(ai.APITimeoutError):
        create("sync", server.config(max_retries=0), timeout=scaled(0.3))


def test_no_credentials_is_an_authentication_error(server: BedrockServer) -> None:
    with pytest.raises(ai.AuthenticationError, match="AWS_ACCESS_KEY_ID"):
        create("sync", {"endpoint_url": server.url, "region_name": REGION})
    assert server.requests == []


def test_missing_region_and_unknown_keys_are_configuration_errors() -> None:
    with pytest.raises(ai.ConfigurationError, match="region_name"):
        create("sync", {"aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY})
    with pytest.raises(ai.ConfigurationError, match="AWS_BEARER_TOKEN_BEDROCK"):
        create("sync", {"region_name": REGION, "api_key": "x"})
    with pytest.raises(ai.ConfigurationError, match="'no-such-profile'"):
        create("sync", {"profile_name": "no-such-profile"})


def test_secrets_never_leak(server: BedrockServer, caplog: pytest.LogCaptureFixture) -> None:
    echo = f"The security token {SESSION_TOKEN} with secret {SECRET_KEY} is invalid."
    server.reply(error(403, "UnrecognizedClientException", echo),
                 Stream([event("messageStart", {"role": "assistant"}),
                         exception_event("validationException", echo)]))
    config = server.config(aws_session_token=SESSION_TOKEN)
    client = ai.Client({"bedrock": config})
    with caplog.at_level(logging.DEBUG, logger="aisuite_like"):
        with pytest.raises(ai.AuthenticationError) as info:
            client.chat.completions.create(model=MODEL, messages=USER)
        with pytest.raises(ai.BadRequestError) as stream_info:
            list(client.chat.completions.create(model=MODEL, messages=USER, stream=True))
    for err in (info.value, stream_info.value):
        texts = [str(err), repr(err), str(err.__cause__), repr(err.__cause__)]
        assert all(SECRET_KEY not in t and SESSION_TOKEN not in t for t in texts), texts
        assert "[REDACTED]" in str(err)
    provider = client._provider("bedrock")
    assert SECRET_KEY not in repr(provider) and SESSION_TOKEN not in repr(provider)
    assert SECRET_KEY not in caplog.text and SESSION_TOKEN not in caplog.text


def test_chain_credentials_never_leak_into_logs(server: BedrockServer,
                                               monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """botocore logs the signed request's headers at DEBUG, session token included; the
    provider scrubs the secrets it was given and the ones the AWS chain resolved."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "env-secret-key-abcdefghijklmnopqrstuv")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "env-session-token-0123456789abcdefghij")
    server.reply(converse_text("ok"), converse_text("ok"))
    with caplog.at_level(logging.DEBUG):
        create("sync", {"endpoint_url": server.url, "region_name": REGION})
        create("sync", server.config(aws_session_token=SESSION_TOKEN))
    assert server.requests[0].headers["x-amz-security-token"].startswith("env-session-token")
    assert "x-amz-security-token" in caplog.text.lower()  # botocore did log the header
    for secret in ("env-secret-key-abcdefghijklmnopqrstuv",
                   "env-session-token-0123456789abcdefghij", SECRET_KEY, SESSION_TOKEN):
        assert secret not in caplog.text


# ------------------------------------------------------------------- runner and agents ---

def weather_server(recorded: Recorded) -> Json:
    """Asks for the weather in two cities, in parallel, then answers from the results."""
    messages = recorded.json["messages"]
    results = [b["toolResult"] for m in messages for b in m["content"] if "toolResult" in b]
    if not results:
        return converse_tools(("tu_1", "get_weather", {"city": "Paris"}),
                              ("tu_2", "get_weather", {"city": "Rome"}))
    texts = [r["content"][0]["text"] for r in results]
    return converse_text(" / ".join(texts))


def test_runner_tool_loop(server: BedrockServer, mode: str) -> None:
    server.default = weather_server
    resp = create(mode, server.config(), tools=[get_weather], max_turns=3)
    assert resp.content == "Sunny in Paris / Sunny in Rome"
    assert resp.stop_reason == "completed"
    assert [(e.call_id, e.result) for e in resp.tool_events] == [
        ("tu_1", "Sunny in Paris"), ("tu_2", "Sunny in Rome")]
    assert len(server.requests) == 2
    second = server.requests[1].json["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert [b["toolResult"]["toolUseId"] for b in second[2]["content"]] == ["tu_1", "tu_2"]
    assert resp.usage.prompt_tokens == 20  # summed over both calls


def test_runner_streamed_tool_loop(server: BedrockServer, mode: str) -> None:
    def streaming_weather(recorded: Recorded) -> Stream:
        if any("toolResult" in b for m in recorded.json["messages"] for b in m["content"]):
            return stream_text("Done.")
        return stream_tools(("tu_1", "get_weather", ['{"city":', ' "Oslo"}']))

    server.default = streaming_weather
    chunks, final = stream_all(mode, server.config(), tools=[get_weather], max_turns=3)
    assert {c.turn for c in chunks} == {1, 2}
    assert final.content == "Done." and final.tool_events[0].result == "Sunny in Oslo"


@pytest.mark.parametrize("streamed,fragments,says", [
    (False, "Paris", "must be a JSON object"),  # toolUse.input a string
    (True, [5], "must be a JSON object"),  # a streamed piece of input that is a number
    (True, ['{"city": '], "not valid JSON"),
], ids=["input-string", "streamed-piece-number", "streamed-invalid-json"])
def test_malformed_tool_input_gets_an_error_result(server: BedrockServer, mode: str,
                                                   streamed: bool, fragments: Any,
                                                   says: str) -> None:
    """A model's input that is not a JSON object: the model is told, the run goes on."""
    if streamed:
        server.reply(stream_tools(("tu_1", "get_weather", fragments)), stream_text("Sorry."))
        _, final = stream_all(mode, server.config(), tools=[get_weather], max_turns=3)
    else:
        server.reply(converse_tools(("tu_1", "get_weather", fragments)),
                     converse_text("Sorry."))
        final = create(mode, server.config(), tools=[get_weather], max_turns=3)
    (event_,) = final.tool_events
    assert event_.is_error and says in event_.result, event_.result
    assert final.content == "Sorry." and len(server.requests) == 2
    result = server.requests[1].json["messages"][2]["content"][0]["toolResult"]
    assert says in result["content"][0]["text"]


def test_runner_final_answer_sends_no_tools(server: BedrockServer) -> None:
    server.reply(converse_tools(("tu_1", "get_weather", {"city": "Paris"})),
                 converse_text("Sunny."))
    resp = create("sync", server.config(), tools=[get_weather], max_turns=1,
                  on_max_turns="final_answer")
    assert resp.content == "Sunny." and resp.stop_reason == "max_turns"
    last = server.requests[1].json
    assert "toolConfig" not in last
    assert last["messages"][-1] == {
        "role": "user", "content": [{"text": "[tool result tu_1: Sunny in Paris]"}]}


def test_agent_with_tools_and_structured_output(server: BedrockServer) -> None:
    class Forecast(BaseModel):
        city: str
        sky: str

    def agent_server(recorded: Recorded) -> Json:
        body = recorded.json
        if not any("toolResult" in b for m in body["messages"] for b in m["content"]):
            return converse_tools(("tu_1", "get_weather", {"city": "Paris"}))
        assert "outputConfig" in body  # native structured output
        return converse_text('{"city": "Paris", "sky": "sunny"}')

    server.default = agent_server
    agent = ai.Agent(name="weather_agent", model=MODEL, instructions="Use the tool.",
                     tools=[get_weather], output_type=Forecast)
    client = ai.Client({"bedrock": server.config()})
    result = ai.Runner.run_sync(agent, "Weather in Paris?", client=client)
    assert result.final_output == Forecast(city="Paris", sky="sunny")
    assert server.requests[0].json["system"] == [{"text": "Use the tool."}]
    schema = json.loads(server.requests[0].json["outputConfig"]["textFormat"]["structure"]
                        ["jsonSchema"]["schema"])
    assert set(schema["properties"]) == {"city", "sky"}


def test_agent_streamed_run(server: BedrockServer) -> None:
    def agent_server(recorded: Recorded) -> Stream:
        if any("toolResult" in b for m in recorded.json["messages"] for b in m["content"]):
            return stream_text("Sunny ", "in Paris.")
        return stream_tools(("tu_1", "get_weather", ['{"city": "Paris"}']))

    server.default = agent_server
    agent = ai.Agent(name="weather", model=MODEL, tools=[get_weather])

    async def run() -> list[str]:
        client = ai.AsyncClient({"bedrock": server.config()})
        return [type(e).__name__ async for e in ai.Runner.run_streamed(agent, "Paris?",
                                                                         client=client)]

    names = asyncio.run(run())
    assert names[0] == "RunStarted" and names[-1] == "RunCompleted"
    assert "ToolCallExecutionEvent" in names and "TextDelta" in names


# ----------------------------------------------------------------------------- hygiene ---

def test_translated_objects_set_every_field(server: BedrockServer) -> None:
    """The translator builds its objects with every field given (types.build_model): a field added
    to a type later must be added there too."""
    server.reply(converse(REASONING + [{"toolUse": {"toolUseId": "t", "name": "f",
                                                     "input": {}}}], cacheReadInputTokens=1),
                 stream_tools(("t", "f", ["{}"])))

    def check(obj: Any) -> None:
        if isinstance(obj, BaseModel):
            assert obj.model_fields_set == set(type(obj).model_fields), type(obj).__name__
            for name in type(obj).model_fields:
                check(getattr(obj, name))
        elif isinstance(obj, list):
            for item in obj:
                check(item)

    check(create("sync", server.config()))
    chunks, _ = stream_all("sync", server.config())
    for chunk in chunks:
        check(chunk)


def test_import_does_not_load_botocore() -> None:
    code = "import sys, aisuite_like; print('botocore' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_botocore_retries_are_off(server: BedrockServer) -> None:
    server.reply(error(503, "ServiceUnavailableException", "busy"), converse_text("late"))
    with pytest.raises(ai.InternalServerError):
        create("sync", server.config(max_retries=0))  # ours off too: one attempt
    assert len(server.requests) == 1 and server.unused == 1


# ------------------------------------------------------------- the event-stream decoder ---

def _mixed_frames() -> list[bytes]:
    return [*stream_tools(("tu_1", "get_weather", ['{"city":', ' "Paris"}']), text="Hm.").frames,
            event("contentBlockDelta", {"delta": {"reasoningContent": {"signature": "s=="}},
                                        "contentBlockIndex": 9})]


def test_decoder_agrees_with_botocore(server: BedrockServer) -> None:
    """Our decoder and botocore's own event-stream parser read the same bytes alike (this also
    checks the loopback server's encoding against botocore)."""
    import botocore.session

    frames = _mixed_frames()
    server.reply(Stream(frames))
    client = botocore.session.get_session().create_client(
        "bedrock-runtime", endpoint_url=server.url, region_name=REGION,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)
    theirs = list(client.converse_stream(modelId="m", messages=[
        {"role": "user", "content": [{"text": "Hi"}]}])["stream"])
    from aisuite_like.providers.bedrock import EventStreamDecoder

    ours = EventStreamDecoder().feed(b"".join(frames))
    assert ours == theirs and len(ours) == len(frames)


def test_decoder_takes_bytes_in_any_split() -> None:
    from aisuite_like.providers.bedrock import EventStreamDecoder

    data = b"".join(_mixed_frames())
    whole = EventStreamDecoder().feed(data)
    decoder = EventStreamDecoder()
    pieces = [e for i in range(0, len(data), 7) for e in decoder.feed(data[i:i + 7])]
    assert pieces == whole and decoder.pending == 0


def test_decoder_skips_typed_headers_and_rejects_corruption() -> None:
    import struct

    from support.bedrock_server import encode_message

    from aisuite_like.providers.bedrock import EventStreamDecoder

    frame = encode_message({":event-type": "messageStart", ":message-type": "event"},
                           b'{"role": "assistant"}')
    # an int32 header (type 4) and a uuid header (type 9) before the string ones
    extra = b"\x03num\x04" + struct.pack(">i", 7) + b"\x02id\x09" + bytes(16)
    import zlib

    body = frame[12:-4]
    headers_length = struct.unpack(">I", frame[4:8])[0] + len(extra)
    prelude = struct.pack(">II", len(frame) + len(extra), headers_length)
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + extra + body
    message += struct.pack(">I", zlib.crc32(message))
    assert EventStreamDecoder().feed(message) == [{"messageStart": {"role": "assistant"}}]
    broken = bytearray(frame)
    broken[-6] ^= 0xFF
    with pytest.raises(ai.APIError, match="CRC"):
        EventStreamDecoder().feed(bytes(broken))


def test_stream_ending_inside_a_message_is_a_connection_error(server: BedrockServer) -> None:
    frames = stream_text("a").frames
    server.reply(Stream([*frames[:2], frames[2][:10]]))
    with pytest.raises(ai.APIConnectionError, match="inside a message"):
        stream_all("sync", server.config())


def test_instrumented_call_names_bedrock_and_its_endpoint(server: BedrockServer,
                                                          otel: Any) -> None:
    """With ai.instrument(), a Bedrock call is a span naming aws.bedrock and the endpoint it
    went to, with the usage; no secret in any attribute."""
    server.reply(converse_text("ok", input_tokens=11, output_tokens=2))
    create("sync", server.config(aws_session_token=SESSION_TOKEN))
    (span,) = [s for s in otel.spans() if s.attributes
               and s.attributes.get("gen_ai.provider.name")]
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.provider.name"] == "aws.bedrock"
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["gen_ai.usage.input_tokens"] == 11
    text = json.dumps(attributes, default=str)
    assert SECRET_KEY not in text and SESSION_TOKEN not in text
