"""The agent and everything it is configured with: the immutable ``Agent``, ``RunLimits``
(the bounds of one run), handoffs (``handoff()``, ``AgentHandoff``), the Agents SDK's
guardrails and lifecycle hooks, and the control tools an agent adds to its own (the handoff
tools and ``final_result`` for structured output).

Validated at construction, so a bad agent fails where it is written, never in a run. These
are plain configuration objects; the run (``run.py``), its engine (``turn.py``) and paused-run
state (``state.py``) call them at the points the Agents SDK does. Every user callback may be
sync or async. They live in one module because they refer to each other (an agent holds its
handoffs and hooks; a handoff and a hook name an agent).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Optional, Union, get_args, get_origin, overload

from pydantic import BaseModel

from ..core.checks import check_max_turns
from ..core.content import text_of
from ..core.run_context import RunContextWrapper, TContext
from ..loop.engine import DEFAULT_MAX_TOOL_RESULT_CHARS, check_tool_bounds
from ..tools.base import NoFieldTitles, Tool, strict_schema
from ..tools.policy import ToolPolicy, check_policy
from ..tools.toolset import Tools
from .sdk import maybe_await

if TYPE_CHECKING:
    from ..core.types import ChatCompletionResponse

FINAL_RESULT = "final_result"
HANDOFF_PREFIX = "transfer_to_"

__all__ = [
    "Agent", "RunLimits", "handoff", "GuardrailFunctionOutput", "InputGuardrail",
    "OutputGuardrail", "InputGuardrailResult", "OutputGuardrailResult", "input_guardrail",
    "output_guardrail", "RunHooks", "AgentHooks", "AgentHandoff",
]

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
    to this agent's tool calls (a tool's own ``Tool(timeout=)`` wins); ``tags`` /
    ``metadata`` (aisuite's fields): labels carried into the run's result (``result.tags``,
    ``result.metadata``) and its ``invoke_agent`` span.
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
    tags: Sequence[str] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # Built once at construction (never per run or per call).
    _tools: Optional[Tools] = field(init=False, repr=False, default=None)
    _tools_with_output: Optional[Tools] = field(init=False, repr=False, default=None)
    _output: Optional[OutputSpec] = field(init=False, repr=False, default=None)
    _handoff_map: Mapping[str, "Agent"] = field(init=False, repr=False, default_factory=dict)
    _handoff_specs: Mapping[str, AgentHandoff] = field(init=False, repr=False,
                                                       default_factory=dict)

    def __post_init__(self) -> None:
        from ..client.base import parse_model

        set_ = object.__setattr__
        if (not isinstance(self.name, str) or not self.name.strip()
                or self.name != self.name.strip() or _CONTROL_CHARS.search(self.name)):
            raise ValueError(f"agent name must be non-empty text without control characters "
                             f"or leading/trailing whitespace, got {self.name!r}")
        if self.model is not None:
            parse_model(self.model)  # InvalidModelError (a ValueError) now, not at a run
        if self.instructions is not None and not (isinstance(self.instructions, str)
                                                  or callable(self.instructions)):
            raise TypeError(f"instructions must be a str, a callable (ctx, agent) -> str, or "
                            f"None; got {type(self.instructions).__name__}")
        check_max_turns(self.max_turns)
        if not isinstance(self.reflect_on_tool_use, bool):
            raise TypeError("reflect_on_tool_use must be True or False")
        _check_summary_format(self.tool_call_summary_format)
        check_policy(self.tool_policy)
        check_tool_bounds(self.tool_timeout, self.max_tool_result_chars)
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
        if isinstance(self.tags, str) or not all(isinstance(t, str) for t in self.tags or ()):
            raise TypeError(f"tags must be a list of strings, got {self.tags!r}")
        set_(self, "tags", tuple(self.tags or ()))
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"metadata must be a mapping, got {type(self.metadata).__name__}")
        set_(self, "metadata", MappingProxyType(dict(self.metadata)))

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
        if self.model is not None and (tools or handoffs):
            # a model known not to call tools cannot run this agent (docs/models.md)
            from ..model_info.checks import check_tools_capable

            check_tools_capable(*parse_model(self.model), f"agent {self.name!r}")
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
    every agent the run may reach must have a known price, checked before the run starts);
    ``budget``: an ``ai.Budget`` (or a list) that must admit every model call of the run
    before it is sent, shared with whatever else uses it (docs/budgets.md); a refusal ends
    the run with ``limit="budget"``.
    """

    max_model_calls: Optional[int] = None
    max_tool_calls: Optional[int] = None
    max_total_tokens: Optional[int] = None
    timeout_s: Optional[float] = None
    max_cost: Optional[float] = None
    budget: Any = None

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
        if self.budget is not None:
            from ..budgets.budget import check_budgets

            check_budgets(self.budget, "RunLimits.budget")


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


# --- control tools: handoffs and final_result ------------------------------------------------


class _ControlTool(Tool):
    """A tool the agent machinery defines (not a user function): a fixed schema, its own
    argument check, and a constant result. Runs as an async function on the caller's event
    loop (also under a ``tool_timeout``), so no thread hop."""

    _on_caller_loop = True

    def __init__(self, name: str, description: str, parameters: dict[str, Any], *,
                 check: Callable[[dict[str, Any]], dict[str, Any]], result: str,
                 fn: Optional[Callable[..., Any]] = None) -> None:
        async def accept(**_: Any) -> str:
            return result

        self._configure(fn or accept, name, description, parameters)
        self._takes_context = fn is not None  # a custom fn receives the run context first
        self._check = check

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self._check(arguments)


def _no_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    return {}  # a handoff takes no arguments; anything a model adds is ignored


def _adapter_schema(adapter: Any) -> dict[str, Any]:
    schema: dict[str, Any] = adapter.json_schema(by_alias=True, schema_generator=NoFieldTitles)
    schema.pop("title", None)
    return schema


def handoff_tool(spec: AgentHandoff) -> _ControlTool:
    """The tool a model calls to hand off: no arguments, or ``input_type``'s schema. Its
    function runs ``on_handoff`` (so a failing ``on_handoff`` or invalid input is an error
    result, and no handoff happens)."""
    target = spec.agent
    description = spec.tool_description
    if description is None:
        description = f"Hand the conversation over to the agent {target.name!r}"
        if target.handoff_description:
            description += f": {target.handoff_description}"
        description += ". That agent then continues the conversation."
    result = f"Transferred to {target.name}."
    parameters: dict[str, Any] = {"type": "object", "properties": {},
                                  "additionalProperties": False}
    check: Callable[[dict[str, Any]], dict[str, Any]] = _no_arguments
    if spec.input_type is not None:
        from pydantic import TypeAdapter

        adapter = TypeAdapter(spec.input_type)
        parameters = _adapter_schema(adapter)

        def check(arguments: dict[str, Any]) -> dict[str, Any]:
            return {"input": adapter.validate_python(arguments)}
    on_handoff = spec.on_handoff
    if on_handoff is None:
        return _ControlTool(spec.tool_name, description, parameters, check=check,
                            result=result)

    async def invoke(ctx: Any, **kwargs: Any) -> str:
        if "input" in kwargs:
            await maybe_await(on_handoff(ctx, kwargs["input"]))
        else:
            await maybe_await(on_handoff(ctx))
        return result

    return _ControlTool(spec.tool_name, description, parameters, check=check, result=result,
                        fn=invoke)


def _wraps_output(output_type: Any) -> bool:
    """Like the Agents SDK: anything but a pydantic model or a dict type is wrapped in an
    object ``{"response": ...}``, since providers want an object schema."""
    target = get_origin(output_type) or output_type
    return not (isinstance(target, type) and issubclass(target, (BaseModel, dict)))


def _type_name(t: Any) -> str:
    args = get_args(t)
    origin = get_origin(t)
    if origin is None or not args:
        return str(getattr(t, "__name__", repr(t)))
    return f"{getattr(origin, '__name__', str(origin))}_{'_'.join(_type_name(a) for a in args)}"


class OutputSpec:
    """Everything ``output_type`` needs, built once per agent: the JSON schema (non-object
    types wrapped in ``{"response": ...}``), the native ``response_format``, the
    ``final_result`` tool, and validation with pydantic's ``TypeAdapter``."""

    def __init__(self, output_type: Any) -> None:
        from pydantic import TypeAdapter
        from typing_extensions import TypedDict

        self.type = output_type
        self.wrapped = _wraps_output(output_type)
        self.name = re.sub(r"[^A-Za-z0-9_-]", "_", _type_name(output_type))[:64] or "output"
        target = (TypedDict("OutputType", {"response": output_type})  # type: ignore[operator]  # a functional TypedDict
                  if self.wrapped else output_type)
        try:
            self.adapter: Any = TypeAdapter(target)
            schema = _adapter_schema(self.adapter)
        except Exception as exc:
            raise TypeError(f"output_type {output_type!r} is not a type pydantic can validate "
                            f"and describe as JSON schema: {exc}") from None
        try:  # OpenAI strict mode where the type can express it
            native_schema, strict = strict_schema(schema, nullable=frozenset(),
                                                   tool_name=FINAL_RESULT), True
        except TypeError:
            native_schema, strict = schema, False
        self.response_format = {"type": "json_schema", "json_schema": {
            "name": self.name, "schema": native_schema, "strict": strict}}
        self.tool = _ControlTool(
            FINAL_RESULT, f"Give your final answer as {self.name}. Call this tool once, when "
            "you have the answer.", schema, check=self._check_arguments,
            result="Final result received.")

    def _unwrap(self, value: Any) -> Any:
        return value["response"] if self.wrapped else value

    def _check_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"output": self._unwrap(self.adapter.validate_python(arguments))}

    def parse_text(self, content: Any) -> Any:
        return self._unwrap(self.adapter.validate_json(text_of(content)))
