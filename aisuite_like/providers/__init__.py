"""Provider families and what they share: the base contract (``base``), the registry of
provider keys (``registry``), the one retry policy (``retry``) and fallbacks (``fallback``).
Each family's module translates the unified request to its API and back."""

from __future__ import annotations

from .base import ChatRequest, Provider
from .registry import create_provider, provider_keys, register_provider

__all__ = ["ChatRequest", "Provider", "register_provider", "provider_keys", "create_provider"]
