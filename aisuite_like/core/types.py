"""Response and message types: pydantic models with OpenAI's field names (docs/client.md).

Every provider returns these, never a raw SDK object. Translators build them from data they
have already checked, so they may use ``model_construct`` on hot paths; everything a user builds
goes through normal validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Optional, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

__all__ = [
    "Function",
    "ToolCall",
    "Message",
    "message_input",
    "Choice",
    "PromptTokensDetails",
    "CompletionTokensDetails",
    "Usage",
    "ServerToolUse",
    "ToolEvent",
    "ContextEvent",
    "SkippedModel",
    "ChatCompletionResponse",
    "ChoiceDeltaFunction",
    "ChoiceDeltaToolCall",
    "ChoiceDelta",
    "ChunkChoice",
    "ChoiceLogprobs",
    "ChatCompletionTokenLogprob",
    "TopLogprob",
    "ChatCompletionChunk",
    "FinishReason",
    "StopReason",
    "Model",
    "TokenCount",
    "with_request_id",
    "mark_cache_outcome",
    "cache_outcome",
]

FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]
StopReason = Literal["completed", "max_turns", "budget", "cancelled"]
Role = Literal["system", "developer", "user", "assistant", "tool"]


# Defaults are plain values (pydantic copies a mutable default per instance) or plain Python
# factories, never builtins like ``list``: for a builtin factory pydantic inspects the
# signature on EVERY model_construct (~60 us per unset field), which was most of our per-call
# overhead in benchmarks/ (see benchmarks/README.md).


_set = object.__setattr__
_M = TypeVar("_M", bound=BaseModel)


def build_model(cls: type[_M], values: dict[str, Any]) -> _M:
    """``cls.model_construct(**values)`` for translators that pass EVERY field of ``cls``
    (our types have no aliases, private attributes or post-init): skips model_construct's
    per-field loop, which was most of the per-chunk cost of a stream."""
    m = cls.__new__(cls)
    _set(m, "__dict__", values)
    _set(m, "__pydantic_fields_set__", set(values))
    _set(m, "__pydantic_extra__", {})
    _set(m, "__pydantic_private__", None)
    return m


#: How model_construct fills each field of a class: (name, how, default); see _plan.
_PLANS: dict[type, Optional[tuple[tuple[str, int, Any], ...]]] = {}
_REQUIRED, _CONSTANT, _COPY, _FACTORY = range(4)


def _plan(cls: type[BaseModel]) -> Optional[tuple[tuple[str, int, Any], ...]]:
    """How each field of ``cls`` takes its default, as pydantic's ``get_default`` does (a
    copy of an empty list or dict, a call of a factory); None when ``cls`` needs
    model_construct itself (aliases, post-init, a root model, a factory of validated data,
    a default that needs a deep copy)."""
    plan: list[tuple[str, int, Any]] = []
    simple = not (cls.__pydantic_post_init__ or cls.__pydantic_root_model__)
    for name, info in cls.model_fields.items():
        if info.alias not in (None, name) or info.validation_alias not in (None, name):
            simple = False
        if info.default_factory is not None:
            if getattr(info, "default_factory_takes_validated_data", False):
                simple = False
            plan.append((name, _FACTORY, info.default_factory))
        elif info.is_required():
            plan.append((name, _REQUIRED, None))
        elif info.default is None or type(info.default) in (str, int, float, bool) or (
                type(info.default) in (tuple, frozenset) and not info.default):
            plan.append((name, _CONSTANT, info.default))
        elif type(info.default) in (list, dict, set) and not info.default:
            plan.append((name, _COPY, type(info.default)))
        else:
            simple = False
    found = _PLANS[cls] = tuple(plan) if simple else None
    return found


def construct_model(cls: type[_M], **values: Any) -> _M:
    """``cls.model_construct(**values)``, the same instance (the fields in their order, the
    unset ones at their defaults, ``model_fields_set`` the names given, any other name an
    extra field) without pydantic's per-field default lookup and copy, which was most of
    reading a reply into our types."""
    plan = _PLANS[cls] if cls in _PLANS else _plan(cls)
    if plan is None:
        return cls.model_construct(**values)
    full: dict[str, Any] = {}
    given = 0
    for name, how, default in plan:
        if name in values:
            full[name] = values[name]
            given += 1
        elif how == _CONSTANT:
            full[name] = default
        elif how != _REQUIRED:
            full[name] = default()
    m = cls.__new__(cls)
    _set(m, "__dict__", full)
    if given == len(values):
        fields_set, extra = set(values), {}
    else:  # names that are no field: extra fields (kept with extra="allow")
        fields_set = {k for k in values if k in cls.model_fields}
        extra = {k: v for k, v in values.items() if k not in cls.model_fields}
    _set(m, "__pydantic_fields_set__", fields_set)
    _set(m, "__pydantic_extra__", extra if cls.model_config.get("extra") == "allow" else None)
    _set(m, "__pydantic_private__", None)
    return m


class _Model(BaseModel):
    # Extra keys are kept (not dropped) so provider-native fields survive a round trip.
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    def to_dict(self, *, mode: Literal["json", "python"] = "python", use_api_names: bool = True,
                exclude_unset: bool = True, exclude_defaults: bool = False,
                exclude_none: bool = False, warnings: bool = True) -> dict[str, Any]:
        """The OpenAI SDK's ``to_dict()``: by default only the fields that were set (for the
        openai family: what the provider sent, its own extra fields included)."""
        return self.model_dump(mode=mode, by_alias=use_api_names, exclude_unset=exclude_unset,
                               exclude_defaults=exclude_defaults, exclude_none=exclude_none,
                               warnings=warnings)

    def to_json(self, *, indent: Optional[int] = 2, use_api_names: bool = True,
                exclude_unset: bool = True, exclude_defaults: bool = False,
                exclude_none: bool = False, warnings: bool = True) -> str:
        """The OpenAI SDK's ``to_json()``: ``to_dict()`` as JSON text (indented by default)."""
        return self.model_dump_json(indent=indent, by_alias=use_api_names,
                                    exclude_unset=exclude_unset,
                                    exclude_defaults=exclude_defaults,
                                    exclude_none=exclude_none, warnings=warnings)


class _ItemAccess:
    """Read access by key, as on the message dicts aisuite and the OpenAI SDK's users handle:
    ``m["content"]``, ``m.get("tool_calls")``, ``"name" in m``, ``{**m}``. A declared field
    reads as its value (None when not given); ``get``, ``in`` and ``keys()`` see the fields
    that hold a value, as in ``model_dump(exclude_none=True)``."""

    __slots__ = ()

    if TYPE_CHECKING:  # given by the pydantic model this is mixed into
        model_fields: ClassVar[dict[str, FieldInfo]]
        __pydantic_extra__: Optional[dict[str, Any]]

    def __getitem__(self, key: str) -> Any:
        if key in type(self).model_fields:
            return getattr(self, key)
        extra = self.__pydantic_extra__
        if extra and key in extra:
            return extra[key]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            value = self[key]
        except KeyError:
            return default
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def keys(self) -> list[str]:
        names = [*type(self).model_fields, *(self.__pydantic_extra__ or ())]
        return [name for name in names if self.get(name) is not None]


class Function(_ItemAccess, _Model):
    """The function a tool call invokes; ``arguments`` is a JSON string, as in OpenAI."""

    name: str
    arguments: str = "{}"


class ToolCall(_ItemAccess, _Model):
    """One tool call of an assistant message."""

    id: str
    type: Literal["function"] = "function"
    function: Function

    # Read like the Agents SDK's function call (``item.raw_item.name`` in its examples).
    @property
    def name(self) -> str:
        return self.function.name

    @property
    def arguments(self) -> str:
        return self.function.arguments

    @property
    def call_id(self) -> str:
        return self.id


class Message(_ItemAccess, _Model):
    """A chat message. ``model_dump(exclude_none=True)`` is valid input again.

    ``provider_specific_fields`` carries what must round-trip to the same provider on the next
    turn (Anthropic thinking blocks with signatures, Gemini thought signatures).
    """

    role: Role
    content: Optional[Union[str, list[dict[str, Any]]]] = None
    tool_calls: Optional[list[ToolCall]] = None
    tool_call_id: Optional[str] = None
    name: Optional[str] = None
    reasoning_content: Optional[str] = None
    refusal: Optional[str] = None
    provider_specific_fields: Optional[dict[str, Any]] = None
    # OpenAI's own message fields, as sent (None elsewhere), so SDK code reading them runs.
    annotations: Optional[list[Any]] = None
    audio: Optional[dict[str, Any]] = None


class TopLogprob(_Model):
    """One of the most likely tokens at a position (the OpenAI SDK's ``TopLogprob``):
    ``bytes`` is the token's UTF-8 bytes (None when the provider sends none)."""

    token: str
    bytes: Optional[list[int]] = None
    logprob: float


class ChatCompletionTokenLogprob(_Model):
    """The log probability of one token of the reply, with the most likely tokens at its
    position (the OpenAI SDK's ``ChatCompletionTokenLogprob``)."""

    token: str
    bytes: Optional[list[int]] = None
    logprob: float
    top_logprobs: list[TopLogprob] = []


class ChoiceLogprobs(_Model):
    """A choice's log probabilities (the OpenAI SDK's ``ChoiceLogprobs``), on every family that
    returns them (``logprobs=True``; docs/client.md): ``content`` per token of the reply,
    ``refusal`` per token of a refusal."""

    content: Optional[list[ChatCompletionTokenLogprob]] = None
    refusal: Optional[list[ChatCompletionTokenLogprob]] = None


def message_input(message: Any, exclude: Optional[set[str]] = None) -> dict[str, Any]:
    """A message object (ours, or an SDK's with ``model_dump``) as input again: the fields
    that hold a value, and an assistant turn's ``content`` even when it is null, as the OpenAI
    SDK sends a reply's message (chat templates of some servers, llama.cpp's, read the
    ``content`` of every message)."""
    out: dict[str, Any] = message.model_dump(exclude_none=True, exclude=exclude)
    if out.get("role") == "assistant":
        out.setdefault("content", None)
    return out


class Choice(_Model):
    """One choice of a response. ``finish_reason`` is normalised; the provider's own value is
    in ``native_finish_reason``."""

    index: int = 0
    message: Message
    finish_reason: Optional[FinishReason] = None
    native_finish_reason: Optional[str] = None
    # Runner only: every message the run produced (assistant and tool), in order.
    intermediate_messages: list[Message] = []
    logprobs: Optional[ChoiceLogprobs] = None


class PromptTokensDetails(_Model):
    """``cached_tokens``: cache reads; ``cache_creation_tokens``: cache writes (Anthropic)."""

    cached_tokens: Optional[int] = None
    cache_creation_tokens: Optional[int] = None


class CompletionTokensDetails(_Model):
    """``reasoning_tokens``: thinking tokens, already counted in ``completion_tokens``."""

    reasoning_tokens: Optional[int] = None


def _add_opt(a: Optional[int], b: Optional[int]) -> Optional[int]:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class ServerToolUse(_Model):
    """What the provider's hosted tools did in a call (docs/hosted-tools.md): web searches,
    web fetches and code executions it ran (priced in ``Usage.cost``)."""

    web_search_requests: int = 0
    web_fetch_requests: int = 0
    code_execution_requests: int = 0

    def __add__(self, other: "ServerToolUse") -> "ServerToolUse":
        return ServerToolUse(
            web_search_requests=self.web_search_requests + other.web_search_requests,
            web_fetch_requests=self.web_fetch_requests + other.web_fetch_requests,
            code_execution_requests=self.code_execution_requests
            + other.code_execution_requests)


class Usage(_Model):
    """Token usage with OpenAI's meaning: prompt tokens include cache reads and writes;
    completion tokens include reasoning tokens. ``server_tool_use`` counts the hosted tools'
    calls where there were any (docs/hosted-tools.md)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: Optional[PromptTokensDetails] = None
    completion_tokens_details: Optional[CompletionTokensDetails] = None
    server_tool_use: Optional[ServerToolUse] = None

    def __add__(self, other: "Usage") -> "Usage":
        if not isinstance(other, Usage):
            return NotImplemented
        ptd = None
        if self.prompt_tokens_details or other.prompt_tokens_details:
            a = self.prompt_tokens_details or PromptTokensDetails()
            b = other.prompt_tokens_details or PromptTokensDetails()
            ptd = PromptTokensDetails(
                cached_tokens=_add_opt(a.cached_tokens, b.cached_tokens),
                cache_creation_tokens=_add_opt(a.cache_creation_tokens, b.cache_creation_tokens),
            )
        ctd = None
        if self.completion_tokens_details or other.completion_tokens_details:
            a2 = self.completion_tokens_details or CompletionTokensDetails()
            b2 = other.completion_tokens_details or CompletionTokensDetails()
            ctd = CompletionTokensDetails(
                reasoning_tokens=_add_opt(a2.reasoning_tokens, b2.reasoning_tokens))
        server = self.server_tool_use
        if other.server_tool_use is not None:
            server = other.server_tool_use if server is None else server + other.server_tool_use
        total = Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            prompt_tokens_details=ptd,
            completion_tokens_details=ctd,
            server_tool_use=server,
        )
        from .cost import combine_parts

        combine_parts(total, self, other)  # so total.cost is the sum of the parts' costs
        return total

    @property
    def cost(self) -> Optional[float]:
        """The price in USD, from the ``genai-prices`` package (extra ``[prices]``); ``None``
        when the model's price is unknown (or the package is not installed). Computed on first
        read. On a run's summed usage: the sum over its model calls (``None`` if one is
        unknown). Not part of ``model_dump()``."""
        from .cost import cost_of

        return cost_of(self)


class ToolEvent(_Model):
    """What happened to one tool call in a run. ``result`` is the exact string sent to the
    model; ``arguments`` the parsed dict, or the raw string when it did not parse;
    ``truncated`` True when the result was cut to ``max_tool_result_chars``; ``hosted`` True
    for a call the provider's hosted tool made (it is in ``tool_events`` of a plain call
    too)."""

    call_id: str
    name: str
    arguments: Union[dict[str, Any], str]
    allowed: bool
    reason: Optional[str] = None
    result: str
    is_error: bool = False
    duration_s: float = 0.0
    turn: Optional[int] = None
    truncated: bool = False
    #: A call of a hosted tool the provider ran itself (web search, code execution; no
    #: result was sent back by the runner): ``result`` says what it found.
    hosted: bool = False


class ContextEvent(_Model):
    """One change a context strategy made to what a run sends (docs/context.md): before
    model call ``turn``, ``strategy`` (``"trim"``, ``"summarize"`` or ``"native"``) left out
    ``removed`` messages of the history (cut, or folded into ``summary``) and sent ``kept``;
    the input went from ``tokens_before`` to ``tokens_after`` tokens (``counted``: the
    provider's count; else the estimate). ``model`` is the model that wrote the summary; a
    native edit reports what the provider said it cleared."""

    turn: int
    strategy: str
    removed: int = 0
    kept: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    counted: bool = False
    summary: Optional[str] = None
    model: Optional[str] = None


class SkippedModel(_Model):
    """A model of a ``fallbacks=[...]`` chain that failed, so the next one was tried.
    ``model`` is ``"provider:model"``; the error is described, not kept (it may hold a
    connection's resources)."""

    model: str
    error_type: str
    message: str
    status_code: Optional[int] = None


# Whether the response cache answered a call (docs/cache.md): a key of the object's __dict__
# that is not a pydantic field, so model_dump() and equality ignore it and copies keep it.
# True: a hit (nothing was sent); False: the cache was consulted and missed; absent: no cache.
_CACHE_OUTCOME = "_cache_hit"


def mark_cache_outcome(obj: Any, hit: bool) -> None:
    """Record on a response or chunk whether the response cache answered its call (``hit``)
    or was consulted and missed. A hit costs nothing: its ``usage.cost`` is 0."""
    obj.__dict__[_CACHE_OUTCOME] = hit
    usage = obj.usage
    if hit and usage is not None:
        from .cost import mark_free

        mark_free(usage)


def cache_outcome(obj: Any) -> Optional[bool]:
    """True: the response cache answered; False: it was consulted and missed; None: no cache
    was consulted (what observability records)."""
    outcome: Optional[bool] = obj.__dict__.get(_CACHE_OUTCOME)
    return outcome


class ChatCompletionResponse(_Model):
    """The unified response. The runner's fields (``intermediate_responses``, ``messages``,
    ``stop_reason``, ``tool_events``) are empty / None on a plain call. ``raw`` may hold the
    provider's own response, for debugging; it is never dumped."""

    id: str = ""
    object: Literal["chat.completion"] = "chat.completion"
    created: int = 0
    model: str = ""
    provider: str = ""
    choices: list[Choice] = []
    usage: Optional[Usage] = None
    intermediate_responses: list["ChatCompletionResponse"] = []
    messages: Optional[list[Message]] = None
    stop_reason: Optional[StopReason] = None
    tool_events: list[ToolEvent] = []
    #: What the run's context strategy cut or summarized, one event per change
    #: (``context=ai.context.Trim(...)``; docs/context.md).
    context_events: list[ContextEvent] = []
    #: The models of ``fallbacks=[...]`` tried before the one that served, with their errors.
    fallback_errors: list[SkippedModel] = []
    raw: Any = Field(default=None, exclude=True, repr=False)
    # OpenAI's fields, as sent (None elsewhere), so SDK code reading them runs.
    system_fingerprint: Optional[str] = None
    service_tier: Optional[str] = None

    @property
    def _request_id(self) -> Optional[str]:
        """The provider's request id of the reply (the OpenAI SDK's ``_request_id``: public
        despite its name), on a response of one model call; None where the provider sent
        none or the response was built otherwise (a tool run's, a stream's)."""
        return self.__dict__.get("_request_id")

    @property
    def cache_hit(self) -> bool:
        """True when the response cache (``Client(cache=...)``, docs/cache.md) answered this
        call: nothing was sent and ``usage.cost`` is 0. Not part of ``model_dump()``: a dumped
        response loaded again is a response, not a hit. On a tool-runner run: its last model
        call's (each earlier one's is on ``intermediate_responses``)."""
        return self.__dict__.get(_CACHE_OUTCOME) is True

    @property
    def message(self) -> Message:
        """Shortcut for ``choices[0].message``."""
        return self.choices[0].message

    @property
    def content(self) -> Optional[str]:
        """Shortcut for ``choices[0].message.content``."""
        content = self.choices[0].message.content
        return content if isinstance(content, str) or content is None else str(content)


def with_request_id(response: ChatCompletionResponse, request_id: Optional[str]
                    ) -> ChatCompletionResponse:
    """``response`` carrying the reply's request id as ``_request_id`` (not a field: never
    dumped or compared)."""
    if request_id:
        response.__dict__["_request_id"] = request_id
    return response


# --- streaming ---------------------------------------------------------------------------


class ChoiceDeltaFunction(_Model):
    name: Optional[str] = None
    arguments: Optional[str] = None


class ChoiceDeltaToolCall(_Model):
    """A tool-call fragment: ``index`` keeps parallel calls apart; ``id`` and ``function.name``
    come on the first fragment of a call, ``function.arguments`` pieces after."""

    index: int
    id: Optional[str] = None
    type: Optional[Literal["function"]] = None
    function: Optional[ChoiceDeltaFunction] = None


class ChoiceDelta(_Model):
    """What one chunk adds to a choice: a piece of ``content`` (or ``reasoning_content``),
    ``tool_calls`` fragments, and ``role`` on the first chunk."""

    role: Optional[Role] = None
    content: Optional[str] = None
    tool_calls: Optional[list[ChoiceDeltaToolCall]] = None
    reasoning_content: Optional[str] = None
    refusal: Optional[str] = None
    provider_specific_fields: Optional[dict[str, Any]] = None


def _new_delta() -> ChoiceDelta:
    return ChoiceDelta()


class ChunkChoice(_Model):
    index: int = 0
    delta: ChoiceDelta = Field(default_factory=_new_delta)
    finish_reason: Optional[FinishReason] = None
    native_finish_reason: Optional[str] = None
    logprobs: Optional[ChoiceLogprobs] = None  # the tokens of this chunk's delta


class ChatCompletionChunk(_Model):
    """One streamed chunk, in OpenAI's shape. ``usage`` comes on the last chunk."""

    id: str = ""
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int = 0
    model: str = ""
    provider: str = ""
    choices: list[ChunkChoice] = []
    usage: Optional[Usage] = None
    # Runner streams: which model call (1-based) this chunk belongs to.
    turn: Optional[int] = None

    @property
    def cache_hit(self) -> bool:
        """True when this chunk is replayed from the response cache (docs/cache.md). Not part
        of ``model_dump()``."""
        return self.__dict__.get(_CACHE_OUTCOME) is True


# --- model lists ---------------------------------------------------------------------------


class Model(_Model):
    """A model a provider reports (``client.models.list()``, docs/models.md), in OpenAI's
    ``Model`` shape: ``id`` written ``"provider:model"`` (ready to pass as ``model=``),
    ``created`` (Unix seconds; 0 where the provider reports no date), ``owned_by`` (the
    model's maker as the provider names it). ``provider`` is the provider key; ``raw`` the
    provider's own entry (never dumped)."""

    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = ""
    provider: str = ""
    raw: Any = Field(default=None, exclude=True, repr=False)

    def to_dict(self, *, mode: Literal["json", "python"] = "python", use_api_names: bool = True,
                exclude_unset: bool = False, exclude_defaults: bool = False,
                exclude_none: bool = False, warnings: bool = True) -> dict[str, Any]:
        """Every field (``object`` and ``created`` included, as OpenAI sends a model)."""
        return super().to_dict(mode=mode, use_api_names=use_api_names,
                               exclude_unset=exclude_unset, exclude_defaults=exclude_defaults,
                               exclude_none=exclude_none, warnings=warnings)


class TokenCount(BaseModel):
    """The input tokens of a request (``client.models.count_tokens``, docs/models.md):
    ``input_tokens``; ``exact`` is True when the provider's own counting API counted them,
    False for an estimate (about four characters a token: docs/context.md); ``source`` says
    which (``"anthropic messages/count_tokens"``, ``"estimate"``, ...); ``model`` is the
    ``"provider:model"`` counted for."""

    model_config = ConfigDict(defer_build=True)  # built on first use: not at import

    input_tokens: int
    exact: bool
    source: str
    model: str = ""


if TYPE_CHECKING:
    # What ``chat.completions.parse()`` returns, as type checkers see it: typed by the
    # ``response_format`` class, as the OpenAI SDK's ``ParsedChatCompletion[T]``. At run time
    # the objects are the classes above (``parsed`` is an extra field of the message), so
    # these names exist for annotations only: import them under ``if TYPE_CHECKING:``.
    _ParsedT = TypeVar("_ParsedT")

    class ParsedMessage(Message, Generic[_ParsedT]):
        parsed: Optional[_ParsedT]

    class ParsedChoice(Choice, Generic[_ParsedT]):
        message: ParsedMessage[_ParsedT]

    class ParsedChatCompletion(ChatCompletionResponse, Generic[_ParsedT]):
        # A list of the narrower choices (a list is invariant; the OpenAI SDK does the same).
        choices: list[ParsedChoice[_ParsedT]]  # type: ignore[assignment]  # narrower
