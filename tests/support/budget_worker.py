"""One process of the shared-budget test (tests/budgets/test_budget_redis.py):

    python budget_worker.py <redis url> <base url> <budget name> <max_cost> <calls>

makes ``calls`` concurrent async calls through a budget kept in Redis and prints
``{"admitted": ..., "refused": ...}``.
"""

from __future__ import annotations

import asyncio
import json
import sys

import aisuite_like as ai

MESSAGES = [{"role": "user", "content": "What is two plus two? Answer with one word."}]


async def main() -> None:
    redis_url, base_url, name, max_cost, calls = sys.argv[1:6]
    budget = ai.Budget(float(max_cost), name=name, state=ai.budgets.RedisState(redis_url))
    client = ai.AsyncClient({"openai": {"api_key": "sk-test-budget", "base_url": base_url,
                                        "max_retries": 0}}, budget=budget)

    async def one() -> bool:
        try:
            await client.chat.completions.create(model="openai:gpt-4o", messages=MESSAGES,
                                                 max_tokens=20)
            return True
        except ai.BudgetExceededError:
            return False

    outcomes = await asyncio.gather(*(one() for _ in range(int(calls))))
    print(json.dumps({"admitted": outcomes.count(True), "refused": outcomes.count(False)}))


if __name__ == "__main__":
    asyncio.run(main())
