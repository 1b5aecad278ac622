"""Shared by the tests of ``client.responses``: one call on a fresh sync or async client, and
the openai SDK's own types to validate what we return (no logic under test lives here)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from openai.types.responses import Response as SDKResponse, ResponseStreamEvent
from pydantic import TypeAdapter

import aisuite_like as ai

_EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def respond(mode: str, config: Any = None, *, providers: Any = None, **kwargs: Any) -> Any:
    """``responses.create`` on a fresh ``Client`` (``sync``), the sync client's ``acreate``
    (``acreate``) or an ``AsyncClient`` (``async``)."""
    if mode == "sync":
        with ai.Client(config, providers=providers) as client:
            return client.responses.create(**kwargs)

    async def run() -> Any:
        if mode == "acreate":
            with ai.Client(config, providers=providers) as client:
                return await client.responses.acreate(**kwargs)
        async with ai.AsyncClient(config, providers=providers) as aclient:
            return await aclient.responses.create(**kwargs)

    return asyncio.run(run())


def respond_stream(mode: str, config: Any = None, *, providers: Any = None, **kwargs: Any
                   ) -> tuple[list[Any], Any]:
    """A streamed ``responses.create`` read to the end: (events, final response)."""
    kwargs["stream"] = True
    if mode == "sync":
        with ai.Client(config, providers=providers) as client:
            with client.responses.create(**kwargs) as stream:
                events = list(stream)
                return events, stream.get_final_response()

    async def run() -> tuple[list[Any], Any]:
        if mode == "acreate":
            with ai.Client(config, providers=providers) as client:
                stream = await client.responses.acreate(**kwargs)
                events = [e async for e in stream]
                return events, await stream.get_final_response()
        async with ai.AsyncClient(config, providers=providers) as aclient:
            async with await aclient.responses.create(**kwargs) as stream:
                events = [e async for e in stream]
                return events, await stream.get_final_response()

    return asyncio.run(run())


def sdk_response(response: Any) -> SDKResponse:
    """Our ``Response`` through the openai SDK's own type (raises when it does not fit)."""
    return SDKResponse.model_validate(json.loads(response.model_dump_json()))


def sdk_events(events: list[Any]) -> list[Any]:
    """Our events through the openai SDK's ``ResponseStreamEvent`` union, in order, with
    ``sequence_number`` counting up from 0."""
    out = [_EVENTS.validate_python(json.loads(e.model_dump_json())) for e in events]
    assert [e.sequence_number for e in out] == list(range(len(out)))
    assert out[0].type == "response.created" and out[-1].type in (
        "response.completed", "response.incomplete")
    return out


def stream_text(events: list[Any]) -> str:
    return "".join(e.delta for e in events if e.type == "response.output_text.delta")
