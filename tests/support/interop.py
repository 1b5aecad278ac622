"""Servers nobody here wrote (docs/interop.md): each is installed into a virtual environment
of its own (its dependencies never mix with the project's), started on 127.0.0.1 on a free
port as a subprocess, waited for within a bounded deadline, and killed at teardown.

:func:`tool_env` makes (once, then reuses) the environment for a set of exact pins, under
``AISUITE_INTEROP_HOME`` (default: ``.venv/interop`` of the checkout). When it cannot be made
(no index, no network, ``AISUITE_INTEROP=0``) the tests that need it are skipped with the
reason; the failure is remembered for a while so the other test files skip at once.

:class:`Results` records what each row did (server, version, row, transport, result) when
``AISUITE_INTEROP_RESULTS`` names a folder; scripts/interop_matrix.py renders those files
into docs/interop.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

import pytest

from support.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
#: The quick part (inside ``make test``): both install in seconds and need no model.
QUICK_PINS = ("llmock==0.2.2", "llm-katan==0.22.0")
#: How long a failed installation is remembered before it is tried again.
_FAILURE_MEMORY_S = 15 * 60


class ToolEnv:
    """A virtual environment holding exact pins: its interpreter, scripts and versions."""

    def __init__(self, path: Path, versions: dict[str, str], install_seconds: float) -> None:
        self.path = path
        self.versions = versions
        self.install_seconds = install_seconds

    @property
    def python(self) -> str:
        return str(self.path / "bin" / "python")

    def script(self, name: str) -> str:
        return str(self.path / "bin" / name)


def interop_home() -> Path:
    given = os.environ.get("AISUITE_INTEROP_HOME")
    if given:
        return Path(given)
    venv = ROOT / ".venv"
    return venv / "interop" if venv.is_dir() else Path(tempfile.gettempdir()) / "aisuite-interop"


#: Where ``make interop`` keeps the environments of its slow part (LiteLLM's proxy, ...).
FULL_HOME = ROOT / ".interop"


def full_run() -> bool:
    """True under ``make interop`` (``AISUITE_INTEROP_FULL=1``): the slow part runs too."""
    return os.environ.get("AISUITE_INTEROP_FULL") == "1"


def _env_dir(pins: Sequence[str], home: Optional[Path],
             build_env: Optional[dict[str, str]] = None) -> Path:
    build = [f"{name}={value}" for name, value in sorted((build_env or {}).items())]
    key = hashlib.sha256("\n".join([sys.version, *sorted(pins), *build]).encode())
    return (home or interop_home()) / f"env-{key.hexdigest()[:10]}"


def tool_env(pins: Sequence[str], *, install_timeout: float = 900.0,
             home: Optional[Path] = None,
             build_env: Optional[dict[str, str]] = None) -> ToolEnv:
    """The environment holding ``pins`` (``name==version`` each), made on first use under
    ``home`` (default :func:`interop_home`); skips the calling test when it cannot be made.
    ``build_env`` is added to pip's environment (a package built from source reads it, as
    llama-cpp-python reads ``CMAKE_ARGS``); it is part of the environment's identity."""
    if os.environ.get("AISUITE_INTEROP", "1").lower() in ("0", "off", "no", "false"):
        pytest.skip("AISUITE_INTEROP=0: the servers nobody here wrote are not installed")
    path = _env_dir(pins, home, build_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    ready, failed = path / ".ready.json", Path(str(path) + ".failed")
    with open(str(path) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be installing it
        if ready.exists():
            info = json.loads(ready.read_text(encoding="utf-8"))
            return ToolEnv(path, info["versions"], info["install_seconds"])
        if failed.exists() and time.time() - failed.stat().st_mtime < _FAILURE_MEMORY_S:
            pytest.skip(f"{' '.join(pins)} could not be installed (tried "
                        f"{int(time.time() - failed.stat().st_mtime)} s ago): "
                        f"{failed.read_text(encoding='utf-8')}")
        started = time.monotonic()
        reason = _install(path, pins, install_timeout, build_env)
        if reason is not None:
            failed.write_text(reason, encoding="utf-8")
            pytest.skip(f"{' '.join(pins)} could not be installed: {reason}")
        failed.unlink(missing_ok=True)
        versions = _versions(path, pins)
        seconds = round(time.monotonic() - started, 1)
        ready.write_text(json.dumps({"versions": versions, "install_seconds": seconds}),
                         encoding="utf-8")
        return ToolEnv(path, versions, seconds)


def _install(path: Path, pins: Sequence[str], timeout: float,
             build_env: Optional[dict[str, str]] = None) -> Optional[str]:
    """None when ``pins`` are installed into a fresh environment at ``path``, else why not."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    steps = [[sys.executable, "-m", "venv", str(path)],
             [str(path / "bin" / "python"), "-m", "pip", "install", "-q",
              "--disable-pip-version-check", "--timeout", "20", "--retries", "1", *pins]]
    for step in steps:
        try:
            proc = subprocess.run(step, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, **(build_env or {})})
        except subprocess.TimeoutExpired:
            return f"`{' '.join(step[:4])} ...` took more than {timeout:.0f} s"
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return f"`{' '.join(step[:4])} ...` exited {proc.returncode}: " + " / ".join(tail)
    return None


def _versions(path: Path, pins: Sequence[str]) -> dict[str, str]:
    names = [pin.split("==")[0].split("[")[0] for pin in pins]
    code = ("import importlib.metadata as m, json, sys; "
            "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))")
    out = subprocess.run([str(path / "bin" / "python"), "-c", code, *names],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    versions: dict[str, str] = json.loads(out)
    return versions


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """A server of someone else's as a subprocess on 127.0.0.1: ``argv(port)`` starts it;
    ready once ``health`` answers 200, within ``scaled(ready_within)`` seconds; terminated
    (then killed) on exit. Its output goes to a file, shown when it fails to start."""

    def __init__(self, name: str, argv: Callable[[int], list[str]], *,
                 health: str = "/health", env: Optional[dict[str, str]] = None,
                 ready_within: float = 30.0, cwd: Optional[str] = None) -> None:
        self.name = name
        self._argv = argv
        self._health = health
        self._env = {**os.environ, **(env or {})}
        self._ready_within = ready_within
        self._cwd = cwd
        self.port = 0
        self.start_seconds = 0.0
        self._proc: Optional[subprocess.Popen[bytes]] = None
        self._log: Optional[Any] = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 20) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        with open(self._log.name, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def __enter__(self) -> ServerProcess:
        self.port = free_port()
        self._log = tempfile.NamedTemporaryFile(prefix=f"{self.name}-", suffix=".log",
                                                delete=False)
        started = time.monotonic()
        self._proc = subprocess.Popen(self._argv(self.port), stdout=self._log,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      env=self._env, cwd=self._cwd)
        try:
            self._wait_ready(started + scaled(self._ready_within))
        except BaseException:
            self.stop()
            raise
        self.start_seconds = round(time.monotonic() - started, 2)
        return self

    def _wait_ready(self, deadline: float) -> None:
        assert self._proc is not None
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self._proc.returncode} before it was "
                                   f"ready:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + self._health, timeout=1) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} was not ready within "
                                   f"{scaled(self._ready_within):.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=scaled(5))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=scaled(5))
        if self._log is not None:
            self._log.close()
            with contextlib.suppress(OSError):
                os.unlink(self._log.name)
            self._log = None

    def __exit__(self, *exc: object) -> None:
        self.stop()


def http_json(method: str, url: str, body: Any = None) -> Any:
    """A JSON call to a server's own control API (not through the client under test)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=scaled(10)) as reply:
        return json.loads(reply.read() or b"null")


class Results:
    """What one test file saw, row by row; written to ``$AISUITE_INTEROP_RESULTS/<file>.json``
    at the end of the file when that variable is set (scripts/interop_matrix.py)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows: list[dict[str, str]] = []
        self.timings: list[dict[str, Any]] = []
        self._started = time.monotonic()

    def begin(self) -> None:
        """The file's tests start now (its server fixture calls it)."""
        self._started = time.monotonic()

    def record(self, server: str, version: str, row: str, transport: str, result: str) -> None:
        self.rows.append({"server": server, "version": version, "row": row,
                          "transport": transport, "result": result})

    def timing(self, server: str, part: str, seconds: float) -> None:
        self.timings.append({"server": server, "part": part, "seconds": round(seconds, 1)})

    def write(self) -> None:
        folder = os.environ.get("AISUITE_INTEROP_RESULTS")
        if not folder:
            return
        self.timing(self.name, "the whole file (tests, servers started)",
                    time.monotonic() - self._started)
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{self.name}.json").write_text(
            json.dumps({"rows": self.rows, "timings": self.timings}, indent=1),
            encoding="utf-8")


