"""The gateway's service over one ``ai.AsyncClient`` (docs/gateway.md): what every request
goes through (``Gateway.serve``), and what the endpoints of ``routes.py`` share.

Each request: the virtual key checked (nothing is parsed or sent before), the body read within
its size limit, the model alias resolved and allowed for the key, the arguments that would
choose a provider's URL, key or transport refused, the key's limits taken (requests in flight,
rpm / tpm buckets; its ``ai.Budget`` goes with the call), then one call of the client, whose
provider stack does the rest: translation, routing, retries, caching, budgets, redaction. The
reply goes out in the API's shape (a stream as its SSE events) and one record is kept.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.reading import loads_json
from ..core.secrets import protect_logs, redact, remember
from .anthropic_shape import sse
from .config import GatewayConfig
from .errors import GatewayError, anthropic_body, from_exception, openai_body
from .limits import KeyLimits, Refusal
from .metrics import Metrics
from .store import (
    RequestRecord,
    Store,
    VirtualKey,
    hash_key,
    open_store,
)

__all__ = ["Gateway", "Call", "Deadline", "JSONReply", "FORBIDDEN", "refuse_forbidden", "dump",
           "dump_json", "deployment_of", "json_body", "final_usage", "estimate", "sse_data", "OURS"]

log = logging.getLogger("aisuite_like.gateway")

#: Request arguments that would choose a provider, its URL, key, transport or the gateway's
#: own policies (cache, budget, fallbacks, timeouts): refused wherever they appear (top level,
#: or inside ``extra_body``, which the SDKs merge into the body).
FORBIDDEN = frozenset({
    "provider_configs", "providers", "provider", "api_key", "api_base", "base_url", "api_url",
    "endpoint", "azure_endpoint", "azure_deployment", "azure_ad_token", "api_version",
    "organization", "project", "transport", "async_transport", "http_client",
    "default_headers", "extra_headers", "extra_query", "extra_body", "headers", "credentials",
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_region_name",
    "region", "profile", "token", "timeout", "max_retries", "max_retry_wait", "max_concurrency",
    "stream_gap_timeout", "cache", "budget", "fallbacks", "router", "max_turns",
    "extra_param_mode", "tool_policy", "on_tool_error", "on_max_turns", "max_tool_concurrency",
    "tool_policy_context", "tool_timeout", "max_tool_result_chars", "context",
})
_FORBIDDEN_SUFFIXES = ("_key", "_url", "_token", "_secret", "_endpoint", "_headers")
#: API parameters whose names end so but choose nothing of the kind.
_ALLOWED = frozenset({"prompt_cache_key"})
_KEY_CACHE_SIZE = 10_000  # keys a worker keeps looked up (past it the cache starts over)
_CONTENT_LIMIT = 65536  # characters of content a record keeps (log_content = true)


def refuse_forbidden(body: dict[str, Any]) -> None:
    for name in body:
        if name in _ALLOWED:
            continue
        if name in FORBIDDEN or (isinstance(name, str) and name.endswith(_FORBIDDEN_SUFFIXES)):
            raise GatewayError(400, f"{name!r} cannot be set through the gateway: the gateway "
                               "chooses providers, their URLs, keys and transports, and its own "
                               "limits; remove it from the request", param=name,
                               headers={"x-should-retry": "false"})


@dataclass
class Call:
    """What one request is, as the gateway serves it (filled in as it goes)."""

    endpoint: str
    shape: str  # "openai" | "anthropic"
    started: float = field(default_factory=time.monotonic)
    key: Optional[VirtualKey] = None
    model: Optional[str] = None
    record: Optional[RequestRecord] = None
    estimate: int = 0
    entered: bool = False
    finished: bool = False
    span: Any = None


class _Recorder:
    """Records written in batches from a worker thread (a request never waits on the
    database); ``flush`` writes what is pending, and the shutdown flushes the rest."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._pending: list[RequestRecord] = []
        self._lock = asyncio.Lock()
        self._task: Optional[asyncio.Task[None]] = None
        self.dropped = 0

    #: Records held while the store cannot be written; past it the oldest are dropped (and
    #: counted in ``dropped``) so a store that is down cannot exhaust the memory.
    MAX_PENDING = 100_000

    def add(self, record: RequestRecord) -> None:
        self._pending.append(record)
        if len(self._pending) > self.MAX_PENDING:
            excess = len(self._pending) - self.MAX_PENDING
            del self._pending[:excess]
            self.dropped += excess

    async def flush(self) -> None:
        async with self._lock:
            batch, self._pending = self._pending, []
            if batch:
                try:
                    await asyncio.to_thread(self._store.add_records, batch)
                except Exception as exc:
                    self._pending[:0] = batch  # kept for the next flush
                    log.error("the gateway could not write %d records (kept for the next "
                              "try): %s: %s", len(batch), type(exc).__name__, redact(str(exc)))

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            await self.flush()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        await self.flush()


class Gateway:
    """The gateway's state: its config, its client, its store, the keys' limits, the
    records, the metrics. ``create_app`` makes one; ``app.state.gateway`` holds it."""

    def __init__(self, config: GatewayConfig, *, tracer_provider: Any = None) -> None:
        self.config = config
        for text in (config.admin_key,):
            remember(text)
        protect_logs(["aisuite_like.gateway", "uvicorn", "uvicorn.error", "uvicorn.access"])
        from ..client.facade import AsyncClient

        router = None
        router_state: Any = None
        budget_state: Any = None
        if config.redis_url:
            from ..budgets.redis_state import RedisState as BudgetRedis
            from ..router.redis_state import RedisState as RouterRedis

            router_state = RouterRedis(config.redis_url, prefix="aisuite_like:gateway:")
            budget_state = BudgetRedis(config.redis_url, prefix="aisuite_like:gateway-budget:")
        else:
            from ..router.state import MemoryState

            router_state = MemoryState()
        if config.router:
            from ..router.api import Router

            options = {k: v for k, v in config.router.items() if k != "deployments"}
            router = Router(config.router["deployments"], **options,
                            **({"state": router_state} if config.redis_url else {}))
        self.router = router  # the client's, kept for what only the gateway asks of it
        self.client = AsyncClient(provider_configs=config.providers or None, router=router,
                                  **_cache_options(config.cache))
        self.store = open_store(config.storage_url)
        self.limits = KeyLimits(router_state, budget_state, config.max_in_flight_per_key)
        self.recorder = _Recorder(self.store)
        self.metrics = Metrics()
        self._admin_hash = hash_key(config.admin_key) if config.admin_key else None
        #: The keys looked up lately: the key's hash -> (when, the key), for
        #: key_cache_seconds;
        #: only usable keys are kept (a wrong key is looked up each time, never stored).
        self._keys: dict[str, tuple[float, VirtualKey]] = {}
        self._tracer: Any = None
        if config.telemetry or tracer_provider is not None:
            # A SERVER span per request; the client's spans (ai.instrument(): [telemetry]
            # enabled, or the caller's own call) are its children.
            try:
                from opentelemetry import trace
            except ImportError:
                from ..core.errors import MissingDependencyError

                raise MissingDependencyError(
                    "[telemetry] enabled needs OpenTelemetry: pip install "
                    "'aisuite-like[otel]' opentelemetry-sdk") from None
            self._tracer = (tracer_provider or trace.get_tracer_provider()).get_tracer(
                "aisuite_like.gateway")
            if config.telemetry:
                from ..observability.switch import instrument

                instrument(tracer_provider=tracer_provider)
        self.draining = False

    # --- keys ----------------------------------------------------------------------------

    @staticmethod
    def _presented(request: Any) -> Optional[str]:
        header = request.headers.get("authorization")
        if header:
            scheme, _, value = header.partition(" ")
            if scheme.lower() == "bearer" and value.strip():
                return str(value.strip())
        value = request.headers.get("x-api-key")
        return str(value).strip() if value else None

    async def authenticate(self, request: Any) -> Optional[VirtualKey]:
        """The caller's key (None on an open gateway), or a 401 ``GatewayError``."""
        presented = self._presented(request)
        if not self.config.require_keys:
            return None
        if presented is None:
            raise GatewayError(401, "no API key: send a gateway key as 'Authorization: Bearer "
                               "sk-gw-...'", code="invalid_api_key",
                               headers={"x-should-retry": "false"})
        now = time.monotonic()
        digest = hash_key(presented)
        cached = self._keys.get(digest)
        if cached is not None and now - cached[0] < self.config.key_cache_seconds:
            key: Optional[VirtualKey] = cached[1]
            if not cached[1].usable(time.time()):  # expired since
                key = None
        else:
            if self.store.local:  # SQLite: an indexed lookup of microseconds, no thread hop
                key = self.store.authenticate(presented)
            else:
                key = await asyncio.to_thread(self.store.authenticate, presented)
            if key is not None and self.config.key_cache_seconds > 0:
                if len(self._keys) >= _KEY_CACHE_SIZE:
                    self._keys.clear()  # bounded: only valid keys are kept, rarely this many
                self._keys[digest] = (now, key)
        if key is None:
            raise GatewayError(401, "the API key is not valid (unknown, revoked or expired)",
                               code="invalid_api_key", headers={"x-should-retry": "false"})
        return key

    def forget_key(self, name: str) -> None:
        """Drop ``name`` from the looked-up keys (revoked here: it holds at once)."""
        self._keys = {d: v for d, v in self._keys.items() if v[1].name != name}

    def check_admin(self, request: Any) -> None:
        presented = self._presented(request)
        if self._admin_hash is None:
            raise GatewayError(403, "the admin endpoints are closed: set [auth] admin_key_env",
                               "permission_error", headers={"x-should-retry": "false"})
        if presented is None or not hmac.compare_digest(hash_key(presented), self._admin_hash):
            raise GatewayError(401, "this endpoint needs the gateway's admin key",
                               code="invalid_api_key", headers={"x-should-retry": "false"})

    def resolve(self, call: Call, alias: Any) -> str:
        """The client model of an alias the key may use, or a 404 / 403."""
        if not isinstance(alias, str) or not alias:
            raise GatewayError(400, "model is required: one of the gateway's models "
                               "(GET /v1/models)", param="model",
                               headers={"x-should-retry": "false"})
        target = self.config.models.get(alias)
        allowed = call.key.models if call.key is not None else None
        if target is None or (allowed is not None and alias not in allowed):
            if target is not None and call.key is not None:
                raise GatewayError(403, f"the key {call.key.name!r} may not use the model "
                                   f"{alias!r}", "permission_error", "model_not_allowed",
                                   "model", headers={"x-should-retry": "false"})
            raise GatewayError(404, f"the model {alias!r} does not exist on this gateway "
                               "(GET /v1/models lists them)", code="model_not_found",
                               param="model", headers={"x-should-retry": "false"})
        call.model = alias
        return target

    # --- the life of a request -----------------------------------------------------------

    async def begin(self, call: Call, estimate: Callable[[], int]) -> dict[str, Any]:
        """Take the key's limits; the arguments the call adds (its budget). ``estimate()``:
        the request's input tokens, estimated only for a key with a tpm limit (the only
        reader: the client's budget makes its own)."""
        extra: dict[str, Any] = {}
        if call.key is None:
            return extra
        if call.key.tpm is not None:
            call.estimate = estimate()
        try:
            self.limits.enter(call.key)
            call.entered = True
            if call.key.rpm is not None or call.key.tpm is not None:
                await self.limits.admit(call.key, call.estimate)
        except Refusal as refusal:
            headers = {}
            if refusal.retry_after is not None:
                headers["retry-after"] = f"{max(1, round(refusal.retry_after))}"
            raise GatewayError(429, str(refusal), "rate_limit_error", "rate_limit_exceeded",
                               headers=headers) from None
        budget = self.limits.budget(call.key)
        if budget is not None:
            extra["budget"] = budget
        return extra

    async def finish(self, call: Call, status: int, *, usage: Any = None,
                     deployment: Optional[str] = None, cache_hit: bool = False,
                     stream: bool = False, error: Optional[BaseException] = None,
                     content: Optional[dict[str, Any]] = None) -> None:
        """Release the key's limits, count and record the request (once)."""
        if call.finished:
            return
        call.finished = True
        self.metrics.in_flight -= 1
        if call.entered and call.key is not None:
            self.limits.leave(call.key)
            call.entered = False
        prompt = completion = None
        cost = None
        if usage is not None:
            prompt = getattr(usage, "prompt_tokens", None)
            if prompt is None:
                prompt = getattr(usage, "input_tokens", None)
            completion = getattr(usage, "completion_tokens", None)
            if completion is None:
                completion = getattr(usage, "output_tokens", None)
            try:
                cost = usage.cost
            except Exception:
                cost = None
        if call.key is not None and call.key.tpm is not None and prompt is not None:
            try:
                await self.limits.settle(call.key, call.estimate, prompt + (completion or 0))
            except Exception:
                log.exception("settling a key's token bucket failed")
        seconds = time.monotonic() - call.started
        self.metrics.observe(call.endpoint, call.model, status, seconds, prompt, completion,
                             cost)
        text = None
        if content is not None and self.config.log_content:
            text = redact(json.dumps(content, default=str, ensure_ascii=False))[:_CONTENT_LIMIT]
        self.recorder.add(RequestRecord(
            endpoint=call.endpoint, status=status, key_name=call.key.name if call.key else None,
            model=call.model, deployment=deployment, prompt_tokens=prompt,
            completion_tokens=completion, cost=cost, latency_ms=seconds * 1000.0,
            error_type=type(error).__name__ if error is not None else None,
            cache_hit=cache_hit, stream=stream, content=text))
        if call.span is not None:
            _end_span(call, status)

    def remaining(self, call: Call) -> float:
        return max(0.0, self.config.request_timeout - (time.monotonic() - call.started))

    def error_response(self, call: Call, error: GatewayError) -> Any:
        body = anthropic_body(error) if call.shape == "anthropic" else openai_body(error)
        return JSONReply(body, error.status, error.headers)

    async def serve(self, request: Any, endpoint: str, shape: str,
                    handler: Callable[[Call, Any], Awaitable[Any]]) -> Any:
        """One request of ``endpoint``: authenticated, handled, answered in ``shape``. Every
        path ends in ``finish`` (a stream's when it ends), but a 401's, which is counted and
        not stored."""
        call = Call(endpoint, shape)
        token = None
        if self._tracer is not None:
            from opentelemetry import context as otel_context, trace

            call.span = self._tracer.start_span(f"gateway {endpoint}",
                                                kind=trace.SpanKind.SERVER)
            call.span.set_attribute("http.route", endpoint)
            token = otel_context.attach(trace.set_span_in_context(call.span))
        self.metrics.in_flight += 1
        try:
            call.key = await self.authenticate(request)
            if self.draining:
                raise GatewayError(503, "the gateway is shutting down; retry", "server_error",
                                   "shutting_down")
            with Deadline(self.remaining(call)):
                return await handler(call, request)
        except asyncio.TimeoutError:
            error = GatewayError(504, f"the request took longer than the gateway's "
                                 f"{self.config.request_timeout:g} s limit", "timeout",
                                 "request_timeout")
            await self.finish(call, error.status, error=error)
            return self.error_response(call, error)
        except Exception as exc:
            error = from_exception(exc)
            if error.status >= 500 and not isinstance(exc, GatewayError):
                log.error("request to %s failed: %s: %s", endpoint, type(exc).__name__,
                          redact(str(exc)))
            if error.status == 401:  # unauthenticated traffic is counted, not stored
                call.finished = True
                self.metrics.in_flight -= 1
                self.metrics.observe(endpoint, None, 401, time.monotonic() - call.started,
                                     None, None, None)
                if call.span is not None:
                    _end_span(call, 401)
            else:
                await self.finish(call, error.status, error=exc)
            return self.error_response(call, error)
        finally:
            if token is not None:
                from opentelemetry import context as otel_context

                otel_context.detach(token)

    # --- streams -------------------------------------------------------------------------

    async def stream_response(self, call: Call, source: Any,
                              encode: Callable[[Any], Any],
                              tail: Callable[[], Any],
                              done: Callable[[Optional[BaseException], int], Awaitable[None]]
                              ) -> Any:
        """An SSE response of ``source`` (an async iterator): each item through ``encode``
        (bytes or a list of bytes), ``tail()`` at the end; ``done(error, status)`` once, however
        it ends (finished, failed, timed out, the client gone, the server shutting down). The
        first item is awaited before the reply starts, so an error the provider answers at
        once is an error status, not a stream."""
        gateway = self
        iterator = source.__aiter__()
        try:
            first: Any = await iterator.__anext__()
            empty = False
        except StopAsyncIteration:
            first, empty = None, True
        except BaseException:
            close = getattr(source, "close", None)
            if close is not None:
                try:
                    await close()
                except Exception:
                    pass
            raise

        async def body() -> AsyncIterator[bytes]:
            error: Optional[BaseException] = None
            status = 200
            try:
                if not empty:
                    for piece in _pieces(encode(first)):
                        yield piece
                while not empty:
                    try:
                        # the deadline covers waiting for the provider, not the yield (the
                        # client's reading is the middleware's deadline)
                        with Deadline(gateway.remaining(call)):
                            item = await iterator.__anext__()
                    except StopAsyncIteration:
                        break
                    for piece in _pieces(encode(item)):
                        yield piece
                for piece in _pieces(tail()):
                    yield piece
            except asyncio.TimeoutError as exc:
                error, status = exc, 504
                yield gateway.stream_error(call, GatewayError(
                    504, f"the stream took longer than the gateway's "
                    f"{gateway.config.request_timeout:g} s limit", "timeout",
                    "request_timeout"))
            except asyncio.CancelledError as exc:  # the client went away, or shutdown
                error, status = exc, 499
                raise
            except Exception as exc:
                error = exc
                mapped = from_exception(exc)
                status = mapped.status
                yield gateway.stream_error(call, mapped)
            finally:
                close = getattr(source, "close", None)
                if close is not None:
                    try:
                        await asyncio.shield(close())
                    except BaseException:
                        pass
                await asyncio.shield(done(error, status))

        async def ended() -> None:  # the body never started (the client left at once)
            if not call.finished:
                close = getattr(source, "close", None)
                if close is not None:
                    try:
                        await close()
                    except Exception:
                        pass
                await done(asyncio.CancelledError(), 499)

        return _EventStream(body(), ended)

    @staticmethod
    def stream_error(call: Call, error: GatewayError) -> bytes:
        if call.shape == "anthropic":
            return sse("error", anthropic_body(error))
        return b"data: " + json.dumps(openai_body(error)).encode() + b"\n\n"


class JSONReply:
    """A JSON reply as an ASGI application: what Starlette's ``JSONResponse`` sends (the same
    encoding and headers), without its per-reply objects, for the hot endpoints' replies and
    every error. ``content`` bytes are the JSON already."""

    __slots__ = ("status_code", "body", "raw_headers")

    def __init__(self, content: Any, status_code: int = 200,
                 headers: Optional[dict[str, str]] = None) -> None:
        self.status_code = status_code
        self.body = content if isinstance(content, bytes) else json.dumps(
            content, ensure_ascii=False, allow_nan=False, indent=None,
            separators=(",", ":")).encode()
        self.raw_headers = [(b"content-length", str(len(self.body)).encode()),
                            (b"content-type", b"application/json")]
        for name, value in (headers or {}).items():
            self.raw_headers.append((name.lower().encode("latin-1"), value.encode("latin-1")))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.body})


def _event_stream_class() -> Any:
    from starlette.responses import StreamingResponse

    class EventStream(StreamingResponse):
        """An SSE reply that calls ``ended`` however the response ends."""

        def __init__(self, body: Any, ended: Callable[[], Awaitable[None]]) -> None:
            super().__init__(body, media_type="text/event-stream",
                             headers={"cache-control": "no-cache"})
            self._ended = ended

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                await asyncio.shield(self._ended())

    return EventStream


def _EventStream(body: Any, ended: Callable[[], Awaitable[None]]) -> Any:
    global _EVENT_STREAM
    if _EVENT_STREAM is None:
        _EVENT_STREAM = _event_stream_class()
    return _EVENT_STREAM(body, ended)


_EVENT_STREAM: Any = None


def _cache_options(settings: dict[str, Any]) -> dict[str, Any]:
    """The client's ``cache`` and ``cache_ttl`` of the config's ``[cache]`` (docs/cache.md)."""
    if not settings:
        return {}
    backend = settings["backend"]
    if backend == "memory":
        from ..cache.memory import MemoryCache

        cache: Any = MemoryCache(maxsize=int(settings.get("maxsize", 1024)))
    elif backend == "sqlite":
        from ..cache.sqlite import SQLiteCache

        cache = SQLiteCache(settings["path"])
    else:
        from ..cache.redis import RedisCache

        cache = RedisCache(settings["url"])
    ttl = settings.get("ttl")
    return {"cache": cache, **({"cache_ttl": float(ttl)} if ttl is not None else {})}


class Deadline:
    """``with Deadline(seconds):`` (in a task) raises ``asyncio.TimeoutError`` when the block runs
    longer (what ``asyncio.timeout`` does on 3.11, here for 3.10 too): the current task is
    cancelled at the deadline, with no task of its own per request as ``wait_for`` makes."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._fired = False
        self._task: Optional[asyncio.Task[Any]] = None
        self._handle: Optional[asyncio.TimerHandle] = None

    def _fire(self) -> None:
        self._fired = True
        if self._task is not None:
            self._task.cancel()

    def __enter__(self) -> "Deadline":  # not async: entering and leaving await nothing
        self._task = asyncio.current_task()
        self._handle = asyncio.get_running_loop().call_later(self._seconds, self._fire)
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if self._handle is not None:
            self._handle.cancel()
        if self._fired and kind is asyncio.CancelledError:
            uncancel = getattr(self._task, "uncancel", None)
            if uncancel is not None:  # 3.11+: this cancellation was ours, not the caller's
                uncancel()
            raise asyncio.TimeoutError from None


def _end_span(call: Call, status: int) -> None:
    span, call.span = call.span, None
    span.set_attribute("http.response.status_code", status)
    if call.key is not None:
        span.set_attribute("aisuite_like.gateway.key", call.key.name)
    if call.model is not None:
        span.set_attribute("gen_ai.request.model", call.model)
    if status >= 500:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR))
    span.end()


def _pieces(value: Any) -> list[bytes]:
    if value is None:
        return []
    if isinstance(value, bytes):
        return [value]
    return list(value)


def sse_data(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode() \
        + b"\n\n"


# Fields of our responses that are not OpenAI's (ours: the provider, a run's history...).
OURS = {"provider", "intermediate_responses", "messages", "stop_reason", "tool_events",
        "context_events", "fallback_errors", "turn"}

#: What ``dump`` leaves out: our fields, a choice's and its message's (or delta's) own.
_LEFT_OUT: dict[str, Any] = {
    **dict.fromkeys(OURS, True),
    "choices": {"__all__": {"native_finish_reason": True, "intermediate_messages": True,
                            "message": {"provider_specific_fields": True},
                            "delta": {"provider_specific_fields": True}}}}


def dump(obj: Any, model: str) -> dict[str, Any]:
    """A response or chunk as OpenAI sends it: our own fields left out, ``model`` the alias
    the caller named."""
    data: dict[str, Any] = obj.model_dump(mode="json", exclude_none=True, exclude=_LEFT_OUT)
    if "model" in data:
        data["model"] = model
    return data


_LEFT_OUT_AND_MODEL = {**_LEFT_OUT, "model": True}


def dump_json(obj: Any, model: str) -> bytes:
    """``dump`` as JSON bytes, serialized by pydantic in one call (no dict in between); the
    alias is written first in the object, in place of the reply's model (no copy of the
    reply made for it)."""
    if getattr(obj, "model", None) is None:
        return bytes(obj.__pydantic_serializer__.to_json(obj, exclude_none=True,
                                                         exclude=_LEFT_OUT))
    rest: bytes = obj.__pydantic_serializer__.to_json(obj, exclude_none=True,
                                                      exclude=_LEFT_OUT_AND_MODEL)
    named = b'{"model":' + json.dumps(model, ensure_ascii=False).encode()
    return named + (b"," + rest[1:] if len(rest) > 2 else b"}")


def deployment_of(obj: Any) -> Optional[str]:
    provider, model = getattr(obj, "provider", None), getattr(obj, "model", None)
    return f"{provider}:{model}" if provider and model else None


async def json_body(request: Any) -> dict[str, Any]:
    raw = await request.body()
    try:
        body = loads_json(raw)
    except ValueError as exc:
        raise GatewayError(400, f"the request body is not JSON ({exc})",
                           headers={"x-should-retry": "false"}) from None
    if not isinstance(body, dict):
        raise GatewayError(400, "the request body must be a JSON object",
                           headers={"x-should-retry": "false"})
    return body


async def final_usage(stream: Any, state: dict[str, Any], error: Optional[BaseException]
                       ) -> Any:
    """A finished chat stream's usage, priced for the model that served it (a chunk's usage
    carries no price)."""
    if error is None:
        try:
            final = await stream.get_final_response()
            if final.usage is not None:
                return final.usage
        except Exception:
            pass
    return state["usage"]


def estimate(messages: Any, tools: Any = None) -> int:
    from ..context.tokens import estimate_request

    try:
        return int(estimate_request(messages if isinstance(messages, list) else [],
                                    tools if isinstance(tools, list) else None))
    except Exception:
        return len(json.dumps(messages, default=str)) // 4
