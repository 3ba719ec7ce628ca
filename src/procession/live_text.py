"""The text of a stream: accepted text (``text_stream``), or live text with retractions.

A step's text is not final while something can still reject the step: a processor's
``process_output_stream``, ``process_llm_response``, ``process_output_step`` or
``process_tool_result`` may ask for a retry (D1) or block the run (D12), and an API error or a
structured answer that does not validate may be retried while the retry budget allows (D4).
So in live mode (D31) :func:`accepted_text` holds a step's text until the step is accepted, and
drops it when a retry marker (D2) rejects it. When nothing can reject a step (decided once per
run, when it starts), it yields the text as it comes.

:func:`live_text` never waits: it yields each delta at once, and a :class:`Retracted` marker
when text it yielded was taken back (a rejected attempt, a blocked or failed run), for a UI
that shows text early and strikes it out.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Protocol

from procession._records import record
from procession.chunks import Chunk
from procession.results import AgentResult

__all__ = ["Retracted", "RunView", "accepted_text", "live_text"]

_ENDINGS = frozenset(("tripwire", "error", "abort"))
"""Ending chunks after which text not yet accepted is withdrawn."""


class RunView(Protocol):
    """What the text readers need to know of a run (an ``AgentStream``'s state)."""

    @property
    def steps_final(self) -> bool:
        """Whether nothing can reject a step once its text streamed (set when it starts)."""
        ...

    @property
    def result(self) -> AgentResult:
        """The run's result (final once its chunks ended)."""
        ...


@record(frozen=True, slots=True)
class Retracted:
    """Text that :func:`live_text` yielded and the run took back.

    Attributes:
        text: The withdrawn text: everything yielded since the last accepted step.
        reason: Why: the retry's reason, or the ending chunk's type (``tripwire``, ``error``,
            ``abort``).
        processor_id: The processor that asked for the retry or blocked the run, if one did.
    """

    text: str
    reason: str | None = None
    processor_id: str | None = None


def _retry_of(chunk: Chunk) -> tuple[str | None, str | None] | None:
    """``(reason, processorId)`` when ``chunk`` is D2's retry marker, else ``None``."""
    step = chunk.payload.get("stepResult") or {}
    if step.get("reason") != "retry":
        return None
    return step.get("retryReason"), step.get("retryProcessorId")


async def accepted_text(
    chunks: AsyncIterable[Chunk], run: RunView, *, held: bool
) -> AsyncIterator[str]:
    """The accepted text of ``chunks``; raises the run's error at the end (D21).

    ``held=True`` (step mode, D31) means every delta is accepted already. In live mode a
    step's text waits for its verdict unless nothing can reject it (``run.steps_final``).
    """
    waiting: list[str] = []
    wait: bool | None = None if not held else False  # decided at the first delta
    async for chunk in chunks:
        kind = chunk.type
        if kind == "text-delta":
            if wait is None:
                wait = not run.steps_final
            if wait:
                waiting.append(chunk.payload["text"])
            else:
                yield chunk.payload["text"]
        elif kind == "step-finish" and waiting:
            if _retry_of(chunk) is None:
                for text in waiting:
                    yield text
            waiting.clear()
    error = run.result.error
    if error is not None:
        raise error


async def live_text(chunks: AsyncIterable[Chunk], run: RunView) -> AsyncIterator[str | Retracted]:
    """Each text delta at once, and a :class:`Retracted` when yielded text was taken back;
    raises the run's error at the end (D21)."""
    shown: list[str] = []
    async for chunk in chunks:
        kind = chunk.type
        if kind == "text-delta":
            text = chunk.payload["text"]
            shown.append(text)
            yield text
        elif kind == "step-finish":
            retry = _retry_of(chunk)
            if retry is not None and shown:
                yield Retracted("".join(shown), *retry)
            shown.clear()
        elif kind in _ENDINGS and shown:
            payload = chunk.payload
            yield Retracted("".join(shown), payload.get("reason", kind), payload.get("processorId"))
            shown.clear()
    error = run.result.error
    if error is not None:
        raise error
