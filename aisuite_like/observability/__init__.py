"""OpenTelemetry spans and metrics after the GenAI semantic conventions
(docs/observability.md). ``instrument()`` fills the slot the lower layers test
(``core.hooks.ACTIVE``); nothing below this layer imports it."""

from __future__ import annotations

from .switch import instrument, uninstrument

__all__ = ["instrument", "uninstrument"]
