"""The automatic tool loop: ``max_turns`` makes the client run the tools for the model.

`make demo` runs this file. It prints every tool call (arguments, result) and the answer.

    python examples/tool_loop.py
"""

from __future__ import annotations

from typing import Annotated, Literal

from _common import pick_model, print_trace
from pydantic import Field

import aisuite_like as ai

_WEATHER = {"paris": (22, "sunny"), "tokyo": (17, "light rain"), "new york": (25, "clear")}


# `examples` helps real models and is what the offline test model fills in.
def get_weather(city: Annotated[str, Field(examples=["Paris"])],
                unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather in a city.

    Args:
        city: City name, e.g. Paris.
        unit: Temperature unit.
    """
    celsius, sky = _WEATHER.get(city.lower(), (20, "cloudy"))
    temp = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    return f"{sky}, {temp} degrees {unit} in {city}"


def get_local_time(city: Annotated[str, Field(examples=["Paris"])]) -> dict:
    """Local time in a city.

    Args:
        city: City name, e.g. Paris.
    """
    return {"city": city, "local_time": "14:05", "timezone": "Europe/Paris"}


def main() -> None:
    model = pick_model()
    client = ai.Client()
    response = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "What's the weather and the local time in Paris?"}],
        tools=[get_weather, get_local_time],
        max_turns=5,  # at most 5 model calls; tools run between them
    )
    print_trace(response)


if __name__ == "__main__":
    main()
