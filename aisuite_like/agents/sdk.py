"""The OpenAI Agents SDK's building blocks, on our agents: ``function_tool``, guardrails,
lifecycle hooks, the ``AgentHandoff`` that ``handoff()`` (_agent_config.py) builds, and the
default model.

These are plain configuration objects; the run (agents.py, _agent_loop.py) calls them at the
points the Agents SDK does. Every user callback may be sync or async.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Optional, Union, overload

from ..core.run_context import RunContextWrapper, TContext
from ..tools.base import Tool

if TYPE_CHECKING:
    from ..core.types import ChatCompletionResponse
    from .config import Agent

__all__ = [
    "function_tool", "GuardrailFunctionOutput", "InputGuardrail", "OutputGuardrail",
    "InputGuardrailResult", "OutputGuardrailResult", "input_guardrail", "output_guardrail",
    "RunHooks", "AgentHooks", "AgentHandoff", "set_default_model",
]

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


# --- guardrails ----------------------------------------------------------------------------


@dataclass
class GuardrailFunctionOutput:
    """What a guardrail function returns: ``output_info`` (anything worth reporting) and
    ``tripwire_triggered`` (True stops the run with the guardrail's ``...TripwireTriggered``
    error)."""

    output_info: Any
    tripwire_triggered: bool


@dataclass
class InputGuardrailResult:
    """An input guardrail's outcome: the ``guardrail`` and its ``output``."""

    guardrail: "InputGuardrail[Any]"
    output: GuardrailFunctionOutput


@dataclass
class OutputGuardrailResult:
    """An output guardrail's outcome, with the ``agent_output`` it checked and the ``agent``."""

    guardrail: "OutputGuardrail[Any]"
    agent_output: Any
    agent: "Agent"
    output: GuardrailFunctionOutput


def _check_output(value: Any, name: str) -> GuardrailFunctionOutput:
    if not isinstance(value, GuardrailFunctionOutput):
        raise TypeError(f"guardrail {name!r} must return a GuardrailFunctionOutput, got "
                        f"{type(value).__name__}")
    return value


@dataclass
class InputGuardrail(Generic[TContext]):
    """A check of the run's input: ``guardrail_function(ctx, agent, input)`` (sync or async)
    returns a ``GuardrailFunctionOutput``. ``run_in_parallel=True`` (default) runs it beside the
    first model call, which is cancelled if the tripwire triggers (no tool runs before the
    guardrails passed); False runs it before any model call. Only the starting agent's input
    guardrails run."""

    guardrail_function: Callable[..., Any]
    name: Optional[str] = None
    run_in_parallel: bool = True

    def get_name(self) -> str:
        return str(self.name or getattr(self.guardrail_function, "__name__", "input_guardrail"))

    async def run(self, agent: "Agent", input: Any, context: RunContextWrapper[Any]
                  ) -> InputGuardrailResult:
        value = await maybe_await(self.guardrail_function(context, agent, input))
        return InputGuardrailResult(self, _check_output(value, self.get_name()))


@dataclass
class OutputGuardrail(Generic[TContext]):
    """A check of the final output: ``guardrail_function(ctx, agent, output)`` (sync or async)
    returns a ``GuardrailFunctionOutput``. The guardrails of the agent that produced the final
    output run, concurrently, once it is validated."""

    guardrail_function: Callable[..., Any]
    name: Optional[str] = None

    def get_name(self) -> str:
        return str(self.name or getattr(self.guardrail_function, "__name__", "output_guardrail"))

    async def run(self, context: RunContextWrapper[Any], agent: "Agent", agent_output: Any
                  ) -> OutputGuardrailResult:
        value = await maybe_await(self.guardrail_function(context, agent, agent_output))
        return OutputGuardrailResult(self, agent_output, agent,
                                     _check_output(value, self.get_name()))


@overload
def input_guardrail(func: Callable[..., Any], *, name: Optional[str] = None,
                    run_in_parallel: bool = True) -> InputGuardrail[Any]: ...


@overload
def input_guardrail(func: None = None, *, name: Optional[str] = None,
                    run_in_parallel: bool = True
                    ) -> Callable[[Callable[..., Any]], InputGuardrail[Any]]: ...


def input_guardrail(func: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
                    run_in_parallel: bool = True
                    ) -> Union[InputGuardrail[Any], Callable[[Callable[..., Any]],
                                                             InputGuardrail[Any]]]:
    """Decorator: ``@input_guardrail`` or ``@input_guardrail(name=..., run_in_parallel=...)``
    turns ``fn(ctx, agent, input) -> GuardrailFunctionOutput`` into an ``InputGuardrail``."""
    def build(fn: Callable[..., Any]) -> InputGuardrail[Any]:
        return InputGuardrail(fn, name=name, run_in_parallel=run_in_parallel)

    return build if func is None else build(func)


@overload
def output_guardrail(func: Callable[..., Any], *, name: Optional[str] = None
                     ) -> OutputGuardrail[Any]: ...


@overload
def output_guardrail(func: None = None, *, name: Optional[str] = None
                     ) -> Callable[[Callable[..., Any]], OutputGuardrail[Any]]: ...


def output_guardrail(func: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None
                     ) -> Union[OutputGuardrail[Any], Callable[[Callable[..., Any]],
                                                               OutputGuardrail[Any]]]:
    """Decorator: ``@output_guardrail`` or ``@output_guardrail(name=...)`` turns
    ``fn(ctx, agent, output) -> GuardrailFunctionOutput`` into an ``OutputGuardrail``."""
    def build(fn: Callable[..., Any]) -> OutputGuardrail[Any]:
        return OutputGuardrail(fn, name=name)

    return build if func is None else build(func)


# --- lifecycle hooks -----------------------------------------------------------------------


class RunHooks(Generic[TContext]):
    """Callbacks for every agent of a run (``Runner.run(..., hooks=MyHooks())``). Override the
    ones you need, as ``async def`` or plain ``def``; ``context`` is the run's
    ``RunContextWrapper``. A hook that raises aborts the run."""

    async def on_llm_start(self, context: RunContextWrapper[TContext], agent: "Agent",
                           system_prompt: Optional[str], input_items: list[Any]) -> None:
        """Before each model call: the system prompt and the messages sent."""

    async def on_llm_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                         response: ChatCompletionResponse) -> None:
        """After each model call; ``response`` is the ``ChatCompletionResponse``."""

    async def on_agent_start(self, context: RunContextWrapper[TContext], agent: "Agent"
                             ) -> None:
        """An agent starts working: at the start of the run and after each handoff."""

    async def on_agent_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                           output: Any) -> None:
        """The run produced its final output (the agent that produced it)."""

    async def on_handoff(self, context: RunContextWrapper[TContext], from_agent: "Agent",
                         to_agent: "Agent") -> None:
        """A handoff happened."""

    async def on_tool_start(self, context: RunContextWrapper[TContext], agent: "Agent",
                            tool: Tool) -> None:
        """Just before a tool runs."""

    async def on_tool_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                          tool: Tool, result: str) -> None:
        """Just after a tool ran; ``result`` is the text sent to the model."""


class AgentHooks(Generic[TContext]):
    """Callbacks for one agent (``Agent(hooks=MyAgentHooks())``), sync or async."""

    async def on_start(self, context: RunContextWrapper[TContext], agent: "Agent") -> None:
        """This agent starts working."""

    async def on_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                     output: Any) -> None:
        """This agent produced the run's final output."""

    async def on_handoff(self, context: RunContextWrapper[TContext], agent: "Agent",
                         source: "Agent") -> None:
        """The conversation was handed to this agent by ``source``."""

    async def on_tool_start(self, context: RunContextWrapper[TContext], agent: "Agent",
                            tool: Tool) -> None:
        """Just before one of this agent's tools runs."""

    async def on_tool_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                          tool: Tool, result: str) -> None:
        """Just after one of this agent's tools ran."""

    async def on_llm_start(self, context: RunContextWrapper[TContext], agent: "Agent",
                           system_prompt: Optional[str], input_items: list[Any]) -> None:
        """Before each model call this agent makes."""

    async def on_llm_end(self, context: RunContextWrapper[TContext], agent: "Agent",
                         response: ChatCompletionResponse) -> None:
        """After each model call this agent made."""


# --- handoffs ------------------------------------------------------------------------------


def default_handoff_tool_name(agent_name: str) -> str:
    """``transfer_to_<name snake_cased>``: whitespace and characters other than letters,
    digits and ``_`` become ``_``, then lower case (the Agents SDK's rule)."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", re.sub(r"\s", "_", f"transfer_to_{agent_name}")).lower()


@dataclass(frozen=True)
class AgentHandoff:
    """A configured handoff to ``agent`` (what ``handoff()`` returns; put it in
    ``Agent(handoffs=[...])`` beside plain agents)."""

    agent: "Agent"
    tool_name: str
    tool_description: Optional[str] = None
    input_type: Any = None
    on_handoff: Optional[Callable[..., Any]] = None
    input_filter: Optional[Callable[[Any], Any]] = None

    @property
    def agent_name(self) -> str:
        return self.agent.name


# --- the default model ---------------------------------------------------------------------

_DEFAULT_MODEL: list[Optional[str]] = [None]


def set_default_model(model: Optional[str]) -> None:
    """The model of every ``Agent`` created without one (``"provider:model"``, checked now);
    None forgets it. Process-wide; an agent's own ``model`` always wins."""
    if model is not None:
        from ..client.facade import _parse_model

        _parse_model(model)  # InvalidModelError (a ValueError) now
    _DEFAULT_MODEL[0] = model


def default_model() -> Optional[str]:
    return _DEFAULT_MODEL[0]
