"""Calling hooks for one run (D8, D10, D19, D27, D28, D29).

:class:`HookRunner` binds each lane's hooks once per run (which processors implement which hook,
which keyword arguments each declares, its ``abort``, ``state``, ``writer`` and position), so a
call only adds the values of the moment. It turns what a hook does into what the loop acts on:
an ``abort()`` becomes a :class:`~procession._engine.outcomes.Retry` or
a :class:`~procession._engine.outcomes.Blocked` (reported to ``on_violation`` either way), an
abort the hook swallowed still counts (D29), and anything else a hook raises fails the run closed
as a :class:`~procession.errors.ProcessorError` (D10). It also runs the output lane over one chunk
(``process_output_stream``) and passes writers' ``data-*`` chunks through it (D9).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from procession._engine.config import RunConfig
from procession._engine.observers import HookEnded, RunObserver
from procession._engine.outcomes import Aborted, Blocked, Retry, Stop
from procession._engine.state import DEFAULT_ERROR_RETRY_BUDGET, RunState
from procession.chunks import Chunk, check_chunk
from procession.errors import MessageError, ProcessorError, TripWire
from procession.messages._tracking import EDITS, edits_in_place
from procession.messages.parts import DataPart
from procession.messages.validation import validate_messages
from procession.models._abort import cancel_on_abort
from procession.processors._invoke import HOOK_ARGS, declared_arguments
from procession.processors.base import LANE_HOOKS, ProcessorViolation, notify_violation

__all__ = [
    "Hook",
    "HookRunner",
    "InvalidEditError",
    "PrepareStep",
    "ProcessorWriter",
    "RETRYABLE_HOOKS",
    "VERDICT_HOOKS",
    "StreamHook",
    "as_processor_error",
    "check_hook_values",
    "check_returned",
    "coerce_returned",
]

VERDICT_HOOKS = frozenset(("process_llm_response", "process_output_step", "process_tool_result"))
"""Hooks that run after a step's text streamed and may still reject the step (D1, D12)."""

RETRYABLE_HOOKS = frozenset(
    (
        "process_input_step",
        "process_llm_request",
        "process_output_stream",
        "process_llm_response",
        "process_output_step",
        "process_tool_result",
    )
)
"""Hooks inside the loop: an ``abort(retry=True)`` there re-runs the step (D1)."""


class _Ready:
    """An already-finished awaitable: what ``writer.custom`` returns (D27)."""

    __slots__ = ()

    def __await__(self) -> Any:
        return iter(())


_READY = _Ready()


class ProcessorWriter:
    """The ``writer`` hooks receive (D27): ``writer.custom(chunk)`` emits a ``data-*`` chunk.

    The chunk is queued at once and enters the output lane at this writer's position: the
    start for every other hook, just after the writing processor for ``process_output_stream``
    (D9); only processors with ``process_data_parts`` see it. The returned awaitable is done,
    so sync and async hooks can both use it.
    """

    __slots__ = ("_run", "_start")

    def __init__(self, run: RunState, start: int) -> None:
        self._run: RunState | None = run
        self._start = start

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Queue a ``data-*`` chunk (a ``Chunk`` or ``{"type", "data", "id"?, "transient"?}``)."""
        run = self._run
        if run is None:
            raise RuntimeError("writer.custom: the run this writer belongs to has ended (D11)")
        data = _data_chunk(chunk)
        data.run_id = run.run_id
        run.emitter.write(data, self._start)
        return _READY

    def close(self) -> None:
        """Detach from the run (it ended); later writes raise."""
        self._run = None


def _data_chunk(chunk: Any) -> Chunk:
    if isinstance(chunk, dict):
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise ValueError(f"writer.custom: a chunk needs a string 'type' (got {chunk!r})")
        chunk = Chunk.data_chunk(
            kind, chunk.get("data"), id=chunk.get("id"), transient=bool(chunk.get("transient"))
        )
    if not isinstance(chunk, Chunk) or not chunk.type.startswith("data-"):
        raise ValueError(f"writer.custom: the chunk's type must start with 'data-' (got {chunk!r})")
    return chunk


async def _called(hook: Hook, values: dict[str, Any]) -> Any:
    """The hook's return value, awaited if it is awaitable (a ``def`` may return one)."""
    result = hook.function(**hook.arguments(values))
    if hook.is_async or inspect.isawaitable(result):
        result = await result
    return result


class _AbortRecord:
    """The first ``abort()`` of a hook, kept even if the hook catches its ``TripWire`` (D29)."""

    __slots__ = ("tripwire",)

    def __init__(self) -> None:
        self.tripwire: TripWire[Any] | None = None

    def take(self) -> TripWire[Any] | None:
        tripwire, self.tripwire = self.tripwire, None
        return tripwire


def _abort_function(
    record: _AbortRecord, processor_id: str, default: str
) -> Callable[..., NoReturn]:
    def abort(
        reason: str | None = None,
        *options: Any,
        retry: bool = False,
        metadata: Any = None,
    ) -> NoReturn:
        if options:
            raise TypeError(
                f"abort() takes the reason and keyword options, as in "
                f"abort({reason!r}, retry=True, metadata={{...}}); got {options[0]!r} as a "
                "second positional argument (the TypeScript form)"
            )
        tripwire: TripWire[Any] = TripWire(
            reason or default, retry=retry, metadata=metadata, processor_id=processor_id
        )
        if record.tripwire is None:  # the first call wins (D29)
            record.tripwire = tripwire
        raise tripwire

    return abort


class InvalidEditError(ProcessorError):
    """A hook left an invalid in-place edit (D30): the run fails, even in the error lane."""


class Hook:
    """One processor's implementation of one hook, bound to one run.

    Attributes:
        processor: The processor object.
        processor_id: Its id.
        name: The hook's name, such as ``"process_input"``.
        function: The bound method.
        is_async: Whether it is a coroutine function.
        wants: The keyword arguments it declared, or ``None`` for all (``**kwargs`` only).
        static: The arguments that are fixed for the run (abort, state, writer, ...).
        index: The processor's position in its lane for this call (D28).
    """

    __slots__ = (
        "edits",
        "function",
        "index",
        "is_async",
        "name",
        "processor",
        "processor_id",
        "record",
        "static",
        "wants",
    )

    def __init__(self, processor: Any, name: str, index: int, static: dict[str, Any]) -> None:
        self.processor = processor
        self.processor_id: str = processor.id
        self.name = name
        self.index = index
        self.function: Callable[..., Any] = getattr(processor, name)
        self.wants, self.is_async = declared_arguments(self.function, self.processor_id, name)
        wants = self.wants
        self.edits = wants is None or "messages" in wants or "message_list" in wants
        """Whether it can reach messages to edit in place (checked after it returns, D30)."""
        self.record = _AbortRecord()
        default = (
            f"Stream part blocked by {self.processor_id}"
            if name == "process_output_stream"
            else f"Tripwire triggered by {self.processor_id}"
        )
        static["abort"] = _abort_function(self.record, self.processor_id, default)
        self.static = static

    def arguments(self, values: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of one call: what it declared, from ``values`` or the run's."""
        static = self.static
        wants = self.wants
        if wants is None:
            return {**static, **values}
        return {name: values[name] if name in values else static[name] for name in wants}


_CALLER_FACTORIES: dict[tuple[tuple[str, ...], str], Callable[..., Callable[[Chunk], Any]]] = {}
_CALLER_BODIES = {
    "plain": "    def call(part):\n        return _function(part=part{args})\n",
    "sync-checked": (
        "    def call(part):\n"
        "        out = _function(part=part{args})\n"
        "        if _record.tripwire is not None:\n"
        "            raise _record.tripwire\n"
        "        return out\n"
    ),
    "async-checked": (
        "    async def call(part):\n"
        "        out = await _function(part=part{args})\n"
        "        if _record.tripwire is not None:\n"
        "            raise _record.tripwire\n"
        "        return out\n"
    ),
}


def _caller(
    function: Callable[..., Any], static: dict[str, Any], record: _AbortRecord, kind: str
) -> Callable[[Chunk], Any]:
    """A function ``call(part)`` that calls ``function(part=part, **static)``.

    Calling with literal keywords is about three times cheaper than ``function(**kwargs)``, and
    this runs once per chunk per processor, so the caller is generated per set of names
    (cached) and bound to this run's values once. A hook that declares ``abort`` gets a caller
    that re-raises an abort it swallowed (D29); others pay nothing for it.
    """
    names = tuple(sorted(name for name in static if name != "part"))
    factory = _CALLER_FACTORIES.get((names, kind))
    if factory is None:
        params = "".join(f", _{name}" for name in names)
        args = "".join(f", {name}=_{name}" for name in names)
        source = f"def factory(_function, _record{params}):\n" + _CALLER_BODIES[kind].format(
            args=args
        )
        source += "    return call\n"
        namespace: dict[str, Any] = {}
        exec(source, namespace)
        factory = _CALLER_FACTORIES[(names, kind)] = namespace["factory"]
    return factory(function, record, *(static[name] for name in names))


class StreamHook(Hook):
    """A ``process_output_stream`` hook with its arguments bound once per run (the hot path).

    Attributes:
        call: ``call(part)``: the hook with every declared argument but ``part`` bound.
        parts: Its ``stream_parts`` list, when it declared it (else ``None``).
        data: Whether it receives ``data-*`` chunks (``process_data_parts``, D9).
    """

    __slots__ = ("call", "data", "parts", "position", "wraps")

    def __init__(self, processor: Any, index: int, static: dict[str, Any], position: int) -> None:
        super().__init__(processor, "process_output_stream", index, static)
        self.position = position
        """Its place among the run's stream hooks."""
        wants = self.wants
        self.parts: list[Chunk] | None = [] if wants is None or "stream_parts" in wants else None
        static["stream_parts"] = self.parts
        self.data = bool(getattr(processor, "process_data_parts", False))
        self.wraps: list[Callable[[StreamHook, Callable[[Chunk], Any]], Callable[[Chunk], Any]]]
        self.wraps = []
        """What wraps the bound caller, innermost first (tracing's counts, Studio's view)."""
        self.call: Callable[[Chunk], Any] = self._make_call(0)

    def _make_call(self, retry_count: int) -> Callable[[Chunk], Any]:
        bound = self.arguments({"part": None, "retry_count": retry_count})
        bound.pop("part", None)
        kind = "plain"
        if "abort" in bound:
            kind = "async-checked" if self.is_async else "sync-checked"
        call = _caller(self.function, bound, self.record, kind)
        for wrap in self.wraps:
            call = wrap(self, call)
        return call

    def wrap(
        self, wrapper: Callable[[StreamHook, Callable[[Chunk], Any]], Callable[[Chunk], Any]]
    ) -> None:
        """Wrap the bound caller (kept when a retry rebinds it); only done when asked for, so
        the plain per-chunk path pays nothing."""
        self.wraps.append(wrapper)
        self.call = wrapper(self, self.call)

    def set_retry_count(self, count: int) -> None:
        """Rebind after a retry, when the hook declared ``retry_count`` (D5)."""
        if self.wants is None or "retry_count" in self.wants:
            self.call = self._make_call(count)


class PrepareStep:
    """The ``prepare_step`` call option, run as the last ``process_input_step`` hook."""

    id = "prepare-step"

    def __init__(self, function: Callable[..., Any]) -> None:
        self._function = function

    async def process_input_step(self, **kwargs: Any) -> Any:
        """Call ``prepare_step`` with every argument of ``process_input_step``."""
        result = self._function(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


class HookRunner:
    """Every hook of one run, bound, and how to call them."""

    __slots__ = ("config", "edits_messages", "hooks", "run", "stream", "writers")

    def __init__(self, run: RunState, config: RunConfig) -> None:
        self.run = run
        self.config = config
        self.hooks: dict[str, list[Hook]] = {}
        self.stream: list[StreamHook] = []
        self.writers: list[ProcessorWriter] = []
        lanes = {
            "input": config.input_processors,
            "output": config.output_processors,
            "error": config.error_processors,
        }
        for lane, processors in lanes.items():
            for index, processor in enumerate(processors):
                for name in LANE_HOOKS[lane]:
                    if callable(getattr(processor, name, None)):
                        self._bind(processor, name, index)
        if config.prepare_step is not None:  # the last process_input_step hook
            prepare = PrepareStep(config.prepare_step)
            self._bind(prepare, "process_input_step", len(config.input_processors))
        self.edits_messages = bool(self.hooks) or any(
            h.wants is None or "message_list" in h.wants for h in self.stream
        )
        """Whether any hook can reach the messages (else the steps' text is the messages')."""

    def _bind(self, processor: Any, name: str, index: int) -> None:
        run = self.run
        static: dict[str, Any] = {
            "retry_count": 0,
            "state": run.state_for(processor.id),
            "tracing_context": run.tracing,
            "request_context": run.request_context,
            "abort_signal": run.signal,
            "message_list": run.message_list,
            "processor_index": index,
        }
        if name == "process_output_stream":
            static["writer"] = self.writer(len(self.stream) + 1)
            self.stream.append(StreamHook(processor, index, static, len(self.stream)))
            return
        if name != "process_input":
            static["writer"] = self.writer(0)
        self.hooks.setdefault(name, []).append(Hook(processor, name, index, static))

    def writer(self, start: int) -> ProcessorWriter:
        """A writer whose chunks enter the output lane at position ``start``."""
        writer = ProcessorWriter(self.run, start)
        self.writers.append(writer)
        return writer

    def of(self, name: str) -> list[Hook]:
        """The bound hooks of ``name``, in lane order."""
        return self.hooks.get(name, [])

    def close(self) -> None:
        """The run ended: writers refuse further chunks, and reference cycles are broken."""
        for writer in self.writers:
            writer.close()
        self.writers.clear()

    # -- calling a hook ------------------------------------------------------------------------

    async def call(self, hook: Hook, values: dict[str, Any]) -> Any:
        """Call a (non-stream) hook; returns what it returned, or a :data:`Stop`.

        ``values`` holds this call's arguments (``messages``, ``step_number``, ...). The abort
        signal interrupts a hook that hangs. Writer chunks the hook queued pass the output lane
        before this returns (D27).
        """
        observer = self.run.observer
        if observer is not None:
            return await self._observed(observer, hook, values)
        return await self._call(hook, values)

    async def _observed(self, observer: RunObserver, hook: Hook, values: dict[str, Any]) -> Any:
        """:meth:`call`, with the run's observer told when it starts and how it ended."""
        emitter = self.run.emitter
        token, writes = observer.hook_started(hook), emitter.writes
        result: Any = None
        error: BaseException | None = None
        try:
            result = await self._call(hook, values)
            return result
        except BaseException as failure:
            error = failure
            raise
        finally:
            if error is not None:
                ended = HookEnded("error", emitter.writes - writes, error)
            else:
                ended = HookEnded(
                    _hook_outcome(result, self.run), emitter.writes - writes, None, _asked(result)
                )
            observer.hook_ended(hook, token, ended)

    async def _call(self, hook: Hook, values: dict[str, Any]) -> Any:
        run = self.run
        if "retry_count" not in values:
            values["retry_count"] = run.processor_retries
        edits = EDITS.count
        try:
            if run.signal is None:
                result = await _called(hook, values)
            else:
                with cancel_on_abort(run.signal):
                    result = await _called(hook, values)
        except asyncio.CancelledError:
            if run.signal is not None and run.signal.aborted:
                return Aborted()
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller's own cancellation
            return await self.failed(
                hook, ProcessorError(hook.processor_id, hook.name, _RAISED_CANCEL)
            )
        except Exception as error:
            return await self.failed(hook, error)
        tripwire = hook.record.take()
        if tripwire is not None:  # an abort the hook caught (D29)
            return await self.tripped(hook, tripwire)
        if hook.edits and EDITS.count != edits and edits_in_place(hook.function):
            self.check_edits(hook)  # D30 (a hook marked keeps_messages only adds, checked)
        if run.emitter.pending:
            stop = await self.settle()
            if stop is not None:
                return stop
        return result

    def check_stream_edits(self, edits_before: int) -> None:
        """D30 for ``process_output_stream``: once at the end of the step (not per chunk),
        when a stream hook can reach the messages and something changed since
        ``edits_before``; the first such hook is named."""
        if EDITS.count == edits_before:
            return
        editing = next((hook for hook in self.stream if hook.edits), None)
        if editing is not None:
            self.check_edits(editing)

    def check_edits(self, hook: Hook) -> None:
        """In-place edits are checked where they are made (D30): an invalid one fails the run
        as this hook's error, naming the message and the field, before anything else sees it."""
        message_list = self.run.message_list
        try:
            message_list.check_ids()
            validate_messages(message_list.get.all.db())
        except MessageError as error:
            raise InvalidEditError(hook.processor_id, hook.name, str(error)) from None

    async def failed(self, hook: Hook, error: BaseException) -> Stop:
        """A hook raised: its abort counts (D29); anything else fails the run (D10)."""
        tripwire = hook.record.take()
        if tripwire is None and isinstance(error, TripWire):
            tripwire = error
        if tripwire is not None:
            return await self.tripped(hook, tripwire)
        if isinstance(error, ProcessorError):
            raise error
        if isinstance(error, asyncio.CancelledError):
            raise ProcessorError(hook.processor_id, hook.name, _RAISED_CANCEL) from error
        raise ProcessorError(
            hook.processor_id, hook.name, f"raised {type(error).__name__}: {error}"
        ) from error

    async def tripped(self, hook: Hook, tripwire: TripWire[Any]) -> Stop:
        """An abort: report it (D8), then retry the step or end the run (D1, D4, D12)."""
        if tripwire.processor_id is None:
            tripwire.processor_id = hook.processor_id
        tripwire.hook = hook.name
        violation = ProcessorViolation(
            processor_id=tripwire.processor_id,
            message=tripwire.reason,
            detail=tripwire.metadata,
            retry=tripwire.retry,
        )
        await notify_violation(hook.processor, violation)
        if (
            tripwire.retry
            and hook.name in RETRYABLE_HOOKS
            and self.can_retry(self.run.processor_retries)
        ):
            return Retry(tripwire.reason, tripwire.processor_id, tripwire.metadata)
        return Blocked(tripwire.payload())

    def steps_final(self) -> bool:
        """Whether nothing can reject a step once its text streamed: no stream hook and no
        hook of :data:`VERDICT_HOOKS` (each may abort), and no retry budget for an API error
        the error lane retries or for a structured answer that does not validate (D4)."""
        if self.stream or not VERDICT_HOOKS.isdisjoint(self.hooks):
            return False
        retried = "process_api_error" in self.hooks or self.config.structured_output is not None
        return not (retried and self.can_retry(0))

    def can_retry(self, used: int) -> bool:
        """Whether the retry budget (D4) allows one more."""
        budget = self.config.max_processor_retries
        if budget is None and self.config.error_processors:
            budget = DEFAULT_ERROR_RETRY_BUDGET
        return budget is not None and used < budget

    # -- the output lane over one chunk --------------------------------------------------------

    async def through(self, chunk: Chunk, start: int = 0) -> list[Chunk] | Stop:
        """Pass one chunk through ``process_output_stream`` from lane position ``start``.

        A hook may pass the chunk on, replace it, drop it (``None``), or return several chunks,
        each of which continues down the lane. Returns what comes out, in order, or the stop
        an abort caused.
        """
        hooks = self.stream
        is_data = chunk.type.startswith("data-")
        passed: Hook | None = None
        for index in range(start, len(hooks)):
            hook = hooks[index]
            if is_data and not hook.data:
                continue
            if hook.parts is not None:
                hook.parts.append(chunk)
            try:
                out = hook.call(chunk)
                if hook.is_async or (type(out) is not Chunk and inspect.isawaitable(out)):
                    out = await out
            except BaseException as error:
                return await self.failed(hook, as_processor_error(error, hook))
            if type(out) is Chunk:
                if out is not chunk:
                    check_returned(hook, out)
                else:
                    passed = hook
                chunk = out
                continue
            if out is None:
                return []
            returned = coerce_returned(hook, out)
            if isinstance(returned, list):
                return await self.through_each(returned, index + 1)
            chunk = returned
        if passed is not None:
            check_returned(passed, chunk)  # edited in place into a malformed one? (D33)
        return [chunk]

    async def through_each(self, chunks: list[Chunk], start: int) -> list[Chunk] | Stop:
        """Several chunks, each through the lane from ``start``, in order."""
        out: list[Chunk] = []
        for item in chunks:
            processed = await self.through(item, start)
            if not isinstance(processed, list):
                return processed
            out.extend(processed)
        return out

    async def emit(self, chunk: Chunk, start: int = 0) -> Stop | None:
        """A chunk of the loop's through the output lane, then to the client (after any writer
        chunks the lane's hooks queued meanwhile)."""
        processed = await self.through(chunk, start)
        if not isinstance(processed, list):
            return processed
        stop = await self.settle()
        if stop is not None:
            return stop
        for item in processed:
            self.deliver(item)
        return None

    async def settle(self) -> Stop | None:
        """Pass queued writer chunks through the output lane, store and send them (D9, D27)."""
        pending = self.run.emitter.pending
        while pending:
            chunk, start = pending.popleft()
            processed = await self.through(chunk, start)
            if not isinstance(processed, list):
                pending.clear()
                return processed
            for item in processed:
                self.deliver(item)
        return None

    def deliver(self, chunk: Chunk) -> None:
        """Send a processed chunk; a non-transient ``data-*`` chunk is stored too (D27)."""
        run = self.run
        if chunk.type.startswith("data-") and not chunk.transient:
            run.response_message().content.parts.append(
                DataPart(type=chunk.type, data=chunk.data, id=chunk.id)
            )
        run.emitter.send(chunk)


_RAISED_CANCEL = "raised CancelledError while the run was not cancelled"


def _hook_outcome(result: Any, run: RunState) -> str:
    """How a (non-stream) hook ended: the stop's name, else ``kept`` or ``replaced``."""
    if isinstance(result, Retry | Blocked | Aborted):
        return result.name
    return "kept" if result is None or result is run.message_list else "replaced"


def _asked(result: Any) -> dict[str, Any] | None:
    """The tripwire payload of a hook's abort: it blocked the run, or asked for a retry."""
    if isinstance(result, Blocked):
        return result.payload
    if isinstance(result, Retry) and not result.api_error:
        return {"reason": result.reason, "processorId": result.processor_id, "retry": True}
    return None


def as_processor_error(error: BaseException, hook: Hook) -> BaseException:
    """A ``CancelledError`` out of a stream hook when nobody cancelled the run (D32)."""
    if not isinstance(error, asyncio.CancelledError):
        return error
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise error
    return ProcessorError(hook.processor_id, hook.name, _RAISED_CANCEL)


def check_returned(hook: Hook, chunk: Chunk) -> None:
    """A chunk a stream hook returned in place of the one it got must be well formed (D33)."""
    problem = check_chunk(chunk)
    if problem is not None:
        raise ProcessorError(hook.processor_id, hook.name, f"returned a malformed chunk: {problem}")


def coerce_returned(hook: Hook, value: Any) -> Chunk | list[Chunk]:
    """A stream hook's return value as a chunk, or several (docs/decisions/0004)."""
    if isinstance(value, list):
        return [_one_chunk(hook, item) for item in value]
    return _one_chunk(hook, value)


def _one_chunk(hook: Hook, value: Any) -> Chunk:
    if isinstance(value, dict):
        try:
            value = Chunk.from_dict(value)
        except ValueError as error:
            raise ProcessorError(hook.processor_id, hook.name, str(error)) from None
    if not isinstance(value, Chunk):
        raise ProcessorError(
            hook.processor_id,
            hook.name,
            f"returned {type(value).__name__}; expected a Chunk, a list of chunks, "
            "or None to drop the chunk",
        )
    check_returned(hook, value)
    return value


def check_hook_values(name: str, values: dict[str, Any]) -> None:
    """Debug aid for tests: a call site passes every argument its hook may receive."""
    missing = HOOK_ARGS[name] - set(values) - _STATIC_NAMES
    if missing:
        raise AssertionError(f"{name}: the call site does not pass {sorted(missing)}")


_STATIC_NAMES = frozenset(
    (
        "abort",
        "retry_count",
        "state",
        "tracing_context",
        "request_context",
        "abort_signal",
        "message_list",
        "processor_index",
        "writer",
        "stream_parts",
        "part",
    )
)
