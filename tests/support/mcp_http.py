"""The HTTP MCP server the tests start for real (``mcp_servers/toolbox.py http PORT``).

A free port is picked, then the server binds it: another process may take the port in
between, and the server then exits at once. So the server counts as started only when it
answers on the port and is still running a moment later; otherwise it is started again on
another port."""

from __future__ import annotations

import contextlib
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

TOOLBOX = str(pathlib.Path(__file__).resolve().parents[1] / "mcp_servers" / "toolbox.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _started(proc: subprocess.Popen[bytes], port: int, deadline: float) -> bool:
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            time.sleep(0.1)
            continue
        time.sleep(0.3)  # a server that lost the port to another process exits now
        return proc.poll() is None
    return False


@contextlib.contextmanager
def toolbox_http(attempts: int = 3) -> Iterator[int]:
    """The port of a running HTTP toolbox server (stopped when the block ends)."""
    for _ in range(attempts):
        port = free_port()
        proc = subprocess.Popen([sys.executable, TOOLBOX, "http", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if _started(proc, port, time.monotonic() + 30):
                yield port
                return
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    pytest.fail("the HTTP MCP server did not start")
