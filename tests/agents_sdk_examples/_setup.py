"""The one thing the Agents SDK's examples here do not say: which model. Every ``Agent``
without a model uses the default model, set here to the offline, deterministic ``test``
model (no key, no network); ``AGENTS_SDK_EXAMPLE_MODEL=provider:model`` picks another."""

from __future__ import annotations

import os

import aisuite_like

aisuite_like.set_default_model(os.environ.get("AGENTS_SDK_EXAMPLE_MODEL") or "test:offline")
