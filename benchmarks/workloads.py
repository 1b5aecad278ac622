"""What runs inside one fresh benchmark process: the same work done through ``aisuite_like``
("ours") or through the vendor SDK by hand ("raw"), against the loopback server.

    python benchmarks/workloads.py '<JSON list of tasks>'

prints one ``RESULT {json}`` line per task. A task is ``{"scenario", "family", "side", "base",
"params"}``; ``side`` is ``ours`` / ``raw`` with an optional transport suffix for async clients
(``_aiohttp``; ``_httpx2`` for google-genai, whose own default is aiohttp).
Nothing heavy is imported at module level, so import-time and RSS figures stay honest: each SDK
(or ``aisuite_like``) is imported only by the task that measures it.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

SYSTEM = "You are a helpful assistant. Answer in one short sentence."
USER = "What is the capital of France?"
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
MAX_TOKENS = 1024  # Anthropic requires it; both sides send the same value
MODELS = {"openai": "gpt-bench", "anthropic": "claude-bench", "google": "gemini-bench",
          "bedrock": "bedrock-bench"}
# The prompt_cache rows: Bedrock adds cache points for Claude model ids only.
CACHE_MODELS = {**MODELS, "bedrock": "anthropic.claude-sonnet-4-5-bench"}
AWS = {"region_name": "us-east-1", "aws_access_key_id": "AKIDBENCHEXAMPLE",
       "aws_secret_access_key": "bench-secret-key"}
ASYNC_WORKERS = 32  # threads of the Bedrock async bridge, ours and raw alike
CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SLOW_TOOL_S = 0.1


# ----------------------------------------------------------------------- the user's tools ---

def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 22 C in {city}"


def slow_lookup(city: str) -> str:
    """Looks a city up in a slow service."""
    time.sleep(SLOW_TOOL_S)
    return f"{city}: population 2.1 million"


TOOLS = {"get_weather": get_weather, "slow_lookup": slow_lookup}


def _current_rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


# ---------------------------------------------------------------------- raw SDK drivers ---
# Each driver is what a competent user writes against the vendor SDK: same messages, same
# model, same max_tokens, no retries, results read the idiomatic way.

class _RawOpenAI:
    def __init__(self, base: str) -> None:
        import openai

        self._sdk = openai
        self.base = base + "/v1"

    def client(self) -> Any:
        return self._sdk.OpenAI(api_key="bench-key", base_url=self.base, max_retries=0)

    def async_client(self, transport: str) -> Any:
        http_client = self._sdk.DefaultAioHttpClient() if transport == "aiohttp" else None
        return self._sdk.AsyncOpenAI(api_key="bench-key", base_url=self.base, max_retries=0,
                                     http_client=http_client)

    def call(self, client: Any, model: str) -> Any:
        return client.chat.completions.create(model=model, messages=MESSAGES) \
            .choices[0].message.content

    async def acall(self, client: Any, model: str) -> Any:
        r = await client.chat.completions.create(model=model, messages=MESSAGES)
        return r.choices[0].message.content

    def respond(self, client: Any, model: str) -> Any:
        """The Responses API call (``/v1/responses``)."""
        return client.responses.create(model=model, input=USER,
                                       instructions=SYSTEM).output_text

    def embed(self, client: Any, model: str, texts: Any) -> list[Any]:
        return [d.embedding for d in client.embeddings.create(model=model, input=texts).data]

    def stream(self, client: Any, model: str) -> int:
        n = 0
        for chunk in client.chat.completions.create(
                model=model, messages=MESSAGES, stream=True,
                stream_options={"include_usage": True}):
            if chunk.choices and chunk.choices[0].delta.content:
                n += 1
        return n

    def tool_loop(self, client: Any, model: str, tool: Callable[..., str], max_turns: int,
                  run_round: Callable[[Callable[..., str], list[dict[str, Any]]], list[str]]
                  ) -> int:
        """The hand-written loop; returns the number of tool calls executed."""
        tools = [{"type": "function", "function": {
            "name": tool.__name__, "description": tool.__doc__, "parameters": CITY_SCHEMA}}]
        messages: list[dict[str, Any]] = list(MESSAGES)
        executed = 0
        for _ in range(max_turns):
            msg = client.chat.completions.create(model=model, messages=messages,
                                                 tools=tools).choices[0].message
            if not msg.tool_calls:
                break
            calls = [{"id": tc.id, "type": "function", "function": {
                "name": tc.function.name, "arguments": tc.function.arguments}}
                for tc in msg.tool_calls]
            messages.append({"role": "assistant", "content": msg.content, "tool_calls": calls})
            results = run_round(tool, [json.loads(c["function"]["arguments"]) for c in calls])
            messages += [{"role": "tool", "tool_call_id": c["id"], "content": result}
                         for c, result in zip(calls, results)]
            executed += len(calls)
        return executed


    async def atool_loop(self, client: Any, model: str, tool: Callable[..., str],
                         max_turns: int) -> int:
        """The same hand-written loop on the async SDK client."""
        tools = [{"type": "function", "function": {
            "name": tool.__name__, "description": tool.__doc__, "parameters": CITY_SCHEMA}}]
        messages: list[dict[str, Any]] = list(MESSAGES)
        executed = 0
        for _ in range(max_turns):
            msg = (await client.chat.completions.create(model=model, messages=messages,
                                                        tools=tools)).choices[0].message
            if not msg.tool_calls:
                break
            calls = [{"id": tc.id, "type": "function", "function": {
                "name": tc.function.name, "arguments": tc.function.arguments}}
                for tc in msg.tool_calls]
            messages.append({"role": "assistant", "content": msg.content, "tool_calls": calls})
            messages += [{"role": "tool", "tool_call_id": c["id"],
                          "content": tool(**json.loads(c["function"]["arguments"]))}
                         for c in calls]
            executed += len(calls)
        return executed


class _RawAnthropic:
    def __init__(self, base: str) -> None:
        import anthropic

        self._sdk = anthropic
        self.base = base

    def client(self) -> Any:
        return self._sdk.Anthropic(api_key="bench-key", base_url=self.base, max_retries=0)

    def async_client(self, transport: str) -> Any:
        http_client = self._sdk.DefaultAioHttpClient() if transport == "aiohttp" else None
        return self._sdk.AsyncAnthropic(api_key="bench-key", base_url=self.base,
                                        max_retries=0, http_client=http_client)

    def call(self, client: Any, model: str) -> Any:
        return client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                      messages=MESSAGES[1:]).content[0].text

    async def acall(self, client: Any, model: str) -> Any:
        r = await client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                         messages=MESSAGES[1:])
        return r.content[0].text

    def stream(self, client: Any, model: str) -> int:
        n = 0
        for event in client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                            messages=MESSAGES[1:], stream=True):
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                n += 1
        return n

    def tool_loop(self, client: Any, model: str, tool: Callable[..., str], max_turns: int,
                  run_round: Callable[[Callable[..., str], list[dict[str, Any]]], list[str]]
                  ) -> int:
        tools = [{"name": tool.__name__, "description": tool.__doc__,
                  "input_schema": CITY_SCHEMA}]
        messages: list[Any] = list(MESSAGES[1:])
        executed = 0
        for _ in range(max_turns):
            r = client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                       messages=messages, tools=tools)
            uses = [block for block in r.content if block.type == "tool_use"]
            if not uses:
                break
            messages.append({"role": "assistant", "content": r.content})  # the documented way
            results = run_round(tool, [u.input for u in uses])
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": u.id, "content": result}
                for u, result in zip(uses, results)]})
            executed += len(uses)
        return executed


    async def atool_loop(self, client: Any, model: str, tool: Callable[..., str],
                         max_turns: int) -> int:
        tools = [{"name": tool.__name__, "description": tool.__doc__,
                  "input_schema": CITY_SCHEMA}]
        messages: list[Any] = list(MESSAGES[1:])
        executed = 0
        for _ in range(max_turns):
            r = await client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                             messages=messages, tools=tools)
            uses = [block for block in r.content if block.type == "tool_use"]
            if not uses:
                break
            messages.append({"role": "assistant", "content": r.content})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": u.id, "content": tool(**u.input)}
                for u in uses]})
            executed += len(uses)
        return executed


class _RawGoogle:
    def __init__(self, base: str) -> None:
        from google import genai
        from google.genai import types

        self._genai, self._types = genai, types
        self.base = base

    def _options(self) -> Any:
        # attempts=1: one attempt, as max_retries=0 on the other SDKs.
        return self._types.HttpOptions(base_url=self.base,
                                       retry_options=self._types.HttpRetryOptions(attempts=1))

    def client(self) -> Any:
        return self._genai.Client(api_key="bench-key", http_options=self._options())

    def async_client(self, transport: str) -> Any:
        options = self._options()
        if transport == "httpx2":  # google-genai's own default is aiohttp when installed
            from google.genai import _api_client

            options.httpx_async_client = _api_client.AsyncHttpx2Client(follow_redirects=True)
        return self._genai.Client(api_key="bench-key", http_options=options).aio

    def _config(self, **kwargs: Any) -> Any:
        return self._types.GenerateContentConfig(system_instruction=SYSTEM, **kwargs)

    def call(self, client: Any, model: str) -> Any:
        return client.models.generate_content(model=model, contents=USER,
                                              config=self._config()).text

    async def acall(self, client: Any, model: str) -> Any:
        r = await client.models.generate_content(model=model, contents=USER,
                                                 config=self._config())
        return r.text

    def stream(self, client: Any, model: str) -> int:
        n = 0
        for chunk in client.models.generate_content_stream(model=model, contents=USER,
                                                           config=self._config()):
            if chunk.text:
                n += 1
        return n

    def tool_loop(self, client: Any, model: str, tool: Callable[..., str], max_turns: int,
                  run_round: Callable[[Callable[..., str], list[dict[str, Any]]], list[str]]
                  ) -> int:
        t = self._types
        config = self._config(
            tools=[t.Tool(function_declarations=[t.FunctionDeclaration(
                name=tool.__name__, description=tool.__doc__, parameters_json_schema=CITY_SCHEMA)])],
            automatic_function_calling=t.AutomaticFunctionCallingConfig(disable=True))
        contents: list[Any] = [t.Content(role="user", parts=[t.Part(text=USER)])]
        executed = 0
        for _ in range(max_turns):
            r = client.models.generate_content(model=model, contents=contents, config=config)
            calls = r.function_calls
            if not calls:
                break
            contents.append(r.candidates[0].content)
            results = run_round(tool, [dict(c.args or {}) for c in calls])
            contents.append(t.Content(role="user", parts=[
                t.Part(function_response=t.FunctionResponse(id=c.id, name=c.name,
                                                            response={"result": result}))
                for c, result in zip(calls, results)]))
            executed += len(calls)
        return executed


    async def atool_loop(self, client: Any, model: str, tool: Callable[..., str],
                         max_turns: int) -> int:
        t = self._types
        config = self._config(
            tools=[t.Tool(function_declarations=[t.FunctionDeclaration(
                name=tool.__name__, description=tool.__doc__, parameters_json_schema=CITY_SCHEMA)])],
            automatic_function_calling=t.AutomaticFunctionCallingConfig(disable=True))
        contents: list[Any] = [t.Content(role="user", parts=[t.Part(text=USER)])]
        executed = 0
        for _ in range(max_turns):
            r = await client.models.generate_content(model=model, contents=contents,
                                                     config=config)
            calls = r.function_calls
            if not calls:
                break
            contents.append(r.candidates[0].content)
            contents.append(t.Content(role="user", parts=[
                t.Part(function_response=t.FunctionResponse(
                    id=c.id, name=c.name, response={"result": tool(**dict(c.args or {}))}))
                for c in calls]))
            executed += len(calls)
        return executed


class _RawBedrock:
    """botocore's bedrock-runtime client by hand. botocore is sync-only, so the raw async side
    is what a user would write: the sync call on a thread pool of the same size as ours."""

    def __init__(self, base: str) -> None:
        import botocore.config
        import botocore.session

        self._session = botocore.session.get_session()
        self._config = botocore.config.Config(
            retries={"total_max_attempts": 1, "mode": "standard"},
            max_pool_connections=ASYNC_WORKERS)
        self.base = base
        self._pool: Any = None

    def client(self) -> Any:
        return self._session.create_client("bedrock-runtime", endpoint_url=self.base,
                                           config=self._config, **AWS)

    def async_client(self, transport: str) -> Any:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=ASYNC_WORKERS)
        return self.client()

    def _request(self, model: str) -> dict[str, Any]:
        return {"modelId": model, "system": [{"text": SYSTEM}],
                "messages": [{"role": "user", "content": [{"text": USER}]}]}

    def call(self, client: Any, model: str) -> Any:
        return client.converse(**self._request(model))["output"]["message"]["content"][0]["text"]

    async def acall(self, client: Any, model: str) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.call, client,
                                                                model)

    def stream(self, client: Any, model: str) -> int:
        n = 0
        for event in client.converse_stream(**self._request(model))["stream"]:
            delta = event.get("contentBlockDelta")
            if delta is not None and "text" in delta["delta"]:
                n += 1
        return n

    def tool_loop(self, client: Any, model: str, tool: Callable[..., str], max_turns: int,
                  run_round: Callable[[Callable[..., str], list[dict[str, Any]]], list[str]]
                  ) -> int:
        tools = {"tools": [{"toolSpec": {"name": tool.__name__, "description": tool.__doc__,
                                         "inputSchema": {"json": CITY_SCHEMA}}}]}
        request = self._request(model)
        messages: list[dict[str, Any]] = request["messages"]
        executed = 0
        for _ in range(max_turns):
            r = client.converse(**request, toolConfig=tools)
            message = r["output"]["message"]
            uses = [b["toolUse"] for b in message["content"] if "toolUse" in b]
            if not uses:
                break
            messages.append(message)
            results = run_round(tool, [u["input"] for u in uses])
            messages.append({"role": "user", "content": [
                {"toolResult": {"toolUseId": u["toolUseId"], "content": [{"text": result}]}}
                for u, result in zip(uses, results)]})
            executed += len(uses)
        return executed


class _RawAiohttp:
    """What a competent user writes with aiohttp alone, no SDK: one ``ClientSession`` (its
    default connection pool), the same JSON body the SDK would send, the reply read with
    ``json.loads`` and the text taken out by hand. The floor of an async client in Python."""

    def __init__(self, family: str, base: str, unlimited: bool = False) -> None:
        self.family = family
        self.base = base
        #: no connection limit (``limit=0``): one connection per request in flight, as the
        #: native transport's session; aiohttp's default pool keeps 100 and queues the rest
        self.unlimited = unlimited
        key = "bench-key"
        if family == "openai":
            self.url = base + "/v1/chat/completions"
            self.headers = {"Authorization": f"Bearer {key}"}
        elif family == "anthropic":
            self.url = base + "/v1/messages"
            self.headers = {"Authorization": f"Bearer {key}",
                            "anthropic-version": "2026-10-21"}
        else:
            self.url = base + "/v1beta/models/{model}:generateContent"
            self.headers = {"x-goog-api-key": key}
        self.headers["Content-Type"] = "application/json"

    def async_client(self, transport: str) -> Any:
        import aiohttp

        if self.unlimited:
            return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        return aiohttp.ClientSession()

    def _body(self, model: str) -> bytes:
        if self.family == "openai":
            body: dict[str, Any] = {"model": model, "messages": MESSAGES}
        elif self.family == "anthropic":
            body = {"model": model, "max_tokens": MAX_TOKENS, "system": SYSTEM,
                    "messages": MESSAGES[1:]}
        else:
            body = {"contents": [{"role": "user", "parts": [{"text": USER}]}],
                    "systemInstruction": {"parts": [{"text": SYSTEM}]}}
        return json.dumps(body).encode()

    async def acall(self, client: Any, model: str) -> Any:
        async with client.post(self.url.format(model=model), data=self._body(model),
                               headers=self.headers) as r:
            data = json.loads(await r.read())
        if self.family == "openai":
            return data["choices"][0]["message"]["content"]
        if self.family == "anthropic":
            return data["content"][0]["text"]
        return data["candidates"][0]["content"]["parts"][0]["text"]


_RAW = {"openai": _RawOpenAI, "anthropic": _RawAnthropic, "google": _RawGoogle,
        "bedrock": _RawBedrock}


def _run_each(tool: Callable[..., str], arguments: list[dict[str, Any]]) -> list[str]:
    """A hand-written loop's tool step: call each tool in turn."""
    return [tool(**args) for args in arguments]


def _run_ideal(tool: Callable[..., str], arguments: list[dict[str, Any]]) -> list[str]:
    """The theoretical minimum of a round of slow tools that all run in parallel: one sleep."""
    time.sleep(SLOW_TOOL_S)
    return [f"{args['city']}: population 2.1 million" for args in arguments]


# -------------------------------------------------------------------- aisuite_like driver ---

class _Ours:
    """``routes``: 0 = the plain model; n >= 1 = a router alias ("bench") over n deployments
    of the model (one: the client's own provider; more: each with settings of its own, so
    each has its own provider and connections, as deployments on several endpoints do)."""

    def __init__(self, family: str, base: str, routes: int = 0, native: bool = False
                 ) -> None:
        import aisuite_like

        self._ai = aisuite_like
        self.family = family
        self.routes = routes
        config: dict[str, Any] = {"api_key": "bench-key", "max_retries": 0,
                                  "base_url": base + "/v1" if family == "openai" else base}
        if native:  # transport="native": our own HTTP, no SDK (docs/transports.md)
            config["transport"] = "native"
        if family == "bedrock":
            config = {**AWS, "endpoint_url": base, "max_retries": 0,
                      "max_concurrency": ASYNC_WORKERS}
        self.config = config
        self.kwargs = {"max_tokens": MAX_TOKENS} if family == "anthropic" else {}

    def router(self, config: dict[str, Any]) -> Any:
        if not self.routes:
            return None
        model = f"{self.family}:{MODELS[self.family]}"
        deployments = [{"model": model}] if self.routes == 1 else [
            {"model": model, "name": f"d{i}", **config} for i in range(self.routes)]
        return self._ai.Router({"bench": deployments})

    def client(self, **options: Any) -> Any:
        return self._ai.Client({self.family: self.config}, router=self.router(self.config),
                               **options)

    def async_client(self, transport: str) -> Any:
        config = dict(self.config)
        if transport == "aiohttp":
            config["async_transport"] = "aiohttp"
        elif transport == "native_httpx2":  # the native transport's async calls on httpx2
            config["async_transport"] = "httpx2"
        return self._ai.AsyncClient({self.family: config}, router=self.router(config))

    def _model(self, model: str) -> str:
        return "bench" if self.routes else f"{self.family}:{model}"

    def call(self, client: Any, model: str) -> Any:
        return client.chat.completions.create(model=self._model(model), messages=MESSAGES,
                                              **self.kwargs).choices[0].message.content

    async def acall(self, client: Any, model: str) -> Any:
        r = await client.chat.completions.create(model=self._model(model), messages=MESSAGES,
                                                 **self.kwargs)
        return r.choices[0].message.content

    def respond(self, client: Any, model: str) -> Any:
        kwargs = {"max_output_tokens": MAX_TOKENS} if self.family == "anthropic" else {}
        return client.responses.create(model=self._model(model), input=USER,
                                       instructions=SYSTEM, **kwargs).output_text

    def embed(self, client: Any, model: str, texts: Any) -> list[Any]:
        return [d.embedding for d in client.embeddings.create(model=self._model(model),
                                                              input=texts).data]

    def stream(self, client: Any, model: str) -> int:
        n = 0
        with client.chat.completions.create(model=self._model(model), messages=MESSAGES,
                                            stream=True, **self.kwargs) as stream:
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    n += 1
        return n

    def tool_loop(self, client: Any, model: str, tool: Callable[..., str], max_turns: int,
                  run_round: Any = None) -> int:
        r = client.chat.completions.create(model=self._model(model), messages=MESSAGES,
                                           tools=[tool], max_turns=max_turns, **self.kwargs)
        return sum(1 for e in r.tool_events if not e.is_error)


def _instrument() -> None:
    """``ai.instrument()`` with the OpenTelemetry SDK as an application would set it up: a
    batch span processor (its exporter drops the spans: exporting is not ours to measure) and
    a meter provider aggregating in memory."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    import aisuite_like

    class Drop(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Drop()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    aisuite_like.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)


def _driver(task: dict[str, Any]) -> Any:
    side = task["side"].split("_")[0]
    if task["side"] == "ours_otel":
        _instrument()
    if side == "ours":
        return _Ours(task["family"], task["base"], task["params"].get("routes", 0),
                     native=task["side"] in ("ours_native", "ours_native_httpx2"))
    if task["side"] in ("raw_aio", "raw_aio_unlimited"):  # raw aiohttp, no SDK
        return _RawAiohttp(task["family"], task["base"], task["side"] == "raw_aio_unlimited")
    return _RAW[task["family"]](task["base"])


def _transport(task: dict[str, Any]) -> str:
    """"default", or the transport a side names after "_" ("aiohttp", "httpx2")."""
    return task["side"].partition("_")[2] or "default"


def _close(client: Any) -> None:
    close = getattr(client, "close", None)
    if callable(close):
        close()


async def _aclose(client: Any) -> None:
    for name in ("aclose", "close"):
        method = getattr(client, name, None)
        if callable(method):
            result = method()
            if asyncio.iscoroutine(result):
                await result
            return


# ----------------------------------------------------------------------------- scenarios ---

def sequential(task: dict[str, Any]) -> dict[str, Any]:
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    model = MODELS[task["family"]]
    # the loopback server's answer; another server's (benchmarks/independent.py) is checked
    # only for being text: ``expect_text`` None
    expected = p.get("expect_text", "The capital of France is Paris.")
    for _ in range(p["warmup"]):
        text = driver.call(client, model)
        if (text != expected) if expected is not None else not (isinstance(text, str)
                                                                and text):
            raise AssertionError(f"unexpected reply text: {text!r}"[:300])
    times = []
    perf = time.perf_counter
    for _ in range(p["calls"]):
        t0 = perf()
        driver.call(client, model)
        times.append(perf() - t0)
    _close(client)
    return {"value": statistics.median(times), "unit": "s/call", "calls": len(times)}


def responses(task: dict[str, Any]) -> dict[str, Any]:
    """``client.responses.create`` (ours) against the raw SDK's own call of the family: the
    Responses API on OpenAI, the family's native call elsewhere (ours translates)."""
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    model = MODELS[task["family"]]
    call = driver.call if task["side"] == "raw" and task["family"] != "openai" else \
        driver.respond
    expected = "The capital of France is Paris."
    for _ in range(p["warmup"]):
        if call(client, model) != expected:
            raise AssertionError("unexpected reply text")
    times = []
    perf = time.perf_counter
    for _ in range(p["calls"]):
        t0 = perf()
        call(client, model)
        times.append(perf() - t0)
    _close(client)
    return {"value": statistics.median(times), "unit": "s/call", "calls": len(times)}


EMBEDDING_MODEL = "text-embedding-bench"  # 256 floats per vector (the server's default)


def embeddings(task: dict[str, Any]) -> dict[str, Any]:
    """``embeddings.create`` (OpenAI wire): ``inputs`` texts per call (1: a single string),
    median seconds per call; both sides get the vectors as lists of floats (the SDK asks for
    base64 and decodes it; so does aisuite_like, splitting a list over 2,048 inputs into
    requests sent concurrently)."""
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    texts: Any = [f"text number {i}" for i in range(p["inputs"])]
    if p["inputs"] == 1:
        texts = texts[0]
    for _ in range(p["warmup"]):
        vectors = driver.embed(client, EMBEDDING_MODEL, texts)
        if len(vectors) != p["inputs"] or len(vectors[0]) != 256:
            raise AssertionError("unexpected embeddings reply")
    times = []
    perf = time.perf_counter
    for _ in range(p["calls"]):
        t0 = perf()
        driver.embed(client, EMBEDDING_MODEL, texts)
        times.append(perf() - t0)
    _close(client)
    return {"value": statistics.median(times), "unit": "s/call", "calls": len(times)}


def async_throughput(task: dict[str, Any]) -> dict[str, Any]:
    p = task["params"]
    driver = _driver(task)
    model = MODELS[task["family"]]

    async def main() -> float:
        client = driver.async_client(_transport(task))
        concurrency = p["concurrency"]

        async def worker(n: int) -> None:
            for _ in range(n):
                await driver.acall(client, model)

        try:
            await asyncio.gather(*(worker(p["warmup"] // concurrency or 1)
                                   for _ in range(concurrency)))
            t0, cpu0 = time.perf_counter(), time.process_time()
            per_worker, extra = divmod(p["requests"], concurrency)
            await asyncio.gather(*(worker(per_worker + (i < extra)) for i in range(concurrency)))
            cpu.append(time.process_time() - cpu0)
            return p["requests"] / (time.perf_counter() - t0)
        finally:
            await _aclose(client)

    cpu: list[float] = []
    rps = asyncio.run(main())
    # this process's CPU per request: unlike req/s, barely moved by other processes' load
    return {"value": rps, "unit": "req/s", "transport": _transport(task),
            "cpu_us_per_request": cpu[0] / p["requests"] * 1e6}


def streaming(task: dict[str, Any]) -> dict[str, Any]:
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    chunks = p["chunks"]
    model = f"{MODELS[task['family']]}-chunks{chunks}"
    for _ in range(p["warmup"]):
        if driver.stream(client, model) != chunks:
            raise AssertionError(f"stream did not deliver {chunks} content chunks")
    per_chunk = []
    for _ in range(p["streams"]):
        t0 = time.perf_counter()
        n = driver.stream(client, model)
        per_chunk.append((time.perf_counter() - t0) / n)
    _close(client)
    return {"value": statistics.median(per_chunk), "unit": "s/chunk"}


def tool_loop(task: dict[str, Any]) -> dict[str, Any]:
    """(a) slow tools: 2 rounds x N slow calls, max_turns=2; the raw side is the theoretical
    minimum (2 model calls + one 100 ms sleep per round). (b) one instant tool, 2 tool rounds
    then a text answer (max_turns=3); the raw side is a hand-written loop."""
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    slow = p["variant"] == "a"
    tool = slow_lookup if slow else get_weather
    max_turns = 2 if slow else 3
    model = f"{MODELS[task['family']]}-tools{p['tools']}-rounds2"
    run_round = _run_ideal if slow else _run_each
    expected = 2 * p["tools"]
    for _ in range(p["warmup"]):
        got = driver.tool_loop(client, model, tool, max_turns, run_round)
        if got != expected:
            raise AssertionError(f"tool loop executed {got} tool calls, expected {expected}")
    times = []
    for _ in range(p["runs"]):
        t0 = time.perf_counter()
        driver.tool_loop(client, model, tool, max_turns, run_round)
        times.append(time.perf_counter() - t0)
    _close(client)
    return {"value": statistics.median(times), "unit": "s/run"}


def acreate_loop(task: dict[str, Any]) -> dict[str, Any]:
    """(c) ``acreate(..., max_turns=2)`` of the sync ``Client`` with an instant sync tool,
    each run awaited on one event loop (ours), against the hand-written sync loop of the raw
    SDK (raw): both make 2 model calls and run 2 tool calls."""
    p = task["params"]
    driver = _driver(task)
    client = driver.client()
    model = f"{MODELS[task['family']]}-tools1-rounds2"
    if task["side"] == "raw_async":  # the hand-written loop on the async SDK client

        async def raw_main() -> list[float]:
            aclient = driver.async_client("default")
            try:
                for _ in range(p["warmup"]):
                    if await driver.atool_loop(aclient, model, get_weather, 2) != 2:
                        raise AssertionError("expected 2 tool calls")
                times = []
                for _ in range(p["runs"]):
                    t0 = time.perf_counter()
                    await driver.atool_loop(aclient, model, get_weather, 2)
                    times.append(time.perf_counter() - t0)
                return times
            finally:
                await _aclose(aclient)

        times = asyncio.run(raw_main())
        _close(client)
        return {"value": statistics.median(times), "unit": "s/run"}
    if task["side"].startswith("raw"):
        for _ in range(p["warmup"]):
            driver.tool_loop(client, model, get_weather, 2, _run_each)
        times = []
        for _ in range(p["runs"]):
            t0 = time.perf_counter()
            driver.tool_loop(client, model, get_weather, 2, _run_each)
            times.append(time.perf_counter() - t0)
        _close(client)
        return {"value": statistics.median(times), "unit": "s/run"}

    async def main() -> list[float]:
        kwargs = {"model": f"{task['family']}:{model}", "messages": MESSAGES,
                  "tools": [get_weather], "max_turns": 2, **driver.kwargs}
        for _ in range(p["warmup"]):
            r = await client.chat.completions.acreate(**kwargs)
            if sum(1 for e in r.tool_events if not e.is_error) != 2:
                raise AssertionError(f"expected 2 tool calls: {r.tool_events}")
        times = []
        for _ in range(p["runs"]):
            t0 = time.perf_counter()
            await client.chat.completions.acreate(**kwargs)
            times.append(time.perf_counter() - t0)
        return times

    times = asyncio.run(main())
    _close(client)
    return {"value": statistics.median(times), "unit": "s/run"}


def inflight_memory(task: dict[str, Any]) -> dict[str, Any]:
    """Memory per in-flight request: ``n`` requests started at once against a reply delayed
    by ``lat`` ms (all in flight together), after 20 warm-up calls one at a time (imports,
    caches and the client exist); the peak RSS over the current RSS before the round, per
    request (connections, buffers, tasks and replies of the round included)."""
    p = task["params"]
    driver = _driver(task)
    model = f"{MODELS[task['family']]}-lat{p['lat']}"

    async def main() -> float:
        client = driver.async_client(_transport(task))
        try:
            for _ in range(20):
                await driver.acall(client, MODELS[task["family"]])
            before = _current_rss_mib()
            await asyncio.gather(*(driver.acall(client, model) for _ in range(p["n"])))
            return _rss_mib() - before
        finally:
            await _aclose(client)

    import gc

    gc.collect()
    grown = asyncio.run(main())
    return {"value": grown * 1024.0 / p["n"], "unit": "KiB/request"}


def rss(task: dict[str, Any]) -> dict[str, Any]:
    before = _rss_mib()
    driver = _driver(task)  # imports aisuite_like, or the vendor SDK
    after_import = _rss_mib()
    client = driver.client()
    driver.call(client, MODELS[task["family"]])
    after_call = _rss_mib()
    loaded = sorted(m for m in ("openai", "anthropic", "google.genai", "botocore")
                    if m in sys.modules)
    return {"value": after_call, "unit": "MiB", "after_import": after_import,
            "interpreter": before, "sdks_loaded": loaded}


# ------------------------------------------------------------------------------ MCP ---
# The MCP server is the project's own test server (tests/mcp_servers/toolbox.py, a stdio
# subprocess); the model is a scripted provider, so the figures are the tools' cost alone.

TOOLBOX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                       "mcp_servers", "toolbox.py")


def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


def _scripted_client(calls: int, name: str) -> Any:
    import aisuite_like as ai
    from aisuite_like.testing import ScriptedProvider, tool_call

    replies = [tool_call(name, {"text": f"call {i}"}) for i in range(calls)] + ["done"]
    return ai.Client(providers={"scripted": ScriptedProvider(replies)})


def _mcp_run(server_or_fn: Any, calls: int, name: str) -> float:
    client = _scripted_client(calls, name)
    t0 = time.perf_counter()
    resp = client.chat.completions.create(model="scripted:x", messages=MESSAGES,
                                          tools=[server_or_fn], max_turns=calls + 1)
    elapsed = time.perf_counter() - t0
    if len(resp.tool_events) != calls or any(e.is_error for e in resp.tool_events):
        raise AssertionError(f"expected {calls} successful tool calls: {resp.tool_events}")
    return elapsed


def _echo_in_a_fresh_process(text: str) -> str:
    """aisuite's way: start the server, handshake, call, stop, for every call."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def once() -> str:
        params = StdioServerParameters(command=sys.executable, args=[TOOLBOX])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            result = await s.call_tool("echo", {"text": text})
            return result.content[0].text

    return asyncio.run(once())


def mcp(task: dict[str, Any]) -> dict[str, Any]:
    """``per_call``: one tool call per run (median over runs): MCP stdio over a kept
    connection (ours) vs the same function in process (raw). ``ten_calls``: a run of 10
    sequential tool calls, the server started once and closed at the end (ours) vs a server
    process started for every call (raw)."""
    from aisuite_like.mcp import MCPServerStdio

    p = task["params"]
    ours = task["side"] == "ours"
    if p["variant"] == "per_call":
        server = MCPServerStdio(sys.executable, [TOOLBOX], allowed_tools=["echo"]) if ours \
            else None
        target = server if ours else echo
        for _ in range(p["warmup"]):
            _mcp_run(target, 1, "echo")
        times = [_mcp_run(target, 1, "echo") for _ in range(p["runs"])]
        if server is not None:
            server.close()
        return {"value": statistics.median(times), "unit": "s/run"}
    times = []
    for _ in range(p["runs"]):
        if ours:
            t0 = time.perf_counter()
            server = MCPServerStdio(sys.executable, [TOOLBOX], allowed_tools=["echo"])
            _mcp_run(server, 10, "echo")
            server.close()
            times.append(time.perf_counter() - t0)
        else:
            import aisuite_like as ai

            fresh = ai.Tool(_echo_in_a_fresh_process, name="echo")
            times.append(_mcp_run(fresh, 10, "echo"))
    return {"value": statistics.median(times), "unit": "s/run"}


# ------------------------------------------------------------------- prompt_cache="auto" ---

def _turn_three() -> list[dict[str, Any]]:
    """The history of the third model call of a tool run: system, user, and two rounds of an
    assistant tool call and its result."""
    history = list(MESSAGES)
    for n in (1, 2):
        history += [{"role": "assistant", "content": None, "tool_calls": [
                        {"id": f"call_{n}", "type": "function", "function": {
                            "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
                    {"role": "tool", "tool_call_id": f"call_{n}", "content": "Sunny, 21C"}]
    return history


def translate(task: dict[str, Any]) -> dict[str, Any]:
    """The family's request translation (pure: ``ChatRequest`` -> what the SDK is given) of the
    third call of a tool run, with ``prompt_cache="auto"`` (side ``ours_cache``) or without:
    the work ``"auto"`` adds to a call is the difference. The time of the fastest batch."""
    import inspect

    from aisuite_like.providers.base import ChatRequest

    p = task["params"]
    family = task["family"]
    request = ChatRequest(
        model=CACHE_MODELS[family], messages=_turn_three(),
        tools=[{"type": "function", "function": {"name": "get_weather",
                                                 "description": get_weather.__doc__,
                                                 "parameters": CITY_SCHEMA}}],
        max_tokens=MAX_TOKENS, prompt_cache="auto" if task["side"] == "ours_cache" else None)
    build: Callable[[ChatRequest], Any]
    if family == "openai":
        from openai.resources.chat.completions import Completions

        from aisuite_like.providers.openai.services import SERVICES
        from aisuite_like.providers.openai.translate import build_request as openai_build

        params = frozenset(inspect.signature(Completions.create).parameters)
        spec = SERVICES["openai"]

        def build(r: ChatRequest) -> Any:
            return openai_build(r, spec, params)
    elif family == "anthropic":
        from aisuite_like.providers.anthropic.translate import build_request as build
    elif family == "google":
        from aisuite_like.providers.google.translate import build_request as build
    else:
        from aisuite_like.providers.bedrock.translate import build_request as build
    batch = p["batch"]
    for _ in range(p["warmup"]):
        build(request)
    times = []
    perf = time.perf_counter
    for _ in range(p["batches"]):
        t0 = perf()
        for _ in range(batch):
            build(request)
        times.append((perf() - t0) / batch)
    # The fastest batch: a few microseconds of pure CPU work, which the load of a shared
    # machine only ever slows down.
    return {"value": min(times), "unit": "s/call"}



# -------------------------------------------------------------------- the response cache ---

def cache(task: dict[str, Any]) -> dict[str, Any]:
    """Sequential calls through ``Client(cache=MemoryCache())``. ``side``: ``hit`` (the warm-up
    stores the reply; every timed call is answered by the cache), ``miss`` (every call a new
    conversation: looked up, sent, stored) or ``off`` (no cache). ``unique``: every call a new
    conversation (the miss row's two sides), else the same one."""
    p = task["params"]
    if p.get("variant") == "memory":
        return cache_memory(task)
    from aisuite_like.cache import MemoryCache

    driver = _Ours(task["family"], task["base"])
    side = task["side"]
    client = driver.client(cache=MemoryCache(maxsize=100_000)) if side != "off" \
        else driver.client()
    model = driver._model(MODELS[task["family"]])
    expected = "The capital of France is Paris."

    def call(i: int) -> Any:
        messages = MESSAGES if not p["unique"] else \
            [MESSAGES[0], {"role": "user", "content": f"{USER} (#{i})"}]
        return client.chat.completions.create(model=model, messages=messages,
                                              **driver.kwargs)

    for i in range(p["warmup"]):
        if call(-1 - i).content != expected:
            raise AssertionError("unexpected reply text")
    times = []
    perf = time.perf_counter
    for i in range(p["calls"]):
        t0 = perf()
        response = call(i)
        times.append(perf() - t0)
    if response.cache_hit != (side == "hit"):
        raise AssertionError(f"side {side}: cache_hit is {response.cache_hit}")
    _close(client)
    return {"value": statistics.median(times), "unit": "s/call", "calls": len(times)}


def cache_memory(task: dict[str, Any]) -> dict[str, Any]:
    """Memory of ``entries`` entries in a ``MemoryCache`` (tracemalloc: keys, values and the
    LRU bookkeeping), each the stored form of a real reply of the loopback server with its own
    id, under the key of its own request; against the bytes of the stored JSON alone."""
    import gc
    import tracemalloc

    from aisuite_like.cache import MemoryCache, request_key
    from aisuite_like.providers.base import ChatRequest

    p = task["params"]
    driver = _Ours(task["family"], task["base"])
    probe = MemoryCache()
    client = driver.client(cache=probe)
    client.chat.completions.create(model=driver._model(MODELS[task["family"]]),
                                   messages=MESSAGES, **driver.kwargs)
    _close(client)
    (stored,) = [value for value, _ in probe._entries.values()]
    reply_id = json.loads(stored)["id"]
    payload = 0
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache = MemoryCache(maxsize=p["entries"])
    for i in range(p["entries"]):  # each key and value made here, held by the cache alone
        key = request_key(task["family"], ChatRequest(model="m", messages=[
            MESSAGES[0], {"role": "user", "content": f"{USER} (#{i})"}]))
        value = stored.replace(reply_id.encode(), f"{reply_id}-{i:08d}".encode())
        payload += len(value)
        cache.set(key, value, None)
    del key, value
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    if len(cache) != p["entries"]:
        raise AssertionError("entries were dropped")
    return {"value": held, "payload": payload, "unit": "bytes", "entries": p["entries"],
            "bytes_per_entry": held / p["entries"]}


def router_overhead(task: dict[str, Any]) -> dict[str, Any]:
    """A router alias over one deployment against the plain model, on one client (the same
    provider and connections), calls interleaved so drift hits both alike: the median time
    per call of each (``routed``, ``plain``)."""
    p = task["params"]
    driver = _Ours(task["family"], task["base"], routes=1)
    client = driver.client()
    model = MODELS[task["family"]]
    plain_model = f"{task['family']}:{model}"
    expected = "The capital of France is Paris."

    def call(name: str) -> float:
        t0 = time.perf_counter()
        text = client.chat.completions.create(model=name, messages=MESSAGES,
                                              **driver.kwargs).choices[0].message.content
        elapsed = time.perf_counter() - t0
        if text != expected:
            raise AssertionError("unexpected reply text")
        return elapsed

    for _ in range(p["warmup"]):
        call("bench")
        call(plain_model)
    routed, plain = [], []
    for i in range(p["calls"]):
        if i % 2:
            routed.append(call("bench"))
            plain.append(call(plain_model))
        else:
            plain.append(call(plain_model))
            routed.append(call("bench"))
    _close(client)
    return {"routed": statistics.median(routed), "plain": statistics.median(plain),
            "value": statistics.median(routed), "unit": "s/call"}


#: Models the snapshot knows (docs/models.md), so their calls have the checks layer; the
#: loopback server answers any model name alike.
KNOWN_MODELS = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5",
                "google": "gemini-2.5-flash",
                "bedrock": "anthropic.claude-sonnet-4-5-20250929-v1:0"}


def checks_overhead(task: dict[str, Any]) -> dict[str, Any]:
    """The checks before sending (docs/models.md) on a model the snapshot knows, against the
    same call with ``checks="off"``, on one client, interleaved: the median time per call of
    each (``checked``, ``unchecked``)."""
    p = task["params"]
    driver = _Ours(task["family"], task["base"])
    client = driver.client()
    model = f"{task['family']}:{KNOWN_MODELS[task['family']]}"
    expected = "The capital of France is Paris."

    def call(checks: str) -> float:
        t0 = time.perf_counter()
        text = client.chat.completions.create(model=model, messages=MESSAGES, checks=checks,
                                              **driver.kwargs).choices[0].message.content
        elapsed = time.perf_counter() - t0
        if text != expected:
            raise AssertionError("unexpected reply text")
        return elapsed

    for _ in range(p["warmup"]):
        call("on")
        call("off")
    checked, unchecked = [], []
    for i in range(p["calls"]):
        if i % 2:
            checked.append(call("on"))
            unchecked.append(call("off"))
        else:
            unchecked.append(call("off"))
            checked.append(call("on"))
    _close(client)
    return {"checked": statistics.median(checked), "unchecked": statistics.median(unchecked),
            "value": statistics.median(checked), "unit": "s/call"}


SCENARIOS = {"sequential": sequential, "responses": responses,
             "async": async_throughput, "streaming": streaming,
             "tool_loop": tool_loop, "rss": rss, "mcp": mcp, "cache": cache,
             "translate": translate, "embeddings": embeddings,
             "acreate_loop": acreate_loop, "inflight": inflight_memory,
             "router": router_overhead, "checks": checks_overhead}


def main(argv: list[str]) -> int:
    tasks = json.loads(argv[1])
    failed = 0
    for task in tasks:
        try:
            result = SCENARIOS[task["scenario"]](task)
        except BaseException as exc:  # reported, not raised: the next task still runs
            failed += 1
            result = {"error": f"{type(exc).__name__}: {exc}",
                      "traceback": traceback.format_exc(limit=6)[-3000:]}
        print("RESULT " + json.dumps({"id": task.get("id"), **result}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
