"""The endpoints beside chat on the native transport (docs/transports.md): embeddings,
transcriptions and translations, speech, images, moderations and files of the OpenAI
family go out as the openai SDK sends them (method, URL, credential and content headers,
the JSON body or the multipart form's fields and files), sync and async, and come back as
the same typed results; an application using them imports no vendor SDK (google's
embeddings, images, speech and files and anthropic's Files API too: their suites in
tests/endpoints run on each transport).

HTTP is mocked at httpcore2 (respx); async native calls use ``async_transport="httpx2"``, so
the mock sees them as a user's does.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
import respx
from support.audio_wire import SPEECH_BYTES, multipart

import aisuite_like as ai

ROOT = pathlib.Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
BASE = "https://api.example.test/v1"
AZURE = "https://res.openai.azure.test"
_HEADERS = ("authorization", "api-key", "accept", "openai-organization", "x-custom")

EMBEDDINGS = {"object": "list", "model": "text-embedding-3-small",
              "data": [{"object": "embedding", "index": 0, "embedding": [0.5, 0.25]},
                       {"object": "embedding", "index": 1, "embedding": [0.125, 1.0]}],
              "usage": {"prompt_tokens": 2, "total_tokens": 2}}
FILE = {"id": "file-1", "object": "file", "bytes": 2, "created_at": 1, "filename": "a.jsonl",
        "purpose": "batch", "status": "processed"}
IMAGES = {"created": 1, "data": [{"b64_json": "aGk="}]}
MODERATION = {"id": "modr-1", "model": "omni-moderation-latest",
              "results": [{"flagged": False, "categories": {"hate": False},
                           "category_scores": {"hate": 0.01}}]}

#: name -> (HTTP method, URL the mock answers, its reply, the call, what the result reads as)
CASES: dict[str, tuple[str, str, Any, Callable[[Any], Any], Callable[[Any], Any]]] = {
    "embeddings": ("POST", "/embeddings", EMBEDDINGS,
                   lambda c: c.embeddings.create(model="openai:text-embedding-3-small",
                                                 input=["a", "b"], dimensions=2,
                                                 extra_body={"x_flag": True}),
                   lambda r: [d.embedding for d in r.data]),
    "transcription": ("POST", "/audio/transcriptions", {"text": "hello there"},
                      lambda c: c.audio.transcriptions.create(
                          model="openai:whisper-1", file=("speech.wav", SPEECH_BYTES),
                          language="en", timestamp_granularities=["word", "segment"],
                          response_format="verbose_json"),
                      lambda r: r.text),
    "translation": ("POST", "/audio/translations", {"text": "hello there"},
                    lambda c: c.audio.translations.create(
                        model="openai:whisper-1", file=("speech.wav", SPEECH_BYTES),
                        prompt="a greeting"),
                    lambda r: r.text),
    "speech": ("POST", "/audio/speech", b"ID3-mp3-bytes",
               lambda c: c.audio.speech.create(model="openai:tts-1", voice="alloy",
                                               input="Hi", speed=1.25),
               lambda r: r.content),
    "images.generate": ("POST", "/images/generations", IMAGES,
                        lambda c: c.images.generate(model="openai:gpt-image-1", prompt="a cat",
                                                    n=1, size="1024x1024"),
                        lambda r: [d.b64_json for d in r.data]),
    "images.edit": ("POST", "/images/edits", IMAGES,
                    lambda c: c.images.edit(model="openai:gpt-image-1", prompt="a hat",
                                            image=[("a.png", PNG + b"a", "image/png"),
                                                   ("b.png", PNG + b"b", "image/png")]),
                    lambda r: [d.b64_json for d in r.data]),
    "moderations": ("POST", "/moderations", MODERATION,
                    lambda c: c.moderations.create(model="openai:omni-moderation-latest",
                                                   input=["hi", "there"]),
                    lambda r: [x.flagged for x in r.results]),
    "files.create": ("POST", "/files", FILE,
                     lambda c: c.files.create(file=("a.jsonl", b"{}\n", "application/jsonl"),
                                              purpose="batch"),
                     lambda r: (r.id, r.filename)),
    "files.list": ("GET", "/files", {"object": "list", "data": [FILE], "has_more": False},
                   lambda c: c.files.list(limit=5, purpose="batch"),
                   lambda r: [f.id for f in r.data]),
    "files.retrieve": ("GET", "/files/file-1", FILE, lambda c: c.files.retrieve("file-1"),
                       lambda r: r.id),
    "files.delete": ("DELETE", "/files/file-1", {"id": "file-1", "object": "file",
                                                 "deleted": True},
                     lambda c: c.files.delete("file-1"), lambda r: (r.id, r.deleted)),
    "files.content": ("GET", "/files/file-1/content", b"line 1\n",
                      lambda c: c.files.content("file-1"), lambda r: r.content),
}


def _configs(transport: str, key: str = "openai") -> dict[str, Any]:
    if key == "azure":
        config: dict[str, Any] = {"api_key": "az-key", "azure_endpoint": AZURE,
                                  "api_version": "2024-10-21"}
    else:
        config = {"api_key": "sk-test", "base_url": BASE, "organization": "org-1",
                  "openai_proxy": True}
    config.update(max_retries=0, default_headers={"X-Custom": "yes"})
    if transport == "native":
        config.update(transport="native", async_transport="httpx2")
    return {key: config}


def _reply(body: Any) -> dict[str, Any]:
    if isinstance(body, bytes):
        return {"content": body, "headers": {"content-type": "application/octet-stream"}}
    return {"json": body}


def _body(request: Any) -> Any:
    """The request's body as what it carries: JSON, or the form's parts (name, file name,
    content type, bytes), or nothing."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        return sorted((name, part.filename, part.content_type, part.data)
                      for name, parts in multipart(request).items() for part in parts)
    if request.content:
        return json.loads(request.content)
    return None


def _sent(name: str, transport: str, mode: str, key: str = "openai") -> tuple[Any, Any]:
    method, path, reply, call, read = CASES[name]
    with respx.mock(using="httpcore2") as router:
        route = router.route(method=method, url__regex=r".*" + path.replace(".", r"\.")
                             + r"(\?.*)?$").respond(200, **_reply(reply))
        if mode == "sync":
            with ai.Client(_configs(transport, key)) as client:
                result = read(call(client))
        else:
            async def main() -> Any:
                async with ai.AsyncClient(_configs(transport, key)) as client:
                    return read(await call(client))

            result = asyncio.run(main())
        assert route.call_count == 1
        request = route.calls[0].request
    headers = {k: v for k, v in request.headers.items() if k in _HEADERS}
    # who sent it: our own HTTP says so (the rest must be what the SDK sends)
    agent = request.headers.get("user-agent", "")
    assert agent.startswith("aisuite-like/") == (transport == "native"), agent
    return (request.method, str(request.url), headers, _body(request)), result


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_native_endpoints_send_what_the_sdk_sends_and_read_the_same(name: str,
                                                                    mode: str) -> None:
    sdk, sdk_result = _sent(name, "sdk", mode)
    native, native_result = _sent(name, "native", mode)
    assert native == sdk
    assert native_result == sdk_result


@pytest.mark.parametrize("name", ["embeddings", "transcription", "speech", "images.edit",
                                  "files.retrieve"])
def test_azure_native_endpoints_go_where_the_sdk_sends_them(name: str) -> None:
    model = {"embeddings": "text-embedding-3-small", "transcription": "whisper-1",
             "speech": "tts-1", "images.edit": "gpt-image-1"}.get(name)
    method, path, reply, call, read = CASES[name]

    def azure_call(c: Any) -> Any:  # the Azure key (a deployment's name is the model)
        return call(_AzureKey(c))

    CASES["azure:" + name] = (method, path, reply, azure_call, read)
    try:
        sdk, _ = _sent("azure:" + name, "sdk", "sync", key="azure")
        native, _ = _sent("azure:" + name, "native", "sync", key="azure")
    finally:
        del CASES["azure:" + name]
    assert native == sdk
    if model is not None:
        assert f"/openai/deployments/{model}{path}" in native[1]
    assert "api-version=2024-10-21" in native[1]


class _AzureKey:
    """A client whose endpoint calls name ``azure:<model>`` for ``openai:<model>``."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return _AzureKey(getattr(self._client, name))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(kwargs.get("model"), str):
            kwargs["model"] = "azure:" + kwargs["model"].split(":", 1)[1]
        else:
            kwargs["provider"] = "azure"
        return self._client(*args, **kwargs)


def test_native_endpoint_errors_are_the_sdk_paths_errors() -> None:
    def failing(transport: str) -> ai.APIError:
        with respx.mock(using="httpcore2") as router:
            router.post(BASE + "/embeddings").respond(
                429, json={"error": {"message": "slow down", "type": "rate_limit"}},
                headers={"retry-after": "7", "x-request-id": "req-9"})
            with ai.Client(_configs(transport)) as client, \
                    pytest.raises(ai.APIError) as info:
                client.embeddings.create(model="openai:text-embedding-3-small", input="a")
        return info.value

    sdk, native = failing("sdk"), failing("native")
    assert type(native) is type(sdk) is ai.RateLimitError
    assert (str(native), native.request_id, native.retry_after) == \
        (str(sdk), sdk.request_id, sdk.retry_after)


def test_native_streamed_speech_and_transcripts_arrive_in_pieces() -> None:
    events = (b'data: {"type":"transcript.text.delta","delta":"hel"}\n\n'
              b'data: {"type":"transcript.text.delta","delta":"lo"}\n\n'
              b'data: {"type":"transcript.text.done","text":"hello"}\n\n')
    with respx.mock(using="httpcore2") as router:
        router.post(BASE + "/audio/speech").respond(
            200, content=b"0123456789", headers={"content-type": "audio/mpeg"})
        transcripts = router.post(BASE + "/audio/transcriptions").respond(
            200, content=events, headers={"content-type": "text/event-stream"})
        with ai.Client(_configs("native")) as client:
            with client.audio.speech.with_streaming_response.create(
                    model="openai:tts-1", voice="alloy", input="Hi") as response:
                audio = b"".join(response.iter_bytes())
            stream = client.audio.transcriptions.create(
                model="openai:gpt-4o-transcribe", file=("speech.wav", SPEECH_BYTES),
                stream=True)
            kinds = [event.type for event in stream]
        assert multipart(transcripts.calls[0].request)["stream"][0].text == "true"
    assert audio == b"0123456789"
    assert kinds[-1] == "transcript.text.done"


def test_an_application_using_every_endpoint_natively_imports_no_vendor_sdk() -> None:
    script = textwrap.dedent(f"""
        import json, sys
        import pytest_httpx2._plugin  # registers respx's "httpcore2" mocker
        import respx
        import aisuite_like as ai
        sys.path.insert(0, {str(ROOT / "tests")!r})
        from providers.test_native_endpoints import CASES, _configs, _reply
        seen = []
        with respx.mock(using="httpcore2") as router:
            for name, (method, path, reply, call, read) in CASES.items():
                router.route(method=method, url__regex=r".*/v1" + path.replace(".", r"\\.")
                             + r"(\\?.*)?$").respond(200, **_reply(reply))
            router.post(url__regex=r".*:batchEmbedContents$").respond(
                200, json={{"embeddings": [{{"values": [0.5]}}]}})
            def upload(request):
                if request.headers.get("x-goog-upload-command") == "start":
                    return respx.MockResponse(200, json={{}}, headers={{
                        "x-goog-upload-url": "https://x.test/upload/v1beta/files?id=u1"}})
                return respx.MockResponse(200, json={{"file": {{
                    "name": "files/up1", "displayName": "a.pdf", "sizeBytes": "3"}}}})
            router.post(url__regex=r".*/upload/v1beta/files.*").mock(side_effect=upload)
            router.get(url__regex=r".*/v1/files/file_01$").respond(200, json={{
                "id": "file_01", "type": "file", "filename": "a.pdf", "size_bytes": 3,
                "created_at": "2025-04-14T20:00:00Z", "mime_type": "application/pdf"}})
            configs = {{**_configs("native"), "google": {{
                "api_key": "g-key", "transport": "native", "async_transport": "httpx2"}},
                "anthropic": {{"api_key": "a-key", "transport": "native"}}}}
            with ai.Client(configs) as client:
                for name, (method, path, reply, call, read) in CASES.items():
                    seen.append(name) if read(call(client)) is not None else None
                seen.append(client.embeddings.create(model="google:gemini-embedding-001",
                                                     input="a").data[0].embedding)
                seen.append(client.files.retrieve("file_01", provider="anthropic").filename)
                seen.append(client.files.create(file=("a.pdf", b"%PDF"), purpose="user_data",
                                                provider="google").id)
        loaded = sorted(m for m in ("openai", "anthropic", "google.genai") if m in sys.modules)
        print(json.dumps({{"seen": seen, "loaded": loaded}}))
    """)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["seen"] == [*CASES, [0.5], "a.pdf", "files/up1"]
    assert result["loaded"] == []


def test_the_sdk_names_mirrored_for_the_native_transport_agree_with_the_sdk() -> None:
    from openai.lib.azure import _deployments_endpoints

    from aisuite_like.providers.openai import endpoints, native

    assert native.DEPLOYMENT_PATHS == frozenset(_deployments_endpoints)
    for path, names in native.SDK_NAMED.items():
        assert endpoints._named(path) == names, path


def test_an_azure_ad_token_provider_is_asked_per_request_on_both_transports() -> None:
    """Azure AD token providers are not SDK-only: the native transport asks the provider for
    a token on each request and sends it as the SDK does."""
    sent: dict[str, list[str]] = {}
    for transport in ("sdk", "native"):
        tokens = iter(["tok-1", "tok-2"])
        config: dict[str, Any] = {"azure_endpoint": AZURE, "api_version": "2024-10-21",
                                  "azure_ad_token_provider": lambda: next(tokens),
                                  "max_retries": 0}
        if transport == "native":
            config["transport"] = "native"
        with respx.mock(using="httpcore2") as router:
            route = router.post(url__regex=r".*/embeddings.*").respond(200, json=EMBEDDINGS)
            with ai.Client({"azure": config}) as client:
                for _ in range(2):
                    client.embeddings.create(model="azure:text-embedding-3-small",
                                             input=["a", "b"])
            sent[transport] = [call.request.headers["authorization"] for call in route.calls]
    assert sent["native"] == sent["sdk"] == ["Bearer tok-1", "Bearer tok-2"]
