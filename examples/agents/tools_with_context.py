"""Function tools with a run context: the tool's first parameter receives the
RunContextWrapper (it is not part of the schema the model sees); the context object is yours.

    python examples/agents/tools_with_context.py
"""

import asyncio
from dataclasses import dataclass
from typing import Annotated

import _setup  # noqa: F401

from aisuite_like import Agent, RunContextWrapper, Runner, function_tool


@dataclass
class UserInfo:
    name: str
    uid: int


@function_tool
async def fetch_user_age(wrapper: RunContextWrapper[UserInfo]) -> str:
    """Fetch the age of the user. Call this function to get user's age information."""
    return f"The user {wrapper.context.name} is 47 years old"


@function_tool
def get_weather(city: Annotated[str, "The city to get the weather for"]) -> str:
    """Get the current weather for a city."""
    return f"The weather in {city} is sunny"


async def main():
    user_info = UserInfo(name="John", uid=123)

    agent = Agent[UserInfo](
        name="Assistant",
        tools=[fetch_user_age, get_weather],
    )

    result = await Runner.run(
        starting_agent=agent,
        input="What is the age of the user, and the weather in Tokyo?",
        context=user_info,
    )

    print(result.final_output)
    usage = result.context_wrapper.usage
    print(f"Model calls: {usage.requests}, tokens: {usage.total_tokens}")


if __name__ == "__main__":
    asyncio.run(main())
