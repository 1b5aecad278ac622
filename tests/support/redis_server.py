"""A real ``redis-server`` (Debian's package) of the tests' own, in a temporary directory, on
127.0.0.1 and a free port, with no persistence; as the durable-run tests start Postgres.

    with RedisServer() as server:      # pytest.skip()s, saying why, without the binary
        server.url                     # redis://127.0.0.1:<port>/0

``.ci/run`` installs the package when the binary is missing. ``stop()`` ends the server (the
process this helper started, by its pid) so a test can see what a client does when it is gone.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any, Optional

import pytest

__all__ = ["RedisServer"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    def __init__(self, password: Optional[str] = None) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.skip("no redis-server binary; install the Debian package 'redis-server' "
                        "(.ci/run does) to run the Redis cache tests")
        self.password = password
        self.port = _free_port()
        self.dir = tempfile.mkdtemp(prefix="aisuite-like-redis-")
        self._proc: Optional[subprocess.Popen[bytes]] = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def __enter__(self) -> "RedisServer":
        assert self.binary is not None
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", self.dir, "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--logfile", ""]
        if self.password:
            args += ["--requirepass", self.password]
        self._proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode() if self._proc.stderr else ""
                raise RuntimeError(f"redis-server exited: {err[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    reply = s.recv(64)
                if reply.startswith((b"+PONG", b"-NOAUTH")):
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer within 20 s")

    def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        if self._proc is not None and self._proc.stderr is not None:
            self._proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
