"""The tool runner's public face (docs/tool-runner.md): the sans-IO ``ToolLoop`` engine and
its actions, the hooks a layer observes a run with, the steps a driver performs, and the two
drivers for loops you drive yourself (defined in ``aisuite_like.loop``)."""

from __future__ import annotations

from .loop.drivers import (
    DriverSteps as DriverSteps,
    drive_async as drive_async,
    drive_sync as drive_sync,
)
from .loop.engine import (
    DEFAULT_MAX_TOOL_CONCURRENCY as DEFAULT_MAX_TOOL_CONCURRENCY,
    DEFAULT_MAX_TOOL_RESULT_CHARS as DEFAULT_MAX_TOOL_RESULT_CHARS,
    CallModel as CallModel,
    Fail as Fail,
    Finish as Finish,
    RunTools as RunTools,
    ToolBatch as ToolBatch,
    ToolCallRun as ToolCallRun,
    ToolLoop as ToolLoop,
)
from .loop.hooks import RunHooks as RunHooks

__all__ = [
    "ToolLoop", "ToolBatch", "ToolCallRun", "RunHooks", "DriverSteps", "CallModel", "RunTools",
    "Finish", "Fail", "DEFAULT_MAX_TOOL_CONCURRENCY", "DEFAULT_MAX_TOOL_RESULT_CHARS",
    "drive_sync", "drive_async",
]
