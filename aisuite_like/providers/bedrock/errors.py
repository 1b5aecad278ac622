"""Bedrock's errors -> our error tree (docs/providers/bedrock.md, "Errors"): the error
responses of botocore's ``ClientError`` and of a ConverseStream's exception events
(``error_from_client_error``), and every botocore / urllib3 exception of a call
(``map_sdk_error``). Importing it imports no SDK: botocore is loaded by then when
``map_sdk_error`` runs (the exception came from it).
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
    ConfigurationError,
    ContextWindowExceededError,
    UnsupportedParameterError,
    error_for_status,
    parse_retry_after,
    redacted,
)
from .._common import redirect_error, too_deep_for_sdk

__all__ = ["PROVIDER", "error_from_client_error", "map_sdk_error"]

#: The family's provider key (the default ``provider`` of the translators and error mappers).
PROVIDER = "bedrock"

# AWS error code (lower-cased: stream exception events spell them camelCase) -> HTTP status.
_CODE_STATUS = {
    "throttlingexception": 429,
    "toomanyrequestsexception": 429,
    "validationexception": 400,
    "serializationexception": 400,
    "accessdeniedexception": 403,
    "unrecognizedclientexception": 401,
    "invalidsignatureexception": 401,
    "expiredtokenexception": 401,
    "incompletesignature": 401,
    "missingauthenticationtokenexception": 401,
    "resourcenotfoundexception": 404,
    "servicequotaexceededexception": 429,
    "internalserverexception": 500,
    "modelerrorexception": 500,
    "modelstreamerrorexception": 500,
    "modelnotreadyexception": 503,
    "serviceunavailableexception": 503,
}
_TIMEOUT_CODES = frozenset({"modeltimeoutexception"})

# Bedrock's wording for a prompt that does not fit (beyond the shared markers in errors.py).
_CONTEXT_MARKERS = ("input is too long", "too many input tokens", "prompt is too long",
                    "exceed context limit", "exceeds the context window",
                    "maximum context length", "too many total text bytes")


def error_from_client_error(error_response: dict[str, Any], *, provider: str = PROVIDER,
                            secrets: Iterable[Optional[str]] = ()) -> APIError:
    """A botocore ``ClientError.response`` (also of a stream's exception event) -> our error.
    The AWS error code decides the type; the HTTP status is kept when there was one."""
    error = error_response.get("Error") or {}
    metadata = error_response.get("ResponseMetadata") or {}
    headers = metadata.get("HTTPHeaders") or {}
    code = str(error.get("Code") or "")
    key = code.lower()
    detail = error.get("Message") or error.get("message") or "no message"
    status = metadata.get("HTTPStatusCode")
    request_id = metadata.get("RequestId") or headers.get("x-amzn-requestid")
    message = redacted(f"{provider} error{f' {status}' if status else ''} ({code or 'unknown'}): "
                      f"{detail}", secrets)
    if key in _TIMEOUT_CODES:
        return APITimeoutError(message, provider=provider, status_code=status or 408,
                               request_id=request_id)
    mapped_status = _CODE_STATUS.get(key)
    if mapped_status is None:
        mapped_status = status if isinstance(status, int) and status >= 400 else 500
    if key == "validationexception" and any(m in message.lower() for m in _CONTEXT_MARKERS):
        return ContextWindowExceededError(message, provider=provider,
                                          status_code=status or 400, request_id=request_id)
    typed = error_for_status(mapped_status, message, provider=provider,
                              request_id=request_id, retry_after=parse_retry_after(headers),
                              secrets=secrets)
    typed.status_code = status if isinstance(status, int) else mapped_status
    return typed


def map_sdk_error(exc: BaseException, provider: str = PROVIDER,
                  secrets: Iterable[Optional[str]] = (), *, base_url: str) -> AisuiteLikeError:
    """A botocore / urllib3 exception of a call to ``base_url`` -> our typed error (the
    caller raises it ``from exc``); anything else becomes an ``APIError``."""
    import botocore.exceptions as errors  # type: ignore[import-untyped]  # botocore ships no types
    import urllib3.exceptions  # a stream's body is read through urllib3: its errors unwrapped

    too_deep = too_deep_for_sdk(exc, provider)
    if too_deep is not None:
        return too_deep
    if isinstance(exc, errors.ClientError):
        # botocore follows no redirect; one to another host says so (docs/reliability.md)
        metadata = exc.response.get("ResponseMetadata") or {}
        redirect = redirect_error(provider, base_url, metadata.get("HTTPStatusCode"),
                                  (metadata.get("HTTPHeaders") or {}).get("location"),
                                  "endpoint_url")
        return redirect or error_from_client_error(exc.response, provider=provider,
                                                   secrets=secrets)
    endpoint = str(getattr(exc, "kwargs", {}).get("endpoint_url") or base_url)
    if isinstance(exc, (errors.ReadTimeoutError, errors.ConnectTimeoutError,
                        urllib3.exceptions.TimeoutError)):
        return APITimeoutError(redacted(f"{provider} request timed out talking to "
                                       f"{endpoint}: {exc}", secrets), provider=provider)
    if isinstance(exc, (errors.EndpointConnectionError, errors.ConnectionClosedError,
                        errors.ResponseStreamingError, errors.HTTPClientError,
                        errors.ConnectionError, urllib3.exceptions.HTTPError)):
        return APIConnectionError(redacted(f"{provider} connection error talking to "
                                          f"{endpoint}: {exc}", secrets), provider=provider)
    if isinstance(exc, (errors.NoCredentialsError, errors.PartialCredentialsError,
                        errors.CredentialRetrievalError)):
        return AuthenticationError(redacted(
            f"{provider}: no usable AWS credentials ({exc}). Pass provider_configs="
            "{'bedrock': {'aws_access_key_id': ..., 'aws_secret_access_key': ...}}, a "
            "profile_name, or set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE",
            secrets), provider=provider)
    if isinstance(exc, errors.ProfileNotFound):
        return ConfigurationError(f"{provider}: {exc}; fix profile_name (or AWS_PROFILE)")
    if isinstance(exc, errors.ParamValidationError):
        return UnsupportedParameterError(
            redacted(f"{provider}: botocore rejected the request before sending it: {exc}",
                    secrets), provider=provider)
    if isinstance(exc, errors.BotoCoreError):
        return APIError(redacted(f"{provider} error: {exc}", secrets), provider=provider)
    return APIError(redacted(f"{provider} error: {type(exc).__name__}: {exc}", secrets),
                    provider=provider)
