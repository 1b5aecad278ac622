"""``client.moderations``: whether texts (and, on OpenAI's omni models, images) break a
content policy, in the OpenAI SDK's shape, on OpenAI and Mistral (docs/moderations.md).

    result = client.moderations.create(model="openai:omni-moderation-latest",
                                       input="some text").results[0]
    result.flagged, result.categories.violence
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.media import ModerationCreateResponse
from ..providers.base import ModerationRequest
from ._common import RawResource, check_keywords, check_timeout, endpoint_provider

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..providers.base import Provider

__all__ = ["Moderations", "AsyncModerations"]


def _copy_input(input: Any) -> Any:
    """A text, a list of texts, or OpenAI's parts (``{"type": "text", "text": ...}``,
    ``{"type": "image_url", "image_url": {"url": ...}}``), copied: the caller's list is
    never changed."""
    if isinstance(input, str):
        if not input:
            raise ValueError("input must not be empty")
        return input
    if isinstance(input, (bytes, bytearray)) or not isinstance(input, Sequence) or not input:
        raise TypeError("input must be a str, a non-empty list of str, or a list of "
                        "OpenAI's text / image_url parts")
    out: list[Any] = []
    for i, item in enumerate(input):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping) and item.get("type") in ("text", "image_url"):
            out.append({k: dict(v) if isinstance(v, Mapping) else v for k, v in item.items()})
        else:
            raise TypeError(f"input[{i}] must be a str or an OpenAI text / image_url part, "
                            f"got {type(item).__name__}")
    return out


def _prepare(client: ClientBase, model: Any, input: Any, timeout: Any,
             extra: dict[str, Any]) -> tuple[Provider, ModerationRequest]:
    copied = _copy_input(input)
    check_timeout(timeout)
    check_keywords("moderations.create", extra, ("input", "model", "timeout"))
    _, name, provider = endpoint_provider(client, model)
    return provider, ModerationRequest(name, copied, extra=dict(extra), timeout=timeout)


class Moderations:
    """``client.moderations``: ``create`` (and ``acreate``); ``with_raw_response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    def create(self, *, input: Any, model: str, timeout: Any = None,
               **provider_kwargs: Any) -> ModerationCreateResponse:
        """The verdict on each input, by ``model`` (``"openai:omni-moderation-latest"``,
        ``"mistral:mistral-moderation-latest"``)."""
        provider, request = _prepare(self._client, model, input, timeout, provider_kwargs)
        return provider.moderate(request)

    async def acreate(self, *, input: Any, model: str, timeout: Any = None,
                      **provider_kwargs: Any) -> ModerationCreateResponse:
        """Async ``create`` on the sync client."""
        provider, request = _prepare(self._client, model, input, timeout, provider_kwargs)
        return await provider.amoderate(request)


class AsyncModerations:
    """``aclient.moderations``: ``await create(...)``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    async def create(self, *, input: Any, model: str, timeout: Any = None,
                     **provider_kwargs: Any) -> ModerationCreateResponse:
        """See ``Client.moderations.create``."""
        provider, request = _prepare(self._client, model, input, timeout, provider_kwargs)
        return await provider.amoderate(request)
