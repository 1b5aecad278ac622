"""Deepgram's errors -> our error tree: httpx2's transport errors, and error replies
(``{"err_code", "err_msg", "request_id"}`` or ``{"category", "message", "request_id"}``).
Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.errors import APIError, error_for_status, parse_retry_after
from ...core.reading import loads_json
from .._common import transport_error

__all__ = ["error_from_response", "map_error"]


def map_error(exc: BaseException, provider: str,
              secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """An httpx2 exception -> ``APIConnectionError`` / ``APITimeoutError`` naming the host;
    anything else unchanged."""
    return transport_error(exc, provider, tuple(secrets)) or exc


def error_from_response(response: Any, provider: str,
                        secrets: Iterable[Optional[str]] = ()) -> APIError:
    """An error reply (status >= 400) -> the typed error for its status, with Deepgram's
    message, code and request id."""
    try:
        body = loads_json(response.content)
    except ValueError:
        body = None
    if not isinstance(body, Mapping):
        body = {"message": response.text[:500]} if response.content else {}
    message = body.get("err_msg") or body.get("message") or body.get("reason") or \
        f"HTTP {response.status_code}"
    code = body.get("err_code") or body.get("category")
    request_id = body.get("request_id") or response.headers.get("dg-request-id")
    return error_for_status(
        response.status_code, f"{code}: {message}" if code else str(message),
        provider=provider, request_id=str(request_id) if request_id else None,
        retry_after=parse_retry_after(response.headers), secrets=tuple(secrets),
        code=code if isinstance(code, str) else None, body=dict(body), response=response)
