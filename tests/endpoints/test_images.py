"""``client.images`` through the real SDKs with HTTP mocked at httpcore2 (openai, google-genai)
and real botocore against the loopback Bedrock server: what goes on the wire is what each
vendor SDK sends for the same call (the SDK itself is called side by side on the same mock),
and what comes back validates as the OpenAI SDK's ``ImagesResponse``. Sync, the sync client's
``agenerate`` and the async client; each on both transports."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
import respx
from support.audio_wire import multipart
from support.bedrock_server import BedrockServer, Json, isolate_aws
from support.transports import each_transport, with_transport  # noqa: F401  (autouse)

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "sk-test-secret-key-images-1234567890"
GEMINI_KEY = "AIzaSyTESTKEY-images-0123456789abcdef"
GEN_URL = "https://api.openai.com/v1/images/generations"
EDIT_URL = "https://api.openai.com/v1/images/edits"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
PNG_B64 = base64.b64encode(PNG).decode()
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "google": {"api_key": GEMINI_KEY, "max_retries": 0}}
REPLY = {"created": 1760000000, "data": [{"b64_json": PNG_B64}], "background": "opaque",
         "output_format": "png", "quality": "high", "size": "1024x1024",
         "usage": {"input_tokens": 12, "input_tokens_details": {"image_tokens": 0,
                                                                 "text_tokens": 12},
                   "output_tokens": 4160, "total_tokens": 4172}}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def images(mode: str, method: str, config: dict[str, Any], **kwargs: Any) -> Any:
    """``client.images.<method>`` on a sync Client, its ``a<method>``, or an AsyncClient (on
    the transport the test runs on: support/transports.py)."""
    config = with_transport(config)
    if mode == "sync":
        with ai.Client(config) as client:
            return getattr(client.images, method)(**kwargs)

    async def run() -> Any:
        if mode == "acreate":
            with ai.Client(config) as client:
                return await getattr(client.images, f"a{method}")(**kwargs)
        async with ai.AsyncClient(config) as aclient:
            return await getattr(aclient.images, method)(**kwargs)

    return asyncio.run(run())


MODES = ["sync", "acreate", "async"]


# --- openai -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_generate_sends_what_the_openai_sdk_sends(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEN_URL).respond(200, json=REPLY, headers={"x-request-id": "r1"})
    resp = images(mode, "generate", CONFIGS, model="openai:gpt-image-1", prompt="a lighthouse",
                  n=1, size="1024x1024", quality="high", background="opaque")
    ours = json.loads(route.calls.last.request.content)
    openai.OpenAI(api_key=KEY, max_retries=0).images.generate(
        model="gpt-image-1", prompt="a lighthouse", n=1, size="1024x1024", quality="high",
        background="opaque")
    assert ours == json.loads(route.calls.last.request.content)
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    sdk_type = openai.types.ImagesResponse.model_validate(resp.model_dump())
    assert sdk_type.data[0].b64_json == PNG_B64 and sdk_type.usage.output_tokens == 4160
    assert base64.b64decode(resp.data[0].b64_json) == PNG
    assert (resp.provider, resp.model, resp.size, resp.quality) == (
        "openai", "gpt-image-1", "1024x1024", "high")


def test_url_results_and_revised_prompt(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(GEN_URL).respond(200, json={"created": 1, "data": [
        {"url": "https://files.example/img.png", "revised_prompt": "A tall lighthouse"}]})
    resp = images("sync", "generate", CONFIGS, model="openai:dall-e-3", prompt="lighthouse",
                  response_format="url", style="vivid")
    assert resp.data[0].url == "https://files.example/img.png"
    assert resp.data[0].revised_prompt == "A tall lighthouse" and resp.usage is None
    body = json.loads(httpx2_mock.calls.last.request.content)
    assert body["response_format"] == "url" and body["style"] == "vivid"


def test_usage_is_priced_from_its_tokens(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(GEN_URL).respond(200, json=REPLY)
    resp = images("sync", "generate", CONFIGS, model="openai:gpt-image-1", prompt="x")
    import genai_prices

    expected = genai_prices.calc_price(genai_prices.Usage(
        input_tokens=12, output_tokens=4160, output_image_tokens=4160), "gpt-image-1",
        provider_id="openai").total_price
    assert resp.usage.cost == pytest.approx(float(expected)) and resp.usage.cost > 0


@pytest.mark.parametrize("mode", MODES)
def test_edit_uploads_what_the_openai_sdk_uploads(mode: str, tmp_path: Any,
                                                  httpx2_mock: respx.Router) -> None:
    path = tmp_path / "room.png"
    path.write_bytes(PNG)
    route = httpx2_mock.post(EDIT_URL).respond(200, json=REPLY)
    images(mode, "edit", CONFIGS, model="openai:gpt-image-1", image=str(path), mask=PNG,
           prompt="add a cat", size="1024x1024")
    ours = multipart(route.calls.last.request)
    with open(path, "rb") as f:
        openai.OpenAI(api_key=KEY, max_retries=0).images.edit(
            model="gpt-image-1", image=("room.png", f.read(), "image/png"),
            mask=("image.png", PNG, "image/png"), prompt="add a cat", size="1024x1024")
    theirs = multipart(route.calls.last.request)
    assert sorted(ours) == sorted(theirs) == ["image", "mask", "model", "prompt", "size"]
    for name in ours:
        assert [(p.filename, p.content_type, p.data) for p in ours[name]] == \
            [(p.filename, p.content_type, p.data) for p in theirs[name]], name


def test_several_images_to_edit_go_as_a_list(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(EDIT_URL).respond(200, json=REPLY)
    images("sync", "edit", CONFIGS, model="openai:gpt-image-1", prompt="merge",
           image=[("a.png", PNG), ("b.png", PNG)])
    parts = multipart(route.calls.last.request)
    assert [p.filename for p in parts["image[]"]] == ["a.png", "b.png"]


def test_with_raw_response_gives_the_headers(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(GEN_URL).respond(200, json=REPLY, headers={"x-request-id": "req_img"})
    with ai.Client(CONFIGS) as client:
        raw = client.images.with_raw_response.generate(model="openai:gpt-image-1",
                                                       prompt="x")
    assert raw.request_id == "req_img" and raw.status_code == 200
    assert raw.parse().data[0].b64_json == PNG_B64

    async def run() -> Any:
        async with ai.AsyncClient(CONFIGS) as aclient:
            return await aclient.images.with_raw_response.generate(
                model="openai:gpt-image-1", prompt="x")
    assert asyncio.run(run()).request_id == "req_img"


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"prompt": ""}, ValueError, "prompt must not be empty"),
    ({"prompt": "x", "n": 0}, ValueError, "n must be from 1 to 10"),
    ({"prompt": "x", "response_format": "png"}, ValueError, "response_format must be one of"),
    ({"prompt": "x", "reponse_format": "url"}, TypeError, "did you mean 'response_format'"),
    ({"prompt": "x", "model": "gpt-image-1"}, ai.InvalidModelError, "provider:model"),
    ({"prompt": "x", "model": "anthropic:claude-sonnet-4-5"}, ai.UnsupportedFeatureError,
     "families that have it: openai, azure, google, bedrock"),
    ({"prompt": "x", "model": "groq:some-model"}, ai.UnsupportedFeatureError,
     "no images.generate API"),
])
def test_bad_calls_are_refused_before_sending(kwargs: dict[str, Any], error: type,
                                              words: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    call = {"model": "openai:gpt-image-1", **kwargs}
    configs = {**CONFIGS, "anthropic": {"api_key": "sk-ant-x"}, "groq": {"api_key": "gsk-x"}}
    with pytest.raises(error, match=words):
        images("sync", "generate", configs, **call)
    assert not route.called


def test_edit_refuses_what_is_not_an_image(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with pytest.raises(ai.UnsupportedParameterError, match="not a PNG, JPEG, GIF or WebP"):
        images("sync", "edit", CONFIGS, model="openai:gpt-image-1", prompt="x",
               image=b"%PDF-1.4 not an image")
    assert not route.called


def test_errors_are_mapped_retried_and_free_of_the_key(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEN_URL).mock(side_effect=[
        respx.MockResponse(500, json={"error": {"message": "busy"}}),
        respx.MockResponse(200, json=REPLY)])
    clock = FakeClock()
    config = {"openai": {"api_key": KEY, "retry_clock": clock}}
    resp = images("sync", "generate", config, model="openai:gpt-image-1", prompt="x")
    assert route.call_count == 2 and resp.data and len(clock.waits) == 1
    httpx2_mock.post(GEN_URL).respond(400, json={"error": {
        "message": f"Your prompt was rejected (key {KEY})", "type": "invalid_request_error",
        "code": "moderation_blocked"}})
    with pytest.raises(ai.BadRequestError) as caught:
        images("sync", "generate", CONFIGS, model="openai:gpt-image-1", prompt="x")
    assert caught.value.code == "moderation_blocked" and KEY not in str(caught.value)
    assert KEY not in repr(caught.value.body)


def test_a_reply_without_images_is_a_validation_error(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(GEN_URL).respond(200, json={"created": 1, "data": [{"nothing": 1}]})
    with pytest.raises(ai.APIResponseValidationError, match="data\\[0\\]"):
        images("sync", "generate", CONFIGS, model="openai:gpt-image-1", prompt="x")


# --- google -------------------------------------------------------------------------------


VERTEX = ("https://us-central1-aiplatform.googleapis.com/v1beta1/projects/my-proj/locations/"
          "us-central1/publishers/google/models/")


def vertex_config() -> dict[str, Any]:
    from google.oauth2.credentials import Credentials

    return {"google": {"vertexai": True, "project": "my-proj", "location": "us-central1",
                       "credentials": Credentials(token="ya29.test-token"), "max_retries": 0}}


@pytest.mark.sdk_only
def test_imagen_on_vertex_sends_what_google_genai_sends(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(VERTEX + "imagen-4.0-generate-001:predict").respond(200, json={
        "predictions": [{"bytesBase64Encoded": PNG_B64, "mimeType": "image/png"},
                        {"raiFilteredReason": "filtered"}]})
    resp = images("sync", "generate", vertex_config(), model="google:imagen-4.0-generate-001",
                  prompt="a fox", n=2, size="1792x1008", negative_prompt="blur")
    ours = json.loads(route.calls.last.request.content)
    from google import genai
    from google.genai import types
    from google.oauth2.credentials import Credentials

    gclient = genai.Client(vertexai=True, project="my-proj", location="us-central1",
                           credentials=Credentials(token="ya29.test-token"),
                           http_options={"api_version": "v1beta1"})
    with pytest.warns(Warning):  # google-genai marks generate_images deprecated
        gclient.models.generate_images(
            model="imagen-4.0-generate-001", prompt="a fox",
            config=types.GenerateImagesConfig(number_of_images=2, aspect_ratio="16:9",
                                              negative_prompt="blur"))
    assert ours == json.loads(route.calls.last.request.content)
    assert route.calls[0].request.headers["authorization"] == "Bearer ya29.test-token"
    assert [d.b64_json for d in resp.data] == [PNG_B64]  # the filtered one has no image
    openai.types.ImagesResponse.model_validate(resp.model_dump())


def test_imagen_on_the_gemini_api_is_refused_as_google_genai_does(
        httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with pytest.raises(ai.UnsupportedFeatureError, match=r"gemini-2\.5-flash-image"):
        images("sync", "generate", CONFIGS, model="google:imagen-4.0-generate-001",
               prompt="x")
    assert not route.called


@pytest.mark.parametrize("mode", MODES)
def test_gemini_image_models_send_what_google_genai_sends(mode: str,
                                                          httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEMINI + "gemini-2.5-flash-image:generateContent").respond(
        200, json={"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Here is your fox."},
            {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]},
            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 1290,
                              "totalTokenCount": 1297, "candidatesTokensDetails": [
                                  {"modality": "IMAGE", "tokenCount": 1290}]}})
    resp = images(mode, "generate", CONFIGS, model="google:gemini-2.5-flash-image",
                  prompt="a fox", size="1024x1024")
    ours = json.loads(route.calls.last.request.content)
    from google import genai
    from google.genai import types

    gclient = genai.Client(api_key=GEMINI_KEY, http_options={"api_version": "v1beta"})
    gclient.models.generate_content(model="gemini-2.5-flash-image", contents="a fox",
                          config=types.GenerateContentConfig(
                              response_modalities=["IMAGE"],
                              image_config=types.ImageConfig(aspect_ratio="1:1")))
    assert ours == json.loads(route.calls.last.request.content)
    assert route.calls[0].request.headers["x-goog-api-key"] == GEMINI_KEY
    assert resp.data[0].b64_json == PNG_B64 and resp.text == "Here is your fox."
    assert resp.usage.output_tokens == 1290 and resp.usage.cost is not None
    openai.types.ImagesResponse.model_validate(resp.model_dump())


def test_gemini_edits_with_the_images_inline(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(GEMINI + "gemini-2.5-flash-image:generateContent").respond(
        200, json={"candidates": [{"content": {"parts": [
            {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]}}]})
    images("sync", "edit", CONFIGS, model="google:gemini-2.5-flash-image", image=PNG,
           prompt="make it night")
    sent = json.loads(route.calls.last.request.content)
    assert sent["contents"] == [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/png", "data": PNG_B64}},
        {"text": "make it night"}]}]


@pytest.mark.parametrize(("model", "kwargs", "words"), [
    ("google:gemini-2.5-flash-image", {"n": 2}, "one image per request"),
    ("google:gemini-2.5-flash-image", {"response_format": "url"}, "not a URL"),
    ("google:imagen-4.0-generate-001", {"size": "1000x300"}, "aspect ratios"),
    ("google:imagen-4.0-generate-001", {"quality": "hd"}, "no quality"),
    ("google:imagen-4.0-generate-001", {"foo": 1}, "not an Imagen parameter"),
])
@pytest.mark.sdk_only  # its Imagen rows are Vertex AI's
def test_google_refuses_what_it_cannot_do(model: str, kwargs: dict[str, Any], words: str,
                                          httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    config = vertex_config() if "imagen" in model else CONFIGS
    with pytest.raises(ai.UnsupportedParameterError, match=words):
        images("sync", "generate", config, model=model, prompt="x", **kwargs)
    assert not route.called


@pytest.mark.sdk_only  # Vertex AI
def test_imagen_edit_is_refused_naming_who_edits(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with pytest.raises(ai.UnsupportedFeatureError, match="Vertex AI only"):
        images("sync", "edit", vertex_config(), model="google:imagen-4.0-generate-001",
               image=PNG, prompt="x")
    assert not route.called


def test_google_error_is_mapped(httpx2_mock: respx.Router) -> None:
    httpx2_mock.post(GEMINI + "gemini-2.5-flash-image:generateContent").respond(400, json={
        "error": {"code": 400, "message": "Invalid prompt", "status": "INVALID_ARGUMENT"}})
    with pytest.raises(ai.BadRequestError, match="Invalid prompt"):
        images("sync", "generate", CONFIGS, model="google:gemini-2.5-flash-image",
               prompt="x")


# --- bedrock ------------------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[BedrockServer]:
    isolate_aws(monkeypatch, tmp_path)
    with BedrockServer() as s:
        yield s


@pytest.mark.parametrize("mode", MODES)
def test_titan_image_generator_body(mode: str, server: BedrockServer) -> None:
    server.reply(Json({"images": [PNG_B64, PNG_B64], "error": None}))
    resp = images(mode, "generate", {"bedrock": server.config()},
                  model="bedrock:amazon.titan-image-generator-v2:0", prompt="a boat", n=2,
                  size="1024x1024", quality="hd", seed=7, negative_prompt="people")
    recorded = server.requests[-1]
    assert recorded.path == "/model/amazon.titan-image-generator-v2%3A0/invoke"
    assert recorded.json == {
        "taskType": "TEXT_IMAGE",
        "textToImageParams": {"text": "a boat", "negativeText": "people"},
        "imageGenerationConfig": {"numberOfImages": 2, "width": 1024, "height": 1024,
                                  "quality": "premium", "seed": 7}}
    assert [d.b64_json for d in resp.data] == [PNG_B64, PNG_B64]
    openai.types.ImagesResponse.model_validate(resp.model_dump())


def test_nova_canvas_edit_is_an_image_variation_or_inpainting(server: BedrockServer) -> None:
    server.reply(Json({"images": [PNG_B64]}), Json({"images": [PNG_B64]}))
    config = {"bedrock": server.config()}
    images("sync", "edit", config, model="bedrock:amazon.nova-canvas-v1:0", image=PNG,
           prompt="in winter")
    assert server.requests[-1].json == {
        "taskType": "IMAGE_VARIATION",
        "imageVariationParams": {"images": [PNG_B64], "text": "in winter"},
        "imageGenerationConfig": {"numberOfImages": 1}}
    images("sync", "edit", config, model="bedrock:amazon.nova-canvas-v1:0", image=PNG,
           prompt="a red door", mask_prompt="the door")
    assert server.requests[-1].json["inPaintingParams"] == {
        "image": PNG_B64, "text": "a red door", "maskPrompt": "the door"}


def test_stability_body_and_refusals(server: BedrockServer) -> None:
    server.reply(Json({"seeds": [1], "finish_reasons": [None], "images": [PNG_B64]}))
    config = {"bedrock": server.config()}
    resp = images("sync", "generate", config, model="bedrock:stability.sd3-5-large-v1:0",
                  prompt="a castle", size="1536x1024", output_format="png")
    assert server.requests[-1].json == {"prompt": "a castle", "aspect_ratio": "3:2",
                                          "output_format": "png"}
    assert resp.data[0].b64_json == PNG_B64
    before = len(server.requests)
    for kwargs, words in (({"n": 2}, "one image per request"),
                          ({"response_format": "url"}, "not a URL")):
        with pytest.raises(ai.UnsupportedParameterError, match=words):
            images("sync", "generate", config, model="bedrock:stability.sd3-5-large-v1:0",
                   prompt="x", **kwargs)
    with pytest.raises(ai.UnsupportedParameterError, match="mask_prompt"):
        images("sync", "edit", config, model="bedrock:amazon.nova-canvas-v1:0", image=PNG,
               mask=PNG, prompt="x")
    with pytest.raises(ai.UnsupportedFeatureError, match="Titan Image Generator"):
        images("sync", "generate", config, model="bedrock:anthropic.claude-3-haiku",
               prompt="x")
    assert len(server.requests) == before


def test_a_filtered_stability_reply_is_a_typed_error(server: BedrockServer) -> None:
    server.reply(Json({"seeds": [1], "finish_reasons": ["Filter reason: prompt"],
                       "images": []}))
    with pytest.raises(ai.BadRequestError, match="Filter reason"):
        images("sync", "generate", {"bedrock": server.config()},
               model="bedrock:stability.sd3-5-large-v1:0", prompt="x")
