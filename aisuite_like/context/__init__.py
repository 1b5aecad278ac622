"""``ai.context``: what a run sends of its history on each model call (docs/context.md).

    resp = client.chat.completions.create(model=..., messages=..., tools=[...], max_turns=40,
                                          context=ai.context.Trim(max_tokens=20_000))

``Trim`` cuts the oldest turns, ``Summarize`` folds them into a summary written by a model,
``Native`` uses the provider's own context management. Cuts never separate a tool call from
its result. Each change is a ``ContextEvent`` on the run's ``response.context_events``.
"""

from __future__ import annotations

from ..core.types import ContextEvent
from .strategies import NATIVE_FAMILIES, ContextWindow, Native, Summarize, Trim
from .tokens import estimate_message, estimate_request

__all__ = ["Trim", "Summarize", "Native", "ContextWindow", "ContextEvent", "NATIVE_FAMILIES",
           "estimate_message", "estimate_request"]
