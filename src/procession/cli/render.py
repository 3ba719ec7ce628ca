"""Printing an agent's stream: text as it arrives, tool calls, data chunks, retries, tripwires.

Two ways, chosen by whether the output is a terminal (D31, D2):

* **live** (a terminal): each step streams into a live display; when a processor rejects the
  step (the D2 retry marker, or a tripwire) its text stays on screen, struck through, and the
  next attempt streams below it. The display shows the tail of a step taller than the
  screen, and prints the whole step once it ends.
* **plain** (a pipe or a file): each step is held until it is accepted, so a rejected
  attempt never reaches the output; a one-line notice says a retry happened. The answer goes
  to ``out``; tool calls, notices and data chunks to ``events`` (standard error for
  ``procession run``, so ``procession run ... > answer.txt`` holds the answer only).

Errors are not printed here: the command describes ``result.error`` in one line.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text

from procession.agent import AgentStream
from procession.chunks import Chunk
from procession.results import AgentResult

__all__ = ["STRUCK", "StreamPrinter", "console"]

STRUCK = "strike dim"
"""The style of a rejected attempt's text in live mode."""


def console(*, stderr: bool = False) -> Console:
    """A rich console for the command line (no highlighting or emoji codes in model text)."""
    return Console(stderr=stderr, highlight=False, emoji=False)


class _Sink(Protocol):
    """Where the dispatcher sends a stream's pieces."""

    def text(self, piece: str, style: str) -> None: ...

    def line(self, line: Text) -> None: ...

    def accept(self) -> None: ...

    def reject(self, note: Text | None, *, retry: bool = False) -> None: ...

    def close(self) -> None: ...


class StreamPrinter:
    """Prints streams to ``out`` (and event lines to ``events``, default ``out``).

    Args:
        out: Where the answer goes.
        events: Where tool calls, data chunks and notices go in plain mode (live mode shows
            everything in ``out``'s display).
        live: Force live (``True``) or plain (``False``) mode; default: live when ``out``
            is a terminal.
        refresh_per_second: How often the live display redraws at most.
    """

    def __init__(
        self,
        out: Console,
        events: Console | None = None,
        *,
        live: bool | None = None,
        refresh_per_second: float = 12.0,
    ) -> None:
        self.out = out
        self.events = events or out
        self.live = out.is_terminal if live is None else live
        self._interval = 1.0 / refresh_per_second

    async def print_stream(self, stream: AgentStream, *, prefix: Text | None = None) -> AgentResult:
        """Print every chunk of ``stream`` as it arrives; returns the final result.

        ``prefix`` (such as ``agent> ``) starts the answer's first line.
        """
        sink: _Sink = (
            _LiveSink(self.out, prefix, self._interval)
            if self.live
            else _PlainSink(self.out, self.events, prefix)
        )
        try:
            async for chunk in stream:
                _dispatch(sink, chunk)
        finally:
            sink.close()
        return await stream.result(raise_error=False)


def _dispatch(sink: _Sink, chunk: Chunk) -> None:
    kind = chunk.type
    payload = chunk.payload
    if kind == "text-delta":
        sink.text(payload.get("text", ""), "")
    elif kind == "reasoning-delta":
        sink.text(payload.get("text", ""), "dim italic")
    elif kind == "tool-call":
        call = f"{payload['toolName']}({_short(payload.get('args'))})"
        sink.line(_event("cyan", "⚙ tool call", call))
    elif kind == "tool-result":
        result = _short(payload.get("result"))
        sink.line(_event("cyan", "⚙ tool result", f"{payload['toolName']} → {result}"))
    elif kind == "tool-error":
        error = _short(payload.get("error"))
        sink.line(_event("red", "⚙ tool error", f"{payload['toolName']}: {error}"))
    elif kind.startswith("data-"):
        sink.line(_event("magenta", f"◆ {kind}", _short(chunk.data)))
    elif kind == "step-finish":
        step = payload.get("stepResult") or {}
        if step.get("reason") == "retry":  # D2: the step was rejected and is tried again
            who, why = step.get("retryProcessorId"), step.get("retryReason")
            sink.reject(_event("yellow", f"↻ retry requested by {who}:", str(why)), retry=True)
        else:
            sink.accept()
    elif kind == "tripwire":
        who, why = payload.get("processorId"), payload.get("reason")
        sink.reject(_event("red bold", f"⛔ tripwire ({who}):", str(why)))
    elif kind == "abort":
        sink.reject(_event("red", "✖ aborted", ""))
    elif kind == "error":
        sink.reject(None)


def _event(style: str, label: str, detail: str) -> Text:
    line = Text("  ")
    line.append(label, style=style)
    if detail:
        line.append(" " + detail)
    return line


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _LiveSink:
    """A live display of the current step; a rejected step is struck, not erased."""

    def __init__(self, out: Console, prefix: Text | None, interval: float) -> None:
        self._out = out
        self._prefix = self._turn_prefix = prefix
        self._interval = interval
        self._blocks: list[Text] = []
        self._strike_from: list[int] = []
        self._text: Text | None = None
        self._live: Live | None = None
        self._loop = asyncio.get_running_loop()
        self._next_refresh = 0.0
        self._pending: asyncio.TimerHandle | None = None

    def text(self, piece: str, style: str) -> None:
        block = self._text
        if block is None or block.style != style:
            block = self._text = Text(style=style)
            start = 0
            if self._prefix is not None:
                block.append_text(self._prefix)
                start, self._prefix = len(self._prefix), None
            self._add(block, start)
        block.append(piece)
        self._changed()

    def line(self, line: Text) -> None:
        self._text = None
        self._add(line, 0)
        self._changed()

    def _add(self, block: Text, strike_from: int) -> None:
        self._blocks.append(block)
        self._strike_from.append(strike_from)

    def _changed(self) -> None:
        if self._live is None:
            self._live = Live(
                _Step(self._blocks, tail=True),
                console=self._out,
                auto_refresh=False,
                vertical_overflow="visible",
                redirect_stdout=True,
                redirect_stderr=True,
            )
            self._live.start()
        if self._pending is not None:
            return  # a redraw is already due
        if self._loop.time() >= self._next_refresh:
            self._refresh()
        else:  # at most one redraw per interval, and no chunk is left undrawn
            self._pending = self._loop.call_at(self._next_refresh, self._refresh)

    def _refresh(self) -> None:
        self._pending = None
        self._next_refresh = self._loop.time() + self._interval
        if self._live is not None:
            self._live.refresh()

    def accept(self) -> None:
        self._end()

    def reject(self, note: Text | None, *, retry: bool = False) -> None:
        for block, start in zip(self._blocks, self._strike_from, strict=True):
            block.stylize(STRUCK, start)
        if note is not None:
            self.line(note)
        self._end()
        self._prefix = self._turn_prefix  # the next attempt starts a fresh answer

    def _end(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        live = self._live
        if live is not None:
            live.update(_Step(self._blocks, tail=False))
            live.stop()  # prints the whole step, however tall
        self._live = None
        self._blocks, self._strike_from, self._text = [], [], None

    def close(self) -> None:
        self._end()


class _Step:
    """A step's blocks, wrapped at the screen's width whatever the console's settings;
    with ``tail``, only the last screenful, so a step taller than the screen redraws
    cleanly (lines scrolled off the top cannot be redrawn)."""

    def __init__(self, blocks: list[Text], *, tail: bool) -> None:
        self._blocks = blocks
        self._tail = tail

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        options = options.update(no_wrap=False, overflow="fold")
        lines = console.render_lines(Group(*self._blocks), options, pad=False)
        if self._tail:
            lines = lines[-max(1, options.size.height - 1) :]
        for index, line in enumerate(lines):
            yield from line
            if index < len(lines) - 1:
                yield Segment.line()


class _PlainSink:
    """Holds each step until it is accepted; a rejected step is dropped with a notice."""

    def __init__(self, out: Console, events: Console, prefix: Text | None) -> None:
        self._out = out
        self._events = events
        self._prefix = prefix
        self._held: list[tuple[str, Text | str]] = []
        self._mid_line = False  # whether `out` has text after its last newline

    def text(self, piece: str, style: str) -> None:
        if not style:  # reasoning is not part of the answer
            self._held.append(("text", piece))

    def line(self, line: Text) -> None:
        self._held.append(("line", line))

    def accept(self) -> None:
        for kind, item in self._held:
            if kind == "text":
                self._write_text(str(item))
            else:
                self._write_line(item)
        self._held.clear()

    def reject(self, note: Text | None, *, retry: bool = False) -> None:
        dropped = any(kind == "text" for kind, _ in self._held)
        self._held.clear()
        if note is not None:
            if retry and dropped:
                note.append(" (the rejected attempt is not shown)", style="dim")
            self._write_line(note)

    def _write_text(self, text: str) -> None:
        if not text:
            return
        if self._prefix is not None:
            self._out.print(self._prefix, end="", soft_wrap=True)
            self._prefix = None
        self._out.print(text, end="", markup=False, soft_wrap=True)
        self._mid_line = not text.endswith("\n")

    def _write_line(self, line: Text | str) -> None:
        if self._events is self._out and self._mid_line:
            self._out.print()
            self._mid_line = False
        self._events.print(line, soft_wrap=True)

    def close(self) -> None:
        self._held.clear()
        if self._mid_line:
            self._out.print()
            self._mid_line = False
