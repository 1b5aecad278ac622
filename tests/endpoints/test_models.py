"""``client.models``: every family's models list through its real SDK (respx on httpcore2;
botocore's ``bedrock`` control-plane client against the loopback Bedrock server), the wire
asserted (method, path, query, auth), ids written ``"provider:model"``, failures per
provider. Every test runs on both transports, the SDK's and the native one
(tests/support/transports.py)."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import httpx
import pytest
import respx
from support.bedrock_server import ACCESS_KEY, BedrockServer, Json, error
from support.openai_helpers import KEY, httpx2_mock  # noqa: F401
from support.transports import each_transport, native, with_transport  # noqa: F401

import aisuite_like as ai
from aisuite_like.providers.base import ChatRequest, Provider
from aisuite_like.testing import FakeClock

OPENAI_MODELS = "https://api.openai.com/v1/models"
ANTHROPIC_MODELS = "https://api.anthropic.com/v1/models"
GEMINI_MODELS = "https://generativelanguage.googleapis.com/v1beta/models"
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-0123456789abcdef"
GEMINI_KEY = "AIzaSyTESTKEY-0123456789abcdefghij"

OPENAI_LIST = {"object": "list", "data": [
    {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
    {"id": "text-embedding-3-small", "object": "model", "created": 1705948997,
     "owned_by": "system"}]}


pytestmark = pytest.mark.usefixtures("isolated_aws")  # tests/conftest.py


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def listed(mode: str, config: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """``models.list(...)`` on a fresh Client (sync) or AsyncClient (awaited), on the
    transport the test runs on."""
    config = with_transport(config)
    if mode == "sync":
        with ai.Client(config) as client:
            return client.models.list(*args, **kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            return await client.models.list(*args, **kwargs)

    return asyncio.run(run())


# --- one family at a time ------------------------------------------------------------------


def test_openai_models_in_openais_shape(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(OPENAI_MODELS).mock(
        return_value=httpx.Response(200, json=OPENAI_LIST))
    page = listed(mode, {"openai": {"api_key": KEY}})
    assert route.call_count == 1
    request = route.calls[0].request
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {KEY}"
    sent_on_the_transport(route)
    assert page.object == "list" and len(page) == 2 and not page.errors
    assert [m.id for m in page] == ["openai:gpt-4o", "openai:text-embedding-3-small"]
    first = page.data[0]
    assert (first.object, first.created, first.owned_by, first.provider) == (
        "model", 1715367049, "system", "openai")
    assert first.raw == OPENAI_LIST["data"][0]
    assert page.to_dict()["data"][0] == {"id": "openai:gpt-4o", "object": "model",
                                         "created": 1715367049, "owned_by": "system",
                                         "provider": "openai"}


def test_compatible_services_and_a_bare_array(mode: str, httpx2_mock: respx.Router) -> None:
    groq = httpx2_mock.get("https://api.groq.com/openai/v1/models").mock(
        return_value=httpx.Response(200, json={"object": "list", "data": [
            {"id": "llama-3.3-70b-versatile", "object": "model", "created": 1733447754,
             "owned_by": "Meta"}]}))
    together = httpx2_mock.get("https://api.together.xyz/v1/models").mock(  # a JSON array
        return_value=httpx.Response(200, json=[{"id": "meta-llama/Llama-3-8b-chat-hf",
                                                "object": "model", "created": 1692896905,
                                                "owned_by": "Meta", "type": "chat"}]))
    page = listed(mode, {"groq": {"api_key": "gsk-test-0123456789"},
                         "together": {"api_key": "tg-test-0123456789"}})
    assert groq.call_count == together.call_count == 1
    sent_on_the_transport(groq)
    assert groq.calls[0].request.headers["authorization"] == "Bearer gsk-test-0123456789"
    assert [m.id for m in page] == ["groq:llama-3.3-70b-versatile",
                                    "together:meta-llama/Llama-3-8b-chat-hf"]
    assert page.data[1].owned_by == "Meta"


def sent_on_the_transport(route: Any) -> None:
    """Each request ``route`` answered came on the transport the test runs on (the native
    one names itself in its User-Agent)."""
    for call in route.calls:
        assert ("(native)" in call.request.headers["user-agent"]) == native()


def test_anthropic_reads_every_page(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(ANTHROPIC_MODELS).mock(side_effect=[
        httpx.Response(200, json={"data": [
            {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5",
             "created_at": "2025-09-29T00:00:00Z"}], "has_more": True,
            "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"},
            headers={"request-id": "req_1"}),
        httpx.Response(200, json={"data": [
            {"type": "model", "id": "claude-3-haiku-20240307", "display_name": "Haiku",
             "created_at": "2024-03-07T00:00:00Z"}], "has_more": False,
            "first_id": "claude-3-haiku-20240307", "last_id": "claude-3-haiku-20240307"})])
    page = listed(mode, {"anthropic": {"api_key": ANTHROPIC_KEY}})
    assert route.call_count == 2
    sent_on_the_transport(route)
    first, second = (call.request for call in route.calls)
    assert ANTHROPIC_KEY in (first.headers.get("x-api-key") or first.headers["authorization"])
    assert dict(first.url.params) == {"limit": "1000"}
    assert dict(second.url.params) == {"limit": "1000", "after_id": "claude-sonnet-4-5"}
    assert [m.id for m in page] == ["anthropic:claude-sonnet-4-5",
                                    "anthropic:claude-3-haiku-20240307"]
    assert page.data[0].created == 1759104000 and page.data[0].owned_by == "anthropic"
    assert page.data[0].raw["display_name"] == "Claude Sonnet 4.5"


def test_google_reads_every_page_and_the_alias_keeps_its_key(mode: str,
                                                             httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(GEMINI_MODELS).mock(side_effect=[
        httpx.Response(200, json={"models": [
            {"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
             "supportedGenerationMethods": ["generateContent"]}],
            "nextPageToken": "page-2"}),
        httpx.Response(200, json={"models": [{"name": "models/text-embedding-004"}]})])
    page = listed(mode, {"gemini": {"api_key": GEMINI_KEY}})
    assert route.call_count == 2
    sent_on_the_transport(route)
    first, second = (call.request for call in route.calls)
    assert first.method == "GET" and first.headers["x-goog-api-key"] == GEMINI_KEY
    assert dict(first.url.params) == {"pageSize": "1000"}
    assert dict(second.url.params) == {"pageSize": "1000", "pageToken": "page-2"}
    assert [m.id for m in page] == ["gemini:gemini-2.5-flash", "gemini:text-embedding-004"]
    assert (page.data[0].owned_by, page.data[0].created) == ("google", 0)


def test_bedrock_lists_foundation_models_on_the_control_plane(mode: str) -> None:
    summaries = [{"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-x",
                  "modelId": "amazon.titan-embed-text-v2:0", "modelName": "Titan Embeddings",
                  "providerName": "Amazon", "outputModalities": ["EMBEDDING"]},
                 {"modelId": "anthropic.claude-3-haiku-20240307-v1:0",
                  "providerName": "Anthropic", "modelName": "Claude 3 Haiku"}]
    with BedrockServer() as server:
        server.reply(Json({"modelSummaries": summaries}))
        page = listed(mode, {"bedrock": server.config(control_endpoint_url=server.url)})
        assert len(server.requests) == 1
        request = server.requests[0]
    assert (request.method, request.path) == ("GET", "/foundation-models")
    auth = request.headers["authorization"]  # SigV4 for the control plane's service name
    assert auth.startswith("AWS4-HMAC-SHA256") and f"{ACCESS_KEY}/" in auth
    assert "/us-east-1/bedrock/aws4_request" in auth
    assert [m.id for m in page] == ["bedrock:amazon.titan-embed-text-v2:0",
                                    "bedrock:anthropic.claude-3-haiku-20240307-v1:0"]
    assert [m.owned_by for m in page] == ["Amazon", "Anthropic"]


def test_the_test_model_lists_offline() -> None:
    page = ai.Client().models.list("test")
    assert [m.id for m in page] == ["test:offline"]
    assert ai.Client().models.retrieve("test:offline").owned_by == "aisuite-like"


# --- several providers, failures ------------------------------------------------------------


def _anthropic_500(httpx2_mock: respx.Router) -> Any:
    return httpx2_mock.get(ANTHROPIC_MODELS).mock(return_value=httpx.Response(
        500, json={"type": "error", "error": {"type": "api_error", "message": "boom"}}))


def test_a_failing_provider_is_kept_on_the_page_not_hidden(mode: str,
                                                          httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI_MODELS).mock(return_value=httpx.Response(200, json=OPENAI_LIST))
    failing = _anthropic_500(httpx2_mock)
    config = {"openai": {"api_key": KEY}, "anthropic": {"api_key": ANTHROPIC_KEY,
                                                        "max_retries": 0}}
    with pytest.warns(RuntimeWarning, match="could not list anthropic"):
        page = listed(mode, config)
    assert failing.call_count == 1
    assert [m.id for m in page] == ["openai:gpt-4o", "openai:text-embedding-3-small"]
    assert list(page.errors) == ["anthropic"]
    assert isinstance(page.errors["anthropic"], ai.InternalServerError)
    assert "errors=['anthropic']" in repr(page)


def test_on_error_raise_and_provider_given_raise(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI_MODELS).mock(return_value=httpx.Response(200, json=OPENAI_LIST))
    _anthropic_500(httpx2_mock)
    config = {"openai": {"api_key": KEY}, "anthropic": {"api_key": ANTHROPIC_KEY,
                                                        "max_retries": 0}}
    with pytest.raises(ai.InternalServerError):
        listed(mode, config, on_error="raise")
    with pytest.raises(ai.InternalServerError):
        listed(mode, config, "anthropic")


def test_when_no_provider_answers_the_error_is_raised(mode: str,
                                                     httpx2_mock: respx.Router) -> None:
    _anthropic_500(httpx2_mock)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the error itself is raised
        with pytest.raises(ai.InternalServerError):
            listed(mode, {"anthropic": {"api_key": ANTHROPIC_KEY, "max_retries": 0}})


def test_providers_set_up_by_the_environment_are_listed(monkeypatch: pytest.MonkeyPatch,
                                                       httpx2_mock: respx.Router) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    route = httpx2_mock.get(OPENAI_MODELS).mock(
        return_value=httpx.Response(200, json=OPENAI_LIST))
    assert [m.id for m in ai.Client().models.list()][:1] == ["openai:gpt-4o"]
    assert route.call_count == 1


def test_retried_under_the_retry_policy(mode: str, httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(OPENAI_MODELS).mock(side_effect=[
        httpx.Response(503, json={"error": {"message": "busy", "type": "server_error"}}),
        httpx.Response(200, json=OPENAI_LIST)])
    clock = FakeClock()
    page = listed(mode, {"openai": {"api_key": KEY, "retry_clock": clock}})
    assert route.call_count == 2 and len(clock.waits) == 1 and len(page) == 2


def test_an_error_never_shows_the_key(mode: str, httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI_MODELS).mock(return_value=httpx.Response(
        401, json={"error": {"message": f"Incorrect API key provided: {KEY}",
                             "type": "invalid_request_error", "code": "invalid_api_key"}}))
    with pytest.raises(ai.AuthenticationError) as info:
        listed(mode, {"openai": {"api_key": KEY}}, "openai")
    assert KEY not in str(info.value) and KEY not in repr(info.value.body)


def test_a_reply_of_another_shape_is_a_typed_error(mode: str,
                                                   httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI_MODELS).mock(return_value=httpx.Response(
        200, json={"object": "list", "data": [{"object": "model"}]},
        headers={"x-request-id": "req_bad"}))
    with pytest.raises(ai.APIResponseValidationError, match=r"data\[0\]\.id") as info:
        listed(mode, {"openai": {"api_key": KEY}}, "openai")
    assert info.value.request_id == "req_bad"


def test_retrieve_finds_by_id_or_raises_not_found(httpx2_mock: respx.Router) -> None:
    httpx2_mock.get(OPENAI_MODELS).mock(return_value=httpx.Response(200, json=OPENAI_LIST))
    client = ai.Client({"openai": {"api_key": KEY}})
    assert client.models.retrieve("openai:gpt-4o").created == 1715367049
    with pytest.raises(ai.NotFoundError, match="gpt-9"):
        client.models.retrieve("openai:gpt-9")


def test_bad_arguments_are_refused_before_sending(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(OPENAI_MODELS)
    client = ai.Client({"openai": {"api_key": KEY}})
    with pytest.raises(ai.UnknownProviderError):
        client.models.list("opena")
    with pytest.raises(TypeError, match="provider key"):
        client.models.list("openai:gpt-4o")
    with pytest.raises(ValueError, match="on_error"):
        client.models.list(on_error="ignore")  # type: ignore[arg-type]
    assert route.call_count == 0


def test_a_provider_without_a_list_is_unsupported(mode: str) -> None:
    class Mine(Provider):
        def complete(self, request: ChatRequest) -> ai.ChatCompletionResponse:
            raise AssertionError("not called")

    if mode == "sync":
        client = ai.Client(providers={"mine": Mine()})
        with pytest.raises(ai.UnsupportedFeatureError, match="openai") as info:
            client.models.list("mine")
        assert (info.value.feature, info.value.provider) == ("models.list", "mine")
        with pytest.warns(RuntimeWarning, match="mine"):
            page = ai.Client({"test": {}}, providers={"mine": Mine()}).models.list()
        assert [m.id for m in page] == ["test:offline"] and list(page.errors) == ["mine"]
    else:
        async def run() -> None:
            with pytest.raises(ai.UnsupportedFeatureError):
                await ai.AsyncClient(providers={"mine": Mine()}).models.list("mine")
        asyncio.run(run())


def test_async_list_is_awaitable_and_async_iterable(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.get(OPENAI_MODELS).mock(
        return_value=httpx.Response(200, json=OPENAI_LIST))

    async def run() -> tuple[list[str], str]:
        async with ai.AsyncClient({"openai": {"api_key": KEY}}) as client:
            ids = [m.id async for m in client.models.list()]
            one = await client.models.retrieve("openai:text-embedding-3-small")
            return ids, one.id

    ids, one = asyncio.run(run())
    assert ids == ["openai:gpt-4o", "openai:text-embedding-3-small"]
    assert one == "openai:text-embedding-3-small" and route.call_count == 2


def test_bedrock_control_plane_error_is_mapped(mode: str) -> None:
    with BedrockServer() as server:
        server.reply(error(403, "AccessDeniedException", "not allowed"))
        with pytest.raises(ai.PermissionDeniedError, match="not allowed"):
            listed(mode, {"bedrock": server.config(control_endpoint_url=server.url,
                                                   max_retries=0)}, "bedrock")
