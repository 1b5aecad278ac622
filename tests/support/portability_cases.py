"""The portability matrix's cases (tests/providers/test_portability_matrix.py,
scripts/portability_matrix.py, docs/portability.md): histories produced by each family (its
recorded replies, or the loopback server's replies in its format, through the real client)
and by hand, each sent to every target through the real SDKs and the loopback server that
checks the target's rules; what reached the wire, as the facts the docs table shows.

No logic under test lives here: the histories come out of the library, the checks are the
APIs' rules (portability_rules.py), and the facts are read off the wire."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

import aisuite_like as ai
from aisuite_like.core.portability import SYNTHETIC_RESULT
from aisuite_like.providers.openai import OpenAIProvider

from .portability_server import MODELS, TARGETS, PortabilityServer, Recorded, Turn
from .recorded import load_recorded

__all__ = ["SOURCES", "FAMILIES", "MODES", "NATIVE", "cases", "run_case", "call", "render",
           "Facts",
           "produce", "wire_view", "COLUMNS", "START", "END", "parse_table", "current_table"]

FAMILIES = ("openai", "mistral", "anthropic", "google", "bedrock", "responses")
MODES = ("sync", "async", "sync-stream", "async-stream")
START, END = "<!-- portability-matrix:start -->", "<!-- portability-matrix:end -->"
COLUMNS = ("tool-call ids", "reasoning", "parallel results", "content parts", "orphans",
           "system and names")
NAMES = {"openai": "OpenAI", "mistral": "Mistral", "anthropic": "Anthropic",
         "google": "Gemini", "bedrock": "Bedrock", "responses": "Responses API",
         "hand": "hand-written"}


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": f"The {name.replace('_', ' ')} tool.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "path": {"type": "string"},
            "country": {"type": "string"}}}}}


def tools_for(history: list[dict[str, Any]], *more: str) -> list[dict[str, Any]]:
    names = dict.fromkeys([*(c["function"]["name"] for m in history
                             for c in m.get("tool_calls") or ()), *more])
    return [tool(n) for n in names]


# --- calls through the real client ----------------------------------------------------------

#: The targets our own HTTP transport serves too (docs/transports.md); Bedrock is botocore's.
NATIVE = ("openai", "mistral", "anthropic", "google", "responses")


def _configs(server: PortabilityServer, transport: str = "sdk") -> dict[str, Any]:
    configs = {t: server.config(t) for t in TARGETS}
    if transport == "native":
        for target in NATIVE:
            configs[target]["transport"] = "native"
    return configs


_PROVIDERS = {"responses": OpenAIProvider}  # chat over OpenAI's Responses API


def _sync_client(server: PortabilityServer, transport: str) -> ai.Client:
    """One sync client per server and transport (its SDK clients are made once)."""
    clients = server.__dict__.setdefault("_sync_clients", {})
    if transport not in clients:
        # the matrix is of what each family's translation does, not of one model's
        # capabilities (docs/models.md): the model checks are off
        clients[transport] = ai.Client(_configs(server, transport), providers=_PROVIDERS,
                                       checks="off")
    return clients[transport]  # type: ignore[no-any-return]


def _read(result: Any, stream: bool) -> ai.ChatCompletionResponse:
    if not stream:
        return result  # type: ignore[no-any-return]
    for _ in result:
        pass
    return result.get_final_response()  # type: ignore[no-any-return]


async def _aread(result: Any, stream: bool) -> ai.ChatCompletionResponse:
    if not stream:
        return result  # type: ignore[no-any-return]
    async for _ in result:
        pass
    return await result.get_final_response()  # type: ignore[no-any-return]


def call(server: PortabilityServer, target: str, mode: str,
         *requests: Callable[[Optional[ai.ChatCompletionResponse]], list[dict[str, Any]]],
         transport: str = "sdk", **kwargs: Any) -> list[ai.ChatCompletionResponse]:
    """``create`` calls to ``target`` on one client, in ``mode`` (sync / async, streamed or
    not: a stream is read to its end and its final response kept); each request's messages
    are made from the reply before it (None for the first)."""
    stream = mode.endswith("stream")
    model = f"{target}:{MODELS[target]}"
    replies: list[ai.ChatCompletionResponse] = []
    if mode.startswith("sync"):
        client = _sync_client(server, transport)
        for make in requests:
            messages = make(replies[-1] if replies else None)
            replies.append(_read(client.chat.completions.create(
                model=model, messages=messages, stream=stream, **kwargs), stream))
        return replies

    async def run() -> None:
        async with ai.AsyncClient(_configs(server, transport), providers=_PROVIDERS,
                                  checks="off") as client:
            for make in requests:
                messages = make(replies[-1] if replies else None)
                replies.append(await _aread(await client.chat.completions.create(
                    model=model, messages=messages, stream=stream, **kwargs), stream))

    asyncio.run(run())
    return replies


def _given(messages: list[dict[str, Any]]
           ) -> Callable[[Optional[ai.ChatCompletionResponse]], list[dict[str, Any]]]:
    return lambda _: messages


def _answered(reply: ai.ChatCompletionResponse) -> list[dict[str, Any]]:
    """The reply as the next request's messages: the assistant message, then one result per
    call (in call order)."""
    message = reply.choices[0].message
    out: list[dict[str, Any]] = [message.model_dump(exclude_none=True)]
    for n, tc in enumerate(message.tool_calls or ()):
        out.append({"role": "tool", "tool_call_id": tc.id, "content": f"result {n} of "
                    f"{tc.function.name}"})
    return out


# --- the histories ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """A history and who made it: ``family`` (a target, or ``"hand"``), what it holds."""

    name: str
    family: str
    holds: str
    build: Callable[[PortabilityServer], list[dict[str, Any]]]


QUESTION = [{"role": "user", "content": "What is the weather in Paris and in London?"}]


def _recorded(family: str, fixture: str, *, first: Optional[list[dict[str, Any]]] = None,
              interaction: int = 0, stream: bool = False, tools: tuple[str, ...] = ()
              ) -> Callable[[PortabilityServer], list[dict[str, Any]]]:
    def build(server: PortabilityServer) -> list[dict[str, Any]]:
        response = load_recorded(fixture)["interactions"][interaction]["response"]
        server.reply(family, Recorded(body=response.get("body"), sse=response.get("sse")))
        messages = copy.deepcopy(first) if first is not None else list(QUESTION)
        reply, = call(server, family, "sync-stream" if stream else "sync", _given(messages),
                      tools=[tool(n) for n in tools] or None)
        return [*messages, *_answered(reply)]
    return build


def _served(family: str, *turns: Turn, stream: bool = False
            ) -> Callable[[PortabilityServer], list[dict[str, Any]]]:
    """A history of ``family``'s replies in its own format (ids, signatures: its own)."""
    def build(server: PortabilityServer) -> list[dict[str, Any]]:
        server.reply(family, *turns)
        messages = list(QUESTION)
        for _ in turns:
            reply, = call(server, family, "sync-stream" if stream else "sync",
                          _given(messages), tools=[tool("get_weather")])
            messages = [*messages, *_answered(reply)]
        return messages
    return build


def _mistral_image(server: PortabilityServer) -> list[dict[str, Any]]:
    """Mistral's recorded exchange: a call, its result, "OK", then the user sends an image
    by URL and Mistral describes it."""
    fixture = load_recorded("mistral/test_multimodal_tool_returns__test_multimodal_tool_return"
                            "_matrix__direct-url-image-mistral.json")
    first, second = (i["response"]["body"] for i in fixture["interactions"])
    sent = fixture["interactions"][1]["request"]["body"]["messages"]
    server.reply("mistral", Recorded(body=first), Recorded(body=second))
    messages = [{"role": "user", "content": sent[0]["content"]}]
    reply, = call(server, "mistral", "sync", _given(messages), tools=[tool("get_file")])
    messages = [*messages, *_answered(reply), {"role": "assistant", "content": "OK"},
                {"role": "user", "content": sent[4]["content"]}]
    reply, = call(server, "mistral", "sync", _given(messages), tools=[tool("get_file")])
    return [*messages, *_answered(reply)]


def _odd_ids(server: PortabilityServer) -> list[dict[str, Any]]:
    """Written by hand in the OpenAI shape: ids no API would make (Kimi's, too long, with
    characters others refuse), parallel results out of call order, a system message in the
    middle, names, and empty assistant content with tool calls."""
    ids = ["functions.get_weather:0", "call|1 with spaces", "x" * 70]

    def calls(*names: str) -> list[dict[str, Any]]:
        return [{"id": i, "type": "function", "function": {
            "name": n, "arguments": json.dumps({"city": c})}}
            for i, n, c in zip(ids, names, ("Paris", "London", "Oslo"), strict=False)]
    return [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris, London and Oslo?", "name": "ada"},
        {"role": "assistant", "content": "", "tool_calls": calls(
            "get_weather", "get_weather", "get_weather")},
        {"role": "tool", "tool_call_id": ids[2], "content": "cold"},
        {"role": "tool", "tool_call_id": ids[0], "content": "sunny"},
        {"role": "tool", "tool_call_id": ids[1], "content": "rain"},
        {"role": "system", "content": "Answer in one line."},
        {"role": "assistant", "content": "Sunny, rain, cold."},
        {"role": "user", "content": "And tomorrow?", "name": "ada"},
    ]


# The smallest files of their kinds, base64: a 1x1 PNG, a one-page PDF, a silent WAV.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
       "RU5ErkJggg==")
PDF = base64.b64encode(b"%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type"
                       b"/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF").decode()
WAV = base64.b64encode(b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
                       b"@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00data\x00\x00"
                       b"\x00\x00").decode()
PARTS = {
    "image URL": {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    "image data": {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    "PDF": {"type": "file", "file": {"filename": "brief.pdf",
                                      "file_data": f"data:application/pdf;base64,{PDF}"}},
    "audio": {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
}


def _with_part(kind: str) -> Callable[[PortabilityServer], list[dict[str, Any]]]:
    return lambda server: [{"role": "user", "content": [
        {"type": "text", "text": "What is in this?"}, PARTS[kind]]}]


def _orphans(server: PortabilityServer) -> list[dict[str, Any]]:
    """A trimmed or edited history: one of two parallel calls lost its result."""
    return [{"role": "user", "content": "Look up Paris and London."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {
                    "name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_b", "type": "function", "function": {
                    "name": "get_weather", "arguments": '{"city": "London"}'}}]},
            {"role": "tool", "tool_call_id": "call_b", "content": "rain"},
            {"role": "user", "content": "Never mind; and Rome?"}]


def _sources() -> list[Source]:
    weather2 = Turn(calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
                    reasoning="Two cities: two calls.")
    return [
        Source("openai-parallel", "openai", "parallel tool calls",
               _recorded("openai", "openai/test_prefect__test_prefect_agent_with_hitl_tool.json",
                         tools=("delete_file", "create_file"))),
        Source("openai-streamed", "openai", "a streamed tool call",
               _recorded("openai", "openai/test_openai__test_run_stream_sync_streams_real_"
                         "model.json", stream=True, tools=("get_capital",))),
        Source("openai-image", "openai", "an image (data URL)",
               _recorded("openai", "openai/test_openai__test_image_url_input_force_download."
                         "json", first=load_recorded(
                             "openai/test_openai__test_image_url_input_force_download.json")[
                             "interactions"][0]["request"]["body"]["messages"])),
        Source("mistral-tools", "mistral", "a tool call",
               _recorded("mistral", "mistral/test_tool_choice_matrix__test_tool_choice_matrix"
                         "__auto-mistral.json", tools=("get_weather",))),
        Source("mistral-image", "mistral", "a tool call, an image (URL)", _mistral_image),
        Source("anthropic-thinking", "anthropic", "thinking with a signature, a tool call",
               _recorded("anthropic", "anthropic/test_anthropic__test_anthropic_tool_with_"
                         "thinking.json", tools=("get_user_country",))),
        Source("anthropic-parallel", "anthropic", "parallel tool calls",
               _recorded("anthropic", "anthropic/anthropic__test_output__test_mixed_tools_no_"
                         "output.json", tools=("get_weather", "get_elevation"))),
        Source("anthropic-streamed", "anthropic", "streamed thinking",
               _recorded("anthropic", "anthropic/test_anthropic__test_anthropic_model_"
                         "thinking_part_stream.json", stream=True)),
        Source("google-signed", "google", "a signed call (Gemini 3)",
               _recorded("google", "google/google__test_structured_output__test_native_output"
                         "_with_function_tools.json", tools=("get_user_country",))),
        Source("google-streamed", "google", "a streamed signed call without id",
               _recorded("google", "google/test_google__test_google_streaming_tool_call_"
                         "thought_signature.json", stream=True, tools=("get_country",))),
        Source("bedrock-reasoning", "bedrock", "signed reasoning, parallel tool calls",
               _served("bedrock", weather2)),
        Source("bedrock-streamed", "bedrock", "streamed reasoning and tool calls",
               _served("bedrock", weather2, stream=True)),
        Source("responses-reasoning", "responses", "encrypted reasoning, parallel calls",
               _served("responses", weather2)),
        Source("responses-streamed", "responses", "streamed reasoning and tool calls",
               _served("responses", weather2, stream=True)),
        Source("hand-odd-ids", "hand", "odd ids, results out of order, mid-history system",
               _odd_ids),
        Source("hand-orphans", "hand", "a call without its result", _orphans),
        *(Source(f"hand-{kind.lower().replace(' ', '-')}", "hand", kind, _with_part(kind))
          for kind in PARTS),
    ]


SOURCES: dict[str, Source] = {s.name: s for s in _sources()}


def produce(server: PortabilityServer, name: str) -> list[dict[str, Any]]:
    server.reset()
    history = SOURCES[name].build(server)
    problems = [v for seen in server.requests for v in seen.violations]
    assert not problems, f"{name}: the family's own history broke its rules: {problems}"
    return history


def cases() -> list[tuple[str, str, str]]:
    """(source, target, mode): every source to every target, and every ordered pair of
    families in each of the four modes."""
    out: list[tuple[str, str, str]] = []
    by_family: dict[str, list[str]] = {}
    for source in SOURCES.values():
        by_family.setdefault(source.family, []).append(source.name)
    for names in by_family.values():
        for target in TARGETS:
            for n in range(max(len(MODES), len(names))):
                out.append((names[n % len(names)], target, MODES[n % len(MODES)]))
    return out


# --- what reached the wire -----------------------------------------------------------------

@dataclass
class View:
    calls: list[str]  # call ids in order (Gemini: the id or "")
    groups: list[list[str]]  # the results of each call turn, as the wire groups them
    grouping: str  # how parallel results travel
    reasoning: set[str]  # signatures / encrypted reasoning on the wire
    placeholders: int  # Gemini placeholder signatures
    synthetic: int = 0  # results the library made for calls without one
    system_in_place: bool = False  # a system message among the others
    names: bool = False  # a user or assistant message with a name
    text: str = ""  # the whole body as JSON


def _plain(signature: str) -> str:
    return signature.translate(str.maketrans("-_", "+/"))


def wire_view(target: str, body: dict[str, Any]) -> View:
    calls: list[str] = []
    groups: list[list[str]] = []
    reasoning: set[str] = set()
    placeholders = 0
    if target in ("openai", "mistral"):
        grouping = "separate tool messages"
        for m in body["messages"]:
            calls += [c["id"] for c in m.get("tool_calls") or ()]
            if m["role"] == "assistant" and m.get("tool_calls"):
                groups.append([])
            if m["role"] == "tool":
                groups[-1].append(m["tool_call_id"])
    elif target == "anthropic":
        grouping = "one user turn of tool_result blocks"
        for m in body["messages"]:
            blocks = m["content"] if isinstance(m["content"], list) else []
            uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            calls += uses
            results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
            if results:
                groups.append(results)
            reasoning |= {b.get("signature") or b.get("data") for b in blocks
                          if b.get("type") in ("thinking", "redacted_thinking")}
    elif target == "bedrock":
        grouping = "one user message of toolResult blocks"
        for m in body["messages"]:
            calls += [b["toolUse"]["toolUseId"] for b in m["content"] if "toolUse" in b]
            results = [b["toolResult"]["toolUseId"] for b in m["content"] if "toolResult" in b]
            if results:
                groups.append(results)
            reasoning |= {b["reasoningContent"].get("reasoningText", {}).get("signature")
                          for b in m["content"] if "reasoningContent" in b}
    elif target == "google":
        grouping = "functionResponse parts of one turn, in call order"
        for content in body["contents"]:
            parts = content["parts"]
            calls += [p["functionCall"].get("id", "") for p in parts if "functionCall" in p]
            results = [p["functionResponse"].get("id", "") for p in parts
                       if "functionResponse" in p]
            if results:
                groups.append(results)
            for p in parts:
                signature = p.get("thoughtSignature")
                if signature == "skip_thought_signature_validator":
                    placeholders += 1
                elif signature:
                    reasoning.add(_plain(signature))
    else:
        grouping = "function_call_output items"
        previous = None
        for item in body["input"]:
            kind = item.get("type")
            if kind == "function_call":
                calls.append(item["call_id"])
            elif kind == "function_call_output":
                if previous != "function_call_output":
                    groups.append([])
                groups[-1].append(item["call_id"])
            elif kind == "reasoning":
                reasoning.add(item.get("encrypted_content") or item.get("id"))
            previous = kind
    reasoning.discard(None)  # type: ignore[arg-type]
    text = json.dumps(body)
    synthetic = text.count(SYNTHETIC_RESULT[:40])
    listed = body.get("messages") or body.get("input") or []
    roles = [m.get("role") for m in listed if isinstance(m, dict)]
    in_place = "system" in roles[1:]
    names = any("name" in m for m in listed if isinstance(m, dict) and m.get("role") in (
        "user", "assistant"))
    return View(calls, groups, grouping, reasoning, placeholders, synthetic, in_place, names,
                text)


def source_view(history: list[dict[str, Any]]) -> tuple[list[str], set[str], int]:
    """The history's call ids, its reasoning artifacts (signatures, encrypted reasoning) and
    the most results one call turn has."""
    ids = [c["id"] for m in history for c in m.get("tool_calls") or ()]
    artifacts: set[str] = set()
    for m in history:
        psf = m.get("provider_specific_fields") or {}
        for block in psf.get("thinking_blocks") or ():
            artifacts.add(block.get("signature") or block.get("data"))
        for block in psf.get("reasoning_blocks") or ():
            artifacts.add((block.get("reasoningText") or {}).get("signature"))
        for entry in psf.get("thought_signatures") or ():
            artifacts.add(_plain(entry.get("signature") or ""))
        for item in psf.get("responses_items") or ():
            if item.get("type") == "reasoning":
                artifacts.add(item.get("encrypted_content") or item.get("id"))
    artifacts.discard(None)  # type: ignore[arg-type]
    artifacts.discard("")
    widest, run = 0, 0
    for m in history:
        run = run + 1 if m["role"] == "tool" else 0
        widest = max(widest, run)
    return ids, artifacts, widest


@dataclass
class Facts:
    source: str
    family: str
    target: str
    mode: str
    cells: dict[str, list[str]]


def _facts(family: str, target: str, history: list[dict[str, Any]], view: View,
           refused: Optional[str]) -> dict[str, list[str]]:
    """What happened to each part of the history on the way to ``target``."""
    ids, artifacts, widest = source_view(history)
    if refused is not None:
        return {**{c: [] for c in COLUMNS}, "content parts": [refused]}
    id_facts = []
    if ids:
        kept = sum(1 for a, b in zip(ids, view.calls, strict=False) if a == b)
        id_facts.append("kept" if kept == len(ids) else "rewritten" if kept == 0 else
                        "rewritten where they do not fit")
    same = family == target
    reasoning: list[str] = []
    if not artifacts:
        pass
    elif same:
        reasoning = ["sent back intact" if artifacts <= view.reasoning else "NOT INTACT"]
    else:
        reasoning = ["dropped" if not artifacts & view.reasoning else "LEAKED"]
    if target == "google" and view.placeholders and not same:
        reasoning.append("its calls get Gemini's placeholder signature")
    for payload in _payloads(history):
        assert payload in view.text, "a content part did not reach the wire"
    return {"tool-call ids": id_facts, "reasoning": reasoning,
            "parallel results": [view.grouping] if widest > 1 else [],
            "content parts": [f"{kind} converted" for kind in _kinds(history)],
            "orphans": [f"{view.synthetic} synthetic error result"] if view.synthetic else [],
            "system and names": _placement(target, history, view)}


def _payloads(history: list[dict[str, Any]]) -> list[str]:
    """What each content part carries (its URL, or the start of its base64 data)."""
    out = []
    for m in history:
        for part in m.get("content") if isinstance(m.get("content"), list) else ():
            kind = part.get("type")
            value = (part.get("image_url") or {}).get("url") if kind == "image_url" else \
                (part.get("file") or {}).get("file_data") if kind == "file" else \
                (part.get("input_audio") or {}).get("data") if kind == "input_audio" else None
            if isinstance(value, str):
                out.append(value.split(",", 1)[1][:64] if value.startswith("data:")
                           else value[:64])
    return out


def _kinds(history: list[dict[str, Any]]) -> list[str]:
    """The kinds of content part a history holds (as the table names them)."""
    kinds = []
    for m in history:
        for part in m.get("content") if isinstance(m.get("content"), list) else ():
            kind = part.get("type")
            url = (part.get("image_url") or {}).get("url", "") if kind == "image_url" else ""
            name = {"image_url": "image data" if url.startswith("data:") else "image URL",
                    "file": "PDF", "input_audio": "audio"}.get(kind)
            if name and name not in kinds:
                kinds.append(name)
    return kinds


def _placement(target: str, history: list[dict[str, Any]], view: View) -> list[str]:
    facts = []
    roles = [m["role"] for m in history]
    if "system" in roles[1:]:
        assert all(m["content"] in view.text for m in history if m["role"] == "system"), \
            "a system message was lost"
        facts.append("system messages kept in place" if view.system_in_place else
                     "system messages moved into the system prompt")
    if any("name" in m for m in history if m["role"] != "tool"):
        facts.append("names sent" if view.names else "names left out")
    return facts


def run_case(server: PortabilityServer, history: list[dict[str, Any]], source: str,
             target: str, mode: str, transport: str = "sdk") -> Facts:
    """Send ``history`` to ``target`` (the server checks its rules), answer the call the
    target makes, send again: the second request must repeat the first's ids, and carry
    the target's own ids and reasoning as it gave them. Returns the facts of the first."""
    family = SOURCES[source].family
    server.reset()
    before = copy.deepcopy(history)
    tools = tools_for(history, "get_weather")
    server.reply(target, Turn(calls=[("get_weather", {"city": "Rome"})],
                              reasoning="One more city."), Turn(text="All done."))
    sent: list[list[dict[str, Any]]] = []

    def second(reply: Optional[ai.ChatCompletionResponse]) -> list[dict[str, Any]]:
        assert reply is not None and history == before, "the caller's history was modified"
        assert reply.choices[0].message.tool_calls, "the target's call came back"
        sent.append([*history, *_answered(reply)])
        sent.append(copy.deepcopy(sent[0]))
        return sent[0]
    try:
        reply, final = call(server, target, mode, _given(history), second, tools=tools,
                            transport=transport)
    except ai.UnsupportedParameterError:
        assert server.requests == [], "refused, yet something was sent"
        assert history == before, "the caller's history was modified"
        return Facts(source, family, target, mode, _facts(
            family, target, history, View([], [], "", set(), 0), _refusal(history)))
    assert sent[0] == sent[1], "the caller's history was modified"
    assert final.choices[0].message.content == "All done."
    first, second_seen = server.of(target)
    assert not first.violations and not second_seen.violations
    one, two = wire_view(target, first.body), wire_view(target, second_seen.body)
    assert two.calls[:len(one.calls)] == one.calls, "the same source id, another wire id"
    new_id = reply.choices[0].message.tool_calls[0].id
    if target != "google":  # Gemini sent no id: ours goes back
        assert two.calls[len(one.calls)] == new_id, "the reply's own id did not go back as is"
    assert one.reasoning <= two.reasoning, "reasoning sent once, dropped the next time"
    return Facts(source, family, target, mode, _facts(family, target, history, one, None))


def _refusal(history: list[dict[str, Any]]) -> str:
    kinds = _kinds(history)
    return f"{kinds[0] if kinds else 'the history'} refused before sending"


# --- the docs table ----------------------------------------------------------------------------

def render(facts: list[Facts]) -> str:
    """The ordered-pair table: each cell the facts of every case of that pair, joined."""
    cells: dict[tuple[str, str], dict[str, list[str]]] = {}
    for fact in facts:
        row = cells.setdefault((fact.family, fact.target), {c: [] for c in COLUMNS})
        for column in COLUMNS:
            for value in fact.cells[column]:
                if value not in row[column]:
                    row[column].append(value)
    order = [*FAMILIES, "hand"]
    lines = ["| from | to | " + " | ".join(COLUMNS) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for family in order:
        for target in TARGETS:
            row = cells.get((family, target))
            if row is None:
                continue
            values = ["; ".join(sorted(row[c], key=_fact_order)) or "-" for c in COLUMNS]
            lines.append(f"| {NAMES[family]} | {NAMES[target]} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def _fact_order(fact: str) -> tuple[int, str]:
    """Facts of a cell in a stable order: by the kind of part first, then by name."""
    kinds = [k for k in ("image URL", "image data", "PDF", "audio") if fact.startswith(k)]
    return (("image URL", "image data", "PDF", "audio").index(kinds[0]) if kinds else -1, fact)


def current_table(text: str) -> str:
    """The table between the markers of docs/portability.md, as written."""
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def parse_table(text: str) -> dict[tuple[str, str], dict[str, set[str]]]:
    """The table between the markers of docs/portability.md -> its cells' facts."""
    body = text.split(START, 1)[1].split(END, 1)[0]
    back = {v: k for k, v in NAMES.items()}
    out: dict[tuple[str, str], dict[str, set[str]]] = {}
    for line in body.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        family, target, values = back[cells[0]], back[cells[1]], cells[2:]
        out[(family, target)] = {c: set(v.split("; ")) - {"-"}
                                 for c, v in zip(COLUMNS, values, strict=True)}
    return out
