"""Quick start: one plain chat completion.

    python examples/quickstart.py
"""

from __future__ import annotations

from _common import pick_model

import aisuite_like as ai


def main() -> None:
    model = pick_model()
    client = ai.Client()  # keys come from the environment (OPENAI_API_KEY, ...)
    response = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": "You answer in one short sentence."},
            {"role": "user", "content": "What is the capital of France?"},
        ],
        max_tokens=100,
    )
    print(f"Answer: {response.choices[0].message.content}")
    print(f"finish_reason={response.choices[0].finish_reason} "
          f"tokens={response.usage.total_tokens if response.usage else '?'}")


if __name__ == "__main__":
    main()
