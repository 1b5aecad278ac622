"""The error tree (public import path; defined in ``aisuite_like.core``), docs/client.md."""

from __future__ import annotations

from .core.errors import (
    AisuiteLikeError as AisuiteLikeError,
    APIConnectionError as APIConnectionError,
    APIError as APIError,
    APIResponseValidationError as APIResponseValidationError,
    APIStatusError as APIStatusError,
    APITimeoutError as APITimeoutError,
    AuthenticationError as AuthenticationError,
    BadRequestError as BadRequestError,
    ConcurrentRunError as ConcurrentRunError,
    ConfigurationError as ConfigurationError,
    ContextWindowExceededError as ContextWindowExceededError,
    InputGuardrailTripwireTriggered as InputGuardrailTripwireTriggered,
    InternalServerError as InternalServerError,
    InvalidModelError as InvalidModelError,
    MaxTurnsExceeded as MaxTurnsExceeded,
    MCPError as MCPError,
    MissingDependencyError as MissingDependencyError,
    ModelCapabilityError as ModelCapabilityError,
    NotFoundError as NotFoundError,
    OrphanToolMessageError as OrphanToolMessageError,
    OutputGuardrailTripwireTriggered as OutputGuardrailTripwireTriggered,
    OutputValidationError as OutputValidationError,
    PermissionDeniedError as PermissionDeniedError,
    PromptTooLongError as PromptTooLongError,
    RateLimitError as RateLimitError,
    RedirectError as RedirectError,
    ToolExecutionError as ToolExecutionError,
    UnknownProviderError as UnknownProviderError,
    UnsupportedFeatureError as UnsupportedFeatureError,
    UnsupportedParameterError as UnsupportedParameterError,
)

__all__ = [
    "AisuiteLikeError", "APIError", "APIStatusError", "AuthenticationError",
    "PermissionDeniedError", "NotFoundError", "BadRequestError", "ContextWindowExceededError",
    "RateLimitError", "APITimeoutError", "APIConnectionError", "RedirectError",
    "InternalServerError", "APIResponseValidationError", "InvalidModelError",
    "UnknownProviderError", "MissingDependencyError", "UnsupportedParameterError",
    "OrphanToolMessageError", "ModelCapabilityError", "PromptTooLongError",
    "UnsupportedFeatureError", "ConfigurationError", "ToolExecutionError", "MaxTurnsExceeded",
    "OutputValidationError", "ConcurrentRunError", "InputGuardrailTripwireTriggered",
    "OutputGuardrailTripwireTriggered", "MCPError",
]
