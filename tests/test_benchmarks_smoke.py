"""The benchmark code cannot rot: the mock server answers in each provider's recorded shape, and
``benchmarks/run.py --quick`` runs every scenario once, both sides, through the real SDKs.

No timing is asserted here (speed is measured by benchmarks/, never by a
timed unit test).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys
from typing import Any

from support.recorded import load_recorded
from support.timing import scaled

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_bench_server() -> Any:
    """benchmarks/server.py under a private name (benchmarks/ is not a package, and a bare
    ``import server`` could meet another module of that name)."""
    spec = importlib.util.spec_from_file_location("_aisuite_bench_server",
                                                  ROOT / "benchmarks" / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


bench_server = _load_bench_server()

TOOL_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {
    "type": "integer"}}, "required": ["city", "days"]}


def _post(app: Any, path: str, body: dict[str, Any]) -> Any:
    delay, reply = app.handle("POST", path, {"content-type": "application/json"},
                              json.dumps(body).encode())
    assert delay == 0.0
    assert reply.status == 200, reply.body
    return reply


def _sse_data(reply: Any) -> list[str]:
    assert reply.chunked and reply.wire.endswith(b"0\r\n\r\n")
    return [line[6:] for line in reply.body.decode().splitlines() if line.startswith("data: ")]


# ------------------------------------------------------------------- recorded shapes ---

def test_responses_reply_is_an_sdk_response() -> None:
    from openai.types.responses import Response

    app = bench_server.MockLLM()
    body = json.loads(_post(app, "/v1/responses", {"model": "gpt-bench",
                                                   "input": "hi"}).body)
    response = Response.model_validate(body)
    assert response.output_text == "The capital of France is Paris."


def test_openai_reply_has_the_recorded_shape() -> None:
    recorded = load_recorded("openai/test_prefect__test_prefect_agent_with_hitl_tool.json")
    real = recorded["interactions"][0]["response"]["body"]
    app = bench_server.MockLLM()
    body = json.loads(_post(app, "/v1/chat/completions", {
        "model": "gpt-bench-tools2", "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": TOOL_SCHEMA}}],
    }).body)
    assert set(body) == set(real)
    assert set(body["choices"][0]) == set(real["choices"][0])
    assert set(body["choices"][0]["message"]) == set(real["choices"][0]["message"])
    assert set(body["usage"]) == set(real["usage"])
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    calls = body["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["f", "f"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"city": "Paris-1", "days": 1}
    assert len({c["id"] for c in calls}) == 2


def test_anthropic_reply_has_the_recorded_shape() -> None:
    recorded = load_recorded("anthropic/anthropic__test_output__test_mixed_tools_no_output.json")
    real = recorded["interactions"][0]["response"]["body"]
    app = bench_server.MockLLM()
    body = json.loads(_post(app, "/v1/messages", {
        "model": "claude-bench-tools2", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "f", "input_schema": TOOL_SCHEMA}]}).body)
    assert set(body) == set(real)
    assert set(body["usage"]) == set(real["usage"])
    assert [b["type"] for b in body["content"]] == [b["type"] for b in real["content"]]
    assert body["stop_reason"] == real["stop_reason"] == "tool_use"


def test_gemini_reply_has_the_recorded_shape() -> None:
    recorded = load_recorded(
        "google/google__test_structured_output__test_native_output_with_function_tools.json")
    real = recorded["interactions"][1]["response"]["body"]
    app = bench_server.MockLLM()
    body = json.loads(_post(app, "/v1beta/models/gemini-bench:generateContent", {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).body)
    assert set(body) == set(real)
    assert set(body["candidates"][0]) >= {"content", "finishReason", "index"}
    assert body["candidates"][0]["content"]["parts"][0]["text"]


# ------------------------------------------------------------------ tool-call mode ---

def test_tool_mode_calls_tools_for_each_round_then_answers() -> None:
    app = bench_server.MockLLM()
    tools = [{"type": "function", "function": {"name": "f", "parameters": TOOL_SCHEMA}}]
    messages: list[dict] = [{"role": "user", "content": "hi"}]
    for round_index in range(2):
        message = json.loads(_post(app, "/v1/chat/completions", {
            "model": "gpt-bench-tools3-rounds2", "messages": messages, "tools": tools}).body
        )["choices"][0]["message"]
        assert len(message["tool_calls"]) == 3, round_index
        messages = messages + [message] + [
            {"role": "tool", "tool_call_id": c["id"], "content": "ok"}
            for c in message["tool_calls"]]
    final = json.loads(_post(app, "/v1/chat/completions", {
        "model": "gpt-bench-tools3-rounds2", "messages": messages, "tools": tools}).body)
    assert final["choices"][0]["finish_reason"] == "stop"
    assert final["choices"][0]["message"]["content"]
    # tool_choice "none" forces text even when a round is due
    forced = json.loads(_post(app, "/v1/chat/completions", {
        "model": "gpt-bench-tools3", "messages": messages[:1], "tools": tools,
        "tool_choice": "none"}).body)
    assert forced["choices"][0]["finish_reason"] == "stop"


def test_anthropic_and_gemini_tool_results_get_text() -> None:
    app = bench_server.MockLLM()
    history = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f",
                                                   "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": "ok"}]}]
    body = json.loads(_post(app, "/v1/messages", {
        "model": "claude-bench-tools2", "max_tokens": 10, "messages": history,
        "tools": [{"name": "f", "input_schema": TOOL_SCHEMA}]}).body)
    assert body["stop_reason"] == "end_turn"
    contents = [{"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]
    tools = [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": TOOL_SCHEMA}]}]
    first = json.loads(_post(app, "/v1beta/models/gemini-bench-tools2:generateContent", {
        "contents": contents[:1], "tools": tools}).body)
    assert [p["functionCall"]["name"] for p in first["candidates"][0]["content"]["parts"]] == \
        ["f", "f"]
    then = json.loads(_post(app, "/v1beta/models/gemini-bench-tools2:generateContent", {
        "contents": contents, "tools": tools}).body)
    assert "text" in then["candidates"][0]["content"]["parts"][0]


# ------------------------------------------------------------------------ streaming ---

def test_streams_have_the_requested_length_in_each_format() -> None:
    app = bench_server.MockLLM()
    user = [{"role": "user", "content": "hi"}]
    events = _sse_data(_post(app, "/v1/chat/completions", {
        "model": "gpt-bench-chunks50", "messages": user, "stream": True,
        "stream_options": {"include_usage": True}}))
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert sum(1 for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")) == 50
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"]

    reply = _post(app, "/v1/messages", {"model": "claude-bench-chunks50", "max_tokens": 10,
                                        "messages": user, "stream": True})
    names = [line[7:] for line in reply.body.decode().splitlines() if line.startswith("event: ")]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names.count("content_block_delta") == 50
    assert names[-2:] == ["message_delta", "message_stop"]

    data = [json.loads(e) for e in _sse_data(_post(
        app, "/v1beta/models/gemini-bench-chunks50:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}))]
    assert len(data) == 50
    assert data[-1]["candidates"][0]["finishReason"] == "STOP"


def test_options_from_model_name_and_header() -> None:
    assert bench_server.parse_options("gpt-4o-lat25-chunks1000-tools4-rounds2") == \
        bench_server.Options(latency_s=0.025, chunks=1000, tools=4, rounds=2)
    assert bench_server.parse_options("m-tools4", "tools=1, lat=5").tools == 1
    assert bench_server.parse_options("gpt-4o").tools == 0


# ----------------------------------------------------------------- the whole harness ---

def test_embeddings_reply_has_one_vector_per_input() -> None:
    import base64
    import struct

    app = bench_server.MockLLM()
    body = json.loads(_post(app, "/v1/embeddings", {
        "model": "text-embedding-bench-dim4", "input": ["a", "b", "c"],
        "encoding_format": "base64"}).body)
    assert body["object"] == "list" and [d["index"] for d in body["data"]] == [0, 1, 2]
    assert len(struct.unpack("<4f", base64.b64decode(body["data"][0]["embedding"]))) == 4
    assert body["usage"] == {"prompt_tokens": 21, "total_tokens": 21}
    floats = json.loads(_post(app, "/v1/embeddings", {
        "model": "text-embedding-bench", "input": "a", "encoding_format": "float"}).body)
    assert len(floats["data"]) == 1 and len(floats["data"][0]["embedding"]) == 256


def test_quick_benchmark_runs_every_scenario(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "quick.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                           "--json", str(out)], capture_output=True, text=True, timeout=scaled(300),
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())
    rows = results["rows"]
    assert {r["scenario"] for r in rows} == {"import", "coldstart", "sequential", "responses",
                                             "async", "streaming", "tool_loop", "rss", "otel",
                                             "mcp", "cache", "prompt_cache", "embeddings",
                                             "aloop", "native", "router", "checks",
                                             "native_endpoints", "native_httpx2"}
    for row in rows:
        assert row["status"] in ("PASS", "MISS", "info"), row
        assert row["ours"] and row["raw"], row
    budgeted = [r for r in rows if r["budget"]]
    # one budget line per family for each measured scenario, plus the import ones
    assert len(budgeted) >= 2 + 3 + 3 + 5 + 3 + 6 + 3
    assert results["meta"]["server"]["capacity_rps"] > 0
    assert "PASS" in proc.stdout or "MISS" in proc.stdout  # the table was printed


def test_http_server_keep_alive_latency_and_chunked_bodies() -> None:
    """The raw asyncio server over a real socket: one keep-alive connection, a delayed reply
    (``lat50``: the delay is a feature of the server, checked as a lower bound), then a request
    whose body arrives chunked."""
    import http.client
    import time

    with bench_server.ServerProcess() as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        try:
            body = json.dumps({"model": "gpt-bench-lat50",
                               "messages": [{"role": "user", "content": "hi"}]})
            t0 = time.perf_counter()
            conn.request("POST", "/v1/chat/completions", body,
                         {"content-type": "application/json"})
            first = conn.getresponse()
            assert json.loads(first.read())["choices"][0]["message"]["content"]
            assert time.perf_counter() - t0 >= 0.05
            conn.request("POST", "/v1/messages", iter([body.replace("gpt", "claude").encode()]),
                         {"content-type": "application/json"}, encode_chunked=True)
            second = conn.getresponse()
            assert second.status == 200
            assert json.loads(second.read())["type"] == "message"
        finally:
            conn.close()
        assert srv.stats()["requests"] == 2
