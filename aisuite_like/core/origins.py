"""Origins (scheme, host and port) of URLs: a request, a redirect or a link of a reply goes
only to the origin it was configured for (docs/reliability.md#where-requests-go)."""

from __future__ import annotations

from typing import Optional

__all__ = ["origin", "origin_text", "same_origin"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, Optional[int]]:
    """``(scheme, host, port)`` of an absolute URL, the port made explicit (``ValueError`` for
    a port that is not a number)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


def origin_text(parts: tuple[str, str, Optional[int]]) -> str:
    """An origin as text (``https://host:port``; an IPv6 host in brackets)."""
    scheme, host, port = parts
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}{f':{port}' if port is not None else ''}"


def same_origin(url: str, base: str) -> bool:
    """Whether ``url`` (absolute, or relative to ``base``) is on ``base``'s origin (scheme,
    host and port); False when either cannot be read."""
    from urllib.parse import urljoin

    try:
        return origin(urljoin(base, url)) == origin(base)
    except ValueError:
        return False
