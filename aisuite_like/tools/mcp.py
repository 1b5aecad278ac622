"""MCP servers as tools (docs/mcp.md), on the official ``mcp`` SDK (extra ``[mcp]``).

    from aisuite_like.mcp import MCPServerStdio, MCPServerHTTP
    files = MCPServerStdio("python", ["server.py"], name="files")
    with files:
        client.chat.completions.create(model=..., messages=..., tools=[files], max_turns=5)

A server object expands into ordinary ``Tool`` objects whose execution is a ``tools/call``
over the server's one kept connection, so the tool runner, policies, timeouts, tool events
and agents treat MCP tools like any other tool (no second loop).

Connection: each server object owns at most one connection at a time: a daemon thread
running an asyncio event loop, on which the SDK's transport and ``ClientSession`` live (anyio
needs them entered and exited in one task). Sync callers block on a ``concurrent.futures``
future; async callers, on any event loop, await the same future wrapped. The SDK is imported
on first use, never by ``import aisuite_like``.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import os
import re
import shlex
import tempfile
import threading
import weakref
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Optional

from ..core.errors import AisuiteLikeError, MCPError, MissingDependencyError
from ..core.secret_forms import REDACTED, redact
from .base import Tool

__all__ = ["MCPServer", "MCPServerStdio", "MCPServerHTTP", "MCPToolResult", "MCPToolError"]

#: Characters of a stdio server's stderr quoted in errors.
_STDERR_TAIL_CHARS = 2000
#: Extra seconds a caller waits past ``timeout`` for the connection thread to answer at all.
_GRACE_S = 10.0
_INLINE_KEYS = frozenset({"type", "name", "command", "args", "env", "cwd", "server_url",
                          "headers", "allowed_tools", "use_tool_prefix", "timeout",
                          "startup_timeout"})


class MCPToolError(AisuiteLikeError):
    """An MCP tool answered with ``isError``; the message is the tool's own text. Inside the
    tool runner this becomes the call's ``Error: ...`` result (``is_error=True``)."""


@dataclass(frozen=True)
class MCPToolResult:
    """The outcome of ``call_tool``: ``content`` is the text the tool runner would send to the
    model (text parts joined, else ``structuredContent`` as JSON; a short note per image,
    audio or binary part); ``is_error`` is the server's ``isError``; ``raw`` the SDK's
    ``CallToolResult``."""

    content: str
    is_error: bool
    structured_content: Any = None
    raw: Any = None


def _require_sdk() -> None:
    try:
        import mcp  # noqa: F401 (only: is it installed?)
    except ImportError:
        raise MissingDependencyError(
            "MCP tools need the 'mcp' package, which is not installed. Install it with: "
            'pip install "aisuite-like[mcp]"') from None


# --- result mapping ----------------------------------------------------------------------


def _result_text(result: Any) -> str:
    """``CallToolResult`` -> the text for the model: the text parts joined (the server's own
    rendering; by the spec they repeat any ``structuredContent``), else ``structuredContent``
    as JSON; parts a tool result cannot carry as text get a short note."""
    import mcp_types as types

    texts: list[str] = []
    notes: list[str] = []
    for part in result.content or ():
        if isinstance(part, types.TextContent):
            texts.append(part.text)
        elif isinstance(part, types.ImageContent):
            notes.append(f"[image {part.mime_type}, {_b64_size(part.data)} bytes: not shown "
                         "to the model]")
        elif isinstance(part, types.AudioContent):
            notes.append(f"[audio {part.mime_type}, {_b64_size(part.data)} bytes: not shown "
                         "to the model]")
        elif isinstance(part, types.EmbeddedResource):
            resource = part.resource
            if isinstance(resource, types.TextResourceContents):
                texts.append(resource.text)
            else:
                notes.append(f"[resource {resource.uri}: binary content not shown to the model]")
        elif isinstance(part, types.ResourceLink):
            notes.append(f"[resource link {part.uri}]")
        else:
            notes.append(f"[{getattr(part, 'type', type(part).__name__)} content not shown "
                         "to the model]")
    if not texts and result.structured_content is not None:
        texts = [json.dumps(result.structured_content, ensure_ascii=False,
                            separators=(",", ":"))]
    return "\n".join([*texts, *notes])


def _b64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0


def _tool_text(result: MCPToolResult) -> str:
    if result.is_error:
        raise MCPToolError(result.content or "the tool reported an error")
    return result.content


def _to_result(raw: Any) -> MCPToolResult:
    return MCPToolResult(content=_result_text(raw), is_error=bool(raw.is_error),
                         structured_content=raw.structured_content, raw=raw)


def _for_model(error: MCPError) -> MCPError:
    """What the model is told when a server failed during a tool call: the summary, without
    the server's stderr (that stays on ``error``, the ``__cause__``, for the developer)."""
    return MCPError(error.summary) if error.stderr else error


# --- secrets in a server's configuration -------------------------------------------------

#: Names of URL query parameters, headers and environment variables that hold credentials.
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|cookie", re.I)


# A path segment that is a credential (Zapier's ``/mcp/sk-ak-.../sse``, a UUID or a random
# token as the path's secret): at least 16 characters of the URL-safe alphabet, letters and
# digits mixed; or any segment after one named like a credential (``/token/<it>``).
_TOKEN_SEGMENT = re.compile(r"(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[A-Za-z0-9_.~%+=-]{16,}")


def _path_secrets(path: str) -> list[str]:
    segments = path.split("/")
    return [segment for i, segment in enumerate(segments) if segment and (
        _TOKEN_SEGMENT.fullmatch(segment)
        or (i > 0 and _SECRET_NAME.search(segments[i - 1]) is not None))]


def _safe_path(path: str) -> str:
    secrets = set(_path_secrets(path))
    return "/".join(REDACTED if segment in secrets else segment for segment in path.split("/"))


def _safe_url(url: str) -> str:
    """``url`` for reprs and errors: user info, path segments that are credentials and the
    values of credential-named query parameters (``api_key``, ``token``, ``sig``, ...) shown
    as ``[REDACTED]``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = REDACTED + "@" + netloc.rpartition("@")[2]
        query = "&".join(
            f"{name}={REDACTED}" if sep and _SECRET_NAME.search(name) else f"{name}{sep}{value}"
            for name, sep, value in (item.partition("=") for item in parts.query.split("&")))
        return urlunsplit((parts.scheme, netloc, _safe_path(parts.path),
                           query if parts.query else "", parts.fragment))
    except ValueError:
        return REDACTED


def _url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: its user info's password (or user name alone) and the
    values of credential-named query parameters, raw and percent-decoded."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    try:
        parts = urlsplit(url)
        found = [parts.password or parts.username or "", *_path_secrets(parts.path)]
        found += [value for name, value in parse_qsl(parts.query) if _SECRET_NAME.search(name)]
    except ValueError:
        return []
    return [v for secret in found if secret for v in {secret, unquote(secret)}]


def _named_secrets(values: Optional[Mapping[str, str]]) -> list[str]:
    """The values of credential-named headers / environment variables (``Authorization``,
    ``X-Api-Key``, ``GITHUB_TOKEN``), and the credential of a ``<scheme> <credential>`` one."""
    found: list[str] = []
    for name, value in (values or {}).items():
        if _SECRET_NAME.search(name) and value:
            found.append(value)
            credential = value.partition(" ")[2]
            if credential:
                found.append(credential)
    return found


def _remember(secrets: Iterable[str]) -> None:
    from ..core.secrets import protect_logs, remember

    secrets = list(secrets)
    for secret in secrets:
        remember(secret)
    if secrets:
        protect_logs()  # httpx2 logs request URLs; the mcp SDK logs its endpoint


def _leaf_error(exc: BaseException) -> BaseException:
    """The first non-group exception inside (anyio task groups wrap failures)."""
    while inner := getattr(exc, "exceptions", None):  # BaseExceptionGroup (3.11+, backport)
        exc = inner[0]
    return exc


# --- one connection ----------------------------------------------------------------------


class _Connection:
    """A live connection: a daemon thread running an event loop, and the lifecycle task that
    holds the transport and ``ClientSession`` open until ``close``. ``ready`` resolves once
    the MCP handshake is done (or holds the start-up ``MCPError``)."""

    def __init__(self, server: "MCPServer") -> None:
        self.server = server
        self.session: Any = None
        self.broken = False  # the transport failed: the server object reconnects on next use
        self.stderr: Optional[IO[bytes]] = None
        self.ready: "concurrent.futures.Future[None]" = concurrent.futures.Future()
        self.loop = asyncio.new_event_loop()
        self._stop: Optional[asyncio.Event] = None
        self._task: Optional["asyncio.Task[None]"] = None
        self.thread = threading.Thread(target=self._run_loop, daemon=True,
                                       name=f"aisuite-like-mcp-{server.name}")
        self.thread.start()
        self.loop.call_soon_threadsafe(self._start)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:  # cancel and await leftovers, so nothing is "destroyed but pending"
            tasks = asyncio.all_tasks(self.loop)
            for task in tasks:
                task.cancel()
            if tasks:
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def _start(self) -> None:
        self._stop = asyncio.Event()
        self._task = self.loop.create_task(self._lifecycle())

    async def _lifecycle(self) -> None:
        import anyio
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self.server._transport(self))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message))
                with anyio.fail_after(self.server.startup_timeout):
                    await session.initialize()
                self.session = session
                self.ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:  # handed to whoever waits for ready
            if not self.ready.done():
                self.ready.set_exception(self.server._start_error(self, _leaf_error(exc)))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.session = None
            self.broken = True

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ToolListChangedNotification):
            self.server._listing_stale = True

    def submit(self, coro: Any) -> "concurrent.futures.Future[Any]":
        try:
            return asyncio.run_coroutine_threadsafe(coro, self.loop)
        except RuntimeError:  # the loop is closed
            coro.close()
            self.broken = True
            failed: concurrent.futures.Future[Any] = concurrent.futures.Future()
            failed.set_exception(ConnectionError("the connection is closed"))
            return failed

    async def list_tools(self) -> list[Any]:
        import anyio
        import mcp_types as types

        session = self._live_session()
        tools: list[Any] = []
        cursor = None
        with anyio.fail_after(self.server.timeout):
            while True:
                params = None if cursor is None else types.PaginatedRequestParams(cursor=cursor)
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return await self._live_session().call_tool(
            name, arguments, read_timeout_seconds=self.server.timeout)

    def _live_session(self) -> Any:
        if self.session is None:
            raise ConnectionError("the connection is closed")
        return self.session

    def stderr_tail(self) -> str:
        f = self.stderr
        if f is None or f.closed:
            return ""
        try:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - _STDERR_TAIL_CHARS))
            return redact(f.read().decode("utf-8", "replace").strip())
        except (OSError, ValueError):
            return ""

    async def _shutdown(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            await asyncio.wait({self._task})

    def _finish(self) -> None:
        if not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(_GRACE_S)
        if self.stderr is not None:
            self.stderr.close()

    def close(self) -> None:
        """Stop the session and transport (for stdio: the process, terminated if it does not
        exit when its stdin closes), then the thread."""
        future = self.submit(self._shutdown())
        with contextlib.suppress(Exception):
            future.result(_GRACE_S)
        self._finish()

    async def aclose(self) -> None:
        future = self.submit(self._shutdown())
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.wrap_future(future), _GRACE_S)
        self._finish()


# --- servers -----------------------------------------------------------------------------

_LIVE: "weakref.WeakSet[MCPServer]" = weakref.WeakSet()
# client -> servers it opened lazily (closed by client.close()).
_OPENED_BY: "weakref.WeakKeyDictionary[Any, set[MCPServer]]" = weakref.WeakKeyDictionary()
_OPENED_LOCK = threading.Lock()


class MCPServer:
    """What stdio and HTTP servers share: one kept connection, the cached tool list, the
    tools as ``Tool`` objects, manual ``list_tools`` / ``call_tool``.

    - ``allowed_tools``: names (as the server gives them) to expose; others are hidden.
    - ``tool_prefix``: expose each tool as ``<prefix>__<name>`` (aisuite's
      ``use_tool_prefix`` naming), so servers with clashing tool names can be used together.
    - ``timeout``: seconds for each tool call (and tool listing).
    - ``startup_timeout``: seconds for the server to start and finish the MCP handshake.
    """

    _aisuite_tool_source = True  # toolset.py expands it into its tools
    _start_failed = "failed to start"

    def __init__(self, *, name: str, allowed_tools: Optional[Iterable[str]],
                 tool_prefix: Optional[str], timeout: float, startup_timeout: float) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"MCP server name must be a non-empty string, got {name!r}")
        if allowed_tools is not None:
            if isinstance(allowed_tools, str):
                allowed_tools = [allowed_tools]  # one tool name, not its letters
            allowed = frozenset(allowed_tools)
            if not all(isinstance(n, str) and n for n in allowed):
                raise TypeError("allowed_tools must be a list of tool names (strings)")
            allowed_tools = allowed
        if tool_prefix is not None and (not isinstance(tool_prefix, str) or not tool_prefix):
            raise ValueError(f"tool_prefix must be a non-empty string or None, got "
                             f"{tool_prefix!r}")
        for label, value in (("timeout", timeout), ("startup_timeout", startup_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{label} must be a positive number of seconds, got {value!r}")
        self.name = name
        self.allowed_tools: Optional[frozenset[str]] = allowed_tools
        self.tool_prefix = tool_prefix
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self._lock = threading.Lock()
        self._conn: Optional[_Connection] = None
        self._entered = 0
        self._listing: Optional[list[Any]] = None
        self._listing_stale = True  # set by notifications/tools/list_changed
        self._tools: list[Tool] = []
        #: bumped whenever the exposed tool list changes (keys the Tools cache)
        self._version = 0
        _LIVE.add(self)

    # -- what subclasses provide

    def _transport(self, conn: _Connection) -> Any:
        """An async context manager giving the (read, write) streams."""
        raise NotImplementedError

    def _describe(self) -> str:
        raise NotImplementedError

    # -- connection

    def _connection(self) -> _Connection:
        """The current connection, started if there is none (not waited for)."""
        _require_sdk()
        stale: Optional[_Connection] = None
        with self._lock:
            conn = self._conn
            if conn is not None and conn.broken and conn.ready.done():
                stale, conn = conn, None
            if conn is None:
                conn = self._conn = _Connection(self)
                self._listing_stale = True
        if stale is not None:
            stale.close()
        return conn

    def _forget(self, conn: _Connection) -> None:
        with self._lock:
            if self._conn is conn:
                self._conn = None
        conn.close()

    def _open(self) -> _Connection:
        conn = self._connection()
        try:
            conn.ready.result(self.startup_timeout + _GRACE_S)
        except MCPError:
            self._forget(conn)
            raise
        except concurrent.futures.TimeoutError:
            self._forget(conn)
            raise MCPError(f"MCP server {self.name!r} ({self._describe()}) did not start within "
                           f"{self.startup_timeout:g} seconds") from None
        return conn

    async def _aopen(self) -> _Connection:
        conn = self._connection()
        try:
            # shield: a cancelled caller must not cancel the start other callers wait for
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(conn.ready)),
                                   self.startup_timeout + _GRACE_S)
        except MCPError:
            await asyncio.to_thread(self._forget, conn)
            raise
        except asyncio.TimeoutError:
            await asyncio.to_thread(self._forget, conn)
            raise MCPError(f"MCP server {self.name!r} ({self._describe()}) did not start within "
                           f"{self.startup_timeout:g} seconds") from None
        return conn

    @property
    def is_connected(self) -> bool:
        """Whether a connection is open and usable now."""
        conn = self._conn
        return conn is not None and conn.session is not None and not conn.broken

    def connect(self) -> None:
        """Open the connection now (it is otherwise opened on first use). Raises ``MCPError``
        when the server does not start."""
        self._open()

    async def aconnect(self) -> None:
        """``connect`` for async code: the event loop is not blocked while the server starts."""
        await self._aopen()

    def close(self) -> None:
        """Close the connection (a stdio server's process ends). The object stays usable: the
        next use opens a new connection."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    async def aclose(self) -> None:
        """``close`` for async code."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            await conn.aclose()

    def __enter__(self) -> "MCPServer":
        self.connect()
        self._entered += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self._entered -= 1
        if self._entered == 0:
            self.close()

    async def __aenter__(self) -> "MCPServer":
        await self.aconnect()
        self._entered += 1
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self._entered -= 1
        if self._entered == 0:
            await self.aclose()

    # -- tools

    def list_tools(self) -> list[Tool]:
        """The server's tools (after ``allowed_tools`` and ``tool_prefix``) as ``Tool``
        objects: ``[t.to_openai() for t in server.list_tools()]`` are the schemas to send.
        Cached; listed again after the server says its tool list changed."""
        conn = self._open()
        if self._listing_stale or self._listing is None:
            self._listing_stale = False
            try:
                listing = conn.submit(conn.list_tools()).result(self.timeout + _GRACE_S)
            except Exception as exc:
                self._listing_stale = True
                raise self._call_error(conn, "tools/list", exc) from exc
            self._set_listing(listing)
        return list(self._tools)

    async def alist_tools(self) -> list[Tool]:
        """``list_tools`` for async code."""
        conn = await self._aopen()
        if self._listing_stale or self._listing is None:
            self._listing_stale = False
            try:
                listing = await asyncio.wrap_future(conn.submit(conn.list_tools()))
            except Exception as exc:
                self._listing_stale = True
                raise self._call_error(conn, "tools/list", exc) from exc
            self._set_listing(listing)
        return list(self._tools)

    def call_tool(self, name: str, arguments: Optional[Mapping[str, Any]] = None
                  ) -> MCPToolResult:
        """Call one tool (by its exposed name, prefixed or not) and return its result; an
        ``isError`` answer is a result with ``is_error=True``. Raises ``MCPError`` when the
        server cannot be reached, closes the connection or does not answer in time."""
        remote, args = self._call_target(name, arguments)
        conn = self._open()
        try:
            raw = conn.submit(conn.call_tool(remote, args)).result(self.timeout + _GRACE_S)
        except Exception as exc:
            raise self._call_error(conn, remote, exc) from exc
        return _to_result(raw)

    async def acall_tool(self, name: str, arguments: Optional[Mapping[str, Any]] = None
                         ) -> MCPToolResult:
        """``call_tool`` for async code (any event loop)."""
        remote, args = self._call_target(name, arguments)
        conn = await self._aopen()
        try:
            raw = await asyncio.wrap_future(conn.submit(conn.call_tool(remote, args)))
        except Exception as exc:
            raise self._call_error(conn, remote, exc) from exc
        return _to_result(raw)

    async def _run_tool(self, remote: str, arguments: dict[str, Any]) -> str:
        """A ``Tool``'s function: the text for the model, or raise so the runner records an
        error result (``MCPToolError`` for ``isError``, ``MCPError`` for a failed call)."""
        try:
            return _tool_text(await self.acall_tool(self._exposed(remote), arguments))
        except MCPError as exc:
            raise _for_model(exc) from exc

    def _run_tool_sync(self, remote: str, arguments: dict[str, Any]) -> str:
        try:
            return _tool_text(self.call_tool(self._exposed(remote), arguments))
        except MCPError as exc:
            raise _for_model(exc) from exc

    def _call_target(self, name: str, arguments: Optional[Mapping[str, Any]]
                     ) -> tuple[str, dict[str, Any]]:
        if not isinstance(name, str) or not name:
            raise ValueError(f"tool name must be a non-empty string, got {name!r}")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be a dict, got {type(arguments).__name__}")
        prefix = f"{self.tool_prefix}__" if self.tool_prefix else ""
        remote = name[len(prefix):] if prefix and name.startswith(prefix) else name
        if self.allowed_tools is not None and remote not in self.allowed_tools:
            raise ValueError(f"tool {remote!r} of MCP server {self.name!r} is not in "
                             f"allowed_tools {sorted(self.allowed_tools)}")
        return remote, dict(arguments or {})

    def _exposed(self, remote: str) -> str:
        return f"{self.tool_prefix}__{remote}" if self.tool_prefix else remote

    def _set_listing(self, listing: list[Any]) -> None:
        if self._listing is not None and [t.model_dump() for t in listing] == [
                t.model_dump() for t in self._listing]:
            return  # unchanged: keep the Tool objects (and every cache keyed by them)
        self._listing = listing
        self._tools = [_MCPTool(self, spec) for spec in listing
                       if self.allowed_tools is None or spec.name in self.allowed_tools]
        self._version += 1

    # -- errors

    def _start_error(self, conn: _Connection, exc: BaseException) -> MCPError:
        from mcp import MCPError as SDKError
        from mcp_types import CONNECTION_CLOSED

        if isinstance(exc, TimeoutError):
            reason = f"no answer to the MCP handshake within {self.startup_timeout:g} seconds"
        elif isinstance(exc, SDKError) and exc.code == CONNECTION_CLOSED:
            reason = "the connection closed before the MCP handshake finished"
        else:
            reason = f"{type(exc).__name__}: {exc}"
        return MCPError(redact(f"MCP server {self.name!r} {self._start_failed} "
                               f"({self._describe()}): {reason}"), stderr=conn.stderr_tail())

    def _call_error(self, conn: _Connection, what: str, exc: BaseException) -> MCPError:
        from mcp import MCPError as SDKError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        exc = _leaf_error(exc)
        if isinstance(exc, SDKError) and exc.code == REQUEST_TIMEOUT:
            return MCPError(f"{what!r} on MCP server {self.name!r} did not answer within "
                            f"{self.timeout:g} seconds")
        if isinstance(exc, SDKError) and exc.code != CONNECTION_CLOSED:
            return MCPError(redact(f"MCP server {self.name!r} answered {what!r} with an "
                                   f"error: {exc.message}"))
        if isinstance(exc, (TimeoutError, concurrent.futures.TimeoutError)):
            return MCPError(f"{what!r} on MCP server {self.name!r} did not answer within "
                            f"{self.timeout:g} seconds")
        conn.broken = True  # reconnect on next use
        return MCPError(f"MCP server {self.name!r} ({self._describe()}) closed the connection "
                        f"during {what!r}", stderr=conn.stderr_tail())


class MCPServerStdio(MCPServer):
    """An MCP server run as a child process speaking over stdin/stdout (one process per
    server object, started on first use). ``env`` adds variables to a minimal safe set
    (PATH, HOME, ...), as the SDK does; the server's stderr is kept in a temporary file whose
    tail appears in errors."""

    def __init__(self, command: str, args: Sequence[str] = (), env: Optional[Mapping[str, str]]
                 = None, cwd: Optional[str | os.PathLike[str]] = None, *,
                 name: Optional[str] = None, allowed_tools: Optional[Iterable[str]] = None,
                 tool_prefix: Optional[str] = None, timeout: float = 30,
                 startup_timeout: float = 30) -> None:
        if not isinstance(command, str) or not command:
            raise ValueError(f"command must be a non-empty string, got {command!r}")
        if isinstance(args, (str, bytes)) or not all(isinstance(a, str) for a in args):
            raise TypeError("args must be a list of strings, e.g. ['server.py', '--port', "
                            "'8000']")
        if env is not None and not (isinstance(env, Mapping) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise TypeError("env must be a dict of str to str")
        self.command = command
        self.args = tuple(args)
        self.env = dict(env) if env is not None else None
        _remember(_named_secrets(self.env))  # a crash on stderr may print them
        self.cwd = os.fspath(cwd) if cwd is not None else None
        if name is None:
            base = self.args[-1] if self.args else command
            name = os.path.splitext(os.path.basename(base))[0] or command
        super().__init__(name=name, allowed_tools=allowed_tools, tool_prefix=tool_prefix,
                         timeout=timeout, startup_timeout=startup_timeout)

    def __repr__(self) -> str:
        return f"MCPServerStdio(name={self.name!r}, command={self._describe()!r})"

    def _describe(self) -> str:
        return shlex.join([self.command, *self.args])

    def _transport(self, conn: _Connection) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        conn.stderr = tempfile.TemporaryFile()
        params = StdioServerParameters(command=self.command, args=list(self.args),
                                       env=self.env, cwd=self.cwd)
        return stdio_client(params, errlog=conn.stderr)  # type: ignore[arg-type]  # any file serves as stderr


class MCPServerHTTP(MCPServer):
    """An MCP server reached over streamable HTTP at ``url`` (one MCP session per server
    object). ``headers`` (e.g. ``Authorization``) go on every request and never appear in a
    repr or an error; nor do the user info and credential-named query parameters of ``url``
    (``?api_key=``, ``token=``, ...), which reprs and errors show as ``[REDACTED]``."""

    def __init__(self, url: str, headers: Optional[Mapping[str, str]] = None, *,
                 name: Optional[str] = None, allowed_tools: Optional[Iterable[str]] = None,
                 tool_prefix: Optional[str] = None, timeout: float = 30,
                 startup_timeout: float = 30) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
        if headers is not None and not (isinstance(headers, Mapping) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in headers.items())):
            raise TypeError("headers must be a dict of str to str")
        self.url = url
        self._headers = dict(headers or {})
        _remember([*_url_secrets(url), *_named_secrets(self._headers)])
        if name is None:
            from urllib.parse import urlsplit

            name = urlsplit(url).hostname or "mcp"
        super().__init__(name=name, allowed_tools=allowed_tools, tool_prefix=tool_prefix,
                         timeout=timeout, startup_timeout=startup_timeout)

    _start_failed = "could not be reached"

    def __repr__(self) -> str:
        return f"MCPServerHTTP(name={self.name!r}, url={self._describe()!r})"

    def _describe(self) -> str:
        return _safe_url(self.url)

    @contextlib.asynccontextmanager
    async def _transport(self, conn: _Connection) -> AsyncIterator[Any]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        # The SDK's own defaults (a long read timeout: a server may hold a stream open).
        http = httpx2.AsyncClient(headers=self._headers,
                                  timeout=httpx2.Timeout(self.timeout, read=300.0))
        async with http, streamable_http_client(self.url, http_client=http) as streams:
            yield streams


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class _MCPTool(Tool):
    """One MCP tool as a ``Tool``: the server's schema, executed by ``tools/call``. Arguments
    are checked by the server (its error comes back as the call's error result).

    The call is async inside an event loop and blocking outside one (``is_async`` answers
    for the calling thread), so the sync runner waits on the connection's future directly
    instead of starting an event loop per call, and the async runner awaits it without a
    thread."""

    def __init__(self, server: MCPServer, spec: Any) -> None:
        remote = spec.name

        def call(**arguments: Any) -> Any:
            if _in_event_loop():
                return server._run_tool(remote, arguments)  # a coroutine, awaited by the caller
            return server._run_tool_sync(remote, arguments)

        schema = dict(spec.input_schema or {}) or {"type": "object", "properties": {}}
        self._configure(call, server._exposed(remote), spec.description or "", schema)
        self.server = server
        self.remote_name = remote

    @property
    def is_async(self) -> bool:
        return _in_event_loop()

    @is_async.setter
    def is_async(self, value: bool) -> None:
        pass  # decided per call by the calling thread, not fixed at construction

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, mcp_server={self.server.name!r})"

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return dict(arguments)


# --- glue for toolset.py and the client ----------------------------------------------------

_INLINE: dict[str, MCPServer] = {}
_INLINE_LOCK = threading.Lock()


def _from_inline(spec: Mapping[str, Any]) -> MCPServer:
    """aisuite's inline ``{"type": "mcp", ...}`` dict -> a server object, one per distinct
    dict in the process (so its connection is kept across calls, not restarted per call)."""
    unknown = sorted(set(spec) - _INLINE_KEYS)
    if unknown:
        raise ValueError(f"MCP tool config has unknown keys {unknown}; known: "
                         f"{sorted(_INLINE_KEYS)}")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("an MCP tool config needs a non-empty 'name'")
    if ("command" in spec) == ("server_url" in spec):
        raise ValueError(f"MCP tool config {name!r} needs exactly one of 'command' (stdio) or "
                         "'server_url' (streamable HTTP)")
    use_prefix = spec.get("use_tool_prefix", False)
    if not isinstance(use_prefix, bool):
        raise TypeError("use_tool_prefix must be True or False")
    key = json.dumps(spec, sort_keys=True, default=str)
    with _INLINE_LOCK:
        server = _INLINE.get(key)
        if server is None:
            options: dict[str, Any] = dict(
                name=name, allowed_tools=spec.get("allowed_tools"),
                tool_prefix=name if use_prefix else None, timeout=spec.get("timeout", 30),
                startup_timeout=spec.get("startup_timeout", 30))
            if "command" in spec:
                server = MCPServerStdio(spec["command"], spec.get("args") or (),
                                        spec.get("env"), spec.get("cwd"), **options)
            else:
                server = MCPServerHTTP(spec["server_url"], spec.get("headers"), **options)
            _INLINE[key] = server
    return server


def _as_server(item: Any) -> MCPServer:
    return item if isinstance(item, MCPServer) else _from_inline(item)


def _note_owner(server: MCPServer, opened: bool, owner: Any) -> None:
    """A client that opened a server lazily closes it in ``client.close()``."""
    if opened and owner is not None and not server._entered:
        with _OPENED_LOCK:
            _OPENED_BY.setdefault(owner, set()).add(server)


def _tools_of(server: MCPServer, owner: Any) -> list[Tool]:
    opened = not server.is_connected
    tools = server.list_tools()
    _note_owner(server, opened, owner)
    return tools


async def _aopen_for(server: MCPServer, owner: Any) -> None:
    opened = not server.is_connected
    await server.alist_tools()
    _note_owner(server, opened, owner)


def _take_opened_by(owner: Any) -> set[MCPServer]:
    with _OPENED_LOCK:
        return _OPENED_BY.pop(owner, set())


def _close_opened_by(owner: Any) -> None:
    for server in _take_opened_by(owner):
        server.close()


async def _aclose_opened_by(owner: Any) -> None:
    for server in _take_opened_by(owner):
        await server.aclose()


@atexit.register
def _close_all() -> None:
    """Interpreter exit: close every open connection, so no server process is orphaned."""
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.close()
