"""The model stage: start the call (or replay a cached response, D7), the stream's rare chunks,
and ``process_llm_response`` once the stream has ended (D6, D7, D14).

The stream itself is read in the loop (``procession._engine.loop``): the per-chunk path stays in the
one generator the caller iterates, and hands a chunk here only when it needs more than the
output lane (:func:`slow_chunk`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from procession._engine.outcomes import Stop
from procession._engine.runner import (
    HookRunner,
    StreamHook,
    as_processor_error,
    check_returned,
    coerce_returned,
)
from procession._engine.stages import tools as tool_stage
from procession._engine.state import Attempt, RunState
from procession._engine.step import MalformedChunkError
from procession.chunks import Chunk, Usage
from procession.errors import APICallError, ProcessorError
from procession.models._abort import AbortGuard
from procession.models.base import LanguageModel, ModelCallOptions, normalize_tool_choice
from procession.models.retry import RetriedCall, start_with_retries
from procession.signals import AbortSignal
from procession.structured import is_value

__all__ = [
    "HIDDEN_FROM_CLIENT",
    "SPECIAL",
    "aclose",
    "as_hook_error",
    "check_replacement",
    "close_stream",
    "guarded",
    "process_llm_response",
    "slow_chunk",
    "spoiled",
    "start_model",
    "step_start",
]

SPECIAL = frozenset(("error", "finish", "tool-result"))
"""Model chunk types that need more than the output lane (checked per chunk)."""
HIDDEN_FROM_CLIENT = frozenset(("response-metadata", "finish"))
"""Model chunks the client never receives (their content reaches the result)."""


async def start_model(
    state: RunState, runner: HookRunner, attempt: Attempt, max_retries: int | None
) -> Exception | None:
    """Start the call (or the cached replay, D7) and read its first chunk.

    Transient errors are retried here with back-off (D14). Returns the error of a call that
    failed before any chunk; the loop hands it to the error lane after the ``step-start``.
    """
    if runner.of("process_llm_response"):
        attempt.raw = []
    if attempt.objects is not None:
        attempt.builder.on_text = _partial_objects(state, attempt)
    if state.observer is not None:
        state.observer.model_started(attempt)
    cached = attempt.cached
    if cached is not None:  # D7: replay instead of calling the model
        attempt.stream = _replay(cached)
        attempt.request = cached.get("request") or {}
        attempt.warnings = list(cached.get("warnings") or [])
        _set_reader(attempt, None, state.signal)
        return None
    step, structured = attempt.step, attempt.structured
    options = ModelCallOptions(
        prompt=attempt.prompt,
        tools=[t.definition() for t in attempt.tools.values()],  # type: ignore[misc]
        tool_choice=normalize_tool_choice(step.tool_choice),
        provider_options=step.provider_options,
        settings=step.model_settings,  # type: ignore[arg-type]
        response_format=structured.response_format() if structured is not None else None,
        abort_signal=state.signal,
    )
    state.last_model = f"{step.model.provider}/{step.model.model_id}"
    journal = runner.config.journal
    if journal is not None:  # a durable run: the journal makes or replays the call
        key = f"{state.run_id}:model:{attempt.step_number}:{attempt.retries}"
        attempt.stream = journal.model_call(key, lambda: _live(step.model, options, max_retries))
        _set_reader(attempt, None, state.signal)
        return None
    call = RetriedCall(step.model, options, max_retries=max_retries)
    try:  # the provider takes the call; its first chunk is the loop's first read
        started = await call.open()
    except Exception as error:
        return error
    attempt.stream = started.stream
    attempt.request, attempt.warnings = started.request, started.warnings
    _first_read(attempt, call, state.signal)
    return None


async def _live(
    model: LanguageModel, options: ModelCallOptions, max_retries: int | None
) -> AsyncIterator[Chunk]:
    """A model call as one stream of chunks (for a journal to record)."""
    started, first = await start_with_retries(model, options, max_retries=max_retries)
    try:
        if first is not None:
            yield first
        async for chunk in started.stream:
            yield chunk
    finally:
        await aclose(started.stream)


def _first_read(attempt: Attempt, call: RetriedCall, signal: AbortSignal | None) -> None:
    """The attempt's first read waits for the call's first chunk (retried like the call,
    interrupted by the abort signal, D14, D32), then hands over to :func:`_set_reader`: a
    retry may have opened a new stream."""

    if signal is not None:  # bound by the loop before this first read
        attempt.guard = AbortGuard(signal)

    async def read_first() -> Chunk:
        first = await call.first()
        started = call.result
        assert started is not None
        attempt.stream = started.stream
        _set_reader(attempt, first, signal)
        if first is None:
            raise StopAsyncIteration
        return first

    attempt.read = read_first


def _set_reader(attempt: Attempt, first: Chunk | None, signal: AbortSignal | None) -> None:
    """How the loop reads the attempt's chunks: its first chunk (already read, or ``None``),
    then the stream. With an abort signal each wait is interrupted when it fires, one
    listener for the whole attempt (D32), unless the stream does so itself (the adapters'
    ``ChunkStream``); with ``process_llm_response`` hooks each chunk is kept as the model
    produced it (D7)."""
    stream = attempt.stream
    assert stream is not None
    next_chunk: Callable[[], Awaitable[Chunk]] = stream.__anext__
    if signal is not None:
        guard = attempt.guard  # async stream hooks use it too
        if guard is None:
            guard = attempt.guard = AbortGuard(signal)
        if not getattr(stream, "interrupts_on_abort", False):
            unguarded = next_chunk

            def guarded_read() -> Awaitable[Chunk]:
                return guarded(guard, unguarded())

            next_chunk = guarded_read
    raw = attempt.raw
    if raw is not None:
        unrecorded = next_chunk

        async def recording() -> Chunk:
            chunk = await unrecorded()
            raw.append(chunk.copy())
            return chunk

        next_chunk = recording
        if first is not None:
            raw.append(first.copy())
    attempt.read = next_chunk


async def guarded(guard: AbortGuard, out: Awaitable[Any]) -> Any:
    """Await ``out`` (a model read, an async ``process_output_stream`` call), interrupted if
    the abort signal fires (D32)."""
    try:
        task = guard.start()
    except asyncio.CancelledError:  # it fired already: the call never runs
        close = getattr(out, "close", None)
        if close is not None:
            close()
        raise
    try:
        return await out
    finally:
        guard.stop(task)


def _partial_objects(state: RunState, attempt: Attempt) -> Callable[[str], None]:
    """With structured output, each text delta may complete more of the partial object."""
    objects = attempt.objects
    assert objects is not None

    def on_text(text: str) -> None:
        partial = objects.feed(text)
        if is_value(partial):
            state.emitter.send(state.chunk("object", {"object": partial}))

    return on_text


def step_start(state: RunState, attempt: Attempt) -> Chunk:
    """The ``step-start`` chunk of an attempt."""
    return state.chunk(
        "step-start",
        {"request": attempt.request, "warnings": attempt.warnings, "messageId": state.response_id},
    )


async def slow_chunk(
    state: RunState,
    runner: HookRunner,
    attempt: Attempt,
    chunk: Chunk,
    hook: StreamHook | None,
    out: Any,
) -> None:
    """A model chunk that needs more than the per-chunk path, in one of three cases.

    ``hook`` returned ``out``, something other than a chunk: ``None`` drops the chunk, a list
    sends each item down the rest of the lane, an awaitable is awaited first. Or ``chunk`` is
    special (``error``, ``finish``, a provider-executed ``tool-result``). Or the chunk passed
    the lane while writers queued chunks (D9), which go out first. What comes out joins the
    step and waits for the client in the emitter; a stop is left in ``attempt.outcome``.
    """
    if hook is not None:
        processed = await _returned(runner, hook, out)
    elif chunk.type in SPECIAL:
        processed = await _special(state, runner, attempt, chunk)
    else:
        processed = [chunk]
    if isinstance(processed, list):
        stop = await runner.settle()
        if stop is None:
            _accept(state, attempt, processed)
    else:
        stop = processed
    attempt.outcome = stop


async def _returned(runner: HookRunner, hook: StreamHook, out: Any) -> list[Chunk] | Stop:
    if out is not None and inspect.isawaitable(out):
        out = await out  # a ``def`` hook that returned a coroutine
    if out is None:
        return []
    returned = coerce_returned(hook, out)
    if isinstance(returned, list):
        return await runner.through_each(returned, hook.position + 1)
    return await runner.through(returned, hook.position + 1)


async def _special(
    state: RunState, runner: HookRunner, attempt: Attempt, chunk: Chunk
) -> list[Chunk] | Stop:
    """``error`` raises its error (the loop hands it to the error lane). ``finish`` adds its
    usage; the finish of a final step (no tool calls) passes the output lane, so a processor
    can flush what it held, but never reaches the client here. A provider-executed tool's
    result reaches ``process_tool_result`` inline (C30), then the lane."""
    kind = chunk.type
    if kind == "error":
        error = chunk.payload.get("error")
        raise error if isinstance(error, BaseException) else APICallError(str(error))
    if kind == "finish":
        state.usage = state.usage + Usage.from_dict(chunk.payload.get("output", {}).get("usage"))
        attempt.finish = chunk
        if attempt.builder.tool_calls:
            return []
        processed = await runner.through(chunk)
        if not isinstance(processed, list):
            return processed
        return [c for c in processed if c.type != "finish"]
    result = await tool_stage.provider_tool_result(state, runner, attempt, chunk)
    if isinstance(result, Chunk):
        return await runner.through(result)
    return result


def _accept(state: RunState, attempt: Attempt, chunks: list[Chunk]) -> None:
    """Processed chunks join the step and go to the client (held in step mode, D31)."""
    builder = attempt.builder
    emitter = state.emitter
    for chunk in chunks:
        builder.add(chunk)
        if chunk.type not in HIDDEN_FROM_CLIENT:
            emitter.send(chunk)


def check_replacement(hook: StreamHook, chunk: Chunk) -> None:
    """A stream hook replaced the chunk: the new one must be well formed (D33)."""
    check_returned(hook, chunk)


def spoiled(hooks: list[StreamHook], error: MalformedChunkError) -> ProcessorError:
    """A chunk the lane passed on as the same object was malformed when the step took it:
    a processor edited it in place (D33). The last processor of the lane is named, the others
    listed (each is not checked after each one; ``docs/decisions/0019``)."""
    last = hooks[-1]
    others = [h.processor_id for h in hooks[:-1]]
    also = f" (or one of {', '.join(map(repr, others))} before it)" if others else ""
    failure = ProcessorError(
        last.processor_id, last.name, f"passed on a chunk edited in place{also}: {error}"
    )
    failure.__cause__ = error
    return failure


def as_hook_error(hook: StreamHook, error: BaseException) -> BaseException:
    """What a stream hook raised, as the runner judges it (D32's CancelledError rule)."""
    return as_processor_error(error, hook)


async def process_llm_response(
    state: RunState, runner: HookRunner, attempt: Attempt
) -> Stop | None:
    """``process_llm_response`` once the stream has ended, on replays too (D7)."""
    cached = attempt.cached
    for hook in runner.of("process_llm_response"):
        values = {
            "chunks": list(attempt.raw or ()),
            "model": attempt.step.model,
            "step_number": attempt.step_number,
            "steps": list(state.steps),
            "from_cache": cached is not None,
            "warnings": attempt.warnings,
            "request": attempt.request,
            "raw_response": (cached or {}).get("raw_response"),
        }
        result = await runner.call(hook, values)
        if isinstance(result, Stop):
            return result
    return None


async def _replay(cached: dict[str, Any]) -> AsyncIterator[Chunk]:
    """D7: replay a cached response's raw chunks (``Chunk`` objects or their dicts)."""
    for item in cached["chunks"]:
        yield item.copy() if isinstance(item, Chunk) else Chunk.from_dict(item)


async def aclose(stream: AsyncIterator[Chunk] | None) -> None:
    """Close a model stream (an early stop closes the provider's response)."""
    close = getattr(stream, "aclose", None)
    if close is not None:
        await close()


async def close_stream(attempt: Attempt) -> None:
    """The attempt ended: close its model stream (if the call started) and its abort guard."""
    guard, attempt.guard = attempt.guard, None
    if guard is not None:
        guard.close()
    stream, attempt.stream = attempt.stream, None
    await aclose(stream)
