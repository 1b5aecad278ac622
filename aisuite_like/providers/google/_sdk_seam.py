"""Everything of the google family that touches google-genai's private internals (listed in
docs/status.md and docs/providers/google.md, "How it is built"), behind small functions.

The transport sends its own request bodies through the SDK's API client (``Client._api_client``,
a private attribute): ``_build_request`` makes the HTTP request (base URL, auth incl. Vertex
credentials, headers), ``_request`` / ``_async_request`` send it and raise the SDK's errors;
the batches feature uses its ``request`` / ``async_request``. ``_transformers.t_model`` (a
private module) names a model's resource; ``_api_client.AsyncHttpx2Client`` is the SDK's
per-event-loop httpx2 client. google-genai is imported only when a function here runs.

``SDK_VERSIONS`` names the releases this was written for (pyproject's ``google`` extra); the
test suite checks the installed one against it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "SDK_VERSIONS",
    "ApiClient",
    "async_http_client",
    "model_resource",
    "set_aiohttp_middlewares",
    "loop_client",
    "sync_http_client",
]

SDK_VERSIONS = {"google-genai": ">=3,<4"}


class ApiClient:
    """A google-genai ``Client`` and the methods of its private API client the calls use,
    looked up once per client (not per call). Holding it holds the ``Client``: a google-genai
    Client closes its HTTP client when garbage-collected.

    ``build_request(method, path, body, http_options)`` -> the SDK's ``HttpRequest``;
    ``send(http_request, http_options, stream=False)`` / ``asend(...)`` send one (the SDK's
    errors raised); ``request(method, path, body, http_options)`` /
    ``async_request(...)`` build and send one and return the SDK's ``HttpResponse``."""

    __slots__ = ("client", "api", "build_request", "send", "asend", "request", "async_request")

    def __init__(self, client: Any) -> None:
        api = client._api_client
        self.client = client
        self.api = api
        self.build_request = api._build_request
        self.send = api._request
        self.asend = api._async_request
        self.request = api.request
        self.async_request = api.async_request


def model_resource(api: ApiClient, model: str) -> str:
    """The resource path of ``model`` (``models/...``, or the Vertex AI publisher path), as
    google-genai names it; a ``ValueError`` for a name it rejects."""
    from google.genai import _transformers

    return str(_transformers.t_model(api.api, model))


def async_http_client(**kwargs: Any) -> Any:
    """google-genai's own per-event-loop httpx2 async client (an ``httpx2.AsyncClient`` on a
    google-genai without it), made with ``kwargs``."""
    from google.genai import _api_client

    cls = getattr(_api_client, "AsyncHttpx2Client", None)
    if cls is None:
        import httpx2

        cls = httpx2.AsyncClient
    return cls(**kwargs)


def set_aiohttp_middlewares(api: ApiClient, middlewares: tuple[Any, ...]) -> None:
    """Have every aiohttp request of the client run ``middlewares`` (google-genai passes its
    ``_async_client_session_request_args`` to each aiohttp request; aiohttp >= 3.12 runs the
    middlewares for every redirect). Nothing happens on a google-genai without them."""
    args = getattr(api.api, "_async_client_session_request_args", None)
    if isinstance(args, dict):
        args["middlewares"] = middlewares


def sync_http_client(api: ApiClient) -> Any:
    """The ``httpx2.Client`` the client sends sync requests with (a user's or the SDK's own),
    or None."""
    return getattr(api.api, "_httpx_client", None)


def loop_client(outer: Any) -> Any:
    """The inner httpx2 client google-genai's per-event-loop async client (``outer``, made
    by ``async_http_client``) uses on the running loop, or None (a google-genai without
    per-loop clients, or none made yet)."""
    import asyncio

    clients = getattr(outer, "_loop_clients", None)
    return clients.get(asyncio.get_running_loop()) if isinstance(clients, dict) else None
