"""Time bounds for the tests that wait on real sockets and threads (timeouts, stalls, gaps
between stream events), scaled to how busy the machine is, as CPython's own test suite scales
its timeouts.

A bound written for a quiet machine (``timeout=0.3``) is ``scaled(0.3)``: the same value times
``SCALE``, which grows with the processes competing for each core: the load average when the
first test asks, plus this run's xdist workers, per core, between 1 and 8. The relations a
test checks (a stall outlasts the timeout, a stream outlasts it without being cut) hold at any
scale, because both sides are scaled. ``AISUITE_TEST_TIME_SCALE=2`` sets it by hand. Retry
waits never depend on it: those tests use a fake clock."""

from __future__ import annotations

import functools
import os

__all__ = ["SCALE_LIMIT", "scale", "scaled"]

#: The most a bound is stretched (a machine busier than this is not a place to run the suite).
SCALE_LIMIT = 8.0


@functools.cache
def scale() -> float:
    """How much longer than on a quiet machine a time bound is, for this test process."""
    given = os.environ.get("AISUITE_TEST_TIME_SCALE")
    if given:
        return max(1.0, float(given))
    cpus = os.cpu_count() or 1
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on this platform
        load = 0.0
    return min(SCALE_LIMIT, max(1.0, (load + workers) / cpus))


def scaled(seconds: float) -> float:
    """``seconds`` (a bound written for a quiet machine), stretched by ``scale()``."""
    return seconds * scale()
