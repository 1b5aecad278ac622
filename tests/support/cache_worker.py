"""One process's call through a shared response cache (tests/test_cache_stores.py):

    python support/cache_worker.py sqlite|redis <path or url> <base url> <api key> <message>

prints ``{"content": ..., "cache_hit": ...}``; or, with ``fill``,

    python support/cache_worker.py fill <path> <worker> <count>

writes ``count`` entries to a SQLiteCache directly (``<worker>-<i>`` -> ``value-<worker>-<i>``)
and reads each back, as concurrent writers do.
"""

from __future__ import annotations

import json
import sys

import aisuite_like as ai


def main() -> None:
    kind = sys.argv[1]
    if kind == "fill":
        path, worker, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
        with ai.cache.SQLiteCache(path, timeout=30) as cache:
            for i in range(count):
                cache.set(f"{worker}-{i}", f"value-{worker}-{i}".encode(), None)
            missing = [i for i in range(count)
                       if cache.get(f"{worker}-{i}") != f"value-{worker}-{i}".encode()]
        print(json.dumps({"missing": missing}))
        return
    store, url, key, message = sys.argv[2:6]
    cache = ai.cache.SQLiteCache(store) if kind == "sqlite" else ai.cache.RedisCache(store)
    with cache, ai.Client({"openai": {"base_url": url + "/v1", "api_key": key,
                                      "max_retries": 0}}, cache=cache) as client:
        response = client.chat.completions.create(
            model="openai:gpt-4o", messages=[{"role": "user", "content": message}])
    print(json.dumps({"content": response.content, "cache_hit": response.cache_hit}))


if __name__ == "__main__":
    main()
