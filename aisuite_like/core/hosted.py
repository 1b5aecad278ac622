"""Hosted tools: tools the provider runs on its own servers (web search, code execution, web
fetch), one spelling for every family (docs/hosted-tools.md).

    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=[...],
                                   tools=[ai.tools.WebSearch(max_uses=3), get_weather])

Each family's translator maps them to its own server tool and reads what they did back into
the OpenAI shapes: the answer's citations as ``message.annotations`` (``url_citation`` with
``url``, ``title`` and the cited span's ``start_index`` / ``end_index``, as OpenAI returns
them), each hosted call as a ``ToolEvent`` with ``hosted=True`` in ``response.tool_events``,
and their count in ``usage.server_tool_use`` (priced in ``usage.cost``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

__all__ = ["WebSearch", "CodeExecution", "WebFetch", "UserLocation", "HostedTool",
           "is_hosted", "url_citation", "hosted_event", "HOSTED_FAMILIES", "char_offsets",
           "no_hosted_tool"]

#: The families with each hosted tool (named when another one is asked to run it).
HOSTED_FAMILIES = {
    "web_search": ("openai", "azure", "anthropic", "google", "bedrock (Amazon Nova)"),
    "code_execution": ("openai", "azure", "anthropic", "google", "bedrock (Amazon Nova)"),
    "web_fetch": ("anthropic", "google"),
}


def _domains(name: str, value: Any) -> Optional[tuple[str, ...]]:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of domain names, e.g. ['example.com'], got "
                        f"{type(value).__name__}")
    domains = tuple(value)
    if not domains or not all(isinstance(d, str) and d.strip() for d in domains):
        raise ValueError(f"{name} must be a non-empty list of domain names")
    return domains


def _max_uses(value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_uses must be an int >= 1, got {value!r}")
    return value


@dataclass(frozen=True)
class UserLocation:
    """Where the searching user is, to localize results: ``city``, ``region``, ``country``
    (ISO 3166-1 two letters, e.g. ``"US"``), ``timezone`` (IANA, e.g.
    ``"America/Chicago"``)."""

    city: Optional[str] = None
    region: Optional[str] = None
    country: Optional[str] = None
    timezone: Optional[str] = None

    def __post_init__(self) -> None:
        for name in ("city", "region", "country", "timezone"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"user_location.{name} must be a str")
        if not any((self.city, self.region, self.country, self.timezone)):
            raise ValueError("user_location needs at least one of city, region, country, "
                             "timezone")

    def fields(self) -> dict[str, str]:
        """The given fields, by name."""
        return {k: v for k, v in (("city", self.city), ("region", self.region),
                                  ("country", self.country), ("timezone", self.timezone))
                if v is not None}


def _location(value: Any) -> Optional[UserLocation]:
    if value is None or isinstance(value, UserLocation):
        return value
    if isinstance(value, Mapping):
        inner = value.get("approximate", value)  # OpenAI's {"type": "approximate", ...} too
        unknown = set(inner) - {"city", "region", "country", "timezone", "type"}
        if unknown:
            raise ValueError(f"user_location takes city, region, country and timezone, not "
                             f"{sorted(unknown)}")
        return UserLocation(**{k: v for k, v in inner.items() if k != "type"})
    raise TypeError("user_location must be an ai.tools.UserLocation or a dict of city, "
                    f"region, country, timezone; got {type(value).__name__}")


@dataclass(frozen=True)
class WebSearch:
    """The provider searches the web and answers with citations. ``max_uses``: searches at
    most per request; ``allowed_domains`` / ``blocked_domains``: only / never these sites (one
    of the two); ``user_location``: localize the results. A family takes the options its
    search has and refuses the others before sending (docs/hosted-tools.md)."""

    max_uses: Optional[int] = None
    allowed_domains: Optional[Sequence[str]] = None
    blocked_domains: Optional[Sequence[str]] = None
    user_location: Optional[Union[UserLocation, Mapping[str, str]]] = None
    kind: str = field(default="web_search", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_uses", _max_uses(self.max_uses))
        allowed = _domains("allowed_domains", self.allowed_domains)
        blocked = _domains("blocked_domains", self.blocked_domains)
        if allowed and blocked:
            raise ValueError("give allowed_domains or blocked_domains, not both")
        object.__setattr__(self, "allowed_domains", allowed)
        object.__setattr__(self, "blocked_domains", blocked)
        object.__setattr__(self, "user_location", _location(self.user_location))


@dataclass(frozen=True)
class WebFetch:
    """The provider reads the pages at URLs the conversation names (Anthropic's web fetch,
    Gemini's URL context). ``max_uses``, ``allowed_domains`` / ``blocked_domains`` as for
    ``WebSearch``."""

    max_uses: Optional[int] = None
    allowed_domains: Optional[Sequence[str]] = None
    blocked_domains: Optional[Sequence[str]] = None
    kind: str = field(default="web_fetch", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_uses", _max_uses(self.max_uses))
        allowed = _domains("allowed_domains", self.allowed_domains)
        blocked = _domains("blocked_domains", self.blocked_domains)
        if allowed and blocked:
            raise ValueError("give allowed_domains or blocked_domains, not both")
        object.__setattr__(self, "allowed_domains", allowed)
        object.__setattr__(self, "blocked_domains", blocked)


@dataclass(frozen=True)
class CodeExecution:
    """The provider runs code the model writes in a sandbox of its own (OpenAI's code
    interpreter, Anthropic's and Gemini's code execution, Amazon Nova's code interpreter)."""

    kind: str = field(default="code_execution", init=False)


HostedTool = Union[WebSearch, CodeExecution, WebFetch]


def is_hosted(item: Any) -> bool:
    return isinstance(item, (WebSearch, CodeExecution, WebFetch))


def no_hosted_tool(kind: str, provider: str, why: str = "") -> Exception:
    """The error of a family (or model) without the hosted tool ``kind``, naming the families
    that have it."""
    from .errors import UnsupportedFeatureError

    families = ", ".join(HOSTED_FAMILIES.get(kind, ()))
    reason = why or f"provider {provider!r} has no hosted {kind} tool"
    return UnsupportedFeatureError(f"{reason}; the families that have it: {families} "
                                   "(docs/hosted-tools.md)", feature=f"tools.{kind}",
                                   provider=provider or None)


def url_citation(url: str, title: Optional[str], start: int, end: int) -> dict[str, Any]:
    """A citation as OpenAI's chat message annotation."""
    return {"type": "url_citation", "url_citation": {
        "end_index": end, "start_index": start, "title": title or "", "url": url}}


def hosted_event(call_id: str, name: str, arguments: Any, result: str = "", *,
                 is_error: bool = False, turn: Optional[int] = None) -> Any:
    """A hosted call as a ``ToolEvent`` (``hosted=True``): what was asked (``arguments``,
    e.g. the query) and, as text, what came back (the URLs found, the code's output)."""
    from .types import ToolEvent

    return ToolEvent.model_construct(
        call_id=call_id, name=name, arguments=arguments if isinstance(arguments, (dict, str))
        else {}, allowed=True, reason=None, result=result, is_error=is_error, duration_s=0.0,
        turn=turn, truncated=False, hosted=True)


def char_offsets(text: str, byte_offsets: Iterable[int]) -> list[int]:
    """UTF-8 byte offsets into ``text`` (Gemini's segments) as character offsets (OpenAI's
    ``start_index`` / ``end_index``)."""
    data = text.encode("utf-8")
    return [len(data[:max(0, b)].decode("utf-8", errors="ignore")) for b in byte_offsets]
