"""What the Bedrock test files share: the model, a user message, and one create() call on the
sync or the async client against a loopback server's config."""

from __future__ import annotations

import asyncio
from typing import Any

import aisuite_like as ai

USER = [{"role": "user", "content": "Hi"}]
MODEL = "bedrock:anthropic.claude-sonnet-4-v1:0"
MODEL_ID = "anthropic.claude-sonnet-4-v1:0"


def create(mode: str, config: dict[str, Any], **kwargs: Any) -> Any:
    """One create() call on the sync (``mode="sync"``) or the async client."""
    kwargs.setdefault("model", MODEL)
    kwargs.setdefault("messages", USER)
    if mode == "sync":
        return ai.Client({"bedrock": config}).chat.completions.create(**kwargs)

    async def run() -> Any:
        client = ai.AsyncClient({"bedrock": config})
        try:
            return await client.chat.completions.create(**kwargs)
        finally:
            await client.aclose()

    return asyncio.run(run())
