"""The agentic loop: one ``generate()``/``stream()`` call, top to bottom.

::

    resolve the run (lanes, memory, model) ─ process_input ───────────── once
    loop over steps:
      process_input_step ─ process_llm_request ─ model stream ─ process_output_stream (per chunk)
                                        (process_api_error on failure, may retry)
      process_llm_response ─ process_output_step ─ tools ─ process_tool_result (per tool)
    process_output_result ─────────────────────────────────────────────── once
    persist (one transaction) ─ the final chunk

Each stage (``stages``) reports ``None`` or a stop (``outcomes``); the
step's outcome is settled in :func:`_settle`, the one place the loop matches on it. The model
stream is read here, in the one generator the caller iterates, so a chunk crosses no other
generator on its way out (the hot path, ``bench/``). ``generate()`` drains this (D18).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from procession._engine.config import CallOptions, RunConfig, StepConfig, resolve_run, seed_messages
from procession._engine.notes import StudioNotes
from procession._engine.observers import compose
from procession._engine.outcomes import (
    CONTINUE,
    FINISH,
    Aborted,
    Blocked,
    Continue,
    Failed,
    Finish,
    Outcome,
    Retry,
    Stop,
    step_name,
)
from procession._engine.runner import HookRunner, StreamHook
from procession._engine.spec import AgentSpec
from procession._engine.stages import errors, input, model, output, persist, tools
from procession._engine.stages.model import HIDDEN_FROM_CLIENT, SPECIAL
from procession._engine.state import Attempt, RunState
from procession._engine.step import MalformedChunkError
from procession.chunks import Chunk
from procession.errors import ProcessorError
from procession.messages._tracking import EDITS
from procession.tracing._spans import start_run_trace

__all__ = ["run"]


async def run(agent: AgentSpec, call: CallOptions, state: RunState) -> AsyncGenerator[Chunk, None]:
    """The run's client-visible chunks; ``state.result`` is final once this ends."""
    state.running = True
    emitter = state.emitter
    runner: HookRunner | None = None
    outcome: Outcome = CONTINUE
    try:
        config, runner = await _start(agent, call, state)
        outcome = await _begin(state, runner, agent, call, config)
        for chunk in emitter.drain():  # ``start``, before the model is called
            yield chunk
        while isinstance(outcome, Continue | Retry):
            attempt = _attempt(state, config)
            await _before_model(state, runner, attempt, config)  # may leave a stop in attempt
            # -- the hot path: each model chunk through the output lane, into the step. The
            # names are bound once per attempt; a chunk that a hook drops, expands or awaits
            # anything unusual for, and the model's special chunks, go the slow way.
            lane, hold, held = runner.stream, emitter.holding, emitter.held
            add, special, hidden = attempt.builder.add, SPECIAL, HIDDEN_FROM_CLIENT
            run_id, guard = state.run_id, attempt.guard
            hook: StreamHook | None = None  # the hook to blame while a chunk is in the lane
            out: Any = None
            try:  # the model stream is closed however the attempt ends (D32)
                for chunk in emitter.drain():
                    yield chunk
                while attempt.outcome is None:
                    chunk = await attempt.read()  # type: ignore[misc]  # set by now
                    chunk.run_id = run_id
                    if chunk.type in special:  # error, finish, a provider tool's result
                        await model.slow_chunk(state, runner, attempt, chunk, None, None)
                        for item in emitter.drain():
                            yield item
                        continue
                    out = chunk
                    for hook in lane:  # each hook a plain call, its arguments bound (D19)
                        if hook.parts is not None:
                            hook.parts.append(chunk)
                        out = hook.call(chunk)
                        if hook.is_async:  # interrupted by the abort signal (D32)
                            out = await (out if guard is None else model.guarded(guard, out))
                        if type(out) is not Chunk:
                            break  # dropped, or more than a chunk: the slow way, blaming hook
                        if out is not chunk:
                            model.check_replacement(hook, out)
                        chunk = out
                    if type(out) is Chunk:  # it passed the whole lane: no hook to blame
                        hook = None
                    if hook is None and not (emitter.pending or emitter.ready):
                        add(chunk)  # nothing queued ahead: writers' chunks go first (D9)
                        if chunk.type in hidden:
                            continue
                        if hold:  # step mode: sent once the step is accepted (D31)
                            held.append(chunk)
                            continue
                        yield chunk
                        continue
                    await model.slow_chunk(state, runner, attempt, chunk, hook, out)
                    hook = None  # done with: a later failure is not that hook's (D10, D14)
                    for item in emitter.drain():
                        yield item
            except StopAsyncIteration:  # the model's stream ended
                pass
            except BaseException as error:
                attempt.outcome = await _stream_failed(state, runner, attempt, hook, error)
            finally:
                await model.close_stream(attempt)
            async with aclosing(_after_model(state, runner, attempt, config)) as after:
                async for chunk in after:
                    yield chunk
            outcome = attempt.settled()
    except GeneratorExit:  # the caller left the stream (D32): nothing persisted
        await _left(state, runner)
        raise
    except asyncio.CancelledError:
        outcome = await _cancelled(state, runner)  # raises again for the caller's cancellation
    except Exception as error:  # fail closed, never hang (D10, D21)
        outcome = Failed(error)
    outcome = await _end(state, runner, outcome)
    for chunk in emitter.drain():  # what passed the output lane before the end
        yield chunk
    yield output.ending_chunk(state, outcome)


async def _cancelled(state: RunState, runner: HookRunner | None) -> Outcome:
    """The run's task was cancelled: by the abort signal (D32), or by the caller (raised)."""
    if state.signal is not None and state.signal.aborted:
        return Aborted()
    await _left(state, runner)
    raise asyncio.CancelledError  # nothing persisted, no task left behind (D32)


async def _left(state: RunState, runner: HookRunner | None) -> None:
    """The caller left the run: close it, and note the tokens it spent (the ledger)."""
    _close(state, runner)
    if runner is not None:
        await persist.record_usage(state, runner.config)
    if state.observer is not None:
        state.observer.run_ended(Aborted.name, None, None)
    state.closed()


async def _start(
    agent: AgentSpec, call: CallOptions, state: RunState
) -> tuple[RunConfig, HookRunner]:
    """The run's configuration, its bound hooks, and its trace when tracing is on."""
    config = await resolve_run(agent, call)
    runner = state.runner = HookRunner(state, config)
    observer = state.observer = compose(  # wired once: the hot path asks nothing per chunk
        (start_run_trace(state, agent.name), StudioNotes(state) if call.inspect else None)
    )
    if observer is not None:
        observer.watch(runner.stream)
    return config, runner


async def _begin(
    state: RunState, runner: HookRunner, agent: AgentSpec, call: CallOptions, config: RunConfig
) -> Outcome:
    """Before the first hook: memory's checks, the run's messages, then ``process_input``;
    then the ``start`` chunk, unless that stopped the run (sent before the model is called,
    so a client learns that the run began while a slow model thinks, as in Mastra)."""
    await seed_messages(state.message_list, agent, call, state.request_context)
    prepare = getattr(config.memory, "prepare", None)
    if callable(prepare):  # the thread, the input's ids and values, before any hook (D34)
        await prepare(state.request_context, state.message_list.get.input.db())
    stop = await input.process_input(state, runner)
    if stop is not None:
        return stop
    state.emitter.ready.append(
        state.chunk("start", {"id": state.agent_id, "messageId": state.response_id})
    )
    return CONTINUE


def _attempt(state: RunState, config: RunConfig) -> Attempt:
    state.emitter.begin_step()
    step_number = len(state.steps)
    attempt = Attempt(
        step_number=step_number,
        step=StepConfig.first(config),
        checkpoint=state.message_list.checkpoint(),
        steps_before=step_number,
        retries=state.processor_retries + state.api_retries,
        edits=EDITS.count,
    )
    if state.observer is not None:
        state.observer.step_started(attempt, state.processor_retries)
    return attempt


async def _before_model(
    state: RunState, runner: HookRunner, attempt: Attempt, config: RunConfig
) -> None:
    """``process_input_step``, the prompt, ``process_llm_request``, then the model call and
    the ``step-start``; a stop is left in ``attempt.outcome``. The model stream is closed if
    this raises (D32)."""
    try:
        stop = await input.process_input_step(state, runner, attempt)
        if stop is None:
            stop = await input.process_llm_request(state, runner, attempt)
        if stop is None:
            failure = await model.start_model(state, runner, attempt, config.max_retries)
            stop = await runner.emit(model.step_start(state, attempt))  # first, as in Mastra
            if stop is None and failure is not None:
                stop = await errors.model_failed(state, runner, attempt, failure)
    except BaseException:
        await model.close_stream(attempt)
        raise
    attempt.outcome = stop


async def _stream_failed(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    hook: StreamHook | None,
    error: BaseException,
) -> Stop:
    """The stream stopped on an error: a hook's (D10, D29, D32) or the model's (D14)."""
    signal = state.signal
    if isinstance(error, asyncio.CancelledError):
        if signal is not None and signal.aborted:
            return Aborted()
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise error
    if hook is not None:
        return await runner.failed(hook, model.as_hook_error(hook, error))
    if isinstance(error, MalformedChunkError) and runner.stream:
        raise model.spoiled(runner.stream, error)  # edited in place by the lane (D33)
    if not isinstance(error, Exception) or isinstance(error, ProcessorError):
        raise error  # a processor's error is never the model's (D33)
    return await errors.model_failed(state, runner, attempt, error)


async def _after_model(
    state: RunState, runner: HookRunner, attempt: Attempt, config: RunConfig
) -> AsyncGenerator[Chunk, None]:
    """The step's result, ``process_llm_response``, ``process_output_step`` (D6, D7), the
    tools, then the step's verdict (:func:`_settle`) in ``attempt.verdict``."""
    emitter = state.emitter
    if attempt.outcome is None:
        runner.check_stream_edits(attempt.edits)  # stream hooks' edits checked once per step (D30)
        result = output.commit_step(state, attempt)
        if state.observer is not None:
            state.observer.model_ended(result, None)
        attempt.outcome = await model.process_llm_response(state, runner, attempt)
        if attempt.outcome is None:
            attempt.outcome = await output.process_output_step(state, runner, attempt)
        for chunk in emitter.drain():
            yield chunk
    if attempt.outcome is None and attempt.runs_tools():
        async with aclosing(tools.run_tools(state, runner, attempt)) as tool_chunks:
            async for chunk in tool_chunks:
                yield chunk
    attempt.verdict = await _settle(state, runner, attempt, config, attempt.outcome)
    for chunk in emitter.drain():
        yield chunk


async def _settle(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    config: RunConfig,
    outcome: Stop | None,
) -> Outcome:
    """How the step ended, acted on: accepted, retried, or the run's end (D1, D2, D11, D31)."""
    verdict = await _verdict(state, runner, attempt, config, outcome)
    if state.observer is not None:
        state.observer.step_ended(step_name(verdict), attempt.result)
    return verdict


async def _verdict(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    config: RunConfig,
    outcome: Stop | None,
) -> Outcome:
    """The step's verdict: accepted (released in step mode), retried with feedback and a marker,
    or the run stopped, the attempt rolled back (D1, D2, D11, D31)."""
    emitter = state.emitter
    if outcome is None:  # accepted
        step = attempt.result
        assert step is not None
        if runner.edits_messages:
            output.accept_text(state, step)  # D23: what hooks left in the message
        go_on = output.continues(step, config.max_steps)
        if emitter.hold:
            output.release_step(state, attempt)
        stop = await runner.emit(output.step_finish(state, step, continued=go_on))
        if stop is not None:
            return await _verdict(state, runner, attempt, config, stop)
        return CONTINUE if go_on else FINISH
    emitter.discard()  # a rejected attempt's data chunks: not sent, not stored
    state.message_list.rollback(attempt.checkpoint)
    del state.steps[attempt.steps_before :]
    if not isinstance(outcome, Retry):
        return outcome
    if state.observer is not None:
        state.observer.retried(outcome.reason, outcome.processor_id)
    if not outcome.api_error:
        state.processor_retries += 1
        for hook in runner.stream:
            hook.set_retry_count(state.processor_retries)
        feedback = output.RETRY_FEEDBACK.format(reason=outcome.reason)
        # the model is told why, in a run-scoped system message that is never stored (D3)
        state.message_list.add_system(feedback, tag=output.RETRY_FEEDBACK_TAG)
    if emitter.hold and not attempt.released:
        return outcome  # step mode: the rejected attempt never reached the client (D31)
    stop = await runner.emit(output.retry_marker(state, attempt, outcome))  # discard that step (D2)
    if stop is not None:
        return stop.blocked() if isinstance(stop, Retry) else stop
    return outcome


async def _end(state: RunState, runner: HookRunner | None, outcome: Outcome) -> Outcome:
    """A complete run: ``process_output_result``, then persistence (D13). Returns how the
    run ended."""
    try:
        if isinstance(outcome, Finish) and runner is not None:
            stop = await output.process_output_result(state, runner)
            if stop is not None:
                outcome = stop
            else:
                await persist.persist(state, runner.config)
    except asyncio.CancelledError:
        return await _cancelled(state, runner)
    except Exception as error:  # fail closed (D10, D13: nothing persisted)
        outcome = Failed(error)
    _close(state, runner)
    if runner is not None:
        await persist.record_usage(state, runner.config)
    if state.observer is not None:
        failure = outcome.error if isinstance(outcome, Failed) else None
        tripwire = outcome.payload if isinstance(outcome, Blocked) else None
        state.observer.run_ended(outcome.name, failure, tripwire)
    state.closed()
    return outcome


def _close(state: RunState, runner: HookRunner | None) -> None:
    """The run ended: the result keeps what it needs, writers refuse further chunks."""
    result = state.result
    result.steps = state.steps
    result.usage = state.usage
    result.messages = state.message_list.get.response.db()
    state.runner = None
    if runner is not None:
        runner.close()
