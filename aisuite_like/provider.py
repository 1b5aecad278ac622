"""aisuite's ``aisuite.provider`` names, for aisuite code (docs/migration.md, "From aisuite"):
``ProviderFactory`` (the factory the client makes its providers with) and ``Provider``
(defined in ``aisuite_like.providers``)."""

from __future__ import annotations

from .providers.aisuite import (
    AisuiteProvider as AisuiteProvider,
    ProviderFactory as ProviderFactory,
)
from .providers.base import Provider as Provider

__all__ = ["ProviderFactory", "Provider", "AisuiteProvider"]
