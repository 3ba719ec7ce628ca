"""Processors: the ``Processor`` base, violations, lanes and the hook protocols.

The interface only: the built-in processors are the guardrail library,
:mod:`procession.guardrails`.
"""

import warnings
from typing import Any

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
from procession.processors.protocols import (
    Abort,
    ProcessAPIError,
    ProcessAPIErrorResult,
    ProcessInput,
    ProcessInputStep,
    ProcessInputStepResult,
    ProcessLLMRequest,
    ProcessLLMRequestResult,
    ProcessLLMResponse,
    ProcessorMessageResult,
    ProcessOutputResult,
    ProcessOutputStep,
    ProcessOutputStream,
    ProcessToolResult,
    Writer,
)


def __getattr__(name: str) -> Any:
    # The built-ins were re-exported here; they moved to procession.guardrails (a release of
    # warnings, then these names go).
    import procession.guardrails as guardrails

    if name in guardrails.NAMES:
        warnings.warn(
            f"{__name__}.{name} is deprecated and goes in the next release: "
            f"use procession.guardrails.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(guardrails, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Abort",
    "ERROR_HOOKS",
    "ErrorProcessor",
    "HOOKS",
    "INPUT_HOOKS",
    "InputProcessor",
    "OUTPUT_HOOKS",
    "OutputProcessor",
    "ProcessAPIError",
    "ProcessAPIErrorResult",
    "ProcessInput",
    "ProcessInputStep",
    "ProcessInputStepResult",
    "ProcessLLMRequest",
    "ProcessLLMRequestResult",
    "ProcessLLMResponse",
    "ProcessOutputResult",
    "ProcessOutputStep",
    "ProcessOutputStream",
    "ProcessToolResult",
    "Processor",
    "ProcessorMessageResult",
    "ProcessorViolation",
    "Writer",
    "implemented_hooks",
    "notify_violation",
]
