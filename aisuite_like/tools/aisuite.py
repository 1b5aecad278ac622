"""aisuite's ``Tools`` methods (``tools()``, ``execute_tool()``, ``aexecute_tool()``,
``execute()``) on our ``Tools``, with aisuite's results: one pure step per call shared by the
sync and async paths, which differ only in how the function is called.

As in aisuite: an unknown tool or arguments failing validation raise ``ValueError``; an
exception the tool raises propagates; a call the policy denies is not executed and its result
is ``{"error": "Tool call denied by policy", "reason": ...}``; each result message is
``{"role": "tool", "name": ..., "content": json.dumps(result), "tool_call_id": ...}``.
Each call leaves aisuite's events on the ``Tools``: ``last_policy_events`` (one per call a
policy decided: ``tool_name``, ``allowed``, ``reason``, ``metadata``) and ``last_tool_events``
(``{"type": "tool_call", ...}`` before the tool runs, ``{"type": "tool_result", "status":
"success" | "failed", ...}`` after), both replaced by the next ``execute_tool``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Protocol

from pydantic import BaseModel, ValidationError

from ..core.reading import loads_json
from ..core.sync_bridge import daemon_thread_future, run_coro_sync as _run_coro_sync
from .policy import ToolPolicyContext, evaluate_policy, to_decision

if TYPE_CHECKING:
    from .base import Tool


class _ToolsByName(Protocol):
    """What these functions use of a ``Tools`` (``toolset.Tools``, whose methods call them)."""

    @property
    def by_name(self) -> dict[str, "Tool"]: ...

    last_policy_events: list[dict[str, Any]]
    last_tool_events: list[dict[str, Any]]


@dataclass
class _Prepared:
    name: str
    call_id: str
    tool: Optional["Tool"]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    policy_answer: Any  # the policy's answer (maybe awaitable), None without a policy
    arguments: dict[str, Any]  # the validated arguments, for the events


def _preview(value: Any, max_chars: int = 2000) -> str:
    """aisuite's ``result_preview``: the result as sorted JSON (strings over 600 characters
    and lists over 20 items shortened), at most ``max_chars``."""
    def cut(item: Any) -> Any:
        if isinstance(item, str):
            return item if len(item) <= 600 else item[:597] + "..."
        if isinstance(item, (list, tuple)):
            items = [cut(x) for x in list(item)[:20]]
            if len(item) > 20:
                items.append(f"... {len(item) - 20} more")
            return items
        if isinstance(item, dict):
            return {key: cut(x) for key, x in item.items()}
        return item

    value = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    try:
        rendered = json.dumps(cut(value), sort_keys=True)
    except TypeError:
        rendered = str(cut(value))
    return rendered if len(rendered) <= max_chars else rendered[:max_chars - 3] + "..."


def _start(tools: _ToolsByName) -> None:
    tools.last_policy_events = []
    tools.last_tool_events = []


def _decided(tools: _ToolsByName, prepared: _Prepared, decision: Any) -> None:
    """The events of a call about to run (or denied): policy event, ``tool_call`` event."""
    if decision is not None:
        tools.last_policy_events.append({
            "tool_name": prepared.name, "allowed": decision.allowed,
            "reason": decision.reason, "metadata": {}})
    tools.last_tool_events.append({
        "type": "tool_call", "tool_name": prepared.name, "tool_call_id": prepared.call_id,
        "arguments": prepared.arguments,
        "allowed": decision.allowed if decision is not None else True,
        "reason": decision.reason if decision is not None else None, "metadata": {}})


def _finished(tools: _ToolsByName, prepared: _Prepared, result: Any = None,
              error: Optional[BaseException] = None) -> None:
    event: dict[str, Any] = {"type": "tool_result", "tool_name": prepared.name,
                             "tool_call_id": prepared.call_id}
    if error is not None:
        event.update(status="failed", error=str(error), error_type=type(error).__name__)
    else:
        event.update(status="success", result_preview=_preview(result))
    tools.last_tool_events.append(event)


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
    return _Prepared(name, call_id, tool, args, kw, answer, dict(arguments))


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
    _start(tools)
    for call in _as_list(tool_calls):
        prepared = _prepare(tools, call, tool_policy, tool_policy_context)
        answer = prepared.policy_answer
        if asyncio.iscoroutine(answer) or hasattr(answer, "__await__"):
            answer = _run_coro_sync(_awaited(answer))
        decision = to_decision(answer) if answer is not None else None
        _decided(tools, prepared, decision)
        denial = _denial(decision)
        if denial is not None:
            result: Any = denial
        else:
            assert prepared.tool is not None
            try:
                result = prepared.tool.fn(*prepared.args, **prepared.kwargs)
                if prepared.tool.is_async:
                    result = _run_coro_sync(result)
            except Exception as exc:
                _finished(tools, prepared, error=exc)
                raise
            _finished(tools, prepared, result)
        results.append(result)
        messages.append(_message(prepared, result))
    return results, messages


async def aexecute_tool(tools: _ToolsByName, tool_calls: Any, tool_policy: Any = None,
                        tool_policy_context: Optional[Mapping[str, Any]] = None
                        ) -> tuple[list[Any], list[dict[str, Any]]]:
    results: list[Any] = []
    messages: list[dict[str, Any]] = []
    _start(tools)
    for call in _as_list(tool_calls):
        prepared = _prepare(tools, call, tool_policy, tool_policy_context)
        answer = prepared.policy_answer
        if asyncio.iscoroutine(answer) or hasattr(answer, "__await__"):
            answer = await _awaited(answer)
        decision = to_decision(answer) if answer is not None else None
        _decided(tools, prepared, decision)
        denial = _denial(decision)
        if denial is not None:
            result: Any = denial
        else:
            tool = prepared.tool
            assert tool is not None
            try:
                if tool.is_async:
                    result = await tool.fn(*prepared.args, **prepared.kwargs)
                else:  # a blocking function stays off the event loop, on a daemon thread: a
                    # cancelled call does not hold the program's exit until the tool returns
                    result = await daemon_thread_future(tool.fn, prepared.args,
                                                        dict(prepared.kwargs))
            except Exception as exc:
                _finished(tools, prepared, error=exc)
                raise
            _finished(tools, prepared, result)
        results.append(result)
        messages.append(_message(prepared, result))
    return results, messages
