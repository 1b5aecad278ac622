"""OpenTelemetry spans and metrics after the GenAI semantic conventions
(docs/observability.md). ``instrument()`` fills the slot the lower layers test
(``core.hooks.ACTIVE``): the client wraps providers in it and the tool loop's drivers take
their hooks from it. Nothing below this layer imports it."""

from __future__ import annotations

from .switch import instrument, uninstrument

__all__ = ["instrument", "uninstrument"]
