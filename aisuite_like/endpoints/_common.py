"""What the endpoints beside chat share (docs/images.md, audio.md, moderations.md, files.md):
the provider a call goes to, the checks of their arguments, and their ``with_raw_response``.

Each endpoint checks everything before anything is sent, makes the provider of the model's
key (traced when instrumented, as chat calls are) and calls its method; retries, timeouts,
secrets and error mapping are the provider's.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Optional

from ..client.base import parse_model, resolve_provider
from ..client.prepare import provider_stack
from ..client.raw_response import RawResponse, acaptured, captured
from ..core import checks as _checks

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..providers.base import Provider

__all__ = ["endpoint_provider", "provider_of_key", "check_keywords", "check_text", "check_count",
           "check_choice", "check_number", "check_timeout", "RawResource"]


def provider_of_key(client: ClientBase, key: str) -> Provider:
    """The provider of ``key`` (made on first use) in its stack (``client/prepare.py``:
    traced when instrumented, as chat calls are)."""
    return provider_stack(client, key, resolve_provider(client, key))


def endpoint_provider(client: ClientBase, model: Any) -> tuple[str, str, Provider]:
    """``(key, model name, provider)`` of ``model`` (``"provider:model"``; a router alias
    is an ``InvalidModelError``: these endpoints do not route)."""
    key, name = parse_model(model)
    return key, name, provider_of_key(client, key)


def check_keywords(call: str, extra: Mapping[str, Any], known: Iterable[str]) -> None:
    """A keyword that is a near miss of one of ``known`` is a typo (``TypeError`` saying
    which); others are provider-native and pass through."""
    _checks.check_extra_headers(extra)
    names = tuple(known)
    for name in extra:
        suggestion = _checks.did_you_mean(name, names) if isinstance(name, str) else None
        if suggestion is not None and suggestion != name:
            raise TypeError(
                f"{call}() got an unexpected keyword argument {name!r}; did you mean "
                f"{suggestion!r}? (Provider-native arguments pass through, but this one looks "
                f"like a misspelling of {suggestion!r}.)")


def check_text(name: str, value: Any, *, optional: bool = False) -> None:
    """A non-empty ``str`` (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value.strip() and not optional:
        raise ValueError(f"{name} must not be empty")


def check_count(name: str, value: Any, *, low: int = 1, high: Optional[int] = None) -> None:
    """None, or an int from ``low`` to ``high``."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")


def check_number(name: str, value: Any, low: float, high: float) -> None:
    """None, or a number from ``low`` to ``high``."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}, got {value!r}")


def check_choice(name: str, value: Any, choices: Iterable[str]) -> None:
    """None, or one of ``choices``."""
    options = tuple(choices)
    if value is not None and value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got "
                         f"{value!r}")


def check_timeout(timeout: Any) -> None:
    if timeout is not None:
        problem = _checks.timeout_problem(timeout)
        if problem is not None:
            raise ValueError(f"timeout must be {problem}, got {timeout!r}")


class RawResource:
    """``<resource>.with_raw_response``: each method of the resource called the same way,
    returning a ``RawResponse`` (the reply's status, headers and request id, and
    ``.parse()`` for what the method returns; docs/client.md, "Raw responses"). Methods
    that are coroutines stay awaitable."""

    __slots__ = ("_resource",)

    def __init__(self, resource: Any) -> None:
        self._resource = resource

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("with_raw_response", "with_streaming_response"):
            raise AttributeError(name)
        method = getattr(self._resource, name)
        if inspect.iscoroutinefunction(method):
            async def araw(*args: Any, **kwargs: Any) -> RawResponse[Any]:
                return await acaptured(lambda: method(*args, **kwargs))
            return araw

        def raw(*args: Any, **kwargs: Any) -> RawResponse[Any]:
            return captured(lambda: method(*args, **kwargs))
        return raw

    def __repr__(self) -> str:
        return f"{type(self._resource).__name__}.with_raw_response"
