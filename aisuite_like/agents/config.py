"""Agent configuration: the immutable ``Agent``, ``RunLimits`` (the bounds of one run) and
``handoff()``. Validated at construction, so a bad agent fails where it is written, never in a
run. The run (agents.py), its engine (_agent_loop.py) and paused-run state (_agent_state.py)
build on these; agents.py is their public home.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from types import MappingProxyType
from typing import Any, Generic, Optional, Union

from ..core.run_context import RunContextWrapper, TContext
from ..loop.runner import DEFAULT_MAX_TOOL_RESULT_CHARS, _check_tool_bounds
from ..tools.base import Tools
from ..tools.policy import ToolPolicy, _check_policy
from .sdk import (
    AgentHandoff,
    AgentHooks,
    InputGuardrail,
    OutputGuardrail,
    default_handoff_tool_name,
)
from .turn import FINAL_RESULT, OutputSpec, handoff_tool

__all__ = ["Agent", "RunLimits", "handoff"]

#: An agent's system message: text, or ``(ctx, agent) -> str`` (sync or async) called before
#: each model call.
Instructions = Union[
    str, None,
    Callable[[RunContextWrapper[TContext], "Agent[TContext]"],
             Union[Optional[str], Awaitable[Optional[str]]]],
]

_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SUMMARY_FIELDS = {"tool_name": "t", "arguments": "{}", "result": "r", "is_error": False}
# Keys an agent's model_settings may not set: the run owns them.
_RUN_OWNED = frozenset({"model", "messages", "tools", "stream", "max_turns", "tool_policy",
                        "on_tool_error", "on_max_turns"})


@dataclass(frozen=True, eq=False)
class Agent(Generic[TContext]):
    """Immutable agent configuration, validated at construction.

    ``name``: any non-empty text without control characters or surrounding whitespace (its
    handoff tool is ``transfer_to_<name snake_cased>``); ``model``: ``"provider:model"``, or
    None for the default model (``ai.set_default_model``); ``instructions``: the system message,
    or a callable ``(ctx, agent) -> str`` (sync or async) called before each model call;
    ``tools``: functions, ``ai.Tool`` or ``function_tool`` tools; ``handoffs``: agents (or
    ``handoff(...)``) this one may hand the conversation to; ``tool_policy``: as in the tool
    runner (not applied to handoff and final_result calls); ``model_settings``: keyword
    arguments of ``create`` (temperature, max_tokens, provider-native ones...);
    ``reflect_on_tool_use``, ``tool_call_summary_format``: how a run that ends after tools
    ends; ``output_type``: any type pydantic validates, for structured output; ``max_turns``:
    model calls per run (default 10); ``handoff_description``: told to agents that may hand
    off to this one; ``input_guardrails`` / ``output_guardrails``; ``hooks``: ``AgentHooks``;
    ``tool_timeout`` / ``max_tool_result_chars``: the tool bounds of the tool runner, applied
    to this agent's tool calls (a tool's own ``Tool(timeout=)`` wins).
    """

    name: str
    model: Optional[str] = None
    _: KW_ONLY
    instructions: Instructions[TContext] = None
    tools: Sequence[Any] = ()
    handoffs: Sequence[Union[Agent[Any], AgentHandoff]] = ()
    tool_policy: ToolPolicy = None
    model_settings: Mapping[str, Any] = field(default_factory=dict)
    reflect_on_tool_use: bool = True
    tool_call_summary_format: str = "{result}"
    # Any type pydantic validates: classes and special forms (Optional[int], Literal[...]).
    output_type: Any = None
    max_turns: int = 10
    handoff_description: Optional[str] = None
    input_guardrails: Sequence[InputGuardrail[TContext]] = ()
    output_guardrails: Sequence[OutputGuardrail[TContext]] = ()
    hooks: Optional[AgentHooks[TContext]] = None
    tool_timeout: Optional[float] = None
    max_tool_result_chars: Optional[int] = DEFAULT_MAX_TOOL_RESULT_CHARS
    # Built once at construction (never per run or per call).
    _tools: Optional[Tools] = field(init=False, repr=False, default=None)
    _tools_with_output: Optional[Tools] = field(init=False, repr=False, default=None)
    _output: Optional[OutputSpec] = field(init=False, repr=False, default=None)
    _handoff_map: Mapping[str, "Agent"] = field(init=False, repr=False, default_factory=dict)
    _handoff_specs: Mapping[str, AgentHandoff] = field(init=False, repr=False,
                                                       default_factory=dict)

    def __post_init__(self) -> None:
        from ..client.facade import _parse_model

        set_ = object.__setattr__
        if (not isinstance(self.name, str) or not self.name.strip()
                or self.name != self.name.strip() or _CONTROL_CHARS.search(self.name)):
            raise ValueError(f"agent name must be non-empty text without control characters "
                             f"or leading/trailing whitespace, got {self.name!r}")
        if self.model is not None:
            _parse_model(self.model)  # InvalidModelError (a ValueError) now, not at a run
        if self.instructions is not None and not (isinstance(self.instructions, str)
                                                  or callable(self.instructions)):
            raise TypeError(f"instructions must be a str, a callable (ctx, agent) -> str, or "
                            f"None; got {type(self.instructions).__name__}")
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or \
                self.max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {self.max_turns!r}")
        if not isinstance(self.reflect_on_tool_use, bool):
            raise TypeError("reflect_on_tool_use must be True or False")
        _check_summary_format(self.tool_call_summary_format)
        _check_policy(self.tool_policy)
        _check_tool_bounds(self.tool_timeout, self.max_tool_result_chars)
        if not isinstance(self.model_settings, Mapping):
            raise TypeError("model_settings must be a mapping of create() keyword arguments")
        owned = sorted(_RUN_OWNED & set(self.model_settings))
        if owned:
            raise ValueError(f"model_settings may not set {owned}: the agent and the run own "
                             "them (use tools=, handoffs=, tool_policy=, max_turns=)")
        if self.output_type is not None and "response_format" in self.model_settings:
            raise ValueError("give either output_type or model_settings['response_format'], "
                             "not both")
        set_(self, "model_settings", MappingProxyType(dict(self.model_settings)))

        tools = (self.tools,) if callable(self.tools) else tuple(self.tools or ())
        for i, item in enumerate(tools):
            if isinstance(item, dict) and item.get("type") != "mcp":
                raise ValueError(f"tools[{i}] is a JSON schema dict; an agent runs its tools, "
                                 "so pass the function (or an aisuite_like.Tool)")
        handoffs = tuple(self.handoffs or ())
        handoff_map: dict[str, Agent] = {}
        specs: dict[str, AgentHandoff] = {}
        for item in handoffs:
            if isinstance(item, Agent):
                tool_name = default_handoff_tool_name(item.name)
                if len(tool_name) > 64:
                    raise ValueError(f"agent name {item.name!r} is too long for its handoff "
                                     f"tool {tool_name!r} (tool names have at most 64 "
                                     "characters); shorten it or use handoff(agent, "
                                     "tool_name_override=...)")
                spec = AgentHandoff(item, tool_name)
            elif isinstance(item, AgentHandoff):
                spec = item
            else:
                raise TypeError(f"handoffs must be Agent objects or handoff(...), got "
                                f"{type(item).__name__}")
            target, tool_name = spec.agent, spec.tool_name
            if target is self or target.name == self.name:
                raise ValueError(f"agent {self.name!r} cannot hand off to itself")
            if tool_name in handoff_map:
                raise ValueError(f"two handoffs of agent {self.name!r} map to the tool "
                                 f"{tool_name!r} ({handoff_map[tool_name].name!r} and "
                                 f"{target.name!r}); rename an agent or use handoff(agent, "
                                 "tool_name_override=...)")
            handoff_map[tool_name] = target
            specs[tool_name] = spec
        for kind, guards, cls in (("input_guardrails", self.input_guardrails, InputGuardrail),
                                  ("output_guardrails", self.output_guardrails,
                                   OutputGuardrail)):
            if not all(isinstance(g, cls) for g in guards or ()):
                raise TypeError(f"{kind} must be {cls.__name__} objects (use the "
                                f"@{kind[:-1]} decorator)")
            set_(self, kind, tuple(guards or ()))
        set_(self, "tools", tools)
        set_(self, "handoffs", handoffs)
        set_(self, "_handoff_map", MappingProxyType(handoff_map))
        set_(self, "_handoff_specs", MappingProxyType(specs))
        control = [handoff_tool(spec) for spec in specs.values()]
        try:
            built = Tools([*tools, *control])  # unique names, schemas built once
        except ValueError as exc:
            raise ValueError(f"agent {self.name!r}: {exc}") from None
        set_(self, "_tools", built)
        if self.output_type is not None and self.output_type is not str:  # str: plain text
            if FINAL_RESULT in built.by_name:
                raise ValueError(f"a tool is named {FINAL_RESULT!r}, which output_type uses; "
                                 "rename the tool")
            output_spec = OutputSpec(self.output_type)
            set_(self, "_output", output_spec)
            set_(self, "_tools_with_output", Tools([*tools, *control, output_spec.tool]))

    def __class_getitem__(cls, context_type: Any) -> type[Agent[Any]]:
        """``Agent[MyContext](...)``, as in the Agents SDK (the context type is for your type
        checker; any context works at run time)."""
        return cls

    def clone(self, **changes: Any) -> Agent[TContext]:
        """A new agent with some fields changed (validated again)."""
        return replace(self, **changes)

    def __repr__(self) -> str:
        return (f"Agent(name={self.name!r}, model={self.model!r}, "
                f"tools={[t.name for t in self._tools.by_name.values()] if self._tools else []}, "
                f"handoffs={[a.name for a in self._handoff_map.values()]})")


def _check_summary_format(fmt: Any) -> None:
    if not isinstance(fmt, str):
        raise TypeError("tool_call_summary_format must be a str")
    try:
        fmt.format(**_SUMMARY_FIELDS)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"tool_call_summary_format {fmt!r} is not valid: {exc!r}; use the "
                         "placeholders {tool_name}, {arguments}, {result}, {is_error}") from None


@dataclass(frozen=True)
class RunLimits:
    """Bounds of one run, each independent; hitting one ends the run with ``status="limit"``
    and ``result.limit`` the bound's name (no exception).

    ``max_model_calls``: model calls, counting reflection and output retries;
    ``max_tool_calls``: executions of the agents' tools (calls beyond it are answered with an
    error result, not run); ``max_total_tokens``: no model call starts once the run has used
    this many tokens; ``timeout_s``: wall-clock seconds for the whole run; ``max_cost``: no
    model call starts once the run has cost this many USD (``usage.cost``, from genai-prices:
    every agent the run may reach must have a known price, checked before the run starts).
    """

    max_model_calls: Optional[int] = None
    max_tool_calls: Optional[int] = None
    max_total_tokens: Optional[int] = None
    timeout_s: Optional[float] = None
    max_cost: Optional[float] = None

    def __post_init__(self) -> None:
        for name in ("max_model_calls", "max_tool_calls", "max_total_tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"RunLimits.{name} must be None or an int >= 1, got {value!r}")
        t = self.timeout_s
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t <= 0):
            raise ValueError(f"RunLimits.timeout_s must be None or seconds > 0, got {t!r}")
        c = self.max_cost
        if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float))
                              or not c > 0 or c == float("inf")):
            raise ValueError(f"RunLimits.max_cost must be None or USD > 0, got {c!r}")


def handoff(agent: "Agent", tool_name_override: Optional[str] = None,
            tool_description_override: Optional[str] = None,
            on_handoff: Optional[Callable[..., Any]] = None, input_type: Any = None,
            input_filter: Optional[Callable[[Any], Any]] = None) -> AgentHandoff:
    """A handoff to ``agent`` with options (the Agents SDK's ``handoff()``):

    - ``tool_name_override`` / ``tool_description_override``: the tool the model sees
      (default ``transfer_to_<agent name snake_cased>``);
    - ``on_handoff(ctx)``, or ``on_handoff(ctx, input)`` with ``input_type``: runs when the
      model hands off (sync or async); with ``input_type`` the tool's arguments follow that
      type's schema and are validated (an invalid call gets an error result and no handoff);
    - ``input_filter(HandoffInputData) -> HandoffInputData`` (sync or async): edits what the
      receiving agent sees (e.g. ``handoff_filters.remove_all_tools``). The run's own record
      (``new_items``, the session) keeps everything.
    """
    if not isinstance(agent, Agent):
        raise TypeError(f"handoff() needs an ai.Agent, got {type(agent).__name__}")
    if input_type is not None and on_handoff is None:
        raise ValueError("handoff(input_type=...) needs on_handoff(ctx, input) to receive it")
    if on_handoff is not None:
        if not callable(on_handoff):
            raise TypeError("on_handoff must be a callable")
        wanted = 2 if input_type is not None else 1
        params = [p for p in inspect.signature(on_handoff).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(params) != wanted:
            raise ValueError("on_handoff must take " + ("two arguments: (ctx, input)"
                             if wanted == 2 else "one argument: (ctx)"))
    if input_filter is not None and not callable(input_filter):
        raise TypeError("input_filter must be a callable (HandoffInputData) -> HandoffInputData")
    name = tool_name_override or default_handoff_tool_name(agent.name)
    if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
        raise ValueError(f"handoff tool name {name!r} must be 1-64 letters, digits, '_' or '-'")
    return AgentHandoff(agent, name, tool_description_override, input_type, on_handoff,
                        input_filter)
