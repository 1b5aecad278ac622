"""aisuite user code run against aisuite_like, written the way aisuite's README and notebooks
show it: ``Client.configure``, ``client.provider_configs``, aisuite's provider config keys,
``Tools`` with ``tools()`` / ``execute_tool`` / ``aexecute_tool``, ``intermediate_messages``
read as dicts, and the runner's ``tool_policy_context``.

The OpenAI-compatible calls go to a real HTTP server on 127.0.0.1 started by the test (an
Ollama / LM Studio stand-in answering scripted Chat Completions JSON), through the real
``openai`` SDK; hosted services are mocked at httpcore2 (respx).
"""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import respx
from support.openai_helpers import call, completion, httpx2_mock, wire  # noqa: F401

import aisuite_like as ai
from aisuite_like.providers._aisuite_keys import AZURE_DEFAULT_API_VERSION, aisuite_config

USER = [{"role": "user", "content": "What is the temperature in San Francisco?"}]


class ChatServer:
    """A loopback OpenAI-compatible server: answers POST .../chat/completions with the next
    scripted body and records every request (path, headers, JSON body)."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "headers": dict(self.headers),
                                        "body": body})
                reply = server.replies.pop(0) if server.replies else {"error": {
                    "message": "script exhausted", "type": "server_error"}}
                data = json.dumps(reply).encode()
                self.send_response(200 if "error" not in reply else 500)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def get_current_temperature(location: str, unit: str = "fahrenheit") -> dict:
    """Get the current temperature for a location.

    Args:
        location: The city, e.g. San Francisco.
        unit: celsius or fahrenheit.
    """
    return {"location": location, "temperature": 72, "unit": unit}


def tool_call_reply() -> dict[str, Any]:
    return completion(None, tool_calls=[call("call_1", "get_current_temperature",
                                             '{"location": "San Francisco"}')],
                      finish="tool_calls")


# --- Client.configure, provider_configs, aisuite's config keys ------------------------------


def test_configure_and_provider_configs_with_aisuite_keys() -> None:
    with ChatServer([completion("first"), completion("second")]) as one, \
            ChatServer([completion("third")]) as two:
        client = ai.Client()
        config = {"ollama": {"api_url": one.url}}
        client.configure(config)
        assert client.provider_configs == {"ollama": {"api_url": one.url}}
        assert config == {"ollama": {"api_url": one.url}}  # the caller's dict is untouched
        r1 = client.chat.completions.create(model="ollama:llama3.1:8b", messages=USER)
        r2 = client.chat.completions.create(model="ollama:llama3.1:8b", messages=USER)
        client.configure({"ollama": {"api_url": two.url + "/"}})  # a provider in use: rebuilt
        r3 = client.chat.completions.create(model="ollama:llama3.1:8b", messages=USER)
        client.configure(None)  # aisuite: a no-op
    assert [r.content for r in (r1, r2, r3)] == ["first", "second", "third"]
    assert [r["path"] for r in one.requests] == ["/v1/chat/completions"] * 2
    assert two.requests[0]["path"] == "/v1/chat/completions"
    assert one.requests[0]["body"]["model"] == "llama3.1:8b"
    assert client.provider_configs["ollama"] == {"api_url": two.url + "/"}


def test_lmstudio_api_url() -> None:
    with ChatServer([completion("hi")]) as server:
        resp = ai.Client({"lmstudio": {"api_url": server.url}}).chat.completions.create(
            model="lmstudio:qwen2.5-7b-instruct", messages=USER)
    assert resp.content == "hi" and server.requests[0]["path"] == "/v1/chat/completions"


def test_huggingface_token(httpx2_mock: respx.Router) -> None:
    route = httpx2_mock.post("https://router.huggingface.co/v1/chat/completions").respond(
        200, json=completion())
    ai.Client({"huggingface": {"token": "hf_aisuitetoken123"}}).chat.completions.create(
        model="huggingface:meta-llama/Llama-3.1-8B-Instruct", messages=USER)
    assert route.calls[0].request.headers["authorization"] == "Bearer hf_aisuitetoken123"


def test_azure_without_api_version_uses_the_documented_default(httpx2_mock: respx.Router
                                                                ) -> None:
    # An Azure OpenAI resource (a serverless *.models.ai.azure.com endpoint is not the Azure
    # OpenAI API: docs/migration.md says how to reach one).
    base = "https://my-resource.openai.azure.com/openai"
    route = httpx2_mock.post(f"{base}/deployments/gpt-4o/chat/completions").respond(
        200, json=completion())
    ai.Client({"azure": {"base_url": base, "api_key": "azure-key"}}).chat.completions.create(
        model="azure:gpt-4o", messages=USER)
    assert route.calls[0].request.url.params["api-version"] == AZURE_DEFAULT_API_VERSION


def test_conflicting_aisuite_and_own_key_is_refused() -> None:
    client = ai.Client({"ollama": {"api_url": "http://127.0.0.1:1", "base_url": "http://x/v1"}})
    with pytest.raises(ai.ConfigurationError, match="api_url"):
        client.chat.completions.create(model="ollama:m", messages=USER)


def _service_account_file(tmp_path: Any) -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path = tmp_path / "sa.json"
    path.write_text(json.dumps({
        "type": "service_account", "project_id": "my-project", "private_key_id": "k1",
        "private_key": pem, "client_email": "sa@my-project.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}))
    return str(path)


def test_vertex_keys_become_a_vertex_config(tmp_path: Any) -> None:
    from google.oauth2 import service_account

    path = _service_account_file(tmp_path)
    given = {"project_id": "my-project", "region": "us-central1",
             "application_credentials": path}
    config = aisuite_config("google", given)
    assert config["vertexai"] is True
    assert (config["project"], config["location"]) == ("my-project", "us-central1")
    assert isinstance(config["credentials"], service_account.Credentials)
    assert config["credentials"].service_account_email == "sa@my-project.iam.gserviceaccount.com"
    assert "application_credentials" in given  # the caller's dict is untouched
    with pytest.raises(ai.ConfigurationError, match="service-account"):
        aisuite_config("google", {**given, "application_credentials": str(tmp_path / "no")})


# --- Tools: aisuite's methods ---------------------------------------------------------------


def test_tools_methods_in_a_manual_loop_as_aisuites_readme() -> None:
    with ChatServer([tool_call_reply(), completion("It is 72F.")]) as server:
        client = ai.Client({"ollama": {"api_url": server.url}})
        tools = ai.Tools(tools=[get_current_temperature])
        messages = list(USER)
        response = client.chat.completions.create(model="ollama:llama3.1", messages=messages,
                                                  tools=tools.tools())
        results, result_messages = tools.execute_tool(response.choices[0].message.tool_calls)
        messages.append(response.choices[0].message)
        messages.extend(result_messages)
        final = client.chat.completions.create(model="ollama:llama3.1", messages=messages,
                                               tools=tools.tools())
    assert results == [{"location": "San Francisco", "temperature": 72, "unit": "fahrenheit"}]
    assert result_messages == [{"role": "tool", "name": "get_current_temperature",
                                "content": json.dumps(results[0]), "tool_call_id": "call_1"}]
    assert final.content == "It is 72F."
    spec = tools.tools()[0]
    assert spec["type"] == "function" and spec["function"]["name"] == "get_current_temperature"
    assert server.requests[0]["body"]["tools"] == tools.tools()
    assert tools.tools(format="other") == [spec["function"]]
    sent = server.requests[1]["body"]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[2] == {"role": "tool", "content": json.dumps(results[0]),
                       "tool_call_id": "call_1"}  # the informational name stays on our side


def test_execute_tool_errors_policy_and_dict_calls() -> None:
    tools = ai.Tools([get_current_temperature])
    assert len(ai.Tools()) == 0
    with pytest.raises(ValueError, match="Tool 'nope' not registered."):
        tools.execute_tool({"id": "c", "function": {"name": "nope", "arguments": "{}"}})
    with pytest.raises(ValueError, match="Error in tool 'get_current_temperature' parameters"):
        tools.execute_tool({"id": "c", "function": {"name": "get_current_temperature",
                                                    "arguments": '{"unit": "c"}'}})
    seen: list[Any] = []

    def only_for_admins(ctx: ai.ToolPolicyContext) -> ai.ToolPolicyDecision:
        seen.append((ctx.tool_name, ctx.arguments, ctx.agent_name, ctx.metadata))
        return ai.ToolPolicyDecision(allowed=False, reason="admins only")

    calls = [{"id": "c1", "function": {"name": "get_current_temperature",
                                       "arguments": {"location": "Paris"}}}]
    results, messages = tools.execute_tool(calls, tool_policy=only_for_admins,
                                           tool_policy_context={"agent_name": "weather",
                                                                "metadata": {"user": "u1"}})
    assert results == [{"error": "Tool call denied by policy", "reason": "admins only"}]
    assert json.loads(messages[0]["content"]) == results[0]
    assert seen == [("get_current_temperature", {"location": "Paris"}, "weather",
                     {"user": "u1"})]
    assert tools.execute(calls) == [{"location": "Paris", "temperature": 72,
                                     "unit": "fahrenheit"}]


def test_aexecute_tool_awaits_async_tools_and_threads_sync_ones() -> None:
    async def get_humidity(location: str) -> int:
        """Humidity in percent."""
        await asyncio.sleep(0)
        return 40

    tools = ai.Tools([get_current_temperature, get_humidity])
    calls = [ai.ToolCall(id="a", function=ai.Function(name="get_humidity",
                                                      arguments='{"location": "Oslo"}')),
             ai.ToolCall(id="b", function=ai.Function(name="get_current_temperature",
                                                      arguments='{"location": "Oslo"}'))]
    results, messages = asyncio.run(tools.aexecute_tool(calls))
    assert results[0] == 40 and results[1]["location"] == "Oslo"
    assert [m["tool_call_id"] for m in messages] == ["a", "b"]
    assert messages[0]["content"] == "40"
    assert tools.execute_tool(calls[:1])[0] == [40]  # the async tool from sync code too


# --- the runner: intermediate_messages as dicts, tool_policy_context --------------------------


def test_runner_messages_read_as_dicts_and_tool_policy_context() -> None:
    contexts: list[Any] = []

    def policy(ctx: ai.ToolPolicyContext) -> bool:
        contexts.append(ctx)
        return True

    with ChatServer([tool_call_reply(), completion("72F in San Francisco.")]) as server:
        client = ai.Client({"ollama": {"api_url": server.url}})
        resp = client.chat.completions.create(
            model="ollama:llama3.1", messages=USER, tools=[get_current_temperature],
            max_turns=3, tool_policy=policy,
            tool_policy_context={"agent_name": "weather", "run_name": "r1", "tags": ["t"]})
    ims = resp.choices[0].intermediate_messages
    assert ims[0]["role"] == "assistant"
    assert ims[0].get("tool_calls")[0]["function"]["name"] == "get_current_temperature"
    assert ims[1]["role"] == "tool" and ims[1]["tool_call_id"] == "call_1"
    assert json.loads(ims[1]["content"])["temperature"] == 72
    assert ims[1].get("tool_calls") is None and "tool_calls" not in ims[1]
    assert ims[2]["content"] == "72F in San Francisco."
    assert {**ims[1]} == ims[1].model_dump(exclude_none=True)
    assert resp.messages[0]["content"] == USER[0]["content"]
    (ctx,) = contexts
    assert (ctx.agent_name, ctx.run_name, ctx.tags) == ("weather", "r1", ["t"])
    assert ctx.context["agent_name"] == "weather"
    for request in server.requests:  # consumed by the runner, never sent
        assert "tool_policy_context" not in json.dumps(request["body"])


def test_tool_policy_context_without_max_turns_is_refused_before_sending() -> None:
    with ChatServer([completion()]) as server:
        client = ai.Client({"ollama": {"api_url": server.url}})
        with pytest.raises(ValueError, match="max_turns"):
            client.chat.completions.create(model="ollama:m", messages=USER,
                                           tool_policy_context={"agent_name": "a"})
    assert server.requests == []


def test_async_runner_with_tool_policy_context_and_acreate() -> None:
    seen: list[str] = []

    async def policy(ctx: ai.ToolPolicyContext) -> bool:
        seen.append(ctx.agent_name)
        return True

    with ChatServer([tool_call_reply(), completion("done")]) as server:
        client = ai.Client({"ollama": {"api_url": server.url}})
        resp = asyncio.run(client.chat.completions.acreate(
            model="ollama:m", messages=USER, tools=[get_current_temperature], max_turns=2,
            tool_policy=policy, tool_policy_context={"agent_name": "async-agent"}))
    assert resp.content == "done" and seen == ["async-agent"]
    assert resp.choices[0].intermediate_messages[1]["role"] == "tool"


def test_message_dict_access_matches_its_dump() -> None:
    message = ai.Message(role="assistant", content=None, tool_calls=[
        ai.ToolCall(id="c", function=ai.Function(name="f", arguments="{}"))])
    assert message["content"] is None and message.get("content", "x") == "x"
    assert "tool_calls" in message and "content" not in message
    assert message["tool_calls"][0]["function"]["arguments"] == "{}"
    with pytest.raises(KeyError):
        message["nope"]
    assert dict(message) == {"role": "assistant", "tool_calls": message.tool_calls}


# --- aisuite's own client tests (tests/client/test_client.py), run against aisuite_like ------


def test_aisuite_provider_config_copy_semantics() -> None:
    client_a, client_b = ai.Client(), ai.Client()
    client_a.configure({"openai": {"api_key": "client-a-key"}})
    assert client_a.provider_configs == {"openai": {"api_key": "client-a-key"}}
    assert client_b.provider_configs == {}

    for configure in (False, True):
        provider_configs = {"openai": {"api_key": "original"}}
        openai_config = provider_configs["openai"]
        client = ai.Client()
        if configure:
            client.configure(provider_configs)
        else:
            client = ai.Client(provider_configs)
        assert client.provider_configs["openai"] is not openai_config
        provider_configs["openai"]["api_key"] = "mutated"
        provider_configs["anthropic"] = {"api_key": "new"}
        assert client.provider_configs == {"openai": {"api_key": "original"}}


def test_aisuite_tool_loop_counts() -> None:
    def get_weather(location: str) -> dict:
        """Get the weather for a location."""
        return {"location": location, "condition": "sunny"}

    def echo(value: str) -> str:
        """Echo a value."""
        return value

    weather_call = completion(None, tool_calls=[call("call_1", "get_weather",
                                                     '{"location": "San Francisco"}')],
                              finish="tool_calls")
    with ChatServer([weather_call, completion("It is sunny in San Francisco.")]) as server:
        response = ai.Client({"ollama": {"api_url": server.url}}).chat.completions.create(
            model="ollama:llama3.1", messages=[{"role": "user", "content": "Weather?"}],
            tools=[get_weather], max_turns=2)
    assert response.choices[0].message.content == "It is sunny in San Francisco."
    assert len(response.intermediate_responses) == 1
    assert len(response.choices[0].intermediate_messages) == 3
    tool_message = server.requests[1]["body"]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    # aisuite sends json.dumps(result); we send compact JSON (and a str as is).
    assert json.loads(tool_message["content"]) == {"location": "San Francisco",
                                                   "condition": "sunny"}

    echo_call = completion(None, tool_calls=[call("call_1", "echo", '{"value": "hello"}')],
                           finish="tool_calls")
    with ChatServer([echo_call]) as server:
        response = ai.Client({"ollama": {"api_url": server.url}}).chat.completions.create(
            model="ollama:llama3.1", messages=[{"role": "user", "content": "Echo forever"}],
            tools=[echo], max_turns=1)
    assert len(server.requests) == 1
    assert response.choices[0].message.tool_calls[0].function.name == "echo"
    assert response.intermediate_responses == []
    assert len(response.choices[0].intermediate_messages) == 2
    assert response.stop_reason == "max_turns"


def test_configure_under_an_alias_replaces_the_providers_config() -> None:
    client = ai.Client({"google": {"api_key": "AIza-one"}})
    client.configure({"gemini": {"api_key": "AIza-two"}})
    assert client.provider_configs == {"gemini": {"api_key": "AIza-two"}}
    with pytest.raises(ai.ConfigurationError, match="same provider"):
        client.configure({"google": {"api_key": "a"}, "gemini": {"api_key": "b"}})



def test_recorded_groq_tool_loop_as_aisuite_code(httpx2_mock: respx.Router) -> None:
    from support.recorded import load_recorded

    fixture = load_recorded("groq/test_tool_choice_matrix__test_tool_choice_matrix__auto-groq.json")
    route = httpx2_mock.post("https://api.groq.com/openai/v1/chat/completions").mock(
        side_effect=[respx.MockResponse(200, json=i["response"]["body"])
                     for i in fixture["interactions"]])

    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return f"Sunny, 22C in {city}"

    client = ai.Client()
    client.configure({"groq": {"api_key": "gsk_test_key_123456"}})
    first = fixture["interactions"][0]["request"]["body"]
    response = client.chat.completions.create(
        model="groq:" + first["model"], messages=first["messages"], tools=[get_weather],
        max_turns=3)
    ims = response.choices[0].intermediate_messages
    assert ims[1]["content"] == "Sunny, 22C in Paris"
    assert ims[0].get("tool_calls")[0]["id"] == "48f5r72yf"
    assert response.choices[0].message.content == (
        "The weather in Paris is sunny with a temperature of 22C.")
    recorded = fixture["interactions"][1]["request"]["body"]["messages"]
    # the history went back as recorded, the tool-call turn's content as null (as the OpenAI
    # SDK sends a reply's message; pydantic-ai's recording left the key out)
    assert wire(route, 1)["messages"] == [
        {"content": None, **m} if m["role"] == "assistant" else m for m in recorded]
    # Groq's own usage fields pass through on each response (the run's summed usage keeps
    # OpenAI's counters only).
    first_usage = response.intermediate_responses[0].to_dict()["usage"]
    assert first_usage["completion_time"] == (
        fixture["interactions"][0]["response"]["body"]["usage"]["completion_time"])
    assert response.to_dict()["system_fingerprint"] == "fp_f08cd12a81"
