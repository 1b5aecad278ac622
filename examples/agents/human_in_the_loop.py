"""Human in the loop: a tool that needs approval pauses the run. The paused state is written
to a JSON file; a NEW process reads it, a person approves or rejects the call, and the run
resumes there.

    python examples/agents/human_in_the_loop.py            # approve (default)
    python examples/agents/human_in_the_loop.py --reject   # reject the deletion
"""

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import _setup  # noqa: F401

from aisuite_like import Agent, Runner, RunState, function_tool


@function_tool
async def get_weather(city: str) -> str:
    """Get the weather for a given city.

    Args:
        city: The city to get weather for.
    """
    return f"The weather in {city} is sunny"


@function_tool(needs_approval=True)
async def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    return f"Deleted {path}"


agent = Agent(
    name="File Assistant",
    instructions="Help the user with the weather and their files, using the tools.",
    tools=[get_weather, delete_file],
)


async def start(state_path: Path) -> None:
    result = await Runner.run(agent, "What is the weather in Oslo? Then delete old.log.")
    print(f"Run status: {result.status}")
    for interruption in result.interruptions:
        print(f"Waiting for approval: {interruption.name}({interruption.arguments}) "
              f"requested by {interruption.agent.name}")
    state_path.write_text(json.dumps(result.to_state().to_json(), indent=2))
    print(f"State saved to {state_path.name}")


async def resume(state_path: Path, approve: bool) -> None:
    # A new process: nothing of the first run exists here but the JSON file.
    state = await RunState.from_json(agent, json.loads(state_path.read_text()))
    for interruption in state.get_interruptions():
        if approve:
            print(f"Approved: {interruption.name}")
            state.approve(interruption)
        else:
            print(f"Rejected: {interruption.name}")
            state.reject(interruption)
    result = await Runner.run(agent, state)
    print(f"Run status: {result.status}")
    print(f"Final output: {result.final_output}")


def main() -> None:
    if "--resume" in sys.argv:
        asyncio.run(resume(Path(sys.argv[sys.argv.index("--resume") + 1]),
                           approve="--reject" not in sys.argv))
        return
    with tempfile.TemporaryDirectory() as folder:
        state_path = Path(folder) / "run_state.json"
        asyncio.run(start(state_path))
        sys.stdout.flush()
        command = [sys.executable, __file__, "--resume", str(state_path), *sys.argv[1:]]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
