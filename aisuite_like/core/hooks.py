"""The observability slot. ``ACTIVE`` is None until ``aisuite_like.instrument()`` fills it with
the OpenTelemetry instrumentation; the client, the tool loop and the agents test it and, only
when it is set, hand their provider or run to it. The layers below observability never import
it (docs/architecture.md), and a call that is not instrumented pays one attribute test."""

from __future__ import annotations

from typing import Any

__all__ = ["ACTIVE"]

#: The active instrumentation (``aisuite_like.observability.otel.Instrumentation``), or None.
ACTIVE: Any = None
