"""OpenAI Chat Completions translation (docs/providers/openai.md), pure: no I/O, no SDK.

``ChatRequest`` -> keyword arguments of ``chat.completions.create`` (:func:`build_request`,
one row of the services table deciding the per-service differences); a raw
``chat.completion`` JSON object -> ``ChatCompletionResponse`` (:func:`parse_response`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Optional, TypeVar

from ...core.checks import tool_call_id_of
from ...core.errors import UnsupportedParameterError
from ...core.logprobs import choice_logprobs
from ...core.portability import fit_history
from ...core.types import (
    ChatCompletionResponse,
    Choice,
    CompletionTokensDetails,
    Function,
    Message,
    PromptTokensDetails,
    ToolCall,
    Usage,
)
from .._common import (
    bad_shape,
    check_file_id,
    check_n,
    need_list,
    need_name,
    need_object,
    opt_count,
)
from ..base import ChatRequest
from ..reasoning import refuse
from .errors import error_from_body
from .services import SERVICES, ServiceSpec, history_rules

# --- request translation ------------------------------------------------------------------

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
# Our own extension fields, never sent as such: they are renamed or dropped per service.
# ``annotations`` and ``audio`` are reply-only fields of OpenAI's assistant message: the
# request's assistant message has no ``annotations`` and takes ``audio`` as ``{"id": ...}``.
_EXTENSION_FIELDS = ("reasoning_content", "provider_specific_fields", "refusal", "annotations",
                     "audio")


def _wire_message(m: Mapping[str, Any], index: int, spec: ServiceSpec,
                  reasoning_field: Optional[str]) -> Mapping[str, Any]:
    """One message in OpenAI wire form. Returns the caller's dict itself when nothing needs
    changing (the SDK only reads it), else a new dict: callers' data is never mutated."""
    role = m.get("role")
    if role not in _ROLES:
        raise ValueError(f"messages[{index}] has role {role!r}; expected one of "
                         f"{sorted(_ROLES)}")
    if role == "assistant":
        if m.get("content") is None and not (m.get("tool_calls") or m.get("function_call")
                                             or m.get("refusal")):
            from ...core.checks import empty_message  # the API requires one of them

            raise empty_message(index, role, spec.key, "content or tool_calls")
        if not any(k in m for k in _EXTENSION_FIELDS):
            return m
        out = {k: v for k, v in m.items() if k not in _EXTENSION_FIELDS}
        reasoning = m.get("reasoning_content")
        # Sent even when empty: DeepSeek wants the field on every tool-call turn.
        if reasoning is not None and reasoning_field:
            out[reasoning_field] = reasoning
        psf = m.get("provider_specific_fields")
        if psf and spec.psf_fields:
            for field in spec.psf_fields:
                if field in psf:
                    out[field] = psf[field]
        if m.get("refusal") is not None and spec.openai_native:
            out["refusal"] = m["refusal"]
        audio = m.get("audio")
        if isinstance(audio, Mapping) and audio.get("id") and spec.openai_native:
            out["audio"] = {"id": audio["id"]}
        return out
    if role == "tool":
        tool_call_id_of(m, index, spec.key)  # the API links a result to its call by id
        # The Chat Completions tool message has no ``name`` (the call id links it); strict
        # APIs reject it, so the runner's informational name stays on our side.
        if "name" in m or "provider_specific_fields" in m:
            return {k: v for k, v in m.items() if k not in ("name", "provider_specific_fields")}
        return m
    if role == "developer" and not spec.openai_native:
        # Only OpenAI knows the developer role; for everyone else it is a system prompt.
        return {**m, "role": "system"}
    content = m.get("content")
    if spec.content_parts is not None and isinstance(content, list):
        _check_parts(content, index, spec)
    if isinstance(content, list) and _parts_to_fix(content, spec, index):
        # Accept the shorthand {"type": "image_url", "image_url": "<url>"}; the API wants an
        # object.
        parts = [{"type": "image_url", "image_url": {"url": p["image_url"]}}
                 if isinstance(p, dict) and p.get("type") == "image_url"
                 and isinstance(p.get("image_url"), str) else p for p in content]
        return {**m, "content": parts}
    if "provider_specific_fields" in m:
        return {k: v for k, v in m.items() if k != "provider_specific_fields"}
    return m


def _parts_to_fix(content: list[Any], spec: ServiceSpec, index: int) -> bool:
    """Whether a content list holds the image_url shorthand (``"image_url": "<url>"``); a
    file part naming another family's file id is refused here (docs/files.md)."""
    shorthand = False
    for p in content:
        if isinstance(p, dict):
            kind = p.get("type")
            if kind == "image_url" and isinstance(p.get("image_url"), str):
                shorthand = True
            elif kind == "file" and isinstance(p.get("file"), Mapping) and \
                    p["file"].get("file_id") is not None:
                family = "openai" if spec.key in ("openai", "azure") else spec.key
                check_file_id(p["file"]["file_id"], family, spec.key, index)
    return shorthand


def _check_parts(content: list[Any], index: int, spec: ServiceSpec) -> None:
    """A service that takes only some content parts refuses the others before sending."""
    assert spec.content_parts is not None
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind not in spec.content_parts:
            raise UnsupportedParameterError(
                f"messages[{index}] has a content part of type {kind!r}, which {spec.key}'s "
                f"chat API does not take (it takes: {', '.join(sorted(spec.content_parts))}); "
                "send the file's text, or use a provider that reads it (docs/portability.md)",
                parameter="messages", provider=spec.key)


_SAME_NAME_FIELDS = ("tools", "tool_choice", "parallel_tool_calls", "response_format",
                     "temperature", "top_p", "stop", "seed", "user")


def build_request(request: ChatRequest, spec: ServiceSpec, sdk_params: frozenset[str],
                        reasoning_field: Optional[str] = None) -> dict[str, Any]:
    """``ChatRequest`` -> keyword arguments for ``chat.completions.create``.

    ``sdk_params`` are the parameter names ``create`` accepts: a provider-native argument
    (``request.extra``) with such a name is passed as that argument, any other one inside
    ``extra_body``. ``reasoning_field`` overrides the service's reasoning field ("" = none).
    """
    field = spec.reasoning_field if reasoning_field is None else (reasoning_field or None)
    history = fit_history(request.messages, history_rules(spec), request.orphans,
                          provider=spec.key)  # ids, orphans, names: docs/portability.md
    messages = [_wire_message(m, i, spec, field) for i, m in history]
    last = messages[-1] if messages else None
    if spec.prefix_field and last is not None and last.get("role") == "assistant" \
            and not last.get("tool_calls"):
        # a history that ends with the assistant: the reply continues that message
        messages[-1] = {**last, spec.prefix_field: True}
    kwargs: dict[str, Any] = {"model": request.model, "messages": messages}
    # OpenAI's own vocabulary: these go out under the same name, as given (tool_choice too:
    # OpenAI's values and services' own ones, e.g. Mistral "any").
    for name in _SAME_NAME_FIELDS:
        value = getattr(request, name)
        if value is not None:
            kwargs[name] = value
    if request.max_tokens is not None:
        kwargs[spec.max_tokens_field or request.max_tokens_as] = request.max_tokens
    if request.n is not None:
        kwargs["n"] = check_n(spec.key, request.n)
    if request.stream:
        kwargs["stream"] = True
        if request.stream_options is not None:
            kwargs["stream_options"] = request.stream_options
    elif request.stream_options is not None:
        raise UnsupportedParameterError(
            "stream_options only applies with stream=True; remove it or pass stream=True",
            parameter="stream_options", provider=spec.key)
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    if request.extra:
        extra_body: dict[str, Any] = {}
        for name, value in request.extra.items():
            if name == "extra_body":
                if not isinstance(value, Mapping):
                    raise UnsupportedParameterError("extra_body must be a dict",
                                                    parameter="extra_body", provider=spec.key)
                extra_body.update(value)
            elif name in ("model", "messages", "stream"):
                raise UnsupportedParameterError(
                    f"{name!r} cannot be passed as a provider-native argument",
                    parameter=name, provider=spec.key)
            elif name in sdk_params:
                kwargs[name] = value
            else:
                extra_body[name] = value
        if extra_body:
            kwargs["extra_body"] = extra_body
    if request.reasoning_effort is not None:
        _apply_reasoning(kwargs, request, spec)
    if request.prompt_cache == "auto" and spec.prompt_cache_key \
            and "prompt_cache_key" not in kwargs:
        kwargs["prompt_cache_key"] = prompt_cache_key(request)
    if request.hosted_tools:  # a chat search model (others go over the Responses API)
        from .hosted import search_options

        if spec.key not in ("openai", "azure"):
            from ...core.hosted import no_hosted_tool

            raise no_hosted_tool(request.hosted_tools[0].kind, spec.key)

        options = search_options(request.hosted_tools, spec.key)
        kwargs["web_search_options"] = {**options, **kwargs.get("web_search_options", {})}
    return kwargs


@lru_cache(maxsize=64)
def _pattern(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


def _apply_reasoning(kwargs: dict[str, Any], request: ChatRequest, spec: ServiceSpec) -> None:
    """``reasoning_effort`` as the service takes it (its row of the table): the top-level
    field, as given, or OpenRouter's ``reasoning: {"effort": ...}`` (merged with a native
    ``reasoning`` object). A model the row knows not to reason takes only ``"none"``, which
    sends nothing (docs/reasoning-and-caching.md)."""
    effort = request.reasoning_effort
    assert effort is not None
    if spec.non_reasoning is not None and _pattern(spec.non_reasoning).match(request.model):
        if effort == "none":
            return
        raise refuse(spec.key, request.model, effort, "this model does not reason")
    if spec.reasoning_effort_as != "reasoning":
        kwargs["reasoning_effort"] = effort
        return
    body = kwargs["extra_body"] = dict(kwargs.get("extra_body") or {})
    native = body.get("reasoning")
    if native is None:
        body["reasoning"] = {"effort": effort}
    elif isinstance(native, Mapping) and "effort" not in native:
        body["reasoning"] = {"effort": effort, **native}
    else:
        raise UnsupportedParameterError(
            f"reasoning_effort and the native reasoning={native!r} both set the effort; pass "
            "it once", parameter="reasoning", provider=spec.key)


def prompt_cache_key(request: ChatRequest) -> str:
    """``prompt_cache="auto"`` on OpenAI: a key that is the same for every request with the
    same tools and system prompt (a hash of them), so OpenAI routes them to the same cache."""
    system = [m.get("content") for m in request.messages
              if m.get("role") in ("system", "developer")]
    text = json.dumps([request.tools, system], sort_keys=True, default=str)
    return "aisuite-" + hashlib.sha256(text.encode()).hexdigest()[:32]


# --- response translation -----------------------------------------------------------------

_FINISH_REASONS = {
    "stop": "stop", "length": "length", "tool_calls": "tool_calls",
    "content_filter": "content_filter", "function_call": "tool_calls",
    "end_turn": "stop", "eos": "stop", "stop_sequence": "stop", "max_tokens": "length",
    "model_length": "length", "tool_use": "tool_calls", "safety": "content_filter",
}


def _finish(native: Optional[str], has_tool_calls: bool) -> Optional[str]:
    if native is None:
        return "tool_calls" if has_tool_calls else None
    reason = _FINISH_REASONS.get(native, "stop")
    if has_tool_calls and reason != "length":
        return "tool_calls"
    return reason


def _usage(raw: Optional[Mapping[str, Any]], provider: str = "openai") -> Optional[Usage]:
    """Usage dict (OpenAI shape, with the compatible services' variants) -> ``Usage``. Keys
    we do not model (``audio_tokens``, a service's own counters) are kept as extra fields."""
    if not raw:
        return None
    if not isinstance(raw, dict):
        raise bad_shape(provider, "usage", "an object", raw)
    prompt = opt_count(raw.get("prompt_tokens"), provider, "usage.prompt_tokens")
    completion = opt_count(raw.get("completion_tokens"), provider, "usage.completion_tokens")
    total = raw.get("total_tokens")
    if total is not None:
        total = opt_count(total, provider, "usage.total_tokens")
    ptd = raw.get("prompt_tokens_details") or {}
    cached = ptd.get("cached_tokens")
    for name in ("prompt_cache_hit_tokens", "num_cached_tokens", "cached_tokens"):
        if cached is None:  # DeepSeek / Mistral / Hugging Face names for cache reads
            cached = raw.get(name)
    ctd = raw.get("completion_tokens_details") or {}
    reasoning = ctd.get("reasoning_tokens")
    ptd_model = None
    if cached is not None or ptd:
        # Cache writes (OpenAI's explicit caching, OpenRouter) under our portable name; the
        # wire's own keys stay as sent (to_dict() shows only what was sent).
        ptd_model = _make(PromptTokensDetails, {
            "cached_tokens": cached,
            "cache_creation_tokens": ptd.get("cache_creation_tokens",
                                             ptd.get("cache_write_tokens"))},
            _extras(ptd, _PTD_FIELDS), set(ptd) & _PTD_FIELDS)
    ctd_model = None
    if reasoning is not None or ctd:
        ctd_model = _make(CompletionTokensDetails, {"reasoning_tokens": reasoning},
                          _extras(ctd, _CTD_FIELDS), set(ctd) & _CTD_FIELDS)
    usage = _make(Usage, {
        "prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": total if total is not None else prompt + completion,
        "prompt_tokens_details": ptd_model, "completion_tokens_details": ctd_model,
        "server_tool_use": None,
    }, _extras(raw, _USAGE_FIELDS), (set(raw) & _USAGE_FIELDS) | _USAGE_ALWAYS)
    return usage


# to_dict() (exclude_unset) shows what the provider sent: the fields a translator fills in
# beyond that (our own ``provider``, defaults) are not marked as set.
_USAGE_FIELDS = frozenset(Usage.model_fields)
_USAGE_ALWAYS = frozenset({"prompt_tokens", "completion_tokens", "total_tokens"})
_PTD_FIELDS = frozenset(PromptTokensDetails.model_fields)
_CTD_FIELDS = frozenset(CompletionTokensDetails.model_fields)
_RESPONSE_FIELDS = frozenset(ChatCompletionResponse.model_fields)
_RESPONSE_WIRE = frozenset({"id", "object", "created", "model", "choices", "usage"})
_RESPONSE_SENT = _RESPONSE_WIRE | {"system_fingerprint", "service_tier"}
# Message fields only OpenAI and Azure send (and accept back); other services' are not kept.
_OPENAI_MESSAGE_ONLY = frozenset({"annotations", "audio"})
_CHOICE_FIELDS = frozenset(Choice.model_fields)
_MESSAGE_FIELDS = frozenset(Message.model_fields)
_MESSAGE_READ = frozenset({"role", "content", "tool_calls", "refusal", "reasoning_content",
                           "reasoning", "reasoning_details", "provider_specific_fields"})


def _mark_sent(model: Any, names: set[str] | frozenset[str]) -> None:
    object.__setattr__(model, "__pydantic_fields_set__", set(names))


_M = TypeVar("_M")


def _make(cls: type[_M], values: dict[str, Any], extra: dict[str, Any], sent: set[str]) -> _M:
    """``cls.model_construct`` for the per-chunk path, where ``values`` holds EVERY field of
    ``cls`` (our types have no aliases, private attributes or post-init): no per-field loop."""
    model = cls.__new__(cls)
    _set = object.__setattr__
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", sent)
    _set(model, "__pydantic_extra__", extra)
    _set(model, "__pydantic_private__", None)
    return model


def _extras(raw: Mapping[str, Any], fields: frozenset[str]) -> dict[str, Any]:
    """The keys of ``raw`` our type does not model: kept as extra fields (passthrough)."""
    return {k: v for k, v in raw.items() if k not in fields}


def _split_content(content: Any) -> tuple[Optional[str], Optional[str]]:
    """Message content -> (text, reasoning). A list (Mistral) joins its text parts and puts
    its ``thinking`` parts in reasoning; other part types are not text and are skipped."""
    if content is None or isinstance(content, str):
        return content or None, None
    text: list[str] = []
    thinking: list[str] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text.append(part.get("text") or "")
        elif kind == "thinking":
            inner = part.get("thinking")
            if isinstance(inner, str):
                thinking.append(inner)
            elif isinstance(inner, list):
                thinking.extend(p.get("text") or "" for p in inner if isinstance(p, dict))
    return "".join(text) or None, "".join(thinking) or None


def _reasoning_of(msg: Mapping[str, Any]) -> Optional[str]:
    return msg.get("reasoning_content") or msg.get("reasoning") or None


def _arguments(arguments: Any) -> str:
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)  # some local servers send an object


def _tool_calls(raw: Optional[list[Any]], choice_index: int,
                provider: str = "openai") -> Optional[list[ToolCall]]:
    if not raw:
        return None
    if not isinstance(raw, list):
        raise bad_shape(provider, f"choices[{choice_index}].message.tool_calls", "an array", raw)
    calls = []
    for position, tc in enumerate(raw):
        if not isinstance(tc, dict):
            raise bad_shape(provider, f"choices[{choice_index}].message.tool_calls[{position}]",
                            "an object", tc)
        fn = tc.get("function")
        if not isinstance(fn, dict):
            raise bad_shape(provider, f"choices[{choice_index}].message.tool_calls[{position}]"
                            ".function", "an object", fn)
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            name = need_name(name, provider, f"choices[{choice_index}].message.tool_calls"
                                             f"[{position}].function.name")
        calls.append(ToolCall.model_construct(
            id=tc.get("id") or _fallback_call_id(choice_index, tc.get("index", position)),
            type="function",
            function=Function.model_construct(name=name,
                                              arguments=_arguments(fn.get("arguments")) or "{}"),
        ))
    return calls


def _fallback_call_id(choice_index: int, call_index: int) -> str:
    # A few local servers omit tool-call ids; a stable one keeps the round trip possible.
    return f"call_{choice_index}_{call_index}"


def _psf(msg: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    details = msg.get("reasoning_details")
    return {"reasoning_details": details} if details else None


def parse_response(data: Mapping[str, Any], provider: str) -> ChatCompletionResponse:
    """A raw ``chat.completion`` JSON object -> ``ChatCompletionResponse`` (built once, no
    re-validation; ``raw`` keeps the dict). Fields the provider sends that our types do not
    model (``system_fingerprint``, ``service_tier``, ``logprobs``, ...) pass through as extra
    fields; on OpenAI and Azure the message's own extras (``annotations``, ``audio``) too,
    since those APIs accept them back. ``to_dict()`` shows exactly what was sent. A reply of
    another shape raises ``APIResponseValidationError``; an ``{"error": {...}}`` reply raises
    the mapped error."""
    data = need_object(data, provider, "the reply")
    if data.get("error"):
        raise error_from_body(data["error"], provider, where="error object in the reply")
    raw_choices = need_list(data.get("choices"), provider, "choices")
    if not raw_choices:
        raise bad_shape(provider, "choices", "at least one choice", [])
    spec = SERVICES.get(provider)
    message_extras = spec is not None and spec.openai_native
    choices = []
    for position, c in enumerate(raw_choices):
        if not isinstance(c, dict):
            raise bad_shape(provider, f"choices[{position}]", "an object", c)
        index = c.get("index", position)
        msg = c.get("message")
        if not isinstance(msg, dict):
            raise bad_shape(provider, f"choices[{position}].message", "an object", msg)
        raw_content = msg.get("content")
        if raw_content is not None and not isinstance(raw_content, (str, list)):
            raise bad_shape(provider, f"choices[{position}].message.content",
                            "a string or an array", raw_content)
        text, part_reasoning = _split_content(raw_content)
        if raw_content == "" and message_extras:
            text = ""  # as sent, as the OpenAI SDK keeps it
        tool_calls = _tool_calls(msg.get("tool_calls"), index, provider)
        native = c.get("native_finish_reason") or c.get("finish_reason")
        if native is not None and not isinstance(native, str):
            raise bad_shape(provider, f"choices[{position}].finish_reason", "a string", native)
        reasoning = _reasoning_of(msg) or part_reasoning
        psf = _psf(msg)
        sent = set(_MESSAGE_FIELDS.intersection(msg))
        sent.add("role")
        if reasoning is not None:
            sent.add("reasoning_content")
        if psf is not None:
            sent.add("provider_specific_fields")
        message = _make(Message, {
            "role": "assistant", "content": text, "tool_calls": tool_calls,
            "tool_call_id": None, "name": None, "reasoning_content": reasoning,
            "refusal": msg.get("refusal") or None, "provider_specific_fields": psf,
            "annotations": msg.get("annotations") if message_extras else None,
            "audio": msg.get("audio") if message_extras else None,
        }, {k: v for k, v in msg.items() if k not in _MESSAGE_FIELDS and k not in _MESSAGE_READ}
            if message_extras else {}, sent if message_extras else sent - _OPENAI_MESSAGE_ONLY)
        choice_sent = set(_CHOICE_FIELDS.intersection(c))
        choice_sent.update(("index", "message"))
        choices.append(_make(Choice, {
            "index": index, "message": message,
            "finish_reason": _finish(c.get("finish_reason"), tool_calls is not None),
            "native_finish_reason": native, "intermediate_messages": [],
            "logprobs": choice_logprobs(c.get("logprobs"), provider),
        }, _extras(c, _CHOICE_FIELDS), choice_sent))
    return _make(ChatCompletionResponse, {
        "id": data.get("id") or "", "object": "chat.completion",
        "created": data.get("created") or 0, "model": data.get("model") or "",
        "provider": provider, "choices": choices, "usage": _usage(data.get("usage"), provider),
        "intermediate_responses": [], "messages": None, "stop_reason": None,
        "tool_events": [], "context_events": [], "fallback_errors": [], "raw": data,
        "system_fingerprint": data.get("system_fingerprint"),
        "service_tier": data.get("service_tier"),
    }, _extras(data, _RESPONSE_FIELDS), set(_RESPONSE_SENT.intersection(data)))
