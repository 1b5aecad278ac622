"""Running a coroutine to completion from sync code, whether or not an event loop runs in
this thread. Used by the tool runner's sync driver, the agents' ``run_sync`` and aisuite's
``Tools.execute_tool``; stdlib only, so any module may import it."""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["run_coro_sync"]


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
