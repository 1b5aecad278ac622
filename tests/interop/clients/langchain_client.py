"""LangChain's ChatOpenAI (langchain-openai) against an OpenAI-compatible endpoint: the
common rows (tests/interop/test_clients.py). Run in an environment holding langchain-openai;
prints the outcomes as JSON (common.py)."""

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
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI, OpenAIEmbeddings

llm = ChatOpenAI(model=MODEL, base_url=BASE_URL, api_key=API_KEY, max_retries=0, timeout=60)


def chat() -> Any:
    reply = llm.invoke(QUESTION)
    return {"text": reply.content, "finish_reason": reply.response_metadata.get("finish_reason"),
            "usage": dict(reply.usage_metadata or {})}


def stream() -> Any:
    pieces = [chunk.content for chunk in llm.stream(QUESTION)]
    return {"text": "".join(p for p in pieces if isinstance(p, str)),
            "pieces": sum(1 for p in pieces if p)}


def tools() -> Any:
    weather = tool(get_weather)
    with_tools = llm.bind_tools([weather])
    messages: list[Any] = [HumanMessage(WEATHER_QUESTION)]
    first = with_tools.invoke(messages)
    messages.append(first)
    for call in first.tool_calls:
        messages.append(ToolMessage(weather.invoke(call["args"]), tool_call_id=call["id"]))
    second = with_tools.invoke(messages)
    return {"calls": [c["name"] for c in first.tool_calls], "ran": len(TOOL_CALLS),
            "text": second.content}


def parse() -> Any:
    structured = llm.with_structured_output(City, method="json_schema", strict=True)
    city = structured.invoke(CITY_QUESTION)
    return {"type": type(city).__name__, "city": city.model_dump()}


def embeddings() -> Any:
    # check_embedding_ctx_length=False: otherwise LangChain counts tokens with tiktoken, whose
    # encodings it downloads at first use (no network here), before anything is sent
    embedder = OpenAIEmbeddings(model=MODEL, base_url=BASE_URL, api_key=API_KEY,
                                check_embedding_ctx_length=False, max_retries=0)
    vectors = embedder.embed_documents(TEXTS)
    return {"count": len(vectors), "lengths": sorted({len(v) for v in vectors})}


def models() -> Any:
    # LangChain has no call that lists models: ChatOpenAI's own openai client does
    return {"ids": sorted(m.id for m in llm.root_client.models.list())}


def versions() -> Any:
    return {name: importlib.metadata.version(name)
            for name in ("langchain-openai", "langchain-core", "openai")}


run_rows({"chat": chat, "stream": stream, "tools": tools, "parse": parse,
          "embeddings": embeddings, "models": models, "versions": versions})
