"""Async fan-out: many prompts at once on one AsyncClient, with a bound on concurrency.

    python examples/async_fanout.py
"""

from __future__ import annotations

import asyncio
import time

from _common import pick_model

import aisuite_like as ai

PROMPTS = [f"Give one fun fact about the number {n}." for n in range(1, 9)]
MAX_CONCURRENCY = 4  # stay under the provider's rate limit


async def main() -> None:
    model = pick_model()
    gate = asyncio.Semaphore(MAX_CONCURRENCY)
    async with ai.AsyncClient() as client:

        async def ask(prompt: str) -> str:
            async with gate:
                response = await client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": prompt}], max_tokens=80)
                return response.choices[0].message.content or ""

        started = time.perf_counter()
        answers = await asyncio.gather(*(ask(p) for p in PROMPTS), return_exceptions=True)
        elapsed = time.perf_counter() - started
    for prompt, answer in zip(PROMPTS, answers):
        shown = f"{type(answer).__name__}: {answer}" if isinstance(answer, Exception) else answer
        print(f"- {prompt}\n  {shown.strip()}")
    failed = sum(isinstance(a, Exception) for a in answers)
    print(f"{len(PROMPTS)} prompts, {failed} failed, {elapsed:.2f}s")


if __name__ == "__main__":
    asyncio.run(main())
