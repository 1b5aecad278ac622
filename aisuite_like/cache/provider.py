"""The provider that answers from a response cache (docs/cache.md).

``CachedProvider`` wraps the provider of one call (a ``WrapperProvider`` in the client's
provider stack, docs/architecture.md), so plain calls, streams, every model call of a tool
run and every agent turn are looked up on their own. A hit sends nothing: the stored
response (JSON, never pickle) comes back as a new object marked ``cache_hit`` whose
``usage.cost`` is 0; a streamed call replays it as chunks. A miss calls the wrapped provider
and stores its response; an error is never stored. Identical calls made at the same time in
one process share one upstream call (single flight, sync and async alike): the first looks
up and calls, the others wait for its response, or its error.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future
from typing import Any, Optional, Protocol

from pydantic import BaseModel

from ..core.secrets import redact
from ..core.streaming import ChunkAccumulator, response_chunks
from ..core.types import ChatCompletionChunk, ChatCompletionResponse, mark_cache_outcome
from ..providers.base import ChatRequest, Provider
from ..providers.wrapper import WrapperProvider
from .keys import request_key

__all__ = ["CachedProvider"]

log = logging.getLogger("aisuite_like.cache")

# The run's fields and the fallback chain's are not the provider's answer: never stored.
_NOT_STORED = {"intermediate_responses", "messages", "stop_reason", "tool_events",
               "context_events", "fallback_errors"}
# What a first caller hands those that waited for it when it has no response for them (it
# was cancelled, or its response could not be stored): they call for themselves.
_ABANDONED = object()


def stored_form(response: ChatCompletionResponse) -> Optional[bytes]:
    """The bytes stored for ``response`` (its JSON, without the fields that are None: they
    read back as None), or None when it must not be stored: it does not serialize as JSON,
    or it holds a configured API key (a server may echo one)."""
    try:
        text = response.model_dump_json(exclude=_NOT_STORED, exclude_none=True,
                                        warnings=False)
    except Exception as exc:  # an extra field no JSON can hold
        log.warning("response cache: a response of %s was not stored: it does not serialize "
                    "as JSON (%s)", response.provider or "a provider", type(exc).__name__)
        return None
    if redact(text) is not text:
        log.warning("response cache: a response of %s was not stored: it holds a configured "
                    "API key", response.provider or "a provider")
        return None
    return text.encode("utf-8")


# A streamed miss is stored as its response and the chunks it came in (each without the
# fields every chunk repeats: the response's), so a streamed hit replays them as they came.
_STREAMED = b'{"chunks":['
_HEAD = {"id", "object", "created", "model", "provider"}


class _StoredStream(BaseModel):
    chunks: list[ChatCompletionChunk]
    response: ChatCompletionResponse


class _Entry:
    """A stored entry read back: the response (a new object marked as a hit) and, for a
    streamed call, its chunks."""

    __slots__ = ("response", "chunks")

    def __init__(self, response: ChatCompletionResponse,
                 chunks: Optional[list[ChatCompletionChunk]] = None) -> None:
        self.response = response
        self.chunks = chunks


def entry(data: Optional[bytes]) -> Optional[_Entry]:
    """A stored entry (None: no entry, or one that does not read as one, e.g. written by
    another program: then it is a miss)."""
    if data is None:
        return None
    try:
        if data.startswith(_STREAMED):
            stored = _StoredStream.model_validate_json(data)
            found = _Entry(stored.response, stored.chunks)
        else:
            found = _Entry(ChatCompletionResponse.model_validate_json(data))
    except ValueError as exc:
        log.warning("response cache: an entry that does not read as a response was treated "
                    "as a miss (%s)", type(exc).__name__)
        return None
    mark_cache_outcome(found.response, True)
    return found


def loaded(data: Optional[bytes]) -> Optional[ChatCompletionResponse]:
    """A stored response as a new object marked as a hit (None: a miss)."""
    found = entry(data)
    return found.response if found is not None else None


def replayed(found: _Entry) -> Iterator[ChatCompletionChunk]:
    """A stored entry as the chunks of a stream, each marked as a hit: the chunks a streamed
    call came in, as they came; a plain call's response as a stream of whole pieces."""
    response = found.response
    if found.chunks is None:
        chunks: Iterator[ChatCompletionChunk] = response_chunks(response, whole=True)
    else:
        head = {"id": response.id, "created": response.created, "model": response.model,
                "provider": response.provider}
        chunks = (chunk.model_copy(update=head) for chunk in found.chunks)
    for chunk in chunks:
        mark_cache_outcome(chunk, True)
        yield chunk


class _Recorder:
    """Folds the chunks of a streamed miss and keeps each as it came; the response is stored
    only when the stream was read to its end and says how it finished."""

    __slots__ = ("acc", "first", "parts")

    def __init__(self) -> None:
        self.acc = ChunkAccumulator()
        self.first = True
        self.parts: list[bytes] = []

    def add(self, chunk: ChatCompletionChunk) -> None:
        if self.first:
            self.first = False
            mark_cache_outcome(chunk, False)
        try:  # written now: the stream's consumer may change the chunk after
            self.parts.append(chunk.model_dump_json(exclude=_HEAD, exclude_none=True,
                                                    warnings=False).encode("utf-8"))
        except Exception:  # an extra field no JSON can hold: stored_form says so below
            self.parts.append(b"{}")
        self.acc.add(chunk)

    def stored(self) -> Optional[bytes]:
        response = self.acc.build()
        if not any(choice.finish_reason for choice in response.choices):
            return None
        whole = stored_form(response)
        if whole is None:
            return None
        data = _STREAMED + b",".join(self.parts) + b'],"response":' + whole + b"}"
        text = data.decode("utf-8")
        if redact(text) is not text:
            log.warning("response cache: a streamed response of %s was not stored: it holds "
                        "a configured API key", response.provider or "a provider")
            return None
        return data


# --- single flight ------------------------------------------------------------------------


class _Flight:
    """One upstream call in progress for a key: its outcome (the stored bytes, ``_ABANDONED``
    or an error), and the thread and task that make it."""

    __slots__ = ("future", "thread", "task")

    def __init__(self, task: Any) -> None:
        self.future: Future[Any] = Future()
        self.thread = threading.get_ident()
        self.task = task

    def waits_on_itself(self, task: Any) -> bool:
        """Whether waiting for this flight from here would wait on ourselves: the same
        thread blocked by a sync wait, or the same task (a provider that calls the client
        again with the same request)."""
        if self.thread != threading.get_ident():
            return False
        return task is None or self.task is None or self.task is task


class Flights:
    """The calls in progress of one cache, by key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, _Flight] = {}

    def join(self, key: str, task: Any) -> tuple[_Flight, bool]:
        """The flight of ``key`` and whether we lead it (else another call does)."""
        with self._lock:
            flight = self._calls.get(key)
            if flight is not None:
                return flight, False
            flight = self._calls[key] = _Flight(task)
            return flight, True

    def land(self, key: str, flight: _Flight, outcome: Any, error: Optional[BaseException]
             ) -> None:
        with self._lock:
            if self._calls.get(key) is flight:
                del self._calls[key]
        if error is not None:
            flight.future.set_exception(error)
        else:
            flight.future.set_result(outcome)


async def _outcome(future: Future[Any]) -> Any:
    """``future.result()`` awaited without blocking the event loop (and without letting a
    cancelled waiter cancel the flight others wait on)."""
    if not future.done():
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()

        def wake(_: Future[Any]) -> None:
            try:
                loop.call_soon_threadsafe(_set_done, waiter)
            except RuntimeError:  # that loop has closed: nobody waits there any more
                pass

        future.add_done_callback(wake)
        await waiter
    return future.result()


def _set_done(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _current_task() -> Any:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


# --- the provider -------------------------------------------------------------------------


class Store(Protocol):
    """What the provider uses of its backend (``CacheBackend`` in cache/base.py): lookups and
    stores that never raise, and the calls in progress."""

    def lookup(self, key: str) -> Optional[bytes]: ...

    async def alookup(self, key: str) -> Optional[bytes]: ...

    def store(self, key: str, value: bytes, ttl: Optional[float]) -> None: ...

    async def astore(self, key: str, value: bytes, ttl: Optional[float]) -> None: ...

    def flights(self) -> Flights: ...


class CachedProvider(WrapperProvider):
    """``inner`` answering from ``backend`` when it can (``provider_key`` names the provider
    in the keys; entries expire after ``ttl`` seconds, None: never). Anything else is the
    wrapped provider's."""

    def __init__(self, inner: Provider, backend: Store, provider_key: str,
                 ttl: Optional[float]) -> None:
        super().__init__(inner)
        self._backend = backend
        self._provider_key = provider_key
        self._ttl = ttl
        self._flights = backend.flights()
        self.key = inner.key or provider_key

    def __repr__(self) -> str:
        return f"CachedProvider({self.wrapped!r}, {self._backend!r})"

    def cache_key(self, request: ChatRequest) -> str:
        """The key ``request`` is stored under in the backend."""
        return request_key(self._provider_key, request)

    # -- plain calls

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        key = self.cache_key(request)
        while True:
            flight, leader = self._flights.join(key, None)
            if leader:
                return self._lead(key, flight, request)
            if flight.waits_on_itself(None):
                return self._call(key, request)
            response = loaded(self._shared(flight.future.result()))
            if response is not None:
                return response

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        key = self.cache_key(request)
        task = _current_task()
        while True:
            flight, leader = self._flights.join(key, task)
            if leader:
                return await self._alead(key, flight, request)
            if flight.waits_on_itself(task):
                return await self._acall(key, request)
            response = loaded(self._shared(await _outcome(flight.future)))
            if response is not None:
                return response

    @staticmethod
    def _shared(outcome: Any) -> Optional[bytes]:
        data: Optional[bytes] = None if outcome is _ABANDONED else outcome
        return data

    def _lead(self, key: str, flight: _Flight, request: ChatRequest) -> ChatCompletionResponse:
        outcome: Any = _ABANDONED
        error: Optional[BaseException] = None
        try:
            data = self._backend.lookup(key)
            response = loaded(data)
            if response is None:
                response = self.wrapped.complete(request)
                data = self._store(key, response)
            outcome = data if data is not None else _ABANDONED
            return response
        except Exception as exc:  # shared with the calls that waited; never stored
            error = exc
            raise
        finally:
            self._flights.land(key, flight, outcome, error)

    async def _alead(self, key: str, flight: _Flight, request: ChatRequest
                     ) -> ChatCompletionResponse:
        outcome: Any = _ABANDONED
        error: Optional[BaseException] = None
        try:
            data = await self._backend.alookup(key)
            response = loaded(data)
            if response is None:
                response = await self.wrapped.acomplete(request)
                data = await self._astore(key, response)
            outcome = data if data is not None else _ABANDONED
            return response
        except Exception as exc:
            error = exc
            raise
        finally:
            self._flights.land(key, flight, outcome, error)

    def _call(self, key: str, request: ChatRequest) -> ChatCompletionResponse:
        """Look up and call without joining the flight (a call made from inside it)."""
        response = loaded(self._backend.lookup(key))
        if response is None:
            response = self.wrapped.complete(request)
            self._store(key, response)
        return response

    async def _acall(self, key: str, request: ChatRequest) -> ChatCompletionResponse:
        response = loaded(await self._backend.alookup(key))
        if response is None:
            response = await self.wrapped.acomplete(request)
            await self._astore(key, response)
        return response

    def _store(self, key: str, response: ChatCompletionResponse) -> Optional[bytes]:
        mark_cache_outcome(response, False)
        data = stored_form(response)
        if data is not None:
            self._backend.store(key, data, self._ttl)
        return data

    async def _astore(self, key: str, response: ChatCompletionResponse) -> Optional[bytes]:
        mark_cache_outcome(response, False)
        data = stored_form(response)
        if data is not None:
            await self._backend.astore(key, data, self._ttl)
        return data

    # -- streams (looked up and stored, but never waiting for another call: a stream is for
    # seeing the first tokens early)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        key = self.cache_key(request)
        found = entry(self._backend.lookup(key))
        if found is not None:
            return replayed(found)
        return self._recorded(key, self.wrapped.stream(request))

    def _recorded(self, key: str, chunks: Iterator[ChatCompletionChunk]
                  ) -> Iterator[ChatCompletionChunk]:
        recorder = _Recorder()
        try:
            for chunk in chunks:
                recorder.add(chunk)
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        data = recorder.stored()
        if data is not None:
            self._backend.store(key, data, self._ttl)

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        return self._astream(self.cache_key(request), request)

    async def _astream(self, key: str, request: ChatRequest
                       ) -> AsyncIterator[ChatCompletionChunk]:
        found = entry(await self._backend.alookup(key))
        if found is not None:
            for chunk in replayed(found):
                yield chunk
            return
        recorder = _Recorder()
        chunks = self.wrapped.astream(request)
        try:
            async for chunk in chunks:
                recorder.add(chunk)
                yield chunk
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()
        data = recorder.stored()
        if data is not None:
            await self._backend.astore(key, data, self._ttl)

    def close(self) -> None:
        """The wrapped provider belongs to the client, which closes it."""

    async def aclose(self) -> None:
        """The wrapped provider belongs to the client, which closes it."""
