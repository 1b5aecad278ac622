"""Tool policies (public import path; defined in ``aisuite_like.tools``),
docs/tool-runner.md."""

from __future__ import annotations

from .tools.policy import (
    AllowAll as AllowAll,
    AllowTools as AllowTools,
    DenyAll as DenyAll,
    RequireApproval as RequireApproval,
    ToolPolicyContext as ToolPolicyContext,
    ToolPolicyDecision as ToolPolicyDecision,
)

__all__ = [
    "ToolPolicyContext", "ToolPolicyDecision", "AllowAll", "DenyAll", "AllowTools",
    "RequireApproval",
]
