"""Tools from an MCP server: the model uses the tools of ``mcp_server.py`` (started as a
subprocess, once), through the same tool runner as Python functions.

    pip install "aisuite-like[mcp]"
    python examples/mcp_tools.py
"""

from __future__ import annotations

import pathlib
import sys

from _common import pick_model, print_trace

import aisuite_like as ai
from aisuite_like.mcp import MCPServerStdio

SERVER = pathlib.Path(__file__).with_name("mcp_server.py")


def main() -> None:
    model = pick_model()
    notes = MCPServerStdio(sys.executable, [str(SERVER)], name="notes")
    client = ai.Client()
    with notes:  # one server process for the whole block, however many calls and turns
        print("Server tools:", ", ".join(t.name for t in notes.list_tools()))
        response = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "What's tomorrow's forecast for Paris, and "
                                                  "how many words are in 'the quick brown fox'?"}],
            tools=[notes],
            max_turns=5,
        )
        print_trace(response)
        # Manual execution, without the runner: call a tool yourself.
        result = notes.call_tool("word_count", {"text": "one two three"})
        print(f"Manual call: word_count -> {result.content} (is_error={result.is_error})")
    client.close()


if __name__ == "__main__":
    main()
