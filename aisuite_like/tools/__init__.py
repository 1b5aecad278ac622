"""Tools the model may call: ``Tool``, ``Tools``, the ``@tool`` decorator, tool policies, MCP
servers as tools (docs/tool-runner.md, docs/mcp.md), and the hosted tools the provider runs
itself: ``WebSearch``, ``CodeExecution``, ``WebFetch`` (docs/hosted-tools.md)."""

from __future__ import annotations

from ..core.hosted import CodeExecution, UserLocation, WebFetch, WebSearch
from .base import Tool, tool
from .toolset import Tools

__all__ = ["Tool", "Tools", "tool", "WebSearch", "CodeExecution", "WebFetch", "UserLocation"]
