"""``on_violation=`` as a constructor option, for built-in processors (D8).

A built-in that takes ``on_violation=callback`` stores it with :func:`set_on_violation`;
:class:`CallbackViolations` forwards every reported violation to it. Subclasses may still
override ``on_violation`` instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from procession.guardrails._common.options import check_callable
from procession.processors.base import Processor, ProcessorViolation

__all__ = ["CallbackViolations", "ViolationCallback"]

ViolationCallback = Callable[[ProcessorViolation[Any]], Any]
"""An ``on_violation`` callback: takes a ``ProcessorViolation``, sync or async (D8)."""


class CallbackViolations(Processor):
    """A processor whose ``on_violation`` calls the callback given to its constructor."""

    _violation_callback: ViolationCallback | None = None

    def set_on_violation(self, owner: str, callback: ViolationCallback | None) -> None:
        """Check and keep ``callback`` (``None``: report to nobody)."""
        self._violation_callback = check_callable(owner, "on_violation", callback)

    def on_violation(self, violation: ProcessorViolation[Any]) -> Awaitable[None] | None:
        """Forward ``violation`` to the constructor's ``on_violation`` callback, if any."""
        callback = self._violation_callback
        if callback is None:
            return None
        result: Awaitable[None] | None = callback(violation)
        return result
