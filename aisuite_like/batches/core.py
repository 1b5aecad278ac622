"""The sans-IO core of ``client.batches``: errors, the unified status vocabulary, batch ids,
and the drivers that perform a family's SDK calls sync or async.

A family (``openai.py``, ``anthropic.py``, ``google.py`` here) writes each operation
once, as a generator of ``SdkCall``s: it yields the SDK call it needs, receives the decoded
reply, and returns its result. ``run`` performs the calls with the sync SDK client,
``arun`` with the async one; both go through the provider's retry policy and error mapping,
as ``create`` does.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Optional, TypeVar, Union

from ..core.errors import AisuiteLikeError, APIError
from ..core.reading import JSONTooDeepError, loads_json
from ..providers.plans import Plan, SdkCall, aattempt_of, arun, attempt_of, run

if TYPE_CHECKING:
    from ..providers.base import Provider

__all__ = [
    "BatchError", "InvalidBatchIdError", "BatchRequestError", "BatchTimeoutError",
    "BatchRequestCancelledError", "BatchRequestExpiredError", "BatchStatus", "STATUSES",
    "SdkCall", "Plan", "run", "arun", "LineSource", "Source", "iter_results", "aiter_results",
    "LineReader", "jsonl_parser", "read_jsonl", "read_jsonl_line", "request_body",
    "encode_id", "decode_id", "merge_status", "TERMINAL", "submit_once",
]

T = TypeVar("T")

# --- errors -------------------------------------------------------------------------------


class BatchError(AisuiteLikeError):
    """Root of the errors of ``client.batches`` about a batch as a whole."""


class InvalidBatchIdError(BatchError, ValueError):
    """A batch id that ``client.batches.create`` did not make (or that was altered)."""


class BatchRequestError(BatchError, ValueError):
    """A request given to ``client.batches.create`` cannot be batched as it is (a missing or
    repeated ``custom_id``, ``stream`` or ``max_turns``, a provider without a batch API, too
    many requests for one provider batch). Raised before anything is sent. ``index`` is the
    request's position in the input, when the error is about one request."""

    def __init__(self, message: str, *, index: Optional[int] = None,
                 custom_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.index = index
        self.custom_id = custom_id


class BatchTimeoutError(BatchError, TimeoutError):
    """``client.batches.wait`` ran out of time: ``batch_id`` and its last ``status``."""

    def __init__(self, message: str, *, batch_id: str, status: str) -> None:
        super().__init__(message)
        self.batch_id = batch_id
        self.status = status


class BatchRequestCancelledError(APIError):
    """One request of a batch was not run because the batch was cancelled first."""


class BatchRequestExpiredError(APIError):
    """One request of a batch was not run before the batch's completion window ended."""


# --- statuses -------------------------------------------------------------------------------

BatchStatus = Literal["validating", "in_progress", "finalizing", "completed", "failed",
                      "expired", "cancelling", "cancelled"]
STATUSES: tuple[str, ...] = ("validating", "in_progress", "finalizing", "completed", "failed",
                             "expired", "cancelling", "cancelled")
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
_PROGRESS = {"validating": 0, "in_progress": 1, "finalizing": 2}


def merge_status(statuses: list[str]) -> str:
    """The status of a batch made of parts with these statuses. Active while any part is:
    ``cancelling`` if any part is, else the least advanced active status. Once every part has
    ended: ``completed`` if any part completed (each part keeps its own status), else
    ``cancelled``, ``expired`` or ``failed``, in that order."""
    active = [s for s in statuses if s not in TERMINAL]
    if active:
        if "cancelling" in active:
            return "cancelling"
        return min(active, key=lambda s: _PROGRESS.get(s, 1))
    for status in ("completed", "cancelled", "expired", "failed"):
        if status in statuses:
            return status
    return "failed"


# --- batch ids ------------------------------------------------------------------------------

_ID_PREFIX = "batch_"
_ID_VERSION = 1


def encode_id(parts: list[tuple[str, str]], created_at: int,
              metadata: Optional[dict[str, str]]) -> str:
    """``batch_`` + base64url(JSON) of the provider keys (names, never API keys), each
    provider batch id, the creation time and the metadata: everything ``retrieve`` needs on
    a fresh client, with no local state."""
    data: dict[str, Any] = {"v": _ID_VERSION, "p": [list(p) for p in parts], "t": created_at}
    if metadata:
        data["m"] = metadata
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    return _ID_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_id(batch_id: Any) -> tuple[list[tuple[str, str]], int, Optional[dict[str, str]]]:
    """The parts, creation time and metadata ``encode_id`` put in ``batch_id``; anything
    else is an ``InvalidBatchIdError``."""
    def bad(why: str) -> InvalidBatchIdError:
        shown = batch_id if isinstance(batch_id, str) and len(batch_id) <= 80 else (
            f"{str(batch_id)[:80]}..." if isinstance(batch_id, str) else type(batch_id).__name__)
        return InvalidBatchIdError(
            f"{shown!r} is not a batch id made by client.batches.create ({why}); pass the "
            "Batch.id that create() returned, e.g. 'batch_eyJ2Ijo...'")

    if not isinstance(batch_id, str) or not batch_id.startswith(_ID_PREFIX):
        raise bad(f"it must be a str starting with {_ID_PREFIX!r}")
    body = batch_id[len(_ID_PREFIX):]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        data = loads_json(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise bad("its body is not base64url JSON") from None
    if not isinstance(data, dict) or data.get("v") != _ID_VERSION:
        raise bad("unknown id version")
    parts, created, metadata = data.get("p"), data.get("t"), data.get("m")
    if not isinstance(parts, list) or not parts or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) and x for x in p)
            for p in parts):
        raise bad("no valid provider batch list")
    if not isinstance(created, int) or isinstance(created, bool):
        raise bad("no creation time")
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise bad("malformed metadata")
    return [(p[0], p[1]) for p in parts], created, metadata


# --- SDK calls, performed sync or async: providers/plans.py (shared with the endpoints) ----


def submit_once(provider: "Provider", create: SdkCall,
                lookup: Optional[Callable[[], Plan[Optional[dict[str, Any]]]]]
                ) -> Plan[dict[str, Any]]:
    """The plan that creates one provider batch with ``create`` and never creates two. When
    the outcome of the create request is unknown (it timed out, or the connection was lost
    after it may have arrived), it is not sent again: ``lookup`` (a plan answering the batch
    that request created, or None; absent where the API cannot tell) finds the batch, or the
    error is raised, saying so."""
    from ..core.errors import APIConnectionError, APITimeoutError

    try:
        created: dict[str, Any] = yield replace(create, once=True)
        return created
    except (APIConnectionError, APITimeoutError) as unsettled:
        error = unsettled
    if lookup is not None:
        try:
            found = yield from lookup()
        except APIError:
            found = None
        if found is not None:
            return found
        looked = ("no batch it created was found (looked up right after), but it may still "
                  "appear")
    else:
        looked = f"{provider.key} offers no way to find the batch it may have created"
    raise type(error)(
        f"{error.message} -- the request creating the {provider.key} batch got no answer, so "
        f"whether the batch was created is unknown; {looked}. It was not sent again (a second "
        "batch would run every request twice): check the provider's batch list before "
        "submitting again.", provider=error.provider) from error


# --- results, read as they arrive -----------------------------------------------------------


@dataclass(frozen=True)
class LineSource:
    """A JSONL results body to read line by line as it arrives, never whole: ``call`` opens
    it (``read="stream"``); ``parse`` turns one line (its text and 1-based number) into a
    ``(custom_id, result)``, or None for a blank line."""

    call: SdkCall
    parse: Callable[[str, int], Optional[tuple[str, Any]]]


#: What a family's ``results`` plan returns: results to read from a body (``LineSource``) or
#: results it already has (an iterable, e.g. Gemini's inline responses).
Source = Union[LineSource, Iterable[tuple[str, Any]]]


class LineReader:
    """Sans-IO: body chunks in, results out. Lines end at ``\n`` (a ``\r`` before it is
    dropped); each is decoded as UTF-8 (bad bytes replaced) and given to ``parse``. A line
    split over chunks is joined without re-copying what came before it. After ``restart``
    the lines already read are skipped: a body read again after a dropped connection yields
    each result once."""

    __slots__ = ("_parse", "_pending", "_number", "_skip")

    def __init__(self, parse: Callable[[str, int], Optional[tuple[str, Any]]]) -> None:
        self._parse = parse
        self._pending: list[bytes] = []  # the start of a line not ended yet
        self._number = 0  # lines read (complete ones)
        self._skip = 0

    def feed(self, chunk: bytes) -> list[tuple[str, Any]]:
        if b"\n" not in chunk:
            if chunk:
                self._pending.append(chunk)
            return []
        lines = chunk.split(b"\n")
        if self._pending:
            lines[0] = b"".join((*self._pending, lines[0]))
        last = lines.pop()
        self._pending = [last] if last else []
        return self._read(lines)

    def end(self) -> list[tuple[str, Any]]:
        rest, self._pending = b"".join(self._pending), []
        return self._read([rest]) if rest else []

    def restart(self) -> None:
        """The body starts again from its first byte: drop the unfinished line, skip the
        lines already read."""
        self._pending, self._skip, self._number = [], max(self._skip, self._number), 0

    def _read(self, lines: list[bytes]) -> list[tuple[str, Any]]:
        out = []
        for line in lines:
            self._number += 1
            if self._number <= self._skip:
                continue
            item = self._parse(line.removesuffix(b"\r").decode("utf-8", "replace"),
                               self._number)
            if item is not None:
                out.append(item)
        return out


# --- JSONL results (OpenAI output/error files, Anthropic results) ---------------------------

_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"((?:[^"\\]|\\.)*)"')

#: A family's reading of one parsed results line: the response or the typed error.
ResultOf = Callable[[Any, str], Any]


def jsonl_parser(provider: str, result_of: ResultOf) -> Callable[[str, int], Optional[
        tuple[str, Any]]]:
    """The ``LineReader`` parse function of a JSONL results body."""
    return partial(read_jsonl_line, provider=provider, result_of=result_of)


def read_jsonl_line(line: str, number: int, provider: str, result_of: ResultOf
                    ) -> Optional[tuple[str, Any]]:
    """One results line -> ``(custom_id, result_of(item))``; None for a blank line. A line
    that cannot be read is an ``APIResponseValidationError`` for its custom_id (found in the
    raw text when the line is not JSON; ``""`` when even that fails): the other lines are
    still read."""
    if not line.strip():
        return None
    try:
        item = loads_json(line)
        if not isinstance(item, dict) or not isinstance(item.get("custom_id"), str):
            raise ValueError("no custom_id")
    except ValueError as exc:
        from ..core.errors import APIResponseValidationError

        found = _CUSTOM_ID.search(line)
        custom_id = json.loads(f'"{found.group(1)}"') if found else ""
        what = f"JSON {exc.msg}" if isinstance(exc, JSONTooDeepError) else (
            "not a JSON object with a custom_id")
        return custom_id, APIResponseValidationError(f"results line {number} is {what}",
                                                     provider=provider)
    return item["custom_id"], result_of(item, provider)


def read_jsonl(data: bytes, provider: str, result_of: ResultOf) -> list[tuple[str, Any]]:
    """A whole JSONL results body, read as ``results`` reads it as it arrives."""
    reader = LineReader(jsonl_parser(provider, result_of))
    return reader.feed(data) + reader.end()


def request_body(kwargs: dict[str, Any], sdk_only: Iterable[str]) -> dict[str, Any]:
    """The JSON body ``create`` sends, from a translator's SDK keyword arguments
    (``extra_body`` merged as the SDKs merge it); an SDK-only option is refused, since a
    batch request is a body only."""
    for name in sdk_only:
        if name in kwargs:
            raise BatchRequestError(f"{name!r} cannot be sent in a batch (a batch request is "
                                    "a request body only); remove it")
    extra = kwargs.pop("extra_body", None) or {}
    return {**kwargs, **extra}


def _body_error(provider: "Provider", exc: Exception) -> Exception:
    """A failure while reading a results body -> our typed error (retryable: the body is
    read again from the start, skipping the lines already yielded)."""
    import httpx2

    from ..core.errors import APIConnectionError, APITimeoutError

    mapped = provider._error(exc)  # type: ignore[attr-defined]
    if isinstance(mapped, APIError) or not isinstance(exc, httpx2.TransportError):
        return mapped  # type: ignore[no-any-return]
    kind = APITimeoutError if isinstance(exc, httpx2.TimeoutException) else APIConnectionError
    return kind(f"reading batch results from {provider.key} failed: {type(exc).__name__}: "
                f"{exc}", provider=provider.key)


def _wait_after(provider: "Provider", policy: Any, failures: int, exc: Exception) -> float:
    """Seconds to wait before reading a body again after ``exc`` broke it; raises the typed
    error when the retry policy gives up."""
    error = _body_error(provider, exc)
    wait = policy.wait(failures, error) if isinstance(error, APIError) else None
    if wait is not None:
        return float(wait)
    if error is exc:
        raise exc
    raise error from exc


def _native_bounds(policy: Any, client: Any) -> tuple[Any, ...]:
    """The bounds of opening a results body on the native transport (no SDK client's own
    timeout there): the config's."""
    from ..providers.plans import NativeCalls

    return (policy.bounds(None),) if isinstance(client, NativeCalls) else ()


def iter_results(provider: "Provider", client: Any,
                 plan: Plan[list[Source]]) -> Iterator[tuple[str, Any]]:
    """Perform a ``results`` plan with the sync SDK ``client`` and yield each result as its
    line arrives (a results body is never held whole). A body cut short is read again,
    under the provider's retry policy, skipping the lines already yielded."""
    from ..providers import retry as _retry

    policy = provider._calls  # type: ignore[attr-defined]
    for source in run(provider, client, plan):
        if not isinstance(source, LineSource):
            yield from source
            continue
        reader, failures, done = LineReader(source.parse), 0, False
        while not done:
            response = _retry.call(policy, attempt_of(provider, client), source.call,
                                   *_native_bounds(policy, client))
            try:
                chunks = response.iter_bytes()
                while not done:
                    try:
                        chunk = next(chunks, None)
                    except Exception as exc:  # the connection broke mid-body
                        failures += 1
                        wait = _wait_after(provider, policy, failures, exc)
                        break
                    done = chunk is None
                    yield from (reader.end() if chunk is None else reader.feed(chunk))
            finally:
                response.close()
            if not done:
                policy.clock.sleep(wait)
                reader.restart()


async def aiter_results(provider: "Provider", client: Any,
                        plan: Plan[list[Source]]) -> AsyncIterator[tuple[str, Any]]:
    """``iter_results`` with the async SDK ``client``."""
    from ..providers import retry as _retry

    policy = provider._calls  # type: ignore[attr-defined]
    for source in await arun(provider, client, plan):
        if not isinstance(source, LineSource):
            for item in source:
                yield item
            continue
        reader, failures, done = LineReader(source.parse), 0, False
        while not done:
            response = await _retry.acall(policy, aattempt_of(provider, client), source.call,
                                               *_native_bounds(policy, client))
            try:
                chunks = response.aiter_bytes()
                while not done:
                    try:
                        chunk = await anext(chunks, None)
                    except Exception as exc:  # the connection broke mid-body
                        failures += 1
                        wait = _wait_after(provider, policy, failures, exc)
                        break
                    done = chunk is None
                    for item in (reader.end() if chunk is None else reader.feed(chunk)):
                        yield item
            finally:
                await response.aclose()
            if not done:
                await policy.clock.asleep(wait)
                reader.restart()
