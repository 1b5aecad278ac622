"""The portability contract beyond the matrix (docs/portability.md), through the real SDKs
to the loopback server that checks each target's rules (tests/support/portability_*.py):

- the receiving side refuses what each API refuses (so the matrix can fail), and a request
  that breaks a rule gets that API's 400;
- ``orphans="error"`` refuses a call without its result before anything is sent, on every
  family; a bad ``orphans`` value too;
- a tool run that moves between families in the middle (fallbacks, a router) finishes, each
  family receiving the others' calls as its API wants them, sync and async, streamed or not;
- Claude (Anthropic, Bedrock) with thinking on finishes a turn begun by another family with
  thinking off, and keeps it on for its own turns."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from typing import Any

import pytest
from support.portability_cases import MODES, call, produce
from support.portability_rules import CHECKS, Issued
from support.portability_server import MODELS, TARGETS, Fail, PortabilityServer, Turn

import aisuite_like as ai
from aisuite_like.providers.openai import OpenAIProvider

pytestmark = pytest.mark.usefixtures("isolated_aws")  # Bedrock clients are built here


@pytest.fixture(scope="module")
def server() -> Iterator[PortabilityServer]:
    with PortabilityServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _fresh(server: PortabilityServer) -> None:
    server.reset()


def _call(name: str = "get_weather", cid: str = "call_1", city: str = "Paris") -> dict[str, Any]:
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": f'{{"city": "{city}"}}'}}


# --- the receiving side refuses what each API refuses ---------------------------------------

USER = {"role": "user", "content": "q"}
BAD_BODIES = [
    ("openai", {"messages": [USER, {"role": "assistant", "content": None,
                                    "tool_calls": [_call(cid="c" * 41)]},
                             {"role": "tool", "tool_call_id": "c" * 41, "content": "r"}]},
     "maximum length 40"),
    ("openai", {"messages": [USER, {"role": "tool", "tool_call_id": "x", "content": "r"}]},
     "must be a response to a preceeding message"),
    ("openai", {"messages": [USER, {"role": "assistant", "content": None,
                                    "tool_calls": [_call()]}, USER]},
     "did not have response messages: call_1"),
    ("openai", {"messages": [USER, {"role": "assistant", "content": "a",
                                    "reasoning_content": "r"}]}, "Extra inputs"),
    ("mistral", {"messages": [USER, {"role": "assistant", "content": None,
                                     "tool_calls": [_call()]},
                              {"role": "tool", "tool_call_id": "call_1", "content": "r"}]},
     "with a length of 9"),
    ("mistral", {"messages": [{**USER, "name": "ada"}]}, "Extra inputs are not permitted"),
    ("mistral", {"messages": [USER, {"role": "assistant", "content": "a"}]},
     "Expected last role User or Tool"),
    ("anthropic", {"messages": [USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "functions.get_weather:0", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result",
                                      "tool_use_id": "functions.get_weather:0"}]}]},
     "should match pattern"),
    ("anthropic", {"messages": [USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "hi"},
                                     {"type": "tool_result", "tool_use_id": "a"}]}]},
     "must come first"),
    ("anthropic", {"messages": [USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "f", "input": {}}]}, USER]},
     "without `tool_result` blocks"),
    ("anthropic", {"messages": [USER, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "from-elsewhere"},
        {"type": "text", "text": "a"}]}, USER]}, "Invalid `signature`"),
    ("anthropic", {"thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [
        USER, {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}]},
     "Expected `thinking` or `redacted_thinking`"),
    ("anthropic", {"messages": [USER, USER]}, "roles must alternate"),
    ("google", {"contents": [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}},
                                    {"functionCall": {"name": "g", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
     "number of function response parts"),
    ("google", {"contents": [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}},
                                    {"functionCall": {"name": "g", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {}}},
                                   {"functionResponse": {"name": "f", "response": {}}}]}]},
     "in order"),
    ("google", {"contents": [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"text": "a", "thoughtSignature": "from-elsewhere"}]}]},
     "Corrupted thought signature"),
    ("google", {"contents": [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
     "comes immediately after a function call turn"),
    ("bedrock", {"toolConfig": {"tools": [{}]}, "messages": [
        USER | {"content": [{"text": "q"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "functions.f:0",
                                                       "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "functions.f:0",
                                                     "content": [{"text": "r"}]}}]}]},
     "regular expression pattern"),
    ("bedrock", {"messages": [{"role": "assistant", "content": [{"text": "hello"}]}]},
     "must start with a user message"),
    ("bedrock", {"messages": [{"role": "user", "content": [{"text": "a"}]},
                              {"role": "user", "content": [{"text": "b"}]}]},
     "must alternate"),
    ("bedrock", {"messages": [
        {"role": "user", "content": [{"text": "q"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a", "name": "f",
                                                       "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "a",
                                                     "content": [{"text": "r"}]}}]}]},
     "toolConfig field must be defined"),
    ("responses", {"input": [{"role": "user", "content": "q"},
                             {"type": "function_call_output", "call_id": "x", "output": "r"}]},
     "No tool call found"),
    ("responses", {"input": [{"role": "user", "content": "q"},
                             {"type": "function_call", "call_id": "x", "name": "f",
                              "arguments": "{}"}]}, "No tool output found"),
    ("responses", {"input": [{"type": "function_call", "call_id": "c" * 65, "name": "f",
                              "arguments": "{}"},
                             {"type": "function_call_output", "call_id": "c" * 65,
                              "output": "r"}]}, "maximum length 64"),
    ("responses", {"input": [{"type": "reasoning", "id": "rs_1", "summary": [],
                              "encrypted_content": "aisuite-like:v1:e30="},
                             {"role": "assistant", "content": "a"}]}, "could not be verified"),
]


@pytest.mark.parametrize("target, body, says", BAD_BODIES,
                         ids=[f"{t}-{n}" for n, (t, _, _) in enumerate(BAD_BODIES)])
def test_the_receiving_side_refuses_what_each_api_refuses(target: str, body: dict[str, Any],
                                                          says: str) -> None:
    args = (body, Issued(), MODELS[target]) if target == "google" else (body, Issued())
    violations = CHECKS[target](*args)
    assert any(says in v for v in violations), violations


def test_the_receiving_side_accepts_what_each_api_accepts() -> None:
    ok = {"openai": {"messages": [USER]}, "mistral": {"messages": [USER]},
          "anthropic": {"messages": [USER]},
          "google": {"contents": [{"role": "user", "parts": [{"text": "q"}]}]},
          "bedrock": {"messages": [{"role": "user", "content": [{"text": "q"}]}]},
          "responses": {"input": [USER]}}
    for target, body in ok.items():
        args = (body, Issued(), MODELS[target]) if target == "google" else (body, Issued())
        assert CHECKS[target](*args) == [], target


def test_a_request_that_breaks_its_apis_rules_gets_that_apis_400(
        server: PortabilityServer) -> None:
    # An Anthropic-native block is sent as the caller wrote it: here with an id the Messages
    # API refuses; the loopback server answers as the API would.
    history = [USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "bad:id", "name": "get_weather", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "bad:id",
                                      "content": "r"}]}]
    with pytest.raises(ai.BadRequestError, match="should match pattern") as info:
        call(server, "anthropic", "sync", lambda _: history,
             tools=[{"type": "function", "function": {"name": "get_weather",
                                                      "parameters": {"type": "object"}}}])
    assert info.value.status_code == 400
    assert len(server.of("anthropic")) == 1


# --- orphans ----------------------------------------------------------------------------------

ORPHANED = [{"role": "user", "content": "Look up Paris and London."},
            {"role": "assistant", "content": None,
             "tool_calls": [_call(cid="call_a"), _call(cid="call_b", city="London")]},
            {"role": "tool", "tool_call_id": "call_b", "content": "rain"},
            {"role": "user", "content": "Never mind."}]
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["sync", "async-stream"])
def test_orphans_error_refuses_a_call_without_result_before_sending(
        server: PortabilityServer, target: str, mode: str) -> None:
    before = copy.deepcopy(ORPHANED)
    with pytest.raises(ai.OrphanToolMessageError, match=r"messages\[1\].*'call_a'") as info:
        call(server, target, mode, lambda _: ORPHANED, tools=WEATHER, orphans="error")
    assert info.value.index == 1 and info.value.tool_call_id == "call_a"
    assert server.requests == [] and ORPHANED == before


@pytest.mark.parametrize("target", TARGETS)
def test_a_result_without_its_call_is_refused_with_its_index(server: PortabilityServer,
                                                             target: str) -> None:
    history = [*ORPHANED[:3], {"role": "tool", "tool_call_id": "call_z", "content": "?"}]
    with pytest.raises(ai.OrphanToolMessageError, match=r"messages\[3\]") as info:
        call(server, target, "sync", lambda _: history, tools=WEATHER)
    assert info.value.index == 3
    assert server.requests == []


def test_orphans_takes_repair_or_error() -> None:
    with ai.Client() as client, pytest.raises(ai.UnsupportedParameterError, match="orphans"):
        client.chat.completions.create(model="test:x", messages=[USER],
                                       orphans="fix")  # type: ignore[arg-type]


# --- a server whose id rule the table cannot know --------------------------------------------

@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_kimi_server_gets_kimis_numbered_ids(server: PortabilityServer, mode: str) -> None:
    # vLLM serving Kimi K2 (its kimi_k2 parser): provider_configs says tool_call_ids="kimi"
    history = produce(server, "hand-odd-ids")
    server.reset()
    server.reply("kimi", Turn(calls=[("get_weather", {"city": "Rome"})]), Turn(text="Done."))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}]
    configs = {"vllm": server.config("kimi")}

    def then(first: Any) -> list[dict[str, Any]]:
        message = first.choices[0].message
        return [*history, message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "warm"}]

    if mode == "sync":
        with ai.Client(configs) as client:
            reply = client.chat.completions.create(model="vllm:kimi-k2", messages=history,
                                                   tools=tools)
            final = client.chat.completions.create(model="vllm:kimi-k2", messages=then(reply),
                                                   tools=tools)
    else:
        async def run() -> Any:
            async with ai.AsyncClient(configs) as client:
                first = await client.chat.completions.create(
                    model="vllm:kimi-k2", messages=history, tools=tools)
                return first, await client.chat.completions.create(
                    model="vllm:kimi-k2", messages=then(first), tools=tools)
        reply, final = asyncio.run(run())
    assert final.choices[0].message.content == "Done."
    seen = server.of("kimi")
    assert [s.violations for s in seen] == [[], []]
    ids = [c["id"] for m in seen[1].body["messages"] for c in m.get("tool_calls") or ()]
    assert ids == [f"functions.get_weather:{n}" for n in range(4)]
    assert reply.choices[0].message.tool_calls[0].id == "functions.get_weather:3"  # Kimi's own


def test_an_unknown_id_rule_is_refused_at_configuration() -> None:
    with pytest.raises(ai.ConfigurationError, match="tool_call_ids"):
        ai.Client({"vllm": {"tool_call_ids": "strict"}}).chat.completions.create(
            model="vllm:m", messages=[USER])


# --- a live tool run moving between families -------------------------------------------------

def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny"


CHAINS = {
    "mistral-first": ["mistral", "anthropic", "google", "bedrock", "responses"],
    "responses-first": ["responses", "bedrock", "google", "anthropic", "mistral"],
    "openai-first": ["openai", "google", "mistral", "bedrock", "anthropic"],
}
CITIES = ["Paris", "London", "Oslo", "Rome"]


def _run(server: PortabilityServer, mode: str, **kwargs: Any) -> ai.ChatCompletionResponse:
    """A tool run on a fresh client of every family (``mode``: sync / async, streamed or
    not; a stream read to its end)."""
    configs = {t: server.config(t) for t in TARGETS}
    providers = {"responses": OpenAIProvider}
    stream = mode.endswith("stream")
    messages = [{"role": "user", "content": "Weather in four cities, one call at a time."}]
    if mode.startswith("sync"):
        with ai.Client(configs, providers=providers, router=kwargs.pop("router", None)) as c:
            result = c.chat.completions.create(messages=messages, stream=stream, **kwargs)
            if not stream:
                return result
            for _ in result:
                pass
            return result.get_final_response()

    async def run() -> ai.ChatCompletionResponse:
        async with ai.AsyncClient(configs, providers=providers,
                                  router=kwargs.pop("router", None)) as c:
            result = await c.chat.completions.create(messages=messages, stream=stream,
                                                     **kwargs)
            if not stream:
                return result
            async for _ in result:
                pass
            return await result.get_final_response()

    return asyncio.run(run())


@pytest.mark.parametrize("chain", sorted(CHAINS))
@pytest.mark.parametrize("mode", MODES)
def test_fallbacks_move_a_live_tool_run_between_families_and_finish_it(
        server: PortabilityServer, chain: str, mode: str) -> None:
    families = CHAINS[chain]
    # Model call n is answered by families[n]: every family before it fails with a 429.
    for n, family in enumerate(families):
        for earlier in families[:n]:
            server.reply(earlier, Fail(429))
        server.reply(family, Turn(text="All four are sunny.") if n == len(families) - 1 else
                     Turn(calls=[("get_weather", {"city": CITIES[n]})],
                          reasoning=f"Now {CITIES[n]}."))
    response = _run(server, mode, model=f"{families[0]}:{MODELS[families[0]]}",
                    fallbacks=[f"{f}:{MODELS[f]}" for f in families[1:]],
                    tools=[get_weather], max_turns=8)
    assert response.choices[0].message.content == "All four are sunny."
    assert response.provider in (families[-1], "openai")  # "responses" is OpenAI's API
    results = [e.result for e in response.tool_events]
    assert results == [f"{city}: sunny" for city in CITIES]
    # model call n went to each family before families[n] (a 429 each), then to it; every
    # request kept its API's rules (a violation is a 400, which no fallback would hide)
    assert [s.target for s in server.requests] == [
        f for n in range(len(families)) for f in families[:n + 1]]
    assert [s.violations for s in server.requests] == [[]] * len(server.requests)
    # the last family got every call of the run, each with its result
    last = server.of(families[-1])[-1].body
    assert str(last).count("sunny") >= len(CITIES)


def test_a_router_moves_a_live_tool_run_to_another_family(server: PortabilityServer) -> None:
    router = ai.Router({"weather": [
        {"model": f"mistral:{MODELS['mistral']}", "weight": 1e9},
        {"model": f"google:{MODELS['google']}", "weight": 1e-9}]})
    server.reply("mistral", Turn(calls=[("get_weather", {"city": "Paris"})]), Fail(429))
    server.reply("google", Turn(calls=[("get_weather", {"city": "London"})], reasoning="r"),
                 Turn(text="Both sunny."))
    response = _run(server, "sync", model="weather", tools=[get_weather], max_turns=5,
                    router=router)
    assert response.choices[0].message.content == "Both sunny."
    assert [e.result for e in response.tool_events] == ["Paris: sunny", "London: sunny"]
    google = server.of("google")
    assert [s.violations for s in google] == [[], []]
    # Gemini received Mistral's call (placeholder signature) and answered it in order
    first_call = google[0].body["contents"][1]["parts"][0]
    assert first_call["functionCall"]["name"] == "get_weather"
    assert first_call["thoughtSignature"] == "skip_thought_signature_validator"


@pytest.mark.parametrize("mode", ["async", "async-stream"])
def test_a_router_moves_an_async_tool_run_too(server: PortabilityServer, mode: str) -> None:
    router = ai.Router({"weather": [
        {"model": f"anthropic:{MODELS['anthropic']}", "weight": 1e9},
        {"model": f"mistral:{MODELS['mistral']}", "weight": 1e-9}]})
    server.reply("anthropic", Turn(calls=[("get_weather", {"city": "Paris"})],
                                   reasoning="Paris first."), Fail(429))
    server.reply("mistral", Turn(calls=[("get_weather", {"city": "Rome"})]),
                 Turn(text="Both sunny."))
    response = _run(server, mode, model="weather", tools=[get_weather], max_turns=5,
                    router=router)
    assert response.choices[0].message.content == "Both sunny."
    mistral = server.of("mistral")
    assert [s.violations for s in mistral] == [[], []]
    # Anthropic's toolu_ id went to Mistral as nine letters and digits, the same both times
    ids = [[c["id"] for m in s.body["messages"] for c in m.get("tool_calls") or ()]
           for s in mistral]
    assert ids[1][0] == ids[0][0] and len(ids[0][0]) == 9


# --- Claude with thinking on, in a turn another family began ---------------------------------

@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
def test_claude_finishes_a_turn_begun_elsewhere_with_thinking_off(
        server: PortabilityServer, target: str) -> None:
    history = produce(server, "openai-parallel")  # OpenAI's calls and their results
    server.reset()
    server.reply(target, Turn(text="Done."))
    reply, = call(server, target, "sync", lambda _: history, reasoning_effort="high",
                  tools=[{"type": "function", "function": {"name": n, "parameters": {
                      "type": "object"}}} for n in ("delete_file", "create_file")])
    assert reply.choices[0].message.content == "Done."
    body = server.of(target)[-1].body
    assert "thinking" not in (body.get("additionalModelRequestFields") or body)


@pytest.mark.parametrize("target, source", [("anthropic", "anthropic-thinking"),
                                            ("bedrock", "bedrock-reasoning")])
def test_claude_keeps_thinking_on_in_its_own_turn(server: PortabilityServer, target: str,
                                                 source: str) -> None:
    history = produce(server, source)
    if history[-1]["role"] == "assistant":  # end on the results: the turn goes on
        history = history[:-1]
    server.reset()
    server.reply(target, Turn(text="Done.", reasoning="All in."))
    reply, = call(server, target, "sync", lambda _: history, reasoning_effort="high",
                  tools=[{"type": "function", "function": {"name": n, "parameters": {
                      "type": "object"}}} for n in ("get_user_country", "get_weather")])
    assert reply.choices[0].message.content == "Done."
    seen = server.of(target)[-1]
    assert not seen.violations  # the checker wants the thinking block first: it is there
    body = seen.body
    assert "thinking" in (body.get("additionalModelRequestFields") or body)


@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
def test_claude_thinks_again_once_a_new_turn_begins(server: PortabilityServer,
                                                    target: str) -> None:
    history = [*produce(server, "openai-parallel"), {"role": "user", "content": "Thanks!"}]
    server.reset()
    server.reply(target, Turn(text="You're welcome.", reasoning="Polite."))
    call(server, target, "sync", lambda _: history, reasoning_effort="high",
         tools=[{"type": "function", "function": {"name": n, "parameters": {
             "type": "object"}}} for n in ("delete_file", "create_file")])
    body = server.of(target)[-1].body
    assert "thinking" in (body.get("additionalModelRequestFields") or body)
