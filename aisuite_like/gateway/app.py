"""The gateway's ASGI application (Starlette): ``create_app`` (docs/gateway.md)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from .config import load_config
from .errors import GatewayError, openai_body
from .routes import hot, routes
from .service import Deadline, Gateway, JSONReply

__all__ = ["create_app", "Gateway"]


class _Limits:
    """ASGI middleware: the body-size limit (``Content-Length`` over it refused unread, a
    body that grows over it cut off with 413) and the time limit of a whole request (reading
    its body and writing its reply included: a stalled client cannot hold a worker)."""

    state: Any

    def __init__(self, app: Any, max_body: int, timeout: float) -> None:
        self.app = app
        self.max_body = max_body
        self.timeout = timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        def over() -> GatewayError:
            return GatewayError(
                413, f"the request body is over the gateway's limit of {self.max_body} bytes",
                code="request_too_large", headers={"x-should-retry": "false"})

        async def too_large() -> None:
            await JSONReply(openai_body(over()), 413, {"x-should-retry": "false",
                                                       "connection": "close"}
                            )(scope, receive, send)

        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_body:
                    await too_large()
                    return
        seen = 0

        async def limited_receive() -> Any:
            # a body sent without Content-Length (chunked) that grows over the limit: the
            # endpoint reading it gets the 413 as its error, in its API's shape
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise over()
            return message

        try:
            with Deadline(self.timeout + 5.0):
                await self.app(scope, limited_receive, tracked_send)
        except GatewayError as error:
            if error.status == 413 and not started:
                await too_large()
            elif not started:
                raise
        except asyncio.TimeoutError:
            if not started:
                await JSONReply(openai_body(GatewayError(
                    504, "the request took longer than the gateway's limit", "timeout",
                    "request_timeout")), 504)(scope, receive, send)


class _Headers:
    """A request's headers as the hot endpoints read them: ``get`` of a lower-case name."""

    __slots__ = ("_raw",)

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def get(self, name: str, default: Any = None) -> Any:
        wanted = name.encode("latin-1")
        for key, value in self._raw:
            if key == wanted:
                return value.decode("latin-1")
        return default


class _HotRequest:
    """What a hot endpoint reads of its request, its headers and its body, without
    Starlette's ``Request`` (its headers, state and streaming objects made per request)."""

    __slots__ = ("headers", "_receive")

    def __init__(self, scope: Any, receive: Any) -> None:
        self.headers = _Headers(scope["headers"])
        self._receive = receive

    async def body(self) -> bytes:
        from starlette.requests import ClientDisconnect

        chunks = []
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()  # as Starlette's Request.body()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)


class _Hot:
    """ASGI: the hot endpoints (``routes.hot``: chat completions, messages) called directly,
    the rest through the Starlette app. A hot endpoint's errors are its replies already
    (``Gateway.serve``), so Starlette's error middleware would add nothing there."""

    def __init__(self, app: Any, endpoints: dict[tuple[str, str], Any]) -> None:
        self.app = app
        self.endpoints = endpoints

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            run = self.endpoints.get((scope["method"], scope["path"]))
            if run is not None:
                response = await run(_HotRequest(scope, receive))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(config: Any, *, tracer_provider: Any = None) -> Any:
    """The gateway as an ASGI application (Starlette), for uvicorn or any ASGI server.
    ``config``: a ``GatewayConfig``, a mapping of gateway.toml's tables, or its path.
    ``app.state.gateway`` is the ``Gateway`` behind it."""
    try:
        from starlette.applications import Starlette
    except ImportError:
        from ..core.errors import MissingDependencyError

        raise MissingDependencyError(
            "the gateway needs Starlette and uvicorn: pip install 'aisuite-like[gateway]'"
        ) from None
    gw = Gateway(load_config(config), tracer_provider=tracer_provider)

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        gw.recorder.start()
        try:
            yield
        finally:
            gw.draining = True
            await gw.recorder.stop()
            await gw.client.aclose()

    app = Starlette(routes=routes(gw), lifespan=lifespan)
    app.state.gateway = gw
    wrapped = _Limits(_Hot(app, hot(gw)), gw.config.max_body_bytes, gw.config.request_timeout)
    wrapped.state = app.state
    return wrapped
