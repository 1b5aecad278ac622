"""The native transport's own promises (docs/transports.md); its fidelity to the SDK path is
checked by running the recorded-exchange and fault suites on both transports
(tests/support/transports.py).

- the vendor SDK is not imported on that path (a fresh interpreter, sync, async, streamed);
- what goes out equals what the SDK sends: the URL (Azure's deployment path and
  ``api-version`` included), the JSON body, the credential and API-version headers, and the
  provider-native ``extra_body`` / ``extra_headers`` / ``extra_query``;
- the constants mirrored from the SDKs agree with the installed SDKs;
- settings only the SDK transport has are refused by name, before anything is sent.
"""

from __future__ import annotations

import inspect
import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

import pytest
import respx
from support.fault_server import FaultServer

import aisuite_like as ai

ROOT = pathlib.Path(__file__).resolve().parents[2]
USER = [{"role": "user", "content": "hi"}]
MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x", "google": "google:gemini-x"}


def test_no_vendor_sdk_is_imported_on_the_native_path(server: FaultServer) -> None:
    script = textwrap.dedent(f"""
        import asyncio, json, sys
        import aisuite_like as ai
        URL = {server.url!r}
        configs = {{"openai": {{"api_key": "k1", "base_url": URL + "/v1", "transport": "native"}},
                    "anthropic": {{"api_key": "k2", "base_url": URL, "transport": "native"}},
                    "google": {{"api_key": "k3", "base_url": URL, "transport": "native"}}}}
        models = {json.dumps(MODELS)}
        texts = []
        with ai.Client(configs) as client:
            for model in models.values():
                texts.append(client.chat.completions.create(
                    model=model, messages=[{{"role": "user", "content": "hi"}}]
                ).choices[0].message.content)
                with client.chat.completions.create(model=model, messages=[
                        {{"role": "user", "content": "hi"}}], stream=True) as s:
                    texts.append(s.get_final_response().choices[0].message.content)

        async def main():
            async with ai.AsyncClient(configs) as client:
                for model in models.values():
                    r = await client.chat.completions.create(
                        model=model, messages=[{{"role": "user", "content": "hi"}}])
                    texts.append(r.choices[0].message.content)
                    s = await client.chat.completions.create(
                        model=model, messages=[{{"role": "user", "content": "hi"}}],
                        stream=True)
                    async with s:
                        texts.append((await s.get_final_response()).choices[0].message.content)

        asyncio.run(main())
        loaded = sorted(m for m in ("openai", "anthropic", "google.genai", "google.auth")
                        if m in sys.modules)
        print(json.dumps({{"texts": texts, "loaded": loaded}}))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["texts"] == ["hello world"] * 12
    assert result["loaded"] == []


# --- the wire: what the SDK sends, the native transport sends --------------------------------

_WIRE_HEADERS = ("authorization", "api-key", "x-api-key", "anthropic-version", "x-goog-api-key",
                 "openai-organization", "openai-project", "content-type", "x-custom",
                 "anthropic-workspace-id", "x-server-timeout")


def _sent(configs: dict[str, Any], model: str, transport: str, route_url: Any,
          **kwargs: Any) -> Any:
    """The request one sync call sends on ``transport`` (HTTP mocked at httpcore2)."""
    configs = {k: {**v, "max_retries": 0, **({"transport": "native"}
                                            if transport == "native" else {})}
               for k, v in configs.items()}
    with respx.mock(using="httpcore2") as router:
        if isinstance(route_url, str):
            route = router.post(url__startswith=route_url)
        else:
            route = router.post(url__regex=route_url.pattern)
        body = _reply(model)
        route.respond(200, json=body)
        with ai.Client(configs) as client:
            client.chat.completions.create(model=model, messages=USER, **kwargs)
        request = route.calls[0].request
    headers = {k: v for k, v in request.headers.items() if k in _WIRE_HEADERS}
    return str(request.url), json.loads(request.content), headers


def _reply(model: str) -> dict[str, Any]:
    if model.startswith("anthropic:"):
        return {"id": "m", "type": "message", "role": "assistant", "model": "c",
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    if model.startswith("google:"):
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                                "finishReason": "STOP"}]}
    return {"id": "c", "object": "chat.completion", "created": 1, "model": "g",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                         "finish_reason": "stop"}]}


NATIVE_ARGS = {"extra_body": {"x_flag": True}, "extra_headers": {"X-Custom": "yes"},
               "extra_query": {"q": "1"}}

WIRE_CASES = [
    pytest.param({"openai": {"api_key": "sk-a", "organization": "org-1", "project": "p-1"}},
                 "openai:gpt-x", "https://api.openai.com/v1/chat/completions",
                 {**NATIVE_ARGS, "temperature": 0.5, "max_tokens": 9}, id="openai"),
    pytest.param({"groq": {"api_key": "gsk-a", "default_headers": {"X-Custom": "h"}}},
                 "groq:llama", "https://api.groq.com/openai/v1/chat/completions",
                 {"stop": ["x"], "seed": 3}, id="groq"),
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2024-10-21"}},
                 "azure:my-deploy", "https://res.openai.azure.com/openai/deployments/my-deploy/",
                 NATIVE_ARGS, id="azure"),
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2024-10-21", "azure_deployment": "fixed"}},
                 "azure:gpt-4o", "https://res.openai.azure.com/openai/deployments/fixed/",
                 {}, id="azure-deployment"),
    pytest.param({"anthropic": {"api_key": "sk-ant-a"}}, "anthropic:claude-x",
                 "https://api.anthropic.com/v1/messages",
                 {**NATIVE_ARGS, "temperature": 0.2, "workspace_id": "ws-1"}, id="anthropic"),
    pytest.param({"google": {"api_key": "g-a", "timeout": 30}}, "google:gemini-x",
                 "https://generativelanguage.googleapis.com/v1beta/models/gemini-x:",
                 {"temperature": 0.1, "max_tokens": 5}, id="google"),
]


@pytest.mark.parametrize("configs, model, url, kwargs", WIRE_CASES)
def test_native_sends_what_the_sdk_sends(configs: dict[str, Any], model: str, url: str,
                                         kwargs: dict[str, Any]) -> None:
    sdk = _sent(configs, model, "sdk", url, **kwargs)
    native = _sent(configs, model, "native", url, **kwargs)
    assert native == sdk


def test_the_constants_mirrored_from_the_sdks_agree_with_them() -> None:
    from anthropic import _constants
    from anthropic.resources.messages import Messages

    from aisuite_like.providers.anthropic import native

    assert native.ANTHROPIC_VERSION == _constants.ANTHROPIC_API_VERSION
    assert native.NATIVE_PARAMS == frozenset(inspect.signature(Messages.create).parameters) - {
        "self"}


# --- settings of the SDK transport only --------------------------------------------------------


@pytest.mark.parametrize("key, extra", [
    ("openai", {"http_client": object()}),
    ("openai", {"async_http_client": object()}),
    ("anthropic", {"http_client": object()}),
    ("anthropic", {"max_connections": 3}),
    ("google", {"http_client": object()}),
    ("google", {"vertexai": True, "project": "p", "location": "us-central1"}),
])
def test_sdk_only_settings_are_refused_on_the_native_transport(key: str,
                                                              extra: dict[str, Any]) -> None:
    config = {key: {"api_key": "k", "transport": "native", **extra}}
    with pytest.raises(ai.ConfigurationError, match="transport='native'") as info:
        ai.Client(config).chat.completions.create(model=MODELS[key], messages=USER)
    assert sorted(extra)[0] in str(info.value)


@pytest.mark.parametrize("key", ["openai", "anthropic", "google"])
def test_an_unknown_async_transport_on_the_native_transport_names_the_allowed_ones(
        key: str) -> None:
    with pytest.raises(ai.ConfigurationError, match=r"'aiohttp'.*'httpx2'"):
        ai.Client({key: {"api_key": "k", "transport": "native", "async_transport": "curl"}}
                  ).chat.completions.create(model=MODELS[key], messages=USER)


@pytest.mark.parametrize("key", ["openai", "anthropic", "google"])
def test_an_unknown_transport_is_refused(key: str) -> None:
    with pytest.raises(ai.ConfigurationError, match=r"'sdk'.*'native'"):
        ai.Client({key: {"api_key": "k", "transport": "nativ"}}).chat.completions.create(
            model=MODELS[key], messages=USER)


def test_a_value_json_cannot_carry_is_refused_before_sending(server: FaultServer) -> None:
    server.reset()
    client = ai.Client({"openai": {"api_key": "k", "base_url": server.url + "/v1",
                                   "transport": "native"}})
    with pytest.raises(ai.UnsupportedParameterError, match="JSON"):
        client.chat.completions.create(model="openai:gpt-x", messages=USER,
                                       extra_body={"when": object()})
    assert server.attempts == 0


def test_no_openai_sdk_is_imported_on_the_native_responses_path() -> None:
    """``client.responses.create`` and chat over it (``api="responses"``) on the native
    transport: sync, async, streamed, against a local server in the same fresh interpreter."""
    script = textwrap.dedent("""
        import asyncio, json, sys, threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        import aisuite_like as ai

        REPLY = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
                 "model": "m", "output": [{"id": "msg_1", "type": "message", "role": "assistant",
                 "status": "completed", "content": [{"type": "output_text", "text": "hi there",
                 "annotations": []}]}], "usage": {"input_tokens": 1, "output_tokens": 2,
                 "total_tokens": 3}}
        START = {**REPLY, "status": "in_progress", "output": []}
        EVENTS = [{"type": "response.created", "response": START},
                  {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                   "content_index": 0, "delta": "hi there"},
                  {"type": "response.completed", "response": REPLY}]
        paths = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args):
                pass
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                paths.append(self.path)
                if body.get("stream"):
                    data = "".join(f"event: {e['type']}\\ndata: {json.dumps(e)}\\n\\n"
                                   for e in EVENTS).encode()
                    kind = "text/event-stream"
                else:
                    data, kind = json.dumps(REPLY).encode(), "application/json"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        configs = {"openai": {"api_key": "k", "base_url": url, "transport": "native"}}
        over = {"openai": {**configs["openai"], "api": "responses"}}
        chat = [{"role": "user", "content": "hi"}]
        texts = []
        with ai.Client(configs) as client:
            texts.append(client.responses.create(model="openai:m", input="hi").output_text)
            stream = client.responses.create(model="openai:m", input="hi", stream=True)
            texts.append("".join(getattr(e, "delta", "") for e in stream))
        with ai.Client(over) as client:
            texts.append(client.chat.completions.create(
                model="openai:m", messages=chat).choices[0].message.content)

        async def main():
            async with ai.AsyncClient(configs) as client:
                r = await client.responses.create(model="openai:m", input="hi")
                texts.append(r.output_text)
            async with ai.AsyncClient(over) as client:
                r = await client.chat.completions.create(model="openai:m", messages=chat)
                texts.append(r.choices[0].message.content)

        asyncio.run(main())
        print(json.dumps({"texts": texts, "paths": paths,
                          "loaded": "openai" in sys.modules}))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["texts"] == ["hi there"] * 5
    assert result["paths"] == ["/v1/responses"] * 5
    assert result["loaded"] is False


RESPONSES_REPLY = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
                   "model": "m", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1,
                                                         "total_tokens": 2}}


@pytest.mark.parametrize("configs, model", [
    pytest.param({"openai": {"api_key": "sk-a", "organization": "org-1"}}, "openai:gpt-x",
                 id="openai"),
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2025-04-01-preview"}}, "azure:my-deploy",
                 id="azure"),
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2025-04-01-preview", "azure_deployment": "fixed"}},
                 "azure:gpt-4o", id="azure-deployment"),
    pytest.param({"azure": {"api_key": "az-a", "api_version": "2025-04-01-preview",
                            "base_url": "https://res.openai.azure.com/openai/v1"}},
                 "azure:gpt-4o", id="azure-base-url"),
])
def test_native_responses_calls_go_where_the_sdk_sends_them(configs: dict[str, Any],
                                                             model: str) -> None:
    sent = []
    for transport in ("sdk", "native"):
        cfg = {k: {**v, "max_retries": 0, "transport": transport} for k, v in configs.items()}
        with respx.mock(using="httpcore2") as router:
            route = router.post(url__regex=r".*").respond(200, json=RESPONSES_REPLY)
            with ai.Client(cfg) as client:
                client.responses.create(model=model, input="hi", **NATIVE_ARGS)
            request = route.calls[0].request
        sent.append((str(request.url), json.loads(request.content),
                     {k: v for k, v in request.headers.items() if k in _WIRE_HEADERS}))
    assert sent[1] == sent[0]
    assert sent[0][0].split("?")[0].endswith("/responses")


@pytest.mark.parametrize("configs", [
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2025-04-01-preview"}}, id="azure"),
    pytest.param({"azure": {"api_key": "az-a", "azure_endpoint": "https://res.openai.azure.com",
                            "api_version": "2025-04-01-preview", "azure_deployment": "fixed"}},
                 id="azure-deployment"),
    pytest.param({"anthropic": {"api_key": "sk-ant-a", "default_headers": {"X-Custom": "h"}}},
                 id="anthropic"),
])
def test_native_models_list_goes_where_the_sdk_sends_it(configs: dict[str, Any]) -> None:
    key = next(iter(configs))
    reply = ({"data": [], "has_more": False} if key == "anthropic"
             else {"object": "list", "data": []})
    sent = []
    for transport in ("sdk", "native"):
        cfg = {k: {**v, "max_retries": 0, "transport": transport} for k, v in configs.items()}
        with respx.mock(using="httpcore2") as router:
            route = router.get(url__regex=r".*").respond(200, json=reply)
            with ai.Client(cfg) as client:
                client.models.list(key, on_error="raise")
            request = route.calls[0].request
        sent.append((request.method, str(request.url),
                     {k: v for k, v in request.headers.items() if k in _WIRE_HEADERS}))
    assert sent[1] == sent[0]


@pytest.mark.parametrize("key", ["openai", "anthropic"])
@pytest.mark.parametrize("name, value", [("extra_query", 5), ("extra_headers", "x"),
                                         ("extra_body", 3)])
def test_request_options_that_are_no_dict_are_refused_before_sending(
        server: FaultServer, key: str, name: str, value: Any) -> None:
    server.reset()
    base = server.url + "/v1" if key == "openai" else server.url
    client = ai.Client({key: {"api_key": "k", "base_url": base, "transport": "native"}})
    with pytest.raises(ai.UnsupportedParameterError, match=f"{name} must be a dict"):
        client.chat.completions.create(model=MODELS[key], messages=USER, **{name: value})
    assert server.attempts == 0


def test_the_all_extra_installs_what_the_native_async_transport_needs() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]

    def resolved(name: str) -> set[str]:
        out: set[str] = set()
        for requirement in extras[name]:
            if requirement.startswith("aisuite-like["):
                for inner in requirement[len("aisuite-like["):-1].split(","):
                    out |= resolved(inner)
            else:
                out.add(requirement.split(">")[0].split("[")[0].split("=")[0].strip())
        return out

    assert "aiohttp" in resolved("all")


@pytest.mark.parametrize("how", ["async_client", "sync_client_acreate", "kept_to_exit"])
def test_an_unclosed_native_async_client_prints_nothing_at_exit(server: FaultServer,
                                                                how: str) -> None:
    """aiohttp prints "Unclosed client session" / "Unclosed connector" for a session never
    closed: a client that is let go without aclose() closes its connections itself."""
    script = textwrap.dedent(f"""
        import asyncio
        import aisuite_like as ai
        configs = {{"openai": {{"api_key": "k", "base_url": {server.url + "/v1"!r},
                               "transport": "native", "openai_proxy": False}}}}
        USER = [{{"role": "user", "content": "hi"}}]
        kept = []

        async def main():
            if {how!r} == "sync_client_acreate":
                client = ai.Client(configs)
                r = await client.chat.completions.acreate(model="openai:m", messages=USER)
            else:
                client = ai.AsyncClient(configs)
                r = await client.chat.completions.create(model="openai:m", messages=USER)
            if {how!r} == "kept_to_exit":
                kept.append(client)
            print(r.choices[0].message.content)

        asyncio.run(main())
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "hello world"
    assert "Unclosed" not in out.stderr and out.stderr.strip() == "", out.stderr[-3000:]


def test_a_native_async_request_takes_no_thread(server: FaultServer) -> None:
    """The environment's proxy is read once per origin, not (with .netrc) in a thread on
    every request as aiohttp's ``trust_env`` does: a gateway's every call would wait for the
    thread pool under load. Counted at the loop's default executor."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    class Counting(ThreadPoolExecutor):
        submitted = 0

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            Counting.submitted += 1
            return super().submit(*args, **kwargs)

    server.reset()
    config = {"openai": {"api_key": "k-native", "base_url": server.url + "/v1",
                         "max_retries": 0, "transport": "native"}}

    async def run() -> list[str]:
        asyncio.get_running_loop().set_default_executor(Counting(max_workers=2))
        async with ai.AsyncClient(config) as client:
            await client.chat.completions.create(model="openai:gpt-x", messages=[
                {"role": "user", "content": "warm"}])
            Counting.submitted = 0
            replies = [await client.chat.completions.create(
                model="openai:gpt-x", messages=[{"role": "user", "content": "hi"}])
                for _ in range(3)]
            return [str(r.choices[0].message.content) for r in replies]

    assert asyncio.run(run()) == ["hello world"] * 3
    assert Counting.submitted == 0
    assert len(server.requests) == 4
