"""One retry policy for every provider family, and the thin drivers that apply it.

The policy is sans-IO: given how many attempts were made and the typed error of the last one,
:meth:`RetryPolicy.wait_for` says "wait N seconds and retry" or "give up". The drivers
(:func:`call`, :func:`acall`, :func:`stream`, :func:`astream`) only sleep and call, holding a
slot of the provider's :class:`ConcurrencyLimit` for each attempt when one is configured.
The vendor SDKs' own retries are switched off by each transport, so nothing stacks.

A successful call costs one ``try`` in a loop: no clock read, no allocation.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import (
    Any,
    Optional,
    Protocol,
    TypeVar,
    Union,
)

from .errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    ConfigurationError,
)

__all__ = ["RetryPolicy", "ConcurrencyLimit", "Clock", "SystemClock", "CallPolicy"]

T = TypeVar("T")
R = TypeVar("R")  # what an attempt returns (a response; a stream's chunks)

DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_WAIT = 60.0
_INITIAL_WAIT = 0.5
_MAX_BACKOFF = 8.0
_RETRY_STATUS = frozenset({408, 409, 429})


class Clock(Protocol):
    """What the drivers need from time: sleeping (sync and async) and the jitter source.
    ``aisuite_like.testing.FakeClock`` records waits instead of sleeping."""

    def sleep(self, seconds: float) -> None: ...

    async def asleep(self, seconds: float) -> None: ...

    def random(self) -> float: ...


class SystemClock:
    """The real clock: ``time.sleep``, ``asyncio.sleep``, ``random.random``."""

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def random(self) -> float:
        return random.random()


_SYSTEM_CLOCK = SystemClock()


def is_retryable(error: BaseException) -> bool:
    """Connection errors and timeouts (nothing of the reply was seen), 408, 409, 429, 5xx."""
    if isinstance(error, (APIConnectionError, APITimeoutError)):
        return True
    if isinstance(error, APIError):
        status = error.status_code
        return status is not None and (status in _RETRY_STATUS or status >= 500)
    return False


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt (0 = one attempt). The wait before
    retry n (1-based) is ``min(0.5 * 2**(n-1), 8)`` seconds less up to 25 % jitter, unless the
    error carries the server's ``retry_after`` > 0: that is honoured when it is at most
    ``max_retry_wait`` seconds; a longer demand gives up at once."""

    max_retries: int = DEFAULT_MAX_RETRIES
    max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT

    def wait_for(self, attempts: int, error: BaseException, jitter: float) -> Optional[float]:
        """Seconds to wait before attempt ``attempts + 1``, or None to give up (re-raise
        ``error``). ``jitter`` is a number in [0, 1)."""
        if attempts > self.max_retries or not is_retryable(error):
            return None
        retry_after = getattr(error, "retry_after", None)
        # Only a wait > 0 is a demand (0, negative and NaN fail this test): a server asking
        # for no wait at all gets the backoff, not a burst of immediate retries.
        if isinstance(retry_after, (int, float)) and retry_after > 0:
            if retry_after > self.max_retry_wait:
                return None
            return float(retry_after)
        return min(_INITIAL_WAIT * 2.0 ** (attempts - 1), _MAX_BACKOFF) * (1.0 - 0.25 * jitter)


class ConcurrencyLimit:
    """At most ``limit`` requests in flight, shared by threads and by any number of event
    loops (a sync client's ``acreate`` may run on several). Waiters are served first come,
    first served; a freed slot is handed straight to the next waiter."""

    __slots__ = ("limit", "_free", "_lock", "_waiters")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._free = limit
        self._lock = threading.Lock()
        self._waiters: deque[Union[threading.Event, tuple[asyncio.AbstractEventLoop,
                                                          asyncio.Future[None]]]] = deque()

    def acquire(self) -> None:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            event = threading.Event()
            self._waiters.append(event)
        event.wait()  # release() hands its slot over

    async def aacquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            future: asyncio.Future[None] = loop.create_future()
            waiter = (loop, future)
            self._waiters.append(waiter)
        try:
            await future
        except asyncio.CancelledError:
            with self._lock:
                queued = waiter in self._waiters
                if queued:
                    self._waiters.remove(waiter)
            # Not queued any more: the slot was handed over. If the hand-over already
            # completed, the slot is ours to give back; else _hand_over passes it on.
            if not queued and future.done() and not future.cancelled():
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                if isinstance(waiter, threading.Event):
                    waiter.set()
                    return
                loop, future = waiter
                if loop.is_closed():
                    continue
                try:
                    if loop is asyncio._get_running_loop():  # released on the waiter's loop:
                        loop.call_soon(self._hand_over, future)  # no self-pipe wake-up
                    else:
                        loop.call_soon_threadsafe(self._hand_over, future)
                except RuntimeError:  # the loop closed meanwhile
                    continue
                return
            self._free += 1

    def _hand_over(self, future: asyncio.Future[None]) -> None:
        if future.done():  # the waiter was cancelled: pass the slot on
            self.release()
        else:
            future.set_result(None)


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What a transport applies to every request: the retry policy, the clock, and the
    optional concurrency limit. Built from a provider's config by :func:`from_config`."""

    retry: RetryPolicy
    clock: Clock
    limit: Optional[ConcurrencyLimit]

    @classmethod
    def from_config(cls, config: dict[str, Any], provider: str) -> "CallPolicy":
        """Pops ``max_retries``, ``max_retry_wait``, ``max_concurrency`` and ``retry_clock``
        from ``config`` (a provider's own copy) and checks them."""
        max_retries = config.pop("max_retries", DEFAULT_MAX_RETRIES)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ConfigurationError(
                f"max_retries must be an int >= 0 for provider {provider!r}, got "
                f"{max_retries!r}")
        wait = config.pop("max_retry_wait", DEFAULT_MAX_RETRY_WAIT)
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait >= 0:
            raise ConfigurationError(
                f"max_retry_wait must be a number of seconds >= 0 for provider {provider!r}, "
                f"got {wait!r}")
        concurrency = config.pop("max_concurrency", None)
        if concurrency is not None and (not isinstance(concurrency, int)
                                        or isinstance(concurrency, bool) or concurrency < 1):
            raise ConfigurationError(
                f"max_concurrency must be an int >= 1 (or None: unbounded) for provider "
                f"{provider!r}, got {concurrency!r}")
        clock = config.pop("retry_clock", None) or _SYSTEM_CLOCK
        for name in ("sleep", "asleep", "random"):
            if not callable(getattr(clock, name, None)):
                raise ConfigurationError(
                    f"retry_clock must have sleep(), async asleep() and random(); it has no "
                    f"{name}()")
        return cls(RetryPolicy(max_retries, float(wait)), clock,
                   ConcurrencyLimit(concurrency) if concurrency is not None else None)

    def wait(self, attempts: int, error: APIError) -> Optional[float]:
        """The wait before the next attempt, or None: give up (a 429 whose demand is over
        ``max_retry_wait`` gives up at once, its ``retry_after`` telling the caller)."""
        return self.retry.wait_for(attempts, error, self.clock.random())


def call(policy: CallPolicy, attempt: Callable[[T], R], arg: T) -> R:
    """``attempt(arg)`` with retries (sync)."""
    limit = policy.limit
    attempts = 1
    while True:
        try:
            if limit is None:
                return attempt(arg)
            limit.acquire()
            try:
                return attempt(arg)
            finally:
                limit.release()
        except APIError as error:
            wait = policy.wait(attempts, error)
            if wait is None:
                raise
        policy.clock.sleep(wait)
        attempts += 1


async def acall(policy: CallPolicy, attempt: Callable[[T], Awaitable[R]], arg: T) -> R:
    """``await attempt(arg)`` with retries (async)."""
    limit = policy.limit
    attempts = 1
    while True:
        try:
            if limit is None:
                return await attempt(arg)
            await limit.aacquire()
            try:
                return await attempt(arg)
            finally:
                limit.release()
        except APIError as error:
            wait = policy.wait(attempts, error)
            if wait is None:
                raise
        await policy.clock.asleep(wait)
        attempts += 1


def stream(policy: CallPolicy, open_stream: Callable[[T], Iterator[R]],
           arg: T) -> Iterator[R]:
    """The chunks of ``open_stream(arg)`` (a generator that sends the request when first
    iterated), retried until its first chunk arrives; never after."""
    limit = policy.limit
    attempts = 1
    while True:
        if limit is not None:
            limit.acquire()
        chunks = open_stream(arg)
        try:
            try:
                first = next(chunks)
            except StopIteration:
                return
            except APIError as error:
                chunks.close()  # type: ignore[attr-defined]  # a generator
                wait = policy.wait(attempts, error)
                if wait is None:
                    raise
            else:
                yield first
                yield from chunks  # closing this generator closes ``chunks``
                return
        finally:
            if limit is not None:
                limit.release()
        policy.clock.sleep(wait)
        attempts += 1


def astream(policy: CallPolicy, open_stream: Callable[[T], AsyncIterator[R]],
            arg: T) -> AsyncIterator[R]:
    """Async twin of :func:`stream`."""
    if policy.limit is None:
        return _RetriedAsyncStream(policy, open_stream, arg)
    return _limited_astream(policy, open_stream, arg)


class _RetriedAsyncStream:
    """:func:`astream` without a concurrency limit. Once the first chunk arrived,
    ``__anext__`` hands out the provider stream's own awaitable: no extra coroutine or
    generator frame per chunk."""

    __slots__ = ("_policy", "_open", "_arg", "_chunks", "_next")

    def __init__(self, policy: CallPolicy, open_stream: Callable[[Any], AsyncIterator[Any]],
                 arg: Any) -> None:
        self._policy = policy
        self._open = open_stream
        self._arg = arg
        self._chunks: Any = None
        self._next: Callable[[], Awaitable[Any]] = self._first

    def __aiter__(self) -> "_RetriedAsyncStream":
        return self

    def __anext__(self) -> Awaitable[Any]:
        return self._next()

    async def _first(self) -> Any:
        policy = self._policy
        attempts = 1
        self._next = self._ended  # whatever happens below, never send again
        while True:
            chunks: Any = self._open(self._arg)
            try:
                first = await chunks.__anext__()
            except APIError as error:
                await chunks.aclose()
                wait = policy.wait(attempts, error)
                if wait is None:
                    raise
            else:
                self._chunks = chunks
                self._next = chunks.__anext__
                return first
            await policy.clock.asleep(wait)
            attempts += 1

    async def _ended(self) -> Any:
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self._next = self._ended
        chunks, self._chunks = self._chunks, None
        if chunks is not None:
            await chunks.aclose()


async def _limited_astream(policy: CallPolicy, open_stream: Callable[[T], AsyncIterator[R]],
                           arg: T) -> AsyncIterator[R]:
    limit = policy.limit
    attempts = 1
    while True:
        if limit is not None:
            await limit.aacquire()
        chunks = open_stream(arg)
        try:
            try:
                first = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except APIError as error:
                await chunks.aclose()  # type: ignore[attr-defined]  # an async generator
                wait = policy.wait(attempts, error)
                if wait is None:
                    raise
            else:
                try:
                    yield first
                    async for chunk in chunks:
                        yield chunk
                finally:  # also when the caller stops early: release the connection
                    await chunks.aclose()  # type: ignore[attr-defined]  # an async generator
                return
        finally:
            if limit is not None:
                limit.release()
        await policy.clock.asleep(wait)
        attempts += 1


#: Config keys :meth:`CallPolicy.from_config` reads; every built-in provider accepts them.
CONFIG_KEYS = frozenset({"max_retries", "max_retry_wait", "max_concurrency", "retry_clock"})
