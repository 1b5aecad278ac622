"""Anthropic Messages API provider: a pure translator and a thin transport over the SDK.

Translator (no I/O, importable without the ``anthropic`` package): :func:`build_request`
(``ChatRequest`` -> ``messages.create`` keyword arguments), :func:`parse_response` (the raw
Messages JSON -> ``ChatCompletionResponse``), :class:`StreamBody` / :class:`StreamState` (the
bytes of a streamed reply / its events -> ``ChatCompletionChunk``),
:func:`error_from_stream_event`.

Transport: :class:`AnthropicProvider`, registered as ``"anthropic"``. It asks the SDK for the raw
HTTP response (``with_raw_response`` / ``with_streaming_response``) and runs our translator over
the JSON, so no SDK pydantic model is built per call or per event. The SDK is imported when the
provider is constructed; SDK clients are created on first use (sync and async separately).

Decisions (defaults, what raises) are documented in docs/providers/anthropic.md.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, Optional

from ..core.checks import tool_call_id_of
from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ContextWindowExceededError,
    UnsupportedParameterError,
    _error_for_status,
    _parse_retry_after,
    _redact,
    _scrub_exception,
)
from ..core.secrets import clean_api_key
from ..core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Choice,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    CompletionTokensDetails,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    Usage,
    _built,
)
from . import retry as _retry
from ._common import (
    SSEDecoder,
    SSEEvent,
    argument_fragment,
    arguments_json,
    bad_shape,
    bound_sync_io,
    decode_json,
    host_of,
    host_of_url,
    json_schema_format,
    loads_arguments,
    need_name,
    need_object,
    opt_count,
    opt_object,
    opt_str,
    own_error_inside,
    parse_data_url,
    raised_inside,
    read_reply,
    redirect_hooks,
    sse_json,
    stop_sequences,
    too_deep_for_sdk,
    unreadable,
    unsupported,
)
from .base import ChatRequest, Provider

__all__ = [
    "AnthropicProvider",
    "DEFAULT_MAX_TOKENS",
    "THINKING_BLOCKS_KEY",
    "build_request",
    "parse_response",
    "StreamBody",
    "StreamState",
    "error_from_stream_event",
]

PROVIDER = "anthropic"

#: Seconds that bound an attempt when no timeout is configured: the anthropic SDK's 600 s.
_DEFAULT_TIMEOUT = 600.0

#: ``max_tokens`` sent when the caller gives none (the Messages API requires it). 4096 fits every
#: current Claude model and stays far below the SDK's "non-streaming request may take longer
#: than 10 minutes" guard (about 21k tokens). Override per provider with ``default_max_tokens``.
DEFAULT_MAX_TOKENS = 4096

#: ``Message.provider_specific_fields`` key holding the reply's thinking / redacted_thinking
#: blocks, exactly as Anthropic sent them (signatures included), to be sent back unchanged.
THINKING_BLOCKS_KEY = "thinking_blocks"

# Keyword arguments of ``messages.create`` when the SDK cannot be inspected (translator used
# without the SDK, e.g. in replay tests); the transport passes the SDK's real signature.
_FALLBACK_SDK_PARAMS = frozenset({
    "max_tokens", "messages", "model", "cache_control", "container", "diagnostics",
    "inference_geo", "metadata", "output_config", "service_tier", "speed", "stop_sequences",
    "stream", "system", "thinking", "tool_choice", "tools", "user_profile_id", "workspace_id",
    "extra_headers", "extra_query", "extra_body", "timeout",
})

# Native argument names whose value we merge with what we derive from portable arguments
# (dicts, merged key by key); any other clash between a portable argument and a native one is
# an error, so nothing is silently overridden.
_MERGEABLE_NATIVE = frozenset({"metadata", "output_config", "extra_body"})

# OpenAI content part types with no Messages API equivalent: rejected with a clear error. Any
# other unknown type is taken for an Anthropic-native block and passed through untouched.
_OPENAI_ONLY_PARTS = frozenset({"input_audio", "audio", "refusal"})


# =============================================================================================
# Request translation
# =============================================================================================


def build_request(
    request: ChatRequest,
    *,
    sdk_params: frozenset[str] = _FALLBACK_SDK_PARAMS,
    default_max_tokens: int = DEFAULT_MAX_TOKENS,
    provider: str = PROVIDER,
) -> dict[str, Any]:
    """``ChatRequest`` -> keyword arguments for ``client.messages.create``.

    Never mutates ``request`` or the caller's messages: new dicts and lists are built, and the
    caller's leaf values (schemas, native blocks) are only referenced.
    """
    if request.seed is not None:
        raise unsupported(provider, "seed", "the Messages API has no sampling seed")
    if request.n is not None and request.n != 1:
        raise unsupported(provider, "n", "the Messages API returns exactly one choice")
    if request.stream_options:
        unknown = set(request.stream_options) - {"include_usage"}
        if unknown:
            raise unsupported(provider, f"stream_options.{sorted(unknown)[0]}")
        # include_usage: Anthropic always reports usage; it arrives on the last chunk.

    system, messages = translate_messages(request.messages, provider=provider)
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "max_tokens": request.max_tokens if request.max_tokens is not None
        else default_max_tokens,
    }
    if system is not None:
        kwargs["system"] = system

    tools = translate_tools(request.tools) if request.tools else None
    if tools:
        kwargs["tools"] = tools
    tool_choice = translate_tool_choice(request.tool_choice, request.parallel_tool_calls,
                                        has_tools=bool(tools), provider=provider)
    if tool_choice is not None:
        kwargs["tool_choice"] = tool_choice

    if request.stop is not None:
        stop = stop_sequences(provider, request.stop)
        if stop:
            kwargs["stop_sequences"] = stop
    if request.user is not None:
        kwargs["metadata"] = {"user_id": request.user}
    output_config = translate_response_format(request.response_format, provider=provider)
    if output_config is not None:
        kwargs["output_config"] = output_config

    # anthropic 2.x has no named temperature / top_p arguments: they travel in the body.
    extra_body: dict[str, Any] = {}
    if request.temperature is not None:
        extra_body["temperature"] = request.temperature
    if request.top_p is not None:
        extra_body["top_p"] = request.top_p
    if extra_body:
        kwargs["extra_body"] = extra_body
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    if request.stream:
        kwargs["stream"] = True

    if request.extra:
        _merge_native(kwargs, request.extra, sdk_params=sdk_params, provider=provider)
    return kwargs


def _merge_native(kwargs: dict[str, Any], extra: dict[str, Any], *, sdk_params: frozenset[str],
                  provider: str) -> None:
    """Provider-native arguments: a named SDK argument where one exists, else ``extra_body``."""
    body_extra: dict[str, Any] = {}
    for name, value in extra.items():
        if name in ("model", "messages", "stream"):
            raise UnsupportedParameterError(
                f"{name!r} cannot be passed as a provider-native argument; use the "
                f"create() argument of that name", parameter=name, provider=provider)
        if name not in sdk_params:
            body_extra[name] = value
            continue
        if name not in kwargs:
            kwargs[name] = value
        elif name in _MERGEABLE_NATIVE and isinstance(value, dict):
            clash = set(value) & set(kwargs[name])
            if clash and name != "extra_body":
                raise UnsupportedParameterError(
                    f"{name}.{sorted(clash)[0]} is given twice (by a portable argument and by "
                    f"the native {name!r}); pass it once", parameter=name, provider=provider)
            # extra_body: the caller's explicit body values win over our derived ones.
            kwargs[name] = {**kwargs[name], **value}
        else:
            raise UnsupportedParameterError(
                f"{name!r} is given twice: as a portable argument (e.g. system messages, stop, "
                f"tools, max_tokens) and as the native {name!r}; pass it once",
                parameter=name, provider=provider)
    if body_extra:
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), **body_extra}


def translate_messages(
    messages: Iterable[dict[str, Any]], *, provider: str = PROVIDER,
) -> tuple[Any, list[dict[str, Any]]]:
    """OpenAI messages -> ``(system, messages)`` of the Messages API.

    System and developer messages (any position) are merged in order into ``system``: a string
    when there is exactly one plain-text one, else a list of text blocks. ``tool`` messages
    become ``tool_result`` blocks of a user turn; consecutive turns of the same role are merged
    into one (so parallel tool results share one user message, followed by any user text).
    """
    system_blocks: list[dict[str, Any]] = []
    system_strings: list[str] = []
    turns: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role in ("system", "developer"):
            content = msg.get("content")
            if isinstance(content, str):
                system_strings.append(content)
                if content:
                    system_blocks.append({"type": "text", "text": content})
            else:
                system_strings.append("\0")  # not plain: forces the block form
                system_blocks.extend(_content_blocks(content, provider=provider, where=i))
            continue
        if role == "user":
            blocks = _content_blocks(msg.get("content"), provider=provider, where=i)
            api_role = "user"
        elif role == "assistant":
            blocks = _assistant_blocks(msg, provider=provider, where=i)
            api_role = "assistant"
        elif role == "tool":
            blocks = [_tool_result_block(msg, provider=provider, where=i)]
            api_role = "user"
        else:
            raise UnsupportedParameterError(
                f"messages[{i}] has role {role!r}; {provider} accepts system, developer, user, "
                "assistant and tool messages", parameter="messages", provider=provider)
        if not blocks:  # the API rejects empty turns; dropping one would change the dialogue
            from ..core.checks import empty_message

            raise empty_message(i, role, provider, "content or tool_calls" if role == "assistant"
                                else "content")
        if turns and turns[-1]["role"] == api_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": api_role, "content": blocks})

    system: Any = None
    if len(system_strings) == 1 and system_strings[0] != "\0":
        system = system_strings[0] or None
    elif system_blocks:
        system = system_blocks
    return system, turns


def _content_blocks(content: Any, *, provider: str, where: int) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise UnsupportedParameterError(
            f"messages[{where}].content must be a string or a list of content parts, got "
            f"{type(content).__name__}", parameter="messages", provider=provider)
    blocks = []
    for part in content:
        block = _part_to_block(part, provider=provider, where=where)
        if block is not None:
            blocks.append(block)
    return blocks


def _part_to_block(part: Any, *, provider: str, where: int) -> Optional[dict[str, Any]]:
    if isinstance(part, str):
        return {"type": "text", "text": part} if part else None
    if not isinstance(part, dict):
        raise UnsupportedParameterError(
            f"messages[{where}] has a content part of type {type(part).__name__}; expected a "
            "dict such as {'type': 'text', 'text': ...}", parameter="messages", provider=provider)
    kind = part.get("type")
    if kind == "text":
        text = part.get("text", "")
        if not text:
            return None
        block: dict[str, Any] = {"type": "text", "text": text}
        if "cache_control" in part:
            block["cache_control"] = part["cache_control"]
        return block
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str) or not url:
            raise UnsupportedParameterError(
                f"messages[{where}] has an image_url part without a url",
                parameter="messages", provider=provider)
        return _image_block(url)
    if kind == "file":
        return _file_block(part.get("file") or {}, provider=provider, where=where)
    if kind in _OPENAI_ONLY_PARTS or kind is None:
        raise UnsupportedParameterError(
            f"messages[{where}] has a content part of type {kind!r}, which {provider} does not "
            "accept; use text, image_url, file, or Anthropic-native content blocks",
            parameter="messages", provider=provider)
    # Anthropic-native block (image with source, document, search_result, ...): untouched.
    return part


def _image_block(url: str) -> dict[str, Any]:
    data_url = parse_data_url(url)
    if data_url is None:
        return {"type": "image", "source": {"type": "url", "url": url}}
    mime, data = data_url
    kind = "document" if mime == "application/pdf" else "image"
    return {"type": kind, "source": {"type": "base64", "media_type": mime, "data": data}}


def _file_block(file: dict[str, Any], *, provider: str, where: int) -> dict[str, Any]:
    if file.get("file_data"):
        parsed = parse_data_url(file["file_data"])
        if parsed is None:
            raise UnsupportedParameterError(
                f"messages[{where}]: file.file_data must be a base64 data URL "
                "('data:application/pdf;base64,...')", parameter="messages", provider=provider)
        mime, data = parsed
        kind = "image" if mime.startswith("image/") else "document"
        return {"type": kind, "source": {"type": "base64", "media_type": mime, "data": data}}
    if file.get("file_id"):
        return {"type": "document", "source": {"type": "file", "file_id": file["file_id"]}}
    raise UnsupportedParameterError(
        f"messages[{where}] has a file part without file_data or file_id",
        parameter="messages", provider=provider)


def _assistant_blocks(msg: dict[str, Any], *, provider: str, where: int) -> list[dict[str, Any]]:
    """Thinking blocks (exactly as received), then text, then one ``tool_use`` per call."""
    blocks: list[dict[str, Any]] = []
    psf = msg.get("provider_specific_fields")
    if psf:
        thinking = psf.get(THINKING_BLOCKS_KEY)
        if thinking:
            blocks.extend(thinking)
    blocks.extend(_content_blocks(msg.get("content"), provider=provider, where=where))
    for call in msg.get("tool_calls") or ():
        function = call.get("function") or {}
        name = function.get("name")
        call_id = call.get("id")
        if not name or not call_id:
            raise UnsupportedParameterError(
                f"messages[{where}] has a tool call without an id or function.name",
                parameter="messages", provider=provider)
        blocks.append({"type": "tool_use", "id": call_id, "name": name,
                       "input": loads_arguments(function.get("arguments"))})
    return blocks


def _tool_result_block(msg: dict[str, Any], *, provider: str, where: int) -> dict[str, Any]:
    call_id = tool_call_id_of(msg, where, provider)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    content = msg.get("content")
    if isinstance(content, str):
        if content:
            block["content"] = content
    elif content is not None:
        block["content"] = _content_blocks(content, provider=provider, where=where)
    if msg.get("is_error"):  # not OpenAI, but accepted when the caller marks it
        block["is_error"] = True
    return block


def translate_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function tools -> Anthropic tools; other (Anthropic-native) tools untouched."""
    out = []
    for tool in tools:
        function = tool.get("function") if tool.get("type") == "function" else None
        if function is None:
            out.append(tool)
            continue
        converted: dict[str, Any] = {
            "name": function["name"],
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            converted["description"] = function["description"]
        if function.get("strict") is not None:
            converted["strict"] = function["strict"]
        out.append(converted)
    return out


def translate_tool_choice(tool_choice: Any, parallel_tool_calls: Optional[bool], *,
                          has_tools: bool, provider: str = PROVIDER) -> Optional[dict[str, Any]]:
    """OpenAI ``tool_choice`` / ``parallel_tool_calls`` -> Anthropic ``tool_choice``."""
    choice: Optional[dict[str, Any]]
    if tool_choice is None:
        choice = None
    elif tool_choice == "auto":
        choice = {"type": "auto"}
    elif tool_choice == "none":
        choice = {"type": "none"}
    elif tool_choice == "required":
        choice = {"type": "any"}
    elif isinstance(tool_choice, dict):
        if tool_choice.get("type") == "function":
            name = (tool_choice.get("function") or {}).get("name")
            if not name:
                raise UnsupportedParameterError(
                    "tool_choice {'type': 'function'} needs function.name",
                    parameter="tool_choice", provider=provider)
            choice = {"type": "tool", "name": name}
        elif tool_choice.get("type") in ("auto", "any", "tool", "none"):
            choice = dict(tool_choice)  # already Anthropic-native
        else:
            raise unsupported(provider, "tool_choice", f"unknown form {tool_choice!r}")
    else:
        raise UnsupportedParameterError(
            f"tool_choice must be 'auto', 'none', 'required' or "
            f"{{'type': 'function', 'function': {{'name': ...}}}}, got {tool_choice!r}",
            parameter="tool_choice", provider=provider)

    if not has_tools:
        # Without tools, "auto"/"none" mean what the model does anyway; the API would reject
        # a tool_choice with no tools, so they are omitted. Forcing a tool cannot work.
        if choice is not None and choice["type"] in ("any", "tool"):
            raise UnsupportedParameterError(
                f"tool_choice={tool_choice!r} forces a tool call but no tools were given",
                parameter="tool_choice", provider=provider)
        return None
    if parallel_tool_calls is False:
        if choice is None:
            choice = {"type": "auto"}
        if choice["type"] != "none":
            choice["disable_parallel_tool_use"] = True
    return choice


def translate_response_format(response_format: Any, *,
                              provider: str = PROVIDER) -> Optional[dict[str, Any]]:
    """OpenAI ``response_format`` -> ``output_config`` (native structured outputs)."""
    spec = json_schema_format(response_format, provider, "Messages API")
    if spec is None:
        return None
    return {"format": {"type": "json_schema", "schema": spec["schema"]}}


# =============================================================================================
# Response translation
# =============================================================================================

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    # The server paused a long server-tool turn; sending the reply back continues it.
    "pause_turn": "stop",
}


def finish_reason_for(stop_reason: Optional[str], has_tool_calls: bool) -> Optional[str]:
    """Normalised finish reason: a reply with tool calls says tool_calls unless cut by length."""
    reason = _FINISH_REASONS.get(stop_reason, "stop") if stop_reason is not None else None
    if has_tool_calls and reason != "length":
        return "tool_calls"
    return reason


def usage_from(raw: Optional[dict[str, Any]], provider: str = PROVIDER) -> Optional[Usage]:
    """Anthropic usage -> OpenAI meaning: prompt tokens include cache reads and writes."""
    if not raw:
        return None
    if not isinstance(raw, dict):
        raise bad_shape(provider, "usage", "an object", raw)
    input_tokens = opt_count(raw.get("input_tokens"), provider, "usage.input_tokens")
    cache_read = raw.get("cache_read_input_tokens")
    cache_write = raw.get("cache_creation_input_tokens")
    if cache_read is not None:
        cache_read = opt_count(cache_read, provider, "usage.cache_read_input_tokens")
    if cache_write is not None:
        cache_write = opt_count(cache_write, provider, "usage.cache_creation_input_tokens")
    output_tokens = opt_count(raw.get("output_tokens"), provider, "usage.output_tokens")
    prompt = input_tokens + (cache_read or 0) + (cache_write or 0)
    prompt_details = None
    if cache_read is not None or cache_write is not None:
        prompt_details = PromptTokensDetails.model_construct(
            cached_tokens=cache_read or 0, cache_creation_tokens=cache_write or 0)
    completion_details = None
    output_details = raw.get("output_tokens_details")
    if output_details and output_details.get("thinking_tokens") is not None:
        completion_details = CompletionTokensDetails.model_construct(
            reasoning_tokens=output_details["thinking_tokens"])
    return Usage.model_construct(
        prompt_tokens=prompt, completion_tokens=output_tokens,
        total_tokens=prompt + output_tokens, prompt_tokens_details=prompt_details,
        completion_tokens_details=completion_details)


def _thinking_block(block: dict[str, Any]) -> dict[str, Any]:
    """The block as it must be sent back: only the fields the API defines."""
    if block["type"] == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.get("data", "")}
    return {"type": "thinking", "thinking": block.get("thinking", ""),
            "signature": block.get("signature", "")}


def parse_response(data: dict[str, Any], *, provider: str = PROVIDER,
                   created: Optional[int] = None) -> ChatCompletionResponse:
    """Raw Messages API response JSON -> ``ChatCompletionResponse`` (built once, unvalidated:
    every value comes from the JSON we just parsed). A reply of another shape raises
    ``APIResponseValidationError``; an error object (``{"type": "error", ...}``) the mapped
    error."""
    data = need_object(data, provider, "the reply")
    if data.get("type") == "error" or data.get("error"):
        raise error_from_stream_event(data, provider=provider, where="reply")
    content = data.get("content")
    if not isinstance(content, list):
        raise bad_shape(provider, "content", "an array of content blocks", content)
    texts: list[str] = []
    reasoning: list[str] = []
    thinking_blocks: list[dict[str, Any]] = []
    tool_calls: list[ToolCall] = []
    for position, block in enumerate(content):
        if not isinstance(block, dict):
            raise bad_shape(provider, f"content[{position}]", "an object", block)
        kind = block.get("type")
        if kind == "text":
            text = block.get("text", "")
            if not isinstance(text, str):
                raise bad_shape(provider, f"content[{position}].text", "a string", text)
            texts.append(text)
        elif kind == "tool_use":
            name = block.get("name")
            if not isinstance(name, str) or not name:
                name = need_name(name, provider, f"content[{position}].name")
            tool_calls.append(ToolCall.model_construct(
                id=opt_str(block.get("id"), provider, f"content[{position}].id") or "",
                type="function",  # a missing id: the facade assigns one
                function=Function.model_construct(name=name,
                                                  arguments=arguments_json(block.get("input")))))
        elif kind in ("thinking", "redacted_thinking"):
            thinking_blocks.append(_thinking_block(block))
            if kind == "thinking" and block.get("thinking"):
                reasoning.append(block["thinking"])
        # Server-tool blocks (server_tool_use, web_search_tool_result, ...) are not client
        # tool calls; they stay in ``response.raw``.
    message = Message.model_construct(
        role="assistant",
        content="".join(texts) or None,
        tool_calls=tool_calls or None,
        reasoning_content="".join(reasoning) or None,
        provider_specific_fields={THINKING_BLOCKS_KEY: thinking_blocks} if thinking_blocks
        else None,
    )
    stop_reason = opt_str(data.get("stop_reason"), provider, "stop_reason")
    choice = Choice.model_construct(
        index=0, message=message,
        finish_reason=finish_reason_for(stop_reason, bool(tool_calls)),
        native_finish_reason=stop_reason, intermediate_messages=[])
    return ChatCompletionResponse.model_construct(
        id=data.get("id", ""), created=int(time.time()) if created is None else created,
        model=data.get("model", ""), provider=provider, choices=[choice],
        usage=usage_from(data.get("usage"), provider), raw=data)


# =============================================================================================
# Stream translation
# =============================================================================================


class StreamBody:
    """The SSE body of one streamed reply -> chunks: the shared SSE decoder
    (``_common.SSEDecoder``) and the state machine together, so the sync and async transports
    only move bytes. The event name is kept as ``"type"`` when the data has none. An event
    of a shape the translator did not foresee raises ``APIResponseValidationError``, not a bare
    error; a body that ends inside an event whose JSON is cut off is a lost connection."""

    __slots__ = ("_decoder", "_state")

    def __init__(self, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = ()) -> None:
        self._decoder = SSEDecoder(provider)
        self._state = StreamState(provider=provider, request_id=request_id, secrets=secrets)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        """The chunks of the events ``data`` (the next bytes of the body) completes."""
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        """The end of the body (an unterminated last event is processed if complete)."""
        return self._chunks(self._decoder.end(), at_end=True)

    def finish(self) -> None:
        self._state.finish()

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        state = self._state
        provider = state.provider
        for name, data in events:
            event = sse_json(data, provider, at_end=at_end)
            if not isinstance(event, dict):
                raise bad_shape(provider, f"a stream event ({name or 'no name'})",
                                "an object", event)
            if name and "type" not in event:
                event["type"] = name
            try:
                chunk = state.process(event)
            except AisuiteLikeError:
                raise
            except Exception as exc:
                raise unreadable(provider, exc, "a stream event") from exc
            if chunk is not None:
                yield chunk


# Error event type -> HTTP status it stands for (Anthropic's documented error types).
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def error_from_stream_event(event: dict[str, Any], *, provider: str = PROVIDER,
                            request_id: Optional[str] = None,
                            secrets: Iterable[Optional[str]] = (),
                            where: str = "stream") -> APIError:
    """An ``error`` event inside a 200 stream (``where="reply"``: an error object as the
    body of a 200 reply) -> the typed error it stands for (overloaded / api errors are
    ``InternalServerError``)."""
    error = event.get("error")
    if not isinstance(error, dict):
        error = {}
    kind = error.get("type")
    if not isinstance(kind, str):
        kind = "api_error"
    detail = error.get("message")
    if not isinstance(detail, str):
        detail = None
    message = f"{provider} {where} error ({kind}): {detail or 'no message'}"
    status = _ERROR_TYPE_STATUS.get(kind, 500)
    if kind == "timeout_error":
        return APITimeoutError(_redact(message, secrets), provider=provider, status_code=status,
                               request_id=request_id)
    return _refine(_error_for_status(status, message, provider=provider,
                                     request_id=request_id or event.get("request_id"),
                                     secrets=secrets, body=event))


def _refine(error: APIError) -> APIError:
    """Anthropic also says "input length and `max_tokens` exceed context limit" for a prompt
    that leaves no room to answer: a context-window error too."""
    if (type(error) is BadRequestError and "exceed context limit" in error.message):
        return ContextWindowExceededError(error.message, provider=error.provider,
                                          status_code=error.status_code,
                                          request_id=error.request_id, body=error.body,
                                          response=getattr(error, "response", None))
    return error


def _delta(*, role: Optional[str] = None, content: Optional[str] = None,
           tool_calls: Optional[list[Any]] = None, reasoning_content: Optional[str] = None,
           provider_specific_fields: Optional[dict[str, Any]] = None) -> ChoiceDelta:
    return _built(ChoiceDelta, {  # every field: this runs per chunk
        "role": role, "content": content, "tool_calls": tool_calls,
        "reasoning_content": reasoning_content, "refusal": None,
        "provider_specific_fields": provider_specific_fields})


def _chunk(state: "StreamState", delta: ChoiceDelta, finish_reason: Optional[str] = None,
           native: Optional[str] = None, usage: Optional[Usage] = None) -> ChatCompletionChunk:
    return _built(ChatCompletionChunk, {
        "id": state.id, "object": "chat.completion.chunk", "created": state.created,
        "model": state.model, "provider": state.provider,
        "choices": [_built(ChunkChoice, {"index": 0, "delta": delta,
                                         "finish_reason": finish_reason,
                                         "native_finish_reason": native})],
        "usage": usage, "turn": None})


class StreamState:
    """Folds Messages API stream events into OpenAI-shaped chunks, one event at a time.

    ``process(event)`` returns the chunk the event produces, or None (ping, block starts of
    text, signature deltas, message_stop). Tool calls are indexed 0..n in order of appearance;
    a thinking block's complete form (with its signature) is delivered on its
    ``content_block_stop`` via ``delta.provider_specific_fields``, so the accumulated message
    equals the non-streamed one. Usage and the finish reason come on the message_delta chunk,
    the last one.
    """

    __slots__ = ("provider", "request_id", "secrets", "id", "model", "created", "_blocks",
                 "_tool_count", "_usage", "_done")

    def __init__(self, *, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = (), created: Optional[int] = None) -> None:
        self.provider = provider
        self.request_id = request_id
        self.secrets = tuple(secrets)
        self.id = ""
        self.model = ""
        self.created = int(time.time()) if created is None else created
        # content block index -> [kind, tool index or thinking parts, signature / data]
        self._blocks: dict[int, list[Any]] = {}
        self._tool_count = 0
        self._usage: dict[str, Any] = {}
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    def process(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._block_delta(event)
        if kind == "content_block_start":
            return self._block_start(event)
        if kind == "content_block_stop":
            return self._block_stop(event)
        if kind == "message_start":
            message = need_object(event.get("message"), self.provider, "message_start.message")
            self.id = opt_str(message.get("id"), self.provider, "message_start.message.id") or ""
            self.model = opt_str(message.get("model"), self.provider,
                                 "message_start.message.model") or ""
            self._usage = dict(opt_object(message.get("usage"), self.provider,
                                          "message_start.message.usage") or {})
            return _chunk(self, _delta(role="assistant"))
        if kind == "message_delta":
            return self._message_delta(event)
        if kind == "message_stop":
            self._done = True
            return None
        if kind == "error":
            raise error_from_stream_event(event, provider=self.provider,
                                          request_id=self.request_id, secrets=self.secrets)
        return None  # ping, and event types added after this was written

    def _block_start(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        index = event.get("index", 0)
        block = need_object(event.get("content_block"), self.provider,
                            "content_block_start.content_block")
        kind = block.get("type")
        if kind == "text":
            self._blocks[index] = ["text", None, None]
            if block.get("text"):
                return _chunk(self, _delta(content=block["text"]))
            return None
        if kind == "tool_use":
            need_name(block.get("name"), self.provider, "content_block_start.content_block.name")
            tool_index = self._tool_count
            self._tool_count += 1
            self._blocks[index] = ["tool", tool_index, None]
            initial = block.get("input")
            return _chunk(self, _delta(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=tool_index, id=block.get("id"), type="function",
                    function=ChoiceDeltaFunction.model_construct(
                        name=block.get("name"),
                        arguments=arguments_json(initial) if initial else ""))]))
        if kind == "thinking":
            text = block.get("thinking") or ""
            self._blocks[index] = ["thinking", [text] if text else [],
                                   block.get("signature") or ""]
            if text:
                return _chunk(self, _delta(reasoning_content=text))
            return None
        if kind == "redacted_thinking":
            self._blocks[index] = ["redacted", None, block.get("data", "")]
            return None
        self._blocks[index] = ["other", None, None]  # server tool blocks: see parse_response
        return None

    def _block_delta(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        delta = need_object(event.get("delta"), self.provider, "content_block_delta.delta")
        kind = delta.get("type")
        if kind == "text_delta":
            text = opt_str(delta.get("text"), self.provider, "content_block_delta.delta.text")
            return _chunk(self, _delta(content=text)) if text else None
        state = self._blocks.get(event.get("index", 0))
        if kind == "input_json_delta":
            fragment = argument_fragment(delta.get("partial_json"))
            if not fragment or state is None or state[0] != "tool":
                return None
            return _chunk(self, _delta(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=state[1], id=None, type=None,
                    function=ChoiceDeltaFunction.model_construct(name=None,
                                                                 arguments=fragment))]))
        if kind == "thinking_delta":
            text = delta.get("thinking")
            if not text:
                return None
            if state is not None and state[0] == "thinking":
                state[1].append(text)
            return _chunk(self, _delta(reasoning_content=text))
        if kind == "signature_delta":
            if state is not None and state[0] == "thinking":
                state[2] += delta.get("signature", "")
            return None
        return None  # citations_delta and future delta types carry no text of their own

    def _block_stop(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        state = self._blocks.get(event.get("index", 0))
        if state is None:
            return None
        if state[0] == "thinking":
            block = {"type": "thinking", "thinking": "".join(state[1]), "signature": state[2]}
        elif state[0] == "redacted":
            block = {"type": "redacted_thinking", "data": state[2]}
        else:
            return None
        return _chunk(self, _delta(
            provider_specific_fields={THINKING_BLOCKS_KEY: [block]}))

    def _message_delta(self, event: dict[str, Any]) -> ChatCompletionChunk:
        # message_delta usage is cumulative: its values replace message_start's.
        usage = opt_object(event.get("usage"), self.provider, "message_delta.usage") or {}
        for key, value in usage.items():
            if value is not None:
                self._usage[key] = value
        delta = opt_object(event.get("delta"), self.provider, "message_delta.delta") or {}
        stop_reason = opt_str(delta.get("stop_reason"), self.provider,
                              "message_delta.delta.stop_reason")
        return _chunk(self, _delta(),
                      finish_reason=finish_reason_for(stop_reason, self._tool_count > 0),
                      native=stop_reason, usage=usage_from(self._usage, self.provider))

    def finish(self) -> None:
        """Call at the end of the body: a stream cut before ``message_stop`` is an error."""
        if not self._done:
            raise APIConnectionError(
                f"the {self.provider} stream ended before message_stop (connection dropped?)",
                provider=self.provider, request_id=self.request_id)


# =============================================================================================
# Transport
# =============================================================================================

_SDK_PARAMS: Optional[frozenset[str]] = None


def _sdk_params() -> frozenset[str]:
    """Named arguments of the installed SDK's ``messages.create`` (read once per process)."""
    global _SDK_PARAMS
    if _SDK_PARAMS is None:
        import inspect

        from anthropic.resources.messages import Messages

        _SDK_PARAMS = frozenset(inspect.signature(Messages.create).parameters) - {"self"}
    return _SDK_PARAMS


class AnthropicProvider(Provider):
    """The Anthropic Messages API through the ``anthropic`` SDK.

    Config: ``api_key`` (else ``ANTHROPIC_API_KEY``), ``base_url``, ``timeout``,
    ``max_retries`` (default 2; 0 = one attempt), ``max_retry_wait``, ``max_concurrency``,
    ``retry_clock`` (our retry policy, ``aisuite_like.providers.retry``; the SDK's own retries are
    off), ``default_headers``, ``http_client`` (an ``httpx2.Client`` for sync calls or
    an ``httpx2.AsyncClient`` for async ones), ``async_transport="aiohttp"`` (the SDK's
    ``DefaultAioHttpClient``, needs ``anthropic[aiohttp]``), ``default_max_tokens``.
    Anything else is passed to the SDK client constructor.
    """

    def __init__(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Any = None,
        max_retries: int = 2,
        default_headers: Optional[dict[str, str]] = None,
        http_client: Any = None,
        async_transport: Optional[str] = None,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retry_wait: float = _retry.DEFAULT_MAX_RETRY_WAIT,
        max_concurrency: Optional[int] = None,
        retry_clock: Any = None,
        stream_gap_timeout: Optional[float] = None,
        **client_options: Any,
    ) -> None:
        import anthropic
        import httpx2

        self._calls = _retry.CallPolicy.from_config(
            {"max_retries": max_retries, "max_retry_wait": max_retry_wait,
             "max_concurrency": max_concurrency, "retry_clock": retry_clock,
             "stream_gap_timeout": stream_gap_timeout, "timeout": timeout}, "anthropic",
            default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(base_url or os.environ.get("ANTHROPIC_BASE_URL")
                             or "https://api.anthropic.com"))
        if not isinstance(default_max_tokens, int) or default_max_tokens < 1:
            raise ValueError(f"default_max_tokens must be an int >= 1, got {default_max_tokens!r}")
        if async_transport not in (None, "httpx", "aiohttp"):
            raise ValueError(f"async_transport must be 'httpx' or 'aiohttp', got "
                             f"{async_transport!r}")
        import inspect

        # Other options go to the SDK client constructor: check them now, so a typo is a
        # configuration error here rather than a confusing failure on the first call.
        accepted = set(inspect.signature(anthropic.Anthropic.__init__).parameters) - {"self"}
        unknown = sorted(set(client_options) - accepted)
        if unknown:
            from ..core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message(
                "anthropic", unknown, accepted | {"async_transport", "default_max_tokens",
                                                  "max_retry_wait", "max_concurrency",
                                                  "retry_clock", "stream_gap_timeout"}))
        self._api_key = clean_api_key(api_key or os.environ.get("ANTHROPIC_API_KEY") or None,
                                      "anthropic")
        self._default_max_tokens = default_max_tokens
        # Retries are ours (aisuite_like._retry), the same on every family: the SDK's are off.
        options: dict[str, Any] = {**client_options, "max_retries": 0}
        if self._api_key is not None:
            options["api_key"] = self._api_key
        if base_url is not None:
            options["base_url"] = base_url
        if timeout is not None:
            options["timeout"] = timeout
        if default_headers:
            options["default_headers"] = dict(default_headers)
        self._sync_options = dict(options)
        self._async_options = dict(options)
        if isinstance(http_client, httpx2.AsyncClient):
            if async_transport == "aiohttp":
                raise ValueError("pass either an async http_client or async_transport='aiohttp'")
            self._async_options["http_client"] = http_client
        elif http_client is not None:
            self._sync_options["http_client"] = http_client
        self._aiohttp = async_transport == "aiohttp"
        self._secrets = (self._api_key,)
        self._anthropic = anthropic
        # SDK failures we translate: the SDK's own errors (API, credentials), and transport
        # errors raised while a stream's body is read (the SDK wraps only those of sending).
        self._sdk_errors: tuple[type[BaseException], ...] = (anthropic.AnthropicError,
                                                             httpx2.HTTPError)
        # ... and, while sending, the SDK's own argument checks.
        self._send_errors: tuple[type[BaseException], ...] = (*self._sdk_errors, TypeError,
                                                              ValueError)
        self._httpx2 = httpx2
        self._sync: Any = None
        self._async: Any = None
        self._async_loop: Any = None  # the event loop _async was made on
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never the key
        return f"AnthropicProvider(base_url={self._sync_options.get('base_url')!r})"

    # -- clients ---------------------------------------------------------------------------

    def _sync_client(self) -> Any:
        if self._sync is None:
            with self._lock:
                if self._sync is None:
                    options = self._sync_options
                    if "http_client" not in options:  # the SDK's defaults, no redirect elsewhere
                        options = {**options, "http_client": self._anthropic.DefaultHttpxClient(
                            event_hooks=redirect_hooks(self._key(), is_async=False))}
                    client = self._anthropic.Anthropic(**options)
                    bound_sync_io(client._client)  # timeout bounds the whole attempt
                    self._sync = client
        return self._sync

    def _async_client(self) -> Any:
        if self._async is not None and self._async_loop is not None \
                and self._async_loop.is_closed() and "http_client" not in self._async_options:
            # A sync client's acreate called from a new event loop (asyncio.run again): the
            # old client's connections died with their loop; start a new one.
            self._async = None
        if self._async is None:
            with self._lock:
                if self._async is None:
                    options = self._async_options
                    if "http_client" not in options:  # the SDK's defaults, no redirect elsewhere
                        hooks = redirect_hooks(self._key(), is_async=True)
                        sdk = self._anthropic
                        options = {**options, "http_client": (
                            sdk.DefaultAioHttpClient(event_hooks=hooks) if self._aiohttp
                            else sdk.DefaultAsyncHttpxClient(event_hooks=hooks))}
                    self._async = self._anthropic.AsyncAnthropic(**options)
                    self._async_loop = asyncio._get_running_loop()  # None outside a loop
        return self._async

    def _endpoint_url(self) -> str:
        """The base URL the SDK client sends to (configured, ``ANTHROPIC_BASE_URL``, or the
        SDK's default)."""
        client = self._sync or self._async or self._sync_client()
        return str(client.base_url)

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        return build_request(request, sdk_params=_sdk_params(),
                             default_max_tokens=self._default_max_tokens, provider=self._key())

    def _key(self) -> str:
        return self.key or PROVIDER

    # -- errors ----------------------------------------------------------------------------

    def _error(self, exc: BaseException) -> AisuiteLikeError:
        """An SDK / transport / argument exception -> our typed error (raise it ``from exc``).
        ``exc`` becomes its ``__cause__``, so it is scrubbed of the key too (tracebacks print
        it)."""
        inner = raised_inside(exc)
        if inner is not None:
            return inner
        _scrub_exception(exc, self._secrets)
        return own_error_inside(exc) or self._map_error(exc)

    def _map_error(self, exc: BaseException) -> AisuiteLikeError:
        sdk = self._anthropic
        provider = self._key()
        too_deep = too_deep_for_sdk(exc, provider)
        if too_deep is not None:
            return too_deep
        if isinstance(exc, sdk.APIStatusError):
            body = exc.body if isinstance(exc.body, dict) else {}
            error = body.get("error")
            if not isinstance(error, dict):
                error = {}
            kind = error.get("type")
            detail = error.get("message") or exc.message
            message = f"{provider} error {exc.status_code}{f' ({kind})' if kind else ''}: {detail}"
            status = exc.status_code
            if kind == "overloaded_error" and status < 500:
                status = 529
            return _refine(_error_for_status(
                status, message, provider=provider,
                request_id=exc.request_id or body.get("request_id"),
                retry_after=_parse_retry_after(exc.response.headers), secrets=self._secrets,
                body=exc.body, response=exc.response))
        if isinstance(exc, (sdk.APITimeoutError, self._httpx2.TimeoutException)):
            host = host_of(exc)
            return APITimeoutError(
                _redact(f"{provider} request{f' to {host}' if host else ''} timed out: {exc}",
                        self._secrets), provider=provider)
        if isinstance(exc, (sdk.APIConnectionError, self._httpx2.HTTPError)):
            host = host_of(exc)
            cause = exc.__cause__ if isinstance(exc, sdk.APIConnectionError) else None
            detail = f"{exc}" + (f" ({type(cause).__name__}: {cause})" if cause else "")
            return APIConnectionError(
                _redact(f"{provider} connection error{f' at {host}' if host else ''}: {detail}",
                        self._secrets), provider=provider)
        if isinstance(exc, TypeError) and "authentication method" in str(exc):
            return AuthenticationError(
                f"no {provider} API key: pass provider_configs={{'{provider}': {{'api_key': "
                "...}}, or set ANTHROPIC_API_KEY", provider=provider)
        if isinstance(exc, sdk.CredentialsError):
            return AuthenticationError(
                _redact(f"{provider} credentials could not be loaded: {exc}. Pass "
                        f"provider_configs={{'{provider}': {{'api_key': ...}}}} or set "
                        "ANTHROPIC_API_KEY", self._secrets), provider=provider)
        if isinstance(exc, TypeError):
            # The SDK rejected a keyword argument (only named ones reach it as keywords).
            return UnsupportedParameterError(
                _redact(f"{provider} SDK rejected an argument: {exc}", self._secrets),
                parameter=_rejected_name(exc), provider=provider)
        if isinstance(exc, ValueError) and "Streaming is required" in str(exc):
            return UnsupportedParameterError(
                f"{provider}: max_tokens is too large for a non-streaming call (the SDK refuses "
                "requests that may take over 10 minutes); use stream=True, a smaller "
                "max_tokens, or an explicit timeout", parameter="max_tokens", provider=provider)
        return APIError(_redact(f"{provider} error: {exc}", self._secrets), provider=provider)

    # -- calls -----------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return _retry.call(self._calls, self._complete_once, self._kwargs(request),
                           self._calls.bounds(request.timeout))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return await _retry.acall(self._calls, self._acomplete_once, self._kwargs(request),
                                  self._calls.bounds(request.timeout))

    def _complete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        try:
            raw = self._sync_client().messages.with_raw_response.create(**kwargs)
            body = raw.http_response.read()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse(raw, body)

    async def _acomplete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        try:
            raw = await self._async_client().messages.with_raw_response.create(**kwargs)
            body = await raw.http_response.aread()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        return self._parse(raw, body)

    def _parse(self, raw: Any, body: bytes) -> ChatCompletionResponse:
        provider, status, request_id = self._key(), raw.http_response.status_code, raw.request_id
        data = decode_json(body, provider, status_code=status, request_id=request_id)
        return read_reply(lambda: parse_response(data, provider=provider), provider, status,
                          request_id)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        """Translate now (bad arguments raise at ``create``), send on first iteration."""
        request = request if request.stream else request.replace(stream=True)
        return _retry.stream(self._calls, self._stream, self._kwargs(request),
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        """Async twin of ``stream``: returns the async generator (no await needed)."""
        request = request if request.stream else request.replace(stream=True)
        return _retry.astream(self._calls, self._astream, self._kwargs(request),
                              self._calls.bounds(request.timeout))

    def _stream(self, kwargs: dict[str, Any]) -> Iterator[ChatCompletionChunk]:
        try:  # the request is sent here, on first iteration; status errors surface now
            resp = self._sync_client().messages.with_streaming_response.create(
                **kwargs).__enter__()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        body = StreamBody(self._key(), resp.request_id, self._secrets)
        try:
            for data in resp.iter_bytes():
                yield from body.feed(data)
            yield from body.end()
            body.finish()
        except self._sdk_errors as exc:  # the connection broke while reading the body
            raise self._error(exc) from exc
        finally:  # also on an early break (GeneratorExit): release the connection
            resp.close()

    async def _astream(self, kwargs: dict[str, Any]) -> AsyncIterator[ChatCompletionChunk]:
        try:
            resp = await self._async_client().messages.with_streaming_response.create(
                **kwargs).__aenter__()
        except self._send_errors as exc:
            raise self._error(exc) from exc
        body = StreamBody(self._key(), resp.request_id, self._secrets)
        try:
            async for data in resp.iter_bytes():
                for chunk in body.feed(data):
                    yield chunk
            for chunk in body.end():
                yield chunk
            body.finish()
        except self._sdk_errors as exc:
            raise self._error(exc) from exc
        finally:
            await resp.close()

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
            self._sync = None

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.close()
            self._async = None


def _rejected_name(exc: TypeError) -> Optional[str]:
    text = str(exc)
    marker = "keyword argument '"
    start = text.find(marker)
    if start < 0:
        return None
    start += len(marker)
    end = text.find("'", start)
    return text[start:end] if end > start else None
