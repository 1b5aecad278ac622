"""The OpenAI Agents SDK's helpers that need no agent: ``function_tool`` (and when a tool
needs a person's approval), the default model, and awaiting a user callback that may be sync
or async. Guardrails, hooks and handoffs name an agent, so they live beside it (``agent.py``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, Union, overload

from ..core.run_context import RunContextWrapper
from ..tools.base import Tool

if TYPE_CHECKING:
    pass

__all__ = ["function_tool", "set_default_model"]

MAX_TOOL_NAME = 64


async def maybe_await(value: Any) -> Any:
    """``value``, awaited when it is awaitable (user callbacks may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


# --- tools ---------------------------------------------------------------------------------


#: ``needs_approval``: a bool, or ``(ctx, arguments[, call_id]) -> bool`` (sync or async).
_NeedsApproval = Union[bool, Callable[..., Any]]


@overload
def function_tool(func: Callable[..., Any], *, name_override: Optional[str] = None,
                  description_override: Optional[str] = None, strict_mode: bool = True,
                  needs_approval: _NeedsApproval = False,
                  timeout: Optional[float] = None) -> Tool: ...


@overload
def function_tool(func: None = None, *, name_override: Optional[str] = None,
                  description_override: Optional[str] = None, strict_mode: bool = True,
                  needs_approval: _NeedsApproval = False,
                  timeout: Optional[float] = None) -> Callable[[Callable[..., Any]], Tool]: ...


def function_tool(func: Optional[Callable[..., Any]] = None, *,
                  name_override: Optional[str] = None,
                  description_override: Optional[str] = None,
                  strict_mode: bool = True,
                  needs_approval: _NeedsApproval = False,
                  timeout: Optional[float] = None
                  ) -> Union[Tool, Callable[[Callable[..., Any]], Tool]]:
    """The Agents SDK's decorator: ``@function_tool`` or ``@function_tool(name_override=...,
    description_override=..., strict_mode=True, needs_approval=False, timeout=None)`` turns a
    function into an ``ai.Tool``. The schema comes from the signature, the docstring
    (description and ``Args:``) and ``Annotated[T, "description"]``; a first parameter
    annotated ``RunContextWrapper`` receives the run context and is not in the schema.

    ``needs_approval``: ``True`` pauses the run before every call of this tool until a person
    approves or rejects it (``result.interruptions``); a callable ``(ctx, arguments)`` or
    ``(ctx, arguments, call_id)``, sync or async, decides per call."""
    if not (isinstance(needs_approval, bool) or callable(needs_approval)):
        raise TypeError("needs_approval must be True / False or a callable (ctx, arguments"
                        "[, call_id]) -> bool")

    def build(fn: Callable[..., Any]) -> Tool:
        built = Tool(fn, name=name_override, description=description_override,
                     strict=strict_mode, timeout=timeout)
        built.needs_approval = needs_approval
        return built

    if func is None:
        return build
    return build(func)


async def needs_approval_now(tool: Tool, context: RunContextWrapper[Any],
                             arguments: dict[str, Any], call_id: str) -> bool:
    """Whether this call of ``tool`` must wait for a person."""
    rule = tool.needs_approval
    if isinstance(rule, bool):
        return rule
    positional = [p for p in inspect.signature(rule).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    args = (context, arguments, call_id) if len(positional) >= 3 else (context, arguments)
    return bool(await maybe_await(rule(*args)))


# --- the default model ---------------------------------------------------------------------

_DEFAULT_MODEL: list[Optional[str]] = [None]


def set_default_model(model: Optional[str]) -> None:
    """The model of every ``Agent`` created without one (``"provider:model"``, checked now);
    None forgets it. Process-wide; an agent's own ``model`` always wins."""
    if model is not None:
        from ..client.base import parse_model

        parse_model(model)  # InvalidModelError (a ValueError) now
    _DEFAULT_MODEL[0] = model


def default_model() -> Optional[str]:
    return _DEFAULT_MODEL[0]
