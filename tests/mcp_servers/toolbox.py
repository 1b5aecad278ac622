"""An MCP server the tests start for real: ``python toolbox.py [stdio | http PORT]``.

Environment: ``TOOLBOX_PID_FILE`` (a line "<pid>" is appended at start, so tests can count
the processes started), ``TOOLBOX_FAIL_AT_START`` (write it to stderr and exit 3 at once).
"""

from __future__ import annotations

import asyncio
import os
import sys

if os.environ.get("TOOLBOX_FAIL_AT_START"):
    sys.stderr.write("toolbox: starting up\n" + os.environ["TOOLBOX_FAIL_AT_START"] + "\n")
    sys.stderr.flush()
    sys.exit(3)

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image

if os.environ.get("TOOLBOX_PID_FILE"):
    with open(os.environ["TOOLBOX_PID_FILE"], "a") as f:
        f.write(f"{os.getpid()}\n")

server = MCPServer("toolbox")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def forecast(city: str) -> dict[str, object]:
    """A made-up forecast, as structured content."""
    return {"city": city, "temperature_c": 21, "sky": "clear"}


@server.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ValueError("division by zero")
    return a / b


@server.tool()
def red_pixel() -> Image:
    """A 1x1 red PNG."""
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc0000003010100c9fe92ef0000000049454e44ae426082")
    return Image(data=png, format="png")


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def crash() -> str:
    """Exit the server process at once (no answer)."""
    sys.stderr.write("toolbox: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(1)


def _shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


@server.tool()
async def enable_shout(ctx: Context) -> str:
    """Add the 'shout' tool and tell the client the tool list changed."""
    server.add_tool(_shout, name="shout")
    await ctx.session.send_tool_list_changed()
    return "shout enabled"


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
