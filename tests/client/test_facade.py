"""The facade: model strings, registry, messages, import lightness."""

from __future__ import annotations

import subprocess
import sys

import pytest

import aisuite_like as ai


def test_import_loads_no_vendor_sdk() -> None:
    code = ("import sys, aisuite_like; "
            "print([m for m in ('openai', 'anthropic', 'google.genai', 'httpx2') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_loads_nothing_a_first_call_can_load() -> None:
    """``import aisuite_like`` stays light: asyncio (about 20 ms), typing_extensions (7 ms),
    aiohttp and json load with the first call that needs them (the import row of
    benchmarks/)."""
    code = ("import sys, aisuite_like; "
            "print([m for m in ('asyncio', 'typing_extensions', 'aiohttp', 'json', "
            "'aisuite_like.providers.aisuite') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("model", ["gpt-4o", "", ":gpt", "openai:", None, 3])
def test_bad_model_string(model: object) -> None:
    with pytest.raises(ai.InvalidModelError) as info:
        ai.Client().chat.completions.create(model=model, messages=[])
    assert isinstance(info.value, ValueError)
    assert "provider:model" in str(info.value)


def test_unknown_provider_lists_known_ones() -> None:
    with pytest.raises(ai.UnknownProviderError) as info:
        ai.Client().chat.completions.create(model="nosuch:model", messages=[])
    assert "openai" in str(info.value) and "anthropic" in str(info.value)


def test_register_provider_and_model_with_colons() -> None:
    seen = []

    class Echo(ai.Provider):
        def __init__(self, greeting: str = "hi") -> None:
            self.greeting = greeting

        def complete(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
            seen.append(request)
            return ai.ChatCompletionResponse(
                model=request.model, provider=self.key,
                choices=[ai.Choice(message=ai.Message(role="assistant", content=self.greeting),
                                   finish_reason="stop")])

    ai.register_provider("echo", Echo)
    client = ai.Client({"echo": {"greeting": "hello"}})
    resp = client.chat.completions.create(model="echo:org/model:tag", messages=[
        {"role": "user", "content": "x"}], temperature=0.5, custom_native=1)
    assert resp.choices[0].message.content == "hello"
    assert seen[0].model == "org/model:tag"
    assert seen[0].temperature == 0.5
    assert seen[0].extra == {"custom_native": 1}


def test_runner_options_need_max_turns() -> None:
    client = ai.Client(providers={"x": ai.Provider()})
    with pytest.raises(ValueError, match="max_turns"):
        client.chat.completions.create(model="x:y", messages=[], tool_policy=ai.Provider)


def test_messages_mixed_and_not_mutated() -> None:
    from aisuite_like.client.base import normalize_messages

    original = [{"role": "user", "content": "a"}, ai.Message(role="assistant", content="b")]
    out = normalize_messages(original)
    assert out == [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert out is not original and isinstance(original[1], ai.Message)


def test_message_dump_is_valid_input() -> None:
    msg = ai.Message(role="assistant", content=None, tool_calls=[
        ai.ToolCall(id="c1", function=ai.Function(name="f", arguments="{}"))])
    assert ai.Message.model_validate(msg.model_dump(exclude_none=True)) == msg


def test_usage_sums() -> None:
    a = ai.Usage(prompt_tokens=3, completion_tokens=2, total_tokens=5,
                 prompt_tokens_details=ai.PromptTokensDetails(cached_tokens=1))
    b = ai.Usage(prompt_tokens=1, completion_tokens=1, total_tokens=2)
    s = a + b
    assert (s.prompt_tokens, s.completion_tokens, s.total_tokens) == (4, 3, 7)
    assert s.prompt_tokens_details.cached_tokens == 1


def test_client_repr_hides_keys() -> None:
    client = ai.Client({"openai": {"api_key": "sk-secret-value-123456"}})
    assert "sk-secret" not in repr(client)


def test_built_equals_model_construct_and_anthropic_chunks_set_every_field() -> None:
    """``types.build_model`` (the per-chunk fast path) must build what ``model_construct`` builds,
    and its callers must pass every field (a field added to a type later would be missing)."""
    from aisuite_like.core.types import build_model
    from aisuite_like.providers.anthropic import StreamState
    from aisuite_like.types import ChoiceDelta

    values = dict(role="assistant", content="x", tool_calls=None, reasoning_content=None,
                  refusal=None, provider_specific_fields=None)
    assert build_model(ChoiceDelta, dict(values)) == ChoiceDelta.model_construct(**values)

    state = StreamState(created=1)
    events = [
        {"type": "message_start", "message": {"id": "m", "model": "c", "usage": {
            "input_tokens": 1, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta",
                                                              "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 1}},
    ]
    chunks = [c for c in map(state.process, events) if c is not None]
    assert chunks
    for chunk in chunks:
        for obj in (chunk, chunk.choices[0], chunk.choices[0].delta):
            assert set(obj.__dict__) == set(type(obj).model_fields), type(obj).__name__
