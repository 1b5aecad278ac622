"""``client.batches``: many chat requests through the providers' own batch APIs (OpenAI
Batch, Anthropic Message Batches, Gemini batch mode), in the unified shape; embeddings
requests (``"input"`` instead of ``"messages"``) through OpenAI's ``/v1/embeddings`` batches.

    batch = client.batches.create([
        {"custom_id": "q1", "model": "openai:gpt-4o-mini", "messages": [...]},
        {"custom_id": "q2", "model": "anthropic:claude-haiku-4-5", "messages": [...],
         "max_tokens": 200},
    ])
    batch = client.batches.wait(batch.id, poll_interval=30)
    for custom_id, result in client.batches.results(batch.id):
        ...  # a ChatCompletionResponse, or the APIError of that request

Requests are validated and translated exactly as ``chat.completions.create`` would send them
before anything is sent; mixed providers are split into one provider batch per provider key
(and per model on Gemini). A ``Batch.id`` holds the provider keys and provider batch ids, so
``retrieve(id)`` works on a new ``Client`` in a new process. See docs/batches.md.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Optional, Union

from pydantic import BaseModel, ConfigDict

from ..client.base import parse_model, resolve_provider
from ..client.prepare import prepare_call
from ..core.checks import check_not_empty
from ..core.errors import APIError
from ..providers.base import embedding_request
from . import core
from .core import (
    BatchError,
    BatchRequestCancelledError,
    BatchRequestError,
    BatchRequestExpiredError,
    BatchStatus,
    BatchTimeoutError,
    InvalidBatchIdError,
)

if TYPE_CHECKING:
    from types import ModuleType

    from ..client.base import ClientBase
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.types import ChatCompletionResponse
    from ..providers.base import Provider

__all__ = [
    "Batch", "BatchPart", "BatchRequestCounts", "BatchStatus", "Batches", "AsyncBatches",
    "BatchError", "InvalidBatchIdError", "BatchRequestError", "BatchTimeoutError",
    "BatchRequestCancelledError", "BatchRequestExpiredError", "BatchResult",
]

BatchResult = tuple[str, Union["ChatCompletionResponse", "CreateEmbeddingResponse", APIError]]


class BatchRequestCounts(BaseModel):
    """How many requests a batch holds, and how many have finished well or badly
    (``failed`` includes requests cancelled or expired before they ran)."""

    total: int = 0
    completed: int = 0
    failed: int = 0


class BatchPart(BaseModel):
    """One provider batch of a ``Batch``: the provider key (as in ``"provider:model"``),
    the family, the provider's own batch id, and its status in our vocabulary beside the
    provider's own (``native_status``)."""

    model_config = ConfigDict(frozen=True)

    provider: str
    family: str
    batch_id: str
    status: BatchStatus
    native_status: str
    request_counts: BatchRequestCounts
    created_at: Optional[int] = None
    #: Why the provider batch failed as a whole (e.g. an input file that did not validate),
    #: when the provider says; per-request failures are in ``results``.
    error: Optional[str] = None


class Batch(BaseModel):
    """A batch of chat requests over one or more providers.

    ``status`` is one of ``validating``, ``in_progress``, ``finalizing`` (active),
    ``cancelling``, and ``completed``, ``failed``, ``expired``, ``cancelled`` (ended); see
    docs/batches.md for how each provider's states map onto it. ``request_counts`` sums the
    parts. ``id`` is self-contained: ``client.batches.retrieve(id)`` works in a new process.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    object: str = "batch"
    status: BatchStatus
    request_counts: BatchRequestCounts
    created_at: int
    metadata: Optional[dict[str, str]] = None
    parts: list[BatchPart]

    @property
    def done(self) -> bool:
        """True once the batch has ended (completed, failed, expired or cancelled)."""
        return self.status in core.TERMINAL


# --- families -------------------------------------------------------------------------------

def _family_of(provider: "Provider") -> Optional[str]:
    # By class, read from sys.modules: a provider's module is loaded once it exists.
    import sys

    for family, module_name, cls in (("openai", "openai", "OpenAIProvider"),
                                     ("anthropic", "anthropic", "AnthropicProvider"),
                                     ("google", "google", "GoogleProvider")):
        module = sys.modules.get(f"aisuite_like.providers.{module_name}")
        if module is not None and isinstance(provider, getattr(module, cls)):
            return family
    return None


def _family(name: str) -> "ModuleType":
    import importlib

    return importlib.import_module(f".{name}", __package__)  # batches/<family>.py


def _provider_for(client: "ClientBase", key: str) -> tuple["Provider", "ModuleType"]:
    provider = resolve_provider(client, key)
    family = _family_of(provider)
    if family is None:
        raise BatchRequestError(
            f"provider {key!r} has no batch API that client.batches supports (it supports "
            "OpenAI and the OpenAI-compatible services with a Batch API, Anthropic and the "
            "Gemini API); send these requests with chat.completions.create instead")
    return provider, _family(family)


# --- create: validation, translation, splitting (no I/O) ------------------------------------

_REFUSED = {
    "stream": "a batch returns whole responses; remove stream=True (read results() when the "
              "batch has ended)",
    "max_turns": "a batch runs one model call per request and executes no tools; remove "
                 "max_turns, or run tool loops with chat.completions.create",
    "fallbacks": "a batch goes to one provider; remove fallbacks",
    "timeout": "a batch line is a request body only; remove timeout",
    "cache": "a batch is not looked up in the response cache; remove cache",
}
_RUNNER_ONLY = ("tool_policy", "on_tool_error", "on_max_turns", "max_tool_concurrency",
                "tool_policy_context", "tool_timeout", "max_tool_result_chars")
_METADATA_MAX_KEYS = 16
_METADATA_MAX_CHARS = 512


def _check_metadata(metadata: Any) -> Optional[dict[str, str]]:
    if metadata is None:
        return None
    if not isinstance(metadata, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise BatchRequestError("metadata must be a dict of str to str, e.g. "
                                "{'project': 'eval-42'}")
    if len(metadata) > _METADATA_MAX_KEYS or any(
            len(k) > 64 or len(v) > _METADATA_MAX_CHARS for k, v in metadata.items()):
        raise BatchRequestError(f"metadata holds at most {_METADATA_MAX_KEYS} keys of up to 64 "
                                f"characters, values up to {_METADATA_MAX_CHARS} characters")
    return dict(metadata)


class _Group:
    """The requests of one provider batch."""

    __slots__ = ("key", "provider", "family", "model", "entries", "payload")

    def __init__(self, key: str, provider: "Provider", family: "ModuleType",
                 model: Optional[str]) -> None:
        self.key = key
        self.provider = provider
        self.family = family
        self.model = model
        self.entries: list[dict[str, Any]] = []
        self.payload: Any = None  # what the family submits (e.g. the JSONL file)


def _plan_groups(client: "ClientBase", requests: Any) -> list[_Group]:
    """Validate and translate every request (as ``create`` would), split per provider key
    (and per model on Gemini). Nothing is sent; the caller's dicts are not mutated."""
    from ..providers.registry import canonical_key

    if isinstance(requests, (str, bytes, Mapping)) or not isinstance(requests, Iterable):
        raise BatchRequestError("requests must be a list of dicts, each {'custom_id': ..., "
                                "'model': 'provider:model', 'messages': [...], ...}")
    groups: dict[tuple[str, Optional[str], str], _Group] = {}
    seen: set[str] = set()
    count = 0
    for index, request in enumerate(requests):
        count += 1
        if not isinstance(request, Mapping):
            raise BatchRequestError(f"requests[{index}] is a {type(request).__name__}; "
                                    "expected a dict", index=index)
        custom_id = request.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id:
            raise BatchRequestError(f"requests[{index}] needs a non-empty str 'custom_id' "
                                    "(it pairs the request with its result)", index=index)
        if custom_id in seen:
            raise BatchRequestError(f"requests[{index}]: custom_id {custom_id!r} is used twice; "
                                    "each request needs its own", index=index,
                                    custom_id=custom_id)
        seen.add(custom_id)
        for name, why in _REFUSED.items():
            if request.get(name) not in (None, False):
                raise BatchRequestError(f"requests[{index}] ({custom_id!r}): {name} cannot be "
                                        f"used in a batch: {why}", index=index,
                                        custom_id=custom_id)
        runner = [n for n in _RUNNER_ONLY if n in request]
        if runner:
            raise BatchRequestError(f"requests[{index}] ({custom_id!r}): {', '.join(runner)} "
                                    "only apply to the tool runner, which a batch does not run; "
                                    "remove them", index=index, custom_id=custom_id)
        # A request with "input" is an embeddings request (embeddings.create's arguments),
        # one with "messages" a chat request (docs/batches.md).
        kind = "embeddings" if "input" in request else "chat"
        if kind == "embeddings" and "messages" in request:
            raise BatchRequestError(
                f"requests[{index}] ({custom_id!r}) has both 'messages' and 'input': a request "
                "is a chat request (messages) or an embeddings request (input)", index=index,
                custom_id=custom_id)
        if "model" not in request or (kind == "chat" and "messages" not in request):
            raise BatchRequestError(f"requests[{index}] ({custom_id!r}) needs 'model' and "
                                    "'messages' (a chat request) or 'input' (an embeddings "
                                    "request)", index=index, custom_id=custom_id)
        kwargs = {k: v for k, v in request.items()
                  if k not in ("custom_id", "model", "messages", "input", *_REFUSED)}
        try:  # the model string and every argument, checked as create() checks them
            if kind == "embeddings":
                key, name = parse_model(request["model"])
                provider, family = _provider_for(client, key)
                if not hasattr(family, "embeddings_entry"):
                    raise BatchRequestError(
                        f"provider {key!r} has no embeddings batch API that client.batches "
                        "supports (OpenAI's /v1/embeddings batches do); send these with "
                        "client.embeddings.create instead")
                entry = family.embeddings_entry(custom_id, provider, embedding_request(
                    name, request["input"], **_embedding_arguments(kwargs)))
            else:
                chat_request = prepare_call(client, request["model"], request["messages"],
                                            kwargs).request
                check_not_empty(chat_request.messages)
                key, name = request["model"].partition(":")[0], chat_request.model
                provider, family = _provider_for(client, key)
                entry = family.entry(custom_id, provider, chat_request)
        except BatchRequestError as exc:
            raise BatchRequestError(f"requests[{index}] ({custom_id!r}): {exc}", index=index,
                                    custom_id=custom_id) from None
        except (ValueError, TypeError) as exc:
            exc.args = (f"requests[{index}] ({custom_id!r}): {exc}", *exc.args[1:])
            if hasattr(exc, "message"):
                exc.message = exc.args[0]
            raise
        model = name if family.FAMILY == "google" else None
        group_key = (canonical_key(key), model, kind)  # one provider batch per endpoint
        group = groups.get(group_key)
        if group is None:
            group = groups[group_key] = _Group(canonical_key(key), provider, family, model)
        group.entries.append(entry)
    if not count:
        raise BatchRequestError("requests is empty; pass at least one request")
    for group in groups.values():  # each provider's limits, still before anything is sent
        group.payload = group.family.prepare(group.entries, group.model)
    return list(groups.values())


_EMBEDDING_ARGUMENTS = ("dimensions", "encoding_format", "input_type", "user")


def _embedding_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A batch request's keywords as ``embedding_request``'s: the portable ones by name, the
    rest provider-native."""
    out: dict[str, Any] = {name: kwargs.pop(name) for name in _EMBEDDING_ARGUMENTS
                           if name in kwargs}
    out["extra"] = kwargs
    return out


# --- building Batch objects -----------------------------------------------------------------


def _part(key: str, family: "ModuleType", raw: Mapping[str, Any]) -> BatchPart:
    fields = family.part_fields(raw)
    return BatchPart(provider=key, family=family.FAMILY, batch_id=fields["batch_id"],
                     status=fields["status"], native_status=fields["native_status"],
                     request_counts=BatchRequestCounts(total=fields["total"],
                                                       completed=fields["completed"],
                                                       failed=fields["failed"]),
                     created_at=fields["created_at"], error=fields["error"])


def _note_submitted(error: Exception, parts: list[BatchPart], created_at: int,
                    metadata: Optional[dict[str, str]]) -> None:
    """A submit that failed after other provider batches were submitted: the error carries
    them as ``error.submitted_batch`` (a ``Batch`` whose id retrieves, cancels or reads them),
    so they are not lost; None when nothing was submitted before it."""
    error.submitted_batch = _batch(parts, created_at, metadata) if parts else None  # type: ignore[attr-defined]  # an attribute of our own on any error


def _batch(parts: list[BatchPart], created_at: int,
           metadata: Optional[dict[str, str]]) -> Batch:
    return Batch(
        id=core.encode_id([(p.provider, p.batch_id) for p in parts], created_at, metadata),
        status=core.merge_status([p.status for p in parts]),  # type: ignore[arg-type]
        request_counts=BatchRequestCounts(
            total=sum(p.request_counts.total for p in parts),
            completed=sum(p.request_counts.completed for p in parts),
            failed=sum(p.request_counts.failed for p in parts)),
        created_at=created_at, metadata=metadata, parts=parts)


def wait_step(batch: Batch, started: float, now: float, poll_interval: float,
               timeout: Optional[float]) -> Optional[float]:
    """How long to sleep before the next poll; None when the batch has ended. Past
    ``timeout`` a ``BatchTimeoutError`` naming the batch and its last status."""
    if batch.done:
        return None
    elapsed = now - started
    if timeout is not None and elapsed >= timeout:
        raise BatchTimeoutError(
            f"batch {batch.id} did not end within {timeout:g} s (last status: "
            f"{batch.status}, {batch.request_counts.completed + batch.request_counts.failed}/"
            f"{batch.request_counts.total} requests done); wait again or cancel it",
            batch_id=batch.id, status=batch.status)
    return poll_interval if timeout is None else min(poll_interval, timeout - elapsed)


def _check_wait(poll_interval: Any, timeout: Any) -> None:
    for name, value in (("poll_interval", poll_interval), ("timeout", timeout)):
        if value is None and name == "timeout":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")


def _now(clock: Any) -> float:
    """Seconds on ``clock`` (a ``testing.FakeClock`` counts its waits), else monotonic."""
    now = getattr(clock, "now", None)
    return float(now) if isinstance(now, (int, float)) else time.monotonic()


# --- the public surface ---------------------------------------------------------------------


class Batches:
    """``client.batches`` on ``Client``: ``create``, ``retrieve``, ``cancel``, ``wait``,
    ``results``, and their async twins ``acreate``, ``aretrieve``, ``acancel``, ``await_``
    (``await`` is a keyword), ``aresults``."""

    def __init__(self, client: "ClientBase") -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # -- sync --

    def create(self, requests: Iterable[Mapping[str, Any]], *,
               metadata: Optional[Mapping[str, str]] = None) -> Batch:
        """Validate and translate every request, then submit one provider batch per
        provider key (per model on Gemini). Nothing is sent when any request is invalid."""
        meta = _check_metadata(metadata)
        groups = _plan_groups(self._client, requests)
        created = int(time.time())
        parts: list[BatchPart] = []
        for g in groups:
            try:
                raw = core.run(g.provider, g.family.sdk(g.provider, False),
                               g.family.submit(g.provider, g.payload, g.model, meta))
            except Exception as exc:
                _note_submitted(exc, parts, created, meta)
                raise
            parts.append(_part(g.key, g.family, raw))
        return _batch(parts, created, meta)

    def retrieve(self, batch_id: str) -> Batch:
        """The batch's current status, from the providers (works on a new Client)."""
        return self._each(batch_id, "retrieve")

    def cancel(self, batch_id: str) -> Batch:
        """Ask every provider batch to stop; the returned status is usually
        ``cancelling``. Requests already run keep their results."""
        return self._each(batch_id, "cancel")

    def wait(self, batch_id: str, *, poll_interval: float = 30.0,
             timeout: Optional[float] = None, clock: Any = None) -> Batch:
        """Poll until the batch has ended; ``timeout`` (seconds) bounds the wait with a
        ``BatchTimeoutError``. ``clock`` (e.g. ``testing.FakeClock``) replaces sleeping."""
        _check_wait(poll_interval, timeout)
        started = _now(clock)
        while True:
            batch = self.retrieve(batch_id)
            pause = wait_step(batch, started, _now(clock), poll_interval, timeout)
            if pause is None:
                return batch
            clock.sleep(pause) if clock is not None else time.sleep(pause)

    def results(self, batch_id: str) -> Iterator[BatchResult]:
        """``(custom_id, ChatCompletionResponse | APIError)`` for every request with a
        result (a ``CreateEmbeddingResponse`` for an embeddings request): per provider batch,
        in the provider's order (see docs/batches.md). A malformed id raises at once."""
        return self._results(core.decode_id(batch_id)[0])

    def _results(self, parts: list[tuple[str, str]]) -> Iterator[BatchResult]:
        for key, provider_batch in parts:
            provider, family = _provider_for(self._client, key)
            client = family.sdk(provider, False)
            raw = core.run(provider, client, family.retrieve(provider, provider_batch))
            yield from core.iter_results(provider, client, family.results(provider, raw))

    def _each(self, batch_id: str, operation: str) -> Batch:
        parts, created, meta = core.decode_id(batch_id)
        out = []
        for key, provider_batch in parts:
            provider, family = _provider_for(self._client, key)
            raw = core.run(provider, family.sdk(provider, False),
                           getattr(family, operation)(provider, provider_batch))
            out.append(_part(key, family, raw))
        return _batch(out, created, meta)

    # -- async twins --

    async def acreate(self, requests: Iterable[Mapping[str, Any]], *,
                      metadata: Optional[Mapping[str, str]] = None) -> Batch:
        """Async ``create``."""
        meta = _check_metadata(metadata)
        groups = _plan_groups(self._client, requests)
        created = int(time.time())
        parts: list[BatchPart] = []
        for g in groups:
            try:
                raw = await core.arun(g.provider, g.family.sdk(g.provider, True),
                                      g.family.submit(g.provider, g.payload, g.model, meta))
            except Exception as exc:
                _note_submitted(exc, parts, created, meta)
                raise
            parts.append(_part(g.key, g.family, raw))
        return _batch(parts, created, meta)

    async def aretrieve(self, batch_id: str) -> Batch:
        """Async ``retrieve``."""
        return await self._aeach(batch_id, "retrieve")

    async def acancel(self, batch_id: str) -> Batch:
        """Async ``cancel``."""
        return await self._aeach(batch_id, "cancel")

    async def await_(self, batch_id: str, *, poll_interval: float = 30.0,
                     timeout: Optional[float] = None, clock: Any = None) -> Batch:
        """Async ``wait``."""
        import asyncio

        _check_wait(poll_interval, timeout)
        started = _now(clock)
        while True:
            batch = await self.aretrieve(batch_id)
            pause = wait_step(batch, started, _now(clock), poll_interval, timeout)
            if pause is None:
                return batch
            await (clock.asleep(pause) if clock is not None else asyncio.sleep(pause))

    def aresults(self, batch_id: str) -> AsyncIterator[BatchResult]:
        """Async ``results``: ``async for custom_id, result in client.batches.aresults(id)``
        (not awaited). A malformed id raises at once."""
        return self._aresults(core.decode_id(batch_id)[0])

    async def _aresults(self, parts: list[tuple[str, str]]) -> AsyncIterator[BatchResult]:
        for key, provider_batch in parts:
            provider, family = _provider_for(self._client, key)
            client = family.sdk(provider, True)
            raw = await core.arun(provider, client, family.retrieve(provider, provider_batch))
            async for item in core.aiter_results(provider, client,
                                                 family.results(provider, raw)):
                yield item

    async def _aeach(self, batch_id: str, operation: str) -> Batch:
        parts, created, meta = core.decode_id(batch_id)
        out = []
        for key, provider_batch in parts:
            provider, family = _provider_for(self._client, key)
            raw = await core.arun(provider, family.sdk(provider, True),
                                  getattr(family, operation)(provider, provider_batch))
            out.append(_part(key, family, raw))
        return _batch(out, created, meta)


class AsyncBatches:
    """``aclient.batches`` on ``AsyncClient``: the same operations, awaited
    (``results`` is an async iterator)."""

    def __init__(self, client: "ClientBase") -> None:
        self._batches = Batches(client)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    async def create(self, requests: Iterable[Mapping[str, Any]], *,
                     metadata: Optional[Mapping[str, str]] = None) -> Batch:
        """See ``Batches.create``."""
        return await self._batches.acreate(requests, metadata=metadata)

    async def retrieve(self, batch_id: str) -> Batch:
        """See ``Batches.retrieve``."""
        return await self._batches.aretrieve(batch_id)

    async def cancel(self, batch_id: str) -> Batch:
        """See ``Batches.cancel``."""
        return await self._batches.acancel(batch_id)

    async def wait(self, batch_id: str, *, poll_interval: float = 30.0,
                   timeout: Optional[float] = None, clock: Any = None) -> Batch:
        """See ``Batches.wait``."""
        return await self._batches.await_(batch_id, poll_interval=poll_interval,
                                          timeout=timeout, clock=clock)

    def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        """See ``Batches.results``."""
        return self._batches.aresults(batch_id)
