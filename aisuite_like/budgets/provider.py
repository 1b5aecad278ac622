"""``BudgetProvider``: the budgets' wrapper in a call's provider stack (docs/budgets.md).

It is the ``budgets`` layer of each model's provider stack (``client/prepare.py``: inside
the response cache, so a hit never reaches it; once per fallback model, at its price; once
per router deployment), so every model call is admitted before anything is sent: plain
calls, each model call of a tool run or agent run, streams, the native Responses API,
embeddings. Each
method prices the call (``Admission``, sans-IO), performs the admission on the budgets'
states (``perform`` / ``aperform``), calls the wrapped provider, and settles: the real cost
from the reply's usage, a stream's from its final usage, nothing for a
call that failed or was cancelled before the provider answered.

A settlement that cannot reach a shared state is logged, never raised: the reply has
arrived and is the caller's. An aisuite provider object's reply as given (``as_given``) is
admitted too, and settled from its usage when it has the OpenAI shape (its worst case
otherwise, and for its streams).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Optional, cast

from ..core.cost import attach_price_ref, cost_of, price_tokens, price_usage
from ..core.errors import BudgetStateError, UnsupportedFeatureError
from ..providers.base import ChatRequest, EmbeddingRequest, Provider, ResponsesRequest
from ..providers.wrapper import WrapperProvider
from .admission import Admission, Step, aperform, perform
from .budget import Budget, Quote, embeddings_worst_case, output_bound, worst_case

if TYPE_CHECKING:
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.responses import Response, ResponseEvent
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse

__all__ = ["BudgetProvider", "StreamMeter"]

_log = logging.getLogger("aisuite_like.budgets")


def _settle_quietly(steps: Step) -> None:
    try:
        perform(steps)
    except BudgetStateError as exc:
        _log.warning("a budget's settlement failed (%s); its reservation expires with its "
                     "lease", exc)


async def _asettle_quietly(steps: Step) -> None:
    try:
        await aperform(steps)
    except BudgetStateError as exc:
        _log.warning("a budget's settlement failed (%s); its reservation expires with its "
                     "lease", exc)


def _chunk_text(chunk: Any) -> int:
    """The characters of generated text and tool-call arguments a chunk carries."""
    chars = 0
    for choice in getattr(chunk, "choices", None) or ():
        delta = choice.delta
        chars += len(delta.content or "") + len(getattr(delta, "reasoning_content", None)
                                                 or "")
        for call in delta.tool_calls or ():
            fn = call.function
            if fn is not None:
                chars += len(fn.name or "") + len(fn.arguments or "")
    return chars


class StreamMeter:
    """What a stream has shown so far, and what it costs when it ends (sans-IO): the
    provider's final usage when it sent one; else the estimate of its input plus what it
    generated (text / 4), priced; nothing when it ended before its first chunk."""

    __slots__ = ("admission", "key", "model", "usage", "chunks", "chars")

    def __init__(self, admission: Admission, key: str, model: str) -> None:
        self.admission = admission
        self.key = key
        self.model = model
        self.usage: Any = None
        self.chunks = 0
        self.chars = 0

    def add(self, chunk: Any) -> None:
        self.chunks += 1
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = usage
        else:
            self.chars += _chunk_text(chunk)

    def add_event(self, event: Any) -> None:
        """A native Responses stream event: the final response carries the usage."""
        self.chunks += 1
        response = getattr(event, "response", None)
        usage = getattr(response, "usage", None)
        if usage is not None and getattr(event, "type", "") in (
                "response.completed", "response.incomplete", "response.failed"):
            self.usage = usage

    def settle(self) -> Step:
        if not self.chunks:
            return self.admission.release()
        if self.usage is not None:
            usage = self.usage
            if hasattr(usage, "chat_usage"):  # a Responses usage
                usage = usage.chat_usage()
            return self.admission.settle(price_usage(usage, self.key, self.model))
        quote = self.admission.quote
        cost = price_tokens(self.key, (self.model,), {
            "input_tokens": quote.input_tokens, "output_tokens": -(-self.chars // 4)})
        return self.admission.settle(cost)


def _responses_quote(key: str, request: ResponsesRequest) -> Quote:
    """A native Responses call's worst case: its input, instructions and tools (JSON / 4)
    and ``max_output_tokens``."""
    params = request.params
    text = {k: params.get(k) for k in ("input", "instructions", "tools")}
    try:
        chars = len(json.dumps(text, separators=(",", ":"), default=str))
    except (TypeError, ValueError):
        chars = len(str(text))
    input_tokens, output_tokens = -(-chars // 4), output_bound(params.get("max_output_tokens"))
    cost = price_tokens(key, (request.model,), {"input_tokens": input_tokens,
                                                "output_tokens": output_tokens})
    return Quote(cost, input_tokens, output_tokens)


class BudgetProvider(WrapperProvider):
    """``wrapped`` (the provider of ``key``) whose every call ``budgets`` must admit."""

    def __init__(self, wrapped: Provider, budgets: Sequence[Budget], key: str) -> None:
        super().__init__(wrapped)
        self._budgets = tuple(budgets)
        self._key = key
        self.key = wrapped.key or key
        if wrapped.as_given is not None:  # an aisuite provider: its reply as given, admitted
            self._given = wrapped.as_given
            self.as_given = self._as_given
        if wrapped.aas_given is not None:
            self._agiven = wrapped.aas_given
            self.aas_given = self._aas_given

    def __repr__(self) -> str:
        return f"BudgetProvider({self.wrapped!r}, {[b.name for b in self._budgets]})"

    @property
    def budgets(self) -> tuple[Budget, ...]:
        return self._budgets

    # -- pricing (pure)

    def _admission(self, request: ChatRequest, counted: Optional[int] = None) -> Admission:
        quote = worst_case(self._key, (request.model,), request.messages, request.tools,
                           request.max_tokens, request.n, counted=counted)
        return Admission(self._budgets, quote, f"{self._key}:{request.model}")

    # With count_tokens=True the input is the provider's count (through the layers below: the
    # checks layer keeps it for its own context-window check); a family without a counting
    # API is estimated as without it.

    def _count(self, request: ChatRequest) -> Optional[int]:
        if not request.count_tokens:
            return None
        try:
            count = self.wrapped.count_tokens(request)
        except UnsupportedFeatureError:
            return None
        return count.input_tokens if count.exact else None

    async def _acount(self, request: ChatRequest) -> Optional[int]:
        if not request.count_tokens:
            return None
        try:
            count = await self.wrapped.acount_tokens(request)
        except UnsupportedFeatureError:
            return None
        return count.input_tokens if count.exact else None

    def _cost(self, response: Any, model: str) -> Optional[float]:
        """What a reply cost: priced for the provider and model that answered (a fallback's
        own), else the model asked for; 0 for a cache hit."""
        usage = getattr(response, "usage", None)
        if usage is None:
            return None
        if hasattr(usage, "chat_usage"):  # a Responses usage
            chat = usage.chat_usage()
            answered = getattr(response, "model", "") or model
            cost = price_usage(chat, self._key, answered)
            return cost if cost is not None or answered == model else \
                price_usage(chat, self._key, model)
        attach_price_ref(response, model)  # (what the client does next anyway)
        return cost_of(usage)

    @staticmethod
    def _with_usage(request: ChatRequest) -> ChatRequest:
        """A stream asks for its usage (OpenAI sends it only on request) so it settles from
        it; a caller's own ``stream_options`` is kept."""
        if request.stream_options is None:
            return request.replace(stream_options={"include_usage": True})
        return request

    # -- chat

    def _admitted(self, admission: Admission, send: Callable[[Any], Any], request: Any,
                  cost: Callable[[Any], Optional[float]]) -> Any:
        """``send(request)`` admitted by ``admission`` and settled at ``cost(reply)``; a call
        that raises (or is interrupted) releases what it reserved."""
        perform(admission.admit())
        try:
            reply = send(request)
        except BaseException:
            _settle_quietly(admission.release())
            raise
        _settle_quietly(admission.settle(cost(reply)))
        return reply

    async def _aadmitted(self, admission: Admission,
                         send: Callable[[Any], Awaitable[Any]], request: Any,
                         cost: Callable[[Any], Optional[float]]) -> Any:
        """Async ``_admitted`` (a cancelled call releases what it reserved)."""
        await aperform(admission.admit())
        try:
            reply = await send(request)
        except BaseException:
            await _asettle_quietly(admission.release())
            raise
        await _asettle_quietly(admission.settle(cost(reply)))
        return reply

    def _reply_cost(self, model: str) -> Callable[[Any], Optional[float]]:
        return lambda reply: self._cost(reply, model)

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return cast("ChatCompletionResponse", self._admitted(
            self._admission(request, self._count(request)), self.wrapped.complete, request,
            self._reply_cost(request.model)))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return cast("ChatCompletionResponse", await self._aadmitted(
            self._admission(request, await self._acount(request)), self.wrapped.acomplete,
            request,
            self._reply_cost(request.model)))

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        return self._metered(self._with_usage(request), None)

    def _metered(self, request: Any, native: Optional[ResponsesRequest]) -> Iterator[Any]:
        """A stream admitted on its first ``next()`` (so a stream never started holds no
        reservation) and settled when it ends, fails or is closed."""
        counted = self._count(request) if native is None else None
        admission, meter, add = self._stream_admission(request, native, counted)
        perform(admission.admit())
        chunks: Any = None
        try:
            chunks = (self.wrapped.stream_response(native) if native is not None
                      else self.wrapped.stream(request))
            for chunk in chunks:
                add(chunk)
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
            _settle_quietly(meter.settle())

    def _stream_admission(self, request: Any, native: Optional[ResponsesRequest],
                          counted: Optional[int] = None
                          ) -> tuple[Admission, StreamMeter, Any]:
        if native is not None:
            admission = self._responses_admission(native)
            meter = StreamMeter(admission, self._key, native.model)
            return admission, meter, meter.add_event
        admission = self._admission(request, counted)
        meter = StreamMeter(admission, self._key, request.model)
        return admission, meter, meter.add

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        return self._ametered(self._with_usage(request), None)

    async def _ametered(self, request: Any, native: Optional[ResponsesRequest]
                        ) -> AsyncIterator[Any]:
        counted = await self._acount(request) if native is None else None
        admission, meter, add = self._stream_admission(request, native, counted)
        await aperform(admission.admit())
        chunks: Any = None
        try:
            chunks = (self.wrapped.astream_response(native) if native is not None
                      else self.wrapped.astream(request))
            async for chunk in chunks:
                add(chunk)
                yield chunk
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()
            await _asettle_quietly(meter.settle())

    # -- the native Responses API

    def _responses_admission(self, request: ResponsesRequest) -> Admission:
        return Admission(self._budgets, _responses_quote(self._key, request),
                         f"{self._key}:{request.model}")

    def create_response(self, request: ResponsesRequest) -> Response:
        return cast("Response", self._admitted(
            self._responses_admission(request), self.wrapped.create_response, request,
            self._reply_cost(request.model)))

    async def acreate_response(self, request: ResponsesRequest) -> Response:
        return cast("Response", await self._aadmitted(
            self._responses_admission(request), self.wrapped.acreate_response, request,
            self._reply_cost(request.model)))

    def stream_response(self, request: ResponsesRequest) -> Iterator[ResponseEvent]:
        return self._metered(None, request)

    def astream_response(self, request: ResponsesRequest) -> AsyncIterator[ResponseEvent]:
        return self._ametered(None, request)

    # -- embeddings

    def _embedding_admission(self, request: EmbeddingRequest) -> Admission:
        quote = embeddings_worst_case(self._key, request.model, request.input, request.tokens)
        return Admission(self._budgets, quote, f"{self._key}:{request.model}")

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        return self.wrapped.embedding_limit(request)

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return cast("CreateEmbeddingResponse", self._admitted(
            self._embedding_admission(request), self.wrapped.embed, request,
            self._embedding_cost))

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return cast("CreateEmbeddingResponse", await self._aadmitted(
            self._embedding_admission(request), self.wrapped.aembed, request,
            self._embedding_cost))

    @staticmethod
    def _embedding_cost(response: Any) -> Optional[float]:
        usage = getattr(response, "usage", None)
        cost = getattr(usage, "cost", None) if usage is not None else None
        return float(cost) if isinstance(cost, (int, float)) else None

    # -- an aisuite provider's reply as given (docs/migration.md)

    def _given_cost(self, request: ChatRequest, reply: Any) -> Optional[float]:
        """What an aisuite reply cost, from its usage when it has the OpenAI shape (a stream
        is charged its worst case: its chunks are the provider's own)."""
        usage = None if request.stream else getattr(reply, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None)
        completion = getattr(usage, "completion_tokens", None)
        if not isinstance(prompt, int) or not isinstance(completion, int):
            return None
        return price_tokens(self._key, (request.model,), {"input_tokens": prompt,
                                                          "output_tokens": completion})

    def _as_given(self, request: ChatRequest) -> Any:
        return self._admitted(self._admission(request), self._given, request,
                              lambda reply: self._given_cost(request, reply))

    async def _aas_given(self, request: ChatRequest) -> Any:
        return await self._aadmitted(self._admission(request), self._agiven, request,
                                     lambda reply: self._given_cost(request, reply))
