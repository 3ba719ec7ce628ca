"""The observer protocol: what a run tells its participants (tracing, Studio's notes).

The hook runner and the loop know observers only through :class:`RunObserver`; they never
import tracing or Studio. Observers are wired once, when the run starts (``loop._start``): the
run's spans when a tracer provider is configured (``procession.tracing._spans.RunTrace``), and
Studio's notes with ``stream(inspect=True)`` (``procession._engine.notes.StudioNotes``). With
none, ``RunState.observer`` is ``None`` and the run pays one ``is None`` test per stage and
per hook call, nothing per chunk; with several, :class:`Observers` tells each in turn.

::

    when                              call
    the run starts                    watch(stream_hooks)    wrap stream hooks' callers, once
    a step's attempt starts / ends    step_started / step_ended
    the model call starts / ends      model_started / model_ended
    a tool runs                       tool_started -> token, tool_ended(token, failure)
    a (non-stream) hook is called     hook_started -> token, hook_ended(hook, token, HookEnded)
    a step will be retried            retried
    the run ends                      run_ended(name, error, tripwire)

Names are the outcomes' (``procession._engine.outcomes``): a step ``accepted``, ``retry``,
``tripwire``, ``abort`` or ``error``; a run ``finish``, ``tripwire``, ``abort`` or ``error``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from procession._records import record

if TYPE_CHECKING:
    from procession._engine.runner import Hook, StreamHook
    from procession._engine.state import Attempt
    from procession.results import StepResult, ToolCallInfo

__all__ = ["HookEnded", "Observers", "RunObserver", "compose"]


@record(frozen=True, slots=True)
class HookEnded:
    """How a (non-stream) hook call ended.

    Attributes:
        outcome: ``kept``, ``replaced``, ``retry``, ``tripwire``, ``abort`` or ``error``.
        data_chunks: How many ``data-*`` chunks it wrote (D27).
        error: What it raised, for ``error``.
        tripwire: The tripwire payload its abort raised (``reason``, ``retry``, ``metadata``,
            ``processorId``), when it stopped the run or asked for a retry.
    """

    outcome: str
    data_chunks: int
    error: BaseException | None = None
    tripwire: dict[str, Any] | None = None


class RunObserver(Protocol):
    """A participant told what one run does (the table in the module docstring)."""

    def watch(self, hooks: Sequence[StreamHook]) -> None:
        """The run's stream hooks, once: wrap their bound callers (``StreamHook.wrap``) to see
        each chunk; an observer that does not wrap them costs the hot path nothing."""

    def step_started(self, attempt: Attempt, retries: int) -> None:
        """A step's attempt starts (``retries``: the processor retries so far)."""

    def step_ended(self, name: str, result: StepResult | None) -> None:
        """The attempt ended: ``accepted`` or how it was stopped."""

    def model_started(self, attempt: Attempt) -> None:
        """The model call starts (or a cached response is replayed, D7)."""

    def model_ended(self, result: StepResult | None, error: BaseException | None) -> None:
        """The model's stream ended (with the step's result), or the call failed."""

    def tool_started(self, call: ToolCallInfo) -> Any:
        """A tool starts running; the token is handed back to :meth:`tool_ended`."""

    def tool_ended(self, token: Any, failure: Any) -> None:
        """The tool returned (``failure`` ``None``) or raised (its error text)."""

    def hook_started(self, hook: Hook) -> Any:
        """A (non-stream) hook is called; the token is handed back to :meth:`hook_ended`."""

    def hook_ended(self, hook: Hook, token: Any, ended: HookEnded) -> None:
        """The hook returned, stopped the run, or raised."""

    def retried(self, reason: str, processor_id: str | None) -> None:
        """The step will be retried (D1)."""

    def run_ended(self, name: str, error: BaseException | None, tripwire: Any) -> None:
        """The run ended (``tripwire``: the payload when a processor blocked it, D12)."""


class Observers:
    """Several observers, told in order (tokens kept per observer)."""

    __slots__ = ("each",)

    def __init__(self, each: Sequence[RunObserver]) -> None:
        self.each = tuple(each)

    def watch(self, hooks: Sequence[StreamHook]) -> None:
        """Each observer wraps the stream hooks in turn."""
        for observer in self.each:
            observer.watch(hooks)

    def step_started(self, attempt: Attempt, retries: int) -> None:
        """Tell each."""
        for observer in self.each:
            observer.step_started(attempt, retries)

    def step_ended(self, name: str, result: StepResult | None) -> None:
        """Tell each."""
        for observer in self.each:
            observer.step_ended(name, result)

    def model_started(self, attempt: Attempt) -> None:
        """Tell each."""
        for observer in self.each:
            observer.model_started(attempt)

    def model_ended(self, result: StepResult | None, error: BaseException | None) -> None:
        """Tell each."""
        for observer in self.each:
            observer.model_ended(result, error)

    def tool_started(self, call: ToolCallInfo) -> list[Any]:
        """Each observer's token."""
        return [observer.tool_started(call) for observer in self.each]

    def tool_ended(self, token: Any, failure: Any) -> None:
        """Tell each, with its own token."""
        for observer, own in zip(self.each, token, strict=True):
            observer.tool_ended(own, failure)

    def hook_started(self, hook: Hook) -> list[Any]:
        """Each observer's token."""
        return [observer.hook_started(hook) for observer in self.each]

    def hook_ended(self, hook: Hook, token: Any, ended: HookEnded) -> None:
        """Tell each, with its own token."""
        for observer, own in zip(self.each, token, strict=True):
            observer.hook_ended(hook, own, ended)

    def retried(self, reason: str, processor_id: str | None) -> None:
        """Tell each."""
        for observer in self.each:
            observer.retried(reason, processor_id)

    def run_ended(self, name: str, error: BaseException | None, tripwire: Any) -> None:
        """Tell each."""
        for observer in self.each:
            observer.run_ended(name, error, tripwire)


def compose(observers: Sequence[RunObserver | None]) -> RunObserver | None:
    """The run's observer: ``None`` for none, the one, or :class:`Observers` for several."""
    present = [observer for observer in observers if observer is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else Observers(present)
