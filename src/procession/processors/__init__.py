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
from procession.processors.builtin import (
    INTERNAL_RUN,
    InternalRun,
    Judge,
    JudgeError,
    JudgeResult,
    PrefillErrorHandler,
    StreamRedactor,
    is_internal_run,
)
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
    "INTERNAL_RUN",
    "OUTPUT_HOOKS",
    "ErrorProcessor",
    "InputProcessor",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
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
    "is_internal_run",
    "notify_violation",
]
