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
from procession.processors.builtin.token_cost import TokenCostControl

__all__ = [
    "INTERNAL_RUN",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "PATTERNS",
    "PrefillErrorHandler",
    "StreamRedactor",
    "TokenCostControl",
    "is_internal_run",
]
