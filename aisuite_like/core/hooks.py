"""The observability slot. ``ACTIVE`` is None until ``aisuite_like.instrument()`` fills it with
the OpenTelemetry instrumentation. Only when it is set, the client's provider stack wraps
each model's provider in it (``ACTIVE.traced(provider)``) and the tool loop's drivers ask it for
the hooks that watch a run (``ACTIVE.run_hooks(engine, provider)``); it never drives anything.
The layers below observability never import it (docs/architecture.md), and a call that is not
instrumented pays one attribute test."""

from __future__ import annotations

from typing import Any

__all__ = ["ACTIVE"]

#: The active instrumentation (``aisuite_like.observability.otel.Instrumentation``), or None.
ACTIVE: Any = None
