"""Structured output: ask for JSON matching a pydantic model and get it validated, with the
OpenAI SDK's ``chat.completions.parse`` (on every provider, through its native mechanism).

    python examples/structured_output.py
"""

from __future__ import annotations

from _common import pick_model
from pydantic import BaseModel

import aisuite_like as ai


class City(BaseModel):
    name: str
    country: str
    population_millions: float
    landmarks: list[str]


def main() -> None:
    model = pick_model()
    client = ai.Client()
    response = client.chat.completions.parse(
        model=model,
        messages=[{"role": "user", "content": "Describe Paris as structured data."}],
        response_format=City,
    )
    message = response.choices[0].message
    if message.parsed is None:  # a refusal: the model said why instead of answering
        raise SystemExit(f"refused: {message.refusal}")
    city = message.parsed
    print(f"Validated {type(city).__name__}: {city.model_dump_json()}")


if __name__ == "__main__":
    main()
