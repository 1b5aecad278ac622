"""The run context of an agent run (the OpenAI Agents SDK's ``RunContextWrapper``).

Kept in a module of its own, with no imports from the rest of the package, because tools.py
needs it to recognise a tool's context parameter and agents.py builds one per run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Optional

from typing_extensions import TypeVar

__all__ = ["RunContextWrapper", "RunUsage"]

#: The type of the run's context object (``Runner.run(..., context=...)``). Defaults to Any,
#: so ``Agent`` means ``Agent[Any]``, as in the Agents SDK.
TContext = TypeVar("TContext", default=Any)


@dataclass
class RunUsage:
    """Tokens used by a run so far, summed over its model calls (the Agents SDK's names:
    ``requests``, ``input_tokens``, ``output_tokens``, ``total_tokens``; ``prompt_tokens`` /
    ``completion_tokens`` read the same numbers with OpenAI's names)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

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
