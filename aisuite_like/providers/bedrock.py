"""Amazon Bedrock Converse / ConverseStream provider: a pure translator and a thin transport.

Translator (no I/O, importable without ``botocore``): :func:`build_request` (``ChatRequest`` ->
``converse`` keyword arguments), :func:`parse_response` (the Converse response dict ->
``ChatCompletionResponse``), :class:`StreamState` (ConverseStream event dicts ->
``ChatCompletionChunk``), :func:`error_from_client_error` (a botocore ``ClientError``, also the
exception events of a stream -> our error tree).

Transport: :class:`BedrockProvider`, registered as ``"bedrock"`` (alias ``"aws"``). botocore
does the signing (SigV4), the JSON and the binary event stream; we run our translator over the
dicts it returns. botocore is sync-only: async calls run the sync transport on a bounded thread
pool of the provider's own (see docs/providers/bedrock.md for the measured cost).

Decisions (what raises, ``tool_choice="none"``, timeouts) are documented in
docs/providers/bedrock.md.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextvars
import dataclasses
import json
import os
import struct
import threading
import time
import zlib
from collections.abc import AsyncIterator, Generator, Iterable, Iterator
from typing import Any, Optional

from ..core.checks import tool_call_id_of
from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    AuthenticationError,
    ConfigurationError,
    ContextWindowExceededError,
    UnsupportedParameterError,
    _error_for_status,
    _parse_retry_after,
    _redact,
    _scrub_exception,
)
from ..core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Choice,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    Usage,
    _built,
)
from . import _bedrock_wire, retry as _retry
from ._common import (
    JSONTooDeepError,
    argument_fragment,
    arguments_json,
    bound_botocore_io,
    host_of_url,
    json_schema_format,
    loads_arguments,
    loads_json,
    parse_data_url,
    redirect_error,
    stop_sequences,
    text_of,
    too_deep_for_sdk,
    unsupported,
)
from .base import ChatRequest, Provider

__all__ = [
    "BedrockProvider",
    "REASONING_BLOCKS_KEY",
    "DEFAULT_TIMEOUT",
    "build_request",
    "parse_response",
    "StreamState",
    "EventStreamDecoder",
    "error_from_client_error",
]

PROVIDER = "bedrock"

#: ``Message.provider_specific_fields`` key holding the reply's ``reasoningContent`` blocks
#: as Converse sent them (``{"reasoningText": {"text", "signature"}}``, or
#: ``{"redactedContent": <base64 text>}``), to be sent back unchanged on the next turn.
REASONING_BLOCKS_KEY = "reasoning_blocks"

#: Seconds a call may wait for the server (botocore's read timeout; its own default, 60 s, cuts
#: long generations). ``timeout`` in the config or per call overrides it.
DEFAULT_TIMEOUT = 600.0

#: Worker threads of the async bridge (and botocore connections) when ``max_concurrency`` is
#: not configured.
DEFAULT_ASYNC_WORKERS = 32

# Top-level Converse request fields a caller may pass as provider-native arguments. Any other
# native argument goes into ``additionalModelRequestFields`` (the model's own parameters, e.g.
# ``top_k`` or Claude's ``thinking``).
_CONVERSE_FIELDS = frozenset({
    "system", "inferenceConfig", "toolConfig", "guardrailConfig", "additionalModelRequestFields",
    "promptVariables", "additionalModelResponseFieldPaths", "requestMetadata",
    "performanceConfig", "serviceTier", "outputConfig",
})
# Those whose dict value is merged key by key with what portable arguments produced.
_MERGEABLE = frozenset({"inferenceConfig", "additionalModelRequestFields", "requestMetadata",
                        "outputConfig"})

_IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg",
                  "image/gif": "gif", "image/webp": "webp"}
_DOCUMENT_FORMATS = {
    "application/pdf": "pdf", "text/csv": "csv", "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html", "text/plain": "txt", "text/markdown": "md",
}
# Keys of a Converse-native content block: such a block is passed through untouched.
_PRELUDE = struct.Struct(">II")
_UINT32 = struct.Struct(">I")
_UINT16 = struct.Struct(">H")
_NATIVE_BLOCK_KEYS = frozenset({"text", "image", "document", "video", "audio", "toolUse",
                                "toolResult", "guardContent", "cachePoint", "reasoningContent",
                                "citationsContent", "searchResult"})


# =============================================================================================
# Request translation
# =============================================================================================


def build_request(request: ChatRequest, *, provider: str = PROVIDER) -> dict[str, Any]:
    """``ChatRequest`` -> keyword arguments of ``client.converse`` / ``converse_stream``.

    Never mutates ``request`` or the caller's messages: new dicts and lists are built, and the
    caller's leaf values (schemas, native blocks) are only referenced.
    """
    if request.seed is not None:
        raise unsupported(provider, "seed", "the Converse API has no sampling seed")
    if request.n is not None and request.n != 1:
        raise unsupported(provider, "n", "the Converse API returns exactly one choice")
    if request.parallel_tool_calls is False:
        raise unsupported(provider, "parallel_tool_calls",
                          "the Converse API has no switch to forbid parallel tool calls")
    if request.stream_options:
        unknown = set(request.stream_options) - {"include_usage"}
        if unknown:
            raise unsupported(provider, f"stream_options.{sorted(unknown)[0]}")
        # include_usage: ConverseStream always reports usage; it arrives on the last chunk.

    tools = translate_tools(request.tools) if request.tools else None
    tool_choice = translate_tool_choice(request.tool_choice, has_tools=bool(tools),
                                        provider=provider)
    if request.tool_choice == "none":
        tools = None  # Converse has no "none": a request without tools cannot call one
    # Without a toolConfig Converse rejects toolUse / toolResult blocks: describe them in text.
    as_text = not tools and "toolConfig" not in request.extra
    system, messages = translate_messages(request.messages, tools_as_text=as_text,
                                          provider=provider)
    kwargs: dict[str, Any] = {"modelId": request.model, "messages": messages}
    if system:
        kwargs["system"] = system
    if tools:
        tool_config: dict[str, Any] = {"tools": tools}
        if tool_choice is not None:
            tool_config["toolChoice"] = tool_choice
        kwargs["toolConfig"] = tool_config

    inference: dict[str, Any] = {}
    if request.max_tokens is not None:
        inference["maxTokens"] = request.max_tokens
    if request.temperature is not None:
        inference["temperature"] = request.temperature
    if request.top_p is not None:
        inference["topP"] = request.top_p
    if request.stop is not None:
        stop = stop_sequences(provider, request.stop)
        if stop:
            inference["stopSequences"] = stop
    if inference:
        kwargs["inferenceConfig"] = inference
    if request.user is not None:
        kwargs["requestMetadata"] = {"user": request.user}
    output_config = translate_response_format(request.response_format, provider=provider)
    if output_config is not None:
        kwargs["outputConfig"] = output_config
    if request.extra:
        _merge_native(kwargs, request.extra, provider=provider)
    return kwargs


def _merge_native(kwargs: dict[str, Any], extra: dict[str, Any], *, provider: str) -> None:
    """Provider-native arguments: a top-level Converse field where one exists, else a field of
    ``additionalModelRequestFields``. A clash with a portable argument is an error."""
    model_fields: dict[str, Any] = {}
    for name, value in extra.items():
        if name in ("modelId", "messages", "model", "stream"):
            raise UnsupportedParameterError(
                f"{name!r} cannot be passed as a provider-native argument; use the create() "
                "argument (model=, messages=, stream=)", parameter=name, provider=provider)
        if name not in _CONVERSE_FIELDS:
            model_fields[name] = value
            continue
        _merge_field(kwargs, name, value, provider=provider)
    if model_fields:
        _merge_field(kwargs, "additionalModelRequestFields", model_fields, provider=provider)


def _merge_field(kwargs: dict[str, Any], name: str, value: Any, *, provider: str) -> None:
    if name not in kwargs:
        kwargs[name] = value
        return
    if name in _MERGEABLE and isinstance(value, dict):
        clash = set(value) & set(kwargs[name])
        if not clash:
            kwargs[name] = {**kwargs[name], **value}
            return
        where = f"{name}.{sorted(clash)[0]}"
    else:
        where = name
    raise UnsupportedParameterError(
        f"{where} is given twice: by a portable argument (system messages, tools, max_tokens, "
        f"temperature, top_p, stop, user, response_format) and by the native {name!r}; pass "
        "it once", parameter=name, provider=provider)


def translate_messages(
    messages: Iterable[dict[str, Any]], *, tools_as_text: bool = False,
    provider: str = PROVIDER,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """OpenAI messages -> ``(system, messages)`` of Converse.

    System and developer messages (any position) become the ``system`` blocks, in order.
    ``tool`` messages become ``toolResult`` blocks of a user turn; consecutive turns of the
    same role are merged (so parallel tool results share one user message, followed by any
    user text). With ``tools_as_text`` (a request that sends no tools: Converse rejects
    ``toolUse`` / ``toolResult`` blocks without a ``toolConfig``) tool calls and results are
    sent as text blocks that describe them.
    """
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role in ("system", "developer"):
            system.extend(_content_blocks(msg.get("content"), provider=provider, where=i,
                                          system=True))
            continue
        if role == "user":
            blocks = _content_blocks(msg.get("content"), provider=provider, where=i)
            api_role = "user"
        elif role == "assistant":
            blocks = _assistant_blocks(msg, tools_as_text=tools_as_text, provider=provider,
                                       where=i)
            api_role = "assistant"
        elif role == "tool":
            blocks = [_tool_result_block(msg, as_text=tools_as_text, provider=provider,
                                         where=i)]
            api_role = "user"
        else:
            raise UnsupportedParameterError(
                f"messages[{i}] has role {role!r}; {provider} accepts system, developer, user, "
                "assistant and tool messages", parameter="messages", provider=provider)
        if not blocks:
            raise UnsupportedParameterError(
                f"messages[{i}] ({role}) has no content; Converse rejects empty messages. Give "
                "it text (or tool calls), or leave it out", parameter="messages",
                provider=provider)
        if turns and turns[-1]["role"] == api_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": api_role, "content": blocks})
    return system, turns


def _content_blocks(content: Any, *, provider: str, where: int,
                    system: bool = False) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"text": content}] if content else []
    if not isinstance(content, list):
        raise UnsupportedParameterError(
            f"messages[{where}].content must be a string or a list of content parts, got "
            f"{type(content).__name__}", parameter="messages", provider=provider)
    blocks = []
    for part in content:
        block = _part_to_block(part, provider=provider, where=where, system=system)
        if block is not None:
            blocks.append(block)
            if isinstance(part, dict) and part.get("cache_control"):
                # Anthropic-style cache hint on a part: Converse marks the cache boundary with
                # a cachePoint block right after it.
                blocks.append({"cachePoint": {"type": "default"}})
    return blocks


def _part_to_block(part: Any, *, provider: str, where: int,
                   system: bool) -> Optional[dict[str, Any]]:
    if isinstance(part, str):
        return {"text": part} if part else None
    if not isinstance(part, dict):
        raise UnsupportedParameterError(
            f"messages[{where}] has a content part of type {type(part).__name__}; expected a "
            "dict such as {'type': 'text', 'text': ...}", parameter="messages", provider=provider)
    kind = part.get("type")
    if kind == "text":
        text = part.get("text", "")
        return {"text": text} if text else None
    if kind is None and len(part) == 1 and next(iter(part)) in _NATIVE_BLOCK_KEYS:
        return part  # a Converse-native block ({"cachePoint": ...}, {"document": ...}): untouched
    if system:
        raise UnsupportedParameterError(
            f"messages[{where}] is a system message with a {kind!r} part; Converse system "
            "prompts take text (or native cachePoint / guardContent blocks)",
            parameter="messages", provider=provider)
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str) or not url:
            raise UnsupportedParameterError(
                f"messages[{where}] has an image_url part without a url",
                parameter="messages", provider=provider)
        return _image_block(url, provider=provider, where=where)
    if kind == "file":
        return _file_block(part.get("file") or {}, provider=provider, where=where)
    raise UnsupportedParameterError(
        f"messages[{where}] has a content part of type {kind!r}, which {provider} does not "
        "accept; use text, image_url, file, or a Converse-native block such as "
        "{'cachePoint': {'type': 'default'}}", parameter="messages", provider=provider)


def _decoded(data: str, *, provider: str, where: int) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise UnsupportedParameterError(
            f"messages[{where}] has a data URL whose data is not valid base64",
            parameter="messages", provider=provider) from None


def _image_block(url: str, *, provider: str, where: int) -> dict[str, Any]:
    if url.startswith("s3://"):
        fmt = _IMAGE_FORMATS.get("image/" + url.rsplit(".", 1)[-1].lower())
        if fmt is None:
            raise UnsupportedParameterError(
                f"messages[{where}]: cannot tell the image format of {url!r} from its name; "
                "Converse takes png, jpeg, gif and webp", parameter="messages",
                provider=provider)
        return {"image": {"format": fmt, "source": {"s3Location": {"uri": url}}}}
    parsed = parse_data_url(url)
    if parsed is None:
        raise UnsupportedParameterError(
            f"messages[{where}] has an image URL; Converse takes image bytes or an s3:// URI, "
            "not a web address. Download the image and pass it as a data URL "
            "('data:image/png;base64,...')", parameter="messages", provider=provider)
    mime, data = parsed
    fmt = _IMAGE_FORMATS.get(mime.lower())
    if fmt is None:
        raise UnsupportedParameterError(
            f"messages[{where}] has an image of type {mime!r}; Converse takes image/png, "
            "image/jpeg, image/gif and image/webp", parameter="messages", provider=provider)
    return {"image": {"format": fmt,
                      "source": {"bytes": _decoded(data, provider=provider, where=where)}}}


def _file_block(file: dict[str, Any], *, provider: str, where: int) -> dict[str, Any]:
    parsed = parse_data_url(file["file_data"]) if file.get("file_data") else None
    if parsed is None:
        raise UnsupportedParameterError(
            f"messages[{where}]: a file part needs file.file_data as a base64 data URL "
            "('data:application/pdf;base64,...'); Converse has no file ids",
            parameter="messages", provider=provider)
    mime, data = parsed
    if mime.lower() in _IMAGE_FORMATS:
        return _image_block(file["file_data"], provider=provider, where=where)
    fmt = _DOCUMENT_FORMATS.get(mime.lower())
    if fmt is None:
        raise UnsupportedParameterError(
            f"messages[{where}] has a file of type {mime!r}; Converse documents are "
            f"{', '.join(sorted(set(_DOCUMENT_FORMATS.values())))}", parameter="messages",
            provider=provider)
    # Converse document names allow letters, digits, spaces, hyphens, brackets and parentheses.
    name = "".join(c if c.isalnum() or c in " -()[]" else "-"
                   for c in str(file.get("filename") or f"document-{where}").rsplit(".", 1)[0])
    return {"document": {"format": fmt, "name": name.strip() or f"document-{where}",
                         "source": {"bytes": _decoded(data, provider=provider, where=where)}}}


def _reasoning_blocks_for_request(blocks: Iterable[Any]) -> list[dict[str, Any]]:
    """Stored reasoning blocks -> request blocks (redacted content back to bytes)."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        redacted = block.get("redactedContent")
        if isinstance(redacted, str):
            out.append({"reasoningContent": {"redactedContent": base64.b64decode(redacted)}})
        elif "reasoningText" in block:
            out.append({"reasoningContent": {"reasoningText": dict(block["reasoningText"])}})
    return out


def _assistant_blocks(msg: dict[str, Any], *, tools_as_text: bool, provider: str,
                      where: int) -> list[dict[str, Any]]:
    """Reasoning blocks (exactly as received), then text, then one ``toolUse`` per call."""
    blocks: list[dict[str, Any]] = []
    psf = msg.get("provider_specific_fields")
    if psf and psf.get(REASONING_BLOCKS_KEY):
        blocks.extend(_reasoning_blocks_for_request(psf[REASONING_BLOCKS_KEY]))
    blocks.extend(_content_blocks(msg.get("content"), provider=provider, where=where))
    for call in msg.get("tool_calls") or ():
        function = call.get("function") or {}
        name = function.get("name")
        call_id = call.get("id")
        if not name or not call_id:
            raise UnsupportedParameterError(
                f"messages[{where}] has a tool call without an id or function.name",
                parameter="messages", provider=provider)
        if tools_as_text:
            blocks.append({"text": f"[tool call {call_id}: {name}("
                                   f"{function.get('arguments') or '{}'})]"})
        else:
            blocks.append({"toolUse": {"toolUseId": call_id, "name": name,
                                       "input": loads_arguments(function.get("arguments"))}})
    return blocks


def _tool_result_block(msg: dict[str, Any], *, as_text: bool, provider: str,
                       where: int) -> dict[str, Any]:
    call_id = tool_call_id_of(msg, where, provider)
    content = msg.get("content")
    if as_text:
        return {"text": f"[tool result {call_id}: {text_of(content)}]"}
    if content is None or isinstance(content, str):
        # Converse rejects an empty text block: an empty result is sent as one space.
        result: list[dict[str, Any]] = [{"text": content or " "}]
    else:
        result = _content_blocks(content, provider=provider, where=where) or [{"text": " "}]
    block: dict[str, Any] = {"toolUseId": call_id, "content": result}
    if msg.get("is_error"):  # not OpenAI, but accepted when the caller marks it
        block["status"] = "error"
    return {"toolResult": block}


def translate_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function tools -> Converse ``toolSpec`` tools; other (native) tools untouched."""
    out = []
    for tool in tools:
        function = tool.get("function") if tool.get("type") == "function" else None
        if function is None:
            out.append(tool)
            continue
        spec: dict[str, Any] = {
            "name": function["name"],
            "inputSchema": {"json": function.get("parameters")
                            or {"type": "object", "properties": {}}},
        }
        if function.get("description"):
            spec["description"] = function["description"]
        if function.get("strict") is not None:
            spec["strict"] = function["strict"]
        out.append({"toolSpec": spec})
    return out


def translate_tool_choice(tool_choice: Any, *, has_tools: bool,
                          provider: str = PROVIDER) -> Optional[dict[str, Any]]:
    """OpenAI ``tool_choice`` -> Converse ``toolChoice`` (None: not sent). ``"none"`` has no
    Converse form: :func:`build_request` sends no tools instead."""
    choice: Optional[dict[str, Any]]
    if tool_choice is None or tool_choice == "none":
        return None
    if tool_choice == "auto":
        choice = {"auto": {}}
    elif tool_choice == "required":
        choice = {"any": {}}
    elif isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        name = (tool_choice.get("function") or {}).get("name")
        if not name:
            raise UnsupportedParameterError(
                "tool_choice {'type': 'function'} needs function.name",
                parameter="tool_choice", provider=provider)
        choice = {"tool": {"name": name}}
    elif isinstance(tool_choice, dict) and len(tool_choice) == 1 and \
            next(iter(tool_choice)) in ("auto", "any", "tool"):
        choice = dict(tool_choice)  # already Converse-native
    else:
        raise UnsupportedParameterError(
            f"tool_choice must be 'auto', 'none', 'required' or "
            f"{{'type': 'function', 'function': {{'name': ...}}}}, got {tool_choice!r}",
            parameter="tool_choice", provider=provider)
    if not has_tools:
        if "auto" in choice:
            return None  # what a request without tools does anyway
        raise UnsupportedParameterError(
            f"tool_choice={tool_choice!r} forces a tool call but no tools were given",
            parameter="tool_choice", provider=provider)
    return choice


def translate_response_format(response_format: Any, *,
                              provider: str = PROVIDER) -> Optional[dict[str, Any]]:
    """OpenAI ``response_format`` -> ``outputConfig.textFormat`` (native structured output)."""
    spec = json_schema_format(response_format, provider, "Converse")
    if spec is None:
        return None
    definition: dict[str, Any] = {"schema": json.dumps(spec["schema"])}
    if spec.get("name"):
        definition["name"] = spec["name"]
    if spec.get("description"):
        definition["description"] = spec["description"]
    return {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": definition}}}


# =============================================================================================
# Response translation
# =============================================================================================

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}


def finish_reason_for(stop_reason: Optional[str], has_tool_calls: bool) -> Optional[str]:
    """Normalised finish reason: a reply with tool calls says tool_calls unless cut by length.
    Reasons without a portable meaning (``malformed_model_output``, ...) say ``stop``; the
    native value stays in ``native_finish_reason``."""
    reason = _FINISH_REASONS.get(stop_reason, "stop") if stop_reason is not None else None
    if has_tool_calls and reason != "length":
        return "tool_calls"
    return reason


def usage_from(raw: Optional[dict[str, Any]]) -> Optional[Usage]:
    """Converse usage -> OpenAI meaning: prompt tokens include cache reads and writes."""
    if not raw:
        return None
    input_tokens = raw.get("inputTokens") or 0
    cache_read = raw.get("cacheReadInputTokens")
    cache_write = raw.get("cacheWriteInputTokens")
    output_tokens = raw.get("outputTokens") or 0
    prompt = input_tokens + (cache_read or 0) + (cache_write or 0)
    details = None
    if cache_read is not None or cache_write is not None:
        details = _built(PromptTokensDetails, {"cached_tokens": cache_read or 0,
                                               "cache_creation_tokens": cache_write or 0})
    usage: Usage = _built(Usage, {
        "prompt_tokens": prompt, "completion_tokens": output_tokens,
        "total_tokens": prompt + output_tokens, "prompt_tokens_details": details,
        "completion_tokens_details": None})
    return usage


def _stored_reasoning(block: dict[str, Any]) -> Optional[dict[str, Any]]:
    """A response ``reasoningContent`` value -> the JSON-safe form kept in the message."""
    text = block.get("reasoningText")
    if isinstance(text, dict):
        kept = {"text": text.get("text", "")}
        if text.get("signature"):
            kept["signature"] = text["signature"]
        return {"reasoningText": kept}
    redacted = block.get("redactedContent")
    if isinstance(redacted, (bytes, bytearray)):  # botocore decoded the blob
        return {"redactedContent": base64.b64encode(redacted).decode("ascii")}
    if isinstance(redacted, str):  # the wire's own base64 text
        return {"redactedContent": redacted}
    return None


def _response_error(what: str, provider: str, request_id: Optional[str]) -> APIError:
    return APIError(f"{provider} returned a Converse response that is not the expected shape: "
                    f"{what}", provider=provider, status_code=200, request_id=request_id)


def parse_response(data: dict[str, Any], *, model: str = "", provider: str = PROVIDER,
                   created: Optional[int] = None) -> ChatCompletionResponse:
    """The Converse response dict (as botocore parses it) -> ``ChatCompletionResponse``."""
    metadata = data.get("ResponseMetadata") or {}
    request_id = metadata.get("RequestId")
    output = data.get("output")
    message_data = output.get("message") if isinstance(output, dict) else None
    if not isinstance(message_data, dict) or not isinstance(message_data.get("content"), list):
        raise _response_error("no output.message.content", provider, request_id)
    texts: list[str] = []
    reasoning: list[str] = []
    reasoning_blocks: list[dict[str, Any]] = []
    tool_calls: list[ToolCall] = []
    for block in message_data["content"]:
        if not isinstance(block, dict):
            raise _response_error("a content block is not an object", provider, request_id)
        if "text" in block:
            texts.append(block["text"])
        elif "toolUse" in block:
            use = block["toolUse"]
            if not isinstance(use, dict) or not use.get("name") or not use.get("toolUseId"):
                raise _response_error("a toolUse block without name or toolUseId", provider,
                                      request_id)
            tool_calls.append(_built(ToolCall, {
                "id": use["toolUseId"], "type": "function",
                "function": _built(Function, {"name": use["name"],
                                              "arguments": arguments_json(use.get("input"))})}))
        elif "reasoningContent" in block:
            stored = _stored_reasoning(block["reasoningContent"] or {})
            if stored is not None:
                reasoning_blocks.append(stored)
                if "reasoningText" in stored and stored["reasoningText"]["text"]:
                    reasoning.append(stored["reasoningText"]["text"])
        # Other blocks (citationsContent, image, ...) stay in ``response.raw``.
    # Built with every field given (types._built): no per-field default lookups per call.
    message = _built(Message, {
        "role": "assistant", "content": "".join(texts) or None,
        "tool_calls": tool_calls or None, "tool_call_id": None, "name": None,
        "reasoning_content": "".join(reasoning) or None, "refusal": None,
        "provider_specific_fields": {REASONING_BLOCKS_KEY: reasoning_blocks}
        if reasoning_blocks else None, "annotations": None, "audio": None})
    stop_reason = data.get("stopReason")
    choice = _built(Choice, {
        "index": 0, "message": message,
        "finish_reason": finish_reason_for(stop_reason, bool(tool_calls)),
        "native_finish_reason": stop_reason, "intermediate_messages": [], "logprobs": None})
    response: ChatCompletionResponse = _built(ChatCompletionResponse, {
        "id": request_id or "", "object": "chat.completion",
        "created": int(time.time()) if created is None else created, "model": model,
        "provider": provider, "choices": [choice], "usage": usage_from(data.get("usage")),
        "intermediate_responses": [], "messages": None, "stop_reason": None,
        "tool_events": [], "fallback_errors": [], "raw": data, "system_fingerprint": None,
        "service_tier": None})
    return response


# =============================================================================================
# Stream translation
# =============================================================================================


def _delta(*, role: Optional[str] = None, content: Optional[str] = None,
           tool_calls: Optional[list[Any]] = None, reasoning_content: Optional[str] = None,
           provider_specific_fields: Optional[dict[str, Any]] = None) -> ChoiceDelta:
    delta: ChoiceDelta = _built(ChoiceDelta, {  # every field: this runs per chunk
        "role": role, "content": content, "tool_calls": tool_calls,
        "reasoning_content": reasoning_content, "refusal": None,
        "provider_specific_fields": provider_specific_fields})
    return delta


class StreamState:
    """Folds ConverseStream event dicts (as botocore yields them) into OpenAI-shaped chunks.

    ``process(event)`` returns the chunk the event produces, or None. Tool calls are indexed
    0..n in order of appearance (``contentBlockStart`` carries id and name, ``toolUse`` deltas
    the argument pieces). A reasoning block's complete form (with its signature) is delivered
    on its ``contentBlockStop`` via ``delta.provider_specific_fields``, so the accumulated
    message equals the non-streamed one. ``messageStop`` is held back and delivered with the
    ``metadata`` usage as the last chunk; :meth:`finish` delivers it when no metadata came,
    and raises when the stream ended before ``messageStop``.
    """

    __slots__ = ("provider", "request_id", "id", "model", "created", "_blocks",
                 "_tool_count", "_stop_reason", "_done")

    def __init__(self, *, model: str = "", provider: str = PROVIDER,
                 request_id: Optional[str] = None, created: Optional[int] = None) -> None:
        self.provider = provider
        self.request_id = request_id
        self.id = request_id or ""
        self.model = model
        self.created = int(time.time()) if created is None else created
        # content block index -> [kind, tool index | reasoning text parts, signature, redacted]
        self._blocks: dict[int, list[Any]] = {}
        self._tool_count = 0
        self._stop_reason: Optional[str] = None
        self._done = False

    def _chunk(self, delta: Optional[ChoiceDelta], finish_reason: Optional[str] = None,
               native: Optional[str] = None,
               usage: Optional[Usage] = None) -> ChatCompletionChunk:
        chunk: ChatCompletionChunk = _built(ChatCompletionChunk, {
            "id": self.id, "object": "chat.completion.chunk", "created": self.created,
            "model": self.model, "provider": self.provider,
            "choices": [_built(ChunkChoice, {"index": 0, "delta": delta or _delta(),
                                             "finish_reason": finish_reason,
                                             "native_finish_reason": native})],
            "usage": usage, "turn": None})
        return chunk

    def process(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        body = event.get("contentBlockDelta")
        if body is not None:
            return self._block_delta(body)
        body = event.get("contentBlockStart")
        if body is not None:
            return self._block_start(body)
        body = event.get("contentBlockStop")
        if body is not None:
            return self._block_stop(body)
        if "messageStart" in event:
            return self._chunk(_delta(role="assistant"))
        body = event.get("messageStop")
        if body is not None:
            self._stop_reason = body.get("stopReason")
            self._done = True
            return None
        body = event.get("metadata")
        if body is not None:
            return self._final(usage_from(body.get("usage")))
        return None  # event types added after this was written

    def _final(self, usage: Optional[Usage]) -> ChatCompletionChunk:
        reason = finish_reason_for(self._stop_reason, self._tool_count > 0)
        chunk = self._chunk(None, reason, self._stop_reason, usage)
        self._stop_reason = None
        return chunk

    def _block_start(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        use = (body.get("start") or {}).get("toolUse")
        if use is None:
            return None
        tool_index = self._tool_count
        self._tool_count += 1
        self._blocks[body.get("contentBlockIndex", 0)] = ["tool", tool_index, None, None]
        return self._chunk(_delta(tool_calls=[_built(ChoiceDeltaToolCall, {
            "index": tool_index, "id": use.get("toolUseId"), "type": "function",
            "function": _built(ChoiceDeltaFunction, {"name": use.get("name"),
                                                     "arguments": ""})})]))

    def _block_delta(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        delta = body.get("delta") or {}
        text = delta.get("text")
        if text is not None:
            return self._chunk(_delta(content=text)) if text else None
        index = body.get("contentBlockIndex", 0)
        use = delta.get("toolUse")
        if use is not None:
            state = self._blocks.get(index)
            fragment = argument_fragment(use.get("input"))
            if not fragment or state is None or state[0] != "tool":
                return None
            return self._chunk(_delta(tool_calls=[_built(ChoiceDeltaToolCall, {
                "index": state[1], "id": None, "type": None,
                "function": _built(ChoiceDeltaFunction, {"name": None,
                                                         "arguments": fragment})})]))
        reasoning = delta.get("reasoningContent")
        if reasoning is not None:
            state = self._blocks.get(index)
            if state is None:
                state = self._blocks[index] = ["reasoning", [], "", None]
            if reasoning.get("text"):
                state[1].append(reasoning["text"])
                return self._chunk(_delta(reasoning_content=reasoning["text"]))
            if reasoning.get("signature"):
                state[2] += reasoning["signature"]
            if reasoning.get("redactedContent") is not None:
                state[3] = reasoning["redactedContent"]
        return None  # citations and future delta types carry no text of their own

    def _block_stop(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        state = self._blocks.get(body.get("contentBlockIndex", 0))
        if state is None or state[0] != "reasoning":
            return None
        if state[3] is not None:
            stored = _stored_reasoning({"redactedContent": state[3]})
        else:
            stored = _stored_reasoning({"reasoningText": {"text": "".join(state[1]),
                                                          "signature": state[2]}})
        return self._chunk(_delta(provider_specific_fields={REASONING_BLOCKS_KEY: [stored]}))

    def finish(self) -> Optional[ChatCompletionChunk]:
        """Call at the end of the stream: the held-back finish chunk when no metadata event
        came; a stream cut before ``messageStop`` is an error."""
        if not self._done:
            raise APIConnectionError(
                f"the {self.provider} stream ended before messageStop (connection dropped?)",
                provider=self.provider, request_id=self.request_id)
        if self._stop_reason is not None:
            return self._final(None)
        return None


# Fixed sizes of the non-string header value types of the event-stream format (0/1: booleans
# with no value bytes; 6 and 7, byte arrays and strings, carry a 2-byte length).
_HEADER_VALUE_SIZES = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_MAX_MESSAGE = 24 * 1024 * 1024  # the format's own bound (16 MiB payload + headers)


class EventStreamDecoder:
    """ConverseStream's binary ``application/vnd.amazon.eventstream`` body -> the event dicts
    botocore would give (``{"contentBlockDelta": {...}}``), sans-IO: ``feed(bytes)`` returns the
    events of every message completed by those bytes. Each message is a prelude (total
    length, headers length, CRC32), typed headers, a JSON payload and a CRC32 of the whole.
    An ``exception`` / ``error`` message raises the mapped error. Parsing the frames here
    (rather than through botocore's shape-driven parser) halves the cost per streamed chunk.
    """

    __slots__ = ("provider", "request_id", "secrets", "_buffer")

    def __init__(self, *, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.request_id = request_id
        self.secrets = tuple(secrets)
        self._buffer = b""

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message still buffered."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        buffer = self._buffer + data if self._buffer else data
        events: list[dict[str, Any]] = []
        offset = 0
        size = len(buffer)
        while size - offset >= 12:
            total, headers_length = _PRELUDE.unpack_from(buffer, offset)
            if total > _MAX_MESSAGE or headers_length > total - 16 or \
                    zlib.crc32(buffer[offset:offset + 8]) != _UINT32.unpack_from(
                        buffer, offset + 8)[0]:
                raise self._corrupt("a message prelude failed its checks")
            if size - offset < total:
                break
            end = offset + total
            if zlib.crc32(buffer[offset:end - 4]) != _UINT32.unpack_from(buffer, end - 4)[0]:
                raise self._corrupt("a message failed its CRC check")
            headers = self._headers(buffer, offset + 12, offset + 12 + headers_length)
            payload = buffer[offset + 12 + headers_length:end - 4]
            offset = end
            kind = headers.get(":message-type", "event")
            if kind == "event":
                event_type = headers.get(":event-type")
                if event_type:
                    try:
                        events.append({event_type: loads_json(payload) if payload else {}})
                    except UnicodeDecodeError as exc:  # a ValueError too: said first
                        raise self._corrupt(
                            f"the {event_type} event is not valid UTF-8 (byte "
                            f"0x{payload[exc.start]:02x} at offset {exc.start})") from None
                    except JSONTooDeepError as exc:
                        raise self._corrupt(f"the {event_type} event is JSON {exc.msg}") from None
                    except ValueError:
                        raise self._corrupt(f"the {event_type} event is not JSON") from None
                continue
            raise self._error(kind, headers, payload)
        self._buffer = buffer[offset:]
        return events

    def _headers(self, buffer: bytes, start: int, end: int) -> dict[str, str]:
        headers: dict[str, str] = {}
        i = start
        try:
            while i < end:
                name_length = buffer[i]
                name = buffer[i + 1:i + 1 + name_length].decode()
                i += 1 + name_length
                kind = buffer[i]
                i += 1
                if kind in (6, 7):
                    (length,) = _UINT16.unpack_from(buffer, i)
                    if kind == 7:
                        headers[name] = buffer[i + 2:i + 2 + length].decode()
                    i += 2 + length
                else:
                    i += _HEADER_VALUE_SIZES[kind]
        except (IndexError, KeyError, UnicodeDecodeError, struct.error):
            raise self._corrupt("a message has malformed headers") from None
        return headers

    def _error(self, kind: str, headers: dict[str, str], payload: bytes) -> APIError:
        if kind == "exception":
            code = headers.get(":exception-type", "")
            try:
                body = loads_json(payload) if payload else {}
            except ValueError:
                body = {}
            message = body.get("message") or body.get("Message") if isinstance(body, dict) \
                else None
        else:  # "error"
            code, message = headers.get(":error-code", ""), headers.get(":error-message")
        error = error_from_client_error(
            {"Error": {"Code": code, "Message": message or payload[:200].decode(errors="replace")},
             "ResponseMetadata": {"RequestId": self.request_id}},
            provider=self.provider, secrets=self.secrets)
        return error

    def _corrupt(self, what: str) -> APIError:
        return APIResponseValidationError(
            f"a malformed ConverseStream body: {what}", provider=self.provider,
            status_code=200, request_id=self.request_id)


# =============================================================================================
# Errors
# =============================================================================================

# AWS error code (lower-cased: stream exception events spell them camelCase) -> HTTP status.
_CODE_STATUS = {
    "throttlingexception": 429,
    "toomanyrequestsexception": 429,
    "validationexception": 400,
    "serializationexception": 400,
    "accessdeniedexception": 403,
    "unrecognizedclientexception": 401,
    "invalidsignatureexception": 401,
    "expiredtokenexception": 401,
    "incompletesignature": 401,
    "missingauthenticationtokenexception": 401,
    "resourcenotfoundexception": 404,
    "servicequotaexceededexception": 429,
    "internalserverexception": 500,
    "modelerrorexception": 500,
    "modelstreamerrorexception": 500,
    "modelnotreadyexception": 503,
    "serviceunavailableexception": 503,
}
_TIMEOUT_CODES = frozenset({"modeltimeoutexception"})

# Bedrock's wording for a prompt that does not fit (beyond the shared markers in errors.py).
_CONTEXT_MARKERS = ("input is too long", "too many input tokens", "prompt is too long",
                    "exceed context limit", "exceeds the context window",
                    "maximum context length", "too many total text bytes")


def error_from_client_error(error_response: dict[str, Any], *, provider: str = PROVIDER,
                            secrets: Iterable[Optional[str]] = ()) -> APIError:
    """A botocore ``ClientError.response`` (also of a stream's exception event) -> our error.
    The AWS error code decides the type; the HTTP status is kept when there was one."""
    error = error_response.get("Error") or {}
    metadata = error_response.get("ResponseMetadata") or {}
    headers = metadata.get("HTTPHeaders") or {}
    code = str(error.get("Code") or "")
    key = code.lower()
    detail = error.get("Message") or error.get("message") or "no message"
    status = metadata.get("HTTPStatusCode")
    request_id = metadata.get("RequestId") or headers.get("x-amzn-requestid")
    message = _redact(f"{provider} error{f' {status}' if status else ''} ({code or 'unknown'}): "
                      f"{detail}", secrets)
    if key in _TIMEOUT_CODES:
        return APITimeoutError(message, provider=provider, status_code=status or 408,
                               request_id=request_id)
    mapped_status = _CODE_STATUS.get(key)
    if mapped_status is None:
        mapped_status = status if isinstance(status, int) and status >= 400 else 500
    if key == "validationexception" and any(m in message.lower() for m in _CONTEXT_MARKERS):
        return ContextWindowExceededError(message, provider=provider,
                                          status_code=status or 400, request_id=request_id)
    typed = _error_for_status(mapped_status, message, provider=provider,
                              request_id=request_id, retry_after=_parse_retry_after(headers),
                              secrets=secrets)
    typed.status_code = status if isinstance(status, int) else mapped_status
    return typed


# =============================================================================================
# Transport
# =============================================================================================

# botocore logs the canonical request and the prepared request's headers at DEBUG (session
# token, bearer token). A filter sees only its own logger's records, so the children are named.
_SDK_LOGGERS = ("botocore", "botocore.auth", "botocore.endpoint", "botocore.hooks",
                "botocore.parsers", "botocore.credentials", "botocore.httpsession",
                "botocore.retryhandler", "botocore.client", "botocore.utils", "botocore.tokens",
                "urllib3", "urllib3.connectionpool", "urllib3.response")


def _protect_logs(secrets: Iterable[Optional[str]]) -> None:
    """Redact ``secrets`` wherever keys are redacted (errors, tool results, spans, every
    filtered logger), and filter botocore's and urllib3's loggers too."""
    from ..core.secrets import protect_logs, remember

    for secret in secrets:
        remember(secret)
    protect_logs(_SDK_LOGGERS)


def _token_text(token: Any) -> Optional[str]:
    """The text of a botocore auth token (``FrozenAuthToken`` or a refreshable one)."""
    if token is not None and not hasattr(token, "token"):
        token = token.get_frozen_token()
    text = getattr(token, "token", None)
    return text if isinstance(text, str) else None


_CONFIG_KEYS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token",
                "region_name", "profile_name", "endpoint_url", "timeout", "max_retries",
                "max_retry_wait", "max_concurrency", "retry_clock", "stream_gap_timeout")

# One request as the retry drivers pass it: Converse kwargs, model, per-call timeout.
_Call = tuple[dict[str, Any], str, Optional[float]]

_END = object()  # end of an async-bridged stream
_STREAM_BUFFER = 64  # body reads an async stream decodes ahead of its consumer, at most


class BedrockProvider(Provider):
    """Amazon Bedrock's Converse / ConverseStream APIs through botocore.

    Config: ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_session_token``,
    ``region_name`` (else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / the profile's),
    ``profile_name``, ``endpoint_url``; anything not given comes from the standard AWS chain
    (environment, shared config and credentials files, SSO, instance roles). ``timeout``
    (seconds to wait for the server per attempt, default 600). ``max_retries`` (default 2;
    0 = one attempt), ``max_retry_wait``, ``max_concurrency`` (requests in flight at most, sync
    and async; it also sizes the async bridge's threads and botocore's connections, which are
    32 without it), ``retry_clock``: the retry policy of every family
    (``aisuite_like.providers.retry``); botocore's own retries are always off.
    """

    #: agents send output_type as native ``outputConfig.textFormat``
    supports_response_format = True

    def __init__(
        self,
        *,
        aws_access_key_id: Optional[str] = None,
        aws_secret_access_key: Optional[str] = None,
        aws_session_token: Optional[str] = None,
        region_name: Optional[str] = None,
        profile_name: Optional[str] = None,
        endpoint_url: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: int = _retry.DEFAULT_MAX_RETRIES,
        max_retry_wait: float = _retry.DEFAULT_MAX_RETRY_WAIT,
        max_concurrency: Optional[int] = None,
        retry_clock: Any = None,
        stream_gap_timeout: Optional[float] = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            hint = (" (Bedrock API keys: set AWS_BEARER_TOKEN_BEDROCK, which botocore reads)"
                    if "api_key" in unknown else "")
            raise ConfigurationError(
                f"unknown config key(s) for provider 'bedrock': {', '.join(sorted(unknown))}"
                f"{hint}. Known keys: {', '.join(_CONFIG_KEYS)}")
        self._timeout = _check_timeout(timeout) if timeout is not None else DEFAULT_TIMEOUT
        self._calls = _retry.CallPolicy.from_config(
            {"max_retries": max_retries, "max_retry_wait": max_retry_wait,
             "max_concurrency": max_concurrency, "retry_clock": retry_clock,
             "stream_gap_timeout": stream_gap_timeout, "timeout": self._timeout}, PROVIDER)
        import botocore.config  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.exceptions  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.session  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.validate  # type: ignore[import-untyped]  # botocore ships no types
        import urllib3.exceptions

        self._botocore_config = botocore.config
        self._validate_parameters = botocore.validate.validate_parameters
        self._input_shapes: dict[str, Any] = {}
        self._exc = botocore.exceptions
        # A stream's body is read through urllib3 directly: its errors reach us unwrapped.
        self._urllib3 = urllib3.exceptions
        self._workers = max_concurrency or DEFAULT_ASYNC_WORKERS
        self._secrets: tuple[Optional[str], ...] = (aws_secret_access_key, aws_session_token)
        _protect_logs(self._secrets)
        self._endpoint_url = endpoint_url
        session = botocore.session.Session(profile=profile_name)
        _bedrock_wire.install(session)  # successful Converse replies: one json.loads
        try:
            region = (region_name or os.environ.get("AWS_REGION")
                      or os.environ.get("AWS_DEFAULT_REGION")
                      or session.get_config_variable("region"))
        except botocore.exceptions.ProfileNotFound:
            raise ConfigurationError(
                f"provider 'bedrock': the AWS profile {profile_name!r} is not in the AWS config "
                "files; fix profile_name (or AWS_PROFILE)") from None
        if not region:
            raise ConfigurationError(
                "provider 'bedrock' needs an AWS region: pass provider_configs={'bedrock': "
                "{'region_name': 'us-east-1'}}, or set AWS_REGION")
        self._region = region
        self._calls = dataclasses.replace(self._calls, host=host_of_url(self.base_url))
        self._session = session
        self._credentials = {k: v for k, v in (
            ("aws_access_key_id", aws_access_key_id),
            ("aws_secret_access_key", aws_secret_access_key),
            ("aws_session_token", aws_session_token)) if v is not None}
        self._clients: dict[float, Any] = {}
        self._lock = threading.Lock()
        self._executor: Any = None

    def __repr__(self) -> str:  # never a secret
        return (f"BedrockProvider(region_name={self._region!r}, "
                f"endpoint_url={self._endpoint_url!r})")

    def _key(self) -> str:
        return self.key or PROVIDER

    @property
    def base_url(self) -> str:
        """The endpoint requests go to (``endpoint_url``, else the region's public one)."""
        return self._endpoint_url or f"https://bedrock-runtime.{self._region}.amazonaws.com"

    # -- clients ---------------------------------------------------------------------------

    def _client(self, timeout: Optional[float]) -> Any:
        """The botocore client for a read timeout (one per distinct timeout: botocore has no
        per-call timeout). Thread-safe; created on first use."""
        seconds = self._timeout if timeout is None else _check_timeout(timeout)
        client = self._clients.get(seconds)
        if client is None:
            with self._lock:
                client = self._clients.get(seconds)
                if client is None:
                    config = self._botocore_config.Config(
                        read_timeout=seconds, connect_timeout=min(seconds, 60.0),
                        retries={"total_max_attempts": 1, "mode": "standard"},
                        max_pool_connections=self._workers,
                        # validated once per request by _validate, before the first attempt
                        parameter_validation=False)
                    client = self._session.create_client(
                        "bedrock-runtime", region_name=self._region,
                        endpoint_url=self._endpoint_url, config=config, **self._credentials)
                    _bedrock_wire.install_serializer(client)  # request bodies: json.dumps
                    bound_botocore_io(client)  # timeout bounds the whole attempt
                    self._learn_chain_secrets(client)
                    self._clients[seconds] = client
        return client

    def _learn_chain_secrets(self, client: Any) -> None:
        """Credentials botocore found itself are secrets too: the AWS chain's (environment,
        profile, role; when the config gives none) and a bearer token (a Bedrock API key,
        ``AWS_BEARER_TOKEN_BEDROCK``). Added to what errors and logs are scrubbed of."""
        found: list[Optional[str]] = []
        try:
            if "aws_secret_access_key" not in self._credentials:
                credentials = self._session.get_credentials()
                if credentials is not None:
                    frozen = credentials.get_frozen_credentials()
                    found += [frozen.secret_key, frozen.token]
            found.append(_token_text(self._session.get_auth_token(
                signing_name=client.meta.service_model.signing_name)))
        except self._exc.BotoCoreError:
            pass  # the call itself reports the credential problem
        found = [secret for secret in found if secret and secret not in self._secrets]
        if found:
            self._secrets = (*self._secrets, *found)
            _protect_logs(found)

    # -- the SDK calls (one attempt each; aisuite_like._retry repeats them) -----------------

    def _converse(self, kwargs: dict[str, Any], timeout: Optional[float]) -> dict[str, Any]:
        return self._client(timeout).converse(**kwargs)  # type: ignore[no-any-return]  # botocore: untyped

    def _converse_once(self, call: _Call) -> dict[str, Any]:
        try:
            return self._converse(call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    async def _aconverse_once(self, call: _Call) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        # The thread reads under this attempt's deadline too (_retry.DEADLINE is in the
        # context): a timed-out attempt does not leave it reading on.
        context = contextvars.copy_context()
        try:
            return await loop.run_in_executor(self._pool(), context.run, self._converse,
                                              call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def _converse_stream(self, kwargs: dict[str, Any], timeout: Optional[float]) -> Any:
        return self._client(timeout).converse_stream(**kwargs)

    # -- errors ----------------------------------------------------------------------------

    def _error(self, exc: BaseException) -> AisuiteLikeError:
        """A botocore exception -> our typed error (raise it ``from exc``); ``exc`` is scrubbed
        of the secrets too, since tracebacks print it."""
        _scrub_exception(exc, self._secrets)
        return self._map_error(exc)

    def _map_error(self, exc: BaseException) -> AisuiteLikeError:
        provider = self._key()
        errors = self._exc
        secrets = self._secrets
        too_deep = too_deep_for_sdk(exc, provider)
        if too_deep is not None:
            return too_deep
        if isinstance(exc, errors.ClientError):
            # botocore follows no redirect; one to another host says so (docs/reliability.md)
            metadata = exc.response.get("ResponseMetadata") or {}
            redirect = redirect_error(provider, self.base_url, metadata.get("HTTPStatusCode"),
                                      (metadata.get("HTTPHeaders") or {}).get("location"),
                                      "endpoint_url")
            return redirect or error_from_client_error(exc.response, provider=provider,
                                                       secrets=secrets)
        endpoint = str(getattr(exc, "kwargs", {}).get("endpoint_url") or self.base_url)
        if isinstance(exc, (errors.ReadTimeoutError, errors.ConnectTimeoutError,
                            self._urllib3.TimeoutError)):
            return APITimeoutError(_redact(f"{provider} request timed out talking to "
                                           f"{endpoint}: {exc}", secrets), provider=provider)
        if isinstance(exc, (errors.EndpointConnectionError, errors.ConnectionClosedError,
                            errors.ResponseStreamingError, errors.HTTPClientError,
                            errors.ConnectionError, self._urllib3.HTTPError)):
            return APIConnectionError(_redact(f"{provider} connection error talking to "
                                              f"{endpoint}: {exc}", secrets), provider=provider)
        if isinstance(exc, (errors.NoCredentialsError, errors.PartialCredentialsError,
                            errors.CredentialRetrievalError)):
            return AuthenticationError(_redact(
                f"{provider}: no usable AWS credentials ({exc}). Pass provider_configs="
                "{'bedrock': {'aws_access_key_id': ..., 'aws_secret_access_key': ...}}, a "
                "profile_name, or set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE",
                secrets), provider=provider)
        if isinstance(exc, errors.ProfileNotFound):
            return ConfigurationError(f"{provider}: {exc}; fix profile_name (or AWS_PROFILE)")
        if isinstance(exc, errors.ParamValidationError):
            return UnsupportedParameterError(
                _redact(f"{provider}: botocore rejected the request before sending it: {exc}",
                        secrets), provider=provider)
        if isinstance(exc, errors.BotoCoreError):
            return APIError(_redact(f"{provider} error: {exc}", secrets), provider=provider)
        return APIError(_redact(f"{provider} error: {type(exc).__name__}: {exc}", secrets),
                        provider=provider)

    def _sdk_errors(self) -> tuple[type[BaseException], ...]:
        # RecursionError: botocore's parser read a body nested too deeply (see _map_error)
        return (self._exc.ClientError, self._exc.BotoCoreError, self._urllib3.HTTPError,
                RecursionError)

    # -- calls -----------------------------------------------------------------------------

    def _call(self, request: ChatRequest) -> _Call:
        """Translate and validate (bad arguments raise here, before anything is sent)."""
        kwargs = build_request(request, provider=self._key())
        self._validate(kwargs, request.messages,
                       "ConverseStream" if request.stream else "Converse")
        return kwargs, request.model, request.timeout

    def _validate(self, kwargs: dict[str, Any], messages: list[dict[str, Any]],
                  operation: str) -> None:
        """botocore's parameter validation of the Converse arguments, once per request (the
        clients have it off). ``messages`` / ``system`` built from plain messages
        (:func:`_plain_messages`) are left out: the translator made every value of them from
        checked types, and validating them is the largest part of botocore's per-call cost
        on a growing tool-loop history."""
        shape = self._input_shapes.get(operation)
        if shape is None:
            model = self._session.get_service_model("bedrock-runtime")
            shape = self._input_shapes[operation] = model.operation_model(operation).input_shape
        params = kwargs
        if _plain_messages(messages):
            params = {k: v for k, v in kwargs.items() if k not in ("messages", "system")}
        try:
            self._validate_parameters(params, shape)
        except self._exc.ParamValidationError as exc:
            raise self._error(exc) from exc

    # The botocore client of a timeout is made before the first attempt that needs it (on a
    # pool thread for async calls): its making (endpoint rules, credentials) is no part of
    # the attempt that ``timeout`` bounds.

    def _ready(self, timeout: Optional[float]) -> bool:
        return (self._timeout if timeout is None else _check_timeout(timeout)) in self._clients

    def _make_client(self, timeout: Optional[float]) -> None:
        try:
            self._client(timeout)
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        call = self._call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        data = _retry.call(self._calls, self._converse_once, call,
                           self._calls.bounds(request.timeout))
        return parse_response(data, model=request.model, provider=self._key())

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        """Translate now (bad arguments raise at ``create``), send on first iteration; retried
        until the first chunk arrives, never after."""
        call = self._call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        return _retry.stream(self._calls, self._stream, call,
                             self._calls.bounds(request.timeout))

    def _stream(self, call: _Call) -> Generator[ChatCompletionChunk, None, None]:
        batches = self._stream_batches(*call)
        try:
            for batch in batches:
                yield from batch
        finally:
            batches.close()

    def _stream_batches(self, kwargs: dict[str, Any], model: str, timeout: Optional[float]
                        ) -> Generator[list[ChatCompletionChunk], None, None]:
        """The chunks of one streamed reply, a list per read of the HTTP body (so the async
        bridge hands them to the event loop a read at a time, not a chunk at a time)."""
        errors = self._sdk_errors()
        try:  # the request is sent here, on first iteration; status errors surface now
            response = self._converse_stream(kwargs, timeout)
        except errors as exc:
            raise self._error(exc) from exc
        events = response["stream"]
        request_id = (response.get("ResponseMetadata") or {}).get("RequestId")
        state = StreamState(model=model, provider=self._key(), request_id=request_id)
        process = state.process
        # The HTTP body botocore would parse: decoded by our EventStreamDecoder, at a fraction
        # of the cost per event of botocore's parser. Iterating ``events`` is the fallback.
        body = getattr(events, "_raw_stream", None)
        try:
            if body is not None and hasattr(body, "stream"):
                decoder = EventStreamDecoder(provider=self._key(), request_id=request_id,
                                             secrets=self._secrets)
                for data in body.stream():
                    batch = [c for c in map(process, decoder.feed(data)) if c is not None]
                    if batch:
                        yield batch
                if decoder.pending:
                    raise APIConnectionError(
                        f"the {self._key()} stream ended inside a message (connection "
                        "dropped?)", provider=self._key(), request_id=request_id)
            else:
                for event in events:
                    chunk = process(event)
                    if chunk is not None:
                        yield [chunk]
            last = state.finish()
            if last is not None:
                yield [last]
        except errors as exc:  # an exception event, or the connection broke mid-body
            mapped = self._error(exc)
            if isinstance(mapped, APIError) and mapped.request_id is None:
                mapped.request_id = request_id
            raise mapped from exc
        finally:  # also on an early break (GeneratorExit): release the connection
            events.close()

    # -- async: the sync transport on a bounded thread pool (botocore is sync-only) ----------

    def _pool(self) -> Any:
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._executor = ThreadPoolExecutor(
                        max_workers=self._workers, thread_name_prefix="aisuite-like-bedrock")
        return self._executor

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        call = self._call(request)
        if not self._ready(request.timeout):
            await asyncio.get_running_loop().run_in_executor(
                self._pool(), self._make_client, request.timeout)
        data = await _retry.acall(self._calls, self._aconverse_once, call,
                                  self._calls.bounds(request.timeout))
        return parse_response(data, model=request.model, provider=self._key())

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        """Async twin of ``stream``: the sync stream runs on a pool thread and hands its
        chunks to the event loop (translate now, send on first iteration; retried until the
        first chunk arrives)."""
        stream = _retry.astream(self._calls, self._astream_once, self._call(request),
                                self._calls.bounds(request.timeout))
        if self._ready(request.timeout):
            return stream
        return self._once_ready(request.timeout, stream)

    async def _once_ready(self, timeout: Optional[float],
                          stream: AsyncIterator[ChatCompletionChunk]
                          ) -> AsyncIterator[ChatCompletionChunk]:
        """``stream``, once the botocore client it needs is made (the first stream of a
        timeout only)."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._pool(), self._make_client,
                                                             timeout)
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()  # type: ignore[attr-defined]  # the retry driver's stream

    def _astream_once(self, call: _Call) -> AsyncIterator[ChatCompletionChunk]:
        return self._astream(self._stream_batches(*call), self._calls.bounds(call[2]))

    async def _astream(self, batches: Generator[list[ChatCompletionChunk], None, None],
                       bounds: _retry.Bounds) -> AsyncIterator[ChatCompletionChunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        room = threading.Semaphore(_STREAM_BUFFER)  # batches read ahead of the consumer
        stopped = threading.Event()
        calls = self._calls

        def pump() -> None:
            # Each read of the pump is bounded as the consumer's waits are (the first batch
            # within the attempt's timeout, each later one within the gap): a server that
            # trickles or stalls cannot keep the thread, once the consumer gave up.
            seconds, what = bounds.attempt, "first"
            try:
                while True:
                    try:
                        batch = _retry.next_within(calls, batches, seconds, what)
                    except StopIteration:
                        loop.call_soon_threadsafe(queue.put_nowait, _END)
                        break
                    seconds, what = bounds.gap, "gap"
                    room.acquire()
                    if stopped.is_set():
                        break
                    loop.call_soon_threadsafe(queue.put_nowait, batch)
            except BaseException as exc:  # delivered to the consumer, raised there
                if not stopped.is_set():
                    loop.call_soon_threadsafe(queue.put_nowait, exc)
            finally:
                batches.close()  # releases the HTTP body

        loop.run_in_executor(self._pool(), pump)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                room.release()
                for chunk in item:
                    yield chunk
        finally:
            if not stopped.is_set():
                stopped.set()
                room.release()  # wake the pump if it waits for room; it then stops
                # A pump inside a read ends it by its deadline: nothing here blocks the loop.

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
            executor, self._executor = self._executor, None
        for client in clients:
            client.close()
        if executor is not None:
            executor.shutdown(wait=False)

    async def aclose(self) -> None:
        self.close()


def _plain_messages(messages: list[dict[str, Any]]) -> bool:
    """Whether the translator builds these messages' Converse blocks from values of checked
    types only: string (or no) content, tool calls with non-empty string ids and names and
    string arguments, tool results answering a non-empty string id, no stored reasoning
    blocks. Content parts (which may carry native blocks) make it False."""
    for msg in messages:
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            return False
        if msg.get("provider_specific_fields"):
            return False
        for call in msg.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if not (isinstance(function, dict) and _nonempty_str(call.get("id"))
                    and _nonempty_str(function.get("name"))
                    and isinstance(function.get("arguments"), (str, type(None)))):
                return False
        if msg.get("role") == "tool" and not _nonempty_str(msg.get("tool_call_id")):
            return False
    return True


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)
