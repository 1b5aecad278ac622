"""Durable runs on DBOS: tool loops and agent runs that survive a restart
(docs/durable.md)."""

from __future__ import annotations

from .runs import (
    QUEUE_NAME as QUEUE_NAME,
    DurableAgent as DurableAgent,
    DurableRunResult as DurableRunResult,
    NotDurableError as NotDurableError,
    approve as approve,
    configure as configure,
    create as create,
    launch as launch,
    pending as pending,
    recover as recover,
    register_tools as register_tools,
    reject as reject,
    result as result,
    shutdown as shutdown,
    submit as submit,
)

__all__ = [
    "configure", "launch", "shutdown", "create", "submit", "result", "DurableAgent",
    "register_tools", "DurableRunResult", "approve", "reject", "pending", "recover",
    "NotDurableError", "QUEUE_NAME",
]
