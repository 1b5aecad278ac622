"""A small MCP server of our own, used by ``mcp_tools.py`` (it starts this file as a
subprocess speaking MCP over stdin/stdout). Built with the official SDK's ``MCPServer``
(FastMCP's successor in ``mcp`` 2.x):

    python examples/mcp_server.py            # stdio (what MCPServerStdio starts)
    python examples/mcp_server.py http 8000  # streamable HTTP on 127.0.0.1:8000/mcp
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

server = MCPServer("notes")

_FORECASTS = {"paris": (22, "sunny"), "tokyo": (17, "light rain")}


# `examples` helps real models and is what the offline test model fills in.
@server.tool()
def get_forecast(city: Annotated[str, Field(description="City name", examples=["Paris"])]
                 ) -> dict[str, object]:
    """Tomorrow's forecast for a city."""
    celsius, sky = _FORECASTS.get(city.lower(), (20, "cloudy"))
    return {"city": city, "temperature_c": celsius, "sky": sky}


@server.tool()
def word_count(text: Annotated[str, Field(description="Any text",
                                          examples=["the quick brown fox"])]) -> int:
    """Count the words of a text."""
    return len(text.split())


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
