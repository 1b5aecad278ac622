"""The gateway served by uvicorn on 127.0.0.1, called by the real OpenAI SDK with only its
``base_url`` and key changed (docs/gateway.md). Upstream: the offline ``test`` provider, or the
openai family pointed at a loopback ``ModelServer`` so the test sees what reached a provider.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")

from pydantic import BaseModel  # noqa: E402
from support.audio_wire import SPEECH_BYTES, multipart  # noqa: E402
from support.fault_server import Reply  # noqa: E402
from support.gateway_server import ADMIN_KEY, GatewayServer, base_config  # noqa: E402
from support.model_server import (  # noqa: E402
    ModelServer,
    chat_reply,
    embeddings_reply,
    responses_reply,
    sse_reply,
)
from support.timing import scaled  # noqa: E402

UPSTREAM_KEY = "sk-upstream-provider-secret-0123456789abcdef"


def _sdk(server: GatewayServer, key: str, **options: Any) -> Any:
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, timeout=scaled(30),
                         max_retries=0, **options)


@pytest.fixture(scope="module")
def offline() -> Iterator[GatewayServer]:
    """A gateway over the test provider, with one key for every model."""
    config = base_config({"fast": "test:offline", "other": "test:other"})
    with GatewayServer(config) as server:
        yield server


@pytest.fixture(scope="module")
def key(offline: GatewayServer) -> str:
    return offline.new_key("everything")


def test_chat_completion_through_the_sdk(offline: GatewayServer, key: str) -> None:
    client = _sdk(offline, key)
    reply = client.chat.completions.create(model="fast",
                                           messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == 'You said: "hi"'
    assert reply.model == "fast" and reply.usage is not None
    assert not hasattr(reply, "provider") or reply.model_extra.get("provider") is None
    (record,) = [r for r in offline.records() if r["endpoint"] == "chat.completions"
                 and r["stream"] is False][-1:]
    assert record["key_name"] == "everything" and record["model"] == "fast"
    assert record["deployment"] == "test:offline" and record["status"] == 200
    assert record["prompt_tokens"] == reply.usage.prompt_tokens
    assert record["content"] is None  # log_content is off


def test_a_chat_reply_carries_openais_fields_only(offline: GatewayServer, key: str) -> None:
    raw = _sdk(offline, key).chat.completions.with_raw_response.create(
        model="fast", messages=[{"role": "user", "content": "hi"}])
    body = json.loads(raw.http_response.content)
    assert body["model"] == "fast" and body["object"] == "chat.completion"
    assert {"id", "created", "choices", "usage"} <= set(body)
    assert not set(body) & {"provider", "intermediate_responses", "messages", "stop_reason",
                            "tool_events", "context_events", "fallback_errors"}
    (choice,) = body["choices"]
    assert choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
    assert not set(choice) & {"native_finish_reason", "intermediate_messages"}
    assert "provider_specific_fields" not in choice["message"]
    assert raw.parse().choices[0].message.content == 'You said: "hi"'


def test_stream_in_openai_sse(offline: GatewayServer, key: str) -> None:
    client = _sdk(offline, key)
    chunks = list(client.chat.completions.create(
        model="fast", messages=[{"role": "user", "content": "hello there"}], stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == 'You said: "hello there"'
    assert all(c.usage is None for c in chunks)  # not asked: not sent
    with_usage = list(client.chat.completions.create(
        model="fast", messages=[{"role": "user", "content": "x"}], stream=True,
        stream_options={"include_usage": True}))
    assert with_usage[-1].usage is not None  # the test model sends it with the last delta
    records = [r for r in offline.records() if r["stream"]]
    assert records[-1]["completion_tokens"] == with_usage[-1].usage.completion_tokens
    assert records[-2]["completion_tokens"] is not None  # usage asked upstream regardless


def test_tools_and_parse(offline: GatewayServer, key: str) -> None:
    client = _sdk(offline, key)
    tools = [{"type": "function", "function": {
        "name": "weather", "description": "The weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}]
    reply = client.chat.completions.create(
        model="fast", messages=[{"role": "user", "content": "Weather in Paris?"}], tools=tools)
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name == "weather" and "city" in json.loads(call.function.arguments)

    class City(BaseModel):
        name: str
        population: int

    parsed = client.chat.completions.parse(
        model="fast", messages=[{"role": "user", "content": "A city"}], response_format=City)
    assert isinstance(parsed.choices[0].message.parsed, City)


def test_embeddings_models_and_responses(offline: GatewayServer, key: str) -> None:
    client = _sdk(offline, key)
    vectors = client.embeddings.create(model="fast", input=["a", "b"], dimensions=4)
    assert [len(d.embedding) for d in vectors.data] == [4, 4]
    assert sorted(m.id for m in client.models.list()) == ["fast", "other"]
    assert client.models.retrieve("fast").id == "fast"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("test:offline")
    response = client.responses.create(model="fast", input="hi")
    assert response.output_text == 'You said: "hi"'
    events = list(client.responses.create(model="fast", input="hey", stream=True))
    assert events[0].type == "response.created"
    assert events[-1].type == "response.completed"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == \
        'You said: "hey"'


def test_a_model_outside_the_config_is_404_and_a_provider_choice_is_refused(
        offline: GatewayServer, key: str) -> None:
    client = _sdk(offline, key)
    with pytest.raises(openai.NotFoundError) as missing:
        client.chat.completions.create(model="test:offline",
                                       messages=[{"role": "user", "content": "hi"}])
    assert missing.value.code == "model_not_found"
    for extra in ({"provider_configs": {"openai": {"base_url": "http://evil"}}},
                  {"api_key": "x"}, {"base_url": "http://evil"}, {"transport": "native"},
                  {"fallbacks": ["test:x"]}, {"aws_secret_access_key": "x"}):
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="fast", extra_body=extra,
                                           messages=[{"role": "user", "content": "hi"}])
        assert refused.value.param == next(iter(extra))
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="fast", messages=[{"role": "user",
                                                                  "content": "hi"}],
                                       extra_headers={"x-api-key": "ignored"},
                                       extra_body={"extra_headers": {"a": "b"}})
    with pytest.raises(openai.BadRequestError, match="stream_options"):  # as OpenAI refuses it
        client.chat.completions.create(model="fast", stream_options={"include_usage": True},
                                       messages=[{"role": "user", "content": "hi"}])
    # an API parameter whose name only looks like one passes
    assert client.chat.completions.create(model="fast", prompt_cache_key="team-a-chat",
                                          messages=[{"role": "user", "content": "hi"}])


def _upstream(reply: Any) -> tuple[ModelServer, dict[str, Any]]:
    server = ModelServer(reply)
    config = base_config({"gpt": "openai:gpt-4o", "whisper": "openai:whisper-1"},
                         providers={"openai": {"api_key": UPSTREAM_KEY,
                                               "max_retries": 0}})
    return server, config


def _route(request: Any) -> Any:
    if request.path.endswith("/embeddings"):
        return embeddings_reply(1)
    if request.path.endswith("/responses"):
        return responses_reply("from upstream")
    if request.path.endswith("/audio/transcriptions"):
        return Reply(body={"text": "hello from the audio"})
    if isinstance(request.body, dict) and request.body.get("stream"):
        return sse_reply("streamed from upstream", usage=(7, 3))
    return chat_reply("from upstream", usage=(12, 4))


def test_the_upstream_gets_the_call_and_no_caller_key(tmp_path: Any) -> None:
    upstream, config = _upstream(_route)
    config["providers"]["openai"]["base_url"] = None
    with upstream:
        config["providers"]["openai"]["base_url"] = upstream.url + "/v1"
        with GatewayServer(config) as gateway:
            key = gateway.new_key("team-a")
            client = _sdk(gateway, key)
            reply = client.chat.completions.create(model="gpt", messages=[
                {"role": "user", "content": "hi"}], max_tokens=20, temperature=0.5)
            assert reply.choices[0].message.content == "from upstream"
            chunks = list(client.chat.completions.create(
                model="gpt", messages=[{"role": "user", "content": "s"}], stream=True))
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == \
                "streamedfromupstream"
            assert client.embeddings.create(model="gpt", input="x").data[0].embedding
            assert client.responses.create(model="gpt", input="r").output_text == \
                "from upstream"
            transcript = client.audio.transcriptions.create(
                model="whisper", file=("speech.wav", SPEECH_BYTES), language="en")
            assert transcript.text == "hello from the audio"
            records = gateway.records()
    sent = upstream.requests
    assert [r.path for r in sent] == ["/v1/chat/completions", "/v1/chat/completions",
                                      "/v1/embeddings", "/v1/responses",
                                      "/v1/audio/transcriptions"]
    assert sent[3].body["model"] == "gpt-4o" and sent[3].body["input"] == "r"
    assert sent[0].body["model"] == "gpt-4o" and sent[0].body["max_tokens"] == 20
    assert sent[1].body["stream_options"] == {"include_usage": True}
    parts = multipart(SimpleNamespace(headers=sent[4].headers, content=sent[4].body))
    assert parts["file"][0].data == SPEECH_BYTES and parts["language"][0].text == "en"
    for request in sent:  # the gateway's provider key upstream, never the caller's
        assert request.headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    costs = [r["cost"] for r in records if r["endpoint"] == "chat.completions"]
    assert all(c is not None and c > 0 for c in costs), records  # gpt-4o is priced
    assert [r["deployment"] for r in records][:2] == ["openai:gpt-4o", "openai:gpt-4o"]


def test_upstream_errors_keep_their_type() -> None:
    def reply(request: Any) -> Any:
        text = request.body["messages"][0]["content"]
        status = int(text)
        return Reply(status=status, body={"error": {"message": f"upstream said {status}",
                                                    "type": "x", "code": "c"}})

    upstream, config = _upstream(reply)
    with upstream:
        config["providers"]["openai"]["base_url"] = upstream.url + "/v1"
        with GatewayServer(config) as gateway:
            client = _sdk(gateway, gateway.new_key("k"))
            expected = {400: openai.BadRequestError, 404: openai.NotFoundError,
                        429: openai.RateLimitError, 500: openai.InternalServerError,
                        401: openai.APIStatusError}
            for status, kind in expected.items():
                with pytest.raises(kind) as raised:
                    client.chat.completions.create(model="gpt", messages=[
                        {"role": "user", "content": str(status)}])
                body = raised.value.body
                assert isinstance(body, dict) and "message" in body, body
                assert UPSTREAM_KEY not in json.dumps(body)
                if status == 401:  # the gateway's provider key: a bad gateway, not the caller
                    assert raised.value.status_code == 502
                    assert raised.value.code == "upstream_authentication"
                else:
                    assert raised.value.status_code == status


def test_no_valid_key_is_401_and_reaches_no_provider() -> None:
    upstream, config = _upstream(_route)
    with upstream:
        config["providers"]["openai"]["base_url"] = upstream.url + "/v1"
        with GatewayServer(config) as gateway:
            good = gateway.new_key("good")
            for presented in ("", "sk-gw-not-a-key", ADMIN_KEY, UPSTREAM_KEY,
                              good[:-1] + ("A" if good[-1] != "A" else "B")):
                client = _sdk(gateway, presented or "none")
                with pytest.raises(openai.AuthenticationError) as refused:
                    client.chat.completions.create(model="gpt", messages=[
                        {"role": "user", "content": "hi"}])
                assert refused.value.code == "invalid_api_key"
                with pytest.raises(openai.AuthenticationError):
                    client.embeddings.create(model="gpt", input="x")
            revoke = gateway.admin("DELETE", "/admin/keys/good")
            assert revoke.status_code == 200
            with pytest.raises(openai.AuthenticationError):
                _sdk(gateway, good).chat.completions.create(
                    model="gpt", messages=[{"role": "user", "content": "hi"}])
            assert gateway.records() == []  # refused traffic is counted, not stored
    assert upstream.requests == []


def test_a_router_alias_and_the_response_cache() -> None:
    """The config's router aliases and cache are the client's own: a routed call records the
    deployment that served it, a repeated call is answered by the cache and recorded as a
    hit."""
    config = base_config({"smart": "router:smart"},
                         router={"deployments": {"smart": [{"model": "test:eu"},
                                                           {"model": "test:us"}]}},
                         cache={"backend": "memory", "ttl": 60})
    with GatewayServer(config) as gateway:
        client = _sdk(gateway, gateway.new_key("routed"))
        first = client.chat.completions.create(model="smart", messages=[
            {"role": "user", "content": "same question"}])
        again = client.chat.completions.create(model="smart", messages=[
            {"role": "user", "content": "same question"}])
        records = gateway.records()
    assert again.choices[0].message.content == first.choices[0].message.content
    assert [r["cache_hit"] for r in records] == [False, True]
    assert records[0]["deployment"] in ("test:eu", "test:us")


def test_importing_the_package_loads_no_web_framework() -> None:
    import subprocess
    import sys

    code = ("import sys, aisuite_like as ai\n"
            "ai.gateway.GatewayConfig(models={'m': 'test:offline'})\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('starlette', 'uvicorn', 'multipart', 'python_multipart')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=scaled(60), check=True)
    assert done.stdout.strip() == "[]"


def test_the_models_list_carries_what_the_client_knows_of_each_model() -> None:
    """``/v1/models`` entries hold ``client.models.info``'s facts of the model behind each
    alias, with their sources and the unknown ones named; nothing is sent upstream."""
    import aisuite_like as ai

    config = base_config({"smart": "anthropic:claude-sonnet-4-5", "fast": "test:offline"},
                         providers={"anthropic": {"api_key": UPSTREAM_KEY,
                                                  "base_url": "http://127.0.0.1:9"}})
    with GatewayServer(config) as server:
        client = _sdk(server, server.new_key("all"))
        listed = {m.id: m.model_extra or {} for m in client.models.list()}
        one = client.models.retrieve("smart").model_extra or {}
    known = ai.Client().models.info("anthropic:claude-sonnet-4-5")
    smart = listed["smart"]
    assert smart == one
    assert smart["context_window"] == known.context_window is not None
    assert smart["tools"] is True and smart["max_output_tokens"] == known.max_output_tokens
    assert smart["unknown"] == known.unknown
    assert smart["sources"]["context_window"] == known.source_of("context_window")
    assert listed["fast"]["context_window"] is None and "tools" in listed["fast"]["unknown"]
    assert UPSTREAM_KEY not in json.dumps(listed)
