"""MCP: what a failing server printed is for the developer, not the model, and secrets in a
server's URL or headers show nowhere. Against REAL servers the tests start: the toolbox
MCPServer (tests/mcp_servers/toolbox.py) as a stdio subprocess and as a streamable-HTTP
server on 127.0.0.1. The model side is scripted (ScriptedProvider)."""

from __future__ import annotations

import logging
import pathlib
import sys
import traceback
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")

from support.mcp_http import free_port, toolbox_http

import aisuite_like as ai
from aisuite_like.mcp import MCPServerHTTP, MCPServerStdio
from aisuite_like.testing import ScriptedProvider, tool_call

TOOLBOX = str(pathlib.Path(__file__).resolve().parents[1] / "mcp_servers" / "toolbox.py")
USER = [{"role": "user", "content": "go"}]
PASSWORD = "url-Password-5e6f7a8b"
QUERY_KEY = "qry-ApiKey-0a1b2c3d4e"
QUERY_TOKEN = "qry-Token-9f8e7d6c5b"
HEADER_KEY = "hdr-ApiKey-1122334455"
BEARER = "hdr-Bearer-6677889900"
SECRETS = (PASSWORD, QUERY_KEY, QUERY_TOKEN, HEADER_KEY, BEARER)


def scripted(*replies: object) -> ai.Client:
    return ai.Client(providers={"scripted": ScriptedProvider(list(replies))})


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    with toolbox_http() as port:
        yield port


# --- a failing server's stderr ---------------------------------------------------------------


def test_stderr_of_a_crashed_server_is_not_in_the_tool_result() -> None:
    server = MCPServerStdio(sys.executable, [TOOLBOX], name="toolbox", timeout=20)
    try:
        client = scripted(tool_call("crash"), "recovered")
        resp = client.chat.completions.create(model="scripted:x", messages=USER, tools=[server],
                                              max_turns=2)
        (crash,) = resp.tool_events
        assert crash.is_error and crash.result.startswith("Error: MCPError: MCP server 'toolbox'")
        assert "closed the connection during 'crash'" in crash.result  # the model learns that
        assert "crashing on purpose" not in crash.result and "stderr" not in crash.result

        # the developer gets the stderr: in the error chain of a raising run ...
        client = scripted(tool_call("crash"), "never")
        with pytest.raises(ai.ToolExecutionError) as caught:
            client.chat.completions.create(model="scripted:x", messages=USER, tools=[server],
                                           max_turns=2, on_tool_error="raise")
        assert "crashing on purpose" not in str(caught.value)
        told = caught.value.__cause__
        assert isinstance(told, ai.MCPError) and "crashing on purpose" not in str(told)
        full = told.__cause__
        assert isinstance(full, ai.MCPError)
        assert "crashing on purpose" in full.stderr and "crashing on purpose" in str(full)
        assert "crashing on purpose" in "".join(traceback.format_exception(caught.value))
        # ... and from a direct call
        with pytest.raises(ai.MCPError) as direct:
            server.call_tool("crash")
        assert "crashing on purpose" in str(direct.value)
    finally:
        server.close()


def test_secrets_in_a_stdio_servers_environment_are_redacted_from_its_stderr() -> None:
    token = "env-GithubToken-a1b2c3d4e5"
    server = MCPServerStdio(sys.executable, [TOOLBOX], name="broken", env={
        "GITHUB_TOKEN": token, "TOOLBOX_FAIL_AT_START": f"bad token {token}"})
    with pytest.raises(ai.MCPError) as caught:
        server.connect()
    assert "bad token [REDACTED]" in caught.value.stderr
    assert token not in str(caught.value) and token not in repr(caught.value)


# --- secrets in a server URL and headers ----------------------------------------------------


def secret_url(port: int) -> str:
    return (f"http://mcpuser:{PASSWORD}@127.0.0.1:{port}/mcp?api_key={QUERY_KEY}"
            f"&token={QUERY_TOKEN}&region=eu")


def headers() -> dict[str, str]:
    return {"X-Api-Key": HEADER_KEY, "Authorization": f"Bearer {BEARER}"}


def no_secret(text: str) -> bool:
    return not any(secret in text for secret in SECRETS)


def test_url_secrets_never_show_in_repr_or_errors() -> None:
    server = MCPServerHTTP(secret_url(free_port()), headers=headers(), name="web",
                           startup_timeout=5)
    assert no_secret(repr(server))
    assert "region=eu" in repr(server) and "api_key=[REDACTED]" in repr(server)
    with pytest.raises(ai.MCPError) as caught:  # nothing listens on that port
        server.connect()
    texts = [str(caught.value), repr(caught.value),
             "".join(traceback.format_exception(caught.value))]
    assert "could not be reached" in texts[0]
    assert all(no_secret(text) for text in texts), texts


PATH_TOKEN = "sk-ak-Path5ecret0123456789abcdef"
PATH_UUID = "0f9c5b2e-8f7a-4c1d-9e3b-2a6d7c8e9f01"


@pytest.mark.parametrize(("path", "secret", "shown"), [
    (f"/mcp/{PATH_TOKEN}/sse", PATH_TOKEN, "/mcp/[REDACTED]/sse"),
    (f"/{PATH_UUID}/github", PATH_UUID, "/[REDACTED]/github"),
    ("/api/token/abc12/mcp", "abc12", "/api/token/[REDACTED]/mcp"),
])
def test_a_token_in_the_url_path_never_shows_in_repr_or_errors(path: str, secret: str,
                                                               shown: str) -> None:
    server = MCPServerHTTP(f"http://127.0.0.1:{free_port()}{path}", startup_timeout=5)
    assert secret not in repr(server) and shown in repr(server)
    with pytest.raises(ai.MCPError) as caught:
        server.connect()
    texts = [str(caught.value), repr(caught.value),
             "".join(traceback.format_exception(caught.value))]
    assert "could not be reached" in texts[0] and shown in texts[0]
    assert all(secret not in text for text in texts), texts
    plain = MCPServerHTTP("https://mcp.example.com/v1/streamable-http/mcp")
    assert "/v1/streamable-http/mcp" in repr(plain)  # ordinary paths stay readable


def test_url_secrets_never_show_in_logs(http_port: int,
                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger: httpx2 logs each request's URL
    server = MCPServerHTTP(secret_url(http_port), headers=headers(), name="web", timeout=10)
    try:
        assert server.call_tool("add", {"a": 1, "b": 2}).content == "3"
    finally:
        server.close()
    assert "127.0.0.1" in caplog.text  # the request URL was logged ...
    assert no_secret(caplog.text)  # ... without its secrets
