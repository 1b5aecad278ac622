"""``client.audio.transcriptions`` through the real SDKs (openai, google-genai) and httpx2
(Deepgram), HTTP mocked at httpcore2, asserting what went on the wire: the multipart upload
(the fixture's exact bytes), the query and headers, and what came back. Sync and async."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import warnings
from typing import Any

import httpx2
import pytest
import respx
from support.audio_wire import SPEECH, SPEECH_BYTES, fields, multipart

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "sk-test-secret-key-audio-1234567890"
DG_KEY = "dg-secret-key-0123456789abcdef"
HF_TOKEN = "hf_secretTOKEN0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-audio-0123456789abcdef"
OPENAI_URL = "https://api.openai.com/v1/audio/transcriptions"
GROQ_URL = "https://api.groq.com/openai/v1/audio/transcriptions"
DG_URL = "https://api.deepgram.com/v1/listen"
HF_URL = "https://router.huggingface.co/hf-inference/models/openai/whisper-large-v3"
GEMINI_URL = ("https://generativelanguage.googleapis.com/v1beta/models/"
              "gemini-2.5-flash:generateContent")
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "groq": {"api_key": KEY, "max_retries": 0},
           "deepgram": {"api_key": DG_KEY, "max_retries": 0},
           "huggingface": {"api_key": HF_TOKEN, "max_retries": 0},
           "google": {"api_key": GEMINI_KEY, "max_retries": 0}}

VERBOSE = {
    "task": "transcribe", "language": "english", "duration": 4.63,
    "text": "Hello from aisuite like. This is a short test of speech to text.",
    "segments": [
        {"id": 0, "seek": 0, "start": 0.0, "end": 1.9, "text": " Hello from aisuite like.",
         "tokens": [50364, 2425], "temperature": 0.0, "avg_logprob": -0.2,
         "compression_ratio": 0.9, "no_speech_prob": 0.01},
        {"id": 1, "seek": 0, "start": 1.9, "end": 4.6,
         "text": " This is a short test of speech to text.", "tokens": [50460],
         "temperature": 0.0, "avg_logprob": -0.25, "compression_ratio": 0.9,
         "no_speech_prob": 0.01}],
    "words": [{"word": "Hello", "start": 0.0, "end": 0.4},
              {"word": "from", "start": 0.4, "end": 0.7}],
    "usage": {"type": "duration", "seconds": 5},
}
SRT = ("1\n00:00:00,000 --> 00:00:01,900\nHello from aisuite like.\n\n"
       "2\n00:00:01,900 --> 00:00:04,600\nThis is a short test of speech to text.\n")


@pytest.fixture
def httpx2_mock() -> Any:
    """pytest-httpx2's fixture (respx on httpcore2), without "every route must be called":
    some tests prove that NO request was made."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def transcribe(mode: str, configs: Any = None, **kwargs: Any) -> Any:
    """``audio.transcriptions.create`` on a fresh sync Client or AsyncClient."""
    configs = CONFIGS if configs is None else configs
    extra = {k: kwargs.pop(k) for k in ("extra_param_mode",) if k in kwargs}
    if mode == "sync":
        with ai.Client(configs, **extra) as client:
            return client.audio.transcriptions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(configs, **extra) as client:
            return await client.audio.transcriptions.create(**kwargs)

    return asyncio.run(run())


def events(mode: str, **kwargs: Any) -> list[Any]:
    """A streamed transcription's events, read to the end."""
    if mode == "sync":
        with ai.Client(CONFIGS) as client, \
                client.audio.transcriptions.create(stream=True, **kwargs) as stream:
            return list(stream)

    async def run() -> list[Any]:
        async with ai.AsyncClient(CONFIGS) as client:
            stream = await client.audio.transcriptions.create(stream=True, **kwargs)
            async with stream:
                return [event async for event in stream]

    return asyncio.run(run())


# --- OpenAI and the compatible services ------------------------------------------------------


def test_openai_uploads_the_file_and_the_parameters_as_multipart(mode: str,
                                                                  httpx2_mock: respx.Router
                                                                  ) -> None:
    route = httpx2_mock.post(OPENAI_URL).respond(200, json={
        "text": VERBOSE["text"], "usage": {"type": "duration", "seconds": 5}})
    result = transcribe(mode, model="openai:whisper-1", file=str(SPEECH), language="en",
                        prompt="aisuite", temperature=0.2)
    assert isinstance(result, ai.Transcription)
    assert result.text == VERBOSE["text"]
    assert result.usage == {"type": "duration", "seconds": 5}
    assert (result.provider, result.model) == ("openai", "whisper-1")
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Bearer {KEY}"
    parts = multipart(request)
    upload = parts["file"][0]
    assert (upload.filename, upload.content_type) == ("speech.wav", "audio/wav")
    assert upload.data == SPEECH_BYTES  # the fixture's exact bytes, nothing re-encoded
    assert fields(request) == {"model": "whisper-1", "language": "en", "prompt": "aisuite",
                               "temperature": "0.2", "response_format": "json"}


@pytest.mark.parametrize("given", ["bytes", "file object", "tuple"])
def test_file_as_bytes_file_object_or_tuple(given: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENAI_URL).respond(200, json={"text": "hi"})
    with open(SPEECH, "rb") as f:
        file = {"bytes": SPEECH_BYTES, "file object": f,
                "tuple": ("meeting.wav", SPEECH_BYTES)}[given]
        assert transcribe("sync", model="openai:whisper-1", file=file).text == "hi"
        if given == "file object":
            assert not f.closed  # the caller's file stays theirs
    upload = multipart(route.calls.last.request)["file"][0]
    assert upload.data == SPEECH_BYTES
    # bytes have no name: the upload is named after the format their first bytes announce
    assert upload.filename == {"bytes": "audio.wav", "file object": "speech.wav",
                               "tuple": "meeting.wav"}[given]


def test_verbose_json_with_word_and_segment_times(mode: str, httpx2_mock: respx.Router
                                                  ) -> None:
    route = httpx2_mock.post(OPENAI_URL).respond(200, json=VERBOSE)
    result = transcribe(mode, model="openai:whisper-1", file=SPEECH,
                        response_format="verbose_json",
                        timestamp_granularities=["word", "segment"])
    assert (result.language, result.duration) == ("english", 4.63)
    assert [s.text for s in result.segments] == [" Hello from aisuite like.",
                                                 " This is a short test of speech to text."]
    assert result.segments[0].avg_logprob == -0.2
    assert [(w.word, w.start, w.end) for w in result.words] == [("Hello", 0.0, 0.4),
                                                                  ("from", 0.4, 0.7)]
    parts = multipart(route.calls.last.request)
    assert [p.text for p in parts["timestamp_granularities[]"]] == ["word", "segment"]
    assert parts["response_format"][0].text == "verbose_json"


@pytest.mark.parametrize("fmt", ["text", "srt", "vtt"])
def test_openai_text_formats_are_its_own(fmt: str, httpx2_mock: respx.Router) -> None:
    body = {"text": "Hello.\n", "srt": SRT, "vtt": "WEBVTT\n\n00:00:00.000 --> 00:00:01.900\n"
            "Hello from aisuite like.\n"}[fmt]
    route = httpx2_mock.post(OPENAI_URL).respond(200, text=body)
    assert transcribe("sync", model="openai:whisper-1", file=SPEECH, response_format=fmt) == body
    assert fields(route.calls.last.request)["response_format"] == fmt


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_groq_subtitles_are_rendered_from_its_segments(fmt: str, mode: str,
                                                       httpx2_mock: respx.Router) -> None:
    """Groq gives json, text and verbose_json: srt / vtt are asked as verbose_json with
    segment times and rendered here."""
    route = httpx2_mock.post(GROQ_URL).respond(200, json=VERBOSE)
    text = transcribe(mode, model="groq:whisper-large-v3", file=SPEECH, response_format=fmt)
    sent = multipart(route.calls.last.request)
    assert sent["response_format"][0].text == "verbose_json"
    assert [p.text for p in sent["timestamp_granularities[]"]] == ["segment"]
    if fmt == "srt":
        assert text == SRT
    else:
        assert text == ("WEBVTT\n\n00:00:00.000 --> 00:00:01.900\nHello from aisuite like.\n\n"
                        "00:00:01.900 --> 00:00:04.600\nThis is a short test of speech to "
                        "text.\n")


def test_openai_stream_gives_the_transcript_events(mode: str, httpx2_mock: respx.Router
                                                   ) -> None:
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in [
        {"type": "transcript.text.delta", "delta": "Hello"},
        {"type": "transcript.text.delta", "delta": " world."},
        {"type": "transcript.text.done", "text": "Hello world.",
         "usage": {"type": "tokens", "input_tokens": 40, "output_tokens": 3,
                   "total_tokens": 43}}])
    route = httpx2_mock.post(OPENAI_URL).respond(
        200, content=body.encode(), headers={"content-type": "text/event-stream"})
    got = events(mode, model="openai:gpt-4o-mini-transcribe", file=SPEECH)
    assert [e.type for e in got] == ["transcript.text.delta", "transcript.text.delta",
                                     "transcript.text.done"]
    assert "".join(e.delta for e in got[:2]) == got[2].text == "Hello world."
    assert got[2].usage["total_tokens"] == 43
    assert fields(route.calls.last.request)["stream"] == "true"


def test_a_stream_cut_before_its_done_event_is_a_connection_error(httpx2_mock: respx.Router
                                                                  ) -> None:
    body = f"data: {json.dumps({'type': 'transcript.text.delta', 'delta': 'Hel'})}\n\n"
    httpx2_mock.post(OPENAI_URL).respond(200, content=body.encode(),
                                         headers={"content-type": "text/event-stream"})
    with pytest.raises(ai.APIConnectionError, match="before its transcript.text.done"):
        events("sync", model="openai:gpt-4o-transcribe", file=SPEECH)


@pytest.mark.parametrize(("model", "kwargs", "match"), [
    ("openai:whisper-1", {"stream": True}, "whisper-1 does not stream"),
    ("groq:whisper-large-v3", {"stream": True}, "groq does not stream"),
    ("openai:gpt-4o-transcribe", {"response_format": "srt"}, "returns text only"),
    ("openai:gpt-4o-transcribe", {"stream": True, "response_format": "verbose_json"},
     "streams text"),
    ("openai:whisper-1", {"timestamp_granularities": ["word"]}, "verbose_json"),
])
def test_what_cannot_work_is_refused_before_sending(model: str, kwargs: dict[str, Any],
                                                    match: str, httpx2_mock: respx.Router
                                                    ) -> None:
    route = httpx2_mock.post(url__regex=r".*").respond(200, json={"text": "x"})
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        transcribe("sync", model=model, file=SPEECH, **kwargs)
    assert not route.called


# --- the file, checked before upload ---------------------------------------------------------


def test_a_file_over_the_limit_is_refused_unread(tmp_path: Any, httpx2_mock: respx.Router
                                                 ) -> None:
    route = httpx2_mock.post(url__regex=r".*").respond(200, json={"text": "x"})
    big = tmp_path / "long.wav"
    with open(big, "wb") as f:  # sparse: 26 MB on paper, measured, never read
        f.truncate(26 * 1024 * 1024)
    with pytest.raises(ai.UnsupportedParameterError, match=r"26\.0 MB; openai accepts at "
                                                            r"most 25 MB"):
        transcribe("sync", model="openai:whisper-1", file=str(big))

    class Endless:
        """A file object that would stream forever: read no further than the limit."""
        name = "endless.wav"
        asked: list[int] = []

        def read(self, n: int = -1) -> bytes:
            self.asked.append(n)
            return SPEECH_BYTES[:44] + b"\0" * (n - 44)

    with pytest.raises(ai.UnsupportedParameterError, match="accepts at most 25 MB"):
        transcribe("sync", model="openai:whisper-1", file=Endless())
    assert Endless.asked == [25 * 1024 * 1024 + 1]
    assert not route.called


@pytest.mark.parametrize(("file", "match"), [
    (("notes.txt", b"hello there"), "does not accept txt audio"),
    (b"%PDF-1.7 a report", "is a PDF document, not audio"),
    (("scan.wav", b"\x89PNG\r\n\x1a\n...."), "is a PNG image, not audio"),
    (b"\x00\x01\x02 raw samples", "cannot tell the audio format"),
    (("speech.aiff", b"FORM\x00\x00\x00\x10AIFFCOMM"), "openai does not accept aiff"),
    (b"", "is empty: pass the recorded audio"),
])
def test_a_file_in_a_wrong_format_is_refused_before_upload(file: Any, match: str,
                                                           httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=r".*").respond(200, json={"text": "x"})
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        transcribe("sync", model="openai:whisper-1", file=file)
    assert not route.called


def test_a_missing_path_and_a_text_mode_file(tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError, match="audio file not found"):
        transcribe("sync", model="openai:whisper-1", file=str(tmp_path / "none.wav"))
    text_file = tmp_path / "a.wav"
    text_file.write_text("x")
    with open(text_file) as f, pytest.raises(TypeError, match="'rb'"):
        transcribe("sync", model="openai:whisper-1", file=f)


# --- aisuite's parameter validation on the real providers -----------------------------------


def test_strict_mode_refuses_an_unknown_parameter_before_sending(httpx2_mock: respx.Router
                                                                 ) -> None:
    route = httpx2_mock.post(url__regex=r".*").respond(200, json={"text": "x"})
    with pytest.raises(ai.UnsupportedParameterError,
                       match=r"Unknown parameters for openai: \['langauge'\].*did you mean "
                             r"'language'"):
        transcribe("sync", model="openai:whisper-1", file=SPEECH, langauge="en",
                   extra_param_mode="strict")
    assert not route.called


def test_warn_mode_leaves_an_unknown_parameter_out_and_permissive_sends_it(
        httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(OPENAI_URL).respond(200, json={"text": "x"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        transcribe("sync", model="openai:whisper-1", file=SPEECH, beta_feature="on")
    assert [str(w.message)[:41] for w in caught] == ["Unknown parameters for openai: ['beta_fea"]
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert "beta_feature" not in fields(route.calls.last.request)
    transcribe("sync", model="openai:whisper-1", file=SPEECH, beta_feature="on",
               extra_param_mode="permissive")
    assert fields(route.calls.last.request)["beta_feature"] == "on"


def test_extra_param_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="extra_param_mode must be one of"):
        ai.Client(extra_param_mode="loose")  # type: ignore[arg-type]


# --- Deepgram ---------------------------------------------------------------------------------

DG_REPLY = {
    "metadata": {"request_id": "dg-req-1", "duration": 4.63, "channels": 1},
    "results": {"channels": [{"detected_language": "en", "alternatives": [{
        "transcript": "Hello from aisuite like. This is a short test.", "confidence": 0.98,
        "words": [
            {"word": "hello", "punctuated_word": "Hello", "start": 0.1, "end": 0.4,
             "confidence": 0.99},
            {"word": "from", "punctuated_word": "from", "start": 0.4, "end": 0.6,
             "confidence": 0.99},
            {"word": "aisuite", "punctuated_word": "aisuite", "start": 0.6, "end": 1.1,
             "confidence": 0.9},
            {"word": "like", "punctuated_word": "like.", "start": 1.1, "end": 1.5,
             "confidence": 0.9},
            {"word": "this", "punctuated_word": "This", "start": 1.9, "end": 2.1,
             "confidence": 0.9},
            {"word": "is", "punctuated_word": "is", "start": 2.1, "end": 2.3, "confidence": 0.9},
            {"word": "a", "punctuated_word": "a", "start": 2.3, "end": 2.4, "confidence": 0.9},
            {"word": "short", "punctuated_word": "short", "start": 2.4, "end": 2.8,
             "confidence": 0.9},
            {"word": "test", "punctuated_word": "test.", "start": 2.8, "end": 3.3,
             "confidence": 0.9}],
        "paragraphs": {"paragraphs": [{"sentences": [
            {"text": "Hello from aisuite like.", "start": 0.1, "end": 1.5},
            {"text": "This is a short test.", "start": 1.9, "end": 3.3}]}]},
    }]}]},
}


def test_deepgram_sends_the_audio_and_the_query_over_rest(mode: str, httpx2_mock: respx.Router
                                                          ) -> None:
    route = httpx2_mock.post(url__startswith=DG_URL).respond(200, json=DG_REPLY)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = transcribe(mode, model="deepgram:nova-3", file=SPEECH, language="en",
                            prompt="aisuite like", temperature=0.3, diarize=True,
                            response_format="verbose_json")
    # temperature has no Deepgram equivalent: left out, and said so
    assert ["no 'temperature' parameter" in str(w.message) for w in caught] == [True]
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Token {DG_KEY}"
    assert request.headers["content-type"] == "audio/wav"
    assert request.content == SPEECH_BYTES
    query = httpx2.URL(str(request.url)).params
    assert dict(query) == {"model": "nova-3", "smart_format": "true", "punctuate": "true",
                           "language": "en", "keywords": "aisuite", "diarize": "true"}
    assert query.get_list("keywords") == ["aisuite", "like"]  # aisuite: prompt -> keywords
    assert result.text == "Hello from aisuite like. This is a short test."
    assert (result.language, result.duration, result.confidence) == ("en", 4.63, 0.98)
    assert [(s.start, s.end, s.text) for s in result.segments] == [
        (0.1, 1.5, "Hello from aisuite like."), (1.9, 3.3, "This is a short test.")]
    assert result.words[3].word == "like."


def test_deepgram_subtitles_and_text(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(url__startswith=DG_URL).respond(200, json=DG_REPLY)
    assert transcribe("sync", model="deepgram:nova-3", file=SPEECH,
                      response_format="srt") == (
        "1\n00:00:00,100 --> 00:00:01,500\nHello from aisuite like.\n\n"
        "2\n00:00:01,900 --> 00:00:03,300\nThis is a short test.\n")
    assert transcribe("sync", model="deepgram:nova-3", file=SPEECH,
                      response_format="text") == DG_REPLY["results"]["channels"][0][
        "alternatives"][0]["transcript"]
    plain = transcribe("sync", model="deepgram:nova-3", file=SPEECH)
    assert plain.segments is None and plain.words is None  # json: the text, as OpenAI's


def test_deepgram_errors_are_typed_and_never_show_the_key(mode: str,
                                                          httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(url__startswith=DG_URL).respond(401, json={
        "err_code": "INVALID_AUTH", "err_msg": f"Invalid credentials: {DG_KEY}",
        "request_id": "dg-req-9"})
    with pytest.raises(ai.AuthenticationError) as info:
        transcribe(mode, model="deepgram:nova-3", file=SPEECH)
    error = info.value
    assert (error.provider, error.status_code, error.request_id) == ("deepgram", 401,
                                                                     "dg-req-9")
    assert "INVALID_AUTH" in str(error)
    assert DG_KEY not in str(error) and DG_KEY not in repr(error)
    assert DG_KEY not in str(error.body) and DG_KEY not in error.response.text
    assert "[REDACTED]" in error.response.request.headers["authorization"]


def test_deepgram_retries_a_503_then_answers(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__startswith=DG_URL).mock(side_effect=[
        respx.MockResponse(503, json={"err_msg": "busy"}),
        respx.MockResponse(200, json=DG_REPLY)])
    clock = FakeClock()
    configs = {"deepgram": {"api_key": DG_KEY, "retry_clock": clock}}
    assert transcribe("sync", configs, model="deepgram:nova-3", file=SPEECH).text
    assert route.call_count == 2 and len(clock.waits) == 1


def test_deepgram_is_speech_to_text_only(httpx2_mock: respx.Router) -> None:
    with ai.Client(CONFIGS) as client, pytest.raises(ai.UnsupportedFeatureError,
                                                     match="speech-to-text"):
        client.chat.completions.create(model="deepgram:nova-3",
                                       messages=[{"role": "user", "content": "hi"}])
    with ai.Client(CONFIGS) as client, pytest.raises(ai.UnsupportedParameterError,
                                                     match="websocket"):
        client.audio.transcriptions.create(model="deepgram:nova-3", file=SPEECH, stream=True)


def test_deepgram_key_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                           httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__startswith=DG_URL).respond(200, json=DG_REPLY)
    monkeypatch.setenv("DEEPGRAM_API_KEY", DG_KEY)
    transcribe("sync", {}, model="deepgram:nova-3", file=SPEECH)
    assert route.calls.last.request.headers["authorization"] == f"Token {DG_KEY}"
    monkeypatch.delenv("DEEPGRAM_API_KEY")
    with pytest.raises(ai.AuthenticationError, match="DEEPGRAM_API_KEY"):
        transcribe("sync", {}, model="deepgram:nova-3", file=SPEECH)


# --- Hugging Face's Inference API -------------------------------------------------------------


def test_huggingface_posts_the_raw_audio(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(HF_URL).respond(200, json={"text": " Hello from aisuite like."})
    result = transcribe(mode, model="huggingface:openai/whisper-large-v3", file=SPEECH)
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Bearer {HF_TOKEN}"
    assert request.headers["content-type"] == "audio/wav"
    assert request.content == SPEECH_BYTES
    assert result.text == "Hello from aisuite like."


def test_huggingface_parameters_and_timestamps_go_as_json(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(HF_URL).respond(200, json={
        "text": " Hello from aisuite like. This is a test.",
        "chunks": [{"text": " Hello from aisuite like.", "timestamp": [0.0, 1.9]},
                   {"text": " This is a test.", "timestamp": [1.9, 3.2]}]})
    srt = transcribe("sync", model="huggingface:openai/whisper-large-v3", file=SPEECH,
                     response_format="srt", temperature=0.1, wait_for_model=True)
    request = route.calls.last.request
    assert request.headers["x-wait-for-model"] == "true"
    sent = json.loads(request.content)
    assert base64.b64decode(sent["inputs"]) == SPEECH_BYTES
    assert sent["parameters"] == {"return_timestamps": True,
                                  "generation_parameters": {"temperature": 0.1}}
    assert srt.startswith("1\n00:00:00,000 --> 00:00:01,900\nHello from aisuite like.\n")


# --- Gemini -----------------------------------------------------------------------------------


def gemini_reply(text: str) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 12,
                              "totalTokenCount": 132},
            "modelVersion": "gemini-2.5-flash"}


def test_gemini_gets_the_audio_inline_with_the_instruction(mode: str,
                                                           httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEMINI_URL).respond(200, json=gemini_reply(
        "Hello from aisuite like.\n"))
    result = transcribe(mode, model="google:gemini-2.5-flash", file=SPEECH, language="English",
                        prompt="aisuite is a library")
    sent = json.loads(route.calls.last.request.content)
    parts = sent["contents"][0]["parts"]
    assert parts[1] == {"inlineData": {"mimeType": "audio/wav",
                                       "data": base64.b64encode(SPEECH_BYTES).decode()}}
    assert "Transcribe the speech" in parts[0]["text"]
    assert "The speech is in English." in parts[0]["text"]
    assert "aisuite is a library" in parts[0]["text"]
    assert result.text == "Hello from aisuite like."
    assert result.usage == {"type": "tokens", "input_tokens": 120, "output_tokens": 12,
                            "total_tokens": 132}
    assert result.duration == 4.628  # from the WAV header


def test_gemini_segments_are_asked_as_json_and_rendered(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEMINI_URL).respond(200, json=gemini_reply(json.dumps({
        "language": "english", "segments": [
            {"start": 0.1, "end": 1.8, "text": "Hello from aisuite like."},
            {"start": 1.9, "end": 4.5, "text": "This is a short test of speech to text."}]})))
    vtt = transcribe("sync", model="google:gemini-2.5-flash", file=SPEECH,
                     response_format="vtt")
    sent = json.loads(route.calls.last.request.content)
    assert sent["generationConfig"]["responseMimeType"] == "application/json"
    assert "segments" in sent["generationConfig"]["responseJsonSchema"]["properties"]
    assert vtt == ("WEBVTT\n\n00:00:00.100 --> 00:00:01.800\nHello from aisuite like.\n\n"
                   "00:00:01.900 --> 00:00:04.500\nThis is a short test of speech to text.\n")
    with pytest.raises(ai.UnsupportedParameterError, match="no word times"):
        transcribe("sync", model="google:gemini-2.5-flash", file=SPEECH,
                   response_format="verbose_json", timestamp_granularities=["word"])


def test_gemini_refuses_a_format_it_cannot_read(httpx2_mock: respx.Router) -> None:
    with pytest.raises(ai.UnsupportedParameterError, match="google does not accept webm"):
        transcribe("sync", model="google:gemini-2.5-flash",
                   file=("clip.webm", b"\x1a\x45\xdf\xa3rest"))


# --- everything else ---------------------------------------------------------------------------


def test_a_family_without_transcription_says_which_have_it(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(url__regex=r".*").respond(200, json={})
    with pytest.raises(ai.UnsupportedFeatureError,
                       match="does not transcribe audio; providers that do: openai, groq"):
        transcribe("sync", {"anthropic": {"api_key": "sk-ant-x"}}, model="anthropic:claude",
                   file=SPEECH)
    assert not route.called


def test_model_and_argument_errors_come_first() -> None:
    with pytest.raises(ai.InvalidModelError, match="Invalid model format"):
        transcribe("sync", model="whisper-1", file=SPEECH)
    with pytest.raises(ai.UnknownProviderError, match="Invalid provider key 'nope'"):
        transcribe("sync", model="nope:x", file=SPEECH)
    with pytest.raises(ValueError, match="response_format must be one of"):
        transcribe("sync", model="test:x", file=SPEECH, response_format="xml")
    with pytest.raises(ValueError, match="temperature must be a number from 0 to 1"):
        transcribe("sync", model="test:x", file=SPEECH, temperature=3)


def test_the_test_model_transcribes_offline(mode: str) -> None:
    from aisuite_like.testing import block_real_requests

    with block_real_requests():
        result = transcribe(mode, {}, model="test:whisper", file=SPEECH,
                            response_format="verbose_json", timestamp_granularities=["word"])
    assert result.text == "Transcription of speech.wav: 4.63 seconds of wav audio."
    assert (result.duration, result.language) == (4.628, "english")
    assert result.words[-1].end == 4.628


def test_the_api_key_never_reaches_an_error_on_openai(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(OPENAI_URL).respond(400, json={"error": {
        "message": f"bad audio for key {KEY}", "type": "invalid_request_error"}})
    with pytest.raises(ai.BadRequestError) as info:
        transcribe("sync", model="openai:whisper-1", file=SPEECH)
    assert KEY not in str(info.value) and KEY not in repr(info.value)


def test_the_transcription_span(httpx2_mock: respx.Router, otel: Any) -> None:
    httpx2_mock.post(OPENAI_URL).respond(200, json={"text": "hi"})
    transcribe("sync", model="openai:whisper-1", file=SPEECH)
    (span,) = otel.spans()
    assert span.name == "transcription whisper-1"
    assert span.attributes["gen_ai.operation.name"] == "transcription"
    assert span.attributes["server.address"] == "api.openai.com"


def test_environment_has_no_stray_key() -> None:
    assert "DEEPGRAM_API_KEY" not in os.environ
