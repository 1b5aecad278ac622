"""Small pure helpers shared by the translators (no I/O, no SDK imports)."""

from __future__ import annotations

import json
from typing import Any, Optional

from ..errors import UnsupportedParameterError


def parse_data_url(url: str) -> Optional[tuple[str, str]]:
    """``data:<mime>;base64,<data>`` -> ``(mime, base64 data)``; None for any other URL."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep or ";base64" not in header:
        raise UnsupportedParameterError(
            "image data URLs must be base64-encoded: 'data:image/png;base64,...'",
            parameter="image_url")
    mime = header.split(";", 1)[0] or "application/octet-stream"
    return mime, data


def loads_arguments(arguments: Any) -> Any:
    """Tool-call arguments (a JSON string, or already a dict) -> a dict for providers that take
    objects. Malformed JSON is kept as ``{"_raw": text}`` rather than dropped."""
    if isinstance(arguments, dict):
        return arguments
    if not arguments:
        return {}
    try:
        value = json.loads(arguments)
    except (TypeError, ValueError):
        return {"_raw": arguments}
    return value if isinstance(value, dict) else {"_value": value}


def text_of(content: Any) -> str:
    """Message content (str or list of OpenAI parts) -> its text, parts joined in order."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict)
                   and p.get("type") == "text")


def unsupported(provider: str, parameter: str, why: str = "") -> UnsupportedParameterError:
    return UnsupportedParameterError(
        f"{provider} does not support {parameter!r}{': ' + why if why else ''}. Remove it, or "
        "pass a provider-native argument instead.", parameter=parameter, provider=provider)


def stop_sequences(provider: str, stop: Any) -> list[str]:
    """The portable ``stop`` (a string or a list of strings) -> a new list of strings."""
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, (list, tuple)) and all(isinstance(s, str) for s in stop):
        return list(stop)
    raise UnsupportedParameterError(
        f"stop must be a string or a list of strings, got {stop!r}", parameter="stop",
        provider=provider)


def check_n(provider: str, n: Any) -> int:
    """The portable ``n`` (how many choices): an int >= 1."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise UnsupportedParameterError(f"n must be an int >= 1, got {n!r}", parameter="n",
                                        provider=provider)
    return n


def host_of(exc: BaseException) -> Optional[str]:
    """``host:port`` an SDK / transport exception's request went to (httpx2 and aiohttp
    errors, and the SDK errors wrapping them), or None when it does not say."""
    seen: set[int] = set()
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        try:
            request = getattr(current, "request", None)  # httpx2 raises when it has none
        except Exception:
            request = None
        url = getattr(request, "url", None)
        host = getattr(url, "host", None)
        port = getattr(url, "port", None)
        if not host:  # aiohttp.ClientConnectorError
            host, port = getattr(current, "host", None), getattr(current, "port", None)
        if isinstance(host, str) and host:
            return f"{host}:{port}" if port else host
        current = current.__cause__ or current.__context__
    return None
