"""OpenTelemetry: ``ai.instrument()`` turns every model call, tool execution and run into spans
and metrics (the GenAI semantic conventions). Here they are kept in memory and printed as a
tree; an application would export them (OTLP, console, ...) instead.

Needs the OpenTelemetry SDK: pip install "aisuite-like[otel]" opentelemetry-sdk

    python examples/observability.py
"""

from __future__ import annotations

from typing import Annotated, Any

from _common import pick_model
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import Field

import aisuite_like as ai


def get_weather(city: Annotated[str, Field(examples=["Paris"])]) -> str:
    """Current weather in a city.

    Args:
        city: City name, e.g. Paris.
    """
    return f"sunny, 22 degrees in {city}"


def get_pollen(city: Annotated[str, Field(examples=["Paris"])]) -> str:
    """Pollen count in a city.

    Args:
        city: City name, e.g. Paris.
    """
    raise ConnectionError("pollen service unreachable")  # a failing tool, to see the error


def print_tree(spans: list[ReadableSpan]) -> None:
    """Each span under its parent, in start order: name, duration, and what went wrong."""
    children: dict[Any, list[ReadableSpan]] = {}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        children.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def show(parent: Any, depth: int) -> None:
        for span in children.get(parent, []):
            attributes = span.attributes or {}
            ms = ((span.end_time or 0) - (span.start_time or 0)) / 1e6
            details = []
            if "gen_ai.usage.input_tokens" in attributes:
                details.append(f"tokens in={attributes['gen_ai.usage.input_tokens']} "
                               f"out={attributes['gen_ai.usage.output_tokens']}")
            if "gen_ai.response.finish_reasons" in attributes:
                details.append(f"finish={','.join(attributes['gen_ai.response.finish_reasons'])}")
            if "error.type" in attributes:
                details.append(f"ERROR {attributes['error.type']}")
            print(f"{'  ' * depth}{span.name}  [{ms:.1f} ms]  {'  '.join(details)}".rstrip())
            show(span.context.span_id, depth + 1)

    show(None, 0)


def main() -> None:
    model = pick_model()
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    ai.instrument(tracer_provider=tracer_provider,
                  meter_provider=MeterProvider(metric_readers=[reader]))

    with ai.Client() as client:
        response = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "Weather and pollen in Paris?"}],
            tools=[get_weather, get_pollen], max_turns=3)

    print("Spans:")
    print_tree(list(exporter.get_finished_spans()))
    print("Metrics:")
    data = reader.get_metrics_data()
    for resource_metrics in data.resource_metrics if data else []:
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    kind = point.attributes.get("gen_ai.token.type")
                    label = f"{metric.name} ({kind})" if kind else metric.name
                    print(f"  {label}: {point.count} calls, sum {point.sum:.4g} {metric.unit}")
    cost = response.usage.cost if response.usage is not None else None
    print("Cost of the run: " + (f"${cost:.6f}" if cost is not None
                                 else "unknown (no price for this model)"))


if __name__ == "__main__":
    main()
