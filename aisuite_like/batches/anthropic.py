"""``client.batches`` on Anthropic Message Batches (``messages.batches.create / retrieve /
cancel / results``). Each request's ``params`` are exactly what ``messages.create`` sends;
results are read line by line from the results JSONL."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional

from ..core.errors import APIError, APIResponseValidationError
from ..providers.base import ChatRequest, Provider
from .core import (
    BatchRequestCancelledError,
    BatchRequestError,
    BatchRequestExpiredError,
    LineSource,
    Plan,
    SdkCall,
    Source,
    jsonl_parser,
    read_jsonl,
    request_body,
    submit_once,
)

FAMILY = "anthropic"
# Anthropic's documented limits for one Message Batch.
MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1024 * 1024
_SDK_ONLY = ("extra_headers", "extra_query", "timeout", "betas")


def params(provider: Provider, request: ChatRequest) -> dict[str, Any]:
    """The JSON body ``create`` sends for ``request``."""
    return request_body(provider._kwargs(request), _SDK_ONLY)  # type: ignore[attr-defined]


def entry(custom_id: str, provider: Provider, request: ChatRequest) -> dict[str, Any]:
    return {"custom_id": custom_id, "params": params(provider, request)}


def sdk(provider: Provider, is_async: bool) -> Any:
    """What performs the batch plans: the SDK client, or the native transport's calls."""
    return provider.plan_client(is_async)  # type: ignore[attr-defined]


def prepare(entries: list[dict[str, Any]], model: Optional[str]) -> list[dict[str, Any]]:
    """The requests of one Message Batch; too many or too large is refused here."""
    if len(entries) > MAX_REQUESTS:
        raise BatchRequestError(f"{len(entries)} requests for one Anthropic batch; the limit "
                                f"is {MAX_REQUESTS}: split them over several create() calls")
    size = sum(len(json.dumps(e, separators=(",", ":"))) for e in entries)
    if size > MAX_BYTES:
        raise BatchRequestError(f"the batch would be about {size} bytes; Anthropic accepts "
                                f"{MAX_BYTES}: split the requests over several batches")
    return entries


def submit(provider: Provider, entries: list[dict[str, Any]], model: Optional[str],
           metadata: Optional[dict[str, str]]) -> Plan[dict[str, Any]]:
    # Message Batches carry no metadata to find a batch by: an unknown outcome is raised.
    created: dict[str, Any] = yield from submit_once(
        provider, SdkCall("messages.batches.with_raw_response.create",
                          kwargs={"requests": entries}), None)
    return created


def retrieve(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    raw: dict[str, Any] = yield SdkCall("messages.batches.with_raw_response.retrieve",
                                        (batch_id,))
    return raw


def cancel(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    raw: dict[str, Any] = yield SdkCall("messages.batches.with_raw_response.cancel",
                                        (batch_id,))
    return raw


def _status(raw: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    native = raw.get("processing_status")
    if native == "canceling":
        return "cancelling"
    if native != "ended":
        return "in_progress"
    if raw.get("cancel_initiated_at"):
        return "cancelled"
    ran = counts["succeeded"] + counts["errored"]
    if not ran and counts["expired"]:
        return "expired"
    return "completed"


def part_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    given = raw.get("request_counts") or {}
    counts = {name: int(given.get(name) or 0)
              for name in ("processing", "succeeded", "errored", "canceled", "expired")}
    return {"batch_id": str(raw.get("id") or ""),
            "native_status": str(raw.get("processing_status") or ""),
            "status": _status(raw, counts), "total": sum(counts.values()),
            "completed": counts["succeeded"],
            "failed": counts["errored"] + counts["canceled"] + counts["expired"],
            "created_at": _timestamp(raw.get("created_at")), "error": None}


def _timestamp(value: Any) -> Optional[int]:
    from datetime import datetime

    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return None


def results(provider: Provider, raw: Mapping[str, Any]) -> Plan[list[Source]]:
    """The results JSONL at the batch's ``results_url``, read line by line as it arrives.
    Fetched with the client's ``get`` as ``messages.batches.results`` fetches it, but from
    the batch just retrieved: that method would retrieve the batch once more first. A
    ``results_url`` on another origin than the configured endpoint is not fetched (the
    request carries the key): the results are read from the documented results endpoint of
    the configured base URL instead (docs/batches.md)."""
    url = raw.get("results_url")
    if raw.get("processing_status") != "ended" or not url:
        return []
    from ..core.origins import same_origin
    from ..providers.anthropic._sdk_seam import jsonl_decoders

    if not isinstance(url, str) or not same_origin(
            url, provider._endpoint_url()):  # type: ignore[attr-defined]
        from urllib.parse import quote

        url = f"/v1/messages/batches/{quote(str(raw.get('id') or ''), safe='')}/results"
    options = {"headers": {"Accept": "application/binary"}}
    if getattr(provider, "_native", None) is not None:  # our own HTTP: no SDK decoders
        return [LineSource(SdkCall("get", (url,), read="stream", kwargs={"options": options}),
                           jsonl_parser(provider.key, _item_result))]
    decoder, async_decoder = jsonl_decoders()
    call = SdkCall("get", (url,), read="stream",
                   kwargs={"cast_to": decoder, "stream": True, "options": options},
                   async_kwargs={"cast_to": async_decoder, "stream": True,
                                 "options": options})
    return [LineSource(call, jsonl_parser(provider.key, _item_result))]
    yield  # pragma: no cover  (the body is opened by the driver, as it is read)


def read_lines(data: bytes, provider: str) -> list[tuple[str, Any]]:
    """A whole results JSONL -> ``(custom_id, ChatCompletionResponse | APIError)`` per line
    (what ``results`` reads as it arrives)."""
    return read_jsonl(data, provider, _item_result)


def _item_result(item: Mapping[str, Any], provider: str) -> Any:
    return line_result(item.get("result"), provider)


def line_result(result: Any, provider: str) -> Any:
    from ..core.reading import read_reply
    from ..providers.anthropic import error_from_stream_event, parse_response

    result = result if isinstance(result, Mapping) else {}
    kind = result.get("type")
    if kind == "succeeded":
        message = result.get("message")
        try:
            return read_reply(lambda: parse_response(message, provider=provider),
                              provider, 200, None)
        except APIError as exc:
            return exc
    if kind == "errored":
        error = result.get("error")
        event = error if isinstance(error, dict) else {"error": {"type": "api_error"}}
        return error_from_stream_event(event, provider=provider, where="batch request")
    if kind == "canceled":
        return BatchRequestCancelledError(
            f"{provider}: the request was not run: the batch was cancelled first",
            provider=provider)
    if kind == "expired":
        return BatchRequestExpiredError(
            f"{provider}: the request was not run before the batch expired (24 h)",
            provider=provider)
    return APIResponseValidationError(f"result.type is {kind!r}, expected succeeded, errored, "
                                      "canceled or expired", provider=provider)
