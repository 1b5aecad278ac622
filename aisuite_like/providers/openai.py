"""OpenAI and every OpenAI-compatible service: one translator, one row per service.

Two parts, as every provider module:

- a pure translator (no I/O, importable without the ``openai`` package): ``ChatRequest`` ->
  keyword arguments of ``chat.completions.create``; raw response JSON -> the unified
  ``ChatCompletionResponse``; one raw SSE event -> ``ChatCompletionChunk`` (with a small
  per-stream state); SDK exception -> our ``APIError`` subclass;
- a thin transport, ``OpenAIProvider``, calling the ``openai`` SDK through its raw-response path
  (``with_raw_response``) so our translator reads the JSON once and the SDK builds no models.

The services differ only by the row of ``SERVICES`` (base URL, key variable, which
max-tokens field and which reasoning field their API accepts). Decisions are documented in
``docs/providers/openai.md``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Optional, TypeVar

from ..core.checks import tool_call_id_of
from ..core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ConfigurationError,
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
    bad_shape,
    bad_stream_json,
    bound_sync_io,
    check_n,
    decode_json,
    host_of,
    host_of_url,
    need_list,
    need_name,
    need_object,
    opt_count,
    opt_object,
    read_reply,
    redirect_hooks,
    sse_json,
    too_deep_for_sdk,
    transport_error,
    unreadable,
)
from .base import ChatRequest, Provider, _mapped_errors

__all__ = [
    "ServiceSpec",
    "SERVICES",
    "OpenAIProvider",
    "build_create_kwargs",
    "parse_response",
    "StreamTranslator",
    "map_sdk_error",
]


# --- the service table --------------------------------------------------------------------


@dataclass(frozen=True)
class ServiceSpec:
    """One OpenAI-compatible service.

    ``base_url`` None means the SDK's own default (openai: ``https://api.openai.com/v1`` or
    ``OPENAI_BASE_URL``; azure: built from the endpoint). ``key_env`` is read when no
    ``api_key`` is configured; a service with ``key_required=False`` (local servers) sends
    ``placeholder_key`` instead. ``max_tokens_field`` is the request field the portable
    token limit becomes, as the service's API names it (None: the name the caller used,
    ``max_tokens`` or ``max_completion_tokens``, for a service that takes both).
    ``reasoning_field`` is the assistant-message field under which the
    API accepts reasoning sent back (None: it is not sent). ``psf_fields`` are the
    ``provider_specific_fields`` keys sent back on assistant messages. ``openai_only_fields``
    says whether OpenAI's own message extras (``developer`` role, ``refusal``) are understood.
    """

    key: str
    base_url: Optional[str]
    key_env: Optional[str]
    key_required: bool = True
    placeholder_key: Optional[str] = None
    max_tokens_field: Optional[str] = "max_tokens"
    reasoning_field: Optional[str] = None
    psf_fields: tuple[str, ...] = ()
    openai_native: bool = False


def _row(key: str, base_url: Optional[str], key_env: Optional[str], **kw: Any
         ) -> tuple[str, ServiceSpec]:
    return key, ServiceSpec(key, base_url, key_env, **kw)


#: key -> service. ONE table: adding a compatible service is adding a row here and its key to
#: ``providers/__init__.py``. The token limit follows each service's API: OpenAI, Azure and
#: Groq take ``max_completion_tokens``; OpenRouter takes either, as sent (its recorded
#: exchanges: ``max_completion_tokens`` applied); Hugging Face's router and the rest take
#: ``max_tokens`` (Hugging Face's recorded exchange).
SERVICES: dict[str, ServiceSpec] = dict([
    _row("openai", None, "OPENAI_API_KEY", max_tokens_field="max_completion_tokens",
         openai_native=True),
    _row("azure", None, "AZURE_OPENAI_API_KEY", max_tokens_field="max_completion_tokens",
         openai_native=True),
    _row("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
         max_tokens_field="max_completion_tokens"),
    _row("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    # DeepSeek thinking mode REQUIRES reasoning_content back on assistant tool-call turns.
    _row("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY",
         reasoning_field="reasoning_content"),
    _row("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
    _row("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    _row("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
    _row("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
         max_tokens_field=None, reasoning_field="reasoning", psf_fields=("reasoning_details",)),
    _row("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY",
         reasoning_field="reasoning"),
    _row("perplexity", "https://api.perplexity.ai", "PERPLEXITY_API_KEY"),
    _row("huggingface", "https://router.huggingface.co/v1", "HF_TOKEN"),
    _row("ollama", "http://localhost:11434/v1", "OLLAMA_API_KEY", key_required=False,
         placeholder_key="ollama", reasoning_field="reasoning"),
    _row("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_API_KEY", key_required=False,
         placeholder_key="lm-studio"),
    _row("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", key_required=False,
         placeholder_key="EMPTY", reasoning_field="reasoning"),
    _row("nebius", "https://api.studio.nebius.com/v1", "NEBIUS_API_KEY"),
    _row("sambanova", "https://api.sambanova.ai/v1", "SAMBANOVA_API_KEY"),
    _row("inception", "https://api.inceptionlabs.ai/v1", "INCEPTION_API_KEY"),
    # Cohere's OpenAI compatibility API (its native SDK reads CO_API_KEY, not used here).
    _row("cohere", "https://api.cohere.ai/compatibility/v1", "COHERE_API_KEY"),
])

def _netloc(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).netloc.lower()


def _spec_for_endpoint(spec: ServiceSpec, base_url: Any) -> ServiceSpec:
    """The ``openai`` row pointed at a host that is not OpenAI's (a compatible server, a key
    registered with ``OpenAIProvider``) sends the limit as the service of the table at that
    host does (OpenRouter: as sent; Hugging Face's router: ``max_tokens``), and as
    ``max_tokens``, the one name every compatible server knows, on any other host."""
    if spec.key != "openai" or not base_url:
        return spec
    netloc = _netloc(str(base_url))
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    if host == "openai.com" or host.endswith(".openai.com"):
        return spec
    known = next((s for s in SERVICES.values() if s.base_url and _netloc(s.base_url) == netloc
                  and not s.openai_native), None)
    return replace(spec, max_tokens_field=known.max_tokens_field if known else "max_tokens")


# Config keys every service understands, plus the family-specific ones.
_COMMON_CONFIG = frozenset({
    "api_key", "base_url", "timeout", "max_retries", "default_headers", "http_client",
    "async_http_client", "async_transport", "reasoning_field", "organization", "project",
}) | _retry.CONFIG_KEYS
_AZURE_CONFIG = frozenset({
    "api_version", "azure_endpoint", "azure_deployment", "azure_ad_token",
    "azure_ad_token_provider",
})

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
            from ..core.checks import empty_message  # the API requires one of them

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
    if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "image_url"
            and isinstance(p.get("image_url"), str) for p in content):
        # Accept the shorthand {"type": "image_url", "image_url": "<url>"}; the API wants an
        # object.
        parts = [{"type": "image_url", "image_url": {"url": p["image_url"]}}
                 if isinstance(p, dict) and p.get("type") == "image_url"
                 and isinstance(p.get("image_url"), str) else p for p in content]
        return {**m, "content": parts}
    if "provider_specific_fields" in m:
        return {k: v for k, v in m.items() if k != "provider_specific_fields"}
    return m


_SAME_NAME_FIELDS = ("tools", "tool_choice", "parallel_tool_calls", "response_format",
                     "temperature", "top_p", "stop", "seed", "user")


def build_create_kwargs(request: ChatRequest, spec: ServiceSpec, sdk_params: frozenset[str],
                        reasoning_field: Optional[str] = None) -> dict[str, Any]:
    """``ChatRequest`` -> keyword arguments for ``chat.completions.create``.

    ``sdk_params`` are the parameter names ``create`` accepts: a provider-native argument
    (``request.extra``) with such a name is passed as that argument, any other one inside
    ``extra_body``. ``reasoning_field`` overrides the service's reasoning field ("" = none).
    """
    field = spec.reasoning_field if reasoning_field is None else (reasoning_field or None)
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": [_wire_message(m, i, spec, field) for i, m in enumerate(request.messages)],
    }
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
    return kwargs


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
        ptd_model = PromptTokensDetails.model_construct(**{**ptd, "cached_tokens": cached})
        if "cached_tokens" not in ptd:  # found under another name: ours, not the wire's
            _mark_sent(ptd_model, set(ptd) & _PTD_FIELDS)
    usage = Usage.model_construct(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total if total is not None else prompt + completion,
        prompt_tokens_details=ptd_model,
        completion_tokens_details=(CompletionTokensDetails.model_construct(**ctd)
                                   if reasoning is not None or ctd else None),
        **{k: v for k, v in raw.items() if k not in _USAGE_FIELDS},
    )
    _mark_sent(usage, (set(raw) & _USAGE_FIELDS) | _USAGE_ALWAYS)
    return usage


# to_dict() (exclude_unset) shows what the provider sent: the fields a translator fills in
# beyond that (our own ``provider``, defaults) are not marked as set.
_USAGE_FIELDS = frozenset(Usage.model_fields)
_USAGE_ALWAYS = frozenset({"prompt_tokens", "completion_tokens", "total_tokens"})
_PTD_FIELDS = frozenset(PromptTokensDetails.model_fields)
_RESPONSE_FIELDS = frozenset(ChatCompletionResponse.model_fields)
_RESPONSE_WIRE = frozenset({"id", "object", "created", "model", "choices", "usage"})
_RESPONSE_SENT = _RESPONSE_WIRE | {"system_fingerprint", "service_tier"}
# Message fields only OpenAI and Azure send (and accept back); other services' are not kept.
_OPENAI_MESSAGE_ONLY = frozenset({"annotations", "audio"})
_CHOICE_FIELDS = frozenset(Choice.model_fields)
_MESSAGE_FIELDS = frozenset(Message.model_fields)
_MESSAGE_READ = frozenset({"role", "content", "tool_calls", "refusal", "reasoning_content",
                           "reasoning", "reasoning_details", "provider_specific_fields"})
_CHUNK_FIELDS = frozenset(ChatCompletionChunk.model_fields)
_CHUNK_CHOICE_FIELDS = frozenset(ChunkChoice.model_fields)
_DELTA_FIELDS = frozenset(ChoiceDelta.model_fields)


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
        raise _stream_error(data["error"], provider, where="error object in the reply")
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
            "logprobs": c.get("logprobs"),
        }, _extras(c, _CHOICE_FIELDS), choice_sent))
    return _make(ChatCompletionResponse, {
        "id": data.get("id") or "", "object": "chat.completion",
        "created": data.get("created") or 0, "model": data.get("model") or "",
        "provider": provider, "choices": choices, "usage": _usage(data.get("usage"), provider),
        "intermediate_responses": [], "messages": None, "stop_reason": None,
        "tool_events": [], "fallback_errors": [], "raw": data,
        "system_fingerprint": data.get("system_fingerprint"),
        "service_tier": data.get("service_tier"),
    }, _extras(data, _RESPONSE_FIELDS), set(_RESPONSE_SENT.intersection(data)))


# --- stream translation -------------------------------------------------------------------


class _ChoiceState:
    __slots__ = ("started", "call_ids", "details", "finished")

    def __init__(self) -> None:
        self.started = False
        self.call_ids: dict[int, str] = {}  # tool-call index -> id (first fragment seen)
        self.details: Optional[dict[Any, dict[str, Any]]] = None  # openrouter reasoning_details
        self.finished = False


def _merge_detail(into: dict[Any, dict[str, Any]], fragment: Mapping[str, Any]) -> None:
    """OpenRouter streams ``reasoning_details`` as fragments of the same item (same index):
    text pieces concatenate; other keys keep their last non-empty value."""
    key = fragment.get("index", len(into))
    item = into.get(key)
    if item is None:
        into[key] = dict(fragment)
        return
    for name, value in fragment.items():
        if name in ("text", "summary", "data") and isinstance(value, str):
            item[name] = (item.get(name) or "") + value
        elif value not in (None, ""):
            item[name] = value


class StreamTranslator:
    """Raw SSE events of ONE streamed reply -> ``ChatCompletionChunk`` objects.

    Per event: one chunk, or None for an event that carries nothing (keep-alive, empty
    delta). ``finish()`` raises when the stream ended before any choice finished (a dropped
    connection the server closed cleanly).
    """

    __slots__ = ("provider", "secrets", "_choices", "saw_finish")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # scrubbed from error events (a provider may echo them)
        self._choices: dict[int, _ChoiceState] = {}
        self.saw_finish = False

    def translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        """One event -> its chunk (or None); an event of another shape raises
        ``APIResponseValidationError``."""
        try:
            return self._translate(event)
        except (AisuiteLikeError, MemoryError):
            raise
        except Exception as exc:
            raise unreadable(self.provider, exc, "a stream event") from exc

    def _translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        if not isinstance(event, dict):
            raise bad_shape(self.provider, "a stream event", "an object", event)
        if event.get("error"):
            raise _stream_error(event["error"], self.provider, self.secrets)
        out_choices = []
        raw_choices = event.get("choices")
        if raw_choices:
            for position, c in enumerate(need_list(raw_choices, self.provider, "choices")):
                chunk_choice = self._choice(need_object(c, self.provider, "choices[]"), position)
                if chunk_choice is not None:
                    out_choices.append(chunk_choice)
        usage = _usage(event.get("usage"), self.provider)
        if not out_choices and usage is None:
            return None
        return _make(ChatCompletionChunk, {
            "id": event.get("id") or "", "object": "chat.completion.chunk",
            "created": event.get("created") or 0, "model": event.get("model") or "",
            "provider": self.provider, "choices": out_choices, "usage": usage, "turn": None,
        }, _extras(event, _CHUNK_FIELDS), set(_RESPONSE_WIRE.intersection(event)))

    def _choice(self, c: Mapping[str, Any], position: int) -> Optional[ChunkChoice]:
        index = c.get("index", position)
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _ChoiceState()
        delta = opt_object(c.get("delta"), self.provider, "choices[].delta") or {}
        content, part_reasoning = _split_content(delta.get("content"))
        if not state.started and delta.get("content") == "":
            content = ""  # the first delta as sent (role, content=""), as the OpenAI SDK
        reasoning = _reasoning_of(delta) or part_reasoning
        refusal = delta.get("refusal") or None
        if not state.started and delta.get("refusal") == "":
            refusal = ""  # as sent, like content
        tool_calls = None
        raw_calls = delta.get("tool_calls")
        if raw_calls:
            tool_calls = []
            for position_in_delta, tc in enumerate(
                    need_list(raw_calls, self.provider, "choices[].delta.tool_calls")):
                tc = need_object(tc, self.provider, "choices[].delta.tool_calls[]")
                call_index = tc.get("index", position_in_delta)
                fn = opt_object(tc.get("function"), self.provider,
                                "choices[].delta.tool_calls[].function") or {}
                # id, type and name go out on a call's first fragment only (some servers
                # repeat them on every fragment).
                first = call_index not in state.call_ids
                call_id = None
                if first:
                    need_name(fn.get("name"), self.provider,  # on a call's first fragment
                              "choices[].delta.tool_calls[].function.name")
                    call_id = tc.get("id") or _fallback_call_id(index, call_index)
                    state.call_ids[call_index] = call_id
                arguments = _arguments(fn.get("arguments")) or None
                out_fn = ChoiceDeltaFunction.model_construct(
                    name=fn.get("name") if first else None, arguments=arguments)
                out_call = ChoiceDeltaToolCall.model_construct(
                    index=call_index, id=call_id, type="function" if first else None,
                    function=out_fn)
                if first:  # to_dict(): a later fragment shows only what it carries
                    _mark_sent(out_call, {"index", "id", "type", "function"})
                    _mark_sent(out_fn, {"name", "arguments"} if arguments is not None
                               else {"name"})
                else:
                    _mark_sent(out_call, {"index", "function"})
                    _mark_sent(out_fn, {"arguments"})
                tool_calls.append(out_call)
        details = delta.get("reasoning_details")
        if details:
            if state.details is None:
                state.details = {}
            for fragment in details:
                if isinstance(fragment, dict):
                    _merge_detail(state.details, fragment)
        native = c.get("finish_reason")
        finish = None
        psf = None
        if native is not None:
            if not isinstance(native, str):
                raise bad_shape(self.provider, "choices[].finish_reason", "a string", native)
            state.finished = self.saw_finish = True
            finish = _finish(native, bool(state.call_ids))
            if state.details:
                # Merged reasoning items go out once, with the finish, so the accumulated
                # message equals the non-streamed one and can be sent back as is.
                psf = {"reasoning_details": list(state.details.values())}
                state.details = None
        role = None
        if not state.started:
            state.started = True
            role = "assistant"
        elif (content is None and reasoning is None and refusal is None and tool_calls is None
              and native is None):
            return None
        sent = set(_DELTA_FIELDS.intersection(delta))
        if role is not None:
            sent.add("role")
        if reasoning is not None:
            sent.add("reasoning_content")
        if psf is not None:
            sent.add("provider_specific_fields")
        out_delta = _make(ChoiceDelta, {
            "role": role, "content": content, "tool_calls": tool_calls,
            "reasoning_content": reasoning, "refusal": refusal, "provider_specific_fields": psf,
        }, {}, sent)
        choice_sent = set(_CHUNK_CHOICE_FIELDS.intersection(c))
        choice_sent.update(("index", "delta"))
        return _make(ChunkChoice, {
            "index": index, "delta": out_delta, "finish_reason": finish,
            "native_finish_reason": (c.get("native_finish_reason") or native) if native else None,
        }, _extras(c, _CHUNK_CHOICE_FIELDS), choice_sent)

    def finish(self) -> None:
        if not self.saw_finish:
            raise APIConnectionError(
                "the stream ended before the model finished (no finish_reason received); "
                "the connection was probably closed early", provider=self.provider)


class StreamBody:
    """The SSE body of ONE streamed reply -> chunks: the shared SSE decoder
    (``_common.SSEDecoder``) and :class:`StreamTranslator` together, so the sync and async
    transports only move bytes. ``data: [DONE]`` ends the reply (``done``); a body that ends
    inside an event whose JSON is cut off is a lost connection."""

    __slots__ = ("translator", "done", "_decoder")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = ()) -> None:
        self.translator = StreamTranslator(provider, secrets)
        self.done = False
        self._decoder = SSEDecoder(provider)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        """The chunks of the events ``data`` (the next bytes of the body) completes."""
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        """The end of the body (an unterminated last event is processed if complete); then
        the check that some choice finished."""
        yield from self._chunks(self._decoder.end(), at_end=True)
        self.translator.finish()

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        translator = self.translator
        for _name, data in events:
            if self.done:
                return
            if data.startswith("[DONE]"):
                self.done = True
                return
            chunk = translator.translate(sse_json(data, translator.provider, at_end=at_end))
            if chunk is not None:
                yield chunk


# Error ``type`` values of OpenAI and the compatible services -> the HTTP status they mean.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
    "not_found_error": 404, "rate_limit_error": 429, "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
}


def _stream_error(error: Any, provider: str, secrets: Iterable[Optional[str]] = (), *,
                  where: str = "error event in stream") -> APIError:
    """An ``{"error": {...}}`` event inside a 200 stream (or a 200 reply) -> typed error: a
    status-like code keeps its meaning, a known error type its status (an invalid request
    stays a BadRequestError), anything else is a server-side failure (InternalServerError)."""
    body = error if isinstance(error, Mapping) else {"message": str(error)}
    message = str(body.get("message") or "the provider reported an error inside the stream")
    code = body.get("code")
    status: Optional[int] = code if isinstance(code, int) and 400 <= code < 600 else None
    if status is None:
        kind = body.get("type")
        status = _ERROR_TYPE_STATUS.get(kind, 500) if isinstance(kind, str) else 500
    detail = (f"{message} (code: {code})" if code is not None and not isinstance(code, int)
              else message)
    return _error_for_status(status, f"{where}: {detail}", provider=provider,
                             secrets=secrets, body=dict(body),
                             code=code if isinstance(code, str) else None)


# --- SDK errors ---------------------------------------------------------------------------


def map_sdk_error(exc: BaseException, provider: str,
                  secrets: Iterable[Optional[str]] = ()) -> BaseException:
    """An ``openai`` SDK exception -> our typed error (the caller raises it ``from exc``).
    Anything that is not an SDK API error is returned unchanged."""
    import openai  # only called once the SDK is in use

    secrets = tuple(secrets)
    if isinstance(exc, openai.APIStatusError):
        response = exc.response
        return _error_for_status(
            exc.status_code, str(exc.message), provider=provider,
            request_id=exc.request_id or response.headers.get("x-request-id"),
            retry_after=_parse_retry_after(response.headers), secrets=secrets,
            code=exc.code if isinstance(exc.code, str) else None, body=exc.body,
            response=response)
    if isinstance(exc, openai.APITimeoutError):
        host = host_of(exc)
        return APITimeoutError(
            _redact(f"request to {provider}{f' at {host}' if host else ''} timed out", secrets),
            provider=provider)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        host = host_of(exc)
        return APIConnectionError(
            _redact(f"connection to {provider}{f' at {host}' if host else ''} failed{detail}",
                    secrets), provider=provider)
    if isinstance(exc, openai.APIError):  # an error event inside a 200 stream
        return _stream_error(exc.body if exc.body is not None else {"message": exc.message},
                             provider, secrets)
    if isinstance(exc, json.JSONDecodeError):  # a complete stream event that is not JSON
        return bad_stream_json(exc, provider)
    # httpx2 / aiohttp errors raised while a stream's body is read (the SDK wraps only those
    # of sending); a RecursionError an SDK raised decoding a reply it parses itself
    return transport_error(exc, provider, secrets) or too_deep_for_sdk(exc, provider) or exc


# --- transport ----------------------------------------------------------------------------

_SDK_PARAMS: Optional[frozenset[str]] = None
#: Seconds that bound an attempt when no timeout is configured: the openai SDK's 600 s.
_DEFAULT_TIMEOUT = 600.0


def _sdk_params() -> frozenset[str]:
    """Parameter names of ``chat.completions.create`` (read once from the installed SDK)."""
    global _SDK_PARAMS
    if _SDK_PARAMS is None:
        import inspect

        from openai.resources.chat.completions import Completions

        _SDK_PARAMS = frozenset(inspect.signature(Completions.create).parameters) - {"self"}
    return _SDK_PARAMS


class OpenAIProvider(Provider):
    """OpenAI, Azure OpenAI and the OpenAI-compatible services of ``SERVICES``.

    Config: ``api_key``, ``base_url``, ``timeout``, ``max_retries`` (default 2), ``max_retry_wait``,
    ``max_concurrency``, ``retry_clock`` (see ``aisuite_like.providers.retry``; the SDK's own
    retries are off), ``default_headers``, ``http_client`` (an ``httpx2.Client`` or
    ``httpx2.AsyncClient``; used for the matching client), ``async_http_client``,
    ``async_transport`` (``"httpx"`` default, or ``"aiohttp"``: the SDK's
    ``DefaultAioHttpClient``, needs ``openai[aiohttp]``), ``reasoning_field`` (override the
    table), ``organization``/``project`` (openai, azure); azure also ``api_version``,
    ``azure_endpoint``, ``azure_deployment``, ``azure_ad_token``, ``azure_ad_token_provider``.
    """

    def __init__(self, service: str = "openai", **config: Any) -> None:
        spec = SERVICES.get(service)
        if spec is None:
            raise ConfigurationError(f"unknown OpenAI-compatible service {service!r}; known: "
                                     f"{', '.join(sorted(SERVICES))}")
        allowed = _COMMON_CONFIG | (_AZURE_CONFIG if service == "azure" else frozenset())
        unknown = sorted(set(config) - allowed)
        if unknown:
            from ..core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message(service, unknown, allowed))
        if service not in ("openai", "azure"):
            for name in ("organization", "project"):
                if name in config:
                    raise ConfigurationError(
                        f"{name!r} is an OpenAI/Azure setting; {service!r} does not use it")
        transport = config.pop("async_transport", "httpx")
        if transport not in ("httpx", "aiohttp"):
            raise ConfigurationError(
                f"async_transport must be 'httpx' or 'aiohttp', got {transport!r}")
        if transport == "aiohttp" and config.get("async_http_client") is not None:
            raise ConfigurationError("pass either async_transport='aiohttp' or "
                                     "async_http_client, not both")
        self.key = service
        self.spec = _spec_for_endpoint(
            spec, config.get("base_url") or os.environ.get("OPENAI_BASE_URL"))
        self._transport = transport
        self._reasoning_field = config.pop("reasoning_field", None)
        self._calls = _retry.CallPolicy.from_config(
            config, service, default_timeout=_DEFAULT_TIMEOUT,
            host=host_of_url(config.get("base_url") or config.get("azure_endpoint")
                             or self.spec.base_url or os.environ.get("OPENAI_BASE_URL")
                             or "https://api.openai.com/v1"))
        self._api_key = self._resolve_key(spec, config)
        self._azure = self._resolve_azure(config) if service == "azure" else None
        self._config = config
        self._client: Any = None
        self._async_client: Any = None
        self._async_loop: Any = None  # the event loop _async_client was made on
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider(service={self.key!r})"

    # -- configuration (runs before any request) --

    @staticmethod
    def _resolve_key(spec: ServiceSpec, config: dict[str, Any]) -> Any:
        key = config.pop("api_key", None)
        if key is None and spec.key_env:
            key = os.environ.get(spec.key_env) or None
        if key is not None:
            return clean_api_key(key, spec.key)
        if spec.key == "azure" and (config.get("azure_ad_token")
                                    or config.get("azure_ad_token_provider")
                                    or os.environ.get("AZURE_OPENAI_AD_TOKEN")):
            return None  # Entra ID auth instead of a key
        if spec.key_required:
            raise AuthenticationError(
                f"no API key for provider {spec.key!r}: set the {spec.key_env} environment "
                f"variable or pass provider_configs={{{spec.key!r}: {{'api_key': ...}}}}",
                provider=spec.key)
        return spec.placeholder_key

    @staticmethod
    def _resolve_azure(config: dict[str, Any]) -> dict[str, Any]:
        base_url = config.pop("base_url", None)
        endpoint = config.pop("azure_endpoint", None)
        if base_url is None and endpoint is None:
            endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT") or None
        if base_url is not None and endpoint is not None:
            raise ConfigurationError("azure: pass either base_url or azure_endpoint, not both")
        if base_url is None and endpoint is None:
            raise ConfigurationError(
                "azure needs an endpoint: set AZURE_OPENAI_ENDPOINT or pass azure_endpoint "
                "(e.g. 'https://my-resource.openai.azure.com') in provider_configs['azure']")
        api_version = config.pop("api_version", None) or os.environ.get("OPENAI_API_VERSION")
        if not api_version:
            raise ConfigurationError(
                "azure needs an API version: set OPENAI_API_VERSION or pass api_version "
                "(e.g. '2024-10-21') in provider_configs['azure']")
        out: dict[str, Any] = {"api_version": api_version}
        if base_url is not None:
            out["base_url"] = base_url
        else:
            out["azure_endpoint"] = endpoint
            if config.get("azure_deployment") is not None:
                out["azure_deployment"] = config.pop("azure_deployment")
        for name in ("azure_ad_token", "azure_ad_token_provider"):
            if config.get(name) is not None:
                out[name] = config.pop(name)
        return out

    def _client_kwargs(self, http_client: Any) -> dict[str, Any]:
        import openai

        config = self._config
        # Retries are ours (aisuite_like._retry), the same on every family: the SDK's are off.
        kwargs: dict[str, Any] = {"max_retries": 0}
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        if config.get("timeout") is not None:
            kwargs["timeout"] = config["timeout"]
        headers = dict(config.get("default_headers") or {})
        if self.spec.openai_native:
            for name in ("organization", "project"):
                if config.get(name) is not None:
                    kwargs[name] = config[name]
        else:
            # The SDK would read OPENAI_BASE_URL / OPENAI_ORG_ID / OPENAI_PROJECT_ID from the
            # environment; none of them belongs to another service.
            kwargs["base_url"] = config.get("base_url") or self.spec.base_url
            headers.setdefault("OpenAI-Organization", openai.Omit())
            headers.setdefault("OpenAI-Project", openai.Omit())
        if config.get("base_url") is not None:
            # The configured endpoint, whatever key the provider was registered under: a key
            # configured for one host is never sent to another.
            kwargs["base_url"] = config["base_url"]
        if headers:
            kwargs["default_headers"] = headers
        if http_client is not None:
            kwargs["http_client"] = http_client
        if self._azure is not None:
            kwargs.update(self._azure)
        return kwargs

    def _user_http_client(self, want_async: bool) -> Any:
        import httpx2

        if want_async and self._config.get("async_http_client") is not None:
            return self._config["async_http_client"]
        client = self._config.get("http_client")
        if client is None:
            return None
        return client if isinstance(client, httpx2.AsyncClient) == want_async else None

    def _sync(self) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    import openai

                    cls = openai.AzureOpenAI if self._azure is not None else openai.OpenAI
                    http_client = self._user_http_client(False)
                    if http_client is None:  # the SDK's defaults, and no redirect elsewhere
                        http_client = openai.DefaultHttpxClient(
                            event_hooks=redirect_hooks(self.key, is_async=False))
                    client = cls(**self._client_kwargs(http_client))
                    bound_sync_io(client._client)  # timeout bounds the whole attempt
                    self._client = client
                client = self._client
        return client

    def _async(self) -> Any:
        client = self._async_client
        if client is not None and self._async_loop is not None \
                and self._async_loop.is_closed() and self._user_http_client(True) is None:
            # A sync client's acreate called from a new event loop (asyncio.run again): the
            # old client's connections died with their loop; start a new one.
            client = self._async_client = None
        if client is None:
            with self._lock:
                if self._async_client is None:
                    import openai

                    http_client = self._user_http_client(True)
                    hooks = redirect_hooks(self.key, is_async=True)
                    if http_client is None and self._transport == "aiohttp":
                        try:
                            http_client = openai.DefaultAioHttpClient(event_hooks=hooks)
                        except RuntimeError as exc:
                            from ..core.errors import MissingDependencyError

                            raise MissingDependencyError(
                                "async_transport='aiohttp' needs aiohttp: "
                                'pip install "aisuite-like[aiohttp]"') from exc
                    elif http_client is None:
                        http_client = openai.DefaultAsyncHttpxClient(event_hooks=hooks)
                    cls = (openai.AsyncAzureOpenAI if self._azure is not None
                           else openai.AsyncOpenAI)
                    self._async_client = cls(**self._client_kwargs(http_client))
                    self._async_loop = asyncio._get_running_loop()  # None outside a loop
                client = self._async_client
        return client

    # -- calls --

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        return build_create_kwargs(request, self.spec, _sdk_params(), self._reasoning_field)

    def _secrets(self) -> tuple[Optional[str]]:
        key = self._api_key
        if not isinstance(key, str) or key == self.spec.placeholder_key:
            return (None,)  # a local server's placeholder ("ollama") is no secret
        return (key,)

    def _error(self, exc: BaseException) -> BaseException:
        if isinstance(exc, TypeError):
            return UnsupportedParameterError(
                f"{self.key} rejected an argument: {exc}. Check the provider-native keyword "
                "arguments you passed.", provider=self.key)
        secrets = self._secrets()
        mapped = map_sdk_error(exc, self.key, secrets)
        if mapped is not exc:
            _scrub_exception(exc, secrets)  # it becomes __cause__: tracebacks print it
        return mapped

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        kwargs = self._kwargs(request)
        kwargs.pop("stream", None)
        return _retry.call(self._calls, self._complete_once, kwargs,
                           self._calls.bounds(request.timeout))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        kwargs = self._kwargs(request)
        kwargs.pop("stream", None)
        return await _retry.acall(self._calls, self._acomplete_once, kwargs,
                                  self._calls.bounds(request.timeout))

    def _complete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        with _mapped_errors(self._error):
            raw = self._sync().chat.completions.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        return self._parse(raw.http_response, body)

    async def _acomplete_once(self, kwargs: dict[str, Any]) -> ChatCompletionResponse:
        with _mapped_errors(self._error):
            raw = await self._async().chat.completions.with_raw_response.create(**kwargs)
            body = raw.http_response.content
        return self._parse(raw.http_response, body)

    def _parse(self, http_response: Any, body: bytes) -> ChatCompletionResponse:
        status, request_id = http_response.status_code, http_response.headers.get("x-request-id")
        data = decode_json(body, self.key, status_code=status, request_id=request_id)
        return read_reply(lambda: parse_response(data, self.key), self.key, status, request_id)

    # stream / astream translate at once, so a bad argument raises at create(stream=True) as
    # it does without stream; the request is sent on the first iteration.

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        kwargs = self._kwargs(request)
        kwargs["stream"] = True
        return _retry.stream(self._calls, self._stream, kwargs,
                             self._calls.bounds(request.timeout))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        kwargs = self._kwargs(request)
        kwargs["stream"] = True
        return _retry.astream(self._calls, self._astream, kwargs,
                              self._calls.bounds(request.timeout))

    # Streams read the raw HTTP body through our SSE decoder (``StreamBody``), not the SDK's
    # Stream: an event carrying only ``retry:`` / ``id:`` is valid SSE (the SDK's parser fails
    # on its empty data), and bytes that are not UTF-8 are a typed error.

    def _stream(self, kwargs: dict[str, Any]) -> Iterator[ChatCompletionChunk]:
        body = StreamBody(self.key, self._secrets())
        response = None
        try:
            with _mapped_errors(self._error):
                raw = self._sync().chat.completions.with_raw_response.create(**kwargs)
                response = raw.http_response
                for data in response.iter_bytes():
                    yield from body.feed(data)
                    if body.done:
                        break
                yield from body.end()
        finally:
            if response is not None:
                response.close()  # releases the connection, also on early exit

    async def _astream(self, kwargs: dict[str, Any]) -> AsyncIterator[ChatCompletionChunk]:
        body = StreamBody(self.key, self._secrets())
        response = None
        try:
            with _mapped_errors(self._error):
                raw = await self._async().chat.completions.with_raw_response.create(**kwargs)
                response = raw.http_response
                async for data in response.aiter_bytes():
                    for chunk in body.feed(data):
                        yield chunk
                    if body.done:
                        break
                for chunk in body.end():
                    yield chunk
        finally:
            if response is not None:
                await response.aclose()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    async def aclose(self) -> None:
        client, self._async_client = self._async_client, None
        if client is not None:
            await client.close()
        self.close()
