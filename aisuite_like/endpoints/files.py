"""``client.files``: upload files for use in chat (and batches), then retrieve, list, delete
them and read their content, on OpenAI, Anthropic's Files API and Gemini's Files API, in the
OpenAI SDK's shape (docs/files.md).

    f = client.files.create(file=open("report.pdf", "rb"), purpose="user_data",
                            provider="anthropic")
    client.chat.completions.create(model="anthropic:claude-sonnet-4-5", messages=[
        {"role": "user", "content": [{"type": "file", "file": {"file_id": f.id}},
                                     {"type": "text", "text": "Summarize this."}]}])

Which provider a call goes to: ``provider=`` when given, else the family the file id names
(``file-...`` openai, ``file_...`` anthropic, ``files/...`` google), else ``"openai"`` (as
the OpenAI SDK's code expects). An id of one family given with another family's provider is
refused before anything is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, Literal, Optional

from ..core.errors import UnsupportedParameterError
from ..core.media import BinaryResponse, FileDeleted, FileObject, file_family, read_upload
from ..providers.base import FileRequest
from ._common import (
    RawResource,
    check_count,
    check_keywords,
    check_text,
    check_timeout,
    provider_of_key as _provider_of_key,
)

if TYPE_CHECKING:
    from ..client.base import ClientBase
    from ..providers.base import Provider

__all__ = ["Files", "AsyncFiles", "FilePage", "AsyncFilePager", "family_of_key"]

#: The largest file uploaded (OpenAI's Files API takes 512 MB; the file is read into memory).
MAX_FILE_BYTES = 512 * 1024 * 1024
DEFAULT_PROVIDER = "openai"

# Provider keys that belong to another key's file family.
_FAMILY = {"azure": "openai", "gemini": "google", "vertex": "google", "vertexai": "google"}


def family_of_key(key: str) -> str:
    """The file family of a provider key (``azure`` shares OpenAI's file ids)."""
    return _FAMILY.get(key, key)


def _key_for(provider: Optional[str], file_id: Optional[str]) -> str:
    if provider is not None:
        check_text("provider", provider)
        if file_id is not None:
            family = file_family(file_id)
            if family is not None and family != family_of_key(provider):
                raise UnsupportedParameterError(
                    f"file id {file_id!r} is a {family} file; provider {provider!r} cannot "
                    f"know it: pass provider={family!r} (or leave provider out)",
                    parameter="file_id", provider=provider)
        return provider
    if file_id is not None:
        return file_family(file_id) or DEFAULT_PROVIDER
    return DEFAULT_PROVIDER


def _prepare(client: ClientBase, operation: str, *, provider: Optional[str] = None,
             file_id: Any = None, file: Any = None, purpose: Any = None,
             params: Optional[dict[str, Any]] = None, timeout: Any = None,
             extra: Optional[dict[str, Any]] = None) -> tuple[Provider, FileRequest]:
    if operation in ("retrieve", "delete", "content"):
        check_text("file_id", file_id)
    check_timeout(timeout)
    extra = dict(extra or {})
    check_keywords(f"files.{operation}", extra, (
        "file", "purpose", "provider", "timeout", "after", "limit", "order", "file_id"))
    key = _key_for(provider, file_id)
    upload = None
    if operation == "create":
        if purpose is None:
            raise TypeError("files.create() needs purpose= (e.g. 'user_data' for a file used "
                            "in chat, 'batch' for a batch input)")
        check_text("purpose", purpose)
        upload = read_upload(file, key, MAX_FILE_BYTES)
    found = _provider_of_key(client, key)
    return found, FileRequest(operation, file_id=file_id, upload=upload, purpose=purpose,
                              params=dict(params or {}), extra=extra, timeout=timeout)


def _list_params(after: Any, limit: Any, order: Any, purpose: Any) -> dict[str, Any]:
    check_text("after", after, optional=True)
    check_count("limit", limit, high=10000)
    if order is not None and order not in ("asc", "desc"):
        raise ValueError(f"order must be 'asc' or 'desc', got {order!r}")
    check_text("purpose", purpose, optional=True)
    return {k: v for k, v in (("after", after), ("limit", limit), ("order", order),
                              ("purpose", purpose)) if v is not None}


class FilePage:
    """A page of ``client.files.list()``, as the OpenAI SDK's cursor page: ``data`` (the
    ``FileObject``s of this page), ``has_next_page()``, ``get_next_page()``; iterating it
    goes through every page in turn (each fetched when reached)."""

    object: Literal["list"] = "list"

    def __init__(self, data: list[FileObject], cursor: Optional[str],
                 fetch: Callable[[str], "FilePage"]) -> None:
        self.data = data
        self._cursor = cursor
        self._fetch = fetch

    @property
    def has_more(self) -> bool:
        return self._cursor is not None

    def has_next_page(self) -> bool:
        return self._cursor is not None

    def get_next_page(self) -> "FilePage":
        if self._cursor is None:
            raise RuntimeError("no next page: check has_next_page() first")
        return self._fetch(self._cursor)

    def iter_pages(self) -> Iterator["FilePage"]:
        page: FilePage = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.get_next_page()

    def __iter__(self) -> Iterator[FileObject]:
        for page in self.iter_pages():
            yield from page.data

    def __repr__(self) -> str:
        return f"FilePage({len(self.data)} files, has_more={self.has_more})"


class AsyncFilePager:
    """What ``aclient.files.list()`` returns, as the OpenAI SDK's async paginator: ``await``
    it for the first ``AsyncFilePage``, or ``async for`` over every file of every page."""

    def __init__(self, fetch: Callable[[Optional[str]], Awaitable["AsyncFilePage"]]) -> None:
        self._fetch = fetch

    def __await__(self) -> Generator[Any, None, "AsyncFilePage"]:
        return self._fetch(None).__await__()

    async def __aiter__(self) -> AsyncIterator[FileObject]:
        page = await self._fetch(None)
        while True:
            for item in page.data:
                yield item
            if not page.has_next_page():
                return
            page = await page.get_next_page()


class AsyncFilePage:
    """A page of ``aclient.files.list()``: ``data``, ``has_next_page()``,
    ``await get_next_page()``; ``async for`` goes through every page."""

    object: Literal["list"] = "list"

    def __init__(self, data: list[FileObject], cursor: Optional[str],
                 fetch: Callable[[Optional[str]], Awaitable["AsyncFilePage"]]) -> None:
        self.data = data
        self._cursor = cursor
        self._fetch = fetch

    @property
    def has_more(self) -> bool:
        return self._cursor is not None

    def has_next_page(self) -> bool:
        return self._cursor is not None

    async def get_next_page(self) -> "AsyncFilePage":
        if self._cursor is None:
            raise RuntimeError("no next page: check has_next_page() first")
        return await self._fetch(self._cursor)

    async def __aiter__(self) -> AsyncIterator[FileObject]:
        page: AsyncFilePage = self
        while True:
            for item in page.data:
                yield item
            if not page.has_next_page():
                return
            page = await page.get_next_page()


_DONE = ("processed", "error")


class Files:
    """``client.files``: ``create``, ``retrieve``, ``list``, ``delete``, ``content``,
    ``wait_for_processing``; ``with_raw_response``."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    def create(self, *, file: Any, purpose: str, provider: Optional[str] = None,
               timeout: Any = None, **provider_kwargs: Any) -> FileObject:
        """Upload ``file`` (a path, bytes, a ``(name, bytes[, content_type])`` tuple or a
        binary file object) to ``provider``'s Files API (default ``"openai"``)."""
        found, request = _prepare(self._client, "create", provider=provider, file=file,
                                  purpose=purpose, timeout=timeout, extra=provider_kwargs)
        result: FileObject = found.files(request)
        return result

    def retrieve(self, file_id: str, *, provider: Optional[str] = None, timeout: Any = None,
                 **provider_kwargs: Any) -> FileObject:
        """The file ``file_id`` (its provider told by the id unless given)."""
        found, request = _prepare(self._client, "retrieve", provider=provider,
                                  file_id=file_id, timeout=timeout, extra=provider_kwargs)
        result: FileObject = found.files(request)
        return result

    def list(self, *, provider: Optional[str] = None, after: Optional[str] = None,
             limit: Optional[int] = None, order: Optional[Literal["asc", "desc"]] = None,
             purpose: Optional[str] = None, timeout: Any = None,
             **provider_kwargs: Any) -> FilePage:
        """The files of ``provider`` (default ``"openai"``), a page at a time."""
        params = _list_params(after, limit, order, purpose)

        def fetch(cursor: Optional[str]) -> FilePage:
            found, request = _prepare(self._client, "list", provider=provider,
                                      params={**params, **({"after": cursor} if cursor
                                                           else {})},
                                      timeout=timeout, extra=provider_kwargs)
            files, next_cursor = found.files(request)
            return FilePage(files, next_cursor, fetch)

        return fetch(None)

    def delete(self, file_id: str, *, provider: Optional[str] = None, timeout: Any = None,
               **provider_kwargs: Any) -> FileDeleted:
        found, request = _prepare(self._client, "delete", provider=provider, file_id=file_id,
                                  timeout=timeout, extra=provider_kwargs)
        result: FileDeleted = found.files(request)
        return result

    def content(self, file_id: str, *, provider: Optional[str] = None, timeout: Any = None,
                **provider_kwargs: Any) -> BinaryResponse:
        """The file's bytes (where the family gives them back: openai, anthropic for files
        its tools made)."""
        found, request = _prepare(self._client, "content", provider=provider,
                                  file_id=file_id, timeout=timeout, extra=provider_kwargs)
        result: BinaryResponse = found.files(request)
        return result

    def wait_for_processing(self, id: str, *, poll_interval: float = 5.0,
                            max_wait_seconds: float = 30 * 60,
                            provider: Optional[str] = None) -> FileObject:
        """``retrieve`` until the file's status is ``processed`` or ``error`` (Gemini
        processes video and large files after upload); ``TimeoutError`` after
        ``max_wait_seconds``."""
        deadline = time.monotonic() + max_wait_seconds
        file = self.retrieve(id, provider=provider)
        while file.status not in _DONE:
            if time.monotonic() + poll_interval > deadline:
                raise TimeoutError(f"file {id!r} is still {file.status} after "
                                   f"{max_wait_seconds:g} s")
            time.sleep(poll_interval)
            file = self.retrieve(id, provider=provider)
        return file


class AsyncFiles:
    """``aclient.files``: the same, awaited (``list`` is awaitable and ``async for``-able)."""

    def __init__(self, client: ClientBase) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> Any:
        return RawResource(self)

    async def create(self, *, file: Any, purpose: str, provider: Optional[str] = None,
                     timeout: Any = None, **provider_kwargs: Any) -> FileObject:
        found, request = _prepare(self._client, "create", provider=provider, file=file,
                                  purpose=purpose, timeout=timeout, extra=provider_kwargs)
        result: FileObject = await found.afiles(request)
        return result

    async def retrieve(self, file_id: str, *, provider: Optional[str] = None,
                       timeout: Any = None, **provider_kwargs: Any) -> FileObject:
        found, request = _prepare(self._client, "retrieve", provider=provider,
                                  file_id=file_id, timeout=timeout, extra=provider_kwargs)
        result: FileObject = await found.afiles(request)
        return result

    def list(self, *, provider: Optional[str] = None, after: Optional[str] = None,
             limit: Optional[int] = None, order: Optional[Literal["asc", "desc"]] = None,
             purpose: Optional[str] = None, timeout: Any = None,
             **provider_kwargs: Any) -> AsyncFilePager:
        params = _list_params(after, limit, order, purpose)

        async def fetch(cursor: Optional[str]) -> AsyncFilePage:
            found, request = _prepare(self._client, "list", provider=provider,
                                      params={**params, **({"after": cursor} if cursor
                                                           else {})},
                                      timeout=timeout, extra=provider_kwargs)
            files, next_cursor = await found.afiles(request)
            return AsyncFilePage(files, next_cursor, fetch)

        return AsyncFilePager(fetch)

    async def delete(self, file_id: str, *, provider: Optional[str] = None,
                     timeout: Any = None, **provider_kwargs: Any) -> FileDeleted:
        found, request = _prepare(self._client, "delete", provider=provider, file_id=file_id,
                                  timeout=timeout, extra=provider_kwargs)
        result: FileDeleted = await found.afiles(request)
        return result

    async def content(self, file_id: str, *, provider: Optional[str] = None,
                      timeout: Any = None, **provider_kwargs: Any) -> BinaryResponse:
        found, request = _prepare(self._client, "content", provider=provider,
                                  file_id=file_id, timeout=timeout, extra=provider_kwargs)
        result: BinaryResponse = await found.afiles(request)
        return result

    async def wait_for_processing(self, id: str, *, poll_interval: float = 5.0,
                                  max_wait_seconds: float = 30 * 60,
                                  provider: Optional[str] = None) -> FileObject:
        deadline = time.monotonic() + max_wait_seconds
        file = await self.retrieve(id, provider=provider)
        while file.status not in _DONE:
            if time.monotonic() + poll_interval > deadline:
                raise TimeoutError(f"file {id!r} is still {file.status} after "
                                   f"{max_wait_seconds:g} s")
            await asyncio.sleep(poll_interval)
            file = await self.retrieve(id, provider=provider)
        return file
