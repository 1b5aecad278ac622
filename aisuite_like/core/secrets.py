"""API keys: checked once at configuration, then kept out of every text we or the SDKs emit.

``clean_api_key`` strips surrounding whitespace (a key read from a file ends in a newline),
rejects a key with whitespace or control characters inside (without echoing it), and
remembers the key. ``redact`` replaces every remembered key in a text, in each form it may
take there: raw, stripped, JSON-escaped, repr-escaped and URL-encoded. ``protect_logs``
installs a ``logging.Filter`` on the loggers of the SDKs and their HTTP stack (openai,
anthropic, google_genai, mcp, httpx2, httpcore2, ...) that applies ``redact`` to each record's
message, arguments and traceback.

The registry of remembered keys lives in ``secret_forms.py`` (the error tree uses it too).
Nothing here imports a vendor SDK. The filter runs only for records a logger actually emits
(a disabled level never builds a record).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from . import secret_forms as _secret_forms
from .secret_forms import REDACTED, redact, remember

__all__ = ["clean_api_key", "remember", "redact", "protect_logs", "REDACTED"]


def _has_inner_space_or_control(key: str) -> bool:
    return any(ch.isspace() or ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in key)


def clean_api_key(key: Any, provider: str, where: str = "api_key") -> Any:
    """An API key as configured -> the key to use: surrounding whitespace stripped, remembered
    for redaction. A key with whitespace or control characters inside raises
    ``ConfigurationError`` (which never shows the key). Anything but a ``str`` (None, a
    callable token provider, ...) is returned unchanged."""
    if not isinstance(key, str):
        return key
    remember(key)
    stripped = key.strip()
    if _has_inner_space_or_control(stripped):
        from .errors import ConfigurationError

        raise ConfigurationError(
            f"the {where} configured for provider {provider!r} contains whitespace or control "
            "characters inside it, so it cannot be a valid key (it is not shown here). Check "
            "how it was read or pasted.")
    remember(stripped)
    return stripped


# --- logging ---------------------------------------------------------------------------------

# Loggers of the SDKs and the HTTP stack. A filter on a logger sees only the records logged
# to that very logger (not its children), so the children the libraries use are named here
# and created now: the library gets the same object (filter attached) when it imports later.
_LOGGERS = (
    "aisuite_like",
    "openai", "openai._base_client", "openai._response", "openai._legacy_response",
    "anthropic", "anthropic._base_client", "anthropic._response", "anthropic._tracing",
    "google_genai", "google_genai._api_client", "google_genai._common", "google_genai.models",
    "google_genai._transformers", "google_genai.types",
    "httpx2", "httpcore2", "httpcore2.connection", "httpcore2.connection_pool",
    "httpcore2.http11", "httpcore2.http2", "httpcore2.proxy", "httpcore2.socks",
    "httpx", "httpcore", "httpcore.connection", "httpcore.connection_pool", "httpcore.http11",
    "httpcore.http2", "httpcore.proxy", "httpcore.socks",
    "aiohttp", "aiohttp.client", "aiohttp.internal", "tenacity",
    "mcp", "mcp.client.streamable_http", "mcp.client.stdio", "mcp.client.sse",
    "mcp.client.client", "mcp.client.auth.oauth2", "mcp.shared.dispatcher",
    "mcp.shared.jsonrpc_dispatcher",
)
_PREFIXES = tuple(name for name in _LOGGERS if "." not in name)


def _scrub_record_exception(exc: BaseException) -> None:
    from .errors import scrub_exception

    scrub_exception(exc)


class _RedactingFilter(logging.Filter):
    """Redacts remembered keys from a record's message, arguments and traceback text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secret_forms._FORMS:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the handler to report
            return True
        clean = redact(message)
        if clean is not message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            _scrub_record_exception(record.exc_info[1])
            if not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_FILTER = _RedactingFilter()


def _attach(logger: logging.Logger) -> None:
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


def protect_logs(extra: Iterable[str] = ()) -> None:
    """Attach the redacting filter to the SDK and HTTP-stack loggers (idempotent; cheap)."""
    for name in (*_LOGGERS, *extra):
        _attach(logging.getLogger(name))
    # Children created by library versions that use more loggers than named above.
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name.startswith(_PREFIXES):
            _attach(logger)
