"""Gemini API and Vertex AI through google-genai: a pure translator and a thin transport.

Two parts, as every provider module:

- a pure translator (no I/O, importable without ``google-genai``): ``ChatRequest`` -> the
  ``generateContent`` wire body (camelCase JSON, the shape of the recorded fixtures); raw
  response JSON -> ``ChatCompletionResponse``; one raw ``streamGenerateContent`` SSE event ->
  ``ChatCompletionChunk`` objects (``StreamTranslator``); SDK exception -> our ``APIError``
  subclass (duck-typed, so no SDK import is needed);
- a thin transport, ``GoogleProvider``, that sends the body through the SDK's own API client
  (``Client._api_client``: base URL, auth incl. Vertex credentials, headers, retries, error
  raising) and hands the raw JSON to the translator, so the SDK builds no pydantic models.

Decisions (schemas, ids, signatures, finish reasons, usage) are in ``docs/providers/google.md``.
"""

from __future__ import annotations

import json
import math
import mimetypes
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Optional

from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    AuthenticationError,
    ConfigurationError,
    InvalidModelError,
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
)
from . import retry as _retry
from ._common import (
    SSEDecoder,
    SSEEvent,
    arguments_json,
    bad_shape,
    bad_stream_json,
    bound_sync_io,
    check_n,
    decode_json,
    host_of_url,
    loads_arguments,
    need_name,
    opt_count,
    opt_list,
    opt_object,
    opt_str,
    parse_data_url,
    read_reply,
    redirect_hooks,
    redirect_middleware,
    sse_json,
    stop_sequences,
    text_of,
    too_deep_for_sdk,
    transport_error,
    unreadable,
    unsupported,
)
from .base import ChatRequest, Provider, _mapped_errors

__all__ = [
    "GoogleProvider",
    "GeminiCall",
    "build_request",
    "sanitize_schema",
    "parse_response",
    "StreamTranslator",
    "map_sdk_error",
]

_NAME = "google"

# --- request: messages -> contents --------------------------------------------------------


def _text_parts(content: Any, where: str) -> list[dict[str, Any]]:
    """System / developer content -> text parts (one per OpenAI text part)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"text": content}]
    parts = []
    for p in content:
        if not isinstance(p, Mapping) or p.get("type") != "text":
            raise UnsupportedParameterError(
                f"{where}: system messages may only hold text parts on Gemini, got "
                f"{p.get('type') if isinstance(p, Mapping) else type(p).__name__!r}",
                parameter="messages", provider=_NAME)
        parts.append({"text": p.get("text") or ""})
    return parts


def _file_uri_mime(url: str) -> str:
    """MIME type of a remote file from its extension; images default to JPEG (Gemini needs a
    type on ``fileData``)."""
    path = url.split("?", 1)[0].split("#", 1)[0]
    mime, _ = mimetypes.guess_type(path)
    return mime or "image/jpeg"


def _image_part(spec: Any, where: str) -> dict[str, Any]:
    url = spec.get("url") if isinstance(spec, Mapping) else spec
    if not isinstance(url, str) or not url:
        raise UnsupportedParameterError(f"{where}: image_url needs a 'url' string",
                                        parameter="image_url", provider=_NAME)
    data = parse_data_url(url)
    if data is not None:
        return {"inlineData": {"mimeType": data[0], "data": data[1]}}
    mime = spec.get("mime_type") if isinstance(spec, Mapping) else None
    return {"fileData": {"mimeType": mime or _file_uri_mime(url), "fileUri": url}}


_AUDIO_MIME = {"wav": "audio/wav", "mp3": "audio/mp3", "flac": "audio/flac",
               "aac": "audio/aac", "ogg": "audio/ogg", "aiff": "audio/aiff"}


def _user_part(p: Any, where: str) -> dict[str, Any]:
    kind = p.get("type") if isinstance(p, Mapping) else None
    if kind == "text":
        return {"text": p.get("text") or ""}
    if kind == "image_url":
        return _image_part(p.get("image_url"), where)
    if kind == "input_audio":
        audio = p.get("input_audio") or {}
        fmt = str(audio.get("format") or "wav")
        return {"inlineData": {"mimeType": _AUDIO_MIME.get(fmt, f"audio/{fmt}"),
                               "data": audio.get("data") or ""}}
    if kind == "file":
        file = p.get("file") or {}
        data = parse_data_url(file.get("file_data") or "")
        if data is not None:
            return {"inlineData": {"mimeType": data[0], "data": data[1]}}
    raise UnsupportedParameterError(
        f"{where}: content part {kind!r} is not supported on Gemini (supported: text, "
        "image_url, input_audio, file with a base64 data: URL in file_data)",
        parameter="messages", provider=_NAME)


def _user_parts(content: Any, where: str) -> list[dict[str, Any]]:
    if content is None or isinstance(content, str):
        return [{"text": content or ""}]
    return [_user_part(p, where) for p in content]


_BASE64URL = str.maketrans("+/", "-_")


def _wire_signature(signature: Any) -> Any:
    """A thought signature as sent back: base64url, as google-genai encodes bytes fields and
    as the service received it in the recorded exchanges (the reply carries standard base64;
    both name the same bytes)."""
    return signature.translate(_BASE64URL) if isinstance(signature, str) else signature


def _signatures(message: Mapping[str, Any]) -> tuple[Any, Any, dict[str, str]]:
    """Thought signatures saved on an assistant message -> (text, thought, by call id), in
    the form sent back (``_wire_signature``)."""
    psf = message.get("provider_specific_fields")
    entries = psf.get("thought_signatures") if isinstance(psf, Mapping) else None
    text_sig = thought_sig = None
    by_call: dict[str, str] = {}
    for entry in entries or ():
        kind = entry.get("part")
        signature = _wire_signature(entry.get("signature"))
        if kind == "function_call":
            by_call[entry.get("id")] = signature
        elif kind == "text":
            text_sig = signature
        elif kind == "thought":
            thought_sig = signature
    return text_sig, thought_sig, by_call


#: Google's documented stand-in for the thought signature of a function call Gemini did not
#: make (history from another provider or model, a call the application wrote): "you can set
#: the following dummy signatures of either "context_engineering_is_the_way_to_go" or
#: "skip_thought_signature_validator" in the thought signature field to skip validation"
#: (ai.google.dev/gemini-api/docs/thought-signatures, FAQ); Vertex AI documents the second.
PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"


def _assistant_parts(m: Mapping[str, Any], calls: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """An assistant message -> model parts, restoring saved thought signatures on the parts
    they came from. ``calls`` receives (id, name) of each tool call, in order. The first
    function call of the message, the one Gemini 3 validates, gets ``PLACEHOLDER_SIGNATURE``
    when it has no signature of its own (parallel calls after it are sent without, as Gemini
    sends them)."""
    text_sig, thought_sig, call_sigs = _signatures(m)
    parts: list[dict[str, Any]] = []
    if thought_sig is not None:
        # The signature came on a thought part: send the reasoning back as that part.
        parts.append({"text": m.get("reasoning_content") or "", "thought": True,
                      "thoughtSignature": thought_sig})
    text = text_of(m.get("content"))
    tool_calls = m.get("tool_calls") or ()
    if text or text_sig is not None or not tool_calls:
        part: dict[str, Any] = {"text": text}
        if text_sig is not None:
            part["thoughtSignature"] = text_sig
        parts.append(part)
    for index, tc in enumerate(tool_calls):
        fn = tc.get("function") or {}
        call_id = tc.get("id")
        name = fn.get("name") or ""
        call: dict[str, Any] = {"name": name, "args": loads_arguments(fn.get("arguments"))}
        if call_id:
            call["id"] = call_id
        part = {"functionCall": call}
        signature = call_sigs.get(call_id)
        if signature is None and index == 0:
            signature = PLACEHOLDER_SIGNATURE
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)
        calls.append((call_id, name))
    return parts


def _function_response(m: Mapping[str, Any], where: str,
                       pending: list[tuple[str, str]]) -> dict[str, Any]:
    """A ``tool`` message -> a ``functionResponse`` part, matched to its call by id, or (no
    ``tool_call_id``) by position among the unanswered calls of the last assistant message."""
    call_id = m.get("tool_call_id")
    if call_id:
        match = next((i for i, (cid, _) in enumerate(pending) if cid == call_id), None)
    else:
        match = 0 if pending else None
    name = m.get("name")
    if match is not None:
        cid, call_name = pending.pop(match)
        call_id = call_id or cid
        name = name or call_name
    if not name:
        raise ValueError(
            f"{where}: tool message with tool_call_id={call_id!r} matches no tool call of the "
            "preceding assistant message; Gemini needs the function name: add 'name' to the "
            "tool message or keep the assistant message with its tool_calls before it")
    content = m.get("content")
    if isinstance(content, list) and any(
            not isinstance(p, Mapping) or p.get("type") != "text" for p in content):
        raise UnsupportedParameterError(
            f"{where}: tool results may only hold text on Gemini", parameter="messages",
            provider=_NAME)
    # A dict content is refused before translation (client.md: content is a string or parts).
    response: dict[str, Any] = {"name": name, "response": {"output": text_of(content)}}
    if call_id:
        response["id"] = call_id
    return {"functionResponse": response}


def _contents(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """OpenAI messages -> (system parts, contents). Consecutive same-role turns are merged
    (so consecutive tool results form ONE user content)."""
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # tool calls of the last assistant message, unanswered
    for i, m in enumerate(messages):
        role = m.get("role")
        where = f"messages[{i}]"
        if role in ("system", "developer"):
            system.extend(_text_parts(m.get("content"), where))
            continue
        if role == "user":
            wire_role, parts = "user", _user_parts(m.get("content"), where)
        elif role == "assistant":
            pending = []
            wire_role, parts = "model", _assistant_parts(m, pending)
        elif role == "tool":
            wire_role, parts = "user", [_function_response(m, where, pending)]
        else:
            raise ValueError(f"{where} has unknown role {role!r}; expected system, developer, "
                             "user, assistant or tool")
        if contents and contents[-1]["role"] == wire_role:
            contents[-1]["parts"].extend(parts)  # our own list, never the caller's
        else:
            contents.append({"role": wire_role, "parts": parts})
    return system, contents


# --- request: JSON schemas ----------------------------------------------------------------

# Keywords Gemini's JSON-schema fields (parametersJsonSchema / responseJsonSchema) reject or
# do not know; everything else (including $defs/$ref, anyOf/oneOf, additionalProperties,
# title, default) is accepted as is, as the recorded exchanges show.
_DROPPED_KEYWORDS = frozenset({"$schema", "discriminator", "examples", "exclusiveMinimum",
                               "exclusiveMaximum"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "not", "contains",
                            "unevaluatedItems", "unevaluatedProperties", "if", "then", "else"})


_DROP = object()  # marks a keyword removed by sanitize_schema


def _const_type(value: Any) -> Optional[str]:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def sanitize_schema(schema: Any) -> Any:
    """A JSON schema -> one Gemini accepts. Copy-on-write: returns the SAME object when nothing
    needs changing (the common case), so no schema is rebuilt per call and the caller's schema
    is never mutated. ``const`` becomes a one-value ``enum``; a string ``format`` moves into the
    description; keywords of ``_DROPPED_KEYWORDS`` are removed."""
    if isinstance(schema, list):
        new_items = [sanitize_schema(s) for s in schema]
        return schema if all(a is b for a, b in zip(new_items, schema, strict=True)) else new_items
    if not isinstance(schema, dict):
        return schema
    out: Optional[dict[str, Any]] = None
    for key, value in schema.items():
        new = value
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            mapped = {name: sanitize_schema(sub) for name, sub in value.items()}
            if any(mapped[name] is not value[name] for name in value):
                new = mapped
        elif key in _SCHEMA_LISTS or key in _SCHEMA_VALUES:
            new = sanitize_schema(value)
        elif (key in _DROPPED_KEYWORDS or key == "const"
              or (key == "format" and schema.get("type") == "string")):
            new = _DROP
        if new is not value and out is None:
            out = {k: schema[k] for k in list(schema)[:list(schema).index(key)]}
        if out is not None and new is not _DROP:
            out[key] = new
    if out is None:
        return schema
    if "const" in schema and "enum" not in out:
        out["enum"] = [schema["const"]]
        if "type" not in out and _const_type(schema["const"]):
            out["type"] = _const_type(schema["const"])
    if schema.get("type") == "string" and "format" in schema:
        fmt = schema["format"]
        desc = out.get("description")
        out["description"] = f"{desc} (format: {fmt})" if desc else f"Format: {fmt}"
    return out



# --- request: tools, tool_choice, generation config ---------------------------------------


def _function_declaration(fn: Mapping[str, Any]) -> dict[str, Any]:
    decl: dict[str, Any] = {"name": fn.get("name"), "description": fn.get("description") or ""}
    if fn.get("parameters") is not None:
        decl["parametersJsonSchema"] = sanitize_schema(fn["parameters"])
    return decl


def _tools(tools: Optional[list[dict[str, Any]]], native: Any) -> list[dict[str, Any]]:
    """OpenAI function tools -> one Gemini tool of ``functionDeclarations``, followed by the
    Gemini tools of the native ``gemini_tools`` argument (e.g. ``{"googleSearch": {}}``)."""
    declarations: list[dict[str, Any]] = []
    for i, t in enumerate(tools or ()):
        kind = t.get("type")
        if kind == "function":
            declarations.append(_function_declaration(t.get("function") or {}))
        elif kind is None and t.get("name"):  # a bare function schema
            declarations.append(_function_declaration(t))
        else:
            raise UnsupportedParameterError(
                f"tools[{i}] has type {kind!r}; Gemini takes function tools here. Pass Gemini "
                "tools (e.g. {'googleSearch': {}}, {'codeExecution': {}}) as gemini_tools=[...]",
                parameter="tools", provider=_NAME)
    out = [{"functionDeclarations": declarations}] if declarations else []
    if native:
        out.extend(_native_value(item) for item in native)
    return out


def _tool_config(tool_choice: Any, has_tools: bool) -> Optional[dict[str, Any]]:
    if tool_choice is None:
        return None
    if tool_choice in ("auto", "none"):
        mode, names = tool_choice.upper(), None
    elif tool_choice == "required":
        mode, names = "ANY", None
    elif (isinstance(tool_choice, Mapping) and tool_choice.get("type") == "function"
          and isinstance(tool_choice.get("function"), Mapping)
          and tool_choice["function"].get("name")):
        mode, names = "ANY", [tool_choice["function"]["name"]]
    else:
        raise UnsupportedParameterError(
            f"tool_choice {tool_choice!r} is not understood; use 'auto', 'none', 'required' "
            "or {'type': 'function', 'function': {'name': ...}}",
            parameter="tool_choice", provider=_NAME)
    if not has_tools:
        if mode in ("AUTO", "NONE"):
            return None  # already what happens without tools
        raise UnsupportedParameterError(
            f"tool_choice={tool_choice!r} needs tools", parameter="tool_choice", provider=_NAME)
    config: dict[str, Any] = {"mode": mode}
    if names:
        config["allowedFunctionNames"] = names
    return {"functionCallingConfig": config}


def _response_format(fmt: Any, gen: dict[str, Any]) -> None:
    if fmt is None:
        return
    if isinstance(fmt, type) and hasattr(fmt, "model_json_schema"):  # a pydantic model class
        fmt = {"type": "json_schema", "json_schema": {"name": fmt.__name__,
                                                      "schema": fmt.model_json_schema()}}
    kind = fmt.get("type") if isinstance(fmt, Mapping) else None
    if kind == "text":
        return
    if kind == "json_object":
        gen["responseMimeType"] = "application/json"
        return
    if kind == "json_schema":
        spec = fmt.get("json_schema") or {}
        schema = spec.get("schema")
        if not isinstance(schema, Mapping):
            raise UnsupportedParameterError(
                "response_format json_schema needs json_schema.schema (a JSON schema object)",
                parameter="response_format", provider=_NAME)
        gen["responseMimeType"] = "application/json"
        gen["responseJsonSchema"] = sanitize_schema(schema)
        return
    raise UnsupportedParameterError(
        f"response_format {fmt!r} is not understood; use {{'type': 'json_object'}} or "
        "{'type': 'json_schema', 'json_schema': {'name': ..., 'schema': {...}}}",
        parameter="response_format", provider=_NAME)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


# Provider-native keyword arguments (snake_case or camelCase): where each goes in the body.
_GENERATION_FIELDS = frozenset(_camel(n) for n in (
    "temperature", "top_p", "top_k", "candidate_count", "max_output_tokens", "stop_sequences",
    "response_logprobs", "logprobs", "presence_penalty", "frequency_penalty", "seed",
    "response_mime_type", "response_schema", "response_json_schema", "routing_config",
    "model_selection_config", "response_modalities", "media_resolution", "speech_config",
    "audio_timestamp", "thinking_config", "image_config", "enable_enhanced_civic_answers"))
_TOP_LEVEL_FIELDS = frozenset(_camel(n) for n in (
    "safety_settings", "tool_config", "labels", "cached_content", "system_instruction",
    "service_tier", "store"))


def _native_value(value: Any) -> Any:
    """SDK pydantic objects (e.g. ``types.ThinkingConfig``) -> JSON; the API accepts their
    snake_case names. Anything else goes untouched."""
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_native_value(v) for v in value]
    return value


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _set_once(target: dict[str, Any], key: str, value: Any, native: str) -> None:
    if key in target:
        raise UnsupportedParameterError(
            f"{native!r} sets {key!r}, which a portable argument already set; pass only one "
            "of them", parameter=native, provider=_NAME)
    target[key] = value


class GeminiCall:
    """What one model call sends: the wire ``body`` and SDK-native per-request
    ``http_options`` (a dict or ``HttpOptions``, or None)."""

    __slots__ = ("body", "http_options")

    def __init__(self, body: dict[str, Any], http_options: Any) -> None:
        self.body = body
        self.http_options = http_options


def build_request(request: ChatRequest, provider: str = _NAME) -> GeminiCall:
    """``ChatRequest`` -> the ``generateContent`` body. Pure: builds new structures only."""
    if request.user is not None:
        raise unsupported(provider, "user", "Gemini has no end-user field (on Vertex AI pass "
                          "labels={'user': ...} instead)")
    if request.parallel_tool_calls is False:
        raise unsupported(provider, "parallel_tool_calls",
                          "Gemini cannot switch parallel function calls off")
    if request.stream_options and set(request.stream_options) - {"include_usage"}:
        raise unsupported(provider, "stream_options",
                          "only include_usage is understood (Gemini always reports usage)")
    system, contents = _contents(request.messages)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": system}
    tools = _tools(request.tools, request.extra.get("gemini_tools"))
    if tools:
        body["tools"] = tools
    tool_config = _tool_config(request.tool_choice, bool(tools))
    if tool_config is not None:
        body["toolConfig"] = tool_config
    gen: dict[str, Any] = {}
    if request.temperature is not None:
        gen["temperature"] = request.temperature
    if request.top_p is not None:
        gen["topP"] = request.top_p
    if request.max_tokens is not None:
        gen["maxOutputTokens"] = request.max_tokens
    if request.stop is not None:
        gen["stopSequences"] = stop_sequences(provider, request.stop)
    if request.seed is not None:
        gen["seed"] = request.seed
    if request.n is not None:
        gen["candidateCount"] = check_n(provider, request.n)
    _response_format(request.response_format, gen)
    http_options = None
    extra_body = None
    for native, value in request.extra.items():
        key = _camel(native)
        if native == "gemini_tools":
            continue  # appended to the tools above
        if native == "extra_body":
            extra_body = value
        elif native == "http_options":
            http_options = value  # SDK HttpOptions (or its dict), applied by the transport
        elif key == "generationConfig":
            for sub, sub_value in _native_value(value).items():
                _set_once(gen, _camel(sub), sub_value, native)
        elif key in _GENERATION_FIELDS:
            _set_once(gen, key, _native_value(value), native)
        elif key in _TOP_LEVEL_FIELDS:
            _set_once(body, key, _native_value(value), native)
        else:
            raise UnsupportedParameterError(
                f"{provider} does not understand the argument {native!r}. Gemini-native "
                "arguments: generation settings (e.g. top_k, thinking_config, "
                "response_modalities), safety_settings, tool_config, cached_content, labels, "
                "generation_config, gemini_tools, http_options, extra_body",
                parameter=native, provider=provider)
    if gen:
        body["generationConfig"] = gen
    if extra_body:
        body = _deep_merge(body, extra_body)
    return GeminiCall(body, http_options)


# --- response ------------------------------------------------------------------------------

_CONTENT_FILTER = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
                             "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"})


def _finish(native: Optional[str], has_calls: bool) -> Optional[str]:
    """Gemini finishReason -> stop / length / tool_calls / content_filter (anything else, e.g.
    MALFORMED_FUNCTION_CALL or OTHER, is ``stop``; the native value is kept beside it)."""
    if native is None:
        return "tool_calls" if has_calls else None
    if native == "MAX_TOKENS":
        return "length"
    if has_calls:
        return "tool_calls"
    if native in _CONTENT_FILTER:
        return "content_filter"
    return "stop"


def _usage(meta: Optional[Mapping[str, Any]], provider: str = _NAME) -> Optional[Usage]:
    if not meta:
        return None
    if not isinstance(meta, dict):
        raise bad_shape(provider, "usageMetadata", "an object", meta)
    prompt = (opt_count(meta.get("promptTokenCount"), provider, "usageMetadata.promptTokenCount")
              + opt_count(meta.get("toolUsePromptTokenCount"), provider,
                          "usageMetadata.toolUsePromptTokenCount"))
    thoughts = meta.get("thoughtsTokenCount")
    if thoughts is not None:
        thoughts = opt_count(thoughts, provider, "usageMetadata.thoughtsTokenCount")
    completion = opt_count(meta.get("candidatesTokenCount"), provider,
                           "usageMetadata.candidatesTokenCount") + (thoughts or 0)
    cached = meta.get("cachedContentTokenCount")
    if cached is not None:
        cached = opt_count(cached, provider, "usageMetadata.cachedContentTokenCount")
    return Usage.model_construct(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion,
        prompt_tokens_details=(PromptTokensDetails.model_construct(cached_tokens=cached)
                               if cached is not None else None),
        completion_tokens_details=(CompletionTokensDetails.model_construct(
            reasoning_tokens=thoughts) if thoughts is not None else None))


class _Parts:
    """What a list of response parts carries (one candidate, or one stream event of it)."""

    __slots__ = ("text", "reasoning", "calls", "signatures", "others")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[tuple[str, str, str]] = []  # (id, name, arguments JSON)
        self.signatures: list[dict[str, Any]] = []
        self.others: list[dict[str, Any]] = []

    def read(self, parts: Iterable[Mapping[str, Any]], next_call_id: Any,
             provider: str = _NAME) -> None:
        for part in parts:
            if not isinstance(part, dict):
                raise bad_shape(provider, "candidates[].content.parts[]", "an object", part)
            signature = part.get("thoughtSignature")
            call = part.get("functionCall")
            if call is not None:
                if not isinstance(call, dict):
                    raise bad_shape(provider, "candidates[].content.parts[].functionCall",
                                    "an object", call)
                name = call.get("name")
                if not isinstance(name, str) or not name:
                    name = need_name(name, provider,
                                     "candidates[].content.parts[].functionCall.name")
                call_id = call.get("id") or next_call_id()
                self.calls.append((call_id, name, arguments_json(call.get("args"))))
                if signature:
                    self.signatures.append({"part": "function_call", "id": call_id,
                                            "signature": signature})
                continue
            if part.get("thought"):
                kind = "thought"
                self.reasoning.append(part.get("text") or "")
            elif "text" in part:
                kind = "text"
                text = part["text"]
                if not isinstance(text, str):
                    raise bad_shape(provider, "candidates[].content.parts[].text", "a string",
                                    text)
                self.text.append(text)
            else:  # inline data, executable code, ... kept, not dropped
                kind = "other"
                self.others.append(dict(part))
            if signature:
                self.signatures.append({"part": kind, "signature": signature})

    def psf(self) -> Optional[dict[str, Any]]:
        if not self.signatures and not self.others:
            return None
        out: dict[str, Any] = {}
        if self.signatures:
            out["thought_signatures"] = self.signatures
        if self.others:
            out["other_parts"] = self.others
        return out


class _CallIds:
    """Call ids for function calls Gemini sent without one: ``call_<responseId>_<n>``
    (``call_<responseId>_<candidate>_<n>`` beyond the first candidate), stable for a reply."""

    __slots__ = ("base", "counts")

    def __init__(self, response_id: Optional[str]) -> None:
        self.base = response_id or uuid.uuid4().hex[:24]
        self.counts: dict[int, int] = {}

    def for_candidate(self, index: int) -> Any:
        def next_id() -> str:
            n = self.counts.get(index, 0)
            self.counts[index] = n + 1
            return f"call_{self.base}_{n}" if index == 0 else f"call_{self.base}_{index}_{n}"
        return next_id


def _blocked(feedback: Optional[Mapping[str, Any]]) -> Optional[tuple[str, str]]:
    """promptFeedback with a blockReason -> (native reason, refusal text)."""
    if not isinstance(feedback, dict):
        return None
    reason = feedback.get("blockReason")
    if not reason or not isinstance(reason, str):
        return None
    text = feedback.get("blockReasonMessage") or f"Gemini blocked the prompt ({reason})"
    return reason, text


def _candidate_parts(cand: Any, provider: str) -> Any:
    """A candidate's parts (an empty tuple when it has no content, e.g. a safety stop)."""
    if not isinstance(cand, dict):
        raise bad_shape(provider, "candidates[]", "an object", cand)
    content = opt_object(cand.get("content"), provider, "candidates[].content")
    if not content:
        return ()
    return opt_list(content.get("parts"), provider, "candidates[].content.parts") or ()


def parse_response(data: Mapping[str, Any], provider: str = _NAME, model: str = "",
                   created: Optional[int] = None) -> ChatCompletionResponse:
    """A raw ``generateContent`` response (dict) -> ``ChatCompletionResponse``. A reply of
    another shape raises ``APIResponseValidationError``; an ``{"error": {...}}`` reply the
    mapped error."""
    if not isinstance(data, dict):
        raise bad_shape(provider, "the reply", "an object", data)
    if data.get("error"):
        raise _error_event(data["error"], provider, where="error object in the reply")
    candidates = opt_list(data.get("candidates"), provider, "candidates")
    if not candidates and _blocked(data.get("promptFeedback")) is None:
        raise bad_shape(provider, "candidates", "at least one candidate (or a promptFeedback "
                        "blockReason)", candidates, missing=candidates is None)
    ids = _CallIds(opt_str(data.get("responseId"), provider, "responseId"))
    choices = []
    for position, cand in enumerate(candidates or ()):
        parts_list = _candidate_parts(cand, provider)
        index = cand.get("index", position)
        parts = _Parts()
        parts.read(parts_list, ids.for_candidate(index), provider)
        tool_calls = [ToolCall.model_construct(
                          id=cid, type="function",
                          function=Function.model_construct(name=n, arguments=a))
                      for cid, n, a in parts.calls] or None
        native = opt_str(cand.get("finishReason"), provider, "candidates[].finishReason")
        message = Message.model_construct(
            role="assistant", content="".join(parts.text) or None, tool_calls=tool_calls,
            reasoning_content="".join(parts.reasoning) or None,
            provider_specific_fields=parts.psf())
        choices.append(Choice.model_construct(
            index=index, message=message, finish_reason=_finish(native, bool(tool_calls)),
            native_finish_reason=native))
    if not choices:
        blocked = _blocked(data.get("promptFeedback"))
        message = Message.model_construct(role="assistant",
                                          refusal=blocked[1] if blocked else None)
        choices.append(Choice.model_construct(
            index=0, message=message, finish_reason="content_filter" if blocked else None,
            native_finish_reason=blocked[0] if blocked else None))
    return ChatCompletionResponse.model_construct(
        id=data.get("responseId") or ids.base, created=created or int(time.time()),
        model=data.get("modelVersion") or model, provider=provider, choices=choices,
        usage=_usage(data.get("usageMetadata"), provider), raw=data)


def continuation_token(data: Mapping[str, Any]) -> Optional[str]:
    """The token to continue a reply with, as google-genai does: candidate 0 stopped with
    finish reason ``CONTINUATION`` (or none) and carries a ``continuationToken``."""
    candidates = data.get("candidates") or ()
    if not candidates or not isinstance(candidates[0], Mapping):
        return None
    token = candidates[0].get("continuationToken")
    if token and candidates[0].get("finishReason") in (None, "CONTINUATION"):
        return str(token)
    return None


def _add_usage(a: Optional[Mapping[str, Any]],
               b: Optional[Mapping[str, Any]]) -> Optional[Mapping[str, Any]]:
    """Usage of two requests of one continued reply: numbers summed, the rest from ``b``."""
    if not a or not b:
        return b or a
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, int) and isinstance(out.get(key), int):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def merge_continued(first: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """Two raw replies of one continued generation -> one: candidate 0's parts in order, the
    later finish reason, usage summed (what google-genai's continuation merge gives)."""
    merged = dict(later)
    before = (first.get("candidates") or [{}])[0]
    candidates = list(later.get("candidates") or ())
    if candidates:
        after = dict(candidates[0])
        parts = [*((before.get("content") or {}).get("parts") or ()),
                 *((after.get("content") or {}).get("parts") or ())]
        after["content"] = {**(after.get("content") or before.get("content") or {}),
                            "parts": parts}
        candidates[0] = after
        merged["candidates"] = candidates
    usage = _add_usage(first.get("usageMetadata"), later.get("usageMetadata"))
    if usage is not None:
        merged["usageMetadata"] = usage
    return merged


# --- stream --------------------------------------------------------------------------------


class StreamTranslator:
    """Raw ``streamGenerateContent`` events of ONE reply -> ``ChatCompletionChunk`` objects.

    ``translate(event)`` returns the chunk for one event (or None when it carries nothing);
    a function call arrives whole in one part and goes out as one tool-call delta with id,
    name and full arguments (indices 0..n per candidate across the stream). ``finish()``
    returns the last chunk, carrying usage, and raises when the stream ended before the model
    finished (a connection closed early).
    """

    __slots__ = ("provider", "model", "created", "secrets", "_ids", "_id", "_started",
                 "_calls", "_usage", "_finished", "_usage_before", "continuation")

    def __init__(self, provider: str = _NAME, model: str = "",
                 created: Optional[int] = None, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # scrubbed from error events (a provider may echo them)
        self.model = model
        self.created = created or int(time.time())
        self._ids: Optional[_CallIds] = None
        self._id = ""
        self._started: set[int] = set()
        self._calls: dict[int, int] = {}
        self._usage: Optional[Mapping[str, Any]] = None
        self._finished = False
        # A reply continued over several requests (finish reason CONTINUATION): the usage
        # of the requests before this one, and the token to continue with, if any.
        self._usage_before: Optional[Mapping[str, Any]] = None
        self.continuation: Optional[str] = None

    def next_request(self) -> None:
        """The reply goes on in a new request (``continuation`` was sent): its usage adds up."""
        self._usage_before = _add_usage(self._usage_before, self._usage)
        self._usage = None
        self.continuation = None

    def translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        """One event -> its chunk (or None); an event of another shape raises
        ``APIResponseValidationError``."""
        try:
            return self._translate(event)
        except AisuiteLikeError:
            raise
        except Exception as exc:
            raise unreadable(self.provider, exc, "a stream event") from exc

    def _translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        if not isinstance(event, dict):
            raise bad_shape(self.provider, "a stream event", "an object", event)
        error = event.get("error")
        if error:
            raise _error_event(error, self.provider, self.secrets)
        if self._ids is None:
            rid = opt_str(event.get("responseId"), self.provider, "responseId")
            self._ids = _CallIds(rid)
            self._id = rid or self._ids.base
        if event.get("modelVersion"):
            self.model = opt_str(event["modelVersion"], self.provider, "modelVersion") or ""
        usage = event.get("usageMetadata")
        if usage:
            self._usage = usage if type(usage) is dict else opt_object(
                usage, self.provider, "usageMetadata")
        candidates = event.get("candidates")
        if candidates is not None and type(candidates) is not list:
            raise bad_shape(self.provider, "candidates", "an array", candidates)
        if candidates and isinstance(candidates[0], Mapping) \
                and candidates[0].get("continuationToken"):
            self.continuation = continuation_token(event)
        choices = []
        for position, cand in enumerate(candidates or ()):
            if not isinstance(cand, dict):
                raise bad_shape(self.provider, "candidates[]", "an object", cand)
            choice = self._choice(cand, cand.get("index", position))
            if choice is not None:
                choices.append(choice)
        if not candidates:
            blocked = _blocked(event.get("promptFeedback"))
            if blocked is not None:
                self._finished = True
                choices.append(ChunkChoice.model_construct(
                    index=0, delta=ChoiceDelta.model_construct(role="assistant",
                                                               refusal=blocked[1]),
                    finish_reason="content_filter", native_finish_reason=blocked[0]))
        if not choices:
            return None
        return self._chunk(choices, None)

    def _choice(self, cand: Mapping[str, Any], index: int) -> Optional[ChunkChoice]:
        parts = _Parts()
        parts.read(_candidate_parts(cand, self.provider),
                   self._ids.for_candidate(index), self.provider)  # type: ignore[union-attr]  # set by _translate
        tool_calls = None
        if parts.calls:
            first = self._calls.get(index, 0)
            self._calls[index] = first + len(parts.calls)
            tool_calls = [ChoiceDeltaToolCall.model_construct(
                index=first + n, id=cid, type="function",
                function=ChoiceDeltaFunction.model_construct(name=name, arguments=args))
                for n, (cid, name, args) in enumerate(parts.calls)]
        native = opt_str(cand.get("finishReason"), self.provider, "candidates[].finishReason")
        finish = None
        if native == "CONTINUATION" and self.continuation:
            native = None  # not the end: the reply goes on in the next request
        if native is not None:
            self._finished = True
            finish = _finish(native, index in self._calls)
        content = "".join(parts.text) or None
        reasoning = "".join(parts.reasoning) or None
        psf = parts.psf()
        role = None
        if index not in self._started:
            self._started.add(index)
            role = "assistant"
        elif (content is None and reasoning is None and tool_calls is None and psf is None
              and native is None):
            return None
        return ChunkChoice.model_construct(
            index=index,
            delta=ChoiceDelta.model_construct(role=role, content=content, tool_calls=tool_calls,
                                              reasoning_content=reasoning,
                                              provider_specific_fields=psf),
            finish_reason=finish, native_finish_reason=native)

    def _chunk(self, choices: list[ChunkChoice], usage: Optional[Usage]) -> ChatCompletionChunk:
        return ChatCompletionChunk.model_construct(
            id=self._id, created=self.created, model=self.model, provider=self.provider,
            choices=choices, usage=usage)

    def finish(self) -> ChatCompletionChunk:
        if not self._finished:
            raise APIConnectionError(
                "the Gemini stream ended before the model finished (no finishReason "
                "received); the connection was probably closed early", provider=self.provider)
        return self._chunk([], _usage(_add_usage(self._usage_before, self._usage), self.provider))


# --- errors --------------------------------------------------------------------------------

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)s\s*$")


def _retry_delay(details: Any) -> Optional[float]:
    """``google.rpc.RetryInfo.retryDelay`` ("37s") from an error body, when present."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    for item in (error or {}).get("details") or ():
        if isinstance(item, Mapping) and "retryDelay" in item:
            match = _DURATION.match(str(item["retryDelay"]))
            if match:  # "0s" is no demand: the backoff applies
                return float(match.group(1)) or None
    return None


def _request_id(headers: Any) -> Optional[str]:
    if headers is None:
        return None
    for name in ("x-request-id", "x-goog-request-id", "request-id"):
        value = headers.get(name)
        if value:
            return str(value)
    return None


def _error_event(error: Any, provider: str, secrets: Iterable[Optional[str]] = (), *,
                 where: str = "error event in stream") -> APIError:
    """An ``{"error": {...}}`` event inside a 200 stream (or a 200 reply) -> typed error."""
    body = error if isinstance(error, Mapping) else {"message": str(error)}
    code = body.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    message = f"{where}: {body.get('status') or ''} {body.get('message') or ''}"
    return _error_for_status(status, message.strip(), provider=provider,
                             retry_after=_retry_delay(body), secrets=secrets, body=dict(body))


def map_sdk_error(exc: BaseException, provider: str = _NAME,
                  secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """A google-genai / httpx2 exception -> our typed error (the caller raises it ``from
    exc``). Anything else is returned unchanged. Duck-typed on the SDK's ``APIError``
    (``code``, ``status``, ``message``, ``details``, ``response``) so no SDK import is needed."""
    if isinstance(exc, AisuiteLikeError):
        return exc
    too_deep = too_deep_for_sdk(exc, provider)
    if too_deep is not None:
        return too_deep
    secrets = tuple(secrets)
    genai_errors = sys.modules.get("google.genai.errors")
    if genai_errors is not None and isinstance(exc, genai_errors.APIError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        status = getattr(exc, "status", None)
        text = getattr(exc, "message", None) or str(exc)
        retry_after = _parse_retry_after(headers) if headers is not None else None
        if retry_after is None:
            retry_after = _retry_delay(getattr(exc, "details", None))
        return _error_for_status(
            getattr(exc, "code", None), f"{status}: {text}" if status else str(text),
            provider=provider, request_id=_request_id(headers), retry_after=retry_after,
            secrets=secrets, body=getattr(exc, "details", None), response=response)
    if genai_errors is not None and isinstance(exc, genai_errors.UnknownApiResponseError):
        # A stream event that is not JSON (its message quotes the event: never shown).
        return bad_stream_json(exc.__cause__, provider)
    transport = transport_error(exc, provider, secrets)
    if transport is not None:
        return transport
    if isinstance(exc, json.JSONDecodeError):
        return APIResponseValidationError(f"the body is not JSON ({exc.msg})", provider=provider)
    return exc


class _BodyEvents:
    """The SSE body of one streamed request -> the translator's chunks (sans-IO: the sync and
    async transports only move bytes). A body that ends inside an event whose JSON is cut
    off is a lost connection."""

    __slots__ = ("_decoder", "_translator")

    def __init__(self, translator: StreamTranslator) -> None:
        self._translator = translator
        self._decoder = SSEDecoder(translator.provider, raw_lines=True)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        return self._chunks(self._decoder.end(), at_end=True)

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        """One event at a time: the chunks before a bad event reach the caller first."""
        translate, provider = self._translator.translate, self._translator.provider
        for _name, data in events:
            chunk = translate(sse_json(data, provider, at_end=at_end))
            if chunk is not None:
                yield chunk


# --- transport -----------------------------------------------------------------------------

_CONFIG_KEYS = frozenset({"api_key", "base_url", "timeout", "default_headers", "http_client",
                          "vertexai", "project", "location", "credentials", "api_version",
                          "async_transport"}) | _retry.CONFIG_KEYS
# Each attempt's bound when none is configured: 600 s as the OpenAI and Anthropic SDKs
# (google-genai has none), with their 5 s to connect. Sent as no header.
_DEFAULT_TIMEOUT = 600.0
_DEFAULT_CONNECT_TIMEOUT = 5.0
_DEFAULT_HTTPX_TIMEOUT: Any = None


class _Prepared:
    """One translated call: the SDK client (kept alive by whoever holds this), the path, the
    call, the SDK-native per-request ``http_options``, the model and the attempt timeout."""

    __slots__ = ("client", "path", "call", "http_options", "model", "timeout")

    def __init__(self, client: Any, path: str, call: GeminiCall, http_options: Any, model: str,
                 timeout: Any) -> None:
        self.client = client
        self.path = path
        self.call = call
        self.http_options = http_options
        self.model = model
        self.timeout = timeout


def _valid_timeout(timeout: Any) -> bool:
    """Seconds > 0, or an ``httpx2.Timeout``."""
    if isinstance(timeout, bool):
        return False
    if isinstance(timeout, (int, float)):
        return timeout > 0
    import httpx2

    return isinstance(timeout, httpx2.Timeout)


def _attempt_timeout(timeout: Any, aiohttp: bool) -> Any:
    """The configured timeout (seconds or an ``httpx2.Timeout``; None: the default) in the
    form the transport takes: aiohttp wants one number of seconds."""
    global _DEFAULT_HTTPX_TIMEOUT
    if timeout is None:
        if aiohttp:
            return _DEFAULT_TIMEOUT
        if _DEFAULT_HTTPX_TIMEOUT is None:  # built once: this runs on every call
            import httpx2

            _DEFAULT_HTTPX_TIMEOUT = httpx2.Timeout(_DEFAULT_TIMEOUT,
                                                    connect=_DEFAULT_CONNECT_TIMEOUT)
        return _DEFAULT_HTTPX_TIMEOUT
    if aiohttp and not isinstance(timeout, (int, float)):
        values = [v for v in (getattr(timeout, name, None) for name in
                              ("read", "connect", "write", "pool")) if v is not None]
        return max(values) if values else None
    return timeout


def _vertex_mtls() -> bool:
    """Whether google-genai sends Vertex AI requests through google-auth's mTLS session (a
    client certificate is configured), which an httpx2 ``client_args`` would turn off."""
    try:
        from google.auth.transport import mtls

        return bool(mtls.should_use_client_cert()  # type: ignore[no-untyped-call]
                    and mtls.has_default_client_cert_source())  # type: ignore[no-untyped-call]
    except Exception:  # an older google-auth: google-genai does not use it either
        return False


class GoogleProvider(Provider):
    """Gemini API (an API key) or Vertex AI (``vertexai=True`` with ``project`` and
    ``location``, credentials as google-genai takes them) through google-genai.

    Config: ``api_key`` (else GEMINI_API_KEY, then GOOGLE_API_KEY; on Vertex AI only when
    given: express mode), ``base_url``, ``timeout`` (seconds, default 600), ``max_retries``
    (default 2 -> google-genai ``HttpRetryOptions(attempts=max_retries + 1)``),
    ``default_headers``, ``http_client`` (an ``httpx2.Client`` and/or ``httpx2.AsyncClient``, or
    a tuple of both), ``vertexai``, ``project``, ``location``, ``credentials``,
    ``api_version``, ``retry_options`` (other ``HttpRetryOptions`` fields, e.g.
    ``initial_delay``).
    """

    def __init__(self, **config: Any) -> None:
        if "retry_options" in config:
            raise ConfigurationError(
                "retry_options is not used: retries follow one policy on every provider; set "
                "max_retries (default 2) and max_retry_wait (default 60 s) instead")
        unknown = sorted(set(config) - _CONFIG_KEYS)
        if unknown:
            from ..core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message("google", unknown, _CONFIG_KEYS))
        config = dict(config)
        self._calls = _retry.CallPolicy.from_config(
            config, _NAME, default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(config.get("base_url") or (
                "https://generativelanguage.googleapis.com" if not config.get("vertexai")
                else f"https://{config.get('location') or 'aiplatform'}.googleapis.com")))
        transport = config.pop("async_transport", None)
        if transport not in (None, "httpx", "aiohttp"):
            raise ConfigurationError(
                f"async_transport must be 'httpx' or 'aiohttp', got {transport!r}")
        if transport == "aiohttp":
            if self._http_clients_given(config)[1] is not None:
                raise ConfigurationError("pass either async_transport='aiohttp' or an async "
                                         "http_client, not both")
            import importlib.util

            if importlib.util.find_spec("aiohttp") is None:
                from ..core.errors import MissingDependencyError

                raise MissingDependencyError("async_transport='aiohttp' needs aiohttp: "
                                             'pip install "aisuite-like[aiohttp]"')
        self._aiohttp = transport == "aiohttp"
        if config.get("timeout") is not None and not _valid_timeout(config["timeout"]):
            raise ConfigurationError(
                "timeout must be a number of seconds > 0 (or an httpx2.Timeout) for provider "
                f"'google', got {config['timeout']!r}")
        self.key = _NAME
        self._vertex = bool(config.get("vertexai"))
        api_key = config.get("api_key")
        if api_key is None and not self._vertex:
            api_key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY") or None
            if api_key is None:
                raise AuthenticationError(
                    "no API key for provider 'google': set GEMINI_API_KEY (or GOOGLE_API_KEY) or "
                    "pass provider_configs={'google': {'api_key': ...}}; for Vertex AI pass "
                    "vertexai=True, project=... and location=...", provider=_NAME)
        if not self._vertex and (config.get("project") or config.get("location")):
            raise ConfigurationError("project/location are Vertex AI settings: add vertexai=True")
        self._api_key: Optional[str] = clean_api_key(api_key, _NAME)
        self._config = config
        self._client: Any = None
        self._own_async_http: Any = None
        self._paths: dict[tuple[str, bool], str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the key
        return f"GoogleProvider(vertexai={self._vertex})"

    # -- the SDK client: created on first use, shared by sync and async calls --

    def _http_clients(self) -> tuple[Any, Any]:
        return self._http_clients_given(self._config)

    @staticmethod
    def _http_clients_given(config: Mapping[str, Any]) -> tuple[Any, Any]:
        """``http_client`` config (one client, or a tuple of a sync and an async one) ->
        (sync, async)."""
        import httpx2

        given = config.get("http_client")
        sync_client = async_client = None
        for item in given if isinstance(given, (tuple, list)) else (given,):
            if item is None:
                continue
            if isinstance(item, httpx2.AsyncClient):
                async_client = item
            elif isinstance(item, httpx2.Client):
                sync_client = item
            else:
                raise ConfigurationError(
                    "http_client must be an httpx2.Client or httpx2.AsyncClient (or a tuple of "
                    f"both), got {type(item).__name__}")
        return sync_client, async_client

    def _sdk(self) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._build_client()
                client = self._client
        return client

    def _build_client(self) -> Any:
        from google import genai
        from google.genai import _api_client as sdk_api_client, types as gtypes

        config = self._config
        sync_http, async_http = self._http_clients()
        if async_http is None and not self._aiohttp:
            # google-genai sends async requests through aiohttp whenever aiohttp is installed;
            # its own per-event-loop httpx2 client keeps every call on the httpx2 stack.
            cls = getattr(sdk_api_client, "AsyncHttpx2Client", None)
            if cls is None:
                import httpx2

                cls = httpx2.AsyncClient
            async_http = self._own_async_http = cls(
                follow_redirects=True, event_hooks=redirect_hooks(self.key, is_async=True))
        # Retries are ours (aisuite_like._retry), the same on every family: one SDK attempt
        # (its retry_options also stop the aiohttp path's own implicit retry). The timeout is
        # set on each request by _send, so no X-Server-Timeout header goes out unless the
        # user configured a timeout.
        options: dict[str, Any] = {"retry_options": gtypes.HttpRetryOptions(attempts=1)}
        if async_http is not None:  # else google-genai's aiohttp transport
            options["httpx_async_client"] = async_http
        if sync_http is not None:
            options["httpx_client"] = sync_http
        elif not (self._vertex and _vertex_mtls()):  # (google-auth's own session then)
            options["client_args"] = {"event_hooks": redirect_hooks(self.key, is_async=False)}
        if config.get("base_url"):
            options["base_url"] = config["base_url"]
        if config.get("default_headers"):
            options["headers"] = dict(config["default_headers"])
        if config.get("api_version"):
            options["api_version"] = config["api_version"]
        elif not self._vertex:
            # google-genai 3 defaults the Gemini API to v1, which lacks features this
            # translator uses (responseJsonSchema, thinking, function-call ids); the recorded
            # exchanges and Google's docs use v1beta. Vertex AI keeps the SDK's v1beta1.
            options["api_version"] = "v1beta"
        kwargs: dict[str, Any] = {"http_options": gtypes.HttpOptions(**options)}
        if self._vertex:
            kwargs["vertexai"] = True
            for name in ("project", "location", "credentials"):
                if config.get(name) is not None:
                    kwargs[name] = config[name]
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        try:
            client = genai.Client(**kwargs)
        except ValueError as exc:
            raise ConfigurationError(_redact(f"google-genai rejected the configuration: {exc}",
                                             (self._api_key,))) from exc
        if self._aiohttp:
            # google-genai passes these to each aiohttp request (a private attribute: see
            # docs/status.md); aiohttp >= 3.12 runs the middleware for every redirect.
            args = getattr(client._api_client, "_async_client_session_request_args", None)
            if isinstance(args, dict):
                args["middlewares"] = (redirect_middleware(self.key),)
        # timeout bounds the whole attempt (a sync client the user gave included)
        bound_sync_io(getattr(client._api_client, "_httpx_client", None))
        return client

    def _path(self, client: Any, model: str, stream: bool) -> str:
        path = self._paths.get((model, stream))
        if path is None:
            from google.genai import _transformers

            try:
                resource = _transformers.t_model(client._api_client, model)
            except ValueError as exc:
                raise InvalidModelError(f"invalid Gemini model name {model!r}: {exc}") from exc
            path = resource + (":streamGenerateContent?alt=sse" if stream else ":generateContent")
            self._paths[(model, stream)] = path
        return path

    def _http_options(self, request: ChatRequest, call: GeminiCall) -> Any:
        """A native ``http_options`` argument (a dict or an ``HttpOptions``) as the SDK's
        ``HttpOptions``, or None. The attempt timeout is applied by ``_build``."""
        native = call.http_options
        timeout = request.timeout
        if timeout is not None and not _valid_timeout(timeout):
            raise UnsupportedParameterError(
                f"timeout must be a number of seconds > 0 (or an httpx2.Timeout) on "
                f"{self.key}, got {timeout!r}", parameter="timeout", provider=self.key)
        if not native:
            return None
        from google.genai import types as gtypes

        if isinstance(native, gtypes.HttpOptions):
            return native
        try:
            return gtypes.HttpOptions(**native)
        except Exception as exc:  # pydantic ValidationError: a wrong native http_options key
            raise UnsupportedParameterError(
                f"google-genai rejected http_options: {exc}", parameter="http_options",
                provider=self.key) from exc

    def _error(self, exc: BaseException) -> BaseException:
        if isinstance(exc, TypeError):
            # The SDK could not send a value (e.g. a provider-native argument that is not
            # JSON): the caller's argument, not a bare TypeError (docs/client.md).
            return UnsupportedParameterError(
                _redact(f"{self.key} rejected an argument: {exc}. Check the provider-native "
                        "keyword arguments you passed.", (self._api_key,)), provider=self.key)
        mapped = map_sdk_error(exc, self.key, (self._api_key,))
        if mapped is not exc:
            _scrub_exception(exc, (self._api_key,))  # it becomes __cause__: tracebacks print it
        return mapped

    def _prepare(self, request: ChatRequest, stream: bool) -> "_Prepared":
        call = build_request(request, self.key)
        client = self._sdk()
        timeout = request.timeout if request.timeout is not None else self._config.get("timeout")
        return _Prepared(client, self._path(client, request.model, stream), call,
                         self._http_options(request, call), request.model, timeout)

    def _build(self, p: "_Prepared", body: dict[str, Any], aiohttp: bool,
               stream: bool = False) -> Any:
        """The SDK's HTTP request for ``body``, bounded by this attempt's timeout. aiohttp
        takes one total timeout, which would cut a stream however steadily its chunks come:
        a stream over aiohttp gets none (the retry layer bounds its first chunk and gaps)."""
        http_request = p.client._api_client._build_request("post", p.path, body, p.http_options)
        if http_request.timeout is None:  # no native http_options timeout: ours
            if not (aiohttp and stream):
                http_request.timeout = _attempt_timeout(p.timeout, aiohttp)
            if isinstance(p.timeout, (int, float)):  # what google-genai sends for a timeout
                http_request.headers["X-Server-Timeout"] = str(math.ceil(p.timeout))
        return http_request

    def _body(self, response: Any) -> dict[str, Any]:
        """The JSON object of a 2xx reply (errors were raised by the SDK); a body that is not
        one is an ``APIResponseValidationError``."""
        text = response.response_stream[0] if response.response_stream else ""
        request_id = _request_id(getattr(response, "headers", None))
        data = decode_json(text, self.key, status_code=200, request_id=request_id)
        if not isinstance(data, dict):
            error = bad_shape(self.key, "the reply", "an object", data)
            error._add_context(200, request_id)
            raise error
        return data

    def _parse(self, data: dict[str, Any], model: str, response: Any) -> ChatCompletionResponse:
        request_id = _request_id(getattr(response, "headers", None))
        return read_reply(lambda: parse_response(data, self.key, model), self.key, 200,
                          request_id)

    # -- calls --

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return _retry.call(self._calls, self._complete_once, self._prepare(request, False),
                           self._calls.bounds(request.timeout))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return await _retry.acall(self._calls, self._acomplete_once,
                                  self._prepare(request, False),
                                  self._calls.bounds(request.timeout))

    # A reply that stops with finish reason CONTINUATION and a continuationToken goes on in a
    # new request carrying the token, as google-genai's generate_content does; the parts are
    # joined and the usage summed.

    def _complete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        api = p.client._api_client
        with _mapped_errors(self._error):
            body = p.call.body
            response = api._request(self._build(p, body, False), p.http_options)
            data = self._body(response)
            while (token := continuation_token(data)) is not None:
                more = {**body, "continuationToken": token}
                response = api._request(self._build(p, more, False), p.http_options)
                data = merge_continued(data, self._body(response))
        return self._parse(data, p.model, response)

    async def _acomplete_once(self, p: "_Prepared") -> ChatCompletionResponse:
        api = p.client._api_client
        with _mapped_errors(self._error):
            body = p.call.body
            response = await api._async_request(self._build(p, body, self._aiohttp),
                                                p.http_options)
            data = self._body(response)
            while (token := continuation_token(data)) is not None:
                more = {**body, "continuationToken": token}
                response = await api._async_request(self._build(p, more, self._aiohttp),
                                                    p.http_options)
                data = merge_continued(data, self._body(response))
        return self._parse(data, p.model, response)

    # Streams use the API client's request/segments layer directly: its public
    # request_streamed() re-serialises every event and never closes the sync response on an
    # early exit. ``p.client`` stays referenced by the generator frame: a google-genai Client
    # closes its HTTP client when garbage-collected.

    # stream / astream translate at once, so a bad argument raises at create(stream=True) as
    # it does without stream; the request is sent on the first iteration.

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        return _retry.stream(self._calls, self._stream, self._prepare(request, True),
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        return _retry.astream(self._calls, self._astream, self._prepare(request, True),
                              self._calls.bounds(request.timeout))

    def _stream(self, p: "_Prepared") -> Iterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        api = p.client._api_client
        body = p.call.body
        while True:
            raw = None
            try:
                with _mapped_errors(self._error):
                    response = api._request(self._build(p, body, False), p.http_options,
                                            stream=True)
                    raw = response.response_stream
                    body_events = _BodyEvents(translator)
                    for data in raw.iter_bytes():
                        yield from body_events.feed(data)
                    yield from body_events.end()
            finally:
                if raw is not None:
                    raw.close()  # releases the connection, also on early exit
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    async def _astream(self, p: "_Prepared") -> AsyncIterator[ChatCompletionChunk]:
        translator = StreamTranslator(self.key, p.model, secrets=(self._api_key,))
        api = p.client._api_client
        body = p.call.body
        while True:
            raw = None
            try:
                with _mapped_errors(self._error):
                    response = await api._async_request(
                        http_request=self._build(p, body, self._aiohttp, stream=True),
                        http_options=p.http_options, stream=True)
                    raw = response.response_stream
                    body_events = _BodyEvents(translator)
                    reads = (raw.aiter_bytes() if hasattr(raw, "aiter_bytes")
                             else raw.content.iter_any())  # httpx2, or an aiohttp response
                    async for data in reads:
                        for chunk in body_events.feed(data):
                            yield chunk
                    for chunk in body_events.end():
                        yield chunk
            finally:
                if raw is not None:
                    closing = getattr(raw, "aclose", None)
                    if closing is not None:
                        await closing()
                    else:  # an aiohttp response
                        raw.close()
            token = translator.continuation
            if token is None:
                break
            translator.next_request()
            body = {**p.call.body, "continuationToken": token}
        yield translator.finish()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()  # the SDK-owned sync HTTP client (a user's client stays open)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        own, self._own_async_http = self._own_async_http, None
        if own is not None:
            await own.aclose()
        if client is not None:
            await client.aio.aclose()
            client.close()
