"""A handoff with options: the receiving agent sees the conversation without tool calls
(``handoff_filters.remove_all_tools``), and ``on_handoff`` runs when the model hands off.

    python examples/agents/handoff_input_filter.py
"""

import asyncio
import random

import _setup  # noqa: F401

from aisuite_like import Agent, RunContextWrapper, Runner, function_tool, handoff, handoff_filters


@function_tool
def random_number_tool(max: int) -> int:
    """Return a random integer between 0 and the given maximum."""
    return random.Random(max).randint(0, max)


def log_handoff(ctx: RunContextWrapper) -> None:
    print(f"-- handing off after {ctx.usage.requests} model call(s)")


spanish_agent = Agent(
    name="Spanish Assistant",
    instructions="You only speak Spanish and are extremely concise.",
    handoff_description="A Spanish-speaking assistant.",
)

first_agent = Agent(
    name="Assistant",
    instructions="Be extremely concise. Call the random number tool, then hand off to the "
                 "Spanish assistant.",
    tools=[random_number_tool],
    handoffs=[handoff(spanish_agent, input_filter=handoff_filters.remove_all_tools,
                      on_handoff=log_handoff)],
)


async def main():
    result = await Runner.run(first_agent, input="Hi, my name is Sora. Pick a number and "
                                                 "then pass me to the Spanish assistant.")
    print(f"Last agent: {result.last_agent.name}")
    for item in result.new_items:
        print(f"  {item.agent.name}: {item.type}")
    print(f"Final output: {result.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
