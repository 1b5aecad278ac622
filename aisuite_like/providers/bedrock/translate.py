"""Bedrock's Converse API, pure (no I/O, importable without botocore): ``ChatRequest`` ->
the keyword arguments of ``converse`` / ``converse_stream`` (``build_request``), and the
Converse response dict botocore returns -> ``ChatCompletionResponse`` (``parse_response``).

Decisions (what raises, ``tool_choice="none"``, reasoning blocks) are documented in
docs/providers/bedrock.md.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Iterable
from typing import Any, Optional

from ...core.checks import tool_call_id_of
from ...core.content import text_of
from ...core.errors import APIError, UnsupportedParameterError
from ...core.portability import HistoryRules, IdRule, fit_history, turn_lacks_own_reasoning
from ...core.types import (
    ChatCompletionResponse,
    Choice,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    Usage,
    build_model,
)
from .._common import (
    arguments_json,
    json_schema_format,
    loads_arguments,
    parse_data_url,
    stop_sequences,
    unsupported,
)
from ..base import ChatRequest
from ..reasoning import (
    ADAPTIVE_EFFORTS,
    MAX_CACHE_BREAKPOINTS,
    cache_turns,
    claude_kind,
    claude_thinking,
    portable_effort,
    refuse,
)
from .errors import PROVIDER

__all__ = [
    "REASONING_BLOCKS_KEY",
    "build_request",
    "parse_response",
    "translate_messages",
    "translate_tools",
    "translate_tool_choice",
    "translate_response_format",
    "finish_reason_for",
    "usage_from",
]

#: ``Message.provider_specific_fields`` key holding the reply's ``reasoningContent`` blocks
#: as Converse sent them (``{"reasoningText": {"text", "signature"}}``, or
#: ``{"redactedContent": <base64 text>}``), to be sent back unchanged on the next turn.
REASONING_BLOCKS_KEY = "reasoning_blocks"

#: Converse takes ``toolUseId`` of 1 to 64 characters, and Claude behind it only letters,
#: digits, ``_`` and ``-``, each id once in a request; others are rewritten
#: (docs/portability.md).
BEDROCK_IDS = IdRule("bedrock", chars="a-zA-Z0-9_-", max_length=64, unique=True)
HISTORY = HistoryRules("bedrock", ids=BEDROCK_IDS)

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
    if request.hosted_tools:  # Amazon Nova's system tools (docs/hosted-tools.md)
        from .hosted import system_tools

        tools = [*(tools or ()), *system_tools(request.hosted_tools, request.model, provider)]
    tool_choice = translate_tool_choice(request.tool_choice, has_tools=bool(tools),
                                        provider=provider)
    if request.tool_choice == "none":
        tools = None  # Converse has no "none": a request without tools cannot call one
    # Without a toolConfig Converse rejects toolUse / toolResult blocks: describe them in text.
    as_text = not tools and "toolConfig" not in request.extra
    system, messages = translate_messages(request.messages, tools_as_text=as_text,
                                          provider=provider, orphans=request.orphans)
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
    if request.reasoning_effort is not None:
        _apply_reasoning(kwargs, request, forces_tool=bool(tools) and tool_choice is not None
                         and "auto" not in tool_choice, provider=provider)
    if request.user is not None:
        kwargs["requestMetadata"] = {"user": request.user}
    output_config = translate_response_format(request.response_format, provider=provider)
    if output_config is not None:
        kwargs["outputConfig"] = output_config
    if request.extra:
        _merge_native(kwargs, request.extra, provider=provider)
    fields = kwargs.get("additionalModelRequestFields")
    thinking = fields.get("thinking") if isinstance(fields, dict) else None
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive") \
            and turn_lacks_own_reasoning(request.messages, _has_reasoning):
        # Claude takes one thinking setting per assistant turn: a turn whose tool calls came
        # without its reasoning (another family's) is finished with thinking off
        # (docs/portability.md). A new dict: the fields may be the caller's.
        kwargs["additionalModelRequestFields"] = {
            k: v for k, v in fields.items() if k != "thinking"}  # type: ignore[union-attr]
        if not kwargs["additionalModelRequestFields"]:
            del kwargs["additionalModelRequestFields"]
    if request.prompt_cache == "auto":
        add_cache_points(kwargs, request.model)
    return kwargs


def _has_reasoning(message: Any) -> bool:
    psf = message.get("provider_specific_fields")
    return isinstance(psf, dict) and bool(psf.get(REASONING_BLOCKS_KEY))


# Model-id patterns (docs/reasoning-and-caching.md): how each family takes the effort.
_NOVA_2 = re.compile(r"amazon\.nova-2")
_GPT_OSS = re.compile(r"openai\.gpt-oss")
_ALWAYS_REASONS = re.compile(r"deepseek\.r1")
_NO_REASONING = re.compile(
    r"amazon\.(?:nova-(?:micro|lite|pro|premier)-v1|titan)|meta\.llama|mistral\.|cohere\."
    r"|ai21\.|writer\.")


def _apply_reasoning(kwargs: dict[str, Any], request: ChatRequest, *, forces_tool: bool,
                     provider: str) -> None:
    """``reasoning_effort`` -> the model's own fields (``additionalModelRequestFields``) by
    its model id: Claude's ``thinking`` (and ``output_config.effort``, ``maxTokens``), Nova
    2's ``reasoningConfig``, gpt-oss's ``reasoning_effort``. A model the table knows not to
    reason, or does not know, takes only ``"none"`` (nothing sent)."""
    model, effort = request.model, request.reasoning_effort
    assert effort is not None
    fields: dict[str, Any] = {}
    name = model.lower()
    if "claude" in name:
        kind = claude_kind(model)
        plan = claude_thinking(
            effort, model, "adaptive" if kind == "unknown" else kind,
            max_tokens=request.max_tokens, default_max_tokens=None,
            temperature=request.temperature, top_p=request.top_p, forces_tool=forces_tool,
            provider=provider)
        if plan.thinking is not None:
            fields["thinking"] = plan.thinking
        if plan.effort is not None:
            fields["output_config"] = {"effort": plan.effort}
        if plan.max_tokens is not None:
            kwargs["inferenceConfig"] = {**kwargs.get("inferenceConfig", {}),
                                         "maxTokens": plan.max_tokens}
    elif _ALWAYS_REASONS.search(name):
        raise refuse(provider, model, portable_effort(effort, provider, model),
                     "DeepSeek-R1 always reasons, at a depth that cannot be set")
    elif _GPT_OSS.search(name):
        if portable_effort(effort, provider, model) == "none":
            raise refuse(provider, model, effort, "gpt-oss always reasons; use 'minimal' "
                         "or 'low' for the least")
        fields["reasoning_effort"] = ADAPTIVE_EFFORTS[effort]
    elif _NOVA_2.search(name):
        if portable_effort(effort, provider, model) != "none":
            fields["reasoningConfig"] = {"type": "enabled",
                                         "maxReasoningEffort": ADAPTIVE_EFFORTS[effort]}
    elif portable_effort(effort, provider, model) != "none":
        raise refuse(provider, model, effort, "this model does not reason"
                     if _NO_REASONING.search(name) else
                     "its family is not in the table of reasoning models; pass the model's "
                     "own field natively (e.g. thinking={...} for Claude, reasoningConfig={...} "
                     "for Nova 2), which goes into additionalModelRequestFields")
    if fields:
        kwargs["additionalModelRequestFields"] = fields


def _cache_scope(model: str) -> tuple[bool, bool]:
    """Whether a model takes cache points (in the system prompt and messages), and whether
    in its tools too: Claude from 3.5 Haiku / 3.7 Sonnet on (all three), Amazon Nova (system
    and messages); other models none."""
    name = model.lower()
    if "claude" in name:
        ok = claude_kind(model) != "none" or "claude-3-5-haiku" in name
        return ok, ok
    if "amazon.nova" in name:
        return True, False
    return False, False


def add_cache_points(kwargs: dict[str, Any], model: str) -> None:
    """``prompt_cache="auto"``: ``cachePoint`` blocks, most valuable first, at the end of the
    request's messages, the end of the previous call's messages (the turn before the last
    assistant turn), the system prompt and the tools, while fewer than four are in the
    request (the caller's own count), on the models that take them (:func:`_cache_scope`).
    Lists the caller gave natively are copied, never changed."""
    supported, in_tools = _cache_scope(model)
    if not supported:
        return
    messages = kwargs["messages"]
    system = kwargs.get("system")
    tool_config = kwargs.get("toolConfig")
    tools = tool_config.get("tools") if isinstance(tool_config, dict) else None
    used = _points(system) + _points(tools) + sum(_points(m.get("content")) for m in messages)
    free = MAX_CACHE_BREAKPOINTS - used
    for index in cache_turns([m.get("role") for m in messages]):
        if free <= 0:
            return
        content = messages[index].get("content")
        if isinstance(content, list) and _can_end_with_point(content):
            content.append({"cachePoint": {"type": "default"}})  # our own list
            free -= 1
    if free > 0 and isinstance(system, list) and _can_end_with_point(system):
        kwargs["system"] = [*system, {"cachePoint": {"type": "default"}}]
        free -= 1
    if free > 0 and in_tools and isinstance(tools, list) and _can_end_with_point(tools):
        kwargs["toolConfig"] = {**tool_config,  # type: ignore[dict-item]
                                "tools": [*tools, {"cachePoint": {"type": "default"}}]}


def _points(blocks: Any) -> int:
    return sum(1 for b in blocks or () if isinstance(b, dict) and "cachePoint" in b)


def _can_end_with_point(blocks: list[Any]) -> bool:
    """A cache point may follow the last block: there is one, it is not a cache point
    already, nor reasoning."""
    last = blocks[-1] if blocks else None
    return isinstance(last, dict) and "cachePoint" not in last \
        and "reasoningContent" not in last


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
    provider: str = PROVIDER, orphans: Optional[str] = None,
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
    history = fit_history(messages if isinstance(messages, list) else list(messages), HISTORY,
                          orphans, provider=provider)  # ids, orphans: docs/portability.md
    for i, msg in history:
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
        details = build_model(PromptTokensDetails, {"cached_tokens": cache_read or 0,
                                               "cache_creation_tokens": cache_write or 0})
    usage: Usage = build_model(Usage, {
        "prompt_tokens": prompt, "completion_tokens": output_tokens,
        "total_tokens": prompt + output_tokens, "prompt_tokens_details": details,
        "completion_tokens_details": None, "server_tool_use": None})
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
    hosted: Any = None  # Nova's system tools' calls (hosted.NovaCalls), if any
    annotations: list[dict[str, Any]] = []
    for block in message_data["content"]:
        if not isinstance(block, dict):
            raise _response_error("a content block is not an object", provider, request_id)
        if "text" in block:
            texts.append(block["text"])
        elif (isinstance(block.get("toolUse"), dict) and \
                block["toolUse"].get("type") == "server_tool_use") or \
                isinstance(block.get("toolResult"), dict) or "citationsContent" in block:
            hosted = _hosted_block(block, texts, annotations, hosted)
        elif "toolUse" in block:
            use = block["toolUse"]
            if not isinstance(use, dict) or not use.get("name") or not use.get("toolUseId"):
                raise _response_error("a toolUse block without name or toolUseId", provider,
                                      request_id)
            tool_calls.append(build_model(ToolCall, {
                "id": use["toolUseId"], "type": "function",
                "function": build_model(Function, {"name": use["name"],
                                              "arguments": arguments_json(use.get("input"))})}))
        elif "reasoningContent" in block:
            stored = _stored_reasoning(block["reasoningContent"] or {})
            if stored is not None:
                reasoning_blocks.append(stored)
                if "reasoningText" in stored and stored["reasoningText"]["text"]:
                    reasoning.append(stored["reasoningText"]["text"])
        # Other blocks (citationsContent, image, ...) stay in ``response.raw``.
    # Built with every field given (types.build_model): no per-field default lookups per call.
    message = build_model(Message, {
        "role": "assistant", "content": "".join(texts) or None,
        "tool_calls": tool_calls or None, "tool_call_id": None, "name": None,
        "reasoning_content": "".join(reasoning) or None, "refusal": None,
        "provider_specific_fields": {REASONING_BLOCKS_KEY: reasoning_blocks}
        if reasoning_blocks else None, "annotations": annotations or None, "audio": None})
    stop_reason = data.get("stopReason")
    choice = build_model(Choice, {
        "index": 0, "message": message,
        "finish_reason": finish_reason_for(stop_reason, bool(tool_calls)),
        "native_finish_reason": stop_reason, "intermediate_messages": [], "logprobs": None})
    response: ChatCompletionResponse = build_model(ChatCompletionResponse, {
        "id": request_id or "", "object": "chat.completion",
        "created": int(time.time()) if created is None else created, "model": model,
        "provider": provider, "choices": [choice], "usage": usage_from(data.get("usage")),
        "intermediate_responses": [], "messages": None, "stop_reason": None,
        "tool_events": [], "context_events": [], "fallback_errors": [], "raw": data,
        "system_fingerprint": None,
        "service_tier": None})
    if hosted is not None:  # what the system tools did (docs/hosted-tools.md)
        response.tool_events = hosted.events()
        if response.usage is not None:
            response.usage.server_tool_use = hosted.usage()
    return response


def _hosted_block(block: dict[str, Any], texts: list[str],
                  annotations: list[dict[str, Any]], hosted: Any) -> Any:
    """A block of Nova's system tools: a call, its result, or cited text."""
    from .hosted import NovaCalls, citation_annotations

    if hosted is None:
        hosted = NovaCalls()
    if "citationsContent" in block:
        cited = block["citationsContent"] if isinstance(block["citationsContent"], dict) \
            else {}
        text = "".join(c.get("text") or "" for c in cited.get("content") or ()
                       if isinstance(c, dict))
        start = sum(len(t) for t in texts)
        texts.append(text)
        annotations.extend(citation_annotations(cited, start, start + len(text)))
    elif "toolUse" in block:
        hosted.use(block["toolUse"])
    else:
        hosted.result(block["toolResult"])
    return hosted


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
