"""``client.batches`` on the OpenAI family (OpenAI and the compatible services with a Batch
API): the requests go up as a JSONL file (``files.create(purpose="batch")``), the batch is
``batches.create`` on ``/v1/chat/completions`` (or ``/v1/embeddings`` for embeddings requests:
one provider batch per endpoint); results come from the output file AND the error file. Each
line's ``body`` is exactly what ``chat.completions.create`` (or ``embeddings.create``, in the
caller's ``encoding_format``) sends."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional, Union

from ..core.errors import APIError, APIResponseValidationError, error_for_status
from ..providers.base import ChatRequest, EmbeddingRequest, Provider
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

FAMILY = "openai"
# OpenAI's documented limits for one batch input file.
MAX_REQUESTS = 50_000
MAX_FILE_BYTES = 200 * 1024 * 1024
_SDK_ONLY = ("extra_headers", "extra_query", "timeout")


def endpoint(provider: Provider, kind: str = "chat/completions") -> str:
    """The batch endpoint of ``kind`` (``"chat/completions"`` or ``"embeddings"``)."""
    # Azure OpenAI's batch endpoint has no /v1 prefix.
    return f"/{kind}" if provider.key == "azure" else f"/v1/{kind}"


def body(provider: Provider, request: ChatRequest) -> dict[str, Any]:
    """The JSON body ``create`` sends for ``request``."""
    return request_body(provider._kwargs(request), _SDK_ONLY)  # type: ignore[attr-defined]


def entry(custom_id: str, provider: Provider, request: ChatRequest) -> dict[str, Any]:
    return {"custom_id": custom_id, "method": "POST", "url": endpoint(provider),
            "body": body(provider, request)}


def embeddings_entry(custom_id: str, provider: Provider,
                     request: EmbeddingRequest) -> dict[str, Any]:
    """A ``/v1/embeddings`` line: the body ``embeddings.create`` sends, in the caller's
    ``encoding_format``; within the service's inputs per request (a line is never split)."""
    from ..providers.openai.embeddings import build_embeddings_request

    limit = provider.embedding_limit(request)  # what the service cannot honour raises
    if limit is not None and len(request.input) > limit:
        raise BatchRequestError(
            f"{len(request.input)} inputs in one embeddings request; {provider.key} takes at "
            f"most {limit} per request: spread them over several requests")
    spec = provider.spec  # type: ignore[attr-defined]  # an OpenAIProvider
    if request.encoding_format == "base64" and not spec.embeddings.base64:
        raise BatchRequestError(
            f"{provider.key} does not send base64 embeddings, and a batch's results are "
            "what the provider sent: use encoding_format='float'")
    body = request_body(build_embeddings_request(request, spec, wire_base64=False), _SDK_ONLY)
    return {"custom_id": custom_id, "method": "POST", "url": endpoint(provider, "embeddings"),
            "body": body}


class Upload:
    """The JSONL input file of one provider batch and the endpoint its lines go to."""

    __slots__ = ("data", "url")

    def __init__(self, data: bytes, url: str) -> None:
        self.data = data
        self.url = url


def prepare(entries: list[dict[str, Any]], model: Optional[str]) -> Upload:
    """The JSONL input file; too many requests or bytes for one batch is refused here."""
    if len(entries) > MAX_REQUESTS:
        raise BatchRequestError(f"{len(entries)} requests for one OpenAI batch; the limit is "
                                f"{MAX_REQUESTS}: split them over several create() calls")
    data = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for e in entries).encode()
    if len(data) > MAX_FILE_BYTES:
        raise BatchRequestError(f"the batch file would be {len(data)} bytes; OpenAI accepts "
                                f"{MAX_FILE_BYTES}: split the requests over several batches")
    return Upload(data, entries[0]["url"])  # a group's lines share their endpoint


def sdk(provider: Provider, is_async: bool) -> Any:
    """What performs the batch plans: the SDK client, or the native transport's calls."""
    return provider.plan_client(is_async)  # type: ignore[attr-defined]


def submit(provider: Provider, upload: Upload, model: Optional[str],
           metadata: Optional[dict[str, str]]) -> Plan[dict[str, Any]]:
    uploaded = yield SdkCall("files.with_raw_response.create", kwargs={
        "file": ("batch.jsonl", upload.data, "application/jsonl"), "purpose": "batch"})
    kwargs: dict[str, Any] = {"input_file_id": uploaded["id"], "endpoint": upload.url,
                              "completion_window": "24h"}
    if metadata:
        kwargs["metadata"] = metadata
    created: dict[str, Any] = yield from submit_once(
        provider, SdkCall("batches.with_raw_response.create", kwargs=kwargs),
        lambda: _batch_of_file(uploaded["id"]))
    return created


def _batch_of_file(file_id: str) -> Plan[Optional[dict[str, Any]]]:
    """The batch made from the input file ``file_id`` (each submission uploads its own), among
    the most recent ones, or None."""
    page = yield SdkCall("batches.with_raw_response.list", kwargs={"limit": 100})
    items = page.get("data") if isinstance(page, Mapping) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping) and item.get("input_file_id") == file_id:
            return dict(item)
    return None


def retrieve(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    raw: dict[str, Any] = yield SdkCall("batches.with_raw_response.retrieve", (batch_id,))
    return raw


def cancel(provider: Provider, batch_id: str) -> Plan[dict[str, Any]]:
    raw: dict[str, Any] = yield SdkCall("batches.with_raw_response.cancel", (batch_id,))
    return raw


def part_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A provider batch object -> the fields of our ``BatchPart`` (status names are
    already ours: the unified vocabulary is OpenAI's)."""
    counts = raw.get("request_counts") or {}
    native = str(raw.get("status") or "")
    return {"batch_id": str(raw.get("id") or ""), "native_status": native,
            "status": native if native in _STATUSES else "in_progress",
            "total": int(counts.get("total") or 0),
            "completed": int(counts.get("completed") or 0),
            "failed": int(counts.get("failed") or 0),
            "created_at": raw.get("created_at") if isinstance(raw.get("created_at"), int)
            else None,
            "error": _batch_errors(raw.get("errors"))}


def _batch_errors(errors: Any) -> Optional[str]:
    """Why a batch failed as a whole (e.g. its input file did not validate), briefly."""
    data = errors.get("data") if isinstance(errors, Mapping) else None
    if not isinstance(data, list) or not data:
        return None
    texts = [f"{e.get('code') or 'error'}: {e.get('message') or ''}"
             + (f" (line {e['line']})" if e.get("line") is not None else "")
             for e in data[:5] if isinstance(e, Mapping)]
    more = f" (+{len(data) - 5} more)" if len(data) > 5 else ""
    return "; ".join(texts) + more


_STATUSES = frozenset({"validating", "in_progress", "finalizing", "completed", "failed",
                       "expired", "cancelling", "cancelled"})


def results(provider: Provider, raw: Mapping[str, Any]) -> Plan[list[Source]]:
    """The output file, then the error file, each read line by line as it arrives."""
    return [LineSource(SdkCall("files.with_streaming_response.content", (file_id,),
                               read="stream"), jsonl_parser(provider.key, line_result))
            for file_id in (raw.get("output_file_id"), raw.get("error_file_id")) if file_id]
    yield  # pragma: no cover  (the files are opened by the driver, as they are read)


def read_lines(data: bytes, provider: str) -> list[tuple[str, Any]]:
    """A whole results file -> ``(custom_id, ChatCompletionResponse | CreateEmbeddingResponse
    | APIError)`` per line (what ``results`` reads as it arrives)."""
    return read_jsonl(data, provider, line_result)


def line_result(item: Mapping[str, Any], provider: str) -> Union[Any, APIError]:
    """One results line -> the response (parsed by the same translator as ``create``: an
    embeddings body, ``"object": "list"``, as ``embeddings.create`` reads it) or the typed
    error of that request."""
    from ..providers.openai import parse_response
    from ..providers.openai.embeddings import parse_embeddings

    error = item.get("error")
    response = item.get("response")
    if isinstance(error, Mapping):
        return _line_error(error, provider)
    if not isinstance(response, Mapping):
        return APIResponseValidationError("results line has neither response nor error",
                                          provider=provider)
    status, request_id = response.get("status_code"), response.get("request_id")
    status = status if isinstance(status, int) else None
    request_id = request_id if isinstance(request_id, str) else None
    data = response.get("body")
    if status is not None and status >= 400:
        detail = data.get("error") if isinstance(data, Mapping) else None
        detail = detail if isinstance(detail, Mapping) else {}
        code = detail.get("code")
        return error_for_status(status, str(detail.get("message") or f"HTTP {status}"),
                                 provider=provider, request_id=request_id, body=data,
                                 code=code if isinstance(code, str) else None)
    if isinstance(data, Mapping) and data.get("object") == "list":
        model = data.get("model")
        return _parsed(lambda: parse_embeddings(data, provider, str(model or "")), provider,
                       status, request_id)
    return _parsed(lambda: parse_response(data, provider),  # type: ignore[arg-type]
                   provider, status, request_id)


def _parsed(parse: Any, provider: str, status: Optional[int],
            request_id: Optional[str]) -> Union[Any, APIError]:
    from ..core.reading import read_reply

    try:
        return read_reply(parse, provider, status, request_id)
    except APIError as exc:
        return exc


def _line_error(error: Mapping[str, Any], provider: str) -> APIError:
    code = str(error.get("code") or "")
    message = str(error.get("message") or code or "the request failed")
    if code == "batch_expired":
        return BatchRequestExpiredError(message, provider=provider)
    if code == "batch_cancelled":
        return BatchRequestCancelledError(message, provider=provider)
    return error_for_status(400, f"{message} (code: {code})" if code else message,
                             provider=provider, body=dict(error), code=code or None)
