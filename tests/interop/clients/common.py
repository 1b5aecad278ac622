"""What every Python client script here shares: the questions, the tool, and how a row's
outcome is printed (one JSON object on stdout: row -> {"ok": ..., "value" or "error"}).

The scripts are what a user of each library writes against OpenAI; only the base URL and
the key differ, read from ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` as each library's own
default would. The model is the gateway's alias in ``INTEROP_MODEL``. This file runs in the
client's own environment (no aisuite_like there), so it imports only the standard library
and pydantic (every client here depends on it).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

BASE_URL = os.environ["OPENAI_BASE_URL"]
API_KEY = os.environ["OPENAI_API_KEY"]
MODEL = os.environ.get("INTEROP_MODEL", "fast")
QUESTION = "Say hello."
WEATHER_QUESTION = "What is the weather in Paris?"
CITY_QUESTION = "Name a city and its population."
TEXTS = ["first text", "second text"]

#: the cities the tool was called with, in order (a row reports how often it ran)
TOOL_CALLS: list[str] = []


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    TOOL_CALLS.append(city)
    return f"sunny in {city}"


class City(BaseModel):
    name: str
    population: int


def run_rows(rows: dict[str, Callable[[], Any]]) -> None:
    """Run each row; one failing row never hides the others. Prints the outcomes as JSON.
    A row that is a coroutine function runs on one event loop shared by every such row (an
    async client's connections belong to the loop that opened them)."""
    outcomes: dict[str, Any] = {}
    loop = asyncio.new_event_loop()
    for name, row in rows.items():
        TOOL_CALLS.clear()
        try:
            value = row()
            if asyncio.iscoroutine(value):
                value = loop.run_until_complete(value)
            outcomes[name] = {"ok": True, "value": value}
        except Exception as exc:  # the test reads the type and the message
            outcomes[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000],
                              "trace": traceback.format_exc()[-3000:]}
    json.dump(outcomes, sys.stdout)
    sys.stdout.write("\n")
