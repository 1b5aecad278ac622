"""Structured output of a type that is not a pydantic model: a list of dataclasses. Types
that are not objects are wrapped as {"response": ...} for the provider and unwrapped again.

    python examples/agents/structured_output.py
"""

import asyncio
from dataclasses import dataclass

import _setup  # noqa: F401

from aisuite_like import Agent, Runner


@dataclass
class Landmark:
    name: str
    city: str
    year_built: int


agent = Agent(
    name="Travel guide",
    instructions="List famous landmarks the user asks about.",
    output_type=list[Landmark],
)


async def main():
    result = await Runner.run(agent, "Name two landmarks in Paris.")
    landmarks = result.final_output_as(list, raise_if_incorrect_type=True)
    print(f"{len(landmarks)} landmark(s), each a {type(landmarks[0]).__name__}:")
    for landmark in landmarks:
        print(f"  {landmark.name} ({landmark.city}, {landmark.year_built})")


if __name__ == "__main__":
    asyncio.run(main())
