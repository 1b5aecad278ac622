"""Bedrock credentials botocore finds by itself are redacted like every configured key: a
Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``, which botocore sends as a bearer token, over
HTTPS only) and AWS credentials from the environment. Through real botocore against the
loopback Bedrock server (served over HTTPS with a throwaway certificate for the bearer
token), with every logger at DEBUG."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from support.bedrock_calls import MODEL, USER, create
from support.bedrock_server import (
    REGION,
    BedrockServer,
    converse_text,
    converse_tools,
    error,
)

import aisuite_like as ai

# Shaped like a Bedrock API key (base64 with "+", "/" and "="), not like any pattern we know.
TOKEN = "ABSKQmVkcm9ja0FQSUtleS1sb29wYmFjay10b2tlbi0xMjM0NTY3ODkw+/="
ENV_SECRET = "env-secret-key-Qw3rTy7uIoP4aSdFgHjK"
ENV_TOKEN = "env-session-token-Zx9cVb2nM5lKjHgFdSa8"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture
def https_server(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[BedrockServer]:
    with BedrockServer(tls_dir=str(tmp_path)) as server:
        assert server.ca_file is not None
        monkeypatch.setenv("AWS_CA_BUNDLE", server.ca_file)
        yield server


def error_texts(exc: BaseException) -> list[str]:
    return [str(exc), repr(exc), "".join(traceback.format_exception(exc))]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bedrock_api_key_from_the_environment_is_redacted(
        mode: str, https_server: BedrockServer, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", TOKEN)
    config = {"endpoint_url": https_server.url, "region_name": REGION, "max_retries": 0}
    https_server.reply(converse_text("ok"),
                       error(400, "ValidationException", f"The API key {TOKEN} is not valid"))
    caplog.set_level(logging.DEBUG)  # every logger, botocore's included
    assert create(mode, config).choices[0].message.content == "ok"
    with pytest.raises(ai.BadRequestError) as caught:
        create(mode, config)
    # the token was really sent, and botocore really logged the request's headers
    assert https_server.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert "authorization" in caplog.text.lower()
    assert TOKEN not in caplog.text
    assert all(TOKEN not in text for text in error_texts(caught.value))
    assert "[REDACTED]" in str(caught.value)


def test_environment_credentials_are_redacted_beyond_the_provider(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """AWS credentials from the environment are known to the redaction everywhere, not only
    to the provider's own errors: a tool whose exception quotes the secret key sends the
    model a result without it."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDENVEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", ENV_TOKEN)

    def leaky() -> str:
        """Reads the environment (and fails, quoting it)."""
        raise RuntimeError(f"cannot sign with {ENV_SECRET} / {ENV_TOKEN}")

    with BedrockServer() as server:
        server.reply(converse_tools(("t1", "leaky", {})), converse_text("done"))
        with ai.Client({"bedrock": {"endpoint_url": server.url, "region_name": REGION}}) as c:
            response = c.chat.completions.create(model=MODEL, messages=USER, tools=[leaky],
                                                 max_turns=2)
        assert response.choices[0].message.content == "done"
        sent = server.requests[1].raw.decode()
        assert "cannot sign with" in sent  # the error result did reach the model
        assert ENV_SECRET not in sent and ENV_TOKEN not in sent
