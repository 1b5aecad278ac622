"""``ai.trace(name)``: the Agents SDK's ``trace`` (docs/observability.md). Under
``ai.instrument()`` it opens an OpenTelemetry span named ``name`` around the block, so the
model calls, tool calls and agent runs inside it become its children; otherwise it does
nothing (it asks the observability slot ``core.hooks.ACTIVE``; opentelemetry is not
imported)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Optional

from . import hooks as _instrumentation

__all__ = ["Trace", "trace"]


class Trace:
    """A block of work under one name (the Agents SDK's ``Trace``): ``with trace("Joke
    workflow"): ...``, or ``start()`` / ``finish()``. ``trace_id`` is generated when not
    given; ``group_id`` (a conversation id) and ``metadata`` (text values) are recorded on the
    span."""

    def __init__(self, workflow_name: str, *, trace_id: Optional[str] = None,
                 group_id: Optional[str] = None, metadata: Optional[Mapping[str, Any]] = None,
                 disabled: bool = False) -> None:
        if not isinstance(workflow_name, str) or not workflow_name:
            raise ValueError("trace needs a workflow name (a non-empty string)")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise TypeError("metadata must be a dict of text values")
        self.name = workflow_name
        self.trace_id = trace_id or f"trace_{secrets.token_hex(16)}"
        self.group_id = group_id
        self.metadata = dict(metadata or {})
        self.disabled = disabled
        self._scope: Optional[AbstractContextManager[Any]] = None

    def _attributes(self) -> dict[str, Any]:
        attributes: dict[str, Any] = {"aisuite_like.trace.id": self.trace_id}
        if self.group_id is not None:
            attributes["gen_ai.conversation.id"] = self.group_id
        for key, value in self.metadata.items():
            attributes[f"aisuite_like.trace.metadata.{key}"] = (
                value if isinstance(value, (str, bool, int, float)) else str(value))
        return attributes

    def start(self, mark_as_current: bool = True) -> None:
        """Open the span (when instrumented), current until ``finish()``."""
        active = _instrumentation.ACTIVE
        if self._scope is not None or self.disabled or active is None:
            return
        self._scope = active.workflow_span(self.name, self._attributes())
        self._scope.__enter__()

    def finish(self, reset_current: bool = True) -> None:
        """End the span."""
        scope, self._scope = self._scope, None
        if scope is not None:
            scope.__exit__(None, None, None)

    def __enter__(self) -> "Trace":
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        scope, self._scope = self._scope, None
        if scope is not None:
            scope.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"Trace(name={self.name!r}, trace_id={self.trace_id!r})"


def trace(workflow_name: str, *, trace_id: Optional[str] = None,
          group_id: Optional[str] = None, metadata: Optional[Mapping[str, Any]] = None,
          disabled: bool = False) -> Trace:
    """A ``Trace`` of ``workflow_name``: ``with ai.trace("Joke workflow"): ...`` puts the
    calls inside under one span when instrumented (``ai.instrument()``), and costs nothing
    otherwise."""
    return Trace(workflow_name, trace_id=trace_id, group_id=group_id, metadata=metadata,
                 disabled=disabled)
