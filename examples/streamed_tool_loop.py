"""A streamed tool loop: every model turn streams; tools run between turns.

    python examples/streamed_tool_loop.py
"""

from __future__ import annotations

from typing import Annotated

from _common import pick_model, print_trace
from pydantic import Field

import aisuite_like as ai


def search_docs(query: Annotated[str, Field(examples=["streaming"])]) -> str:
    """Search the project documentation.

    Args:
        query: What to look for.
    """
    return f"docs/tool-runner.md: streaming runs stream every model turn ({query!r})"


def main() -> None:
    model = pick_model()
    client = ai.Client()
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "Search the docs: how does streaming work?"}],
        tools=[search_docs],
        max_turns=3,
        stream=True,
    )
    with stream:
        turn = None
        for chunk in stream:
            if chunk.turn != turn:
                turn = chunk.turn
                print(f"\n[turn {turn}] ", end="")
            for choice in chunk.choices:
                if choice.delta.content:
                    print(choice.delta.content, end="", flush=True)
                for call in choice.delta.tool_calls or ():
                    if call.function and call.function.name:
                        print(f"<calls {call.function.name}> ", end="", flush=True)
        print()
        print_trace(stream.get_final_response())


if __name__ == "__main__":
    main()
