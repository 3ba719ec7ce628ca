"""What each processor did, sent along the stream for a viewer (``stream(inspect=True)``).

Studio shows a run's live stream with each processor's work inline. The client sees only the
processed chunks, so with ``inspect=True`` the run also sends a transient
``data-procession-hook`` chunk (never stored, never held, D31) each time:

- a ``process_output_stream`` hook dropped a chunk, replaced it, or turned it into several;
- any other hook returned, with what it did (``kept``, ``replaced``, ``retry``, ``tripwire``)
  and how long it took.

Retries and tripwires themselves are already in the stream (D2, D12). Without ``inspect`` none
of this runs: the stream hooks' bound callers are wrapped only when asked.
"""

from __future__ import annotations

import inspect as _inspect_module
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from procession.chunks import Chunk

if TYPE_CHECKING:
    from procession._engine.runner import Hook, StreamHook
    from procession._engine.state import RunState

__all__ = ["HOOK_NOTE", "hook_note", "watch_stream_hooks"]

HOOK_NOTE = "data-procession-hook"
"""The type of the transient chunks that say what a processor did."""


def watch_stream_hooks(state: RunState, hooks: list[StreamHook]) -> None:
    """Report what each stream hook does to each chunk it changes."""
    for hook in hooks:
        hook.wrap(lambda watched, call: _watched(state, watched, call))


def _watched(
    state: RunState, hook: StreamHook, call: Callable[[Chunk], Any]
) -> Callable[[Chunk], Any]:
    if hook.is_async:

        async def watched_async(part: Chunk) -> Any:
            out = await call(part)
            if out is not part:
                _note_chunk(state, hook, part, out)
            return out

        return watched_async

    def watched(part: Chunk) -> Any:
        out = call(part)
        if out is not part and not _inspect_module.isawaitable(out):
            _note_chunk(state, hook, part, out)
        return out

    return watched


def _note_chunk(state: RunState, hook: StreamHook, part: Chunk, out: Any) -> None:
    after: Any
    if out is None:
        action, after = "dropped", None
    elif isinstance(out, list):
        action, after = "expanded", [_brief(c) for c in out if isinstance(c, Chunk)]
    else:
        action, after = "replaced", _brief(out) if isinstance(out, Chunk) else repr(out)[:200]
    data = {
        "processorId": hook.processor_id,
        "processorIndex": hook.index,
        "hook": hook.name,
        "action": action,
        "chunkType": part.type,
        "before": _brief(part),
        "after": after,
    }
    _send(state, data)


def hook_note(state: RunState, hook: Hook, outcome: str, started: float) -> None:
    """Report a (non-stream) hook's call: what it did and how long it took."""
    data = {
        "processorId": hook.processor_id,
        "processorIndex": hook.index,
        "hook": hook.name,
        "action": outcome,
        "durationMs": round((time.perf_counter() - started) * 1000, 3),
    }
    _send(state, data)


def _send(state: RunState, data: dict[str, Any]) -> None:
    note = Chunk.data_chunk(HOOK_NOTE, data, transient=True)
    note.run_id = state.run_id
    state.emitter.ready.append(note)


def _brief(chunk: Chunk) -> Any:
    """A chunk as a viewer shows it: a text delta's text, else its wire form."""
    if chunk.type in ("text-delta", "reasoning-delta"):
        return chunk.payload.get("text")
    return chunk.to_dict()
