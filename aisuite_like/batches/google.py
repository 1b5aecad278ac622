"""``client.batches`` on Gemini batch mode (Gemini API, inline requests): one batch per
model (``models/<m>:batchGenerateContent``), read and cancelled as ``batches/<id>``.

The calls go through google-genai's API client, the same layer ``create`` uses for Gemini:
each inline request is exactly the ``generateContent`` body ``create`` sends (the SDK's typed
``client.batches.create`` would re-serialise it through its own types, losing fields it does
not model), and each inline response is read by the same translator as ``create``."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from ..core.errors import APIError, APIResponseValidationError
from ..providers.base import ChatRequest, Provider
from .core import BatchRequestError, InvalidBatchIdError, Plan, SdkCall, Source, submit_once

FAMILY = "google"
# Gemini's documented cap on the inline requests of one batch.
MAX_INLINE_BYTES = 20 * 1024 * 1024
_METADATA_KEY = "custom_id"


def body(provider: Provider, request: ChatRequest) -> dict[str, Any]:
    """The ``generateContent`` body ``create`` sends for ``request``."""
    from ..providers.google import build_request

    if getattr(provider, "_vertex", False):
        raise BatchRequestError("Gemini batch mode on Vertex AI reads its input from Cloud "
                                "Storage or BigQuery, which client.batches does not do; use "
                                "the Gemini API (an API key) for batches")
    if request.timeout is not None:
        raise BatchRequestError("'timeout' cannot be sent in a batch; remove it")
    call = build_request(request, provider.key)
    if call.http_options:
        raise BatchRequestError("'http_options' cannot be sent in a batch (a batch request "
                                "is a request body only); remove it")
    return call.body


def entry(custom_id: str, provider: Provider, request: ChatRequest) -> dict[str, Any]:
    return {"request": body(provider, request), "metadata": {_METADATA_KEY: custom_id}}


def sdk(provider: Provider, is_async: bool) -> Any:
    """What performs the batch plans: google-genai's API client (one serves sync and async),
    or the native transport's calls."""
    return provider.plan_client(is_async)  # type: ignore[attr-defined]


def prepare(entries: list[dict[str, Any]], model: Optional[str]) -> list[dict[str, Any]]:
    """The inline requests of one batch; too large is refused here."""
    size = sum(len(json.dumps(e, separators=(",", ":"))) for e in entries)
    if size > MAX_INLINE_BYTES:
        raise BatchRequestError(f"the inline requests for {model!r} would be about {size} "
                                f"bytes; Gemini batch mode accepts {MAX_INLINE_BYTES} inline: "
                                "split them over several batches")
    return entries


def submit(provider: Provider, entries: list[dict[str, Any]], model: Optional[str],
           metadata: Optional[dict[str, str]]) -> Plan[dict[str, Any]]:
    assert model is not None  # one model per Gemini batch: the caller splits per model
    path = provider.model_path(model) + ":batchGenerateContent"  # type: ignore[attr-defined]
    # A name of its own: the batch an unanswered create made is found by it.
    name = f"aisuite-like batch {uuid.uuid4().hex}"
    batch: dict[str, Any] = {"displayName": name,
                             "inputConfig": {"requests": {"requests": entries}}}
    created: dict[str, Any] = yield from submit_once(
        provider, _call(provider, "post", path, {"batch": batch}),
        lambda: _batch_named(provider, name))
    return created


def _batch_named(provider: Provider, name: str) -> Plan[Optional[dict[str, Any]]]:
    """The batch whose display name is ``name``, among the most recent ones, or None."""
    page = yield _call(provider, "get", "batches?pageSize=100", {})
    items = page.get("operations") if isinstance(page, Mapping) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping) and _meta(item).get("displayName") == name:
            return dict(item)
    return None


def _call(provider: Provider, method: str, path: str, data: dict[str, Any]) -> SdkCall:
    # the request layer of google-genai's API client (providers/google/_sdk_seam.py)
    return SdkCall("request", (method, path, data, _http_options(provider)), read="genai",
                   async_path="async_request")


def _http_options(provider: Provider) -> dict[str, Any]:
    """Each request's timeout, as ``create`` bounds its own: the configured one, else the
    family default (600 s); google-genai alone would wait forever."""
    from ..providers.google import DEFAULT_TIMEOUT

    timeout = provider._config.get("timeout")  # type: ignore[attr-defined]
    if not isinstance(timeout, (int, float)):  # None, or an httpx2.Timeout: its longest part
        parts = [getattr(timeout, name, None) for name in ("read", "connect", "write", "pool")]
        timeout = max((p for p in parts if p is not None), default=DEFAULT_TIMEOUT)
    return {"timeout": max(1, int(timeout * 1000))}


def _batch_path(batch_id: str) -> str:
    """A Gemini batch name (``batches/<id>``, from a ``Batch.id`` anyone may have altered) as
    a request path: the id is one percent-encoded path segment, so it cannot reach another
    route, add a query or climb out with ``..``. A malformed name is refused here, before
    any request."""
    from urllib.parse import quote

    name = batch_id[len("batches/"):] if batch_id.startswith("batches/") else ""
    if name in ("", ".", "..") or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127
                                      for ch in name):
        raise InvalidBatchIdError(
            f"{batch_id[:80]!r} is not a Gemini batch name ('batches/<id>'); pass the "
            "Batch.id that client.batches.create returned, unaltered")
    return "batches/" + quote(name, safe="")


def retrieve(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    raw: dict[str, Any] = yield _call(provider, "get", _batch_path(batch_id), {})
    return raw


def cancel(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    path = _batch_path(batch_id)
    yield _call(provider, "post", f"{path}:cancel", {})
    raw: dict[str, Any] = yield _call(provider, "get", path, {})
    return raw


_STATES = {"PENDING": "validating", "RUNNING": "in_progress", "SUCCEEDED": "completed",
           "FAILED": "failed", "CANCELLED": "cancelled", "EXPIRED": "expired",
           "UNSPECIFIED": "in_progress", "PAUSED": "in_progress", "QUEUED": "validating",
           "CANCELLING": "cancelling", "PARTIALLY_SUCCEEDED": "completed"}


def _meta(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = raw.get("metadata")
    return meta if isinstance(meta, Mapping) else raw


def part_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    from .anthropic import _timestamp

    meta = _meta(raw)
    native = str(meta.get("state") or "")
    short = native.replace("BATCH_STATE_", "").replace("JOB_STATE_", "")
    stats = meta.get("batchStats") if isinstance(meta.get("batchStats"), Mapping) else {}
    assert isinstance(stats, Mapping)

    def count(name: str) -> int:
        try:
            return int(stats.get(name) or 0)
        except (TypeError, ValueError):
            return 0

    return {"batch_id": str(raw.get("name") or meta.get("name") or ""),
            "native_status": native, "status": _STATES.get(short, "in_progress"),
            "total": count("requestCount"), "completed": count("successfulRequestCount"),
            "failed": count("failedRequestCount"),
            "created_at": _timestamp(meta.get("createTime")), "error": _error_text(raw)}


def _error_text(raw: Mapping[str, Any]) -> Optional[str]:
    """The operation's error (a batch that failed as a whole), briefly."""
    error = raw.get("error")
    if not isinstance(error, Mapping):
        return None
    return f"{error.get('status') or error.get('code') or 'error'}: {error.get('message') or ''}"


def results(provider: Provider, raw: Mapping[str, Any]) -> Plan[list[Source]]:
    return [iter_inline(raw, provider.key)]
    yield  # pragma: no cover  (a plan with no call: the responses came with the batch)


def _inlined(raw: Mapping[str, Any]) -> Optional[list[Any]]:
    for holder in (_meta(raw).get("output"), raw.get("response")):
        if isinstance(holder, Mapping):
            inlined = holder.get("inlinedResponses")
            if isinstance(inlined, Mapping) and isinstance(inlined.get("inlinedResponses"),
                                                            list):
                return inlined["inlinedResponses"]  # type: ignore[no-any-return]
    return None


# google.rpc.Code (what an inline error's ``code`` is) -> the HTTP status it stands for.
_RPC_STATUS = {1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400,
               10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401}


def _http_status(error: Any) -> Any:
    if isinstance(error, Mapping) and isinstance(error.get("code"), int) \
            and error["code"] in _RPC_STATUS:
        return {**error, "code": _RPC_STATUS[error["code"]]}
    return error


def _response(data: Any, provider: str, model: str) -> Any:
    from ..core.reading import read_reply
    from ..providers.google import parse_response

    try:
        return read_reply(lambda: parse_response(data, provider, model), provider, 200, None)
    except APIError as exc:
        return exc


def read_inline(raw: Mapping[str, Any], provider: str) -> list[tuple[str, Any]]:
    """The inline responses of a finished batch -> ``(custom_id, response | APIError)``, in
    the order of the requests."""
    return list(iter_inline(raw, provider))


def iter_inline(raw: Mapping[str, Any], provider: str) -> Iterator[tuple[str, Any]]:
    """``read_inline``, one response at a time (each translated when it is asked for)."""
    from ..providers.google import error_event

    inlined = _inlined(raw)
    if inlined is None:
        return
    model = str(_meta(raw).get("model") or "").removeprefix("models/")
    for position, item in enumerate(inlined):
        meta = item.get("metadata") if isinstance(item, Mapping) else None
        custom_id = meta.get(_METADATA_KEY) if isinstance(meta, Mapping) else None
        if not isinstance(custom_id, str):
            yield "", APIResponseValidationError(
                f"inlined response {position} carries no metadata.{_METADATA_KEY}",
                provider=provider)
            continue
        assert isinstance(item, Mapping)
        if item.get("error"):
            yield custom_id, error_event(_http_status(item["error"]), provider,
                                          where="batch request")
            continue
        yield custom_id, _response(item.get("response"), provider, model)
