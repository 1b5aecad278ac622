"""Module-level tools and agents for the durable-run tests (a recovering process imports them
again by name). The tool appends to the file named by $DURABLE_TOOL_LOG, so the test counts
executions across processes."""

from __future__ import annotations

import os

import aisuite_like as ai
from aisuite_like import durable


def record(n: int) -> str:
    """Record that call n ran."""
    with open(os.environ["DURABLE_TOOL_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{n} {os.getpid()}\n")
        log.flush()
        os.fsync(log.fileno())
    return f"recorded {n}"


@ai.function_tool(needs_approval=True)
def sensitive(n: int) -> str:
    """Record that call n ran, once a person approved it."""
    return record(n)


def make_client() -> ai.Client:
    return ai.Client(provider_configs={"openai": {
        "api_key": os.environ["DURABLE_API_KEY"], "base_url": os.environ["DURABLE_BASE_URL"],
        "max_retries": 0}})


recorder = durable.DurableAgent(ai.Agent(
    name="recorder", model="openai:gpt-test", instructions="Record things.",
    tools=[record], reflect_on_tool_use=False, max_turns=5))

approver = durable.DurableAgent(ai.Agent(
    name="approver", model="openai:gpt-test", instructions="Record things carefully.",
    tools=[sensitive], reflect_on_tool_use=False, max_turns=5))
