"""No API key anywhere (docs/reliability.md): not in an exception's text, repr, chained
cause or traceback, not in a log record of any logger at any level (ours, the SDKs', google-
genai's retry log, httpx2's, httpcore2's), even when a server echoes the key back, in any form
(raw, stripped, JSON-escaped, URL-encoded), even when the key was read with a trailing newline.

The three families run through their real SDKs against a loopback HTTP server of this test on
127.0.0.1 (so httpcore2 really runs and logs), sync, async and streaming."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import traceback
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import quote, quote_plus

import pytest

import aisuite_like as ai

# Not key-shaped (no sk-/AIza prefix): only knowing the configured key can catch it. "/", "+"
# and "=" make its JSON-escaped and URL-encoded forms differ from the raw one.
KEY = "my/Custom+Secret=Value-0123456789xyz"
FORMS = {KEY, quote(KEY, safe=""), quote_plus(KEY, safe=""), json.dumps(KEY)[1:-1],
         json.dumps(KEY)[1:-1].replace("/", "\\/"), repr(KEY)[1:-1]}
DISTINCT = "Value-0123456789xyz"  # a piece every form contains
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-2.5-flash"}
USER = [{"role": "user", "content": "hi"}]


# --- a loopback server that echoes the key it receives ---------------------------------------


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    plan: dict[str, Any] = {}
    seen_keys: list[str] = []

    def log_message(self, *args: Any) -> None:  # keep the test output quiet
        pass

    def _key(self) -> str:
        auth = self.headers.get("authorization") or ""
        return (self.headers.get("x-api-key") or self.headers.get("x-goog-api-key")
                or auth.removeprefix("Bearer ")) or ""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        key = self._key()
        type(self).seen_keys.append(key)
        echo = (f"Incorrect API key provided: {key}. url={quote(key, safe='')} "
                f"plus={quote_plus(key, safe='')}")
        status = self.plan.get("status", 401)
        if status == 200:  # a stream whose error event echoes the key
            if "anthropic" in self.path or "/messages" in self.path:
                body = ('event: error\ndata: ' + json.dumps({"type": "error", "error": {
                    "type": "overloaded_error", "message": echo}}) + "\n\n")
            elif "models/" in self.path:
                body = "data: " + json.dumps({"error": {"code": 500, "message": echo,
                                                        "status": "INTERNAL"}}) + "\n\n"
            else:
                body = "data: " + json.dumps({"error": {"message": echo,
                                                        "type": "server_error"}}) + "\n\n"
            raw = body.encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
        else:
            raw = json.dumps({"type": "error", "error": {
                "message": echo, "type": "authentication_error" if status == 401 else "api_error",
                "code": status, "status": "UNAUTHENTICATED" if status == 401 else "UNAVAILABLE"}
            }).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("retry-after-ms", "10")
        self.send_header("x-echo-key", key)  # httpcore2 logs response headers at DEBUG
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def _config(server: str, family: str, key: str = KEY, **extra: Any) -> dict[str, Any]:
    base = server + "/v1" if family == "openai" else server
    return {family: {"api_key": key, "base_url": base, "max_retries": 0, **extra}}


# --- capturing every log record -----------------------------------------------------------


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))
        self.texts.append(repr(record.args) if record.args else "")


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[_Capture]:
    """Every record of every logger at DEBUG: on the root logger (caplog too) and directly on
    every existing logger (some do not propagate)."""
    capture = _Capture()
    caplog.set_level(logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(capture)
    attached = [lg for lg in logging.Logger.manager.loggerDict.values()
                if isinstance(lg, logging.Logger) and not lg.propagate]
    for lg in attached:
        lg.addHandler(capture)
    try:
        yield capture
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)
        for lg in attached:
            lg.removeHandler(capture)
        capture.texts.extend(r.getMessage() + (r.exc_text or "") for r in caplog.records)
        capture.texts.append(caplog.text)


def _leaks(texts: list[str]) -> list[str]:
    return [t[max(0, t.find(DISTINCT) - 200):t.find(DISTINCT) + 100] for t in texts
            if DISTINCT in t or any(f in t for f in FORMS)]


def _assert_clean(error: Optional[BaseException], logs: _Capture) -> None:
    texts = list(logs.texts)
    if error is not None:
        texts += [str(error), repr(error), "".join(traceback.format_exception(error))]
        cause: Optional[BaseException] = error
        while cause is not None:  # every chained exception, its args and attributes
            texts += [str(cause), repr(cause), repr(cause.args), repr(vars(cause))]
            cause = cause.__cause__ or cause.__context__
    assert _leaks(texts) == []


def _call(mode: str, config: dict[str, Any], family: str, **kwargs: Any) -> BaseException:
    """Run one request that must fail; returns the error."""
    try:
        if mode == "async":
            async def run() -> None:
                async with ai.AsyncClient(config) as client:
                    await client.chat.completions.create(model=MODELS[family], messages=USER,
                                                         **kwargs)
            asyncio.run(run())
        elif mode == "astream":
            async def run_stream() -> None:
                async with ai.AsyncClient(config) as client:
                    s = await client.chat.completions.create(model=MODELS[family],
                                                             messages=USER, stream=True, **kwargs)
                    async for _ in s:
                        pass
            asyncio.run(run_stream())
        else:
            with ai.Client(config) as client:
                result = client.chat.completions.create(
                    model=MODELS[family], messages=USER, stream=mode == "stream", **kwargs)
                if mode == "stream":
                    for _ in result:
                        pass
    except ai.AisuiteLikeError as exc:
        return exc
    raise AssertionError("the request did not fail")


# --- a server echoing the key -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async", "stream", "astream"])
@pytest.mark.parametrize("family", list(MODELS))
def test_echoed_key_in_a_401_appears_nowhere(family: str, mode: str, server: str,
                                             logs: _Capture) -> None:
    _Echo.plan = {"status": 401}
    error = _call(mode, _config(server, family), family)
    assert isinstance(error, ai.AuthenticationError), repr(error)
    assert "[REDACTED]" in str(error)
    _assert_clean(error, logs)


@pytest.mark.parametrize("mode", ["stream", "astream"])
@pytest.mark.parametrize("family", list(MODELS))
def test_echoed_key_in_a_stream_error_event_appears_nowhere(family: str, mode: str, server: str,
                                                            logs: _Capture) -> None:
    _Echo.plan = {"status": 200}
    error = _call(mode, _config(server, family), family)
    assert isinstance(error, ai.APIError), repr(error)
    _assert_clean(error, logs)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("family", list(MODELS))
def test_echoed_key_in_retried_5xx_appears_in_no_retry_log(family: str, mode: str, server: str,
                                                           logs: _Capture) -> None:
    """Each attempt's error body (which echoes the key) passes through the SDKs' and the HTTP
    stack's DEBUG logs (google-genai's own retry log quoted it at INFO)."""
    _Echo.plan = {"status": 503}
    _Echo.seen_keys = []
    error = _call(mode, _config(server, family, max_retries=1), family)
    assert isinstance(error, ai.InternalServerError), repr(error)
    assert len(_Echo.seen_keys) == 2, "no retry happened: the test lost its point"
    _assert_clean(error, logs)


@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
@pytest.mark.parametrize("family", list(MODELS))
def test_key_read_from_a_file_is_stripped_and_never_shown(family: str, mode: str, server: str,
                                                          logs: _Capture) -> None:
    """A key ending in a newline is sent stripped (no invalid header, no error text quoting
    it); the server echoes the stripped key and that is redacted too."""
    _Echo.plan = {"status": 401}
    _Echo.seen_keys = []
    error = _call(mode, _config(server, family, key=KEY + "\n"), family)
    assert isinstance(error, ai.AuthenticationError), repr(error)
    assert _Echo.seen_keys and set(_Echo.seen_keys) == {KEY}
    _assert_clean(error, logs)


def test_httpcore2_debug_log_ran_and_is_clean(server: str, logs: _Capture) -> None:
    """The loopback exchange goes through httpcore2, whose DEBUG log shows the response
    headers (the server echoes the key in one)."""
    _Echo.plan = {"status": 401}
    error = _call("sync", _config(server, "openai"), "openai")
    assert any(t.startswith("httpcore2.http11 DEBUG receive_response_headers")
               for t in logs.texts)
    _assert_clean(error, logs)


# --- keys checked at configuration ----------------------------------------------------------


@pytest.mark.parametrize("bad", ["my-secret Value-0123456789xyz", "my-secret\tValue-0123456789xyz",
                                 "my-secret\nValue-0123456789xyz",
                                 "my-secret\x00Value-0123456789xyz"])
@pytest.mark.parametrize("family", list(MODELS) + ["ollama"])
def test_key_with_whitespace_inside_is_refused_without_echoing_it(family: str, bad: str,
                                                                  logs: _Capture) -> None:
    with pytest.raises(ai.ConfigurationError) as info:
        ai.Client({family: {"api_key": bad}})
    text = str(info.value) + repr(info.value) + "".join(
        traceback.format_exception(info.value))
    assert "whitespace or control characters" in str(info.value)
    assert "0123456789xyz" not in text and "my-secret" not in text


@pytest.mark.parametrize("family,var", [("openai", "OPENAI_API_KEY"),
                                        ("anthropic", "ANTHROPIC_API_KEY"),
                                        ("google", "GEMINI_API_KEY")])
def test_key_from_the_environment_is_checked_too(family: str, var: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(var, "env secret-0123456789xyz")
    with pytest.raises(ai.ConfigurationError) as info:
        ai.Client().chat.completions.create(model=MODELS[family], messages=USER)
    assert "0123456789xyz" not in str(info.value) + repr(info.value)


@pytest.mark.parametrize("family", list(MODELS))
def test_client_and_provider_reprs_never_show_the_key(family: str, server: str) -> None:
    client = ai.Client(_config(server, family))
    provider = client._provider(family)
    assert DISTINCT not in repr(client) + repr(provider) + str(provider)


# --- the logging filter itself --------------------------------------------------------------


@pytest.mark.parametrize("logger_name", [
    "openai._base_client", "anthropic._base_client", "google_genai._api_client",
    "google_genai.models", "httpx2", "httpcore2.http11", "httpcore2.connection"])
def test_sdk_and_http_loggers_redact_known_keys(logger_name: str, server: str,
                                                logs: _Capture) -> None:
    ai.Client(_config(server, "openai"))._provider("openai")  # creating a provider installs it
    logger = logging.getLogger(logger_name)
    try:
        raise RuntimeError(f"failure with {KEY}")
    except RuntimeError:
        logger.debug("message with %s and %r", KEY, {"k": quote(KEY, safe="")}, exc_info=True,
                     stack_info=True)
    logger.info("plain %s", json.dumps({"key": KEY}))
    logger.warning(b"bytes " + KEY.encode())  # type: ignore[arg-type]
    assert any(t.startswith(logger_name) for t in logs.texts)
    _assert_clean(None, logs)
    assert any("[REDACTED]" in t for t in logs.texts)


def test_redaction_leaves_ordinary_text_and_provider_names_alone() -> None:
    from aisuite_like.core import secrets as _secrets

    _secrets.remember("k")  # too short to be a key: never treated as one
    _secrets.remember("ollama")
    assert _secrets.redact("ollama on localhost, key k") == "ollama on localhost, key k"


def test_other_credentials_in_a_config_are_redacted_too() -> None:
    from aisuite_like.core import secrets as _secrets
    from aisuite_like.core.errors import redacted

    ai.Client({"bedrock": {"aws_secret_access_key": "aws/Secret+Key-0123456789abcdef",
                           "aws_session_token": "session-Token-0123456789abcdef"}})
    text = "echo aws/Secret+Key-0123456789abcdef and session-Token-0123456789abcdef"
    assert redacted(text) == "echo [REDACTED] and [REDACTED]"
    assert _secrets.redact(quote("aws/Secret+Key-0123456789abcdef", safe="")) == "[REDACTED]"


def test_stripping_the_key_leaves_the_callers_config_as_given() -> None:
    config = {"openai": {"api_key": KEY + "\n"}}
    client = ai.Client(config)
    client.configure({"anthropic": {"api_key": " " + KEY}})
    assert config == {"openai": {"api_key": KEY + "\n"}}
    assert client.provider_configs["openai"]["api_key"] == KEY
    assert client.provider_configs["anthropic"]["api_key"] == KEY
