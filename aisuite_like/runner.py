"""The tool runner's public face: the sans-IO ``ToolLoop`` engine, its hooks and steps
(defined in ``aisuite_like.loop``; docs/tool-runner.md)."""

from __future__ import annotations

from .loop.runner import (
    DEFAULT_MAX_TOOL_CONCURRENCY as DEFAULT_MAX_TOOL_CONCURRENCY,
    DEFAULT_MAX_TOOL_RESULT_CHARS as DEFAULT_MAX_TOOL_RESULT_CHARS,
    CallModel as CallModel,
    DriverSteps as DriverSteps,
    Fail as Fail,
    Finish as Finish,
    RunHooks as RunHooks,
    RunTools as RunTools,
    ToolBatch as ToolBatch,
    ToolCallRun as ToolCallRun,
    ToolLoop as ToolLoop,
)

__all__ = [
    "ToolLoop", "ToolBatch", "ToolCallRun", "RunHooks", "DriverSteps", "CallModel", "RunTools",
    "Finish", "Fail", "DEFAULT_MAX_TOOL_CONCURRENCY", "DEFAULT_MAX_TOOL_RESULT_CHARS",
]
