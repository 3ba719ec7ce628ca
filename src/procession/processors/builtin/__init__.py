"""Built-in processors."""

from procession.processors.builtin.prefill import PrefillErrorHandler
from procession.processors.builtin.redact import PATTERNS, StreamRedactor

__all__ = ["PATTERNS", "PrefillErrorHandler", "StreamRedactor"]
