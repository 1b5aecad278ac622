"""Shared by the agent examples: the default model of every Agent without one.

A real provider is used when its key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY;
or EXAMPLE_MODEL=provider:model); otherwise the offline, deterministic ``test`` model, so every
example runs with no key and no network. The examples themselves are written as the OpenAI
Agents SDK's docs write them: only the import line differs.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import pick_model

import aisuite_like

aisuite_like.set_default_model(pick_model())
