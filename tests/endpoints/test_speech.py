"""``client.audio.speech`` and ``client.audio.translations`` through the real SDKs (openai,
google-genai), HTTP mocked at httpcore2: the request is what the vendor SDK sends for the same
call, the audio comes back whole or as it arrives (``with_streaming_response``), Gemini's PCM
as WAV, and what a family cannot do is refused before anything is sent."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import wave
from typing import Any

import openai
import pytest
import respx
from support.audio_wire import SPEECH, SPEECH_BYTES, multipart
from support.transports import each_transport, with_transport  # noqa: F401  (autouse)

import aisuite_like as ai

KEY = "sk-test-secret-key-speech-1234567890"
GEMINI_KEY = "AIzaSyTESTKEY-speech-0123456789abcdef"
SPEECH_URL = "https://api.openai.com/v1/audio/speech"
TRANSLATE_URL = "https://api.openai.com/v1/audio/translations"
TTS_URL = ("https://generativelanguage.googleapis.com/v1beta/models/"
           "gemini-2.5-flash-preview-tts:generateContent")
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "google": {"api_key": GEMINI_KEY, "max_retries": 0},
           "anthropic": {"api_key": "sk-ant-test"}}
MP3 = b"ID3\x04\x00" + bytes(range(200)) * 50
PCM = bytes(range(256)) * 40


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def camel(value: Any) -> Any:
    """JSON with every key in lowerCamelCase (the Gemini API's JSON reads both spellings)."""
    if isinstance(value, dict):
        return {k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]): camel(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def speak(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(config)) as client:
            return client.audio.speech.create(**kwargs)

    async def run() -> Any:
        if mode == "acreate":
            with ai.Client(with_transport(config)) as client:
                return await client.audio.speech.acreate(**kwargs)
        async with ai.AsyncClient(with_transport(config)) as aclient:
            return await aclient.audio.speech.create(**kwargs)
    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "acreate", "async"])
def test_speech_sends_what_the_openai_sdk_sends(mode: str, tmp_path: Any,
                                                httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(SPEECH_URL).respond(200, content=MP3,
                                                 headers={"content-type": "audio/mpeg"})
    audio = speak(mode, CONFIGS, model="openai:gpt-4o-mini-tts", voice="coral",
                  input="Today is a wonderful day.", instructions="Speak cheerfully.",
                  response_format="mp3", speed=1.25)
    ours = json.loads(route.calls.last.request.content)
    openai.OpenAI(api_key=KEY, max_retries=0).audio.speech.create(
        model="gpt-4o-mini-tts", voice="coral", input="Today is a wonderful day.",
        instructions="Speak cheerfully.", response_format="mp3", speed=1.25)
    assert ours == json.loads(route.calls.last.request.content)
    assert audio.content == MP3 and audio.read() == MP3
    assert audio.content_type == "audio/mpeg" and audio.provider == "openai"
    assert b"".join(audio.iter_bytes(100)) == MP3
    audio.write_to_file(tmp_path / "speech.mp3")
    assert (tmp_path / "speech.mp3").read_bytes() == MP3


def test_streamed_speech_arrives_in_pieces(tmp_path: Any, httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(SPEECH_URL).respond(200, content=MP3,
                                         headers={"content-type": "audio/mpeg"})
    with ai.Client(with_transport(CONFIGS)) as client:
        with client.audio.speech.with_streaming_response.create(
                model="openai:tts-1", voice="alloy", input="hello") as response:
            assert response.headers["content-type"] == "audio/mpeg"
            response.stream_to_file(tmp_path / "out.mp3")
    assert (tmp_path / "out.mp3").read_bytes() == MP3

    async def run() -> bytes:
        async with ai.AsyncClient(with_transport(CONFIGS)) as aclient:
            async with aclient.audio.speech.with_streaming_response.create(
                    model="openai:tts-1", voice="alloy", input="hello") as response:
                return b"".join([c async for c in response.iter_bytes(512)])
    assert asyncio.run(run()) == MP3


def test_speech_with_raw_response(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(SPEECH_URL).respond(200, content=MP3, headers={
        "content-type": "audio/mpeg", "x-request-id": "req_tts"})
    with ai.Client(with_transport(CONFIGS)) as client:
        raw = client.audio.speech.with_raw_response.create(model="openai:tts-1",
                                                           voice="alloy", input="hi")
    assert raw.request_id == "req_tts" and raw.parse().content == MP3


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gemini_tts_sends_what_google_genai_sends(mode: str, httpx2_mock: respx.Router
                                                  ) -> None:
    route = httpx2_mock.post(TTS_URL).respond(200, json={"candidates": [{"content": {
        "role": "model", "parts": [{"inlineData": {
            "mimeType": "audio/L16;codec=pcm;rate=24000",
            "data": base64.b64encode(PCM).decode()}}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 120,
                          "totalTokenCount": 129}})
    audio = speak(mode, CONFIGS, model="google:gemini-2.5-flash-preview-tts", voice="Kore",
                  input="Have a wonderful day!", instructions="Say cheerfully")
    ours = json.loads(route.calls.last.request.content)
    from google import genai
    from google.genai import types

    gclient = genai.Client(api_key=GEMINI_KEY, http_options={"api_version": "v1beta"})
    gclient.models.generate_content(
        model="gemini-2.5-flash-preview-tts", contents="Say cheerfully: Have a wonderful day!",
        config=types.GenerateContentConfig(
            response_modalities=["AUDIO"], speech_config=types.SpeechConfig(
                voice_config=types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(
                    voice_name="Kore")))))
    # google-genai spells speechConfig's fields in snake case; the API reads either spelling
    assert camel(ours) == camel(json.loads(route.calls.last.request.content))
    assert audio.content_type == "audio/wav"
    with wave.open(io.BytesIO(audio.content)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2)
        assert wav.readframes(wav.getnframes()) == PCM
    assert audio.usage == {"input_tokens": 9, "output_tokens": 120, "total_tokens": 129}


def test_gemini_pcm_is_the_raw_samples(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(TTS_URL).respond(200, json={"candidates": [{"content": {"parts": [
        {"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000",
                        "data": base64.b64encode(PCM).decode()}}]}}]})
    audio = speak("sync", CONFIGS, model="google:gemini-2.5-flash-preview-tts", voice="Puck",
                  input="x", response_format="pcm")
    assert audio.content == PCM
    with ai.Client(with_transport(CONFIGS)) as client:
        with client.audio.speech.with_streaming_response.create(
                model="google:gemini-2.5-flash-preview-tts", voice="Puck", input="x",
                response_format="pcm") as response:
            assert response.read() == PCM


@pytest.mark.parametrize(("model", "kwargs", "error", "words"), [
    ("google:gemini-2.5-flash-preview-tts", {"response_format": "mp3"},
     ai.UnsupportedParameterError, "'wav' or 'pcm'"),
    ("google:gemini-2.5-flash-preview-tts", {"speed": 1.5}, ai.UnsupportedParameterError,
     "no speed setting"),
    ("anthropic:claude-sonnet-4-5", {}, ai.UnsupportedFeatureError,
     "the families that have it: openai, azure, google"),
    ("openai:tts-1", {"speed": 9}, ValueError, "speed must be a number from 0.25 to 4"),
    ("openai:tts-1", {"response_format": "ogg"}, ValueError, "response_format must be one of"),
    ("openai:tts-1", {"voice": 3}, TypeError, "voice must be"),
    ("openai:tts-1", {"input": ""}, ValueError, "input must not be empty"),
])
def test_bad_speech_is_refused_before_sending(model: str, kwargs: dict[str, Any], error: type,
                                              words: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    call = {"voice": "alloy", "input": "hello", **kwargs}
    with pytest.raises(error, match=words):
        speak("sync", CONFIGS, model=model, **call)
    assert not route.called


def test_speech_errors_are_mapped_without_the_key(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(SPEECH_URL).respond(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}})
    with pytest.raises(ai.AuthenticationError) as caught:
        speak("sync", CONFIGS, model="openai:tts-1", voice="alloy", input="x")
    assert KEY not in str(caught.value)
    with pytest.raises(ai.AuthenticationError):
        with ai.Client(with_transport(CONFIGS)) as client:
            with client.audio.speech.with_streaming_response.create(
                    model="openai:tts-1", voice="alloy", input="x"):
                pass


# --- translations -----------------------------------------------------------------------


def translate(mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(CONFIGS)) as client:
            return client.audio.translations.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(with_transport(CONFIGS)) as aclient:
            return await aclient.audio.translations.create(**kwargs)
    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_translation_uploads_what_the_openai_sdk_uploads(mode: str,
                                                         httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(TRANSLATE_URL).respond(200, json={"text": "Hello from aisuite"})
    result = translate(mode, model="openai:whisper-1", file=SPEECH, prompt="names: aisuite",
                       temperature=0.2)
    ours = multipart(route.calls.last.request)
    with open(SPEECH, "rb") as f:
        openai.OpenAI(api_key=KEY, max_retries=0).audio.translations.create(
            model="whisper-1", file=("speech.wav", f.read(), "audio/wav"),
            prompt="names: aisuite", temperature=0.2, response_format="json")
    theirs = multipart(route.calls.last.request)
    assert sorted(ours) == sorted(theirs)
    for name in ours:
        assert [(p.filename, p.data) for p in ours[name]] == \
            [(p.filename, p.data) for p in theirs[name]], name
    assert ours["file"][0].data == SPEECH_BYTES
    assert isinstance(result, ai.Translation) and result.text == "Hello from aisuite"
    from openai.types.audio import Translation

    Translation.model_validate(result.model_dump())


def test_translation_formats(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(TRANSLATE_URL).mock(side_effect=[
        respx.MockResponse(200, text="Hello there\n"),
        respx.MockResponse(200, json={"task": "translate", "language": "german",
                                      "duration": 2.0, "text": "Hello there", "segments": [
                                          {"id": 0, "seek": 0, "start": 0.0, "end": 2.0,
                                           "text": "Hello there"}]})])
    assert translate("sync", model="openai:whisper-1", file=SPEECH,
                     response_format="text") == "Hello there\n"
    verbose = translate("sync", model="openai:whisper-1", file=SPEECH,
                        response_format="verbose_json")
    assert verbose.language == "german" and verbose.segments[0].end == 2.0


def test_translation_is_refused_where_there_is_none(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with pytest.raises(ai.UnsupportedFeatureError, match="openai, azure, groq"):
        translate("sync", model="google:gemini-2.5-flash", file=SPEECH)
    with pytest.raises(ai.UnsupportedFeatureError, match=r"audio\.translations"):
        translate("sync", model="anthropic:claude-sonnet-4-5", file=SPEECH)
    with pytest.raises(ValueError, match="response_format"):
        translate("sync", model="openai:whisper-1", file=SPEECH, response_format="xml")
    assert not route.called
