"""The error tree (docs/client.md).

Every error the library raises derives from :class:`AisuiteLikeError`. Provider failures are
:class:`APIError` subclasses carrying ``provider``, ``status_code``, ``request_id`` and the SDK
exception as ``__cause__``. No message or repr ever contains an API key: :func:`redacted` scrubs
known secrets and key-shaped strings before any text reaches an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import secret_forms as _secret_forms

if TYPE_CHECKING:
    from .types import SkippedModel

__all__ = [
    "AisuiteLikeError",
    "APIError",
    "APIStatusError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "BadRequestError",
    "ContextWindowExceededError",
    "RateLimitError",
    "APITimeoutError",
    "APIConnectionError",
    "RedirectError",
    "InternalServerError",
    "APIResponseValidationError",
    "InvalidModelError",
    "UnknownProviderError",
    "MissingDependencyError",
    "UnsupportedParameterError",
    "OrphanToolMessageError",
    "ModelCapabilityError",
    "PromptTooLongError",
    "UnsupportedFeatureError",
    "ConfigurationError",
    "ToolExecutionError",
    "MaxTurnsExceeded",
    "OutputValidationError",
    "ConcurrentRunError",
    "InputGuardrailTripwireTriggered",
    "OutputGuardrailTripwireTriggered",
    "MCPError",
    "BudgetExceededError",
    "UnpricedModelError",
    "BudgetStateError",
]


class AisuiteLikeError(Exception):
    """Root of every error raised by aisuite_like."""


# --- provider (API) errors ---------------------------------------------------------------


class APIError(AisuiteLikeError):
    """A provider call failed. ``__cause__`` is the SDK's own exception. ``retry_after`` is
    the wait in seconds the server asked for (``Retry-After``), on any status, when given."""

    retry_after: float | None = None
    #: Only on the error of the last model of ``fallbacks=[...]``: the models tried before it.
    fallback_errors: list[SkippedModel]
    #: Only on an error of ``client.batches.create``: the provider batches submitted before
    #: the one that failed (an ``aisuite_like.Batch``, defined in a layer above this one), or
    #: None.
    submitted_batch: Any

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        request_id: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.request_id = request_id
        self.body = body

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, provider={self.provider!r}, "
            f"status_code={self.status_code!r}, request_id={self.request_id!r})"
        )


class APIStatusError(APIError):
    """The provider answered with an error status (4xx / 5xx), as the OpenAI SDK's
    ``APIStatusError``: ``status_code``, ``response`` (the ``httpx2.Response`` when there was
    one, else None: e.g. an error event inside a 200 stream), ``body`` (the provider's error
    object, secrets scrubbed), ``code``, ``type``, ``param`` (read from ``body``) and
    ``request_id``."""

    def __init__(self, message: str, *, response: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.response = response
        inner = self.body.get("error", self.body) if isinstance(self.body, dict) else None
        if not isinstance(inner, dict):
            inner = self.body if isinstance(self.body, dict) else {}
        code = inner.get("code")
        self.code: str | None = str(code) if code is not None else None
        param = inner.get("param")
        self.param: str | None = param if isinstance(param, str) else None
        kind = inner.get("type") or inner.get("status")
        self.type: str | None = kind if isinstance(kind, str) else None


class AuthenticationError(APIStatusError):
    """401: the API key is missing or wrong."""


class PermissionDeniedError(APIStatusError):
    """403: the key is valid but not allowed to do this."""


class NotFoundError(APIStatusError):
    """404: unknown model or endpoint."""


class BadRequestError(APIStatusError):
    """400, 413, 422 and other 4xx: the request itself is wrong."""


class ContextWindowExceededError(BadRequestError):
    """The prompt does not fit the model's context window."""


class PromptTooLongError(ContextWindowExceededError):
    """With ``count_tokens=True``, a prompt whose counted tokens exceed the model's context
    window, refused before anything is sent (docs/models.md): ``model``, ``limit`` (the
    context window), ``input_tokens`` (the count), ``source`` (where the window came
    from). ``status_code`` is None: no provider answered."""

    def __init__(self, message: str, *, model: str, limit: int, input_tokens: int,
                 source: str, provider: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.model = model
        self.limit = limit
        self.input_tokens = input_tokens
        self.source = source


class RateLimitError(APIStatusError):
    """429: slow down. ``retry_after`` is the server's hint in seconds, when it gave one."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class APITimeoutError(APIError):
    """The request timed out."""


class APIConnectionError(APIError):
    """The provider could not be reached, or the connection broke mid-way."""


class RedirectError(APIStatusError):
    """The provider answered a redirect (3xx) to another origin (scheme, host or port) than
    the one the request went to. It is not followed, so neither the API key nor the request
    reached that host; ``from_origin`` and ``to_origin`` name both (``scheme://host:port``,
    never a path or query). Not retried and no reason to fall back: fix ``base_url``.
    Redirects within one origin are followed as the SDKs do."""

    def __init__(self, message: str, *, from_origin: str, to_origin: str,
                 **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.from_origin = from_origin
        self.to_origin = to_origin


class InternalServerError(APIStatusError):
    """5xx, or an overloaded / error event inside a 200 stream."""


class APIResponseValidationError(APIError):
    """The provider answered, but not in the shape its API defines (not JSON, a missing or
    mistyped field, a tool call without a name, a complete stream event that is not JSON).

    ``problem`` says what was wrong and where (e.g. ``choices[0].message is a str, expected
    an object``); the message adds the provider, HTTP status and request id. The reply itself
    is never included: it may echo secrets, and it can be large."""

    def __init__(self, problem: str, *, provider: str | None = None,
                 status_code: int | None = None, request_id: str | None = None) -> None:
        self.problem = problem
        super().__init__(self._text(problem, provider, status_code, request_id),
                         provider=provider, status_code=status_code, request_id=request_id)

    @staticmethod
    def _text(problem: str, provider: str | None, status_code: int | None,
              request_id: str | None) -> str:
        context = ", ".join(part for part in (
            f"HTTP {status_code}" if status_code is not None else "",
            f"request id {request_id}" if request_id else "") if part)
        return (f"{provider or 'the provider'} sent a reply that is not the expected shape"
                f"{f' ({context})' if context else ''}: {problem}")

    def _add_context(self, status_code: int | None, request_id: str | None) -> None:
        """Fill in the HTTP status and request id the translator did not know."""
        if self.status_code is None:
            self.status_code = status_code
        if not self.request_id:
            self.request_id = request_id
        self.message = self._text(self.problem, self.provider, self.status_code, self.request_id)
        self.args = (self.message,)


# --- configuration errors ----------------------------------------------------------------


class InvalidModelError(AisuiteLikeError, ValueError):
    """The model string is not ``"provider:model"``."""


class UnknownProviderError(AisuiteLikeError, ValueError):
    """The provider key is not registered."""


class MissingDependencyError(AisuiteLikeError, ImportError):
    """The provider's SDK is not installed; the message gives the ``pip install`` line."""


class UnsupportedParameterError(AisuiteLikeError, ValueError):
    """A parameter the provider cannot honour (nothing is silently dropped)."""

    def __init__(self, message: str, *, parameter: str | None = None, provider: str | None = None):
        super().__init__(message)
        self.parameter = parameter
        self.provider = provider


class OrphanToolMessageError(UnsupportedParameterError):
    """A history whose tool calls and results do not pair (docs/portability.md), refused
    before anything is sent: a tool result that answers no open call, or, with
    ``orphans="error"``, a tool call without a result. ``index`` is the position of the
    message in ``messages``; ``tool_call_id`` the id it carries."""

    def __init__(self, message: str, *, index: int, tool_call_id: Any = None,
                 provider: str | None = None):
        super().__init__(message, parameter="messages", provider=provider)
        self.index = index
        self.tool_call_id = tool_call_id


class ModelCapabilityError(UnsupportedParameterError):
    """A request the model cannot serve by what is known of it (docs/models.md, "Checks
    before sending"), refused before anything is sent: ``model`` (``"provider:model"``),
    ``parameter`` (``"tools"``, ``"messages"``, ``"max_tokens"``, ...), ``limit`` (the fact
    that refuses it: ``False``, the input modalities, the output cap), ``source`` (where the
    fact came from: the snapshot and its date, a probe profile, the provider)."""

    def __init__(self, message: str, *, model: str, parameter: str, limit: Any, source: str,
                 provider: str | None = None):
        super().__init__(message, parameter=parameter, provider=provider)
        self.model = model
        self.limit = limit
        self.source = source


class UnsupportedFeatureError(AisuiteLikeError, ValueError):
    """A call the provider has no API for (e.g. embeddings on Anthropic), raised before
    anything is sent; the message names providers that have one. ``feature`` names the call,
    ``provider`` the provider key."""

    def __init__(self, message: str, *, feature: str | None = None, provider: str | None = None):
        super().__init__(message)
        self.feature = feature
        self.provider = provider


class ConfigurationError(AisuiteLikeError, ValueError):
    """A provider's configuration is incomplete or contradictory (e.g. Azure without an
    endpoint); the message names the setting or environment variable to fix."""


# --- budgets (docs/budgets.md) -----------------------------------------------------------


class BudgetExceededError(AisuiteLikeError):
    """A budget refused a call before anything was sent: admitting it could have spent more
    than ``limit``. ``budget`` is the budget's name, ``spent`` what its window has spent,
    ``reserved`` what calls in flight hold, ``needed`` this call's worst case (all in USD);
    ``window`` the window's label (``"1d"``, ...; None: no window); ``estimated`` whether the
    call's input tokens were estimated (not counted by the provider). ``response`` is the
    finalized partial run when a tool run or agent ended on the refusal (else None)."""

    def __init__(self, message: str, *, budget: str, limit: float, spent: float,
                 reserved: float, needed: float, window: str | None = None,
                 estimated: bool = True, response: Any = None) -> None:
        super().__init__(message)
        self.budget = budget
        self.limit = limit
        self.spent = spent
        self.reserved = reserved
        self.needed = needed
        self.window = window
        self.estimated = estimated
        self.response = response


class UnpricedModelError(ConfigurationError):
    """A budget was asked to admit a call to a model whose price is unknown (genai-prices
    has none), raised before anything is sent; ``Budget(unpriced="allow")`` admits such
    calls and counts them as unpriced."""

    def __init__(self, message: str, *, budget: str, model: str) -> None:
        super().__init__(message)
        self.budget = budget
        self.model = model


class BudgetStateError(AisuiteLikeError):
    """A budget's shared state (``RedisState``) could not be read or written, so the call
    could not be admitted; nothing was sent. The message names the server (never its
    password)."""


# --- runner and agent errors -------------------------------------------------------------


class ToolExecutionError(AisuiteLikeError):
    """A tool failed with ``on_tool_error="raise"``. ``.response`` is the partial result."""

    def __init__(self, message: str, *, response: Any = None, call_id: str | None = None,
                 tool_name: str | None = None) -> None:
        super().__init__(message)
        self.response = response
        self.call_id = call_id
        self.tool_name = tool_name


class MaxTurnsExceeded(AisuiteLikeError):
    """``max_turns`` reached with ``on_max_turns="raise"``. ``.response`` is the partial result."""

    def __init__(self, message: str, *, response: Any = None) -> None:
        super().__init__(message)
        self.response = response


class OutputValidationError(AisuiteLikeError):
    """The model's structured output failed validation twice."""

    def __init__(self, message: str, *, output: Any = None) -> None:
        super().__init__(message)
        self.output = output


class ConcurrentRunError(AisuiteLikeError, RuntimeError):
    """A ``Session`` is already in use by another run."""


class InputGuardrailTripwireTriggered(AisuiteLikeError):
    """An input guardrail tripped; ``guardrail_result`` is its ``InputGuardrailResult``
    (``.output.output_info`` holds what the guardrail reported)."""

    def __init__(self, guardrail_result: Any) -> None:
        self.guardrail_result = guardrail_result
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"input guardrail {name!r} triggered its tripwire")


class OutputGuardrailTripwireTriggered(AisuiteLikeError):
    """An output guardrail tripped; ``guardrail_result`` is its ``OutputGuardrailResult``."""

    def __init__(self, guardrail_result: Any) -> None:
        self.guardrail_result = guardrail_result
        name = guardrail_result.guardrail.get_name()
        super().__init__(f"output guardrail {name!r} triggered its tripwire")


class MCPError(AisuiteLikeError):
    """An MCP server failed: it did not start, closed the connection, or did not answer in
    time. ``summary`` says which server failed and how; ``stderr`` is the tail of a stdio
    server's stderr when it failed (``""`` otherwise), also at the end of the message. In a
    tool run the model is told the ``summary`` only: the stderr is for the developer."""

    def __init__(self, message: str, *, stderr: str = "") -> None:
        self.summary = message
        self.stderr = stderr
        super().__init__(f"{message}\nserver stderr (last lines):\n{stderr}" if stderr
                         else message)


# --- helpers shared by the providers -----------------------------------------------------

# Key-shaped strings, scrubbed even when we do not know the key (a provider may echo a
# different key back, e.g. in an "invalid api key: sk-..." message).
_KEY_PATTERN = re.compile(
    r"(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|gsk_[A-Za-z0-9]{8,}"
    r"|xai-[A-Za-z0-9]{8,}|hf_[A-Za-z0-9]{8,})"
)


def redacted(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove known secrets (``secrets`` and every configured key, in all their forms, see
    ``_secret_forms``) and key-shaped strings from ``text``."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, "[REDACTED]")
    return _KEY_PATTERN.sub("[REDACTED]", _secret_forms.redact(text))


def _redact_value(value: Any, secrets: tuple[str | None, ...]) -> Any:
    """``redacted`` applied to every string inside ``value`` (dicts, lists, tuples); the same
    object back when nothing changed."""
    if isinstance(value, str):
        return redacted(value, secrets)
    if isinstance(value, dict):
        out = {k: _redact_value(v, secrets) for k, v in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    if isinstance(value, (list, tuple)):
        items = [_redact_value(v, secrets) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def scrub_exception(exc: BaseException, secrets: Iterable[str | None] = ()) -> None:
    """Redact secrets from an SDK exception we chain as ``__cause__`` (and from its own causes):
    a traceback prints its message, and SDKs put the provider's error body there, which may
    echo the key back. Its ``args`` and every text or JSON-like attribute (``message``,
    ``body``, ``details``, ...) are scrubbed in place; the exception keeps its type and every
    other attribute. Error path only."""
    secrets = tuple(secrets)
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        try:
            current.args = _redact_value(current.args, secrets)
        except Exception:  # an exception type with read-only args: leave it
            pass
        for attr, value in list(getattr(current, "__dict__", {}).items()):
            # message, body, details, and e.g. anthropic's api_message: every text or
            # JSON-like value (objects such as the HTTP request stay as they are)
            if isinstance(value, (str, dict, list, tuple)):
                redacted = _redact_value(value, secrets)
                if redacted is not value:
                    try:
                        setattr(current, attr, redacted)
                    except Exception:
                        pass
        current = current.__cause__ or current.__context__


_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "prompt is too long",
    "maximum context",
    "input token count",
    "exceeds the maximum number of tokens",
    "too many tokens",
)


def error_for_status(
    status_code: int | None,
    message: str,
    *,
    provider: str,
    request_id: str | None = None,
    retry_after: float | None = None,
    body: Any = None,
    secrets: Iterable[str | None] = (),
    code: Any = None,
    response: Any = None,
) -> APIError:
    """Build the typed error for an HTTP status (the caller sets ``__cause__`` with ``from``).
    ``code`` is the provider's machine-readable error code, when it gave one (OpenAI's
    ``context_length_exceeded`` may come with a message that names no context window)."""
    secrets = tuple(secrets)
    message = redacted(message, secrets)
    kwargs: dict[str, Any] = dict(provider=provider, status_code=status_code,
                                  request_id=request_id,
                                  body=_redact_value(body, secrets) if body is not None else None,
                                  response=(_scrubbed_response(response, secrets)
                                            if response is not None else None))
    if status_code == 401:
        return AuthenticationError(message, **kwargs)
    if status_code == 403:
        return PermissionDeniedError(message, **kwargs)
    if status_code == 404:
        return NotFoundError(message, **kwargs)
    if status_code == 429:
        return RateLimitError(message, retry_after=retry_after, **kwargs)
    if status_code is not None and 400 <= status_code < 500:
        lowered = message.lower() if code is None else f"{message} {code}".lower()
        if any(marker in lowered for marker in _CONTEXT_MARKERS):
            return ContextWindowExceededError(message, **kwargs)
        error: APIError = BadRequestError(message, **kwargs)
    elif status_code is not None and status_code >= 500:
        error = InternalServerError(message, **kwargs)
    else:
        kwargs.pop("response")
        error = APIError(message, **kwargs)
    error.retry_after = retry_after  # a 408, 409 or 503 may ask for a wait too
    return error


# Request headers that carry credentials; never kept on an error's ``response.request``.
_AUTH_HEADERS = frozenset({"authorization", "proxy-authorization", "api-key", "x-api-key",
                           "x-goog-api-key", "cookie"})


_WIRE_ENCODING_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _scrubbed_response(response: Any, secrets: Iterable[str | None]) -> Any:
    """A copy of an httpx2 response for ``APIStatusError.response`` that holds no key: its
    request's credential headers are replaced and key-shaped strings are removed from the
    request URL and the response body. None when the response is not an httpx-like one or
    its body was never read. Error path only."""
    secrets = tuple(secrets)
    try:
        request = response.request
        headers = [(k, "[REDACTED]" if k.lower() in _AUTH_HEADERS else redacted(v, secrets))
                   for k, v in request.headers.items()]
        clean_request = type(request)(request.method, redacted(str(request.url), secrets),
                                      headers=headers)
        text = response.text
        clean_text = redacted(text, secrets)
        content = response.content if clean_text == text else clean_text.encode()
        # The copy holds the decoded body: the headers describing the wire encoding go.
        response_headers = [(k, v) for k, v in response.headers.items()
                            if k.lower() not in _WIRE_ENCODING_HEADERS]
        return type(response)(response.status_code, headers=response_headers, content=content,
                              request=clean_request)
    except Exception:  # not an httpx2.Response, or a body that was never read
        return None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` headers (a number of seconds or an
    HTTP date), when present and a usable wait: a demand of 0, a negative one (a date in the
    past), NaN or infinity is none (None), so the retry falls back to the exponential backoff
    rather than retrying at once."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return _usable_wait(float(ms) / 1000.0)
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return _usable_wait(float(value))
    except (TypeError, ValueError):
        pass
    try:  # an HTTP date
        import email.utils
        import time

        when = email.utils.parsedate_to_datetime(str(value))
        return _usable_wait(when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _usable_wait(seconds: float) -> float | None:
    """``seconds`` when it is a finite wait > 0, else None."""
    return seconds if 0.0 < seconds < float("inf") else None
