"""The testing kit: scripted and function providers, the offline ``test`` model, the guard
against real requests, and cassettes that record real exchanges and replay them offline
(docs/testing.md)."""

from __future__ import annotations

from .cassette import (
    Cassette as Cassette,
    CassetteError as CassetteError,
    CassetteMismatchError as CassetteMismatchError,
    CassetteNotFoundError as CassetteNotFoundError,
    record as record,
    replay as replay,
)
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
    "record", "replay", "Cassette", "CassetteError", "CassetteMismatchError",
    "CassetteNotFoundError",
]
