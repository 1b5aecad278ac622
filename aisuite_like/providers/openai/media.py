"""The endpoints beside chat on the OpenAI family (docs/images.md, docs/audio.md,
docs/moderations.md, docs/files.md), as plans of SDK calls (``providers/plans.py``): each
builds the SDK's keyword arguments, yields the call, and reads the reply's JSON into our
types. Pure: no I/O, no SDK import.

Which service has which endpoint is ``ENDPOINTS`` (OpenAI and Azure OpenAI have them all but
moderations; Mistral's moderation API and Groq's translations speak OpenAI's protocol).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Optional

from ...core.cost import attach_price_ref
from ...core.errors import UnsupportedParameterError
from ...core.media import (
    MODERATION_CATEGORIES,
    FileDeleted,
    FileObject,
    Image,
    ImagesResponse,
    ImageTokensDetails,
    ImageUsage,
    Moderation,
    ModerationCategories,
    ModerationCategoryScores,
    ModerationCreateResponse,
    Translation,
)
from .._common import bad_shape, need_list, need_object
from ..base import FileRequest, ImageRequest, ModerationRequest, SpeechRequest, no_endpoint
from ..plans import Plan, SdkCall
from .errors import error_from_body

__all__ = ["ENDPOINTS", "check_endpoint", "images_plan", "speech_call", "moderation_plan",
           "files_plan", "parse_images", "parse_moderation", "parse_file", "translation_of"]

#: The services of the OpenAI family that have each endpoint.
ENDPOINTS: dict[str, frozenset[str]] = {
    "images.generate": frozenset({"openai", "azure"}),
    "images.edit": frozenset({"openai", "azure"}),
    "audio.speech": frozenset({"openai", "azure"}),
    "audio.translations": frozenset({"openai", "azure", "groq"}),
    "moderations": frozenset({"openai", "mistral"}),
    "files": frozenset({"openai", "azure"}),
}

#: Arguments of ours that a provider-native keyword may not name.
_OURS = frozenset({"model", "prompt", "n", "size", "quality", "response_format", "user",
                   "image", "mask", "input", "voice", "instructions", "speed", "file",
                   "purpose", "timeout"})


def check_endpoint(feature: str, service: str) -> None:
    """Refuse, before anything is sent, an endpoint ``service`` does not have."""
    if service not in ENDPOINTS[feature]:
        raise no_endpoint(feature, service)


def _native(kwargs: dict[str, Any], extra: Mapping[str, Any], named: frozenset[str],
            service: str) -> dict[str, Any]:
    """Provider-native keyword arguments: the SDK method's own (``named``) as they are, the
    rest in ``extra_body``; one that names a portable argument is refused."""
    extra_body: dict[str, Any] = {}
    for name, value in extra.items():
        if name == "extra_body":
            if not isinstance(value, Mapping):
                raise UnsupportedParameterError("extra_body must be a dict",
                                                parameter="extra_body", provider=service)
            extra_body.update(value)
        elif name in _OURS:
            raise UnsupportedParameterError(
                f"{name!r} cannot be passed as a provider-native argument", parameter=name,
                provider=service)
        elif name in named:
            kwargs[name] = value
        else:
            extra_body[name] = value
    if extra_body:
        kwargs["extra_body"] = extra_body
    return kwargs


# --- images -------------------------------------------------------------------------------


def images_plan(request: ImageRequest, service: str, named: frozenset[str]
                ) -> Plan[ImagesResponse]:
    """``images.generate`` / ``images.edit`` (the SDK's arguments; ``named`` are the
    method's parameter names), its reply read as ``ImagesResponse``."""
    check_endpoint(f"images.{request.operation}", service)
    kwargs: dict[str, Any] = {"model": request.model, "prompt": request.prompt}
    for name in ("n", "size", "quality", "response_format", "user"):
        value = getattr(request, name)
        if value is not None:
            kwargs[name] = value
    if request.operation == "edit":
        files = [(u.name, u.data, u.content_type) for u in request.images]
        kwargs["image"] = files[0] if len(files) == 1 else files
        if request.mask is not None:
            kwargs["mask"] = (request.mask.name, request.mask.data, request.mask.content_type)
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    _native(kwargs, request.extra, named, service)
    data = yield SdkCall(f"images.with_raw_response.{request.operation}", kwargs=kwargs)
    return parse_images(data, service, request.model)


def _image_usage(raw: Any, provider: str) -> Optional[ImageUsage]:
    if raw is None:
        return None
    usage = need_object(raw, provider, "usage")

    def count(name: str, source: Mapping[str, Any] = usage) -> int:
        value = source.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise bad_shape(provider, f"usage.{name}", "a count", value)
        return value

    def details(name: str) -> Optional[ImageTokensDetails]:
        found = usage.get(name)
        if not isinstance(found, Mapping):
            return None
        return ImageTokensDetails(image_tokens=count("image_tokens", found),
                                  text_tokens=count("text_tokens", found))

    return ImageUsage(input_tokens=count("input_tokens"),
                      input_tokens_details=details("input_tokens_details")
                      or ImageTokensDetails(),
                      output_tokens=count("output_tokens"), total_tokens=count("total_tokens"),
                      output_tokens_details=details("output_tokens_details"))


def parse_images(data: Any, provider: str, model: str) -> ImagesResponse:
    """An ``/images/generations`` or ``/images/edits`` reply -> ``ImagesResponse``."""
    body = need_object(data, provider, "the reply")
    if body.get("error"):
        raise error_from_body(body["error"], provider, where="error object in the reply")
    images = []
    for position, item in enumerate(need_list(body.get("data"), provider, "data")):
        item = need_object(item, provider, f"data[{position}]")
        fields = {k: item.get(k) for k in ("b64_json", "url", "revised_prompt")}
        for name, value in fields.items():
            if value is not None and not isinstance(value, str):
                raise bad_shape(provider, f"data[{position}].{name}", "a string", value)
        if fields["b64_json"] is None and fields["url"] is None:
            raise bad_shape(provider, f"data[{position}]", "an image (b64_json or url)", item)
        images.append(Image(**fields))
    created = body.get("created")
    extra = {k: body[k] for k in ("background", "output_format", "quality", "size")
             if isinstance(body.get(k), str)}
    response = ImagesResponse(
        created=created if isinstance(created, int) and not isinstance(created, bool)
        else int(time.time()), data=images, usage=_image_usage(body.get("usage"), provider),
        provider=provider, model=model, raw=data, **extra)
    attach_price_ref(response, model)
    return response


# --- speech -------------------------------------------------------------------------------


def speech_call(request: SpeechRequest, service: str, named: frozenset[str]) -> SdkCall:
    """``audio.speech.create`` (``with_raw_response`` whole, or ``with_streaming_response``
    with ``request.stream``)."""
    check_endpoint("audio.speech", service)
    kwargs: dict[str, Any] = {"model": request.model, "input": request.input,
                              "voice": request.voice}
    for name in ("response_format", "instructions", "speed"):
        value = getattr(request, name)
        if value is not None:
            kwargs[name] = value
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    _native(kwargs, request.extra, named, service)
    if request.stream:
        return SdkCall("audio.speech.with_streaming_response.create", kwargs=kwargs,
                       read="stream")
    return SdkCall("audio.speech.with_raw_response.create", kwargs=kwargs, read="bytes")


# --- moderations ----------------------------------------------------------------------------

# Mistral's categories with an OpenAI counterpart (the others keep their own names).
_MISTRAL = {"sexual": "sexual", "hate_and_discrimination": "hate",
            "violence_and_threats": "violence", "dangerous_and_criminal_content": "illicit",
            "selfharm": "self-harm"}


def moderation_plan(request: ModerationRequest, service: str, named: frozenset[str]
                    ) -> Plan[ModerationCreateResponse]:
    """``moderations.create`` (Mistral's ``/v1/moderations`` takes the same body)."""
    check_endpoint("moderations", service)
    if service == "mistral" and not (isinstance(request.input, str) or all(
            isinstance(item, str) for item in request.input)):
        raise UnsupportedParameterError(
            "mistral moderates text: input must be a str or a list of str (images are "
            "moderated by openai's omni-moderation models)", parameter="input",
            provider=service)
    kwargs: dict[str, Any] = {"model": request.model, "input": request.input}
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    _native(kwargs, request.extra, named, service)
    data = yield SdkCall("moderations.with_raw_response.create", kwargs=kwargs)
    return parse_moderation(data, service, request.model)


def _verdict(item: Any, provider: str, where: str) -> Moderation:
    item = need_object(item, provider, where)
    categories = need_object(item.get("categories"), provider, f"{where}.categories")
    scores = need_object(item.get("category_scores") or {}, provider,
                         f"{where}.category_scores")
    if provider == "mistral":  # Mistral's names -> OpenAI's where they match
        categories = {_MISTRAL.get(k, k): v for k, v in categories.items()}
        scores = {_MISTRAL.get(k, k): v for k, v in scores.items()}
    for name, value in categories.items():
        if value is not None and not isinstance(value, bool):
            raise bad_shape(provider, f"{where}.categories.{name}", "a bool", value)
    for name, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad_shape(provider, f"{where}.category_scores.{name}", "a number", value)
    flagged = item.get("flagged")
    if flagged is None:  # Mistral says each category only
        flagged = any(v is True for v in categories.values())
    elif not isinstance(flagged, bool):
        raise bad_shape(provider, f"{where}.flagged", "a bool", flagged)
    extra: dict[str, Any] = {}
    applied = item.get("category_applied_input_types")
    if isinstance(applied, Mapping):  # (every category has its entry, as OpenAI sends)
        extra["category_applied_input_types"] = {
            **{name: ["text"] for name in MODERATION_CATEGORIES}, **applied}
    return Moderation(flagged=flagged, categories=ModerationCategories(**categories),
                      category_scores=ModerationCategoryScores(**scores), **extra)


def parse_moderation(data: Any, provider: str, model: str) -> ModerationCreateResponse:
    """A ``/moderations`` reply (OpenAI's, or Mistral's categories mapped onto OpenAI's)
    -> ``ModerationCreateResponse``."""
    body = need_object(data, provider, "the reply")
    if body.get("error"):
        raise error_from_body(body["error"], provider, where="error object in the reply")
    results = [_verdict(item, provider, f"results[{i}]")
               for i, item in enumerate(need_list(body.get("results"), provider, "results"))]
    name = body.get("model")
    return ModerationCreateResponse(
        id=str(body.get("id") or ""), model=name if isinstance(name, str) and name else model,
        results=results, provider=provider, raw=data)


# --- translations ----------------------------------------------------------------------------


def translation_of(result: Any) -> Any:
    """A transcription-shaped reply as a ``Translation`` (text formats stay text)."""
    if isinstance(result, str):
        return result
    return Translation.model_construct(**dict(result))


# --- files ---------------------------------------------------------------------------------

def parse_file(data: Any, provider: str) -> FileObject:
    """A file object of the Files API -> ``FileObject``."""
    body = need_object(data, provider, "the file")
    file_id = body.get("id")
    if not isinstance(file_id, str) or not file_id:
        raise bad_shape(provider, "the file's id", "a string", file_id)
    fields: dict[str, Any] = {"id": file_id, "provider": provider}
    for name in ("bytes", "created_at", "expires_at"):
        value = body.get(name)
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool):
                raise bad_shape(provider, f"the file's {name}", "an integer", value)
            fields[name] = value
    for name in ("filename", "purpose", "status_details"):
        if isinstance(body.get(name), str):
            fields[name] = body[name]
    status = body.get("status")
    if status in ("uploaded", "processed", "error"):
        fields["status"] = status
    return FileObject(**fields)


def files_plan(request: FileRequest, service: str) -> Plan[Any]:
    """One ``client.files`` operation on the Files API."""
    check_endpoint("files", service)
    options: dict[str, Any] = dict(request.extra)
    if request.timeout is not None:
        options["timeout"] = request.timeout
    op = request.operation
    if op == "create":
        upload = request.upload
        assert upload is not None
        data = yield SdkCall("files.with_raw_response.create", kwargs={
            "file": (upload.name, upload.data, upload.content_type),
            "purpose": request.purpose, **options})
        return parse_file(data, service)
    if op == "list":
        data = yield SdkCall("files.with_raw_response.list",
                             kwargs={**request.params, **options})
        body = need_object(data, service, "the file list")
        files = [parse_file(item, service) for item in need_list(body.get("data"), service,
                                                                  "data")]
        more = body.get("has_more") is True and bool(files)
        return files, files[-1].id if more else None
    args = (request.file_id,)
    if op == "retrieve":
        data = yield SdkCall("files.with_raw_response.retrieve", args, options)
        return parse_file(data, service)
    if op == "delete":
        data = yield SdkCall("files.with_raw_response.delete", args, options)
        body = need_object(data, service, "the reply")
        return FileDeleted(id=str(body.get("id") or request.file_id),
                           deleted=body.get("deleted") is not False)
    reply = yield SdkCall("files.with_raw_response.content", args, options, read="bytes")
    from ...core.media import BinaryResponse

    return BinaryResponse(reply.content, reply.content_type, provider=service)


#: The arguments of ``responses.create`` that ``responses.input_tokens.count`` takes too
#: (what the count is of); sampling and output limits are not sent to the count.
COUNT_PARAMS = ("model", "input", "instructions", "tools", "tool_choice", "text",
                "parallel_tool_calls", "reasoning", "truncation", "conversation",
                "previous_response_id", "extra_headers")


def count_plan(kwargs: dict[str, Any], provider: str, model: str) -> Plan[Any]:
    """``POST /v1/responses/input_tokens`` (the SDK's ``responses.input_tokens.count``) for
    the ``responses.create`` arguments ``kwargs`` of a request: ``TokenCount``."""
    from .._common import counted

    params = {name: kwargs[name] for name in COUNT_PARAMS if name in kwargs}
    data = yield SdkCall("responses.input_tokens.with_raw_response.count", kwargs=params)
    return counted(data, provider, "input_tokens", "openai responses/input_tokens", model)
