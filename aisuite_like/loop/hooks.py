"""The hooks of the tool loop's drivers (docs/tool-runner.md): ``RunHooks``, the points at
which a layer built on the drivers watches a run (agents' events, durable runs, the
OpenTelemetry instrumentation), and what the drivers need to call them: a chain of several
hooks objects as one, and the run's context entered around each stretch of a driver's work."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse
    from .engine import CallModel, ToolBatch, ToolCallRun, ToolLoop

__all__ = ["RunHooks"]


class RunHooks:
    """No-op observation points; override what you need. In the async driver a hook may be a
    coroutine function (awaited, so a slow consumer slows the run); in the sync driver an
    awaitable result is run to completion. A hook that raises aborts the run.

    A driver calls ``on_run_start`` once, then the hooks of each step as the run goes, then
    ``on_run_end`` once, however the run ends. ``run_context`` and ``tool_context`` let a
    layer put something in force (a current span, a context variable) while the driver works
    and while a tool runs: this is how ``aisuite_like.instrument()`` watches every run."""

    def on_run_start(self, engine: ToolLoop) -> Any:
        """Once, before the run's first action (its first model call)."""

    def on_run_end(self, engine: ToolLoop, error: Optional[BaseException]) -> Any:
        """Once, when the driver stops: ``error`` is what it raises (``asyncio.CancelledError``
        as is when the run is cancelled); None when the run finished or the consumer of its
        stream closed it early."""

    def run_context(self, engine: ToolLoop) -> Optional[AbstractContextManager[Any]]:
        """Asked once, after ``on_run_start``. The driver enters the context manager returned
        around each stretch of its own work (model calls, policy, tool execution, the other
        hooks, ``on_run_end`` excepted) and leaves it while the consumer of a streamed run
        holds a chunk, so it is entered and left many times, never nested; the last exit of a
        run that fails gets the error. None (the default): nothing to enter."""
        return None

    def tool_context(self, engine: ToolLoop, call: ToolCallRun) -> Optional[
            AbstractContextManager[Any]]:
        """Asked for each call that will execute, after ``on_tools_decided``. The context
        manager returned is entered around the call's execution in the thread or task that
        executes it (a model call the tool makes runs inside it); a call that never starts
        (its run was cancelled, a durable run replays its recorded result) never enters it.
        None (the default): nothing to enter."""
        return None

    def on_model_request(self, engine: ToolLoop, action: CallModel) -> Any:
        """Before each model call."""

    def on_chunk(self, engine: ToolLoop, chunk: ChatCompletionChunk) -> Any:
        """Each streamed chunk (``chunk.turn`` set)."""

    def on_model_response(self, engine: ToolLoop, response: ChatCompletionResponse) -> Any:
        """Each model response (accumulated when streamed), before the engine sees it."""

    def on_tool_batch(self, engine: ToolLoop, batch: ToolBatch) -> Any:
        """The calls of a response, before the policy is asked and anything runs."""

    def on_tools_decided(self, engine: ToolLoop, batch: ToolBatch) -> Any:
        """The policy was asked and the arguments validated; nothing executed yet. The calls
        that will not execute are ``done`` already, with their error result (unknown tool,
        invalid arguments, denied, answered by the run without running); the others are
        ``runnable``."""

    def on_tool_result(self, engine: ToolLoop, call: ToolCallRun) -> Any:
        """Each call's outcome, in call order, after its batch finished."""

    def on_tool_start(self, engine: ToolLoop, call: ToolCallRun) -> Any:
        """Just before an allowed, validated call executes (calls of one group may run
        concurrently, so starts and ends interleave)."""

    def on_tool_end(self, engine: ToolLoop, call: ToolCallRun) -> Any:
        """Just after a call executed (``call.result`` is set)."""


#: The hooks that observe (everything but the two contexts).
_EVENTS = ("on_run_start", "on_run_end", "on_model_request", "on_chunk", "on_model_response",
           "on_tool_batch", "on_tools_decided", "on_tool_result", "on_tool_start",
           "on_tool_end")


class _HookChain(RunHooks):
    """Several ``RunHooks`` as one, so a driver takes one: each hook goes to each of them in
    the order given (the next one after the previous one's coroutine, when it returned one);
    their contexts are entered in that order and left in reverse. A hook that only one of
    them overrides is that one's method itself, so the chain adds no call to it."""

    def __init__(self, hooks: Sequence[RunHooks]) -> None:
        self.hooks = tuple(hooks)
        for name in _EVENTS:
            found = (_overriding(h, name) for h in self.hooks)
            methods = [method for method in found if method is not None]
            if len(methods) == 1:
                setattr(self, name, methods[0])
            elif methods:
                setattr(self, name, functools.partial(_each, tuple(methods)))

    def run_context(self, engine: ToolLoop) -> Optional[AbstractContextManager[Any]]:
        return _Contexts.of([h.run_context(engine) for h in self.hooks])

    def tool_context(self, engine: ToolLoop, call: ToolCallRun) -> Optional[
            AbstractContextManager[Any]]:
        return _Contexts.of([h.tool_context(engine, call) for h in self.hooks])


def _overriding(hooks: Optional[RunHooks], name: str) -> Optional[Callable[..., Any]]:
    """The method ``name`` of ``hooks``, or None when there is nothing to call: no hooks, or
    the no-op of ``RunHooks`` itself."""
    if hooks is None:
        return None
    method: Callable[..., Any] = getattr(hooks, name)
    if getattr(method, "__func__", None) is getattr(RunHooks, name):
        return None
    return method


def _chain(*hooks: Optional[RunHooks]) -> Optional[RunHooks]:
    """The given hooks (None ones left out) as one ``RunHooks``, or None if there are none."""
    present = [h for h in hooks if h is not None]
    if len(present) < 2:
        return present[0] if present else None
    return _HookChain(present)


def _each(methods: tuple[Callable[..., Any], ...], *args: Any) -> Any:
    for i, method in enumerate(methods):
        result = method(*args)
        if result is not None and inspect.isawaitable(result):  # the rest after it, in order
            return _each_after(result, methods[i + 1:], args)
    return None


async def _each_after(pending: Any, rest: tuple[Callable[..., Any], ...],
                      args: tuple[Any, ...]) -> None:
    await pending
    for method in rest:
        result = method(*args)
        if result is not None and inspect.isawaitable(result):
            await result


class _Contexts:
    """Context managers entered in order and left in reverse, as one (entered again as often
    as they can be)."""

    __slots__ = ("_managers",)

    def __init__(self, managers: list[AbstractContextManager[Any]]) -> None:
        self._managers = managers

    @staticmethod
    def of(found: list[Optional[AbstractContextManager[Any]]]
           ) -> Optional[AbstractContextManager[Any]]:
        managers = [m for m in found if m is not None]
        if len(managers) < 2:
            return managers[0] if managers else None
        return _Contexts(managers)

    def __enter__(self) -> None:
        entered = []
        try:
            for manager in self._managers:
                manager.__enter__()
                entered.append(manager)
        except BaseException as exc:
            for manager in reversed(entered):
                manager.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def __exit__(self, *exc: Any) -> None:
        for manager in reversed(self._managers):
            manager.__exit__(*exc)


class _Stretch:
    """The hooks' ``run_context`` around the driver's own work: entered while the driver
    works, left while the consumer of a streamed run holds a chunk (both drivers)."""

    __slots__ = ("_manager", "_inside")

    def __init__(self, manager: AbstractContextManager[Any]) -> None:
        self._manager = manager
        self._inside = False

    @staticmethod
    def entered(engine: ToolLoop, hooks: RunHooks) -> Optional["_Stretch"]:
        manager = hooks.run_context(engine)
        if manager is None:
            return None
        stretch = _Stretch(manager)
        stretch.enter()
        return stretch

    def enter(self) -> None:
        self._manager.__enter__()
        self._inside = True

    def leave(self, error: Optional[BaseException] = None) -> None:
        if self._inside:
            self._inside = False
            if error is None:
                self._manager.__exit__(None, None, None)
            else:
                self._manager.__exit__(type(error), error, error.__traceback__)


def _run_error(exc: BaseException) -> Optional[BaseException]:
    """What ``on_run_end`` is told: a stream closed early (``GeneratorExit``) is no error."""
    return None if isinstance(exc, GeneratorExit) else exc


def _bind_tool_contexts(batch: ToolBatch, engine: Any, hooks: RunHooks) -> None:
    """Each call that will execute gets the hooks' ``tool_context`` (entered where it runs)."""
    for call in batch.calls:
        if call.runnable:
            call.scope = hooks.tool_context(engine, call)
