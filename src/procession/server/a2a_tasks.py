"""A2A tasks: one agent run each, kept in this process, owned by the caller's resource.

A task starts ``submitted``, is ``working`` once its run started, and ends ``completed``,
``failed``, ``canceled`` or ``rejected`` (a processor's tripwire blocked the run). A tool
that needs approval puts it in ``input-required`` while the run waits; the client's next
message on the task answers (``docs/server-a2a.md``). Requests follow a task through
:meth:`A2ATask.follow`: each gets the task's events until it ends or waits for input.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from procession.agent import Agent
from procession.chunks import Chunk
from procession.server.a2a_wire import INTERRUPTED, TERMINAL, Said, Status, TaskView
from procession.server.errors import status_of
from procession.server.scaling import thread_turn

__all__ = ["A2ATask", "Artifact", "Follower", "TaskStore", "new_task_id"]

MAX_TASKS = 10_000
"""Tasks an app keeps; past it, the oldest ended tasks are forgotten."""
MAX_RUNNING = 64
"""Tasks one resource may have running (or waiting for input) at once."""


def new_task_id() -> str:
    """A random task or context id (a UUID 4: 122 random bits)."""
    return str(uuid.uuid4())


def now() -> str:
    """The time as an RFC 3339 timestamp in UTC."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Artifact:
    """A piece of the response's text (an artifact-update event)."""

    text: str
    append: bool
    last: bool


Event = Status | Artifact


class Follower:
    """The events of a task for one request, in order (a deque and a wake-up event: lighter
    per text delta than an ``asyncio.Queue``)."""

    __slots__ = ("_events", "_wake")

    def __init__(self) -> None:
        self._events: deque[Event] = deque()
        self._wake = asyncio.Event()

    def put(self, event: Event) -> None:
        """Add an event."""
        self._events.append(event)
        self._wake.set()

    async def get(self) -> Event:
        """The next event, once there is one."""
        events = self._events
        while not events:
            self._wake.clear()
            await self._wake.wait()
        return events.popleft()

    def empty(self) -> bool:
        """Whether every event was read."""
        return not self._events


@dataclass(eq=False, slots=True)
class A2ATask:
    """One task: its run, its state, and the requests following it."""

    id: str
    context_id: str
    agent_id: str
    resource: str
    run_id: str
    status: Status
    history: list[Said] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    waiting: tuple[str, str] | None = None
    """The run id and tool call id of the call waiting for approval."""
    runner: asyncio.Task[None] | None = None
    started: asyncio.Future[BaseException | None] | None = None
    """Resolved once the run produced its first chunk (``None``), or failed before (the
    error: the request answers it, and the task is forgotten)."""
    followers: list[Follower] = field(default_factory=list)
    background: bool = False
    """Started by a non-blocking send: the run goes on when its client leaves."""
    _pending: str | None = None
    _sent: bool = False

    def view(self) -> TaskView:
        """What a dialect encodes."""
        return TaskView(
            self.id,
            self.context_id,
            self.status,
            list(self.history),
            f"{self.id}-response",
            "".join(self.pieces),
        )

    @property
    def paused(self) -> bool:
        """Ended, or waiting for the client's input."""
        return self.status.state in TERMINAL or self.status.state in INTERRUPTED

    def set_state(self, state: str, text: str | None = None, data: Any = None) -> None:
        """Move to ``state`` (with the agent's message about it) and tell the followers."""
        message = None
        if text is not None or data is not None:
            parts: list[dict[str, Any]] = [{"text": text}] if text is not None else []
            if data is not None:
                parts.append({"data": data})
            message = Said("agent", new_task_id(), parts, self.context_id, self.id)
            self.history.append(message)
        self.status = Status(state, message, now())
        self._tell(self.status)

    def _tell(self, event: Event) -> None:
        for follower in self.followers:
            follower.put(event)

    def _text(self, text: str, last: bool) -> None:
        """Send the held piece of text; hold ``text`` (the last piece is marked last)."""
        held, self._pending = self._pending, text
        if held is not None:
            self.pieces.append(held)
            self._tell(Artifact(held, self._sent, last))
            self._sent = True

    def flush(self) -> None:
        """Send the held piece as the artifact's last chunk."""
        if self._pending is not None:
            self._text("", True)
            self._pending = None

    def on_chunk(self, chunk: Chunk) -> None:
        """Follow one chunk of the run (the hot path: text deltas)."""
        kind = chunk.type
        if kind == "text-delta":
            text = chunk.payload.get("text")
            if isinstance(text, str) and text:
                self._text(text, False)
        elif kind == "start" and self.status.state == "submitted":
            self.set_state("working")
        elif kind == "tool-call-approval":
            payload = chunk.payload
            call = {k: payload.get(k) for k in ("toolCallId", "toolName", "args")}
            self.waiting = (chunk.run_id or self.run_id, str(payload.get("toolCallId")))
            self.set_state(
                "input-required", f"Approve the call of tool {call['toolName']!r}?", call
            )

    def follow(self) -> Follower:
        """The task's events from now on (until :meth:`leave`)."""
        queue = Follower()
        self.followers.append(queue)
        return queue

    def leave(self, queue: Follower) -> None:
        """Stop sending events to ``queue``."""
        with contextlib.suppress(ValueError):
            self.followers.remove(queue)


def _failure_text(error: BaseException) -> str:
    """Why the run failed, worded as the other routes' error bodies (``status_of``)."""
    return status_of(error).message


async def drive(
    task: A2ATask,
    agent: Agent,
    messages: Any,
    options: dict[str, Any],
    lock_timeout: float,
    ended: Callable[[], None],
) -> None:
    """Run the task's turn (holding its thread, D13) and follow its chunks to the end."""
    started = task.started
    assert started is not None
    try:
        async with thread_turn(agent, options, lock_timeout):
            run = agent.stream(messages, **options)
            first = True
            async for chunk in run:
                if first:
                    first = False
                    if chunk.type == "error":
                        break
                    started.set_result(None)
                task.on_chunk(chunk)
            result = await run.result(raise_error=False)
        if not started.done():
            started.set_result(result.error or RuntimeError("the run produced nothing"))
            return
        task.flush()
        if result.error is not None:
            task.set_state("failed", _failure_text(result.error))
        elif result.tripwire is not None:
            task.set_state("rejected", str(result.tripwire.get("reason") or "Blocked"))
        elif result.finish_reason == "abort":
            task.set_state("canceled", "The run was aborted")
        else:
            task.set_state("completed")
    except asyncio.CancelledError:
        if not started.done():
            started.set_result(RuntimeError("canceled"))
        elif task.status.state not in TERMINAL:
            task.set_state("canceled", "Task canceled")
    except Exception as exc:  # a run that failed to start: its error is the answer
        if not started.done():
            started.set_result(exc)
        else:
            task.set_state("failed", _failure_text(exc))
    finally:
        ended()


class TaskStore:
    """The app's A2A tasks by id (at most :data:`MAX_TASKS`; the oldest ended go first)."""

    def __init__(self, limit: int = MAX_TASKS, running: int = MAX_RUNNING) -> None:
        self._tasks: OrderedDict[str, A2ATask] = OrderedDict()
        self._limit = limit
        self.max_running = running
        """Tasks one resource may have running at once."""

    def running(self, resource: str) -> int:
        """How many of the resource's tasks have not ended."""
        return sum(
            1
            for t in self._tasks.values()
            if t.resource == resource and t.status.state not in TERMINAL
        )

    def add(self, task: A2ATask) -> None:
        """Keep ``task``, forgetting the oldest ended tasks past the limit."""
        self._tasks[task.id] = task
        if len(self._tasks) > self._limit:
            for old in [t for t in self._tasks.values() if t.status.state in TERMINAL]:
                del self._tasks[old.id]
                if len(self._tasks) <= self._limit:
                    break

    def forget(self, task: A2ATask) -> None:
        """Drop ``task`` (a run that failed before it started)."""
        self._tasks.pop(task.id, None)

    def get(self, task_id: str, resource: str, agent_id: str) -> A2ATask | None:
        """The task, when it is this resource's and this agent's; ``None`` otherwise (another
        resource's task is not found, never forbidden)."""
        task = self._tasks.get(task_id)
        if task is None or task.resource != resource or task.agent_id != agent_id:
            return None
        return task

    def of(self, resource: str, agent_id: str) -> list[A2ATask]:
        """The resource's tasks with this agent, newest first."""
        mine = [t for t in self._tasks.values() if t.resource == resource]
        return [t for t in reversed(mine) if t.agent_id == agent_id]
