"""``aisuite-like probe``: against a loopback OpenAI-compatible server of our own whose
features are switched off one by one, each reported correctly, the requests bounded; the
profile then honoured by the client (``provider_configs={key: {"profile": path}}``): an
unsupported parameter is refused before sending; ``aisuite-like models info``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.fault_server import Reply, Request
from support.model_server import (
    ModelServer,
    chat_reply,
    embeddings_reply,
    sse_reply,
    streamed,
    tool_call_reply,
)

import aisuite_like as ai
from aisuite_like.cli import main
from aisuite_like.cli.probe import MAX_OUTPUT_TOKENS, MAX_REQUESTS
from aisuite_like.model_info.profile import FEATURES

ALL_ON = dict.fromkeys(FEATURES, True)


def _bad(what: str) -> Reply:
    return Reply(status=400, body={"error": {"message": f"{what} is not supported",
                                             "type": "invalid_request_error"}})


class Switchable:
    """An OpenAI-compatible endpoint whose every feature can be switched off."""

    def __init__(self, off: set[str]) -> None:
        self.off = off

    def __call__(self, request: Request) -> Any:
        body = request.body if isinstance(request.body, dict) else {}
        off = self.off
        if request.path.endswith("/embeddings"):
            return _bad("embeddings") if "embeddings" in off else embeddings_reply(1)
        for name in ("max_tokens", "max_completion_tokens"):
            if name in body and name in off:
                return _bad(name)
        if body.get("response_format") and "json_schema" in off:
            return _bad("response_format")
        content = body["messages"][0]["content"]
        if isinstance(content, list) and "image_input" in off:
            return _bad("image_url")
        if "parallel_tool_calls" in body and "parallel_tool_calls" in off:
            return _bad("parallel_tool_calls")
        if body.get("tools"):
            if "tools" in off:
                return _bad("tools")
            reply = tool_call_reply("call_1", "get_weather", {"city": "Paris"})
            if "Rome" in body["messages"][0]["content"]:
                assert isinstance(reply.body, dict)
                calls = reply.body["choices"][0]["message"]["tool_calls"]
                calls.append({**calls[0], "id": "call_2"})
            if body.get("stream"):
                if "stream_tool_deltas" in off:  # the calls arrive as text
                    return sse_reply("get_weather(Paris)")
                stream = streamed(reply)
                if "stream_tool_finish_reason" in off:  # vLLM's old "stop"
                    assert stream.events is not None
                    stream.events = [e.replace(b'"finish_reason": "tool_calls"',
                                               b'"finish_reason": "stop"')
                                     for e in stream.events]
                return stream
            return reply
        if body.get("stream"):
            return sse_reply("OK", usage=None if "stream_usage" in off else (5, 1))
        if body.get("response_format"):
            return chat_reply('{"word": "OK"}')
        return chat_reply("OK")


def _probe(server: ModelServer, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "profile.json"
    err = io.StringIO()
    code = main(["probe", "vllm", "--base-url", server.url + "/v1", "--model", "m",
                 "--out", str(out), *extra], stdout=io.StringIO(), stderr=err)
    return code, json.loads(out.read_text()) if out.exists() else {}


def test_every_feature_on(tmp_path: Path) -> None:
    with ModelServer(Switchable(set())) as server:
        code, profile = _probe(server, tmp_path)
        requests = list(server.requests)
    assert code == 0 and profile["features"] == ALL_ON
    assert profile["profile_version"] == 1 and profile["model"] == "m"
    assert profile["base_url"] == server.url + "/v1"
    assert profile["requests"] == len(requests) <= MAX_REQUESTS
    for request in requests:  # every request is tiny
        body = request.body
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        assert request.path.endswith("/embeddings") or limit <= MAX_OUTPUT_TOKENS


@pytest.mark.parametrize("feature", FEATURES)
def test_each_feature_switched_off_is_reported(tmp_path: Path, feature: str) -> None:
    with ModelServer(Switchable({feature})) as server:
        code, profile = _probe(server, tmp_path)
    assert code == 0
    expected = {**ALL_ON, feature: False}
    if feature == "tools":  # no tool calls at all: the streamed questions fail too
        expected.update(stream_tool_deltas=False, stream_tool_finish_reason=False,
                        parallel_tool_calls=False)
    if feature == "stream_tool_deltas":  # no deltas: the finish reason cannot tell
        expected["stream_tool_finish_reason"] = None
    if feature == "max_tokens":  # the questions that send max_tokens are refused with it
        expected.update({name: False for name in FEATURES
                         if name not in ("max_completion_tokens", "embeddings")})
    assert profile["features"] == expected


def test_a_server_that_fails_stops_the_probe(tmp_path: Path) -> None:
    with ModelServer(lambda request: Reply(status=401, body={"error": {
            "message": "bad key", "type": "auth"}})) as server:
        code, profile = _probe(server, tmp_path)
    assert code == 1 and profile == {}


def test_the_client_honours_a_profile(tmp_path: Path) -> None:
    with ModelServer(Switchable({"tools", "json_schema", "max_completion_tokens"})) as server:
        code, _ = _probe(server, tmp_path)
        assert code == 0
        seen = len(server.requests)
        client = ai.Client({"vllm": {"base_url": server.url + "/v1",
                                     "profile": str(tmp_path / "profile.json")}})
        tools = [{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {}}}}]
        messages = [{"role": "user", "content": "hi"}]
        with pytest.raises(ai.UnsupportedParameterError) as raised:
            client.chat.completions.create(model="vllm:m", messages=messages, tools=tools)
        assert raised.value.parameter == "tools" and "profile" in str(raised.value)
        with pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model="vllm:m", messages=messages, response_format={
                "type": "json_schema", "json_schema": {"name": "a", "schema": {}}})
        assert len(server.requests) == seen  # nothing sent
        reply = client.chat.completions.create(model="vllm:m", messages=messages,
                                               max_tokens=5)
        assert reply.choices[0].message.content == "OK"
        # vLLM is sent max_tokens whatever the caller wrote: what the probe saw it take
        client.chat.completions.create(model="vllm:m", messages=messages,
                                       max_completion_tokens=5)
        assert "max_tokens" in server.requests[-1].body
        info = client.models.info("vllm:m")
        assert info.tools is False and info.sources["tools"].origin == "profile"
        assert client.models.info("vllm:other").tools is None  # the profile is of model m


def test_a_file_that_is_not_a_profile(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"features": []}')
    client = ai.Client({"vllm": {"profile": str(bad)}})
    with pytest.raises(ai.ConfigurationError) as raised:
        client.chat.completions.create(model="vllm:m", messages=[{"role": "user",
                                                                  "content": "hi"}])
    assert "not a probe profile" in str(raised.value)
    with pytest.raises(ai.ConfigurationError):
        ai.Client({"vllm": {"profile": str(tmp_path / "missing.json")}}).models.info("vllm:m")


def test_models_info_command() -> None:
    out = io.StringIO()
    assert main(["models", "info", "anthropic:claude-sonnet-4-5"], stdout=out) == 0
    text = out.getvalue()
    assert "max_output_tokens    64000" in text and "json_schema          unknown" in text
    assert "snapshot" in text
    out = io.StringIO()
    assert main(["models", "info", "openai:gpt-4o", "--json"], stdout=out) == 0
    assert json.loads(out.getvalue())["context_window"] == 128_000
    err = io.StringIO()
    assert main(["models", "info", "gpt-4o"], stdout=io.StringIO(), stderr=err) == 2


def test_a_profile_written_by_hand_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"profile_version": 1, "model": None, "features": {
        "max_tokens": False, "stream_usage": False, "image_input": False}}))
    with ModelServer(Switchable(set())) as server:
        client = ai.Client({"vllm": {"base_url": server.url + "/v1", "profile": str(path)}})
        user = [{"role": "user", "content": "hi"}]
        with pytest.raises(ai.UnsupportedParameterError) as raised:
            client.chat.completions.create(model="vllm:any", messages=user, max_tokens=5)
        assert raised.value.parameter == "max_tokens"
        with pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model="vllm:any", stream=True, messages=user,
                                           stream_options={"include_usage": True})
        with pytest.raises(ai.UnsupportedParameterError):
            client.chat.completions.create(model="vllm:any", messages=[{
                "role": "user", "content": [{"type": "image_url", "image_url": {
                    "url": "https://example.com/a.png"}}]}])
        assert not server.requests
        client.chat.completions.create(model="vllm:any", messages=user, checks="off",
                                       max_tokens=5)
        assert len(server.requests) == 1


def test_the_profile_never_holds_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-probe-secret-0123456789"
    monkeypatch.setenv("PROBE_KEY", secret)
    with ModelServer(Switchable(set())) as server:
        host = server.url.split("://", 1)[1]
        out = tmp_path / "p.json"
        err = io.StringIO()
        code = main(["probe", "vllm", "--base-url", f"http://user:{secret}@{host}/v1?k={secret}",
                     "--model", "m", "--api-key-env", "PROBE_KEY", "--out", str(out)],
                    stdout=io.StringIO(), stderr=err)
        auth = server.requests[0].headers.get("authorization")
    assert code == 0 and auth  # sent to the server (httpx2 makes the user info Basic auth)
    assert secret not in out.read_text() and secret not in err.getvalue()
