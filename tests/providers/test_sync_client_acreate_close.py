"""A sync ``Client`` whose ``acreate`` runs in ``asyncio.run`` (docs/client.md, "Async calls on
a sync client") leaves no connection open: the connections opened on that event loop are closed
on it when ``asyncio.run`` shuts it down, on every family and both transports, whether the
client is closed afterwards or not. Each case runs in its own interpreter in development mode
(``-X dev``: every ResourceWarning shown, at exit too) against the loopback server."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
from support.fault_server import FaultServer

SUPPORT = str(pathlib.Path(__file__).resolve().parents[1])
MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-5",
          "google": "google:gemini-2.5-flash"}

PROGRAM = """
import asyncio, gc, sys
import aisuite_like as ai
family, transport, base, model, close = sys.argv[1:6]
client = ai.Client({family: {"base_url": base, "api_key": "sk-close-0123456789abcdef",
                             "max_retries": 0, "transport": transport}})
for _ in range(2):  # a new event loop each time, as a script calling asyncio.run twice
    reply = asyncio.run(client.chat.completions.acreate(
        model=model, messages=[{"role": "user", "content": "Hi"}]))
    assert reply.choices[0].message.content == "hello world"
if close == "close":
    client.close()
gc.collect()
print("ok")
"""


@pytest.mark.parametrize("close", ["close", "no-close"])
@pytest.mark.parametrize("transport", ["sdk", "native"])
@pytest.mark.parametrize("family", sorted(MODELS))
def test_acreate_on_a_sync_client_leaves_no_socket_open(family: str, transport: str,
                                                        close: str) -> None:
    with FaultServer() as server:
        base = server.url + "/v1" if family == "openai" else server.url
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [SUPPORT, os.environ.get("PYTHONPATH", "")])}
        out = subprocess.run(
            [sys.executable, "-X", "dev", "-W", "always::ResourceWarning", "-c", PROGRAM,
             family, transport, base, MODELS[family], close],
            capture_output=True, text=True, timeout=120, env=env)
        assert server.attempts == 2
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
    assert "ResourceWarning" not in out.stderr and "unclosed" not in out.stderr, \
        out.stderr[-3000:]
