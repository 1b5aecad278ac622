"""Two gateway workers sharing one Postgres store and one Redis (docs/gateway.md, "Several
workers"): a key made through one is valid on the other, the key's rpm and its budget hold
across both, and both write their records to the one store. A real ``redis-server`` and a real
Postgres, each started by the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("redis")
pytest.importorskip("psycopg")
openai = pytest.importorskip("openai")

from support.gateway_server import GatewayServer, base_config  # noqa: E402
from support.model_server import ModelServer, chat_reply  # noqa: E402
from support.postgres_server import PostgresServer  # noqa: E402
from support.redis_server import RedisServer  # noqa: E402
from support.timing import scaled  # noqa: E402

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


def _sdk(server: GatewayServer, key: str) -> Any:
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, timeout=scaled(30),
                         max_retries=0)


def test_two_workers_share_keys_limits_budgets_and_records(postgres: PostgresServer) -> None:
    with RedisServer() as redis, \
            ModelServer(lambda request: chat_reply("ok", usage=(10, 5))) as upstream:
        config = base_config(
            {"smart": "openai:gpt-4o"},
            providers={"openai": {"api_key": "sk-upstream-0123456789abcdef",
                                  "base_url": upstream.url + "/v1", "max_retries": 0}},
            storage={"url": postgres.url, "redis_url": redis.url})
        with GatewayServer(config) as one, GatewayServer(config) as two:
            paced = one.new_key("paced", rpm=3)
            clients = [_sdk(one, paced), _sdk(two, paced)]
            for client in (clients[0], clients[1], clients[0]):
                client.chat.completions.create(model="smart", messages=HI)
            for client in clients:  # the fourth in the minute, on either worker
                with pytest.raises(openai.RateLimitError):
                    client.chat.completions.create(model="smart", messages=HI)
            capped = two.new_key("capped", budget="0.0001/day")
            _sdk(one, capped).chat.completions.create(model="smart", messages=HI,
                                                      max_tokens=5)
            with pytest.raises(openai.RateLimitError) as refused:  # spent on the other
                _sdk(two, capped).chat.completions.create(model="smart", messages=HI,
                                                          max_tokens=5)
            assert refused.value.code == "budget_exceeded"
            one.records(), two.records()  # each writes what it holds to the one store
            records_one, records_two = one.records(), two.records()
            spend = one.admin("GET", "/admin/spend?by=key").json()["data"]
            hourly = two.admin("GET", "/admin/spend?by=model&bucket=3600").json()["data"]
    assert len(upstream.requests) == 4
    assert records_one == records_two
    assert sorted((r["key_name"], r["status"]) for r in records_one) == sorted(
        [("paced", 200)] * 3 + [("paced", 429)] * 2 + [("capped", 200), ("capped", 429)])
    by_key = {row["key"]: row for row in spend}
    assert by_key["capped"]["cost"] == pytest.approx(0.000075)
    assert by_key["paced"]["requests"] == 5
    assert sum(row["requests"] for row in hourly) == 7
    assert all(row["model"] == "smart" and row["start"] % 3600 == 0 for row in hourly)
