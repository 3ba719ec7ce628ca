"""Built-in processors."""

from procession.processors.builtin.judge import (
    INTERNAL_RUN,
    InternalRun,
    Judge,
    JudgeError,
    JudgeResult,
    is_internal_run,
)
from procession.processors.builtin.prefill import PrefillErrorHandler
from procession.processors.builtin.redact import PATTERNS, StreamRedactor

__all__ = [
    "INTERNAL_RUN",
    "PATTERNS",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "PrefillErrorHandler",
    "StreamRedactor",
    "is_internal_run",
]
