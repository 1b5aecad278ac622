"""Safe by default (docs/gateway.md, "Safe by default"): loopback unless keys are required,
body-size, in-flight and time limits, graceful shutdown with complete records, no provider key
in any reply, log, record, span or metric, OpenTelemetry spans and ``/metrics``."""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")

from support.fault_server import Delay, Reply, Stream  # noqa: E402
from support.gateway_server import GatewayServer, base_config  # noqa: E402
from support.model_server import Hold, ModelServer, chat_reply, sse_reply  # noqa: E402
from support.timing import scaled  # noqa: E402

import aisuite_like as ai  # noqa: E402
from aisuite_like.gateway import GatewayConfig, load_config  # noqa: E402

HI = [{"role": "user", "content": "hi"}]
UPSTREAM_KEY = "sk-upstream-never-shown-9f8e7d6c5b4a"


def _sdk(server: GatewayServer, key: str, **options: Any) -> Any:
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, timeout=scaled(30),
                         max_retries=0, **options)


def _config(upstream: ModelServer, **server: Any) -> dict[str, Any]:
    return base_config({"smart": "openai:gpt-4o"},
                       providers={"openai": {"api_key": UPSTREAM_KEY,
                                             "base_url": upstream.url + "/v1",
                                             "max_retries": 0}},
                       **({"server": server} if server else {}))


def test_loopback_by_default_and_no_open_relay() -> None:
    config = GatewayConfig(models={"m": "test:offline"})
    assert config.host == "127.0.0.1" and config.require_keys
    for host in ("0.0.0.0", "::", "192.168.1.10"):
        with pytest.raises(ai.ConfigurationError, match="open relay"):
            GatewayConfig(models={"m": "test:offline"}, host=host, require_keys=False)
        assert GatewayConfig(models={"m": "test:offline"}, host=host).host == host
    assert GatewayConfig(models={"m": "test:offline"}, host="::1", require_keys=False)
    with pytest.raises(ai.ConfigurationError, match="GATEWAY_NOT_SET_ANYWHERE"):
        load_config({"models": {"m": "test:offline"},
                     "providers": {"openai": {"api_key_env": "GATEWAY_NOT_SET_ANYWHERE"}}})
    with pytest.raises(ai.ConfigurationError, match="router alias"):
        load_config({"models": {"m": "router:nowhere"}})
    with pytest.raises(ai.ConfigurationError, match="unknown"):
        load_config({"models": {"m": "test:offline"}, "server": {"hots": "x"}})


def test_an_open_gateway_on_loopback_serves_without_keys() -> None:
    config = base_config({"m": "test:offline"}, auth={"require_keys": False})
    with GatewayServer(config) as gateway:
        reply = _sdk(gateway, "anything").chat.completions.create(model="m", messages=HI)
        assert reply.choices[0].message.content == 'You said: "hi"'
        assert gateway.records()[0]["key_name"] is None


def test_a_body_over_the_limit_is_refused_unread() -> None:
    with ModelServer(lambda request: chat_reply("ok")) as upstream:
        with GatewayServer(_config(upstream, max_body_bytes=2048)) as gateway:
            client = _sdk(gateway, gateway.new_key("big"))
            with pytest.raises(openai.APIStatusError) as refused:
                client.chat.completions.create(model="smart", messages=[
                    {"role": "user", "content": "x" * 5000}])
            assert refused.value.status_code == 413
            assert refused.value.code == "request_too_large"
            assert client.chat.completions.create(model="smart", messages=HI).choices
            import httpx2

            def chunks() -> Any:  # no Content-Length: the limit is counted as it arrives
                yield b'{"model": "smart", "messages": [{"role": "user", "content": "'
                for _ in range(10):
                    yield b"x" * 500
                yield b'"}]}'

            chunked = httpx2.post(gateway.url + "/v1/chat/completions", content=chunks(),
                                  headers={"authorization": f"Bearer {client.api_key}",
                                           "content-type": "application/json"},
                                  timeout=scaled(20))
            assert chunked.status_code == 413
            assert chunked.json()["error"]["code"] == "request_too_large"
    assert len(upstream.requests) == 1


def test_requests_in_flight_per_key_are_bounded() -> None:
    with ModelServer(lambda request: Hold(chat_reply("held"), timeout=scaled(20))) as upstream:
        with GatewayServer(_config(upstream, max_in_flight_per_key=1)) as gateway:
            key = gateway.new_key("one-at-a-time")
            results: list[Any] = []
            first = threading.Thread(target=lambda: results.append(
                _sdk(gateway, key).chat.completions.create(model="smart", messages=HI)))
            first.start()
            deadline = time.monotonic() + scaled(10)
            while not upstream.requests and time.monotonic() < deadline:
                time.sleep(0.01)
            with pytest.raises(openai.RateLimitError) as limited:
                _sdk(gateway, key).chat.completions.create(model="smart", messages=HI)
            assert "in flight" in str(limited.value)
            other = gateway.new_key("another")  # another key is not held up by this one
            done: list[Any] = []
            second = threading.Thread(target=lambda: done.append(
                _sdk(gateway, other).chat.completions.create(model="smart", messages=HI)))
            second.start()
            upstream.release()
            first.join(scaled(20))
            second.join(scaled(20))
            assert results[0].choices[0].message.content == "held" and done
    assert len(upstream.requests) == 2


def test_a_request_and_a_stream_are_bounded_in_time() -> None:
    def reply(request: Any) -> Any:
        if request.body.get("stream"):  # one event, then a stall
            return Stream(events=[sse_reply("a").events[0]], cut_after=1, then="stall")
        return Delay(scaled(20), chat_reply("late"))

    with ModelServer(reply) as upstream:
        config = _config(upstream, request_timeout=1.0)
        with GatewayServer(config) as gateway:
            client = _sdk(gateway, gateway.new_key("patient"))
            started = time.monotonic()
            with pytest.raises(openai.APIStatusError) as late:
                client.chat.completions.create(model="smart", messages=HI)
            assert late.value.status_code == 504 and late.value.code == "request_timeout"
            with pytest.raises(openai.APIError, match="longer than"):
                for _chunk in client.chat.completions.create(model="smart", messages=HI,
                                                             stream=True):
                    pass
            assert time.monotonic() - started < scaled(15)
            records = gateway.records()
    assert [r["status"] for r in records] == [504, 504]
    assert gateway.gateway.limits.in_flight() == 0


def test_shutdown_lets_a_stream_finish_and_records_it() -> None:
    events = sse_reply("one two three four five six", usage=(9, 6)).events
    with ModelServer(lambda request: Stream(events=events, interval=0.2)) as upstream:
        gateway = GatewayServer(_config(upstream))
        with gateway:
            client = _sdk(gateway, gateway.new_key("streaming"))
            stream = client.chat.completions.create(model="smart", messages=HI, stream=True)
            first = next(iter(stream))
            stopper = threading.Thread(target=gateway.stop)
            stopper.start()
            rest = list(stream)
            stopper.join(scaled(30))
    text = "".join(c.choices[0].delta.content or "" for c in [first, *rest] if c.choices)
    assert text == "onetwothreefourfivesix"
    (record,) = gateway.gateway.store.latest()  # written by the shutdown
    assert record["status"] == 200 and record["stream"] is True
    assert record["completion_tokens"] == 6


def test_no_provider_key_in_replies_logs_records_spans_or_metrics(
        caplog: pytest.LogCaptureFixture) -> None:
    from support.telemetry import instrumented

    def reply(request: Any) -> Any:  # a provider whose errors echo the key back
        text = request.body["messages"][-1]["content"]
        if text == "fail":
            return Reply(status=400, body={"error": {
                "message": f"Incorrect API key provided: {UPSTREAM_KEY}", "type": "x"}})
        if text == "down":
            return Reply(status=500, body={"error": {"message": f"key {UPSTREAM_KEY} broke"}})
        return chat_reply("fine")  # (a model never sees the key: it is not in any prompt)

    caplog.set_level(logging.DEBUG)
    with instrumented() as telemetry, ModelServer(reply) as upstream:
        config = _config(upstream)
        config["server"] = {"log_content": True}
        with GatewayServer(config, tracer_provider=telemetry.tracer_provider) as gateway:
            client = _sdk(gateway, gateway.new_key("curious"))
            seen = []
            for text in ("fail", "down"):
                with pytest.raises(openai.APIStatusError) as failed:
                    client.chat.completions.create(model="smart", messages=[
                        {"role": "user", "content": text}])
                seen.append(json.dumps(failed.value.body))
                seen.append(failed.value.response.text)
            echoed = client.chat.completions.create(model="smart", messages=HI)
            seen.append(echoed.model_dump_json())
            seen.append(json.dumps(gateway.records()))
            seen.append(gateway.admin("GET", "/metrics").text)
            seen.append(json.dumps(gateway.admin("GET", "/admin/keys").json()))
            seen.append(gateway.admin("GET", "/ui").text)
            seen.append(repr(gateway.gateway.config))
        spans = telemetry.spans()
    seen.append(json.dumps([dict(s.attributes or {}) for s in spans], default=str))
    seen.append(json.dumps([[e.name, dict(e.attributes or {})] for s in spans
                            for e in s.events], default=str))
    seen.append(caplog.text)
    for text in seen:
        assert UPSTREAM_KEY not in text
    assert "[REDACTED]" in seen[0] or "***" in seen[0] or "Incorrect API key" in seen[0]
    server_spans = [s for s in spans if s.name == "gateway chat.completions"]
    assert len(server_spans) == 3
    client_spans = [s for s in spans if s.name == "chat gpt-4o"]
    assert {s.parent.span_id for s in client_spans if s.parent} <= \
        {s.context.span_id for s in server_spans}
    last = server_spans[-1].attributes or {}
    assert last["http.response.status_code"] == 200
    assert last["aisuite_like.gateway.key"] == "curious"
    assert last["gen_ai.request.model"] == "smart"


def test_metrics_in_prometheus_text() -> None:
    config = base_config({"m": "test:offline"})
    with GatewayServer(config) as gateway:
        client = _sdk(gateway, gateway.new_key("counted"))
        client.chat.completions.create(model="m", messages=HI)
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="nope", messages=HI)
        reply = gateway.admin("GET", "/metrics")
    assert reply.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = reply.text
    assert 'aisuite_gateway_requests_total{endpoint="chat.completions",model="m",' \
           'status="200"} 1' in text
    assert 'aisuite_gateway_requests_total{endpoint="chat.completions",model="",' \
           'status="404"} 1' in text
    assert "# TYPE aisuite_gateway_request_duration_seconds histogram" in text
    assert 'aisuite_gateway_request_duration_seconds_count{endpoint="chat.completions"} 2' \
        in text
    assert "aisuite_gateway_in_flight 0" in text
    assert "counted" not in text  # no key name is a label


def test_the_latency_histogram_is_cumulative() -> None:
    """Each ``le`` bucket counts the requests at or under its bound; ``+Inf`` all of them."""
    from aisuite_like.gateway.metrics import Metrics

    metrics = Metrics()
    for seconds in (0.003, 0.005, 0.07, 200.0):
        metrics.observe("chat.completions", "m", 200, seconds, None, None, None)
    text = metrics.render()

    def bucket(bound: str) -> str:
        prefix = ('aisuite_gateway_request_duration_seconds_bucket{endpoint="chat.completions",'
                  f'le="{bound}"}} ')
        (line,) = [line for line in text.splitlines() if line.startswith(prefix)]
        return line[len(prefix):]

    assert [bucket(b) for b in ("0.005", "0.01", "0.05", "0.1", "120", "+Inf")] == \
        ["2", "2", "2", "3", "3", "4"]


def test_a_client_that_leaves_a_stream_frees_its_key_and_is_recorded() -> None:
    events = sse_reply(" ".join(f"w{i}" for i in range(40)), usage=(9, 40)).events
    with ModelServer(lambda request: Stream(events=events, interval=0.1)) as upstream:
        with GatewayServer(_config(upstream, max_in_flight_per_key=1)) as gateway:
            key = gateway.new_key("leaver")
            client = _sdk(gateway, key)
            stream = client.chat.completions.create(model="smart", messages=HI, stream=True)
            iterator = iter(stream)
            next(iterator), next(iterator)
            stream.close()  # the client goes away mid-stream
            deadline = time.monotonic() + scaled(15)
            records: list[Any] = []
            while time.monotonic() < deadline:
                records = gateway.records()
                if records:
                    break
                time.sleep(0.1)
            assert [(r["status"], r["stream"]) for r in records] == [(499, True)]
            assert records[0]["error_type"] == "CancelledError"
            assert gateway.gateway.limits.in_flight() == 0
            again = client.chat.completions.create(model="smart", messages=HI, stream=True)
            assert next(iter(again)).choices  # the key's one slot is free again
            again.close()
