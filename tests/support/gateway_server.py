"""The gateway on a real uvicorn server on 127.0.0.1 and a free port, in a thread of the test
process (so a test can read ``server.gateway``, the app's state), for the vendor SDKs to call.

    with GatewayServer(config) as server:        # config: what create_app takes
        server.url                               # http://127.0.0.1:<port>
        server.admin("POST", "/admin/keys", json={...})   # with the admin key
        server.new_key("team-a", models=["fast"])          # a virtual key's text

``stop()`` asks uvicorn to shut down as SIGTERM does (in-flight requests finish, then the
lifespan's shutdown writes the pending records).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any, Optional

import httpx2

from aisuite_like.gateway import create_app
from support.timing import scaled

__all__ = ["GatewayServer", "ADMIN_KEY", "base_config"]

ADMIN_KEY = "admin-key-for-the-gateway-tests-0123456789"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_config(models: dict[str, str], **tables: Any) -> dict[str, Any]:
    """A config with an in-memory store and the admin key, plus ``tables``."""
    config: dict[str, Any] = {"models": models, "auth": {"admin_key": ADMIN_KEY},
                              "storage": {"url": "sqlite:///:memory:"}}
    for name, value in tables.items():
        config[name] = {**config.get(name, {}), **value}
    return config


class GatewayServer:
    def __init__(self, config: Any, *, tracer_provider: Any = None,
                 shutdown_timeout: Optional[float] = None) -> None:
        import uvicorn

        self.app = create_app(config, tracer_provider=tracer_provider)
        self.gateway = self.app.state.gateway
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning",
            access_log=False, lifespan="on",
            timeout_graceful_shutdown=int(shutdown_timeout or scaled(10)))
        self.server = uvicorn.Server(self._config)
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"gateway-{self.port}")
        self._error: Optional[BaseException] = None

    def _run(self) -> None:
        try:
            asyncio.run(self.server.serve())
        except BaseException as exc:  # shown by __enter__ / stop
            self._error = exc

    def __enter__(self) -> "GatewayServer":
        self._thread.start()
        deadline = time.monotonic() + scaled(20)
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the gateway did not start: {self._error!r}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(scaled(30))

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def admin(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        headers = {"authorization": f"Bearer {ADMIN_KEY}", **kwargs.pop("headers", {})}
        return httpx2.request(method, self.url + path, headers=headers,
                             timeout=scaled(20), **kwargs)

    def new_key(self, name: str, **settings: Any) -> str:
        reply = self.admin("POST", "/admin/keys", json={"name": name, **settings})
        assert reply.status_code == 201, reply.text
        return str(reply.json()["key"])

    def records(self, limit: int = 100) -> list[dict[str, Any]]:
        reply = self.admin("GET", f"/admin/requests?limit={limit}")
        assert reply.status_code == 200, reply.text
        return list(reversed(reply.json()["data"]))
