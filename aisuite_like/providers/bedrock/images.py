"""Images on Amazon Bedrock (docs/images.md) through ``InvokeModel``: the request bodies of
Amazon's image models (Titan Image Generator, Nova Canvas: ``TEXT_IMAGE``, and for an edit
``IMAGE_VARIATION``, or ``INPAINTING`` with a ``mask_prompt``) and of Stability AI's
(``text-to-image``, ``image-to-image``), and their replies -> ``ImagesResponse``. Pure: no
I/O, no SDK import."""

from __future__ import annotations

import base64
import time
from typing import Any

from ...core.errors import UnsupportedFeatureError, UnsupportedParameterError
from ...core.media import Image, ImagesResponse, aspect_ratio, image_size
from .._common import bad_shape, need_object
from ..base import ImageRequest

__all__ = ["image_kind", "build_image_body", "parse_image_reply"]

_STABILITY_RATIOS = ("16:9", "1:1", "21:9", "2:3", "3:2", "4:5", "5:4", "9:16", "9:21")
#: OpenAI's quality words -> Amazon's.
_QUALITY = {"standard": "standard", "hd": "premium", "premium": "premium", "high": "premium",
            "medium": "standard", "low": "standard"}


def image_kind(model: str, provider: str) -> str:
    """``"amazon"`` (Titan Image Generator, Nova Canvas) or ``"stability"``."""
    model_id = model.rsplit("/", 1)[-1].lower()
    if "titan-image-generator" in model_id or "nova-canvas" in model_id:
        return "amazon"
    if "stability." in model_id:
        return "stability"
    raise UnsupportedFeatureError(
        f"{provider} makes images with Amazon's Titan Image Generator "
        "(amazon.titan-image-generator-v2:0), Nova Canvas (amazon.nova-canvas-v1:0) and "
        f"Stability AI's models (stability.sd3-5-large-v1:0, ...); {model!r} is none of them",
        feature="images.generate", provider=provider)


def _refuse(provider: str, name: str, why: str) -> UnsupportedParameterError:
    return UnsupportedParameterError(f"{name}: {why}", parameter=name, provider=provider)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def build_image_body(request: ImageRequest, provider: str) -> dict[str, Any]:
    """``request`` -> the ``InvokeModel`` JSON body for its model. Provider-native keyword
    arguments are body fields of the model's own (``negative_prompt``, ``seed``,
    ``cfg_scale``, ``mask_prompt``, ``similarity_strength``, ``strength``, ...)."""
    kind = image_kind(request.model, provider)
    if request.response_format == "url":
        raise _refuse(provider, "response_format", "Bedrock returns the image's bytes, not a "
                      "URL: leave response_format out (or 'b64_json')")
    if request.user is not None:
        raise _refuse(provider, "user", "InvokeModel has no end-user field")
    if request.mask is not None:
        raise _refuse(provider, "mask", "Bedrock's image models take a black-and-white mask "
                      "of their own, not OpenAI's transparent one: describe the area with "
                      "mask_prompt='...' (Titan, Nova Canvas), or pass the model's own body "
                      "fields")
    extra = dict(request.extra)
    if kind == "stability":
        return _stability_body(request, provider, extra)
    config: dict[str, Any] = {"numberOfImages": request.n or 1}
    if request.size is not None:
        config["width"], config["height"] = image_size(request.size, provider)
    if request.quality is not None:
        if request.quality not in _QUALITY:
            raise _refuse(provider, "quality", f"Amazon's image models take 'standard' or "
                          f"'premium' (OpenAI's 'hd'), got {request.quality!r}")
        config["quality"] = _QUALITY[request.quality]
    for ours, theirs in (("cfg_scale", "cfgScale"), ("seed", "seed")):
        if ours in extra:
            config[theirs] = extra.pop(ours)
    negative = extra.pop("negative_prompt", None)
    body: dict[str, Any]
    if request.operation == "generate":
        params: dict[str, Any] = {"text": request.prompt}
        if negative is not None:
            params["negativeText"] = negative
        body = {"taskType": "TEXT_IMAGE", "textToImageParams": params}
    elif "mask_prompt" in extra:
        if len(request.images) != 1:
            raise _refuse(provider, "image", "inpainting changes one image")
        params = {"image": _b64(request.images[0].data), "text": request.prompt,
                  "maskPrompt": extra.pop("mask_prompt")}
        if negative is not None:
            params["negativeText"] = negative
        body = {"taskType": "INPAINTING", "inPaintingParams": params}
    else:
        params = {"images": [_b64(u.data) for u in request.images], "text": request.prompt}
        if "similarity_strength" in extra:
            params["similarityStrength"] = extra.pop("similarity_strength")
        if negative is not None:
            params["negativeText"] = negative
        body = {"taskType": "IMAGE_VARIATION", "imageVariationParams": params}
    body["imageGenerationConfig"] = config
    body.update(extra)
    return body


def _stability_body(request: ImageRequest, provider: str, extra: dict[str, Any]
                    ) -> dict[str, Any]:
    if request.n not in (None, 1):
        raise _refuse(provider, "n", f"{request.model} makes one image per request")
    if request.quality is not None:
        raise _refuse(provider, "quality", "Stability AI's models have no quality setting")
    body: dict[str, Any] = {"prompt": request.prompt}
    if request.size is not None:
        body["aspect_ratio"] = aspect_ratio(request.size, _STABILITY_RATIOS, provider)
    if request.operation == "edit":
        if len(request.images) != 1:
            raise _refuse(provider, "image", "Stability AI's image-to-image changes one image")
        body.update({"mode": "image-to-image", "image": _b64(request.images[0].data),
                     "strength": extra.pop("strength", 0.7)})
    body.update(extra)
    return body


def parse_image_reply(data: Any, request: ImageRequest, provider: str) -> ImagesResponse:
    """An image model's reply (``{"images": [base64, ...]}``, with Amazon's ``error`` or
    Stability's ``finish_reasons``) -> ``ImagesResponse``."""
    body = need_object(data, provider, "the reply")
    error = body.get("error")
    if error:
        from ...core.errors import BadRequestError

        raise BadRequestError(f"{provider} could not make the image: {str(error)[:300]}",
                              provider=provider, status_code=200)
    images = body.get("images")
    if not isinstance(images, list) or not images or not all(
            isinstance(i, str) and i for i in images):
        reasons = [r for r in body.get("finish_reasons") or () if r]
        if reasons:
            from ...core.errors import BadRequestError

            raise BadRequestError(f"{provider} made no image: {reasons[0]}",
                                  provider=provider, status_code=200)
        raise bad_shape(provider, "images", "an array of base64 images", images)
    return ImagesResponse(created=int(time.time()), data=[Image(b64_json=i) for i in images],
                          provider=provider, model=request.model, raw=data)
