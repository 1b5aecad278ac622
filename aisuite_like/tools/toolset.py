"""``Tools``: the tools of one request, the schemas sent to the model and the callables by
name, with MCP servers among them expanded into their tools (docs/tool-runner.md)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any, Optional

from .base import Tool

__all__ = ["Tools"]

# Plain callables -> Tool, so passing the same function on every create() call costs a dict
# lookup, not a schema build. Weak keys: a cached function can still be garbage-collected.
_TOOL_CACHE: "weakref.WeakKeyDictionary[Any, Tool]" = weakref.WeakKeyDictionary()
_METHOD_CACHE: "weakref.WeakKeyDictionary[Any, dict[Any, Tool]]" = weakref.WeakKeyDictionary()


class Tools:
    """The tools of one request: the schemas sent to the model and the callables by name.

    Items are ``Tool`` objects, plain callables (turned into ``Tool`` once and cached),
    OpenAI function-schema dicts (sent as is; such a tool cannot be run by the tool runner),
    or MCP servers (``aisuite_like.mcp`` objects or ``{"type": "mcp", ...}`` dicts), kept in
    ``sources`` and expanded into their tools per request by ``_resolve``.
    Two tools with one name raise ``ValueError`` here, before anything is sent.
    """

    def __init__(self, tools: Optional[Iterable[Any]] = None) -> None:
        tools = () if tools is None else tools
        self.schemas: list[dict[str, Any]] = []
        self.by_name: dict[str, Tool] = {}
        #: names of tools given only as schema dicts (no callable to run)
        self.schema_only: list[str] = []
        #: MCP servers whose tools are listed when a request is prepared
        self.sources: list[Any] = []
        self._items: list[Any] = []
        self._resolved: Optional[tuple[Any, "Tools"]] = None
        #: aisuite's events of the last ``execute_tool`` / ``aexecute_tool`` (tools/aisuite.py)
        self.last_policy_events: list[dict[str, Any]] = []
        self.last_tool_events: list[dict[str, Any]] = []
        seen: set[str] = set()
        for i, item in enumerate(tools):
            if _is_tool_source(item):
                from .mcp import _as_server

                self.sources.append(_as_server(item))
                continue
            self._items.append(item)
            if isinstance(item, dict):
                tool_name = _schema_name(item, i)
                self.schemas.append(item)
                self.schema_only.append(tool_name)
            elif isinstance(item, Tool) or callable(item):
                t = item if isinstance(item, Tool) else _cached_tool(item)
                tool_name = t.name
                self.by_name[tool_name] = t
                self.schemas.append(t.to_openai())
            else:
                raise TypeError(f"tools[{i}] is a {type(item).__name__}; expected a function, "
                                "an aisuite_like.Tool or an OpenAI function-schema dict")
            if tool_name in seen:
                raise ValueError(f"two tools are named {tool_name!r}; tool names must be unique "
                                 "(rename one with @tool(name=...))")
            seen.add(tool_name)

    def __len__(self) -> int:
        return len(self.schemas) + len(self.sources)

    # aisuite's Tools API (behaviour in aisuite.py).

    def tools(self, format: str = "openai") -> list[dict[str, Any]]:
        """aisuite's ``tools()``: the schemas in OpenAI's format (``{"type": "function",
        "function": {...}}``); any other ``format`` gives the bare function specs."""
        if format == "openai":
            return list(self.schemas)
        return [s.get("function", s) for s in self.schemas]

    def execute_tool(self, tool_calls: Any, tool_policy: Any = None,
                     tool_policy_context: Optional[dict[str, Any]] = None
                     ) -> tuple[list[Any], list[dict[str, Any]]]:
        """aisuite's ``execute_tool``: run the tool calls (objects or dicts, one or a list) in
        order -> ``(results, tool_messages)``. Unknown tools and invalid arguments raise
        ``ValueError``; a tool's own exception propagates; a denied call's result is
        ``{"error": "Tool call denied by policy", "reason": ...}``."""
        from .aisuite import execute_tool

        return execute_tool(self, tool_calls, tool_policy, tool_policy_context)

    async def aexecute_tool(self, tool_calls: Any, tool_policy: Any = None,
                            tool_policy_context: Optional[dict[str, Any]] = None
                            ) -> tuple[list[Any], list[dict[str, Any]]]:
        """Async ``execute_tool``: async tools awaited, sync ones in a worker thread."""
        from .aisuite import aexecute_tool

        return await aexecute_tool(self, tool_calls, tool_policy, tool_policy_context)

    def execute(self, tool_calls: Any) -> list[Any]:
        """aisuite's ``execute``: the results of ``execute_tool`` only."""
        return self.execute_tool(tool_calls)[0]

    def __repr__(self) -> str:
        return f"Tools({[*self.by_name, *self.schema_only, *self.sources]!r})"

    def _resolve(self, owner: Any = None) -> "Tools":
        """These tools with every MCP server expanded into its current tools (the server is
        opened on first use; ``owner``, a client, then closes it). Rebuilt only when a
        server's tool list changed."""
        if not self.sources:
            return self
        from .mcp import _tools_of

        expanded = [_tools_of(server, owner) for server in self.sources]
        key = tuple((id(server), server._version) for server in self.sources)
        cached = self._resolved
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            resolved = Tools([*self._items, *(t for tools in expanded for t in tools)])
        except ValueError as exc:
            raise ValueError(f"{exc}; or give the MCP server a tool_prefix (inline config: "
                             "use_tool_prefix=True)") from None
        self._resolved = (key, resolved)
        return resolved


def _is_tool_source(item: Any) -> bool:
    """An MCP server object or an inline ``{"type": "mcp", ...}`` config."""
    if isinstance(item, dict):
        return item.get("type") == "mcp"
    return getattr(item, "_aisuite_tool_source", False) is True


def prepare_tools(tools: Any, owner: Any = None) -> Optional[Tools]:
    """``tools=`` of ``create`` -> ``Tools`` (or None when no tools were given), MCP servers
    expanded (``owner``: the client that closes servers it opened)."""
    if tools is None:
        return None
    if isinstance(tools, Tools):
        return tools._resolve(owner)
    if callable(tools) or isinstance(tools, (dict, Tool)) or _is_tool_source(tools):
        tools = [tools]
    if isinstance(tools, (str, bytes)):
        raise TypeError("tools must be a list of functions, Tool objects or schema dicts")
    return Tools(tools)._resolve(owner)


async def aopen_tool_sources(tools: Any, owner: Any) -> None:
    """Async code: open the MCP servers among ``tools`` without blocking the event loop, so
    the (sync) request preparation that follows finds them open and listed."""
    if isinstance(tools, Tools):
        sources: list[Any] = tools.sources
    elif _is_tool_source(tools):
        sources = [tools]
    elif isinstance(tools, (list, tuple)):
        sources = [t for t in tools if _is_tool_source(t)]
    else:
        return
    if sources:
        from .mcp import _aopen_for, _as_server

        for source in sources:
            await _aopen_for(_as_server(source), owner)


def _cached_tool(fn: Callable[..., Any]) -> Tool:
    owner = getattr(fn, "__self__", None)
    func = getattr(fn, "__func__", None)
    if owner is not None and func is not None:  # bound method: a new object on every access
        try:
            per_owner = _METHOD_CACHE.setdefault(owner, {})
        except TypeError:
            return Tool(fn)
        cached = per_owner.get(func)
        if cached is None:
            cached = per_owner[func] = Tool(fn)
        return cached
    try:
        cached = _TOOL_CACHE.get(fn)
    except TypeError:  # not weak-referenceable or not hashable
        return Tool(fn)
    if cached is None:
        cached = Tool(fn)
        try:
            _TOOL_CACHE[fn] = cached
        except TypeError:
            pass
    return cached


def _schema_name(schema: dict[str, Any], index: int) -> str:
    fn = schema.get("function") if schema.get("type") == "function" else None
    name = (fn or {}).get("name") if isinstance(fn, dict) else schema.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"tools[{index}] is a dict without a function name; expected "
                         "{'type': 'function', 'function': {'name': ..., 'parameters': {...}}}")
    return name
