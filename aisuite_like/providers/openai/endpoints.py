"""The endpoints beside chat on ``OpenAIProvider`` (docs/images.md, docs/audio.md,
docs/moderations.md, docs/files.md): the plans of ``media.py`` performed with the SDK's sync
or async client, through the provider's retries and error mapping (``providers/plans.py``).
A mixin of the transport, so ``transport.py`` stays about chat."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import UnsupportedFeatureError
from ...core.types import TokenCount
from .. import retry as _retry
from ..base import (
    ChatRequest,
    EmbeddingRequest,
    FileRequest,
    ImageRequest,
    ModerationRequest,
    SpeechRequest,
    TranscriptionRequest,
    mapped_errors,
)
from ..plans import Plan, SdkCall, arun, run

if TYPE_CHECKING:
    from ...core.embeddings import CreateEmbeddingResponse
    from ...core.media import ImagesResponse, ModerationCreateResponse
    from .services import ServiceSpec

__all__ = ["OpenAIEndpoints"]

_NAMED: dict[str, frozenset[str]] = {}


def _named(path: str, native: bool = False) -> frozenset[str]:
    """The parameter names of the SDK method at ``path`` (read once from the installed
    SDK's resource classes; on the native transport, which imports no SDK, the copy in
    ``native.SDK_NAMED``)."""
    if native:
        from .native import SDK_NAMED

        return SDK_NAMED[path]
    found = _NAMED.get(path)
    if found is None:
        import importlib

        module, cls, method = {
            "images.generate": ("openai.resources.images", "Images", "generate"),
            "images.edit": ("openai.resources.images", "Images", "edit"),
            "audio.speech": ("openai.resources.audio.speech", "Speech", "create"),
            "moderations": ("openai.resources.moderations", "Moderations", "create"),
        }[path]
        target = getattr(getattr(importlib.import_module(module), cls), method)
        found = _NAMED[path] = frozenset(inspect.signature(target).parameters) - {"self"}
    return found


def _speech_plan(request: SpeechRequest, service: str, native: bool) -> Plan[Any]:
    from .media import speech_call

    reply = yield speech_call(request, service, _named("audio.speech", native))
    return reply


def _translation_plan(request: TranscriptionRequest, service: str) -> Plan[Any]:
    from .audio import parse_transcription, transcription_kwargs
    from .media import check_endpoint, translation_of

    check_endpoint("audio.translations", service)
    kwargs = transcription_kwargs(request, request.response_format)
    kwargs.pop("language", None)
    from ..plans import SdkCall

    reply = yield SdkCall("audio.translations.with_raw_response.create", kwargs=kwargs,
                          read="bytes")
    return translation_of(parse_transcription(reply.content, request,
                                              request.response_format, service))


class OpenAIEndpoints:
    """``embed``, ``images``, ``speech``, ``translate``, ``moderate``, ``files`` and their
    async twins for ``OpenAIProvider`` (which gives ``_sync()``, ``_async()``, ``_calls``,
    ``_error`` and ``key``)."""

    key: str
    _calls: Any

    if TYPE_CHECKING:  # the transport's
        def _sync(self) -> Any: ...

        def _async(self) -> Any: ...

        def _error(self, exc: BaseException) -> BaseException: ...

        def _responses_params(self) -> frozenset[str]: ...

        _config: dict[str, Any]
        spec: ServiceSpec
        _native: Any
        _embedding_inputs: Optional[int]

    def plan_client(self, is_async: bool) -> Any:
        """What performs this provider's plans: the SDK client, or on the native transport
        our own HTTP (``plans.NativeCalls``: the same plans, each call as the SDK sends
        it)."""
        native = self._native
        if native is not None:
            from ..plans import NativeCalls

            return NativeCalls(native.http, native.sdk_call)
        return self._async() if is_async else self._sync()

    def _run(self, plan: Plan[Any], timeout: Any) -> Any:
        return run(self, self.plan_client(False), plan,  # type: ignore[arg-type]
                   self._calls.bounds(timeout))

    async def _arun(self, plan: Plan[Any], timeout: Any) -> Any:
        return await arun(self, self.plan_client(True), plan,  # type: ignore[arg-type]
                          self._calls.bounds(timeout))

    # -- token counting (docs/models.md): OpenAI's POST /v1/responses/input_tokens --

    def _count_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        from ..registry import canonical_key
        from . import responses as _responses

        if canonical_key(self.key) != "openai":
            raise UnsupportedFeatureError(
                f"{self.key}: no token counting API (OpenAI's own has one)",
                feature="models.count_tokens", provider=self.key)
        return _responses.build_chat(request.replace(stream=False, max_tokens=None),
                                     self._responses_params(), self.key)

    def _native_counted(self, reply: Any, model: str) -> TokenCount:
        from ...core.exchange import note
        from ...core.reading import decode_json, read_reply
        from .._common import counted

        request_id = reply.headers.get("x-request-id")
        note(reply.status, reply.headers, request_id=request_id, url=reply.url)
        data = decode_json(reply.content, self.key, status_code=reply.status,
                           request_id=request_id)
        count: TokenCount = read_reply(
            lambda: counted(data, self.key, "input_tokens", "openai responses/input_tokens",
                            f"{self.key}:{model}"), self.key, reply.status, request_id)
        return count

    def _native_count(self, request: ChatRequest) -> Any:
        from .media import COUNT_PARAMS

        kwargs = self._count_kwargs(request)
        return self._native.request({k: kwargs[k] for k in COUNT_PARAMS if k in kwargs},
                                    path="/responses/input_tokens")

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        from .. import retry as _retry
        from .media import count_plan

        native = self._native
        if native is not None:
            return _retry.call(
                self._calls, lambda r: self._native_counted(native.http.post(r), request.model),
                self._native_count(request), self._calls.bounds(request.timeout))
        plan = count_plan(self._count_kwargs(request), self.key, f"{self.key}:{request.model}")
        count: TokenCount = self._run(plan, request.timeout)
        return count

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        from .. import retry as _retry
        from .media import count_plan

        native = self._native
        if native is not None:
            async def once(http_request: Any) -> TokenCount:
                return self._native_counted(await native.http.apost(http_request),
                                            request.model)

            return await _retry.acall(self._calls, once, self._native_count(request),
                                      self._calls.bounds(request.timeout))
        plan = count_plan(self._count_kwargs(request), self.key, f"{self.key}:{request.model}")
        count: TokenCount = await self._arun(plan, request.timeout)
        return count

    # -- a model's own description (client.models.info(live=True)): Ollama's /api/show --

    def _show(self, model: str) -> Plan[Any]:
        import httpx2

        from ...core.reading import decode_json

        base = str(self._config.get("base_url") or self.spec.base_url or "").rstrip("/")
        root = base[:-3] if base.endswith("/v1") else base
        reply = yield SdkCall("post", args=(f"{root}/api/show",),
                              kwargs={"body": {"model": model}, "cast_to": httpx2.Response},
                              read="raw")
        data = decode_json(reply.content, self.key, status_code=reply.status_code)
        return data if isinstance(data, dict) else None

    def model_metadata(self, model: str) -> Any:
        from ..registry import canonical_key

        if canonical_key(self.key) != "ollama" or self._native is not None:
            return super().model_metadata(model)  # type: ignore[misc]  # Provider's
        return self._run(self._show(model), None)

    async def amodel_metadata(self, model: str) -> Any:
        from ..registry import canonical_key

        if canonical_key(self.key) != "ollama" or self._native is not None:
            return await super().amodel_metadata(model)  # type: ignore[misc]  # Provider's
        return await self._arun(self._show(model), None)

    def _images(self, request: ImageRequest) -> Plan[ImagesResponse]:
        from .media import images_plan

        return images_plan(request, self.key, _named(f"images.{request.operation}",
                                                     self._native is not None))

    def images(self, request: ImageRequest) -> ImagesResponse:
        response: ImagesResponse = self._run(self._images(request), request.timeout)
        return response

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        response: ImagesResponse = await self._arun(self._images(request), request.timeout)
        return response

    def speech(self, request: SpeechRequest) -> Any:
        from ...core.media import BinaryResponse

        reply = self._run(_speech_plan(request, self.key, self._native is not None),
                          request.timeout)
        if not request.stream:
            return BinaryResponse(reply.content, reply.content_type, provider=self.key,
                                  model=request.model, headers=dict(reply.headers))
        return reply.headers.get("content-type") or "application/octet-stream", \
            reply.headers, _chunks(reply, self._error)

    async def aspeech(self, request: SpeechRequest) -> Any:
        from ...core.media import BinaryResponse

        reply = await self._arun(_speech_plan(request, self.key, self._native is not None),
                                 request.timeout)
        if not request.stream:
            return BinaryResponse(reply.content, reply.content_type, provider=self.key,
                                  model=request.model, headers=dict(reply.headers))
        return reply.headers.get("content-type") or "application/octet-stream", \
            reply.headers, _achunks(reply, self._error)

    def translate(self, request: TranscriptionRequest) -> Any:
        return self._run(_translation_plan(request, self.key), request.timeout)

    async def atranslate(self, request: TranscriptionRequest) -> Any:
        return await self._arun(_translation_plan(request, self.key), request.timeout)

    def moderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        from .media import moderation_plan

        plan = moderation_plan(request, self.key, _named("moderations",
                                                         self._native is not None))
        response: ModerationCreateResponse = self._run(plan, request.timeout)
        return response

    async def amoderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        from .media import moderation_plan

        plan = moderation_plan(request, self.key, _named("moderations",
                                                         self._native is not None))
        response: ModerationCreateResponse = await self._arun(plan, request.timeout)
        return response

    def files(self, request: FileRequest) -> Any:
        from .media import files_plan

        return self._run(files_plan(request, self.key), request.timeout)

    async def afiles(self, request: FileRequest) -> Any:
        from .media import files_plan

        return await self._arun(files_plan(request, self.key), request.timeout)

    # -- embeddings (docs/embeddings.md) --

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        from .embeddings import build_embeddings_request, embeddings_limit

        build_embeddings_request(request, self.spec)  # what the service cannot honour raises
        return embeddings_limit(self.spec, self._embedding_inputs)

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        from .embeddings import build_embeddings_request

        call = (build_embeddings_request(request, self.spec), request.model)
        return _retry.call(self._calls, self._embed_once, call,
                           self._calls.bounds(request.timeout))

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        from .embeddings import build_embeddings_request

        call = (build_embeddings_request(request, self.spec), request.model)
        return await _retry.acall(self._calls, self._aembed_once, call,
                                  self._calls.bounds(request.timeout))

    def _embed_once(self, call: tuple[dict[str, Any], str]) -> CreateEmbeddingResponse:
        if self._native is not None:
            reply = self._native.http.post(self._native.request(call[0], "/embeddings"))
            return self._native_embeddings(reply, call[1])
        with mapped_errors(self._error):
            raw = self._sync().embeddings.with_raw_response.create(**call[0])
            body = raw.http_response.content
        return self._read_embeddings(raw.http_response.status_code,
                                     raw.http_response.headers, body, call[1])

    async def _aembed_once(self, call: tuple[dict[str, Any], str]) -> CreateEmbeddingResponse:
        if self._native is not None:
            reply = await self._native.http.apost(self._native.request(call[0], "/embeddings"))
            return self._native_embeddings(reply, call[1])
        with mapped_errors(self._error):
            raw = await self._async().embeddings.with_raw_response.create(**call[0])
            body = raw.http_response.content
        return self._read_embeddings(raw.http_response.status_code,
                                     raw.http_response.headers, body, call[1])

    def _native_embeddings(self, reply: Any, model: str) -> CreateEmbeddingResponse:
        from ...core.exchange import note_reply

        note_reply(reply, reply.headers.get("x-request-id"))  # for with_raw_response
        return self._read_embeddings(reply.status, reply.headers, reply.content, model)

    def _read_embeddings(self, status: int, headers: Any, body: bytes,
                         model: str) -> CreateEmbeddingResponse:
        from ...core.reading import decode_json, read_reply
        from .embeddings import parse_embeddings

        request_id = headers.get("x-request-id")
        data = decode_json(body, self.key, status_code=status, request_id=request_id)
        return read_reply(lambda: parse_embeddings(data, self.key, model), self.key, status,
                          request_id)


def _chunks(http: Any, error: Any) -> Iterator[bytes]:
    """A streamed reply's body as it arrives (a connection lost midway: the mapped error);
    closing the iterator closes the reply."""
    try:
        with mapped_errors(error):
            yield from http.iter_bytes()
    finally:
        http.close()


async def _achunks(http: Any, error: Any) -> AsyncIterator[bytes]:
    try:
        with mapped_errors(error):
            async for chunk in http.aiter_bytes():
                yield chunk
    finally:
        await http.aclose()
