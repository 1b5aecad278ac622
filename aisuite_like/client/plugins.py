"""What the client calls on the features it is given as objects (docs/architecture.md, "The
edges that point up"): the client layer describes them here and never imports the feature's
package."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional, Protocol, runtime_checkable

from ..providers.base import Provider

__all__ = ["ResponseCache", "ModelRouter", "DeploymentResolver"]


@runtime_checkable
class ResponseCache(Protocol):
    """A response cache (``ai.Client(cache=...)``; ``aisuite_like.cache`` has the backends,
    docs/cache.md). The provider stack of each call that uses it (``prepare.py``) asks for
    the model's provider wrapped in the cache: a provider that answers from the cache when
    it can and stores what the wrapped one answers, each entry expiring after ``ttl``
    seconds (None: never)."""

    def wrap(self, provider: Provider, *, provider_key: str, ttl: Optional[float]
             ) -> Provider: ...


#: What a client hands a router to make a deployment's provider: ``(model, settings, label)``
#: -> the provider for ``model`` (``"provider:model"``) with the client's configuration of that
#: provider, ``settings`` (the deployment's own ``api_key``, ``base_url``, ...) over it (one
#: per ``label`` when there are settings, else the client's shared provider), in its layers
#: of the client's provider stack (``prepare.py``: traced when instrumented).
DeploymentResolver = Callable[[str, Mapping[str, Any], str], Provider]


@runtime_checkable
class ModelRouter(Protocol):
    """A router (``ai.Client(router=...)``; ``aisuite_like.router.Router``, docs/router.md).
    The client checks the providers of its deployments when it is given the router, and the
    preparation of a call whose model names one of its aliases (``"smart"`` or
    ``"router:smart"``) sends the call to the provider it returns for that alias."""

    def deployment_models(self) -> Iterable[str]: ...

    def routing_provider(self, alias: str, resolve: DeploymentResolver
                         ) -> Optional[Provider]: ...
