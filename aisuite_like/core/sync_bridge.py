"""Running a coroutine to completion from sync code, whether or not an event loop runs in
this thread (the tool runner's sync driver, the agents' ``run_sync`` and aisuite's
``Tools.execute_tool``), and sync work from async code on a daemon thread
(``daemon_thread_future``: the async tool runner's and ``Tools.aexecute_tool``'s sync tools).
Stdlib only, so any module may import it."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["run_coro_sync", "daemon_thread_future"]


def run_coro_sync(awaitable: Any) -> Any:
    """Run an awaitable to completion from sync code: in this thread when no event loop runs
    here, else in a helper thread with its own loop (the sync client used inside async code)."""

    async def _await() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await())
    with ThreadPoolExecutor(1, thread_name_prefix="aisuite-like-async") as helper:
        return helper.submit(contextvars.copy_context().run, asyncio.run, _await()).result()


def daemon_thread_future(fn: Callable[..., Any], args: tuple[Any, ...],
                         kwargs: dict[str, Any]) -> "asyncio.Future[Any]":
    """``fn(*args, **kwargs)`` on a daemon thread of its own (in a copy of the caller's
    context), as a future of the running loop. Not the loop's default executor
    (``asyncio.to_thread``): ``asyncio.run`` waits for that executor's threads at exit, so a
    sync tool still running when its call was cancelled or timed out would hold the caller's
    program up until it returned. A daemon thread is left behind instead; its result is
    dropped when nobody waits for it any more."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def target() -> None:
        try:
            outcome = (True, context.run(fn, *args, **kwargs))
        except BaseException as exc:  # handed to the awaiting task
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is gone: nobody waits for this result any more
            pass

    threading.Thread(target=target, daemon=True, name="aisuite-like-tool").start()
    return future
