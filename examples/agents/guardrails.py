"""Input and output guardrails. The input guardrail asks a small guardrail agent whether the
user wants homework done, running beside the main agent's first model call (which is
cancelled if the tripwire triggers); the output guardrail checks the final answer.

    python examples/agents/guardrails.py

Offline, the test model's guardrail agent answers is_homework=true, so the first question
trips the input guardrail; a real model decides from the question.
"""

import asyncio
import re

import _setup  # noqa: F401
from pydantic import BaseModel

from aisuite_like import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    RunContextWrapper,
    Runner,
    input_guardrail,
    output_guardrail,
)


class HomeworkOutput(BaseModel):
    is_homework: bool
    reasoning: str


guardrail_agent = Agent(
    name="Guardrail check",
    instructions="Check if the user is asking you to do their math homework.",
    output_type=HomeworkOutput,
)


@input_guardrail
async def math_guardrail(
    context: RunContextWrapper[None], agent: Agent, input: str
) -> GuardrailFunctionOutput:
    result = await Runner.run(guardrail_agent, input, context=context.context)
    final_output = result.final_output_as(HomeworkOutput)
    return GuardrailFunctionOutput(
        output_info=final_output,
        tripwire_triggered=final_output.is_homework,
    )


class MessageOutput(BaseModel):
    response: str


@output_guardrail
async def no_phone_numbers(
    context: RunContextWrapper, agent: Agent, output: MessageOutput
) -> GuardrailFunctionOutput:
    found = re.search(r"\+?\d[\d -]{7,}\d", output.response)
    return GuardrailFunctionOutput(output_info={"phone_number": bool(found)},
                                   tripwire_triggered=bool(found))


agent = Agent(
    name="Customer support agent",
    instructions="You are a customer support agent. You help customers with their questions.",
    input_guardrails=[math_guardrail],
    output_guardrails=[no_phone_numbers],
    output_type=MessageOutput,
)


async def main():
    try:
        await Runner.run(agent, "Hello, can you help me solve for x: 2x + 3 = 11?")
        print("Guardrail didn't trip - this is unexpected")
    except InputGuardrailTripwireTriggered as e:
        info = e.guardrail_result.output.output_info
        print(f"Math homework guardrail tripped (is_homework={info.is_homework})")

    plain = agent.clone(input_guardrails=[])
    try:
        result = await Runner.run(plain, "How do I reset my password?")
        print(f"Answer passed the output guardrail: {result.final_output.response}")
    except OutputGuardrailTripwireTriggered:
        print("The answer contained a phone number and was blocked")


if __name__ == "__main__":
    asyncio.run(main())
