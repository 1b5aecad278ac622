"""``RoutingProvider``: an alias of a ``Router`` as a provider (docs/router.md).

The client's preparation of a call (``client/prepare.py: prepare_call``) turns a model that
names an alias into this provider, so every entry point (``create`` and its variants, the tool
runner, agents, durable runs) routes each model call without knowing it. Each call:

1. asks the state for a deployment (``limits.pick``: free now, chosen by the strategy; its
   buckets debited), or how long until one is free: the call waits (``max_retry_wait`` in
   all) or raises ``RateLimitError`` naming every deployment and why it is not free;
2. sends the request to that deployment's provider (in the model layers of the client's
   provider stack, ``client/prepare.py``: traced when instrumented, so the ``chat`` span
   names the deployment), the transports recording the reply (its headers) in
   an ``ExchangeCapture`` (``core.exchange``, the record ``with_raw_response`` reads, handed
   on to the caller's own when there is one) and, when another deployment could take the
   call now, the retry layer
   handing a 429, a 5xx, a connection error or a timeout straight back (``HAND_UP``) instead
   of retrying the same deployment;
3. on success, tells the state what the reply's rate-limit headers said (and the latency and
   tokens used, when the strategy or a ``tpm`` needs them); on one of those errors, cools the
   deployment down (``Retry-After``, else the exhausted limit's reset, else ``cooldown``) and
   goes back to 1 with the same request. A stream moves only before its first chunk.

The decisions are in ``_Call`` (sans-IO); the four drivers (``complete``, ``acomplete``,
``stream``, ``astream``) only perform them, each attempt inside the one envelope
``_Attempt`` (the reply's record and the hand-up set around it, the deployment released and
cooled down after it).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, Protocol, Union, cast

from ..core.cost import attach_price_ref
from ..core.errors import (
    AisuiteLikeError,
    APIError,
    BudgetExceededError,
    ModelCapabilityError,
    PromptTooLongError,
    RateLimitError,
    UnpricedModelError,
    UnsupportedFeatureError,
)
from ..core.exchange import CAPTURE, ExchangeCapture
from ..providers.base import ChatRequest, EmbeddingRequest, Provider
from ..providers.fallback import FALLBACK_ERRORS, skipped_model
from ..providers.retry import HAND_UP
from .limits import Limits, Pick, Record, describe, pick, read_limits, settle

if TYPE_CHECKING:
    from ..core.embeddings import CreateEmbeddingResponse
    from ..core.types import ChatCompletionChunk, ChatCompletionResponse, SkippedModel, TokenCount
    from .deployments import Deployment
    from .state import RouterState

__all__ = ["RoutingProvider", "Route", "RouterSettings"]

#: Made by the client: a deployment's provider from its model, settings and label (and the
#: budgets that admit its calls, when there are any), in its provider stack.
Resolve = Callable[..., Provider]
_RATE_LIMITS: tuple[type[BaseException], ...] = (RateLimitError,)
_EPSILON = 1e-6  # added to waits: a bucket is full again *at* that time, not a hair before


class RouterSettings(Protocol):
    """What a routing provider reads of its router (``api.Router``)."""

    strategy: str
    cooldown: float
    max_retry_wait: float
    measures_latency: bool
    state: RouterState
    clock: Any

    def now(self) -> float: ...


class Route:
    """One alias at run time, shared by every client of its router: its deployments, their
    keys in the state, their limits, and the calls in flight to each from this process."""

    __slots__ = ("alias", "deployments", "keys", "caps", "busy", "lock", "uses_tokens",
                 "draws", "alone", "none_excluded")

    def __init__(self, alias: str, deployments: Sequence[Deployment]) -> None:
        self.alias = alias
        self.deployments = tuple(deployments)
        self.keys = tuple(f"{alias}/{d.name}" for d in self.deployments)
        self.caps = tuple(d.caps for d in self.deployments)
        self.busy = [0] * len(self.deployments)
        self.lock = threading.Lock()
        self.uses_tokens = any(c.tpm is not None for c in self.caps)
        self.none_excluded = (False,) * len(self.deployments)  # a call's start (_Call)
        #: whether a pick can need a random number (a choice between deployments)
        self.draws = len(self.deployments) > 1
        #: one deployment with no limits of its own: free unless cooling down or held by its
        #: reply headers, and a pick takes nothing from its buckets (``_Call.picker``)
        self.alone = len(self.caps) == 1 and self.caps[0].rpm is None and \
            self.caps[0].tpm is None


def _estimate(request: Union[ChatRequest, EmbeddingRequest]) -> float:
    """About how many tokens a request uses (its text / 4, plus ``max_tokens``; an embeddings
    request's inputs: text / 4, or its token arrays' lengths), for a token bucket; corrected
    by the reply's usage."""
    if isinstance(request, EmbeddingRequest):
        size = sum(len(item) for item in request.input)
        return float(size) if request.tokens else size / 4
    chars = 0
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif content is not None:
            chars += len(str(content))
    if request.tools:
        chars += len(str(request.tools))
    return chars / 4 + (request.max_tokens or 0)


def _usage_tokens(usage: Any) -> Optional[float]:
    total = getattr(usage, "total_tokens", None)
    return float(total) if isinstance(total, (int, float)) and not isinstance(total, bool) \
        else None


def _headers_of(error: BaseException) -> Any:
    response = getattr(error, "response", None)
    return getattr(response, "headers", None)


def _hand_on(capture: ExchangeCapture) -> Any:
    """After an attempt (the caller's capture back in place): hand what the attempt recorded
    to the caller's own capture (a ``with_raw_response`` call over an alias), and return the
    headers of its reply (None: no successful reply)."""
    outer = CAPTURE.get()
    exchange = capture.exchange
    if outer is not None:
        outer.retries += capture.retries
        if exchange is not None:
            outer.exchange = exchange
    return exchange.headers if exchange is not None else None


class _Call:
    """The routing decisions of one call (sans-IO): which deployment, how long to wait, what
    to tell the state after each attempt, and the error when nothing is left."""

    __slots__ = ("provider", "route", "router", "request", "tokens", "excluded", "skipped",
                 "waited", "pending", "last_error", "hand_up", "counts_busy")

    def __init__(self, provider: RoutingProvider,
                 request: Union[ChatRequest, EmbeddingRequest],
                 counted: Optional[float] = None) -> None:
        self.provider = provider
        self.route = route = provider.route
        self.router = provider.router
        self.request = request
        self.tokens = (counted if counted is not None else _estimate(request)) \
            if route.uses_tokens else 0.0
        self.excluded: Sequence[bool] = route.none_excluded  # a list of its own once one is
        self.skipped: list[SkippedModel] = []
        self.waited = 0.0
        self.pending = 0.0
        self.last_error: Optional[AisuiteLikeError] = None
        self.hand_up = _RATE_LIMITS
        # the calls in flight are counted only for the strategy that reads them
        self.counts_busy = self.router.strategy == "least-busy"

    # -- 1. a deployment, or a wait --

    def picker(self, records: list[Record]) -> tuple[Sequence[int], Any]:
        """The transaction that picks (run by the state on the alias's records)."""
        route = self.route
        now = self.router.now()
        if route.alone and not self.excluded[0]:
            record = records[0]
            if record.cool <= now and not record.requests.hold and not record.tokens.hold:
                return (), (_ALONE, None)  # what pick() gives then, without its walk
        chosen = pick(self.router.strategy, route.caps, records, route.busy, self.excluded,
                      self.tokens, now, random.random() if route.draws else 0.0)
        if chosen.index is None:  # say why, for the error (rare: nothing is free)
            reasons = [describe(r, c, self.tokens, now)
                       for r, c in zip(records, route.caps, strict=True)]
            return (), (chosen, reasons)
        return ((chosen.index,) if chosen.changed else ()), (chosen, None)

    def step(self, picked: tuple[Pick, Optional[list[str]]]) -> Optional[int]:
        """The deployment to send to now (counted in flight), or None: wait ``pending``
        seconds first. Raises when no deployment will be free within ``max_retry_wait``."""
        chosen, reasons = picked
        if chosen.index is not None:
            if self.counts_busy:
                route = self.route
                with route.lock:
                    route.busy[chosen.index] += 1
            # a 429 is always the router's to wait for (the cool-down is shared by every
            # call); other failures too when another deployment could take the call now,
            # else the deployment's own retries deal with them
            self.hand_up = FALLBACK_ERRORS if chosen.others_ready else _RATE_LIMITS
            return chosen.index
        wait = chosen.wait
        if wait is None:  # every deployment failed in this call
            raise self._all_failed()
        if self.waited + wait > self.router.max_retry_wait:
            raise self._rate_limited(wait, reasons or [])
        self.pending = wait + _EPSILON
        self.waited += self.pending
        return None

    def _exclude(self, index: int) -> None:
        """Not ``index`` again in this call."""
        excluded = list(self.excluded)
        excluded[index] = True
        self.excluded = excluded

    def release(self, index: int) -> None:
        if self.counts_busy:
            route = self.route
            with route.lock:
                route.busy[index] -= 1

    # -- 3. what the attempt taught --

    def failed(self, index: int, error: AisuiteLikeError
               ) -> Optional[Callable[[list[Record]], tuple[Sequence[int], Any]]]:
        """After an attempt failed: the transaction that cools the deployment down (the call
        moves on), or None: the error is raised to the caller (not one that moving fixes)."""
        if isinstance(error, (BudgetExceededError, UnpricedModelError, ModelCapabilityError,
                              PromptTooLongError)):
            # a budget, or what is known of its model, refused this deployment before
            # anything was sent: try the others
            self.skipped.append(skipped_model(self.route.deployments[index].name, error))
            self.last_error = error
            self._exclude(index)
            return _nothing_to_record
        if not isinstance(error, FALLBACK_ERRORS):
            if self.skipped:
                error.fallback_errors = list(self.skipped)  # type: ignore[attr-defined]
            return None
        deployment = self.route.deployments[index]
        self.skipped.append(skipped_model(deployment.name, error))
        self.last_error = error
        if not isinstance(error, RateLimitError):  # a broken deployment: not again this call
            self._exclude(index)
        limits = read_limits(_headers_of(error), time.time())
        cool_for = error.retry_after if isinstance(error.retry_after, (int, float)) and \
            error.retry_after > 0 else None
        if cool_for is None and isinstance(error, RateLimitError) and limits is not None:
            cool_for = limits.longest_exhausted_reset()
        if cool_for is None:
            cool_for = self.router.cooldown
        why = type(error).__name__ + (f" {error.status_code}" if error.status_code else "")
        caps, now = self.route.caps[index], self.router.now()

        def cool(records: list[Record]) -> tuple[Sequence[int], Any]:
            settle(records[0], caps, now, limits=limits, cool_for=cool_for, why=why)
            return (0,), None

        return cool

    def succeeded(self, index: int, headers: Any, latency: Optional[float]
                  ) -> Optional[Callable[[list[Record]], tuple[Sequence[int], Any]]]:
        """After a reply: the transaction that records its rate-limit headers and latency,
        or None when there is nothing to record."""
        limits = read_limits(headers, time.time()) if headers is not None else None
        if limits is None and latency is None:
            return None
        return self._settler(index, limits, latency, 0.0)

    def used(self, index: int, usage: Any) -> Optional[Callable[[list[Record]],
                                                                  tuple[Sequence[int], Any]]]:
        """After a reply's usage is known: the transaction that charges its tokens beyond
        the estimate (only for a deployment with ``tpm``)."""
        if self.route.caps[index].tpm is None:
            return None
        total = _usage_tokens(usage)
        if total is None:
            return None
        return self._settler(index, None, None, total - max(self.tokens, 1.0))

    def _settler(self, index: int, limits: Optional[Limits], latency: Optional[float],
                 extra: float) -> Callable[[list[Record]], tuple[Sequence[int], Any]]:
        caps, now = self.route.caps[index], self.router.now()

        def apply(records: list[Record]) -> tuple[Sequence[int], Any]:
            settle(records[0], caps, now, limits=limits, latency=latency, extra_tokens=extra)
            return (0,), None

        return apply

    def served(self, reply: Any, index: int) -> Any:
        """The response (or a stream's first chunk) of the deployment that served: the
        deployments skipped before it in ``fallback_errors``, its cost priced by its model."""
        if getattr(reply, "choices", None) is None:  # embeddings: no fallback_errors field
            return reply
        if self.skipped:
            reply.fallback_errors = list(self.skipped)
        if getattr(reply, "usage", None):
            attach_price_ref(reply, self.route.deployments[index].model_name)
        return reply

    # -- nothing left --

    def _all_failed(self) -> AisuiteLikeError:
        error = self.last_error
        assert error is not None  # excluded only after a failure
        tried = ", ".join(f"{s.model!r} ({s.error_type})" for s in self.skipped[:-1])
        _prefix(error, f"router alias {self.route.alias!r}: every deployment failed"
                       f"{f' ({tried} before)' if tried else ''}; the last, "
                       f"{self.skipped[-1].model!r}: ")
        error.fallback_errors = list(self.skipped[:-1])  # type: ignore[attr-defined]  # ours, on any error
        return error

    def _rate_limited(self, wait: float, reasons: list[str]) -> RateLimitError:
        route = self.route
        states = "; ".join(f"{d.name!r}: {why}"
                           for d, why in zip(route.deployments, reasons, strict=True))
        waited = f" after waiting {self.waited:.1f} s" if self.waited else ""
        error = RateLimitError(
            f"router alias {route.alias!r}: no deployment can take the call{waited}; the "
            f"first is free in {wait:.1f} s, past max_retry_wait={self.router.max_retry_wait:g}"
            f" s. Deployments: {states}", retry_after=wait, provider="router")
        error.fallback_errors = list(self.skipped)
        return error


#: The pick of the one deployment of a route, free and with nothing to take (``Route.alone``).
_ALONE = Pick(0, 0.0, False, False)

#: A change of a deployment's records, run by the state (``RouterState.transact``).
_Change = Callable[[list[Record]], tuple[Sequence[int], Any]]


def _nothing_to_record(records: list[Record]) -> tuple[Sequence[int], Any]:
    return (), None


class _Attempt:
    """One attempt at a deployment, the envelope the four send loops share. Inside it, the
    reply is recorded in an ``ExchangeCapture`` of its own and the retry layer hands up what
    the router will move elsewhere (``HAND_UP``). Leaving it hands the record on to the
    caller's (``headers``: the reply's) and releases the deployment (unless ``holds``: a
    stream that started keeps it until it ends); an error that moving fixes is swallowed,
    with ``cool`` the change that cools the deployment down (the loop runs it and tries
    again); any other error goes on, naming the deployments skipped before it."""

    __slots__ = ("call", "index", "holds", "capture", "tokens", "start", "headers", "cool")

    def __init__(self, call: _Call, index: int, holds: bool = False) -> None:
        self.call = call
        self.index = index
        self.holds = holds
        self.capture = ExchangeCapture()
        self.tokens: Any = None
        self.start = 0.0
        self.headers: Any = None
        self.cool: Optional[_Change] = None

    def __enter__(self) -> _Attempt:
        self.tokens = (CAPTURE.set(self.capture), HAND_UP.set(self.call.hand_up))
        return self

    def target(self) -> tuple[Provider, Any]:
        """The deployment's provider (made on first use, in its provider stack: a span per
        deployment tried when instrumented) and the request with its model; the latency runs
        from here."""
        call, index = self.call, self.index
        provider = call.provider.deployment_provider(index)
        routed = call.request.replace(model=call.route.deployments[index].model_name)
        self.start = time.perf_counter()
        return provider, routed

    def __exit__(self, kind: Any, error: Optional[BaseException], tb: Any) -> bool:
        capture_token, hand_up_token = self.tokens
        CAPTURE.reset(capture_token)
        self.headers = _hand_on(self.capture)
        HAND_UP.reset(hand_up_token)
        if error is not None or not self.holds:
            self.call.release(self.index)
        if isinstance(error, AisuiteLikeError):
            self.cool = self.call.failed(self.index, error)
            return self.cool is not None
        return False

    def learned(self, reply: Any) -> list[_Change]:
        """What a reply taught, as changes of the deployment's records: what its headers (and
        latency) said and, for a whole reply (not a stream's head: ``reply`` None), the
        tokens its usage charges."""
        call = self.call
        latency = time.perf_counter() - self.start if call.router.measures_latency else None
        found = []
        if self.headers is not None or latency is not None:
            change = call.succeeded(self.index, self.headers, latency)
            if change is not None:
                found.append(change)
        if reply is not None and call.route.uses_tokens:
            change = self.used(reply.usage)
            if change is not None:
                found.append(change)
        return found

    def used(self, usage: Any) -> Optional[_Change]:
        """The change that charges a reply's tokens beyond the estimate (a ``tpm``)."""
        if not self.call.route.uses_tokens or usage is None:
            return None
        return self.call.used(self.index, usage)


def _prefix(error: AisuiteLikeError, prefix: str) -> None:
    text = str(error)
    if not text.startswith(prefix):
        error.args = (prefix + text, *error.args[1:])
        if isinstance(error, APIError):
            error.message = prefix + text


class RoutingProvider(Provider):
    """An alias of ``router`` for one client (``resolve`` makes the deployments' providers
    with that client's configuration). Routes ``complete``, ``stream``, ``embed`` and their
    async twins."""

    def __init__(self, router: RouterSettings, route: Route, resolve: Resolve,
                 budgets: tuple[Any, ...] = ()) -> None:
        self.router = router
        self.route = route
        self.resolve = resolve
        self.key = "router"
        #: The budgets (the client's and the call's) every deployment call must pass, besides
        #: the deployment's own (docs/budgets.md).
        self.budgets = budgets

    def with_budgets(self, budgets: tuple[Any, ...]) -> "RoutingProvider":
        """This alias with ``budgets`` admitting each deployment's call at its price."""
        return RoutingProvider(self.router, self.route, self.resolve, budgets)

    def __repr__(self) -> str:
        return f"RoutingProvider(alias={self.route.alias!r})"

    def deployment_specs(self) -> list[tuple[str, Mapping[str, Any]]]:
        """Each deployment's model and own settings: what the response cache names the
        alias by (client/cache_scope.py), so two routers with one alias name but other
        deployments never share entries."""
        return [(d.model, d.settings) for d in self.route.deployments]

    def deployment_provider(self, index: int) -> Provider:
        """The provider of the ``index``-th deployment (made on first use); an error making
        it names the alias and the deployment."""
        deployment = self.route.deployments[index]
        try:
            if self.budgets or deployment.budgets:  # each admits at this deployment's price
                return self.resolve(deployment.model, deployment.settings,
                                    self.route.keys[index],
                                    (*self.budgets, *deployment.budgets))
            return self.resolve(deployment.model, deployment.settings, self.route.keys[index])
        except AisuiteLikeError as error:
            _prefix(error, f"router alias {self.route.alias!r}, deployment "
                           f"{deployment.name!r}: ")
            raise

    # -- with count_tokens=True, the token buckets take the provider's count of the prompt
    # (by the first deployment's provider, through its layers: a count it keeps if it serves)

    def _counts(self, request: Any) -> bool:
        """Whether the provider counts ``request``'s prompt for the token buckets."""
        return self.route.uses_tokens and isinstance(request, ChatRequest) and \
            request.count_tokens

    def _count_request(self, request: Any) -> Optional[tuple[Provider, ChatRequest]]:
        if not self._counts(request):
            return None
        first = self.route.deployments[0]
        return self.deployment_provider(0), request.replace(model=first.model_name)

    @staticmethod
    def _tokens(count: TokenCount, request: ChatRequest) -> Optional[float]:
        return float(count.input_tokens + (request.max_tokens or 0)) if count.exact else None

    def _counted(self, request: Any) -> Optional[float]:
        found = self._count_request(request)
        if found is None:
            return None
        try:
            return self._tokens(found[0].count_tokens(found[1]), request)
        except UnsupportedFeatureError:  # no counting API: the estimate
            return None

    async def _acounted(self, request: Any) -> Optional[float]:
        found = self._count_request(request)
        if found is None:
            return None
        try:
            return self._tokens(await found[0].acount_tokens(found[1]), request)
        except UnsupportedFeatureError:
            return None

    # -- calls --

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        return cast("ChatCompletionResponse", self._send(request, "complete"))

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        return cast("ChatCompletionResponse", await self._asend(request, "acomplete"))

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        """Every deployment's check of an embeddings request (each deployment's provider is
        made for it), and the smallest of their limits: a part of a split input may go to
        any of them."""
        limits = []
        for index, deployment in enumerate(self.route.deployments):
            provider = self.deployment_provider(index)
            try:
                limit = provider.embedding_limit(request.replace(model=deployment.model_name))
            except AisuiteLikeError as error:
                _prefix(error, f"router alias {self.route.alias!r}, deployment "
                               f"{deployment.name!r}: ")
                raise
            if limit is not None:
                limits.append(limit)
        return min(limits) if limits else None

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return cast("CreateEmbeddingResponse", self._send(request, "embed"))

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        return cast("CreateEmbeddingResponse", await self._asend(request, "aembed"))

    def _send(self, request: Union[ChatRequest, EmbeddingRequest], method: str) -> Any:
        """One routed request, sent with the deployment provider's ``method``."""
        call = _Call(self, request, self._counted(request)
                     if self.route.uses_tokens and self._counts(request) else None)
        state, keys = self.router.state, self.route.keys
        while True:
            index = call.step(state.transact(keys, call.picker))
            if index is None:
                self.router.clock.sleep(call.pending)
                continue
            with _Attempt(call, index) as attempt:
                provider, routed = attempt.target()
                response = getattr(provider, method)(routed)
            if attempt.cool is not None:
                state.transact((keys[index],), attempt.cool)
                continue
            for change in attempt.learned(response):
                state.transact((keys[index],), change)
            return call.served(response, index)

    async def _asend(self, request: Union[ChatRequest, EmbeddingRequest], method: str) -> Any:
        """Async twin of ``_send``."""
        call = _Call(self, request, await self._acounted(request)  # awaited only when counting
                     if self.route.uses_tokens and self._counts(request) else None)
        state, keys = self.router.state, self.route.keys
        while True:
            index = call.step(await state.atransact(keys, call.picker))
            if index is None:
                await self.router.clock.asleep(call.pending)
                continue
            with _Attempt(call, index) as attempt:
                provider, routed = attempt.target()
                response = await getattr(provider, method)(routed)
            if attempt.cool is not None:
                await state.atransact((keys[index],), attempt.cool)
                continue
            for change in attempt.learned(response):
                await state.atransact((keys[index],), change)
            return call.served(response, index)

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        call = _Call(self, request, self._counted(request)
                     if self.route.uses_tokens and self._counts(request) else None)
        state, keys = self.router.state, self.route.keys
        while True:
            index = call.step(state.transact(keys, call.picker))
            if index is None:
                self.router.clock.sleep(call.pending)
                continue
            with _Attempt(call, index, holds=True) as attempt:
                provider, routed = attempt.target()
                chunks = provider.stream(routed)
                try:
                    head = next(chunks, None)
                except BaseException:
                    _close(chunks)
                    raise
            if attempt.cool is None:
                break
            state.transact((keys[index],), attempt.cool)
        try:
            for change in attempt.learned(None):
                state.transact((keys[index],), change)
            if head is None:
                return
            yield call.served(head, index)
            usage = head.usage
            for chunk in chunks:
                if chunk.usage is not None:
                    usage = chunk.usage
                yield chunk
            used = attempt.used(usage)
            if used is not None:
                state.transact((keys[index],), used)
        finally:
            call.release(index)
            _close(chunks)

    async def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        call = _Call(self, request, await self._acounted(request)  # awaited only when counting
                     if self.route.uses_tokens and self._counts(request) else None)
        state, keys = self.router.state, self.route.keys
        while True:
            index = call.step(await state.atransact(keys, call.picker))
            if index is None:
                await self.router.clock.asleep(call.pending)
                continue
            with _Attempt(call, index, holds=True) as attempt:
                provider, routed = attempt.target()
                chunks = provider.astream(routed)
                try:
                    head: Optional[ChatCompletionChunk] = await chunks.__anext__()
                except StopAsyncIteration:
                    head = None
                except BaseException:
                    await _aclose(chunks)
                    raise
            if attempt.cool is None:
                break
            await state.atransact((keys[index],), attempt.cool)
        try:
            for change in attempt.learned(None):
                await state.atransact((keys[index],), change)
            if head is None:
                return
            yield call.served(head, index)
            usage = head.usage
            async for chunk in chunks:
                if chunk.usage is not None:
                    usage = chunk.usage
                yield chunk
            used = attempt.used(usage)
            if used is not None:
                await state.atransact((keys[index],), used)
        finally:
            call.release(index)
            await _aclose(chunks)

    def close(self) -> None:
        """The deployments' providers belong to the client, which closes them."""

    async def aclose(self) -> None:
        """The deployments' providers belong to the client, which closes them."""


def _close(chunks: Any) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


async def _aclose(chunks: Any) -> None:
    close = getattr(chunks, "aclose", None)
    if close is not None:
        await close()
