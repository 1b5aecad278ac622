"""Tools the model may call: ``Tool``, ``Tools``, the ``@tool`` decorator, tool policies and MCP
servers as tools (docs/tool-runner.md, docs/mcp.md)."""

from __future__ import annotations

from .base import Tool, tool
from .toolset import Tools

__all__ = ["Tool", "Tools", "tool"]
