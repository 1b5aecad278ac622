"""Anthropic errors -> our error tree (docs/providers/anthropic.md): the ``anthropic`` SDK's
exceptions (:func:`map_sdk_error`, which imports the SDK only once it is in use) and the error
objects of the Messages API, in a stream or as a reply (:func:`error_from_stream_event`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from ...core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    UnsupportedParameterError,
    error_for_status,
    parse_retry_after,
    redacted,
    scrub_exception,
)
from .._common import host_of, too_deep_for_sdk

# Error event type -> HTTP status it stands for (Anthropic's documented error types).
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def error_from_stream_event(event: dict[str, Any], *, provider: str = "anthropic",
                            request_id: Optional[str] = None,
                            secrets: Iterable[Optional[str]] = (),
                            where: str = "stream") -> APIError:
    """An ``error`` event inside a 200 stream (``where="reply"``: an error object as the
    body of a 200 reply) -> the typed error it stands for (overloaded / api errors are
    ``InternalServerError``)."""
    error = event.get("error")
    if not isinstance(error, dict):
        error = {}
    kind = error.get("type")
    if not isinstance(kind, str):
        kind = "api_error"
    detail = error.get("message")
    if not isinstance(detail, str):
        detail = None
    message = f"{provider} {where} error ({kind}): {detail or 'no message'}"
    status = _ERROR_TYPE_STATUS.get(kind, 500)
    if kind == "timeout_error":
        return APITimeoutError(redacted(message, secrets), provider=provider, status_code=status,
                               request_id=request_id)
    return _refine(error_for_status(status, message, provider=provider,
                                     request_id=request_id or event.get("request_id"),
                                     secrets=secrets, body=event))


def _refine(error: APIError) -> APIError:
    """Anthropic also says "input length and `max_tokens` exceed context limit" for a prompt
    that leaves no room to answer: a context-window error too."""
    if (type(error) is BadRequestError and "exceed context limit" in error.message):
        return ContextWindowExceededError(error.message, provider=error.provider,
                                          status_code=error.status_code,
                                          request_id=error.request_id, body=error.body,
                                          response=getattr(error, "response", None))
    return error


def status_error(status: int, sdk_message: str, raw_body: Any, headers: Any, provider: str,
                 secrets: tuple[Optional[str], ...] = (), *,
                 request_id: Optional[str] = None, response: Any = None) -> APIError:
    """A non-2xx reply -> our typed error, from the body (the parsed JSON, or the text) and
    the message the anthropic SDK made of it. Both transports end here."""
    body = raw_body if isinstance(raw_body, dict) else {}
    error = body.get("error")
    if not isinstance(error, dict):
        error = {}
    kind = error.get("type")
    detail = error.get("message") or sdk_message
    message = f"{provider} error {status}{f' ({kind})' if kind else ''}: {detail}"
    if kind == "overloaded_error" and status < 500:
        status = 529
    return _refine(error_for_status(
        status, message, provider=provider,
        request_id=request_id or headers.get("request-id") or body.get("request_id"),
        retry_after=parse_retry_after(headers), secrets=secrets, body=raw_body,
        response=response))


def reply_error(status: int, headers: Any, content: bytes, provider: str,
                secrets: tuple[Optional[str], ...] = (), response: Any = None) -> APIError:
    """A non-2xx reply read by the native transport: its body read as the anthropic SDK reads
    it (``_make_status_error_from_response``), then :func:`status_error`, as on the SDK
    path."""
    import json

    text = content.decode("utf-8", "replace").strip()
    body: Any = text
    try:
        body = json.loads(text)
        message = f"Error code: {status} - {body}"
    except Exception:  # not JSON (or nested too deep): the text, as the SDK keeps it
        message = text or f"Error code: {status}"
    return status_error(status, message, body, headers, provider, secrets, response=response)


def sdk_stream_error(event: Any, response: Any,
                     secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """The ``anthropic.APIStatusError`` the SDK's own ``Stream`` raises for an ``error`` event
    (its message as the SDK makes it, the event as its body, keys scrubbed): the ``__cause__``
    of the typed error on the SDK transport, as for every other SDK failure
    (docs/migration.md)."""
    import anthropic as sdk

    exc = sdk.APIStatusError(f"{event}", response=response, body=event)
    scrub_exception(exc, secrets)
    return exc


def map_sdk_error(exc: BaseException, provider: str,
                  secrets: Iterable[Optional[str]] = ()) -> AisuiteLikeError:
    """An ``anthropic`` SDK / httpx2 transport / SDK argument exception -> our typed error (the
    caller raises it ``from exc``); anything else becomes an ``APIError``."""
    import anthropic as sdk  # only called once the SDK is in use
    import httpx2

    secrets = tuple(secrets)
    too_deep = too_deep_for_sdk(exc, provider)
    if too_deep is not None:
        return too_deep
    if isinstance(exc, sdk.APIStatusError):
        return status_error(exc.status_code, exc.message, exc.body, exc.response.headers,
                            provider, secrets, request_id=exc.request_id,
                            response=exc.response)
    if isinstance(exc, (sdk.APITimeoutError, httpx2.TimeoutException)):
        host = host_of(exc)
        return APITimeoutError(
            redacted(f"{provider} request{f' to {host}' if host else ''} timed out: {exc}",
                    secrets), provider=provider)
    if isinstance(exc, (sdk.APIConnectionError, httpx2.HTTPError)):
        host = host_of(exc)
        cause = exc.__cause__ if isinstance(exc, sdk.APIConnectionError) else None
        detail = f"{exc}" + (f" ({type(cause).__name__}: {cause})" if cause else "")
        return APIConnectionError(
            redacted(f"{provider} connection error{f' at {host}' if host else ''}: {detail}",
                    secrets), provider=provider)
    if isinstance(exc, TypeError) and "authentication method" in str(exc):
        return AuthenticationError(
            f"no {provider} API key: pass provider_configs={{'{provider}': {{'api_key': "
            "...}}, or set ANTHROPIC_API_KEY", provider=provider)
    if isinstance(exc, sdk.CredentialsError):
        return AuthenticationError(
            redacted(f"{provider} credentials could not be loaded: {exc}. Pass "
                    f"provider_configs={{'{provider}': {{'api_key': ...}}}} or set "
                    "ANTHROPIC_API_KEY", secrets), provider=provider)
    if isinstance(exc, TypeError):
        # The SDK rejected a keyword argument (only named ones reach it as keywords).
        return UnsupportedParameterError(
            redacted(f"{provider} SDK rejected an argument: {exc}", secrets),
            parameter=_rejected_name(exc), provider=provider)
    if isinstance(exc, ValueError) and "Streaming is required" in str(exc):
        return UnsupportedParameterError(
            f"{provider}: max_tokens is too large for a non-streaming call (the SDK refuses "
            "requests that may take over 10 minutes); use stream=True, a smaller "
            "max_tokens, or an explicit timeout", parameter="max_tokens", provider=provider)
    return APIError(redacted(f"{provider} error: {exc}", secrets), provider=provider)


def _rejected_name(exc: TypeError) -> Optional[str]:
    text = str(exc)
    marker = "keyword argument '"
    start = text.find(marker)
    if start < 0:
        return None
    start += len(marker)
    end = text.find("'", start)
    return text[start:end] if end > start else None
