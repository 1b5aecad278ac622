"""A real Postgres server of the tests' own (Debian's package), in a temporary directory, on
127.0.0.1 and a free port, as tests/durable/test_durable_postgres.py starts one (initdb /
pg_ctl, run as the ``postgres`` user when the tests run as root, since initdb refuses root).

    with PostgresServer() as server:     # pytest.skip()s, saying why, without the binaries
        server.url                       # postgresql://postgres@127.0.0.1:<port>

``.ci/run`` installs the package when the binaries are missing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from typing import Any

import pytest

__all__ = ["PostgresServer"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            pytest.skip("no Postgres server binaries (/usr/lib/postgresql/*/bin/initdb); "
                        "install the Debian package 'postgresql' (.ci/run does) to run this "
                        "test")
        self.bindir = os.path.dirname(found[-1])
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no 'postgres' user to run initdb as")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.port = _free_port()
        self.root = tempfile.mkdtemp(prefix="aisuite-like-pg-")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def __enter__(self) -> "PostgresServer":
        data = os.path.join(self.root, "data")
        if self.prefix:
            shutil.chown(self.root, "postgres", "postgres")
        quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE,
                                 "check": True, "timeout": 120}
        try:
            subprocess.run([*self.prefix, f"{self.bindir}/initdb", "-D", data, "-A", "trust",
                            "-U", "postgres", "--no-sync"], **quiet)
            subprocess.run([*self.prefix, f"{self.bindir}/pg_ctl", "-D", data, "-l",
                            os.path.join(self.root, "log"), "-w", "-o",
                            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
                            "start"], **quiet)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        data = os.path.join(self.root, "data")
        if os.path.isdir(data):
            subprocess.run([*self.prefix, f"{self.bindir}/pg_ctl", "-D", data, "-m",
                            "immediate", "stop"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)
