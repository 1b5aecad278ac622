"""policy.py: the built-in policies and how any policy shape is evaluated and normalised.
(How the runner applies policies, sync and async, is in loop/test_runner.py.)"""

from __future__ import annotations

import asyncio

import pytest

import aisuite_like as ai
from aisuite_like.policy import (
    AllowAll,
    AllowTools,
    DenyAll,
    RequireApproval,
    ToolPolicyContext,
    ToolPolicyDecision,
)
from aisuite_like.tools.policy import check_policy, evaluate_policy, to_decision


def ctx(name: str = "get_weather") -> ToolPolicyContext:
    return ToolPolicyContext(tool_name=name, arguments={"city": "Paris"}, call_id="c1", turn=1,
                             messages=(ai.Message(role="user", content="hi"),))


def decide(policy: object, context: ToolPolicyContext) -> ToolPolicyDecision:
    value = evaluate_policy(policy, context)
    if asyncio.iscoroutine(value):
        value = asyncio.run(value)
    return to_decision(value)


def test_exported_from_package() -> None:
    assert ai.AllowAll is AllowAll and ai.RequireApproval is RequireApproval
    assert ai.ToolPolicyContext is ToolPolicyContext and ai.ToolPolicyDecision is ToolPolicyDecision


def test_allow_all_and_deny_all() -> None:
    assert decide(AllowAll(), ctx()) == ToolPolicyDecision(True)
    assert decide(DenyAll("read-only session"), ctx()) == ToolPolicyDecision(
        False, "read-only session")
    assert decide(DenyAll(), ctx()).reason == "tool calls are not allowed"


def test_allow_tools() -> None:
    policy = AllowTools(["get_weather", "get_time"])
    assert decide(policy, ctx("get_time")).allowed
    denied = decide(policy, ctx("delete_file"))
    assert not denied.allowed
    assert denied.reason == "tool 'delete_file' is not allowed (allowed tools: get_time, get_weather)"
    # a single name is one tool, not a set of letters
    assert decide(AllowTools("get_weather"), ctx()).allowed
    assert not decide(AllowTools("get_weather"), ctx("g")).allowed


def test_require_approval_sync_and_async_callbacks() -> None:
    seen = []

    def sync_cb(c: ToolPolicyContext) -> bool:
        seen.append(c)
        return c.arguments["city"] == "Paris"

    async def async_cb(c: ToolPolicyContext) -> bool:
        await asyncio.sleep(0)
        return False

    async def async_decision(c: ToolPolicyContext) -> ToolPolicyDecision:
        return ToolPolicyDecision(False, "user said no")

    assert decide(RequireApproval(sync_cb), ctx()).allowed
    assert seen[0].call_id == "c1"
    assert decide(RequireApproval(async_cb), ctx()) == ToolPolicyDecision(False, "not approved")
    assert decide(RequireApproval(async_decision), ctx()) == ToolPolicyDecision(
        False, "user said no")
    with pytest.raises(TypeError, match="callable"):
        RequireApproval("yes")  # type: ignore[arg-type]


def test_callables_and_objects() -> None:
    assert decide(lambda c: True, ctx()).allowed
    assert decide(lambda c: False, ctx()) == ToolPolicyDecision(False, "denied by tool_policy")

    async def async_fn(c: ToolPolicyContext) -> ToolPolicyDecision:
        return ToolPolicyDecision.deny("nope")

    assert decide(async_fn, ctx()) == ToolPolicyDecision(False, "nope")

    class Custom:
        async def evaluate(self, c: ToolPolicyContext) -> bool:
            return c.turn == 1

    assert decide(Custom(), ctx()).allowed


def test_bad_policy_shapes() -> None:
    with pytest.raises(TypeError, match="tool_policy must be None, a callable"):
        check_policy(42)
    with pytest.raises(TypeError, match="must return True / False or a ToolPolicyDecision"):
        decide(lambda c: "yes", ctx())
    with pytest.raises(TypeError, match="got NoneType"):
        decide(lambda c: None, ctx())
    check_policy(None)
    check_policy(AllowAll())
    check_policy(lambda c: True)


def test_context_is_immutable() -> None:
    c = ctx()
    with pytest.raises(AttributeError):
        c.tool_name = "x"  # type: ignore[misc]
