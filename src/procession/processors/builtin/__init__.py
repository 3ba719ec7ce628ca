"""Built-in processors."""

from procession.processors.builtin.judge import (
    INTERNAL_RUN,
    InternalRun,
    Judge,
    JudgeError,
    JudgeResult,
    is_internal_run,
)
from procession.processors.builtin.pii import PIIDetector
from procession.processors.builtin.prefill import PrefillErrorHandler
from procession.processors.builtin.redact import PATTERNS, StreamRedactor
from procession.processors.builtin.regex_filter import RegexFilter, RegexRule
from procession.processors.builtin.system_prompt import SystemPromptScrubber
from procession.processors.builtin.unicode import UnicodeNormalizer

__all__ = [
    "INTERNAL_RUN",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "PATTERNS",
    "PIIDetector",
    "PrefillErrorHandler",
    "RegexFilter",
    "RegexRule",
    "StreamRedactor",
    "SystemPromptScrubber",
    "UnicodeNormalizer",
    "is_internal_run",
]
