"""Errors as each API spells them (docs/gateway.md, "Errors"): the error tree of the client
(``core/errors.py``) mapped to an HTTP status and OpenAI's ``{"error": {...}}`` body, or
Anthropic's ``{"type": "error", "error": {...}}`` on ``/v1/messages``.

Every message is passed through the client's redaction, so a provider key the client holds
can never reach a reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..core import errors as E
from ..core.secrets import redact

__all__ = ["GatewayError", "from_exception", "openai_body", "anthropic_body"]


@dataclass
class GatewayError(Exception):
    """An error the gateway answers with: ``status``, OpenAI's ``type`` and ``code``,
    ``param``, and headers (``Retry-After``; ``x-should-retry: false`` where the SDKs'
    automatic retries cannot help)."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: Optional[str] = None
    param: Optional[str] = None
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                    403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                    429: "rate_limit_error", 500: "api_error", 502: "api_error",
                    503: "overloaded_error", 504: "api_error", 529: "overloaded_error"}


def _no_retry() -> dict[str, str]:
    return {"x-should-retry": "false"}


def from_exception(exc: BaseException) -> GatewayError:
    """The reply for an exception raised while serving a request."""
    if isinstance(exc, GatewayError):
        return exc
    message = redact(str(exc)) or type(exc).__name__
    if isinstance(exc, E.BudgetExceededError):
        return GatewayError(429, message, "insufficient_quota", "budget_exceeded",
                            headers=_no_retry())
    if isinstance(exc, E.UnpricedModelError):
        return GatewayError(400, message, code="unpriced_model", headers=_no_retry())
    if isinstance(exc, E.ContextWindowExceededError):
        return GatewayError(400, message, code="context_length_exceeded",
                            headers=_no_retry())
    if isinstance(exc, E.RateLimitError):
        headers = {}
        if exc.retry_after is not None:
            headers["retry-after"] = f"{max(exc.retry_after, 0):.0f}"
        return GatewayError(429, message, "rate_limit_error", "rate_limit_exceeded",
                            headers=headers)
    if isinstance(exc, E.APITimeoutError):
        return GatewayError(504, message, "timeout", "upstream_timeout")
    if isinstance(exc, E.APIConnectionError):
        return GatewayError(502, message, "server_error", "upstream_unreachable")
    if isinstance(exc, E.APIResponseValidationError):
        return GatewayError(502, message, "server_error", "upstream_invalid_reply")
    if isinstance(exc, E.APIStatusError):
        status = exc.status_code if isinstance(exc.status_code, int) else 502
        if status in (401, 403):  # the gateway's own provider key: not the caller's fault
            return GatewayError(502, f"the upstream provider refused the gateway's "
                                f"credentials ({message})", "server_error",
                                "upstream_authentication")
        kind = "server_error" if status >= 500 else "invalid_request_error"
        return GatewayError(status, message, kind, getattr(exc, "code", None) or None,
                            getattr(exc, "param", None),
                            headers={} if status >= 500 or status == 429 else _no_retry())
    if isinstance(exc, E.UnsupportedParameterError):
        return GatewayError(400, message, param=exc.parameter, headers=_no_retry())
    if isinstance(exc, (E.InvalidModelError, E.UnknownProviderError)):
        return GatewayError(404, message, code="model_not_found", param="model",
                            headers=_no_retry())
    if isinstance(exc, (E.UnsupportedFeatureError, E.ConfigurationError, E.MissingDependencyError,
                        E.OutputValidationError, ValueError, TypeError)):
        return GatewayError(400, message, headers=_no_retry())
    if isinstance(exc, E.BudgetStateError):
        return GatewayError(503, "the budget ledger is unavailable; retry later",
                            "server_error", "budget_state_unavailable")
    return GatewayError(500, "the gateway failed to serve this request; its log says why",
                        "server_error", "internal_error")


def openai_body(error: GatewayError) -> dict[str, Any]:
    return {"error": {"message": error.message, "type": error.type, "param": error.param,
                      "code": error.code}}


def anthropic_body(error: GatewayError) -> dict[str, Any]:
    kind = _ANTHROPIC_TYPES.get(error.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}
