"""The OpenAI Agents SDK (openai-agents) against an OpenAI-compatible endpoint, with its
chat-completions model and its Responses model (``INTEROP_AGENTS_MODEL``: ``chat`` or
``responses``): the common rows (tests/interop/test_clients.py), each awaited on one event
loop (the async client's connections belong to it). Prints the outcomes as JSON (common.py)."""

from __future__ import annotations

import importlib.metadata
import os
from typing import Any

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from common import (
    API_KEY,
    BASE_URL,
    CITY_QUESTION,
    MODEL,
    QUESTION,
    TOOL_CALLS,
    WEATHER_QUESTION,
    City,
    get_weather,
    run_rows,
)
from openai import AsyncOpenAI
from openai.types.responses import ResponseTextDeltaEvent

# the SDK's traces go to OpenAI's platform by default: nothing to send them to here
set_tracing_disabled(True)
client = AsyncOpenAI(base_url=BASE_URL, api_key=API_KEY, max_retries=0, timeout=60)
KIND = os.environ.get("INTEROP_AGENTS_MODEL", "chat")
model: Any = (OpenAIChatCompletionsModel(model=MODEL, openai_client=client) if KIND == "chat"
              else OpenAIResponsesModel(model=MODEL, openai_client=client))


async def chat() -> Any:
    agent = Agent(name="assistant", instructions="Answer briefly.", model=model)
    result = await Runner.run(agent, QUESTION)
    usage = result.context_wrapper.usage
    return {"text": result.final_output, "usage": {"input_tokens": usage.input_tokens,
                                                    "output_tokens": usage.output_tokens}}


async def stream() -> Any:
    agent = Agent(name="assistant", instructions="Answer briefly.", model=model)
    result = Runner.run_streamed(agent, QUESTION)
    pieces = []
    async for event in result.stream_events():
        if event.type == "raw_response_event" and isinstance(event.data, ResponseTextDeltaEvent):
            pieces.append(event.data.delta)
    return {"text": "".join(pieces), "pieces": sum(1 for p in pieces if p)}


async def tools() -> Any:
    agent = Agent(name="assistant", instructions="Use the tools.", model=model,
                  tools=[function_tool(get_weather)])
    result = await Runner.run(agent, WEATHER_QUESTION, max_turns=4)
    calls = [item.raw_item.name for item in result.new_items if item.type == "tool_call_item"]
    return {"calls": calls, "ran": len(TOOL_CALLS), "text": result.final_output}


async def parse() -> Any:
    agent = Agent(name="assistant", instructions="Answer in JSON.", model=model,
                  output_type=City)
    city = (await Runner.run(agent, CITY_QUESTION)).final_output
    return {"type": type(city).__name__, "city": city.model_dump()}


def versions() -> Any:
    return {name: importlib.metadata.version(name) for name in ("openai-agents", "openai")}


# The Agents SDK has no embeddings or model-listing call (its models are only ever run)
run_rows({"chat": chat, "stream": stream, "tools": tools, "parse": parse,
          "versions": versions})
