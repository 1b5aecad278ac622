"""Gemini's ``streamGenerateContent`` stream, pure (no I/O, no SDK import): the SSE body of
one request -> its events (``_BodyEvents``, over the SSE decoder shared by the HTTP
families) -> ``ChatCompletionChunk`` objects (``StreamTranslator``); ``{"error": ...}``
events inside the stream raise the mapped error. See docs/providers/google.md ("Streaming").
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

from ...core.errors import AisuiteLikeError, APIConnectionError
from ...core.reading import unreadable
from ...core.types import (
    ChatCompletionChunk,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    Usage,
)
from .._common import (
    CUT_EVENT,
    PlainBody,
    SSEDecoder,
    SSEEvent,
    StreamJson,
    bad_shape,
    opt_object,
    opt_str,
)
from .errors import _NAME, error_event
from .translate import (
    _add_usage,
    _blocked,
    _CallIds,
    _candidate_parts,
    _finish,
    _Parts,
    _usage,
    continuation_token,
    gemini_logprobs,
)

__all__ = ["StreamTranslator"]

class StreamTranslator:
    """Raw ``streamGenerateContent`` events of ONE reply -> ``ChatCompletionChunk`` objects.

    ``translate(event)`` returns the chunk for one event (or None when it carries nothing);
    a function call arrives whole in one part and goes out as one tool-call delta with id,
    name and full arguments (indices 0..n per candidate across the stream). ``finish()``
    returns the last chunk, carrying usage, and raises when the stream ended before the model
    finished (a connection closed early).
    """

    __slots__ = ("provider", "model", "created", "secrets", "_ids", "_id", "_started",
                 "_calls", "_usage", "_finished", "_usage_before", "continuation", "_texts",
                 "_hosted")

    def __init__(self, provider: str = _NAME, model: str = "",
                 created: Optional[int] = None, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # scrubbed from error events (a provider may echo them)
        self.model = model
        self.created = created or int(time.time())
        self._ids: Optional[_CallIds] = None
        self._id = ""
        self._started: set[int] = set()
        self._calls: dict[int, int] = {}
        self._usage: Optional[Mapping[str, Any]] = None
        self._finished = False
        # A reply continued over several requests (finish reason CONTINUATION): the usage
        # of the requests before this one, and the token to continue with, if any.
        self._usage_before: Optional[Mapping[str, Any]] = None
        self.continuation: Optional[str] = None
        # candidate index -> its text so far (where grounding supports point)
        self._texts: dict[int, list[str]] = {}
        self._hosted: dict[int, Any] = {}  # candidate index -> hosted.Grounding

    def next_request(self) -> None:
        """The reply goes on in a new request (``continuation`` was sent): its usage adds up."""
        self._usage_before = _add_usage(self._usage_before, self._usage)
        self._usage = None
        self.continuation = None

    def translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        """One event -> its chunk (or None); an event of another shape raises
        ``APIResponseValidationError``."""
        try:
            return self._translate(event)
        except AisuiteLikeError:
            raise
        except Exception as exc:
            raise unreadable(self.provider, exc, "a stream event") from exc

    def _translate(self, event: Mapping[str, Any]) -> Optional[ChatCompletionChunk]:
        if not isinstance(event, dict):
            raise bad_shape(self.provider, "a stream event", "an object", event)
        error = event.get("error")
        if error:
            raise error_event(error, self.provider, self.secrets)
        if self._ids is None:
            rid = opt_str(event.get("responseId"), self.provider, "responseId")
            self._ids = _CallIds(rid)
            self._id = rid or self._ids.base
        if event.get("modelVersion"):
            self.model = opt_str(event["modelVersion"], self.provider, "modelVersion") or ""
        usage = event.get("usageMetadata")
        if usage:
            self._usage = usage if type(usage) is dict else opt_object(
                usage, self.provider, "usageMetadata")
        candidates = event.get("candidates")
        if candidates is not None and type(candidates) is not list:
            raise bad_shape(self.provider, "candidates", "an array", candidates)
        if candidates and isinstance(candidates[0], Mapping) \
                and candidates[0].get("continuationToken"):
            self.continuation = continuation_token(event)
        choices = []
        for position, cand in enumerate(candidates or ()):
            if not isinstance(cand, dict):
                raise bad_shape(self.provider, "candidates[]", "an object", cand)
            choice = self._choice(cand, cand.get("index", position))
            if choice is not None:
                choices.append(choice)
        if not candidates:
            blocked = _blocked(event.get("promptFeedback"))
            if blocked is not None:
                self._finished = True
                choices.append(ChunkChoice.model_construct(
                    index=0, delta=ChoiceDelta.model_construct(role="assistant",
                                                               refusal=blocked[1]),
                    finish_reason="content_filter", native_finish_reason=blocked[0]))
        if not choices:
            return None
        return self._chunk(choices, None)

    def _choice(self, cand: Mapping[str, Any], index: int) -> Optional[ChunkChoice]:
        parts = _Parts()
        parts.read(_candidate_parts(cand, self.provider),
                   self._ids.for_candidate(index), self.provider)  # type: ignore[union-attr]  # set by _translate
        tool_calls = None
        if parts.calls:
            first = self._calls.get(index, 0)
            self._calls[index] = first + len(parts.calls)
            tool_calls = [ChoiceDeltaToolCall.model_construct(
                index=first + n, id=cid, type="function",
                function=ChoiceDeltaFunction.model_construct(name=name, arguments=args))
                for n, (cid, name, args) in enumerate(parts.calls)]
        native = opt_str(cand.get("finishReason"), self.provider, "candidates[].finishReason")
        finish = None
        if native == "CONTINUATION" and self.continuation:
            native = None  # not the end: the reply goes on in the next request
        if native is not None:
            self._finished = True
            finish = _finish(native, index in self._calls)
        content = "".join(parts.text) or None
        if content:
            self._texts.setdefault(index, []).append(content)
        reasoning = "".join(parts.reasoning) or None
        psf = parts.psf()
        annotations = self._grounding(cand, index, parts.others) if (
            parts.others or cand.get("groundingMetadata")
            or cand.get("urlContextMetadata")) else None
        logprobs = gemini_logprobs(cand.get("logprobsResult"), self.provider)
        role = None
        if index not in self._started:
            self._started.add(index)
            role = "assistant"
        elif (content is None and reasoning is None and tool_calls is None and psf is None
              and native is None and not annotations and logprobs is None):
            return None
        delta = ChoiceDelta.model_construct(role=role, content=content, tool_calls=tool_calls,
                                            reasoning_content=reasoning,
                                            provider_specific_fields=psf)
        if annotations:  # citations of the text so far (docs/hosted-tools.md)
            object.__setattr__(delta, "__pydantic_extra__", {"annotations": annotations})
        more: dict[str, Any] = {"logprobs": logprobs} if logprobs is not None else {}
        return ChunkChoice.model_construct(
            index=index, delta=delta, finish_reason=finish, native_finish_reason=native, **more)

    def _grounding(self, cand: Mapping[str, Any], index: int,
                   others: list[dict[str, Any]]) -> Optional[list[dict[str, Any]]]:
        """What the hosted tools did in this event of candidate ``index``: code runs from
        its parts, its grounding's citations of the candidate's text so far."""
        from .hosted import Grounding

        grounding = self._hosted.get(index)
        if grounding is None:
            grounding = self._hosted[index] = Grounding()
        for part in others:
            grounding.part(part)
        before = len(grounding.annotations)
        grounding.metadata(cand, "".join(self._texts.get(index, ())))
        return grounding.annotations[before:] or None

    def _chunk(self, choices: list[ChunkChoice], usage: Optional[Usage]) -> ChatCompletionChunk:
        return ChatCompletionChunk.model_construct(
            id=self._id, created=self.created, model=self.model, provider=self.provider,
            choices=choices, usage=usage)

    def finish(self) -> ChatCompletionChunk:
        if not self._finished:
            raise APIConnectionError(
                "the Gemini stream ended before the model finished (no finishReason "
                "received); the connection was probably closed early", provider=self.provider)
        usage = _usage(_add_usage(self._usage_before, self._usage), self.provider)
        chunk = self._chunk([], usage)
        first = self._hosted.get(0)
        if self._hosted:  # the hosted calls, on the last chunk
            object.__setattr__(chunk, "__pydantic_extra__", {"tool_events": [
                e for _, g in sorted(self._hosted.items()) for e in g.events()]})
            if usage is not None and first is not None and first.usage() is not None:
                usage.server_tool_use = first.usage()
        return chunk


class _BodyEvents:
    """The SSE body of one streamed request -> the translator's chunks (sans-IO: the sync and
    async transports only move bytes). A body that ends inside an event whose JSON is cut
    off is a lost connection. A plain JSON body (``_common.PlainBody``: a server that does
    not stream, or Gemini's own JSON array of a stream without ``alt=sse``) is read whole:
    each response in it is an event, an error object its typed error."""

    __slots__ = ("_decoder", "_translator", "_plain", "_json")

    def __init__(self, translator: StreamTranslator) -> None:
        self._translator = translator
        self._decoder = SSEDecoder(translator.provider, raw_lines=True)
        self._plain = PlainBody(translator.provider)
        self._json = StreamJson(translator.provider)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        data = self._plain.route(data)
        if not data:
            return iter(())
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        if self._plain.is_json:
            document = self._plain.document()
            return self._events(document if isinstance(document, list) else [document])
        return self._chunks([*self._decoder.feed(self._plain.rest()), *self._decoder.end()],
                            at_end=True, last=True)

    def _events(self, events: list[Any]) -> Iterator[ChatCompletionChunk]:
        for event in events:
            chunk = self._translator.translate(event)
            if chunk is not None:
                yield chunk

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool, last: bool = False
                ) -> Iterator[ChatCompletionChunk]:
        """One event at a time: the chunks before a bad event reach the caller first
        (``last``: the end of the body, where an event cut short is a lost connection)."""
        translate = self._translator.translate
        for _name, data in events:
            event = self._json.parse(data, at_end=at_end)
            if event is CUT_EVENT:
                continue
            chunk = translate(event)
            if chunk is not None:
                yield chunk
        if last:
            self._json.end()
