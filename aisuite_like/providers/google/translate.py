"""Gemini's wire JSON, pure (no I/O, no SDK import): ``ChatRequest`` -> the
``generateContent`` body (camelCase JSON, the shape of the recorded fixtures) with
``build_request``; a raw response dict -> ``ChatCompletionResponse`` with ``parse_response``;
the continuation of a reply over several requests.

Decisions (schemas, ids, thought signatures, finish reasons, usage) are in
``docs/providers/google.md``.
"""

from __future__ import annotations

import mimetypes
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ...core.content import text_of
from ...core.errors import UnsupportedParameterError
from ...core.portability import HistoryRules, fit_history
from ...core.types import (
    ChatCompletionResponse,
    ChatCompletionTokenLogprob,
    Choice,
    ChoiceLogprobs,
    CompletionTokensDetails,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    TopLogprob,
    Usage,
    construct_model,
)
from .._common import (
    arguments_json,
    bad_shape,
    check_n,
    loads_arguments,
    need_name,
    opt_count,
    opt_list,
    opt_object,
    opt_str,
    parse_data_url,
    stop_sequences,
    unsupported,
)
from ..base import ChatRequest
from ..reasoning import portable_effort, refuse
from .errors import _NAME, error_event

__all__ = [
    "GeminiCall",
    "build_request",
    "sanitize_schema",
    "parse_response",
    "continuation_token",
    "merge_continued",
    "PLACEHOLDER_SIGNATURE",
]

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
        if file.get("file_id"):  # an upload of Gemini's Files API (docs/files.md)
            return _uploaded_part(file, where)
    raise UnsupportedParameterError(
        f"{where}: content part {kind!r} is not supported on Gemini (supported: text, "
        "image_url, input_audio, file with a base64 data: URL in file_data)",
        parameter="messages", provider=_NAME)


#: Where an uploaded file's uri points (the Gemini API's files, by name).
_FILES_URI = "https://generativelanguage.googleapis.com/v1beta/"


def _uploaded_part(file: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A Files API upload (``files/<id>`` or its uri) as a ``fileData`` part."""
    from .._common import check_file_id

    index = int(where.rsplit("[", 1)[-1].rstrip("]")) if where.endswith("]") else 0
    file_id = check_file_id(file["file_id"], "google", _NAME, index)
    uri = file_id if file_id.startswith("https://") else _FILES_URI + file_id
    part: dict[str, Any] = {"fileUri": uri}
    mime = file.get("mime_type") or (mimetypes.guess_type(str(file.get("filename") or ""))[0]
                                     if file.get("filename") else None)
    if mime:
        part["mimeType"] = mime
    return {"fileData": part}


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


#: Gemini takes any call id (or none), pairs parallel results with their calls by position
#: (so they go in call order), and may match a result without an id by position.
HISTORY = HistoryRules("google", results_in_call_order=True, results_by_position=True)


def _contents(messages: list[dict[str, Any]], orphans: Optional[str] = None,
              provider: str = _NAME) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """OpenAI messages -> (system parts, contents), the history first fitted to Gemini
    (``core/portability.py``: orphaned calls and results, results in call order).
    Consecutive same-role turns are merged (so consecutive tool results form ONE user
    content)."""
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # tool calls of the last assistant message, unanswered
    for i, m in fit_history(messages, HISTORY, orphans, provider=provider):
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


def build_request(request: ChatRequest, provider: str = _NAME, *,
                  vertex: bool = False) -> GeminiCall:
    """``ChatRequest`` -> the ``generateContent`` body (``vertex``: for Vertex AI, whose
    hosted tools take a few more options). Pure: builds new structures only."""
    if request.user is not None:
        raise unsupported(provider, "user", "Gemini has no end-user field (on Vertex AI pass "
                          "labels={'user': ...} instead)")
    if request.parallel_tool_calls is False:
        raise unsupported(provider, "parallel_tool_calls",
                          "Gemini cannot switch parallel function calls off")
    if request.stream_options and set(request.stream_options) - {"include_usage"}:
        raise unsupported(provider, "stream_options",
                          "only include_usage is understood (Gemini always reports usage)")
    system, contents = _contents(request.messages, request.orphans, provider)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": system}
    tools = _tools(request.tools, request.extra.get("gemini_tools"))
    if request.hosted_tools:  # Gemini's own tools (docs/hosted-tools.md)
        from .hosted import gemini_tools

        tools = [*tools, *gemini_tools(request.hosted_tools, provider, vertex)]
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
    if request.reasoning_effort is not None:
        thinking = thinking_config(request.reasoning_effort, request.model, provider)
        if thinking is not None:
            gen["thinkingConfig"] = thinking
    http_options = None
    extra_body = None
    openai_logprobs = _logprobs_config(request.extra, provider)
    if openai_logprobs is not None:
        gen.update(openai_logprobs)
    for native, value in request.extra.items():
        key = _camel(native)
        if native == "gemini_tools" or (openai_logprobs is not None
                                        and native in ("logprobs", "top_logprobs")):
            continue  # appended to the tools above; OpenAI's logprobs, mapped above
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


# --- request: OpenAI's logprobs -> Gemini's ---------------------------------------------------

#: Gemini's ``logprobs`` (the number of top candidates per step) takes 1 to 20.
_MAX_TOP_LOGPROBS = 20


def _logprobs_config(extra: Mapping[str, Any], provider: str) -> Optional[dict[str, Any]]:
    """OpenAI's ``logprobs=True`` / ``top_logprobs=k`` -> Gemini's ``responseLogprobs`` /
    ``logprobs`` (k top candidates per step); None when the call uses neither in OpenAI's
    sense (a non-bool ``logprobs`` is Gemini's own count, passed through as given)."""
    wanted = extra.get("logprobs")
    top = extra.get("top_logprobs")
    if not isinstance(wanted, bool) and top is None:
        return None
    if top is not None and (isinstance(top, bool) or not isinstance(top, int)
                            or not 0 <= top <= _MAX_TOP_LOGPROBS):
        raise UnsupportedParameterError(
            f"top_logprobs must be an int from 0 to {_MAX_TOP_LOGPROBS}, got {top!r}",
            parameter="top_logprobs", provider=provider)
    if top is not None and wanted is not True:
        raise UnsupportedParameterError(
            "top_logprobs needs logprobs=True (as on OpenAI)", parameter="top_logprobs",
            provider=provider)
    if not wanted:
        return {}
    config: dict[str, Any] = {"responseLogprobs": True}
    if top:
        config["logprobs"] = top
    return config


# --- reply: logprobsResult -> ChoiceLogprobs --------------------------------------------------


def _token_logprob(entry: Any, provider: str, where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise bad_shape(provider, where, "an object", entry)
    token = entry.get("token")
    logprob = entry.get("logProbability")
    if not isinstance(token, str):
        raise bad_shape(provider, f"{where}.token", "a string", token)
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)):
        raise bad_shape(provider, f"{where}.logProbability", "a number", logprob)
    return {"token": token, "bytes": list(token.encode("utf-8")), "logprob": float(logprob)}


def gemini_logprobs(result: Any, provider: str = _NAME) -> Optional[ChoiceLogprobs]:
    """A candidate's ``logprobsResult`` (``chosenCandidates``: the token at each step;
    ``topCandidates``: the most likely ones there) -> OpenAI's ``ChoiceLogprobs``: per token,
    ``token``, ``logprob``, its UTF-8 ``bytes`` and ``top_logprobs``."""
    if result is None:
        return None
    where = "candidates[].logprobsResult"
    if not isinstance(result, dict):
        raise bad_shape(provider, where, "an object", result)
    chosen = opt_list(result.get("chosenCandidates"), provider, f"{where}.chosenCandidates")
    tops = opt_list(result.get("topCandidates"), provider, f"{where}.topCandidates") or []
    content = []
    for step, entry in enumerate(chosen or ()):
        token = _token_logprob(entry, provider, f"{where}.chosenCandidates[]")
        top = tops[step] if step < len(tops) else None
        if top is not None and not isinstance(top, dict):
            raise bad_shape(provider, f"{where}.topCandidates[]", "an object", top)
        alternatives = opt_list((top or {}).get("candidates"), provider,
                                f"{where}.topCandidates[].candidates") or []
        token["top_logprobs"] = [
            construct_model(TopLogprob, **_token_logprob(
                c, provider, f"{where}.topCandidates[].candidates[]")) for c in alternatives]
        content.append(construct_model(ChatCompletionTokenLogprob, **token))
    return construct_model(ChoiceLogprobs, content=content, refusal=None)


# --- request: reasoning_effort -> thinkingConfig --------------------------------------------

#: Effort -> ``thinkingBudget`` on Gemini 2.5 (within every 2.5 model's range: Pro 128-32768,
#: Flash 0-24576, Flash-Lite 512-24576).
GEMINI_BUDGETS = {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
#: Effort -> ``thinkingLevel`` on Gemini 3 and later; Gemini 3 Pro takes LOW and HIGH only,
#: so an effort between them goes to the level at or above it.
GEMINI_LEVELS = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH"}
_PRO_3_LEVELS = {"minimal": "LOW", "low": "LOW", "medium": "HIGH", "high": "HIGH"}

_VERSION = re.compile(r"gemini-(\d+)(?:\.(\d+))?")


def thinking_config(effort: str, model: str, provider: str = _NAME) -> Optional[dict[str, Any]]:
    """``reasoning_effort`` -> ``generationConfig.thinkingConfig`` by the model's name
    (docs/reasoning-and-caching.md): ``thinkingLevel`` for Gemini 3 and later (and names the
    table does not know), ``thinkingBudget`` for 2.5, with ``includeThoughts`` so the thought
    summaries come back. Gemini 3 and 2.5 Pro cannot stop thinking: ``"none"`` is refused
    there; older models (1.x, 2.0, Gemma) do not reason: only ``"none"`` (nothing sent)."""
    effort = portable_effort(effort, provider, model)
    name = model.lower().rsplit("/", 1)[-1]
    match = _VERSION.search(name)
    version = (int(match.group(1)), int(match.group(2) or 0)) if match else None
    if name.startswith("gemma") or (version is not None and version < (2, 5)):
        if effort == "none":
            return None
        raise refuse(provider, model, effort, "this model does not think")
    if version is not None and version < (3, 0):  # 2.5: a budget
        if effort == "none":
            if "-pro" in name:
                raise refuse(provider, model, effort, "Gemini 2.5 Pro always thinks; use "
                             "'minimal' for the least")
            return {"thinkingBudget": 0}
        return {"thinkingBudget": GEMINI_BUDGETS[effort], "includeThoughts": True}
    if effort == "none":
        raise refuse(provider, model, effort, "Gemini 3 models always think; use 'minimal' "
                     "for the least")
    levels = _PRO_3_LEVELS if version == (3, 0) and "-pro" in name else GEMINI_LEVELS
    return {"thinkingLevel": levels[effort], "includeThoughts": True}


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
    return construct_model(Usage,
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion,
        prompt_tokens_details=(construct_model(PromptTokensDetails, cached_tokens=cached)
                               if cached is not None else None),
        completion_tokens_details=(construct_model(CompletionTokensDetails,
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
        raise error_event(data["error"], provider, where="error object in the reply")
    candidates = opt_list(data.get("candidates"), provider, "candidates")
    if not candidates and _blocked(data.get("promptFeedback")) is None:
        raise bad_shape(provider, "candidates", "at least one candidate (or a promptFeedback "
                        "blockReason)", candidates, missing=candidates is None)
    ids = _CallIds(opt_str(data.get("responseId"), provider, "responseId"))
    choices = []
    hosted: list[Any] = []  # what the hosted tools did, per candidate
    for position, cand in enumerate(candidates or ()):
        parts_list = _candidate_parts(cand, provider)
        index = cand.get("index", position)
        parts = _Parts()
        parts.read(parts_list, ids.for_candidate(index), provider)
        tool_calls = [construct_model(ToolCall,
                          id=cid, type="function",
                          function=construct_model(Function, name=n, arguments=a))
                      for cid, n, a in parts.calls] or None
        native = opt_str(cand.get("finishReason"), provider, "candidates[].finishReason")
        text = "".join(parts.text)
        grounding = hosted_of(cand, parts_list, text)
        extra: dict[str, Any] = {}
        if grounding is not None:
            hosted.append(grounding)
            if grounding.annotations:
                extra["annotations"] = grounding.annotations
        found = gemini_logprobs(cand.get("logprobsResult"), provider)
        logprobs: dict[str, Any] = {"logprobs": found} if found is not None else {}
        message = construct_model(Message,
            role="assistant", content=text or None, tool_calls=tool_calls,
            reasoning_content="".join(parts.reasoning) or None,
            provider_specific_fields=parts.psf(), **extra)
        choices.append(construct_model(Choice,
            index=index, message=message, finish_reason=_finish(native, bool(tool_calls)),
            native_finish_reason=native, **logprobs))
    if not choices:
        blocked = _blocked(data.get("promptFeedback"))
        message = construct_model(Message, role="assistant",
                                          refusal=blocked[1] if blocked else None)
        choices.append(construct_model(Choice,
            index=0, message=message, finish_reason="content_filter" if blocked else None,
            native_finish_reason=blocked[0] if blocked else None))
    usage = _usage(data.get("usageMetadata"), provider)
    more: dict[str, Any] = {}
    if hosted:
        more["tool_events"] = [e for g in hosted for e in g.events()]
        if usage is not None and hosted[0].usage() is not None:
            usage.server_tool_use = hosted[0].usage()
    return construct_model(ChatCompletionResponse,
        id=data.get("responseId") or ids.base, created=created or int(time.time()),
        model=data.get("modelVersion") or model, provider=provider, choices=choices,
        usage=usage, raw=data, **more)


def hosted_of(cand: Mapping[str, Any], parts: Iterable[Any], text: str) -> Any:
    """What the hosted tools did in a candidate (``hosted.Grounding``), or None when they
    did nothing there (no grounding, URL context or code run)."""
    parts = list(parts)
    if not (cand.get("groundingMetadata") or cand.get("urlContextMetadata") or any(
            isinstance(p, Mapping) and ("executableCode" in p or "codeExecutionResult" in p)
            for p in parts)):
        return None
    from .hosted import Grounding

    grounding = Grounding()
    starts, texts, position = [], [], 0
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        grounding.part(part)
        piece = part["text"] if isinstance(part.get("text"), str) and not part.get("thought") \
            else ""
        starts.append(position)
        texts.append(piece)
        position += len(piece)
    grounding.metadata(cand, text, starts, texts)
    return grounding if grounding else None


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
