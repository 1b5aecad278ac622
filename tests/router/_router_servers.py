"""Loopback deployments for the router's tests: each deployment is a ``FaultServer`` of its
own (its own queue of actions, its own count of requests) whose default replies name the
model the request asked for, so ``response.model`` says which deployment served."""

from __future__ import annotations

import json
from typing import Any

from support.fault_server import FaultServer, Reply, Stream, stream_events, success_body

KEYS = {"openai": "opn-Router-Secret-5e1d9a7c3b", "anthropic": "ant-Router-Secret-8b3f2c6a1e",
        "google": "goo-Router-Secret-2a7c9e4f6d"}
PREFIX = {"openai": "openai", "anthropic": "anthropic", "google": "google"}
USER = [{"role": "user", "content": "Hi"}]


def _model_of(request: Any) -> str:
    if request.format == "gemini":
        return str(request.path.split("/models/", 1)[1].split(":", 1)[0])
    body = request.body if isinstance(request.body, dict) else {}
    return str(body.get("model", "m"))


class Deployment(FaultServer):
    """A FaultServer whose default replies (and streams) carry the requested model."""

    async def _perform(self, action: Any, request: Any, reader: Any, writer: Any) -> bool:
        if isinstance(action, Reply) and action.body is None and action.status < 400:
            model = _model_of(request)
            if request.stream:
                action = Stream(events=stream_events(request.format, action.text, model))
            else:
                action = Reply(action.status, action.headers,
                               success_body(request.format, action.text, model))
        return await super()._perform(action, request, reader, writer)

    def models(self) -> list[str]:
        return [_model_of(r) for r in self.requests]


def deployment(family: str, server: FaultServer, model: str, **extra: Any) -> dict[str, Any]:
    """A router deployment dict that sends to ``server`` with its own key and base URL."""
    base_url = server.url + "/v1" if family == "openai" else server.url
    return {"model": f"{PREFIX[family]}:{model}", "base_url": base_url,
            "api_key": KEYS[family], **extra}


def body_json(server: FaultServer, i: int = -1) -> Any:
    body = server.requests[i].body
    return body if isinstance(body, dict) else json.loads(body)
