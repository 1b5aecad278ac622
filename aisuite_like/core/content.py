"""The text of OpenAI-style message content, as every layer reads it."""

from __future__ import annotations

from typing import Any

__all__ = ["text_of"]


def text_of(content: Any) -> str:
    """Message content (str or list of OpenAI parts) -> its text, parts joined in order."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict)
                   and p.get("type") == "text")
