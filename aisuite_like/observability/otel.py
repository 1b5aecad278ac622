"""OpenTelemetry spans and metrics after the GenAI semantic conventions (docs/observability.md).

Imported only by ``instrument()``: nothing here runs, and opentelemetry is not imported, until
then. It never drives anything: it wraps providers and watches the tool loop's drivers through
their hooks (docs/architecture.md), so it is the same for every family and every run:

- ``chat {model}`` (CLIENT) per model call: ``_TracedProvider`` wraps the provider a call uses
  (the client's preparation), so plain calls, streams, runner turns and agent turns all pass
  through it. A streamed call's span ends with its stream: exhausted, closed early, or failed.
- ``embeddings {model}`` (CLIENT) per embeddings request (each part of a split input is
  one): ``gen_ai.operation.name="embeddings"``, the request model, encoding format and
  dimensions, the response model and input tokens.
- ``invoke_agent`` (INTERNAL) around a ``max_turns`` run and ``invoke_agent {name}`` around an
  agent run: ``run_hooks`` gives the driver ``RunHooks`` that start the span with the run, keep
  it current while the driver works, and end it with the run. After a handoff the receiving
  agent's calls go under a child ``invoke_agent {receiver}`` span of the run's span.
- ``execute_tool {name}`` (INTERNAL) per tool call, from the same hooks: current while the tool
  runs (a model call made inside a tool nests under it); a call that does not run gets one of
  no duration saying why.
- ``transcription {model}`` (CLIENT) per ``client.audio.transcriptions`` call (docs/audio.md),
  with the token usage when the provider reports tokens.
- metrics ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration``.
- ``aisuite_like.cache_hit`` on a ``chat`` span and its duration when the response cache was
  consulted (docs/cache.md): true when it answered (nothing was sent; no token usage is
  recorded for it), false when it missed.

Content (messages, tool arguments and results) is recorded only with ``capture_content``, as
the span attributes ``gen_ai.input.messages`` / ``gen_ai.output.messages`` /
``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result``. Keys are never recorded:
``server.address`` is the host name of the endpoint, nothing else of its URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, Optional, Union

from opentelemetry import context as otel_context, metrics, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ..core.types import cache_outcome
from ..loop.hooks import RunHooks
from ..providers.wrapper import WrapperProvider, unwrapped
from .otel_attributes import (
    agent_labels,
    chat_of,
    chat_view,
    endpoint_of,
    error_type_of,
    finish_of,
    input_messages,
    json_text,
    mark_error,
    not_run_reason,
    output_messages,
    provider_name,
    request_settings,
)

if TYPE_CHECKING:
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.responses import Response, ResponseEvent
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse
    from ..loop.engine import ToolBatch, ToolCallRun, ToolLoop
    from ..providers.base import (
        ChatRequest,
        EmbeddingRequest,
        Provider,
        ResponsesRequest,
        TranscriptionRequest,
    )

__all__ = ["Instrumentation", "CAPTURE_ENV"]

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0"

# Bucket boundaries the semantic conventions recommend for the two histograms.
_TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                  16777216, 67108864]
_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24,
                     20.48, 40.96, 81.92]


class Instrumentation:
    """The state of ``instrument()``: tracer, instruments and settings."""

    def __init__(self, tracer_provider: Optional[trace.TracerProvider],
                 meter_provider: Optional[metrics.MeterProvider], capture_content: bool) -> None:
        from ..core.version import VERSION as __version__

        self.tracer = trace.get_tracer("aisuite_like", __version__,
                                       tracer_provider=tracer_provider, schema_url=_SCHEMA_URL)
        meter = metrics.get_meter("aisuite_like", __version__, meter_provider=meter_provider,
                                  schema_url=_SCHEMA_URL)
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}",
            description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS)
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s",
            description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS)
        self.capture_content = capture_content or \
            os.environ.get(CAPTURE_ENV, "").strip().lower() == "true"
        self._endpoints: "weakref.WeakKeyDictionary[Any, tuple[Optional[str], Optional[int]]]" \
            = weakref.WeakKeyDictionary()

    # -- model calls -----------------------------------------------------------------------

    def traced(self, provider: "Provider") -> "_TracedProvider":
        """``provider`` with a ``chat`` span around each of its calls."""
        if isinstance(provider, _TracedProvider):
            return provider
        return _TracedProvider(provider, self)

    def _shared(self, operation: str, provider: "Provider", model: str) -> dict[str, Any]:
        """What a call's span and its metrics share: the operation, the model asked for, and
        the provider's family and endpoint, told from the provider at the bottom of its
        stack (the one that sends)."""
        target = unwrapped(provider)
        key = provider.key or type(target).__name__
        base: dict[str, Any] = {"gen_ai.operation.name": operation,
                                "gen_ai.provider.name": provider_name(target, key),
                                "gen_ai.request.model": model}
        host, port = self._endpoint(target, key)
        if host:
            base["server.address"] = host
            if port:
                base["server.port"] = port
        return base

    def _start_chat(self, provider: "Provider", request: "ChatRequest") -> "_ChatCall":
        base = self._shared("chat", provider, request.model)
        attributes: dict[str, Any] = dict(base)
        request_settings(request, attributes)
        if self.capture_content:
            attributes["gen_ai.input.messages"] = json_text(input_messages(request.messages))
            if request.tools:
                attributes["gen_ai.tool.definitions"] = json_text(request.tools)
        span = self.tracer.start_span(f"chat {request.model}", kind=SpanKind.CLIENT,
                                      attributes=attributes)
        return _ChatCall(span, base, time.perf_counter())

    def _finish_chat(self, call: "_ChatCall", response_id: str, model: str,
                     finish_reasons: list[str], usage: Any,
                     response: Optional["ChatCompletionResponse"],
                     cache_hit: Optional[bool] = None) -> None:
        span = call.span
        metric = call.metric_attributes
        attributes: dict[str, Any] = {}  # set at once: each set_attribute takes a lock
        if cache_hit is not None:  # the response cache was consulted
            attributes["aisuite_like.cache_hit"] = metric["aisuite_like.cache_hit"] = cache_hit
        if response_id:
            attributes["gen_ai.response.id"] = response_id
        if model:
            attributes["gen_ai.response.model"] = model
            metric["gen_ai.response.model"] = model
        if finish_reasons:
            attributes["gen_ai.response.finish_reasons"] = finish_reasons
        if usage is not None:
            attributes["gen_ai.usage.input_tokens"] = usage.prompt_tokens
            attributes["gen_ai.usage.output_tokens"] = usage.completion_tokens
            details = usage.prompt_tokens_details
            if details is not None and details.cached_tokens is not None:
                attributes["gen_ai.usage.cache_read.input_tokens"] = details.cached_tokens
            if details is not None and details.cache_creation_tokens is not None:
                attributes["gen_ai.usage.cache_creation.input_tokens"] = \
                    details.cache_creation_tokens
            if not cache_hit:  # a hit used no tokens
                self.token_usage.record(usage.prompt_tokens,
                                        {**metric, "gen_ai.token.type": "input"})
                self.token_usage.record(usage.completion_tokens,
                                        {**metric, "gen_ai.token.type": "output"})
        if self.capture_content and response is not None:
            attributes["gen_ai.output.messages"] = json_text(output_messages(response))
        span.set_attributes(attributes)
        self.duration.record(time.perf_counter() - call.start, metric)
        span.end()

    def _fail_chat(self, call: "_ChatCall", exc: BaseException) -> None:
        error_type = error_type_of(exc)
        mark_error(call.span, error_type, exc)
        self.duration.record(time.perf_counter() - call.start,
                             {**call.metric_attributes, "error.type": error_type})
        call.span.end()

    def _finish_response(self, call: "_ChatCall", response: "ChatCompletionResponse") -> None:
        self._finish_chat(call, response.id, response.model,
                          [c.finish_reason for c in response.choices if c.finish_reason],
                          response.usage, response, cache_outcome(response))

    def complete(self, provider: "Provider", request: "ChatRequest") -> "ChatCompletionResponse":
        call = self._start_chat(provider, request)
        with _Attempt(self, call):
            response = provider.complete(request)
        self._finish_response(call, response)
        return response

    async def acomplete(self, provider: "Provider",
                        request: "ChatRequest") -> "ChatCompletionResponse":
        call = self._start_chat(provider, request)
        with _Attempt(self, call):
            response = await provider.acomplete(request)
        self._finish_response(call, response)
        return response

    def stream(self, provider: "Provider",
               request: "ChatRequest") -> Iterator["ChatCompletionChunk"]:
        return self._watched(lambda: self._start_chat(provider, request),
                             _StreamState(self.capture_content),
                             lambda: provider.stream(request))

    def astream(self, provider: "Provider",
                request: "ChatRequest") -> AsyncIterator["ChatCompletionChunk"]:
        return self._awatched(lambda: self._start_chat(provider, request),
                              _StreamState(self.capture_content),
                              lambda: provider.astream(request))

    def _watched(self, start: Callable[[], "_ChatCall"], state: "_Watcher",
                 open_stream: Callable[[], Iterator[Any]]) -> Iterator[Any]:
        """A stream inside its span (started with the first item asked for): each item is
        shown to ``state``; the span ends with the stream, exhausted, closed early (not an
        error) or failed."""
        call = start()
        items: Any = None
        try:
            items = open_stream()
            for item in items:
                state.add(item)
                yield item
        except GeneratorExit:  # the consumer stopped early: not an error
            state.finish(self, call)
            raise
        except BaseException as exc:
            self._fail_chat(call, exc)
            raise
        else:
            state.finish(self, call)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    async def _awatched(self, start: Callable[[], "_ChatCall"], state: "_Watcher",
                        open_stream: Callable[[], AsyncIterator[Any]]) -> AsyncIterator[Any]:
        """Async twin of ``_watched``."""
        call = start()
        items: Any = None
        try:
            items = open_stream()
            async for item in items:
                state.add(item)
                yield item
        except GeneratorExit:
            state.finish(self, call)
            raise
        except BaseException as exc:
            self._fail_chat(call, exc)
            raise
        else:
            state.finish(self, call)
        finally:
            aclose = getattr(items, "aclose", None)
            if aclose is not None:
                await aclose()

    # -- audio transcription -----------------------------------------------------------------

    def _start_transcription(self, provider: "Provider",
                             request: "TranscriptionRequest") -> "_ChatCall":
        base = self._shared("transcription", provider, request.model)
        span = self.tracer.start_span(f"transcription {request.model}", kind=SpanKind.CLIENT,
                                      attributes=base)
        return _ChatCall(span, base, time.perf_counter())

    def _finish_transcription(self, call: "_ChatCall", result: Any) -> None:
        usage = getattr(result, "usage", None)
        if isinstance(usage, dict) and usage.get("type") == "tokens":
            tokens = {k: usage.get(f"{k}_tokens") for k in ("input", "output")}
            for kind, count in tokens.items():
                if isinstance(count, int):
                    call.span.set_attribute(f"gen_ai.usage.{kind}_tokens", count)
                    self.token_usage.record(count, {**call.metric_attributes,
                                                    "gen_ai.token.type": kind})
        self.duration.record(time.perf_counter() - call.start, call.metric_attributes)
        call.span.end()

    def transcribe(self, provider: "Provider", request: "TranscriptionRequest") -> Any:
        """A ``transcription {model}`` span around a (non-streamed) transcription; a stream's
        span ends when the request is sent (its events are not followed)."""
        call = self._start_transcription(provider, request)
        with _Attempt(self, call):
            result = provider.transcribe(request)
        self._finish_transcription(call, result)
        return result

    async def atranscribe(self, provider: "Provider", request: "TranscriptionRequest") -> Any:
        call = self._start_transcription(provider, request)
        with _Attempt(self, call):
            result = await provider.atranscribe(request)
        self._finish_transcription(call, result)
        return result
    # -- native Responses API calls: a ``chat {model}`` span too (the GenAI semantic
    # conventions have no operation of their own for it; docs/observability.md)

    def _start_response(self, provider: "Provider", request: "ResponsesRequest") -> "_ChatCall":
        return self._start_chat(provider, chat_view(request, self.capture_content))

    def _finish_native(self, call: "_ChatCall", response: Optional["Response"]) -> None:
        if response is None:
            self._finish_chat(call, "", "", [], None, None)
            return
        self._finish_chat(call, response.id, response.model, [finish_of(response)],
                          response.usage.chat_usage() if response.usage is not None else None,
                          chat_of(response) if self.capture_content else None)

    def create_response(self, provider: "Provider", request: "ResponsesRequest") -> "Response":
        call = self._start_response(provider, request)
        with _Attempt(self, call):
            response = provider.create_response(request)
        self._finish_native(call, response)
        return response

    async def acreate_response(self, provider: "Provider", request: "ResponsesRequest"
                               ) -> "Response":
        call = self._start_response(provider, request)
        with _Attempt(self, call):
            response = await provider.acreate_response(request)
        self._finish_native(call, response)
        return response

    def stream_response(self, provider: "Provider",
                        request: "ResponsesRequest") -> Iterator["ResponseEvent"]:
        return self._watched(lambda: self._start_response(provider, request),
                             _ResponseStreamState(), lambda: provider.stream_response(request))

    def astream_response(self, provider: "Provider",
                         request: "ResponsesRequest") -> AsyncIterator["ResponseEvent"]:
        return self._awatched(lambda: self._start_response(provider, request),
                              _ResponseStreamState(),
                              lambda: provider.astream_response(request))

    # -- ai.trace(name): a span of the caller's own

    @contextlib.contextmanager
    def workflow_span(self, name: str, attributes: dict[str, Any]) -> Iterator[Span]:
        """The span of ``ai.trace(name)``: INTERNAL, current inside the block; an exception
        leaving the block marks it as an error."""
        with self.tracer.start_as_current_span(name, kind=SpanKind.INTERNAL,
                                               attributes=attributes,
                                               record_exception=False,
                                               set_status_on_exception=False) as span:
            try:
                yield span
            except BaseException as exc:
                mark_error(span, error_type_of(exc), exc)
                raise

    # -- embeddings ------------------------------------------------------------------------

    def _start_embeddings(self, provider: "Provider", request: "EmbeddingRequest") -> "_ChatCall":
        base = self._shared("embeddings", provider, request.model)
        attributes: dict[str, Any] = {
            **base, "gen_ai.request.encoding_formats": [request.encoding_format]}
        if request.dimensions is not None:
            attributes["gen_ai.embeddings.dimension.count"] = request.dimensions
        span = self.tracer.start_span(f"embeddings {request.model}", kind=SpanKind.CLIENT,
                                      attributes=attributes)
        return _ChatCall(span, base, time.perf_counter())

    def _finish_embeddings(self, call: "_ChatCall", response: "CreateEmbeddingResponse") -> None:
        metric = call.metric_attributes
        attributes: dict[str, Any] = {}
        if response.model:
            attributes["gen_ai.response.model"] = metric["gen_ai.response.model"] = \
                response.model
        tokens = response.usage.prompt_tokens
        if tokens:  # 0: the provider reported no count
            attributes["gen_ai.usage.input_tokens"] = tokens
            self.token_usage.record(tokens, {**metric, "gen_ai.token.type": "input"})
        call.span.set_attributes(attributes)
        self.duration.record(time.perf_counter() - call.start, metric)
        call.span.end()

    def embed(self, provider: "Provider",
              request: "EmbeddingRequest") -> "CreateEmbeddingResponse":
        call = self._start_embeddings(provider, request)
        with _Attempt(self, call):
            response = provider.embed(request)
        self._finish_embeddings(call, response)
        return response

    async def aembed(self, provider: "Provider",
                     request: "EmbeddingRequest") -> "CreateEmbeddingResponse":
        call = self._start_embeddings(provider, request)
        with _Attempt(self, call):
            response = await provider.aembed(request)
        self._finish_embeddings(call, response)
        return response

    def _endpoint(self, provider: Any, key: str) -> tuple[Optional[str], Optional[int]]:
        try:
            return self._endpoints[provider]
        except (KeyError, TypeError):
            pass
        found = endpoint_of(provider, key)
        try:
            self._endpoints[provider] = found
        except TypeError:  # not weak-referenceable: computed each time
            pass
        return found

    # -- tools -----------------------------------------------------------------------------

    def _start_tool(self, call: "ToolCallRun") -> Span:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.call_id, "gen_ai.tool.type": "function"}
        tool = call.tool
        description = getattr(tool, "description", None)
        if isinstance(description, str) and description:
            attributes["gen_ai.tool.description"] = description
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = json_text(call.arguments)
        return self.tracer.start_span(f"execute_tool {call.name}", kind=SpanKind.INTERNAL,
                                      attributes=attributes)

    def _end_tool(self, span: Span, call: "ToolCallRun") -> None:
        if self.capture_content:
            span.set_attribute("gen_ai.tool.call.result", call.result)
        if call.is_error:
            exc = call.exception
            error_type = error_type_of(exc) if exc is not None else "timeout"
            span.set_attribute("error.type", error_type)
            span.set_status(Status(StatusCode.ERROR, call.result if self.capture_content
                                   else error_type))
        span.end()

    def tools_not_run(self, batch: Any) -> None:
        """A span for each call of ``batch`` that will not execute (unknown tool, arguments
        that are not JSON or fail validation, a policy denial, a call the run cancelled),
        ended at once with ``error.type`` saying why."""
        for call in batch.calls:
            if not call.done:
                continue
            span = self._start_tool(call)
            if self.capture_content:
                span.set_attribute("gen_ai.tool.call.result", call.result)
            error_type = not_run_reason(call)
            span.set_attribute("error.type", error_type)
            span.set_status(Status(StatusCode.ERROR, call.result if self.capture_content
                                   else error_type))
            span.end()

    @contextlib.contextmanager
    def tool_span(self, call: "ToolCallRun") -> Iterator[None]:
        """An ``execute_tool`` span, current while the body executes ``call``, ended with
        the call's outcome."""
        span = self._start_tool(call)
        try:
            with trace.use_span(span, end_on_exit=False, record_exception=False,
                                set_status_on_exception=False):
                yield
        finally:
            self._end_tool(span, call)

    # -- runs (tool-runner and agent runs) -----------------------------------------------

    def _start_run(self, name: str, provider: Any, model: str, key: str,
                   agent_name: Optional[str] = None, agent: Any = None) -> Span:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent",
                                      "gen_ai.provider.name": provider_name(provider, key),
                                      "gen_ai.request.model": model}
        if agent_name is not None:
            attributes["gen_ai.agent.name"] = agent_name
        agent_labels(agent, attributes)
        return self.tracer.start_span(name, kind=SpanKind.INTERNAL, attributes=attributes)

    def _end_run(self, span: Span, engine: "ToolLoop", exc: Optional[BaseException]) -> None:
        usage_in = usage_out = 0
        seen = False
        for response in engine.responses:
            if response.usage is not None:
                seen = True
                usage_in += response.usage.prompt_tokens
                usage_out += response.usage.completion_tokens
        if seen:
            span.set_attribute("gen_ai.usage.input_tokens", usage_in)
            span.set_attribute("gen_ai.usage.output_tokens", usage_out)
        if engine.responses:
            last = engine.responses[-1]
            if last.model:
                span.set_attribute("gen_ai.response.model", last.model)
        if exc is not None and not isinstance(exc, asyncio.CancelledError):
            mark_error(span, error_type_of(exc), exc)
        span.end()

    def run_hooks(self, engine: "ToolLoop", provider: Any) -> RunHooks:
        """The hooks through which a driver's run becomes spans (the driver asks for them at
        the run's start): ``invoke_agent {agent}`` for an agent run, following its handoffs,
        else ``invoke_agent``."""
        # An agent run's engine is an AgentLoop; if agents were never imported, it is not one.
        turn = sys.modules.get("aisuite_like.agents.turn")
        if turn is not None and isinstance(engine, turn.AgentLoop):
            return _AgentRunSpans(self, provider)
        return _RunSpans(self, provider)


class _Attempt:
    """A provider call inside its span: the span current while the provider works (so a
    span the provider's own code opens nests under it), a failure recorded on it after."""

    __slots__ = ("inst", "call", "scope")

    def __init__(self, inst: Instrumentation, call: "_ChatCall") -> None:
        self.inst = inst
        self.call = call
        self.scope: Any = None

    def __enter__(self) -> None:
        self.scope = trace.use_span(self.call.span, end_on_exit=False, record_exception=False,
                                    set_status_on_exception=False)
        self.scope.__enter__()

    def __exit__(self, kind: Any, exc: Optional[BaseException], tb: Any) -> None:
        self.scope.__exit__(kind, exc, tb)
        if exc is not None:
            self.inst._fail_chat(self.call, exc)


class _ChatCall:
    __slots__ = ("span", "metric_attributes", "start")

    def __init__(self, span: Span, metric_attributes: dict[str, Any], start: float) -> None:
        self.span = span
        self.metric_attributes = metric_attributes
        self.start = start


class _TracedProvider(WrapperProvider):
    """A provider whose calls are spans; everything else is the wrapped provider's."""

    def __init__(self, inner: "Provider", inst: Instrumentation) -> None:
        super().__init__(inner)
        self._inst = inst

    def __repr__(self) -> str:
        return repr(self.wrapped)

    def complete(self, request: "ChatRequest") -> "ChatCompletionResponse":
        return self._inst.complete(self.wrapped, request)

    async def acomplete(self, request: "ChatRequest") -> "ChatCompletionResponse":
        return await self._inst.acomplete(self.wrapped, request)

    def stream(self, request: "ChatRequest") -> Iterator["ChatCompletionChunk"]:
        return self._inst.stream(self.wrapped, request)

    def astream(self, request: "ChatRequest") -> AsyncIterator["ChatCompletionChunk"]:
        return self._inst.astream(self.wrapped, request)

    def transcribe(self, request: "TranscriptionRequest") -> Any:
        return self._inst.transcribe(self.wrapped, request)

    async def atranscribe(self, request: "TranscriptionRequest") -> Any:
        return await self._inst.atranscribe(self.wrapped, request)

    def create_response(self, request: "ResponsesRequest") -> "Response":
        return self._inst.create_response(self.wrapped, request)

    async def acreate_response(self, request: "ResponsesRequest") -> "Response":
        return await self._inst.acreate_response(self.wrapped, request)

    def stream_response(self, request: "ResponsesRequest") -> Iterator["ResponseEvent"]:
        return self._inst.stream_response(self.wrapped, request)

    def astream_response(self, request: "ResponsesRequest") -> AsyncIterator["ResponseEvent"]:
        return self._inst.astream_response(self.wrapped, request)

    def embed(self, request: "EmbeddingRequest") -> "CreateEmbeddingResponse":
        return self._inst.embed(self.wrapped, request)

    async def aembed(self, request: "EmbeddingRequest") -> "CreateEmbeddingResponse":
        return await self._inst.aembed(self.wrapped, request)


class _StreamState:
    """What a stream's span needs from its chunks (a few comparisons per chunk; the whole
    reply is accumulated only when content is captured)."""

    __slots__ = ("id", "model", "usage", "finish_reasons", "acc", "cache_hit")

    def __init__(self, capture: bool) -> None:
        self.id = ""
        self.model = ""
        self.usage: Any = None
        self.finish_reasons: dict[int, str] = {}
        self.acc: Any = None
        self.cache_hit: Optional[bool] = None
        if capture:
            from ..core.streaming import ChunkAccumulator

            self.acc = ChunkAccumulator()

    def add(self, chunk: "ChatCompletionChunk") -> None:
        if not self.id:
            self.id = chunk.id
            self.cache_hit = cache_outcome(chunk)
        if not self.model:
            self.model = chunk.model
        if chunk.usage is not None:
            self.usage = chunk.usage
        for choice in chunk.choices:
            if choice.finish_reason is not None:
                self.finish_reasons[choice.index] = choice.finish_reason
        if self.acc is not None:
            self.acc.add(chunk)

    def finish(self, inst: Instrumentation, call: _ChatCall) -> None:
        response = self.acc.build() if self.acc is not None else None
        inst._finish_chat(call, self.id, self.model,
                          [r for _, r in sorted(self.finish_reasons.items())], self.usage,
                          response, self.cache_hit)


class _ResponseStreamState:
    """What a native Responses stream's span needs: the last ``Response`` its events carried
    (``response.completed`` has the whole one)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: Any = None

    def add(self, event: "ResponseEvent") -> None:
        response = getattr(event, "response", None)
        if response is not None:
            self.last = response

    def finish(self, inst: Instrumentation, call: _ChatCall) -> None:
        inst._finish_native(call, self.last)


_Watcher = Union[_StreamState, _ResponseStreamState]


class _Current:
    """A span made current by ``with``, again at each stretch of a driver's work (entered and
    left many times, never nested); ``switch`` makes another span current, also while
    entered."""

    __slots__ = ("_context", "_token")

    def __init__(self, span: Span) -> None:
        self._context = trace.set_span_in_context(span)
        self._token: Any = None

    def __enter__(self) -> None:
        self._token = otel_context.attach(self._context)

    def __exit__(self, *exc: Any) -> None:
        if self._token is not None:
            otel_context.detach(self._token)
            self._token = None

    def switch(self, span: Span) -> None:
        self._context = trace.set_span_in_context(span)
        if self._token is not None:
            otel_context.detach(self._token)
            self._token = otel_context.attach(self._context)


class _RunSpans(RunHooks):
    """A tool run as spans, watched through the driver's hooks: ``invoke_agent`` from the
    run's start to its end, current while the driver works (so its model calls are its
    children) but not while the consumer of a streamed run holds a chunk; an
    ``execute_tool`` span per call, current while the tool runs, and one of no duration for
    each call that does not run."""

    def __init__(self, inst: Instrumentation, provider: Any) -> None:
        self.inst = inst
        self.provider = provider
        self.span: Optional[Span] = None
        self.current: Optional[_Current] = None

    def _start(self, engine: Any) -> Span:
        key = getattr(self.provider, "key", "") or type(self.provider).__name__
        return self.inst._start_run("invoke_agent", self.provider, engine.request.model, key)

    def on_run_start(self, engine: Any) -> None:
        self.span = self._start(engine)
        self.current = _Current(self.span)

    def run_context(self, engine: Any) -> Optional[_Current]:
        return self.current

    def on_tools_decided(self, engine: Any, batch: "ToolBatch") -> None:
        self.inst.tools_not_run(batch)

    def tool_context(self, engine: Any, call: "ToolCallRun") -> Any:
        return self.inst.tool_span(call)

    def on_run_end(self, engine: Any, error: Optional[BaseException]) -> None:
        if self.span is not None:
            span, self.span = self.span, None
            self.inst._end_run(span, engine, error)


class _AgentRunSpans(_RunSpans):
    """An agent run: the run's span is the starting agent's; before each model call, a
    handoff to another agent ends the previous receiver's span (if any) and starts a child
    ``invoke_agent {receiver}`` of the run's span (siblings, so a long chain of handoffs stays
    flat), current from then on."""

    def __init__(self, inst: Instrumentation, provider: Any) -> None:
        super().__init__(inst, provider)
        self.agent: Any = None
        self.child: Optional[Span] = None

    def _start(self, engine: Any) -> Span:
        self.agent = agent = engine.agent
        key, _, model = str(agent.model).partition(":")
        return self.inst._start_run(f"invoke_agent {agent.name}", self.provider, model, key,
                                    agent.name, agent)

    def on_model_request(self, engine: Any, action: Any) -> None:
        agent = engine.agent
        if agent is self.agent or self.span is None or self.current is None:
            return
        self._end_child(None)
        self.agent = agent
        key, _, model = str(agent.model).partition(":")
        attributes = {"gen_ai.operation.name": "invoke_agent",
                      "gen_ai.provider.name": provider_name(None, key),
                      "gen_ai.request.model": model, "gen_ai.agent.name": agent.name}
        agent_labels(agent, attributes)
        self.child = self.inst.tracer.start_span(
            f"invoke_agent {agent.name}", kind=SpanKind.INTERNAL,
            context=trace.set_span_in_context(self.span), attributes=attributes)
        self.current.switch(self.child)

    def on_run_end(self, engine: Any, error: Optional[BaseException]) -> None:
        self._end_child(error)
        super().on_run_end(engine, error)

    def _end_child(self, error: Optional[BaseException]) -> None:
        if self.child is None:
            return
        child, self.child = self.child, None
        if error is not None and not isinstance(error, asyncio.CancelledError):
            mark_error(child, error_type_of(error), error)
        child.end()
