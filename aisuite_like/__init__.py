"""aisuite-like: one OpenAI-shaped client for many LLM providers, with a bounded tool runner.

    import aisuite_like as ai
    client = ai.Client()
    resp = client.chat.completions.create(model="openai:gpt-4o", messages=[...])

Importing this package loads no vendor SDK; each provider's SDK is imported on first use.
Everything heavier than the client and the error tree (the pydantic types, tools, policies,
agents, the testing kit) loads on first attribute access, so the import stays cheap.
"""

from __future__ import annotations

from typing import Any

from .client import AsyncClient, Client
from .errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConcurrentRunError,
    ConfigurationError,
    ContextWindowExceededError,
    InputGuardrailTripwireTriggered,
    InternalServerError,
    InvalidModelError,
    MaxTurnsExceeded,
    MissingDependencyError,
    NotFoundError,
    OutputGuardrailTripwireTriggered,
    OutputValidationError,
    PermissionDeniedError,
    RateLimitError,
    ToolExecutionError,
    UnknownProviderError,
    UnsupportedParameterError,
)
from .providers import provider_keys, register_provider

__version__ = "0.1.0"

# name -> module that defines it, imported on first access (PEP 562).
_LAZY = {
    # providers/base.py
    "ChatRequest": "providers.base", "Provider": "providers.base",
    # streaming.py
    "Stream": "streaming", "AsyncStream": "streaming",
    # tools.py
    "Tool": "tools", "Tools": "tools", "tool": "tools",
    # types.py (pydantic models: building them is most of the import cost, so on first use)
    **{name: "types" for name in (
        "ChatCompletionChunk", "ChatCompletionResponse", "Choice", "ChoiceDelta",
        "ChoiceDeltaToolCall", "CompletionTokensDetails", "Function", "Message",
        "PromptTokensDetails", "ToolCall", "ToolEvent", "Usage")},
    # policy.py
    "AllowAll": "policy", "DenyAll": "policy", "AllowTools": "policy",
    "RequireApproval": "policy", "ToolPolicyContext": "policy", "ToolPolicyDecision": "policy",
    # agents.py
    "Agent": "agents", "Runner": "agents", "RunResult": "agents", "RunLimits": "agents",
    "Session": "agents", "ToolCallSummary": "agents", "keep_last": "agents",
    "fit_tokens": "agents", "RunStarted": "agents", "ModelRequest": "agents",
    "TextDelta": "agents", "ToolCallRequestEvent": "agents",
    "ToolCallExecutionEvent": "agents", "Handoff": "agents", "RunCompleted": "agents",
    "AgentEvent": "agents", "ContextStrategy": "agents", "RunResultStreaming": "agents",
    # the OpenAI Agents SDK's names (docs/agents.md, "Agents SDK compatibility")
    "RunContextWrapper": "_run_context", "RunUsage": "_run_context",
    **{name: "_agent_sdk" for name in (
        "function_tool", "GuardrailFunctionOutput", "InputGuardrail", "OutputGuardrail",
        "InputGuardrailResult", "OutputGuardrailResult", "input_guardrail", "output_guardrail",
        "RunHooks", "AgentHooks", "AgentHandoff", "set_default_model")},
    "handoff": "_agent_config",
    **{name: "_agent_items" for name in (
        "MessageOutputItem", "ToolCallItem", "ToolCallOutputItem", "HandoffCallItem",
        "HandoffOutputItem", "ToolApprovalItem", "RunItem", "ItemHelpers",
        "RawResponsesStreamEvent", "RunItemStreamEvent", "AgentUpdatedStreamEvent",
        "StreamEvent", "HandoffInputData")},
    "RunState": "_agent_state",
    # _observe.py (OpenTelemetry: opentelemetry itself is imported by instrument())
    "instrument": "_observe", "uninstrument": "_observe",
    # modules
    "testing": None, "handoff_filters": None,
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = _LAZY[name]
        if module is None:
            value = importlib.import_module(f".{name}", __name__)
        else:
            value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "Client", "AsyncClient", "Stream", "AsyncStream", "Tool", "Tools", "tool",
    "ChatRequest", "Provider", "register_provider", "provider_keys",
    "ChatCompletionResponse", "ChatCompletionChunk", "Choice", "ChoiceDelta",
    "ChoiceDeltaToolCall", "Message", "ToolCall", "Function", "Usage", "PromptTokensDetails",
    "CompletionTokensDetails", "ToolEvent",
    "AisuiteLikeError", "APIError", "AuthenticationError", "PermissionDeniedError",
    "NotFoundError", "BadRequestError", "ContextWindowExceededError", "RateLimitError",
    "APITimeoutError", "APIConnectionError", "InternalServerError", "InvalidModelError",
    "UnknownProviderError", "MissingDependencyError", "UnsupportedParameterError",
    "ConfigurationError",
    "ToolExecutionError", "MaxTurnsExceeded", "OutputValidationError", "ConcurrentRunError",
    "InputGuardrailTripwireTriggered", "OutputGuardrailTripwireTriggered",
    *_LAZY,
]
