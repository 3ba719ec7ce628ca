"""``DBOSJournal``: a run's model calls, tool calls and commit as DBOS steps.

Used inside a DBOS workflow (:mod:`procession.durable.runs` runs each run as one). Every call
the loop hands the journal (``procession.journal``) is one DBOS step whose name is the
journal's key, so an execution that makes the calls in another order fails loudly instead of
replaying the wrong record. Step ids are drawn when the call is made (``DBOS.reserve_step``),
so tools running in parallel get the same ids every time.

On PostgreSQL, :class:`~procession.durable.DurableRuns` hands the journal the run's
:class:`~procession.durable.checkpoints.RunCheckpoints`: model and tool calls are then
recorded there (one ``INSERT`` each) instead of as DBOS steps (decision 0201); the commit
stays a DBOS step.

- **Model call**: the step streams the model live — chunks reach the run as they arrive — and
  its recorded output is the chunks' wire form. Executed again, the step returns the record
  without calling the model and the chunks are replayed. A call that failed records only
  that it failed, and is made again (unrecorded) when the run is executed again.
- **Tool call**: the step's output is the tool's outcome, ``(ok, value)``.
- **Commit**: the step stores the turn inside :func:`~procession.memory.commit_once`, so a
  worker dying between the commit and its checkpoint cannot store the turn twice (D13).

Processor state must have a JSON form in a durable run (it is rebuilt by executing the run
again, and a value with no stored form is a sign it would not be): :func:`stored_states` is
that form and :func:`check_states` raises :class:`~procession.errors.ProcessorError` (a
server error, 500) naming the processor and the state key at the first checkpoint it fails.
JSON values are their own form; a per-run working object (a redactor's stream scanner, a
decision) gives one through a ``to_state()`` method; a chunk is its wire form, a set its
sorted list, a pydantic model its JSON dump.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from procession.chunks import Chunk
from procession.durable.checkpoints import RunCheckpoints
from procession.errors import ProcessorError
from procession.journal import ToolOutcome
from procession.memory.once import commit_once

if TYPE_CHECKING:
    from dbos import StepOptions

__all__ = ["DBOSJournal", "check_states", "stored_states"]

_FAILED = "__procession_failed__"
_DONE = object()


def _stored_form(value: Any) -> Any:
    """The JSON form of a state value JSON cannot hold by itself (``json.dumps``'s hook)."""
    to_state = getattr(value, "to_state", None)
    if callable(to_state):
        return to_state()
    if isinstance(value, Chunk):
        return value.to_dict()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    model_dump = getattr(value, "model_dump", None)  # a pydantic model (structured output)
    if callable(model_dump):
        return model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} has no stored form (give it a to_state() method)")


def stored_states(states: Mapping[str, Any]) -> dict[str, str]:
    """Every processor's state in its stored (JSON) form, by processor id.

    Raises:
        ProcessorError: a state value has no JSON form (naming the processor and the key).
    """
    out: dict[str, str] = {}
    for processor_id, state in states.items():
        try:
            out[processor_id] = json.dumps(state, allow_nan=False, default=_stored_form)
        except (TypeError, ValueError) as error:
            key = _failing_key(state)
            where = "its state" if key is None else f"its state key {key!r}"
            raise ProcessorError(
                processor_id,
                "durable checkpoint",
                f"{where} has no JSON form to store in a durable run ({error})",
            ) from None
    return out


def _failing_key(state: Any) -> str | None:
    if not isinstance(state, Mapping):
        return None
    for key, value in state.items():
        try:
            json.dumps(value, allow_nan=False, default=_stored_form)
        except (TypeError, ValueError):
            return str(key)
    return None


def check_states(states: Mapping[str, Any]) -> None:
    """Raise :class:`~procession.errors.ProcessorError` unless every processor's state has a
    stored form (:func:`stored_states`)."""
    stored_states(states)


def _options(key: str) -> StepOptions:
    # a failing call is the loop's business (retries, process_api_error), not DBOS's
    return {"name": key, "retries_allowed": False}


class DBOSJournal:
    """A :class:`~procession.journal.Journal` on DBOS steps (see the module docstring).

    Args:
        states: Returns the run's processor states, checked at every checkpoint
            (:func:`check_states`); ``None`` checks nothing.
        checkpoints: Where model and tool calls are recorded (PostgreSQL); ``None``: as
            DBOS steps.
    """

    def __init__(
        self,
        *,
        states: Callable[[], Mapping[str, Any]] | None = None,
        checkpoints: RunCheckpoints | None = None,
    ) -> None:
        self._states = states
        self._checkpoints = checkpoints

    def _check(self) -> None:
        if self._states is not None:
            check_states(self._states())

    async def model_call(
        self, key: str, start: Callable[[], AsyncIterator[Chunk]]
    ) -> AsyncIterator[Chunk]:
        """Stream ``start()`` as a step recording its chunks, or replay the record."""
        from dbos import DBOS

        self._check()
        if self._checkpoints is not None:
            async for chunk in _recorded_model_call(self._checkpoints, key, start):
                yield chunk
            return
        reservation = DBOS.reserve_step()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        ran = False

        async def body() -> list[dict[str, Any]] | str:
            nonlocal ran
            ran = True
            recorded: list[dict[str, Any]] = []
            try:
                async for chunk in start():
                    recorded.append(chunk.to_dict())
                    queue.put_nowait(chunk)
            except Exception as error:  # told to the run; only the failure is recorded
                queue.put_nowait(error)
                return _FAILED
            return recorded

        step = asyncio.ensure_future(reservation.run_async(_options(key), body))
        step.add_done_callback(lambda _: queue.put_nowait(_DONE))
        try:
            while (item := await queue.get()) is not _DONE:
                if isinstance(item, Exception):
                    raise item
                yield item
            record = step.result()
            if ran:
                return
            if isinstance(record, str):  # failed before: made again, unrecorded
                async for chunk in start():
                    yield chunk
                return
            for wire in record:
                yield Chunk.from_dict(wire)
        finally:
            if not step.done():
                step.cancel()
                await asyncio.gather(step, return_exceptions=True)

    async def tool_call(self, key: str, run: Callable[[], Awaitable[ToolOutcome]]) -> ToolOutcome:
        """The tool's outcome, as a step."""
        from dbos import DBOS

        self._check()
        checkpoints = self._checkpoints
        if checkpoints is not None:
            found, record = checkpoints.get(key)
            if found:
                return bool(record[0]), record[1]
            outcome = await run()
            await checkpoints.record(key, outcome)
            return outcome
        reservation = DBOS.reserve_step()

        async def body() -> list[Any]:
            ok, value = await run()
            return [ok, value]

        ok, value = await reservation.run_async(_options(key), body)
        return bool(ok), value

    async def decision(self, key: str, ask: Callable[[], Awaitable[ToolOutcome]]) -> ToolOutcome:
        """A tool-approval decision: the broker's own wait is durable (``DBOSApprovals``
        waits with DBOS ``recv`` in the workflow, which a step may not), so it is asked as is."""
        self._check()
        return await ask()

    async def once(self, key: str, work: Callable[[], Awaitable[None]]) -> None:
        """``work()`` (the commit) as a step, stored at most once under ``key``."""
        from dbos import DBOS

        self._check()
        reservation = DBOS.reserve_step()

        async def body() -> None:
            with commit_once(key):
                await work()

        await reservation.run_async(_options(key), body)


async def _recorded_model_call(
    checkpoints: RunCheckpoints, key: str, start: Callable[[], AsyncIterator[Chunk]]
) -> AsyncIterator[Chunk]:
    """The call's record replayed, or the call streamed live and recorded once it ended
    whole (before the run goes on with its outcome). A failed call is not recorded."""
    found, record = checkpoints.get(key)
    if found:
        for wire in record:
            yield Chunk.from_dict(wire)
        return
    recorded: list[dict[str, Any]] = []
    async for chunk in start():
        recorded.append(chunk.to_dict())
        yield chunk
    await checkpoints.record(key, recorded)
