"""Processors: the ``Processor`` base, violations, lanes and the hook protocols."""

from procession.processors.base import (
    ERROR_HOOKS,
    HOOKS,
    INPUT_HOOKS,
    OUTPUT_HOOKS,
    ErrorProcessor,
    InputProcessor,
    OutputProcessor,
    Processor,
    ProcessorViolation,
    implemented_hooks,
    notify_violation,
)
from procession.processors.builtin import PrefillErrorHandler, StreamRedactor
from procession.processors.protocols import (
    ProcessAPIErrorResult,
    ProcessInputStepResult,
    ProcessLLMRequestResult,
    ProcessorMessageResult,
    Writer,
)

__all__ = [
    "ERROR_HOOKS",
    "HOOKS",
    "INPUT_HOOKS",
    "OUTPUT_HOOKS",
    "ErrorProcessor",
    "InputProcessor",
    "OutputProcessor",
    "PrefillErrorHandler",
    "ProcessAPIErrorResult",
    "ProcessInputStepResult",
    "ProcessLLMRequestResult",
    "Processor",
    "ProcessorMessageResult",
    "ProcessorViolation",
    "StreamRedactor",
    "Writer",
    "implemented_hooks",
    "notify_violation",
]
