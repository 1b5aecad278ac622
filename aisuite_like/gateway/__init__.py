"""The gateway (docs/gateway.md): an ASGI application over an ``ai.AsyncClient`` that serves
the OpenAI and Anthropic APIs to any client, with virtual keys, budgets, limits and a record
of every request. ``aisuite-like serve --config gateway.toml`` runs it on uvicorn.

Importing this package imports no web framework: Starlette is imported by ``create_app``.
"""

from __future__ import annotations

from typing import Any

from .config import GatewayConfig, load_config

__all__ = ["create_app", "GatewayConfig", "load_config", "app_from_environment"]


def create_app(config: Any, *, tracer_provider: Any = None) -> Any:
    """The gateway as an ASGI application: ``config`` is a ``GatewayConfig``, a mapping of
    gateway.toml's tables, or the path of that file (see docs/gateway.md)."""
    from .app import create_app as _create_app

    return _create_app(config, tracer_provider=tracer_provider)


def app_from_environment() -> Any:
    """The app of the config whose path ``aisuite-like serve --workers N`` put in the
    environment (each uvicorn worker process calls it)."""
    import dataclasses
    import json
    import os

    from .config import CONFIG_VARIABLE

    config = load_config(os.environ[CONFIG_VARIABLE])
    overrides = json.loads(os.environ.get(CONFIG_VARIABLE + "_OVERRIDES") or "{}")
    if overrides:
        config = dataclasses.replace(config, **overrides)
    return create_app(config)
