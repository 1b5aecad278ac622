"""One worker process of the cross-process router test: imports what a call needs, prints
``ready``, waits for a line on stdin, then routes ``calls`` calls through a router whose
state is in Redis and prints how many were served and how many were refused
(RateLimitError)."""

from __future__ import annotations

import sys

import openai  # noqa: F401  # imported before the start: the workers then run together

import aisuite_like as ai
from aisuite_like.router import RedisState


def main() -> None:
    redis_url, prefix, base_url, key, rpm, calls = sys.argv[1:7]
    router = ai.Router(
        {"smart": [{"model": "openai:m-0", "base_url": base_url, "api_key": key,
                    "rpm": float(rpm), "max_retries": 0}]},
        state=RedisState(redis_url, prefix=prefix), max_retry_wait=0)
    served = refused = 0
    with ai.Client(router=router) as client:
        print("ready", flush=True)
        sys.stdin.readline()
        for _ in range(int(calls)):
            try:
                client.chat.completions.create(model="smart",
                                               messages=[{"role": "user", "content": "Hi"}])
                served += 1
            except ai.RateLimitError:
                refused += 1
    print(served, refused)


if __name__ == "__main__":
    main()
