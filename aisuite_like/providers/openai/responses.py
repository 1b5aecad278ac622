"""OpenAI Responses API translation (docs/responses.md), pure: no I/O, no SDK.

Two uses of OpenAI's ``/v1/responses``:

- native calls of ``client.responses.create`` on openai / azure: the caller's arguments go
  out as they are (:func:`build_native`), the reply JSON becomes our ``Response``
  (:func:`parse_native`) and the stream's events ours (:class:`NativeEvents`);
- chat calls over Responses (the provider config ``api="responses"``): a ``ChatRequest``
  becomes Responses arguments (:func:`build_chat`), the reply a ``ChatCompletionResponse``
  (:func:`parse_chat`), the stream's events chunks (:class:`ChatChunks`). The reply's output
  items ride on the message (``provider_specific_fields["responses_items"]``) and go back as
  they are on the next turn, so reasoning items (with ``encrypted_content`` when
  ``store=False``) survive a tool loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

from ...core.errors import AisuiteLikeError, APIConnectionError, UnsupportedParameterError
from ...core.portability import HistoryRules, IdRule, fit_history
from ...core.reading import read_reply, unreadable
from ...core.responses import Response, ResponseCompletedEvent, ResponseEvent, parse_event
from ...core.responses_items import (
    PSF_ITEMS,
    messages_to_items,
    response_format_to_text,
    tool_choice_to_responses,
    tools_to_responses,
    usage_from_response,
)
from ...core.streaming import response_chunks
from ...core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Choice,
    ChoiceDelta,
    ChoiceDeltaFunction,
    ChoiceDeltaToolCall,
    ChunkChoice,
    Function,
    Message,
    ToolCall,
)
from .._common import PlainBody, SSEDecoder, SSEEvent, bad_shape, need_object, sse_json
from ..base import ChatRequest, ResponsesRequest
from .errors import error_from_body
from .services import SERVICES
from .translate import _arguments, prompt_cache_key

__all__ = ["build_native", "parse_native", "NativeEvents", "build_chat", "parse_chat",
           "ChatChunks"]


def _split_native(params: Mapping[str, Any], sdk_params: frozenset[str], kwargs: dict[str, Any],
                  provider: str) -> None:
    """Arguments the SDK's ``responses.create`` names go as such; the rest in
    ``extra_body`` (as the chat path does)."""
    extra_body: dict[str, Any] = {}
    for name, value in params.items():
        if name == "extra_body":
            if not isinstance(value, Mapping):
                raise UnsupportedParameterError("extra_body must be a dict",
                                                parameter="extra_body", provider=provider)
            extra_body.update(value)
        elif name in ("model", "stream"):
            raise UnsupportedParameterError(f"{name!r} cannot be passed as an argument here",
                                            parameter=name, provider=provider)
        elif name in sdk_params:
            kwargs[name] = value
        else:
            extra_body[name] = value
    if extra_body:
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), **extra_body}


def build_native(request: ResponsesRequest, sdk_params: frozenset[str], provider: str
                 ) -> dict[str, Any]:
    """``ResponsesRequest`` -> keyword arguments of ``responses.create``: the caller's
    arguments as given."""
    kwargs: dict[str, Any] = {"model": request.model}
    _split_native(request.params, sdk_params, kwargs, provider)
    if request.stream:
        kwargs["stream"] = True
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    return kwargs


def parse_native(data: Any, provider: str) -> Response:
    """A ``response`` JSON object -> our ``Response`` (every field kept; ``raw`` the dict)."""
    data = need_object(data, provider, "the reply")
    if data.get("object") != "response" and data.get("error"):
        raise error_from_body(data["error"], provider, where="error object in the reply")
    try:
        response = Response.model_validate(data)
    except (AisuiteLikeError, MemoryError):
        raise
    except Exception as exc:
        raise unreadable(provider, exc, "the reply") from exc
    response.provider = provider
    response.raw = data
    return response


class NativeEvents:
    """The SSE body of a native Responses stream -> our events, through the shared SSE
    decoder. An ``error`` event raises the typed error it stands for; the stream is over
    after ``response.completed`` / ``incomplete`` / ``failed``."""

    __slots__ = ("provider", "secrets", "done", "_decoder", "_plain")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)
        self.done = False
        self._decoder = SSEDecoder(provider)
        self._plain = PlainBody(provider)

    def feed(self, data: bytes) -> Iterator[ResponseEvent]:
        data = self._plain.route(data)
        if not data:
            return iter(())
        return self._events(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ResponseEvent]:
        if self._plain.is_json:  # a server that answered the stream request with JSON
            response = read_reply(lambda: parse_native(self._plain.document(), self.provider),
                                  self.provider, 200, None)
            self.done = True
            yield ResponseCompletedEvent.model_construct(
                type="response.completed", response=response, sequence_number=0)
            return
        yield from self._events(self._decoder.feed(self._plain.rest()), at_end=False)
        yield from self._events(self._decoder.end(), at_end=True)
        if not self.done:
            raise APIConnectionError(
                "the stream ended before the response was complete (no response.completed "
                "event); the connection was probably closed early", provider=self.provider)

    def _events(self, events: Iterable[SSEEvent], at_end: bool) -> Iterator[ResponseEvent]:
        for _name, data in events:
            if self.done or data.startswith("[DONE]"):
                self.done = True
                return
            raw = sse_json(data, self.provider, at_end=at_end)
            if not isinstance(raw, dict):
                raise bad_shape(self.provider, "a stream event", "an object", raw)
            kind = raw.get("type")
            if kind == "error":
                raise error_from_body(raw.get("error") or raw, self.provider, self.secrets)
            try:
                event = parse_event(raw)
            except (AisuiteLikeError, MemoryError):
                raise
            except Exception as exc:
                raise unreadable(self.provider, exc, "a stream event") from exc
            if kind in ("response.completed", "response.incomplete", "response.failed"):
                self.done = True
                response = getattr(event, "response", None)
                if response is not None:
                    response.provider = self.provider
            yield event


# --- chat over Responses ------------------------------------------------------------------

_UNSUPPORTED = ("stop", "seed")

#: OpenAI's Responses API takes ``call_id`` of at most 64 characters (``Invalid
#: 'input[].call_id': string too long``), and pairs a ``function_call_output`` with the one
#: ``function_call`` of its id: others are rewritten (docs/portability.md).
RESPONSES_IDS = IdRule("responses", max_length=64, unique=True)
HISTORY = HistoryRules("responses", ids=RESPONSES_IDS)


def build_chat(request: ChatRequest, sdk_params: frozenset[str], provider: str
               ) -> dict[str, Any]:
    """``ChatRequest`` -> keyword arguments of ``responses.create`` (``api="responses"``)."""
    for name in _UNSUPPORTED:
        if getattr(request, name) is not None:
            raise UnsupportedParameterError(
                f"{name!r} has no equivalent in OpenAI's Responses API (the provider config "
                f"says api='responses'); remove it, or use api='chat'", parameter=name,
                provider=provider)
    if request.n not in (None, 1):
        raise UnsupportedParameterError(
            "the Responses API returns one answer: n > 1 needs api='chat'", parameter="n",
            provider=provider)
    history = fit_history(request.messages, HISTORY, request.orphans, provider=provider)
    for index, message in history:
        content = message.get("content")
        if isinstance(content, list) and any(
                isinstance(p, Mapping) and p.get("type") == "input_audio" for p in content):
            raise UnsupportedParameterError(
                f"messages[{index}] has an input_audio part, which OpenAI's Responses API does "
                "not take in its input (text, images and files); send it with api='chat' to "
                "an audio model (docs/portability.md)", parameter="messages",
                provider=provider)
    kwargs: dict[str, Any] = {"model": request.model,
                              "input": messages_to_items(history.messages, for_openai=True)}
    if request.tools:
        kwargs["tools"] = tools_to_responses(request.tools)
    if request.tool_choice is not None:
        kwargs["tool_choice"] = tool_choice_to_responses(request.tool_choice)
    text = response_format_to_text(request.response_format)
    if text is not None:
        kwargs["text"] = text
    if request.max_tokens is not None:
        kwargs["max_output_tokens"] = request.max_tokens
    for name in ("temperature", "top_p", "parallel_tool_calls", "user"):
        value = getattr(request, name)
        if value is not None:
            kwargs[name] = value
    if request.stream:
        kwargs["stream"] = True
        options = {k: v for k, v in (request.stream_options or {}).items()
                   if k != "include_usage"}  # a Responses stream always ends with usage
        if options:
            kwargs["stream_options"] = options
    if request.timeout is not None:
        kwargs["timeout"] = request.timeout
    extra = dict(request.extra)
    if request.reasoning_effort is not None:  # the portable effort, as Responses takes it
        extra["reasoning"] = {**(extra.get("reasoning") or {}),
                              "effort": request.reasoning_effort}
    spec = SERVICES.get(provider)
    if request.prompt_cache == "auto" and spec is not None and spec.prompt_cache_key \
            and "prompt_cache_key" not in extra:
        kwargs["prompt_cache_key"] = prompt_cache_key(request)
    hosted = extra.pop("tools", None)  # hosted tools (web_search, ...) beside the functions
    if hosted:
        kwargs["tools"] = [*kwargs.get("tools", ()), *hosted]
    if request.hosted_tools:  # ai.tools.WebSearch(), ... (docs/hosted-tools.md)
        from .hosted import responses_tools

        kwargs["tools"] = [*kwargs.get("tools", ()),
                           *responses_tools(request.hosted_tools, provider)]
    if extra.get("store") is False:
        # Nothing is stored: reasoning items can only go back to the next turn encrypted.
        include = list(extra.get("include") or ())
        if "reasoning.encrypted_content" not in include:
            extra["include"] = [*include, "reasoning.encrypted_content"]
    if extra:
        _split_native(extra, sdk_params, kwargs, provider)
    return kwargs


def _item_texts(item: Mapping[str, Any], key: str) -> str:
    return "".join(p.get("text", "") for p in item.get(key) or () if isinstance(p, Mapping))


def _call_item(item: Any) -> Any:
    """A ``function_call`` item whose ``arguments`` is not the JSON string the API defines
    (an object, a number, null, as some servers send) with them as a string, as the chat
    translator reads such calls: an object as its JSON, null as no arguments. The tool run
    then answers a call it cannot use with an error result, and the item goes back (and
    into the final response) in the shape the API defines."""
    if isinstance(item, dict) and item.get("type") == "function_call" \
            and not isinstance(item.get("arguments"), str):
        return {**item, "arguments": _arguments(item.get("arguments"))}
    return item


def _message_of(output: list[Any], provider: str) -> tuple[Message, bool, Any]:
    output = [_call_item(item) for item in output]
    text: list[str] = []
    refusal: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    annotations: list[dict[str, Any]] = []
    hosted: Any = None  # the hosted calls (hosted.OutputCalls), if any
    length = 0
    for position, item in enumerate(output):
        if not isinstance(item, dict):
            raise bad_shape(provider, f"output[{position}]", "an object", item)
        kind = item.get("type")
        if kind in ("web_search_call", "code_interpreter_call"):
            if hosted is None:
                from .hosted import OutputCalls

                hosted = OutputCalls()
            hosted.item(item)
        if kind == "message":
            for part in item.get("content") or ():
                if not isinstance(part, Mapping):
                    continue
                if part.get("type") == "output_text":
                    piece = part.get("text") or ""
                    if part.get("annotations"):
                        from .hosted import annotations_of

                        annotations.extend(annotations_of(part, length))
                    text.append(piece)
                    length += len(piece)
                elif part.get("type") == "refusal":
                    refusal.append(part.get("refusal") or "")
        elif kind == "function_call":
            calls.append(ToolCall.model_construct(
                id=item.get("call_id") or item.get("id") or f"call_{position}",
                type="function", function=Function.model_construct(
                    name=item.get("name") or "", arguments=item.get("arguments") or "{}")))
        elif kind == "reasoning":
            reasoning.append(_item_texts(item, "summary") or _item_texts(item, "content"))
    message = Message.model_construct(
        role="assistant", content="".join(text) if text else None,
        tool_calls=calls or None, reasoning_content="".join(reasoning) or None,
        refusal="".join(refusal) or None,
        provider_specific_fields={PSF_ITEMS: output} if output else None)
    if annotations:  # url citations (docs/hosted-tools.md)
        message.annotations = annotations
    return message, bool(calls), hosted


def _finish(status: Any, details: Any, has_calls: bool) -> str:
    reason = details.get("reason") if isinstance(details, Mapping) else None
    if status == "incomplete" and reason == "content_filter":
        return "content_filter"
    if status == "incomplete":
        return "length"
    return "tool_calls" if has_calls else "stop"


def parse_chat(data: Any, provider: str) -> ChatCompletionResponse:
    """A ``response`` JSON object -> ``ChatCompletionResponse`` (``api="responses"``)."""
    data = need_object(data, provider, "the reply")
    if data.get("error"):
        raise error_from_body(data["error"], provider, where="error object in the reply")
    output = data.get("output")
    if not isinstance(output, list):
        raise bad_shape(provider, "output", "an array", output)
    message, has_calls, hosted = _message_of(output, provider)
    finish = _finish(data.get("status"), data.get("incomplete_details"), has_calls)
    usage = usage_from_response(data.get("usage"))
    more: dict[str, Any] = {}
    if hosted is not None:  # what the hosted tools did (docs/hosted-tools.md)
        more["tool_events"] = hosted.events()
        if usage is not None:
            usage.server_tool_use = hosted.usage()
    return ChatCompletionResponse.model_construct(
        id=data.get("id") or "", created=int(data.get("created_at") or 0),
        model=data.get("model") or "", provider=provider,
        choices=[Choice.model_construct(index=0, message=message, finish_reason=finish,
                                        native_finish_reason=str(data.get("status")),
                                        intermediate_messages=[])],
        usage=usage, raw=data, **more)


class ChatChunks:
    """The SSE body of a Responses stream -> ``ChatCompletionChunk`` objects
    (``api="responses"``): text, refusal and reasoning deltas, one tool call per
    ``function_call`` item, each finished output item (``provider_specific_fields``, so the
    accumulated message holds the reply's items in order), and on ``response.completed`` the
    finish reason and the usage."""

    __slots__ = ("provider", "secrets", "done", "_decoder", "_id", "_model", "_created",
                 "_calls", "_started", "_chars", "_part_start", "_hosted", "_plain")

    def __init__(self, provider: str, secrets: Iterable[Optional[str]] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)
        self.done = False
        self._decoder = SSEDecoder(provider)
        self._plain = PlainBody(provider)
        self._id = ""
        self._model = ""
        self._created = 0
        self._calls: dict[str, int] = {}  # function_call item id -> tool-call index
        self._started = False
        self._chars = 0  # characters of text so far, and where the current text part began
        self._part_start = 0
        self._hosted: Any = None  # the hosted calls (hosted.OutputCalls), if any

    def feed(self, data: bytes) -> Iterator[ChatCompletionChunk]:
        data = self._plain.route(data)
        if not data:
            return iter(())
        return self._chunks(self._decoder.feed(data), at_end=False)

    def end(self) -> Iterator[ChatCompletionChunk]:
        if self._plain.is_json:  # a server that answered the stream request with JSON
            self.done = True
            yield from response_chunks(read_reply(
                lambda: parse_chat(self._plain.document(), self.provider), self.provider,
                200, None), whole=True)
            return
        yield from self._chunks(self._decoder.feed(self._plain.rest()), at_end=False)
        yield from self._chunks(self._decoder.end(), at_end=True)
        if not self.done:
            raise APIConnectionError(
                "the stream ended before the response was complete (no response.completed "
                "event); the connection was probably closed early", provider=self.provider)

    def _chunk(self, delta: ChoiceDelta, finish: Optional[str] = None,
               native: Optional[str] = None, usage: Any = None) -> ChatCompletionChunk:
        if not self._started:
            self._started = True
            delta.role = "assistant"
        return ChatCompletionChunk.model_construct(
            id=self._id, object="chat.completion.chunk", created=self._created,
            model=self._model, provider=self.provider,
            choices=[ChunkChoice.model_construct(index=0, delta=delta, finish_reason=finish,
                                                 native_finish_reason=native)],
            usage=usage, turn=None)

    def _chunks(self, events: Iterable[SSEEvent], at_end: bool
                ) -> Iterator[ChatCompletionChunk]:
        for _name, data in events:
            if self.done:
                return
            raw = sse_json(data, self.provider, at_end=at_end)
            try:
                chunk = self._translate(raw)
            except (AisuiteLikeError, MemoryError):
                raise
            except Exception as exc:
                raise unreadable(self.provider, exc, "a stream event") from exc
            if chunk is not None:
                yield chunk

    def _translate(self, raw: Any) -> Optional[ChatCompletionChunk]:
        if not isinstance(raw, dict):
            raise bad_shape(self.provider, "a stream event", "an object", raw)
        kind = raw.get("type")
        if kind == "error":
            raise error_from_body(raw.get("error") or raw, self.provider, self.secrets)
        if kind == "response.created":
            response = raw.get("response") or {}
            self._id = response.get("id") or ""
            self._model = response.get("model") or ""
            self._created = int(response.get("created_at") or 0)
            return self._chunk(ChoiceDelta.model_construct(content=""))
        if kind == "response.output_text.delta":
            text = raw.get("delta") or ""
            self._chars += len(text)
            return self._chunk(ChoiceDelta.model_construct(content=text))
        if kind == "response.content_part.added":
            self._part_start = self._chars
            return None
        if kind == "response.output_text.annotation.added":
            from .hosted import annotations_of

            found = annotations_of({"annotations": [raw.get("annotation")]}, self._part_start)
            if not found:
                return None
            delta = ChoiceDelta.model_construct()
            object.__setattr__(delta, "__pydantic_extra__", {"annotations": found})
            return self._chunk(delta)
        if kind == "response.refusal.delta":
            return self._chunk(ChoiceDelta.model_construct(refusal=raw.get("delta") or ""))
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._chunk(ChoiceDelta.model_construct(
                reasoning_content=raw.get("delta") or ""))
        if kind == "response.output_item.done":
            # each finished item rides on the message, in order, to go back as it is
            item = _call_item(raw.get("item"))
            if not isinstance(item, dict):
                return None
            if item.get("type") in ("web_search_call", "code_interpreter_call"):
                if self._hosted is None:
                    from .hosted import OutputCalls

                    self._hosted = OutputCalls()
                self._hosted.item(item)
            return self._chunk(ChoiceDelta.model_construct(
                provider_specific_fields={PSF_ITEMS: [item]}))
        if kind == "response.output_item.added":
            item = _call_item(raw.get("item") or {})
            if item.get("type") != "function_call":
                return None
            index = self._calls[str(item.get("id") or item.get("call_id"))] = len(self._calls)
            return self._chunk(ChoiceDelta.model_construct(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=index, id=item.get("call_id"), type="function",
                    function=ChoiceDeltaFunction.model_construct(
                        name=item.get("name"), arguments=item.get("arguments") or ""))]))
        if kind == "response.function_call_arguments.delta":
            known = self._calls.get(raw.get("item_id") or "")
            if known is None:
                return None
            return self._chunk(ChoiceDelta.model_construct(tool_calls=[
                ChoiceDeltaToolCall.model_construct(
                    index=known, function=ChoiceDeltaFunction.model_construct(
                        arguments=raw.get("delta") or ""))]))
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            self.done = True
            response = raw.get("response") or {}
            if kind == "response.failed":
                raise error_from_body(response.get("error") or {}, self.provider,
                                      self.secrets, where="response.failed")
            finish = _finish(response.get("status"), response.get("incomplete_details"),
                             bool(self._calls))
            usage = usage_from_response(response.get("usage"))
            chunk = self._chunk(ChoiceDelta.model_construct(), finish,
                                str(response.get("status")), usage)
            if self._hosted is not None:  # the hosted calls, on the last chunk
                if usage is not None:
                    usage.server_tool_use = self._hosted.usage()
                object.__setattr__(chunk, "__pydantic_extra__",
                                   {"tool_events": self._hosted.events()})
            return chunk
        return None
