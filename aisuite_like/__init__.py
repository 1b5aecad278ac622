"""aisuite-like: one OpenAI-shaped client for many LLM providers, with a bounded tool runner.

    import aisuite_like as ai
    client = ai.Client()
    resp = client.chat.completions.create(model="openai:gpt-4o", messages=[...])

Importing this package loads no vendor SDK; each provider's SDK is imported on first use.
Everything heavier than the client and the error tree (the pydantic types, tools, policies,
agents, the testing kit) loads on first attribute access, so the import stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from .client.facade import AsyncClient, Client
from .client.module_client import ENDPOINTS as _MODULE_CLIENT
from .core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BudgetExceededError,
    BudgetStateError,
    ConcurrentRunError,
    ConfigurationError,
    ContextWindowExceededError,
    InputGuardrailTripwireTriggered,
    InternalServerError,
    InvalidModelError,
    MaxTurnsExceeded,
    MCPError,
    MissingDependencyError,
    ModelCapabilityError,
    NotFoundError,
    OrphanToolMessageError,
    OutputGuardrailTripwireTriggered,
    OutputValidationError,
    PermissionDeniedError,
    PromptTooLongError,
    RateLimitError,
    RedirectError,
    ToolExecutionError,
    UnknownProviderError,
    UnpricedModelError,
    UnsupportedFeatureError,
    UnsupportedParameterError,
)
from .core.version import VERSION
from .providers.registry import provider_keys, register_provider

__version__ = VERSION

#: The OpenAI SDK's names of the two clients, so that code ported from it runs with its import
#: changed (``from aisuite_like import OpenAI``; docs/migration.md).
OpenAI = Client
AsyncOpenAI = AsyncClient

#: The module-level client's settings, as the OpenAI SDK's ``openai.api_key = ...``
#: (client/module_client.py; docs/migration.md, "The module-level client").
api_key: Optional[str] = None
organization: Optional[str] = None
project: Optional[str] = None
base_url: Optional[str] = None
default_headers: Optional[Mapping[str, str]] = None
timeout: Any = None
max_retries: Optional[int] = None
transport: Optional[str] = None

if TYPE_CHECKING:  # the module-level client's endpoints (``aisuite_like.chat``), typed
    from .client.facade import _Beta, _Chat, _Completions
    from .endpoints.audio import Audio
    from .endpoints.embeddings import Embeddings
    from .endpoints.files import Files
    from .endpoints.images import Images
    from .endpoints.models import Models
    from .endpoints.moderations import Moderations

    chat: _Chat[_Completions]
    beta: _Beta[_Completions]
    embeddings: Embeddings
    models: Models
    audio: Audio
    images: Images
    moderations: Moderations
    files: Files

if TYPE_CHECKING:  # the lazy names below, as type checkers and editors see them
    from . import (
        budgets as budgets,
        cache as cache,
        context as context,
        durable as durable,
        gateway as gateway,
        handoff_filters as handoff_filters,
        responses as responses,
        router as router,
        testing as testing,
        tools as tools,
    )
    from .agents.agent import (
        AgentHandoff as AgentHandoff,
        AgentHooks as AgentHooks,
        GuardrailFunctionOutput as GuardrailFunctionOutput,
        InputGuardrail as InputGuardrail,
        InputGuardrailResult as InputGuardrailResult,
        OutputGuardrail as OutputGuardrail,
        OutputGuardrailResult as OutputGuardrailResult,
        RunHooks as RunHooks,
        handoff as handoff,
        input_guardrail as input_guardrail,
        output_guardrail as output_guardrail,
    )
    from .agents.items import (
        AgentUpdatedStreamEvent as AgentUpdatedStreamEvent,
        HandoffCallItem as HandoffCallItem,
        HandoffInputData as HandoffInputData,
        HandoffOutputItem as HandoffOutputItem,
        ItemHelpers as ItemHelpers,
        MessageOutputItem as MessageOutputItem,
        ModelResponse as ModelResponse,
        RawResponsesStreamEvent as RawResponsesStreamEvent,
        RunItem as RunItem,
        RunItemStreamEvent as RunItemStreamEvent,
        StreamEvent as StreamEvent,
        ToolApprovalItem as ToolApprovalItem,
        ToolCallItem as ToolCallItem,
        ToolCallOutputItem as ToolCallOutputItem,
    )
    from .agents.run import (
        Agent as Agent,
        AgentEvent as AgentEvent,
        ContextStrategy as ContextStrategy,
        ContextUpdated as ContextUpdated,
        Handoff as Handoff,
        ModelRequest as ModelRequest,
        RunCompleted as RunCompleted,
        RunLimits as RunLimits,
        Runner as Runner,
        RunResult as RunResult,
        RunResultStreaming as RunResultStreaming,
        RunStarted as RunStarted,
        Session as Session,
        TextDelta as TextDelta,
        ToolCallExecutionEvent as ToolCallExecutionEvent,
        ToolCallRequestEvent as ToolCallRequestEvent,
        ToolCallSummary as ToolCallSummary,
        fit_tokens as fit_tokens,
        keep_last as keep_last,
    )
    from .agents.sdk import function_tool as function_tool, set_default_model as set_default_model
    from .agents.state import RunState as RunState
    from .batches.api import (
        Batch as Batch,
        BatchError as BatchError,
        BatchPart as BatchPart,
        BatchRequestCancelledError as BatchRequestCancelledError,
        BatchRequestError as BatchRequestError,
        BatchRequestExpiredError as BatchRequestExpiredError,
        BatchTimeoutError as BatchTimeoutError,
        InvalidBatchIdError as InvalidBatchIdError,
    )
    from .budgets.budget import Budget as Budget
    from .client.azure import AsyncAzureOpenAI as AsyncAzureOpenAI, AzureOpenAI as AzureOpenAI
    from .client.stream_events import (
        AsyncChatCompletionStream as AsyncChatCompletionStream,
        ChatCompletionStream as ChatCompletionStream,
        ChunkEvent as ChunkEvent,
        ContentDeltaEvent as ContentDeltaEvent,
        ContentDoneEvent as ContentDoneEvent,
        FunctionToolCallArgumentsDeltaEvent as FunctionToolCallArgumentsDeltaEvent,
        FunctionToolCallArgumentsDoneEvent as FunctionToolCallArgumentsDoneEvent,
        LogprobsContentDeltaEvent as LogprobsContentDeltaEvent,
        LogprobsContentDoneEvent as LogprobsContentDoneEvent,
        LogprobsRefusalDeltaEvent as LogprobsRefusalDeltaEvent,
        LogprobsRefusalDoneEvent as LogprobsRefusalDoneEvent,
        RefusalDeltaEvent as RefusalDeltaEvent,
        RefusalDoneEvent as RefusalDoneEvent,
    )
    from .client.structured import (
        ContentFilterFinishReasonError as ContentFilterFinishReasonError,
        LengthFinishReasonError as LengthFinishReasonError,
        pydantic_function_tool as pydantic_function_tool,
    )
    from .core.audio import (
        Transcription as Transcription,
        TranscriptionSegment as TranscriptionSegment,
        TranscriptionTextDeltaEvent as TranscriptionTextDeltaEvent,
        TranscriptionTextDoneEvent as TranscriptionTextDoneEvent,
        TranscriptionWord as TranscriptionWord,
    )
    from .core.embeddings import (
        CreateEmbeddingResponse as CreateEmbeddingResponse,
        Embedding as Embedding,
        EmbeddingUsage as EmbeddingUsage,
    )
    from .core.media import (
        BinaryResponse as BinaryResponse,
        FileDeleted as FileDeleted,
        FileObject as FileObject,
        Image as Image,
        ImagesResponse as ImagesResponse,
        Moderation as Moderation,
        ModerationCreateResponse as ModerationCreateResponse,
        Translation as Translation,
    )
    from .core.message_params import (
        ChatCompletionAssistantMessageParam as ChatCompletionAssistantMessageParam,
        ChatCompletionDeveloperMessageParam as ChatCompletionDeveloperMessageParam,
        ChatCompletionMessageParam as ChatCompletionMessageParam,
        ChatCompletionSystemMessageParam as ChatCompletionSystemMessageParam,
        ChatCompletionToolMessageParam as ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam as ChatCompletionUserMessageParam,
    )
    from .core.responses import (
        Response as Response,
        ResponseStreamEvent as ResponseStreamEvent,
        ResponseUsage as ResponseUsage,
        TResponseInputItem as TResponseInputItem,
    )
    from .core.run_context import (
        AgentHookContext as AgentHookContext,
        RequestUsage as RequestUsage,
        RunContextWrapper as RunContextWrapper,
        RunUsage as RunUsage,
        ToolContext as ToolContext,
    )
    from .core.streaming import AsyncStream as AsyncStream, Stream as Stream
    from .core.tracing import Trace as Trace, trace as trace
    from .core.types import (
        ChatCompletionChunk as ChatCompletionChunk,
        ChatCompletionResponse as ChatCompletionResponse,
        Choice as Choice,
        ChoiceDelta as ChoiceDelta,
        ChoiceDeltaToolCall as ChoiceDeltaToolCall,
        CompletionTokensDetails as CompletionTokensDetails,
        ContextEvent as ContextEvent,
        Function as Function,
        Message as Message,
        Model as Model,
        PromptTokensDetails as PromptTokensDetails,
        SkippedModel as SkippedModel,
        TokenCount as TokenCount,
        ToolCall as ToolCall,
        ToolEvent as ToolEvent,
        Usage as Usage,
    )
    from .endpoints.models import ModelList as ModelList
    from .endpoints.responses import (
        AsyncResponseStream as AsyncResponseStream,
        ResponseStream as ResponseStream,
    )
    from .model_info.types import ModelInfo as ModelInfo
    from .observability.switch import instrument as instrument, uninstrument as uninstrument
    from .providers.base import (
        ChatRequest as ChatRequest,
        EmbeddingRequest as EmbeddingRequest,
        Provider as Provider,
    )
    from .router.api import Router as Router
    from .tools.base import Tool as Tool, tool as tool
    from .tools.policy import (
        AllowAll as AllowAll,
        AllowTools as AllowTools,
        DenyAll as DenyAll,
        RequireApproval as RequireApproval,
        ToolPolicyContext as ToolPolicyContext,
        ToolPolicyDecision as ToolPolicyDecision,
    )
    from .tools.toolset import Tools as Tools

# name -> module that defines it, imported on first access (PEP 562).
_LAZY = {
    # providers/base.py
    "ChatRequest": "providers.base", "Provider": "providers.base",
    "EmbeddingRequest": "providers.base",
    # core/streaming.py
    "Stream": "core.streaming", "AsyncStream": "core.streaming",
    # tools/base.py
    "Tool": "tools.base", "Tools": "tools.toolset", "tool": "tools.base",
    # core/types.py (pydantic models: building them is most of the import cost, so on first use)
    **{name: "core.types" for name in (
        "ChatCompletionChunk", "ChatCompletionResponse", "Choice", "ChoiceDelta",
        "ChoiceDeltaToolCall", "CompletionTokensDetails", "Function", "Message",
        "PromptTokensDetails", "ToolCall", "ToolEvent", "Usage", "SkippedModel",
        "ContextEvent")},
    # core/embeddings.py (client.embeddings.create)
    **{name: "core.embeddings" for name in (
        "CreateEmbeddingResponse", "Embedding", "EmbeddingUsage")},
    # core/audio.py (client.audio.transcriptions; docs/audio.md)
    **{name: "core.audio" for name in (
        "Transcription", "TranscriptionSegment", "TranscriptionWord",
        "TranscriptionTextDeltaEvent", "TranscriptionTextDoneEvent")},
    # core/media.py (client.images, .moderations, .files, audio.speech / .translations)
    **{name: "core.media" for name in (
        "ImagesResponse", "Image", "ModerationCreateResponse", "Moderation", "FileObject",
        "FileDeleted", "Translation", "BinaryResponse")},
    # tools/policy.py
    **{name: "tools.policy" for name in (
        "AllowAll", "DenyAll", "AllowTools", "RequireApproval", "ToolPolicyContext",
        "ToolPolicyDecision")},
    # agents/run.py
    **{name: "agents.run" for name in (
        "Agent", "Runner", "RunResult", "RunLimits", "Session", "ToolCallSummary", "keep_last",
        "fit_tokens", "RunStarted", "ModelRequest", "TextDelta", "ToolCallRequestEvent",
        "ToolCallExecutionEvent", "Handoff", "RunCompleted", "AgentEvent", "ContextStrategy",
        "ContextUpdated",
        "RunResultStreaming")},
    # the OpenAI Agents SDK's names (docs/agents.md, "Agents SDK compatibility")
    "RunContextWrapper": "core.run_context", "RunUsage": "core.run_context",
    "RequestUsage": "core.run_context", "AgentHookContext": "core.run_context",
    "ToolContext": "core.run_context", "ModelResponse": "agents.items",
    "trace": "core.tracing", "Trace": "core.tracing",
    # core/responses.py, endpoints/responses.py (client.responses; all the Responses API's
    # types are in aisuite_like.responses)
    **{name: "core.responses" for name in (
        "Response", "ResponseUsage", "ResponseStreamEvent", "TResponseInputItem")},
    "ResponseStream": "endpoints.responses", "AsyncResponseStream": "endpoints.responses",
    **{name: "agents.agent" for name in (
        "handoff", "GuardrailFunctionOutput", "InputGuardrail", "OutputGuardrail",
        "InputGuardrailResult", "OutputGuardrailResult", "input_guardrail", "output_guardrail",
        "RunHooks", "AgentHooks", "AgentHandoff")},
    "function_tool": "agents.sdk", "set_default_model": "agents.sdk",
    **{name: "agents.items" for name in (
        "MessageOutputItem", "ToolCallItem", "ToolCallOutputItem", "HandoffCallItem",
        "HandoffOutputItem", "ToolApprovalItem", "RunItem", "ItemHelpers",
        "RawResponsesStreamEvent", "RunItemStreamEvent", "AgentUpdatedStreamEvent",
        "StreamEvent", "HandoffInputData")},
    "RunState": "agents.state",
    # observability (OpenTelemetry: opentelemetry itself is imported by instrument())
    "instrument": "observability.switch", "uninstrument": "observability.switch",
    # client/structured.py (chat.completions.parse)
    "LengthFinishReasonError": "client.structured",
    "ContentFilterFinishReasonError": "client.structured",
    "pydantic_function_tool": "client.structured",
    # core/types.py, endpoints/models.py (client.models)
    "Model": "core.types",
    "ModelList": "endpoints.models",
    # client.models.info / count_tokens (docs/models.md)
    "ModelInfo": "model_info.types", "TokenCount": "core.types",
    # client/stream_events.py (chat.completions.stream)
    **{name: "client.stream_events" for name in (
        "ChatCompletionStream", "AsyncChatCompletionStream", "ChunkEvent", "ContentDeltaEvent",
        "ContentDoneEvent", "RefusalDeltaEvent", "RefusalDoneEvent",
        "FunctionToolCallArgumentsDeltaEvent", "FunctionToolCallArgumentsDoneEvent",
        "LogprobsContentDeltaEvent", "LogprobsContentDoneEvent", "LogprobsRefusalDeltaEvent",
        "LogprobsRefusalDoneEvent")},
    # core/message_params.py (TypedDicts of the messages create() takes)
    **{name: "core.message_params" for name in (
        "ChatCompletionMessageParam", "ChatCompletionSystemMessageParam",
        "ChatCompletionDeveloperMessageParam", "ChatCompletionUserMessageParam",
        "ChatCompletionAssistantMessageParam", "ChatCompletionToolMessageParam")},
    # batches/api.py (client.batches; provider batch APIs)
    **{name: "batches.api" for name in (
        "Batch", "BatchPart", "BatchError", "InvalidBatchIdError", "BatchRequestError",
        "BatchTimeoutError", "BatchRequestCancelledError", "BatchRequestExpiredError")},
    # client/azure.py (the OpenAI SDK's Azure clients' names; docs/migration.md)
    "AzureOpenAI": "client.azure", "AsyncAzureOpenAI": "client.azure",
    # router/api.py (routing across deployments: ai.Client(router=ai.Router(...)))
    "Router": "router.api",
    # budgets/budget.py (a cost limit admitting every call: docs/budgets.md)
    "Budget": "budgets.budget",
    # modules
    "testing": None, "handoff_filters": None, "durable": None,
    "cache": None,  # the response cache's backends (docs/cache.md)
    "responses": None,  # the Responses API's types (docs/responses.md)
    "router": None,  # Router, MemoryState, RedisState (docs/router.md)
    "budgets": None,  # Budget, MemoryState, RedisState (docs/budgets.md)
    "gateway": None,  # create_app, GatewayConfig: `aisuite-like serve` (docs/gateway.md)
    "context": None,  # Trim, Summarize, Native (docs/context.md)
    "tools": None,  # Tool, @tool, and the hosted WebSearch, CodeExecution, WebFetch
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
    if name in _MODULE_CLIENT:  # not cached: the client follows the settings above
        from .client.module_client import module_client

        return getattr(module_client(globals()), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


# The names loaded with the package (the client, the error tree, the registry), then the lazy
# ones; tests/test_public_api.py pins the whole list.
__all__ = [
    "Client", "AsyncClient", "OpenAI", "AsyncOpenAI", "register_provider", "provider_keys",
    "AisuiteLikeError", "APIError", "APIStatusError", "AuthenticationError",
    "PermissionDeniedError", "NotFoundError", "BadRequestError", "ContextWindowExceededError",
    "RateLimitError", "APITimeoutError", "APIConnectionError", "RedirectError",
    "InternalServerError", "APIResponseValidationError", "InvalidModelError",
    "UnknownProviderError", "MissingDependencyError", "UnsupportedParameterError",
    "OrphanToolMessageError", "ModelCapabilityError", "PromptTooLongError",
    "UnsupportedFeatureError", "ConfigurationError", "ToolExecutionError", "MaxTurnsExceeded",
    "OutputValidationError", "ConcurrentRunError", "InputGuardrailTripwireTriggered",
    "OutputGuardrailTripwireTriggered", "MCPError", "BudgetExceededError",
    "UnpricedModelError", "BudgetStateError",
    *_LAZY,
]
