"""The OpenAI client's ergonomics on our client: ``client.with_options(...)`` (a configured
copy whose options reach every provider, through the real SDKs on the loopback fault server
and botocore on the loopback Bedrock server) and ``ai.Client(api_key=..., base_url=...)``
refused with the exact ``provider_configs=`` line to write."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest
from support.bedrock_server import BedrockServer, error
from support.fault_server import FaultServer, Reply, Stall

import aisuite_like as ai
from aisuite_like.testing import FakeClock, ScriptedProvider

OPENAI_KEY = "sk-test-secret-key-1234567890"
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
USER = [{"role": "user", "content": "Hi"}]


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture(autouse=True)
def _fresh(server: FaultServer) -> None:
    server.reset()


def configs(server: FaultServer, clock: FakeClock) -> dict[str, Any]:
    return {"openai": {"api_key": OPENAI_KEY, "base_url": server.url + "/v1",
                       "retry_clock": clock},
            "anthropic": {"api_key": ANTHROPIC_KEY, "base_url": server.url,
                          "retry_clock": clock}}


def fail_all(server: FaultServer, n: int = 10) -> None:
    server.queue(*[Reply(500) for _ in range(n)])


# --- with_options ---------------------------------------------------------------------------


def test_max_retries_reaches_every_provider_and_the_original_is_unchanged(
        server: FaultServer) -> None:
    clock = FakeClock()
    client = ai.Client(configs(server, clock))
    copy = client.with_options(max_retries=0)
    for model in ("openai:gpt-4o", "anthropic:claude-x"):
        server.reset()
        fail_all(server)
        with pytest.raises(ai.InternalServerError):
            copy.chat.completions.create(model=model, messages=USER)
        assert server.attempts == 1, model  # the copy: one attempt
        server.reset()
        fail_all(server)
        with pytest.raises(ai.InternalServerError):
            client.chat.completions.create(model=model, messages=USER)
        assert server.attempts == 3, model  # the original: its default 2 retries


def test_timeout_bounds_the_copys_attempts(server: FaultServer) -> None:
    client = ai.Client({"openai": {"api_key": OPENAI_KEY, "base_url": server.url + "/v1"}})
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)  # the SDK loaded
    server.queue(Stall())
    start = time.monotonic()
    with pytest.raises(ai.APITimeoutError):  # our deadline or the SDK's read timeout
        client.with_options(timeout=1.0, max_retries=0).chat.completions.create(
            model="openai:gpt-4o", messages=USER)
    assert time.monotonic() - start < 8  # the original's timeout is the SDK's 600 s
    assert server.attempts == 2
    assert server.requests[1].headers.get("x-stainless-read-timeout") == "1.0"


def test_the_timeout_reaches_the_sdk_of_each_family(server: FaultServer) -> None:
    client = ai.Client(configs(server, FakeClock())).with_options(timeout=42)
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    client.chat.completions.create(model="anthropic:claude-x", messages=USER)
    assert [r.headers.get("x-stainless-read-timeout") for r in server.requests] == ["42", "42"]


def test_options_reach_bedrock() -> None:
    with BedrockServer() as bedrock:
        bedrock.reply(*[error(500, "InternalServerException", "boom") for _ in range(3)])
        client = ai.Client({"bedrock": bedrock.config(retry_clock=FakeClock())})
        with pytest.raises(ai.InternalServerError):
            client.with_options(max_retries=0).chat.completions.create(
                model="bedrock:anthropic.claude-x", messages=USER)
        assert len(bedrock.requests) == 1


def test_the_copy_shares_nothing_mutable(server: FaultServer) -> None:
    clock = FakeClock()
    client = ai.Client(configs(server, clock))
    copy = client.with_options(max_retries=1)
    assert type(copy) is ai.Client and copy is not client
    assert copy.provider_configs == client.provider_configs
    assert copy.provider_configs is not client.provider_configs
    assert copy.provider_configs["openai"] is not client.provider_configs["openai"]
    copy.configure({"openai": {"api_key": "sk-other-key-0987654321",
                               "base_url": server.url + "/v1"}})
    assert client.provider_configs["openai"]["api_key"] == OPENAI_KEY
    copy.chat.completions.create(model="openai:gpt-4o", messages=USER)
    copy.close()  # the copy's providers are its own: the original still works
    client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    auth = [r.headers["authorization"] for r in server.requests]
    assert auth == ["Bearer sk-other-key-0987654321", f"Bearer {OPENAI_KEY}"]


def test_provider_configs_adds_settings_for_one_provider(server: FaultServer) -> None:
    with FaultServer() as other:
        client = ai.Client({"openai": {"api_key": OPENAI_KEY, "base_url": server.url + "/v1"}})
        copy = client.with_options(provider_configs={"openai": {"base_url": other.url + "/v1",
                                                                "default_headers": {"X-T": "1"}}})
        copy.chat.completions.create(model="openai:gpt-4o", messages=USER)
        client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        assert other.attempts == 1 and other.requests[0].headers["x-t"] == "1"
        assert other.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert server.attempts == 1 and "x-t" not in server.requests[0].headers


def test_options_chain_and_later_ones_win(server: FaultServer) -> None:
    clock = FakeClock()
    client = ai.Client(configs(server, clock))
    copy = client.with_options(max_retries=0, timeout=30).with_options(max_retries=1)
    fail_all(server)
    with pytest.raises(ai.InternalServerError):
        copy.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert server.attempts == 2
    assert server.requests[0].headers.get("x-stainless-read-timeout") == "30"


def test_installed_providers_are_shared_and_the_test_model_takes_the_options() -> None:
    scripted = ScriptedProvider(["one", "two"])
    client = ai.Client(providers={"scripted": scripted})
    copy = client.with_options(timeout=5, max_retries=0)
    assert copy.chat.completions.create(model="scripted:x", messages=USER).content == "one"
    assert client.chat.completions.create(model="scripted:x", messages=USER).content == "two"
    assert copy.chat.completions.create(model="test:offline", messages=USER).content == \
        'You said: "Hi"'


def test_async_client_copy(server: FaultServer) -> None:
    async def run() -> tuple[type, int]:
        async with ai.AsyncClient(configs(server, FakeClock())) as client:
            copy = client.with_options(max_retries=0)
            fail_all(server)
            with pytest.raises(ai.InternalServerError):
                await copy.chat.completions.create(model="openai:gpt-4o", messages=USER)
            await copy.aclose()
            return type(copy), server.attempts

    assert asyncio.run(run()) == (ai.AsyncClient, 1)


@pytest.mark.parametrize(("options", "match"), [
    ({"max_retries": -1}, "max_retries must be an int >= 0 in with_options()"),
    ({"max_retries": 1.5}, "max_retries"),
    ({"timeout": -2}, r"with_options\(timeout=...\) must be"),
    ({"timeout": "5"}, "timeout"),
    ({"max_concurrency": 0}, "max_concurrency"),
    ({"stream_gap_timeout": 0}, "stream_gap_timeout"),
    ({"provider_configs": {"opneai": {}}}, "did you mean 'openai'"),
])
def test_bad_options_are_refused_before_anything(server: FaultServer, options: dict[str, Any],
                                                 match: str) -> None:
    client = ai.Client(configs(server, FakeClock()))
    with pytest.raises((ai.ConfigurationError, TypeError), match=match):
        client.with_options(**options)
    assert server.attempts == 0


def test_provider_settings_in_with_options_get_the_line_to_write() -> None:
    client = ai.Client()
    with pytest.raises(TypeError) as info:
        client.with_options(api_key=OPENAI_KEY, timeout=3)  # type: ignore[call-arg]
    text = str(info.value)
    assert OPENAI_KEY not in text
    assert 'client.with_options(provider_configs={"openai": {"api_key": "..."}})' in text


# --- Client(api_key=..., base_url=...) -------------------------------------------------------


def line_of(error: BaseException) -> str:
    match = re.search(r"^    (ai\.\w+\(provider_configs=.*\))$", str(error), re.M)
    assert match, str(error)
    return match.group(1)


@pytest.mark.parametrize("cls", [ai.Client, ai.AsyncClient])
def test_client_with_sdk_settings_prints_the_provider_configs_line(server: FaultServer,
                                                                  cls: type) -> None:
    base_url = server.url + "/v1"
    with pytest.raises(TypeError) as info:
        cls(api_key=OPENAI_KEY, base_url=base_url, max_retries=0)
    text = str(info.value)
    assert OPENAI_KEY not in text and OPENAI_KEY not in repr(info.value)
    line = line_of(info.value)
    assert line == (f'ai.{cls.__name__}(provider_configs={{"openai": {{"api_key": "...", '
                     f'"base_url": "{base_url}", "max_retries": 0}}}})')
    assert 'name models "openai:<model>"' in text and "OPENAI_API_KEY" in text
    # the line, with the key put in, is a client that works
    client = eval(line.replace('"..."', repr(OPENAI_KEY)), {"ai": ai})
    if cls is ai.Client:
        client.chat.completions.create(model="openai:gpt-4o", messages=USER)
    else:
        asyncio.run(client.chat.completions.create(model="openai:gpt-4o", messages=USER))
    assert server.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


@pytest.mark.parametrize(("settings", "line"), [
    ({"api_key": "gsk-0123456789abcdef", "base_url": "https://api.groq.com/openai/v1"},
     'ai.Client(provider_configs={"groq": {"api_key": "..."}})'),
    ({"api_key": "sk-0123456789abcdef", "base_url": "https://api.openai.com/v1/"},
     'ai.Client(provider_configs={"openai": {"api_key": "..."}})'),
    ({"api_version": "2024-10-21", "azure_endpoint": "https://res.openai.azure.com",
      "azure_ad_token": "eyJ0eXAiOiJKV1QiLCJhbGciOi"},
     'ai.Client(provider_configs={"azure": {"api_version": "2024-10-21", "azure_endpoint": '
     '"https://res.openai.azure.com", "azure_ad_token": "..."}})'),
    ({"base_url": "https://user:pa55word@proxy.example/v1?token=abc"},
     'ai.Client(provider_configs={"openai": {"base_url": "..."}})'),
    ({"timeout": 20.0, "http_client": object(), "default_headers": {"Authorization": "x"}},
     'ai.Client(provider_configs={"openai": {"http_client": ..., "default_headers": ..., '
     '"timeout": 20.0}})'),
])
def test_the_provider_is_told_from_the_settings(settings: dict[str, Any], line: str) -> None:
    # (the client-wide options, timeout and the retry settings, come after the provider's)
    with pytest.raises(TypeError) as info:
        ai.Client(**settings)
    assert line_of(info.value) == line
    for value in settings.values():
        if isinstance(value, str) and ("0123456789" in value or "pa55word" in value
                                       or value.startswith("eyJ")):
            assert value not in str(info.value)


@pytest.mark.parametrize(("settings", "line"), [
    ({"api": "responses"}, 'ai.Client(provider_configs={"openai": {"api": "responses"}})'),
    ({"api": "responses", "base_url": "https://api.groq.com/openai/v1"},
     'ai.Client(provider_configs={"groq": {"api": "responses"}})'),
    ({"max_reply_bytes": 1000},
     'ai.Client(provider_configs={"openai": {"max_reply_bytes": 1000}})'),
    ({"region_name": "us-east-1", "aws_secret_access_key": "wJalr0123456789EXAMPLEKEY"},
     'ai.Client(provider_configs={"bedrock": {"region_name": "us-east-1", '
     '"aws_secret_access_key": "..."}})'),
    ({"vertexai": True, "location": "europe-west4"},
     'ai.Client(provider_configs={"google": {"vertexai": True, "location": "europe-west4"}})'),
    ({"default_max_tokens": 2048},
     'ai.Client(provider_configs={"anthropic": {"default_max_tokens": "..."}})'),
])
def test_every_provider_setting_gets_the_line_to_write(settings: dict[str, Any],
                                                       line: str) -> None:
    """Not only api_key=: api=, the bounds, a family's own settings (under its key)."""
    with pytest.raises(TypeError) as info:
        ai.Client(**settings)
    assert line_of(info.value) == line
    assert "wJalr0123456789EXAMPLEKEY" not in str(info.value)


def test_every_setting_of_every_family_is_known_to_the_hint() -> None:
    from aisuite_like.client.base import _ALL_SETTINGS, CLIENT_OPTIONS
    from aisuite_like.providers.bedrock.transport import _CONFIG_KEYS as bedrock
    from aisuite_like.providers.deepgram.transport import _CONFIG_KEYS as deepgram
    from aisuite_like.providers.google.transport import _CONFIG_KEYS as google
    from aisuite_like.providers.openai.transport import _AZURE_CONFIG, _COMMON_CONFIG

    for keys in (bedrock, deepgram, google, _COMMON_CONFIG | _AZURE_CONFIG):
        assert set(keys) - CLIENT_OPTIONS <= _ALL_SETTINGS, set(keys) - _ALL_SETTINGS
    with pytest.raises(TypeError, match=r"did you mean 'transport'"):
        ai.Client(trasnport="native")


def test_settings_beside_provider_configs_say_where_they_go() -> None:
    with pytest.raises(TypeError, match=r"add them to your provider_configs\['openai'\]"):
        ai.Client({"anthropic": {}}, api_key="sk-0123456789abcdef")


def test_other_keywords_are_a_plain_type_error() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'provider_config' "
                                        r"\(did you mean 'provider_configs'\?\)"):
        ai.Client(provider_config={"openai": {}})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'websocket_base_url'"):
        ai.AsyncClient(websocket_base_url="wss://x")  # type: ignore[call-arg]


def test_the_copy_keeps_the_clients_response_cache() -> None:
    client = ai.Client({"test": {}}, cache=ai.cache.MemoryCache(), cache_ttl=60)
    first = client.chat.completions.create(model="test:offline", messages=USER)
    again = client.with_options(max_retries=0).chat.completions.create(model="test:offline",
                                                                       messages=USER)
    assert not first.cache_hit and again.cache_hit
    assert again.content == first.content


# --- Client(timeout=..., max_retries=...): options for every provider -----------------------


@pytest.mark.parametrize("cls", [ai.Client, ai.AsyncClient])
def test_client_wide_options_in_the_constructor(server: FaultServer, cls: type) -> None:
    """The OpenAI SDK's ``OpenAI(max_retries=0)`` / ``OpenAI(timeout=20.0)``: alone (no
    provider setting beside them) they are options for every provider, as with_options."""
    fail_all(server)
    config = {"openai": {"api_key": OPENAI_KEY, "base_url": server.url + "/v1"}}
    client = cls(config, max_retries=0, timeout=20.0)
    with pytest.raises(ai.InternalServerError):
        if cls is ai.Client:
            client.chat.completions.create(model="openai:gpt-4o", messages=USER)
        else:
            asyncio.run(client.chat.completions.create(model="openai:gpt-4o", messages=USER))
    assert len(server.requests) == 1  # max_retries=0: no retry
    assert client.with_options(max_retries=1)._options == {"max_retries": 1, "timeout": 20.0}
    with pytest.raises(ai.ConfigurationError, match=r"timeout=\.\.\.\) must be"):
        cls(timeout=-1)
    with pytest.raises(ai.ConfigurationError, match="max_retries"):
        cls(max_retries=-1)
