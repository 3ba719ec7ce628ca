"""The tools stage: run a step's tools, then ``process_tool_result`` per tool (D1, D27, D32).

Tools of one step run concurrently, each in its own task owned by the stage: their ``writer``
chunks stream while they run, and leaving the stream early (or cancelling the caller) cancels
and awaits every one of them, so no task outlives the run. Results then go through
``process_tool_result`` in tool-call order, are committed to the message list, and leave as
``tool-result`` (or ``tool-error``) chunks through the output lane.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any

from procession._engine.outcomes import Blocked, Stop
from procession._engine.runner import HookRunner
from procession._engine.stages import output
from procession._engine.stages.results import apply_messages
from procession._engine.state import Attempt, RunState, Wake
from procession.approvals import ApprovalRequest
from procession.chunks import Chunk
from procession.errors import ConfigurationError, TripWire
from procession.journal import ToolOutcome
from procession.messages.parts import ToolInvocationPart
from procession.models._abort import cancel_on_abort
from procession.results import StepResult, ToolCallInfo, ToolResultInfo
from procession.tools._tool import Tool, ToolContext, ToolWriter

__all__ = ["provider_tool_result", "run_tools"]


async def provider_tool_result(
    state: RunState, runner: HookRunner, attempt: Attempt, chunk: Chunk
) -> Chunk | Stop:
    """A provider-executed tool's result (C30): ``process_tool_result`` sees it inline, and
    what the hooks leave in the message is what goes on (as for any tool)."""
    payload = chunk.payload
    call_id = payload.get("toolCallId")
    part = next(
        (
            p
            for p in attempt.builder.parts
            if isinstance(p, ToolInvocationPart) and p.tool_invocation.tool_call_id == call_id
        ),
        None,
    )
    if part is not None:
        part.tool_invocation.state = "result"
        part.tool_invocation.result = payload.get("result")
    call = ToolCallInfo(
        tool_call_id=str(call_id),
        tool_name=str(payload.get("toolName")),
        args=payload.get("args"),
        provider_executed=True,
    )
    value = await _process_tool_result(state, runner, len(state.steps), call, payload.get("result"))
    if isinstance(value, Stop):
        return value
    if part is not None and part.tool_invocation.state == "result":
        value = part.tool_invocation.result  # a hook rewrote it in place
    if value is not payload.get("result"):
        chunk = chunk.copy(payload={**payload, "result": value})
    return chunk


async def run_tools(
    state: RunState, runner: HookRunner, attempt: Attempt
) -> AsyncGenerator[Chunk, None]:
    """Run the step's tools, then report each result; sets ``attempt.outcome`` on a stop."""
    step = attempt.result
    assert step is not None
    calls = [c for c in step.tool_calls if not c.provider_executed]
    if not calls:
        return
    outcomes: list[tuple[bool, Any]] = [(False, None)] * len(calls)
    if any(_requires_approval(runner, attempt, call) for call in calls):
        async with aclosing(_ask_approvals(state, runner, attempt, calls, outcomes)) as asking:
            async for chunk in asking:
                yield chunk
        if attempt.stopped():
            return
    to_run = [(i, c) for i, c in enumerate(calls) if not isinstance(outcomes[i][1], Denied)]
    async with aclosing(_run_concurrently(state, runner, attempt, to_run, outcomes)) as running:
        async for chunk in running:
            yield chunk
    if attempt.stopped():
        return
    for call, (ok, value) in zip(calls, outcomes, strict=True):
        stop = await _report(state, runner, step, call, ok, value)
        if stop is not None:
            attempt.outcome = stop
            return
        for chunk in state.emitter.drain():
            yield chunk


class Denied:
    """A tool call its approver declined (``procession.approvals``)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str | None) -> None:
        self.reason = reason

    def text(self) -> str:
        """What the model is told instead of the tool's result."""
        return "The tool call was declined" + (f": {self.reason}" if self.reason else ".")


async def _ask_approvals(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    calls: list[ToolCallInfo],
    outcomes: list[tuple[bool, Any]],
) -> AsyncGenerator[Chunk, None]:
    """For each call of a tool that requires approval: ask the client (a chunk that is never
    held, D31), wait for the broker's decision, and mark a declined call."""
    for index, call in enumerate(calls):
        if not _requires_approval(runner, attempt, call):
            continue
        payload = {"toolCallId": call.tool_call_id, "toolName": call.tool_name, "args": call.args}
        asking = state.chunk("tool-call-approval", payload)
        asking.transient = True  # the client must see it now, even in step mode
        if state.emitter.holding:  # step mode: the call it asks about goes first (D31)
            output.release_step(state, attempt)
            attempt.released = True
        attempt.outcome = await runner.emit(asking)
        if attempt.outcome is not None:
            return
        for chunk in state.emitter.drain():
            yield chunk
        approved, reason = await _decision(state, runner, attempt, call)
        if not approved:
            outcomes[index] = (False, Denied(reason))


def _requires_approval(runner: HookRunner, attempt: Attempt, call: ToolCallInfo) -> bool:
    tool = attempt.tools.get(call.tool_name)
    if tool is None:
        return False
    return tool.requires_approval or runner.config.require_tool_approval


async def _decision(
    state: RunState, runner: HookRunner, attempt: Attempt, call: ToolCallInfo
) -> ToolOutcome:
    """The broker's decision on one call (journaled in a durable run): ``(approved, reason)``."""
    broker = runner.config.approvals
    if broker is None:
        raise ConfigurationError(
            f"tool {call.tool_name!r} requires approval, but the run has no approvals broker: "
            "pass Agent(approvals=LocalApprovals()) or approvals= to the call"
        )
    request = ApprovalRequest(
        run_id=state.run_id,
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        args=call.args,
        resource_id=state.request_context.resource_id,
    )

    async def ask() -> ToolOutcome:
        if state.signal is None:
            decision = await broker.decide(request)
        else:
            with cancel_on_abort(state.signal):
                decision = await broker.decide(request)
        return decision.approved, decision.reason

    journal = runner.config.journal
    if journal is None:
        return await ask()
    key = f"{state.run_id}:approval:{attempt.step_number}:{attempt.retries}:{call.tool_call_id}"
    return await journal.decision(key, ask)


async def _run_concurrently(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    calls: list[tuple[int, ToolCallInfo]],
    outcomes: list[tuple[bool, Any]],
) -> AsyncGenerator[Chunk, None]:
    """Run every call in its own task, streaming the writer chunks they make as they come."""
    emitter = state.emitter
    wake = emitter.wake = Wake()
    tasks = [
        asyncio.ensure_future(_run_one(state, runner, attempt, call, index, outcomes))
        for index, call in calls
    ]
    remove = state.signal.add_listener(wake.set) if state.signal is not None else None
    try:
        running = set(tasks)
        while running:
            done, _ = await asyncio.wait(
                {*running, wake.wait()}, return_when=asyncio.FIRST_COMPLETED
            )
            running -= done
            wake.clear()
            if state.signal is not None and state.signal.aborted:
                raise asyncio.CancelledError(state.signal.reason)
            attempt.outcome = await runner.settle()
            if attempt.outcome is not None:
                return
            for chunk in emitter.drain():
                yield chunk
    finally:
        emitter.wake = None
        if remove is not None:
            remove()
        await _cancel_all(tasks)


async def _cancel_all(tasks: Sequence[asyncio.Future[None]]) -> None:
    """Cancel the tasks still running and wait until every one has ended (D32)."""
    pending = [task for task in tasks if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)


async def _run_one(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    call: ToolCallInfo,
    index: int,
    outcomes: list[tuple[bool, Any]],
) -> None:
    tool = attempt.tools.get(call.tool_name)
    if tool is None:
        outcomes[index] = (False, f"tool {call.tool_name!r} is not available")
        return
    context = ToolContext(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        writer=ToolWriter(runner.writer(0).custom, _output_writer(state, call)),
        request_context=state.request_context,
        abort_signal=state.signal,
        messages=state.message_list.get.all.db(),
        run_id=state.run_id,
    )
    args = attempt.builder.execution_args.get(call.tool_call_id, call.args)
    observer = state.observer
    token = observer.tool_started(call) if observer is not None else None
    journal = runner.config.journal
    try:
        if journal is None:
            outcomes[index] = await _execute(tool, args, context)
        else:  # a durable run: a checkpointed call is not made again
            key = f"{state.run_id}:tool:{attempt.step_number}:{attempt.retries}:{call.tool_call_id}"
            outcomes[index] = await journal.tool_call(key, lambda: _execute(tool, args, context))
    finally:
        if observer is not None:
            done = outcomes[index]
            observer.tool_ended(token, None if done[0] else done[1])


class _Written:
    """What ``writer.write`` returns: already done (the chunk is queued)."""

    __slots__ = ()

    def __await__(self) -> Any:
        return iter(())


_WRITTEN = _Written()


def _output_writer(state: RunState, call: ToolCallInfo) -> Callable[[Any], Awaitable[None]]:
    """``writer.write`` of one call: a ``tool-output`` chunk into the output lane (D9)."""
    emitter, run_id = state.emitter, state.run_id
    call_id, name = call.tool_call_id, call.tool_name

    def write(value: Any) -> Awaitable[None]:
        payload = {"output": value, "toolCallId": call_id, "toolName": name}
        emitter.write(Chunk("tool-output", payload, run_id, from_="USER"), 0)
        return _WRITTEN

    return write


async def _execute(tool: Tool, args: Any, context: ToolContext) -> tuple[bool, Any]:
    """A tool's outcome: ``(True, result)``, ``(False, error text)`` when it raised, or
    ``(False, {"tripwire": payload})`` when it raised a ``TripWire`` (a sub-agent's processor
    that stops the parent too): the run then ends with that tripwire."""
    try:
        return True, await tool.execute(args, context)
    except TripWire as tripwire:
        return False, {"tripwire": tripwire.payload()}
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise  # the run cancelled it (D32)
        return False, "raised CancelledError while the run was not cancelled"
    except Exception as error:
        return False, str(error) or type(error).__name__


async def _report(
    state: RunState, runner: HookRunner, step: StepResult, call: ToolCallInfo, ok: bool, value: Any
) -> Stop | None:
    """One tool's outcome: ``process_tool_result``, the message, the chunk (D27 order)."""
    if ok:
        value = await _process_tool_result(state, runner, step.step_number, call, value)
        if isinstance(value, Stop):
            return value
        payload = {"toolCallId": call.tool_call_id, "toolName": call.tool_name, "result": value}
        step.tool_results.append(
            ToolResultInfo(call.tool_call_id, call.tool_name, call.args, result=value)
        )
        payload["args"] = call.args
        return await runner.emit(state.chunk("tool-result", payload))
    if isinstance(value, Denied):
        return await _denied(state, runner, step, call, value)
    if isinstance(value, dict):  # a tool's TripWire: the run's tripwire
        return Blocked(value["tripwire"])
    error = {"toolCallId": call.tool_call_id, "toolName": call.tool_name, "error": value}
    error["args"] = call.args
    processed = await runner.through(state.chunk("tool-error", error))
    if not isinstance(processed, list):
        return processed
    shown = next((c for c in processed if c.type == "tool-error"), None)
    text = shown.payload.get("error") if shown is not None else value
    text = text if isinstance(text, str) else value  # what the output lane left (redacted)
    _mark_error(state, call.tool_call_id, text)
    step.tool_results.append(
        ToolResultInfo(call.tool_call_id, call.tool_name, call.args, error=text)
    )
    stop = await runner.settle()
    if stop is not None:
        return stop
    for item in processed:
        runner.deliver(item)
    return None


async def _denied(
    state: RunState, runner: HookRunner, step: StepResult, call: ToolCallInfo, denied: Denied
) -> Stop | None:
    """A declined call: ``tool-output-denied`` to the client, the part in ``output-denied``
    state, and the model told so."""
    text = denied.text()
    part = _find_call(state, call.tool_call_id)
    if part is not None:
        part.tool_invocation.state = "output-denied"
        part.tool_invocation.error_text = text
    step.tool_results.append(
        ToolResultInfo(call.tool_call_id, call.tool_name, call.args, error=text)
    )
    payload = {"toolCallId": call.tool_call_id, "toolName": call.tool_name, "reason": denied.reason}
    return await runner.emit(state.chunk("tool-output-denied", payload))


async def _process_tool_result(
    state: RunState, runner: HookRunner, step_number: int, call: ToolCallInfo, value: Any
) -> Any:
    """``process_tool_result`` for one call; returns the result as committed, or a stop."""
    message_list = state.message_list
    for hook in runner.of("process_tool_result"):
        messages = message_list.get.all.db()
        values = {
            "messages": messages,
            "step_number": step_number,
            "steps": list(state.steps),
            "tool_name": call.tool_name,
            "tool_call_id": call.tool_call_id,
            "args": call.args,
            "result": value,
            "provider_executed": call.provider_executed,
            "system_messages": message_list.get_all_system_messages(),
        }
        outcome = await runner.call(hook, values)
        if isinstance(outcome, Stop):
            return outcome
        apply_messages(state, hook, outcome, messages, "response", input_stage=False)
    if call.provider_executed:
        return value
    part = _find_call(state, call.tool_call_id)
    if part is None:
        return value
    invocation = part.tool_invocation
    if invocation.state == "result":
        return invocation.result  # a processor rewrote it via update_tool_invocation
    invocation.state, invocation.result = "result", value
    return value


def _find_call(state: RunState, tool_call_id: str) -> ToolInvocationPart | None:
    for part in state.response_message().content.parts:
        if (
            isinstance(part, ToolInvocationPart)
            and part.tool_invocation.tool_call_id == tool_call_id
        ):
            return part
    return None


def _mark_error(state: RunState, tool_call_id: str, error_text: str) -> None:
    part = _find_call(state, tool_call_id)
    if part is not None:
        part.tool_invocation.state = "output-error"
        part.tool_invocation.error_text = error_text
