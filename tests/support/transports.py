"""The two transports the provider suites run on (docs/transports.md): the vendor SDK
("sdk", the default) and our own HTTP ("native", ``provider_configs[key]["transport"]``).

A suite adds the autouse fixture :func:`each_transport` (``from _transports import
each_transport``): every test of the module runs once per transport (or asks for the
``transport`` fixture: those tests only), and the suite's config helpers pass their provider
configs through :func:`with_transport`. A test that exercises an
SDK-only setting (an ``http_client`` of your own, ``async_transport``, Vertex AI) is marked
``@pytest.mark.sdk_only`` and runs on the SDK transport only.

Native async requests go out on aiohttp by default, which HTTP mocks of httpcore2 (respx,
the ``httpx2_mock`` fixture) do not see: :func:`aiohttp_via_httpcore2` hands each aiohttp
request of a test to httpcore2 (through an ``httpx2.AsyncClient``), so the same mock answers
it and records it. The loopback servers need no such help: aiohttp talks to them for real.

``each_transport`` also runs every test on ``"native-httpx2"``: the native transport with
``async_transport="httpx2"``, whose async requests go out on httpcore2 itself (no shim: the
mocks see them as a user's respx or pytest-httpx2 mocks do).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

TRANSPORTS = ("sdk", "native")
#: What ``each_transport`` runs on: the two, and the native one with async calls on httpx2.
EVERY_TRANSPORT = (*TRANSPORTS, "native-httpx2")
#: The families that have a native transport (the OpenAI-compatible services included).
NATIVE_FAMILIES = frozenset({
    "openai", "azure", "groq", "mistral", "deepseek", "xai", "together", "fireworks",
    "openrouter", "cerebras", "perplexity", "huggingface", "ollama", "lmstudio", "vllm",
    "nebius", "sambanova", "inception", "cohere", "anthropic", "google", "gemini"})

_current = {"transport": "sdk"}


def current() -> str:
    return _current["transport"]


def native() -> bool:
    return _current["transport"] in ("native", "native-httpx2")


def with_transport(configs: dict[str, Any]) -> dict[str, Any]:
    """``provider_configs`` for the current transport: each family that has a native
    transport gets ``transport="native"`` when the test runs on it (and
    ``async_transport="httpx2"`` on "native-httpx2"; a new dict)."""
    if not native():
        return configs
    setting = {"transport": "native"}
    if _current["transport"] == "native-httpx2":
        setting["async_transport"] = "httpx2"
    return {key: ({**cfg, **setting}
                  if key in NATIVE_FAMILIES and isinstance(cfg, dict) else cfg)
            for key, cfg in configs.items()}


def provider_config(key: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """One provider's config for the current transport."""
    return with_transport({key: cfg})[key]


def _run_on(request: pytest.FixtureRequest) -> Iterator[str]:
    transport = str(request.param)
    if transport != "sdk" and request.node.get_closest_marker("sdk_only") is not None:
        pytest.skip("an SDK-transport setting: the native transport refuses it")
    _current["transport"] = transport
    try:
        if transport == "native" and "httpx2_mock" in request.fixturenames:
            with aiohttp_via_httpcore2():
                yield transport
        else:
            yield transport
    finally:
        _current["transport"] = "sdk"


@pytest.fixture(params=EVERY_TRANSPORT, autouse=True)
def each_transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test of a module that imports this fixture, once per transport."""
    yield from _run_on(request)


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """The tests that ask for it (or ``usefixtures("transport")``), once per transport."""
    yield from _run_on(request)


# --- aiohttp requests answered through httpcore2 (where an httpcore2 mock is in force) -------


class _Content:
    def __init__(self, response: Any) -> None:
        self._response = response

    async def iter_any(self) -> AsyncIterator[bytes]:
        try:
            async for data in self._response.aiter_bytes():
                yield data
        except Exception as exc:
            raise _aiohttp_error(exc) from exc


class _Response:
    """What the native transport reads of an ``aiohttp.ClientResponse``."""

    def __init__(self, response: Any, client: Any) -> None:
        from multidict import CIMultiDict, CIMultiDictProxy

        self._response = response
        self._client = client
        self.status = response.status_code
        self.reason = response.reason_phrase
        self.url = response.url
        self.headers = CIMultiDictProxy(CIMultiDict(response.headers.multi_items()))
        self.content = _Content(response)
        # aiohttp's: the Content-Length header as a number (None without one)
        length = response.headers.get("content-length")
        self.content_length = int(length) if length is not None else None

    async def read(self) -> bytes:
        try:
            return bytes(await self._response.aread())
        except Exception as exc:
            raise _aiohttp_error(exc) from exc

    def release(self) -> None:
        self._close()

    def close(self) -> None:
        self._close()

    def _close(self) -> None:
        async def close() -> None:
            await self._response.aclose()
            await self._client.aclose()

        try:
            asyncio.get_running_loop().create_task(close())
        except RuntimeError:
            pass


def _aiohttp_error(exc: BaseException) -> BaseException:
    """An httpx2 error a mock raised -> the aiohttp error aiohttp would raise."""
    import aiohttp
    import httpx2

    if isinstance(exc, httpx2.TimeoutException):
        return aiohttp.ServerTimeoutError(str(exc))
    if isinstance(exc, httpx2.TransportError):
        return aiohttp.ClientConnectionError(str(exc))
    return exc


@contextmanager
def aiohttp_via_httpcore2() -> Iterator[None]:
    """While in force, ``aiohttp.ClientSession.request`` sends through an
    ``httpx2.AsyncClient`` (httpcore2), so an httpcore2 mock answers and records it; without
    a mock the request goes out for real, as it would on aiohttp."""
    import aiohttp
    import httpx2

    original = aiohttp.ClientSession.request

    async def request(self: Any, method: str, url: Any, *, headers: Any = None,
                      data: Any = None, allow_redirects: bool = True, **_: Any) -> Any:
        client = httpx2.AsyncClient(follow_redirects=allow_redirects)
        try:
            response = await client.send(client.build_request(
                method, str(url), headers=dict(headers or {}), content=data), stream=True)
        except Exception as exc:
            await client.aclose()
            raise _aiohttp_error(exc) from exc
        return _Response(response, client)

    aiohttp.ClientSession.request = request  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        aiohttp.ClientSession.request = original  # type: ignore[method-assign]
