"""MCP servers as tools (public import path; defined in ``aisuite_like.tools``),
docs/mcp.md."""

from __future__ import annotations

from .tools.mcp import (
    MCPServer as MCPServer,
    MCPServerHTTP as MCPServerHTTP,
    MCPServerStdio as MCPServerStdio,
    MCPToolError as MCPToolError,
    MCPToolResult as MCPToolResult,
)

__all__ = [
    "MCPServer", "MCPServerStdio", "MCPServerHTTP", "MCPToolResult", "MCPToolError",
]
