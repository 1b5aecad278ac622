"""``client.images``: image generation and editing on every family that has it, in the OpenAI
SDK's shape (docs/images.md).

    resp = client.images.generate(model="openai:gpt-image-1", prompt="a lighthouse at dawn")
    png = base64.b64decode(resp.data[0].b64_json)

One preparation (``_prepare``) for sync and async: the arguments checked, the images to edit
read for upload, the provider made; the provider's ``images`` / ``aimages`` does the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

from ..core.media import ImagesResponse, read_upload
from ..providers.base import ImageRequest
from ._common import (
    RawResource,
    check_choice,
    check_count,
    check_keywords,
    check_text,
    check_timeout,
    endpoint_provider,
)

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..providers.base import Provider

__all__ = ["Images", "AsyncImages"]

#: The largest image accepted for an edit (OpenAI's GPT image models take 50 MB).
MAX_IMAGE_BYTES = 50 * 1024 * 1024

_KNOWN = ("prompt", "model", "n", "quality", "response_format", "size", "user", "image",
          "mask", "timeout", "background", "output_format", "output_compression", "moderation",
          "style", "aspect_ratio", "negative_prompt", "seed")

ResponseFormat = Literal["url", "b64_json"]


def _prepare(client: ClientBase, operation: str, model: Any, prompt: Any, *,
             image: Any = None, mask: Any = None, n: Any = None, quality: Any = None,
             response_format: Any = None, size: Any = None, user: Any = None,
             timeout: Any = None, extra: dict[str, Any]) -> tuple[Provider, ImageRequest]:
    check_text("prompt", prompt)
    check_count("n", n, high=10)
    check_text("size", size, optional=True)
    check_text("quality", quality, optional=True)
    check_choice("response_format", response_format, ("url", "b64_json"))
    check_text("user", user, optional=True)
    check_timeout(timeout)
    check_keywords(f"images.{operation}", extra, _KNOWN)
    key, name, provider = endpoint_provider(client, model)
    images = []
    if operation == "edit":
        given = image if isinstance(image, list) else [image]
        if not given or any(item is None for item in given):
            raise TypeError("images.edit() needs image=: the image to edit (a path, bytes, a "
                            "(name, bytes) tuple or a binary file object), or a list of them")
        images = [read_upload(item, key, MAX_IMAGE_BYTES, what="image", parameter="image",
                              images_only=True) for item in given]
    masked = read_upload(mask, key, MAX_IMAGE_BYTES, what="mask", parameter="mask",
                         images_only=True) if mask is not None else None
    request = ImageRequest(operation, name, prompt, n=n, size=size, quality=quality,
                           response_format=response_format, user=user, images=images,
                           mask=masked, extra=dict(extra), timeout=timeout)
    return provider, request


class Images:
    """``client.images``: ``generate`` and ``edit`` (and ``agenerate`` / ``aedit``, the
    async twins on the sync client); ``with_raw_response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        """``with_raw_response.generate(...)``: a ``RawResponse`` with the reply's headers
        (docs/client.md)."""
        return RawResource(self)

    def generate(self, *, prompt: str, model: str, n: Optional[int] = None,
                 quality: Optional[str] = None, response_format: Optional[ResponseFormat] = None,
                 size: Optional[str] = None, user: Optional[str] = None, timeout: Any = None,
                 **provider_kwargs: Any) -> ImagesResponse:
        """Images made from ``prompt`` by ``model`` (``"provider:model"``): ``n`` of them,
        ``size`` as ``"WIDTHxHEIGHT"``, ``quality`` and ``response_format`` (``"b64_json"``
        or ``"url"``) where the model takes them. Other keywords are provider-native
        (OpenAI's ``background``, ``output_format``; Imagen's ``aspect_ratio``, ...)."""
        provider, request = _prepare(
            self._client, "generate", model, prompt, n=n, quality=quality,
            response_format=response_format, size=size, user=user, timeout=timeout,
            extra=provider_kwargs)
        return provider.images(request)

    def edit(self, *, image: Any, prompt: str, model: str, mask: Any = None,
             n: Optional[int] = None, quality: Optional[str] = None,
             response_format: Optional[ResponseFormat] = None, size: Optional[str] = None,
             user: Optional[str] = None, timeout: Any = None,
             **provider_kwargs: Any) -> ImagesResponse:
        """``image`` (a path, bytes, a ``(name, bytes)`` tuple or a binary file object, or a
        list of them) changed as ``prompt`` says; ``mask`` (transparent where to change)
        where the family takes one."""
        provider, request = _prepare(
            self._client, "edit", model, prompt, image=image, mask=mask, n=n, quality=quality,
            response_format=response_format, size=size, user=user, timeout=timeout,
            extra=provider_kwargs)
        return provider.images(request)

    async def agenerate(self, *, prompt: str, model: str, **kwargs: Any) -> ImagesResponse:
        """Async ``generate`` on the sync client."""
        provider, request = _prepare(self._client, "generate", model, prompt,
                                     **_split(kwargs))
        return await provider.aimages(request)

    async def aedit(self, *, image: Any, prompt: str, model: str,
                    **kwargs: Any) -> ImagesResponse:
        """Async ``edit`` on the sync client."""
        provider, request = _prepare(self._client, "edit", model, prompt, image=image,
                                     **_split(kwargs))
        return await provider.aimages(request)


def _split(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The portable keywords of ``kwargs`` as ``_prepare`` takes them, the rest as
    ``extra``."""
    portable: dict[str, Any] = {name: kwargs.pop(name) for name in (
        "mask", "n", "quality", "response_format", "size", "user", "timeout") if name in kwargs}
    return {**portable, "extra": kwargs}


class AsyncImages:
    """``aclient.images``: ``await generate(...)`` / ``await edit(...)``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    async def generate(self, *, prompt: str, model: str, n: Optional[int] = None,
                       quality: Optional[str] = None,
                       response_format: Optional[ResponseFormat] = None,
                       size: Optional[str] = None, user: Optional[str] = None,
                       timeout: Any = None, **provider_kwargs: Any) -> ImagesResponse:
        """See ``Client.images.generate``."""
        provider, request = _prepare(
            self._client, "generate", model, prompt, n=n, quality=quality,
            response_format=response_format, size=size, user=user, timeout=timeout,
            extra=provider_kwargs)
        return await provider.aimages(request)

    async def edit(self, *, image: Any, prompt: str, model: str, mask: Any = None,
                   n: Optional[int] = None, quality: Optional[str] = None,
                   response_format: Optional[ResponseFormat] = None,
                   size: Optional[str] = None, user: Optional[str] = None,
                   timeout: Any = None, **provider_kwargs: Any) -> ImagesResponse:
        """See ``Client.images.edit``."""
        provider, request = _prepare(
            self._client, "edit", model, prompt, image=image, mask=mask, n=n, quality=quality,
            response_format=response_format, size=size, user=user, timeout=timeout,
            extra=provider_kwargs)
        return await provider.aimages(request)
