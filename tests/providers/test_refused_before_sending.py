"""Mistakes one family's API would refuse are refused by every family before anything is
sent, with the same typed error (one rule, core/checks.py): header values that would inject
a header, a model name with a line break, and requests that reach a server unchecked
elsewhere (a json_schema without its schema, a video part, a tool_choice naming no given
tool, a conversation of system messages only, an image_url that is no URL, an image data
URL that is not base64). Asserted on the wire: the loopback servers receive nothing. The
HTTP families run on both transports, sync and async; Bedrock through real botocore."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_server import BedrockServer
from support.fault_server import FaultServer
from support.transports import transport, with_transport  # noqa: F401  (the fixture)

import aisuite_like as ai

FAMILIES = ("openai", "anthropic", "google", "bedrock")
MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-x", "bedrock": "bedrock:anthropic.claude-x-v1:0"}
USER = [{"role": "user", "content": "hi"}]
U = ai.UnsupportedParameterError


def lookup(city: str) -> str:
    """Look a city up."""
    return city


def _image(url: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


#: (case, create() arguments, the error, a fragment of its message)
REFUSED: list[tuple[str, dict[str, Any], type, str]] = [
    ("extra-headers-crlf", {"extra_headers": {"X-Trace": "a\r\nX-Injected: 1"}}, U,
     "line break"),
    ("extra-headers-lf", {"extra_headers": {"X-Trace": "a\nb"}}, U, "extra_headers"),
    ("extra-headers-name-crlf", {"extra_headers": {"X-A\r\nB": "v"}}, U, "header name"),
    ("extra-headers-not-str", {"extra_headers": {"X-N": 5}}, U, "must be a string"),
    ("json-schema-without-schema", {"response_format": {"type": "json_schema",
                                                        "json_schema": {"name": "answer"}}},
     U, "json_schema.schema"),
    ("json-schema-not-a-dict", {"response_format": {"type": "json_schema",
                                                    "json_schema": "answer"}}, U,
     "json_schema.schema"),
    ("video-part", {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "what happens?"},
        {"type": "video", "video": "https://example.com/v.mp4"}]}]}, U, "'video'"),
    ("tool-choice-unknown-tool", {"tools": [lookup], "tool_choice": {
        "type": "function", "function": {"name": "search"}}}, U, "'search'"),
    ("tool-choice-without-tools", {"tool_choice": {"type": "function",
                                                   "function": {"name": "lookup"}}}, U,
     "no tools"),
    ("system-only", {"messages": [{"role": "system", "content": "Say hi."}]}, U,
     "no user message"),
    ("image-url-not-a-url", {"messages": _image("cat.png")}, U, "not a URL"),
    ("image-url-ftp", {"messages": _image("ftp://example.com/cat.png")}, U, "not a URL"),
    ("image-data-url-not-base64", {"messages": _image("data:image/png;base64,@@not base64@@")},
     U, "not valid base64"),
    ("image-data-url-percent-encoded", {"messages": _image("data:image/png,%89PNG")}, U,
     "base64"),
]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[FaultServer, BedrockServer]]:
    with FaultServer() as http, BedrockServer() as bedrock:
        yield http, bedrock


@pytest.fixture(params=FAMILIES)
def family(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
           tmp_path: Any) -> str:
    if request.param == "bedrock":
        from support.bedrock_server import isolate_aws

        isolate_aws(monkeypatch, tmp_path)
    return str(request.param)


def _config(family: str, servers: tuple[FaultServer, BedrockServer],
            **extra: Any) -> dict[str, Any]:
    http, bedrock = servers
    if family == "bedrock":
        return {"bedrock": bedrock.config(max_retries=0, **extra)}
    base_url = http.url + "/v1" if family == "openai" else http.url
    return with_transport({family: {"api_key": "k-refusal-test", "base_url": base_url,
                                    "max_retries": 0, **extra}})


def _sent(servers: tuple[FaultServer, BedrockServer]) -> int:
    return len(servers[0].requests) + len(servers[1].requests)


def _create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(config) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("case", "kwargs", "error", "fragment"), REFUSED,
                         ids=[c[0] for c in REFUSED])
def test_refused_on_every_family_before_sending(family: str, mode: str, case: str,
                                                kwargs: dict[str, Any], error: type,
                                                fragment: str, servers: Any) -> None:
    servers[0].reset()
    before = _sent(servers)
    arguments = {"model": MODELS[family], "messages": USER, **kwargs}
    with pytest.raises(error, match=None) as info:
        _create(mode, _config(family, servers), **arguments)
    assert fragment in str(info.value)
    assert _sent(servers) == before  # nothing reached the server


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_model_name_with_a_line_break_is_refused(family: str, mode: str,
                                                   servers: Any) -> None:
    before = _sent(servers)
    for model in (MODELS[family] + "\r\nX-Injected: 1", MODELS[family] + "\n",
                  MODELS[family].replace(":", ":\t", 1)):
        with pytest.raises(ai.InvalidModelError, match="control character"):
            _create(mode, _config(family, servers), model=model, messages=USER)
    assert _sent(servers) == before


@pytest.mark.usefixtures("transport")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_default_headers_with_a_line_break_are_a_configuration_error(
        family: str, mode: str, servers: Any) -> None:
    if family in ("google", "bedrock"):
        pytest.skip("default_headers is a setting of the openai and anthropic configs")
    before = _sent(servers)
    config = _config(family, servers, default_headers={"X-Session": "s\r\nX-Injected: 1"})
    with pytest.raises(ai.ConfigurationError, match="default_headers") as info:
        _create(mode, config, model=MODELS[family], messages=USER)
    assert "s\r\nX-Injected" not in str(info.value)  # the value (a credential?) not shown
    assert _sent(servers) == before


def test_what_is_valid_still_goes_out(family: str, servers: Any) -> None:
    """The rules refuse only the mistakes: http(s) and base64 data URLs, a named tool that
    was given, a json_schema with its schema, a system prompt before a user message."""
    if family == "bedrock":
        pytest.skip("the Bedrock server answers what a test queues; the refusals above hold")
    servers[0].reset()
    headers = {"extra_headers": {"X-Trace": "abc"}} if family != "google" else {}
    with ai.Client(_config(family, servers)) as client:
        client.chat.completions.create(
            model=MODELS[family],
            messages=[{"role": "system", "content": "Be brief."},
                      *_image("data:image/png;base64,iVBORw0KGgo=")],
            tools=[lookup], tool_choice={"type": "function", "function": {"name": "lookup"}},
            response_format={"type": "json_schema", "json_schema": {
                "name": "a", "schema": {"type": "object", "properties": {}}}}, **headers)
    assert len(servers[0].requests) == 1
    if headers:
        assert servers[0].requests[0].headers.get("x-trace") == "abc"
