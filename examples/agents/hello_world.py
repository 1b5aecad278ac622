"""Hello world: one agent, one question.

    python examples/agents/hello_world.py
"""

import asyncio

import _setup  # noqa: F401  (the default model: a real one when a key is set, else offline)

from aisuite_like import Agent, Runner


async def main():
    agent = Agent(
        name="Assistant",
        instructions="You only respond in haikus.",
    )

    result = await Runner.run(agent, "Tell me about recursion in programming.")
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
