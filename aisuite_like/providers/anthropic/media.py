"""Anthropic's Files API (docs/files.md) as plans of SDK calls (``providers/plans.py``):
``beta.files`` upload, metadata, list, delete and download, each with the Files API's beta
header. Pure: no I/O, no SDK import."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

from ...core.media import BinaryResponse, FileDeleted, FileObject
from .._common import bad_shape, need_list, need_object
from ..base import FileRequest
from ..plans import Plan, SdkCall
from .translate import FILES_BETA

__all__ = ["files_plan", "parse_file", "count_plan", "COUNT_PARAMS"]

#: The arguments of ``messages.create`` that ``messages.count_tokens`` takes too (what the
#: count is of); the sampling arguments and ``max_tokens`` are not sent to the count.
COUNT_PARAMS = ("model", "messages", "system", "tools", "tool_choice", "thinking",
                "cache_control", "output_config", "extra_headers")


def count_plan(kwargs: dict[str, Any], provider: str, model: str) -> Plan[Any]:
    """``POST /v1/messages/count_tokens`` (the SDK's ``messages.count_tokens``) for the
    ``messages.create`` arguments ``kwargs`` of a request: ``TokenCount``."""
    from .._common import counted

    params = {name: kwargs[name] for name in COUNT_PARAMS if name in kwargs}
    data = yield SdkCall("messages.with_raw_response.count_tokens", kwargs=params)
    return counted(data, provider, "input_tokens", "anthropic messages/count_tokens", model)


def _epoch(value: Any) -> Optional[int]:
    if isinstance(value, str) and value:
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
        except ValueError:
            return None
    return None


def parse_file(data: Any, provider: str) -> FileObject:
    """A file's metadata (``{"id", "filename", "mime_type", "size_bytes", "created_at"}``)
    -> ``FileObject`` (``purpose`` ``user_data``: what chat reads)."""
    body = need_object(data, provider, "the file")
    file_id = body.get("id")
    if not isinstance(file_id, str) or not file_id:
        raise bad_shape(provider, "the file's id", "a string", file_id)
    size = body.get("size_bytes", 0)
    if not isinstance(size, int) or isinstance(size, bool):
        raise bad_shape(provider, "the file's size_bytes", "a count", size)
    fields: dict[str, Any] = {
        "id": file_id, "bytes": size, "created_at": _epoch(body.get("created_at")) or 0,
        "filename": str(body.get("filename") or ""), "expires_at": _epoch(body.get("expires_at")),
        "purpose": "user_data", "status": "processed", "provider": provider}
    for name in ("mime_type", "downloadable"):
        if body.get(name) is not None:
            fields[name] = body[name]
    return FileObject(**fields)


def files_plan(request: FileRequest, provider: str) -> Plan[Any]:
    """One ``client.files`` operation on Anthropic's Files API."""
    options: dict[str, Any] = {"betas": [FILES_BETA], **request.extra}
    if request.timeout is not None:
        options["timeout"] = request.timeout
    op = request.operation
    if op == "create":
        upload = request.upload
        assert upload is not None
        data = yield SdkCall("beta.files.with_raw_response.upload", kwargs={
            "file": (upload.name, upload.data, upload.content_type), **options}, once=True)
        return parse_file(data, provider)
    if op == "list":
        params = dict(request.params)
        query: dict[str, Any] = {}
        if "limit" in params:
            query["limit"] = params.pop("limit")
        if "after" in params:
            query["page"] = params.pop("after")
        if params:
            from ...core.errors import UnsupportedParameterError

            name = sorted(params)[0]
            raise UnsupportedParameterError(
                f"{name}: Anthropic's Files API lists the newest files first, for every "
                "purpose; leave it out", parameter=name, provider=provider)
        data = yield SdkCall("beta.files.with_raw_response.list", kwargs={**query, **options})
        body = need_object(data, provider, "the file list")
        files = [parse_file(item, provider) for item in need_list(body.get("data"), provider,
                                                                   "data")]
        cursor = body.get("next_page")
        return files, cursor if isinstance(cursor, str) and cursor else None
    args = (request.file_id,)
    if op == "retrieve":
        data = yield SdkCall("beta.files.with_raw_response.retrieve_metadata", args, options)
        return parse_file(data, provider)
    if op == "delete":
        data = yield SdkCall("beta.files.with_raw_response.delete", args, options)
        return FileDeleted(id=str(need_object(data, provider, "the reply").get("id")
                                  or request.file_id))
    reply = yield SdkCall("beta.files.with_raw_response.download", args, options, read="bytes")
    return BinaryResponse(reply.content, reply.content_type, provider=provider)
