"""The drivers of the tool loop (docs/tool-runner.md): ``drive_sync`` / ``drive_async`` perform
what the engine (``engine.py``) asks, and nothing else: provider calls (streamed or not),
policy calls, tool execution in threads or tasks. ``_tool_runner`` / ``_atool_runner`` (called
by the client) build the engine and pick a driver.

A driver takes ``RunHooks`` (``hooks.py``) to let a layer observe the run's start and end,
model requests, chunks, responses, tool batches and results (hooks may be coroutines in the
async driver), and to put a context in force while the driver works and while a tool runs;
``instrument()`` watches runs through these hooks too: a driver asks ``core.hooks.ACTIVE``
for its hooks once per run and chains them with its own. ``DriverSteps`` performs the model
calls and tool calls; a layer may override them (durable runs record each as a step).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from typing import Any, Optional, Union

from ..core import hooks as _instrumentation
from ..core.errors import BudgetExceededError
from ..core.ids import unique_tool_call_ids
from ..core.streaming import AsyncStream, ChunkAccumulator, Stream
from ..core.sync_bridge import run_coro_sync as _run_coro_sync
from ..core.types import ChatCompletionChunk, ChatCompletionResponse
from ..providers.base import ChatRequest, Provider
from ..tools.toolset import Tools
from .engine import CallModel, Condense, Finish, RunTools, ToolBatch, ToolCallRun, ToolLoop
from .execute import (
    DaemonThreads,
    Interrupt,
    ToolThreads,
    carry_interrupt,
    execute_scoped_async,
    execute_scoped_sync,
    raise_interrupt,
)
from .hooks import RunHooks, _bind_tool_contexts, _chain, _overriding, _run_error, _Stretch

__all__ = ["DriverSteps", "drive_sync", "drive_async"]

# --- steps (how a driver performs the engine's I/O) ----------------------------------------


class DriverSteps:
    """How a driver performs a model call and a tool call. This default performs them
    directly; a layer overrides them to wrap each in something (aisuite_like.durable records
    each as a DBOS step). ``bind_tools`` is called in the driver's thread or task, with the
    runnable calls of a batch in call order, before any of them runs (so a layer can number
    its steps deterministically while the calls then run concurrently)."""

    def complete(self, provider: Provider, request: ChatRequest) -> ChatCompletionResponse:
        return provider.complete(request)

    async def acomplete(self, provider: Provider, request: ChatRequest
                        ) -> ChatCompletionResponse:
        return await provider.acomplete(request)

    def bind_tools(self, calls: list[ToolCallRun]) -> None:
        """The runnable calls of a batch, in call order, before any runs."""

    def execute(self, call: ToolCallRun) -> None:
        execute_scoped_sync(call)

    async def aexecute(self, call: ToolCallRun) -> None:
        await execute_scoped_async(call)


DIRECT_STEPS = DriverSteps()


# --- sync driver -------------------------------------------------------------------------


def _execute_sync(call: ToolCallRun, engine: Optional[ToolLoop] = None,
                  hooks: Optional[RunHooks] = None, steps: DriverSteps = DIRECT_STEPS) -> None:
    if hooks is not None:
        _call_hook_sync(hooks.on_tool_start, engine, call)
    steps.execute(call)
    if hooks is not None:
        _call_hook_sync(hooks.on_tool_end, engine, call)


def _call_hook_sync(hook: Any, *args: Any) -> None:
    result = hook(*args)
    if result is not None and inspect.isawaitable(result):  # None: a sync hook, done
        _run_coro_sync(result)


class _SyncToolExecutor:
    """Runs a batch's calls: policy in call order, then each group concurrently in a thread
    pool bounded by the concurrency limit (created on first need, one per run)."""

    def __init__(self, limit: int, steps: DriverSteps = DIRECT_STEPS) -> None:
        self.limit = limit
        self.steps = steps
        self._pool: Optional[DaemonThreads] = None

    def run(self, batch: ToolBatch, engine: Optional[ToolLoop] = None,
            hooks: Optional[RunHooks] = None) -> None:
        for call in batch.awaiting_policy():
            value = batch.ask_policy(call)
            if inspect.isawaitable(value):
                value = _run_coro_sync(value)
            call.decide(value)
        if hooks is not None:
            _call_hook_sync(hooks.on_tools_decided, engine, batch)
            _bind_tool_contexts(batch, engine, hooks)
        execute: Callable[..., None] = _execute_sync
        if self.steps is not DIRECT_STEPS:  # a layer's steps span the calls they execute
            self.steps.bind_tools([call for call in batch.calls if call.runnable])
            execute = functools.partial(_execute_sync, steps=self.steps)
        for group in batch.groups():
            if len(group) == 1:
                execute(group[0], engine, hooks)
                continue
            if self._pool is None:
                self._pool = DaemonThreads(self.limit)
            futures = [self._pool.submit(execute, call, engine, hooks) for call in group]
            for future in futures:
                future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


def _stream_turn_sync(provider: Provider, action: CallModel, acc: ChunkAccumulator,
                      engine: ToolLoop, hooks: Optional[RunHooks],
                      stretch: Optional[_Stretch] = None) -> Iterator[ChatCompletionChunk]:
    turn = action.turn
    on_chunk = _overriding(hooks, "on_chunk")  # a no-op hook costs no call per chunk
    chunks = provider.stream(action.request)
    try:
        for chunk in chunks:
            chunk.turn = turn
            chunk = acc.add(chunk)
            if on_chunk is not None:
                _call_hook_sync(on_chunk, engine, chunk)
            if stretch is not None:  # the consumer's time with a chunk is not the run's
                stretch.leave()
            yield chunk
            if stretch is not None:
                stretch.enter()
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def drive_sync(engine: ToolLoop, provider: Provider,
                hooks: Optional[RunHooks] = None,
                steps: DriverSteps = DIRECT_STEPS) -> Iterator[ChatCompletionChunk]:
    """Perform the engine's actions; yields the chunks of streamed turns (nothing when not
    streaming). On return, ``engine.result`` is the finalized response. ``steps`` performs
    the (non-streamed) model calls and the tool calls. Under ``instrument()`` the
    instrumentation's hooks watch the run along with ``hooks``."""
    observe = _instrumentation.ACTIVE
    if observe is not None:  # instrument(): the run's spans, through the same hooks
        hooks = _chain(observe.run_hooks(engine, provider), hooks)
    executor = _SyncToolExecutor(engine.max_tool_concurrency, steps)
    stretch: Optional[_Stretch] = None
    error: Optional[BaseException] = None
    try:
        if hooks is not None:
            _call_hook_sync(hooks.on_run_start, engine)
            stretch = _Stretch.entered(engine, hooks)
        action = engine.start()
        while True:
            if isinstance(action, CallModel):
                if hooks is not None:
                    _call_hook_sync(hooks.on_model_request, engine, action)
                target = action.provider or provider
                try:
                    if action.request.stream:
                        acc = ChunkAccumulator(engine.history)
                        yield from _stream_turn_sync(target, action, acc, engine, hooks,
                                                     stretch)
                        response = acc.build()
                    else:
                        # unique ids already here, so the hooks see what the trace will hold
                        response = unique_tool_call_ids(
                            steps.complete(target, action.request), engine.history)
                except BudgetExceededError as refusal:  # nothing was sent: the run ends
                    action = engine.budget_refused(refusal)
                    continue
                if hooks is not None:
                    _call_hook_sync(hooks.on_model_response, engine, response)
                action = engine.model_responded(response)
            elif isinstance(action, Condense):  # the summary a context strategy needs
                try:
                    summary = steps.complete(action.provider or provider, action.request)
                except BudgetExceededError as refusal:
                    action = engine.budget_refused(refusal)
                    continue
                action = engine.condensed(summary)
            elif isinstance(action, RunTools):
                if hooks is not None:
                    _call_hook_sync(hooks.on_tool_batch, engine, action.batch)
                executor.run(action.batch, engine, hooks)
                if hooks is not None:
                    for call in action.batch.calls:
                        _call_hook_sync(hooks.on_tool_result, engine, call)
                action = engine.tools_done(action.batch)
            elif isinstance(action, Finish):
                return
            else:
                raise action.error
    except BaseException as exc:
        error = _run_error(exc)
        raise
    finally:
        if stretch is not None:
            stretch.leave(error)
        executor.close()
        if hooks is not None:
            _call_hook_sync(hooks.on_run_end, engine, error)


def _tool_runner(provider: Provider, request: ChatRequest, tools: Optional[Tools], *,
                 max_turns: int, **options: Any) -> Union[ChatCompletionResponse, Stream]:
    """The sync tool runner: the finalized response, or a ``Stream`` of every turn's chunks
    when ``request.stream`` (its ``get_final_response()`` is the finalized response).
    ``options`` are ``ToolLoop``'s (tool_policy, on_tool_error, on_max_turns,
    max_tool_concurrency), validated there."""
    engine = ToolLoop(request, tools, max_turns=max_turns, **options)
    if request.stream:
        return Stream(drive_sync(engine, provider), final=engine.final_response)
    for _ in drive_sync(engine, provider):
        pass
    return engine.final_response()


# --- async driver ------------------------------------------------------------------------


async def _call_hook_async(hook: Any, *args: Any) -> None:
    result = hook(*args)
    if result is not None and inspect.isawaitable(result):  # None: a sync hook, done
        await result


async def _execute_async(call: ToolCallRun, engine: Optional[ToolLoop] = None,
                         hooks: Optional[RunHooks] = None,
                         steps: DriverSteps = DIRECT_STEPS) -> None:
    if hooks is not None:
        await _call_hook_async(hooks.on_tool_start, engine, call)
    await steps.aexecute(call)
    if hooks is not None:
        await _call_hook_async(hooks.on_tool_end, engine, call)


async def _run_batch_async(batch: ToolBatch, limit: int, pool: ToolThreads,
                           engine: Optional[ToolLoop] = None,
                           hooks: Optional[RunHooks] = None,
                           steps: DriverSteps = DIRECT_STEPS) -> None:
    """Policy in call order, then each group as concurrent tasks bounded by ``limit``; sync
    tools run on ``pool``."""
    for call in batch.awaiting_policy():
        value = batch.ask_policy(call)
        if inspect.isawaitable(value):
            value = await value
        call.decide(value)
    for call in batch.calls:
        call.threads = pool
    if hooks is not None:
        await _call_hook_async(hooks.on_tools_decided, engine, batch)
        _bind_tool_contexts(batch, engine, hooks)
    semaphore = asyncio.Semaphore(limit)
    execute: Callable[..., Any] = _execute_async
    if steps is not DIRECT_STEPS:  # a layer's steps span the calls they execute
        steps.bind_tools([call for call in batch.calls if call.runnable])
        execute = functools.partial(_execute_async, steps=steps)

    async def bounded(call: ToolCallRun) -> None:
        async with semaphore:
            await execute(call, engine, hooks)

    for group in batch.groups():
        if len(group) == 1:
            await execute(group[0], engine, hooks)
        else:
            try:  # each call in a task of its own: a Ctrl-C in one is carried out of it
                await asyncio.gather(*(carry_interrupt(bounded(call)) for call in group))
            except Interrupt as interrupt:
                raise_interrupt(interrupt)


async def _stream_turn_async(provider: Provider, action: CallModel, acc: ChunkAccumulator,
                             engine: ToolLoop, hooks: Optional[RunHooks],
                             stretch: Optional[_Stretch] = None
                             ) -> AsyncGenerator[ChatCompletionChunk, None]:
    turn = action.turn
    on_chunk = _overriding(hooks, "on_chunk")  # a no-op hook costs no call per chunk
    chunks = provider.astream(action.request)
    try:
        async for chunk in chunks:
            chunk.turn = turn
            chunk = acc.add(chunk)
            if on_chunk is not None:
                await _call_hook_async(on_chunk, engine, chunk)
            if stretch is not None:  # the consumer's time with a chunk is not the run's
                stretch.leave()
            yield chunk
            if stretch is not None:
                stretch.enter()
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


async def drive_async(engine: ToolLoop, provider: Provider,
                       hooks: Optional[RunHooks] = None,
                       steps: DriverSteps = DIRECT_STEPS) -> AsyncIterator[ChatCompletionChunk]:
    """The async twin of ``drive_sync``: same actions, performed with ``await``."""
    observe = _instrumentation.ACTIVE
    if observe is not None:  # instrument(): the run's spans, through the same hooks
        hooks = _chain(observe.run_hooks(engine, provider), hooks)
    threads = ToolThreads(engine.max_tool_concurrency)
    stretch: Optional[_Stretch] = None
    error: Optional[BaseException] = None
    try:
        if hooks is not None:
            await _call_hook_async(hooks.on_run_start, engine)
            stretch = _Stretch.entered(engine, hooks)
        action = engine.start()
        while True:
            if isinstance(action, CallModel):
                if hooks is not None:
                    await _call_hook_async(hooks.on_model_request, engine, action)
                target = action.provider or provider
                try:
                    if action.request.stream:
                        acc = ChunkAccumulator(engine.history)
                        turn_chunks = _stream_turn_async(target, action, acc, engine, hooks,
                                                         stretch)
                        try:
                            async for chunk in turn_chunks:
                                yield chunk
                        finally:
                            await turn_chunks.aclose()
                        response = acc.build()
                    else:
                        response = unique_tool_call_ids(
                            await steps.acomplete(target, action.request), engine.history)
                except BudgetExceededError as refusal:  # nothing was sent: the run ends
                    action = engine.budget_refused(refusal)
                    continue
                if hooks is not None:
                    await _call_hook_async(hooks.on_model_response, engine, response)
                action = engine.model_responded(response)
            elif isinstance(action, Condense):  # the summary a context strategy needs
                try:
                    summary = await steps.acomplete(action.provider or provider,
                                                    action.request)
                except BudgetExceededError as refusal:
                    action = engine.budget_refused(refusal)
                    continue
                action = engine.condensed(summary)
            elif isinstance(action, RunTools):
                if hooks is not None:
                    await _call_hook_async(hooks.on_tool_batch, engine, action.batch)
                await _run_batch_async(action.batch, engine.max_tool_concurrency, threads,
                                       engine, hooks, steps)
                if hooks is not None:
                    for call in action.batch.calls:
                        await _call_hook_async(hooks.on_tool_result, engine, call)
                action = engine.tools_done(action.batch)
            elif isinstance(action, Finish):
                return
            else:
                raise action.error
    except asyncio.CancelledError as exc:
        engine.cancelled()  # answer the pending calls: the trace stays a valid history
        error = exc
        raise
    except BaseException as exc:
        error = _run_error(exc)
        raise
    finally:
        if stretch is not None:
            stretch.leave(error)
        threads.close()
        if hooks is not None:
            await _call_hook_async(hooks.on_run_end, engine, error)


async def _atool_runner(provider: Provider, request: ChatRequest, tools: Optional[Tools], *,
                        max_turns: int, **options: Any
                        ) -> Union[ChatCompletionResponse, AsyncStream]:
    """The async tool runner: same engine, same options, same results as ``_tool_runner``.
    Cancelling the task stops the run (``asyncio.CancelledError`` propagates); the engine
    keeps the partial run (``ToolLoop.cancelled``), which a stream's ``get_final_response()``
    returns."""
    engine = ToolLoop(request, tools, max_turns=max_turns, **options)
    if request.stream:
        return AsyncStream(drive_async(engine, provider), final=engine.final_response)
    async for _ in drive_async(engine, provider):
        pass
    return engine.final_response()
