"""``ai.Router``: aliases over several deployments, given to a client as
``ai.Client(router=...)`` (docs/router.md)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from ..core.checks import did_you_mean
from ..core.errors import ConfigurationError
from ..providers.base import Provider
from .deployments import Deployment, is_number, parse_deployment
from .limits import STRATEGIES
from .routing import Resolve, Route, RoutingProvider
from .state import MemoryState, RouterState

__all__ = ["Router", "Deployment"]

class _WallClock:
    """The router's default clock: wall time (shared by processes and machines through
    ``RedisState``), real sleeps."""

    @property
    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _check_seconds(name: str, value: Any, minimum_exclusive: bool) -> float:
    ok = is_number(value) and (value > 0 if minimum_exclusive else value >= 0)
    if not ok:
        raise ConfigurationError(f"Router {name} must be a number of seconds "
                                 f"{'> 0' if minimum_exclusive else '>= 0'}, got {value!r}")
    return float(value)


class Router:
    """Aliases, each over several deployments (docs/router.md).

    ``deployments`` maps an alias (a name without ':') to its deployments: dicts with
    ``model`` (``"provider:model"``), optional ``weight`` (default 1), ``rpm`` / ``tpm``
    (requests / tokens per minute this deployment may take), ``name`` (to tell two
    deployments of one model apart), and any provider setting (``api_key``, ``base_url``,
    ``max_retries``, ...) that this deployment uses instead of the client's
    ``provider_configs``.

    ``strategy``: ``"weighted"`` (random, in proportion to the weights), ``"least-busy"``
    (fewest calls in flight from this process) or ``"latency"`` (lowest moving average).
    ``cooldown``: seconds a deployment rests after a 429, 5xx, connection error or timeout
    that gave no ``Retry-After``. ``max_retry_wait``: the longest a call waits, in all, for a
    deployment to be free before it raises ``RateLimitError``. ``state``: where buckets and
    cool-downs live (``MemoryState()``, the default, or ``RedisState(url)`` to share them
    between processes). ``clock``: the time source (``now``, ``sleep``, ``asleep``; for tests
    ``aisuite_like.testing.FakeClock()``).

    Give it to a client (``ai.Client(router=router)``), then use an alias as the model:
    ``model="smart"`` or ``model="router:smart"``.
    """

    def __init__(self, deployments: Mapping[str, Sequence[Mapping[str, Any]]], *,
                 strategy: str = "weighted", cooldown: float = 30.0,
                 max_retry_wait: float = 60.0, state: Optional[RouterState] = None,
                 clock: Any = None) -> None:
        if not isinstance(deployments, Mapping) or not deployments:
            raise ConfigurationError(
                "Router needs deployments={alias: [{'model': 'provider:model', ...}, ...]}")
        if strategy not in STRATEGIES:
            hint = did_you_mean(str(strategy), STRATEGIES)
            raise ConfigurationError(
                f"unknown router strategy {strategy!r}"
                f"{f' (did you mean {hint!r}?)' if hint else ''}; one of {', '.join(STRATEGIES)}")
        self.strategy = strategy
        self.measures_latency = strategy == "latency"
        self.cooldown = _check_seconds("cooldown", cooldown, True)
        self.max_retry_wait = _check_seconds("max_retry_wait", max_retry_wait, False)
        if state is None:
            state = MemoryState()
        elif not isinstance(state, RouterState):
            raise TypeError(f"state must be aisuite_like.router.MemoryState() or "
                            f"RedisState(url), got {type(state).__name__}")
        self.state: RouterState = state
        if clock is None:
            clock = _WallClock()
        for name in ("sleep", "asleep"):
            if not callable(getattr(clock, name, None)):
                raise TypeError(f"clock must have now, sleep() and async asleep(); it has no "
                                f"{name}()")
        if not is_number(getattr(clock, "now", None)):
            raise TypeError("clock.now must be a number of seconds (e.g. testing.FakeClock())")
        self.clock = clock
        self._wall = type(clock) is _WallClock  # now() reads time.time() itself
        self._routes: dict[str, Route] = {}
        for alias, specs in deployments.items():
            if not isinstance(alias, str) or not alias.strip() or ":" in alias \
                    or "/" in alias or alias != alias.strip():
                raise ConfigurationError(
                    f"router alias must be a name without ':', '/' or surrounding spaces "
                    f"(it is used as a model: model='smart'), got {alias!r}")
            if isinstance(specs, (str, Mapping)) or not isinstance(specs, Sequence) \
                    or not specs:
                raise ConfigurationError(
                    f"router alias {alias!r} needs a non-empty list of deployments, e.g. "
                    f"[{{'model': 'openai:gpt-4o', 'weight': 1}}]")
            names: dict[str, int] = {}
            made = [parse_deployment(alias, i, spec, names) for i, spec in enumerate(specs)]
            labels = [d.name for d in made]
            if len(set(labels)) != len(labels):
                raise ConfigurationError(f"router alias {alias!r}: deployment names must be "
                                         f"unique, got {labels}")
            self._routes[alias] = Route(alias, made)

    def now(self) -> float:
        """The router's clock, in seconds."""
        return time.time() if self._wall else float(self.clock.now)

    @property
    def aliases(self) -> tuple[str, ...]:
        """The router's aliases."""
        return tuple(self._routes)

    def deployments(self, alias: str) -> tuple[Deployment, ...]:
        """The deployments of ``alias``."""
        return self._routes[alias].deployments

    def __repr__(self) -> str:  # never the deployments' settings (they may hold keys)
        return (f"Router(aliases={list(self._routes)}, strategy={self.strategy!r}, "
                f"state={self.state!r})")

    # -- what the client calls (client/plugins.py: ModelRouter) --

    def deployment_models(self) -> list[str]:
        """Every ``"provider:model"`` the router may send to (the client checks that their
        providers are known when it is given the router)."""
        return [d.model for route in self._routes.values() for d in route.deployments]

    def routing_provider(self, alias: str, resolve: Resolve) -> Optional[Provider]:
        """The provider that routes ``alias`` for a client (``resolve`` makes a deployment's
        provider with that client's configuration), or None when ``alias`` is not one of
        this router's."""
        route = self._routes.get(alias)
        if route is None:
            return None
        return RoutingProvider(self, route, resolve)
