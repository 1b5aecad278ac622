"""What the client calls on the features it is given as objects (docs/architecture.md, "The
edges that point up"): the client layer describes them here and never imports the feature's
package."""

from __future__ import annotations

from typing import Optional, Protocol, runtime_checkable

from ..providers.base import Provider

__all__ = ["ResponseCache"]


@runtime_checkable
class ResponseCache(Protocol):
    """A response cache (``ai.Client(cache=...)``; ``aisuite_like.cache`` has the backends,
    docs/cache.md). The preparation of each call that uses it asks for the call's provider
    wrapped in the cache: a provider that answers from the cache when it can and stores what
    the wrapped one answers, each entry expiring after ``ttl`` seconds (None: never)."""

    def wrap(self, provider: Provider, *, provider_key: str, ttl: Optional[float]
             ) -> Provider: ...
