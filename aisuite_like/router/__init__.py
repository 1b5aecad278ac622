"""Routing across deployments (docs/router.md): ``Router`` gives a client aliases, each over
several deployments of a model, spread by weight, load or latency, paced to each deployment's
limits and its providers' rate-limit headers, cooled down after a 429 or a failure.
``MemoryState`` keeps the buckets and cool-downs in this process (the default);
``RedisState(url)`` shares them between processes and machines (redis-py, imported on first
use: ``import aisuite_like`` imports no redis)."""

from __future__ import annotations

from .api import Router
from .deployments import Deployment
from .redis_state import RedisState
from .state import MemoryState, RouterState

__all__ = ["Router", "Deployment", "MemoryState", "RedisState", "RouterState"]
