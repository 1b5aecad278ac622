"""OpenAI errors -> our error tree (docs/providers/openai.md): the ``openai`` SDK's exceptions
(:func:`map_sdk_error`, which imports the SDK only once it is in use) and the error objects a
service sends inside a 200 reply or stream (:func:`error_from_body`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    error_for_status,
    parse_retry_after,
    redacted,
    scrub_exception,
)
from .._common import bad_stream_json, host_of, too_deep_for_sdk, transport_error

# Error ``type`` values of OpenAI and the compatible services -> the HTTP status they mean.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
    "not_found_error": 404, "rate_limit_error": 429, "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
}


def error_from_body(error: Any, provider: str, secrets: Iterable[Optional[str]] = (), *,
                    where: str = "error event in stream") -> APIError:
    """An ``{"error": {...}}`` event inside a 200 stream (or a 200 reply) -> typed error: a
    status-like code keeps its meaning, a known error type its status (an invalid request
    stays a BadRequestError), anything else is a server-side failure (InternalServerError)."""
    body = error if isinstance(error, Mapping) else {"message": str(error)}
    message = str(body.get("message") or "the provider reported an error inside the stream")
    code = body.get("code")
    status: Optional[int] = code if isinstance(code, int) and 400 <= code < 600 else None
    if status is None:
        kind = body.get("type")
        status = _ERROR_TYPE_STATUS.get(kind, 500) if isinstance(kind, str) else 500
    detail = (f"{message} (code: {code})" if code is not None and not isinstance(code, int)
              else message)
    return error_for_status(status, f"{where}: {detail}", provider=provider,
                             secrets=secrets, body=dict(body),
                             code=code if isinstance(code, str) else None)



def status_error(status: int, message: str, body: Any, headers: Any, provider: str,
                 secrets: tuple[Optional[str], ...] = (), *, request_id: Optional[str] = None,
                 code: Optional[str] = None, response: Any = None) -> APIError:
    """A non-2xx reply -> our typed error: ``message`` and ``body`` (the error object, or
    the body's text) as the openai SDK reads them. Both transports end here."""
    return error_for_status(
        status, message, provider=provider,
        request_id=request_id or headers.get("x-request-id"),
        retry_after=parse_retry_after(headers), secrets=secrets, code=code, body=body,
        response=response)


def reply_error(status: int, headers: Any, content: bytes, provider: str,
                secrets: tuple[Optional[str], ...] = (), response: Any = None) -> APIError:
    """A non-2xx reply read by the native transport: its body read as the openai SDK reads
    it (``_make_status_error_from_response``: the message is ``Error code: <status>`` and
    the error object's ``message``; the error object, or the text, is the body), then
    :func:`status_error`, as on the SDK path."""
    text = content.decode("utf-8", "replace").strip()
    message = f"Error code: {status}"
    body: Any = text
    try:
        body = json.loads(text)
    except Exception:  # not JSON (or nested too deep): the text, as the SDK keeps it
        pass
    else:
        error = body.get("error", body) if isinstance(body, Mapping) else None
        detail = error.get("message") if isinstance(error, Mapping) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    data = body.get("error", body) if isinstance(body, Mapping) else body
    code = data.get("code") if isinstance(data, dict) else None
    return status_error(status, message, data, headers, provider, secrets,
                        code=str(code) if code is not None else None, response=response)


def sdk_stream_error(error: Any, request: Any, secrets: Iterable[Optional[str]] = ()
                     ) -> BaseException:
    """The ``openai.APIError`` the SDK's own ``Stream`` raises for an ``{"error": ...}`` event
    (its message and body as the SDK makes them, keys scrubbed): the ``__cause__`` of the
    typed error on the SDK transport, as for every other SDK failure."""
    import openai

    message = error.get("message") if isinstance(error, Mapping) else None
    if not message or not isinstance(message, str):
        message = "An error occurred during streaming"
    exc = openai.APIError(message=message, request=request, body=error)
    scrub_exception(exc, secrets)
    return exc


def map_sdk_error(exc: BaseException, provider: str,
                  secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """An ``openai`` SDK exception -> our typed error (the caller raises it ``from exc``).
    Anything that is not an SDK API error is returned unchanged."""
    import openai  # only called once the SDK is in use

    secrets = tuple(secrets)
    if isinstance(exc, openai.APIStatusError):
        response = exc.response
        return status_error(exc.status_code, str(exc.message), exc.body, response.headers,
                            provider, secrets, request_id=exc.request_id,
                            code=exc.code if isinstance(exc.code, str) else None,
                            response=response)
    if isinstance(exc, openai.APITimeoutError):
        host = host_of(exc)
        return APITimeoutError(
            redacted(f"request to {provider}{f' at {host}' if host else ''} timed out", secrets),
            provider=provider)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        host = host_of(exc)
        return APIConnectionError(
            redacted(f"connection to {provider}{f' at {host}' if host else ''} failed{detail}",
                    secrets), provider=provider)
    if isinstance(exc, openai.APIError):  # an error event inside a 200 stream
        return error_from_body(exc.body if exc.body is not None else {"message": exc.message},
                             provider, secrets)
    if isinstance(exc, json.JSONDecodeError):  # a complete stream event that is not JSON
        return bad_stream_json(exc, provider)
    # httpx2 / aiohttp errors raised while a stream's body is read (the SDK wraps only those
    # of sending); a RecursionError an SDK raised decoding a reply it parses itself
    return transport_error(exc, provider, secrets) or too_deep_for_sdk(exc, provider) or exc

