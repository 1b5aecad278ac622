"""Cassettes (aisuite_like.testing.record / replay): real exchanges recorded through the real
provider code and SDKs against the project's loopback servers, then replayed with the server
stopped; a changed request fails with a diff; the file holds no key."""

from __future__ import annotations

import asyncio
import json
import pathlib
from typing import Any

import pytest
from support.bedrock_server import (
    ACCESS_KEY,
    SECRET_KEY,
    SESSION_TOKEN,
    BedrockServer,
    converse_text,
    isolate_aws,
    stream_text,
)
from support.fault_server import FaultServer, Reply

import aisuite_like as ai
from aisuite_like.testing import (
    CassetteError,
    CassetteMismatchError,
    CassetteNotFoundError,
    record,
    replay,
)

KEY = "sk-cassette-secret-0123456789abcdef"
USER = [{"role": "user", "content": "Hi"}]
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-5",
          "google": "google:gemini-2.5-flash", "bedrock": "bedrock:anthropic.claude-v1:0"}
FAMILIES = tuple(MODELS)


@pytest.fixture(autouse=True)
def _aws(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    isolate_aws(monkeypatch, tmp_path)


def _config(family: str, url: str, **extra: Any) -> dict[str, Any]:
    if family == "bedrock":
        return {"bedrock": {"endpoint_url": url, "region_name": "us-east-1",
                            "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY,
                            "aws_session_token": SESSION_TOKEN, "max_retries": 0, **extra}}
    base = url + "/v1" if family == "openai" else url
    return {family: {"base_url": base, "api_key": KEY, "max_retries": 0, **extra}}


class _Servers:
    """The loopback server of a family: FaultServer (openai, anthropic, gemini formats) or
    BedrockServer; ``url`` stays valid after it stops (replays reuse it)."""

    def __init__(self, family: str) -> None:
        self.family = family
        self.server: Any = BedrockServer() if family == "bedrock" else FaultServer()

    def __enter__(self) -> "_Servers":
        self.server.__enter__()
        self.url = self.server.url
        if self.family == "bedrock":
            self.server.reply(converse_text("hello world"), stream_text("hello ", "world"),
                              converse_text("hello world"), stream_text("hello ", "world"))
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.__exit__(*exc)


def _calls(config: dict[str, Any], model: str, messages: list[dict[str, Any]] = USER,
           **kwargs: Any) -> list[str]:
    """A sync call, a sync stream, an async call and an async stream: their texts."""
    client = ai.Client(config)
    out = [client.chat.completions.create(model=model, messages=messages,
                                          **kwargs).choices[0].message.content]
    stream = client.chat.completions.create(model=model, messages=messages, stream=True,
                                            **kwargs)
    out.append("".join(c.choices[0].delta.content or "" for c in stream if c.choices))

    async def run() -> list[str]:
        aclient = ai.AsyncClient(config)
        try:
            resp = await aclient.chat.completions.create(model=model, messages=messages,
                                                         **kwargs)
            texts = [resp.choices[0].message.content]
            astream = await aclient.chat.completions.create(model=model, messages=messages,
                                                            stream=True, **kwargs)
            texts.append("".join([c.choices[0].delta.content or "" async for c in astream
                                  if c.choices]))
            return texts
        finally:
            await aclient.aclose()

    return out + asyncio.run(run())


def _recorded(family: str, path: pathlib.Path) -> tuple[dict[str, Any], list[str]]:
    """Record the four calls of ``family`` to ``path``; the config (pointing at the stopped
    server) and the texts seen."""
    with _Servers(family) as servers, record(path):
        config = _config(family, servers.url)
        texts = _calls(config, MODELS[family])
    return config, texts


@pytest.mark.parametrize("family", FAMILIES)
def test_recorded_exchanges_replay_offline_with_no_key_in_the_file(
        family: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    config, texts = _recorded(family, path)
    assert texts == ["hello world"] * 4

    raw = path.read_text()
    data = json.loads(raw)
    assert len(data["interactions"]) == 4
    for secret in (KEY, SECRET_KEY, SESSION_TOKEN, ACCESS_KEY):
        assert secret not in raw
    lowered = raw.lower()
    for header in ("authorization", "x-api-key", "x-goog-api-key", "x-amz-security-token",
                   "bearer"):
        assert header not in lowered

    # The server is stopped: nothing answers at its URL, the cassette does.
    with replay(path) as cassette:
        assert _calls(config, MODELS[family]) == texts
        cassette.assert_all_used()


def test_streams_are_stored_readable_sse_and_bedrock_binary_as_base64(
        tmp_path: pathlib.Path) -> None:
    _recorded("openai", tmp_path / "o.json")
    _recorded("bedrock", tmp_path / "b.json")
    openai_bodies = [x["response"]["body"]
                     for x in json.loads((tmp_path / "o.json").read_text())["interactions"]]
    assert "json" in openai_bodies[0]
    assert openai_bodies[1]["text"].startswith("data: {")
    bedrock = json.loads((tmp_path / "b.json").read_text())["interactions"]
    assert "json" in bedrock[0]["response"]["body"]
    assert "base64" in bedrock[1]["response"]["body"]
    assert bedrock[1]["response"]["headers"]["content-type"] == \
        "application/vnd.amazon.eventstream"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_changed_request_raises_a_typed_error_with_the_diff(
        family: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    config, _ = _recorded(family, path)
    changed = [{"role": "user", "content": "Hello"}]
    with replay(path), pytest.raises(CassetteMismatchError) as info:
        ai.Client(config).chat.completions.create(model=MODELS[family], messages=changed,
                                                  temperature=0.5)
    error = info.value
    assert isinstance(error, ai.AisuiteLikeError)
    assert "body:" in error.diff
    assert '"Hi"' in error.diff and '"Hello"' in error.diff   # recorded vs sent, by path
    assert "temperature" in error.diff and "(absent)" in error.diff
    assert KEY not in str(error)


def test_the_diff_names_method_url_and_body_paths(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    config, _ = _recorded("openai", path)
    with replay(path), pytest.raises(CassetteMismatchError) as info:
        ai.Client(config).chat.completions.create(
            model="openai:gpt-4o-mini", messages=[{"role": "user", "content": "Hi"}])
    assert info.value.diff == '  body:\n    $.model: recorded "gpt-4o", sent "gpt-4o-mini"'

    other = dict(config["openai"], base_url=config["openai"]["base_url"] + "/v2")
    with replay(path), pytest.raises(CassetteMismatchError) as info:
        ai.Client({"openai": other}).chat.completions.create(model="openai:gpt-4o",
                                                             messages=USER)
    assert "url: recorded http://127.0.0.1:" in info.value.diff
    assert "/v1/v2/chat/completions" in info.value.diff


def test_a_request_past_the_recording_says_none_is_left(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    with FaultServer() as server, record(path):
        config = _config("openai", server.url)
        ai.Client(config).chat.completions.create(model="openai:gpt-4o", messages=USER)
    with replay(path):
        client = ai.Client(config)
        client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        with pytest.raises(CassetteMismatchError, match="no recorded exchange left"):
            client.chat.completions.create(model="openai:gpt-4o", messages=USER)


def test_unused_exchanges_are_reported(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    _recorded("openai", path)
    with replay(path) as cassette:
        pass
    assert len(cassette.unused) == 4
    with pytest.raises(AssertionError, match=r"4 recorded exchange\(s\).*never requested"):
        cassette.assert_all_used()


def test_key_in_urls_bodies_and_custom_headers_is_redacted(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    with FaultServer() as server, record(path):
        config = _config("openai", server.url + f"/k/{KEY}",
                         default_headers={"X-Custom-Token": "tok-0123456789abcdef-secret",
                                          "X-Trace": f"trace {KEY}"})
        ai.Client(config).chat.completions.create(
            model="openai:gpt-4o", messages=[{"role": "user", "content": f"my key is {KEY}"}])
        ai.Client({"google": {"base_url": server.url + f"/?key={KEY}&alt=x", "api_key": KEY,
                              "max_retries": 0}}).chat.completions.create(
            model="google:gemini-2.5-flash", messages=USER)
    raw = path.read_text()
    assert KEY not in raw
    assert "tok-0123456789abcdef-secret" not in raw and "x-custom-token" not in raw
    assert "[REDACTED]" in raw
    exchange = json.loads(raw)["interactions"][0]["request"]
    assert exchange["body"]["json"]["messages"][0]["content"] == "my key is [REDACTED]"
    assert exchange["url"].endswith("/k/[REDACTED]/v1/chat/completions")
    assert exchange["headers"]["x-trace"] == "[REDACTED]"  # a configured header: its value
    # ... and the same requests replay (the live request is redacted the same way).
    with replay(path) as cassette:
        ai.Client(config).chat.completions.create(
            model="openai:gpt-4o", messages=[{"role": "user", "content": f"my key is {KEY}"}])
        ai.Client({"google": {"base_url": config["openai"]["base_url"].split("/k/")[0]
                              + f"/?key={KEY}&alt=x", "api_key": KEY,
                              "max_retries": 0}}).chat.completions.create(
            model="google:gemini-2.5-flash", messages=USER)
        cassette.assert_all_used()


def test_a_tool_loop_replays_every_turn(tmp_path: pathlib.Path) -> None:
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return f"Sunny in {city}"

    call = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}}]}
    path = tmp_path / "c.json"

    def run(config: dict[str, Any]) -> Any:
        return ai.Client(config).chat.completions.create(
            model="openai:gpt-4o", messages=USER, tools=[get_weather], max_turns=3)

    with FaultServer() as server, record(path):
        server.queue(Reply(body=call), Reply(text="It is sunny in Paris."))
        config = _config("openai", server.url)
        live = run(config)
        second = server.requests[1].body
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_a",
                                      "content": "Sunny in Paris"}
    with replay(path) as cassette:
        replayed = run(config)
        cassette.assert_all_used()
    assert replayed.choices[0].message.content == live.choices[0].message.content == \
        "It is sunny in Paris."
    assert [e.name for e in replayed.tool_events] == ["get_weather"]


def test_ignore_fields_leaves_named_fields_out_of_the_match(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    with FaultServer() as server, record(path):
        config = _config("openai", server.url)
        ai.Client(config).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                  metadata={"run_at": "2025-01-01T00:00:00"})
    later = {"run_at": "2026-06-01T12:00:00"}
    with replay(path), pytest.raises(CassetteMismatchError, match=r"\$\.metadata\.run_at"):
        ai.Client(config).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                  metadata=later)
    with replay(path, ignore_fields=["run_at"]) as cassette:
        ai.Client(config).chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                  metadata=later)
        cassette.assert_all_used()


def test_recorded_errors_replay_as_the_same_typed_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    with FaultServer() as server, record(path):
        server.queue(Reply(429, headers={"retry-after": "7"}))
        config = _config("anthropic", server.url)
        with pytest.raises(ai.RateLimitError) as live:
            ai.Client(config).chat.completions.create(model=MODELS["anthropic"], messages=USER)
    with replay(path), pytest.raises(ai.RateLimitError) as replayed:
        ai.Client(config).chat.completions.create(model=MODELS["anthropic"], messages=USER)
    assert replayed.value.status_code == live.value.status_code == 429
    assert replayed.value.retry_after == live.value.retry_after == 7.0


def test_openai_and_anthropic_aiohttp_transports_record_and_replay(
        tmp_path: pathlib.Path) -> None:
    pytest.importorskip("aiohttp")
    for family in ("openai", "anthropic"):
        path = tmp_path / f"{family}.json"

        async def run(config: dict[str, Any], family: str = family) -> str:
            client = ai.AsyncClient(config)
            try:
                resp = await client.chat.completions.create(model=MODELS[family],
                                                            messages=USER)
            finally:
                await client.aclose()
            return str(resp.choices[0].message.content)

        with FaultServer() as server, record(path):
            config = _config(family, server.url, async_transport="aiohttp")
            assert asyncio.run(run(config)) == "hello world"
        with replay(path) as cassette:
            assert asyncio.run(run(config)) == "hello world"
            cassette.assert_all_used()


def test_aiohttp_used_directly_is_refused_not_sent(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("aiohttp")
    path = tmp_path / "c.json"
    with FaultServer() as server:
        config = _config("google", server.url, async_transport="aiohttp")

        async def run() -> None:
            client = ai.AsyncClient(config)
            try:
                await client.chat.completions.create(model=MODELS["google"], messages=USER)
            finally:
                await client.aclose()

        with pytest.raises(CassetteError, match="aiohttp directly"), record(path):
            asyncio.run(run())
        assert server.attempts == 0
    assert not path.exists()  # the block raised: nothing written


def test_replay_of_a_missing_file_says_how_to_record(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CassetteNotFoundError, match="--record-cassettes"):
        with replay(tmp_path / "none.json"):
            pass


SESSION = "sess-Secret-5a1f0c9e7d3b"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"
USER_TOKEN = "utok-Secret-8c2e4a6f1b9d"
REPLY_TOKEN = "rtok-Secret-3d5f7b9a1c2e"


def test_configured_header_values_and_key_like_body_fields_are_redacted(
        tmp_path: pathlib.Path) -> None:
    """Headers set through default_headers (whatever their names) and body fields named like
    a credential (user_token, apiKey, client_secret, ...: their text values), in requests,
    replies and stream events; the requests still replay (the live ones are redacted the same
    way). Token counts stay: they are numbers."""
    path = tmp_path / "c.json"
    reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": "hello world"}}],
             "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
             "session_token": REPLY_TOKEN}
    config = _config("openai", "", default_headers={"X-Session": SESSION, "X-Jwt": JWT})
    extra = {"extra_body": {"metadata": {"user_token": USER_TOKEN, "apiKey": USER_TOKEN[::-1],
                                         "plan": "pro"}}}
    with FaultServer() as server:
        server.queue(Reply(200, {}, reply))
        config["openai"]["base_url"] = server.url + "/v1"
        with record(path):
            client = ai.Client(config)
            client.chat.completions.create(model="openai:gpt-4o", messages=USER, **extra)
            stream = client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                    stream=True, **extra)
            assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert server.requests[0].headers["x-session"] == SESSION  # sent as configured
    raw = path.read_text()
    for secret in (SESSION, JWT, USER_TOKEN, USER_TOKEN[::-1], REPLY_TOKEN):
        assert secret not in raw, secret
    first = json.loads(raw)["interactions"][0]
    assert first["request"]["headers"]["x-session"] == "[REDACTED]"
    assert first["request"]["headers"]["x-jwt"] == "[REDACTED]"
    assert first["request"]["headers"]["content-type"] == "application/json"
    assert first["request"]["body"]["json"]["metadata"] == {
        "user_token": "[REDACTED]", "apiKey": "[REDACTED]", "plan": "pro"}
    assert first["response"]["body"]["json"]["usage"]["prompt_tokens"] == 3
    assert first["response"]["body"]["json"]["session_token"] == "[REDACTED]"
    with replay(path) as cassette:
        client = ai.Client(config)
        assert client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                              **extra).content == "hello world"
        list(client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                            stream=True, **extra))
        cassette.assert_all_used()


@pytest.mark.parametrize("body", ['"hello"', "[1, 2]", '{"json": 1, "text": "x"}',
                                  '{"base64": "@@not base64@@"}', '{"text": 5}', "null"])
def test_a_cassette_with_a_body_of_another_form_is_a_typed_error(
        tmp_path: pathlib.Path, body: str) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"version": 1, "interactions": [{"request": {"method": "POST", '
                    '"url": "http://127.0.0.1:9/v1/chat/completions", "headers": {}, '
                    '"body": {"json": {}}}, "response": {"status": 200, "headers": {}, '
                    f'"body": {body}}}}}]}}')
    with pytest.raises(CassetteError, match=r"interaction #1 is malformed \(response\.body"):
        with replay(path):
            pass
    path.write_text('{"version": 1, "interactions": ["hello"]}')
    with pytest.raises(CassetteError, match="interaction #1 is malformed"):
        with replay(path):
            pass


def test_a_malformed_file_is_a_typed_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"version": 99, "interactions": []}')
    with pytest.raises(CassetteError, match="not a cassette of format 1"):
        with replay(path):
            pass
    path.write_text("not json")
    with pytest.raises(CassetteError, match="cannot read cassette"):
        with replay(path):
            pass


def test_one_cassette_at_a_time_and_the_hooks_go_away(tmp_path: pathlib.Path) -> None:
    import botocore.httpsession
    import httpx2

    before = (httpx2.Client._transport_for_url, httpx2.AsyncClient._transport_for_url,
              botocore.httpsession.URLLib3Session.send)
    with record(tmp_path / "a.json"):
        with pytest.raises(CassetteError, match="already in use"):
            with record(tmp_path / "b.json"):
                pass
        assert httpx2.Client._transport_for_url is not before[0]
    after = (httpx2.Client._transport_for_url, httpx2.AsyncClient._transport_for_url,
             botocore.httpsession.URLLib3Session.send)
    assert after == before
    assert json.loads((tmp_path / "a.json").read_text()) == {"version": 1, "interactions": []}
    assert not (tmp_path / "b.json").exists()


# --- the pytest fixture (the plugin is registered by the package's pytest11 entry point) ---

pytest_plugins = ["pytester"]

_INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
_PLUGIN_TEST = '''
import os

import aisuite_like as ai


def test_weather(cassette):
    client = ai.Client({"openai": {"base_url": os.environ["CASSETTE_URL"] + "/v1",
                                   "api_key": "sk-plugin-secret-0123456789", "max_retries": 0}})
    resp = client.chat.completions.create(
        model="openai:gpt-4o",
        messages=[{"role": "user", "content": os.environ.get("CASSETTE_TEXT", "Hi")}])
    assert resp.choices[0].message.content == "hello world"
'''


def test_cassette_fixture_records_by_opt_in_and_replays_offline(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini(_INI)
    pytester.makepyfile(test_weather_mod=_PLUGIN_TEST)
    path = pytester.path / "cassettes" / "test_weather_mod" / "test_weather.json"
    monkeypatch.delenv("AISUITE_LIKE_RECORD_CASSETTES", raising=False)

    # No cassette yet: the test fails offline and says how to record.
    with FaultServer() as server:
        monkeypatch.setenv("CASSETTE_URL", server.url)
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_weather")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*CassetteNotFoundError*--record-cassettes*"])
        assert server.attempts == 0

        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_weather",
                                              "--record-cassettes")
        result.assert_outcomes(passed=1)
        assert server.attempts == 1
    recorded = path.read_text()
    assert "sk-plugin-secret-0123456789" not in recorded

    # The server is gone: the test replays.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_weather")
    result.assert_outcomes(passed=1)

    # A changed request fails with the diff.
    monkeypatch.setenv("CASSETTE_TEXT", "Hello")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_weather")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "CassetteMismatchError" in output
    assert '$.messages[0].content: recorded "Hi", sent "Hello"' in output

    # Recording by the environment variable; a failing test (no server) writes nothing.
    monkeypatch.setenv("AISUITE_LIKE_RECORD_CASSETTES", "1")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_weather")
    result.assert_outcomes(failed=1)
    assert path.read_text() == recorded


def test_cassette_marker_names_the_file_and_the_ignored_fields(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini(_INI)
    pytester.makepyfile(test_named_mod='''
import os

import pytest

import aisuite_like as ai


@pytest.mark.cassette("shared/named.json", ignore_fields=["content"])
def test_named(cassette):
    client = ai.Client({"openai": {"base_url": os.environ["CASSETTE_URL"] + "/v1",
                                   "api_key": "sk-plugin-secret-0123456789", "max_retries": 0}})
    client.chat.completions.create(
        model="openai:gpt-4o",
        messages=[{"role": "user", "content": os.environ["CASSETTE_TEXT"]}])
    assert cassette.path.endswith("shared/named.json")
''')
    monkeypatch.delenv("AISUITE_LIKE_RECORD_CASSETTES", raising=False)
    with FaultServer() as server:
        monkeypatch.setenv("CASSETTE_URL", server.url)
        monkeypatch.setenv("CASSETTE_TEXT", "first")
        pytester.runpytest_inprocess("-p", "no:cacheprovider",
                                     "--record-cassettes").assert_outcomes(passed=1)
    assert (pytester.path / "shared" / "named.json").exists()
    monkeypatch.setenv("CASSETTE_TEXT", "second")  # "content" is not compared
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
