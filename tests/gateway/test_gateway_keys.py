"""Virtual keys (docs/gateway.md, "Keys"): made by ``aisuite-like gateway keys create`` and
shown once, stored hashed, limited to their models, rpm / tpm and budget, revocable,
expiring; the admin API behind the admin key. The upstream is a loopback ``ModelServer``: a
refused request must reach it not at all."""

from __future__ import annotations

import io
import json
import pathlib
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")

from support.gateway_server import ADMIN_KEY, GatewayServer, base_config  # noqa: E402
from support.model_server import ModelServer, chat_reply  # noqa: E402
from support.timing import scaled  # noqa: E402

from aisuite_like.cli import main  # noqa: E402
from aisuite_like.gateway.store import hash_key, open_store  # noqa: E402

HI = [{"role": "user", "content": "hi"}]


def _sdk(server: GatewayServer, key: str) -> Any:
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, timeout=scaled(30),
                         max_retries=0)


@pytest.fixture
def upstream() -> Iterator[ModelServer]:
    with ModelServer(lambda request: chat_reply("ok", usage=(10, 5))) as server:
        yield server


def _config(upstream: ModelServer, **server: Any) -> dict[str, Any]:
    return base_config({"smart": "openai:gpt-4o", "cheap": "openai:gpt-4o-mini",
                        "other": "openai:gpt-4.1"},
                       providers={"openai": {"api_key": "sk-upstream-abcdef0123456789",
                                             "base_url": upstream.url + "/v1",
                                             "max_retries": 0}},
                       **({"server": server} if server else {}))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_looked_up_key_is_trusted_for_key_cache_seconds(tmp_path: pathlib.Path,
                                                           upstream: ModelServer) -> None:
    """A worker trusts a key it looked up for ``key_cache_seconds`` (no lookup per request):
    a revocation made elsewhere (the CLI, another worker: straight in the store) holds after
    that time; one through this worker's admin API at once; an expiry at once."""
    url = f"sqlite:///{tmp_path / 'gateway.db'}"
    config = _config(upstream)
    config["storage"] = {"url": url}
    config["auth"]["key_cache_seconds"] = 3600
    with GatewayServer(config) as gateway:
        made = time.time()
        brief = gateway.new_key("brief", expires=f"{scaled(3):.1f}s")
        elsewhere, here = gateway.new_key("elsewhere"), gateway.new_key("here")
        for key in (brief, elsewhere, here):
            assert _sdk(gateway, key).chat.completions.create(model="smart", messages=HI)
        assert open_store(url).revoke_key("elsewhere")
        assert _sdk(gateway, elsewhere).chat.completions.create(model="smart", messages=HI)
        assert gateway.admin("DELETE", "/admin/keys/here").status_code == 200
        with pytest.raises(openai.AuthenticationError):
            _sdk(gateway, here).chat.completions.create(model="smart", messages=HI)
        time.sleep(max(0.0, made + scaled(3) + 0.5 - time.time()))  # "brief" has expired
        with pytest.raises(openai.AuthenticationError):
            _sdk(gateway, brief).chat.completions.create(model="smart", messages=HI)
    config["auth"]["key_cache_seconds"] = 0
    with GatewayServer(config) as gateway:
        with pytest.raises(openai.AuthenticationError):
            _sdk(gateway, elsewhere).chat.completions.create(model="smart", messages=HI)
    assert len(upstream.requests) == 4


def test_cli_creates_a_key_shown_once_and_stored_hashed(tmp_path: pathlib.Path,
                                                        upstream: ModelServer) -> None:
    db = tmp_path / "gateway.db"
    toml = tmp_path / "gateway.toml"
    toml.write_text(f"""
[models]
smart = "openai:gpt-4o"
cheap = "openai:gpt-4o-mini"
other = "openai:gpt-4.1"

[providers.openai]
api_key_env = "GATEWAY_TEST_UPSTREAM_KEY"
base_url = "{upstream.url}/v1"
max_retries = 0

[auth]
admin_key_env = "GATEWAY_TEST_ADMIN_KEY"
key_cache_seconds = 0           # a revocation by the CLI holds at the next request

[storage]
url = "sqlite:///{db}"
""")
    env = {"GATEWAY_TEST_UPSTREAM_KEY": "sk-upstream-from-env-0123456789",
           "GATEWAY_TEST_ADMIN_KEY": ADMIN_KEY}
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        code, out, err = _run("gateway", "keys", "create", "--config", str(toml), "--name",
                              "team-a", "--budget", "50/month", "--rpm", "100", "--models",
                              "smart,cheap")
        assert code == 0, err
        key = out.strip()
        assert key.startswith("sk-gw-") and len(key) > 40 and "\n" not in key
        assert "shown once" in err
        code, listing, _ = _run("gateway", "keys", "list", "--config", str(toml))
        assert code == 0 and "team-a" in listing and key not in listing
        assert "models=smart,cheap" in listing and "budget=50/1mo" in listing
        code, _, err = _run("gateway", "keys", "create", "--config", str(toml), "--name",
                            "typo", "--models", "smrt")
        assert code == 2 and "smrt" in err
        raw = db.read_bytes() + (db.with_name("gateway.db-wal").read_bytes()
                                 if db.with_name("gateway.db-wal").exists() else b"")
        assert key.encode() not in raw and hash_key(key).encode() in raw
        (stored,) = open_store(f"sqlite:///{db}").list_keys()
        assert stored.rpm == 100 and stored.budget == 50 and stored.budget_window == "1mo"

        with GatewayServer(str(toml)) as gateway:
            client = _sdk(gateway, key)
            assert client.chat.completions.create(model="smart", messages=HI).choices
            assert sorted(m.id for m in client.models.list()) == ["cheap", "smart"]
            with pytest.raises(openai.PermissionDeniedError) as denied:
                client.chat.completions.create(model="other", messages=HI)
            assert denied.value.code == "model_not_allowed"
            code, _, err = _run("gateway", "keys", "revoke", "--config", str(toml), "team-a")
            assert code == 0
            with pytest.raises(openai.AuthenticationError):
                client.chat.completions.create(model="smart", messages=HI)
    assert len(upstream.requests) == 1
    assert upstream.requests[0].headers["authorization"] == \
        "Bearer sk-upstream-from-env-0123456789"


def test_rpm_and_tpm_refuse_before_sending(upstream: ModelServer) -> None:
    with GatewayServer(_config(upstream)) as gateway:
        client = _sdk(gateway, gateway.new_key("paced", rpm=2))
        client.chat.completions.create(model="smart", messages=HI)
        client.chat.completions.create(model="smart", messages=HI)
        with pytest.raises(openai.RateLimitError) as limited:
            client.chat.completions.create(model="smart", messages=HI)
        assert limited.value.code == "rate_limit_exceeded"
        assert int(limited.value.response.headers["retry-after"]) >= 1
        assert len(upstream.requests) == 2
        # tpm: the router's buckets, where a request over the cap needs a full bucket; the
        # first takes it, the reply's real count (15) is charged, the next must wait.
        small = _sdk(gateway, gateway.new_key("few-tokens", tpm=50))
        long = [{"role": "user", "content": "word " * 200}]
        small.chat.completions.create(model="smart", messages=long)
        with pytest.raises(openai.RateLimitError):
            small.chat.completions.create(model="smart", messages=long)
        assert len(upstream.requests) == 3


def test_a_keys_budget_admits_then_refuses(upstream: ModelServer) -> None:
    with GatewayServer(_config(upstream)) as gateway:
        # gpt-4o: a reply of (10, 5) tokens costs 0.000075; the worst case of max_tokens=5
        # is about 0.00005 more, so the second call cannot fit in 0.0001.
        key = gateway.new_key("capped", budget="0.0001")
        client = _sdk(gateway, key)
        client.chat.completions.create(model="smart", messages=HI, max_tokens=5)
        with pytest.raises(openai.RateLimitError) as refused:
            client.chat.completions.create(model="smart", messages=HI, max_tokens=5)
        assert refused.value.code == "budget_exceeded"
        assert refused.value.response.headers["x-should-retry"] == "false"
        assert len(upstream.requests) == 1
        (view,) = [k for k in gateway.admin("GET", "/admin/keys").json()["data"]
                   if k["name"] == "capped"]
        assert view["budget_usage"]["spent"] == pytest.approx(0.000075)
        assert view["budget_usage"]["reserved"] == 0
        records = gateway.records()
        assert [r["status"] for r in records] == [200, 429]
        assert records[1]["error_type"] == "BudgetExceededError"


def test_a_key_expires(upstream: ModelServer) -> None:
    with GatewayServer(_config(upstream)) as gateway:
        key = gateway.new_key("short-lived", expires="1s")
        client = _sdk(gateway, key)
        client.chat.completions.create(model="smart", messages=HI)
        time.sleep(1.2)
        with pytest.raises(openai.AuthenticationError):
            client.chat.completions.create(model="smart", messages=HI)
    assert len(upstream.requests) == 1


def test_the_admin_api_needs_the_admin_key(upstream: ModelServer) -> None:
    with GatewayServer(_config(upstream)) as gateway:
        key = gateway.new_key("ordinary")
        for path in ("/admin/keys", "/admin/spend", "/admin/requests", "/metrics"):
            for headers in ({}, {"authorization": f"Bearer {key}"},
                            {"authorization": "Bearer " + ADMIN_KEY[:-1]}):
                reply = gateway.admin("GET", path, headers=headers) if headers else \
                    _plain(gateway, path)
                if headers:
                    assert reply.status_code == 401, (path, headers)
                else:
                    assert reply.status_code == 401
        listing = gateway.admin("GET", "/admin/keys").json()["data"]
        assert key not in json.dumps(listing) and hash_key(key) not in json.dumps(listing)
        assert gateway.admin("DELETE", "/admin/keys/ordinary").status_code == 200
        assert gateway.admin("DELETE", "/admin/keys/ordinary").status_code == 404
        made = gateway.admin("POST", "/admin/keys", json={"name": "bad name!"})
        assert made.status_code == 400 and "key name" in made.json()["error"]["message"]
        made = gateway.admin("POST", "/admin/keys", json={"name": "typo", "models": ["smrt"]})
        assert made.status_code == 400 and made.json()["error"]["param"] == "models"


def _plain(gateway: GatewayServer, path: str) -> Any:
    import httpx2

    return httpx2.get(gateway.url + path, timeout=scaled(10))
