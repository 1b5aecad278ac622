"""``client.batches``: the providers' batch APIs in one shape (docs/batches.md)."""

from __future__ import annotations

from .api import (
    AsyncBatches as AsyncBatches,
    Batch as Batch,
    BatchError as BatchError,
    Batches as Batches,
    BatchPart as BatchPart,
    BatchRequestCancelledError as BatchRequestCancelledError,
    BatchRequestCounts as BatchRequestCounts,
    BatchRequestError as BatchRequestError,
    BatchRequestExpiredError as BatchRequestExpiredError,
    BatchResult as BatchResult,
    BatchStatus as BatchStatus,
    BatchTimeoutError as BatchTimeoutError,
    InvalidBatchIdError as InvalidBatchIdError,
)

__all__ = [
    "Batch", "BatchPart", "BatchRequestCounts", "BatchStatus", "Batches", "AsyncBatches",
    "BatchError", "InvalidBatchIdError", "BatchRequestError", "BatchTimeoutError",
    "BatchRequestCancelledError", "BatchRequestExpiredError", "BatchResult",
]
