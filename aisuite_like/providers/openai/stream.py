"""OpenAI Chat Completions stream translation (docs/providers/openai.md), pure: no I/O, no
SDK. :class:`StreamTranslator` turns the raw SSE events of one streamed reply into
``ChatCompletionChunk`` objects; :class:`StreamBody` feeds it from the body's bytes through
the SSE decoder shared by the HTTP families (``providers/_common.py``). An error event inside
the stream raises the typed error it stands for (``errors.error_from_body``), chained to the
exception the SDK's own stream raises for it when the SDK transport gives ``sdk_error``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Optional

from ...core.errors import AisuiteLikeError, APIConnectionError
from ...core.logprobs import choice_logprobs
from ...core.reading import read_reply, unreadable
from ...core.streaming import response_chunks
from ...core.types import (
    ChatCompletionChunk,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
)
from .._common import (
    CUT_EVENT,
    PlainBody,
    SSEDecoder,
    SSEEvent,
    StreamJson,
    bad_shape,
    need_list,
    need_name,
    need_object,
    opt_object,
)
from .errors import error_from_body
from .translate import (
    _RESPONSE_WIRE,
    _arguments,
    _extras,
    _fallback_call_id,
    _finish,
    _make,
    _mark_sent,
    _reasoning_of,
    _split_content,
    _usage,
    parse_response,
)

#: The exception the SDK raises for a stream's error event, from the event's ``error``
#: object: the ``__cause__`` of the typed error on the SDK transport (docs/migration.md).
SdkError = Callable[[Any], BaseException]

_CHUNK_FIELDS = frozenset(ChatCompletionChunk.model_fields)
_CHUNK_CHOICE_FIELDS = frozenset(ChunkChoice.model_fields)
_DELTA_FIELDS = frozenset(ChoiceDelta.model_fields)


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

    __slots__ = ("provider", "secrets", "sdk_error", "_choices", "saw_finish")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = (),
                 sdk_error: Optional[SdkError] = None) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # scrubbed from error events (a provider may echo them)
        self.sdk_error = sdk_error
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
            error = error_from_body(event["error"], self.provider, self.secrets)
            if self.sdk_error is not None:
                raise error from self.sdk_error(event["error"])
            raise error
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
        logprobs = choice_logprobs(c.get("logprobs"), self.provider)
        role = None
        if not state.started:
            state.started = True
            role = "assistant"
        elif (content is None and reasoning is None and refusal is None and tool_calls is None
              and native is None and logprobs is None):
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
            "logprobs": logprobs,
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
    inside an event whose JSON is cut off is a lost connection. A server that answers the
    stream request with a plain JSON body (``_common.PlainBody``) gets it read as the reply
    it is: an error object raises its typed error, a completion comes as the chunks of it."""

    __slots__ = ("translator", "done", "_decoder", "_plain", "_json")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = (),
                 sdk_error: Optional[SdkError] = None) -> None:
        self.translator = StreamTranslator(provider, secrets, sdk_error)
        self.done = False
        self._decoder = SSEDecoder(provider)
        self._plain = PlainBody(provider)
        self._json = StreamJson(provider)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        """The chunks of the events ``data`` (the next bytes of the body) completes."""
        data = self._plain.route(data)
        if not data:
            return iter(())
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        """The end of the body (an unterminated last event is processed if complete); then
        the check that some choice finished."""
        if self._plain.is_json:
            self.done = True
            provider = self.translator.provider
            yield from response_chunks(read_reply(
                lambda: parse_response(self._plain.document(), provider), provider, 200, None),
                whole=True)
            return
        yield from self._chunks(self._decoder.feed(self._plain.rest()), at_end=False)
        yield from self._chunks(self._decoder.end(), at_end=True)
        self._json.end()
        self.translator.finish()

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        translator = self.translator
        for _name, data in events:
            if self.done:
                return
            if data.startswith("[DONE]"):
                self._json.went_on()
                self.done = True
                return
            event = self._json.parse(data, at_end=at_end)
            if event is CUT_EVENT:
                continue
            chunk = translator.translate(event)
            if chunk is not None:
                yield chunk

