"""Gemini's errors -> our error tree (docs/providers/google.md, "Errors"): google-genai's
exceptions (duck-typed on its ``APIError``, so no SDK import is needed), httpx2's transport
errors, and the ``{"error": {...}}`` bodies Gemini sends inside a 200 reply or stream
(``error_event``, used by the translator and the stream translator). Pure: no I/O."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.errors import (
    AisuiteLikeError,
    APIError,
    APIResponseValidationError,
    error_for_status,
    parse_retry_after,
)
from .._common import bad_stream_json, too_deep_for_sdk, transport_error

__all__ = ["map_sdk_error"]

#: The family's provider key (the default ``provider`` of the translators and error mappers).
_NAME = "google"

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)s\s*$")


def _retry_delay(details: Any) -> Optional[float]:
    """``google.rpc.RetryInfo.retryDelay`` ("37s") from an error body, when present."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    for item in (error or {}).get("details") or ():
        if isinstance(item, Mapping) and "retryDelay" in item:
            match = _DURATION.match(str(item["retryDelay"]))
            if match:  # "0s" is no demand: the backoff applies
                return float(match.group(1)) or None
    return None


def _request_id(headers: Any) -> Optional[str]:
    if headers is None:
        return None
    for name in ("x-request-id", "x-goog-request-id", "request-id"):
        value = headers.get(name)
        if value:
            return str(value)
    return None


def error_event(error: Any, provider: str, secrets: Iterable[Optional[str]] = (), *,
                 where: str = "error event in stream") -> APIError:
    """An ``{"error": {...}}`` event inside a 200 stream (or a 200 reply) -> typed error."""
    body = error if isinstance(error, Mapping) else {"message": str(error)}
    code = body.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    message = f"{where}: {body.get('status') or ''} {body.get('message') or ''}"
    return error_for_status(status, message.strip(), provider=provider,
                             retry_after=_retry_delay(body), secrets=secrets, body=dict(body))


def status_error(code: Any, status: Any, text: Any, details: Any, headers: Any,
                 provider: str, secrets: Iterable[Optional[str]] = (), *,
                 response: Any = None) -> APIError:
    """A non-200 reply -> our typed error, from what google-genai's ``APIError`` holds (the
    status code, the body's ``status`` and ``message``, the body as ``details``). Both
    transports end here."""
    retry_after = parse_retry_after(headers) if headers is not None else None
    if retry_after is None:
        retry_after = _retry_delay(details)
    return error_for_status(
        code, f"{status}: {text}" if status else str(text), provider=provider,
        request_id=_request_id(headers), retry_after=retry_after, secrets=tuple(secrets),
        body=details, response=response)


def reply_error(code: int, headers: Any, content: bytes, provider: str = _NAME,
                secrets: Iterable[Optional[str]] = (), response: Any = None,
                reason: str = "") -> APIError:
    """A non-200 reply read by the native transport: its body read as google-genai reads it
    (``APIError.raise_for_response``: the JSON, else ``{"message": text, "status":
    reason}``; ``message`` / ``status`` from it or its ``error`` object), then
    :func:`status_error`, as on the SDK path. JSON nested too deeply to read is an
    ``APIResponseValidationError``, as there."""
    text = content.decode("utf-8", "replace")
    try:
        details: Any = json.loads(text)
    except RecursionError:
        raise APIResponseValidationError("the reply is JSON nested too deeply to read",
                                         provider=provider) from None
    except ValueError:
        details = {"message": text, "status": reason}
    if isinstance(details, list) and len(details) == 1:
        details = details[0]

    def field(name: str) -> Any:
        try:
            return details.get(name, details.get("error", {}).get(name, None))
        except AttributeError:
            return None

    message, status = field("message"), field("status")
    return status_error(code, status, message or f"{code} {status}. {details}", details,
                        headers, provider, secrets, response=response)


def map_sdk_error(exc: BaseException, provider: str = _NAME,
                  secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """A google-genai / httpx2 exception -> our typed error (the caller raises it ``from
    exc``). Anything else is returned unchanged. Duck-typed on the SDK's ``APIError``
    (``code``, ``status``, ``message``, ``details``, ``response``) so no SDK import is needed."""
    if isinstance(exc, AisuiteLikeError):
        return exc
    too_deep = too_deep_for_sdk(exc, provider)
    if too_deep is not None:
        return too_deep
    secrets = tuple(secrets)
    genai_errors = sys.modules.get("google.genai.errors")
    if genai_errors is not None and isinstance(exc, genai_errors.APIError):
        response = getattr(exc, "response", None)
        return status_error(getattr(exc, "code", None), getattr(exc, "status", None),
                            getattr(exc, "message", None) or str(exc),
                            getattr(exc, "details", None), getattr(response, "headers", None),
                            provider, secrets, response=response)
    if genai_errors is not None and isinstance(exc, genai_errors.UnknownApiResponseError):
        # A stream event that is not JSON (its message quotes the event: never shown).
        return bad_stream_json(exc.__cause__, provider)
    transport = transport_error(exc, provider, secrets)
    if transport is not None:
        return transport
    if isinstance(exc, json.JSONDecodeError):
        return APIResponseValidationError(f"the body is not JSON ({exc.msg})", provider=provider)
    return exc
