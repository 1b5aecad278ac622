"""Family-neutral call helpers for the provider tests: one ``create`` / ``stream`` on a fresh
sync Client or AsyncClient, and the wire JSON of a respx call (no logic under test lives here)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

import aisuite_like as ai


def wire(route: Any, i: int = -1) -> dict[str, Any]:
    """The JSON body the SDK actually sent on call ``i`` of a respx route."""
    return json.loads(route.calls[i].request.content)


def create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    """``chat.completions.create`` on a fresh sync Client or AsyncClient."""
    if mode == "sync":
        with ai.Client(config) as client:
            return client.chat.completions.create(**kwargs)

    async def run() -> Any:
        async with ai.AsyncClient(config) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(run())


def stream(mode: str, config: dict[str, Any], **kwargs: Any) -> tuple[list, Any, Optional[BaseException], list]:
    """Stream to the end. Returns (chunks iterated, final response or None, error raised or
    None, ``stream.chunks``)."""
    kwargs["stream"] = True
    if mode == "sync":
        client = ai.Client(config)
        try:  # an HTTP error before the first chunk raises at create(), as in the OpenAI SDK
            s = client.chat.completions.create(**kwargs)
        except ai.AisuiteLikeError as exc:
            client.close()
            return [], None, exc, []
        seen: list = []
        try:
            with s:
                for c in s:
                    seen.append(c)
                return seen, s.get_final_response(), None, s.chunks
        except ai.AisuiteLikeError as exc:
            return seen, None, exc, s.chunks
        finally:
            client.close()

    async def run() -> tuple[list, Any, Optional[BaseException], list]:
        async with ai.AsyncClient(config) as client:
            try:
                s = await client.chat.completions.create(**kwargs)
            except ai.AisuiteLikeError as exc:
                return [], None, exc, []
            seen: list = []
            try:
                async with s:
                    async for c in s:
                        seen.append(c)
                    return seen, await s.get_final_response(), None, s.chunks
            except ai.AisuiteLikeError as exc:
                return seen, None, exc, s.chunks

    return asyncio.run(run())


def embed(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    """``embeddings.create`` on a fresh sync Client (``mode="sync"``), the sync client's
    ``acreate`` (``"acreate"``) or an AsyncClient (``"async"``); on the transport the test
    runs on (support/transports.py)."""
    from .transports import with_transport

    config = with_transport(config)
    if mode == "sync":
        with ai.Client(config) as client:
            return client.embeddings.create(**kwargs)

    async def run() -> Any:
        if mode == "acreate":
            client = ai.Client(config)
            try:
                return await client.embeddings.acreate(**kwargs)
            finally:
                await asyncio.to_thread(client.close)
        async with ai.AsyncClient(config) as aclient:
            return await aclient.embeddings.create(**kwargs)

    return asyncio.run(run())
