"""Lifecycle hooks: RunHooks see every agent of the run; AgentHooks one agent.

    python examples/agents/lifecycle_hooks.py
"""

import asyncio
import random
from typing import Any

import _setup  # noqa: F401
from pydantic import BaseModel

from aisuite_like import Agent, AgentHooks, RunContextWrapper, RunHooks, Runner, Tool, function_tool


class ExampleHooks(RunHooks):
    def __init__(self):
        self.event_counter = 0

    def _usage_to_str(self, usage) -> str:
        return f"{usage.requests} requests, {usage.total_tokens} total tokens"

    async def on_agent_start(self, context: RunContextWrapper, agent: Agent) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: Agent {agent.name} started. "
              f"Usage: {self._usage_to_str(context.usage)}")

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: LLM started for {agent.name} "
              f"({len(input_items)} input items)")

    async def on_llm_end(self, context, agent, response) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: LLM ended for {agent.name}. "
              f"Usage: {self._usage_to_str(context.usage)}")

    async def on_agent_end(self, context: RunContextWrapper, agent: Agent, output: Any) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: Agent {agent.name} ended with output {output}. "
              f"Usage: {self._usage_to_str(context.usage)}")

    async def on_tool_start(self, context: RunContextWrapper, agent: Agent, tool: Tool) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: Tool {tool.name} started.")

    async def on_tool_end(self, context: RunContextWrapper, agent: Agent, tool: Tool,
                          result: str) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: Tool {tool.name} ended with result {result}.")

    async def on_handoff(self, context: RunContextWrapper, from_agent: Agent,
                         to_agent: Agent) -> None:
        self.event_counter += 1
        print(f"### {self.event_counter}: Handoff from {from_agent.name} to {to_agent.name}.")


class MultiplyAgentHooks(AgentHooks):
    def on_start(self, context, agent) -> None:  # hooks may be plain functions too
        print(f"    (agent hook) {agent.name} is taking over")


hooks = ExampleHooks()


@function_tool
def random_number(max: int) -> int:
    """Generate a random number from 0 to max."""
    return random.Random(max).randint(0, max)


@function_tool
def multiply_by_two(x: int) -> int:
    """Return x times two."""
    return x * 2


class FinalResult(BaseModel):
    number: int


multiply_agent = Agent(
    name="Multiply Agent",
    instructions="Multiply the number by 2 and then return the final result.",
    tools=[multiply_by_two],
    output_type=FinalResult,
    hooks=MultiplyAgentHooks(),
)

start_agent = Agent(
    name="Start Agent",
    instructions="Generate a random number. If it's even, stop. If it's odd, hand off to the "
                 "multiply agent.",
    tools=[random_number],
    output_type=FinalResult,
    handoffs=[multiply_agent],
)


async def main() -> None:
    await Runner.run(
        start_agent,
        hooks=hooks,
        input="Generate a random number between 0 and 250.",
    )
    print("Done!")


if __name__ == "__main__":
    asyncio.run(main())
