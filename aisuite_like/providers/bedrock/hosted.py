"""Hosted tools on Amazon Bedrock (docs/hosted-tools.md): the Converse API's system tools of
Amazon Nova models, ``nova_grounding`` (web search) and ``nova_code_interpreter`` (code
execution); their calls (``toolUse`` blocks of type ``server_tool_use`` and their results)
read back as hosted ``ToolEvent`` s, a ``citationsContent`` block's web citations as OpenAI's
``url_citation`` annotations. Pure: no I/O, no SDK."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.errors import UnsupportedParameterError
from ...core.hosted import CodeExecution, WebSearch, hosted_event, no_hosted_tool, url_citation
from ...core.types import ServerToolUse

__all__ = ["system_tools", "NovaCalls", "citation_annotations"]

_NAMES = {"web_search": "nova_grounding", "code_execution": "nova_code_interpreter"}


def system_tools(hosted: Iterable[Any], model: str, provider: str) -> list[dict[str, Any]]:
    """The hosted tools as Converse ``systemTool`` s: Amazon Nova models have them."""
    out = []
    for tool in hosted:
        if "amazon.nova" not in model.lower():
            raise no_hosted_tool(tool.kind, provider, f"{model!r} has no hosted {tool.kind} "
                                 "tool on Bedrock (Amazon Nova models have: us.amazon."
                                 "nova-2-lite-v1:0, ...)")
        if isinstance(tool, WebSearch) and (tool.max_uses or tool.allowed_domains or
                                            tool.blocked_domains or tool.user_location):
            raise UnsupportedParameterError(
                "web_search: Nova's web grounding takes no options; use ai.tools.WebSearch()",
                parameter="tools", provider=provider)
        if not isinstance(tool, (WebSearch, CodeExecution)):
            raise no_hosted_tool(tool.kind, provider)
        out.append({"systemTool": {"name": _NAMES[tool.kind]}})
    return out


def citation_annotations(block: Mapping[str, Any], start: int, end: int
                         ) -> list[dict[str, Any]]:
    """A ``citationsContent`` block's web citations, over its text's span."""
    out = []
    for citation in block.get("citations") or ():
        location = citation.get("location") if isinstance(citation, Mapping) else None
        web = location.get("web") if isinstance(location, Mapping) else None
        if isinstance(web, Mapping) and isinstance(web.get("url"), str):
            title = citation.get("title") or web.get("domain")
            out.append(url_citation(web["url"], title if isinstance(title, str) else None,
                                    start, end))
    return out


class NovaCalls:
    """The system tools' calls of one reply: ``use(tool_use)``, ``result(tool_result)``."""

    __slots__ = ("_calls", "_order")

    def __init__(self) -> None:
        self._calls: dict[str, dict[str, Any]] = {}
        self._order: list[str] = []

    def use(self, use: Mapping[str, Any]) -> None:
        call_id = str(use.get("toolUseId") or f"tooluse_{len(self._order)}")
        name = str(use.get("name") or "")
        self._order.append(call_id)
        self._calls[call_id] = {"name": {v: k for k, v in _NAMES.items()}.get(name, name),
                                "arguments": use.get("input") or {}, "result": "",
                                "error": False}

    def result(self, result: Mapping[str, Any]) -> None:
        call = self._calls.get(str(result.get("toolUseId") or ""))
        if call is None:
            return
        texts = []
        for item in result.get("content") or ():
            if isinstance(item, Mapping) and isinstance(item.get("json"), Mapping):
                data = item["json"]
                texts.append(str(data.get("stdOut") or ""))
                if data.get("stdErr"):
                    texts.append(f"[stderr] {data['stdErr']}")
                call["error"] = call["error"] or bool(data.get("isError"))
            elif isinstance(item, Mapping) and isinstance(item.get("text"), str):
                texts.append(item["text"])
        call["result"] = "\n".join(t for t in texts if t)
        call["error"] = call["error"] or result.get("status") == "error"

    def __bool__(self) -> bool:
        return bool(self._order)

    def events(self) -> list[Any]:
        return [hosted_event(i, self._calls[i]["name"], self._calls[i]["arguments"],
                             self._calls[i]["result"], is_error=self._calls[i]["error"])
                for i in self._order]

    def usage(self) -> Optional[ServerToolUse]:
        names = [c["name"] for c in self._calls.values()]
        if not names:
            return None
        return ServerToolUse(web_search_requests=names.count("web_search"),
                             code_execution_requests=names.count("code_execution"))
