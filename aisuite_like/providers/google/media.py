"""The endpoints beside chat on the Gemini API (docs/images.md, docs/audio.md, docs/files.md),
as plans of SDK calls (``providers/plans.py``). Pure: no I/O, no SDK import.

- images: Imagen models (``imagen-*``) through ``:predict``; Gemini's image-output models
  (``gemini-*-image*``) through ``:generateContent`` with ``responseModalities: ["IMAGE"]``
  (an edit sends the images as inline parts before the prompt).
- speech: Gemini's TTS models through ``:generateContent`` with ``responseModalities:
  ["AUDIO"]`` and the voice's ``speechConfig``; the 24 kHz PCM it returns is given as WAV
  (or raw ``pcm``, OpenAI's name for the same samples).
- files: the Files API: upload through google-genai's ``files.upload`` (its resumable
  protocol), the rest through its request layer (``files/<id>``, ``files?pageToken=``).
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Optional
from urllib.parse import urlencode

from ...core.cost import attach_price_ref
from ...core.errors import UnsupportedParameterError
from ...core.media import (
    BinaryResponse,
    FileDeleted,
    FileObject,
    Image,
    ImagesResponse,
    ImageTokensDetails,
    ImageUsage,
    aspect_ratio,
    wav_from_pcm,
)
from .._common import bad_shape, need_list, need_object
from ..base import FileRequest, ImageRequest, SpeechRequest, no_endpoint
from ..plans import Plan, SdkCall
from .errors import error_event

__all__ = ["count_body", "images_plan", "speech_plan", "files_plan", "parse_file", "is_imagen"]

#: The aspect ratios each kind of model makes.
_IMAGEN_RATIOS = ("1:1", "3:4", "4:3", "9:16", "16:9")
_GEMINI_RATIOS = ("1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9")

#: Builds one request of google-genai's request layer: (method, path, body) -> SdkCall.
Call = Callable[[str, str, dict[str, Any]], SdkCall]


def is_imagen(model: str) -> bool:
    return model.rsplit("/", 1)[-1].startswith("imagen")


def _refuse(provider: str, name: str, why: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(f"{name}: {why}", parameter=name, provider=provider)


def _common_checks(request: ImageRequest, provider: str) -> None:
    if request.response_format == "url":
        raise _refuse(provider, "response_format",
                      "Gemini and Imagen return the image's bytes, not a URL: leave "
                      "response_format out (or 'b64_json')")
    if request.quality is not None:
        raise _refuse(provider, "quality", f"{provider} has no quality setting; leave it out")
    if request.user is not None:
        raise _refuse(provider, "user", f"{provider} takes no end-user id; leave it out")


def images_plan(request: ImageRequest, provider: str, model_path: str,
                call: Call, vertex: bool) -> Plan[ImagesResponse]:
    """An image call on an Imagen model (Vertex AI) or a Gemini image model
    (``model_path``: the model's resource)."""
    _common_checks(request, provider)
    extra = dict(request.extra)
    if is_imagen(request.model):
        if not vertex:  # as google-genai: the Gemini API's Imagen models are retired
            raise no_endpoint("images.generate", provider,
                              f"{request.model} is served by Vertex AI (vertexai=True); on "
                              "the Gemini API use a Gemini image model such as "
                              "gemini-2.5-flash-image")
        if request.operation == "edit":
            raise no_endpoint("images.edit", provider,
                              f"Imagen edits images on Vertex AI only ({request.model})")
        parameters: dict[str, Any] = {"sampleCount": request.n or 1}
        if request.size is not None:
            parameters["aspectRatio"] = aspect_ratio(request.size, _IMAGEN_RATIOS, provider)
        for ours, theirs in (("aspect_ratio", "aspectRatio"),
                             ("negative_prompt", "negativePrompt"),
                             ("output_mime_type", "outputOptions"),
                             ("person_generation", "personGeneration"), ("seed", "seed")):
            if ours in extra:
                value = extra.pop(ours)
                parameters[theirs] = {"mimeType": value} if ours == "output_mime_type" \
                    else value
        parameters.update(extra.pop("parameters", None) or {})
        if extra:
            raise _refuse(provider, sorted(extra)[0], "not an Imagen parameter (pass "
                          "parameters={...} for one of the API's own)")
        data = yield call("post", f"{model_path}:predict", {
            "instances": [{"prompt": request.prompt}], "parameters": parameters})
        return _imagen_reply(data, provider, request.model)
    if request.n not in (None, 1):
        raise _refuse(provider, "n", f"{request.model} makes one image per request (Imagen "
                      "models take n up to 4)")
    if request.mask is not None:
        raise _refuse(provider, "mask", "Gemini edits by the prompt: leave the mask out")
    parts: list[dict[str, Any]] = [
        {"inlineData": {"mimeType": u.content_type,
                        "data": base64.b64encode(u.data).decode("ascii")}}
        for u in request.images]
    parts.append({"text": request.prompt})
    config: dict[str, Any] = {"responseModalities": ["IMAGE"]}
    ratio = extra.pop("aspect_ratio", None)
    if request.size is not None:
        ratio = aspect_ratio(request.size, _GEMINI_RATIOS, provider)
    if ratio is not None:
        config["imageConfig"] = {"aspectRatio": ratio}
    config.update(extra.pop("generation_config", None) or {})
    if extra:
        raise _refuse(provider, sorted(extra)[0], "not a Gemini image parameter (pass "
                      "generation_config={...} for one of the API's own)")
    data = yield call("post", f"{model_path}:generateContent", {
        "contents": [{"role": "user", "parts": parts}], "generationConfig": config})
    return _gemini_images(data, provider, request.model)


def _imagen_reply(data: Any, provider: str, model: str) -> ImagesResponse:
    body = need_object(data, provider, "the reply")
    images = []
    for i, item in enumerate(body.get("predictions") or ()):
        item = need_object(item, provider, f"predictions[{i}]")
        encoded = item.get("bytesBase64Encoded")
        if encoded is None:  # filtered out (raiFilteredReason): no image for it
            continue
        if not isinstance(encoded, str):
            raise bad_shape(provider, f"predictions[{i}].bytesBase64Encoded", "base64 text",
                            encoded)
        images.append(Image(b64_json=encoded))
    if not images:
        reasons = [p.get("raiFilteredReason") for p in body.get("predictions") or ()
                   if isinstance(p, Mapping)]
        from ...core.errors import APIResponseValidationError

        raise APIResponseValidationError(
            f"{provider} returned no image" + (f" (filtered: {reasons[0]})" if reasons and
                                               reasons[0] else ""), provider=provider)
    return ImagesResponse(created=int(time.time()), data=images, provider=provider,
                          model=model, raw=data)


def _candidate_parts(data: Any, provider: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    body = need_object(data, provider, "the reply")
    if body.get("error"):
        raise error_event(body["error"], provider, where="error object in the reply")
    candidates = need_list(body.get("candidates"), provider, "candidates")
    if not candidates:
        raise bad_shape(provider, "candidates", "at least one candidate", candidates)
    first = need_object(candidates[0], provider, "candidates[0]")
    content = need_object(first.get("content") or {}, provider, "candidates[0].content")
    parts = content.get("parts") or []
    if not isinstance(parts, list):
        raise bad_shape(provider, "candidates[0].content.parts", "an array", parts)
    return [p for p in parts if isinstance(p, dict)], body


def _inline(part: dict[str, Any], provider: str) -> Optional[tuple[str, bytes]]:
    inline = part.get("inlineData") or part.get("inline_data")
    if not isinstance(inline, Mapping):
        return None
    mime = inline.get("mimeType") or inline.get("mime_type") or ""
    encoded = inline.get("data")
    if not isinstance(encoded, str):
        raise bad_shape(provider, "inlineData.data", "base64 text", encoded)
    try:
        return str(mime), base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise bad_shape(provider, "inlineData.data", "base64 text", "(not base64)") from None


def _gemini_images(data: Any, provider: str, model: str) -> ImagesResponse:
    parts, body = _candidate_parts(data, provider)
    images, texts = [], []
    for part in parts:
        found = _inline(part, provider)
        if found is not None and found[0].startswith("image/"):
            images.append(Image(b64_json=base64.b64encode(found[1]).decode("ascii")))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
    if not images:
        from ...core.errors import APIResponseValidationError

        finish = (body.get("candidates") or [{}])[0].get("finishReason")
        raise APIResponseValidationError(
            f"{provider} returned no image (finish reason {finish!r})"
            + (f"; it said: {''.join(texts)[:200]!r}" if texts else ""), provider=provider)
    extra = {"text": "".join(texts)} if texts else {}
    response = ImagesResponse(created=int(time.time()), data=images, provider=provider,
                              model=model, usage=_image_usage(body.get("usageMetadata")),
                              raw=data, **extra)
    attach_price_ref(response, model)
    return response


def _by_modality(details: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in details if isinstance(details, list) else ():
        if isinstance(item, Mapping) and isinstance(item.get("tokenCount"), int):
            key = str(item.get("modality", "")).lower()
            out[key] = out.get(key, 0) + item["tokenCount"]
    return out


def _image_usage(meta: Any) -> Optional[ImageUsage]:
    if not isinstance(meta, Mapping):
        return None

    def count(name: str) -> int:
        value = meta.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    prompt, output = count("promptTokenCount"), count("candidatesTokenCount")
    inputs = _by_modality(meta.get("promptTokensDetails"))
    outputs = _by_modality(meta.get("candidatesTokensDetails"))
    return ImageUsage(
        input_tokens=prompt, output_tokens=output, total_tokens=prompt + output,
        input_tokens_details=ImageTokensDetails(image_tokens=inputs.get("image", 0),
                                                text_tokens=inputs.get("text", 0)),
        output_tokens_details=ImageTokensDetails(image_tokens=outputs.get("image", output),
                                                 text_tokens=outputs.get("text", 0)))


# --- speech ----------------------------------------------------------------------------------

_RATE = re.compile(r"rate=(\d+)")


def speech_plan(request: SpeechRequest, provider: str, model_path: str,
                call: Call) -> Plan[BinaryResponse]:
    """Text to speech on a Gemini TTS model: WAV (the default) or raw PCM."""
    fmt = request.response_format or "wav"
    if fmt not in ("wav", "pcm"):
        raise _refuse(provider, "response_format",
                      f"Gemini speaks 24 kHz PCM: ask for 'wav' or 'pcm', not {fmt!r}")
    if request.speed is not None:
        raise _refuse(provider, "speed", "Gemini's TTS has no speed setting: say the pace "
                      "in instructions= ('Say slowly')")
    if not isinstance(request.voice, str):
        raise _refuse(provider, "voice", "Gemini's voices are named ('Kore', 'Puck', ...)")
    extra = dict(request.extra)
    text = f"{request.instructions}: {request.input}" if request.instructions \
        else request.input
    config: dict[str, Any] = {"responseModalities": ["AUDIO"], "speechConfig": {
        "voiceConfig": {"prebuiltVoiceConfig": {"voiceName": request.voice}}}}
    config.update(extra.pop("generation_config", None) or {})
    if extra:
        raise _refuse(provider, sorted(extra)[0], "not a Gemini speech parameter (pass "
                      "generation_config={...} for one of the API's own)")
    data = yield call("post", f"{model_path}:generateContent", {
        "contents": [{"role": "user", "parts": [{"text": text}]}], "generationConfig": config})
    parts, body = _candidate_parts(data, provider)
    pcm, rate = b"", 24000
    for part in parts:
        found = _inline(part, provider)
        if found is not None and found[0].startswith("audio/"):
            pcm += found[1]
            match = _RATE.search(found[0])
            if match:
                rate = int(match.group(1))
    if not pcm:
        from ...core.errors import APIResponseValidationError

        raise APIResponseValidationError(f"{provider} returned no audio", provider=provider)
    meta = body.get("usageMetadata") if isinstance(body.get("usageMetadata"), Mapping) else {}
    usage = {"input_tokens": meta.get("promptTokenCount", 0),
             "output_tokens": meta.get("candidatesTokenCount", 0),
             "total_tokens": meta.get("totalTokenCount", 0)} if meta else None
    if fmt == "pcm":
        return BinaryResponse(pcm, f"audio/L16;rate={rate}", provider=provider,
                              model=request.model, usage=usage)
    return BinaryResponse(wav_from_pcm(pcm, rate), "audio/wav", provider=provider,
                          model=request.model, usage=usage)


# --- files ----------------------------------------------------------------------------------

_STATES = {"PROCESSING": "uploaded", "ACTIVE": "processed", "FAILED": "error"}


def _epoch(value: Any) -> Optional[int]:
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, str) and value:
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
        except ValueError:
            return None
    return None


def parse_file(data: Any, provider: str) -> FileObject:
    """A Gemini ``File`` (its JSON, camelCase; or google-genai's model dumped, snake_case)
    -> ``FileObject``: the id is its name (``files/<id>``)."""
    body = need_object(data, provider, "the file")

    def get(camel: str, snake: str) -> Any:
        return body.get(camel, body.get(snake))

    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise bad_shape(provider, "the file's name", "a string", name)
    size = get("sizeBytes", "size_bytes")
    try:
        size = int(size) if size is not None else 0
    except (TypeError, ValueError):
        raise bad_shape(provider, "the file's sizeBytes", "a count", size) from None
    state = get("state", "state")
    state = getattr(state, "value", state)
    fields: dict[str, Any] = {
        "id": name, "bytes": size, "created_at": _epoch(get("createTime", "create_time")) or 0,
        "filename": get("displayName", "display_name") or name.rsplit("/", 1)[-1],
        "expires_at": _epoch(get("expirationTime", "expiration_time")),
        "status": _STATES.get(str(state), "processed"), "provider": provider}
    for camel, snake, ours in (("mimeType", "mime_type", "mime_type"), ("uri", "uri", "uri")):
        value = get(camel, snake)
        if isinstance(value, str):
            fields[ours] = value
    return FileObject(**fields)


_FILE_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")


def file_path(file_id: str, provider: str) -> str:
    """``files/<id>`` (or a Gemini file's uri) as a request path; an id of another shape
    (one anyone may have altered to reach another route) is refused."""
    name = file_id.rsplit("/files/", 1)[-1] if file_id.startswith("https://") else (
        file_id[len("files/"):] if file_id.startswith("files/") else file_id)
    if not _FILE_NAME.fullmatch(name):
        raise UnsupportedParameterError(
            f"{file_id[:80]!r} is not a Gemini file name ('files/<id>')",
            parameter="file_id", provider=provider)
    return "files/" + name


def files_plan(request: FileRequest, provider: str, call: Call) -> Plan[Any]:
    """One ``client.files`` operation on the Gemini Files API."""
    op = request.operation
    if op == "create":
        upload = request.upload
        assert upload is not None
        import io

        def config() -> dict[str, Any]:
            return {"mime_type": upload.content_type, "display_name": upload.name,
                    **request.extra}

        created = yield SdkCall("client.files.upload",
                                kwargs={"file": io.BytesIO(upload.data), "config": config()},
                                async_path="client.aio.files.upload",
                                async_kwargs={"file": io.BytesIO(upload.data),
                                              "config": config()},
                                read="raw", once=True)
        dumped = created.model_dump(mode="json", exclude_none=True) \
            if hasattr(created, "model_dump") else created
        return parse_file(dumped, provider)
    if op == "list":
        query: dict[str, Any] = {}
        if "limit" in request.params:
            query["pageSize"] = request.params["limit"]
        if "after" in request.params:
            query["pageToken"] = request.params["after"]
        for name in ("order", "purpose"):
            if name in request.params:
                raise _refuse(provider, name, "Gemini's Files API lists files by time, "
                              "for every purpose; leave it out")
        data = yield call("get", "files" + (f"?{urlencode(query)}" if query else ""), {})
        body = need_object(data, provider, "the file list")
        files = [parse_file(item, provider) for item in body.get("files") or ()]
        token = body.get("nextPageToken")
        return files, token if isinstance(token, str) and token else None
    assert request.file_id is not None
    path = file_path(request.file_id, provider)
    if op == "retrieve":
        data = yield call("get", path, {})
        return parse_file(data, provider)
    if op == "delete":
        yield call("delete", path, {})
        return FileDeleted(id=request.file_id)
    raise no_endpoint("files", provider, "Gemini's Files API does not give back an uploaded "
                      "file's bytes (files.content); keep your own copy")


def count_body(body: Mapping[str, Any], vertex: bool) -> dict[str, Any]:
    """The body of ``models/{model}:countTokens`` for a ``generateContent`` body (the count
    is of its contents, system instruction and tools; never its generation config).

    Without a system instruction or tools it is ``{"contents": [...]}``, what google-genai's
    ``models.count_tokens`` sends. With them: on Vertex AI the fields beside ``contents`` (as
    the SDK sends them there); on the Gemini API, which counts those only inside a whole
    request, ``{"generateContentRequest": {"model", "contents", "systemInstruction",
    "tools"}}`` (Google's REST reference; the SDK refuses them in this mode). The caller sets
    the ``model`` of that request."""
    counted = {name: body[name] for name in ("contents", "systemInstruction", "tools")
               if name in body}
    if vertex or set(counted) <= {"contents"}:
        return counted
    return {"generateContentRequest": {"model": "", **counted}}
