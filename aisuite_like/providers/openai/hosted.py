"""Hosted tools on OpenAI (docs/hosted-tools.md): ``ai.tools.WebSearch`` as the Responses
API's ``web_search`` tool (or, on the chat search models, ``web_search_options``) and
``CodeExecution`` as its ``code_interpreter``; a chat call giving one goes over the Responses
API, whose ``web_search_call`` / ``code_interpreter_call`` items become hosted ``ToolEvent`` s
and whose ``url_citation`` annotations become the chat message's. Pure: no I/O, no SDK."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.errors import UnsupportedParameterError
from ...core.hosted import CodeExecution, WebSearch, hosted_event, url_citation
from ...core.types import ServerToolUse

__all__ = ["is_search_model", "search_options", "responses_tools", "annotations_of",
           "OutputCalls"]


def is_search_model(model: str) -> bool:
    """OpenAI's chat models that search the web themselves (``gpt-4o-search-preview``,
    ``gpt-4o-mini-search-preview``, ``gpt-5-search-api``)."""
    return "search" in model.rsplit("/", 1)[-1]


def _refuse(provider: str, name: str, why: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(f"{name}: {why}", parameter=name, provider=provider)


def _location(tool: WebSearch) -> Optional[dict[str, Any]]:
    if tool.user_location is None:
        return None
    return {"type": "approximate", **tool.user_location.fields()}  # type: ignore[union-attr]


def search_options(hosted: Iterable[Any], provider: str) -> dict[str, Any]:
    """``web_search_options`` of a chat search model (the only hosted tool it has)."""
    options: dict[str, Any] = {}
    for tool in hosted:
        if not isinstance(tool, WebSearch):
            raise _refuse(provider, "tools", "OpenAI's chat search models search the web and "
                          "do nothing else; use a model of the Responses API (e.g. gpt-5) "
                          "for code execution")
        for name in ("max_uses", "allowed_domains", "blocked_domains"):
            if getattr(tool, name):
                raise _refuse(provider, name, "OpenAI's chat search models take a user "
                              "location only; other models filter by allowed_domains")
        location = _location(tool)
        if location is not None:
            options["user_location"] = {"type": "approximate", "approximate": {
                k: v for k, v in location.items() if k != "type"}}
    return options


def responses_tools(hosted: Iterable[Any], provider: str) -> list[dict[str, Any]]:
    """The hosted tools as tools of the Responses API."""
    out: list[dict[str, Any]] = []
    for tool in hosted:
        if isinstance(tool, WebSearch):
            if tool.max_uses is not None:
                raise _refuse(provider, "max_uses", "OpenAI's web search has no limit of "
                              "searches; leave max_uses out")
            if tool.blocked_domains:
                raise _refuse(provider, "blocked_domains", "OpenAI's web search filters by "
                              "allowed_domains only")
            spec: dict[str, Any] = {"type": "web_search"}
            if tool.allowed_domains:
                spec["filters"] = {"allowed_domains": list(tool.allowed_domains)}
            location = _location(tool)
            if location is not None:
                spec["user_location"] = location
            out.append(spec)
        elif isinstance(tool, CodeExecution):
            out.append({"type": "code_interpreter", "container": {"type": "auto"}})
    return out


def annotations_of(part: Mapping[str, Any], base: int) -> list[dict[str, Any]]:
    """An ``output_text`` part's url citations, as chat annotations of the message's content
    (``base``: where the part's text starts in it)."""
    out = []
    for item in part.get("annotations") or ():
        if isinstance(item, Mapping) and item.get("type") == "url_citation" and \
                isinstance(item.get("url"), str):
            start, end = item.get("start_index"), item.get("end_index")
            if isinstance(start, int) and isinstance(end, int):
                out.append(url_citation(item["url"], item.get("title"), base + start,
                                        base + end))
    return out


class OutputCalls:
    """The hosted calls among a response's output items (``item(item)`` for each)."""

    __slots__ = ("_events", "searches", "runs")

    def __init__(self) -> None:
        self._events: list[Any] = []
        self.searches = 0
        self.runs = 0

    def item(self, item: Mapping[str, Any]) -> None:
        kind = item.get("type")
        failed = item.get("status") == "failed"
        if kind == "web_search_call":
            found = item.get("action")
            action: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            self.searches += 1
            sources = [str(s["url"]) for s in action.get("sources") or ()
                       if isinstance(s, Mapping) and s.get("url")]
            self._events.append(hosted_event(
                str(item.get("id") or f"ws_{self.searches}"), "web_search",
                {k: v for k, v in action.items() if k != "sources"}, "\n".join(sources),
                is_error=failed))
        elif kind == "code_interpreter_call":
            self.runs += 1
            logs = [o.get("logs") or "" for o in item.get("outputs") or ()
                    if isinstance(o, Mapping) and o.get("type") == "logs"]
            self._events.append(hosted_event(
                str(item.get("id") or f"ci_{self.runs}"), "code_execution",
                {"code": item.get("code") or ""}, "\n".join(logs), is_error=failed))

    def __bool__(self) -> bool:
        return bool(self._events)

    def events(self) -> list[Any]:
        return list(self._events)

    def usage(self) -> Optional[ServerToolUse]:
        if not (self.searches or self.runs):
            return None
        return ServerToolUse(web_search_requests=self.searches,
                             code_execution_requests=self.runs)
