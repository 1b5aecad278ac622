"""The testing kit: scripted and function providers, the offline ``test`` model and the
guard against real requests (docs/testing.md)."""

from __future__ import annotations

from .kit import (
    FakeClock as FakeClock,
    FunctionProvider as FunctionProvider,
    RealRequestBlockedError as RealRequestBlockedError,
    Reply as Reply,
    ScriptedProvider as ScriptedProvider,
    ScriptExhaustedError as ScriptExhaustedError,
    TestProvider as TestProvider,
    block_real_requests as block_real_requests,
    tool_call as tool_call,
)

__all__ = [
    "FakeClock", "ScriptedProvider", "FunctionProvider", "TestProvider", "tool_call",
    "block_real_requests", "ScriptExhaustedError", "RealRequestBlockedError", "Reply",
]
