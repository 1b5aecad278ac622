"""LiteLLM's proxy beside the gateway in benchmarks/gateway.py (``--litellm``): the same
loopback upstream, one worker, a master key, no database (its virtual keys and spend logs
need Postgres; the gateway's side keeps its SQLite records and a virtual key, so the
comparison favours LiteLLM there).

Where it comes from: ``AISUITE_LITELLM`` (the path of a ``litellm`` script), else the
environment ``make interop`` installs (``.interop/env-*``, pinned to ``PINNED``; never
1.82.7 / 1.82.8, the compromised releases, nor 1.107.0)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Optional

__all__ = ["PINNED", "LiteLLMProxy", "find_litellm"]

PINNED = "1.106.12"
_NEVER = ("1.82.7", "1.82.8", "1.107.0")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MASTER_KEY = "sk-bench-litellm-master-0123456789"


def find_litellm() -> Optional[str]:
    """The ``litellm`` script to run, or None when none is installed."""
    given = os.environ.get("AISUITE_LITELLM")
    if given:
        return given
    for ready in sorted(glob.glob(os.path.join(ROOT, ".interop", "env-*", ".ready.json"))):
        with open(ready, encoding="utf-8") as f:
            versions = json.load(f).get("versions", {})
        script = os.path.join(os.path.dirname(ready), "bin", "litellm")
        if versions.get("litellm") == PINNED and os.path.exists(script):
            return script
    return None


def _version(script: str) -> str:
    python = os.path.join(os.path.dirname(script), "python")
    out = subprocess.run([python, "-c", "import importlib.metadata as m; "
                          "print(m.version('litellm'))"], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    if out in _NEVER:
        raise RuntimeError(f"litellm {out} must never run (a compromised or broken release)")
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiteLLMProxy:
    """``litellm --config ...`` in its own process, serving ``gpt-bench`` (and
    ``gpt-bench-lat<ms>`` names) from ``upstream``."""

    def __init__(self, script: str, upstream: str, latencies_ms: tuple[int, ...] = ()) -> None:
        self.version = _version(script)
        self.dir = tempfile.mkdtemp(prefix="aisuite-like-litellm-bench-")
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.key = MASTER_KEY
        names = ["gpt-bench", *(f"gpt-bench-lat{ms}" for ms in latencies_ms if ms)]
        models = "".join(
            f"  - model_name: {name}\n"
            f"    litellm_params: {{model: openai/{name}, api_base: \"{upstream}/v1\", "
            f"api_key: bench-upstream-key}}\n" for name in names)
        config = os.path.join(self.dir, "config.yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(f"model_list:\n{models}litellm_settings:\n  num_retries: 0\n"
                    "  request_timeout: 120\nrouter_settings:\n  num_retries: 0\n")
        env = {**os.environ, "LITELLM_MASTER_KEY": MASTER_KEY,
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR"}
        self.proc = subprocess.Popen(
            [script, "--config", config, "--host", "127.0.0.1", "--port", str(self.port),
             "--num_workers", "1"], cwd=self.dir, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        import httpx2

        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx2.get(self.base + "/health/liveliness", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise RuntimeError(f"LiteLLM's proxy did not start: {err[-2000:]}")
            time.sleep(0.2)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
