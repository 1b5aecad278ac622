"""Structured output: ask for JSON matching a pydantic model, then validate it.

    python examples/structured_output.py
"""

from __future__ import annotations

from _common import pick_model
from pydantic import BaseModel, ConfigDict

import aisuite_like as ai


class City(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict schemas need additionalProperties=false

    name: str
    country: str
    population_millions: float
    landmarks: list[str]


def main() -> None:
    model = pick_model()
    client = ai.Client()
    response = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "Describe Paris as structured data."}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "City", "schema": City.model_json_schema(), "strict": True},
        },
    )
    city = City.model_validate_json(response.choices[0].message.content or "")
    print(f"Validated {type(city).__name__}: {city.model_dump_json()}")


if __name__ == "__main__":
    main()
