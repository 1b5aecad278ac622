"""The Provider interface and the unified request every provider translates.

A provider is two parts: a pure translator (``ChatRequest`` -> SDK arguments, SDK/raw response
-> unified types; no I/O) and a thin transport that calls the vendor SDK. This module holds only
the contract; each family lives in its own module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:  # annotations only: the pydantic types load on first use
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.errors import UnsupportedFeatureError
    from ..core.media import ImagesResponse, ModerationCreateResponse, Upload
    from ..core.responses import Response, ResponseEvent
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse, Model, TokenCount

__all__ = ["ChatRequest", "ResponsesRequest", "EmbeddingRequest", "Provider",
           "TranscriptionRequest", "embedding_request", "ImageRequest", "SpeechRequest",
           "ModerationRequest", "FileRequest", "no_endpoint", "ENDPOINT_FAMILIES"]


@contextmanager
def mapped_errors(map_error: Callable[[BaseException], BaseException]) -> Iterator[None]:
    """Re-raise an SDK exception as the error ``map_error`` gives (ours pass through; an
    exception ``map_error`` returns unchanged is re-raised as is). A plain ``with`` works in
    sync and async code alike, so every transport method shares this one mapping."""
    from ..core.errors import AisuiteLikeError

    try:
        yield
    except AisuiteLikeError:
        raise
    except Exception as exc:
        mapped = map_error(exc)
        if mapped is exc:
            raise
        raise mapped from exc


@dataclass(slots=True)
class ChatRequest:
    """One model call, provider-neutral, in OpenAI's vocabulary.

    ``messages`` are OpenAI-style dicts; they may be the caller's own objects, so translators
    must treat them as read-only and build new structures. ``tools`` are OpenAI function-tool
    schemas (``{"type": "function", "function": {...}}``). ``extra`` holds provider-native
    keyword arguments, passed through untouched. ``None`` means "not given".
    ``max_tokens_as`` is the name the caller gave the token limit (``max_tokens`` or
    ``max_completion_tokens``), for the services that take it as sent. ``api="responses"``
    asks a provider that has both APIs (openai, azure) to send this call over its Responses
    API (``client.responses.create`` with ``max_turns``; docs/responses.md).
    ``reasoning_effort`` is the portable effort (``"none"`` ... ``"high"``), translated per
    family; ``prompt_cache`` is ``"auto"`` when the family should add its prompt-cache
    breakpoints or key (docs/reasoning-and-caching.md). ``hosted_tools`` are the
    ``ai.tools.WebSearch`` / ``CodeExecution`` / ``WebFetch`` given among the tools, for the
    family to map to its own server tools (docs/hosted-tools.md).
    breakpoints or key (docs/reasoning-and-caching.md). ``orphans`` is how a tool call
    without a result is sent: ``"repair"`` (None: a synthetic error result) or ``"error"``
    (refused); docs/portability.md. ``count_tokens`` asks for the prompt to be counted by the
    provider before sending (the context-window check, budgets, the router's token buckets);
    ``checks`` False turns off the checks against what is known of the model
    (docs/models.md).
    """

    model: str
    messages: list[dict[str, Any]]
    tools: Optional[list[dict[str, Any]]] = None
    tool_choice: Any = None
    parallel_tool_calls: Optional[bool] = None
    response_format: Any = None
    temperature: Optional[float] = None
    top_p: Optional[float] = None
    max_tokens: Optional[int] = None
    stop: Any = None
    seed: Optional[int] = None
    user: Optional[str] = None
    n: Optional[int] = None
    timeout: Optional[float] = None
    stream: bool = False
    stream_options: Optional[dict[str, Any]] = None
    extra: dict[str, Any] = field(default_factory=dict)
    max_tokens_as: str = "max_tokens"
    api: Optional[str] = None
    reasoning_effort: Optional[str] = None
    prompt_cache: Optional[str] = None
    hosted_tools: Optional[tuple[Any, ...]] = None
    orphans: Optional[str] = None
    count_tokens: bool = False
    checks: bool = True

    def replace(self, **changes: Any) -> "ChatRequest":
        """A copy with some fields changed (the runner uses it per turn, the router per
        call): every field read at once and given to ``__init__`` by position
        (``dataclasses.replace`` walks the fields one by one in Python; a dict of them by
        name costs twice the rest), then the changes set over them."""
        copy = ChatRequest(*_chat_values(self))
        for name, value in changes.items():
            if name not in _CHAT_FIELD_SET:  # as __init__ would refuse it
                raise TypeError(f"ChatRequest has no field {name!r}")
            setattr(copy, name, value)
        return copy



#: ChatRequest's fields, and a getter of all their values at once (``ChatRequest.replace``).
_CHAT_FIELDS = tuple(f.name for f in fields(ChatRequest))
_CHAT_FIELD_SET = frozenset(_CHAT_FIELDS)
_chat_values = attrgetter(*_CHAT_FIELDS)


class TranscriptionRequest:
    """One transcription (docs/audio.md). ``file`` is the ``core.audio.AudioFile`` read and
    checked for this provider (or, for a provider that reads files itself, the caller's file
    as given); ``params`` are the parameters validated and mapped for this provider by the
    endpoint (``language``, ``prompt``, ``temperature``, ``timestamp_granularities`` and the
    provider-native ones, under the provider's own names). ``response_format`` is one of
    ``json``, ``text``, ``srt``, ``verbose_json``, ``vtt``; ``stream`` asks for
    ``transcript.text.delta`` / ``.done`` events. (A plain class: a dataclass would cost its
    code generation at ``import aisuite_like``.)"""

    __slots__ = ("model", "file", "params", "response_format", "stream", "timeout")

    def __init__(self, model: str, file: Any, params: Optional[dict[str, Any]] = None,
                 response_format: str = "json", stream: bool = False,
                 timeout: Optional[float] = None) -> None:
        self.model = model
        self.file = file
        self.params = params if params is not None else {}
        self.response_format = response_format
        self.stream = stream
        self.timeout = timeout

    def __repr__(self) -> str:
        file = self.file if type(self.file).__name__ == "AudioFile" else \
            f"<{type(self.file).__name__}>"  # never the caller's audio bytes
        return (f"TranscriptionRequest(model={self.model!r}, file={file}, "
                f"params={self.params!r}, response_format={self.response_format!r}, "
                f"stream={self.stream!r})")


#: The families that transcribe audio, named when another one is asked to.
TRANSCRIPTION_PROVIDERS = ("openai", "groq", "google", "deepgram", "huggingface", "test")


@dataclass(slots=True)
class ResponsesRequest:
    """One call of a provider's own Responses API (docs/responses.md): ``params`` are the
    API's arguments as the caller gave them (``input``, ``instructions``, ``tools``, ...;
    never mutated), sent as they are. ``model`` is the model name (without the provider
    key)."""

    model: str
    params: dict[str, Any]
    stream: bool = False
    timeout: Optional[float] = None


#: The provider keys whose API has the Responses endpoint itself (named in errors).
NATIVE_RESPONSES = ("openai", "azure")


def _no_native_responses(provider: "Provider") -> Exception:
    from ..core.errors import UnsupportedFeatureError

    key = provider.key or type(provider).__name__
    return UnsupportedFeatureError(
        f"provider {key!r} has no Responses API of its own; client.responses.create reaches "
        f"it through its chat translator. The native Responses API is on: "
        f"{', '.join(NATIVE_RESPONSES)}", feature="responses", provider=provider.key)


@dataclass(slots=True)
class EmbeddingRequest:
    """One embeddings request, provider-neutral (docs/embeddings.md), its arguments checked.

    ``input`` is a new list: texts, or token arrays (lists of ints) when ``tokens`` is True;
    within the provider's per-request limit (``Provider.embedding_limit``). ``input_type`` is
    ``"query"`` / ``"document"`` (each family maps it to its own), ``extra`` the
    provider-native keyword arguments. ``encoding_format`` is what the caller asked for: a
    provider may answer floats or base64 either way (the endpoint converts).
    """

    model: str
    input: list[Any]
    tokens: bool = False
    dimensions: Optional[int] = None
    encoding_format: str = "float"
    input_type: Optional[str] = None
    user: Optional[str] = None
    timeout: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def replace(self, **changes: Any) -> "EmbeddingRequest":
        """A copy with some fields changed (a part of a split request)."""
        return replace(self, **changes)


def embedding_request(model: str, input: Any, *, dimensions: Any = None,
                      encoding_format: Any = "float", input_type: Any = None, user: Any = None,
                      timeout: Any = None, extra: Optional[dict[str, Any]] = None
                      ) -> EmbeddingRequest:
    """The arguments of ``embeddings.create`` checked (``core/checks.py``: types, values, the
    input copied into a new list) into an ``EmbeddingRequest`` for the model name ``model``
    (the part after ``"provider:"``). Raises before anything is sent; ``client.embeddings``
    and ``client.batches`` share it."""
    from ..core import checks

    checks.check_embedding_arguments(dimensions, encoding_format, input_type, user, timeout)
    extra = dict(extra or {})
    checks.check_embedding_keywords(extra)
    items, tokens = checks.check_embedding_input(input)
    return EmbeddingRequest(model=model, input=items, tokens=tokens, dimensions=dimensions,
                            encoding_format=encoding_format, input_type=input_type, user=user,
                            timeout=timeout, extra=extra)


#: The built-in families with an embeddings API (the OpenAI-compatible services that have
#: one are named by ``providers/openai/services.py``).
_EMBEDDING_FAMILIES = ("google", "bedrock")


def no_embeddings(provider: str) -> UnsupportedFeatureError:
    """The error of a provider without an embeddings API, naming the providers that have one."""
    from ..core.errors import UnsupportedFeatureError
    from .openai.services import embedding_services

    others = ", ".join([*embedding_services(), *_EMBEDDING_FAMILIES])
    return UnsupportedFeatureError(
        f"provider {provider!r} has no embeddings API; use a provider that has one: {others} "
        "(e.g. model='openai:text-embedding-3-small'), or model='test:...' offline",
        feature="embeddings", provider=provider)


class ImageRequest:
    """One ``client.images.generate`` / ``edit`` call (docs/images.md), its arguments
    checked: ``operation`` is ``"generate"`` or ``"edit"``; ``images`` (edit: the images to
    change) and ``mask`` are files read for upload; ``n``, ``size``, ``quality``,
    ``response_format`` (``"url"`` / ``"b64_json"``), ``user`` are the portable arguments
    (None: not given); ``extra`` the provider-native ones."""

    __slots__ = ("operation", "model", "prompt", "n", "size", "quality", "response_format",
                 "user", "images", "mask", "extra", "timeout")

    def __init__(self, operation: str, model: str, prompt: str, *, n: Optional[int] = None,
                 size: Optional[str] = None, quality: Optional[str] = None,
                 response_format: Optional[str] = None, user: Optional[str] = None,
                 images: Optional[list[Upload]] = None, mask: Optional[Upload] = None,
                 extra: Optional[dict[str, Any]] = None, timeout: Any = None) -> None:
        self.operation = operation
        self.model = model
        self.prompt = prompt
        self.n = n
        self.size = size
        self.quality = quality
        self.response_format = response_format
        self.user = user
        self.images = images or []
        self.mask = mask
        self.extra = extra if extra is not None else {}
        self.timeout = timeout

    def __repr__(self) -> str:
        return (f"ImageRequest(operation={self.operation!r}, model={self.model!r}, "
                f"n={self.n!r}, size={self.size!r}, images={len(self.images)})")


class SpeechRequest:
    """One ``client.audio.speech.create`` call (docs/audio.md): ``input`` (the text),
    ``voice``, ``response_format`` (OpenAI's names: mp3, opus, aac, flac, wav, pcm; None:
    the provider's default), ``instructions``, ``speed``; ``stream`` asks for the audio's
    bytes as they arrive; ``extra`` the provider-native arguments."""

    __slots__ = ("model", "input", "voice", "response_format", "instructions", "speed",
                 "stream", "extra", "timeout")

    def __init__(self, model: str, input: str, voice: Any, *,
                 response_format: Optional[str] = None, instructions: Optional[str] = None,
                 speed: Optional[float] = None, stream: bool = False,
                 extra: Optional[dict[str, Any]] = None, timeout: Any = None) -> None:
        self.model = model
        self.input = input
        self.voice = voice
        self.response_format = response_format
        self.instructions = instructions
        self.speed = speed
        self.stream = stream
        self.extra = extra if extra is not None else {}
        self.timeout = timeout

    def __repr__(self) -> str:
        return (f"SpeechRequest(model={self.model!r}, voice={self.voice!r}, "
                f"response_format={self.response_format!r}, chars={len(self.input)})")


class ModerationRequest:
    """One ``client.moderations.create`` call (docs/moderations.md): ``input`` is a text,
    a list of texts, or OpenAI's multimodal parts (a new list: never the caller's)."""

    __slots__ = ("model", "input", "extra", "timeout")

    def __init__(self, model: str, input: Any, *, extra: Optional[dict[str, Any]] = None,
                 timeout: Any = None) -> None:
        self.model = model
        self.input = input
        self.extra = extra if extra is not None else {}
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"ModerationRequest(model={self.model!r})"


class FileRequest:
    """One ``client.files`` call (docs/files.md): ``operation`` is ``"create"``,
    ``"retrieve"``, ``"list"``, ``"delete"`` or ``"content"``; ``file_id`` names the file
    (not for create / list), ``upload`` is the file read for create, ``purpose`` OpenAI's
    purpose; ``params`` the list's ``after`` / ``limit`` / ``order`` / ``purpose``;
    ``extra`` the provider-native arguments."""

    __slots__ = ("operation", "file_id", "upload", "purpose", "params", "extra", "timeout")

    def __init__(self, operation: str, *, file_id: Optional[str] = None,
                 upload: Optional[Upload] = None, purpose: Optional[str] = None,
                 params: Optional[dict[str, Any]] = None,
                 extra: Optional[dict[str, Any]] = None, timeout: Any = None) -> None:
        self.operation = operation
        self.file_id = file_id
        self.upload = upload
        self.purpose = purpose
        self.params = params if params is not None else {}
        self.extra = extra if extra is not None else {}
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"FileRequest(operation={self.operation!r}, file_id={self.file_id!r})"


#: The families that have each endpoint (named when another one is asked; docs/status.md).
ENDPOINT_FAMILIES: dict[str, tuple[str, ...]] = {
    "images.generate": ("openai", "azure", "google", "bedrock"),
    "images.edit": ("openai", "azure", "google", "bedrock"),
    "audio.speech": ("openai", "azure", "google"),
    "audio.translations": ("openai", "azure", "groq"),
    "moderations": ("openai", "mistral"),
    "files": ("openai", "azure", "anthropic", "google"),
}

_ENDPOINT_DOCS = {"images": "docs/images.md", "audio": "docs/audio.md",
                  "moderations": "docs/moderations.md", "files": "docs/files.md"}


def no_endpoint(feature: str, provider: str, why: str = "") -> UnsupportedFeatureError:
    """The error of a provider without the API ``feature`` (``"images.generate"``, ...),
    naming the families that have it; ``why`` says more (a model of the family that lacks
    it)."""
    from ..core.errors import UnsupportedFeatureError

    families = ENDPOINT_FAMILIES.get(feature, ())
    doc = _ENDPOINT_DOCS.get(feature.split(".")[0], "docs/status.md")
    reason = why or f"provider {provider!r} has no {feature} API"
    return UnsupportedFeatureError(
        f"{reason}; the families that have it: {', '.join(families)} ({doc})",
        feature=feature, provider=provider or None)


class Provider:
    """Base class of every provider, built-in or the user's own.

    Implement ``complete`` (and ``acomplete`` for real async I/O); implement ``stream`` /
    ``astream`` to support ``stream=True``. Streams are generators: closing the generator must
    release the connection. Errors must be raised as ``aisuite_like`` errors.
    """

    #: The registry key this instance was created for (e.g. ``"groq"``); set by the client.
    key: str = ""
    #: The hosted tools (``"web_search"``, ``"code_execution"``, ``"web_fetch"``) this
    #: provider's translator maps to its family's own server tools; a call giving another one
    #: is refused before anything is sent (docs/hosted-tools.md).
    hosted_tool_kinds: frozenset[str] = frozenset()
    #: Request fields of the provider's own API that the "did you mean" check of ``create``
    #: never takes for a misspelt portable argument (Groq's ``reasoning_format``); they pass
    #: through as any provider-native argument does.
    native_parameters: frozenset[str] = frozenset()
    #: True for a provider that sends nothing over the network (the offline providers of
    #: ``aisuite_like.testing``, or one of your own): allowed under
    #: ``testing.block_real_requests()`` (docs/testing.md). A class that sets ``_offline``
    #: instead is read the same way.
    offline: bool = False
    #: A provider written for aisuite (``providers/aisuite.py``) answers a manual call with
    #: its reply as it gives it (what aisuite's ``create`` / ``acreate`` return,
    #: docs/migration.md); None for every other provider.
    as_given: Optional[Callable[[ChatRequest], Any]] = None
    aas_given: Optional[Callable[[ChatRequest], Awaitable[Any]]] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_offline" in cls.__dict__ and "offline" not in cls.__dict__:
            cls.offline = bool(cls.__dict__["_offline"])

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        raise NotImplementedError(f"{type(self).__name__} does not implement complete()")

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        # Default for sync-only providers: run in a thread so the event loop is not blocked.
        import asyncio

        return await asyncio.to_thread(self.complete, request)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            f"provider {self.key or type(self).__name__!r} does not support stream=True",
            parameter="stream", provider=self.key)

    async def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            f"provider {self.key or type(self).__name__!r} does not support stream=True",
            parameter="stream", provider=self.key)
        yield  # pragma: no cover  (makes this an async generator)

    def transcribe(self, request: TranscriptionRequest) -> Any:
        """Audio transcription (``client.audio.transcriptions.create``): a ``Transcription``
        (json, verbose_json), a ``str`` (text, srt, vtt) or, with ``request.stream``, an
        iterator of transcript events. Providers without it raise ``UnsupportedFeatureError``
        before anything is sent."""
        from ..core.errors import UnsupportedFeatureError

        raise UnsupportedFeatureError(
            f"provider {self.key or type(self).__name__!r} does not transcribe audio; "
            f"providers that do: {', '.join(TRANSCRIPTION_PROVIDERS)} (docs/audio.md)",
            feature="audio.transcriptions", provider=self.key)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        """Async ``transcribe`` (a stream is an async iterator). Default for providers that
        only transcribe synchronously: run in a thread."""
        import asyncio

        if request.stream:
            from ..core.errors import UnsupportedParameterError

            raise UnsupportedParameterError(
                f"provider {self.key or type(self).__name__!r} does not stream "
                "transcriptions asynchronously", parameter="stream", provider=self.key)
        return await asyncio.to_thread(self.transcribe, request)

    def list_models(self) -> list[Model]:
        """The models the provider reports (``client.models.list()``, docs/models.md), ids
        as the provider names them (the client writes them ``"key:model"``). Optional: the
        default raises ``UnsupportedFeatureError`` before anything is sent."""
        from ..core.errors import UnsupportedFeatureError

        raise UnsupportedFeatureError(
            f"provider {self.key or type(self).__name__!r} cannot list its models: "
            f"{type(self).__name__} does not implement list_models(). The built-in providers "
            "can (openai and the OpenAI-compatible services, anthropic, google, bedrock, "
            "test)", feature="models.list", provider=self.key or None)

    async def alist_models(self) -> list[Model]:
        """Async ``list_models``; the default runs it in a thread."""
        import asyncio

        return await asyncio.to_thread(self.list_models)

    # -- knowing the model (docs/models.md) --

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        """The input tokens of ``request`` counted by the provider's own counting API
        (``client.models.count_tokens``). A family without one raises
        ``UnsupportedFeatureError`` before anything is sent (the default); the caller then
        estimates, labelled ``exact=False``."""
        from ..core.errors import UnsupportedFeatureError

        raise UnsupportedFeatureError(
            f"provider {self.key or type(self).__name__!r} has no token counting API (the "
            "families that have one: anthropic, google, openai, bedrock)",
            feature="models.count_tokens", provider=self.key or None)

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        """Async ``count_tokens``; the default runs it in a thread."""
        import asyncio

        return await asyncio.to_thread(self.count_tokens, request)

    def model_metadata(self, model: str) -> Any:
        """The provider's own description of ``model`` (``client.models.info(model,
        live=True)``): its entry of the models list (``Model.raw``), or None when the list
        has no entry for it. A family with a richer per-model endpoint (Ollama's
        ``/api/show``) overrides it."""
        return next((m.raw for m in self.list_models() if m.id == model), None)

    async def amodel_metadata(self, model: str) -> Any:
        """Async ``model_metadata``."""
        return next((m.raw for m in await self.alist_models() if m.id == model), None)

    # -- the Responses API (docs/responses.md). Every provider answers
    # ``client.responses.create`` through ``complete`` / ``stream`` and the pure translation
    # in ``core/responses_items.py``; a provider whose API has the Responses endpoint itself
    # says ``native_responses`` and implements these four, which are then used instead.

    #: Whether ``create_response`` / ``stream_response`` call the provider's own Responses
    #: API (OpenAI, Azure OpenAI).
    native_responses: bool = False

    def create_response(self, request: ResponsesRequest) -> Response:
        raise _no_native_responses(self)

    async def acreate_response(self, request: ResponsesRequest) -> Response:
        raise _no_native_responses(self)

    def stream_response(self, request: ResponsesRequest) -> Iterator[ResponseEvent]:
        raise _no_native_responses(self)

    def astream_response(self, request: ResponsesRequest) -> AsyncIterator[ResponseEvent]:
        raise _no_native_responses(self)

    # -- embeddings (docs/embeddings.md): optional; the defaults say the provider has none --

    #: Requests in flight at most (the ``max_concurrency`` config; None: unbounded). The
    #: embeddings endpoint sends the parts of a split request at most this many at a time.
    max_concurrency: Optional[int] = None

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        """Check ``request``'s arguments for this provider (raising before anything is sent)
        and return the most inputs one request may carry (None: no limit). A provider without
        ``embed`` raises ``UnsupportedFeatureError``."""
        if type(self).embed is Provider.embed and type(self).aembed is Provider.aembed:
            raise no_embeddings(self.key or type(self).__name__)
        return None

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        """The embeddings of ``request.input`` (one request to the provider). Each vector may
        be floats or base64, whichever the provider sent; ``usage`` carries a price reference
        (``core.cost.attach_price_ref``) only when the provider reported token counts."""
        raise no_embeddings(self.key or type(self).__name__)

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        if type(self).embed is Provider.embed:
            raise no_embeddings(self.key or type(self).__name__)
        import asyncio

        return await asyncio.to_thread(self.embed, request)  # a sync-only provider

    # -- the endpoints beside chat (docs/images.md, audio.md, moderations.md, files.md):
    # optional; the defaults say the provider has none, before anything is sent. Async
    # defaults run a sync implementation in a thread.

    def images(self, request: ImageRequest) -> ImagesResponse:
        """``client.images.generate`` / ``edit`` (``request.operation``)."""
        raise no_endpoint(f"images.{request.operation}", self.key or type(self).__name__)

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        if type(self).images is Provider.images:
            raise no_endpoint(f"images.{request.operation}", self.key or type(self).__name__)
        import asyncio

        return await asyncio.to_thread(self.images, request)

    def speech(self, request: SpeechRequest) -> Any:
        """``client.audio.speech.create``: a ``BinaryResponse``, or with ``request.stream``
        a ``(content_type, headers, iterator of bytes)`` triple."""
        raise no_endpoint("audio.speech", self.key or type(self).__name__)

    async def aspeech(self, request: SpeechRequest) -> Any:
        """Async ``speech`` (a stream's iterator is an async one)."""
        if type(self).speech is Provider.speech or request.stream:
            raise no_endpoint("audio.speech", self.key or type(self).__name__,
                              "" if type(self).speech is Provider.speech else
                              f"provider {self.key!r} does not stream speech asynchronously")
        import asyncio

        return await asyncio.to_thread(self.speech, request)

    def translate(self, request: TranscriptionRequest) -> Any:
        """``client.audio.translations.create``: a ``Translation`` or text."""
        raise no_endpoint("audio.translations", self.key or type(self).__name__)

    async def atranslate(self, request: TranscriptionRequest) -> Any:
        if type(self).translate is Provider.translate:
            raise no_endpoint("audio.translations", self.key or type(self).__name__)
        import asyncio

        return await asyncio.to_thread(self.translate, request)

    def moderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        """``client.moderations.create``."""
        raise no_endpoint("moderations", self.key or type(self).__name__)

    async def amoderate(self, request: ModerationRequest) -> ModerationCreateResponse:
        if type(self).moderate is Provider.moderate:
            raise no_endpoint("moderations", self.key or type(self).__name__)
        import asyncio

        return await asyncio.to_thread(self.moderate, request)

    def files(self, request: FileRequest) -> Any:
        """``client.files``: a ``FileObject`` (create, retrieve), ``(files, next cursor or
        None)`` (list; the cursor goes back as ``params["after"]``), a ``FileDeleted``
        (delete) or a ``BinaryResponse`` (content)."""
        raise no_endpoint("files", self.key or type(self).__name__)

    async def afiles(self, request: FileRequest) -> Any:
        if type(self).files is Provider.files:
            raise no_endpoint("files", self.key or type(self).__name__)
        import asyncio

        return await asyncio.to_thread(self.files, request)

    def close(self) -> None:
        """Release HTTP resources. Optional."""

    async def aclose(self) -> None:
        """Release async HTTP resources. Optional."""
