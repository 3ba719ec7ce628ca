"""``BatchParts``: send text in fewer, larger chunks (less per-chunk work downstream and on the
wire).

It holds ``text-delta`` chunks and releases them merged into one delta (the first one's id)
once ``batch_size`` chunks are held, once the oldest held chunk is ``max_wait_time`` ms old
(checked when the next chunk arrives: no timer runs), and whenever a chunk that is not text
arrives (``emit_on_non_text``, default true: the merged text goes out first, then that chunk,
in order). Tool calls and the end of a step (``finish``, ``step-finish``) always release what
is held, so nothing is lost or delayed past its step. Put it last in the output lane so
guardrails still see every delta.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk
from procession.guardrails._common.options import check_bool, check_int, check_number
from procession.processors.base import Processor

__all__ = ["BatchParts"]

_HOLDABLE = frozenset(
    (
        "text-start",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "source",
        "file",
        "response-metadata",
    )
)
"""Chunks held with the text when ``emit_on_non_text`` is false; any other (tool calls, the
end of a step) releases the batch, so a tool call is never kept from running."""


class BatchParts(Processor):
    """Merges consecutive text deltas into batches (Mastra's ``BatchPartsProcessor``).

    Args:
        batch_size: How many chunks a batch holds at most (default 5).
        max_wait_time: Milliseconds after which a batch is released with the next chunk
            (``None``: no time limit).
        emit_on_non_text: Release the batch when a non-text chunk arrives (default true);
            when false, non-text chunks join the batch and leave with it, in order.
    """

    id = "batch-parts"

    def __init__(
        self,
        *,
        batch_size: int = 5,
        max_wait_time: float | None = None,
        emit_on_non_text: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.batch_size = check_int("BatchParts", "batch_size", batch_size, 1)
        self.max_wait_time = (
            None
            if max_wait_time is None
            else check_number("BatchParts", "max_wait_time", max_wait_time, 0.0)
        )
        self.emit_on_non_text = check_bool("BatchParts", "emit_on_non_text", emit_on_non_text)
        self._clock = clock

    def process_output_stream(
        self, *, part: Chunk, state: dict[str, Any], **_: Any
    ) -> Chunk | list[Chunk] | None:
        """Hold text deltas; release them merged (with the chunk that ended the batch)."""
        held: list[Chunk] | None = state.get("held")
        kind = part.type
        if kind == "text-delta" or (not self.emit_on_non_text and kind in _HOLDABLE):
            if held is None:
                held = state["held"] = []
                if self.max_wait_time is not None:
                    state["since"] = self._clock()
            held.append(part)
            if len(held) >= self.batch_size or (
                self.max_wait_time is not None and self._waited_long(state)
            ):
                return self.flush(state) or None
            return None
        if not held:
            return part
        return [*self.flush(state), part]

    def _waited_long(self, state: dict[str, Any]) -> bool:
        waited: float = (self._clock() - state["since"]) * 1000
        return waited >= (self.max_wait_time or 0.0)

    def flush(self, state: dict[str, Any]) -> list[Chunk]:
        """Release what ``state`` holds: runs of text deltas merged, other chunks as they
        were, in order (for callers that drive the processor themselves)."""
        held: list[Chunk] = state.pop("held", None) or []
        state.pop("since", None)
        out: list[Chunk] = []
        run: list[Chunk] = []
        for chunk in held:
            if chunk.type == "text-delta" and (
                not run or run[0].payload.get("id") == chunk.payload.get("id")
            ):
                run.append(chunk)
                continue
            _merge_into(out, run)
            run = [chunk] if chunk.type == "text-delta" else []
            if not run:
                out.append(chunk)
        _merge_into(out, run)
        return out


def _merge_into(out: list[Chunk], run: list[Chunk]) -> None:
    """Append a run of text deltas of one text part to ``out`` as one delta."""
    if len(run) == 1:
        out.append(run[0])
    elif run:
        text = "".join(chunk.payload.get("text", "") for chunk in run)
        out.append(run[0].copy(payload={**run[0].payload, "text": text}))
