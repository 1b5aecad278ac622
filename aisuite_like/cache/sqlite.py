"""``SQLiteCache``: a response cache in one SQLite file, shared by the processes of one
machine (docs/cache.md). Standard library only (``sqlite3``)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from typing import Any, Optional, Union

from ..core.errors import ConfigurationError
from .base import CacheBackend

__all__ = ["SQLiteCache"]

_TABLE = "aisuite_like_response_cache"
_SCHEMA = (f"CREATE TABLE IF NOT EXISTS {_TABLE} (key TEXT PRIMARY KEY, value BLOB NOT NULL, "
           "expires_at REAL) WITHOUT ROWID")
# Expired entries are deleted every this many writes (reads never return them).
_SWEEP_EVERY = 256


class SQLiteCache(CacheBackend):
    """Responses in the SQLite database at ``path`` (created when missing), shared by every
    process of the machine that opens the same file: write-ahead logging (readers never wait
    for a writer), and a writer waits up to ``timeout`` seconds for another (SQLite's busy
    timeout) before the cache gives up on that entry (the call itself goes on, uncached).
    Expiry is by wall-clock time, so every process agrees on it. Thread-safe: one connection
    per process, used under a lock; a process forked from one that used the cache opens its
    own. The file grows with the entries kept: expired ones are deleted as new ones are
    written; ``clear()`` empties it."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], *, timeout: float = 5.0) -> None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        self.path = os.fspath(path)
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._conn: Optional[sqlite3.Connection] = None
        self._pid = 0
        self._writes = 0
        with self._lock:
            try:  # a path that cannot be opened fails here, not on a call
                self._connection()
            except sqlite3.Error as exc:
                raise ConfigurationError(
                    f"SQLiteCache cannot use {self.path!r}: {_cause(self.path, exc)}") from exc

    def __repr__(self) -> str:
        return f"SQLiteCache({self.path!r})"

    def _connection(self) -> sqlite3.Connection:
        conn = self._conn
        if conn is not None and self._pid == os.getpid():
            return conn
        _create_private(self.path)
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self._connection().execute(sql, args).fetchall()

    def get(self, key: str) -> Optional[bytes]:
        rows = self._run(f"SELECT value, expires_at FROM {_TABLE} WHERE key = ?", (key,))
        if not rows:
            return None
        value, expires = rows[0]
        if expires is not None and expires <= time.time():
            return None
        return bytes(value)

    def set(self, key: str, value: bytes, ttl: Optional[float]) -> None:
        now = time.time()
        expires = None if ttl is None else now + ttl
        with self._lock:
            conn = self._connection()
            conn.execute(f"INSERT OR REPLACE INTO {_TABLE} (key, value, expires_at) "
                         "VALUES (?, ?, ?)", (key, value, expires))
            self._writes += 1
            if self._writes % _SWEEP_EVERY == 0:
                conn.execute(f"DELETE FROM {_TABLE} WHERE expires_at <= ?", (now,))

    def delete(self, key: str) -> None:
        self._run(f"DELETE FROM {_TABLE} WHERE key = ?", (key,))

    def clear(self) -> None:
        self._run(f"DELETE FROM {_TABLE}")

    def __len__(self) -> int:
        """The entries that have not expired."""
        count: int = self._run(f"SELECT COUNT(*) FROM {_TABLE} WHERE expires_at IS NULL OR "
                               "expires_at > ?", (time.time(),))[0][0]
        return count

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None


def _create_private(path: str) -> None:
    """Create the database file readable and writable by its owner only (0600): it holds the
    answers to your prompts. SQLite gives its -wal and -shm files the database's mode. An
    existing file keeps its mode; ``:memory:`` and URIs are SQLite's."""
    if path == ":memory:" or path.startswith("file:") or os.path.exists(path):
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:  # another process made it meanwhile
        return
    except OSError:  # SQLite's own open says what is wrong
        return
    os.close(fd)


def _cause(path: str, exc: sqlite3.Error) -> str:
    """What is wrong with ``path``, in words (SQLite's own text says neither path nor why)."""
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return "it is a directory; give the path of a database file inside it, e.g. " \
               f"{os.path.join(path, 'cache.db')!r}"
    if not os.path.isdir(parent):
        return f"its directory {parent!r} does not exist; create it first"
    if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
        return "this process may not read and write it (check its permissions)"
    if not os.path.exists(path) and not os.access(parent, os.W_OK):
        return f"this process may not create files in {parent!r}"
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return "it is not an SQLite database, or it is damaged; remove it (it is only a " \
               f"cache) or give another path ({exc})"
    return f"SQLite says: {exc}"
