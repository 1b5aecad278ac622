"""Requests and configurations are checked before any I/O (DESIGN.md section 9), the same on
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

import aisuite_like as ai

MODELS = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-x",
          "google": "google:gemini-2.5-flash"}
FAMILIES = list(MODELS)
CONFIG = {"openai": {"api_key": "sk-test-validation-0123456789", "max_retries": 0},
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
MALFORMED_ARGUMENTS: list[tuple[str, dict[str, Any], type, str]] = [
    ("stream-str-false", {"stream": "false"}, U, "stream must be True or False"),
    ("stream-int", {"stream": 1}, U, "stream"),
    ("stream-str-yes", {"stream": "yes"}, U, "stream"),
    ("parallel-str", {"parallel_tool_calls": "yes"}, U, "parallel_tool_calls"),
    ("parallel-int", {"parallel_tool_calls": 0}, U, "parallel_tool_calls"),
    ("max-tokens-str", {"max_tokens": "10"}, U, "max_tokens must be an int >= 1"),
    ("max-tokens-float", {"max_tokens": 1.5}, U, "max_tokens"),
    ("max-tokens-zero", {"max_tokens": 0}, U, "max_tokens"),
    ("max-tokens-negative", {"max_tokens": -5}, U, "max_tokens"),
    ("max-tokens-bool", {"max_tokens": True}, U, "max_tokens"),
    ("max-completion-tokens-str", {"max_completion_tokens": "5"}, U, "max_completion_tokens"),
    ("both-token-limits", {"max_tokens": 5, "max_completion_tokens": 5}, U,
     "max_completion_tokens"),
    ("n-zero", {"n": 0}, U, "n must be an int >= 1"),
    ("n-str", {"n": "2"}, U, "n must be"),
    ("n-float", {"n": 1.0}, U, "n must be"),
    ("n-bool", {"n": True}, U, "n must be"),
    ("seed-str", {"seed": "42"}, U, "seed must be an int"),
    ("seed-float", {"seed": 1.5}, U, "seed"),
    ("seed-bool", {"seed": False}, U, "seed"),
    ("temperature-str", {"temperature": "hot"}, U, "temperature must be a number"),
    ("temperature-negative", {"temperature": -0.5}, U, "temperature"),
    ("temperature-nan", {"temperature": float("nan")}, U, "temperature"),
    ("temperature-inf", {"temperature": float("inf")}, U, "temperature"),
    ("temperature-bool", {"temperature": True}, U, "temperature"),
    ("temperature-list", {"temperature": [1]}, U, "temperature"),
    ("top-p-str", {"top_p": "0.9"}, U, "top_p"),
    ("top-p-above-one", {"top_p": 1.5}, U, "top_p must be a number between 0 and 1"),
    ("top-p-negative", {"top_p": -0.1}, U, "top_p"),
    ("stop-int", {"stop": 5}, U, "stop must be a string or a list of strings"),
    ("stop-list-of-ints", {"stop": [1, 2]}, U, "stop"),
    ("stop-dict", {"stop": {"a": 1}}, U, "stop"),
    ("stop-list-with-none", {"stop": ["ok", None]}, U, "stop"),
    ("user-int", {"user": 5}, U, "user must be a string"),
    ("stream-options-str", {"stream_options": "usage"}, U, "stream_options"),
    ("timeout-negative", {"timeout": -1}, U, "timeout must be a number of seconds > 0"),
    ("timeout-zero", {"timeout": 0}, U, "timeout"),
    ("timeout-str", {"timeout": "10"}, U, "timeout"),
    ("timeout-nan", {"timeout": float("nan")}, U, "timeout"),
    ("timeout-bool", {"timeout": True}, U, "timeout"),
    ("timeout-list", {"timeout": []}, U, "timeout"),
    ("timeout-httpx2-negative", {"timeout": httpx2.Timeout(-1)}, U, "httpx2.Timeout"),
    ("messages-empty", {"messages": []}, U, "messages is empty"),
    ("messages-str", {"messages": "hi"}, TypeError, "messages must be a list"),
    ("messages-item-int", {"messages": [42]}, TypeError, "messages[0] is a int"),
    ("message-without-role", {"messages": [{"content": "x"}]}, ValueError, "no 'role'"),
    ("user-without-content", {"messages": [{"role": "user"}]}, U, "messages[0] (user message)"),
    ("system-without-content", {"messages": [{"role": "system"}, *USER]}, U, "messages[0]"),
    ("tool-without-content", {"messages": [*USER, {"role": "tool", "tool_call_id": "c1"}]}, U,
     "messages[1] (tool message) has no content"),
    ("typo-temprature", {"temprature": 0.3}, TypeError, "did you mean 'temperature'?"),
    ("typo-max-token", {"max_token": 10}, TypeError, "did you mean 'max_tokens'?"),
    ("typo-tool-choise", {"tool_choise": "auto"}, TypeError, "did you mean 'tool_choice'?"),
    ("typo-streem", {"streem": True}, TypeError, "did you mean 'stream'?"),
    ("typo-parallel", {"parallel_tool_call": False}, TypeError,
     "did you mean 'parallel_tool_calls'?"),
    ("typo-respons-format", {"respons_format": {"type": "text"}}, TypeError,
     "did you mean 'response_format'?"),
    ("typo-top-p-dash", {"top-p": 0.5}, TypeError, "did you mean 'top_p'?"),
    ("typo-tool", {"tool": [{"type": "function"}]}, TypeError, "did you mean 'tools'?"),
    ("typo-max-turn", {"max_turn": 2}, TypeError, "did you mean 'max_turns'?"),
    ("typo-Temperature", {"Temperature": 0.1}, TypeError, "did you mean 'temperature'?"),
    ("runner-option-without-max-turns", {"tool_policy": ai.DenyAll("no")}, ValueError,
     "max_turns"),
    ("max-turns-zero", {"max_turns": 0}, ValueError, "max_turns"),
    ("model-without-provider", {"model": "gpt-4o"}, ai.InvalidModelError, "provider:model"),
    ("model-unknown-provider", {"model": "nope:x"}, ai.UnknownProviderError, "nope"),
]


def _run(mode: str, family: str, kwargs: dict[str, Any]) -> None:
    kwargs = dict(kwargs)
    kwargs.setdefault("model", MODELS[family])
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
    ("reasoning_effort", "low"), ("top_a", 0.1), ("max_new_tokens", 9), ("logprobs", True),
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
