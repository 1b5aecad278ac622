"""Anthropic Messages API translation (docs/providers/anthropic.md), pure: no I/O, no SDK.

:func:`build_request` (``ChatRequest`` -> ``messages.create`` keyword arguments) and
:func:`parse_response` (the raw Messages JSON -> ``ChatCompletionResponse``), with their parts
(messages, tools, tool choice, response format, finish reasons, usage).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Optional

from ...core.checks import tool_call_id_of
from ...core.errors import UnsupportedParameterError
from ...core.portability import HistoryRules, IdRule, fit_history, turn_lacks_own_reasoning
from ...core.types import (
    ChatCompletionResponse,
    Choice,
    CompletionTokensDetails,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    Usage,
    construct_model,
)
from .._common import (
    arguments_json,
    bad_shape,
    check_file_id,
    json_schema_format,
    loads_arguments,
    need_name,
    need_object,
    opt_count,
    opt_str,
    parse_data_url,
    stop_sequences,
    unsupported,
)
from ..base import ChatRequest
from ..reasoning import MAX_CACHE_BREAKPOINTS, cache_turns, claude_kind, claude_thinking
from .errors import error_from_stream_event

PROVIDER = "anthropic"

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

#: The Messages API takes tool-use ids of letters, digits, ``_`` and ``-`` (``String should
#: match pattern '^[a-zA-Z0-9_-]+$'``), each once in a request; others are rewritten
#: (docs/portability.md).
ANTHROPIC_IDS = IdRule("anthropic", chars="a-zA-Z0-9_-", unique=True)
HISTORY = HistoryRules("anthropic", ids=ANTHROPIC_IDS)

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

    system, messages = translate_messages(request.messages, provider=provider,
                                          orphans=request.orphans)
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "max_tokens": request.max_tokens if request.max_tokens is not None
        else default_max_tokens,
    }
    if system is not None:
        kwargs["system"] = system

    tools = translate_tools(request.tools) if request.tools else None
    betas: list[str] = []
    if request.hosted_tools:  # Anthropic's server tools (docs/hosted-tools.md)
        from .hosted import server_tools

        server, betas = server_tools(request.hosted_tools)
        tools = [*(tools or ()), *server]
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

    if request.reasoning_effort is not None:
        _apply_reasoning(kwargs, request, default_max_tokens, provider)
    if request.extra:
        _merge_native(kwargs, request.extra, sdk_params=sdk_params, provider=provider)
    if _reads_files(messages):
        add_beta(kwargs, FILES_BETA)
    for beta in betas:
        add_beta(kwargs, beta)
    if _thinking_on(kwargs.get("thinking")) and turn_lacks_own_reasoning(
            request.messages, _has_thinking):
        # Claude takes one thinking setting per assistant turn, and a turn whose tool calls
        # came without Claude's thinking (another family's, e.g. after a fallback) is one
        # without it: it is finished with thinking off (docs/portability.md).
        del kwargs["thinking"]
    if request.prompt_cache == "auto":
        add_cache_breakpoints(kwargs)
    return kwargs


#: The beta header value a request needs to read uploads of the Files API (docs/files.md).
FILES_BETA = "files-api-2025-04-14"


def add_beta(kwargs: dict[str, Any], beta: str) -> None:
    """Add ``beta`` to the request's ``anthropic-beta`` header (the caller's own
    ``extra_headers`` kept, its betas too)."""
    headers = dict(kwargs.get("extra_headers") or {})
    key = next((k for k in headers if k.lower() == "anthropic-beta"), "anthropic-beta")
    given = [b.strip() for b in str(headers.get(key) or "").split(",") if b.strip()]
    if beta not in given:
        given.append(beta)
    headers[key] = ",".join(given)
    kwargs["extra_headers"] = headers


def _reads_files(messages: list[dict[str, Any]]) -> bool:
    """Whether a translated user turn holds a block whose source is a Files API upload."""
    for turn in messages:
        if turn["role"] != "user":
            continue
        for block in turn["content"]:
            source = block.get("source") if isinstance(block, dict) else None
            if isinstance(source, dict) and source.get("type") == "file":
                return True
    return False
def _thinking_on(thinking: Any) -> bool:
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _has_thinking(message: Any) -> bool:
    psf = message.get("provider_specific_fields")
    return isinstance(psf, dict) and bool(psf.get(THINKING_BLOCKS_KEY))


def _apply_reasoning(kwargs: dict[str, Any], request: ChatRequest, default_max_tokens: int,
                     provider: str) -> None:
    """``reasoning_effort`` -> ``thinking`` (and ``output_config.effort``, ``max_tokens``) by
    the model's kind of thinking (docs/reasoning-and-caching.md). Every Anthropic model is a
    Claude model: a name the table does not know is taken for the newest kind (adaptive)."""
    assert request.reasoning_effort is not None
    kind = claude_kind(request.model)
    choice = kwargs.get("tool_choice")
    plan = claude_thinking(
        request.reasoning_effort, request.model, "adaptive" if kind == "unknown" else kind,
        max_tokens=request.max_tokens, default_max_tokens=default_max_tokens,
        temperature=request.temperature, top_p=request.top_p,
        forces_tool=choice is not None and choice.get("type") in ("any", "tool"),
        provider=provider, display=True)
    if plan.thinking is not None:
        kwargs["thinking"] = plan.thinking
    if plan.effort is not None:
        kwargs["output_config"] = {**kwargs.get("output_config", {}), "effort": plan.effort}
    if plan.max_tokens is not None:
        kwargs["max_tokens"] = plan.max_tokens


_EPHEMERAL = {"type": "ephemeral"}
_NOT_MARKABLE = frozenset({"thinking", "redacted_thinking"})  # the API refuses cache_control


def add_cache_breakpoints(kwargs: dict[str, Any]) -> None:
    """``prompt_cache="auto"``: ``cache_control`` breakpoints, most valuable first, on the
    end of the request's messages, the end of the previous call's messages (the turn before
    the last assistant turn), the system prompt and the tools, while fewer than four are in
    the request (the caller's own count: docs/reasoning-and-caching.md). Marked blocks are
    copies; the caller's dicts are never changed."""
    messages = kwargs["messages"]
    system = kwargs.get("system")
    tools = kwargs.get("tools")
    used = (1 if kwargs.get("cache_control") else 0) + _marked(tools) + (
        _marked(system) if isinstance(system, list) else 0) + sum(
        _marked(turn["content"]) for turn in messages if isinstance(turn.get("content"), list))
    free = MAX_CACHE_BREAKPOINTS - used
    for index in cache_turns([turn["role"] for turn in messages]):
        if free <= 0:
            return
        content = messages[index].get("content")
        if isinstance(content, list) and _mark_last(content):
            free -= 1
    if free > 0 and system:
        if isinstance(system, str):
            kwargs["system"] = [{"type": "text", "text": system,
                                 "cache_control": dict(_EPHEMERAL)}]
            free -= 1
        elif isinstance(system, list):
            system = kwargs["system"] = list(system)  # native system=: the caller's list
            if _mark_last(system):
                free -= 1
    if free > 0 and tools:
        tools = kwargs["tools"] = list(tools)
        _mark_last(tools)


def _marked(blocks: Any) -> int:
    return sum(1 for b in blocks or () if isinstance(b, dict) and b.get("cache_control"))


def _mark_last(blocks: list[Any]) -> bool:
    """Put ``cache_control`` on a copy of the last block that can carry it (not a thinking
    block); False when there is none, or it is already marked."""
    for position in range(len(blocks) - 1, -1, -1):
        block = blocks[position]
        if not isinstance(block, dict) or block.get("type") in _NOT_MARKABLE:
            continue
        if block.get("cache_control"):
            return False
        blocks[position] = {**block, "cache_control": dict(_EPHEMERAL)}
        return True
    return False


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
                f"tools, max_tokens, reasoning_effort) and as the native {name!r}; pass it once",
                parameter=name, provider=provider)
    if body_extra:
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), **body_extra}


def translate_messages(
    messages: Iterable[dict[str, Any]], *, provider: str = PROVIDER,
    orphans: Optional[str] = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """OpenAI messages -> ``(system, messages)`` of the Messages API.

    The history is first fitted to the API (``core/portability.py``: tool-use ids, orphaned
    calls and results). System and developer messages (any position) are merged in order
    into ``system``: a string when there is exactly one plain-text one, else a list of text
    blocks. ``tool`` messages become ``tool_result`` blocks of a user turn; consecutive turns
    of the same role are merged into one (so parallel tool results share one user message,
    followed by any user text).
    """
    system_blocks: list[dict[str, Any]] = []
    system_strings: list[str] = []
    turns: list[dict[str, Any]] = []
    history = fit_history(messages if isinstance(messages, list) else list(messages), HISTORY,
                          orphans, provider=provider)
    for i, msg in history:
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
            from ...core.checks import empty_message

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
    if file.get("file_id"):  # an upload of Anthropic's Files API (docs/files.md)
        file_id = check_file_id(file["file_id"], "anthropic", provider, where)
        name = str(file.get("filename") or "").lower()
        kind = "image" if name.endswith((".png", ".jpg", ".jpeg", ".gif", ".webp")) \
            else "document"
        return {"type": kind, "source": {"type": "file", "file_id": file_id}}
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
        prompt_details = construct_model(PromptTokensDetails,
            cached_tokens=cache_read or 0, cache_creation_tokens=cache_write or 0)
    completion_details = None
    output_details = raw.get("output_tokens_details")
    if output_details and output_details.get("thinking_tokens") is not None:
        completion_details = construct_model(CompletionTokensDetails,
            reasoning_tokens=output_details["thinking_tokens"])
    return construct_model(Usage,
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
    annotations: list[dict[str, Any]] = []
    server: Optional[Any] = None
    length = 0  # characters of text so far: where each block's citations point
    for position, block in enumerate(content):
        if not isinstance(block, dict):
            raise bad_shape(provider, f"content[{position}]", "an object", block)
        kind = block.get("type")
        if kind == "text":
            text = block.get("text", "")
            if not isinstance(text, str):
                raise bad_shape(provider, f"content[{position}].text", "a string", text)
            texts.append(text)
            if block.get("citations"):
                from .hosted import citations_of

                annotations.extend(citations_of(block["citations"], length,
                                                length + len(text)))
            length += len(text)
        elif kind == "tool_use":
            name = block.get("name")
            if not isinstance(name, str) or not name:
                name = need_name(name, provider, f"content[{position}].name")
            tool_calls.append(construct_model(ToolCall,
                id=opt_str(block.get("id"), provider, f"content[{position}].id") or "",
                type="function",  # a missing id: the facade assigns one
                function=construct_model(Function, name=name,
                                                  arguments=arguments_json(block.get("input")))))
        elif kind in ("thinking", "redacted_thinking"):
            thinking_blocks.append(_thinking_block(block))
            if kind == "thinking" and block.get("thinking"):
                reasoning.append(block["thinking"])
        elif kind == "server_tool_use" or (isinstance(kind, str)
                                           and kind.endswith("_tool_result")):
            # the server tools' calls (docs/hosted-tools.md): not client tool calls
            if server is None:
                from .hosted import ServerBlocks

                server = ServerBlocks()
            if kind == "server_tool_use":
                server.use(block)
            else:
                server.result(block)
    message = construct_model(Message,
        role="assistant",
        content="".join(texts) or None,
        tool_calls=tool_calls or None,
        reasoning_content="".join(reasoning) or None,
        provider_specific_fields={THINKING_BLOCKS_KEY: thinking_blocks} if thinking_blocks
        else None,
    )
    if annotations:  # the citations of the hosted tools' results (docs/hosted-tools.md)
        message.annotations = annotations
    stop_reason = opt_str(data.get("stop_reason"), provider, "stop_reason")
    choice = construct_model(Choice,
        index=0, message=message,
        finish_reason=finish_reason_for(stop_reason, bool(tool_calls)),
        native_finish_reason=stop_reason, intermediate_messages=[])
    usage = usage_from(data.get("usage"), provider)
    events: list[Any] = []
    if server is not None or annotations:  # what the hosted tools did
        events = server.events() if server is not None else []
        counted = (server.usage((data.get("usage") or {}).get("server_tool_use"))
                   if server is not None else None)
        if usage is not None and counted is not None:
            usage.server_tool_use = counted
    response = construct_model(ChatCompletionResponse,
        id=data.get("id", ""), created=int(time.time()) if created is None else created,
        model=data.get("model", ""), provider=provider, choices=[choice],
        usage=usage, raw=data)
    if events:
        response.tool_events = events
    return response


