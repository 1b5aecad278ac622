"""Anthropic Messages API stream translation (docs/providers/anthropic.md), pure: no I/O, no
SDK. :class:`StreamTranslator` folds the stream's events into ``ChatCompletionChunk`` objects;
:class:`StreamBody` feeds it from the body's bytes through the SSE decoder shared by the HTTP
families (``providers/_common.py``). An ``error`` event inside the stream raises the typed
error it stands for (``errors.error_from_stream_event``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional

from ...core.errors import AisuiteLikeError, APIConnectionError
from ...core.reading import read_reply, unreadable
from ...core.streaming import response_chunks
from ...core.types import (
    ChatCompletionChunk,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    Usage,
    build_model,
)
from .._common import (
    CUT_EVENT,
    PlainBody,
    SSEDecoder,
    SSEEvent,
    StreamJson,
    argument_fragment,
    arguments_json,
    bad_shape,
    need_name,
    need_object,
    opt_object,
    opt_str,
)
from .errors import error_from_stream_event
from .translate import (
    PROVIDER,
    THINKING_BLOCKS_KEY,
    finish_reason_for,
    parse_response,
    usage_from,
)

#: The exception the SDK's own stream raises for an ``error`` event, from the event: the
#: ``__cause__`` of the typed error on the SDK transport (docs/migration.md).
SdkError = Callable[[Any], BaseException]


class StreamBody:
    """The SSE body of one streamed reply -> chunks: the shared SSE decoder
    (``_common.SSEDecoder``) and the state machine together, so the sync and async transports
    only move bytes. The event name is kept as ``"type"`` when the data has none. An event
    of a shape the translator did not foresee raises ``APIResponseValidationError``, not a bare
    error; a body that ends inside an event whose JSON is cut off is a lost connection. A
    server that answers the stream request with a plain JSON body (``_common.PlainBody``)
    gets it read as the reply it is: an error object raises its typed error, a message comes
    as the chunks of it."""

    __slots__ = ("_decoder", "_state", "_plain", "_whole", "_json")

    def __init__(self, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = (),
                 sdk_error: Optional[SdkError] = None) -> None:
        self._decoder = SSEDecoder(provider)
        self._state = StreamTranslator(provider=provider, request_id=request_id, secrets=secrets,
                                       sdk_error=sdk_error)
        self._plain = PlainBody(provider)
        self._whole = False  # the reply came as a plain JSON body, read whole
        self._json = StreamJson(provider)

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        """The chunks of the events ``data`` (the next bytes of the body) completes."""
        data = self._plain.route(data)
        if not data:
            return iter(())
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        """The end of the body (an unterminated last event is processed if complete)."""
        if self._plain.is_json:
            self._whole = True
            state = self._state
            response = read_reply(
                lambda: parse_response(self._plain.document(), provider=state.provider),
                state.provider, 200, state.request_id)
            return response_chunks(response, whole=True)
        return self._chunks([*self._decoder.feed(self._plain.rest()), *self._decoder.end()],
                            at_end=True)

    def finish(self) -> None:
        if not self._whole:
            self._json.end()
            self._state.finish()

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        state = self._state
        provider = state.provider
        for name, data in events:
            event = self._json.parse(data, at_end=at_end)
            if event is CUT_EVENT:
                continue
            if not isinstance(event, dict):
                raise bad_shape(provider, f"a stream event ({name or 'no name'})",
                                "an object", event)
            if name and "type" not in event:
                event["type"] = name
            try:
                chunk = state.process(event)
            except AisuiteLikeError:
                raise
            except Exception as exc:
                raise unreadable(provider, exc, "a stream event") from exc
            if chunk is not None:
                yield chunk



def _delta(*, role: Optional[str] = None, content: Optional[str] = None,
           tool_calls: Optional[list[Any]] = None, reasoning_content: Optional[str] = None,
           provider_specific_fields: Optional[dict[str, Any]] = None) -> ChoiceDelta:
    return build_model(ChoiceDelta, {  # every field: this runs per chunk
        "role": role, "content": content, "tool_calls": tool_calls,
        "reasoning_content": reasoning_content, "refusal": None,
        "provider_specific_fields": provider_specific_fields})


def _chunk(state: "StreamTranslator", delta: ChoiceDelta, finish_reason: Optional[str] = None,
           native: Optional[str] = None, usage: Optional[Usage] = None) -> ChatCompletionChunk:
    return build_model(ChatCompletionChunk, {
        "id": state.id, "object": "chat.completion.chunk", "created": state.created,
        "model": state.model, "provider": state.provider,
        "choices": [build_model(ChunkChoice, {"index": 0, "delta": delta,
                                         "finish_reason": finish_reason,
                                         "native_finish_reason": native,
                                         "logprobs": None})],
        "usage": usage, "turn": None})


class StreamTranslator:
    """Folds Messages API stream events into OpenAI-shaped chunks, one event at a time.

    ``process(event)`` returns the chunk the event produces, or None (ping, block starts of
    text, signature deltas, message_stop). Tool calls are indexed 0..n in order of appearance;
    a thinking block's complete form (with its signature) is delivered on its
    ``content_block_stop`` via ``delta.provider_specific_fields``, so the accumulated message
    equals the non-streamed one. Usage and the finish reason come on the message_delta chunk,
    the last one.
    """

    __slots__ = ("provider", "request_id", "secrets", "sdk_error", "id", "model", "created",
                 "_blocks", "_tool_count", "_usage", "_done", "_chars", "_server")

    def __init__(self, *, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = (), created: Optional[int] = None,
                 sdk_error: Optional[SdkError] = None) -> None:
        self.provider = provider
        self.sdk_error = sdk_error
        self.request_id = request_id
        self.secrets = tuple(secrets)
        self.id = ""
        self.model = ""
        self.created = int(time.time()) if created is None else created
        # content block index -> [kind, tool index or thinking parts, signature / data]
        self._blocks: dict[int, list[Any]] = {}
        self._tool_count = 0
        self._usage: dict[str, Any] = {}
        self._done = False
        self._chars = 0  # characters of text so far: where a block's citations point
        self._server: Any = None  # the server tools' calls (hosted.ServerBlocks), if any

    @property
    def done(self) -> bool:
        return self._done

    def process(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._block_delta(event)
        if kind == "content_block_start":
            return self._block_start(event)
        if kind == "content_block_stop":
            return self._block_stop(event)
        if kind == "message_start":
            message = need_object(event.get("message"), self.provider, "message_start.message")
            self.id = opt_str(message.get("id"), self.provider, "message_start.message.id") or ""
            self.model = opt_str(message.get("model"), self.provider,
                                 "message_start.message.model") or ""
            self._usage = dict(opt_object(message.get("usage"), self.provider,
                                          "message_start.message.usage") or {})
            return _chunk(self, _delta(role="assistant"))
        if kind == "message_delta":
            return self._message_delta(event)
        if kind == "message_stop":
            self._done = True
            return None
        if kind == "error":
            error = error_from_stream_event(event, provider=self.provider,
                                            request_id=self.request_id, secrets=self.secrets)
            if self.sdk_error is not None:
                raise error from self.sdk_error(event)
            raise error
        return None  # ping, and event types added after this was written

    def _block_start(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        index = event.get("index", 0)
        block = need_object(event.get("content_block"), self.provider,
                            "content_block_start.content_block")
        kind = block.get("type")
        if kind == "text":
            # [kind, the block's first character, its citations]
            self._blocks[index] = ["text", self._chars, list(block.get("citations") or ())]
            if block.get("text"):
                self._chars += len(block["text"])
                return _chunk(self, _delta(content=block["text"]))
            return None
        if kind == "tool_use":
            need_name(block.get("name"), self.provider, "content_block_start.content_block.name")
            tool_index = self._tool_count
            self._tool_count += 1
            self._blocks[index] = ["tool", tool_index, None]
            initial = block.get("input")
            return _chunk(self, _delta(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=tool_index, id=block.get("id"), type="function",
                    function=ChoiceDeltaFunction.model_construct(
                        name=block.get("name"),
                        arguments=arguments_json(initial) if initial else ""))]))
        if kind == "thinking":
            text = block.get("thinking") or ""
            self._blocks[index] = ["thinking", [text] if text else [],
                                   block.get("signature") or ""]
            if text:
                return _chunk(self, _delta(reasoning_content=text))
            return None
        if kind == "redacted_thinking":
            self._blocks[index] = ["redacted", None, block.get("data", "")]
            return None
        if kind == "server_tool_use" or (isinstance(kind, str)
                                         and kind.endswith("_tool_result")):
            # the server tools' calls (docs/hosted-tools.md): input JSON comes in deltas
            self._blocks[index] = ["server", [], block]
            return None
        self._blocks[index] = ["other", None, None]
        return None

    def _block_delta(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        delta = need_object(event.get("delta"), self.provider, "content_block_delta.delta")
        kind = delta.get("type")
        if kind == "text_delta":
            text = opt_str(delta.get("text"), self.provider, "content_block_delta.delta.text")
            if text:
                self._chars += len(text)
            return _chunk(self, _delta(content=text)) if text else None
        state = self._blocks.get(event.get("index", 0))
        if kind == "citations_delta":
            if state is not None and state[0] == "text" and isinstance(
                    delta.get("citation"), dict):
                state[2].append(delta["citation"])
            return None
        if kind == "input_json_delta":
            fragment = argument_fragment(delta.get("partial_json"))
            if fragment and state is not None and state[0] == "server":
                state[1].append(fragment)
                return None
            if not fragment or state is None or state[0] != "tool":
                return None
            return _chunk(self, _delta(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=state[1], id=None, type=None,
                    function=ChoiceDeltaFunction.model_construct(name=None,
                                                                 arguments=fragment))]))
        if kind == "thinking_delta":
            text = delta.get("thinking")
            if not text:
                return None
            if state is not None and state[0] == "thinking":
                state[1].append(text)
            return _chunk(self, _delta(reasoning_content=text))
        if kind == "signature_delta":
            if state is not None and state[0] == "thinking":
                state[2] += delta.get("signature", "")
            return None
        return None  # future delta types carry no text of their own

    def _block_stop(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        state = self._blocks.get(event.get("index", 0))
        if state is None:
            return None
        if state[0] == "thinking":
            block = {"type": "thinking", "thinking": "".join(state[1]), "signature": state[2]}
        elif state[0] == "redacted":
            block = {"type": "redacted_thinking", "data": state[2]}
        elif state[0] == "text":
            return self._cited(state)
        elif state[0] == "server":
            self._server_block(state)
            return None
        else:
            return None
        return _chunk(self, _delta(
            provider_specific_fields={THINKING_BLOCKS_KEY: [block]}))

    def _message_delta(self, event: dict[str, Any]) -> ChatCompletionChunk:
        # message_delta usage is cumulative: its values replace message_start's.
        usage = opt_object(event.get("usage"), self.provider, "message_delta.usage") or {}
        for key, value in usage.items():
            if value is not None:
                self._usage[key] = value
        delta = opt_object(event.get("delta"), self.provider, "message_delta.delta") or {}
        stop_reason = opt_str(delta.get("stop_reason"), self.provider,
                              "message_delta.delta.stop_reason")
        total = usage_from(self._usage, self.provider)
        chunk = _chunk(self, _delta(),
                       finish_reason=finish_reason_for(stop_reason, self._tool_count > 0),
                       native=stop_reason, usage=total)
        if self._server is not None:  # the hosted calls, on the last chunk
            counted = self._server.usage(self._usage.get("server_tool_use"))
            if total is not None and counted is not None:
                total.server_tool_use = counted
            object.__setattr__(chunk, "__pydantic_extra__",
                               {"tool_events": self._server.events()})
        return chunk

    def _cited(self, state: list[Any]) -> Optional[ChatCompletionChunk]:
        """A text block with citations, ended: its annotations, in OpenAI's shape."""
        if not state[2]:
            return None
        from .hosted import citations_of

        annotations = citations_of(state[2], state[1], self._chars)
        if not annotations:
            return None
        delta = _delta()
        object.__setattr__(delta, "__pydantic_extra__", {"annotations": annotations})
        return _chunk(self, delta)

    def _server_block(self, state: list[Any]) -> None:
        block = dict(state[2])
        if self._server is None:
            from .hosted import ServerBlocks

            self._server = ServerBlocks()
        if block.get("type") == "server_tool_use":
            if state[1]:
                import json

                try:
                    block["input"] = json.loads("".join(state[1]))
                except ValueError:
                    block["input"] = "".join(state[1])
            self._server.use(block)
        else:
            self._server.result(block)

    def finish(self) -> None:
        """Call at the end of the body: a stream cut before ``message_stop`` is an error."""
        if not self._done:
            raise APIConnectionError(
                f"the {self.provider} stream ended before message_stop (connection dropped?)",
                provider=self.provider, request_id=self.request_id)

