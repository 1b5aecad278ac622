"""ConverseStream, pure (no I/O, importable without botocore): the binary event-stream body
-> event dicts (``EventStreamDecoder``; exception events raise the mapped error), and the
event dicts -> ``ChatCompletionChunk`` objects (``StreamTranslator``). See
docs/providers/bedrock.md ("Streaming", "Speed").
"""

from __future__ import annotations

import struct
import time
import zlib
from collections.abc import Iterable
from typing import Any, Optional

from ...core.errors import APIConnectionError, APIError, APIResponseValidationError
from ...core.reading import JSONTooDeepError, loads_json
from ...core.types import (
    ChatCompletionChunk,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    Usage,
    build_model,
)
from .._common import argument_fragment
from .errors import PROVIDER, error_from_client_error
from .translate import REASONING_BLOCKS_KEY, _stored_reasoning, finish_reason_for, usage_from

__all__ = ["StreamTranslator", "EventStreamDecoder"]

def _delta(*, role: Optional[str] = None, content: Optional[str] = None,
           tool_calls: Optional[list[Any]] = None, reasoning_content: Optional[str] = None,
           provider_specific_fields: Optional[dict[str, Any]] = None) -> ChoiceDelta:
    delta: ChoiceDelta = build_model(ChoiceDelta, {  # every field: this runs per chunk
        "role": role, "content": content, "tool_calls": tool_calls,
        "reasoning_content": reasoning_content, "refusal": None,
        "provider_specific_fields": provider_specific_fields})
    return delta


class StreamTranslator:
    """Folds ConverseStream event dicts (as botocore yields them) into OpenAI-shaped chunks.

    ``process(event)`` returns the chunk the event produces, or None. Tool calls are indexed
    0..n in order of appearance (``contentBlockStart`` carries id and name, ``toolUse`` deltas
    the argument pieces). A reasoning block's complete form (with its signature) is delivered
    on its ``contentBlockStop`` via ``delta.provider_specific_fields``, so the accumulated
    message equals the non-streamed one. ``messageStop`` is held back and delivered with the
    ``metadata`` usage as the last chunk; :meth:`finish` delivers it when no metadata came,
    and raises when the stream ended before ``messageStop``.
    """

    __slots__ = ("provider", "request_id", "id", "model", "created", "_blocks",
                 "_tool_count", "_stop_reason", "_done")

    def __init__(self, *, model: str = "", provider: str = PROVIDER,
                 request_id: Optional[str] = None, created: Optional[int] = None) -> None:
        self.provider = provider
        self.request_id = request_id
        self.id = request_id or ""
        self.model = model
        self.created = int(time.time()) if created is None else created
        # content block index -> [kind, tool index | reasoning text parts, signature, redacted]
        self._blocks: dict[int, list[Any]] = {}
        self._tool_count = 0
        self._stop_reason: Optional[str] = None
        self._done = False

    def _chunk(self, delta: Optional[ChoiceDelta], finish_reason: Optional[str] = None,
               native: Optional[str] = None,
               usage: Optional[Usage] = None) -> ChatCompletionChunk:
        chunk: ChatCompletionChunk = build_model(ChatCompletionChunk, {
            "id": self.id, "object": "chat.completion.chunk", "created": self.created,
            "model": self.model, "provider": self.provider,
            "choices": [build_model(ChunkChoice, {"index": 0, "delta": delta or _delta(),
                                             "finish_reason": finish_reason,
                                             "native_finish_reason": native,
                                         "logprobs": None})],
            "usage": usage, "turn": None})
        return chunk

    def process(self, event: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        body = event.get("contentBlockDelta")
        if body is not None:
            return self._block_delta(body)
        body = event.get("contentBlockStart")
        if body is not None:
            return self._block_start(body)
        body = event.get("contentBlockStop")
        if body is not None:
            return self._block_stop(body)
        if "messageStart" in event:
            return self._chunk(_delta(role="assistant"))
        body = event.get("messageStop")
        if body is not None:
            self._stop_reason = body.get("stopReason")
            self._done = True
            return None
        body = event.get("metadata")
        if body is not None:
            return self._final(usage_from(body.get("usage")))
        return None  # event types added after this was written

    def _final(self, usage: Optional[Usage]) -> ChatCompletionChunk:
        reason = finish_reason_for(self._stop_reason, self._tool_count > 0)
        chunk = self._chunk(None, reason, self._stop_reason, usage)
        self._stop_reason = None
        return chunk

    def _block_start(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        use = (body.get("start") or {}).get("toolUse")
        if use is None:
            return None
        if use.get("type") == "server_tool_use":  # a Nova system tool's call: not ours to run
            self._blocks[body.get("contentBlockIndex", 0)] = ["server", None, None, None]
            return None
        tool_index = self._tool_count
        self._tool_count += 1
        self._blocks[body.get("contentBlockIndex", 0)] = ["tool", tool_index, None, None]
        return self._chunk(_delta(tool_calls=[build_model(ChoiceDeltaToolCall, {
            "index": tool_index, "id": use.get("toolUseId"), "type": "function",
            "function": build_model(ChoiceDeltaFunction, {"name": use.get("name"),
                                                     "arguments": ""})})]))

    def _block_delta(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        delta = body.get("delta") or {}
        text = delta.get("text")
        if text is not None:
            return self._chunk(_delta(content=text)) if text else None
        index = body.get("contentBlockIndex", 0)
        use = delta.get("toolUse")
        if use is not None:
            state = self._blocks.get(index)
            fragment = argument_fragment(use.get("input"))
            if not fragment or state is None or state[0] != "tool":
                return None
            return self._chunk(_delta(tool_calls=[build_model(ChoiceDeltaToolCall, {
                "index": state[1], "id": None, "type": None,
                "function": build_model(ChoiceDeltaFunction, {"name": None,
                                                         "arguments": fragment})})]))
        reasoning = delta.get("reasoningContent")
        if reasoning is not None:
            state = self._blocks.get(index)
            if state is None:
                state = self._blocks[index] = ["reasoning", [], "", None]
            if reasoning.get("text"):
                state[1].append(reasoning["text"])
                return self._chunk(_delta(reasoning_content=reasoning["text"]))
            if reasoning.get("signature"):
                state[2] += reasoning["signature"]
            if reasoning.get("redactedContent") is not None:
                state[3] = reasoning["redactedContent"]
        return None  # citations and future delta types carry no text of their own

    def _block_stop(self, body: dict[str, Any]) -> Optional[ChatCompletionChunk]:
        state = self._blocks.get(body.get("contentBlockIndex", 0))
        if state is None or state[0] != "reasoning":
            return None
        if state[3] is not None:
            stored = _stored_reasoning({"redactedContent": state[3]})
        else:
            stored = _stored_reasoning({"reasoningText": {"text": "".join(state[1]),
                                                          "signature": state[2]}})
        return self._chunk(_delta(provider_specific_fields={REASONING_BLOCKS_KEY: [stored]}))

    def finish(self) -> Optional[ChatCompletionChunk]:
        """Call at the end of the stream: the held-back finish chunk when no metadata event
        came; a stream cut before ``messageStop`` is an error."""
        if not self._done:
            raise APIConnectionError(
                f"the {self.provider} stream ended before messageStop (connection dropped?)",
                provider=self.provider, request_id=self.request_id)
        if self._stop_reason is not None:
            return self._final(None)
        return None


_PRELUDE = struct.Struct(">II")
_UINT32 = struct.Struct(">I")
_UINT16 = struct.Struct(">H")
# Fixed sizes of the non-string header value types of the event-stream format (0/1: booleans
# with no value bytes; 6 and 7, byte arrays and strings, carry a 2-byte length).
_HEADER_VALUE_SIZES = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_MAX_MESSAGE = 24 * 1024 * 1024  # the format's own bound (16 MiB payload + headers)


class EventStreamDecoder:
    """ConverseStream's binary ``application/vnd.amazon.eventstream`` body -> the event dicts
    botocore would give (``{"contentBlockDelta": {...}}``), sans-IO: ``feed(bytes)`` returns the
    events of every message completed by those bytes. Each message is a prelude (total
    length, headers length, CRC32), typed headers, a JSON payload and a CRC32 of the whole.
    An ``exception`` / ``error`` message raises the mapped error. Parsing the frames here
    (rather than through botocore's shape-driven parser) halves the cost per streamed chunk.
    """

    __slots__ = ("provider", "request_id", "secrets", "_buffer")

    def __init__(self, *, provider: str = PROVIDER, request_id: Optional[str] = None,
                 secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.request_id = request_id
        self.secrets = tuple(secrets)
        self._buffer = b""

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message still buffered."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        buffer = self._buffer + data if self._buffer else data
        events: list[dict[str, Any]] = []
        offset = 0
        size = len(buffer)
        while size - offset >= 12:
            total, headers_length = _PRELUDE.unpack_from(buffer, offset)
            if total > _MAX_MESSAGE or headers_length > total - 16 or \
                    zlib.crc32(buffer[offset:offset + 8]) != _UINT32.unpack_from(
                        buffer, offset + 8)[0]:
                raise self._corrupt("a message prelude failed its checks")
            if size - offset < total:
                break
            end = offset + total
            if zlib.crc32(buffer[offset:end - 4]) != _UINT32.unpack_from(buffer, end - 4)[0]:
                raise self._corrupt("a message failed its CRC check")
            headers = self._headers(buffer, offset + 12, offset + 12 + headers_length)
            payload = buffer[offset + 12 + headers_length:end - 4]
            offset = end
            kind = headers.get(":message-type", "event")
            if kind == "event":
                event_type = headers.get(":event-type")
                if event_type:
                    try:
                        events.append({event_type: loads_json(payload) if payload else {}})
                    except UnicodeDecodeError as exc:  # a ValueError too: said first
                        raise self._corrupt(
                            f"the {event_type} event is not valid UTF-8 (byte "
                            f"0x{payload[exc.start]:02x} at offset {exc.start})") from None
                    except JSONTooDeepError as exc:
                        raise self._corrupt(f"the {event_type} event is JSON {exc.msg}") from None
                    except ValueError:
                        raise self._corrupt(f"the {event_type} event is not JSON") from None
                continue
            raise self._error(kind, headers, payload)
        self._buffer = buffer[offset:]
        return events

    def _headers(self, buffer: bytes, start: int, end: int) -> dict[str, str]:
        headers: dict[str, str] = {}
        i = start
        try:
            while i < end:
                name_length = buffer[i]
                name = buffer[i + 1:i + 1 + name_length].decode()
                i += 1 + name_length
                kind = buffer[i]
                i += 1
                if kind in (6, 7):
                    (length,) = _UINT16.unpack_from(buffer, i)
                    if kind == 7:
                        headers[name] = buffer[i + 2:i + 2 + length].decode()
                    i += 2 + length
                else:
                    i += _HEADER_VALUE_SIZES[kind]
        except (IndexError, KeyError, UnicodeDecodeError, struct.error):
            raise self._corrupt("a message has malformed headers") from None
        return headers

    def _error(self, kind: str, headers: dict[str, str], payload: bytes) -> APIError:
        if kind == "exception":
            code = headers.get(":exception-type", "")
            try:
                body = loads_json(payload) if payload else {}
            except ValueError:
                body = {}
            message = body.get("message") or body.get("Message") if isinstance(body, dict) \
                else None
        else:  # "error"
            code, message = headers.get(":error-code", ""), headers.get(":error-message")
        error = error_from_client_error(
            {"Error": {"Code": code, "Message": message or payload[:200].decode(errors="replace")},
             "ResponseMetadata": {"RequestId": self.request_id}},
            provider=self.provider, secrets=self.secrets)
        return error

    def _corrupt(self, what: str) -> APIError:
        return APIResponseValidationError(
            f"a malformed ConverseStream body: {what}", provider=self.provider,
            status_code=200, request_id=self.request_id)
