"""What each API refuses with a 400, written as checks of a request body: the receiving side
of the portability matrix (tests/providers/test_portability_matrix.py, docs/portability.md).

Each ``check_<api>(body, issued)`` returns the violations it finds (the text the API's error
would say), none for a request the API accepts. The rules are the APIs' documented ones and
the 400s users meet (their error text is quoted where it is known); ``issued`` holds the
reasoning signatures and encrypted reasoning each API itself handed out (in the replies of
the loopback server and of the recorded exchanges), because each API accepts back only its
own. No logic under test lives here."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Issued", "CHECKS", "GEMINI_PLACEHOLDERS"]

#: Google's documented stand-ins for a thought signature Gemini did not make.
GEMINI_PLACEHOLDERS = frozenset({"skip_thought_signature_validator",
                                 "context_engineering_is_the_way_to_go"})


@dataclass
class Issued:
    """Reasoning handed out per API: its signatures and encrypted contents."""

    by: dict[str, set[str]] = field(default_factory=dict)

    def add(self, api: str, value: Any) -> None:
        if isinstance(value, str) and value:
            self.by.setdefault(api, set()).add(value)

    def knows(self, api: str, value: Any) -> bool:
        return isinstance(value, str) and value in self.by.get(api, set())


def _is_str(value: Any, min_length: int = 1) -> bool:
    return isinstance(value, str) and len(value) >= min_length


def _base64(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        try:
            base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except (binascii.Error, ValueError):
            return False
    return True


def _keys(where: str, item: Any, allowed: Iterable[str], out: list[str]) -> None:
    if not isinstance(item, dict):
        out.append(f"{where}: expected an object")
        return
    for key in item:
        if key not in allowed:
            out.append(f"{where}.{key}: Extra inputs are not permitted")


# --- OpenAI Chat Completions (and Mistral's, which is stricter) ------------------------------

_OPENAI_KEYS = {"system": {"role", "content", "name"}, "developer": {"role", "content", "name"},
                "user": {"role", "content", "name"},
                "assistant": {"role", "content", "name", "tool_calls", "refusal", "audio",
                              "function_call"},
                "tool": {"role", "content", "tool_call_id"}}
# Mistral's schema forbids anything else (422 extra_forbidden), e.g. ``name`` on a user
# message, ``reasoning_content`` on an assistant one.
_MISTRAL_KEYS = {"system": {"role", "content"}, "user": {"role", "content"},
                 "assistant": {"role", "content", "tool_calls", "prefix"},
                 "tool": {"role", "content", "tool_call_id", "name"}}
_USER_PARTS = {"openai": {"text", "image_url", "input_audio", "file"},
               "mistral": {"text", "image_url"}}


def _chat_part(api: str, where: str, role: str, part: Any, out: list[str]) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    allowed = _USER_PARTS[api] if role == "user" else (
        {"text", "refusal"} if role == "assistant" else {"text"})
    if kind not in allowed:
        out.append(f"{where}: content part type {kind!r} is not allowed in a {role} message")
        return
    if kind == "text" and not isinstance(part.get("text"), str):
        out.append(f"{where}.text: expected a string")
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else None
        if not _is_str(url):
            out.append(f"{where}.image_url.url: expected a string")
    if kind == "input_audio":
        audio = part.get("input_audio") or {}
        if not _base64(audio.get("data")) or audio.get("format") not in ("wav", "mp3"):
            out.append(f"{where}.input_audio: expected base64 data and format wav or mp3")
    if kind == "file":
        file = part.get("file") or {}
        if not (_is_str(file.get("file_data")) or _is_str(file.get("file_id"))):
            out.append(f"{where}.file: expected file_data or file_id")


def _check_chat(api: str, body: dict[str, Any], id_rule: Callable[[str], bool],
                id_text: str) -> list[str]:
    out: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: expected a non-empty array"]
    keys = _MISTRAL_KEYS if api == "mistral" else _OPENAI_KEYS
    open_ids: list[str] = []  # calls of the last assistant message not answered yet
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        role = m.get("role") if isinstance(m, dict) else None
        if role not in keys:
            out.append(f"{where}.role: {role!r} is not one of {sorted(keys)}")
            continue
        _keys(where, m, keys[role], out)
        content = m.get("content")
        if content is None:
            if role != "assistant" or not (m.get("tool_calls") or m.get("refusal")):
                out.append(f"{where}.content: required")
        elif isinstance(content, list):
            for n, part in enumerate(content):
                _chat_part(api, f"{where}.content[{n}]", role, part, out)
        elif not isinstance(content, str):
            out.append(f"{where}.content: expected a string or an array of parts")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if not _is_str(call_id) or not id_rule(call_id):
                out.append(f"Tool call id was {call_id} but must be {id_text}")
            if call_id in open_ids:
                open_ids.remove(call_id)
            else:
                out.append(f"{where}: Invalid parameter: messages with role 'tool' must be a "
                           "response to a preceeding message with 'tool_calls'.")
            continue
        if open_ids:
            out.append(f"{where}: An assistant message with 'tool_calls' must be followed by "
                       "tool messages responding to each 'tool_call_id'. The following "
                       f"tool_call_ids did not have response messages: {', '.join(open_ids)}")
            open_ids = []
        for n, call in enumerate(m.get("tool_calls") or ()):
            call_where = f"{where}.tool_calls[{n}]"
            _keys(call_where, call, {"id", "type", "function"}, out)
            call_id = call.get("id") if isinstance(call, dict) else None
            if not _is_str(call_id) or not id_rule(call_id):
                out.append(f"{call_where}.id: Tool call id was {call_id} but must be {id_text}")
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not _is_str(function.get("name")) or \
                    not isinstance(function.get("arguments"), str):
                out.append(f"{call_where}.function: expected name and arguments strings")
            open_ids.append(call_id)
    if open_ids:
        out.append("An assistant message with 'tool_calls' must be followed by tool messages "
                   f"responding to each 'tool_call_id': {', '.join(map(str, open_ids))}")
    if api == "mistral":
        for i, m in enumerate(messages[:-1]):
            if isinstance(m, dict) and m.get("prefix"):
                out.append(f"messages[{i}]: only the last message may be a prefix")
        last = messages[-1].get("role") if isinstance(messages[-1], dict) else None
        if last not in ("user", "tool") and not messages[-1].get("prefix"):
            out.append("Expected last role User or Tool (or Assistant with prefix True) for "
                       f"serving but got {last}")
    return out


def check_openai(body: dict[str, Any], issued: Issued) -> list[str]:
    # "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum
    # length 40"
    return _check_chat("openai", body, lambda i: len(i) <= 40,
                       "a string with maximum length 40")


_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def check_mistral(body: dict[str, Any], issued: Issued) -> list[str]:
    return _check_chat("mistral", body, lambda i: _MISTRAL_ID.fullmatch(i) is not None,
                       "a-z, A-Z, 0-9, with a length of 9.")


def check_kimi(body: dict[str, Any], issued: Issued) -> list[str]:
    """Kimi K2 (served e.g. by vLLM with its kimi_k2 parser) reads a call's id as
    ``functions.<name>:<n>``, ``n`` counting the conversation's calls from 0; another id
    throws it off (it answers with its raw tool-call markup)."""
    out = _check_chat("openai", body, lambda i: True, "any string")
    position = 0
    for i, m in enumerate(body.get("messages") or ()):
        for call in m.get("tool_calls") or ():
            wanted = f"functions.{call['function']['name']}:{position}"
            if call.get("id") != wanted:
                out.append(f"messages[{i}]: tool call id {call.get('id')!r}, not {wanted!r}")
            position += 1
    return out


# --- Anthropic Messages -------------------------------------------------------------------

_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")
_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def _source(where: str, block: dict[str, Any], out: list[str]) -> None:
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if kind == "base64":
        media = source.get("media_type")
        wanted = _IMAGE_TYPES if block["type"] == "image" else {"application/pdf"}
        if media not in wanted or not _base64(source.get("data")):
            out.append(f"{where}.source: base64 data of a type in {sorted(wanted)} expected")
    elif kind == "url":
        if not _is_str(source.get("url")):
            out.append(f"{where}.source.url: expected a string")
    elif kind not in ("file", "text"):
        out.append(f"{where}.source.type: {kind!r} is not a source type")


def _anthropic_block(where: str, role: str, block: Any, issued: Issued, ids: set[str],
                     out: list[str]) -> None:
    kind = block.get("type") if isinstance(block, dict) else None
    assistant_only, user_only = {"tool_use", "thinking", "redacted_thinking"}, {
        "tool_result", "image", "document"}
    if kind not in assistant_only | user_only | {"text"}:
        out.append(f"{where}.type: Input tag {kind!r} found does not match any of the "
                   "expected tags")
        return
    if (kind in assistant_only and role != "assistant") or (
            kind in user_only and role != "user"):
        out.append(f"{where}: a {kind} block cannot be in a {role} message")
    if kind == "text" and not _is_str(block.get("text")):
        out.append(f"{where}: text content blocks must be non-empty")
    elif kind in ("image", "document"):
        _source(where, block, out)
    elif kind == "tool_use":
        tool_id = block.get("id")
        if not _is_str(tool_id) or not _ANTHROPIC_ID.fullmatch(tool_id):
            out.append(f"{where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        elif tool_id in ids:
            out.append(f"{where}: `tool_use` ids must be unique")
        ids.add(tool_id)
        if not isinstance(block.get("input"), dict):
            out.append(f"{where}.input: Input should be a valid dictionary")
    elif kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            for n, inner in enumerate(content):
                if not isinstance(inner, dict) or inner.get("type") not in ("text", "image"):
                    out.append(f"{where}.content[{n}]: text or image blocks only")
    elif kind == "thinking":
        if not issued.knows("anthropic", block.get("signature")):
            out.append(f"{where}: Invalid `signature` in `thinking` block")
    elif kind == "redacted_thinking" and not issued.knows("anthropic", block.get("data")):
        out.append(f"{where}: Invalid `data` in `redacted_thinking` block")


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def check_anthropic(body: dict[str, Any], issued: Issued) -> list[str]:
    out: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    system = body.get("system")
    if system is not None and not isinstance(system, str) and not (
            isinstance(system, list) and all(isinstance(b, dict) and b.get("type") == "text"
                                             for b in system)):
        out.append("system: a string or text blocks expected")
    ids: set[str] = set()
    previous_uses: list[str] = []
    for i, m in enumerate(messages):
        where = f"messages.{i}"
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("user", "assistant"):
            out.append(f"{where}.role: Input should be 'user' or 'assistant'")
            continue
        _keys(where, m, {"role", "content"}, out)
        if i and messages[i - 1].get("role") == role:
            out.append(f"{where}: roles must alternate between \"user\" and \"assistant\"")
        blocks = _blocks(m.get("content"))
        if not blocks or m.get("content") == "":
            out.append(f"{where}: all messages must have non-empty content")
        for n, block in enumerate(blocks):
            _anthropic_block(f"{where}.content.{n}", role, block, issued, ids, out)
        results = [b.get("tool_use_id") for b in blocks if isinstance(b, dict)
                   and b.get("type") == "tool_result"]
        leading = 0
        while leading < len(blocks) and isinstance(blocks[leading], dict) and \
                blocks[leading].get("type") == "tool_result":
            leading += 1
        if len(results) != leading:
            out.append(f"{where}: tool_result blocks must come first in the message content")
        if previous_uses:
            missing = [u for u in previous_uses if u not in results]
            if role != "user" or missing:
                out.append(f"{where}: `tool_use` ids were found without `tool_result` blocks "
                           f"immediately after: {', '.join(missing or previous_uses)}. Each "
                           "`tool_use` block must have a corresponding `tool_result` block in "
                           "the next message.")
        extra = [r for r in results if r not in previous_uses]
        if extra:
            out.append(f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: "
                       f"{', '.join(map(str, extra))}. Each `tool_result` block must have a "
                       "corresponding `tool_use` block in the previous message.")
        previous_uses = [b.get("id") for b in blocks if isinstance(b, dict)
                         and b.get("type") == "tool_use"] if role == "assistant" else []
    if previous_uses:
        out.append("the last assistant message has `tool_use` blocks without results")
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        choice = body.get("tool_choice") or {}
        if thinking.get("type") == "enabled" and choice.get("type") in ("any", "tool"):
            out.append("Thinking may not be enabled when tool_choice forces tool use.")
        last = _last_assistant_of_turn(messages, lambda b: b.get("type") == "tool_result")
        if last is not None:
            blocks = _blocks(last.get("content"))
            first = blocks[0].get("type") if blocks and isinstance(blocks[0], dict) else None
            if any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks) and \
                    first not in ("thinking", "redacted_thinking"):
                out.append(f"Expected `thinking` or `redacted_thinking`, but found {first!r}. "
                           "When `thinking` is enabled, a final `assistant` message must "
                           "start with a thinking block.")
    return out


def _last_assistant_of_turn(messages: list[Any], is_result: Callable[[Any], bool]
                            ) -> Any:
    """The last assistant message, when the request continues its turn (the last message
    holds only tool results)."""
    if len(messages) < 2:
        return None
    tail = _blocks(messages[-1].get("content")) if messages[-1].get("role") == "user" else []
    if not tail or not all(isinstance(b, dict) and is_result(b) for b in tail):
        return None
    return messages[-2] if messages[-2].get("role") == "assistant" else None


# --- Bedrock Converse -----------------------------------------------------------------------

_TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # Claude's, stricter than Converse's own


def _bedrock_block(where: str, role: str, block: Any, issued: Issued, ids: set[str],
                   has_tools: bool, out: list[str]) -> None:
    if not isinstance(block, dict) or len(block) != 1:
        out.append(f"{where}: a content block has exactly one member")
        return
    kind, value = next(iter(block.items()))
    if kind == "text":
        if not _is_str(value) or not value.strip():
            out.append(f"{where}: The text field in the ContentBlock object is blank.")
    elif kind == "image":
        if value.get("format") not in ("png", "jpeg", "gif", "webp") or not _base64(
                (value.get("source") or {}).get("bytes")):
            out.append(f"{where}.image: format and source.bytes expected")
    elif kind == "document":
        if not _is_str(value.get("name")) or not _base64((value.get("source") or {}).get(
                "bytes")):
            out.append(f"{where}.document: name and source.bytes expected")
    elif kind in ("toolUse", "toolResult"):
        if not has_tools:
            out.append("The toolConfig field must be defined when using toolUse and "
                       "toolResult content blocks.")
        tool_id = value.get("toolUseId")
        if not _is_str(tool_id) or not _TOOL_USE_ID.fullmatch(tool_id):
            out.append(f"{where}.{kind}.toolUseId: Value at '{where}.toolUseId' failed to "
                       "satisfy constraint: Member must satisfy regular expression pattern: "
                       "[a-zA-Z0-9_-]+ and length 1 to 64")
        if kind == "toolUse":
            if role != "assistant":
                out.append(f"{where}: toolUse blocks are the assistant's")
            if tool_id in ids:
                out.append(f"{where}: toolUse ids must be unique")
            ids.add(tool_id)
        else:
            if role != "user":
                out.append(f"{where}: toolResult blocks are the user's")
            for n, inner in enumerate(value.get("content") or [None]):
                if not isinstance(inner, dict) or not inner or next(iter(inner)) not in (
                        "text", "json", "image", "document"):
                    out.append(f"{where}.toolResult.content[{n}]: text, json, image or "
                               "document expected")
    elif kind == "reasoningContent":
        if role != "assistant":
            out.append(f"{where}: reasoning is the assistant's")
        text = value.get("reasoningText")
        if isinstance(text, dict):
            if not issued.knows("bedrock", text.get("signature")):
                out.append(f"{where}: The model returned the following errors: Invalid "
                           "`signature` in `thinking` block")
        elif not issued.knows("bedrock", value.get("redactedContent")):
            out.append(f"{where}: invalid redactedContent")
    elif kind != "cachePoint":
        out.append(f"{where}: unknown content block {kind!r}")


def check_bedrock(body: dict[str, Any], issued: Issued) -> list[str]:
    out: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    if messages[0].get("role") != "user":
        out.append("A conversation must start with a user message. Try again with a "
                   "conversation that starts with a user message.")
    has_tools = bool((body.get("toolConfig") or {}).get("tools"))
    ids: set[str] = set()
    previous_uses: list[str] = []
    for i, m in enumerate(messages):
        where = f"messages.{i}"
        role = m.get("role")
        if i and messages[i - 1].get("role") == role:
            out.append("A conversation must alternate between user and assistant roles. "
                       "Make sure the conversation alternates between user and assistant "
                       "roles and try again.")
        content = m.get("content")
        if not isinstance(content, list) or not content:
            out.append(f"{where}.content: Member must have length greater than or equal to 1")
            continue
        for n, block in enumerate(content):
            _bedrock_block(f"{where}.content.{n}", role, block, issued, ids, has_tools, out)
        results = [b["toolResult"].get("toolUseId") for b in content
                   if isinstance(b, dict) and "toolResult" in b]
        if previous_uses:
            missing = [u for u in previous_uses if u not in results]
            if missing:
                out.append(f"Expected toolResult blocks at {where}.content for the following "
                           f"Ids: {', '.join(missing)}")
        if len(results) > len(previous_uses) or any(r not in previous_uses for r in results):
            out.append(f"The number of toolResult blocks at {where}.content exceeds the "
                       "number of toolUse blocks of previous turn.")
        previous_uses = [b["toolUse"].get("toolUseId") for b in content
                         if isinstance(b, dict) and "toolUse" in b]
    fields = body.get("additionalModelRequestFields") or {}
    thinking = fields.get("thinking") if isinstance(fields, dict) else None
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        last = _last_assistant_of_turn(messages, lambda b: "toolResult" in b)
        if last is not None:
            content = last.get("content") or []
            first = next(iter(content[0])) if content and isinstance(content[0], dict) else None
            if any(isinstance(b, dict) and "toolUse" in b for b in content) and \
                    first != "reasoningContent":
                out.append("The model returned the following errors: Expected `thinking` or "
                           f"`redacted_thinking`, but found {first!r}. When `thinking` is "
                           "enabled, a final `assistant` message must start with a thinking "
                           "block.")
    return out


# --- Gemini generateContent ------------------------------------------------------------------

def _gemini_part(where: str, role: str, part: Any, issued: Issued, out: list[str]) -> None:
    if not isinstance(part, dict):
        out.append(f"{where}: a part is an object")
        return
    data = {k for k in part if k not in ("thought", "thoughtSignature")}
    if len(data) != 1 and not (part.get("thought") and data <= {"text"}):
        out.append(f"{where}: a part holds exactly one of text, inlineData, fileData, "
                   "functionCall, functionResponse")
        return
    kind = next(iter(data)) if data else "text"
    if kind == "inlineData":
        inline = part["inlineData"]
        if not _is_str(inline.get("mimeType")) or not _base64(inline.get("data")):
            out.append(f"{where}.inlineData: mimeType and base64 data expected")
    elif kind == "fileData":
        if not _is_str((part["fileData"] or {}).get("fileUri")):
            out.append(f"{where}.fileData.fileUri: expected")
    elif kind == "functionCall" and role != "model":
        out.append(f"{where}: functionCall parts are the model's")
    elif kind == "functionResponse" and role != "user":
        out.append(f"{where}: functionResponse parts are the user's")
    elif kind not in ("text", "functionCall", "functionResponse"):
        out.append(f"{where}: unknown part {kind!r}")
    signature = part.get("thoughtSignature")
    if signature is not None and signature not in GEMINI_PLACEHOLDERS and not issued.knows(
            "google", signature):
        out.append(f"{where}: Corrupted thought signature.")


def check_google(body: dict[str, Any], issued: Issued, model: str = "") -> list[str]:
    out: list[str] = []
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return ["contents: at least one content is required"]
    for n, part in enumerate((body.get("systemInstruction") or {}).get("parts") or ()):
        if set(part) != {"text"}:
            out.append(f"systemInstruction.parts[{n}]: text only")
    previous_calls: list[dict[str, Any]] = []
    previous_kind = None  # "text", "calls" or "responses" (what the previous content held)
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        role = content.get("role")
        parts = content.get("parts")
        if role not in ("user", "model"):
            out.append(f"{where}.role: 'user' or 'model' expected")
            continue
        if not isinstance(parts, list) or not parts:
            out.append(f"{where}: contents.parts must not be empty.")
            continue
        for n, part in enumerate(parts):
            _gemini_part(f"{where}.parts[{n}]", role, part, issued, out)
        calls = [p["functionCall"] for p in parts if isinstance(p, dict) and "functionCall" in p]
        responses = [p["functionResponse"] for p in parts
                     if isinstance(p, dict) and "functionResponse" in p]
        if calls and previous_kind not in ("text", "responses"):
            out.append(f"{where}: Please ensure that function call turn comes immediately "
                       "after a user turn or after a function response turn.")
        if responses and previous_kind != "calls":
            out.append(f"{where}: Please ensure that function response turn comes "
                       "immediately after a function call turn.")
        if previous_kind == "calls":
            if len(responses) != len(previous_calls):
                out.append(f"{where}: Please ensure that the number of function response "
                           "parts is equal to the number of function call parts of the "
                           "function call turn.")
            for call, response in zip(previous_calls, responses, strict=False):
                if call.get("name") != response.get("name") or (
                        call.get("id") and response.get("id") != call.get("id")):
                    out.append(f"{where}: function responses must answer the calls in order "
                               f"({call.get('name')} / {response.get('name')})")
        previous_calls = calls
        previous_kind = "calls" if calls else "responses" if responses else "text"
    if model.startswith("gemini-3"):
        # Gemini 3 validates the signatures of the turn in progress: the first functionCall
        # part of each of its steps must carry one ("Function call is missing a
        # thought_signature in functionCall parts").
        start = max((i for i, c in enumerate(contents) if c.get("role") == "user" and all(
            "functionResponse" not in p for p in c.get("parts") or ())), default=0)
        for i in range(start, len(contents)):
            parts = contents[i].get("parts") or []
            first = next((p for p in parts if "functionCall" in p), None)
            if first is not None and "thoughtSignature" not in first:
                out.append(f"contents[{i}]: Function call is missing a thought_signature in "
                           "functionCall parts.")
    return out


# --- OpenAI Responses ------------------------------------------------------------------------

_RESPONSES_PARTS = {"user": {"input_text", "input_image", "input_file"},
                    "system": {"input_text"}, "developer": {"input_text"},
                    "assistant": {"output_text", "refusal"}}


def check_responses(body: dict[str, Any], issued: Issued) -> list[str]:
    out: list[str] = []
    items = body.get("input")
    if isinstance(items, str):
        return out
    if not isinstance(items, list) or not items:
        return ["input: expected a string or a non-empty array"]
    calls: dict[str, int] = {}
    answered: set[str] = set()
    for i, item in enumerate(items):
        where = f"input[{i}]"
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            if role not in _RESPONSES_PARTS:
                out.append(f"{where}.role: not a message role")
                continue
            content = item.get("content")
            if isinstance(content, list):
                for n, part in enumerate(content):
                    if not isinstance(part, dict) or part.get("type") not in _RESPONSES_PARTS[
                            role]:
                        out.append(f"{where}.content[{n}]: Invalid value: "
                                   f"{part.get('type') if isinstance(part, dict) else part!r}")
            elif not isinstance(content, str):
                out.append(f"{where}.content: a string or an array of parts")
        elif kind == "function_call":
            call_id = item.get("call_id")
            if not _is_str(call_id) or len(call_id) > 64:
                out.append(f"Invalid '{where}.call_id': string too long. Expected a string "
                           "with maximum length 64")
            if "id" in item and not str(item["id"]).startswith("fc"):
                out.append(f"Invalid '{where}.id': Expected an ID that begins with 'fc'.")
            if call_id in calls:
                out.append(f"{where}: Duplicate item found with call_id {call_id}.")
            calls[call_id] = i
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in calls:
                out.append(f"No tool call found for function call output with call_id "
                           f"{call_id}.")
            answered.add(call_id)
        elif kind == "reasoning":
            if not issued.knows("responses", item.get("encrypted_content")) and not \
                    issued.knows("responses", item.get("id")):
                out.append(f"{where}: The encrypted content for item {item.get('id')} could "
                           "not be verified.")
            following = items[i + 1] if i + 1 < len(items) else {}
            if following.get("type") not in ("function_call", "message") and \
                    following.get("role") != "assistant":
                out.append(f"Item '{item.get('id')}' of type 'reasoning' was provided "
                           "without its required following item.")
        else:
            out.append(f"{where}.type: {kind!r} is not an input item type")
    for call_id in calls:
        if call_id not in answered:
            out.append(f"No tool output found for function call {call_id}.")
    return out


CHECKS: dict[str, Callable[..., list[str]]] = {
    "openai": check_openai, "mistral": check_mistral, "kimi": check_kimi,
    "anthropic": check_anthropic, "google": check_google, "bedrock": check_bedrock,
    "responses": check_responses}
