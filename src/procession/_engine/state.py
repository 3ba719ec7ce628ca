"""The state of one run: ids, messages, steps, usage, retry counters, result, and its emitter.

One slotted object per ``generate()``/``stream()`` call. Stages read and change it; the hook
runner builds hook arguments from it; the loop owns it from start to end.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, Any

from procession._engine.step import StepBuilder
from procession._records import record
from procession.chunks import Chunk, Usage
from procession.context import RequestContext, TracingContext
from procession.messages.message import Message, MessageContent
from procession.messages.message_list import MessageList
from procession.results import AgentResult, StepResult

if TYPE_CHECKING:
    from procession._engine.config import StepConfig
    from procession._engine.observers import RunObserver
    from procession._engine.outcomes import Outcome, Stop
    from procession._engine.runner import HookRunner
    from procession.models._abort import AbortGuard
    from procession.structured import ObjectStream, StructuredOutput
    from procession.tools._tool import Tool

__all__ = [
    "Attempt",
    "DEFAULT_ERROR_RETRY_BUDGET",
    "Emitter",
    "RunState",
    "Wake",
]

DEFAULT_ERROR_RETRY_BUDGET = 10
"""The retry budget when error processors are configured and none was set (D4, the seed)."""


class Wake:
    """An ``asyncio.Event`` for the tool stage's waits, without a task per wait: :meth:`wait`
    hands out a plain future, resolved by :meth:`set` (or at once if set already), so a wait
    that is abandoned leaves nothing pending behind (D32)."""

    __slots__ = ("_flag", "_future")

    def __init__(self) -> None:
        self._flag = False
        self._future: asyncio.Future[None] | None = None

    def set(self) -> None:
        """Wake the current wait, or the next one."""
        self._flag = True
        future = self._future
        if future is not None and not future.done():
            future.set_result(None)

    def clear(self) -> None:
        """Forget a wake-up already taken."""
        self._flag = False

    def wait(self) -> asyncio.Future[None]:
        """A future resolved once :meth:`set` is (or was) called."""
        future = self._future = asyncio.get_running_loop().create_future()
        if self._flag:
            future.set_result(None)
        return future


class Emitter:
    """The run's way out to the client.

    Writers queue ``data-*`` chunks in :attr:`pending` (the hook runner passes them through the
    output lane after the hook that wrote them, D9, D27); what is ready for the client waits in
    :attr:`ready` until the loop drains it. With ``release="step"`` (D31) a step's chunks wait
    in :attr:`held` until the step is accepted, and a rejected attempt's are dropped.
    """

    __slots__ = ("held", "hold", "holding", "pending", "ready", "wake", "writes")

    def __init__(self, *, hold: bool) -> None:
        self.hold = hold
        self.holding = False
        """Whether a step is under way in step mode (its chunks are held)."""
        self.pending: deque[tuple[Chunk, int]] = deque()
        """Writer chunks and the lane position they enter at."""
        self.ready: deque[Chunk] = deque()
        self.held: list[Chunk] = []
        self.wake: Wake | None = None
        """Set while tools run, so a tool's writer chunk is streamed as it comes."""
        self.writes = 0
        """How many chunks writers queued in this run (tracing counts a hook's)."""

    def write(self, chunk: Chunk, start: int) -> None:
        """Queue a writer's chunk for the output lane, from lane position ``start``."""
        self.pending.append((chunk, start))
        self.writes += 1
        if self.wake is not None:
            self.wake.set()

    def begin_step(self) -> None:
        """A step starts: in step mode its chunks are held from now on (D31)."""
        self.holding = self.hold

    def send(self, chunk: Chunk) -> None:
        """Queue a processed chunk for the client (held in step mode, unless transient)."""
        if self.holding and not chunk.transient:
            self.held.append(chunk)
        else:
            self.ready.append(chunk)

    def drain(self) -> Iterator[Chunk]:
        """Every chunk ready for the client, in order, removed as it is taken."""
        ready = self.ready
        while ready:
            yield ready.popleft()

    def release(self, chunks: list[Chunk]) -> None:
        """An accepted step's held chunks (possibly edited) go to the client (D31)."""
        self.ready.extend(chunks)
        self.held.clear()
        self.holding = False

    def discard(self) -> None:
        """A rejected or blocked attempt: its held and unprocessed chunks never go out."""
        self.held.clear()
        self.pending.clear()
        self.holding = False


class RunState:
    """One run's state. Attributes are the loop's; hooks see them through their arguments."""

    __slots__ = (
        "agent_id",
        "api_retries",
        "emitter",
        "last_model",
        "message_list",
        "observer",
        "on_closed",
        "processor_retries",
        "request_context",
        "response_id",
        "result",
        "run_id",
        "runner",
        "running",
        "signal",
        "states",
        "steps",
        "tracing",
        "usage",
    )

    def __init__(
        self,
        *,
        run_id: str,
        agent_id: str,
        request_context: RequestContext,
        signal: Any,
        hold: bool,
    ) -> None:
        self.run_id = run_id
        self.agent_id = agent_id
        self.response_id = f"{run_id}-response"
        self.request_context = request_context
        self.signal = signal
        self.message_list = MessageList(
            thread_id=request_context.thread_id, resource_id=request_context.resource_id
        )
        self.tracing = TracingContext(run_id=run_id, agent_id=agent_id)
        self.states: dict[str, dict[str, Any]] = {}
        self.steps: list[StepResult] = []
        self.usage = Usage()
        self.processor_retries = 0
        self.api_retries = 0
        self.result = AgentResult(run_id=run_id, response_message_id=self.response_id)
        self.emitter = Emitter(hold=hold)
        self.observer: RunObserver | None = None
        """Who is told what the run does (its spans, Studio's notes), wired when it starts;
        ``None`` for nobody (``procession._engine.observers``)."""
        self.last_model: str | None = None
        """``"provider/model"`` of the last model call that started, if any did (the ledger)."""
        self.running = False
        """Whether the loop started and has not closed the run yet."""
        self.runner: HookRunner | None = None
        """The run's bound hooks, while it runs (set when it starts, dropped when it closes)."""
        self.on_closed: asyncio.Future[None] | None = None
        """Resolved when the run closes, for a caller waiting on a close it did not drive."""

    @property
    def steps_final(self) -> bool:
        """Whether nothing can reject a step once its text streamed (no hook that can retry or
        block a step, no retry budget for an API error or a structured answer), so
        ``text_stream`` sends live text as it comes (``procession.live_text``). Asked by a
        reader, not by the loop: a run nobody reads so pays nothing for it."""
        runner = self.runner
        return runner is not None and runner.steps_final()

    def closed(self) -> None:
        """The loop closed the run: nothing of it runs any more."""
        self.running = False
        waiter = self.on_closed
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait_closed(self) -> None:
        """Wait until the loop closed the run (at once if it is not running)."""
        if self.running:
            if self.on_closed is None:
                self.on_closed = asyncio.get_running_loop().create_future()
            await self.on_closed

    def state_for(self, processor_id: str) -> dict[str, Any]:
        """The run's state dict for a processor id (D15)."""
        state = self.states.get(processor_id)
        if state is None:
            state = self.states[processor_id] = {}
        return state

    def chunk(self, kind: str, payload: dict[str, Any]) -> Chunk:
        """A chunk of this run."""
        return Chunk(kind, payload, self.run_id)

    def response_message(self) -> Message:
        """The run's assistant response message, created on first use."""
        message_list = self.message_list
        for message in reversed(message_list.get.response.db()):
            if message.id == self.response_id:
                return message
        message = Message(id=self.response_id, role="assistant", content=MessageContent(parts=[]))
        message_list.add(message, "response")
        return message


@record(slots=True, kw_only=True, eq=False)
class Attempt:
    """One attempt at a step: what the stages before the model hand to those after it."""

    step_number: int
    step: StepConfig
    checkpoint: object
    """The message list before this attempt, for rolling it back (D1, D11)."""
    model_checkpoint: object = None
    """The message list just before the model call, for rolling back a failed call (D14)."""
    steps_before: int
    """How many accepted steps there were when it started."""
    retries: int = 0
    """Retries of the run so far (processor and API-error) when it started: with the step
    number, it names the attempt the same way when a durable run is executed again."""
    builder: StepBuilder = field(default_factory=StepBuilder)
    tools: dict[str, Tool] = field(default_factory=dict)
    prompt: list[dict[str, Any]] = field(default_factory=list)
    raw: list[Chunk] | None = None
    """The model's chunks as it produced them, when ``process_llm_response`` wants them (D7)."""
    cached: dict[str, Any] | None = None
    """A response a ``process_llm_request`` hook returned to replay (D7)."""
    stream: AsyncIterator[Chunk] | None = None
    read: Callable[[], Awaitable[Chunk]] | None = None
    guard: AbortGuard | None = None
    """One abort-signal listener for the attempt's awaits (D32), when the run has a signal."""
    """Reads the model stream's next chunk (the loop reads it anew for each chunk)."""
    request: dict[str, Any] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    finish: Chunk | None = None
    structured: StructuredOutput | None = None
    objects: ObjectStream | None = None
    result: StepResult | None = None
    """The step's result once the model's stream ended."""
    outcome: Stop | None = None
    """What stopped the attempt, if anything did (a stage's report)."""
    edits: int = 0
    """The message edit count when the attempt started (D30's check of stream hooks)."""
    verdict: Outcome | None = None
    """How the step ended, once the loop settled it (``procession._engine.loop``)."""
    released: bool = False
    """Step mode: the step's chunks went out before its verdict (a tool asked for approval)."""

    def stopped(self) -> bool:
        """Whether a stage stopped this attempt."""
        return self.outcome is not None

    def settled(self) -> Outcome:
        """How the step ended (set by the loop once it settled it)."""
        assert self.verdict is not None
        return self.verdict

    def runs_tools(self) -> bool:
        """Whether the accepted step called tools the loop must run."""
        result = self.result
        return result is not None and any(not c.provider_executed for c in result.tool_calls)
