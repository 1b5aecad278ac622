"""Offline providers for your own tests and for examples: no network, no API key.

    import aisuite_like as ai
    from aisuite_like.testing import ScriptedProvider, tool_call

    provider = ScriptedProvider([tool_call("get_weather", {"city": "Paris"}), "It is sunny."])
    client = ai.Client(providers={"scripted": provider})
    resp = client.chat.completions.create(model="scripted:any", messages=[...],
                                          tools=[get_weather], max_turns=3)
    provider.assert_all_used()

- ``ScriptedProvider(replies)``: replies used in order; ``.requests`` records every request.
- ``FunctionProvider(fn)``: ``fn(messages, tools, **kwargs)`` computes each reply.
- ``TestProvider``: the deterministic model behind ``model="test:<anything>"`` (chat, and
  embeddings: a unit vector per input seeded by a hash of the model and the input).
- ``block_real_requests()``: inside it, any call to a non-offline provider raises
  ``RealRequestBlockedError`` before anything is sent.

A *reply* is a ``str`` (a text answer), ``tool_call(...)`` or a list of them (a tool-call
turn), an exception instance (raised as if the provider had failed, e.g.
``ai.RateLimitError("slow down", status_code=429)``), an assistant ``ai.Message``, or a full
``ai.ChatCompletionResponse`` (returned as a copy). Every offline provider streams too: the
reply is cut into OpenAI-shaped chunks, tool-call deltas included, usage on the last chunk.

Usage is counted from text length, about four characters a token:
``tokens(text) = ceil(len(text) / 4)``; ``prompt_tokens`` is that over the text of every
request message (content, tool-call names and arguments), ``completion_tokens`` over the
reply's text, tool-call names and arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import hashlib
import inspect
import itertools
import json
import math
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Literal, Optional, Union

from ..core.content import text_of
from ..core.embeddings import CreateEmbeddingResponse, EmbeddingUsage, embedding
from ..core.errors import AisuiteLikeError, ConfigurationError, UnsupportedParameterError
from ..core.exchange import CAPTURE, Headers, note
from ..core.guard import RealRequestBlockedError
from ..core.streaming import response_chunks
from ..core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Choice,
    CompletionTokensDetails,
    Function,
    Message,
    Model,
    PromptTokensDetails,
    ToolCall,
    Usage,
)
from ..providers.base import ChatRequest, EmbeddingRequest, Provider, TranscriptionRequest

__all__ = [
    "FakeClock",
    "ScriptedProvider",
    "FunctionProvider",
    "TestProvider",
    "tool_call",
    "block_real_requests",
    "ScriptExhaustedError",
    "RealRequestBlockedError",
    "Reply",
]

Reply = Union[str, ToolCall, Sequence[ToolCall], BaseException, Message, ChatCompletionResponse]


class ScriptExhaustedError(AisuiteLikeError, AssertionError):
    """A ``ScriptedProvider`` got more requests than it has replies (a test failure)."""


# --- replies -----------------------------------------------------------------------------

# Marks a ToolCall built by tool_call() without an id: the provider numbers it per reply.
_AUTO_ID_PREFIX = "\x00auto"


def tool_call(name: str, arguments: Union[dict[str, Any], str, None] = None,
              id: Optional[str] = None) -> ToolCall:
    """A scripted tool call. ``arguments`` is a dict (sent as JSON) or a raw string (sent as
    is, e.g. to test malformed JSON). Without ``id``, the provider assigns
    ``call_<reply number>_<index>`` (e.g. ``call_1_0``), unique per provider."""
    if not isinstance(name, str) or not name:
        raise ValueError("tool_call(name, ...) needs the tool's name as a non-empty string")
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        text = arguments
    elif isinstance(arguments, dict):
        text = json.dumps(arguments)
    else:
        raise TypeError(f"tool_call arguments must be a dict or a JSON string, got "
                        f"{type(arguments).__name__}")
    return ToolCall(id=id if id is not None else _AUTO_ID_PREFIX,
                    function=Function(name=name, arguments=text))


def _check_reply(reply: Any, where: str) -> None:
    """Reject what is not a reply at once, naming the accepted forms."""
    if isinstance(reply, (str, ToolCall, BaseException, Message, ChatCompletionResponse)):
        if isinstance(reply, Message) and reply.role != "assistant":
            raise TypeError(f"{where}: a Message reply must have role 'assistant', got "
                            f"{reply.role!r}")
        return
    if isinstance(reply, (list, tuple)):
        if not reply:
            raise TypeError(f"{where}: an empty list is not a reply; give one or more "
                            "tool_call(...) or a str")
        if all(isinstance(item, ToolCall) for item in reply):
            return
    if isinstance(reply, type) and issubclass(reply, BaseException):
        raise TypeError(f"{where}: pass an exception instance, e.g. {reply.__name__}('...'), "
                        "not the class")
    raise TypeError(
        f"{where}: {type(reply).__name__} is not a reply. A reply is a str, "
        "testing.tool_call(name, arguments) or a list of them, an exception instance, an "
        "assistant ai.Message, or an ai.ChatCompletionResponse")


def _tokens(chars: int) -> int:
    return -(-chars // 4)  # ceil(chars / 4)


def _message_chars(message: dict[str, Any]) -> int:
    n = len(text_of(message.get("content")))
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {}) if isinstance(call, dict) else call.function
        if isinstance(fn, dict):
            n += len(fn.get("name", "")) + len(fn.get("arguments", "") or "")
        else:
            n += len(fn.name) + len(fn.arguments)
    return n


def _usage(request: ChatRequest, message: Message) -> Usage:
    prompt = _tokens(sum(_message_chars(m) for m in request.messages))
    completion = _tokens(len(text_of(message.content)) + sum(
        len(c.function.name) + len(c.function.arguments) for c in message.tool_calls or ()))
    return Usage(prompt_tokens=prompt, completion_tokens=completion,
                 total_tokens=prompt + completion)


class _ReplyBuilder:
    """Turns replies into responses; numbers responses and auto tool-call ids per provider."""

    def __init__(self, provider: str, id_prefix: str) -> None:
        self._provider = provider
        self._id_prefix = id_prefix
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def build(self, reply: Any, request: ChatRequest, provider_key: str,
              number: Optional[int] = None) -> ChatCompletionResponse:
        """``number``: the reply's number (ids ``<prefix>-<number>``, ``call_<number>_<i>``);
        None counts the replies this builder saw, a raised one included."""
        if number is None:
            with self._lock:
                number = next(self._counter)
        if isinstance(reply, BaseException):
            raise reply
        provider = provider_key or self._provider
        if isinstance(reply, ChatCompletionResponse):
            return reply.model_copy(deep=True)  # the script stays reusable and untouched
        if isinstance(reply, str):
            message = Message(role="assistant", content=reply)
        elif isinstance(reply, Message):
            message = reply.model_copy(deep=True)
        else:
            calls = [reply] if isinstance(reply, ToolCall) else list(reply)
            message = Message(role="assistant", content=None, tool_calls=[
                ToolCall(id=f"call_{number}_{i}" if c.id == _AUTO_ID_PREFIX else c.id,
                         function=Function(name=c.function.name,
                                           arguments=c.function.arguments))
                for i, c in enumerate(calls)])
        finish: Literal["tool_calls", "stop"] = "tool_calls" if message.tool_calls else "stop"
        return ChatCompletionResponse(
            id=f"{self._id_prefix}-{number}", created=int(time.time()), model=request.model,
            provider=provider,
            choices=[Choice(index=0, message=message, finish_reason=finish,
                            native_finish_reason=finish)],
            usage=_usage(request, message))


# --- streaming -----------------------------------------------------------------------------

def _chunks(response: ChatCompletionResponse) -> Iterator[ChatCompletionChunk]:
    """A response as OpenAI-shaped chunks: role first, text word by word, each tool call as a
    header fragment (id, name) then its arguments in two pieces, and a last chunk carrying
    ``finish_reason`` and ``usage`` (``core.streaming.response_chunks``)."""
    return response_chunks(response)


# --- the offline providers -------------------------------------------------------------------


class _OfflineProvider(Provider):
    """Shared transport of the offline providers: ``_respond`` (sync) / ``_arespond`` (async)
    give a response; complete/stream are built from it. A sync stream takes its reply when
    the call is made, so a scripted error surfaces at ``create()`` as an HTTP error would; an
    async stream takes it on first iteration (it may need to await ``fn``)."""

    offline = True

    def _respond(self, request: ChatRequest) -> ChatCompletionResponse:
        raise NotImplementedError

    async def _arespond(self, request: ChatRequest) -> ChatCompletionResponse:
        return self._respond(request)

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return _noted(self._respond(request))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return _noted(await self._arespond(request))

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        return _chunks(_noted(self._respond(request)))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        # Not ``async def``: the client calls astream() without awaiting and iterates it; the
        # reply is fetched on first iteration, inside the event loop.
        async def gen() -> AsyncIterator[ChatCompletionChunk]:
            response = _noted(await self._arespond(request))
            for chunk in _chunks(response):
                yield chunk
        return gen()


def _noted(response: ChatCompletionResponse) -> ChatCompletionResponse:
    """An offline reply as ``with_raw_response`` sees it (docs/testing.md): status 200, an
    ``x-request-id`` header that is the response's id, no URL."""
    if CAPTURE.get() is not None:
        note(200, Headers({"content-type": "application/json", "x-request-id": response.id}),
             request_id=response.id)
    return response


def _describe(reply: Any) -> str:
    if isinstance(reply, ToolCall):
        return f"tool_call({reply.function.name!r}, {reply.function.arguments})"
    if isinstance(reply, (list, tuple)):
        return "[" + ", ".join(_describe(r) for r in reply) + "]"
    if isinstance(reply, ChatCompletionResponse):
        return f"ChatCompletionResponse(content={reply.content!r})"
    text = repr(reply)
    return text if len(text) <= 80 else text[:77] + "..."


def _last_user_text(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if message.get("role") == "user":
            return text_of(message.get("content"))
    return ""


class ScriptedProvider(_OfflineProvider):
    """Answers each request with the next reply of a script.

    ``requests`` records every ``ChatRequest`` received (its message list copied, so the
    record shows exactly what was sent at that turn). Running out of replies raises
    ``ScriptExhaustedError``; ``assert_all_used()`` fails if some replies were never used.
    Thread- and task-safe: concurrent calls take distinct replies, in call order.
    """

    def __init__(self, replies: Sequence[Reply]) -> None:
        if isinstance(replies, (str, bytes)) or not isinstance(replies, Sequence):
            raise TypeError("ScriptedProvider expects a list of replies, e.g. "
                            "ScriptedProvider(['Hello!'])")
        for i, reply in enumerate(replies):
            _check_reply(reply, f"ScriptedProvider reply #{i + 1}")
        self.replies: list[Reply] = list(replies)
        self.requests: list[ChatRequest] = []
        self._next = 0
        self._lock = threading.Lock()
        self._builder = _ReplyBuilder("scripted", "scripted")

    @property
    def remaining(self) -> list[Reply]:
        """The replies not used yet."""
        return self.replies[self._next:]

    def _take(self, request: ChatRequest) -> tuple[Any, int]:
        """The next reply and its number (from 1)."""
        recorded = request.replace(messages=[dict(m) for m in request.messages],
                                   tools=list(request.tools) if request.tools else request.tools,
                                   extra=dict(request.extra))
        with self._lock:
            self.requests.append(recorded)
            index = self._next
            if index >= len(self.replies):
                raise ScriptExhaustedError(
                    f"ScriptedProvider ran out of replies: it has {len(self.replies)} and got "
                    f"request #{len(self.requests)} (model {request.model!r}, last user message "
                    f"{_last_user_text(request)[:60]!r}). Add a reply to the script, or check "
                    "why your code calls the model more often than you expect.")
            self._next += 1
        return self.replies[index], index + 1

    def _respond(self, request: ChatRequest) -> ChatCompletionResponse:
        reply, number = self._take(request)
        return self._builder.build(reply, request, self.key, number)

    def assert_all_used(self) -> None:
        """Fail (``AssertionError``) if some replies were never used."""
        left = self.remaining
        if left:
            listing = "; ".join(f"#{self._next + i + 1}: {_describe(r)}"
                                for i, r in enumerate(left))
            raise AssertionError(
                f"{len(left)} of {len(self.replies)} scripted replies were never used "
                f"({listing}). The code under test made {len(self.requests)} model call(s).")

    def __repr__(self) -> str:
        return (f"ScriptedProvider(replies={len(self.replies)}, used={self._next}, "
                f"requests={len(self.requests)})")


# ChatRequest fields a FunctionProvider's fn receives as keyword arguments when given
# (computed once; the rest are its positional arguments or handled separately).
_FN_KWARGS = tuple(f.name for f in dataclasses.fields(ChatRequest)
                   if f.name not in ("model", "messages", "tools", "stream", "extra",
                                     "max_tokens_as", "prompt_cache",
                                     # the client's own (docs/models.md), never a call's
                                     "count_tokens", "checks"))


def _call_kwargs(request: ChatRequest) -> dict[str, Any]:
    """What a FunctionProvider's fn receives besides messages and tools: the model name, the
    portable arguments that were given, and the provider-native ones."""
    kwargs: dict[str, Any] = {"model": request.model, "stream": request.stream}
    for name in _FN_KWARGS:
        value = getattr(request, name)
        if value is not None:
            kwargs[name] = value
    kwargs.update(request.extra)
    return kwargs


def _run_coroutine(awaitable: Any) -> Any:
    """Run an awaitable from sync code, also when an event loop is already running here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    result: list[Any] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(_await(awaitable)))
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


async def _await(awaitable: Any) -> Any:
    return await awaitable


class FunctionProvider(_OfflineProvider):
    """Computes each reply with ``fn(messages, tools, **kwargs)``.

    ``messages`` is a copy of the request's message dicts, ``tools`` the OpenAI tool schemas
    offered (``[]`` when none), ``kwargs`` the model name (``model``), ``stream``, and every
    other argument given to ``create`` (``tool_choice``, ``temperature``, provider-native ones,
    ...). ``fn`` returns a reply (see the module doc) and may be ``async``.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError("FunctionProvider expects a callable fn(messages, tools, **kwargs)")
        self.fn = fn
        self._builder = _ReplyBuilder("function", "function")

    def _call(self, request: ChatRequest) -> Any:
        return self.fn(copy.deepcopy(request.messages), list(request.tools or ()),
                       **_call_kwargs(request))

    def _finish(self, reply: Any, request: ChatRequest) -> ChatCompletionResponse:
        _check_reply(reply, f"FunctionProvider fn {getattr(self.fn, '__name__', 'fn')!r} "
                            "returned a value that")
        return self._builder.build(reply, request, self.key)

    def _respond(self, request: ChatRequest) -> ChatCompletionResponse:
        reply = self._call(request)
        if inspect.isawaitable(reply):
            reply = _run_coroutine(reply)
        return self._finish(reply, request)

    async def _arespond(self, request: ChatRequest) -> ChatCompletionResponse:
        reply = self._call(request)
        if inspect.isawaitable(reply):
            reply = await reply
        return self._finish(reply, request)

    def __repr__(self) -> str:
        return f"FunctionProvider({getattr(self.fn, '__qualname__', self.fn)!r})"


# --- the deterministic test model -------------------------------------------------------------


class TestProvider(_OfflineProvider):
    """The deterministic model behind ``model="test:<anything>"`` (no network, no key).

    - Tools offered and not all called since the last user message (``tool_choice`` auto or
      unset): calls each tool not yet called, once, with arguments generated valid against
      its JSON schema (one call per turn when ``parallel_tool_calls=False``).
      ``tool_choice="required"`` calls every tool on every turn; a named ``tool_choice``
      calls that tool; ``"none"`` never calls tools.
    - Otherwise answers with text: after tool results, ``"Tool results: name: result; ..."``
      quoting each result since the last user message; without, ``'You said: "<last user
      message>"'``. With a ``json_schema`` ``response_format`` the answer is JSON valid
      against the schema; with ``json_object`` it is ``{"answer": <that text>}``.
    - ``max_tokens`` cuts the text at ``4 * max_tokens`` characters (``finish_reason
      "length"``); ``stop`` cuts it before the first stop sequence.
    - ``reasoning_effort`` other than ``"none"``: the message carries ``reasoning_content``
      (``'Thought about "<last user message>" with <effort> effort.'``), counted in
      ``usage.completion_tokens_details.reasoning_tokens``.
    - ``prompt_cache="auto"``: usage reports the messages before the last assistant message
      (what the previous call of the conversation sent) as cache reads
      (``prompt_tokens_details.cached_tokens``) and the rest as cache writes
      (``cache_creation_tokens``), as a provider with cache breakpoints would.
    - Embeddings (``client.embeddings.create(model="test:...", ...)``): per input a unit
      vector of ``dimensions`` floats (8 when not given) seeded by SHA-256 of the model name
      and the input, so the same text always gets the same vector; any argument is accepted.
    """

    __test__ = False  # not a pytest test class, despite its name

    #: The models ``list_models()`` reports (any model name works in ``"test:<name>"``).
    MODELS = ("offline",)

    def __init__(self, **config: Any) -> None:
        # The client-wide options (``client.with_options(timeout=...)``) reach every provider;
        # the test model sends nothing, so they change nothing here.
        from ..client.base import CLIENT_OPTIONS

        unknown = sorted(set(config) - CLIENT_OPTIONS)
        if unknown:
            raise ConfigurationError(
                f"the test provider takes no settings (got {', '.join(unknown)}); only the "
                f"client-wide options ({', '.join(sorted(CLIENT_OPTIONS))}) are accepted, and "
                "ignored")
        self._builder = _ReplyBuilder("test", "test")

    def list_models(self) -> list[Model]:
        """The test model's list: ``offline`` (``created`` 0, ``owned_by`` "aisuite-like")."""
        return [Model(id=name, owned_by="aisuite-like", provider=self.key or "test")
                for name in self.MODELS]

    def _respond(self, request: ChatRequest) -> ChatCompletionResponse:
        if request.n is not None and request.n != 1:
            raise UnsupportedParameterError(
                "the test provider returns one choice; remove n or set n=1", parameter="n",
                provider="test")
        calls = _test_tool_calls(request)
        if calls:
            return _thought_and_cached(self._builder.build(calls, request, self.key), request)
        text = _test_answer(request)
        limit = request.max_tokens
        if limit is not None and len(text) > 4 * limit:
            response = self._builder.build(text[:4 * limit], request, self.key)
            response.choices[0].finish_reason = "length"
            response.choices[0].native_finish_reason = "length"
            return _thought_and_cached(response, request)
        return _thought_and_cached(self._builder.build(text, request, self.key), request)

    # Embeddings: any arguments; a hash-seeded unit vector per input of ``dimensions`` floats
    # (8 without); usage counted as for chat (token arrays: their length).

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        return None

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return _test_embeddings(request, self.key or "test")

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return _test_embeddings(request, self.key or "test")

    # -- transcription (docs/audio.md): deterministic, from the file alone --

    #: OpenAI's parameters and every audio format, up to 25 MB.
    audio_params = "openai"

    @property
    def audio_input(self) -> Any:
        from ..core.audio import CONTENT_TYPES, MB, AudioInput

        return AudioInput(frozenset(CONTENT_TYPES), 25 * MB)

    def transcribe(self, request: TranscriptionRequest) -> Any:
        """``'Transcription of <name>: <seconds> seconds of <format> audio.'`` (the seconds
        from a WAV header, else the bytes at 16 kHz 16-bit mono); ``language`` as given
        (default ``english``); one segment over the whole audio; the words spread evenly
        over it. Streams one delta per word."""
        from ..core.audio import in_format

        full = _test_transcription(request)
        if request.stream:
            if request.response_format not in ("json", "text"):
                raise UnsupportedParameterError(
                    "stream=True streams text: response_format must be 'json' or 'text'",
                    parameter="response_format", provider="test")
            return _transcript_events(full)
        return in_format(full, request.response_format, "test")

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        result = self.transcribe(request)
        if not request.stream:
            return result

        async def events() -> AsyncIterator[Any]:
            for event in result:
                yield event
        return events()


def _thought_and_cached(response: ChatCompletionResponse,
                        request: ChatRequest) -> ChatCompletionResponse:
    """The test model's reasoning (``reasoning_effort``) and prompt-cache usage
    (``prompt_cache="auto"``), deterministic (see ``TestProvider``)."""
    effort = request.reasoning_effort
    usage = response.usage
    assert usage is not None
    if effort is not None and effort != "none":
        thought = f'Thought about "{_last_user_text(request)}" with {effort} effort.'
        response.choices[0].message.reasoning_content = thought
        reasoning = _tokens(len(thought))
        usage.completion_tokens += reasoning
        usage.total_tokens += reasoning
        usage.completion_tokens_details = CompletionTokensDetails(reasoning_tokens=reasoning)
    if request.prompt_cache == "auto":
        last_assistant = max((i for i, m in enumerate(request.messages)
                              if m.get("role") == "assistant"), default=0)
        cached = min(usage.prompt_tokens, _tokens(sum(
            _message_chars(m) for m in request.messages[:last_assistant])))
        usage.prompt_tokens_details = PromptTokensDetails(
            cached_tokens=cached, cache_creation_tokens=usage.prompt_tokens - cached)
    return response


#: The size of the test model's vectors when ``dimensions`` is not given.
TEST_EMBEDDING_DIMENSIONS = 8


def _test_vector(model: str, item: Any, dimensions: int) -> list[float]:
    """A unit vector of ``dimensions`` floats, seeded by SHA-256 of the model and the input
    (the same on every machine and Python)."""
    seed = hashlib.sha256(f"{model}\x00{json.dumps(item)}".encode()).digest()
    values: list[float] = []
    for block in itertools.count():
        digest = hashlib.sha256(seed + block.to_bytes(4, "big")).digest()
        values.extend(int.from_bytes(digest[i:i + 4], "big") / 2**31 - 1.0
                      for i in range(0, 32, 4))
        if len(values) >= dimensions:
            break
    values = values[:dimensions]
    norm = math.sqrt(math.fsum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _test_embeddings(request: EmbeddingRequest, provider: str) -> CreateEmbeddingResponse:
    dimensions = request.dimensions or TEST_EMBEDDING_DIMENSIONS
    data = [embedding(i, _test_vector(request.model, item, dimensions))
            for i, item in enumerate(request.input)]
    tokens = sum(len(item) if request.tokens else _tokens(len(item)) for item in request.input)
    return CreateEmbeddingResponse.model_construct(
        data=data, model=request.model, provider=provider,
        usage=EmbeddingUsage.model_construct(prompt_tokens=tokens, total_tokens=tokens))


def _test_transcription(request: TranscriptionRequest) -> Any:
    from ..core.audio import (
        Transcription,
        TranscriptionSegment,
        TranscriptionWord,
        wav_duration,
    )

    file = request.file
    duration = wav_duration(file.data) or round(len(file.data) / 32000, 3)
    text = f"Transcription of {file.name}: {duration:.2f} seconds of {file.format} audio."
    words = text.split()
    step = duration / len(words)
    language = request.params.get("language")
    return Transcription(
        text=text, language=language if isinstance(language, str) else "english",
        duration=duration,
        segments=[TranscriptionSegment(start=0.0, end=duration, text=text)],
        words=[TranscriptionWord(word=w.strip(".:"), start=round(i * step, 3),
                                 end=round((i + 1) * step, 3)) for i, w in enumerate(words)]
        if "word" in (request.params.get("timestamp_granularities") or ()) else None,
        usage={"type": "duration", "seconds": duration}, provider="test",
        model=request.model)


def _transcript_events(full: Any) -> Iterator[Any]:
    from ..core.audio import TranscriptionTextDeltaEvent, TranscriptionTextDoneEvent

    words = full.text.split(" ")
    for i, word in enumerate(words):
        yield TranscriptionTextDeltaEvent(delta=word if i == 0 else " " + word)
    yield TranscriptionTextDoneEvent(text=full.text, usage=full.usage)


def _since_last_user(request: ChatRequest) -> list[dict[str, Any]]:
    messages = request.messages
    start = 0
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            start = i + 1
            break
    return messages[start:]


def _called_since_last_user(request: ChatRequest) -> set[str]:
    names: set[str] = set()
    for message in _since_last_user(request):
        for call in message.get("tool_calls") or ():
            fn = call.get("function", {}) if isinstance(call, dict) else call.function
            names.add(fn.get("name", "") if isinstance(fn, dict) else fn.name)
    return names


def _test_tool_calls(request: ChatRequest) -> list[ToolCall]:
    from ..core.schema_values import example_for_schema

    tools = [t["function"] for t in request.tools or () if t.get("type") == "function"]
    choice = request.tool_choice
    if not tools or choice == "none":
        return []
    if isinstance(choice, dict):
        wanted = (choice.get("function") or {}).get("name") or choice.get("name")
        chosen = [t for t in tools if t.get("name") == wanted]
        if not chosen:
            raise UnsupportedParameterError(
                f"tool_choice names {wanted!r}, which is not among the tools offered "
                f"({', '.join(t.get('name', '?') for t in tools)})", parameter="tool_choice",
                provider="test")
    elif choice == "required":
        chosen = tools
    else:
        called = _called_since_last_user(request)
        chosen = [t for t in tools if t.get("name") not in called]
    if request.parallel_tool_calls is False:
        chosen = chosen[:1]
    return [tool_call(t["name"], example_for_schema(t.get("parameters") or {"type": "object"}))
            for t in chosen]


def _tool_results(request: ChatRequest) -> list[tuple[str, str]]:
    names: dict[str, str] = {}
    results: list[tuple[str, str]] = []
    for message in _since_last_user(request):
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                names[call.get("id", "")] = call.get("function", {}).get("name", "")
            else:
                names[call.id] = call.function.name
        if message.get("role") == "tool":
            name = message.get("name") or names.get(message.get("tool_call_id", ""), "tool")
            results.append((name, text_of(message.get("content"))))
    return results


def _test_answer(request: ChatRequest) -> str:
    results = _tool_results(request)
    if results:
        text = "Tool results: " + "; ".join(f"{name}: {result}" for name, result in results)
    else:
        text = f'You said: "{_last_user_text(request)}"'
    if request.stop:
        stops = [request.stop] if isinstance(request.stop, str) else list(request.stop)
        cut = min((text.find(s) for s in stops if s and s in text), default=-1)
        if cut >= 0:
            text = text[:cut]
    fmt = request.response_format
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        from ..core.schema_values import example_for_schema

        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return json.dumps(example_for_schema(schema))
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        return json.dumps({"answer": text})
    if isinstance(fmt, type) and hasattr(fmt, "model_json_schema"):
        from ..core.schema_values import example_for_schema

        return json.dumps(example_for_schema(fmt.model_json_schema()))
    return text


# --- the offline guard ----------------------------------------------------------------------

_GUARD_LOCK = threading.Lock()


@contextlib.contextmanager
def block_real_requests() -> Iterator[None]:
    """While active (in any thread), calling a provider that is not offline raises
    ``RealRequestBlockedError`` before anything is sent. Nestable.

        with ai.testing.block_real_requests():
            run_my_code()   # any real provider call fails loudly
    """
    from ..core.guard import BLOCK_REAL_REQUESTS

    with _GUARD_LOCK:
        BLOCK_REAL_REQUESTS[0] += 1
    try:
        yield
    finally:
        with _GUARD_LOCK:
            BLOCK_REAL_REQUESTS[0] -= 1


class FakeClock:
    """A retry clock for tests: records each wait instead of sleeping, so retry behaviour is
    checked fast. Install it per provider:
    ``Client(provider_configs={"openai": {"retry_clock": clock}})``; then ``clock.waits`` lists
    the waits in order and ``clock.now`` their sum. ``jitter`` is the random number the
    backoff uses (0 = no jitter: waits of exactly 0.5, 1, 2, ... s)."""

    def __init__(self, jitter: float = 0.0) -> None:
        self.waits: list[float] = []
        self.now = 0.0
        self._jitter = jitter
        self._lock = threading.Lock()

    def _record(self, seconds: float) -> None:
        with self._lock:
            self.waits.append(seconds)
            self.now += seconds

    def sleep(self, seconds: float) -> None:
        self._record(seconds)

    async def asleep(self, seconds: float) -> None:
        self._record(seconds)
        await asyncio.sleep(0)  # still a suspension point, as a real sleep

    def random(self) -> float:
        return self._jitter
