"""The Agents SDK's ``agents.usage`` path (docs/agents.md, "Agents SDK compatibility"): its
``Usage`` is a run's usage, ``ai.RunUsage`` here (``ai.Usage`` is a chat completion's usage,
as in the OpenAI SDK)."""

from __future__ import annotations

from .core.run_context import RequestUsage as RequestUsage, RunUsage as RunUsage

#: The Agents SDK's name of a run's usage (requests, input/output/total tokens, entries).
Usage = RunUsage

__all__ = ["Usage", "RunUsage", "RequestUsage"]
