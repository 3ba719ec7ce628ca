"""The ``Processor`` base class, violations, lanes and the per-hook typing protocols.

A processor is any object with a string ``id`` that implements one or more of the nine hooks
by name. The base class declares **no** hook methods (D19): subclasses implement only the hooks
they need, each declaring only the keyword arguments it uses::

    class WordCounter(Processor):
        id = "word-counter"

        async def process_output_stream(self, *, part: Chunk, state: dict[str, Any], **_: Any):
            ...
            return part
"""

from __future__ import annotations

import inspect
import logging
import typing
from collections.abc import Awaitable
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    Protocol,
    TypeAlias,
    runtime_checkable,
)

from procession._records import record
from procession.processors.protocols import Abort

__all__ = [
    "ERROR_HOOKS",
    "HOOKS",
    "INPUT_HOOKS",
    "OUTPUT_HOOKS",
    "ErrorProcessor",
    "InputProcessor",
    "Lane",
    "OutputProcessor",
    "Processor",
    "ProcessorViolation",
    "implemented_hooks",
    "notify_violation",
]

logger = logging.getLogger("procession.processors")

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    MetadataT = TypeVar("MetadataT", default=Any)
    """The type of a processor's tripwire metadata (``Any`` unless a processor narrows it)."""
else:  # the default is for type checkers: no typing_extensions at run time (0381)
    MetadataT = typing.TypeVar("MetadataT")

Lane: TypeAlias = Literal["input", "output", "error"]
"""The three lanes a processor can sit in (D25)."""

INPUT_HOOKS = ("process_input", "process_input_step", "process_llm_request", "process_llm_response")
"""The input lane's hooks, in the order a step calls them (D25)."""
OUTPUT_HOOKS = (
    "process_output_stream",
    "process_output_step",
    "process_tool_result",
    "process_output_result",
)
"""The output lane's hooks, in the order a step calls them (D25)."""
ERROR_HOOKS = ("process_api_error",)
"""The error lane's one hook (D14, D25)."""
HOOKS = INPUT_HOOKS + OUTPUT_HOOKS + ERROR_HOOKS
"""All nine hook names: the input, output and error lanes' in that order."""
LANE_HOOKS: dict[str, tuple[str, ...]] = {
    "input": INPUT_HOOKS,
    "output": OUTPUT_HOOKS,
    "error": ERROR_HOOKS,
}


@record(frozen=True, slots=True)
class ProcessorViolation(Generic[MetadataT]):
    """What ``on_violation`` receives (D8): who aborted, why, and the abort metadata."""

    processor_id: str
    message: str
    detail: MetadataT | None = None
    retry: bool = False


class Processor(Generic[MetadataT]):
    """Base class for processors (optional: any object with an ``id`` and hooks works).

    Attributes:
        id: Unique identifier, used for state (D15), tracing and tripwire reports.
        name: Display name; defaults to ``id``.
        description: Human-readable description for tracing.
        processor_index: Position in the resolved lane, set by the runtime (D28).
        process_data_parts: When true, ``process_output_stream`` also receives ``data-*``
            chunks (D9).
    """

    id: str = ""
    description: str | None = None
    process_data_parts: bool = False
    processor_index: int | None = None
    _name: ClassVar[str | None] = None

    @property
    def name(self) -> str:
        """The display name; ``id`` unless set."""
        return self.__dict__.get("_display_name") or self._name or self.id

    @name.setter
    def name(self, value: str) -> None:
        self.__dict__["_display_name"] = value

    def on_violation(self, violation: ProcessorViolation[MetadataT]) -> Awaitable[None] | None:
        """Called for every ``abort()`` this processor makes (D8); sync or async.

        The default does nothing. Exceptions raised here are logged and swallowed.
        """
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} id={self.id!r}>"


async def notify_violation(processor: object, violation: ProcessorViolation[Any]) -> None:
    """Report ``violation`` to ``processor.on_violation`` (sync or async), if it has one.

    What the callback raises is logged and swallowed (D8): a reporting hook never changes the
    run's outcome. The runner calls this for every ``abort()``; a built-in detector calls it
    once for every detection it makes under a non-blocking strategy (redact, warn, filter).
    """
    callback = getattr(processor, "on_violation", None)
    if not callable(callback):
        return
    try:
        result = callback(violation)
        if inspect.isawaitable(result):
            await result
    except Exception:
        logger.exception("on_violation of %r raised", violation.processor_id)


def implemented_hooks(processor: object) -> tuple[str, ...]:
    """The hook names ``processor`` implements (callable attributes named like hooks)."""
    return tuple(name for name in HOOKS if callable(getattr(processor, name, None)))


@runtime_checkable
class InputProcessor(Protocol):
    """A processor of the input lane: it implements at least one of ``process_input``,
    ``process_input_step``, ``process_llm_request`` or ``process_llm_response`` (checked when
    an agent is built, D25; any subset, so the type names only the ``id``)."""

    @property
    def id(self) -> str:
        """The processor's id."""
        ...


@runtime_checkable
class OutputProcessor(Protocol):
    """A processor of the output lane: it implements at least one of
    ``process_output_stream``, ``process_output_step``, ``process_tool_result`` or
    ``process_output_result`` (D25)."""

    @property
    def id(self) -> str:
        """The processor's id."""
        ...


@runtime_checkable
class ErrorProcessor(Protocol):
    """A processor of the error lane: it implements ``process_api_error`` (D25)."""

    @property
    def id(self) -> str:
        """The processor's id."""
        ...


AbortFunction: TypeAlias = Abort
"""The old name of :class:`~procession.processors.protocols.Abort`."""
