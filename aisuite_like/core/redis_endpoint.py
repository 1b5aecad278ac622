"""A Redis server's settings as the shared states take them (``router.RedisState``,
``budgets.RedisState``): the URL checked, its password redacted from then on, a form of it
safe to show, and the connection options; redis-py imported on first use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlsplit

from . import secrets as _secrets
from .errors import ConfigurationError, MissingDependencyError


@dataclass(frozen=True)
class RedisEndpoint:
    url: str
    #: the URL without its user info (never the password), for reprs and errors
    where: str
    #: what ``redis.Redis.from_url`` takes besides the URL
    options: dict[str, Any]


def redis_endpoint(url: Any, *, timeout: Any, seconds: Mapping[str, Any],
                   redis_options: Optional[Mapping[str, Any]]) -> RedisEndpoint:
    """Checks a ``RedisState(url, ...)``'s settings: ``url`` a Redis URL, ``timeout`` and
    each of ``seconds`` (name -> value) a number of seconds > 0. Raises
    ``ConfigurationError`` saying which."""
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(
            "RedisState needs a Redis URL such as 'redis://127.0.0.1:6379/0'")
    for name, value in (("timeout", timeout), *seconds.items()):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigurationError(f"RedisState {name} must be a number of seconds > 0, "
                                     f"got {value!r}")
    parts = urlsplit(url)
    if parts.password:
        _secrets.remember(parts.password)  # redacted from every error and log record
    where = f"{parts.scheme}://{parts.hostname or ''}" + (
        f":{parts.port}" if parts.port else "") + (parts.path or "")
    return RedisEndpoint(url, where, {"socket_timeout": float(timeout),
                                      "socket_connect_timeout": float(timeout),
                                      **(redis_options or {})})


def import_redis() -> Any:
    """redis-py, or ``MissingDependencyError`` saying how to install it."""
    try:
        import redis
    except ImportError as exc:
        raise MissingDependencyError(
            'RedisState needs redis-py: pip install "aisuite-like[redis]"') from exc
    return redis
