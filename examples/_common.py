"""Shared by the examples: pick a model from the environment, and print a run's trace.

A real provider is used when its key is set (first match wins); otherwise the offline,
deterministic ``test`` model, so every example runs with no key and no network.
Set ``EXAMPLE_MODEL=provider:model`` to choose explicitly (e.g. ``groq:llama-3.3-70b-versatile``).
"""

from __future__ import annotations

import os
from typing import Any

# (key variable, model, provider name), in order of preference.
_CANDIDATES = (
    ("OPENAI_API_KEY", "openai:gpt-4o-mini", "OpenAI"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-haiku-4-5", "Anthropic"),
    ("GEMINI_API_KEY", "google:gemini-2.5-flash", "Gemini"),
    ("GOOGLE_API_KEY", "google:gemini-2.5-flash", "Gemini"),
)

OFFLINE_MODEL = "test:offline"


def pick_model() -> str:
    """The model to use, announced on the first line of output."""
    chosen = os.environ.get("EXAMPLE_MODEL")
    if chosen:
        print(f"Using {chosen} (from EXAMPLE_MODEL)")
        return chosen
    for variable, model, name in _CANDIDATES:
        if os.environ.get(variable):
            print(f"Using {model} ({variable} is set; {name})")
            return model
    print(f"Using {OFFLINE_MODEL} (no API key found; set OPENAI_API_KEY to use OpenAI, "
          "ANTHROPIC_API_KEY for Anthropic or GEMINI_API_KEY for Gemini)")
    return OFFLINE_MODEL


def _short(text: Any, limit: int = 200) -> str:
    text = str(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def print_trace(response: Any) -> None:
    """Every tool call of a runner response (arguments and result), then the final answer."""
    import json

    calls = len(response.intermediate_responses) + 1
    print(f"Trace ({calls} model call(s), {len(response.tool_events)} tool call(s)):")
    for event in response.tool_events:
        args = event.arguments if isinstance(event.arguments, str) else json.dumps(
            event.arguments, ensure_ascii=False)
        turn = f"turn {event.turn}: " if event.turn is not None else ""
        status = "error" if event.is_error else "ok"
        print(f"  {turn}{event.name}({args}) -> {_short(event.result)} [{status}, "
              f"{event.duration_s * 1000:.1f} ms]")
    usage = response.usage
    tokens = f", {usage.total_tokens} tokens" if usage is not None else ""
    print(f"Final answer (stop_reason={response.stop_reason}{tokens}):")
    print(f"  {response.choices[0].message.content}")
