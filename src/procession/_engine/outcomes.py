"""What a stage reports to the loop: a small closed set of frozen values.

A stage returns ``None`` when the run goes on as planned, or one of these; the loop matches on
them in one place (``procession._engine.loop``). Exceptions are for real errors only: a
processor that raises, a model that fails, bad input.

Each has one ``name``, the one spelling of it everywhere it is reported (spans, the trace
store, Studio's notes); a step that ends ``Continue`` or ``Finish`` was ``accepted``
(:func:`step_name`)::

    outcome    name       meaning
    Continue   continue   the step was accepted and called tools: run the next step
    Finish     finish     the step was accepted and the run is complete
    Retry      retry      re-run the step (a processor asked, with feedback; or an error processor)
    Blocked    tripwire   a processor's abort ends the run: a tripwire (D12)
    Aborted    abort      the caller's abort signal fired (D32)
    Failed     error      the run failed with an error (D10, D21)
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeAlias

from procession._records import record

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
    "step_name",
]


@record(frozen=True, slots=True)
class Continue:
    """The step was accepted and called tools; the loop runs the next step."""

    name: ClassVar[str] = "continue"


@record(frozen=True, slots=True)
class Finish:
    """The step was accepted and the run is complete."""

    name: ClassVar[str] = "finish"


@record(frozen=True, slots=True)
class Retry:
    """Re-run the current step (D1, D14).

    Attributes:
        reason: The feedback the model sees (D3); ``"api-error"`` for an error-lane retry.
        processor_id: The processor that asked, if a processor did.
        metadata: The abort's metadata.
        api_error: An error processor asked (D14): no feedback message, counted apart (D4).
    """

    name: ClassVar[str] = "retry"

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


@record(frozen=True, slots=True)
class Blocked:
    """A processor's abort ends the run (D11, D12).

    Attributes:
        payload: The tripwire payload: ``reason``, ``retry``, ``metadata``, ``processorId``.
    """

    name: ClassVar[str] = "tripwire"

    payload: dict[str, Any]


@record(frozen=True, slots=True)
class Aborted:
    """The caller's abort signal fired (D32)."""

    name: ClassVar[str] = "abort"


@record(frozen=True, slots=True)
class Failed:
    """The run failed: it ends with an ``error`` chunk, ``generate()`` raises (D10, D21).

    Attributes:
        error: The error that ended it; ``generate()`` raises it.
    """

    name: ClassVar[str] = "error"

    error: BaseException


CONTINUE = Continue()
FINISH = Finish()

Stop: TypeAlias = Retry | Blocked | Aborted | Failed
"""An outcome that interrupts a stage."""
Outcome: TypeAlias = Continue | Finish | Stop
"""Anything a step can end with."""


def step_name(outcome: Outcome) -> str:
    """How a step ended, as reported: ``accepted``, or the stop's name."""
    return "accepted" if isinstance(outcome, Continue | Finish) else outcome.name
