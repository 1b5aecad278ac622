"""The checks of a request against what is known of its model, before anything is sent
(docs/models.md, "Checks before sending"): the ``checks`` layer of each model's provider
stack (``client/prepare.py``).

``ChecksProvider`` refuses, with a ``ModelCapabilityError`` naming the model, the fact and
its source:

- tools to a model that does not call tools;
- an image, PDF or audio part to a model that does not take it;
- ``max_tokens`` above the model's output cap;
- a parameter a probe profile saw the endpoint refuse (``provider_configs={key:
  {"profile": path}}``);

and with ``count_tokens=True`` counts the prompt (the provider's counting API, through the
layers below) and refuses one over the context window, or one whose ``max_tokens`` leaves the
answer no room in it (not on Gemini, which caps the answer), with a ``PromptTooLongError``
(an exact count only: an estimate never refuses). A fact that is not known checks nothing. After
the first call to a model its facts are one dict lookup (``snapshot.facts_of``).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Optional

from ..core.errors import ModelCapabilityError, PromptTooLongError, UnsupportedFeatureError
from ..providers.base import ChatRequest, Provider
from ..providers.wrapper import WrapperProvider
from .snapshot import Facts, facts_of

if TYPE_CHECKING:
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse, TokenCount
    from .profile import Profile

__all__ = ["ChecksProvider", "check_request", "check_tools_capable", "part_modality",
           "estimated_count"]

_CHECKED = frozenset({"image", "pdf", "audio"})
#: Keys whose API takes a prompt plus ``max_tokens`` past the window (Gemini caps the answer
#: instead); everywhere else the sum must fit, as OpenAI's and Anthropic's APIs require.
_ANSWER_ROOM_UNCHECKED = frozenset({"google", "gemini", "vertex", "vertexai"})
#: The facts of a model with a probe profile: (key, model, the profile's path) -> Facts.
_PROFILED: dict[tuple[str, str, str], Facts] = {}
_lock = threading.Lock()
#: The last count made in this thread / task: (the messages list it was of, its length,
#: (provider key, model), the count). The layers of one model call (the router's buckets,
#: the budgets, the context-window check) each ask for the count; the first asks the
#: provider, the others read it here (a stack is made per call, so it cannot hold it).
_LAST_COUNT: contextvars.ContextVar[Optional[tuple[Any, int, tuple[str, str], TokenCount]]] \
    = contextvars.ContextVar("aisuite_like_last_count", default=None)
_AUDIO_PARTS = frozenset({"input_audio", "audio"})


def part_modality(part: Any) -> Optional[str]:
    """The modality a content part needs (``"image"``, ``"pdf"``, ``"audio"``), or None for
    text and what cannot be told (a file by id)."""
    if not isinstance(part, Mapping):
        return None
    kind = part.get("type")
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        if isinstance(url, str) and url[:21].lower() == "data:application/pdf;":
            return "pdf"
        return "image"
    if kind in _AUDIO_PARTS:
        return "audio"
    if kind == "file":
        file = part.get("file")
        if isinstance(file, Mapping):
            data, name = file.get("file_data"), file.get("filename")
            if (isinstance(data, str) and data[:21].lower() == "data:application/pdf;") or (
                    isinstance(name, str) and name.lower().endswith(".pdf")):
                return "pdf"
    return None


def _refuse(facts: Facts, parameter: str, limit: Any, what: str, fact: str,
            provider: str) -> ModelCapabilityError:
    source = facts.info.source_of(fact)
    return ModelCapabilityError(
        f"{facts.model} {what} (by the {source}); nothing was sent. Use a model that can, "
        f"remove it, or pass checks='off' if the model does (docs/models.md)",
        model=facts.model, parameter=parameter, limit=limit, source=source, provider=provider)


def _limit_field(provider: str, given: str) -> str:
    """The field the token limit goes out as to ``provider`` (the compatible services' table
    says; ``given`` where the service takes it as sent)."""
    from ..providers.openai.services import SERVICES
    from ..providers.registry import canonical_key

    spec = SERVICES.get(canonical_key(provider))
    return (spec.max_tokens_field if spec is not None else None) or given


def _check_profile(profile: Profile, model: str, request: ChatRequest, provider: str) -> None:
    """A parameter the probe saw the endpoint refuse: ``UnsupportedParameterError``."""
    refused: list[tuple[str, str]] = []
    if request.tools and profile.refuses("tools"):
        refused.append(("tools", "tools"))
    if request.parallel_tool_calls is not None and profile.refuses("parallel_tool_calls"):
        refused.append(("parallel_tool_calls", "parallel_tool_calls"))
    response_format = request.response_format
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema" \
            and profile.refuses("json_schema"):
        refused.append(("response_format", "json_schema"))
    if request.max_tokens is not None:
        sent = _limit_field(provider, request.max_tokens_as)  # the field on the wire
        if profile.refuses(sent):
            refused.append((request.max_tokens_as, sent))
    if request.stream and (request.stream_options or {}).get("include_usage") \
            and profile.refuses("stream_usage"):
        refused.append(("stream_options", "stream_usage"))
    if profile.refuses("image_input") and any(
            part_modality(p) == "image" for m in request.messages
            if isinstance(m.get("content"), list) for p in m["content"]):
        refused.append(("messages", "image_input"))
    if refused:
        parameter, feature = refused[0]
        when = f" on {profile.date}" if profile.date else ""
        raise ModelCapabilityError(
            f"{provider}:{model}: the endpoint refused {feature} when probed{when} (profile "
            f"{profile.path}); nothing was sent. Remove {parameter}, or probe again "
            "(`aisuite-like probe`) if the server changed", model=f"{provider}:{model}",
            parameter=parameter, limit=False, source=f"profile {profile.path}",
            provider=provider)


def check_request(facts: Facts, request: ChatRequest, provider: str) -> None:
    """Refuse ``request`` when a known fact of its model says it cannot be served."""
    if request.tools and facts.tools is False:
        raise _refuse(facts, "tools", False, "does not call tools", "tools", provider)
    cap = facts.max_output_tokens
    if cap is not None and request.max_tokens is not None and request.max_tokens > cap:
        raise _refuse(facts, request.max_tokens_as, cap,
                      f"writes at most {cap} output tokens; {request.max_tokens_as}="
                      f"{request.max_tokens} is more", "max_output_tokens", provider)
    modalities = facts.input_modalities
    if modalities is not None and not _CHECKED <= modalities:
        for index, message in enumerate(request.messages):
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for part in content:
                needed = part_modality(part)
                if needed is not None and needed not in modalities:
                    article = "an" if needed[0] in "aeiou" else "a"
                    raise _refuse(facts, "messages", tuple(sorted(modalities)),
                                  f"does not take {needed} input (messages[{index}] has "
                                  f"{article} {needed} part; it takes "
                                  f"{', '.join(sorted(modalities))})", "input_modalities",
                                  provider)


def check_tools_capable(key: str, model: str, where: str) -> None:
    """An agent with tools: refuse a model known not to call tools (its snapshot facts)."""
    facts = facts_of(key, model)
    if facts.tools is False:
        raise _refuse(facts, "tools", False, f"does not call tools, and {where} has tools",
                      "tools", key)


def estimated_count(request: ChatRequest, model: str) -> TokenCount:
    """The estimate of a request's input tokens, labelled one (docs/context.md)."""
    from ..context.tokens import estimate_request
    from ..core.types import TokenCount

    return TokenCount(input_tokens=estimate_request(request.messages, request.tools),
                      exact=False, source="estimate (about 4 characters a token)", model=model)


class ChecksProvider(WrapperProvider):
    """``wrapped`` (the provider of ``key``) whose requests are checked against what is
    known of their model (and against the endpoint's probe ``profile``, when given) before
    they are sent; with ``count_tokens=True`` the prompt is counted first (the count kept
    for the budgets above, which ask for it first: one count per model call)."""

    def __init__(self, wrapped: Provider, key: str, profile: Optional[Profile] = None) -> None:
        super().__init__(wrapped)
        self._key = key
        self._profile = profile

    def __repr__(self) -> str:
        return f"ChecksProvider({self.wrapped!r})"

    def _facts_of(self, model: str) -> Facts:
        profile = self._profile
        if profile is None:
            return facts_of(self._key, model)
        found = _PROFILED.get((self._key, model, profile.path))
        if found is None:
            from .info import merged_info
            from .profile import facts_of_profile

            found = Facts.of_info(merged_info(
                self._key, model, profile=facts_of_profile(profile, model),
                profile_detail=profile.path, profile_date=profile.date))
            with _lock:
                if len(_PROFILED) > 4096:  # a bounded memo (model names come from callers)
                    _PROFILED.clear()
                _PROFILED[(self._key, model, profile.path)] = found
        return found

    def _check(self, request: ChatRequest) -> Optional[Facts]:
        if not request.checks:
            return None
        if self._profile is not None:
            _check_profile(self._profile, request.model, request, self._key)
        facts = self._facts_of(request.model)
        check_request(facts, request, self._key)
        return facts

    # -- counting: kept for the layers above (the budgets count first)

    def _memo(self, request: ChatRequest) -> Optional[TokenCount]:
        last = _LAST_COUNT.get()
        if last is not None and last[0] is request.messages and \
                last[1] == len(request.messages) and last[2] == (self._key, request.model):
            return last[3]
        return None

    def _keep(self, request: ChatRequest, count: TokenCount) -> TokenCount:
        _LAST_COUNT.set((request.messages, len(request.messages), (self._key, request.model),
                         count))
        return count

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        found = self._memo(request)
        if found is None:
            found = self._keep(request, self.wrapped.count_tokens(request))
        return found

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        found = self._memo(request)
        if found is None:
            found = self._keep(request, await self.wrapped.acount_tokens(request))
        return found

    def _fits(self, facts: Optional[Facts], request: ChatRequest, count: TokenCount) -> None:
        window = facts.context_window if facts is not None else None
        if window is None or not count.exact:
            return
        assert facts is not None
        source = facts.info.source_of("context_window")
        if count.input_tokens > window:
            raise PromptTooLongError(
                f"{facts.model}: the prompt is {count.input_tokens} tokens ({count.source}), "
                f"over the context window of {window} (by the {source}); nothing was sent. "
                "Shorten it (docs/context.md: ai.context.Trim)", model=facts.model,
                limit=window, input_tokens=count.input_tokens, source=source,
                provider=self._key)
        room = request.max_tokens
        if room is not None and count.input_tokens + room > window and \
                self._key not in _ANSWER_ROOM_UNCHECKED:
            raise PromptTooLongError(
                f"{facts.model}: the prompt is {count.input_tokens} tokens ({count.source}) "
                f"and {request.max_tokens_as}={room} asks room for as many more: "
                f"{count.input_tokens + room}, over the context window of {window} (by the "
                f"{source}); nothing was sent. Lower {request.max_tokens_as} to at most "
                f"{max(window - count.input_tokens, 0)}, or shorten the prompt",
                model=facts.model, limit=window, input_tokens=count.input_tokens,
                source=source, provider=self._key)

    def _counted(self, facts: Optional[Facts], request: ChatRequest) -> None:
        if not request.count_tokens:
            return
        try:
            count = self.count_tokens(request)
        except UnsupportedFeatureError:  # no counting API: an estimate never refuses
            return
        self._fits(facts, request, count)

    async def _acounted(self, facts: Optional[Facts], request: ChatRequest) -> None:
        if not request.count_tokens:
            return
        try:
            count = await self.acount_tokens(request)
        except UnsupportedFeatureError:
            return
        self._fits(facts, request, count)

    # -- chat

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        self._counted(self._check(request), request)
        return self.wrapped.complete(request)

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        await self._acounted(self._check(request), request)
        return await self.wrapped.acomplete(request)

    # A stream's refusal surfaces on its first ``next()``, as a budget's does: a fallback
    # chain or a router then moves on to the next model; the count of ``count_tokens=True``
    # is asked then too (nothing is sent before the stream is iterated).

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        try:
            facts = self._check(request)
        except (ModelCapabilityError, PromptTooLongError) as error:
            return _refused(error)
        if request.count_tokens:
            return self._stream_counted(facts, request)
        return self.wrapped.stream(request)

    def _stream_counted(self, facts: Optional[Facts], request: ChatRequest
                        ) -> Iterator[ChatCompletionChunk]:
        self._counted(facts, request)
        chunks = self.wrapped.stream(request)
        try:
            yield from chunks
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        try:
            facts = self._check(request)
        except (ModelCapabilityError, PromptTooLongError) as error:
            return _arefused(error)
        if not request.count_tokens:
            return self.wrapped.astream(request)
        return self._astream_counted(facts, request)

    async def _astream_counted(self, facts: Optional[Facts], request: ChatRequest
                               ) -> AsyncIterator[ChatCompletionChunk]:
        await self._acounted(facts, request)
        chunks = self.wrapped.astream(request)
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            close = getattr(chunks, "aclose", None)
            if close is not None:
                await close()


def _refused(error: Exception) -> Iterator[Any]:
    raise error
    yield  # pragma: no cover  (makes this a generator)


async def _arefused(error: Exception) -> AsyncIterator[Any]:
    raise error
    yield  # pragma: no cover  (makes this an async generator)
