"""The run context of an agent run (the OpenAI Agents SDK's ``RunContextWrapper``).

Kept in a module of its own, with no imports from the rest of the package, because
tools/base.py needs it to recognise a tool's context parameter and agents/run.py builds one
per run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Optional

from typing_extensions import TypeVar

__all__ = ["RunContextWrapper", "RunUsage", "RequestUsage", "AgentHookContext", "ToolContext"]

#: The type of the run's context object (``Runner.run(..., context=...)``). Defaults to Any,
#: so ``Agent`` means ``Agent[Any]``, as in the Agents SDK.
TContext = TypeVar("TContext", default=Any)


@dataclass
class RequestUsage:
    """The tokens of one model call of a run (the Agents SDK's ``RequestUsage``):
    ``input_tokens_details.cached_tokens`` and ``output_tokens_details.reasoning_tokens``
    as in the Responses API's usage."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: Any = None
    output_tokens_details: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "total_tokens": self.total_tokens,
                "input_tokens_details": _details_dict(self.input_tokens_details),
                "output_tokens_details": _details_dict(self.output_tokens_details)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RequestUsage":
        from .responses import InputTokensDetails, OutputTokensDetails

        return cls(input_tokens=int(data.get("input_tokens") or 0),
                   output_tokens=int(data.get("output_tokens") or 0),
                   total_tokens=int(data.get("total_tokens") or 0),
                   input_tokens_details=InputTokensDetails(
                       **(data.get("input_tokens_details") or {})),
                   output_tokens_details=OutputTokensDetails(
                       **(data.get("output_tokens_details") or {})))


def _details_dict(details: Any) -> dict[str, Any]:
    if details is None:
        return {}
    dump = getattr(details, "model_dump", None)
    return dict(dump()) if dump is not None else dict(details)


@dataclass
class RunUsage:
    """Tokens used by a run so far, summed over its model calls (the Agents SDK's names:
    ``requests``, ``input_tokens``, ``output_tokens``, ``total_tokens``; ``prompt_tokens`` /
    ``completion_tokens`` read the same numbers with OpenAI's names).
    ``request_usage_entries`` holds one ``RequestUsage`` per model call, in order."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    request_usage_entries: list[RequestUsage] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens

    @property
    def completion_tokens(self) -> int:
        return self.output_tokens

    def add_response_usage(self, usage: Optional[Any]) -> None:
        """Count one model call and its ``ai.Usage`` (None when the provider sent none)."""
        self.requests += 1
        if usage is not None:
            self.input_tokens += usage.prompt_tokens or 0
            self.output_tokens += usage.completion_tokens or 0
            self.total_tokens += usage.total_tokens or 0
            from .responses_items import usage_to_response

            entry = usage_to_response(usage)
            assert entry is not None
            self.request_usage_entries.append(RequestUsage(
                input_tokens=entry.input_tokens, output_tokens=entry.output_tokens,
                total_tokens=entry.total_tokens,
                input_tokens_details=entry.input_tokens_details,
                output_tokens_details=entry.output_tokens_details))

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible data (a paused run's state)."""
        return {"requests": self.requests, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "total_tokens": self.total_tokens,
                "request_usage_entries": [e.to_dict() for e in self.request_usage_entries]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunUsage":
        entries = data.get("request_usage_entries") or []
        return cls(requests=int(data.get("requests") or 0),
                   input_tokens=int(data.get("input_tokens") or 0),
                   output_tokens=int(data.get("output_tokens") or 0),
                   total_tokens=int(data.get("total_tokens") or 0),
                   request_usage_entries=[RequestUsage.from_dict(e) for e in entries])

    def copy(self) -> "RunUsage":
        return RunUsage(self.requests, self.input_tokens, self.output_tokens,
                        self.total_tokens, list(self.request_usage_entries))


@dataclass(eq=False)
class RunContextWrapper(Generic[TContext]):
    """What your code receives about the run: ``context`` is the object you passed to
    ``Runner.run(..., context=...)`` (never sent to the model), ``usage`` the tokens used so
    far. A tool, a callable ``instructions``, a guardrail or a hook whose first parameter is
    annotated ``RunContextWrapper`` (or ``RunContextWrapper[MyContext]``) receives it; that
    parameter is left out of the tool's schema."""

    context: TContext
    usage: RunUsage = field(default_factory=RunUsage)


def is_context_annotation(annotation: Any) -> bool:
    """``RunContextWrapper`` or ``RunContextWrapper[X]`` (or a subclass)."""
    from typing import get_origin

    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, RunContextWrapper)


@dataclass(eq=False)
class AgentHookContext(RunContextWrapper[TContext]):
    """What ``on_agent_start`` / ``on_start`` hooks receive (the Agents SDK's name): the run's
    context and usage (the same objects as the run's ``RunContextWrapper``), and
    ``turn_input``, the input the agent starts from as Responses input items."""

    turn_input: list[Any] = field(default_factory=list)


@dataclass(eq=False)
class ToolContext(RunContextWrapper[TContext]):
    """What ``on_tool_start`` / ``on_tool_end`` hooks receive (the Agents SDK's name): the
    run's context and usage, and the call: ``tool_name``, ``tool_call_id``,
    ``tool_arguments`` (the JSON text the model sent)."""

    tool_name: str = ""
    tool_call_id: str = ""
    tool_arguments: str = ""
