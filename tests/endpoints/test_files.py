"""``client.files`` through the real SDKs (openai, anthropic, google-genai), HTTP mocked at
httpcore2: each call is what the family's SDK sends, each file comes back as the OpenAI SDK's
``FileObject``, lists page on, and an uploaded file's id works in its own family's chat
content and is refused, before anything is sent, in another's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import openai
import pytest
import respx
from support.audio_wire import multipart
from support.transports import each_transport, with_transport  # noqa: F401  (autouse)

import aisuite_like as ai

KEY = "sk-test-secret-key-files-1234567890"
ANT_KEY = "sk-ant-test-files-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-files-0123456789abcdef"
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0},
           "anthropic": {"api_key": ANT_KEY, "max_retries": 0},
           "google": {"api_key": GEMINI_KEY, "max_retries": 0}}
OPENAI = "https://api.openai.com/v1/files"
ANTHROPIC = "https://api.anthropic.com/v1/files"
GEMINI = "https://generativelanguage.googleapis.com"
PDF = b"%PDF-1.4\n" + b"0" * 300


def openai_file(file_id: str = "file-abc123", **extra: Any) -> dict[str, Any]:
    return {"id": file_id, "object": "file", "bytes": len(PDF), "created_at": 1760000000,
            "filename": "report.pdf", "purpose": "user_data", "status": "processed", **extra}


ANT_FILE = {"id": "file_011CNha8iCJcU1wXNR6q4V8w", "type": "file", "filename": "report.pdf",
            "mime_type": "application/pdf", "size_bytes": len(PDF),
            "created_at": "2025-04-14T20:00:00Z", "downloadable": False}
GEMINI_FILE = {"name": "files/abc-123", "displayName": "report.pdf",
               "mimeType": "application/pdf", "sizeBytes": str(len(PDF)),
               "createTime": "2025-05-01T10:00:00.000000Z",
               "expirationTime": "2025-05-03T10:00:00.000000Z", "state": "ACTIVE",
               "uri": f"{GEMINI}/v1beta/files/abc-123"}


@pytest.fixture
def httpx2_mock() -> Any:
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


def files(mode: str, method: str, *args: Any, **kwargs: Any) -> Any:
    if mode == "sync":
        with ai.Client(with_transport(CONFIGS)) as client:
            return getattr(client.files, method)(*args, **kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(with_transport(CONFIGS)) as aclient:
            return await getattr(aclient.files, method)(*args, **kwargs)
    return asyncio.run(run())


def parts_of(request: Any) -> dict[str, list[tuple[Any, str, bytes]]]:
    return {name: [(p.filename, p.content_type, p.data) for p in ps]
            for name, ps in multipart(request).items()}


# --- openai -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_openai_files_calls_are_the_sdks(mode: str, httpx2_mock: respx.Router) -> None:
    created = httpx2_mock.post(OPENAI).respond(200, json=openai_file())
    got = httpx2_mock.get(f"{OPENAI}/file-abc123").respond(200, json=openai_file())
    gone = httpx2_mock.delete(f"{OPENAI}/file-abc123").respond(
        200, json={"id": "file-abc123", "object": "file", "deleted": True})
    body = httpx2_mock.get(f"{OPENAI}/file-abc123/content").respond(
        200, content=PDF, headers={"content-type": "application/pdf"})
    f = files(mode, "create", file=("report.pdf", PDF), purpose="user_data")
    ours = parts_of(created.calls.last.request)
    sdk = openai.OpenAI(api_key=KEY, max_retries=0)
    sdk.files.create(file=("report.pdf", PDF, "application/pdf"), purpose="user_data")
    assert ours == parts_of(created.calls.last.request)
    assert openai.types.FileObject.model_validate(f.model_dump()).id == "file-abc123"
    assert files(mode, "retrieve", "file-abc123").filename == "report.pdf"
    assert got.called
    deleted = files(mode, "delete", "file-abc123")
    assert deleted.deleted and gone.called
    openai.types.FileDeleted.model_validate(deleted.model_dump())
    content = files(mode, "content", "file-abc123")
    assert content.content == PDF and body.called


def test_openai_list_goes_through_every_page(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(OPENAI).mock(side_effect=[
        respx.MockResponse(200, json={"object": "list", "has_more": True, "data": [
            openai_file("file-1"), openai_file("file-2")]}),
        respx.MockResponse(200, json={"object": "list", "has_more": False, "data": [
            openai_file("file-3")]})])
    with ai.Client(with_transport(CONFIGS)) as client:
        page = client.files.list(limit=2, purpose="user_data")
        assert [f.id for f in page.data] == ["file-1", "file-2"] and page.has_next_page()
        assert [f.id for f in page] == ["file-1", "file-2", "file-3"]
    first, second = (dict(c.request.url.params) for c in route.calls)
    assert first == {"limit": "2", "purpose": "user_data"}
    assert second == {"limit": "2", "purpose": "user_data", "after": "file-2"}


def test_async_list_is_awaitable_and_iterable(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI).respond(200, json={"object": "list", "has_more": False,
                                               "data": [openai_file("file-1")]})

    async def run() -> tuple[list[str], list[str]]:
        async with ai.AsyncClient(with_transport(CONFIGS)) as aclient:
            page = await aclient.files.list()
            return [f.id for f in page.data], [f.id async for f in aclient.files.list()]
    assert asyncio.run(run()) == (["file-1"], ["file-1"])


def test_with_raw_response_and_errors(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(f"{OPENAI}/file-abc123").respond(200, json=openai_file(),
                                                     headers={"x-request-id": "req_f"})
    httpx2_mock.get(f"{OPENAI}/file-missing").respond(404, json={"error": {
        "message": "No such File object: file-missing", "type": "invalid_request_error"}})
    with ai.Client(with_transport(CONFIGS)) as client:
        raw = client.files.with_raw_response.retrieve("file-abc123")
        assert raw.request_id == "req_f" and raw.parse().id == "file-abc123"
        with pytest.raises(ai.NotFoundError, match="No such File"):
            client.files.retrieve("file-missing")


# --- anthropic ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_anthropic_files_api_calls_are_the_sdks(mode: str, httpx2_mock: respx.Router) -> None:
    upload = httpx2_mock.post(ANTHROPIC).respond(200, json=ANT_FILE)
    meta = httpx2_mock.get(f"{ANTHROPIC}/{ANT_FILE['id']}").respond(200, json=ANT_FILE)
    gone = httpx2_mock.delete(f"{ANTHROPIC}/{ANT_FILE['id']}").respond(
        200, json={"id": ANT_FILE["id"], "type": "file_deleted"})
    f = files(mode, "create", file=("report.pdf", PDF), purpose="user_data",
              provider="anthropic")
    ours = upload.calls.last.request
    sdk = anthropic.Anthropic(api_key=ANT_KEY, max_retries=0)
    sdk.beta.files.upload(file=("report.pdf", PDF, "application/pdf"),
                          betas=["files-api-2025-04-14"])
    theirs = upload.calls.last.request
    assert parts_of(ours) == parts_of(theirs)
    assert ours.headers["anthropic-beta"] == theirs.headers["anthropic-beta"] == \
        "files-api-2025-04-14"
    assert ANT_KEY in ours.headers.get("x-api-key", "") + ours.headers.get("authorization", "")
    assert f.id == ANT_FILE["id"] and f.bytes == len(PDF) and f.provider == "anthropic"
    assert f.created_at == 1744660800 and f.mime_type == "application/pdf"
    openai.types.FileObject.model_validate(f.model_dump())
    # the id says the family: no provider= needed
    assert files(mode, "retrieve", ANT_FILE["id"]).filename == "report.pdf"
    assert meta.calls.last.request.headers["anthropic-beta"] == "files-api-2025-04-14"
    assert files(mode, "delete", ANT_FILE["id"]).deleted and gone.called


def test_anthropic_list_pages_by_its_cursor(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(ANTHROPIC).mock(side_effect=[
        respx.MockResponse(200, json={"data": [ANT_FILE], "next_page": "page_2"}),
        respx.MockResponse(200, json={"data": [{**ANT_FILE, "id": "file_02"}],
                                      "next_page": None})])
    with ai.Client(with_transport(CONFIGS)) as client:
        assert [f.id for f in client.files.list(provider="anthropic", limit=1)] == [
            ANT_FILE["id"], "file_02"]
    assert dict(route.calls[1].request.url.params) == {"limit": "1", "page": "page_2"}


# --- google -------------------------------------------------------------------------------


class _Calls(list):  # type: ignore[type-arg]
    @property
    def last(self) -> Any:
        return self[-1]


def gemini_upload(mock: respx.Router) -> tuple[Any, Any]:
    """Gemini's resumable upload: a start request answered with the upload URL, then the
    bytes, answered with the file. Returns (the start requests, the upload requests)."""
    starts, uploads = _Calls(), _Calls()

    def answer(request: Any) -> respx.MockResponse:
        if request.headers.get("x-goog-upload-command") == "start":
            starts.append(type("Call", (), {"request": request}))
            return respx.MockResponse(200, json={}, headers={
                "x-goog-upload-url": f"{GEMINI}/upload/v1beta/files?upload_id=u-1"})
        uploads.append(type("Call", (), {"request": request}))
        return respx.MockResponse(200, json={"file": GEMINI_FILE},
                                  headers={"x-goog-upload-status": "final"})

    mock.post(f"{GEMINI}/upload/v1beta/files").mock(side_effect=answer)
    return type("Route", (), {"calls": starts})(), type("Route", (), {"calls": uploads})()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gemini_files_api(mode: str, httpx2_mock: respx.Router) -> None:
    start, finish = gemini_upload(httpx2_mock)
    got = httpx2_mock.get(f"{GEMINI}/v1beta/files/abc-123").respond(200, json=GEMINI_FILE)
    gone = httpx2_mock.delete(f"{GEMINI}/v1beta/files/abc-123").respond(200, json={})
    f = files(mode, "create", file=("report.pdf", PDF), purpose="user_data",
              provider="google")
    assert json.loads(start.calls.last.request.content) == {"file": {  # as google-genai
        "display_name": "report.pdf", "mime_type": "application/pdf", "size_bytes": len(PDF)}}
    assert finish.calls.last.request.content == PDF
    assert f.id == "files/abc-123" and f.status == "processed" and f.bytes == len(PDF)
    assert f.expires_at == 1746266400 and f.uri == GEMINI_FILE["uri"]
    openai.types.FileObject.model_validate(f.model_dump())
    assert files(mode, "retrieve", "files/abc-123").filename == "report.pdf" and got.called
    assert files(mode, "delete", "files/abc-123").deleted and gone.called


def test_gemini_upload_is_what_google_genai_sends(httpx2_mock: respx.Router) -> None:
    start, _ = gemini_upload(httpx2_mock)
    files("sync", "create", file=("report.pdf", PDF), purpose="user_data", provider="google")
    ours = start.calls.last.request
    import io

    from google import genai

    gclient = genai.Client(api_key=GEMINI_KEY, http_options={"api_version": "v1beta"})
    gclient.files.upload(file=io.BytesIO(PDF), config={"mime_type": "application/pdf",
                                                        "display_name": "report.pdf"})
    theirs = start.calls.last.request
    assert json.loads(ours.content) == json.loads(theirs.content)
    for header in ("x-goog-upload-protocol", "x-goog-upload-command",
                   "x-goog-upload-header-content-type"):
        assert ours.headers[header] == theirs.headers[header]


def test_gemini_list_pages_and_refuses_content(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(f"{GEMINI}/v1beta/files").mock(side_effect=[
        respx.MockResponse(200, json={"files": [GEMINI_FILE], "nextPageToken": "t2"}),
        respx.MockResponse(200, json={"files": [{**GEMINI_FILE, "name": "files/x2",
                                                 "state": "PROCESSING"}]})])
    with ai.Client(with_transport(CONFIGS)) as client:
        listed = list(client.files.list(provider="google", limit=1))
        assert [(f.id, f.status) for f in listed] == [("files/abc-123", "processed"),
                                                       ("files/x2", "uploaded")]
        with pytest.raises(ai.UnsupportedFeatureError, match="keep your own copy"):
            client.files.content("files/abc-123")
    assert dict(route.calls[1].request.url.params) == {"pageSize": "1", "pageToken": "t2"}


# --- ids across families -----------------------------------------------------------------


@pytest.mark.parametrize(("call", "words"), [
    (lambda c: c.files.retrieve("file-abc", provider="anthropic"), "is a openai file"),
    (lambda c: c.files.delete("files/abc", provider="openai"), "is a google file"),
    (lambda c: c.files.content("x", provider="bedrock"), "the families that have it"),
    (lambda c: c.files.create(file=PDF, provider="openai"), "purpose"),
    (lambda c: c.files.create(file=b"", purpose="user_data"), "is empty"),
    (lambda c: c.files.retrieve("files/../../models", provider="google"), "not a Gemini"),
])
def test_files_calls_are_checked_before_sending(call: Any, words: str,
                                                httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with ai.Client({**CONFIGS, "bedrock": {"region_name": "us-east-1"}}) as client:
        with pytest.raises((ai.AisuiteLikeError, TypeError), match=words):
            call(client)
    assert not route.called


def user_file(file_id: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [
        {"type": "file", "file": {"file_id": file_id, **extra}},
        {"type": "text", "text": "Summarize it."}]}]


def test_an_uploaded_file_works_in_its_own_familys_chat(httpx2_mock: respx.Router) -> None:
    ant = httpx2_mock.post("https://api.anthropic.com/v1/messages").respond(200, json={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "A report."}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 3}})
    gem = httpx2_mock.post(f"{GEMINI}/v1beta/models/gemini-2.5-flash:generateContent")\
        .respond(200, json={"candidates": [{"content": {"role": "model", "parts": [
            {"text": "A report."}]}, "finishReason": "STOP"}]})
    oai = httpx2_mock.post("https://api.openai.com/v1/chat/completions").respond(200, json={
        "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "A report."},
                     "finish_reason": "stop"}]})
    with ai.Client(with_transport(CONFIGS)) as client:
        client.chat.completions.create(model="anthropic:claude-sonnet-4-5",
                                       messages=user_file(ANT_FILE["id"]))
        client.chat.completions.create(model="anthropic:claude-sonnet-4-5",
                                       messages=user_file("file_img", filename="cat.png"))
        client.chat.completions.create(model="google:gemini-2.5-flash",
                                       messages=user_file("files/abc-123",
                                                          filename="report.pdf"))
        client.chat.completions.create(model="openai:gpt-4o", messages=user_file("file-abc"))
    sent = json.loads(ant.calls[0].request.content)
    assert sent["messages"][0]["content"][0] == {
        "type": "document", "source": {"type": "file", "file_id": ANT_FILE["id"]}}
    assert ant.calls[0].request.headers["anthropic-beta"] == "files-api-2025-04-14"
    assert json.loads(ant.calls[1].request.content)["messages"][0]["content"][0] == {
        "type": "image", "source": {"type": "file", "file_id": "file_img"}}
    assert json.loads(gem.calls[0].request.content)["contents"][0]["parts"][0] == {
        "fileData": {"fileUri": GEMINI_FILE["uri"], "mimeType": "application/pdf"}}
    assert json.loads(oai.calls[0].request.content)["messages"][0]["content"][0] == {
        "type": "file", "file": {"file_id": "file-abc"}}


@pytest.mark.parametrize(("model", "file_id", "owner"), [
    ("openai:gpt-4o", ANT_FILE["id"], "anthropic"),
    ("anthropic:claude-sonnet-4-5", "file-abc", "openai"),
    ("google:gemini-2.5-flash", "file-abc", "openai"),
    ("anthropic:claude-sonnet-4-5", "files/abc-123", "google"),
])
def test_another_familys_file_id_is_refused_before_sending(
        model: str, file_id: str, owner: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.route().respond(500)
    with ai.Client(with_transport(CONFIGS)) as client:
        with pytest.raises(ai.UnsupportedParameterError,
                           match=f"uploaded to {owner}'s Files API"):
            client.chat.completions.create(model=model, messages=user_file(file_id))
    assert not route.called
