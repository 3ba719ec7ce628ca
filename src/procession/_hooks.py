"""Calling hooks for one run: keyword arguments, ``abort``, violations, writers (D8, D19, D27).

``RunBase`` holds a run's state and the machinery every stage uses: binding each lane's hooks
once per run, building their arguments, turning exceptions into ``ProcessorError`` (D10), and
the queue that carries ``writer.custom`` data chunks through the output lane (D9).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from procession.chunks import Chunk, Usage
from procession.context import RequestContext, TracingContext
from procession.errors import (
    ProcessorError,
    TripWire,
)
from procession.messages.message import Message, MessageContent, SystemMessage
from procession.messages.message_list import MessageList
from procession.messages.parts import DataPart
from procession.models._abort import cancel_on_abort
from procession.models.base import LanguageModel
from procession.processors._invoke import BoundHook, bind_hook
from procession.processors.base import LANE_HOOKS, ProcessorViolation, notify_violation
from procession.results import AgentResult, StepResult
from procession.signals import AbortSignal
from procession.tools._tool import Tool

logger = logging.getLogger("procession")

RETRY_FEEDBACK_TAG = "processor-retry-feedback"
RETRY_FEEDBACK = (
    "[Processor Feedback] Your previous response was not accepted: {reason}. "
    "Please try again with the feedback in mind."
)
DEFAULT_ERROR_RETRY_BUDGET = 10
_HIDDEN_FROM_CLIENT = frozenset(("response-metadata", "finish"))
_STEP_KEYS = frozenset(
    (
        "model",
        "tool_choice",
        "active_tools",
        "tools",
        "messages",
        "message_list",
        "system_messages",
        "provider_options",
        "model_settings",
        "structured_output",
    )
)


class _Ready:
    """An already-finished awaitable: what ``writer.custom`` returns (D27)."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # pragma: no cover - makes this a generator


_READY = _Ready()


@dataclass(slots=True, kw_only=True)
class RunConfig:
    """Everything one call runs with, resolved from the agent and the call options."""

    agent_id: str
    model: LanguageModel | str
    tools: dict[str, Tool]
    tool_choice: Any = "auto"
    active_tools: list[str] | None = None
    provider_options: dict[str, Any] = field(default_factory=dict)
    model_settings: dict[str, Any] = field(default_factory=dict)
    structured_output: Any = None
    max_steps: int = 5
    max_processor_retries: int | None = None
    max_retries: int | None = None
    """Retries of transient model errors (D14); ``None`` means the model layer's default, 2."""
    input_processors: list[Any] = field(default_factory=list)
    output_processors: list[Any] = field(default_factory=list)
    error_processors: list[Any] = field(default_factory=list)
    prepare_step: Callable[..., Any] | None = None
    abort_signal: AbortSignal | None = None
    request_context: RequestContext = field(default_factory=RequestContext)
    on_complete: list[Callable[[Any], Awaitable[None]]] = field(default_factory=list)


@dataclass(slots=True)
class _StepConfig:
    model: LanguageModel
    tools: dict[str, Tool]
    tool_choice: Any
    """As configured or returned (``"auto"``, ``{"type": "tool", ...}``); normalised for the
    model call only, so hooks see the seed's form."""
    active_tools: list[str] | None
    provider_options: dict[str, Any]
    model_settings: dict[str, Any]
    structured_output: Any
    system: list[SystemMessage] | None = None


class _Retry(Exception):  # noqa: N818 - control flow
    """A step asks to be re-run (processor retry or API-error retry)."""


class _Tripwire(Exception):  # noqa: N818 - control flow
    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload


class _Abort(Exception):  # noqa: N818 - control flow
    """The caller's abort signal fired."""


_CALLER_FACTORIES: dict[tuple[str, ...], Callable[..., Callable[[Chunk], Any]]] = {}


def _caller(function: Callable[..., Any], static: dict[str, Any]) -> Callable[[Chunk], Any]:
    """A function ``call(part)`` that calls ``function(part=part, **static)``.

    Calling with literal keywords is about three times cheaper than ``function(**kwargs)``,
    and this runs once per chunk per processor, so the caller is generated per set of names
    (cached) and bound to this run's values once.
    """
    names = tuple(sorted(name for name in static if name != "part"))
    factory = _CALLER_FACTORIES.get(names)
    if factory is None:
        params = "".join(f", _{name}" for name in names)
        args = "".join(f", {name}=_{name}" for name in names)
        source = (
            f"def factory(_function{params}):\n"
            f"    def call(part):\n"
            f"        return _function(part=part{args})\n"
            f"    return call\n"
        )
        namespace: dict[str, Any] = {}
        exec(source, namespace)
        factory = _CALLER_FACTORIES[names] = namespace["factory"]
    return factory(function, *(static[name] for name in names))


class _StreamHook:
    """A ``process_output_stream`` hook with its arguments bound once per run."""

    __slots__ = ("bound", "call", "data", "function", "is_async", "kw", "parts", "processor_id")

    def __init__(self, bound: BoundHook, kw: dict[str, Any], wants_parts: bool) -> None:
        self.bound = bound
        self.function = bound.function
        self.is_async = bound.is_async
        self.processor_id = bound.processor_id
        self.kw = kw
        self.parts: list[Chunk] | None = [] if wants_parts else None
        if self.parts is not None:
            kw["stream_parts"] = self.parts
        self.data = bool(getattr(bound.processor, "process_data_parts", False))
        self.call = _caller(self.function, kw)

    def set_retry_count(self, count: int) -> None:
        """Rebind after a retry, when the hook declared ``retry_count``."""
        if "retry_count" in self.kw:
            self.kw["retry_count"] = count
            self.call = _caller(self.function, self.kw)


class ProcessorWriter:
    """The ``writer`` hooks receive (D27): ``writer.custom(chunk)`` emits a ``data-*`` chunk.

    The chunk is enqueued at once; the returned awaitable is already done, so sync and async
    hooks can both use it. Non-transient data chunks are stored as parts of the response.
    """

    __slots__ = ("_direct", "_run")

    def __init__(self, run: RunBase, *, direct: bool) -> None:
        self._run: RunBase | None = run
        self._direct = direct

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Enqueue a ``data-*`` chunk (a ``Chunk`` or ``{"type", "data", "transient"?}``)."""
        run = self._run
        if run is None:
            raise RuntimeError("writer.custom: the run this writer belongs to has ended (D11)")
        run.enqueue(_data_chunk(chunk), direct=self._direct)
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


def _coerce_chunk(processor_id: str, value: Any) -> Chunk | list[Chunk]:
    """A hook's return value as a chunk, or as several (a procession extension)."""
    if isinstance(value, Chunk):
        return value
    if isinstance(value, list):
        return [_one_chunk(processor_id, item) for item in value]
    return _one_chunk(processor_id, value)


def _one_chunk(processor_id: str, value: Any) -> Chunk:
    if isinstance(value, Chunk):
        return value
    if isinstance(value, dict):
        try:
            return Chunk.from_dict(value)
        except ValueError as error:
            raise ProcessorError(processor_id, "process_output_stream", str(error)) from None
    raise ProcessorError(
        processor_id,
        "process_output_stream",
        f"returned {type(value).__name__}; expected a Chunk, a list of chunks, "
        "or None to drop the chunk",
    )


class RunBase:
    """State of one ``generate()``/``stream()`` call, and how its hooks are called."""

    def __init__(self, run_id: str, message_list: MessageList, config: RunConfig) -> None:
        self.run_id = run_id
        self.message_list = message_list
        self.config = config
        self.request_context = config.request_context
        self.signal = config.abort_signal
        self.tracing = TracingContext(run_id=run_id, agent_id=config.agent_id)
        self.states: dict[str, dict[str, Any]] = {}
        self.steps: list[StepResult] = []
        self.usage = Usage()
        self.processor_retries = 0
        self.api_retries = 0
        self.response_id = f"{run_id}-response"
        self.pending: deque[tuple[Chunk, bool]] = deque()
        self.outbox: deque[Chunk] = deque()
        self.result = AgentResult(run_id=run_id, response_message_id=self.response_id)
        self._wake: asyncio.Event | None = None
        self.writer = ProcessorWriter(self, direct=False)
        self._direct_writer = ProcessorWriter(self, direct=True)
        self._aborts: dict[tuple[str, bool], Callable[..., NoReturn]] = {}
        self._stream_hooks: list[_StreamHook] = []
        self._hooks: dict[str, list[BoundHook]] = {}
        self.model: LanguageModel | None = None
        self._attempt: Any = None
        """The step attempt in progress, if the model stage was reached."""

    async def _prepare(self) -> None:
        """Resolve what the run needs before its first hook (lanes, messages); a subclass's."""

    def _bind_lanes(self) -> None:
        config = self.config
        lanes = {
            "input": config.input_processors,
            "output": config.output_processors,
            "error": config.error_processors,
        }

        for lane, processors in lanes.items():
            for index, processor in enumerate(processors):
                processor.processor_index = index  # D28
                for hook in LANE_HOOKS[lane]:
                    bound = bind_hook(processor, hook)
                    if bound is not None:
                        self._hooks.setdefault(hook, []).append(bound)
        for bound in self._hooks.get("process_output_stream", []):
            wants = bound.wants
            kw = bound.select(self._base_args(bound, stream=True, parts=None))
            if wants is None:
                kw.pop("stream_parts", None)
            want_parts = wants is None or "stream_parts" in wants
            self._stream_hooks.append(_StreamHook(bound, kw, want_parts))

    def state_for(self, processor_id: str) -> dict[str, Any]:
        """The run's state dict for a processor id (D15)."""
        state = self.states.get(processor_id)
        if state is None:
            state = self.states[processor_id] = {}
        return state

    def _abort_for(self, processor_id: str, *, stream: bool) -> Callable[..., NoReturn]:
        key = (processor_id, stream)
        abort = self._aborts.get(key)
        if abort is None:
            default = (
                f"Stream part blocked by {processor_id}"
                if stream
                else f"Tripwire triggered by {processor_id}"
            )

            def abort(
                reason: str | None = None, *, retry: bool = False, metadata: Any = None
            ) -> NoReturn:
                raise TripWire(
                    reason or default, retry=retry, metadata=metadata, processor_id=processor_id
                )

            self._aborts[key] = abort
        return abort

    def _base_args(
        self, bound: BoundHook, *, stream: bool = False, parts: Any = None
    ) -> dict[str, Any]:
        return {
            "abort": self._abort_for(bound.processor_id, stream=stream),
            "retry_count": self.processor_retries,
            "state": self.state_for(bound.processor_id),
            "tracing_context": self.tracing,
            "request_context": self.request_context,
            "abort_signal": self.signal,
            "message_list": self.message_list,
            "writer": self._direct_writer if stream else self.writer,
            "part": None,
            "stream_parts": parts,
        }

    async def _call(self, bound: BoundHook, args: dict[str, Any]) -> Any:
        """Call a (non-stream) hook; the abort signal interrupts it if it hangs."""
        try:
            with cancel_on_abort(self.signal):
                return await bound(args)
        except TripWire as tripwire:
            await self._claim(tripwire, bound)
            raise
        except (ProcessorError, _Retry, _Tripwire, _Abort):
            raise
        except Exception as error:
            raise ProcessorError(
                bound.processor_id, bound.hook, f"raised {type(error).__name__}: {error}"
            ) from error

    async def _claim(self, tripwire: TripWire[Any], bound: BoundHook) -> None:
        """Attribute an abort to the hook that raised it and report it (D8)."""
        if tripwire.processor_id is None:
            tripwire.processor_id = bound.processor_id
        tripwire.hook = bound.hook
        await self._violation(bound.processor, tripwire)

    async def _violation(self, processor: Any, tripwire: TripWire[Any]) -> None:
        violation = ProcessorViolation(
            processor_id=tripwire.processor_id or str(getattr(processor, "id", "")),
            message=tripwire.reason,
            detail=tripwire.metadata,
            retry=tripwire.retry,
        )
        await notify_violation(processor, violation)

    def _args(self, bound: BoundHook, **values: Any) -> dict[str, Any]:
        args = self._base_args(bound)
        args.update(values)
        return args

    def enqueue(self, chunk: Chunk, *, direct: bool) -> None:
        """Queue a data chunk from a writer; it is processed at the loop's next turn."""
        chunk.run_id = self.run_id
        self.pending.append((chunk, direct))
        if self._wake is not None:
            self._wake.set()

    async def settle(self) -> None:
        """Run queued data chunks through the output lane, store and ready them (D9, D27)."""
        while self.pending:
            chunk, direct = self.pending.popleft()
            for processed in [chunk] if direct else await self.through(chunk):
                if processed.type.startswith("data-") and not processed.transient:
                    self._response_message().content.parts.append(
                        DataPart(type=processed.type, data=processed.data, id=processed.id)
                    )
                self.outbox.append(processed)

    async def through(self, chunk: Chunk, start: int = 0) -> list[Chunk]:
        """Pass one chunk through the ``process_output_stream`` hooks from ``start`` on.

        A hook may pass the chunk on, replace it, drop it (``None``), or return several
        chunks, each of which continues down the lane. Returns what comes out, in order.
        """
        hooks = self._stream_hooks
        is_data = chunk.type.startswith("data-")
        current = chunk
        for index in range(start, len(hooks)):
            hook = hooks[index]
            if is_data and not hook.data:
                continue
            result = await self._stream_call(hook, current)
            if result is None:
                return []
            if type(result) is list:
                return await self._through_each(result, index + 1)
            current = result  # type: ignore[assignment]
        return [current]

    async def _through_each(self, chunks: list[Chunk], start: int) -> list[Chunk]:
        out: list[Chunk] = []
        for item in chunks:
            out.extend(await self.through(item, start))
        return out

    async def _stream_call(self, hook: _StreamHook, chunk: Chunk) -> Chunk | list[Chunk] | None:
        if hook.parts is not None:
            hook.parts.append(chunk)
        try:
            result = hook.call(chunk)
            if hook.is_async or (type(result) is not Chunk and inspect.isawaitable(result)):
                result = await result
        except Exception as error:
            await self._stream_failed(hook, error)
        if result is None or type(result) is Chunk:
            return result
        return _coerce_chunk(hook.processor_id, result)

    async def _stream_failed(self, hook: _StreamHook, error: Exception) -> NoReturn:
        """A ``process_output_stream`` hook raised: an abort, or a failure (D10)."""
        if isinstance(error, TripWire):
            await self._claim(error, hook.bound)
            raise error
        if isinstance(error, ProcessorError | _Retry | _Tripwire | _Abort):
            raise error
        raise ProcessorError(
            hook.processor_id,
            "process_output_stream",
            f"raised {type(error).__name__}: {error}",
        ) from error

    def _chunk(self, kind: str, payload: dict[str, Any]) -> Chunk:
        return Chunk(kind, payload, self.run_id)

    def _response_message(self) -> Message:
        message_list = self.message_list
        for message in reversed(message_list.get.response.db()):
            if message.id == self.response_id:
                return message
        message = Message(id=self.response_id, role="assistant", content=MessageContent(parts=[]))
        message_list.add(message, "response")
        return message

    def _budget(self) -> int | None:
        configured = self.config.max_processor_retries
        if configured is not None:
            return configured
        return DEFAULT_ERROR_RETRY_BUDGET if self.config.error_processors else None

    def _can_retry(self, used: int) -> bool:
        budget = self._budget()
        return budget is not None and used < budget
