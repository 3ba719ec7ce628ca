"""Built-in processors."""

from procession.processors.builtin.prefill import PrefillErrorHandler

__all__ = ["PrefillErrorHandler"]
