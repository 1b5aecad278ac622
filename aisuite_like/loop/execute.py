"""How one tool call executes, sync or async, within its timeout (docs/tool-runner.md).

Sync tools of the async runner run on daemon threads (a program interrupted while a tool runs
is not held up by it) until they have shown themselves instant, then on the event loop
(:func:`runs_inline`, docs/tool-runner.md#where-sync-tools-run); a timed sync tool gets a
thread of its own; a timed async tool runs on an event loop of
its own in a daemon thread, so one that ignores cancellation or blocks its loop is still
bounded (``Tool(timeout=math.inf)`` keeps a tool on the caller's loop). Each function records
the outcome on the ``ToolCallRun``; none raises for a tool's own failure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Optional

from ..core.sync_bridge import daemon_thread_future, run_coro_sync as _run_coro_sync
from .engine import ToolCallRun

__all__ = ["execute_sync_call", "execute_async_call", "execute_scoped_sync", "execute_scoped_async",
           "ToolThreads", "DaemonThreads", "runs_inline", "INSTANT_CALL_S", "INSTANT_CALLS",
           "Interrupt", "carry_interrupt", "raise_interrupt"]

#: A sync tool call that returns within this many seconds is "instant".
INSTANT_CALL_S = 0.001
#: After this many instant calls in a row (in threads), a sync tool with ``inline=None`` runs
#: on the event loop; its first call that is not instant sends it back to threads for good.
INSTANT_CALLS = 3


def runs_inline(tool: Any) -> bool:
    """Whether a sync tool without a timeout runs on the async runner's event loop: always
    with ``Tool(inline=True)``, never with ``inline=False``; by default once its last
    ``INSTANT_CALLS`` calls each returned within ``INSTANT_CALL_S`` and none ever took
    longer (docs/tool-runner.md#where-sync-tools-run)."""
    inline: Optional[bool] = tool.inline
    if inline is not None:
        return inline
    return bool(tool.instant_calls >= INSTANT_CALLS)


def _record_pace(tool: Any, seconds: float) -> None:
    """Count an instant call of a tool that decides by measurement; one that was not
    instant keeps it in threads from now on (-1). Races between threads only move a count
    by one: the rule stays conservative."""
    if tool.inline is not None or tool.instant_calls < 0:
        return
    tool.instant_calls = tool.instant_calls + 1 if seconds < INSTANT_CALL_S else -1


def _timed_call(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call a sync tool (in whatever thread runs this) and record how long it took."""
    start = time.perf_counter()
    try:
        return tool.fn(*args, **kwargs)
    finally:
        _record_pace(tool, time.perf_counter() - start)

class Interrupt(Exception):
    """A ``KeyboardInterrupt`` or ``SystemExit`` (``original``) raised inside a task the run
    started (a tool's, a parallel group's, an agent run's), carried to the task that awaits
    it as an ordinary exception: one that leaves a task as itself stops the event loop at
    once, before its awaiter can see it, and ``asyncio.run`` then prints "Task exception was
    never retrieved" beside the caller's traceback. The awaiting side re-raises
    ``original`` (:func:`raise_interrupt`), so the caller gets it unchanged."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(type(original).__name__)
        self.original = original


async def carry_interrupt(awaitable: Any) -> Any:
    """``await awaitable`` in a task of the run's own: a ``KeyboardInterrupt`` / ``SystemExit``
    leaves as :class:`Interrupt`."""
    try:
        return await awaitable
    except (KeyboardInterrupt, SystemExit) as exc:
        raise Interrupt(exc) from None


def raise_interrupt(error: BaseException) -> None:
    """Raise what ``error`` carries when it is an :class:`Interrupt` (nothing otherwise)."""
    if isinstance(error, Interrupt):
        original = error.original
        raise original.with_traceback(original.__traceback__)


class _ToolTimeout(Exception):
    """Raised by the drivers' timeout helpers (a tool cannot raise it by accident)."""


class DaemonThreads:
    """At most ``limit`` daemon threads running submitted calls (started on need, reused).
    Not a ``ThreadPoolExecutor``: the interpreter joins its threads at exit, so a program
    interrupted (Ctrl-C) while a sync tool runs would wait for the tool; a daemon thread
    is left behind instead. ``close`` does not wait for running calls."""

    __slots__ = ("limit", "_queue", "_lock", "_threads", "_idle", "_pending")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = self._idle = self._pending = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> "concurrent.futures.Future[Any]":
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        context = contextvars.copy_context()
        with self._lock:
            self._pending += 1
            start = self._pending > self._idle and self._threads < self.limit
            if start:
                self._threads += 1
        self._queue.put((future, context, fn, args))
        if start:
            threading.Thread(target=self._work, daemon=True, name="aisuite-like-tools").start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            item = self._queue.get()
            with self._lock:
                self._idle -= 1
                if item is None:
                    self._threads -= 1
                    return
                self._pending -= 1
            future, context, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                value = context.run(fn, *args)
            except BaseException as exc:  # handed to whoever waits on the future
                future.set_exception(exc)
            else:
                future.set_result(value)
            del future, context, fn, args, item  # nothing kept alive while idle

    def close(self) -> None:
        """Idle threads end; busy ones end after their call (nobody waits for them)."""
        with self._lock:
            threads = self._threads
        for _ in range(threads):
            self._queue.put(None)


def _call_in_thread(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                    timeout: float) -> Any:
    """Run a sync tool with a deadline. Python cannot stop a thread: a timed-out tool keeps
    running in its daemon thread, but the run moves on without it."""
    box: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            box["value"] = context.run(fn, *args, **kwargs)
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="aisuite-like-tool")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _ToolTimeout
    if "error" in box:
        raise box["error"]
    return box["value"]


class _OwnLoop:
    """One call of an async tool that has a deadline, on an event loop of its own in a daemon
    thread (docs/tool-runner.md#timeouts): a tool that ignores cancellation or blocks its
    loop (``time.sleep`` in an ``async def``) holds that thread only, never the caller's loop
    or its ``asyncio.run``, and the run goes on at the deadline. ``result`` is a
    ``concurrent.futures.Future``; ``cancel`` asks the tool's loop to cancel it."""

    __slots__ = ("result", "_loop", "_task")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.result: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._loop = asyncio.new_event_loop()
        self._task: Optional[asyncio.Task[Any]] = None
        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(self._run, fn, args, kwargs), daemon=True,
                         name="aisuite-like-tool").start()

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> None:
        loop = self._loop

        async def call() -> Any:  # inside the loop: a tool that asks for one finds it
            return await fn(*args, **kwargs)

        try:
            self._task = loop.create_task(call())
            value = loop.run_until_complete(self._task)
        except BaseException as exc:  # the tool's error (or its cancellation), for the waiter
            if not self.result.done():
                self.result.set_exception(exc)
        else:
            if not self.result.done():
                self.result.set_result(value)
        finally:  # as asyncio.run ends: tasks the tool started are cancelled with the call
            try:
                rest = asyncio.all_tasks(loop)
                for task in rest:
                    task.cancel()
                if rest:  # gather() of nothing would look for this thread's (absent) loop
                    loop.run_until_complete(asyncio.gather(*rest, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    def cancel(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._cancel)
        except RuntimeError:  # the loop is closed: the call is over
            pass

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


def _own_loop(call: ToolCallRun) -> bool:
    """Whether this async call runs on an event loop of its own: when it has a deadline,
    unless the tool is one of the agent machinery's own (handoffs), which run on the
    caller's loop."""
    return call.timeout is not None and not getattr(call.tool, "_on_caller_loop", False)


async def _await_with_timeout(awaitable: Any, timeout: Optional[float]) -> Any:
    """Await with a deadline, telling our timeout apart from a TimeoutError the tool raised."""
    if timeout is None:
        return await awaitable
    task = asyncio.ensure_future(carry_interrupt(awaitable))
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise _ToolTimeout
    error = task.exception()
    if error is not None:
        raise_interrupt(error)
    return task.result()


async def _await_own_loop(fn: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any], timeout: float) -> Any:
    """An async tool on its own loop (:class:`_OwnLoop`), awaited with a deadline; at the
    deadline, or when the run is cancelled, the tool is cancelled there and not waited for."""
    own = _OwnLoop(fn, args, kwargs)
    try:
        return await _await_with_timeout(asyncio.wrap_future(own.result), timeout)
    except BaseException:
        own.cancel()
        raise


def _wait_own_loop(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                   timeout: float) -> Any:
    """Sync twin of :func:`_await_own_loop`."""
    own = _OwnLoop(fn, args, kwargs)
    try:
        return own.result.result(timeout)
    except concurrent.futures.TimeoutError:
        if own.result.done():  # finished at the deadline: its own outcome
            return own.result.result()
        raise _ToolTimeout from None
    finally:
        if not own.result.done():
            own.cancel()


def execute_scoped_sync(call: ToolCallRun) -> None:
    """Execute ``call`` inside its ``scope`` (the hooks' ``tool_context``), if any."""
    if call.scope is None:
        execute_sync_call(call)
        return
    with call.scope:
        execute_sync_call(call)


async def execute_scoped_async(call: ToolCallRun) -> None:
    if call.scope is None:
        await execute_async_call(call)
        return
    with call.scope:
        await execute_async_call(call)


def execute_sync_call(call: ToolCallRun) -> None:
    tool = call.tool
    assert tool is not None
    args, kwargs = tool._call_args(call.kwargs, call.context)
    timeout = call.timeout
    start = time.perf_counter()
    try:
        if tool.is_async:
            if _own_loop(call):
                value = _wait_own_loop(tool.fn, args, kwargs, timeout)  # type: ignore[arg-type]  # set when _own_loop
            else:
                value = _run_coro_sync(_await_with_timeout(tool.fn(*args, **kwargs), timeout))
        elif timeout is not None:
            value = _call_in_thread(tool.fn, args, kwargs, timeout)
        else:
            value = tool.fn(*args, **kwargs)
    except _ToolTimeout:
        call.time_out(timeout or 0.0, time.perf_counter() - start)
    except Exception as exc:
        call.fail(exc, time.perf_counter() - start)
    else:
        call.succeed(value, time.perf_counter() - start)


async def execute_async_call(call: ToolCallRun) -> None:
    tool = call.tool
    assert tool is not None
    args, kwargs = tool._call_args(call.kwargs, call.context)
    timeout = call.timeout
    start = time.perf_counter()
    try:
        if tool.is_async:
            if _own_loop(call):
                value = await _await_own_loop(tool.fn, args, kwargs, timeout)  # type: ignore[arg-type]  # set when _own_loop
            else:
                value = await _await_with_timeout(tool.fn(*args, **kwargs), timeout)
        elif timeout is None:  # a sync tool must not block the event loop...
            if runs_inline(tool):  # ...unless it returns at once: no thread hop
                # in a copy of the context, as in a thread: what the tool sets stays its own
                value = contextvars.copy_context().run(_timed_call, tool, args, kwargs)
                # ...and still yields to the loop once, as the hop would: other tasks run, and
                # a run cancelled meanwhile stops here, not at its next network wait
                await asyncio.sleep(0)
            elif call.threads is not None:
                value = await call.threads.run(_timed_call, (tool, args, kwargs), {})
            else:  # a daemon thread, not the loop's executor: asyncio.run never waits for it
                value = await daemon_thread_future(_timed_call, (tool, args, kwargs), {})
        else:
            value = await _await_with_timeout(
                daemon_thread_future(tool.fn, args, kwargs), timeout)
    except _ToolTimeout:
        call.time_out(timeout or 0.0, time.perf_counter() - start)
    except Exception as exc:
        call.fail(exc, time.perf_counter() - start)
    else:
        call.succeed(value, time.perf_counter() - start)


class ToolThreads:
    """The async run's threads for sync tools: ``limit`` (``max_tool_concurrency``) daemon
    threads (:class:`DaemonThreads`), created on first need, one pool per run; not the event
    loop's default executor, whose size has nothing to do with the run's bound and which
    ``asyncio.run`` waits for. A sync tool with a timeout gets a daemon thread of its own
    instead (``daemon_thread_future``): an abandoned call must not hold a pool thread."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pool: Optional[DaemonThreads] = None

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> "asyncio.Future[Any]":
        if self._pool is None:
            self._pool = DaemonThreads(self.limit)
        return asyncio.wrap_future(self._pool.submit(functools.partial(fn, *args, **kwargs)))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
