"""The OpenAI-compatible services: one row per service (docs/providers/openai.md).

The services differ only by their row (base URL, key variable, which max-tokens field and
which reasoning field their API accepts, whether and how they serve embeddings); adding a
compatible service is adding a row here and its key to ``providers/registry.py``. Pure data:
no I/O, no SDK import.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Optional

from ...core.portability import HistoryRules, IdRule


@dataclass(frozen=True)
class EmbeddingsSpec:
    """A service's ``/embeddings`` API (docs/embeddings.md).

    ``max_inputs``: inputs one request may carry (a longer list is split), the service's
    documented limit or a conservative one where it documents none (None: no limit, local
    servers); ``provider_configs[key]["max_embedding_inputs"]`` overrides it.
    ``dimensions_field``: the request field ``dimensions`` becomes (None: the service takes
    no output size, and ``dimensions`` is refused before sending). ``base64``: the service
    answers ``encoding_format="base64"`` (asked for on the wire, as the OpenAI SDK does: a
    smaller reply; other services are asked for floats). ``tokens``: token arrays accepted
    as ``input``.
    """

    max_inputs: Optional[int]
    dimensions_field: Optional[str] = None
    base64: bool = False
    tokens: bool = False


_OPENAI_EMBEDDINGS = EmbeddingsSpec(2048, "dimensions", base64=True, tokens=True)


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
    ``provider_specific_fields`` keys sent back on assistant messages. ``openai_native``
    says whether OpenAI's own message extras (``developer`` role, ``refusal``) are understood.
    ``transcription_formats`` are the ``response_format`` values the service's
    ``/audio/transcriptions`` produces itself (empty: it has no transcription API; others are
    rendered from ``verbose_json``); ``transcription_api`` is ``"openai"`` (that multipart
    endpoint) or ``"hf-inference"`` (Hugging Face's Inference API); ``transcription_stream``
    whether it streams transcripts; ``audio_max_mb`` its upload limit (docs/audio.md).
    ``responses_api`` says whether the service has OpenAI's Responses endpoint
    (``/responses``): ``client.responses.create`` then calls it natively, and the config
    ``api="responses"`` sends chat calls over it (docs/responses.md).
    ``embeddings`` describes the service's embeddings API (None: it has none).
    ``reasoning_effort_as`` is how the portable ``reasoning_effort`` is sent: ``"reasoning_effort"``
    (the top-level field, the value as given) or ``"reasoning"`` (OpenRouter's
    ``reasoning: {"effort": ...}`` object). ``non_reasoning`` is a regular expression of the
    model names known not to reason (matched from the start; None: the service decides): they
    take only ``reasoning_effort="none"``, which then sends nothing.
    ``prompt_cache_key``: whether ``prompt_cache="auto"`` sends a ``prompt_cache_key``
    (docs/reasoning-and-caching.md). ``tool_call_ids``: the tool-call ids the API accepts
    (None: any); ids of a history that do not fit are rewritten (docs/portability.md).
    ``message_names``: whether the API takes ``name`` on user, system and assistant messages
    (where it does not, the field is left out). ``prefix_field``: the field that marks a
    history's last assistant message as the start of the reply to continue, where the API
    refuses a history that ends with one otherwise (Mistral's ``prefix``). ``content_parts``:
    the content part types the API takes in a user message (None: any, sent as given);
    another one is refused before sending. ``native_params``: request fields of the
    service's own API (its reference) that the "did you mean" check never takes for a
    misspelling of a portable argument (Groq's ``reasoning_format`` is no typo of
    ``reasoning_effort``); they pass through as any provider-native argument does.
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
    transcription_formats: tuple[str, ...] = ()
    transcription_api: str = "openai"
    transcription_stream: bool = False
    audio_max_mb: int = 25
    responses_api: bool = False
    embeddings: Optional[EmbeddingsSpec] = None
    reasoning_effort_as: str = "reasoning_effort"
    non_reasoning: Optional[str] = None
    prompt_cache_key: bool = False
    tool_call_ids: Optional[IdRule] = None
    message_names: bool = True
    prefix_field: Optional[str] = None
    content_parts: Optional[frozenset[str]] = None
    native_params: frozenset[str] = frozenset()


def _row(key: str, base_url: Optional[str], key_env: Optional[str], **kw: Any
         ) -> tuple[str, ServiceSpec]:
    return key, ServiceSpec(key, base_url, key_env, **kw)


def _params(names: str) -> frozenset[str]:
    return frozenset(names.split())


# The request fields of each service's own API beyond OpenAI's (from its API reference), for
# the "did you mean" check (``native_params``). The samplers many servers share:
_SAMPLERS = "top_k min_p repetition_penalty "


_ALL_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
_VERBOSE = ("json", "text", "verbose_json")

#: key -> service. ONE table: adding a compatible service is adding a row here and its key to
#: ``providers/registry.py``. The token limit follows each service's API: OpenAI, Azure and
#: Groq take ``max_completion_tokens``; OpenRouter takes either, as sent (its recorded
#: exchanges: ``max_completion_tokens`` applied); Hugging Face's router and the rest take
#: ``max_tokens`` (Hugging Face's recorded exchange).
#: OpenAI's models known not to reason (fine-tunes of them included).
OPENAI_NON_REASONING = (r"(?:ft:)?(?:gpt-3\.5|gpt-4(?:$|[-:o]|\.1|\.5)|chatgpt-4o|davinci"
                        r"|babbage)")

#: OpenAI's (and Azure's) Chat Completions take tool-call ids of at most 40 characters.
OPENAI_IDS = IdRule("openai", max_length=40)
#: Mistral's API takes exactly nine letters and digits ("Tool call id was ... but must be
#: a-z, A-Z, 0-9, with a length of 9").
MISTRAL_IDS = IdRule("mistral", chars="a-zA-Z0-9", length=9, unique=True)
#: Kimi K2 reads ids as ``functions.<tool name>:<n>``, ``n`` counting the conversation's calls
#: (servers that host it, e.g. vLLM or SGLang with the kimi_k2 parser, make such ids).
KIMI_IDS = IdRule("kimi", numbered=True)
#: The id rules ``provider_configs[key]["tool_call_ids"]`` may name, over the table's
#: (docs/portability.md): a model served by a server whose rule the table cannot know.
ID_RULES: dict[str, Optional[IdRule]] = {"any": None, "openai": OPENAI_IDS,
                                          "mistral": MISTRAL_IDS, "kimi": KIMI_IDS}

SERVICES: dict[str, ServiceSpec] = dict([
    _row("openai", None, "OPENAI_API_KEY", max_tokens_field="max_completion_tokens",
         openai_native=True, transcription_formats=_ALL_FORMATS, transcription_stream=True,
         responses_api=True, non_reasoning=OPENAI_NON_REASONING, prompt_cache_key=True,
         embeddings=_OPENAI_EMBEDDINGS, tool_call_ids=OPENAI_IDS,
         native_params=_params("prompt_cache_key prompt_cache_retention safety_identifier "
                                "service_tier verbosity web_search_options prediction modalities "
                                "audio store metadata")),
    _row("azure", None, "AZURE_OPENAI_API_KEY", max_tokens_field="max_completion_tokens",
         openai_native=True, transcription_formats=_ALL_FORMATS, responses_api=True,
         embeddings=_OPENAI_EMBEDDINGS, tool_call_ids=OPENAI_IDS,
         native_params=_params("data_sources user_security_context prediction modalities audio "
                                "store metadata")),
    # Groq's transcriptions: json, text, verbose_json (srt / vtt rendered from segments).
    _row("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
         max_tokens_field="max_completion_tokens", transcription_formats=_VERBOSE,
         native_params=_params("reasoning_format include_reasoning service_tier search_settings "
                                "compound_custom documents citation_options "
                                "disable_tool_validation exclude_domains include_domains")),
    # Mistral refuses fields its API does not define (``name`` on a user message is a 422),
    # and a history ending with an assistant message unless it says ``prefix: true``
    # ("Expected last role User or Tool (or Assistant with prefix True)"); its chat takes
    # text and images (documents and audio have their own parts and APIs there).
    _row("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
         transcription_formats=("json",),
         embeddings=EmbeddingsSpec(128, "output_dimension", base64=True),
         tool_call_ids=MISTRAL_IDS, message_names=False, prefix_field="prefix",
         content_parts=frozenset({"text", "image_url"}),
         native_params=_params("safe_prompt random_seed prompt_mode prediction prefix")),
    # DeepSeek thinking mode REQUIRES reasoning_content back on assistant tool-call turns.
    _row("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY",
         reasoning_field="reasoning_content",
         native_params=_params("thinking")),
    _row("xai", "https://api.x.ai/v1", "XAI_API_KEY",
         native_params=_params("search_parameters deferred")),
    _row("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY",
         transcription_formats=("json", "verbose_json"), embeddings=EmbeddingsSpec(256),
         native_params=_params(_SAMPLERS + "safety_model reasoning echo "
                                "context_length_exceeded_behavior chat_template_kwargs")),
    _row("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY",
         embeddings=EmbeddingsSpec(8, "dimensions"),
         native_params=_params(_SAMPLERS + "typical_p mirostat_lr mirostat_target echo raw_output "
                                "context_length_exceeded_behavior prompt_truncate_len "
                                "perf_metrics_in_response")),
    _row("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
         max_tokens_field=None, reasoning_field="reasoning", psf_fields=("reasoning_details",),
         reasoning_effort_as="reasoning",
         native_params=_params(_SAMPLERS + "provider transforms models route preset top_a "
                                "reasoning usage plugins prediction debug verbosity")),
    _row("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY",
         reasoning_field="reasoning",
         native_params=_params("disable_reasoning clear_thinking service_tier")),
    _row("perplexity", "https://api.perplexity.ai", "PERPLEXITY_API_KEY",
         native_params=_params("search_domain_filter search_recency_filter search_mode "
                                "search_after_date_filter search_before_date_filter return_images "
                                "return_related_questions web_search_options disable_search "
                                "enable_search_classifier language_preference")),
    _row("huggingface", "https://router.huggingface.co/v1", "HF_TOKEN",
         transcription_formats=("json",), transcription_api="hf-inference",
         native_params=_params("top_k repetition_penalty")),
    _row("ollama", "http://localhost:11434/v1", "OLLAMA_API_KEY", key_required=False,
         placeholder_key="ollama", reasoning_field="reasoning",
         embeddings=EmbeddingsSpec(None, "dimensions", base64=True, tokens=True),
         native_params=_params("reasoning keep_alive think")),
    _row("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_API_KEY", key_required=False,
         placeholder_key="lm-studio", embeddings=EmbeddingsSpec(None),
         native_params=_params(_SAMPLERS + "ttl draft_model repeat_penalty")),
    _row("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", key_required=False,
         placeholder_key="EMPTY", reasoning_field="reasoning", transcription_formats=_VERBOSE,
         embeddings=EmbeddingsSpec(None, "dimensions", base64=True, tokens=True),
         native_params=_params(_SAMPLERS + "min_tokens use_beam_search length_penalty "
                                "stop_token_ids ignore_eos include_stop_str_in_output "
                                "skip_special_tokens "
                                "spaces_between_special_tokens truncate_prompt_tokens guided_json "
                                "guided_regex guided_choice guided_grammar guided_decoding_backend "
                                "structured_outputs chat_template chat_template_kwargs "
                                "add_generation_prompt continue_final_message echo documents "
                                "priority mm_processor_kwargs return_tokens_as_token_ids "
                                "prompt_logprobs bad_words allowed_token_ids logits_processors "
                                "kv_transfer_params vllm_xargs")),
    _row("nebius", "https://api.studio.nebius.com/v1", "NEBIUS_API_KEY",
         embeddings=EmbeddingsSpec(256),
         native_params=_params(_SAMPLERS + "guided_json guided_regex guided_choice")),
    _row("sambanova", "https://api.sambanova.ai/v1", "SAMBANOVA_API_KEY",
         native_params=_params("top_k chat_template_kwargs")),
    _row("inception", "https://api.inceptionlabs.ai/v1", "INCEPTION_API_KEY",
         native_params=_params("diffusing")),
    # Cohere's OpenAI compatibility API (its native SDK reads CO_API_KEY, not used here).
    _row("cohere", "https://api.cohere.ai/compatibility/v1", "COHERE_API_KEY",
         embeddings=EmbeddingsSpec(96, base64=True),
         native_params=_params("safety_mode")),
])


#: Every service's own request fields (``native_params``): what an endpoint whose service is
#: not known may take (the ``openai`` key at another host, a router alias).
ALL_NATIVE_PARAMS: frozenset[str] = frozenset().union(
    *(spec.native_params for spec in SERVICES.values()))


@lru_cache(maxsize=64)
def history_rules(spec: ServiceSpec) -> HistoryRules:
    """What the service's API requires of a history (docs/portability.md)."""
    return HistoryRules(spec.key, ids=spec.tool_call_ids, message_names=spec.message_names)


def embedding_services() -> list[str]:
    """The keys of the services with an embeddings API, in table order."""
    return [key for key, spec in SERVICES.items() if spec.embeddings is not None]


def _netloc(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).netloc.lower()


def foreign_host(spec: ServiceSpec, base_url: Any) -> Optional[str]:
    """The host of ``base_url`` when the ``openai`` row is pointed at a host that is neither
    OpenAI's (``*.openai.com``) nor the default host of another row: a server whose rules
    the table cannot know (None otherwise)."""
    if spec.key != "openai" or not base_url:
        return None
    netloc = _netloc(str(base_url))
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    if host == "openai.com" or host.endswith(".openai.com") or _known_at(netloc) is not None:
        return None
    return host


def _known_at(netloc: str) -> Optional[ServiceSpec]:
    return next((s for s in SERVICES.values() if s.base_url and _netloc(s.base_url) == netloc
                 and not s.openai_native), None)


def _spec_for_endpoint(spec: ServiceSpec, base_url: Any, openai_proxy: bool = False
                       ) -> ServiceSpec:
    """The ``openai`` row pointed at a host that is not OpenAI's (a compatible server, a key
    registered with ``OpenAIProvider``) follows the service of the table at that host
    (OpenRouter: the limit as sent; Hugging Face's router: ``max_tokens``): its limit field,
    reasoning effort, prompt cache, embeddings and tool-call id rule. At any other host the
    limit goes out under the name the caller gave it, the effort as given, no cache key, no
    model table, OpenAI's embeddings and id rule, and every service's own request fields
    pass the "did you mean" check. ``openai_proxy`` (the config setting) says the host is
    OpenAI behind a proxy or gateway: OpenAI's own row, unchanged."""
    if spec.key != "openai" or not base_url or openai_proxy:
        return spec
    netloc = _netloc(str(base_url))
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    if host == "openai.com" or host.endswith(".openai.com"):
        return spec
    known = _known_at(netloc)
    if known is None:  # any server may be behind it: no service's own field is a typo
        return replace(spec, max_tokens_field=None, non_reasoning=None,
                       prompt_cache_key=False, native_params=ALL_NATIVE_PARAMS)
    return replace(spec, max_tokens_field=known.max_tokens_field,
                   reasoning_effort_as=known.reasoning_effort_as,
                   non_reasoning=known.non_reasoning, prompt_cache_key=known.prompt_cache_key,
                   embeddings=known.embeddings, tool_call_ids=known.tool_call_ids,
                   message_names=known.message_names, prefix_field=known.prefix_field,
                   content_parts=known.content_parts, native_params=known.native_params)


def service_for_base_url(base_url: Any) -> Optional[str]:
    """The key of the service whose default endpoint ``base_url`` is (the same URL, give or
    take a trailing ``/``), or None: ``https://api.groq.com/openai/v1`` -> ``"groq"``,
    ``https://api.openai.com/v1`` -> ``"openai"``."""
    if not isinstance(base_url, str):
        return None
    url = base_url.rstrip("/")
    if url == "https://api.openai.com/v1":
        return "openai"
    return next((s.key for s in SERVICES.values() if s.base_url and s.base_url == url), None)
