"""The gateway's endpoints (docs/gateway.md): the OpenAI API's (``/v1/chat/completions``,
``/v1/responses``, ``/v1/embeddings``, ``/v1/audio/transcriptions``, ``/v1/models``),
Anthropic's (``/v1/messages``, ``/v1/messages/count_tokens``), the admin API, ``/metrics``,
``/ui`` and ``/health``. Each is one call of the client, through ``Gateway.serve``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Optional

from ..model_info.types import FACT_FIELDS
from .anthropic_shape import StreamEvents, to_chat_arguments, to_message
from .errors import GatewayError, from_exception, openai_body
from .service import (
    OURS,
    Call,
    Gateway,
    JSONReply,
    deployment_of,
    dump,
    dump_json,
    estimate,
    final_usage,
    json_body,
    refuse_forbidden,
    sse_data,
)
from .store import VirtualKey, parse_budget, parse_duration

__all__ = ["routes", "hot"]

# --- the endpoints --------------------------------------------------------------------------


async def _call_body(gw: Gateway, call: Call, request: Any) -> tuple[dict[str, Any], str]:
    """A call's JSON body without its ``model``, and the client model the alias names (the
    key may use it); a body choosing a provider, URL, key or transport is refused."""
    body = await json_body(request)
    target = gw.resolve(call, body.pop("model", None))
    refuse_forbidden(body)
    return body, target


def _required(body: dict[str, Any], name: str) -> Any:
    """``body[name]``, taken out of it, or a 400 naming the parameter."""
    if name not in body:
        raise GatewayError(400, f"{name} is required", param=name,
                           headers={"x-should-retry": "false"})
    return body.pop(name)


async def _chat(gw: Gateway, call: Call, request: Any) -> Any:
    body, target = await _call_body(gw, call, request)
    messages = body.pop("messages", None)
    stream = bool(body.pop("stream", False))
    wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    if stream:  # usage is always asked of the provider: the record and the budget need it
        body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
    kwargs = {**body, **await gw.begin(call, lambda: estimate(messages, body.get("tools")))}
    alias = call.model or ""
    reply: Any = await gw.client.chat.completions.create(model=target, messages=messages,
                                                         stream=stream, **kwargs)
    if not stream:
        await gw.finish(call, 200, usage=reply.usage, deployment=deployment_of(reply),
                        cache_hit=reply.cache_hit,
                        content={"messages": messages, "reply": reply.content})
        return JSONReply(dump_json(reply, alias))
    state: dict[str, Any] = {"usage": None, "deployment": None, "hit": False, "text": []}

    def encode(chunk: Any) -> Optional[bytes]:
        state["deployment"] = state["deployment"] or deployment_of(chunk)
        state["hit"] = state["hit"] or chunk.cache_hit
        if chunk.usage is not None:
            state["usage"] = chunk.usage
        for choice in chunk.choices:
            if choice.delta.content and gw.config.log_content:
                state["text"].append(choice.delta.content)
        data = dump(chunk, alias)
        if not wants_usage:
            data.pop("usage", None)
            if not data.get("choices"):
                return None  # the usage chunk the caller did not ask for
        return sse_data(data)

    async def done(error: Optional[BaseException], status: int) -> None:
        await gw.finish(call, status, usage=await final_usage(reply, state, error),
                        deployment=state["deployment"], cache_hit=state["hit"], stream=True,
                        error=error,
                        content={"messages": messages, "reply": "".join(state["text"])})

    return await gw.stream_response(call, reply, encode, lambda: b"data: [DONE]\n\n", done)


async def _embeddings(gw: Gateway, call: Call, request: Any) -> Any:
    from starlette.responses import JSONResponse

    body, target = await _call_body(gw, call, request)
    inputs = _required(body, "input")
    kwargs = {**body, **await gw.begin(call, lambda: len(json.dumps(inputs)) // 4)}
    reply = await gw.client.embeddings.create(model=target, input=inputs, **kwargs)
    await gw.finish(call, 200, usage=reply.usage, deployment=target)
    return JSONResponse(dump(reply, call.model or ""))


async def _responses(gw: Gateway, call: Call, request: Any) -> Any:
    from starlette.responses import JSONResponse

    body, target = await _call_body(gw, call, request)
    inputs = _required(body, "input")
    stream = bool(body.pop("stream", False))
    kwargs = {**body, **await gw.begin(
        call, lambda: len(json.dumps([inputs, body.get("instructions")], default=str)) // 4)}
    reply: Any = await gw.client.responses.create(model=target, input=inputs, stream=stream,
                                                  **kwargs)
    alias = call.model or ""
    if not stream:
        await gw.finish(call, 200, usage=reply.usage, deployment=deployment_of(reply),
                        content={"input": inputs, "reply": getattr(reply, "output_text", None)})
        return JSONResponse(dump(reply, alias))
    state: dict[str, Any] = {"usage": None, "deployment": None}

    def encode(event: Any) -> bytes:
        data = event.model_dump(mode="json", exclude_none=True)
        response = data.get("response")
        final = getattr(event, "response", None)
        if final is not None:
            state["usage"] = getattr(final, "usage", None) or state["usage"]
            state["deployment"] = deployment_of(final) or state["deployment"]
        if isinstance(response, dict):
            response.pop("provider", None)
            if "model" in response:
                response["model"] = alias
        return (f"event: {data.get('type', 'message')}\n".encode() + sse_data(data))

    async def done(error: Optional[BaseException], status: int) -> None:
        await gw.finish(call, status, usage=state["usage"], deployment=state["deployment"],
                        stream=True, error=error, content={"input": inputs})

    return await gw.stream_response(call, reply, encode, lambda: None, done)


async def _transcriptions(gw: Gateway, call: Call, request: Any) -> Any:
    from starlette.responses import JSONResponse, PlainTextResponse

    try:
        form = await request.form(max_files=1, max_fields=20)
    except GatewayError:
        raise
    except Exception as exc:
        raise GatewayError(400, f"expected a multipart form with 'file' and 'model' ({exc})",
                           headers={"x-should-retry": "false"}) from None
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    upload = form.get("file")
    target = gw.resolve(call, fields.pop("model", None))
    granularities = form.getlist("timestamp_granularities[]")
    fields.pop("timestamp_granularities[]", None)
    refuse_forbidden(fields)
    if upload is None or isinstance(upload, str):
        raise GatewayError(400, "file is required (the audio, as a multipart file)",
                           param="file", headers={"x-should-retry": "false"})
    if fields.pop("stream", "false").lower() == "true":
        raise GatewayError(400, "streamed transcriptions are not served by the gateway; "
                           "leave stream unset", param="stream",
                           headers={"x-should-retry": "false"})
    data = await upload.read()
    kwargs: dict[str, Any] = dict(fields)
    if "temperature" in kwargs:
        try:
            kwargs["temperature"] = float(kwargs["temperature"])
        except ValueError:
            raise GatewayError(400, "temperature must be a number", param="temperature",
                               headers={"x-should-retry": "false"}) from None
    if granularities:
        kwargs["timestamp_granularities"] = [g for g in granularities if isinstance(g, str)]
    await gw.begin(call, lambda: 0)  # not charged (docs/budgets.md): the key's limits only
    reply = await gw.client.audio.transcriptions.create(
        model=target, file=(upload.filename or "audio", data), **kwargs)
    await gw.finish(call, 200, deployment=target)
    if isinstance(reply, str):
        return PlainTextResponse(reply)
    return JSONResponse(reply.model_dump(mode="json", exclude_none=True, exclude=OURS))


async def _model_entry(gw: Gateway, alias: str) -> dict[str, Any]:
    """A model of the list in OpenAI's shape, with what the client knows of the model behind
    the alias (``client.models.info``: the snapshot and any probe profile; unknown facts are
    null and named in ``unknown``, each known one's origin in ``sources``). A router alias
    carries no facts: its deployments may differ."""
    entry: dict[str, Any] = {"id": alias, "object": "model", "created": 0,
                             "owned_by": "aisuite-like"}
    target = gw.config.models[alias]
    if target.startswith("router:"):
        return entry
    info = await gw.client.models.info(target)
    entry.update(info.model_dump(mode="json", include=set(FACT_FIELDS)))
    entry["unknown"] = info.unknown
    entry["sources"] = {name: info.source_of(name) for name in info.sources}
    return entry


async def _models(gw: Gateway, call: Call, request: Any) -> Any:
    from starlette.responses import JSONResponse

    allowed = call.key.models if call.key is not None else None
    data = [await _model_entry(gw, alias)
            for alias in gw.config.models if allowed is None or alias in allowed]
    await gw.finish(call, 200)
    return JSONResponse({"object": "list", "data": data})


async def _model(gw: Gateway, call: Call, request: Any) -> Any:
    """``GET /v1/models/{model}`` (the SDKs' ``models.retrieve``): 404 / 403 as a call would."""
    from starlette.responses import JSONResponse

    gw.resolve(call, request.path_params["model"])
    entry = await _model_entry(gw, request.path_params["model"])
    await gw.finish(call, 200)
    return JSONResponse(entry)


async def _messages(gw: Gateway, call: Call, request: Any) -> Any:
    body, target = await _call_body(gw, call, request)
    stream = bool(body.pop("stream", False))
    messages, kwargs = to_chat_arguments(body)
    if stream:
        kwargs["stream_options"] = {"include_usage": True}
    kwargs.update(await gw.begin(call, lambda: estimate(messages, kwargs.get("tools"))))
    alias = call.model or ""
    reply: Any = await gw.client.chat.completions.create(model=target, messages=messages,
                                                         stream=stream, **kwargs)
    if not stream:
        await gw.finish(call, 200, usage=reply.usage, deployment=deployment_of(reply),
                        cache_hit=reply.cache_hit,
                        content={"messages": messages, "reply": reply.content})
        return JSONReply(to_message(reply, alias))
    events = StreamEvents(alias)
    state: dict[str, Any] = {"usage": None, "deployment": None, "hit": False}

    def encode(chunk: Any) -> list[bytes]:
        state["deployment"] = state["deployment"] or deployment_of(chunk)
        state["hit"] = state["hit"] or chunk.cache_hit
        if chunk.usage is not None:
            state["usage"] = chunk.usage
        return list(events.chunk(chunk))

    async def done(error: Optional[BaseException], status: int) -> None:
        await gw.finish(call, status, usage=await final_usage(reply, state, error),
                        deployment=state["deployment"], cache_hit=state["hit"], stream=True,
                        error=error, content={"messages": messages})

    return await gw.stream_response(call, reply, encode, lambda: list(events.end()), done)


def _counted_model(gw: Gateway, target: str) -> Optional[str]:
    """The ``provider:model`` whose counting API counts a call of ``target``: itself, or a
    router alias's first deployment (the one tried first) when it overrides no provider
    settings (a count with other settings would reach another account); else None."""
    if not target.startswith("router:"):
        return target
    if gw.router is None:
        return None
    deployments = gw.router.deployments(target[7:])
    if not deployments or deployments[0].settings:
        return None
    return str(deployments[0].model)


async def _count_tokens(gw: Gateway, call: Call, request: Any) -> Any:
    """Anthropic's ``count_tokens``: the count of the model behind the alias
    (``client.models.count_tokens``: the family's counting API, or the estimate where it has
    none). Anthropic's reply has only ``input_tokens``; the header
    ``x-aisuite-token-count`` says ``exact`` or ``estimate``."""
    from starlette.responses import JSONResponse

    body, target = await _call_body(gw, call, request)
    body.setdefault("max_tokens", 1)
    messages, kwargs = to_chat_arguments(body)
    await gw.begin(call, lambda: 0)  # it may reach the provider: the rpm and in-flight limits
    counted = _counted_model(gw, target)
    if counted is None:
        tokens, exact = estimate(messages, kwargs.get("tools")), False
    else:
        count = await gw.client.models.count_tokens(counted, messages,
                                                    tools=kwargs.get("tools"))
        tokens, exact = count.input_tokens, count.exact
    await gw.finish(call, 200, deployment=counted)
    return JSONResponse({"input_tokens": tokens},
                        headers={"x-aisuite-token-count": "exact" if exact else "estimate"})


# --- admin ----------------------------------------------------------------------------------


async def _admin(gw: Gateway, request: Any, action: Callable[[], Awaitable[Any]]) -> Any:
    from starlette.responses import JSONResponse

    try:
        gw.check_admin(request)
        return await action()
    except Exception as exc:
        error = from_exception(exc)
        return JSONResponse(openai_body(error), status_code=error.status, headers=error.headers)


def _key_view(gw: Gateway, key: VirtualKey) -> dict[str, Any]:
    return key.public()


async def _key_usage(gw: Gateway, key: VirtualKey) -> dict[str, Any]:
    view = key.public()
    budget = gw.limits.budget(key)
    if budget is not None:
        usage = await budget.ausage()
        view["budget_usage"] = {"spent": usage.spent, "reserved": usage.reserved,
                                "remaining": usage.remaining, "window": usage.window}
    return view


def _endpoint(gw: Gateway, name: str, shape: str, handler: Callable[..., Awaitable[Any]]
              ) -> Callable[[Any], Awaitable[Any]]:
    """The endpoint of a Starlette route: ``handler`` through ``Gateway.serve``."""
    async def run(request: Any) -> Any:
        return await gw.serve(request, name, shape, lambda call, req: handler(gw, call, req))
    return run


def hot(gw: Gateway) -> dict[tuple[str, str], Callable[[Any], Awaitable[Any]]]:
    """The endpoints most requests reach, by (method, path): ``create_app`` serves these
    without Starlette's routing and middleware (a quarter of a request's CPU otherwise), and
    ``routes`` lists them too (for an app mounted under a root path)."""
    return {("POST", "/v1/chat/completions"): _endpoint(gw, "chat.completions", "openai", _chat),
            ("POST", "/v1/messages"): _endpoint(gw, "messages", "anthropic", _messages)}


def routes(gw: Gateway) -> list[Any]:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse
    from starlette.routing import Route

    def endpoint(name: str, shape: str, handler: Callable[..., Awaitable[Any]]) -> Any:
        return _endpoint(gw, name, shape, handler)

    async def list_keys(request: Request) -> Any:
        async def action() -> Any:
            keys = await asyncio.to_thread(gw.store.list_keys)
            return JSONResponse({"data": [await _key_usage(gw, k) for k in keys]})
        return await _admin(gw, request, action)

    async def create_key(request: Request) -> Any:
        async def action() -> Any:
            body = await json_body(request)
            budget = window = None
            if body.get("budget") is not None:
                budget, window = parse_budget(str(body["budget"]))
            models = body.get("models")
            if isinstance(models, str):
                models = [m for m in models.split(",")]
            unknown = [m for m in models or () if m.strip() not in gw.config.models]
            if unknown:
                raise GatewayError(400, f"models {', '.join(map(str, unknown))} are not in the "
                                   f"gateway's [models] ({', '.join(gw.config.models)})",
                                   param="models")
            expires = parse_duration(body["expires"]) if body.get("expires") else None
            text, key = await asyncio.to_thread(
                gw.store.create_key, str(body.get("name") or ""), models=models,
                rpm=body.get("rpm"), tpm=body.get("tpm"), budget=budget, budget_window=window,
                expires_in=expires)
            return JSONResponse({"key": text, **key.public()}, status_code=201)
        return await _admin(gw, request, action)

    async def revoke_key(request: Request) -> Any:
        async def action() -> Any:
            name = request.path_params["name"]
            revoked = await asyncio.to_thread(gw.store.revoke_key, name)
            gw.forget_key(name)
            if not revoked:
                raise GatewayError(404, f"no key named {name!r} that is not revoked",
                                   code="key_not_found")
            return JSONResponse({"name": name, "revoked": True})
        return await _admin(gw, request, action)

    async def spend(request: Request) -> Any:
        async def action() -> Any:
            await gw.recorder.flush()
            q = request.query_params
            try:
                since = float(q.get("since", "0"))
                bucket = float(q["bucket"]) if q.get("bucket") else None
            except ValueError:
                raise GatewayError(400, "since and bucket are numbers of seconds") from None
            rows = await asyncio.to_thread(gw.store.spend, q.get("by", "key"), since=since,
                                           bucket=bucket)
            return JSONResponse({"data": rows})
        return await _admin(gw, request, action)

    async def requests(request: Request) -> Any:
        async def action() -> Any:
            await gw.recorder.flush()
            try:
                limit = max(1, min(1000, int(request.query_params.get("limit", "50"))))
            except ValueError:
                raise GatewayError(400, "limit is an integer") from None
            rows = await asyncio.to_thread(gw.store.latest, limit)
            return JSONResponse({"data": rows})
        return await _admin(gw, request, action)

    async def metrics(request: Request) -> Any:
        if not gw.config.metrics_public:
            try:
                gw.check_admin(request)
            except GatewayError as error:
                return JSONResponse(openai_body(error), status_code=error.status)
        return PlainTextResponse(gw.metrics.render(),
                                 media_type="text/plain; version=0.0.4; charset=utf-8")

    async def ui(request: Request) -> Any:
        # The page holds no data: what it shows it reads with the admin key (ui.py).
        from .ui import PAGE

        return HTMLResponse(PAGE, headers={"cache-control": "no-store",
                                           "content-security-policy": _CSP,
                                           "referrer-policy": "no-referrer",
                                           "x-frame-options": "DENY"})

    async def health(request: Request) -> Any:
        return JSONResponse({"status": "draining" if gw.draining else "ok"},
                            status_code=503 if gw.draining else 200)

    return [
        *(Route(path, run, methods=[method]) for (method, path), run in hot(gw).items()),
        Route("/v1/embeddings", endpoint("embeddings", "openai", _embeddings),
              methods=["POST"]),
        Route("/v1/responses", endpoint("responses", "openai", _responses), methods=["POST"]),
        Route("/v1/audio/transcriptions",
              endpoint("audio.transcriptions", "openai", _transcriptions), methods=["POST"]),
        Route("/v1/models", endpoint("models", "openai", _models), methods=["GET"]),
        Route("/v1/models/{model:path}", endpoint("models", "openai", _model), methods=["GET"]),
        Route("/v1/messages/count_tokens",
              endpoint("messages.count_tokens", "anthropic", _count_tokens), methods=["POST"]),
        Route("/admin/keys", list_keys, methods=["GET"]),
        Route("/admin/keys", create_key, methods=["POST"]),
        Route("/admin/keys/{name}", revoke_key, methods=["DELETE"]),
        Route("/admin/spend", spend, methods=["GET"]),
        Route("/admin/requests", requests, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/ui", ui, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
    ]


_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self' data:")
