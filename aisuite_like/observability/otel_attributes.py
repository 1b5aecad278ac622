"""What the spans of docs/observability.md say: the GenAI semantic conventions' attributes of
a request, a reply and a tool call, and the message content recorded with
``capture_content``. Pure functions over our types; the spans themselves are made in
:mod:`.otel`.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlsplit

from opentelemetry.trace import Span, Status, StatusCode

from ..core.reading import loads_json

if TYPE_CHECKING:
    from ..core.responses import Response
    from ..core.types import ChatCompletionResponse
    from ..providers.base import ChatRequest, ResponsesRequest

__all__ = ["agent_labels", "provider_name", "endpoint_of", "request_settings",
           "not_run_reason", "error_type_of", "mark_error", "json_text", "text_parts",
           "tool_arguments", "message_parts", "input_messages", "output_messages",
           "chat_view", "finish_of", "chat_of"]

# Our provider key -> gen_ai.provider.name (the semantic conventions' well-known values);
# any other key is used as it is.
_PROVIDER_NAMES = {
    "openai": "openai", "azure": "azure.ai.openai", "anthropic": "anthropic",
    "google": "gcp.gemini", "gemini": "gcp.gemini", "groq": "groq", "mistral": "mistral_ai",
    "deepseek": "deepseek", "xai": "x_ai", "perplexity": "perplexity", "cohere": "cohere",
    "bedrock": "aws.bedrock", "aws": "aws.bedrock",
}
# Default endpoints of the families whose SDK picks the URL when the config gives none.
_DEFAULT_URLS = {
    "openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com",
    "google": "https://generativelanguage.googleapis.com",
    "deepgram": "https://api.deepgram.com",
}
_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


def agent_labels(agent: Any, attributes: dict[str, Any]) -> None:
    """An agent's ``tags`` (``aisuite_like.agent.tags``) and ``metadata`` (one
    ``aisuite_like.agent.metadata.<key>`` each: a str, bool or number as is, anything else as
    JSON) as span attributes."""
    tags = getattr(agent, "tags", None)
    if tags:
        attributes["aisuite_like.agent.tags"] = list(tags)
    for name, value in (getattr(agent, "metadata", None) or {}).items():
        attributes[f"aisuite_like.agent.metadata.{name}"] = (
            value if isinstance(value, (str, bool, int, float)) else json_text(value))


def provider_name(provider: Any, key: str) -> str:
    """``gen_ai.provider.name`` of a provider key (the conventions' well-known values)."""
    if key in ("google", "gemini") and getattr(provider, "_vertex", False):
        return "gcp.vertex_ai"
    return _PROVIDER_NAMES.get(key, key)


def endpoint_of(provider: Any, key: str) -> tuple[Optional[str], Optional[int]]:
    """The host and port a provider sends to, from its configuration (never its URL's user
    info, path or query)."""
    url: Any = None
    config = getattr(provider, "_config", None)
    config = config if isinstance(config, dict) else {}
    azure = getattr(provider, "_azure", None)
    if isinstance(azure, dict):
        url = azure.get("base_url") or azure.get("azure_endpoint")
    if not url:
        options = getattr(provider, "_sync_options", None)  # anthropic
        if isinstance(options, dict):
            url = options.get("base_url")
    if not url:
        url = config.get("base_url")
    if not url:
        spec = getattr(provider, "spec", None)
        url = getattr(spec, "base_url", None)
    if not url and key in ("google", "gemini") and getattr(provider, "_vertex", False):
        location = config.get("location") or "us-central1"
        url = ("https://aiplatform.googleapis.com" if location == "global"
               else f"https://{location}-aiplatform.googleapis.com")
    if not url and key in _URL_ENV:
        url = os.environ.get(_URL_ENV[key])
    if not url:
        url = _DEFAULT_URLS.get(key) or getattr(provider, "base_url", None)
    if not isinstance(url, str) or not url:
        return None, None
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    except ValueError:
        return None, None
    return host, port


def request_settings(request: "ChatRequest", attributes: dict[str, Any]) -> None:
    """The request's sampling settings as ``gen_ai.request.*`` attributes."""
    if request.temperature is not None:
        attributes["gen_ai.request.temperature"] = request.temperature
    if request.top_p is not None:
        attributes["gen_ai.request.top_p"] = request.top_p
    if request.max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = request.max_tokens
    if request.seed is not None:
        attributes["gen_ai.request.seed"] = request.seed
    if request.stop is not None:
        stop = [request.stop] if isinstance(request.stop, str) else list(request.stop)
        attributes["gen_ai.request.stop_sequences"] = [str(s) for s in stop]
    if request.n is not None and request.n != 1:
        attributes["gen_ai.request.choice.count"] = request.n
    extra = request.extra
    for name in ("frequency_penalty", "presence_penalty"):
        value = extra.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            attributes[f"gen_ai.request.{name}"] = value
    top_k = extra.get("top_k")
    if isinstance(top_k, int) and not isinstance(top_k, bool):
        attributes["gen_ai.request.top_k"] = top_k
    fmt = request.response_format
    if isinstance(fmt, dict) and isinstance(fmt.get("type"), str):
        attributes["gen_ai.output.type"] = "text" if fmt["type"] == "text" else "json"
    elif isinstance(fmt, type):  # a pydantic model (parse)
        attributes["gen_ai.output.type"] = "json"


def not_run_reason(call: Any) -> str:
    """Why a tool call was answered without running (the runner's own error texts)."""
    result = call.result
    if isinstance(call.arguments, str):
        return "invalid_arguments"  # not JSON, or not a JSON object
    if call.tool is None:
        return "tool_not_found"
    if result.startswith("Error: tool call denied"):
        return "denied"
    if result.startswith("Error: invalid arguments"):
        return "invalid_arguments"
    return "not_executed"


def error_type_of(exc: BaseException) -> str:
    """``error.type``: the exception's qualified class name."""
    return type(exc).__qualname__


def mark_error(span: Span, error_type: str, exc: BaseException) -> None:
    """Record a failure on a span: its ``error.type`` and an error status with the message."""
    span.set_attribute("error.type", error_type)
    # Our errors' messages are redacted of keys (errors.py); the description is that message.
    span.set_status(Status(StatusCode.ERROR, f"{error_type}: {exc}"[:1000]))


def json_text(value: Any) -> str:
    """Compact JSON of a captured value (non-JSON values as their ``str``)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def text_parts(content: Any) -> list[dict[str, Any]]:
    """A message's content as the conventions' parts (media by kind only)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append({"type": "text", "content": part.get("text", "")})
            elif isinstance(part, dict):
                parts.append({"type": str(part.get("type", "unknown"))})  # media: kind only
    return parts


def tool_arguments(raw: Any) -> Any:
    """Tool-call arguments parsed from JSON where they parse, else as given."""
    if isinstance(raw, str):
        try:
            return loads_json(raw)
        except ValueError:
            return raw
    return raw


def message_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A chat message as the conventions' parts: text, tool calls, a tool result."""
    role = message.get("role")
    if role == "tool":
        return [{"type": "tool_call_response", "id": message.get("tool_call_id"),
                 "response": message.get("content")}]
    parts = text_parts(message.get("content"))
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            call = call.model_dump()
        function = call.get("function") or {}
        parts.append({"type": "tool_call", "id": call.get("id"), "name": function.get("name"),
                      "arguments": tool_arguments(function.get("arguments"))})
    return parts


def input_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``gen_ai.input.messages``: the request's messages in the conventions' shape."""
    return [{"role": m.get("role"), "parts": message_parts(m)} for m in messages]


def output_messages(response: "ChatCompletionResponse") -> list[dict[str, Any]]:
    """``gen_ai.output.messages``: the reply's choices in the conventions' shape."""
    out = []
    for choice in response.choices:
        message = choice.message.model_dump(exclude_none=True)
        out.append({"role": "assistant", "parts": message_parts(message),
                    "finish_reason": choice.finish_reason or ""})
    return out


# --- native Responses calls ---------------------------------------------------------------------


def chat_view(request: "ResponsesRequest", capture: bool) -> "ChatRequest":
    """The settings of a native Responses call as a ``ChatRequest``, for its span (the
    input converted to messages only when content is captured)."""
    from ..providers.base import ChatRequest

    params = request.params
    messages: list[dict[str, Any]] = []
    if capture:
        from ..core.responses_items import input_to_messages

        try:
            messages = input_to_messages(params.get("input", ""), params.get("instructions"))
        except Exception:  # an item only OpenAI reads: the span records no messages
            messages = []
    text = params.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    return ChatRequest(model=request.model, messages=messages,
                       temperature=params.get("temperature"), top_p=params.get("top_p"),
                       max_tokens=params.get("max_output_tokens"),
                       response_format=fmt if isinstance(fmt, dict) else None,
                       tools=params.get("tools") if capture else None)


def finish_of(response: "Response") -> str:
    """The chat finish reason a Responses ``Response`` stands for."""
    if response.status == "incomplete":
        details = response.incomplete_details or {}
        return "content_filter" if details.get("reason") == "content_filter" else "length"
    if any(getattr(item, "type", None) == "function_call" for item in response.output):
        return "tool_calls"
    return "stop" if response.status == "completed" else str(response.status)


def chat_of(response: "Response") -> "ChatCompletionResponse":
    """A native Responses ``Response`` seen as a chat completion (for its span)."""
    from ..core.responses_items import input_to_messages
    from ..core.types import ChatCompletionResponse, Choice, Message

    try:
        messages = input_to_messages([item.model_dump(exclude_none=True)
                                      for item in response.output])
    except Exception:
        messages = []
    message = Message.model_validate(messages[0]) if messages else Message(role="assistant")
    return ChatCompletionResponse(id=response.id, model=response.model, choices=[
        Choice(message=message, finish_reason=finish_of(response))])  # type: ignore[arg-type]
