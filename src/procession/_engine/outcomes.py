"""What a stage reports to the loop: a small closed set of frozen values.

A stage returns ``None`` when the run goes on as planned, or one of these; the loop matches on
them in one place (``procession._engine.loop``). Exceptions are for real errors only: a
processor that raises, a model that fails, bad input.

::

    Continue   the step was accepted and called tools: run the next step
    Finish     the step was accepted and the run is complete
    Retry      re-run the step (a processor asked with feedback, or an error processor did)
    Blocked    a processor's abort ends the run: a tripwire (D12)
    Aborted    the caller's abort signal fired (D32)
    Failed     the run failed with an error (D10, D21)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "Aborted",
    "Blocked",
    "CONTINUE",
    "Continue",
    "FINISH",
    "Failed",
    "Finish",
    "Outcome",
    "Retry",
    "Stop",
]


@dataclass(frozen=True, slots=True)
class Continue:
    """The step was accepted and called tools; the loop runs the next step."""


@dataclass(frozen=True, slots=True)
class Finish:
    """The step was accepted and the run is complete."""


@dataclass(frozen=True, slots=True)
class Retry:
    """Re-run the current step (D1, D14).

    Attributes:
        reason: The feedback the model sees (D3); ``"api-error"`` for an error-lane retry.
        processor_id: The processor that asked, if a processor did.
        metadata: The abort's metadata.
        api_error: An error processor asked (D14): no feedback message, counted apart (D4).
    """

    reason: str
    processor_id: str | None = None
    metadata: Any = None
    api_error: bool = False

    def blocked(self) -> Blocked:
        """This request as a terminal tripwire, where no step can be retried (D1)."""
        return Blocked(
            {
                "reason": self.reason,
                "retry": True,
                "metadata": self.metadata,
                "processorId": self.processor_id,
            }
        )


@dataclass(frozen=True, slots=True)
class Blocked:
    """A processor's abort ends the run (D11, D12).

    Attributes:
        payload: The tripwire payload: ``reason``, ``retry``, ``metadata``, ``processorId``.
    """

    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Aborted:
    """The caller's abort signal fired (D32)."""


@dataclass(frozen=True, slots=True)
class Failed:
    """The run failed (D10, D21).

    Attributes:
        error: The error that ended it; ``generate()`` raises it.
    """

    error: BaseException


CONTINUE = Continue()
FINISH = Finish()

Stop: TypeAlias = Retry | Blocked | Aborted | Failed
"""An outcome that interrupts a stage."""
Outcome: TypeAlias = Continue | Finish | Stop
"""Anything a step can end with."""
