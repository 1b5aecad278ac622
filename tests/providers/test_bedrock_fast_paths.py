"""The Bedrock provider's fast paths, through real botocore against the loopback server.

Successful Converse replies are read with one ``json.loads`` (``providers/bedrock/wire.py``)
instead of botocore's shape-driven parser; botocore's parameter validation runs once per
request before the first attempt, and leaves out messages the translator built from plain
values. These tests pin what that must not change: the reply dict is the one botocore builds,
every other reply (errors, bodies that are not JSON, blobs, nulls) goes through botocore's
parser, and a badly shaped request is still refused before anything is sent.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_calls import MODEL, MODEL_ID, USER, create
from support.bedrock_server import (
    ACCESS_KEY,
    REGION,
    SECRET_KEY,
    BedrockServer,
    Json,
    Raw,
    Recorded,
    converse,
    converse_text,
    usage,
)

import aisuite_like as ai


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture
def server() -> Iterator[BedrockServer]:
    with BedrockServer() as s:
        yield s


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)



def botocore_converse(server: BedrockServer) -> dict[str, Any]:
    """What a plain botocore client returns for the server's next reply."""
    import botocore.config
    import botocore.session

    client = botocore.session.Session().create_client(
        "bedrock-runtime", region_name=REGION, endpoint_url=server.url,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        config=botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"}))
    try:
        return client.converse(modelId=MODEL_ID,  # type: ignore[no-any-return]
                               messages=[{"role": "user", "content": [{"text": "Hi"}]}])
    finally:
        client.close()


def comparable(parsed: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the body members, the metadata without what differs from reply to reply)."""
    body = {k: v for k, v in parsed.items() if k != "ResponseMetadata"}
    metadata = dict(parsed["ResponseMetadata"])
    metadata.pop("RequestId")
    headers = {k: v for k, v in metadata.pop("HTTPHeaders").items()
               if k not in ("x-amzn-requestid", "date")}
    return body, {**metadata, "HTTPHeaders": headers}


REDACTED = base64.b64encode(b"\x00opaque reasoning\xff").decode()

REPLIES = {
    "text": converse_text("Paris."),
    "tool use": converse([{"text": "Let me look."},
                          {"toolUse": {"toolUseId": "tu_1", "name": "get_weather",
                                       "input": {"city": "Paris", "days": [1, 2.5, True]}}}],
                         "tool_use"),
    "usage with cache": converse([{"text": "x"}], cacheReadInputTokens=7,
                                 cacheWriteInputTokens=3),
    "unicode": converse_text("Zürich, 東京, emoji \U0001f600, quote \" and \\ backslash"),
    # botocore's parser is used for these (blobs are base64-decoded, nulls dropped):
    "redacted reasoning (blob)": converse([{"reasoningContent": {"redactedContent": REDACTED}},
                                           {"text": "ok"}]),
    "null member": Json({"output": {"message": {"role": "assistant",
                                                "content": [{"text": "ok"}]}},
                         "stopReason": "end_turn", "usage": usage(), "trace": None}),
    "an unknown top-level member": Json({**converse_text("ok").body, "newTopLevel": {"a": 1}}),
    "token counts as strings": Json({**converse_text("ok").body, "usage": {
        "inputTokens": "10", "outputTokens": "5", "totalTokens": "15"}}),
}


@pytest.mark.parametrize("name", list(REPLIES))
def test_reply_dict_is_the_one_botocore_builds(server: BedrockServer, name: str) -> None:
    server.reply(REPLIES[name], REPLIES[name])
    response = create("sync", server.config(max_retries=0))
    expected = botocore_converse(server)
    assert comparable(response.raw) == comparable(expected)
    assert response.id == response.raw["ResponseMetadata"]["RequestId"]
    assert response.id.startswith("req-")
    assert list(response.raw) == list(expected)  # ResponseMetadata first, as botocore


def test_blob_reply_keeps_botocore_bytes_and_round_trips(server: BedrockServer) -> None:
    server.reply(REPLIES["redacted reasoning (blob)"])
    response = create("sync", server.config(max_retries=0))
    blocks = response.raw["output"]["message"]["content"]
    assert blocks[0]["reasoningContent"]["redactedContent"] == base64.b64decode(REDACTED)
    assert response.choices[0].message.provider_specific_fields == {
        "reasoning_blocks": [{"redactedContent": REDACTED}]}


def test_unknown_nested_fields_are_kept_in_raw(server: BedrockServer, mode: str) -> None:
    """A plain successful body is kept as sent (botocore's parser would drop members its
    model does not know yet); the translation reads only what it knows."""
    body = converse_text("ok").body
    body["output"]["message"]["newField"] = {"x": 1}
    body["usage"]["futureTokens"] = 4
    server.reply(Json(body))
    response = create(mode, server.config(max_retries=0))
    assert response.raw["output"]["message"]["newField"] == {"x": 1}
    assert response.raw["usage"]["futureTokens"] == 4
    assert response.choices[0].message.content == "ok"
    assert response.usage.prompt_tokens == 10 and response.usage.completion_tokens == 5


def test_botocore_debug_logging_uses_botocore_parser(server: BedrockServer,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    body = converse_text("ok").body
    body["output"]["message"]["newField"] = 1
    server.reply(Json(body))
    with caplog.at_level(logging.DEBUG, logger="botocore.parsers"):
        response = create("sync", server.config(max_retries=0))
    assert "Response body" in caplog.text  # botocore's parser logged the body it read
    assert "newField" not in response.raw["output"]["message"]  # and its model applied
    assert response.choices[0].message.content == "ok"


@pytest.mark.parametrize("body", [b"<html>Service maintenance</html>", b"", b"[1, 2]",
                                  b'"just a string"', b"\xff\xfe not utf-8 {"])
def test_success_status_without_a_converse_object_is_an_api_error(
        server: BedrockServer, mode: str, body: bytes) -> None:
    server.reply(Raw(body, content_type="text/html"))
    with pytest.raises(ai.APIError) as info:
        create(mode, server.config(max_retries=0))
    assert type(info.value) is ai.APIError
    assert info.value.status_code == 200 and info.value.provider == "bedrock"
    assert len(server.requests) == 1


def test_error_status_with_a_non_json_body_is_mapped(server: BedrockServer) -> None:
    server.reply(Raw(b"<html>Bad gateway</html>", status=502, content_type="text/html"))
    with pytest.raises(ai.InternalServerError) as info:
        create("sync", server.config(max_retries=0))
    assert info.value.status_code == 502
    assert len(server.requests) == 1


def test_error_status_with_a_json_body_that_looks_like_a_reply_is_still_an_error(
        server: BedrockServer, mode: str) -> None:
    """The fast path reads successful replies only: a 5xx whose body happens to be a Converse
    object is botocore's error, retried by our layer."""
    server.reply(Json(converse_text("not a reply").body, status=503,
                      headers={"x-amzn-ErrorType": "ServiceUnavailableException"}),
                 converse_text("second attempt"))
    config = server.config(max_retries=1,
                           retry_clock=_NoWait())
    response = create(mode, config)
    assert response.choices[0].message.content == "second attempt"
    assert len(server.requests) == 2


class _NoWait:
    def sleep(self, seconds: float) -> None:
        pass

    async def asleep(self, seconds: float) -> None:
        pass

    def random(self) -> float:
        return 0.0


# ---------------------------------------------------------------- parameter validation ---

@pytest.mark.parametrize("kwargs, where", [
    ({"inferenceConfig": {"maxTokens": 0}}, "inferenceConfig.maxTokens"),
    ({"guardrailConfig": {"guardrailIdentifier": 5}}, "guardrailConfig"),
    ({"messages": [{"role": "user", "content": [{"image": "not a block"}]}]},
     "messages[0].content[0].image"),
    ({"messages": [*USER, {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": 7, "name": "f", "input": {}}}]}],
      "tools": [{"type": "function", "function": {"name": "f", "parameters": {
          "type": "object", "properties": {}}}}]},
     "toolUseId"),  # a Converse-native block, sent as given
])
@pytest.mark.parametrize("stream", [False, True])
def test_botocore_validation_still_refuses_before_sending(
        server: BedrockServer, mode: str, kwargs: dict[str, Any], where: str,
        stream: bool) -> None:
    with pytest.raises(ai.UnsupportedParameterError, match="botocore rejected") as info:
        create(mode, server.config(max_retries=2), stream=stream, **kwargs)
    assert where in str(info.value)
    assert server.requests == []


def test_plain_tool_history_is_sent_unchanged(server: BedrockServer, mode: str) -> None:
    """The messages botocore no longer validates are still sent as before, every field."""
    server.reply(converse_text("done"))
    history = [{"role": "system", "content": "Be brief."}, *USER,
               {"role": "assistant", "content": "Checking.", "tool_calls": [
                   {"id": "tu_1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
               {"role": "tool", "tool_call_id": "tu_1", "content": "Sunny"}]
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}]
    create(mode, server.config(), messages=history, tools=tools, max_tokens=64)
    sent = server.requests[0].json
    assert sent["system"] == [{"text": "Be brief."}]
    assert sent["messages"] == [
        {"role": "user", "content": [{"text": "Hi"}]},
        {"role": "assistant", "content": [
            {"text": "Checking."},
            {"toolUse": {"toolUseId": "tu_1", "name": "get_weather",
                         "input": {"city": "Paris"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tu_1", "content": [{"text": "Sunny"}]}}]}]
    assert sent["inferenceConfig"] == {"maxTokens": 64}


# ------------------------------------------------------------------------ async limit ---

def test_async_concurrency_limit_holds_with_many_waiters(server: BedrockServer) -> None:
    """Slots freed on the event loop are handed to waiters on that loop: every call
    completes and no more than ``max_concurrency`` are ever in flight."""
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most

    def slow(recorded: Recorded) -> Json:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
        time.sleep(0.01)
        with lock:
            in_flight[0] -= 1
        return converse_text(recorded.json["messages"][0]["content"][0]["text"])

    server.default = slow

    async def run() -> list[str]:
        client = ai.AsyncClient({"bedrock": server.config(max_concurrency=3)})
        try:
            replies = await asyncio.gather(*(
                client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": f"n{i}"}])
                for i in range(40)))
        finally:
            await client.aclose()
        return [r.choices[0].message.content for r in replies]

    assert asyncio.run(run()) == [f"n{i}" for i in range(40)]
    assert len(server.requests) == 40
    assert in_flight[1] <= 3


# ------------------------------------------------------------------- request bodies ---

def botocore_body(kwargs: dict[str, Any], stream: bool = False) -> bytes:
    """The body botocore's own serializer writes for these ``converse`` arguments."""
    import botocore.serialize
    import botocore.session

    model = botocore.session.Session().get_service_model("bedrock-runtime")
    operation = model.operation_model("ConverseStream" if stream else "Converse")
    serializer = botocore.serialize.create_serializer("rest-json", include_validation=False)
    return serializer.serialize_to_request(kwargs, operation)["body"]  # type: ignore[no-any-return]


TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather in a city.", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "default": None}},
        "required": ["city"]}}}]
TOOL_HISTORY = [
    {"role": "system", "content": "Be brief. ünïcödé"}, *USER,
    {"role": "assistant", "content": "Checking \U0001f600", "tool_calls": [
        {"id": "tu_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Zürich", "n": 1.5}'}}]},
    {"role": "tool", "tool_call_id": "tu_1", "content": "Sunny \"22\" C"}]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
IMAGE = [{"role": "user", "content": [
    {"type": "text", "text": "What is this?"},
    {"type": "image_url", "image_url": {
        "url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}]}]

BODIES: dict[str, dict[str, Any]] = {
    "plain": {},
    "tool history": {"messages": TOOL_HISTORY, "tools": TOOLS, "max_tokens": 64,
                     "temperature": 0.25, "top_p": 0.5, "stop": ["END"], "user": "u-1"},
    "text parts": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b"}]}]},
    "image bytes (botocore writes it)": {"messages": IMAGE},
    "native fields": {"top_k": 40, "guardrailConfig": {"guardrailIdentifier": "g",
                                                       "guardrailVersion": "1"},
                      "inferenceConfig": {"temperature": 1}},
    "structured output": {"response_format": {"type": "json_schema", "json_schema": {
        "name": "r", "schema": {"type": "object", "properties": {}}}}},
    "a float that is not finite (botocore writes it)": {"top_p": 0.5,
                                                         "inferenceConfig": {
                                                             "temperature": float("inf")}},
}


@pytest.mark.parametrize("name", list(BODIES))
@pytest.mark.parametrize("stream", [False, True])
def test_request_body_is_byte_for_byte_botocores(server: BedrockServer, name: str,
                                                 stream: bool) -> None:
    from aisuite_like.providers.base import ChatRequest
    from aisuite_like.providers.bedrock import build_request

    kwargs = dict(BODIES[name])
    messages = kwargs.pop("messages", USER)
    server.reply(converse_text("ok"))
    try:
        result = create("sync", server.config(max_retries=0), messages=messages,
                        stream=stream, **kwargs)
        if stream:
            list(result)
    except ai.APIError:
        pass  # a stream answered with JSON: only the request matters here
    assert len(server.requests) == 1
    sent = server.requests[0]
    portable = {k: kwargs.pop(k) for k in list(kwargs)
                if k in ("tools", "max_tokens", "temperature", "top_p", "stop", "user",
                         "response_format")}
    if portable.get("stop") is not None:
        portable["stop"] = list(portable["stop"])
    expected = build_request(ChatRequest(model=MODEL_ID, messages=messages, stream=stream,
                                         extra=kwargs, **portable))
    assert sent.raw == botocore_body(expected, stream)
    assert sent.headers["content-type"] == "application/json"
    assert sent.operation == ("converse-stream" if stream else "converse")
