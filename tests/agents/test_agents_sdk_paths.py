"""The Agents SDK's module paths (docs/agents.md, "Agents SDK compatibility"): code that
imports from the SDK's submodules runs after ``agents`` is replaced by ``aisuite_like`` in its
imports, and each name is the same object as the top-level one."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import aisuite_like as ai

#: SDK module (after the prefix change) -> the names the SDK's examples import from it, each
#: with the top-level name it is (the SDK's ``agents.usage.Usage`` is a run's usage).
PATHS = {
    "aisuite_like.items": {name: name for name in (
        "ModelResponse", "TResponseInputItem", "MessageOutputItem", "ToolCallItem",
        "ToolCallOutputItem", "HandoffCallItem", "HandoffOutputItem", "ToolApprovalItem",
        "RunItem", "ItemHelpers", "HandoffInputData")},
    "aisuite_like.stream_events": {name: name for name in (
        "RawResponsesStreamEvent", "RunItemStreamEvent", "AgentUpdatedStreamEvent",
        "StreamEvent")},
    "aisuite_like.tool_context": {"ToolContext": "ToolContext"},
    "aisuite_like.run_context": {"RunContextWrapper": "RunContextWrapper",
                                 "AgentHookContext": "AgentHookContext"},
    "aisuite_like.lifecycle": {"RunHooks": "RunHooks", "AgentHooks": "AgentHooks"},
    "aisuite_like.usage": {"Usage": "RunUsage", "RunUsage": "RunUsage",
                           "RequestUsage": "RequestUsage"},
}


@pytest.mark.parametrize("module", sorted(PATHS))
def test_each_sdk_path_gives_the_top_level_names(module: str) -> None:
    loaded = importlib.import_module(module)
    for name, top in PATHS[module].items():
        assert getattr(loaded, name) is getattr(ai, top), (module, name)
    assert sorted(loaded.__all__) == sorted(PATHS[module])


def test_extensions_handoff_filters_is_the_sdk_spelling() -> None:
    from aisuite_like.extensions import handoff_filters

    assert handoff_filters.remove_all_tools is ai.handoff_filters.remove_all_tools


def test_the_paths_add_nothing_to_the_package_import() -> None:
    """``import aisuite_like`` loads none of them (they load the agents package on use)."""
    code = ("import sys, aisuite_like; print(sorted(m for m in sys.modules if m in "
            f"{[*sorted(PATHS), 'aisuite_like.extensions']!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
