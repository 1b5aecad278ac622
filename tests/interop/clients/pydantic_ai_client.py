"""pydantic-ai's OpenAIProvider (pydantic-ai-slim[openai]) against an OpenAI-compatible
endpoint, with its OpenAIChatModel: the common rows (tests/interop/test_clients.py), each
awaited on one event loop (the provider's async client belongs to it). Prints the outcomes
as JSON (common.py)."""

from __future__ import annotations

import importlib.metadata
from typing import Any

from common import (
    API_KEY,
    BASE_URL,
    CITY_QUESTION,
    MODEL,
    QUESTION,
    TEXTS,
    TOOL_CALLS,
    WEATHER_QUESTION,
    City,
    get_weather,
    run_rows,
)
from pydantic_ai import Agent, Embedder, NativeOutput
from pydantic_ai.embeddings.openai import OpenAIEmbeddingModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

provider = OpenAIProvider(base_url=BASE_URL, api_key=API_KEY)
model = OpenAIChatModel(MODEL, provider=provider)


async def chat() -> Any:
    result = await Agent(model).run(QUESTION)
    usage = result.usage
    return {"text": result.output, "usage": {"input_tokens": usage.input_tokens,
                                             "output_tokens": usage.output_tokens}}


async def stream() -> Any:
    pieces = []
    async with Agent(model).run_stream(QUESTION) as result:
        async for piece in result.stream_text(delta=True, debounce_by=None):
            pieces.append(piece)
    return {"text": "".join(pieces), "pieces": sum(1 for p in pieces if p)}


async def tools() -> Any:
    agent = Agent(model, tools=[get_weather])
    result = await agent.run(WEATHER_QUESTION)
    calls = [part.tool_name for message in result.all_messages() for part in message.parts
             if part.part_kind == "tool-call"]
    return {"calls": calls, "ran": len(TOOL_CALLS), "text": result.output}


async def parse() -> Any:
    # NativeOutput: the JSON schema as response_format (the model's structured output)
    city = (await Agent(model, output_type=NativeOutput(City)).run(CITY_QUESTION)).output
    return {"type": type(city).__name__, "city": city.model_dump()}


async def parse_tool_output() -> Any:
    # pydantic-ai's default for a structured output: a final_result tool the model calls
    city = (await Agent(model, output_type=City).run(CITY_QUESTION)).output
    return {"type": type(city).__name__, "city": city.model_dump()}


async def embeddings() -> Any:
    embedder = Embedder(OpenAIEmbeddingModel(MODEL, provider=provider))
    result = await embedder.embed_documents(TEXTS)
    vectors = result.embeddings
    return {"count": len(vectors), "lengths": sorted({len(v) for v in vectors})}


def versions() -> Any:
    return {name: importlib.metadata.version(name) for name in ("pydantic-ai-slim", "openai")}


# pydantic-ai has no call that lists a provider's models
run_rows({"chat": chat, "stream": stream, "tools": tools, "parse": parse,
          "parse_tool_output": parse_tool_output, "embeddings": embeddings,
          "versions": versions})
