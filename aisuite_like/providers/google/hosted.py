"""Hosted tools on the Gemini API (docs/hosted-tools.md): ``ai.tools.WebSearch`` as
``googleSearch`` grounding, ``CodeExecution`` as ``codeExecution``, ``WebFetch`` as
``urlContext``; and what they did read back: the ``groundingMetadata`` supports as OpenAI's
``url_citation`` annotations (Gemini's byte offsets turned into character offsets), the
searches, fetched URLs and code runs as hosted ``ToolEvent`` s and as
``usage.server_tool_use``. Pure: no I/O, no SDK."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from ...core.errors import UnsupportedParameterError
from ...core.hosted import (
    CodeExecution,
    WebFetch,
    WebSearch,
    char_offsets,
    hosted_event,
    url_citation,
)
from ...core.types import ServerToolUse

__all__ = ["gemini_tools", "Grounding"]


def _refuse(provider: str, name: str, why: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(f"{name}: {why}", parameter=name, provider=provider)


def gemini_tools(hosted: Iterable[Any], provider: str, vertex: bool = False
                 ) -> list[dict[str, Any]]:
    """The hosted tools as Gemini tools; options Gemini's have not are refused."""
    out: list[dict[str, Any]] = []
    for tool in hosted:
        if isinstance(tool, WebSearch):
            search: dict[str, Any] = {}
            if tool.max_uses is not None:
                raise _refuse(provider, "max_uses", "Gemini's Google Search grounding has no "
                              "limit of searches; leave max_uses out")
            if tool.allowed_domains:
                raise _refuse(provider, "allowed_domains", "Gemini searches all of Google; "
                              "blocked_domains works on Vertex AI")
            if tool.user_location is not None:
                raise _refuse(provider, "user_location", "Gemini's Google Search grounding "
                              "takes no user location")
            if tool.blocked_domains:
                if not vertex:
                    raise _refuse(provider, "blocked_domains", "the Gemini API's Google "
                                  "Search has no domain filter (Vertex AI's has: "
                                  "excludeDomains)")
                search["excludeDomains"] = list(tool.blocked_domains)
            out.append({"googleSearch": search})
        elif isinstance(tool, CodeExecution):
            out.append({"codeExecution": {}})
        elif isinstance(tool, WebFetch):
            if tool.max_uses is not None or tool.allowed_domains or tool.blocked_domains:
                raise _refuse(provider, "web_fetch", "Gemini's URL context reads the URLs "
                              "of the prompt and takes no options; use ai.tools.WebFetch()")
            out.append({"urlContext": {}})
    return out


class Grounding:
    """What the hosted tools did in one candidate (a whole reply, or a stream's events of
    it): ``part(part)`` for each response part (code runs), ``metadata(candidate, text)``
    for its grounding and URL-context metadata given the candidate's text so far."""

    __slots__ = ("annotations", "_events", "searches", "fetches", "runs", "_code")

    def __init__(self) -> None:
        self.annotations: list[dict[str, Any]] = []
        self._events: list[Any] = []
        self.searches = 0
        self.fetches = 0
        self.runs = 0
        self._code: Optional[dict[str, Any]] = None

    def part(self, part: Mapping[str, Any]) -> None:
        code = part.get("executableCode")
        if isinstance(code, Mapping):
            self.runs += 1
            self._code = {"code": code.get("code", ""), "language": code.get("language")}
            return
        result = part.get("codeExecutionResult")
        if isinstance(result, Mapping):
            outcome = str(result.get("outcome", ""))
            self._events.append(hosted_event(
                f"code_{self.runs}", "code_execution", self._code or {},
                str(result.get("output") or ""), is_error=outcome not in ("", "OUTCOME_OK")))
            self._code = None

    def metadata(self, cand: Mapping[str, Any], text: str,
                 starts: Optional[Sequence[int]] = None,
                 texts: Optional[Sequence[str]] = None) -> None:
        """``starts`` / ``texts``: the character start and the text of each part (by part
        index), for supports that say which part they are in."""
        meta = cand.get("groundingMetadata")
        if isinstance(meta, Mapping):
            chunks = meta.get("groundingChunks") or []
            pages = [(c.get("web") or c.get("retrievedContext") or {}) if isinstance(c, Mapping)
                     else {} for c in chunks]
            for support in meta.get("groundingSupports") or ():
                self._support(support, pages, text, starts, texts)
            queries = [q for q in meta.get("webSearchQueries") or () if isinstance(q, str)]
            found = "\n".join(f"{p.get('title', '')} <{p.get('uri', '')}>" for p in pages
                              if isinstance(p, Mapping) and p.get("uri"))
            for n, query in enumerate(queries):
                self._events.append(hosted_event(f"search_{self.searches + n}", "web_search",
                                                 {"query": query}, found if n == 0 else ""))
            self.searches += len(queries)
        urls = cand.get("urlContextMetadata")
        if isinstance(urls, Mapping):
            for item in urls.get("urlMetadata") or ():
                if not isinstance(item, Mapping):
                    continue
                status = str(item.get("urlRetrievalStatus", ""))
                self._events.append(hosted_event(
                    f"fetch_{self.fetches}", "web_fetch", {"url": item.get("retrievedUrl")},
                    status, is_error=not status.endswith("SUCCESS")))
                self.fetches += 1

    def _support(self, support: Any, pages: list[Any], text: str,
                 starts: Optional[Sequence[int]], texts: Optional[Sequence[str]]) -> None:
        if not isinstance(support, Mapping):
            return
        segment = support.get("segment") or {}
        end = segment.get("endIndex")
        if not isinstance(end, int):
            return
        start = segment.get("startIndex") or 0
        part = segment.get("partIndex")
        base, within = 0, text
        if isinstance(part, int) and starts is not None and texts is not None \
                and 0 <= part < len(starts):
            base, within = starts[part], texts[part]
        first, last = char_offsets(within, (start, end))
        for index in support.get("groundingChunkIndices") or ():
            page = pages[index] if isinstance(index, int) and 0 <= index < len(pages) else None
            if isinstance(page, Mapping) and isinstance(page.get("uri"), str):
                self.annotations.append(url_citation(page["uri"], page.get("title"),
                                                     base + first, base + last))

    def events(self) -> list[Any]:
        return list(self._events)

    def __bool__(self) -> bool:
        return bool(self.annotations or self._events or self.searches or self.runs)

    def usage(self) -> Optional[ServerToolUse]:
        if not (self.searches or self.fetches or self.runs):
            return None
        return ServerToolUse(web_search_requests=self.searches,
                             web_fetch_requests=self.fetches,
                             code_execution_requests=self.runs)
