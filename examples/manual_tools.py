"""Manual tool calling: the model asks for tools, YOU run them and send the results back.

Without ``max_turns`` nothing is executed: the response carries ``message.tool_calls``.

    python examples/manual_tools.py
"""

from __future__ import annotations

import json
from typing import Annotated

from _common import pick_model
from pydantic import Field

import aisuite_like as ai


def get_exchange_rate(base: Annotated[str, Field(examples=["EUR"])],
                      quote: Annotated[str, Field(examples=["USD"])]) -> float:
    """Exchange rate between two currencies (ISO codes such as EUR, USD).

    Args:
        base: Currency to convert from.
        quote: Currency to convert to.
    """
    return 1.08 if (base, quote) == ("EUR", "USD") else 1.0


TOOLS = {"get_exchange_rate": get_exchange_rate}


def main() -> None:
    model = pick_model()
    client = ai.Client()
    messages: list = [{"role": "user", "content": "How many US dollars is one euro today?"}]

    response = client.chat.completions.create(model=model, messages=messages,
                                              tools=list(TOOLS.values()))
    message = response.choices[0].message
    print(f"Model asked for {len(message.tool_calls or [])} tool call(s) "
          f"(finish_reason={response.choices[0].finish_reason})")
    if message.tool_calls:
        messages.append(message)  # the assistant message, exactly as returned
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            result = TOOLS[call.function.name](**arguments)
            print(f"  {call.function.name}({call.function.arguments}) -> {result}")
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "name": call.function.name, "content": json.dumps(result)})
        response = client.chat.completions.create(model=model, messages=messages,
                                                  tools=list(TOOLS.values()))
    print(f"Final answer: {response.choices[0].message.content}")


if __name__ == "__main__":
    main()
