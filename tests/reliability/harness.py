"""The reliability suite's harness, shared with the ``bench/soak_*.py`` scripts.

:class:`Guard` runs an async body on a fresh event loop in asyncio debug mode and fails when,
after it, a task is still pending, a model stream is still open, a tool is still running, or
the loop reported an error (a task destroyed while pending, an exception never retrieved, a
generator that failed to close). :class:`Tools` are tools that record how each call ended.
:class:`LaneProbe` is a stream processor that records what it received and passed on, for the
lane invariants. :class:`FaultyModel` raises (or streams an ``error`` chunk) at a given chunk.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from procession import (
    Agent,
    AgentResult,
    APICallError,
    Chunk,
    Memory,
    Message,
    ModelCallOptions,
    StreamResult,
    TextPart,
    Tool,
    ToolContext,
    tool,
)
from procession.memory import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript

from ..contract.kit import TrackedModel

T = TypeVar("T")
Release: TypeAlias = Literal["live", "step"]

GRACE = 2.0
"""Seconds a task that is ending on its own (a storage write finishing in its thread) may take
before it counts as left behind. Never a speed target: a leaked task never ends."""


class Guard:
    """Runs async bodies under asyncio debug mode and checks that nothing was left behind."""

    def __init__(self) -> None:
        self.models: list[TrackedModel] = []
        self.tools: list[Tools] = []
        self.loop_errors: list[str] = []
        self.runs = 0

    def model(self, inner: Any) -> TrackedModel:
        """``inner`` with its streams counted; checked at the end of every run."""
        tracked = TrackedModel(inner)
        self.models.append(tracked)
        return tracked

    def track(self, tools: Tools) -> Tools:
        """Check at the end that every call of these tools ended."""
        self.tools.append(tools)
        return tools

    def run(self, body: Callable[[], Awaitable[T]]) -> T:
        """Run ``body()`` on a new event loop in debug mode, then check for leaks."""
        self.runs += 1
        with asyncio.Runner(debug=True) as runner:
            loop = runner.get_loop()
            loop.slow_callback_duration = 10.0  # a shared CI machine: no timing noise
            loop.set_exception_handler(self._loop_error)
            result = runner.run(self._checked(body))
        assert self.loop_errors == [], self.loop_errors
        return result

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        self.loop_errors.append(str(context.get("message")) + " " + repr(context.get("exception")))

    async def _checked(self, body: Callable[[], Awaitable[T]]) -> T:
        try:
            return await body()
        finally:
            await self.check()

    async def check(self) -> None:
        """Fail if a task is pending, a model stream open, or a tool call still running."""
        pending = await pending_tasks()
        assert pending == set(), f"tasks left behind: {pending}"
        still_open = [m for m in self.models if m.open]
        assert still_open == [], f"model streams left open: {[m.open for m in still_open]}"
        for tools in self.tools:
            assert tools.running == 0, f"tool calls still running: {tools.events}"


async def pending_tasks() -> set[asyncio.Task[Any]]:
    """Tasks other than the current one still pending after :data:`GRACE` seconds at most."""
    deadline = time.monotonic() + GRACE
    while True:
        for _ in range(3):
            await asyncio.sleep(0)
        current = asyncio.current_task()
        pending = {t for t in asyncio.all_tasks() if t is not current and not t.done()}
        if not pending or time.monotonic() > deadline:
            return pending
        await asyncio.sleep(0.01)


@dataclass
class Tools:
    """An ``echo`` tool (sync) and a ``wait`` tool (async, yields to the loop ``turns`` times
    and writes a progress chunk) recording how every call ended."""

    turns: int = 2
    fail: bool = False
    events: list[str] = field(default_factory=list)
    running: int = 0

    def all(self) -> list[Tool]:
        """The tools, to pass to an agent."""
        return [self.echo_tool(), self.wait_tool()]

    def echo_tool(self) -> Tool:
        """``echo(text)``: returns its text (raises when ``fail``)."""

        @tool
        def echo(text: str) -> str:
            """Echo the text."""
            self.events.append("echo")
            if self.fail:
                raise RuntimeError("echo broke")
            return text

        return echo

    async def pause(self) -> None:
        """Where the ``wait`` tool yields to the event loop (twice a call)."""
        for _ in range(self.turns):
            await asyncio.sleep(0)

    def wait_tool(self) -> Tool:
        """``wait(n)``: yields to the loop, writes a data chunk, yields, returns ``n``."""

        @tool
        async def wait(n: int, context: ToolContext) -> int:
            """Wait a little."""
            self.running += 1
            self.events.append("start")
            try:
                await self.pause()
                await context.writer.custom({"type": "data-wait", "data": n})
                await self.pause()
                if self.fail:
                    raise ValueError("wait broke")
            except asyncio.CancelledError:
                self.events.append("cancelled")
                raise
            except Exception:
                self.events.append("raised")
                raise
            finally:
                self.running -= 1
            self.events.append("done")
            return n

        return wait


def tool_replies(steps: int = 2, text: Sequence[str] = ("Working ", "on it.")) -> list[Reply]:
    """``steps - 1`` tool steps (each calls ``echo`` and ``wait``), then a text answer."""
    replies = [
        Reply(
            text=list(text),
            tool_calls=[
                ToolCallScript("echo", {"text": f"e{n}"}, f"echo-{n}"),
                ToolCallScript("wait", {"n": n}, f"wait-{n}"),
            ],
        )
        for n in range(steps - 1)
    ]
    replies.append(Reply(text=["All ", "done."]))
    return replies


class LaneProbe:
    """A stream processor recording each chunk it received (``seen``) and passed on (``out``).

    ``behaviour`` is one of :data:`BEHAVIOURS`; ``mode`` ``"sync"`` or ``"async"``.
    """

    def __init__(self, processor_id: str, behaviour: str, mode: str) -> None:
        self.id = processor_id
        self.behaviour = behaviour
        self.seen: list[Chunk] = []
        self.out: list[Chunk] = []
        self._held: list[Chunk] = []
        if mode == "async":
            self.process_output_stream = self._async_hook
        else:
            self.process_output_stream = self._sync_hook

    def _sync_hook(self, *, part: Chunk, **_: Any) -> Any:
        self.seen.append(part)
        result = BEHAVIOURS[self.behaviour](self, part)
        if isinstance(result, list):
            self.out.extend(result)
        elif result is not None:
            self.out.append(result)
        return result

    async def _async_hook(self, *, part: Chunk, **_: Any) -> Any:
        await asyncio.sleep(0)
        return self._sync_hook(part=part)


def _is_text(part: Chunk) -> bool:
    return part.type == "text-delta"


def _hold(probe: LaneProbe, part: Chunk) -> Any:
    """Hold text deltas until the block ends, then release them with the ending chunk."""
    if _is_text(part):
        probe._held.append(part)
        return None
    if part.type == "text-end" and probe._held:
        held, probe._held = probe._held, []
        return [*held, part]
    return part


BEHAVIOURS: dict[str, Callable[[LaneProbe, Chunk], Any]] = {
    "pass": lambda probe, part: part,
    "copy": lambda probe, part: part.copy(),
    "upper": lambda probe, part: (
        part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
        if _is_text(part)
        else part
    ),
    "drop": lambda probe, part: None if _is_text(part) and "~" in part.payload["text"] else part,
    "split": lambda probe, part: (
        [
            part.copy(payload={**part.payload, "text": part.payload["text"][:1]}),
            part.copy(payload={**part.payload, "text": part.payload["text"][1:]}),
        ]
        if _is_text(part) and len(part.payload["text"]) > 1
        else part
    ),
    "hold": _hold,
}
"""What a probe does with each chunk: pass it, copy it, upper-case text, drop text holding
``~``, split text in two chunks (a list return), or hold a text block until its end."""


HIDDEN = frozenset(("response-metadata", "finish"))
"""Chunks that pass the lane but never reach the client (D22)."""
LOOP_CHUNKS = frozenset(("step-start", "tool-result", "tool-error", "step-finish"))


def check_lane(
    probes: list[LaneProbe], model_chunks: list[Chunk], client: list[Chunk], *, step: bool
) -> int:
    """The lane invariants over one run; returns how many chunk passes were checked.

    Step mode releases ``response-metadata`` to the client, which live mode hides: tolerated
    here, pinned as a loop need by ``tests/contract/test_d31_release.py``."""
    first = probes[0]
    for probe in probes:
        ids = [id(c) for c in probe.seen]
        assert len(ids) == len(set(ids)), f"{probe.id} received a chunk twice"
    for before, after in itertools.pairwise(probes):
        assert [id(c) for c in after.seen] == [id(c) for c in before.out], (
            f"{after.id} did not receive exactly what {before.id} passed on"
        )
    from_model = {id(c) for c in model_chunks}
    expected = [
        c
        for c in model_chunks
        if c.type != "finish" or c.payload["stepResult"]["reason"] != "tool-calls"
    ]
    assert [c for c in first.seen if id(c) in from_model] == expected
    assert {c.type for c in first.seen if id(c) not in from_model} <= LOOP_CHUNKS
    passed = [c for c in probes[-1].out if c.type not in HIDDEN]
    shown = [  # data chunks skip probes without process_data_parts (D9)
        c
        for c in client
        if c.type != "start" and c is not client[-1] and not c.type.startswith("data-")
    ]
    if step:
        shown = [c for c in shown if c.type != "response-metadata"]
    assert [id(c) for c in shown] == [id(c) for c in passed], "the client got another sequence"
    return sum(len(p.seen) for p in probes)


class RecordingModel:
    """Keeps every chunk object the scripted model yielded, in order (its stream counted
    by the guard)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.model = ScriptedModel(replies)
        self.chunks: list[Chunk] = []

    def tracked(self, guard: Guard) -> Any:
        tracked = guard.model(self.model)
        inner_do_stream = tracked.do_stream

        async def do_stream(options: Any) -> Any:
            result = await inner_do_stream(options)
            stream = result.stream

            async def kept() -> Any:
                async for chunk in stream:
                    self.chunks.append(chunk)
                    yield chunk

            result.stream = kept()
            return result

        tracked.do_stream = do_stream  # type: ignore[method-assign]
        return tracked


class FaultyModel:
    """Streams ``replies`` (a :class:`ScriptedModel`) but fails at chunk ``at`` of call
    ``call``: ``kind`` ``"raise"`` raises from the stream, ``"chunk"`` streams an ``error``
    chunk and ends, ``"start"`` fails the call itself."""

    specification_version = "v2"
    supports_structured_output = False
    provider = "faulty"
    model_id = "faulty-model"

    def __init__(self, replies: Sequence[Reply], *, call: int, at: int, kind: str) -> None:
        self.replies = list(replies)
        self.call, self.at, self.kind = call, at, kind
        self.calls: list[ModelCallOptions] = []
        self.faults = 0
        self.served = 0
        """Calls that streamed without a fault: the next call answers with that reply, so a
        retried call gets the reply the broken one was streaming."""

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """The scripted call, broken at the chosen point of the chosen call."""
        number = len(self.calls)
        self.calls.append(options)
        if number == self.call and self.kind == "start":
            self.faults += 1
            raise APICallError("rejected", status_code=400)
        reply = self.replies[min(self.served, len(self.replies) - 1)]
        result: StreamResult = await ScriptedModel([reply]).do_stream(options)
        if number == self.call:
            result.stream = self._broken(result.stream)
        else:
            self.served += 1
        return result

    async def _broken(self, stream: AsyncIterator[Chunk]) -> AsyncIterator[Chunk]:
        index = 0
        try:
            async for chunk in stream:
                if index == self.at:
                    self.faults += 1
                    error = APICallError("upstream broke", status_code=502, is_retryable=False)
                    if self.kind == "raise":
                        raise error
                    yield Chunk("error", {"error": error})
                    return
                yield chunk
                index += 1
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()  # type: ignore[attr-defined]


async def streamed(
    agent: Agent, release: Release, prompt: str = "go", **options: Any
) -> tuple[list[Chunk], AgentResult]:
    """Every chunk of one stream run and its result (thread ``t`` of resource ``r``)."""
    options.setdefault("thread_id", "t")
    options.setdefault("resource_id", "r")
    stream = agent.stream(prompt, release=release, **options)
    chunks = [c async for c in stream]
    return chunks, await stream.result(raise_error=False)


def sqlite_memory() -> Memory:
    """A memory on a private in-memory SQLite database (close its storage after use)."""
    return Memory(SQLiteStorage(":memory:"))


async def stored(memory: Memory, thread_id: str = "t", resource_id: str = "r") -> list[Message]:
    """What memory stored for a thread."""
    return await memory.storage.list_messages(thread_id, resource_id=resource_id)


def texts_of(messages: Sequence[Message]) -> str:
    """Every text part of ``messages``, joined."""
    return "".join(p.text for m in messages for p in m.content.parts if isinstance(p, TextPart))
