"""Hosted tools on the Messages API (docs/hosted-tools.md): ``ai.tools.WebSearch`` /
``WebFetch`` / ``CodeExecution`` as Anthropic's server tools, and what they did read back:
``server_tool_use`` blocks and their results as hosted ``ToolEvent`` s, the text blocks'
``citations`` as OpenAI's ``url_citation`` annotations, the counts as
``usage.server_tool_use``. Pure: no I/O, no SDK."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.hosted import CodeExecution, WebFetch, WebSearch, hosted_event, url_citation
from ...core.types import ServerToolUse

__all__ = ["server_tools", "ServerBlocks", "citations_of", "WEB_FETCH_BETA",
           "CODE_EXECUTION_BETA"]

WEB_FETCH_BETA = "web-fetch-2025-09-10"
CODE_EXECUTION_BETA = "code-execution-2025-08-25"
#: Server tool names whose calls are code executions (the code execution tool runs bash
#: and edits files through these).
_CODE = ("code_execution", "bash_code_execution", "text_editor_code_execution")


def server_tools(hosted: Iterable[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The hosted tools as server tool definitions, and the beta headers they need."""
    tools: list[dict[str, Any]] = []
    betas: list[str] = []
    for tool in hosted:
        if isinstance(tool, WebSearch):
            spec: dict[str, Any] = {"type": "web_search_20250305", "name": "web_search"}
            _limits(spec, tool)
            if tool.user_location is not None:
                spec["user_location"] = {"type": "approximate",
                                         **tool.user_location.fields()}  # type: ignore[union-attr]
            tools.append(spec)
        elif isinstance(tool, WebFetch):
            spec = {"type": "web_fetch_20250910", "name": "web_fetch"}
            _limits(spec, tool)
            tools.append(spec)
            betas.append(WEB_FETCH_BETA)
        elif isinstance(tool, CodeExecution):
            tools.append({"type": "code_execution_20250825", "name": "code_execution"})
            betas.append(CODE_EXECUTION_BETA)
    return tools, betas


def _limits(spec: dict[str, Any], tool: Any) -> None:
    if tool.max_uses is not None:
        spec["max_uses"] = tool.max_uses
    if tool.allowed_domains:
        spec["allowed_domains"] = list(tool.allowed_domains)
    if tool.blocked_domains:
        spec["blocked_domains"] = list(tool.blocked_domains)


def citations_of(citations: Any, start: int, end: int) -> list[dict[str, Any]]:
    """A text block's citations (those with a ``url``: web search and web fetch results) as
    annotations of its span ``[start, end)`` of the message's content."""
    out = []
    for citation in citations if isinstance(citations, list) else ():
        if isinstance(citation, Mapping) and isinstance(citation.get("url"), str):
            title = citation.get("title")
            out.append(url_citation(citation["url"], title if isinstance(title, str)
                                    else None, start, end))
    return out


def _result_text(block: Mapping[str, Any]) -> tuple[str, bool]:
    """What a server tool's result block says, as text, and whether it is an error."""
    content = block.get("content")
    if isinstance(content, list):  # web search: the pages found
        lines = [f"{r.get('title', '')} <{r.get('url', '')}>" for r in content
                 if isinstance(r, Mapping) and r.get("url")]
        return "\n".join(lines), False
    if isinstance(content, Mapping):
        kind = str(content.get("type", ""))
        if kind.endswith("_error"):
            return str(content.get("error_code") or kind), True
        if "stdout" in content or "stderr" in content:  # code execution
            out = str(content.get("stdout") or "")
            err = str(content.get("stderr") or "")
            code = content.get("return_code")
            return out + (f"\n[stderr] {err}" if err else ""), bool(code)
        if kind == "web_fetch_result":
            return str(content.get("url") or ""), False
    return "", False


class ServerBlocks:
    """The server tool calls of one reply, in order: ``use(block)`` for each
    ``server_tool_use`` block, ``result(block)`` for each ``*_tool_result`` one;
    ``events()`` gives them as hosted ``ToolEvent`` s."""

    __slots__ = ("_calls", "_order")

    def __init__(self) -> None:
        self._calls: dict[str, dict[str, Any]] = {}
        self._order: list[str] = []

    def use(self, block: Mapping[str, Any]) -> None:
        call_id = str(block.get("id") or f"srvtoolu_{len(self._order)}")
        if call_id not in self._calls:
            self._order.append(call_id)
        self._calls[call_id] = {"name": str(block.get("name") or "server_tool"),
                                "arguments": block.get("input") or {}, "result": "",
                                "error": False}

    def result(self, block: Mapping[str, Any]) -> None:
        call = self._calls.get(str(block.get("tool_use_id") or ""))
        if call is not None:
            call["result"], call["error"] = _result_text(block)

    def __bool__(self) -> bool:
        return bool(self._order)

    def events(self) -> list[Any]:
        return [hosted_event(i, c["name"], c["arguments"], c["result"], is_error=c["error"])
                for i, c in ((i, self._calls[i]) for i in self._order)]

    def usage(self, reported: Any) -> Optional[ServerToolUse]:
        """``usage.server_tool_use`` (Anthropic's counts, the code executions counted from
        the calls), or None when no server tool ran."""
        reported = reported if isinstance(reported, Mapping) else {}

        def count(name: str) -> int:
            value = reported.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        code = sum(1 for c in self._calls.values() if c["name"] in _CODE)
        searches, fetches = count("web_search_requests"), count("web_fetch_requests")
        if not (searches or fetches or code or self._order):
            return None
        return ServerToolUse(web_search_requests=searches, web_fetch_requests=fetches,
                             code_execution_requests=code)
