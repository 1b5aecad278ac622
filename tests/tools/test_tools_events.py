"""aisuite's ``Tools.last_tool_events`` / ``last_policy_events`` after ``execute_tool`` and
``aexecute_tool`` (docs/migration.md, "Tools and the tool runner")."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import aisuite_like as ai


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


def explode(city: str) -> str:
    """Fails."""
    raise RuntimeError(f"no data for {city}")


def call(name: str, arguments: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_events_of_allowed_denied_and_failed_calls(mode: str) -> None:
    tools = ai.Tools([get_weather, explode])
    assert tools.last_tool_events == [] and tools.last_policy_events == []

    def policy(ctx: ai.ToolPolicyContext) -> Any:
        if ctx.arguments["city"] == "Atlantis":
            return ai.ToolPolicyDecision.deny("not a real city")
        return True

    calls = [call("get_weather", '{"city": "Paris"}', "c1"),
             call("get_weather", '{"city": "Atlantis"}', "c2")]
    if mode == "sync":
        results, _ = tools.execute_tool(calls, tool_policy=policy)
    else:
        results, _ = asyncio.run(tools.aexecute_tool(calls, tool_policy=policy))
    assert results[1] == {"error": "Tool call denied by policy", "reason": "not a real city"}
    assert tools.last_policy_events == [
        {"tool_name": "get_weather", "allowed": True, "reason": None, "metadata": {}},
        {"tool_name": "get_weather", "allowed": False, "reason": "not a real city",
         "metadata": {}}]
    assert tools.last_tool_events == [
        {"type": "tool_call", "tool_name": "get_weather", "tool_call_id": "c1",
         "arguments": {"city": "Paris"}, "allowed": True, "reason": None, "metadata": {}},
        {"type": "tool_result", "tool_name": "get_weather", "tool_call_id": "c1",
         "status": "success", "result_preview": '{"city": "Paris", "sky": "clear"}'},
        {"type": "tool_call", "tool_name": "get_weather", "tool_call_id": "c2",
         "arguments": {"city": "Atlantis"}, "allowed": False, "reason": "not a real city",
         "metadata": {}}]

    with pytest.raises(RuntimeError, match="no data for Rome"):
        if mode == "sync":
            tools.execute_tool(call("explode", '{"city": "Rome"}', "c3"))
        else:
            asyncio.run(tools.aexecute_tool(call("explode", '{"city": "Rome"}', "c3")))
    # replaced by the next call; a failure is recorded before the exception propagates
    assert tools.last_policy_events == []
    assert tools.last_tool_events[-1] == {
        "type": "tool_result", "tool_name": "explode", "tool_call_id": "c3",
        "status": "failed", "error": "no data for Rome", "error_type": "RuntimeError"}


def test_a_long_result_is_previewed_short() -> None:
    def big() -> list[str]:
        """Many long strings."""
        return ["x" * 1000] * 30

    tools = ai.Tools([big])
    tools.execute_tool(call("big", "{}", "c1"))
    preview = tools.last_tool_events[-1]["result_preview"]
    assert len(preview) <= 2000 and preview.endswith("...")
