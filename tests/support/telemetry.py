"""What the OpenTelemetry SDK receives while a test runs instrumented: ``Telemetry`` (an
in-memory span exporter and metric reader, read back), ``instrumented()`` (``ai.instrument``
for a block), and through it the ``otel`` fixture of tests/conftest.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import aisuite_like as ai
from support.openai_helpers import KEY


class Telemetry:
    """What the OpenTelemetry SDK received."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        (span,) = self.named(name)
        return span

    def children(self, parent: ReadableSpan) -> list[str]:
        return [s.name for s in self.spans()
                if s.parent is not None and s.parent.span_id == parent.context.span_id]

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        data = self.reader.get_metrics_data()
        out = []
        for rm in data.resource_metrics if data else []:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == metric:
                        out += [(dict(p.attributes), p) for p in m.data.data_points]
        return out

    def everything(self) -> str:
        """Every name, attribute, event and status text of every span and metric point."""
        parts = []
        for s in self.exporter.get_finished_spans():
            parts += [s.name, json.dumps(dict(s.attributes or {}), default=str),
                      str(s.status.description)]
            parts += [json.dumps(dict(e.attributes or {}), default=str) for e in s.events]
        for name in ("gen_ai.client.token.usage", "gen_ai.client.operation.duration"):
            parts += [json.dumps(a, default=str) for a, _ in self.points(name)]
        return "\n".join(parts)

    def assert_no_key(self, key: str = KEY) -> None:
        assert key not in self.everything()


@contextmanager
def instrumented(**options: Any) -> Iterator[Telemetry]:
    """``ai.instrument(**options)`` into a new ``Telemetry`` for the block, undone after it."""
    t = Telemetry()
    ai.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider, **options)
    try:
        yield t
    finally:
        ai.uninstrument()
        t.tracer_provider.shutdown()
        t.meter_provider.shutdown()
