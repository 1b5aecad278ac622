"""aisuite parity (docs/migration.md, "From aisuite"): ``<think>`` extraction as an option
(off by default), aisuite providers through ``ProviderFactory``, the meaning of aisuite's
"invalid model format" / "invalid provider" errors. Chat goes through the real ``openai`` SDK,
HTTP mocked at httpcore2."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest
import respx
from support.audio_wire import SPEECH
from support.openai_helpers import chunk, completion, sse

import aisuite_like as ai
from aisuite_like.provider import ProviderFactory

KEY = "sk-test-secret-key-parity-12345"
URL = "https://api.openai.com/v1/chat/completions"
CONFIG = {"openai": {"api_key": KEY, "max_retries": 0}}
USER = [{"role": "user", "content": "What is 2 + 2?"}]
THINKING = "<think>\nThe user adds two and two.\n</think>\n\nFour."


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def create(mode: str, client_kwargs: dict[str, Any], **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(CONFIG, **client_kwargs) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(CONFIG, **client_kwargs) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


# --- <think> extraction ---------------------------------------------------------------------


def test_think_tags_are_left_as_written_by_default(mode: str, httpx2_mock: respx.Router
                                                   ) -> None:
    httpx2_mock.post(URL).respond(200, json=completion(THINKING))
    message = create(mode, {}, model="openai:deepseek-r1", messages=USER).choices[0].message
    assert (message.content, message.reasoning_content) == (THINKING, None)


def test_extract_thinking_moves_the_block_to_reasoning_content(mode: str,
                                                               httpx2_mock: respx.Router
                                                               ) -> None:
    httpx2_mock.post(URL).respond(200, json=completion(THINKING))
    message = create(mode, {"extract_thinking": True}, model="openai:deepseek-r1",
                     messages=USER).choices[0].message
    assert (message.content, message.reasoning_content) == ("Four.",
                                                            "The user adds two and two.")


def test_extract_thinking_applies_to_every_turn_of_the_runner(httpx2_mock: respx.Router
                                                              ) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool_call = {"id": "call_1", "type": "function",
                 "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'}}
    route = httpx2_mock.post(URL)
    route.side_effect = [
        respx.MockResponse(200, json=completion("<think>I should add.</think>",
                                                tool_calls=[tool_call], finish="tool_calls")),
        respx.MockResponse(200, json=completion(THINKING))]
    with ai.Client(CONFIG, extract_thinking=True) as client:
        response = client.chat.completions.create(model="openai:deepseek-r1", messages=USER,
                                                  tools=[add], max_turns=3)
    assert response.choices[0].message.content == "Four."
    first = response.intermediate_responses[0].choices[0].message
    assert (first.content, first.reasoning_content) == ("", "I should add.")
    # what goes back to the model is the extracted turn (as aisuite's runner sends it)
    assert json.loads(route.calls[1].request.content)["messages"][1]["content"] == ""


@pytest.mark.parametrize("pieces", [
    ["<think>", "Adding.", "</think>", "\n\nFour."],
    ["  <th", "ink>Add", "ing.</th", "ink>", "  Fo", "ur."],
    [THINKING],
])
def test_extract_thinking_in_a_stream(pieces: list[str], httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in pieces]
    events.append(chunk({}, finish="stop"))
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})
    with ai.Client(CONFIG, extract_thinking=True) as client:
        stream = client.chat.completions.create(model="openai:deepseek-r1", messages=USER,
                                                stream=True)
        chunks = list(stream)
        final = stream.get_final_response()
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(c.choices[0].delta.reasoning_content or "" for c in chunks
                        if c.choices)
    assert content.strip() == "Four."
    assert reasoning.strip() in ("Adding.", "The user adds two and two.")
    assert final.choices[0].message.content.strip() == "Four."


def test_a_stream_without_think_tags_is_untouched(httpx2_mock: respx.Router) -> None:
    events = [chunk({"role": "assistant", "content": ""}), chunk({"content": "Four"}),
              chunk({"content": " <think>x</think>"}), chunk({}, finish="stop")]
    httpx2_mock.post(URL).respond(200, content=sse(events),
                                  headers={"content-type": "text/event-stream"})
    with ai.Client(CONFIG, extract_thinking=True) as client:
        stream = client.chat.completions.create(model="openai:gpt-4o", messages=USER,
                                                stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Four <think>x</think>"  # a block that does not lead the reply stays


def test_extract_thinking_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="extract_thinking must be a bool"):
        ai.Client(extract_thinking="yes")  # type: ignore[arg-type]


def test_a_with_options_copy_keeps_extract_thinking_and_extra_param_mode(
        httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(URL).respond(200, json=completion(THINKING))
    with ai.Client(CONFIG, extract_thinking=True, extra_param_mode="strict") as client:
        copy = client.with_options(timeout=30)
        message = copy.chat.completions.create(model="openai:deepseek-r1",
                                               messages=USER).choices[0].message
        assert (message.content, message.reasoning_content) == ("Four.",
                                                                "The user adds two and two.")
        with pytest.raises(ai.UnsupportedParameterError, match="langauge"):
            copy.audio.transcriptions.create(model="test:whisper", file=SPEECH,
                                             langauge="en")


def test_client_settings_of_aisuite_are_not_provider_settings() -> None:
    with pytest.raises(TypeError, match="did you mean 'extract_thinking'"):
        ai.Client(extract_thinkin=True)  # type: ignore[call-arg]


# --- aisuite's error meanings ----------------------------------------------------------------


def test_invalid_model_format_and_invalid_provider_say_what_aisuite_says() -> None:
    client = ai.Client(CONFIG)
    with pytest.raises(ai.InvalidModelError,
                       match=r"^Invalid model format\. Expected 'provider:model'.*'gpt-4o'"):
        client.chat.completions.create(model="gpt-4o", messages=USER)
    with pytest.raises(ai.UnknownProviderError,
                       match=r"^Invalid provider key 'opnai'\. Supported providers: .*openai.*"
                             r"Make sure the model string is formatted correctly as "
                             r"'provider:model'"):
        client.chat.completions.create(model="opnai:gpt-4o", messages=USER)
    assert issubclass(ai.InvalidModelError, ValueError)
    assert issubclass(ai.UnknownProviderError, ValueError)


# --- aisuite providers ------------------------------------------------------------------------


class EchoProvider:
    """A provider written for aisuite: chat_completions_create(model, messages, **kwargs)."""

    def __init__(self, **config: Any) -> None:
        self.config = config
        self.calls: list[tuple[str, list[Any], dict[str, Any]]] = []

    def chat_completions_create(self, model: str, messages: list[Any], **kwargs: Any) -> Any:
        self.calls.append((model, messages, kwargs))
        if kwargs.get("tools") and len(self.calls) == 1:
            call = SimpleNamespace(id="c1", type="function", function=SimpleNamespace(
                name="add", arguments='{"a": 1, "b": 2}'))
            message = SimpleNamespace(role="assistant", content=None, tool_calls=[call])
        else:
            message = SimpleNamespace(role="assistant", content=f"echo: {len(messages)}",
                                      tool_calls=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])


def test_an_aisuite_provider_is_called_as_aisuite_calls_it() -> None:
    provider = EchoProvider()
    client = ai.Client(providers={"echo": provider})
    reply = client.chat.completions.create(model="echo:m1", messages=USER, temperature=0.5)
    assert isinstance(reply, SimpleNamespace)  # a manual call: its reply as it gave it
    assert provider.calls == [("m1", USER, {"temperature": 0.5})]


def test_the_tool_runner_reads_an_aisuite_providers_replies() -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    provider = EchoProvider()
    client = ai.Client(providers={"echo": provider})
    response = client.chat.completions.create(model="echo:m1", messages=USER, tools=[add],
                                              max_turns=3)
    assert isinstance(response, ai.ChatCompletionResponse)
    assert response.choices[0].message.content == "echo: 3"
    assert response.tool_events[0].result == "3"
    assert provider.calls[1][1][-1]["content"] == "3"


def test_a_reply_the_runner_cannot_read_is_a_typed_error() -> None:
    class Odd:
        def chat_completions_create(self, model: str, messages: Any, **kwargs: Any) -> str:
            return "not a completion"

    def noop() -> str:
        """Nothing."""
        return ""

    client = ai.Client(providers={"odd": Odd()})
    with pytest.raises(ai.APIResponseValidationError, match="not a chat completion"):
        client.chat.completions.create(model="odd:m", messages=USER, tools=[noop],
                                       max_turns=2)


def test_the_client_makes_its_providers_through_provider_factory() -> None:
    made: list[tuple[str, dict[str, Any]]] = []
    real = ProviderFactory.create_provider

    def spy(key: str, config: dict[str, Any]) -> Any:
        made.append((key, config))
        config["api_key"] = "changed by the factory"  # the client's own config stays
        return EchoProvider()

    client = ai.Client({"aws": {"aws_region": "us-west-2"}, **CONFIG})
    with patch.object(ProviderFactory, "create_provider", side_effect=spy):
        client.chat.completions.create(model="aws:claude", messages=USER)
        client.chat.completions.create(model="aws:claude", messages=USER)  # made once
    assert made == [("aws", {"aws_region": "us-west-2", "api_key": "changed by the factory"})]
    assert client.provider_configs["aws"] == {"aws_region": "us-west-2"}
    assert ProviderFactory.create_provider == real
    assert {"openai", "anthropic", "deepgram", "aws"} <= ProviderFactory.get_supported_providers()
    assert type(ProviderFactory.create_provider("test", {})).__name__ == "TestProvider"


def test_an_aisuite_provider_transcribes_with_aisuites_mapping() -> None:
    received: list[tuple[str, Any, dict[str, Any]]] = []

    class Speech:
        class audio:  # noqa: N801 (aisuite's attribute)
            class transcriptions:  # noqa: N801
                @staticmethod
                def create(model: str, file: Any, **params: Any) -> Any:
                    received.append((model, file, params))
                    return ai.Transcription(text="ok")

    client = ai.Client(providers={"google": Speech()})
    result = client.audio.transcriptions.create(model="google:latest_long",
                                                file="not-read.wav", language="fr",
                                                prompt="Lyon")
    assert result.text == "ok"
    assert received == [("latest_long", "not-read.wav",
                         {"language_code": "fr-FR", "speech_contexts": [{"phrases": ["Lyon"]}]})]
