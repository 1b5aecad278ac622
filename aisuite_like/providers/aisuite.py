"""aisuite's provider interface, for aisuite code (docs/migration.md, "From aisuite").

- ``ProviderFactory``: aisuite's factory (``create_provider(key, config)``,
  ``get_supported_providers()``). The client makes every provider through
  ``ProviderFactory.create_provider``, as aisuite's client does, so code that replaces it
  (aisuite's tests patch it) reaches the client.
- ``AisuiteProvider``: a provider object written for aisuite (``chat_completions_create(model,
  messages, **kwargs)``, optionally ``achat_completions_create``,
  ``chat_completions_create_stream``, ``achat_completions_create_stream`` and
  ``audio.transcriptions.create(model, file, **params)``) used as an aisuite_like provider.
  It is called as aisuite calls it: the model name, the messages, and only the arguments the
  caller gave. A manual call (``create`` / ``acreate`` without ``max_turns``) returns its reply
  as the provider gave it (``as_given``), as aisuite's client does; everything else in the
  library (the tool runner, agents, fallbacks) reads replies through ``complete`` /
  ``stream``, which turn a chat-completion-shaped reply (objects or dicts with
  ``choices[i].message``) into a ``ChatCompletionResponse`` and anything else into an
  ``APIResponseValidationError``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Optional

from ..core.errors import APIResponseValidationError
from .base import ChatRequest, Provider, TranscriptionRequest
from .registry import canonical_key, create_provider, provider_keys

__all__ = ["ProviderFactory", "AisuiteProvider", "DuckTypedProvider", "as_provider",
           "is_aisuite_provider"]


class ProviderFactory:
    """aisuite's ``ProviderFactory``: ``create_provider(provider_key, config)`` makes the
    provider for a key (aliases included: ``aws`` is ``bedrock``, ``gemini`` is ``google``)
    from its config; ``get_supported_providers()`` is the set of keys. The client calls
    ``ProviderFactory.create_provider`` for every provider it makes; what it returns may be an
    aisuite_like ``Provider`` or an aisuite-style provider object (wrapped in
    ``AisuiteProvider``)."""

    @classmethod
    def create_provider(cls, provider_key: str, config: dict[str, Any]) -> Any:
        return create_provider(canonical_key(provider_key), dict(config))

    @classmethod
    def get_supported_providers(cls) -> set[str]:
        return set(provider_keys())


def is_aisuite_provider(obj: Any) -> bool:
    """Whether ``obj`` is a provider written for aisuite rather than for aisuite_like."""
    return not isinstance(obj, Provider) and (
        callable(getattr(obj, "chat_completions_create", None))
        or getattr(obj, "audio", None) is not None)


def as_provider(obj: Any, key: str) -> Provider:
    """``obj`` as an aisuite_like ``Provider``: itself, or an aisuite-style provider wrapped
    in ``AisuiteProvider``. Anything else is a ``TypeError`` naming what a provider needs."""
    if isinstance(obj, Provider):
        return obj
    if is_aisuite_provider(obj):
        return AisuiteProvider(obj, key)
    if callable(getattr(obj, "complete", None)):  # duck-typed aisuite_like provider
        return DuckTypedProvider(obj, key)
    raise TypeError(
        f"the provider for {key!r} is a {type(obj).__name__}, which is neither an "
        "aisuite_like.Provider (complete/acomplete/stream/astream) nor an aisuite provider "
        "(chat_completions_create)")


#: The methods of the ``Provider`` contract a duck-typed provider may have.
_CONTRACT_METHODS = ("complete", "acomplete", "stream", "astream", "transcribe", "atranscribe",
                     "list_models", "alist_models", "create_response", "acreate_response",
                     "stream_response", "astream_response", "embedding_limit", "embed",
                     "aembed", "close", "aclose")


class DuckTypedProvider(Provider):
    """A provider object that has ``complete`` (and maybe more of the contract) without
    subclassing ``Provider``, made one at the client's door: each method of the contract it
    has is its own, the others are the contract's defaults; ``offline`` (or ``_offline``),
    ``native_responses`` and ``max_concurrency`` are its own when it has them."""

    def __init__(self, inner: Any, key: str = "") -> None:
        self.inner = inner
        own = getattr(inner, "key", "")
        self.key = own if isinstance(own, str) and own else key
        self.offline = bool(getattr(inner, "offline", getattr(inner, "_offline", False)))
        self.native_responses = bool(getattr(inner, "native_responses", False))
        self.max_concurrency = getattr(inner, "max_concurrency", None)
        methods = {name: getattr(inner, name, None) for name in _CONTRACT_METHODS}
        if callable(methods["embed"]) and not callable(methods["embedding_limit"]):
            methods["embedding_limit"] = _no_limit  # it embeds, with no stated limit
        for name, method in methods.items():
            if callable(method):
                setattr(self, name, method)

    def __repr__(self) -> str:
        return f"DuckTypedProvider({type(self.inner).__name__}, key={self.key!r})"


def _no_limit(request: Any) -> None:
    return None


class AisuiteProvider(Provider):
    """A provider written for aisuite, called as aisuite calls it (module docstring)."""

    def __init__(self, inner: Any, key: str = "") -> None:
        self.inner = inner
        self.key = key
        # The row of aisuite's ASR parameter table this provider is validated with: its key's.
        self.audio_params = key
        #: aisuite providers read their audio file themselves: no format or size check here.
        self.audio_input = None

    def __repr__(self) -> str:
        return f"AisuiteProvider({type(self.inner).__name__}, key={self.key!r})"

    # -- calls as aisuite makes them --

    @staticmethod
    def _kwargs(request: ChatRequest) -> dict[str, Any]:
        """The arguments the caller gave, by aisuite's names (None means not given)."""
        kwargs: dict[str, Any] = {}
        for name in ("tool_choice", "parallel_tool_calls", "response_format", "temperature",
                     "top_p", "stop", "seed", "user", "n", "timeout", "stream_options"):
            value = getattr(request, name)
            if value is not None:
                kwargs[name] = value
        if request.max_tokens is not None:
            kwargs[request.max_tokens_as] = request.max_tokens
        if request.tools is not None:
            kwargs["tools"] = request.tools
        kwargs.update(request.extra)
        return kwargs

    def as_given(self, request: ChatRequest) -> Any:
        """The provider's reply (or, with ``stream=True``, its chunk iterator) as it gives
        it: what aisuite's ``create`` returns."""
        method = "chat_completions_create_stream" if request.stream else \
            "chat_completions_create"
        return getattr(self.inner, method)(request.model, request.messages,
                                           **self._kwargs(request))

    async def aas_given(self, request: ChatRequest) -> Any:
        """Async ``as_given``: aisuite's ``acreate`` (a stream is an async iterator)."""
        kwargs = self._kwargs(request)
        if request.stream:
            astream = getattr(self.inner, "achat_completions_create_stream", None)
            if astream is not None:
                return astream(request.model, request.messages, **kwargs)
            return _thread_stream(lambda: self.inner.chat_completions_create_stream(
                request.model, request.messages, **kwargs))
        acreate = getattr(self.inner, "achat_completions_create", None)
        if acreate is not None:
            return await acreate(request.model, request.messages, **kwargs)
        import asyncio  # here: ``import aisuite_like`` does not load asyncio

        return await asyncio.to_thread(lambda: self.inner.chat_completions_create(
            request.model, request.messages, **kwargs))

    # -- the Provider contract: typed replies --

    def complete(self, request: ChatRequest) -> Any:
        return read_chat_reply(self.as_given(request), self.key, request.model)

    async def acomplete(self, request: ChatRequest) -> Any:
        return read_chat_reply(await self.aas_given(request), self.key, request.model)

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        request = request.replace(stream=True)
        chunks = self.as_given(request)

        def read() -> Iterator[Any]:
            for chunk in chunks:
                yield read_chunk(chunk, self.key)

        return read()

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        chunks = await self.aas_given(request.replace(stream=True))
        async for chunk in chunks:
            yield read_chunk(chunk, self.key)

    # -- audio --

    def _transcriptions(self) -> Any:
        audio = getattr(self.inner, "audio", None)
        transcriptions = getattr(audio, "transcriptions", None)
        if transcriptions is None:
            from ..core.errors import UnsupportedFeatureError

            raise UnsupportedFeatureError(
                f"Provider {self.key!r} does not support audio transcription.",
                feature="audio.transcriptions", provider=self.key)
        return transcriptions

    def transcribe(self, request: TranscriptionRequest) -> Any:
        """``audio.transcriptions.create(model, file, **params)`` (``create_stream_output``
        with ``stream=True``), with the parameters aisuite's validator mapped; the reply as
        the provider gives it."""
        transcriptions = self._transcriptions()
        params = dict(request.params)
        if request.stream:
            return transcriptions.create_stream_output(request.model, request.file, **params)
        return transcriptions.create(request.model, request.file, **params)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        if request.stream:
            return self.transcribe(request)
        import asyncio

        return await asyncio.to_thread(self.transcribe, request)


def _thread_stream(open_stream: Any) -> AsyncIterator[Any]:
    """A sync chunk iterator read in a worker thread, as an async iterator (aisuite's default
    ``achat_completions_create_stream``)."""

    async def gen() -> AsyncIterator[Any]:
        import asyncio

        chunks = await asyncio.to_thread(lambda: iter(open_stream()))
        done = object()
        while True:
            chunk = await asyncio.to_thread(next, chunks, done)
            if chunk is done:
                return
            yield chunk

    return gen()


# --- reading aisuite-shaped replies -------------------------------------------------------


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _bad(provider: str, what: str) -> APIResponseValidationError:
    return APIResponseValidationError(
        f"the aisuite provider's reply is not a chat completion: {what} (a manual call returns "
        "such a reply as given; the tool runner needs choices[i].message)", provider=provider)


def _opt_str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _read_tool_call(call: Any, provider: str) -> Any:
    from ..core.types import Function, ToolCall

    if isinstance(call, ToolCall):
        return call
    fn = _field(call, "function")
    name, arguments, call_id = _field(fn, "name"), _field(fn, "arguments"), _field(call, "id")
    if isinstance(arguments, Mapping):
        import json

        arguments = json.dumps(dict(arguments))
    if not isinstance(name, str) or not isinstance(arguments, str) or \
            not isinstance(call_id, str):
        raise _bad(provider, "a tool call without a string id, function.name and arguments")
    return ToolCall(id=call_id, function=Function(name=name, arguments=arguments))


def _read_message(message: Any, provider: str) -> Any:
    from ..core.types import Message

    if isinstance(message, Message):
        return message
    if message is None:
        raise _bad(provider, "a choice without a message")
    content = _field(message, "content")
    if content is not None and not isinstance(content, str):
        raise _bad(provider, "message.content is neither a string nor None")
    calls = _field(message, "tool_calls")
    if calls is not None and not isinstance(calls, (list, tuple)):
        raise _bad(provider, "message.tool_calls is not a list")
    role = _field(message, "role")
    return Message(role=role if role in ("assistant", "user", "system", "tool") else "assistant",
                   content=content,
                   tool_calls=[_read_tool_call(c, provider) for c in calls] if calls else None,
                   reasoning_content=_opt_str(_field(message, "reasoning_content")),
                   refusal=_opt_str(_field(message, "refusal")))


def read_chat_reply(reply: Any, provider: str, model: str) -> Any:
    """An aisuite provider's chat reply as a ``ChatCompletionResponse``."""
    from ..core.types import ChatCompletionResponse, Choice, Usage

    if isinstance(reply, ChatCompletionResponse):
        return reply
    choices = _field(reply, "choices")
    if not isinstance(choices, (list, tuple)) or not choices:
        raise _bad(provider, f"a {type(reply).__name__} without choices")
    read = []
    for index, choice in enumerate(choices):
        message = _read_message(_field(choice, "message"), provider)
        finish = _field(choice, "finish_reason")
        if finish not in ("stop", "length", "tool_calls", "content_filter"):
            finish = "tool_calls" if message.tool_calls else "stop"
        read.append(Choice(index=index, message=message, finish_reason=finish))
    usage = _field(reply, "usage")
    if not isinstance(usage, Usage):
        try:
            usage = Usage.model_validate(usage, from_attributes=True) if usage else None
        except ValueError:
            usage = None
    created = _field(reply, "created")
    return ChatCompletionResponse(
        id=_opt_str(_field(reply, "id")) or "", model=_opt_str(_field(reply, "model")) or model,
        created=created if isinstance(created, int) else int(time.time()),
        provider=provider, choices=read, usage=usage, raw=reply)


def read_chunk(chunk: Any, provider: str) -> Any:
    """An aisuite provider's stream chunk as a ``ChatCompletionChunk``."""
    from ..core.types import ChatCompletionChunk

    if isinstance(chunk, ChatCompletionChunk):
        return chunk
    try:
        if isinstance(chunk, Mapping):
            return ChatCompletionChunk.model_validate(chunk)
        return ChatCompletionChunk.model_validate(chunk, from_attributes=True)
    except ValueError:
        raise APIResponseValidationError(
            f"the aisuite provider's stream chunk is a {type(chunk).__name__}, not a chat "
            "completion chunk (a manual stream=True call returns such chunks as given)",
            provider=provider) from None
