"""TypedDicts for the messages ``chat.completions.create`` takes, as in the OpenAI SDK, so a
user's editor completes message keys and their type checker checks them. Types only: nothing
here is used at runtime (any mapping of the OpenAI shape is accepted)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Union

from typing_extensions import Required, TypedDict

__all__ = [
    "ChatCompletionSystemMessageParam",
    "ChatCompletionDeveloperMessageParam",
    "ChatCompletionUserMessageParam",
    "ChatCompletionAssistantMessageParam",
    "ChatCompletionToolMessageParam",
    "ChatCompletionMessageParam",
]

# Content is a string or a list of content parts (text, image_url, ...: dicts of the OpenAI
# shape, kept open so every part type providers accept type-checks).
_Content = Union[str, Iterable[dict[str, Any]]]


class ChatCompletionSystemMessageParam(TypedDict, total=False):
    """``{"role": "system", "content": ...}``."""

    role: Required[Literal["system"]]
    content: Required[_Content]
    name: str


class ChatCompletionDeveloperMessageParam(TypedDict, total=False):
    """``{"role": "developer", "content": ...}`` (OpenAI's name for system)."""

    role: Required[Literal["developer"]]
    content: Required[_Content]
    name: str


class ChatCompletionUserMessageParam(TypedDict, total=False):
    """``{"role": "user", "content": ...}``."""

    role: Required[Literal["user"]]
    content: Required[_Content]
    name: str


class _ToolCallFunctionParam(TypedDict):
    name: str
    arguments: str


class _ToolCallParam(TypedDict):
    id: str
    type: Literal["function"]
    function: _ToolCallFunctionParam


class ChatCompletionAssistantMessageParam(TypedDict, total=False):
    """``{"role": "assistant", "content": ..., "tool_calls": [...]}``."""

    role: Required[Literal["assistant"]]
    content: Union[_Content, None]
    name: str
    refusal: Union[str, None]
    tool_calls: Iterable[_ToolCallParam]


class ChatCompletionToolMessageParam(TypedDict, total=False):
    """``{"role": "tool", "tool_call_id": ..., "content": ...}``: a tool's result."""

    role: Required[Literal["tool"]]
    content: Required[_Content]
    tool_call_id: Required[str]


ChatCompletionMessageParam = Union[
    ChatCompletionSystemMessageParam,
    ChatCompletionDeveloperMessageParam,
    ChatCompletionUserMessageParam,
    ChatCompletionAssistantMessageParam,
    ChatCompletionToolMessageParam,
]
