"""The switch of OpenTelemetry instrumentation: ``instrument()`` / ``uninstrument()``.

This module imports nothing heavy. It fills or empties the slot ``core.hooks.ACTIVE``, which
the client's preparation and the tool loop's drivers test; only when it is set do they ask
``observability.otel`` (which imports opentelemetry) for a wrapping provider and for the hooks
that watch a run. Not instrumented, a call pays one attribute test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..core import hooks

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["instrument", "uninstrument"]


def instrument(tracer_provider: Optional[TracerProvider] = None,
               meter_provider: Optional[MeterProvider] = None,
               capture_content: bool = False) -> None:
    """Emit OpenTelemetry spans and metrics for every model call, tool execution, tool-runner
    run and agent run, after the OpenTelemetry GenAI semantic conventions (docs/observability.md).

    ``tracer_provider`` / ``meter_provider``: None means the global ones
    (``opentelemetry.trace.set_tracer_provider``...). ``capture_content``: record message
    contents and tool arguments/results on the spans; also turned on by the environment
    variable ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``. Off by default.
    API keys are never recorded. Needs ``pip install "aisuite-like[otel]"``. Calling it again
    replaces the previous settings."""
    try:
        import opentelemetry.trace  # noqa: F401 (only: is it installed?)
    except ImportError:
        from ..core.errors import MissingDependencyError

        raise MissingDependencyError(
            "instrument() needs the OpenTelemetry API: pip install \"aisuite-like[otel]\" "
            "(and an SDK or distro to export the spans, e.g. opentelemetry-sdk)") from None
    if not isinstance(capture_content, bool):
        raise TypeError(f"capture_content must be a bool, got "
                        f"{type(capture_content).__name__}")
    from .otel import Instrumentation

    hooks.ACTIVE = Instrumentation(tracer_provider, meter_provider, capture_content)


def uninstrument() -> None:
    """Stop emitting spans and metrics (calls return to paying only a flag test)."""
    hooks.ACTIVE = None
