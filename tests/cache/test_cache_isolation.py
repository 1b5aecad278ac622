"""Isolation in the response cache (docs/cache.md, "What is the same call"): the key names what
answers. Two router aliases of one name over other deployments, and two configs that differ in
a setting that can change the answer or the tenant, never share entries, in one process's
``MemoryCache`` and through a shared SQLite file or Redis server; the API key stays out of a
plain call's key. The loopback server counts what it received; no secret reaches a store."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.fault_server import FaultServer
from support.redis_server import RedisServer

import aisuite_like as ai
from aisuite_like.cache import MemoryCache, RedisCache, SQLiteCache

KEY = "sk-isolation-secret-0123456789abcdefXYZ"
OTHER_KEY = "sk-isolation-other-9876543210fedcbaQRS"
USER = [{"role": "user", "content": "Hi"}]
HEADER_SECRET = "hdr-session-secret-5f0c1e9a7b"


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as server:
        yield server


Store = Callable[[], Any]


@pytest.fixture(params=["memory", "sqlite", "redis"])
def stores(request: Any, tmp_path: pathlib.Path) -> Iterator[Store]:
    """Makes the caches two clients use: one shared ``MemoryCache``, or one store each (as two
    processes would have) over one SQLite file or one Redis prefix."""
    made: list[Any] = []
    if request.param == "memory":
        shared = MemoryCache()

        def make() -> Any:
            return shared
    elif request.param == "sqlite":
        def make() -> Any:
            made.append(SQLiteCache(tmp_path / "shared.db"))
            return made[-1]
    else:
        server = request.getfixturevalue("redis_server")
        prefix = f"test:{request.node.name}:"

        def make() -> Any:
            made.append(RedisCache(server.url, prefix=prefix))
            return made[-1]
    yield make
    for cache in made:
        cache.clear()
        cache.close()


def _spec(server: FaultServer, model: str = "openai:gpt-4o", key: str = KEY,
          **extra: Any) -> dict[str, Any]:
    base = server.url + "/v1" if model.startswith("openai") else server.url
    return {"model": model, "base_url": base, "api_key": key, "max_retries": 0, **extra}


# Each variant: the deployment of a second router under the same alias as the first.
VARIANTS: dict[str, Callable[[FaultServer, FaultServer], dict[str, Any]]] = {
    "model": lambda a, b: _spec(a, "openai:gpt-4o-mini"),
    "family": lambda a, b: _spec(a, "anthropic:gpt-4o"),
    "endpoint": lambda a, b: _spec(b),
    "key": lambda a, b: _spec(a, key=OTHER_KEY),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_two_routers_with_one_alias_and_other_deployments_share_no_entry(
        stores: Store, variant: str) -> None:
    with FaultServer() as a, FaultServer() as b:
        first = ai.Router({"smart": [_spec(a)]})
        second = ai.Router({"smart": [VARIANTS[variant](a, b)]})
        with ai.Client(cache=stores(), router=first) as client:
            assert not client.chat.completions.create(model="smart", messages=USER).cache_hit
        with ai.Client(cache=stores(), router=second) as client:
            other = client.chat.completions.create(model="smart", messages=USER)
        assert other.cache_hit is False
        assert a.attempts + b.attempts == 2
        # The same deployments in a third router (another process, say) share the entry.
        with ai.Client(cache=stores(), router=ai.Router({"smart": [_spec(a)]})) as client:
            assert client.chat.completions.create(model="router:smart",
                                                  messages=USER).cache_hit
        assert a.attempts + b.attempts == 2


def test_an_alias_over_the_clients_own_configs_is_named_by_them(stores: Store) -> None:
    """Deployments without settings of their own answer through the client's config: two
    clients pointing the same alias at two servers share nothing."""
    with FaultServer() as a, FaultServer() as b:
        router = ai.Router({"smart": [{"model": "openai:gpt-4o"}]})
        for server in (a, b):
            config = {"openai": {"base_url": server.url + "/v1", "api_key": KEY,
                                 "max_retries": 0}}
            with ai.Client(config, cache=stores(), router=router) as client:
                assert not client.chat.completions.create(model="smart",
                                                          messages=USER).cache_hit
        assert (a.attempts, b.attempts) == (1, 1)


def test_the_order_of_an_alias_deployments_does_not_change_its_key(stores: Store) -> None:
    with FaultServer() as a, FaultServer() as b:
        specs = [_spec(a), _spec(b, "openai:gpt-4o-mini")]
        with ai.Client(cache=stores(), router=ai.Router({"smart": specs})) as client:
            client.chat.completions.create(model="smart", messages=USER)
        reordered = ai.Router({"smart": specs[::-1]})
        with ai.Client(cache=stores(), router=reordered) as client:
            assert client.chat.completions.create(model="smart", messages=USER).cache_hit
        assert a.attempts + b.attempts == 1


# --- tenants ---------------------------------------------------------------------------------

# Each variant: the family, and the settings of a second client's config over the first one's
# (a base_url query on Gemini, whose SDK keeps it; the OpenAI SDK mangles one).
TENANTS: dict[str, tuple[str, Callable[[str], dict[str, Any]]]] = {
    "organization": ("openai", lambda url: {"organization": "org-other"}),
    "project": ("openai", lambda url: {"project": "proj-other"}),
    "default_headers": ("openai", lambda url: {"default_headers": {"X-Session": "another"}}),
    "userinfo": ("openai", lambda url: {"base_url": url.replace("http://", "http://b@") + "/v1"}),
    "query": ("google", lambda url: {"base_url": url + "?tenant=b"}),
}
MODEL = {"openai": "openai:gpt-4o", "google": "google:gemini-2.5-flash"}


@pytest.mark.parametrize("tenant", sorted(TENANTS))
def test_configs_of_two_tenants_share_no_entry(stores: Store, tenant: str) -> None:
    family, settings = TENANTS[tenant]
    model = MODEL[family]
    with FaultServer() as server:
        base: dict[str, Any] = {
            "base_url": server.url + ("/v1" if family == "openai" else "?tenant=a"),
            "api_key": KEY, "max_retries": 0, "default_headers": {"X-Session": HEADER_SECRET}}
        if family == "openai":
            base.update(organization="org-one", project="proj-one")
        with ai.Client({family: base}, cache=stores()) as client:
            assert not client.chat.completions.create(model=model, messages=USER).cache_hit
        other = {**base, **settings(server.url)}
        with ai.Client({family: other}, cache=stores()) as client:
            assert not client.chat.completions.create(model=model, messages=USER).cache_hit
        # The API key and the retry settings are not the tenant: the same entry.
        same = {**base, "api_key": OTHER_KEY, "max_retries": 1, "timeout": 30}
        with ai.Client({family: same}, cache=stores()) as client:
            assert client.chat.completions.create(model=model, messages=USER).cache_hit
        assert server.attempts == 2
        assert {r.headers.get("x-session") for r in server.requests} == \
            {HEADER_SECRET, *(["another"] if tenant == "default_headers" else [])}


def test_no_setting_in_clear_in_a_provider_key() -> None:
    """The scope a cache is given (which may show as a provider's key) holds fingerprints of
    headers, user info and queries, and never an API key."""
    seen: list[str] = []

    class Recording(MemoryCache):
        def wrap(self, provider: Any, *, provider_key: str, ttl: Any) -> Any:
            seen.append(provider_key)
            return super().wrap(provider, provider_key=provider_key, ttl=ttl)

    with FaultServer() as server:
        url = server.url.replace("http://", "http://user:pw-Secret-77@") + "/v1"
        config = {"openai": {"base_url": url, "api_key": KEY, "max_retries": 0,
                             "default_headers": {"X-Jwt": HEADER_SECRET}}}
        router = ai.Router({"smart": [{"model": "openai:gpt-4o", "api_key": OTHER_KEY}]})
        with ai.Client(config, cache=Recording(), router=router) as client:
            client.chat.completions.create(model="openai:gpt-4o", messages=USER)
            client.chat.completions.create(model="smart", messages=USER)
    assert len(seen) == 2
    for scope in seen:
        for secret in (KEY, OTHER_KEY, HEADER_SECRET, "pw-Secret-77"):
            assert secret not in scope
    assert seen[0].startswith(f"openai@base_url=http://127.0.0.1:{server.port}/v1#")
    assert seen[1].startswith("router:smart[openai@base_url=")
