"""``client.models``: the models each configured provider reports, as OpenAI's ``Model``
objects with ids written ``"provider:model"`` (docs/models.md).

Each provider's list is its family's own API (``GET /models`` on OpenAI and the compatible
services, Anthropic's ``GET /v1/models``, Gemini's ``models`` / Vertex AI's publisher models,
Bedrock's ``ListFoundationModels``), called through the provider's transport and so through
the same retries, timeouts, secrets handling and error mapping as chat.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Coroutine, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, Optional, overload

from ..client.base import configured_provider_keys, parse_model, resolve_provider
from ..client.prepare import provider_stack
from ..core.errors import AisuiteLikeError, NotFoundError, UnsupportedFeatureError
from ..core.types import Model, TokenCount

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..model_info.types import ModelInfo
    from ..providers.base import ChatRequest, Provider

__all__ = ["Models", "AsyncModels", "ModelList"]

OnError = Literal["keep", "raise"]


class ModelList:
    """The models of ``client.models.list()``, in the shape of the OpenAI SDK's page:
    ``object == "list"``, ``data`` (a list of :class:`~aisuite_like.Model`), iterable, with
    ``len()``. Every provider's list was read whole (there is no next page).

    ``errors`` maps the key of each provider whose list could not be read to its error
    (empty when all answered; see docs/models.md for when ``list()`` raises instead)."""

    object: Literal["list"] = "list"

    __slots__ = ("data", "errors")

    def __init__(self, data: list[Model], errors: Optional[dict[str, AisuiteLikeError]] = None
                 ) -> None:
        self.data = data
        self.errors: dict[str, AisuiteLikeError] = errors or {}

    def __iter__(self) -> Iterator[Model]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    @overload
    def __getitem__(self, index: int) -> Model: ...

    @overload
    def __getitem__(self, index: slice) -> list[Model]: ...

    def __getitem__(self, index: Any) -> Any:
        return self.data[index]

    def has_next_page(self) -> bool:
        """False: every provider's list was read whole (the OpenAI SDK's page method)."""
        return False

    def to_dict(self) -> dict[str, Any]:
        """``{"object": "list", "data": [...]}``, each model as its ``to_dict()``."""
        return {"object": "list", "data": [m.to_dict() for m in self.data]}

    def __repr__(self) -> str:
        failed = f", errors={sorted(self.errors)}" if self.errors else ""
        return f"ModelList({len(self.data)} models{failed})"


def _keys(client: ClientBase, provider: Optional[str], on_error: Any) -> list[str]:
    """The provider keys to list (checked before anything is sent)."""
    if on_error not in ("keep", "raise"):
        raise ValueError(f"on_error must be 'keep' or 'raise', got {on_error!r}")
    if provider is None:
        return configured_provider_keys(client)
    if not isinstance(provider, str) or not provider or ":" in provider:
        raise TypeError(f"provider must be a provider key such as 'openai' (no model name), "
                        f"got {provider!r}")
    return [provider]  # an unknown key: UnknownProviderError when it is resolved


def _provider(client: ClientBase, key: str) -> Provider:
    return provider_stack(client, key, resolve_provider(client, key))


def _named(models: list[Model], key: str) -> list[Model]:
    """The provider's models with ids written ``"key:model"`` (the key the client knows the
    provider by, so an id is a valid ``model=``). The objects are the provider's fresh ones."""
    for model in models:
        model.id = f"{key}:{model.id}"
        model.provider = key
    return models


def _page(data: list[Model], errors: dict[str, AisuiteLikeError]) -> ModelList:
    """Partial failures are kept on the page and warned about; when no provider answered,
    the first error is raised (there is nothing to show)."""
    if errors and not data:
        raise next(iter(errors.values()))
    if errors:
        warnings.warn(
            "client.models.list(): could not list "
            + "; ".join(f"{key} ({type(e).__name__}: {e})" for key, e in errors.items())
            + ". The other providers' models are listed; the errors are in .errors",
            RuntimeWarning, stacklevel=3)
    return ModelList(data, errors)


def _find(models: Sequence[Model], model: str) -> Model:
    for entry in models:
        if entry.id == model:
            return entry
    key = model.partition(":")[0]
    raise NotFoundError(f"model {model!r} is not among the {len(models)} models provider "
                        f"{key!r} lists (client.models.list({key!r}) shows them)",
                        provider=key, status_code=404)


def _info_args(client: ClientBase, model: str, live: Any) -> tuple[str, str]:
    if not isinstance(live, bool):
        raise TypeError(f"live must be True or False, got {live!r}")
    key, name = parse_model(model)
    client._check_known(key)
    return key, name


def _info(client: ClientBase, key: str, name: str, raw: Any, live: bool) -> ModelInfo:
    """The ``ModelInfo`` of ``key:name`` from its sources (``raw``: the provider's entry when
    asked live)."""
    from ..model_info.info import merged_info, provider_facts
    from ..model_info.profile import client_profile

    if live and raw is None:
        raise NotFoundError(f"model {key}:{name!r} is not among the models provider {key!r} "
                            f"lists, so it cannot describe it (live=False reads the "
                            "snapshot only)", provider=key, status_code=404)
    profile = client_profile(client, key, name)
    return merged_info(key, name, provider=provider_facts(key, raw) if live else None,
                       **profile)


def _count_request(client: ClientBase, model: str, messages: Any, tools: Any, system: Any
                   ) -> tuple[Provider, ChatRequest]:
    """The provider and ``ChatRequest`` whose input is counted: the call ``create`` would
    prepare for these arguments (messages checked, tools made schemas), ``system`` first."""
    from ..client.prepare import prepare_call

    if system is not None:
        if not isinstance(system, str):
            raise TypeError(f"system must be a string, got {type(system).__name__}")
        if not isinstance(messages, (list, tuple)):
            raise TypeError("messages must be a list of messages")
        messages = [{"role": "system", "content": system}, *messages]
    kwargs: dict[str, Any] = {"tools": tools} if tools is not None else {}
    prepared = prepare_call(client, model, messages, kwargs)
    return prepared.provider, prepared.request


def _estimated(model: str, request: ChatRequest) -> TokenCount:
    from ..model_info.checks import estimated_count

    return estimated_count(request, model)


class Models:
    """``client.models`` of the sync client (docs/models.md)."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    def list(self, provider: Optional[str] = None, *, on_error: OnError = "keep") -> ModelList:
        """The models of every configured provider (``provider=``: of that one only), ids
        written ``"provider:model"``. A provider whose list fails is left out and its error
        kept in ``errors`` (with a ``RuntimeWarning``), or raised with ``on_error="raise"``;
        with ``provider=`` given, or when no provider answered, the error is raised."""
        keys = _keys(self._client, provider, on_error)
        data: list[Model] = []
        errors: dict[str, AisuiteLikeError] = {}
        for key in keys:
            try:
                data += _named(_provider(self._client, key).list_models(), key)
            except AisuiteLikeError as exc:
                if provider is not None or on_error == "raise":
                    raise
                errors[key] = exc
        return _page(data, errors)

    def retrieve(self, model: str) -> Model:
        """One model, by its ``"provider:model"`` id: read from that provider's list
        (``NotFoundError`` when it is not there)."""
        key, _ = parse_model(model)
        return _find(self.list(key).data, model)

    def info(self, model: str, *, live: bool = False) -> ModelInfo:
        """What is known about ``model`` (``"provider:model"``): a ``ModelInfo`` from the
        snapshot shipped in the package, a probe profile of the provider's config, and with
        ``live=True`` the provider's own model endpoint (one request: its models list), each
        more trusted than the one before. Unknown facts are None."""
        key, name = _info_args(self._client, model, live)
        raw = _provider(self._client, key).model_metadata(name) if live else None
        return _info(self._client, key, name, raw, live)

    def count_tokens(self, model: str, messages: Any, *, tools: Any = None,
                     system: Optional[str] = None) -> TokenCount:
        """The input tokens of a call with these ``messages`` (and ``tools``, ``system``):
        counted by the provider's counting API where its family has one (``exact=True``),
        else estimated (``exact=False``). One request to the provider, or none."""
        provider, request = _count_request(self._client, model, messages, tools, system)
        try:
            return provider.count_tokens(request)
        except UnsupportedFeatureError:
            return _estimated(model, request)


class _ModelListRequest:
    """What ``await aclient.models.list()`` and ``async for m in aclient.models.list()``
    both take (the OpenAI SDK's async paginator is awaitable and async-iterable)."""

    def __init__(self, models: AsyncModels, provider: Optional[str], on_error: OnError
                 ) -> None:
        self._args = (models, provider, on_error)
        self._items: Optional[Iterator[Model]] = None

    def _run(self) -> Coroutine[Any, Any, ModelList]:
        models, provider, on_error = self._args
        return models._list(provider, on_error)

    def __await__(self) -> Generator[Any, None, ModelList]:
        return self._run().__await__()

    def __aiter__(self) -> _ModelListRequest:
        return self

    async def __anext__(self) -> Model:
        if self._items is None:
            self._items = iter((await self._run()).data)
        try:
            return next(self._items)
        except StopIteration:
            raise StopAsyncIteration from None


class AsyncModels:
    """``aclient.models`` of the async client (docs/models.md): providers are listed
    concurrently."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    def list(self, provider: Optional[str] = None, *, on_error: OnError = "keep"
             ) -> _ModelListRequest:
        """``await aclient.models.list()`` -> :class:`ModelList`; ``async for model in
        aclient.models.list()`` iterates the models. Arguments as ``Client.models.list``;
        checked when called, before anything is sent."""
        _keys(self._client, provider, on_error)
        return _ModelListRequest(self, provider, on_error)

    async def _list(self, provider: Optional[str], on_error: OnError) -> ModelList:
        keys = _keys(self._client, provider, on_error)

        async def one(key: str) -> list[Model]:
            return _named(await _provider(self._client, key).alist_models(), key)

        results = await asyncio.gather(*(one(key) for key in keys), return_exceptions=True)
        data: list[Model] = []
        errors: dict[str, AisuiteLikeError] = {}
        for key, result in zip(keys, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, AisuiteLikeError) or provider is not None \
                        or on_error == "raise":
                    raise result
                errors[key] = result
            else:
                data += result
        return _page(data, errors)

    async def retrieve(self, model: str) -> Model:
        """One model, by its ``"provider:model"`` id (as ``Client.models.retrieve``)."""
        key, _ = parse_model(model)
        return _find((await self._list(key, "raise")).data, model)

    async def info(self, model: str, *, live: bool = False) -> ModelInfo:
        """``Client.models.info``, awaited."""
        key, name = _info_args(self._client, model, live)
        raw = await _provider(self._client, key).amodel_metadata(name) if live else None
        return _info(self._client, key, name, raw, live)

    async def count_tokens(self, model: str, messages: Any, *, tools: Any = None,
                           system: Optional[str] = None) -> TokenCount:
        """``Client.models.count_tokens``, awaited."""
        provider, request = _count_request(self._client, model, messages, tools, system)
        try:
            return await provider.acount_tokens(request)
        except UnsupportedFeatureError:
            return _estimated(model, request)
