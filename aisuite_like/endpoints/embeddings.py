"""``client.embeddings.create``: the vectors of one or many texts from any provider with an
embeddings API, in OpenAI's shape (docs/embeddings.md).

    resp = client.embeddings.create(model="openai:text-embedding-3-small",
                                    input=["first text", "second text"])
    vectors = [d.embedding for d in resp.data]

One preparation for sync and async (``prepare``: the arguments checked, the provider made and
asked to check them for itself, the input split into requests within the provider's
per-request limit) and one assembly (``assemble``: the parts' vectors in input order,
indexes renumbered, usage summed, each vector in the ``encoding_format`` asked for). Between
them only the sending differs: the parts of a split request go out concurrently, at most the
provider's ``max_concurrency`` at a time (``DEFAULT_PARTS_IN_FLIGHT`` without one), on a
thread pool (sync) or as tasks (async). Retries, timeouts, redaction and error mapping are
the provider's, as for chat; each request to the provider is one ``embeddings`` span when
instrumented.
"""

from __future__ import annotations

import asyncio
import contextvars
from array import array
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from ..client.prepare import provider_for_model, provider_stack, split_model
from ..core.embeddings import CreateEmbeddingResponse, EmbeddingUsage, embedding, in_format
from ..core.errors import APIResponseValidationError
from ..providers.base import EmbeddingRequest, Provider, embedding_request

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..core.embeddings import EncodingFormat, InputType

__all__ = ["Embeddings", "AsyncEmbeddings", "EmbeddingsCall", "prepare", "assemble",
           "DEFAULT_PARTS_IN_FLIGHT"]

#: Parts of a split request in flight at once when the provider has no ``max_concurrency``.
DEFAULT_PARTS_IN_FLIGHT = 8

#: What ``input`` takes: a text, texts, or token arrays (a list of ints, or a list of them).
EmbeddingInput = Union[str, Sequence[str], Sequence[int], Sequence[Sequence[int]]]


class EmbeddingsCall:
    """One prepared ``embeddings.create``: the provider (traced when instrumented), the
    requests to send (one per part of a split input), the format the caller asked for, and
    how many parts may be in flight at once."""

    __slots__ = ("provider", "key", "parts", "encoding_format", "in_flight")

    def __init__(self, provider: Provider, key: str, parts: list[EmbeddingRequest],
                 encoding_format: str, in_flight: int) -> None:
        self.provider = provider
        self.key = key
        self.parts = parts
        self.encoding_format = encoding_format
        self.in_flight = in_flight


def prepare(client: ClientBase, model: str, input: Any, *, dimensions: Any = None,
            encoding_format: Any = "float", input_type: Any = None, user: Any = None,
            timeout: Any = None, provider_kwargs: Optional[Mapping[str, Any]] = None
            ) -> EmbeddingsCall:
    """Check everything before any I/O: the model string, the arguments, the input (copied:
    the caller's list is never changed), then what the provider can honour (it raises
    ``UnsupportedFeatureError`` / ``UnsupportedParameterError``); split the input into
    requests of at most the provider's limit."""
    key, name = split_model(client, model)  # a router alias: ("router", alias)
    extra = dict(provider_kwargs or {})
    budget = extra.pop("budget", None)  # (docs/budgets.md)
    request = embedding_request(name, input, dimensions=dimensions,
                                encoding_format=encoding_format, input_type=input_type,
                                user=user, timeout=timeout, extra=extra)
    # instrument(): an ``embeddings`` span per request (a router traces each deployment)
    provider = provider_stack(client, key, provider_for_model(client, model),
                              routed=key == "router", budget=budget)
    items = request.input
    limit = provider.embedding_limit(request)
    if limit is not None:
        limit = max(1, limit)
    if limit is None or len(items) <= limit:
        parts = [request]
    else:
        parts = [request.replace(input=items[start:start + limit])
                 for start in range(0, len(items), limit)]
    in_flight = min(len(parts),
                    provider.max_concurrency or DEFAULT_PARTS_IN_FLIGHT)
    return EmbeddingsCall(provider, key, parts, encoding_format, in_flight)


def assemble(call: EmbeddingsCall, responses: Sequence[CreateEmbeddingResponse]
             ) -> CreateEmbeddingResponse:
    """The parts' replies as one response: one vector per input, in input order
    (``data[i].index == i``), each in the format asked for; usage summed (its cost too, or
    None when a part's is unknown). A reply with a vector too many or missing is an
    ``APIResponseValidationError``."""
    data = []
    usage: Optional[EmbeddingUsage] = None
    offset = 0
    width: Optional[int] = None  # every vector's length
    fmt = call.encoding_format
    for part, response in zip(call.parts, responses, strict=True):
        count = len(part.input)
        vectors = sorted(response.data, key=lambda e: e.index)
        if [e.index for e in vectors] != list(range(count)):
            raise APIResponseValidationError(
                f"the reply holds {len(vectors)} embeddings with indexes that do not match the "
                f"{count} inputs sent", provider=call.key)
        for item in vectors:
            try:
                vector = in_format(item.embedding, fmt)
            except ValueError as exc:
                raise APIResponseValidationError(
                    f"embedding {item.index} is not a valid base64 vector ({exc})",
                    provider=call.key) from None
            size = _vector_size(item.embedding, offset + item.index, call.key)
            if size is not None:
                if width is not None and size != width:
                    raise APIResponseValidationError(
                        f"the reply's embeddings have different lengths ({width} and {size}, "
                        f"embedding {offset + item.index}): one model gives vectors of one "
                        "length", provider=call.key)
                width = size
            data.append(embedding(offset + item.index, vector))
        offset += count
        usage = response.usage if usage is None else usage + response.usage
    first = responses[0]
    return CreateEmbeddingResponse.model_construct(
        data=data, model=first.model or call.parts[0].model, provider=first.provider or call.key,
        usage=usage if usage is not None else EmbeddingUsage())


def _send(call: EmbeddingsCall) -> list[CreateEmbeddingResponse]:
    """Every part, at most ``call.in_flight`` at a time on a thread pool; the first failure
    cancels the parts not started and is raised once the started ones have ended."""
    provider, parts = call.provider, call.parts
    if len(parts) == 1:
        return [provider.embed(parts[0])]
    with ThreadPoolExecutor(max_workers=call.in_flight,
                            thread_name_prefix="aisuite-like-embeddings") as pool:
        # each part in a copy of the caller's context (its span, its deadline variables)
        futures: list[Future[CreateEmbeddingResponse]] = [
            pool.submit(contextvars.copy_context().run, provider.embed, part) for part in parts]
        try:
            wait(futures, return_when=FIRST_EXCEPTION)
        finally:
            failed = [f for f in futures if f.done() and not f.cancelled()
                      and f.exception() is not None]
            if failed or not all(f.done() for f in futures):
                for future in futures:
                    future.cancel()
        if failed:
            raise cast(BaseException, failed[0].exception())
        return [future.result() for future in futures]


def _vector_size(vector: Any, index: int, provider: str) -> Optional[int]:
    """A reply's vector of floats: its length (None for base64 text, checked as it is
    decoded); anything but a non-empty list of numbers raises ``APIResponseValidationError``
    (e.g. llama.cpp without pooling sends a vector per token: a list of lists)."""
    if isinstance(vector, str):
        return None
    try:
        array("d", vector)  # in C: refuses nested lists, strings, None
    except TypeError:
        nested = bool(vector) and isinstance(vector[0], list)
        hint = (" but a list of vectors (one per token?): the server pools no embedding per "
                "input (llama.cpp: start it with --pooling mean)") if nested else ""
        raise APIResponseValidationError(
            f"embedding {index} of the reply is not a list of numbers{hint}",
            provider=provider) from None
    if not vector:
        raise APIResponseValidationError(f"embedding {index} of the reply is empty",
                                         provider=provider)
    return len(vector)


async def _asend(call: EmbeddingsCall) -> list[CreateEmbeddingResponse]:
    """Async twin of ``_send``: the parts as tasks, at most ``call.in_flight`` at a time."""
    provider, parts = call.provider, call.parts
    if len(parts) == 1:
        return [await provider.aembed(parts[0])]
    room = asyncio.Semaphore(call.in_flight)

    async def one(part: EmbeddingRequest) -> CreateEmbeddingResponse:
        async with room:
            return await provider.aembed(part)

    tasks = [asyncio.ensure_future(one(part)) for part in parts]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:  # a failure, or the caller cancelled: the rest is not needed
        failed = [t for t in tasks if t.done() and not t.cancelled()
                  and t.exception() is not None]
        unfinished = [t for t in tasks if not t.done()]
        for task in unfinished:
            task.cancel()
        if unfinished:
            await asyncio.gather(*unfinished, return_exceptions=True)
    if failed:
        raise cast(BaseException, failed[0].exception())
    return [task.result() for task in tasks]


class Embeddings:
    """``client.embeddings`` on ``Client``: ``create`` and its async twin ``acreate``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def create(self, model: str, input: EmbeddingInput, *,
               dimensions: Optional[int] = None, encoding_format: EncodingFormat = "float",
               input_type: Optional[InputType] = None, user: Optional[str] = None,
               timeout: Any = None, **provider_kwargs: Any) -> CreateEmbeddingResponse:
        """The embeddings of ``input`` (a text, texts, or token arrays where the provider
        takes them) from ``model`` (``"provider:model"``), in OpenAI's shape.

        ``dimensions``: the vectors' size, where the model takes one. ``encoding_format``:
        ``"float"`` (lists of floats) or ``"base64"`` (OpenAI's base64 float32, on every
        provider). ``input_type``: ``"query"`` or ``"document"``, mapped to the provider's own
        (Gemini task type, Cohere input type). ``user``: OpenAI's end-user id. ``timeout``:
        seconds per attempt. Other keywords are provider-native and pass through. A list
        longer than the provider's per-request limit is split and sent concurrently."""
        call = prepare(self._client, model, input, dimensions=dimensions,
                       encoding_format=encoding_format, input_type=input_type, user=user,
                       timeout=timeout, provider_kwargs=provider_kwargs)
        return assemble(call, _send(call))

    async def acreate(self, model: str, input: EmbeddingInput, *,
                      dimensions: Optional[int] = None, encoding_format: EncodingFormat = "float",
                      input_type: Optional[InputType] = None, user: Optional[str] = None,
                      timeout: Any = None, **provider_kwargs: Any) -> CreateEmbeddingResponse:
        """Async ``create`` on the sync client (aisuite's naming)."""
        call = prepare(self._client, model, input, dimensions=dimensions,
                       encoding_format=encoding_format, input_type=input_type, user=user,
                       timeout=timeout, provider_kwargs=provider_kwargs)
        return assemble(call, await _asend(call))


class AsyncEmbeddings:
    """``aclient.embeddings`` on ``AsyncClient``: ``await aclient.embeddings.create(...)``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    async def create(self, model: str, input: EmbeddingInput, *,
                     dimensions: Optional[int] = None, encoding_format: EncodingFormat = "float",
                     input_type: Optional[InputType] = None, user: Optional[str] = None,
                     timeout: Any = None, **provider_kwargs: Any) -> CreateEmbeddingResponse:
        """See ``Client.embeddings.create``."""
        call = prepare(self._client, model, input, dimensions=dimensions,
                       encoding_format=encoding_format, input_type=input_type, user=user,
                       timeout=timeout, provider_kwargs=provider_kwargs)
        return assemble(call, await _asend(call))
