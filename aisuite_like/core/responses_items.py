"""Between the Responses API's shape and Chat Completions' (docs/responses.md). Pure: no I/O.

- :func:`input_to_messages`: a Responses ``input`` (text, or items: messages,
  ``function_call``, ``function_call_output``, ``reasoning``, images, files) -> chat messages,
  for every family that is reached through its chat translator.
- :func:`messages_to_items`: chat messages -> Responses input items (OpenAI's ``api=
  "responses"`` transport, and the Agents SDK's ``to_input_list()``).
- :func:`tools_to_chat`, :func:`tool_choice_to_chat`, :func:`text_to_response_format` and
  their reverses: the request's arguments in the other vocabulary.
- :func:`message_items`, :func:`response_shell`: a chat reply -> output items, a
  ``Response`` (a stream of chunks -> stream events: :mod:`.responses_events`).

Reasoning that a provider needs back on the next turn (Anthropic's signed thinking blocks,
Gemini's thought signatures: ``Message.provider_specific_fields``) travels in the reasoning
item's ``encrypted_content`` as opaque text, so output items given back as input restore it.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, TypeVar, Union

from .errors import UnsupportedParameterError
from .responses import (
    CHAT_USAGE,
    InputTokensDetails,
    OutputTokensDetails,
    ReasoningContent,
    ReasoningSummary,
    Response,
    ResponseFunctionToolCall,
    ResponseFunctionToolCallOutputItem,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseUsage,
)
from .types import Message, Usage, build_model

__all__ = [
    "PSF_ITEMS", "input_to_messages", "is_items_input", "messages_to_items",
    "tools_to_chat", "tool_choice_to_chat", "text_to_response_format", "reasoning_to_chat",
    "tools_to_responses", "tool_choice_to_responses", "response_format_to_text",
    "usage_to_response", "usage_from_response", "message_items", "tool_output_item",
    "response_shell", "finish_status", "encode_state", "decode_state", "construct",
    "reasoning_item", "message_item", "call_item", "parse_items", "field_of", "response_id",
]

_T = TypeVar("_T")

#: ``provider_specific_fields`` key: the Responses items a chat message stands for, sent back
#: as they are to an API that speaks Responses (OpenAI's reasoning items with their
#: ``encrypted_content``, the exact input items of a native call).
PSF_ITEMS = "responses_items"

_STATE_PREFIX = "aisuite-like:v1:"
_ROLES = frozenset({"user", "system", "developer", "assistant"})


def _err(message: str, parameter: str = "input") -> UnsupportedParameterError:
    return UnsupportedParameterError(message, parameter=parameter)


#: class -> its fields' defaults: (number of fields, constants, makers of the mutable ones
#: and of the factories)
_DEFAULTS: dict[type, tuple[int, dict[str, Any], dict[str, Any]]] = {}


def _defaults(cls: type) -> tuple[int, dict[str, Any], dict[str, Any]]:
    constants: dict[str, Any] = {}
    makers: dict[str, Any] = {}
    fields = cls.model_fields  # type: ignore[attr-defined]
    for name, info in fields.items():
        if info.default_factory is not None:
            makers[name] = info.default_factory
        elif isinstance(info.default, (list, dict)):
            makers[name] = type(info.default)
        elif not info.is_required():
            constants[name] = info.default
    found = _DEFAULTS[cls] = len(fields), constants, makers
    return found


def construct(cls: type[_T], **values: Any) -> _T:
    """``cls.model_construct(**values)`` without its per-field loop (the hot path of a reply
    and of every streamed event): the fields not given take their defaults (a new list or
    dict for a mutable one). Every required field must be given."""
    count, constants, makers = _DEFAULTS.get(cls) or _defaults(cls)
    if len(values) == count:  # every field given
        return build_model(cls, values)  # type: ignore[type-var]
    full = {**constants, **values}
    for name, make in makers.items():
        if name not in values:
            full[name] = make()
    return build_model(cls, full)  # type: ignore[type-var]


def encode_state(psf: Mapping[str, Any]) -> str:
    """``provider_specific_fields`` -> opaque text for a reasoning item's
    ``encrypted_content``."""
    raw = json.dumps(psf, separators=(",", ":"), ensure_ascii=False).encode()
    return _STATE_PREFIX + base64.urlsafe_b64encode(raw).decode()


def decode_state(text: Any) -> Optional[dict[str, Any]]:
    """The ``provider_specific_fields`` :func:`encode_state` wrote, or None (another
    provider's opaque reasoning, e.g. OpenAI's)."""
    if not isinstance(text, str) or not text.startswith(_STATE_PREFIX):
        return None
    try:
        value = json.loads(base64.urlsafe_b64decode(text[len(_STATE_PREFIX):]))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# --- Responses input -> chat messages -------------------------------------------------------


def _image_part(part: Mapping[str, Any], where: str) -> dict[str, Any]:
    url = part.get("image_url")
    if not isinstance(url, str) or not url:
        if part.get("file_id"):
            raise _err(f"{where}: an input_image with a file_id refers to a file stored at "
                       "OpenAI, which only the openai provider can read; pass image_url (an "
                       "https URL or a data: URL) instead")
        raise _err(f"{where}: an input_image needs an image_url (an https URL or a data: URL)")
    image: dict[str, Any] = {"url": url}
    if part.get("detail") is not None:
        image["detail"] = part["detail"]
    return {"type": "image_url", "image_url": image}


def _file_part(part: Mapping[str, Any], where: str) -> dict[str, Any]:
    file: dict[str, Any] = {}
    for key in ("file_data", "filename", "file_id"):
        if part.get(key) is not None:
            file[key] = part[key]
    if part.get("file_url") is not None:
        raise _err(f"{where}: an input_file with a file_url is fetched by OpenAI's servers; "
                   "for this provider download it and pass file_data (a base64 data: URL)")
    if "file_data" not in file and "file_id" not in file:
        raise _err(f"{where}: an input_file needs file_data (a base64 data: URL) and a "
                   "filename")
    return {"type": "file", "file": file}


def _content_to_chat(content: Any, where: str) -> Union[str, list[dict[str, Any]]]:
    """A Responses message's content (text, or parts) -> chat content."""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        raise _err(f"{where}.content must be a string or a list of content parts such as "
                   f"{{'type': 'input_text', 'text': '...'}}, got {type(content).__name__}")
    parts: list[dict[str, Any]] = []
    for number, part in enumerate(content):
        here = f"{where}.content[{number}]"
        if not isinstance(part, Mapping):
            raise _err(f"{here} must be a dict, got {type(part).__name__}")
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            text = part.get("text")
            if not isinstance(text, str):
                raise _err(f"{here} is a {kind} part without a 'text' string")
            parts.append({"type": "text", "text": text})
        elif kind == "input_image":
            parts.append(_image_part(part, here))
        elif kind == "image_url":  # a chat part given as is
            parts.append(dict(part))
        elif kind == "input_file":
            parts.append(_file_part(part, here))
        elif kind == "input_audio":
            audio = part.get("input_audio") or {k: part[k] for k in ("data", "format")
                                                if k in part}
            parts.append({"type": "input_audio", "input_audio": audio})
        elif kind in ("file", "refusal"):
            parts.append(dict(part))
        else:
            raise _err(f"{here} has type {kind!r}; the content parts understood are "
                       "input_text, input_image, input_file, input_audio and output_text")
    return parts


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping)
                       and isinstance(p.get("text"), str))
    return ""


def _output_to_chat(output: Any, where: str) -> Union[str, list[dict[str, Any]]]:
    if isinstance(output, str):
        return output
    if isinstance(output, (list, tuple)):
        return _content_to_chat(output, where)
    return json.dumps(output)


def is_items_input(value: Any) -> bool:
    """Whether ``value`` (a list) holds Responses items rather than only chat messages: an
    item with a ``type`` other than ``message``, or message content with Responses parts
    (``input_text``, ``input_image``, ``output_text``, ...)."""
    if not isinstance(value, (list, tuple)):
        return False
    for item in value:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind is not None and kind != "message":
            return True
        if kind == "message" and item.get("role") == "assistant":
            return True
        content = item.get("content")
        if isinstance(content, (list, tuple)) and any(
                isinstance(p, Mapping) and str(p.get("type", "")).startswith(("input_",
                                                                              "output_"))
                for p in content):
            return True
    return False


class _Assistant:
    """The chat assistant message the items of one model reply fold into."""

    __slots__ = ("message", "items", "has_calls")

    def __init__(self) -> None:
        self.message: dict[str, Any] = {"role": "assistant", "content": None}
        self.items: list[dict[str, Any]] = []
        self.has_calls = False


def input_to_messages(input: Any, instructions: Any = None, *, keep_items: bool = False
                      ) -> list[dict[str, Any]]:
    """A Responses ``input`` (a string, or a list of items) and ``instructions`` -> chat
    messages (new dicts; the caller's data is not modified).

    Consecutive items of one model reply (``reasoning``, an assistant ``message``,
    ``function_call`` items) become one assistant message; ``function_call_output`` a
    ``tool`` message (named after its call). ``keep_items`` records on each message the items
    it was read from (``provider_specific_fields["responses_items"]``), so an API that speaks
    Responses receives them again exactly. Items that only an API with server-side state
    understands (``item_reference``, hosted tools' calls) are an ``UnsupportedParameterError``.
    """
    messages: list[dict[str, Any]] = []
    if instructions is not None:
        if isinstance(instructions, str):
            if instructions:
                messages.append({"role": "system", "content": instructions})
        elif isinstance(instructions, (list, tuple)):
            messages.extend(input_to_messages(list(instructions), keep_items=keep_items))
        else:
            raise _err("instructions must be a string (or a list of input items), got "
                       f"{type(instructions).__name__}", "instructions")
    if isinstance(input, str):
        messages.append({"role": "user", "content": input})
        return messages
    if isinstance(input, Mapping) or not isinstance(input, Iterable):
        raise TypeError("input must be a string or a list of Responses input items, e.g. "
                        "[{'role': 'user', 'content': 'Hi'}]")
    names: dict[str, str] = {}
    open_reply: Optional[_Assistant] = None

    def reply() -> _Assistant:
        nonlocal open_reply
        if open_reply is None:
            open_reply = _Assistant()
            messages.append(open_reply.message)
        return open_reply

    def close() -> None:
        nonlocal open_reply
        if open_reply is not None:
            message = open_reply.message
            if keep_items:
                message.setdefault("provider_specific_fields", {})[PSF_ITEMS] = \
                    open_reply.items
            if message["content"] is None:
                if not message.get("tool_calls") and not message.get("reasoning_content") \
                        and not message.get("provider_specific_fields"):
                    messages.remove(message)
                else:
                    del message["content"]  # a reply of calls only
        open_reply = None

    for index, raw in enumerate(input):
        where = f"input[{index}]"
        if hasattr(raw, "model_dump") and not isinstance(raw, Mapping):
            raw = raw.model_dump(exclude_none=True)
        if not isinstance(raw, Mapping):
            raise _err(f"{where} must be a dict (a Responses input item), got "
                       f"{type(raw).__name__}")
        item: Mapping[str, Any] = raw
        kind = item.get("type")
        role = item.get("role")
        if kind in (None, "message") and role is not None:
            if role not in _ROLES:
                raise _err(f"{where} has role {role!r}; expected one of {sorted(_ROLES)}")
            if role == "assistant":
                current = reply()
                if current.has_calls:  # text after calls: the next reply
                    close()
                    current = reply()
                content = item.get("content")
                text = _text(content)
                refusal = "".join(p.get("refusal", "") for p in content or ()
                                  if isinstance(p, Mapping) and p.get("type") == "refusal"
                                  ) if isinstance(content, (list, tuple)) else ""
                message = current.message
                if text or message["content"] is None:
                    message["content"] = (message["content"] or "") + text
                if refusal:
                    message["refusal"] = refusal
                current.items.append(dict(item))
                continue
            close()
            message = {"role": role, "content": _content_to_chat(item.get("content"), where)}
            if keep_items:
                message["provider_specific_fields"] = {PSF_ITEMS: [dict(item)]}
            messages.append(message)
            continue
        if kind == "function_call":
            current = reply()
            call_id, name = item.get("call_id"), item.get("name")
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
                raise _err(f"{where}: a function_call item needs 'call_id' and 'name'")
            names[call_id] = name
            arguments = item.get("arguments")
            current.message.setdefault("tool_calls", []).append({
                "id": call_id, "type": "function",
                "function": {"name": name, "arguments": arguments if isinstance(arguments, str)
                             else json.dumps(arguments or {})}})
            current.has_calls = True
            current.items.append(dict(item))
            continue
        if kind == "reasoning":
            current = reply()
            if current.has_calls or current.message["content"]:
                close()
                current = reply()
            text = "".join(_text([p]) for p in (item.get("content") or item.get("summary")
                                                or ()))
            if text:
                message = current.message
                message["reasoning_content"] = (message.get("reasoning_content") or "") + text
            state = decode_state(item.get("encrypted_content"))
            if state:
                current.message.setdefault("provider_specific_fields", {}).update(state)
            current.items.append(dict(item))
            continue
        if kind == "function_call_output":
            close()
            call_id = item.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                raise _err(f"{where}: a function_call_output item needs the 'call_id' of its "
                           "function_call")
            message = {"role": "tool", "tool_call_id": call_id,
                       "content": _output_to_chat(item.get("output", ""), where)}
            if call_id in names:
                message["name"] = names[call_id]
            if keep_items:
                message["provider_specific_fields"] = {PSF_ITEMS: [dict(item)]}
            messages.append(message)
            continue
        if kind == "item_reference":
            raise _err(f"{where}: an item_reference points to an item stored by OpenAI's "
                       "server; this provider keeps no state between calls: pass the item "
                       "itself")
        raise _err(f"{where} has type {kind!r}; the items understood here are messages, "
                   "function_call, function_call_output and reasoning")
    close()
    return messages


# --- chat messages -> Responses input items --------------------------------------------------


def _parts_to_items(content: Any, role: str) -> Union[str, list[dict[str, Any]]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    text_type = "output_text" if role == "assistant" else "input_text"
    for part in content:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text":
            out.append({"type": text_type, "text": part.get("text", "")})
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else image
            new: dict[str, Any] = {"type": "input_image", "image_url": url}
            new["detail"] = (image.get("detail") if isinstance(image, Mapping) else None) \
                or "auto"
            out.append(new)
        elif kind == "file":
            file = part.get("file") or {}
            out.append({"type": "input_file", **{k: v for k, v in file.items()
                                                  if k in ("file_data", "filename", "file_id")}})
        elif kind == "input_audio":
            out.append({"type": "input_audio", "input_audio": part.get("input_audio")})
        else:
            out.append(dict(part))
    return out


def field_of(message: Any, key: str) -> Any:
    """``message[key]`` of a dict, or the attribute of a model (None when absent)."""
    return message.get(key) if isinstance(message, Mapping) else getattr(message, key, None)


def _calls(message: Any) -> list[tuple[str, str, str]]:
    out = []
    for call in field_of(message, "tool_calls") or ():
        if isinstance(call, Mapping):
            fn = call.get("function") or {}
            out.append((str(call.get("id", "")), str(fn.get("name", "")),
                        str(fn.get("arguments") or "")))
        else:
            out.append((call.id, call.function.name, call.function.arguments or ""))
    return out


def _verbatim(items: Sequence[Any], calls: list[tuple[str, str, str]],
              answers: Optional[str] = None, for_openai: bool = False) -> list[dict[str, Any]]:
    """Recorded items, with each function_call's ``call_id`` as the message now says (the
    tool runner may have renamed a duplicate id; an id may have been fitted to the API:
    docs/portability.md) and, for a tool message, its output's ``call_id`` as the message's
    ``answers``. For OpenAI, reasoning items whose ``encrypted_content`` is another
    provider's state (written by :func:`encode_state`) are left out: OpenAI cannot read it."""
    out: list[dict[str, Any]] = []
    position = 0
    for item in items:
        item = dict(item) if isinstance(item, Mapping) else item.model_dump(exclude_none=True)
        kind = item.get("type")
        if kind == "function_call" and position < len(calls):
            if item.get("call_id") != calls[position][0]:
                item["call_id"] = calls[position][0]
            position += 1
        elif kind == "function_call_output" and answers and item.get("call_id") != answers:
            item["call_id"] = answers
        elif kind == "reasoning" and for_openai and decode_state(
                item.get("encrypted_content")) is not None:
            continue
        out.append(item)
    return out


def messages_to_items(messages: Iterable[Any], *, for_openai: bool = False
                      ) -> list[dict[str, Any]]:
    """Chat messages (dicts or ``Message``) -> Responses input items.

    Messages read from Responses items send those items again. Otherwise an assistant
    message gives its reasoning (as a ``reasoning`` item whose ``encrypted_content`` holds
    what the provider needs back; not for OpenAI, which cannot read another provider's
    reasoning: ``for_openai``), its text (``{"role": "assistant", "content": ...}``) and one
    ``function_call`` per tool call; a ``tool`` message a ``function_call_output``."""
    out: list[dict[str, Any]] = []
    for number, message in enumerate(messages):
        role = field_of(message, "role")
        psf = field_of(message, "provider_specific_fields") or {}
        recorded = psf.get(PSF_ITEMS) if isinstance(psf, Mapping) else None
        if recorded:
            out.extend(_verbatim(recorded, _calls(message),
                                 field_of(message, "tool_call_id") if role == "tool" else None,
                                 for_openai))
            continue
        content = field_of(message, "content")
        if role == "tool":
            out.append({"type": "function_call_output",
                        "call_id": field_of(message, "tool_call_id"),
                        "output": content if isinstance(content, str)
                        else _parts_to_items(content, "user")})
            continue
        if role != "assistant":
            out.append({"role": role, "content": _parts_to_items(content, role)})
            continue
        reasoning = field_of(message, "reasoning_content")
        state = {k: v for k, v in psf.items() if k != PSF_ITEMS} if isinstance(psf, Mapping) \
            else {}
        if (reasoning or state) and not for_openai:
            item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{number}", "summary": []}
            if reasoning:
                item["content"] = [{"type": "reasoning_text", "text": reasoning}]
            if state:
                item["encrypted_content"] = encode_state(state)
            out.append(item)
        text = _parts_to_items(content, "assistant")
        if text:
            out.append({"role": "assistant", "content": text})
        for call_id, name, arguments in _calls(message):
            out.append({"type": "function_call", "call_id": call_id, "name": name,
                        "arguments": arguments})
    return out


# --- request arguments -----------------------------------------------------------------------

#: Keys of a Responses function tool, in the chat tool's ``function`` object.
_FUNCTION_KEYS = ("name", "description", "parameters", "strict")


def tools_to_chat(tools: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    """Responses ``tools`` -> (tools for the chat path: functions, ``ai.Tool`` objects, MCP
    servers and chat-shaped schemas as they are, Responses function tools in chat shape;
    the hosted tools, e.g. ``{"type": "web_search"}``, which only OpenAI runs)."""
    if tools is None:
        return [], []
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise TypeError("tools must be a list (functions, ai.Tool objects, MCP servers or "
                        "tool dicts)")
    chat: list[Any] = []
    hosted: list[dict[str, Any]] = []
    for tool in tools:
        if not isinstance(tool, Mapping):
            chat.append(tool)
        elif tool.get("type") == "function" and "function" in tool:
            chat.append(tool)
        elif tool.get("type") == "function":
            chat.append({"type": "function", "function": {
                k: tool[k] for k in _FUNCTION_KEYS if tool.get(k) is not None}})
        else:
            hosted.append(dict(tool))
    return chat, hosted


def tools_to_responses(tools: Optional[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Chat function schemas -> Responses function tools."""
    out = []
    for tool in tools or ():
        fn = tool.get("function")
        if tool.get("type") == "function" and isinstance(fn, Mapping):
            new: dict[str, Any] = {"type": "function"}
            new.update({k: fn[k] for k in _FUNCTION_KEYS if fn.get(k) is not None})
            new.setdefault("parameters", {"type": "object", "properties": {}})
            new.setdefault("strict", False)
            out.append(new)
        else:
            out.append(dict(tool))
    return out


def tool_choice_to_chat(choice: Any) -> Any:
    """A Responses ``tool_choice`` -> the chat one."""
    if choice is None or isinstance(choice, str):
        return choice
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        if "function" in choice:
            return dict(choice)
        return {"type": "function", "function": {"name": choice.get("name")}}
    raise _err(f"tool_choice {dict(choice) if isinstance(choice, Mapping) else choice!r} "
               "names a hosted tool or an allowed-tools list, which only the openai provider "
               "has; use 'auto', 'none', 'required' or {'type': 'function', 'name': ...}",
               "tool_choice")


def tool_choice_to_responses(choice: Any) -> Any:
    if isinstance(choice, Mapping) and choice.get("type") == "function" \
            and isinstance(choice.get("function"), Mapping):
        return {"type": "function", "name": choice["function"].get("name")}
    return choice


def text_to_response_format(text: Any) -> Any:
    """Responses ``text`` (``{"format": {...}}``) -> a chat ``response_format`` (None for
    plain text)."""
    if text is None:
        return None
    if not isinstance(text, Mapping):
        raise TypeError("text must be a dict such as {'format': {'type': 'json_schema', "
                        "'name': ..., 'schema': {...}}}")
    unknown = sorted(set(text) - {"format"})
    if unknown:
        raise _err(f"text {unknown} is an OpenAI setting this provider does not have; "
                   "remove it", "text")
    fmt = text.get("format")
    if fmt is None:
        return None
    kind = fmt.get("type") if isinstance(fmt, Mapping) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        assert isinstance(fmt, Mapping)
        if not isinstance(fmt.get("schema"), Mapping) or not fmt.get("name"):
            raise _err("text.format of type json_schema needs 'name' and 'schema'", "text")
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description")
                  if fmt.get(k) is not None}
        return {"type": "json_schema", "json_schema": schema}
    raise _err(f"text.format must be of type text, json_object or json_schema, got {fmt!r}",
               "text")


def response_format_to_text(response_format: Any) -> Optional[dict[str, Any]]:
    """A chat ``response_format`` -> Responses ``text``."""
    if response_format is None:
        return None
    if not isinstance(response_format, Mapping):
        raise TypeError("response_format must be a dict")
    kind = response_format.get("type")
    if kind == "json_schema":
        inner = response_format.get("json_schema") or {}
        return {"format": {"type": "json_schema", **{
            k: inner[k] for k in ("name", "schema", "strict", "description")
            if inner.get(k) is not None}}}
    return {"format": {"type": kind}}


def reasoning_to_chat(reasoning: Any) -> tuple[Optional[str], bool]:
    """Responses ``reasoning`` -> (the chat ``reasoning_effort``, whether the reasoning text
    is asked for as a summary)."""
    if reasoning is None:
        return None, False
    if not isinstance(reasoning, Mapping):
        raise TypeError("reasoning must be a dict such as {'effort': 'low'}")
    unknown = sorted(set(reasoning) - {"effort", "summary", "generate_summary"})
    if unknown:
        raise _err(f"reasoning {unknown} is an OpenAI setting this provider does not have; "
                   "remove it", "reasoning")
    effort = reasoning.get("effort")
    summary = reasoning.get("summary") or reasoning.get("generate_summary")
    return effort, bool(summary)


# --- usage -----------------------------------------------------------------------------------


def usage_to_response(usage: Optional[Usage]) -> Optional[ResponseUsage]:
    """Chat ``Usage`` -> ``ResponseUsage`` (which keeps the chat usage for its ``cost``)."""
    if usage is None:
        return None
    ptd = usage.prompt_tokens_details
    ctd = usage.completion_tokens_details
    out = construct(ResponseUsage,
        input_tokens=usage.prompt_tokens,
        input_tokens_details=construct(InputTokensDetails,
            cached_tokens=(ptd.cached_tokens if ptd is not None else None) or 0,
            cache_write_tokens=(ptd.cache_creation_tokens if ptd is not None else None) or 0),
        output_tokens=usage.completion_tokens,
        output_tokens_details=construct(OutputTokensDetails,
            reasoning_tokens=(ctd.reasoning_tokens if ctd is not None else None) or 0),
        total_tokens=usage.total_tokens or usage.prompt_tokens + usage.completion_tokens)
    out.__dict__[CHAT_USAGE] = usage
    return out


def usage_from_response(raw: Any) -> Optional[Usage]:
    """A Responses ``usage`` JSON object -> chat ``Usage``."""
    if not isinstance(raw, Mapping):
        return None
    from .types import CompletionTokensDetails, PromptTokensDetails

    prompt = int(raw.get("input_tokens") or 0)
    completion = int(raw.get("output_tokens") or 0)
    itd = raw.get("input_tokens_details") or {}
    otd = raw.get("output_tokens_details") or {}
    return Usage.model_construct(
        prompt_tokens=prompt, completion_tokens=completion,
        total_tokens=int(raw.get("total_tokens") or prompt + completion),
        prompt_tokens_details=PromptTokensDetails.model_construct(
            cached_tokens=itd.get("cached_tokens"),
            cache_creation_tokens=itd.get("cache_write_tokens") or None)
        if itd else None,
        completion_tokens_details=CompletionTokensDetails.model_construct(
            reasoning_tokens=otd.get("reasoning_tokens")) if otd else None)


# --- chat replies -> output items and the Response -------------------------------------------


def reasoning_item(item_id: str, text: Optional[str], state: Mapping[str, Any],
                    summary: bool) -> ResponseReasoningItem:
    """A ``reasoning`` output item (its text as summary or content; ``state`` opaque)."""
    summary_parts: list[ReasoningSummary] = []
    content: Optional[list[ReasoningContent]] = None
    if text:
        if summary:
            summary_parts = [construct(ReasoningSummary, type="summary_text", text=text)]
        else:
            content = [construct(ReasoningContent, type="reasoning_text", text=text)]
    return construct(ResponseReasoningItem,
        id=item_id, type="reasoning", summary=summary_parts, content=content,
        encrypted_content=encode_state(state) if state else None, status="completed")


def message_item(item_id: str, text: Optional[str], refusal: Optional[str],
                  status: str = "completed",
                  annotations: Optional[Sequence[Any]] = None) -> ResponseOutputMessage:
    """An assistant ``message`` output item with its text and refusal parts; the chat
    message's ``url_citation`` annotations go on the text in the Responses API's shape."""
    parts: list[Any] = []
    if text:
        parts.append(construct(ResponseOutputText, type="output_text", text=text,
                               annotations=[_flat(a) for a in annotations or ()]))
    if refusal:
        parts.append(construct(ResponseOutputRefusal, type="refusal", refusal=refusal))
    return construct(ResponseOutputMessage, id=item_id, type="message", role="assistant",
                                                 status=status, content=parts)


def _flat(annotation: Any) -> Any:
    """A chat annotation (``{"type": "url_citation", "url_citation": {...}}``) in the
    Responses API's flat shape."""
    if isinstance(annotation, Mapping) and annotation.get("type") == "url_citation" and \
            isinstance(annotation.get("url_citation"), Mapping):
        return {"type": "url_citation", **annotation["url_citation"]}
    return annotation


def call_item(item_id: str, call_id: str, name: str, arguments: str,
               status: str = "completed") -> ResponseFunctionToolCall:
    """A ``function_call`` output item."""
    return construct(ResponseFunctionToolCall,
        type="function_call", id=item_id, call_id=call_id, name=name, arguments=arguments,
        status=status)


def parse_items(items: Sequence[Any]) -> list[Any]:
    """Output items given as dicts or models -> the typed output items."""
    from pydantic import TypeAdapter

    from .responses import ResponseOutputItem

    adapter: TypeAdapter[Any] = TypeAdapter(list[ResponseOutputItem])
    return list(adapter.validate_python([dict(i) if isinstance(i, Mapping)
                                         else i.model_dump() for i in items]))


def message_items(message: Message, base: str, start: int, *, summary: bool = False
                  ) -> list[Any]:
    """The output items of one assistant message: its reasoning, its text / refusal, one
    ``function_call`` per tool call. Item ids are ``<kind>_<base>_<n>`` (n counting from
    ``start``). A message read from Responses items (OpenAI) gives those items again."""
    psf = message.provider_specific_fields or {}
    recorded = psf.get(PSF_ITEMS)
    if recorded:
        return parse_items(_verbatim(recorded, _calls(message)))
    out: list[Any] = []
    state = {k: v for k, v in psf.items() if k != PSF_ITEMS}
    if message.reasoning_content or state:
        out.append(reasoning_item(f"rs_{base}_{start + len(out)}", message.reasoning_content,
                                   state, summary))
    content = message.content
    text = content if isinstance(content, str) else _text(content) if content else None
    if text or message.refusal:
        out.append(message_item(f"msg_{base}_{start + len(out)}", text, message.refusal,
                                annotations=message.annotations))
    for call in message.tool_calls or ():
        out.append(call_item(f"fc_{base}_{start + len(out)}", call.id, call.function.name,
                              call.function.arguments))
    return out


def tool_output_item(message: Any, item_id: str) -> ResponseFunctionToolCallOutputItem:
    """A chat ``tool`` message -> its ``function_call_output`` item."""
    content = field_of(message, "content")
    return construct(ResponseFunctionToolCallOutputItem,
        id=item_id, type="function_call_output", call_id=field_of(message, "tool_call_id"),
        output=content if isinstance(content, str) else _text(content), status="completed")


def finish_status(finish_reason: Optional[str]) -> tuple[str, Optional[dict[str, Any]]]:
    """A chat ``finish_reason`` -> the Response's ``status`` and ``incomplete_details``."""
    if finish_reason == "length":
        return "incomplete", {"reason": "max_output_tokens"}
    if finish_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def response_id(chat_id: str) -> str:
    """Our Response id for a reply whose own id is ``chat_id``."""
    if chat_id.startswith("resp_"):
        return chat_id
    return "resp_" + (chat_id or f"{time.time_ns():x}")


def response_shell(echo: Mapping[str, Any], *, id: str, model: str, created: float,
                   provider: str, status: str, output: list[Any],
                   usage: Optional[ResponseUsage] = None,
                   incomplete_details: Optional[dict[str, Any]] = None) -> Response:
    """A ``Response`` with the request's settings echoed (``echo``: instructions, tools,
    tool_choice, temperature, ...) and these values."""
    values: dict[str, Any] = {
        "id": id, "object": "response", "created_at": created, "model": model,
        "status": status, "output": output, "usage": usage, "instructions": None, "tools": [],
        "tool_choice": "auto", "parallel_tool_calls": True, "temperature": None, "top_p": None,
        "max_output_tokens": None, "previous_response_id": None, "reasoning": None,
        "text": {"format": {"type": "text"}}, "error": None,
        "incomplete_details": incomplete_details, "metadata": None, "provider": provider,
        "stop_reason": None, "tool_events": [], "context_events": [], "raw": None,
    }
    for key, value in echo.items():
        if value is not None:
            values[key] = value
    return build_model(Response, values)
