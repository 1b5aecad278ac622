"""aisuite's ``Tools`` methods (``tools()``, ``execute_tool()``, ``aexecute_tool()``,
``execute()``) on our ``Tools``, with aisuite's results: one pure step per call shared by the
sync and async paths, which differ only in how the function is called.

As in aisuite: an unknown tool or arguments failing validation raise ``ValueError``; an
exception the tool raises propagates; a call the policy denies is not executed and its result
is ``{"error": "Tool call denied by policy", "reason": ...}``; each result message is
``{"role": "tool", "name": ..., "content": json.dumps(result), "tool_call_id": ...}``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Protocol

from pydantic import BaseModel, ValidationError

from ..core.sync_bridge import run_coro_sync as _run_coro_sync
from ..providers._common import loads_json
from .policy import ToolPolicyContext, evaluate_policy, to_decision

if TYPE_CHECKING:
    from .base import Tool


class _ToolsByName(Protocol):
    """What these functions read of a ``Tools`` (``toolset.Tools``, whose methods call them)."""

    @property
    def by_name(self) -> dict[str, "Tool"]: ...


@dataclass
class _Prepared:
    name: str
    call_id: str
    tool: Optional["Tool"]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    policy_answer: Any  # the policy's answer (maybe awaitable), None without a policy


def _call_parts(call: Any) -> tuple[str, Any, str]:
    if isinstance(call, Mapping):
        fn = call["function"]
        return fn["name"], fn["arguments"], call.get("id", "")
    return call.function.name, call.function.arguments, call.id


def _prepare(tools: _ToolsByName, call: Any, tool_policy: Any,
             tool_policy_context: Optional[Mapping[str, Any]]) -> _Prepared:
    name, arguments, call_id = _call_parts(call)
    if isinstance(arguments, str):
        arguments = loads_json(arguments) if arguments else {}
    tool = tools.by_name.get(name)
    if tool is None:
        raise ValueError(f"Tool '{name}' not registered.")
    try:
        kwargs = tool.validate(dict(arguments))
    except ValidationError as exc:
        raise ValueError(f"Error in tool '{name}' parameters: {exc}") from None
    answer = None
    if tool_policy is not None:
        context = dict(tool_policy_context or {})
        ctx = ToolPolicyContext(tool_name=name, arguments=dict(arguments), call_id=call_id,
                                turn=0, messages=list(context.get("messages", ())),
                                context=context)
        answer = evaluate_policy(tool_policy, ctx)
    args, kw = tool._call_args(kwargs)
    return _Prepared(name, call_id, tool, args, kw, answer)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _denial(decision: Any) -> Optional[dict[str, Any]]:
    if decision is None or decision.allowed:
        return None
    return {"error": "Tool call denied by policy", "reason": decision.reason}


def _message(prepared: _Prepared, result: Any) -> dict[str, Any]:
    value = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    return {"role": "tool", "name": prepared.name, "content": json.dumps(value, default=str),
            "tool_call_id": prepared.call_id}


def _as_list(tool_calls: Any) -> list[Any]:
    return list(tool_calls) if isinstance(tool_calls, (list, tuple)) else [tool_calls]


def execute_tool(tools: _ToolsByName, tool_calls: Any, tool_policy: Any = None,
                 tool_policy_context: Optional[Mapping[str, Any]] = None
                 ) -> tuple[list[Any], list[dict[str, Any]]]:
    results: list[Any] = []
    messages: list[dict[str, Any]] = []
    for call in _as_list(tool_calls):
        prepared = _prepare(tools, call, tool_policy, tool_policy_context)
        answer = prepared.policy_answer
        if asyncio.iscoroutine(answer) or hasattr(answer, "__await__"):
            answer = _run_coro_sync(_awaited(answer))
        denial = _denial(to_decision(answer) if answer is not None else None)
        if denial is not None:
            result: Any = denial
        else:
            assert prepared.tool is not None
            result = prepared.tool.fn(*prepared.args, **prepared.kwargs)
            if prepared.tool.is_async:
                result = _run_coro_sync(result)
        results.append(result)
        messages.append(_message(prepared, result))
    return results, messages


async def aexecute_tool(tools: _ToolsByName, tool_calls: Any, tool_policy: Any = None,
                        tool_policy_context: Optional[Mapping[str, Any]] = None
                        ) -> tuple[list[Any], list[dict[str, Any]]]:
    results: list[Any] = []
    messages: list[dict[str, Any]] = []
    for call in _as_list(tool_calls):
        prepared = _prepare(tools, call, tool_policy, tool_policy_context)
        answer = prepared.policy_answer
        if asyncio.iscoroutine(answer) or hasattr(answer, "__await__"):
            answer = await _awaited(answer)
        denial = _denial(to_decision(answer) if answer is not None else None)
        if denial is not None:
            result: Any = denial
        else:
            tool = prepared.tool
            assert tool is not None
            if tool.is_async:
                result = await tool.fn(*prepared.args, **prepared.kwargs)
            else:  # a blocking function stays off the event loop
                result = await asyncio.to_thread(tool.fn, *prepared.args, **prepared.kwargs)
        results.append(result)
        messages.append(_message(prepared, result))
    return results, messages
