"""One retry policy for every provider family, and the thin drivers that apply it.

The policy is sans-IO: given how many attempts were made and the typed error of the last one,
:meth:`RetryPolicy.wait_for` says "wait N seconds and retry" or "give up". The drivers
(:func:`call`, :func:`acall`, :func:`stream`, :func:`astream`) only sleep and call, holding a
slot of the provider's :class:`ConcurrencyLimit` for each attempt when one is configured.
The vendor SDKs' own retries are switched off by each transport, so nothing stacks.

**Attempt deadlines.** Given :class:`Bounds` (a provider's ``timeout``, see
:meth:`CallPolicy.bounds`), a driver bounds each attempt as a whole, not each socket read: a
call's attempt (connect, send, the entire reply) ends within ``Bounds.attempt`` seconds; a
stream's first chunk must reach the caller within ``Bounds.attempt`` of the attempt's start
and each later chunk within ``Bounds.gap`` of the caller asking for it (keep-alive bytes that
bring no chunk do not count; a long stream whose chunks keep coming is never cut). One
deadline per wait, two enforcements:

- sync: the driver sets :data:`DEADLINE` (a ``time.monotonic()`` value) while the attempt
  runs; the sync transports' I/O seams (``providers/_common``: the httpcore2 network backend
  of the httpx2 families, the urllib3 sockets of botocore) give every connect, write and read
  only the time left, so a reply trickled a byte at a time still ends at the deadline.
- async: a :class:`_Watch` cancels the waiting task at the deadline (any async transport:
  httpx2, aiohttp, Bedrock's thread bridge, which also gets :data:`DEADLINE`).

Either way the caller gets ``APITimeoutError`` (retried like any timeout before a stream's
first chunk). A successful attempt costs one clock read and a context-variable set / reset;
a stream chunk the same (async: an attribute store, the timer is rescheduled lazily).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Optional,
    Protocol,
    TypeVar,
    Union,
)

from ..core.errors import APIConnectionError, APIError, APITimeoutError, ConfigurationError
from ..core.exchange import note_retry
from .body_limits import (
    CONFIG_KEYS as BODY_CONFIG_KEYS,
    DEFAULT_LIMITS,
    BodyLimits,
    limits_from_config,
)

if TYPE_CHECKING:
    import asyncio  # imported by the async code that runs: a sync-only process never loads it

__all__ = ["RetryPolicy", "ConcurrencyLimit", "Clock", "SystemClock", "CallPolicy", "Bounds",
           "DEADLINE", "HAND_UP"]

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
        import asyncio

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
        import asyncio

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
                import asyncio  # loaded: an async waiter is waiting

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


#: Errors the drivers hand straight to the caller instead of retrying them, in this context:
#: set by a caller that has a better place to send the request again (the router moves a
#: call to another deployment at once, docs/router.md). Empty: every retryable error is
#: retried as the policy says. Read only after a failed attempt.
HAND_UP: ContextVar[tuple[type[BaseException], ...]] = ContextVar("aisuite_like_hand_up",
                                                                  default=())


#: The end of the attempt running in this context (a ``time.monotonic()`` value), or None:
#: set by the drivers, read by the sync transports' I/O seams (``providers/_common``).
DEADLINE: ContextVar[Optional[float]] = ContextVar("aisuite_like_attempt_deadline",
                                                   default=None)


@dataclass(frozen=True, slots=True)
class Bounds:
    """An attempt's time bounds, in seconds (None: unbounded). ``attempt``: a call's whole
    attempt, or a stream's wait for its first chunk from the attempt's start; ``gap``: a
    stream's wait for each later chunk."""

    attempt: Optional[float]
    gap: Optional[float]


def timeout_seconds(timeout: Any) -> Optional[float]:
    """A ``timeout`` setting as the seconds that bound a whole attempt: a number as is; an
    ``httpx2.Timeout`` (or anything with a ``read`` part) its ``read`` value (None: no
    bound); None stays None."""
    if timeout is None or isinstance(timeout, bool):
        return None
    if isinstance(timeout, (int, float)):
        return float(timeout)
    read = getattr(timeout, "read", None)
    return float(read) if isinstance(read, (int, float)) and not isinstance(read, bool) else None


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What a transport applies to every request: the retry policy, the clock, the optional
    concurrency limit and the attempt bounds. Built from a provider's config by
    :func:`from_config`."""

    retry: RetryPolicy
    clock: Clock
    limit: Optional[ConcurrencyLimit]
    provider: str = ""
    #: seconds that bound an attempt when the call gives no ``timeout`` (None: unbounded)
    timeout: Optional[float] = None
    #: ``stream_gap_timeout``: the most seconds between two chunks (None: ``timeout``'s)
    stream_gap: Optional[float] = None
    host: str = ""  # where requests go, for timeout messages
    #: ``max_reply_bytes`` / ``max_event_bytes``: the size bounds of what the server sends
    body: BodyLimits = DEFAULT_LIMITS

    @classmethod
    def from_config(cls, config: dict[str, Any], provider: str,
                    default_timeout: Optional[float] = None, host: str = "", *,
                    where: Optional[str] = None) -> "CallPolicy":
        """Pops ``max_retries``, ``max_retry_wait``, ``max_concurrency``, ``retry_clock``,
        ``stream_gap_timeout``, ``max_reply_bytes`` and ``max_event_bytes`` from ``config``
        (a provider's own copy) and checks them; reads (leaves) ``timeout``, whose default is
        ``default_timeout``. ``where`` names the settings in an error (default: ``for
        provider '<provider>'``)."""
        at = where if where is not None else f"for provider {provider!r}"
        max_retries = config.pop("max_retries", DEFAULT_MAX_RETRIES)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ConfigurationError(
                f"max_retries must be an int >= 0 {at}, got {max_retries!r}")
        wait = config.pop("max_retry_wait", DEFAULT_MAX_RETRY_WAIT)
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait >= 0:
            raise ConfigurationError(
                f"max_retry_wait must be a number of seconds >= 0 {at}, got {wait!r}")
        concurrency = config.pop("max_concurrency", None)
        if concurrency is not None and (not isinstance(concurrency, int)
                                        or isinstance(concurrency, bool) or concurrency < 1):
            raise ConfigurationError(
                f"max_concurrency must be an int >= 1 (or None: unbounded) {at}, got "
                f"{concurrency!r}")
        gap = config.pop("stream_gap_timeout", None)
        if gap is not None and (isinstance(gap, bool) or not isinstance(gap, (int, float))
                                or not 0 < gap < math.inf):
            raise ConfigurationError(
                f"stream_gap_timeout must be a number of seconds > 0 (or None: the timeout) "
                f"{at}, got {gap!r}")
        clock = config.pop("retry_clock", None) or _SYSTEM_CLOCK
        for name in ("sleep", "asleep", "random"):
            if not callable(getattr(clock, name, None)):
                raise ConfigurationError(
                    f"retry_clock must have sleep(), async asleep() and random(); it has no "
                    f"{name}()")
        body = limits_from_config(config, at)
        configured = config.get("timeout")
        timeout = default_timeout if configured is None else timeout_seconds(configured)
        return cls(RetryPolicy(max_retries, float(wait)), clock,
                   ConcurrencyLimit(concurrency) if concurrency is not None else None,
                   provider, timeout, None if gap is None else float(gap), host, body)

    def wait(self, attempts: int, error: APIError) -> Optional[float]:
        """The wait before the next attempt, or None: give up (a 429 whose demand is over
        ``max_retry_wait`` gives up at once, its ``retry_after`` telling the caller; an error
        of a kind in :data:`HAND_UP` at once)."""
        if isinstance(error, HAND_UP.get()):
            return None
        return self.retry.wait_for(attempts, error, self.clock.random())

    def bounds(self, timeout: Any = None) -> Bounds:
        """The bounds of a call whose own ``timeout`` is ``timeout`` (None: the config's)."""
        attempt = self.timeout if timeout is None else timeout_seconds(timeout)
        return Bounds(attempt, self.stream_gap if self.stream_gap is not None else attempt)

    def timed_out(self, what: str, seconds: float) -> APITimeoutError:
        """The error of an attempt that ran past its bound (``what`` says which)."""
        where = f" at {self.host}" if self.host else ""
        text = {
            "attempt": f"no complete reply within timeout={seconds:g} s (it bounds the whole "
                       "attempt: connecting, sending and reading the entire reply)",
            "first": f"the stream sent no chunk within timeout={seconds:g} s of the request "
                     "(keep-alive comments and pings do not count)",
            "gap": f"the stream sent no further chunk within "
                   f"{'stream_gap_timeout' if self.stream_gap is not None else 'timeout'}="
                   f"{seconds:g} s of the caller asking for it (keep-alive comments and pings "
                   "do not count)",
        }[what]
        return APITimeoutError(f"request to {self.provider}{where} timed out: {text}",
                               provider=self.provider or None)


def _transport_failure(error: APIError) -> bool:
    """An error a deadline cut short reads as one of these (a read that ran out of time, or
    a connection the seam gave up on)."""
    return isinstance(error, (APITimeoutError, APIConnectionError))


class _Watch:
    """Cancels the task waiting on an attempt once its deadline has passed (async). One
    timer per attempt: moving the deadline later (the next chunk of a stream) is an attribute
    store; the timer, when it fires early, reschedules itself for the current deadline."""

    __slots__ = ("loop", "task", "deadline", "waiting", "handle", "fired")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.task: Optional[asyncio.Task[Any]] = None
        self.deadline = 0.0
        self.waiting = False
        self.handle: Optional[asyncio.TimerHandle] = None
        self.fired = False

    def arm(self, seconds: float) -> None:
        """The current task waits for at most ``seconds`` from now."""
        import asyncio

        self.task = asyncio.current_task()
        self.deadline = deadline = self.loop.time() + seconds
        self.waiting = True
        handle = self.handle
        if handle is None or handle.when() > deadline:
            if handle is not None:
                handle.cancel()
            self.handle = self.loop.call_at(deadline, self._check)

    def disarm(self) -> None:
        self.waiting = False

    def close(self) -> None:
        self.waiting = False
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _check(self) -> None:
        self.handle = None
        if not self.waiting:
            return
        if self.loop.time() < self.deadline:
            self.handle = self.loop.call_at(self.deadline, self._check)
            return
        if self.task is not None:
            self.fired = True
            self.task.cancel()

    def timed_out(self) -> bool:
        """After a ``CancelledError``: whether the cancellation was ours (then the task's
        cancel request is withdrawn). A cancellation by someone else wins."""
        if not self.fired:
            return False
        self.fired = False
        task = self.task
        uncancel = getattr(task, "uncancel", None)  # Python 3.11+
        if uncancel is not None:
            uncancel()
            if task.cancelling():  # type: ignore[union-attr]  # a Task when uncancel exists
                return False
        return True


def _bounded_call(policy: CallPolicy, attempt: Callable[[T], R], arg: T, seconds: float) -> R:
    """``attempt(arg)`` under a deadline ``seconds`` from now, which the sync transports'
    seams enforce on every connect, write and read."""
    deadline = time.monotonic() + seconds
    token = DEADLINE.set(deadline)
    try:
        return attempt(arg)
    except APIError as error:
        if _transport_failure(error) and time.monotonic() >= deadline:
            raise policy.timed_out("attempt", seconds) from error
        raise
    finally:
        DEADLINE.reset(token)


def next_within(policy: CallPolicy, chunks: Iterator[R], seconds: Optional[float],
                 what: str) -> R:
    """``next(chunks)`` under a deadline ``seconds`` from now (None: unbounded); ``what``
    ("first" or "gap") names the bound in the timeout error. Also for a thread that reads a
    stream on an async caller's behalf (Bedrock's bridge)."""
    if seconds is None:
        return next(chunks)
    deadline = time.monotonic() + seconds
    token = DEADLINE.set(deadline)
    try:
        return next(chunks)
    except APIError as error:
        if _transport_failure(error) and time.monotonic() >= deadline:
            raise policy.timed_out(what, seconds) from error
        raise
    finally:
        DEADLINE.reset(token)


def call(policy: CallPolicy, attempt: Callable[[T], R], arg: T,
         bounds: Optional[Bounds] = None) -> R:
    """``attempt(arg)`` with retries (sync), each attempt within ``bounds.attempt``."""
    limit = policy.limit
    seconds = bounds.attempt if bounds is not None else None
    attempts = 1
    while True:
        try:
            if limit is not None:
                limit.acquire()
            try:
                if seconds is None:
                    return attempt(arg)
                return _bounded_call(policy, attempt, arg, seconds)
            finally:
                if limit is not None:
                    limit.release()
        except APIError as error:
            wait = policy.wait(attempts, error)
            if wait is None:
                raise
        note_retry()  # counted for with_raw_response (docs/client.md)
        policy.clock.sleep(wait)
        attempts += 1


async def acall(policy: CallPolicy, attempt: Callable[[T], Awaitable[R]], arg: T,
                bounds: Optional[Bounds] = None) -> R:
    """``await attempt(arg)`` with retries (async), each attempt within ``bounds.attempt``."""
    import asyncio

    limit = policy.limit
    seconds = bounds.attempt if bounds is not None else None
    attempts = 1
    while True:
        try:
            if limit is not None:
                await limit.aacquire()
            try:
                if seconds is None:
                    return await attempt(arg)
                # the attempt's deadline in this frame, not a wrapping coroutine: one frame
                # less held per request in flight (async twin of _bounded_call)
                watch = _Watch(asyncio.get_running_loop())
                watch.arm(seconds)
                deadline = time.monotonic() + seconds
                token = DEADLINE.set(deadline)  # for work the attempt hands to a thread
                try:
                    return await attempt(arg)
                except asyncio.CancelledError:
                    if watch.timed_out():
                        raise policy.timed_out("attempt", seconds) from None
                    raise
                except APIError as error:
                    if _transport_failure(error) and time.monotonic() >= deadline:
                        raise policy.timed_out("attempt", seconds) from error
                    raise
                finally:
                    watch.close()
                    DEADLINE.reset(token)
            finally:
                if limit is not None:
                    limit.release()
        except APIError as error:
            wait = policy.wait(attempts, error)
            if wait is None:
                raise
        note_retry()
        await policy.clock.asleep(wait)
        attempts += 1


def stream(policy: CallPolicy, open_stream: Callable[[T], Iterator[R]], arg: T,
           bounds: Optional[Bounds] = None) -> Iterator[R]:
    """The chunks of ``open_stream(arg)`` (a generator that sends the request when first
    iterated), retried until its first chunk arrives; never after. The first chunk within
    ``bounds.attempt`` of the attempt's start, each later one within ``bounds.gap``."""
    limit = policy.limit
    first_s, gap_s = (bounds.attempt, bounds.gap) if bounds is not None else (None, None)
    attempts = 1
    while True:
        if limit is not None:
            limit.acquire()
        chunks = open_stream(arg)
        try:
            try:
                first = next_within(policy, chunks, first_s, "first")
            except StopIteration:
                return
            except APIError as error:
                chunks.close()  # type: ignore[attr-defined]  # a generator
                wait = policy.wait(attempts, error)
                if wait is None:
                    raise
            else:
                yield first
                if gap_s is None:
                    yield from chunks  # closing this generator closes ``chunks``
                    return
                try:
                    while True:
                        try:
                            chunk = next_within(policy, chunks, gap_s, "gap")
                        except StopIteration:
                            return
                        yield chunk
                finally:
                    chunks.close()  # type: ignore[attr-defined]  # a generator
        finally:
            if limit is not None:
                limit.release()
        note_retry()  # counted for with_raw_response (docs/client.md)
        policy.clock.sleep(wait)
        attempts += 1


def astream(policy: CallPolicy, open_stream: Callable[[T], AsyncIterator[R]],
            arg: T, bounds: Optional[Bounds] = None) -> AsyncIterator[R]:
    """Async twin of :func:`stream`."""
    if policy.limit is None:
        return _RetriedAsyncStream(policy, open_stream, arg, bounds)
    return _limited_astream(policy, open_stream, arg, bounds)


class _RetriedAsyncStream:
    """:func:`astream` without a concurrency limit. Once the first chunk arrived,
    ``__anext__`` hands out the provider stream's own awaitable when the stream has no gap
    bound (no extra coroutine or generator frame per chunk), else one bounded wait."""

    __slots__ = ("_policy", "_open", "_arg", "_bounds", "_chunks", "_next", "_watch")

    def __init__(self, policy: CallPolicy, open_stream: Callable[[Any], AsyncIterator[Any]],
                 arg: Any, bounds: Optional[Bounds] = None) -> None:
        self._policy = policy
        self._open = open_stream
        self._arg = arg
        self._bounds = bounds
        self._chunks: Any = None
        self._next: Callable[[], Awaitable[Any]] = self._first
        self._watch: Optional[_Watch] = None

    def __aiter__(self) -> "_RetriedAsyncStream":
        return self

    def __anext__(self) -> Awaitable[Any]:
        return self._next()

    async def _first(self) -> Any:
        policy = self._policy
        bounds = self._bounds
        first_s = bounds.attempt if bounds is not None else None
        attempts = 1
        self._next = self._ended  # whatever happens below, never send again
        while True:
            chunks: Any = self._open(self._arg)
            try:
                if first_s is None:
                    first = await chunks.__anext__()
                else:
                    first = await self._within(chunks, first_s, "first")
            except APIError as error:
                await chunks.aclose()
                wait = policy.wait(attempts, error)
                if wait is None:
                    self._close_watch()
                    raise
            except BaseException:
                self._close_watch()
                raise
            else:
                self._chunks = chunks
                if bounds is None or bounds.gap is None:
                    self._close_watch()
                    self._next = chunks.__anext__
                else:
                    self._next = self._gap
                return first
            note_retry()
            await policy.clock.asleep(wait)
            attempts += 1

    async def _gap(self) -> Any:
        assert self._bounds is not None and self._bounds.gap is not None
        try:
            return await self._within(self._chunks, self._bounds.gap, "gap")
        except BaseException:
            self._close_watch()
            raise

    async def _within(self, chunks: Any, seconds: float, what: str) -> Any:
        import asyncio

        watch = self._watch
        if watch is None:
            watch = self._watch = _Watch(asyncio.get_running_loop())
        watch.arm(seconds)
        try:
            return await chunks.__anext__()
        except asyncio.CancelledError:
            if watch.timed_out():
                self._next = self._ended
                await chunks.aclose()
                raise self._policy.timed_out(what, seconds) from None
            raise
        except APIError as error:
            if _transport_failure(error) and asyncio.get_running_loop().time() >= \
                    watch.deadline:
                raise self._policy.timed_out(what, seconds) from error
            raise
        finally:
            watch.disarm()

    def _close_watch(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    async def _ended(self) -> Any:
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self._next = self._ended
        self._close_watch()
        chunks, self._chunks = self._chunks, None
        if chunks is not None:
            await chunks.aclose()


async def _anext_within(policy: CallPolicy, watch: _Watch, chunks: AsyncIterator[R],
                        seconds: Optional[float], what: str) -> R:
    """``await chunks.__anext__()`` within ``seconds`` (None: unbounded)."""
    import asyncio

    if seconds is None:
        return await chunks.__anext__()
    watch.arm(seconds)
    try:
        return await chunks.__anext__()
    except asyncio.CancelledError:
        if watch.timed_out():
            raise policy.timed_out(what, seconds) from None
        raise
    except APIError as error:
        if _transport_failure(error) and watch.loop.time() >= watch.deadline:
            raise policy.timed_out(what, seconds) from error
        raise
    finally:
        watch.disarm()


async def _limited_astream(policy: CallPolicy, open_stream: Callable[[T], AsyncIterator[R]],
                           arg: T, bounds: Optional[Bounds] = None) -> AsyncIterator[R]:
    import asyncio

    limit = policy.limit
    first_s, gap_s = (bounds.attempt, bounds.gap) if bounds is not None else (None, None)
    watch = _Watch(asyncio.get_running_loop())
    attempts = 1
    try:
        while True:
            if limit is not None:
                await limit.aacquire()
            chunks = open_stream(arg)
            try:
                try:
                    first = await _anext_within(policy, watch, chunks, first_s, "first")
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
                        while True:
                            try:
                                chunk = await _anext_within(policy, watch, chunks, gap_s, "gap")
                            except StopAsyncIteration:
                                break
                            yield chunk
                    finally:  # also when the caller stops early: release the connection
                        await chunks.aclose()  # type: ignore[attr-defined]  # an async generator
                    return
            finally:
                if limit is not None:
                    limit.release()
            note_retry()
            await policy.clock.asleep(wait)
            attempts += 1
    finally:
        watch.close()


#: Config keys :meth:`CallPolicy.from_config` reads; every built-in provider accepts them.
CONFIG_KEYS = frozenset({"max_retries", "max_retry_wait", "max_concurrency", "retry_clock",
                         "stream_gap_timeout"}) | BODY_CONFIG_KEYS
