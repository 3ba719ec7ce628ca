"""What each processor did, sent along the stream for a viewer (``stream(inspect=True)``).

Studio shows a run's live stream with each processor's work inline. The client sees only the
processed chunks, so with ``inspect=True`` the run also sends a transient
``data-procession-hook`` chunk (never stored, never held, D31) each time:

- a ``process_output_stream`` hook changed the text it passed on (one note per redaction,
  its type and position, never the value; nothing for text only held back and released:
  :mod:`procession._engine.stream_notes`), or replaced or dropped another chunk;
- any other hook returned, with what it did (``kept``, ``replaced``, ``retry``, ``tripwire``)
  and how long it took.

Retries and tripwires themselves are already in the stream (D2, D12). :class:`StudioNotes` is a
run observer (``procession._engine.observers``) wired only with ``inspect``: without it none of
this runs, and the stream hooks' bound callers are not wrapped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from procession._engine.stream_notes import StreamWatch
from procession.chunks import Chunk

if TYPE_CHECKING:
    from procession._engine.observers import HookEnded
    from procession._engine.runner import Hook, StreamHook
    from procession._engine.state import Attempt, RunState
    from procession.results import StepResult, ToolCallInfo

__all__ = ["HOOK_NOTE", "StudioNotes", "hook_note", "send_note", "watch_stream_hooks"]

HOOK_NOTE = "data-procession-hook"
"""The type of the transient chunks that say what a processor did."""


class StudioNotes:
    """The run observer that sends Studio's notes (``stream(inspect=True)``)."""

    __slots__ = ("state",)

    def __init__(self, state: RunState) -> None:
        self.state = state

    def watch(self, hooks: Sequence[StreamHook]) -> None:
        """Note each chunk a stream hook changes."""
        watch_stream_hooks(self.state, hooks)

    def hook_started(self, hook: Hook) -> float:
        """When the hook was called."""
        return time.perf_counter()

    def hook_ended(self, hook: Hook, token: float, ended: HookEnded) -> None:
        """What the hook did and how long it took."""
        hook_note(self.state, hook, ended.outcome, token)

    def step_started(self, attempt: Attempt, retries: int) -> None:
        """Not noted (the stream shows steps)."""

    def step_ended(self, name: str, result: StepResult | None) -> None:
        """Not noted (the stream shows steps)."""

    def model_started(self, attempt: Attempt) -> None:
        """Not noted."""

    def model_ended(self, result: StepResult | None, error: BaseException | None) -> None:
        """Not noted."""

    def tool_started(self, call: ToolCallInfo) -> None:
        """Not noted (the stream shows tool calls)."""

    def tool_ended(self, token: object, failure: object) -> None:
        """Not noted."""

    def retried(self, reason: str, processor_id: str | None) -> None:
        """Not noted (the retry marker is in the stream, D2)."""

    def run_ended(self, name: str, error: BaseException | None, tripwire: object) -> None:
        """Not noted (the final chunk says it)."""


def watch_stream_hooks(state: RunState, hooks: Sequence[StreamHook]) -> None:
    """Report what each stream hook changed in the text it passed on (see
    :mod:`procession._engine.stream_notes`)."""
    for hook in hooks:
        hook.wrap(StreamWatch(hook, lambda data: send_note(state, data)).around)


def hook_note(state: RunState, hook: Hook, outcome: str, started: float) -> None:
    """Report a (non-stream) hook's call: what it did and how long it took."""
    data = {
        "processorId": hook.processor_id,
        "processorIndex": hook.index,
        "hook": hook.name,
        "action": outcome,
        "durationMs": round((time.perf_counter() - started) * 1000, 3),
    }
    send_note(state, data)


def send_note(state: RunState, data: dict[str, Any]) -> None:
    """Queue a transient note chunk with ``data`` for the client."""
    note = Chunk.data_chunk(HOOK_NOTE, data, transient=True)
    note.run_id = state.run_id
    state.emitter.ready.append(note)
