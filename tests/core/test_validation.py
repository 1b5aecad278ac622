"""Requests and configurations are checked before any I/O (docs/reliability.md), the same on
every family, sync and async, with and without stream: each malformed argument raises its
typed error and nothing reaches the wire (a catch-all route at httpcore2 must stay uncalled).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from typing import Any

import httpx2
import pytest
import respx
from support.malformed_arguments import MALFORMED_ARGUMENTS

import aisuite_like as ai

MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-2.5-flash"}
FAMILIES = list(MODELS)
CONFIG = {"openai": {"api_key": "sk-test-validation-0123456789", "max_retries": 0},
          "groq": {"api_key": "gsk-test-validation-0123456789", "max_retries": 0},
          "anthropic": {"api_key": "sk-ant-test-validation-012345", "max_retries": 0},
          "google": {"api_key": "AIzaSyTESTKEY-validation-012345678", "max_retries": 0}}
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture
def wire() -> Any:
    """HTTP mocked at httpcore2 with one catch-all route: a test asserts it was never called."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        router.route().mock(return_value=respx.MockResponse(500))
        yield router


U = ai.UnsupportedParameterError

# (case id, keyword arguments (messages defaults to USER), expected error, text it must contain)


def _run(mode: str, family: str, kwargs: dict[str, Any]) -> None:
    kwargs = dict(kwargs)
    if "model" not in kwargs:
        kwargs["model"] = MODELS[family]
    kwargs.setdefault("messages", USER)
    if mode in ("sync", "stream"):
        with ai.Client(CONFIG) as client:
            if mode == "stream" and "stream" not in kwargs:
                kwargs["stream"] = True
            result = client.chat.completions.create(**kwargs)
            if mode == "stream":
                list(result)
        return

    async def run() -> None:
        async with ai.AsyncClient(CONFIG) as client:
            await client.chat.completions.create(**kwargs)

    asyncio.run(run())


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("case,kwargs,expected,fragment", MALFORMED_ARGUMENTS,
                         ids=[c for c, _, _, _ in MALFORMED_ARGUMENTS])
def test_malformed_argument_raises_before_anything_is_sent(
        case: str, kwargs: dict[str, Any], expected: type, fragment: str, family: str,
        wire: respx.Router) -> None:
    with pytest.raises(expected) as info:
        _run("sync", family, kwargs)
    assert fragment in str(info.value), str(info.value)
    assert not wire.calls, "a request was sent"


@pytest.mark.parametrize("mode", ["async", "stream"])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("case,kwargs,expected,fragment", [
    c for c in MALFORMED_ARGUMENTS if c[0] in (
        "stream-str-false", "max-tokens-str", "temperature-str", "parallel-str", "messages-empty",
        "timeout-negative", "typo-temprature", "stop-int", "user-without-content")],
    ids=lambda v: v if isinstance(v, str) and " " not in v else None)
def test_malformed_argument_async_and_stream(case: str, kwargs: dict[str, Any], expected: type,
                                             fragment: str, family: str, mode: str,
                                             wire: respx.Router) -> None:
    with pytest.raises(expected) as info:
        _run(mode, family, kwargs)
    assert fragment in str(info.value)
    assert not wire.calls


def test_argument_errors_are_value_errors_naming_the_parameter(wire: respx.Router) -> None:
    with pytest.raises(ValueError) as info:
        _run("sync", "openai", {"max_tokens": "10"})
    assert isinstance(info.value, ai.UnsupportedParameterError)
    assert info.value.parameter == "max_tokens"
    assert "'10' (str)" in str(info.value)


def test_the_callers_data_is_not_mutated_by_a_refused_request(wire: respx.Router) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "user"}]
    kwargs = {"temperature": 0.1, "max_tokens": 3}
    snapshot = json.dumps([messages, kwargs])
    with pytest.raises(ai.UnsupportedParameterError):
        with ai.Client(CONFIG) as client:
            client.chat.completions.create(model=MODELS["openai"], messages=messages, **kwargs)
    assert json.dumps([messages, kwargs]) == snapshot


# --- valid values still go out as given -----------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {"stream": False}, {"parallel_tool_calls": None}, {"max_tokens": 1}, {"seed": -3},
    {"temperature": 0}, {"temperature": 1}, {"top_p": 1}, {"stop": []}, {"stop": ("a", "b")},
    {"timeout": 2.5}, {"timeout": httpx2.Timeout(5.0, connect=1.0)}, {"user": "u1"},
])
def test_valid_arguments_pass_the_checks(kwargs: dict[str, Any]) -> None:
    with respx.mock(using="httpcore2") as router:
        route = router.post("https://api.openai.com/v1/chat/completions").mock(
            return_value=respx.MockResponse(200, json={
                "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                             "finish_reason": "stop"}]}))
        with ai.Client(CONFIG) as client:
            response = client.chat.completions.create(model=MODELS["openai"], messages=USER,
                                                      **kwargs)
    assert response.choices[0].message.content == "ok" and route.call_count == 1


@pytest.mark.parametrize("name,value", [
    ("top_k", 5), ("speed", "fast"), ("min_tokens", 2), ("models", ["a", "b"]),
    ("prompt_cache_key", "k"), ("top_a", 0.1), ("max_new_tokens", 9), ("logprobs", True),
])
def test_provider_native_lookalikes_pass_through(name: str, value: Any) -> None:
    with respx.mock(using="httpcore2") as router:
        route = router.post("https://api.openai.com/v1/chat/completions").mock(
            return_value=respx.MockResponse(200, json={
                "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                             "finish_reason": "stop"}]}))
        with ai.Client(CONFIG) as client:
            client.chat.completions.create(model=MODELS["openai"], messages=USER,
                                           **{name: value})
    assert json.loads(route.calls[0].request.content)[name] == value


_REPLY = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
          "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                       "finish_reason": "stop"}]}


@pytest.mark.parametrize("service,name,value", [
    ("groq", "reasoning_format", "parsed"), ("groq", "include_reasoning", False),
    ("openrouter", "provider", {"order": ["a"]}), ("openrouter", "transforms", ["middle-out"]),
    ("openrouter", "models", ["a/b", "c/d"]), ("openrouter", "preset", "p"),
    ("cerebras", "clear_thinking", True), ("vllm", "min_tokens", 3),
    ("mistral", "random_seed", 4), ("openai", "service_tier", "flex"),
])
def test_a_services_own_parameter_is_never_a_typo(service: str, name: str, value: Any) -> None:
    """A field of the service's own API (its row's ``native_params``) goes out as given, even
    when it is close to a portable name (``reasoning_format`` / ``reasoning_effort``)."""
    from aisuite_like.providers.openai import SERVICES

    base = SERVICES[service].base_url or "https://api.openai.com/v1"
    with respx.mock(using="httpcore2") as router:
        route = router.post(f"{base}/chat/completions").mock(
            return_value=respx.MockResponse(200, json=_REPLY))
        with ai.Client({service: {"api_key": "k-test-native-0123", "max_retries": 0}}) as c:
            c.chat.completions.create(model=f"{service}:m", messages=USER, **{name: value})
    assert json.loads(route.calls[0].request.content)[name] == value


def test_a_services_own_parameter_passes_through_an_openai_key_at_another_host() -> None:
    """Any server may be behind an ``openai`` key at another host: no service's own field is
    a typo there; and a portable near miss still is."""
    with respx.mock(using="httpcore2") as router:
        route = router.post("http://gateway.test/v1/chat/completions").mock(
            return_value=respx.MockResponse(200, json=_REPLY))
        with ai.Client({"openai": {"api_key": "k-test-native-0123", "max_retries": 0,
                                   "base_url": "http://gateway.test/v1"}}) as client:
            client.chat.completions.create(model="openai:m", messages=USER,
                                           reasoning_format="hidden")
            with pytest.raises(TypeError, match="did you mean 'temperature'"):
                client.chat.completions.create(model="openai:m", messages=USER,
                                               temperatur=0.1)
    assert json.loads(route.calls[0].request.content)["reasoning_format"] == "hidden"
    assert route.call_count == 1


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_no_sdk_argument_name_is_taken_for_a_typo() -> None:
    """Every named argument of the SDKs' create methods (Gemini's config fields, Bedrock
    Converse's request members) is a legitimate provider-native keyword: none may be refused
    as a near miss."""
    from anthropic.resources.messages import Messages
    from google.genai import types as gtypes
    from openai.resources.chat.completions import Completions

    from aisuite_like.core.checks import _near_miss

    names = (set(inspect.signature(Completions.create).parameters)
             | set(inspect.signature(Messages.create).parameters)
             | set(gtypes.GenerateContentConfig.model_fields)
             | {_snake(n) for n in gtypes.GenerateContentConfig.model_fields}) - {"self"}
    try:  # Bedrock Converse's top-level request members
        import botocore.session

        model = botocore.session.get_session().get_service_model("bedrock-runtime")
        for operation in ("Converse", "ConverseStream"):
            names |= set(model.operation_model(operation).input_shape.members)
    except ImportError:
        pass
    assert {n: _near_miss(n) for n in names if _near_miss(n)} == {}


# --- content a provider needs ----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("messages,index", [
    ([{"role": "user", "content": ""}], 0),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""},
      {"role": "user", "content": "b"}], 1),
    ([{"role": "user", "content": [{"type": "text", "text": ""}]}], 0),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": None},
      {"role": "user", "content": "b"}], 1),
])
def test_anthropic_refuses_an_empty_message_instead_of_dropping_it(
        messages: list[dict[str, Any]], index: int, mode: str, wire: respx.Router) -> None:
    with pytest.raises(ai.UnsupportedParameterError) as info:
        _run(mode, "anthropic", {"messages": messages})
    assert f"messages[{index}]" in str(info.value) and "anthropic" in str(info.value)
    assert not wire.calls


@pytest.mark.parametrize("family", ["openai"])
def test_openai_refuses_an_assistant_message_without_content_or_tool_calls(
        family: str, wire: respx.Router) -> None:
    messages = [*USER, {"role": "assistant"}, {"role": "user", "content": "again"}]
    with pytest.raises(ai.UnsupportedParameterError, match=re.escape("messages[1]")):
        _run("sync", family, {"messages": messages})
    assert not wire.calls


# --- provider configuration ------------------------------------------------------------------


@pytest.mark.parametrize("key,suggestion", [("opanai", "openai"), ("anthropc", "anthropic"),
                                            ("gemni", "gemini"), ("ollamma", "ollama")])
def test_misspelt_provider_configs_key_is_a_configuration_error(key: str,
                                                                suggestion: str) -> None:
    with pytest.raises(ai.ConfigurationError) as info:
        ai.Client({key: {"api_key": "sk-test-config-0123456789"}})
    assert f"did you mean {suggestion!r}?" in str(info.value)
    assert "sk-test-config" not in str(info.value)


def test_unknown_provider_configs_key_without_a_close_match() -> None:
    with pytest.raises(ai.ConfigurationError, match="'zzz', which is not a provider"):
        ai.AsyncClient({"zzz": {}})


def test_registered_and_installed_providers_are_known_config_keys() -> None:
    from aisuite_like.testing import ScriptedProvider

    ai.register_provider("myvalidationlocal", "aisuite_like.providers.openai:OpenAIProvider")
    ai.Client({"myvalidationlocal": {"api_key": "k"}, "scripted": {}},
              providers={"scripted": ScriptedProvider(["hi"])})


@pytest.mark.parametrize("family,key,suggestion", [
    ("openai", "base_ulr", "base_url"), ("openai", "max_retry", "max_retries"),
    ("groq", "timout", "timeout"), ("anthropic", "max_retry", "max_retries"),
    ("anthropic", "default_header", "default_headers"), ("google", "timout", "timeout"),
    ("google", "vertex_ai", "vertexai"),
])
def test_misspelt_key_inside_a_provider_config_suggests_the_right_one(
        family: str, key: str, suggestion: str, wire: respx.Router) -> None:
    with pytest.raises(ai.ConfigurationError) as info:
        ai.Client({family: {"api_key": "k", key: 1}}).chat.completions.create(
            model=f"{family}:m", messages=USER)
    assert f"{key} (did you mean {suggestion!r}?)" in str(info.value)
    assert not wire.calls


@pytest.mark.parametrize("timeout", [-1, 0, "30", float("nan"), True, [], httpx2.Timeout(-2)])
@pytest.mark.parametrize("family", ["openai", "anthropic", "google", "ollama"])
def test_bad_config_timeout_is_refused_at_configuration(family: str, timeout: Any) -> None:
    with pytest.raises(ai.ConfigurationError, match="timeout"):
        ai.Client({family: {"api_key": "k", "timeout": timeout}})


@pytest.mark.parametrize("timeout", [30, 0.5, httpx2.Timeout(10.0), httpx2.Timeout(None)])
def test_good_config_timeout_is_accepted(timeout: Any) -> None:
    ai.Client({"openai": {"api_key": "k", "timeout": timeout}})


@pytest.mark.parametrize("mode", ["sync", "async", "stream"])
@pytest.mark.parametrize("family", ["openai", "anthropic", "groq"])
@pytest.mark.parametrize("call_id", [None, "", 7])
def test_a_tool_message_without_tool_call_id_is_refused(family: str, call_id: Any, mode: str,
                                                        wire: respx.Router) -> None:
    """These APIs link a result to its call by id (Gemini matches by position instead:
    tests/providers/test_provider_google.py)."""
    tool: dict[str, Any] = {"role": "tool", "content": "r"}
    if call_id is not None:
        tool["tool_call_id"] = call_id
    messages = [*USER, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, tool]
    with pytest.raises(ai.UnsupportedParameterError) as info:
        _run(mode, family, {"model": f"{family}:m", "messages": messages})
    problem = "whose tool_call_id is 7 (int)" if call_id == 7 else "without tool_call_id"
    assert f"messages[2] is a tool message {problem}; set it to the id of the assistant tool " \
           "call it answers (a string)" in str(info.value)
    assert not wire.calls


# --- configurations that cannot work, refused before anything is sent -----------------------


@pytest.mark.parametrize("family", ["openai", "anthropic", "google", "groq", "ollama"])
@pytest.mark.parametrize("config,expected,fragment", [
    ({"api_key": 12345}, TypeError,
     "['api_key'] must be a string (the key itself), got int"),
    ({"api_key": b"sk-bytes-key-0123456789"}, TypeError, "got bytes; decode it first"),
    ({"api_key": ["sk-list-key-0123456789"]}, TypeError, "got list"),
    ({"base_url": "ftp://example.com/v1"}, ai.ConfigurationError,
     "['base_url'] must be an http:// or https:// URL, got 'ftp://example.com/v1'"),
    ({"base_url": "localhost:8080/v1"}, ai.ConfigurationError,
     "e.g. 'http://localhost:8080/v1'"),
    ({"base_url": "http://"}, ai.ConfigurationError, "must be an http:// or https:// URL"),
    ({"base_url": 8080}, ai.ConfigurationError, "got 8080 (int)"),
], ids=["key-int", "key-bytes", "key-list", "url-ftp", "url-no-scheme", "url-no-host",
        "url-int"])
def test_unusable_config_values_are_refused_before_sending(
        family: str, config: dict[str, Any], expected: type, fragment: str,
        wire: respx.Router) -> None:
    configs = {family: {"api_key": "sk-test-config-0123456789", **config}}
    for make in (ai.Client, ai.AsyncClient):
        with pytest.raises(expected) as info:
            make(configs)
        assert isinstance(info.value, (TypeError, ValueError))
        assert f"provider_configs[{family!r}]" in str(info.value) and fragment in str(info.value)
        assert "0123456789" not in str(info.value)  # the key is never shown
    client = ai.Client()
    with pytest.raises(expected):
        client.configure(configs)
    assert not wire.calls


@pytest.mark.parametrize("entry", ["sk-test-config-0123456789", [("api_key", "k")], None, 5])
def test_a_provider_config_that_is_not_a_dict_is_refused(entry: Any, wire: respx.Router) -> None:
    with pytest.raises(TypeError) as info:
        ai.Client({"openai": entry})
    assert "provider_configs['openai'] must be a dict of settings, e.g. {'api_key': ...}" in \
        str(info.value)
    assert "0123456789" not in str(info.value)
    with pytest.raises(TypeError, match="must be a dict"):
        ai.Client().configure({"openai": entry})
    assert not wire.calls


def test_provider_configs_that_is_not_a_dict_is_refused() -> None:
    with pytest.raises(TypeError, match="provider_configs must be a dict"):
        ai.Client([("openai", {"api_key": "k"})])  # type: ignore[arg-type]


@pytest.mark.parametrize("config", [
    {"api_key": None}, {"api_key": lambda: "sk-from-a-function-0123456789"},
    {"base_url": "https://example.com/v1"}, {"base_url": "HTTP://127.0.0.1:8000/v1"},
    {"base_url": None},
])
def test_usable_config_values_are_accepted(config: dict[str, Any]) -> None:
    ai.Client({"openai": {"api_key": "k", **config}})


def test_aisuite_api_url_is_checked_too(wire: respx.Router) -> None:
    with pytest.raises(ai.ConfigurationError, match=re.escape("['api_url'] must be an http")):
        ai.Client({"ollama": {"api_url": "localhost:11434"}})
    assert not wire.calls
