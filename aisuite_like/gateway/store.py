"""Where the gateway keeps its virtual keys and its records (docs/gateway.md, "Storage"):
SQLite (the standard library's ``sqlite3``, one file) by default, Postgres (psycopg 3) by URL.

One small SQL dialect serves both (``?`` placeholders, turned into ``%s`` for psycopg). The
store is synchronous, guarded by a lock, and the app calls it from a worker thread
(``asyncio.to_thread``), so the CLI and the server share one piece of code. A key is stored as
the SHA-256 of its text, never the text: the key is 256 random bits, so a plain hash cannot
be searched backwards, and the lookup is by that hash, checked again with
``hmac.compare_digest``.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.errors import ConfigurationError, MissingDependencyError

__all__ = ["Store", "VirtualKey", "RequestRecord", "open_store", "hash_key", "new_key",
           "parse_budget", "parse_duration", "KEY_PREFIX"]

#: Every virtual key starts so (secret scanners and readers can tell what it is).
KEY_PREFIX = "sk-gw-"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS gateway_keys (
        name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, hint TEXT NOT NULL,
        models TEXT, rpm INTEGER, tpm INTEGER, budget DOUBLE PRECISION, budget_window TEXT,
        created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION,
        revoked DOUBLE PRECISION)""",
    """CREATE TABLE IF NOT EXISTS gateway_requests (
        id TEXT PRIMARY KEY, ts DOUBLE PRECISION NOT NULL, key_name TEXT, endpoint TEXT NOT NULL,
        model TEXT, deployment TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
        cost DOUBLE PRECISION, latency_ms DOUBLE PRECISION, status INTEGER NOT NULL,
        error_type TEXT, cache_hit INTEGER NOT NULL, stream INTEGER NOT NULL, content TEXT)""",
    "CREATE INDEX IF NOT EXISTS gateway_requests_ts ON gateway_requests (ts)",
)

_KEY_COLUMNS = ("name, key_hash, hint, models, rpm, tpm, budget, budget_window, created, "
                "expires, revoked")
_RECORD_COLUMNS = ("id", "ts", "key_name", "endpoint", "model", "deployment", "prompt_tokens",
                   "completion_tokens", "cost", "latency_ms", "status", "error_type",
                   "cache_hit", "stream", "content")

_WINDOWS = {"hour": "1h", "day": "1d", "month": "1mo", "1h": "1h", "1d": "1d", "1mo": "1mo"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


def hash_key(key: str) -> str:
    """The stored form of a key: SHA-256, hex."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def new_key() -> str:
    """A new virtual key: the prefix and 256 random bits."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def parse_budget(text: str) -> tuple[float, Optional[str]]:
    """``"50/month"`` -> ``(50.0, "1mo")``; ``"5/day"``, ``"1/hour"``, ``"100"`` (no window)."""
    amount, _, window = str(text).partition("/")
    try:
        value = float(amount)
    except ValueError:
        raise ConfigurationError(f"budget {text!r}: expected USD[/hour|day|month], e.g. "
                                 "50/month") from None
    if not value >= 0 or value == float("inf"):
        raise ConfigurationError(f"budget {text!r}: the amount must be a number >= 0")
    if not window:
        return value, None
    if window not in _WINDOWS:
        raise ConfigurationError(f"budget {text!r}: the window must be hour, day or month")
    return value, _WINDOWS[window]


def parse_duration(text: str) -> float:
    """``"30d"`` / ``"12h"`` / ``"90m"`` / ``"45s"`` -> seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", str(text))
    if not match:
        raise ConfigurationError(f"duration {text!r}: expected a number and s, m, h or d, "
                                 "e.g. 30d")
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


@dataclass(frozen=True)
class VirtualKey:
    """A virtual key as stored (never its text): ``name``, ``hint`` (its first characters, to
    tell keys apart), the ``models`` it may call (None: every alias), its ``rpm`` / ``tpm``,
    its ``budget`` (USD per ``budget_window``), and when it was made, expires and was
    revoked (epoch seconds; None: never)."""

    name: str
    hint: str
    models: Optional[tuple[str, ...]] = None
    rpm: Optional[int] = None
    tpm: Optional[int] = None
    budget: Optional[float] = None
    budget_window: Optional[str] = None
    created: float = 0.0
    expires: Optional[float] = None
    revoked: Optional[float] = None
    key_hash: str = field(default="", repr=False)

    def usable(self, now: float) -> bool:
        return self.revoked is None and (self.expires is None or now < self.expires)

    def public(self) -> dict[str, Any]:
        """What the admin API shows of a key (no hash)."""
        return {"name": self.name, "hint": self.hint,
                "models": list(self.models) if self.models is not None else None,
                "rpm": self.rpm, "tpm": self.tpm, "budget": self.budget,
                "budget_window": self.budget_window, "created": self.created,
                "expires": self.expires, "revoked": self.revoked}


_PROCESS_ID = secrets.token_hex(8)
_RECORDS = itertools.count()


def _new_process_id() -> None:
    global _PROCESS_ID, _RECORDS
    _PROCESS_ID, _RECORDS = secrets.token_hex(8), itertools.count()


os.register_at_fork(after_in_child=_new_process_id)  # workers forked after import (gunicorn)


@dataclass
class RequestRecord:
    """One request the gateway answered (or refused)."""

    endpoint: str
    status: int
    key_name: Optional[str] = None
    model: Optional[str] = None
    deployment: Optional[str] = None
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    cost: Optional[float] = None
    latency_ms: Optional[float] = None
    error_type: Optional[str] = None
    cache_hit: bool = False
    stream: bool = False
    content: Optional[str] = None
    ts: float = field(default_factory=time.time)
    #: 32 hex digits, unique across processes: this process's 64 random bits and its count
    #: of records (no system call per request, as a random id each would be)
    id: str = field(default_factory=lambda: f"{_PROCESS_ID}{next(_RECORDS):016x}")

    def row(self) -> tuple[Any, ...]:
        return (self.id, self.ts, self.key_name, self.endpoint, self.model, self.deployment,
                self.prompt_tokens, self.completion_tokens, self.cost, self.latency_ms,
                self.status, self.error_type, int(self.cache_hit), int(self.stream),
                self.content)


def _key_from_row(row: Sequence[Any]) -> VirtualKey:
    models = json.loads(row[3]) if row[3] is not None else None
    return VirtualKey(name=row[0], key_hash=row[1], hint=row[2],
                      models=tuple(models) if models is not None else None, rpm=row[4],
                      tpm=row[5], budget=row[6], budget_window=row[7], created=row[8],
                      expires=row[9], revoked=row[10])


class Store:
    """Keys and records in one database. ``url``: ``sqlite:///path`` or ``postgresql://...``."""

    def __init__(self, url: str) -> None:
        self._lock = threading.Lock()
        self._postgres = url.startswith(("postgresql://", "postgres://"))
        #: A local file (SQLite): reads are fast enough to make on the event loop.
        self.local = not self._postgres
        if self._postgres:
            try:
                import psycopg
            except ImportError:
                raise MissingDependencyError(
                    "a postgresql:// gateway store needs psycopg: pip install "
                    "'psycopg[binary]'") from None
            self._conn: Any = psycopg.connect(url, autocommit=True, connect_timeout=10)
            self.where = "postgresql"
        else:
            import sqlite3

            path = url[len("sqlite://"):]
            if path.startswith("/"):
                path = path[1:]
            path = path or ":memory:"
            self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                                         timeout=30)
            self._reader, self._read_lock = self._conn, self._lock
            if path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
                # WAL: a reader does not wait for the writer, so a key's lookup (made on the
                # event loop) never waits for a batch of records being written
                self._reader = sqlite3.connect(path, check_same_thread=False,
                                               isolation_level=None, timeout=30)
                self._read_lock = threading.Lock()
            self.where = f"sqlite:{path}"
        with self._lock:
            for statement in _SCHEMA:
                self._conn.execute(statement)

    def __repr__(self) -> str:
        return f"Store({self.where!r})"

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s") if self._postgres else statement

    def _run(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            cursor = self._conn.execute(self._sql(statement), tuple(params))
            rows = cursor.fetchall() if cursor.description is not None else []
        return [tuple(r) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        if not self._postgres and self._reader is not self._conn:
            with self._read_lock:
                self._reader.close()

    # --- keys ----------------------------------------------------------------------------

    def create_key(self, name: str, *, models: Optional[Sequence[str]] = None,
                   rpm: Optional[int] = None, tpm: Optional[int] = None,
                   budget: Optional[float] = None, budget_window: Optional[str] = None,
                   expires_in: Optional[float] = None) -> tuple[str, VirtualKey]:
        """A new key named ``name``: (its text, shown once; what is stored)."""
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigurationError(
                f"key name {name!r}: 1 to 64 letters, digits, '_', '.', '@' or '-'")
        for what, value in (("rpm", rpm), ("tpm", tpm)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ConfigurationError(f"key {what} must be an integer >= 1, got {value!r}")
        if models is not None:
            models = [m.strip() for m in models if m.strip()]
            if not models:
                raise ConfigurationError("key models: name at least one alias, or leave it out "
                                         "for every alias")
        if self.find_key(name) is not None:
            raise ConfigurationError(f"a key named {name!r} exists; revoke it or choose "
                                     "another name")
        text = new_key()
        now = time.time()
        key = VirtualKey(name=name, key_hash=hash_key(text), hint=text[:10],
                         models=tuple(models) if models is not None else None, rpm=rpm, tpm=tpm,
                         budget=budget, budget_window=budget_window, created=now,
                         expires=now + expires_in if expires_in is not None else None)
        self._run(f"INSERT INTO gateway_keys ({_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?)",
                  (key.name, key.key_hash, key.hint,
                   json.dumps(list(key.models)) if key.models is not None else None, key.rpm,
                   key.tpm, key.budget, key.budget_window, key.created, key.expires, None))
        return text, key

    def find_key(self, name: str) -> Optional[VirtualKey]:
        rows = self._run(f"SELECT {_KEY_COLUMNS} FROM gateway_keys WHERE name = ?", (name,))
        return _key_from_row(rows[0]) if rows else None

    def authenticate(self, text: str, now: Optional[float] = None) -> Optional[VirtualKey]:
        """The usable key whose text is ``text`` (None: no such key, revoked or expired)."""
        if not text.startswith(KEY_PREFIX) or len(text) > 200:
            return None
        digest = hash_key(text)
        statement = f"SELECT {_KEY_COLUMNS} FROM gateway_keys WHERE key_hash = ?"
        if self._postgres:
            rows = self._run(statement, (digest,))
        else:
            with self._read_lock:
                rows = [tuple(r) for r in self._reader.execute(statement, (digest,))]
        if not rows:
            return None
        key = _key_from_row(rows[0])
        if not hmac.compare_digest(key.key_hash, digest):
            return None
        return key if key.usable(time.time() if now is None else now) else None

    def list_keys(self) -> list[VirtualKey]:
        return [_key_from_row(r) for r in self._run(
            f"SELECT {_KEY_COLUMNS} FROM gateway_keys ORDER BY created")]

    def revoke_key(self, name: str) -> bool:
        """Revoke ``name`` (False: no such key, or already revoked)."""
        rows = self._run("UPDATE gateway_keys SET revoked = ? WHERE name = ? AND revoked IS NULL "
                         "RETURNING name", (time.time(), name))
        return bool(rows)

    # --- records -------------------------------------------------------------------------

    def add_records(self, records: Sequence[RequestRecord]) -> None:
        if not records:
            return
        placeholders = ", ".join("?" for _ in _RECORD_COLUMNS)
        statement = self._sql(f"INSERT INTO gateway_requests ({', '.join(_RECORD_COLUMNS)}) "
                              f"VALUES ({placeholders})")
        with self._lock:
            if self._postgres:
                with self._conn.cursor() as cursor:
                    cursor.executemany(statement, [r.row() for r in records])
            else:
                self._conn.execute("BEGIN")
                try:
                    self._conn.executemany(statement, [r.row() for r in records])
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")

    def latest(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self._run(f"SELECT {', '.join(_RECORD_COLUMNS)} FROM gateway_requests "
                         "ORDER BY ts DESC LIMIT ?", (int(limit),))
        out = []
        for row in rows:
            item = dict(zip(_RECORD_COLUMNS, row, strict=True))
            item["cache_hit"], item["stream"] = bool(item["cache_hit"]), bool(item["stream"])
            out.append(item)
        return out

    def spend(self, by: str, *, since: float = 0.0, bucket: Optional[float] = None
              ) -> list[dict[str, Any]]:
        """Spend grouped ``by`` ``"key"`` or ``"model"`` since ``since`` (epoch seconds), per
        time ``bucket`` of that many seconds when given (else one row per group)."""
        column = {"key": "key_name", "model": "model"}.get(by)
        if column is None:
            raise ConfigurationError("spend by must be 'key' or 'model'")
        if bucket is not None:
            if not bucket >= 1:
                raise ConfigurationError("spend bucket must be >= 1 second")
            slot = f"FLOOR(ts / {float(bucket)!r}) * {float(bucket)!r}" if self._postgres else \
                f"CAST(ts / {float(bucket)!r} AS INTEGER) * {float(bucket)!r}"
        else:
            slot = "0"
        rows = self._run(
            f"SELECT {column}, {slot} AS slot, COUNT(*), COALESCE(SUM(cost), 0), "
            "COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) "
            f"FROM gateway_requests WHERE ts >= ? GROUP BY {column}, slot "
            f"ORDER BY slot, {column}", (float(since),))
        return [{by: r[0], "start": float(r[1]) if bucket is not None else None,
                 "requests": int(r[2]), "cost": float(r[3]), "prompt_tokens": int(r[4]),
                 "completion_tokens": int(r[5])} for r in rows]


def open_store(url: str) -> Store:
    """The store at ``url`` (tables made when missing)."""
    return Store(url)
