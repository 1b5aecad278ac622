"""Bounds on the size of what a server sends (docs/reliability.md, "Reply size"): a reply body
read whole, after its ``Content-Encoding`` is decoded, at most ``max_reply_bytes``; one
server-sent event of a stream at most ``max_event_bytes``. A gzip reply of 1 MiB that inflates
to 1 GiB stops with ``APIResponseValidationError`` once the bound is passed, so the process
holds about the bound, never the whole inflated body.

``BodyMeter`` is the sans-IO count both transports feed the decoded bytes into as they arrive:
the native transport in its own read loops (``providers/_native.py``), the SDK transport through
its httpx2 client's response hook, which makes the response count the bytes its decoder yields
(``bound_response``: the SDKs read every reply through ``iter_bytes`` / ``aiter_bytes``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from typing import Any, Optional

from ..core.errors import APIResponseValidationError, ConfigurationError

__all__ = ["BodyLimits", "DEFAULT_LIMITS", "BodyMeter", "limits_from_config",
           "bound_response", "CONFIG_KEYS"]

#: The config keys of the bounds (every built-in family but bedrock takes them).
CONFIG_KEYS = frozenset({"max_reply_bytes", "max_event_bytes"})
_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """The most bytes of a reply body read whole (``reply``) and of one stream event
    (``event``), after decoding."""

    reply: int = 64 * _MIB
    event: int = 16 * _MIB


DEFAULT_LIMITS = BodyLimits()


def limits_from_config(config: dict[str, Any], at: str) -> BodyLimits:
    """Pops ``max_reply_bytes`` / ``max_event_bytes`` from a provider's config copy, checked
    (``at`` names the provider in the error)."""
    values = {}
    for name, default in (("max_reply_bytes", DEFAULT_LIMITS.reply),
                          ("max_event_bytes", DEFAULT_LIMITS.event)):
        value = config.pop(name, None)
        if value is None:
            value = default
        elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigurationError(f"{name} must be an int >= 1 (bytes) {at}, got {value!r}")
        values[name] = value
    if values == {"max_reply_bytes": DEFAULT_LIMITS.reply,
                  "max_event_bytes": DEFAULT_LIMITS.event}:
        return DEFAULT_LIMITS
    return BodyLimits(values["max_reply_bytes"], values["max_event_bytes"])


def _is_event_stream(content_type: Optional[str]) -> bool:
    return bool(content_type) and "text/event-stream" in str(content_type).lower()


# The ends of a server-sent event: a blank line after LF, CR LF or CR line ends.
_EVENT_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")


class BodyMeter:
    """Counts the decoded bytes of one reply: the whole body, or, for a stream
    (``text/event-stream``), the bytes since the last event ended. ``feed`` raises
    ``APIResponseValidationError`` once past the bound, naming the setting to raise."""

    __slots__ = ("limits", "provider", "stream", "_count", "_tail")

    def __init__(self, limits: BodyLimits, provider: str, *, stream: bool) -> None:
        self.limits = limits
        self.provider = provider
        self.stream = stream
        self._count = 0
        self._tail = b""  # the last bytes of the previous chunk (an event end split in two)

    @classmethod
    def for_reply(cls, limits: BodyLimits, provider: str, content_type: Optional[str]
                  ) -> "BodyMeter":
        return cls(limits, provider, stream=_is_event_stream(content_type))

    def feed(self, chunk: bytes) -> None:
        if not self.stream:
            self._count += len(chunk)
            if self._count > self.limits.reply:
                raise self._too_large("the reply body", "max_reply_bytes", self.limits.reply)
            return
        joined = self._tail + chunk
        end = max((joined.rfind(mark) + len(mark) if joined.rfind(mark) >= 0 else -1)
                  for mark in _EVENT_ENDS)
        if end >= 0:
            self._count = len(joined) - end
        else:
            self._count += len(chunk)
        self._tail = joined[-3:]
        if self._count > self.limits.event:
            raise self._too_large("one stream event", "max_event_bytes", self.limits.event)

    def _too_large(self, what: str, setting: str, limit: int) -> APIResponseValidationError:
        return APIResponseValidationError(
            f"{what} is larger than {limit} bytes once decoded (a compressed reply may "
            f"inflate far beyond its size on the wire); reading stopped there. If such replies "
            f"are expected, raise provider_configs[...][{setting!r}]", provider=self.provider)


# --- the SDK transport: httpx2 responses that count what their decoder yields --------------


def _bounded_class(cls: Any) -> type:
    """A subclass of an httpx2 ``Response`` class whose decoded bytes go through a
    ``BodyMeter`` (no new slots, so a response's class can be switched in place)."""

    def iter_bytes(self: Any, chunk_size: Optional[int] = None) -> Iterator[bytes]:
        meter = None if hasattr(self, "_content") else self._aisuite_meter
        for chunk in cls.iter_bytes(self, chunk_size):
            if meter is not None:
                meter.feed(chunk)
            yield chunk

    async def aiter_bytes(self: Any, chunk_size: Optional[int] = None
                          ) -> AsyncGenerator[bytes, None]:
        meter = None if hasattr(self, "_content") else self._aisuite_meter
        parts = cls.aiter_bytes(self, chunk_size)
        try:
            async for chunk in parts:
                if meter is not None:
                    meter.feed(chunk)
                yield chunk
        finally:
            await parts.aclose()

    # A copy made with ``type(response)(...)`` (an error's scrubbed response) has no meter.
    return type(f"Bounded{cls.__name__}", (cls,), {"iter_bytes": iter_bytes,
                                                   "aiter_bytes": aiter_bytes,
                                                   "_aisuite_meter": None})


_classes: dict[type, type] = {}


def bound_response(response: Any, limits: BodyLimits, provider: str) -> None:
    """Make an httpx2 response (from a client's response hook, before anything is read)
    count its decoded bytes against ``limits``."""
    cls = type(response)
    if getattr(response, "_aisuite_meter", None) is not None:
        return
    bounded = _classes.get(cls)
    if bounded is None:
        bounded = _classes.setdefault(cls, _bounded_class(cls))
    response._aisuite_meter = BodyMeter.for_reply(limits, provider,
                                                  response.headers.get("content-type"))
    response.__class__ = bounded
