"""Tool policies: who decides whether a tool call the model asked for may run (docs/tool-runner.md).

A policy is ``None`` (allow everything), a callable ``(ToolPolicyContext) -> bool |
ToolPolicyDecision`` (sync or async), or an object with ``evaluate(ctx)`` returning the same
(sync or async). The runner asks the policy once per call, in call order, before validating and
executing it; a denied call is not executed and the model receives ``Error: ...`` naming the
reason.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Union

from ..core.types import Message

__all__ = [
    "ToolPolicyContext",
    "ToolPolicyDecision",
    "AllowAll",
    "DenyAll",
    "AllowTools",
    "RequireApproval",
]


@dataclass(frozen=True)
class ToolPolicyContext:
    """What a policy sees about one tool call.

    ``arguments`` is the parsed JSON the model sent (not yet validated); ``turn`` counts model
    calls from 1; ``messages`` is the conversation so far (input and produced), ending with the
    assistant message that made the call. Treat it as read-only.
    """

    tool_name: str
    arguments: dict[str, Any]
    call_id: str
    turn: int
    messages: Sequence[Message]
    #: The caller's ``tool_policy_context=`` mapping (aisuite's keyword), read-only; its
    #: aisuite keys are also attributes (``agent_name``, ``run_name``, ``tags``, ...).
    context: Mapping[str, Any] = field(default_factory=dict)

    # aisuite's ToolPolicyContext fields, read from ``context``.
    @property
    def agent_name(self) -> str:
        return str(self.context.get("agent_name", ""))

    @property
    def run_name(self) -> Optional[str]:
        return self.context.get("run_name")

    @property
    def trace_id(self) -> Optional[str]:
        return self.context.get("trace_id")

    @property
    def parent_run_id(self) -> Optional[str]:
        return self.context.get("parent_run_id")

    @property
    def group_id(self) -> Optional[str]:
        return self.context.get("group_id")

    @property
    def tags(self) -> list[Any]:
        return list(self.context.get("tags", ()))

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.context.get("metadata", {}))


@dataclass(frozen=True)
class ToolPolicyDecision:
    """``allowed`` and, for a denial (or an approval worth logging), the ``reason``.
    ``deferred``: the call waits for a person (``ToolPolicyDecision.defer()``): an agent run
    pauses with the call in ``result.interruptions``; the plain tool runner, which cannot
    wait, answers it as denied."""

    allowed: bool
    reason: Optional[str] = None
    deferred: bool = False

    @classmethod
    def allow(cls, reason: Optional[str] = None) -> "ToolPolicyDecision":
        return cls(True, reason)

    @classmethod
    def deny(cls, reason: Optional[str] = None) -> "ToolPolicyDecision":
        return cls(False, reason)

    @classmethod
    def defer(cls, reason: Optional[str] = None) -> "ToolPolicyDecision":
        """Neither allowed nor denied yet: a person decides (agent runs pause for it)."""
        return cls(False, reason or "waiting for approval", deferred=True)


_ALLOW = ToolPolicyDecision(True)
_DEFER = ToolPolicyDecision.defer("waiting for a person's approval")

PolicyResult = Union[bool, ToolPolicyDecision]


class _EvaluatesCalls(Protocol):
    """A policy object: ``evaluate(ctx)`` decides (sync or async)."""

    def evaluate(self, ctx: ToolPolicyContext, /
                 ) -> Union[PolicyResult, Awaitable[PolicyResult]]: ...


ToolPolicy = Union[
    None,
    Callable[[ToolPolicyContext], Union[PolicyResult, Awaitable[PolicyResult]]],
    _EvaluatesCalls,
]


class AllowAll:
    """Every call may run (the same as ``tool_policy=None``)."""

    def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
        return _ALLOW

    def __repr__(self) -> str:
        return "AllowAll()"


class DenyAll:
    """No call may run; the model is told ``reason``."""

    def __init__(self, reason: str = "tool calls are not allowed") -> None:
        self.reason = reason
        self._decision = ToolPolicyDecision(False, reason)

    def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
        return self._decision

    def __repr__(self) -> str:
        return f"DenyAll(reason={self.reason!r})"


class AllowTools:
    """Only the named tools may run."""

    def __init__(self, names: Iterable[str]) -> None:
        if isinstance(names, str):
            names = [names]  # AllowTools("get_weather") means that one tool, not its letters
        self.names = frozenset(names)
        if not all(isinstance(n, str) for n in self.names):
            raise TypeError("AllowTools expects tool names (strings)")

    def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
        if ctx.tool_name in self.names:
            return _ALLOW
        allowed = ", ".join(sorted(self.names)) or "none"
        return ToolPolicyDecision(
            False, f"tool {ctx.tool_name!r} is not allowed (allowed tools: {allowed})")

    def __repr__(self) -> str:
        return f"AllowTools({sorted(self.names)!r})"


class RequireApproval:
    """Ask ``callback(ctx)`` (sync or async) for every call; it returns ``True`` / ``False``
    or a ``ToolPolicyDecision`` (``ToolPolicyDecision.defer()`` to let a person decide later).
    A plain ``False`` gives the reason "not approved". Without a callback every call is
    deferred: an agent run pauses and reports the calls in ``result.interruptions``."""

    def __init__(self, callback: Optional[Callable[[ToolPolicyContext], Any]] = None) -> None:
        if callback is not None and not callable(callback):
            raise TypeError("RequireApproval expects a callable (ctx) -> bool | "
                            "ToolPolicyDecision, or nothing (a person approves each call)")
        self.callback = callback

    def evaluate(self, ctx: ToolPolicyContext) -> Any:
        if self.callback is None:
            return _DEFER
        result = self.callback(ctx)
        if inspect.isawaitable(result):
            return _approval_async(result)
        return _approval(result)

    def __repr__(self) -> str:
        if self.callback is None:
            return "RequireApproval()"
        return f"RequireApproval({getattr(self.callback, '__name__', self.callback)!r})"


def _approval(value: Any) -> ToolPolicyDecision:
    if value is False:
        return ToolPolicyDecision(False, "not approved")
    return to_decision(value)


async def _approval_async(awaitable: Awaitable[Any]) -> ToolPolicyDecision:
    return _approval(await awaitable)


# --- used by the runner ------------------------------------------------------------------


def check_policy(policy: Any) -> None:
    """Reject a policy of the wrong shape before the run starts (not at the first tool call)."""
    if policy is None or callable(getattr(policy, "evaluate", None)) or callable(policy):
        return
    raise TypeError(
        f"tool_policy must be None, a callable (ctx) -> bool | ToolPolicyDecision, or an "
        f"object with evaluate(ctx); got {type(policy).__name__}")


def evaluate_policy(policy: Any, ctx: ToolPolicyContext) -> Any:
    """Ask the policy: returns a decision value, or an awaitable of one (async policies).
    Normalise the (awaited) value with ``to_decision``."""
    evaluate = getattr(policy, "evaluate", None)
    if evaluate is not None and callable(evaluate):
        return evaluate(ctx)
    return policy(ctx)


def to_decision(value: Any) -> ToolPolicyDecision:
    if isinstance(value, ToolPolicyDecision):
        return value
    if value is True:
        return _ALLOW
    if value is False:
        return ToolPolicyDecision(False, "denied by tool_policy")
    raise TypeError(f"a tool policy must return True / False or a ToolPolicyDecision, got "
                    f"{type(value).__name__}: {value!r}")
