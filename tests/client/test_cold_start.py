"""Cold start: a fresh process's first call loads and builds only what that call needs (the
cold-start rows of benchmarks/: import, client, first reply). Each test runs a fresh
interpreter against a loopback server and reads its ``sys.modules`` and the pydantic models'
state; no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.model_server import ModelServer, chat_reply
from support.timing import scaled

#: Modules of endpoints a chat call does not use, and the tool package (the call has no
#: tools).
NOT_FOR_A_CHAT_CALL = ("aisuite_like.core.responses", "aisuite_like.core.media",
                       "aisuite_like.core.audio", "aisuite_like.core.embeddings",
                       "aisuite_like.core.hosted", "aisuite_like.tools",
                       "aisuite_like.providers.openai.responses")

FIRST_CALL = """
import json, sys
import aisuite_like as ai
from aisuite_like.model_info.types import ModelInfo

config = {{"api_key": "sk-test", "base_url": {url!r}, "max_retries": 0, "openai_proxy": True}}
if {native!r}:
    config["transport"] = "native"
client = ai.Client({{"openai": config}})
reply = client.chat.completions.create(model="openai:gpt-4o",
                                       messages=[{{"role": "user", "content": "hi"}}])
print(json.dumps({{"text": reply.choices[0].message.content,
                  "loaded": sorted(m for m in sys.modules),
                  "built": [cls.__name__ for cls in (ai.ChatCompletionResponse, ai.Message,
                                                     ai.Choice, ModelInfo)
                            if cls.__pydantic_complete__]}}))
"""


def _first_call(native: bool) -> dict:
    with ModelServer(lambda request: chat_reply("fresh")) as server:
        proc = subprocess.run([sys.executable, "-c", FIRST_CALL.format(
            url=server.url + "/v1", native=native)], capture_output=True, text=True,
            timeout=scaled(120))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert len(server.requests) == 1
    result: dict = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["text"] == "fresh"
    return result


@pytest.mark.parametrize("native", [False, True], ids=["sdk", "native"])
def test_a_first_chat_call_loads_no_other_endpoint(native: bool) -> None:
    loaded = set(_first_call(native)["loaded"])
    assert loaded.isdisjoint(NOT_FOR_A_CHAT_CALL), loaded & set(NOT_FOR_A_CHAT_CALL)


def test_a_first_native_call_loads_no_asyncio_and_no_sdk() -> None:
    """A sync call on the native transport needs no event loop, no SDK and no aiohttp."""
    loaded = set(_first_call(True)["loaded"])
    assert loaded.isdisjoint({"asyncio", "aiohttp", "openai"}), \
        loaded & {"asyncio", "aiohttp", "openai"}


@pytest.mark.parametrize("native", [False, True], ids=["sdk", "native"])
def test_a_first_call_builds_no_pydantic_validator(native: bool) -> None:
    """The reply is built from checked JSON (``model_construct``) and the checks read the
    model's snapshot entry, so no schema is built: pydantic builds one when a model is first
    validated or dumped (``defer_build``), which a first call does not do."""
    assert _first_call(native)["built"] == []


@pytest.mark.parametrize("family", ["openai", "anthropic", "google", "bedrock"])
def test_a_provider_module_loads_no_endpoint_beyond_chat(family: str) -> None:
    code = (f"import sys, aisuite_like.providers.{family}; "
            f"print([m for m in {NOT_FOR_A_CHAT_CALL + ('asyncio',)!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=scaled(120))
    assert out.stdout.strip() == "[]"


def test_a_deferred_model_still_validates_and_dumps() -> None:
    """``defer_build``: the first validation builds the schema; nothing else changes."""
    code = ("import aisuite_like as ai; from pydantic import ValidationError\n"
            "m = ai.Message.model_validate({'role': 'assistant', 'content': 'x'})\n"
            "assert ai.Message.__pydantic_complete__\n"
            "assert m.model_dump(exclude_none=True) == {'role': 'assistant', 'content': 'x'}\n"
            "try:\n    ai.Message.model_validate({'role': 3})\nexcept ValidationError:\n"
            "    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=scaled(120))
    assert out.stdout.strip() == "refused"
