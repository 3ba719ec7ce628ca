"""Printing streams: live mode strikes rejected attempts, plain mode holds steps (D2, D31)."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator

import pytest
from rich.console import Console
from rich.text import Text

from procession import Agent, Processor, tool
from procession.chunks import Chunk, finish_chunk
from procession.cli.render import StreamPrinter
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel, ToolCallScript

STRIKE = "\x1b[2;9m"


def terminal(height: int = 24) -> tuple[Console, io.StringIO]:
    file = io.StringIO()
    out = Console(file=file, force_terminal=True, color_system="standard", width=60, height=height)
    return out, file


def plain() -> tuple[Console, io.StringIO]:
    file = io.StringIO()
    return Console(file=file, force_terminal=False, width=60), file


class RetryOnce(Processor):
    id = "picky"

    def process_output_step(self, *, abort: object, retry_count: int, **_: object) -> None:
        if retry_count == 0:
            abort("try again", retry=True)  # type: ignore[operator]


class BlockWord(Processor):
    id = "block-word"

    def process_output_stream(self, *, part: Chunk, abort: object, **_: object) -> Chunk:
        if part.type == "text-delta" and "secret" in part.payload["text"]:
            abort("no secrets on screen")  # type: ignore[operator]
        return part


@tool
def lookup(order_id: str) -> str:
    """Look an order up."""
    return f"order {order_id}: shipped"


def retrying_agent() -> Agent:
    return Agent(
        id="a",
        model=ScriptedModel([Reply(text=["first ", "draft"]), Reply(text=["final ", "answer"])]),
        output_processors=[RetryOnce()],
        max_processor_retries=1,
    )


@pytest.mark.asyncio
async def test_live_mode_strikes_the_rejected_attempt() -> None:  # D31
    out, file = terminal()
    result = await StreamPrinter(out).print_stream(retrying_agent().stream("hi"))
    assert result.text == "final answer"
    shown = file.getvalue()
    rejected, _, accepted = shown.rpartition("retry requested by picky")
    assert f"{STRIKE}first draft" in rejected
    assert "final answer" in accepted
    assert STRIKE not in accepted


@pytest.mark.asyncio
async def test_plain_mode_never_shows_the_rejected_attempt() -> None:  # D31
    out, answer = plain()
    events, notes = plain()
    await StreamPrinter(out, events).print_stream(retrying_agent().stream("hi"))
    assert answer.getvalue() == "final answer\n"
    assert notes.getvalue() == (
        "  ↻ retry requested by picky: try again (the rejected attempt is not shown)\n"
    )


@pytest.mark.asyncio
async def test_a_tripwire_strikes_the_blocked_step_live() -> None:
    agent = Agent(
        id="a",
        model=ScriptedModel([Reply(text=["the ", "secret ", "is"])]),
        output_processors=[BlockWord()],
    )
    out, file = terminal()
    result = await StreamPrinter(out).print_stream(agent.stream("hi"))
    assert result.tripwire is not None
    shown = file.getvalue()
    assert f"{STRIKE}the " in shown
    assert "tripwire (block-word): no secrets on screen" in re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert "secret" not in shown.partition("tripwire")[0]


@pytest.mark.asyncio
async def test_tool_steps_show_their_calls_and_results() -> None:
    agent = Agent(
        id="a",
        tools=[lookup],
        model=ScriptedModel(
            [
                Reply(tool_calls=[ToolCallScript("lookup", {"order_id": "A-1"})]),
                Reply(text=["It has shipped."]),
            ]
        ),
    )
    out, answer = plain()
    await StreamPrinter(out).print_stream(agent.stream("where is A-1?"))
    assert answer.getvalue() == (
        '  ⚙ tool call lookup({"order_id": "A-1"})\n'
        "  ⚙ tool result lookup → order A-1: shipped\n"
        "It has shipped.\n"
    )


@pytest.mark.asyncio
async def test_a_step_taller_than_the_screen_redraws_its_tail_and_prints_whole() -> None:
    lines = [f"line {n}\n" for n in range(1, 31)]
    agent = Agent(id="a", model=ScriptedModel([Reply(text=lines, delay=0.005)]))
    out, file = terminal(height=6)
    await StreamPrinter(out, refresh_per_second=1000).print_stream(agent.stream("hi"))
    shown = file.getvalue()
    # a redraw moves up over what it drew last: never more than the screen holds, or the
    # lines scrolled off the top would be drawn again
    ups = [len(run) // 8 for run in re.findall(r"(?:\x1b\[1A\x1b\[2K)+", shown)]
    assert ups
    assert max(ups) <= 5
    final = shown.rpartition("\x1b[2K")[2]  # after the last redraw: the whole step
    assert [f"line {n}" for n in range(1, 31)] == [
        text for text in final.replace("\r", "").split("\n") if text.startswith("line")
    ]


class Pausing:
    """Two quick text chunks, then a long pause before the end."""

    specification_version = "v2"
    provider = "test"
    model_id = "pausing"
    supports_structured_output = False

    def __init__(self, pause: float) -> None:
        self.pause = pause

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        return StreamResult(stream=self._chunks())

    async def _chunks(self) -> AsyncIterator[Chunk]:
        yield Chunk("text-start", {"id": "t"})
        yield Chunk("text-delta", {"id": "t", "text": "one "})
        yield Chunk("text-delta", {"id": "t", "text": "two"})
        await asyncio.sleep(self.pause)
        yield Chunk("text-end", {"id": "t"})
        yield finish_chunk("stop")


@pytest.mark.asyncio
async def test_live_redraws_are_throttled_but_no_chunk_waits_for_the_next() -> None:
    out, file = terminal()
    printer = StreamPrinter(out, refresh_per_second=5)  # one redraw per 0.2 s at most
    agent = Agent(id="a", model=Pausing(pause=2.0))
    task = asyncio.create_task(printer.print_stream(agent.stream("hi")))
    await asyncio.sleep(1.0)  # in the pause: "two" arrived right after a redraw
    assert "one two" in file.getvalue()
    await task


@pytest.mark.parametrize("soft_wrap", [False, True])
@pytest.mark.asyncio
async def test_live_text_wraps_at_the_screen_width(soft_wrap: bool) -> None:
    words = [f"word{n} " for n in range(40)]
    agent = Agent(id="a", model=ScriptedModel([Reply(text=words)]))
    file = io.StringIO()
    out = Console(file=file, force_terminal=True, width=40, height=24, soft_wrap=soft_wrap)
    await StreamPrinter(out).print_stream(agent.stream("hi"))
    final = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", file.getvalue().rpartition("\x1b[2K")[2])
    lines = [line for line in final.replace("\r", "").split("\n") if line.strip()]
    assert max(len(line) for line in lines) <= 40
    assert "".join(lines).replace(" ", "") == "".join(words).replace(" ", "")


@pytest.mark.asyncio
async def test_each_attempt_starts_with_the_prefix_live() -> None:
    out, file = terminal()
    prefix = Text("agent> ")
    await StreamPrinter(out).print_stream(retrying_agent().stream("hi"), prefix=prefix)
    final = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", file.getvalue())
    rejected, _, accepted = final.rpartition("retry requested by picky")
    assert "agent> first draft" in rejected
    assert "agent> final answer" in accepted
