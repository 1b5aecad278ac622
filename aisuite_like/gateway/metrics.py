"""The gateway's ``/metrics`` (Prometheus text format 0.0.4), counted in this worker's memory:
requests by endpoint, model and status, their latency as a histogram, tokens and cost by
model, the requests in flight. No key name and no content is a label."""

from __future__ import annotations

import bisect
import itertools
import threading
from collections import defaultdict
from typing import Optional

__all__ = ["Metrics"]

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str, str], int] = defaultdict(int)
        self._latency: dict[str, list[int]] = {}
        self._latency_sum: dict[str, float] = defaultdict(float)
        self._latency_count: dict[str, int] = defaultdict(int)
        self._tokens: dict[tuple[str, str], int] = defaultdict(int)
        self._cost: dict[str, float] = defaultdict(float)
        self.in_flight = 0

    def observe(self, endpoint: str, model: Optional[str], status: int, seconds: float,
                prompt_tokens: Optional[int], completion_tokens: Optional[int],
                cost: Optional[float]) -> None:
        shown = model or ""
        with self._lock:
            self._requests[(endpoint, shown, str(status))] += 1
            # per bucket (the first bound >= seconds; past the last: only the +Inf count),
            # made cumulative when rendered
            counts = self._latency.setdefault(endpoint, [0] * len(_BUCKETS))
            slot = bisect.bisect_left(_BUCKETS, seconds)
            if slot < len(_BUCKETS):
                counts[slot] += 1
            self._latency_sum[endpoint] += seconds
            self._latency_count[endpoint] += 1
            if prompt_tokens:
                self._tokens[(shown, "input")] += prompt_tokens
            if completion_tokens:
                self._tokens[(shown, "output")] += completion_tokens
            if cost:
                self._cost[shown] += cost

    def render(self) -> str:
        lines = ["# HELP aisuite_gateway_requests_total Requests answered, by endpoint, model "
                 "alias and HTTP status.", "# TYPE aisuite_gateway_requests_total counter"]
        with self._lock:
            for (endpoint, model, status), n in sorted(self._requests.items()):
                lines.append(f'aisuite_gateway_requests_total{{endpoint="{_label(endpoint)}",'
                             f'model="{_label(model)}",status="{status}"}} {n}')
            lines += ["# HELP aisuite_gateway_request_duration_seconds Time to answer a "
                      "request (a stream: to its end).",
                      "# TYPE aisuite_gateway_request_duration_seconds histogram"]
            for endpoint, counts in sorted(self._latency.items()):
                e = _label(endpoint)
                for bound, n in zip(_BUCKETS, itertools.accumulate(counts), strict=True):
                    lines.append(f'aisuite_gateway_request_duration_seconds_bucket{{endpoint="'
                                 f'{e}",le="{bound:g}"}} {n:g}')
                total = self._latency_count[endpoint]
                lines.append(f'aisuite_gateway_request_duration_seconds_bucket{{endpoint="{e}",'
                             f'le="+Inf"}} {total}')
                lines.append(f'aisuite_gateway_request_duration_seconds_sum{{endpoint="{e}"}} '
                             f'{self._latency_sum[endpoint]:.6f}')
                lines.append(f'aisuite_gateway_request_duration_seconds_count{{endpoint="{e}"}}'
                             f' {total}')
            lines += ["# HELP aisuite_gateway_tokens_total Tokens reported by the providers.",
                      "# TYPE aisuite_gateway_tokens_total counter"]
            for (model, kind), n in sorted(self._tokens.items()):
                lines.append(f'aisuite_gateway_tokens_total{{model="{_label(model)}",'
                             f'kind="{kind}"}} {n}')
            lines += ["# HELP aisuite_gateway_cost_usd_total Cost of the replies in USD.",
                      "# TYPE aisuite_gateway_cost_usd_total counter"]
            for model, cost in sorted(self._cost.items()):
                lines.append(f'aisuite_gateway_cost_usd_total{{model="{_label(model)}"}} '
                             f'{cost:.9f}')
            lines += ["# HELP aisuite_gateway_in_flight Requests being served by this worker.",
                      "# TYPE aisuite_gateway_in_flight gauge",
                      f"aisuite_gateway_in_flight {self.in_flight}"]
        return "\n".join(lines) + "\n"
