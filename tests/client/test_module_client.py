"""The module-level client (client/module_client.py): ``aisuite_like.api_key = ...`` and
``aisuite_like.chat.completions.create(...)``, as the OpenAI SDK's module client, checked on
the wire through the real ``openai`` SDK (docs/migration.md, "The module-level client")."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
import respx
from support.openai_helpers import KEY, completion, httpx2_mock  # noqa: F401

import aisuite_like as ai
from aisuite_like.client.module_client import SETTINGS

USER = [{"role": "user", "content": "Hi"}]
PROXY = "https://gateway.example.test/openai/v1"


@pytest.fixture(autouse=True)
def module_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from unset settings, and its own are undone after it."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for name in SETTINGS:
        monkeypatch.setattr(ai, name, None)
    monkeypatch.setattr(ai, "default_query", None, raising=False)  # deleted again after


def test_settings_reach_the_wire(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post(f"{PROXY}/chat/completions").mock(
        return_value=httpx.Response(200, json=completion("Hello!")))
    ai.api_key = KEY
    ai.base_url = PROXY
    ai.organization = "org-7"
    ai.default_headers = {"x-foo": "true"}
    reply = ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert reply.choices[0].message.content == "Hello!"
    request = route.calls[0].request
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-foo"] == "true"
    assert request.headers["openai-organization"] == "org-7"
    assert json.loads(request.content)["model"] == "gpt-4o"


def test_a_changed_setting_builds_a_new_client(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=completion("ok")))
    ai.api_key = KEY
    first = ai.chat
    assert ai.chat is first  # unchanged settings: the same client
    headers = {"x-team": "a"}
    ai.default_headers = headers
    ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    headers["x-team"] = "b"  # changed in place: a change too
    ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert [c.request.headers["x-team"] for c in route.calls] == ["a", "b"]
    assert ai.chat is not first


def test_the_key_comes_from_the_environment_when_unset(monkeypatch: pytest.MonkeyPatch,
                                                       httpx2_mock: respx.Router) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    route = httpx2_mock.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=completion("ok")))
    ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"


def test_client_wide_settings(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(500, json={"error": {"message": "boom"}}))
    ai.api_key = KEY
    ai.max_retries = 0
    with pytest.raises(ai.InternalServerError):
        ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert route.call_count == 1  # no retry


def test_a_setting_it_does_not_read_is_refused_before_sending(
        httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://api.openai.com/v1/chat/completions")
    ai.api_key = KEY
    ai.default_query = {"api-version": "1"}  # type: ignore[attr-defined]
    with pytest.raises(ai.ConfigurationError, match=r"default_query.*ai\.Client"):
        ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert route.call_count == 0


def test_a_placeholder_base_url_is_refused_before_sending() -> None:
    ai.api_key = KEY
    ai.base_url = "https://..."  # as the OpenAI SDK's example writes it
    with pytest.raises(ai.ConfigurationError, match="not a valid host name") as caught:
        ai.chat.completions.create(model="openai:gpt-4o", messages=USER)
    assert KEY not in str(caught.value)


def test_every_endpoint_is_typed_and_is_the_clients() -> None:
    """The names ``aisuite_like`` annotates for type checkers are the endpoints it serves, and
    each is the module client's own attribute."""
    import ast
    import inspect

    from aisuite_like.client.module_client import ENDPOINTS, module_client

    tree = ast.parse(inspect.getsource(ai))
    annotated = {stmt.target.id for node in tree.body if isinstance(node, ast.If)
                 for stmt in node.body
                 if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)}
    assert annotated == set(ENDPOINTS)
    ai.api_key = KEY
    client = module_client(vars(ai))
    for name in ENDPOINTS:
        assert type(getattr(ai, name)) is type(getattr(client, name))


def test_import_builds_no_client_and_imports_no_sdk() -> None:
    code = ("import sys, aisuite_like as ai; ai.api_key = 'sk-x'; "
            "from aisuite_like.client import module_client as m; "
            "assert m._built is None; assert 'openai' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ok"
