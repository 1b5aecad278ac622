"""The public API of ``aisuite_like`` is pinned: a name added to or removed from ``__all__``
is a decision (and a line in docs/), never an accident of an import. Every public name is
importable, loaded lazily where ``_LAZY`` says, and documented."""

from __future__ import annotations

import typing

import aisuite_like as ai

PUBLIC = [
    "APIConnectionError", "APIError", "APIResponseValidationError", "APIStatusError",
    "APITimeoutError", "Agent", "AgentEvent", "AgentHandoff", "AgentHookContext", "AgentHooks",
    "AgentUpdatedStreamEvent", "AisuiteLikeError", "AllowAll", "AllowTools", "AsyncAzureOpenAI",
    "AsyncChatCompletionStream", "AsyncClient", "AsyncOpenAI", "AsyncResponseStream",
    "AsyncStream", "AuthenticationError", "AzureOpenAI", "BadRequestError", "Batch", "BatchError",
    "BatchPart", "BatchRequestCancelledError", "BatchRequestError", "BatchRequestExpiredError",
    "BatchTimeoutError", "BinaryResponse", "Budget", "BudgetExceededError", "BudgetStateError",
    "ChatCompletionAssistantMessageParam", "ChatCompletionChunk",
    "ChatCompletionDeveloperMessageParam", "ChatCompletionMessageParam", "ChatCompletionResponse",
    "ChatCompletionStream", "ChatCompletionSystemMessageParam", "ChatCompletionToolMessageParam",
    "ChatCompletionUserMessageParam", "ChatRequest", "Choice", "ChoiceDelta",
    "ChoiceDeltaToolCall", "ChunkEvent", "Client", "CompletionTokensDetails", "ConcurrentRunError",
    "ConfigurationError", "ContentDeltaEvent", "ContentDoneEvent",
    "ContentFilterFinishReasonError", "ContextEvent", "ContextStrategy", "ContextUpdated",
    "ContextWindowExceededError", "CreateEmbeddingResponse", "DenyAll", "Embedding",
    "EmbeddingRequest", "EmbeddingUsage", "FileDeleted", "FileObject", "Function",
    "FunctionToolCallArgumentsDeltaEvent", "FunctionToolCallArgumentsDoneEvent",
    "GuardrailFunctionOutput", "Handoff", "HandoffCallItem", "HandoffInputData",
    "HandoffOutputItem", "Image", "ImagesResponse", "InputGuardrail", "InputGuardrailResult",
    "InputGuardrailTripwireTriggered", "InternalServerError", "InvalidBatchIdError",
    "InvalidModelError", "ItemHelpers", "LengthFinishReasonError", "LogprobsContentDeltaEvent",
    "LogprobsContentDoneEvent", "LogprobsRefusalDeltaEvent", "LogprobsRefusalDoneEvent", "MCPError", "MaxTurnsExceeded",
    "Message", "MessageOutputItem", "MissingDependencyError", "Model", "ModelCapabilityError", "ModelInfo", "ModelList",
    "ModelRequest",
    "ModelResponse", "Moderation", "ModerationCreateResponse", "NotFoundError", "OpenAI",
    "OrphanToolMessageError", "OutputGuardrail", "OutputGuardrailResult",
    "OutputGuardrailTripwireTriggered", "OutputValidationError", "PermissionDeniedError",
    "PromptTokensDetails", "PromptTooLongError", "Provider", "RateLimitError", "RawResponsesStreamEvent",
    "RedirectError", "RefusalDeltaEvent", "RefusalDoneEvent", "RequestUsage", "RequireApproval",
    "Response", "ResponseStream", "ResponseStreamEvent", "ResponseUsage", "Router", "RunCompleted",
    "RunContextWrapper", "RunHooks", "RunItem", "RunItemStreamEvent", "RunLimits", "RunResult",
    "RunResultStreaming", "RunStarted", "RunState", "RunUsage", "Runner", "Session",
    "SkippedModel", "Stream", "StreamEvent", "TResponseInputItem", "TextDelta", "TokenCount", "Tool",
    "ToolApprovalItem", "ToolCall", "ToolCallExecutionEvent", "ToolCallItem", "ToolCallOutputItem",
    "ToolCallRequestEvent", "ToolCallSummary", "ToolContext", "ToolEvent", "ToolExecutionError",
    "ToolPolicyContext", "ToolPolicyDecision", "Tools", "Trace", "Transcription",
    "TranscriptionSegment", "TranscriptionTextDeltaEvent", "TranscriptionTextDoneEvent",
    "TranscriptionWord", "Translation", "UnknownProviderError", "UnpricedModelError",
    "UnsupportedFeatureError", "UnsupportedParameterError", "Usage", "budgets", "cache", "context",
    "durable", "fit_tokens", "function_tool", "gateway", "handoff", "handoff_filters",
    "input_guardrail", "instrument", "keep_last", "output_guardrail", "provider_keys", "pydantic_function_tool",
    "register_provider", "responses", "router", "set_default_model", "testing", "tool", "tools",
    "trace", "uninstrument",
]

# Type aliases (unions of classes) carry no docstring of their own at run time.
ALIASES = {"AgentEvent", "ChatCompletionMessageParam", "ContextStrategy", "RunItem", "StreamEvent",
           "ResponseStreamEvent",
           "TResponseInputItem"}


def test_all_is_pinned() -> None:
    assert sorted(ai.__all__) == PUBLIC
    assert len(set(ai.__all__)) == len(ai.__all__), "a name listed twice in __all__"


def test_every_public_name_resolves_and_is_documented() -> None:
    undocumented = []
    for name in PUBLIC:
        value = getattr(ai, name)
        if name in ALIASES or isinstance(value, type(ai)):
            continue
        if not (getattr(value, "__doc__", None) or "").strip() or (
                isinstance(value, type) and value.__doc__ == type(value).__doc__):
            undocumented.append(name)
    assert not undocumented, f"public names without a docstring: {undocumented}"
    for name in ALIASES:
        assert typing.get_origin(getattr(ai, name)) is not None  # an alias, not a class
