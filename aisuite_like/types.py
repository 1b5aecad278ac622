"""The response and message types (public import path; defined in ``aisuite_like.core``)."""

from __future__ import annotations

from .core.audio import (
    Transcription as Transcription,
    TranscriptionSegment as TranscriptionSegment,
    TranscriptionStreamEvent as TranscriptionStreamEvent,
    TranscriptionTextDeltaEvent as TranscriptionTextDeltaEvent,
    TranscriptionTextDoneEvent as TranscriptionTextDoneEvent,
    TranscriptionWord as TranscriptionWord,
)
from .core.embeddings import (
    CreateEmbeddingResponse as CreateEmbeddingResponse,
    Embedding as Embedding,
    EmbeddingUsage as EmbeddingUsage,
)
from .core.types import (
    ChatCompletionChunk as ChatCompletionChunk,
    ChatCompletionResponse as ChatCompletionResponse,
    ChatCompletionTokenLogprob as ChatCompletionTokenLogprob,
    Choice as Choice,
    ChoiceDelta as ChoiceDelta,
    ChoiceDeltaFunction as ChoiceDeltaFunction,
    ChoiceDeltaToolCall as ChoiceDeltaToolCall,
    ChoiceLogprobs as ChoiceLogprobs,
    ChunkChoice as ChunkChoice,
    CompletionTokensDetails as CompletionTokensDetails,
    FinishReason as FinishReason,
    Function as Function,
    Message as Message,
    PromptTokensDetails as PromptTokensDetails,
    SkippedModel as SkippedModel,
    StopReason as StopReason,
    ToolCall as ToolCall,
    ToolEvent as ToolEvent,
    TopLogprob as TopLogprob,
    Usage as Usage,
)

__all__ = [
    "Function", "ToolCall", "Message", "Choice", "PromptTokensDetails", "CompletionTokensDetails",
    "Usage", "ToolEvent", "SkippedModel", "ChatCompletionResponse", "ChoiceDeltaFunction",
    "ChoiceDeltaToolCall", "ChoiceDelta", "ChunkChoice", "ChatCompletionChunk", "FinishReason",
    "StopReason", "CreateEmbeddingResponse", "Embedding", "EmbeddingUsage",
    "Transcription", "TranscriptionSegment", "TranscriptionWord",
    "TranscriptionTextDeltaEvent", "TranscriptionTextDoneEvent", "TranscriptionStreamEvent",
    "ChoiceLogprobs", "ChatCompletionTokenLogprob", "TopLogprob",
]
