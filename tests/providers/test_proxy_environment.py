"""``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``NO_PROXY`` are honoured on the four paths (the SDK
transport and the native one, sync and async; the native one's async calls on aiohttp and
on httpx2), as an egress proxy a company mandates needs:
the project's loopback server plays the proxy (it records the absolute-form request line a
client sends a proxy) and answers in the family's format."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from support.fault_server import FaultServer
from support.transports import each_transport, native, provider_config  # noqa: F401  (the fixture)

import aisuite_like as ai

MODELS = {"openai": "openai:gpt-x", "anthropic": "anthropic:claude-x", "google": "google:gemini-x"}
#: A host nobody can reach: only the proxy gets the request.
FAR = {"openai": "http://api.far-away.test/v1", "anthropic": "http://api.far-away.test",
       "google": "http://api.far-away.test"}
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture(params=["openai", "anthropic", "google"])
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _call(mode: str, config: dict[str, Any], model: str, stream: bool = False) -> str:
    def text(client: Any) -> Any:
        return client.chat.completions.create(model=model, messages=USER, stream=stream)

    if mode == "sync":
        with ai.Client(config) as client:
            reply = text(client)
            if stream:
                return "".join(c.choices[0].delta.content or "" for c in reply if c.choices)
            return str(reply.choices[0].message.content)

    async def run() -> str:
        async with ai.AsyncClient(config) as client:
            reply = await text(client)
            if stream:
                return "".join([c.choices[0].delta.content or "" async for c in reply
                                if c.choices])
            return str(reply.choices[0].message.content)

    return asyncio.run(run())


def _config(family: str, base_url: str) -> dict[str, Any]:
    return {family: provider_config(family, {"api_key": "k-proxy-test", "base_url": base_url,
                                             "max_retries": 0})}


@pytest.mark.parametrize("stream", [False, True])
def test_requests_go_through_the_proxy_of_the_environment(
        family: str, mode: str, stream: bool, server: FaultServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    server.reset()
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.setenv("http_proxy", server.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert _call(mode, _config(family, FAR[family]), MODELS[family], stream) == "hello world"
    assert len(server.requests) == 1
    assert server.requests[0].path.startswith("http://api.far-away.test/")  # sent to a proxy


def test_no_proxy_hosts_are_reached_directly(family: str, mode: str, server: FaultServer,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    server.reset()
    with FaultServer() as dead:
        proxy = dead.url
    monkeypatch.setenv("HTTP_PROXY", proxy)  # a closed port: a proxied request would fail
    monkeypatch.setenv("http_proxy", proxy)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    base_url = server.url + "/v1" if family == "openai" else server.url
    assert _call(mode, _config(family, base_url), MODELS[family]) == "hello world"
    assert len(server.requests) == 1 and server.requests[0].path.startswith("/")


class _CountingExecutor(ThreadPoolExecutor):
    """The event loop's default executor, counting what is sent to a thread."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.submitted = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.submitted += 1
        return super().submit(*args, **kwargs)


def test_native_async_reads_the_environment_once_per_url(
        family: str, server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The proxy environment and .netrc are read in a thread on the first request to a URL,
    not on every request (aiohttp's ``trust_env`` sends two reads to threads per request:
    most of a request's cost at a large fan-out)."""
    if not native():
        pytest.skip("the native transport's async path")
    server.reset()
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    monkeypatch.delenv("http_proxy", raising=False)
    base_url = server.url + "/v1" if family == "openai" else server.url

    async def run() -> int:
        executor = _CountingExecutor()
        asyncio.get_running_loop().set_default_executor(executor)
        async with ai.AsyncClient(_config(family, base_url)) as client:
            for _ in range(6):
                reply = await client.chat.completions.create(model=MODELS[family],
                                                             messages=USER)
                assert reply.choices[0].message.content == "hello world"
        return executor.submitted

    assert asyncio.run(run()) <= 1
    assert len(server.requests) == 6
