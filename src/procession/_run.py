"""The agentic loop: one ``generate()``/``stream()`` call, top to bottom.

::

    process_input ─────────────────────────────────────────── once
    loop over steps:
      process_input_step ─ process_llm_request ─ model stream ─ process_output_stream (per chunk)
                                      (process_api_error on failure, may retry)
      process_llm_response ─ process_output_step ─ tools ─ process_tool_result (per tool)
    process_output_result ─────────────────────────────────── once
    persist (one transaction) ─ finish

``Run.chunks()`` is the one loop for both modes (D18): ``generate()`` drains it. Hooks raise
``TripWire`` (through ``abort``) to block or retry; any other exception fails the run closed
(D10). Everything a step adds to the message list is rolled back when the step is rejected
(D1, D11).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from procession._step import StepBuilder
from procession.chunks import Chunk, Usage
from procession.context import RequestContext, TracingContext
from procession.errors import (
    APICallError,
    ConfigurationError,
    MessageError,
    ProcessorError,
    TripWire,
)
from procession.messages.formats import to_prompt
from procession.messages.message import Message, MessageContent, SystemMessage
from procession.messages.message_list import MessageList
from procession.messages.parts import DataPart, StepStartPart, ToolInvocationPart
from procession.models.base import LanguageModel, ModelCallOptions, normalize_tool_choice
from procession.models.registry import resolve_model
from procession.processors._invoke import BoundHook, bind_hook
from procession.processors.base import ProcessorViolation
from procession.results import AgentResult, StepResult, ToolResultInfo
from procession.signals import AbortSignal
from procession.tools._tool import Tool, ToolContext, ToolWriter, toolset

__all__ = ["Run", "RunConfig"]

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
    input_processors: list[Any] = field(default_factory=list)
    output_processors: list[Any] = field(default_factory=list)
    error_processors: list[Any] = field(default_factory=list)
    prepare_step: Callable[..., Any] | None = None
    abort_signal: AbortSignal | None = None
    request_context: RequestContext = field(default_factory=RequestContext)
    on_complete: list[Callable[[Run], Awaitable[None]]] = field(default_factory=list)


@dataclass(slots=True)
class _StepConfig:
    model: LanguageModel
    tools: dict[str, Tool]
    tool_choice: dict[str, Any]
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


class _StreamHook:
    """A ``process_output_stream`` hook with its keyword dict built once per run."""

    __slots__ = ("bound", "data", "function", "is_async", "kw", "parts", "processor_id")

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


class ProcessorWriter:
    """The ``writer`` hooks receive (D27): ``writer.custom(chunk)`` emits a ``data-*`` chunk.

    The chunk is enqueued at once; the returned awaitable is already done, so sync and async
    hooks can both use it. Non-transient data chunks are stored as parts of the response.
    """

    __slots__ = ("_direct", "_run")

    def __init__(self, run: Run, *, direct: bool) -> None:
        self._run = run
        self._direct = direct

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Enqueue a ``data-*`` chunk (a ``Chunk`` or ``{"type", "data", "transient"?}``)."""
        self._run.enqueue(_data_chunk(chunk), direct=self._direct)
        return _READY


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


class Run:
    """State and loop of one ``generate()``/``stream()`` call."""

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

    # -- setup --------------------------------------------------------------------------

    def _bind_lanes(self) -> None:
        config = self.config
        lanes = {
            "input": config.input_processors,
            "output": config.output_processors,
            "error": config.error_processors,
        }
        from procession.processors.base import LANE_HOOKS

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

    # -- calling hooks --------------------------------------------------------------------

    async def _call(self, bound: BoundHook, args: dict[str, Any]) -> Any:
        try:
            return await bound(args)
        except TripWire as tripwire:
            if tripwire.processor_id is None:
                tripwire.processor_id = bound.processor_id
            tripwire.hook = bound.hook
            await self._violation(bound.processor, tripwire)
            raise
        except (ProcessorError, _Retry, _Tripwire, _Abort):
            raise
        except Exception as error:
            raise ProcessorError(
                bound.processor_id, bound.hook, f"raised {type(error).__name__}: {error}"
            ) from error

    async def _violation(self, processor: Any, tripwire: TripWire[Any]) -> None:
        callback = getattr(processor, "on_violation", None)
        if not callable(callback):
            return
        violation = ProcessorViolation(
            processor_id=tripwire.processor_id or str(getattr(processor, "id", "")),
            message=tripwire.reason,
            detail=tripwire.metadata,
            retry=tripwire.retry,
        )
        try:
            result = callback(violation)
            if inspect.isawaitable(result):
                await result
        except Exception:  # D8: logged and swallowed
            logger.exception("on_violation of %r raised", violation.processor_id)

    def _args(self, bound: BoundHook, **values: Any) -> dict[str, Any]:
        args = self._base_args(bound)
        args.update(values)
        return args

    # -- the data-chunk queue ---------------------------------------------------------------

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
            processed: Chunk | None = chunk if direct else await self.through(chunk)
            if processed is None:
                continue
            if processed.type.startswith("data-") and not processed.transient:
                self._response_message().content.parts.append(
                    DataPart(type=processed.type, data=processed.data, id=processed.id)
                )
            self.outbox.append(processed)

    async def through(self, chunk: Chunk) -> Chunk | None:
        """Pass one loop-made chunk through every ``process_output_stream`` hook."""
        is_data = chunk.type.startswith("data-")
        current: Chunk | None = chunk
        for hook in self._stream_hooks:
            if is_data and not hook.data:
                continue
            current = await self._stream_call(hook, current)  # type: ignore[arg-type]
            if current is None:
                return None
        return current

    async def _stream_call(self, hook: _StreamHook, chunk: Chunk) -> Chunk | None:
        kw = hook.kw
        kw["part"] = chunk
        if hook.parts is not None:
            hook.parts.append(chunk)
        try:
            result = hook.function(**kw)
            if hook.is_async or inspect.isawaitable(result):
                result = await result
        except TripWire as tripwire:
            if tripwire.processor_id is None:
                tripwire.processor_id = hook.processor_id
            tripwire.hook = "process_output_stream"
            await self._violation(hook.bound.processor, tripwire)
            raise
        except (ProcessorError, _Retry, _Tripwire, _Abort):
            raise
        except Exception as error:
            raise ProcessorError(
                hook.processor_id,
                "process_output_stream",
                f"raised {type(error).__name__}: {error}",
            ) from error
        if result is None or type(result) is Chunk:
            return result
        return _coerce_chunk(hook.processor_id, result)

    # -- the loop -------------------------------------------------------------------------

    async def chunks(self) -> AsyncIterator[Chunk]:
        """The run's client-visible chunks; ``self.result`` is final once this ends."""
        result = self.result
        try:
            self._bind_lanes()
            await self._process_input()
            yield self._chunk("start", {"id": self.config.agent_id, "messageId": self.response_id})
            step_number = 0
            while True:
                continued = False
                async for chunk in self._attempt(step_number):
                    yield chunk
                last = self.steps[-1] if self.steps else None
                if last is not None and last.step_number == step_number:
                    continued = bool(last.tool_calls) and last.finish_reason == "tool-calls"
                    step_number += 1
                    if not continued or step_number >= self.config.max_steps:
                        break
            await self._process_output_result()
            while self.outbox:
                yield self.outbox.popleft()
            result.text = "".join(step.text for step in self.steps)
            result.finish_reason = self.steps[-1].finish_reason if self.steps else "unknown"
            for callback in self.config.on_complete:
                await callback(self)
            yield self._finish_chunk()
        except _Tripwire as tripwire:
            while self.outbox:
                yield self.outbox.popleft()
            self._end_blocked(tripwire.payload)
            yield self._chunk("tripwire", tripwire.payload)
        except _Abort:
            yield self._aborted()
        except asyncio.CancelledError:
            if self.signal is None or not self.signal.aborted:
                raise  # a real cancellation of the caller's task
            yield self._aborted()
        except (ProcessorError, APICallError, ConfigurationError, MessageError) as error:
            yield self._fail(error)
        except Exception as error:  # a model or tool layer bug: fail closed, never hang
            yield self._fail(error)
        finally:
            result.steps = self.steps
            result.usage = self.usage
            result.messages = self.message_list.get.response.db()

    def _aborted(self) -> Chunk:
        self.result.finish_reason = "abort"
        self.result.text = ""
        return self._chunk("abort", {})

    def _fail(self, error: BaseException) -> Chunk:
        self.result.error = error
        self.result.finish_reason = "error"
        self.result.text = ""
        return self._chunk("error", {"error": error, "message": str(error)})

    def _end_blocked(self, payload: dict[str, Any]) -> None:
        self.result.tripwire = payload
        self.result.finish_reason = "other"
        self.result.text = ""

    def _chunk(self, kind: str, payload: dict[str, Any]) -> Chunk:
        return Chunk(kind, payload, self.run_id)

    def _tripwire_payload(self, tripwire: TripWire[Any]) -> dict[str, Any]:
        return tripwire.payload()

    def _finish_chunk(self) -> Chunk:
        last = self.steps[-1] if self.steps else None
        return self._chunk(
            "finish",
            {
                "stepResult": {"reason": self.result.finish_reason, "isContinued": False},
                "output": {
                    "text": self.result.text,
                    "toolCalls": [c.to_dict() for c in last.tool_calls] if last else [],
                    "usage": self.usage.to_dict(),
                },
                "metadata": {},
                "messageId": self.response_id,
                "processorRetryCount": self.processor_retries,
            },
        )

    # -- process_input ----------------------------------------------------------------------

    async def _process_input(self) -> None:
        message_list = self.message_list
        for bound in self._hooks.get("process_input", ()):
            messages = message_list.get.input.db()
            args = self._args(
                bound, messages=messages, system_messages=message_list.get_all_system_messages()
            )
            args.pop("writer")
            try:
                result = await self._call(bound, args)
            except TripWire as tripwire:  # D1: no step to retry from process_input
                raise _Tripwire(tripwire.payload()) from None
            self._apply_message_result(bound, result, messages, "input", input_stage=True)

    def _apply_message_result(
        self,
        bound: BoundHook,
        result: Any,
        scope: list[Message],
        default_source: str,
        *,
        input_stage: bool,
    ) -> None:
        """Apply a message hook's return value (D16)."""
        message_list = self.message_list
        if result is None or result is message_list:
            return
        if isinstance(result, MessageList):
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                "returned a MessageList other than the one it was given; "
                "edit the message_list argument instead",
            )
        if isinstance(result, list):
            if not result and not input_stage:
                return  # D16: [] means "no change" after the model ran
            self._replace(bound, scope, result, default_source)
            return
        if input_stage and bound.hook == "process_input" and isinstance(result, dict):
            unknown = set(result) - {"messages", "system_messages"}
            if unknown:
                raise ProcessorError(
                    bound.processor_id, bound.hook, f"returned unknown keys {sorted(unknown)}"
                )
            if "system_messages" in result:
                try:
                    message_list.replace_all_system_messages(result["system_messages"])
                except MessageError as error:
                    raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None
            if "messages" in result:
                self._replace(bound, scope, result["messages"], default_source)
            return
        raise ProcessorError(
            bound.processor_id,
            bound.hook,
            f"returned {type(result).__name__}; expected None, a list of messages or the "
            "message_list it was given",
        )

    def _replace(self, bound: BoundHook, scope: list[Message], value: Any, source: str) -> None:
        try:
            self.message_list.apply_replace_set(scope, value, source)  # type: ignore[arg-type]
        except MessageError as error:
            raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None

    # -- one step attempt -------------------------------------------------------------------

    async def _attempt(self, step_number: int) -> AsyncIterator[Chunk]:
        """Run step ``step_number`` once; on a rejected attempt, roll back and return."""
        checkpoint = self.message_list.checkpoint()
        steps_before = len(self.steps)
        try:
            async for chunk in self._step(step_number):
                yield chunk
        except TripWire as tripwire:
            self.message_list.rollback(checkpoint)
            del self.steps[steps_before:]
            while self.outbox:
                yield self.outbox.popleft()
            payload = tripwire.payload()
            if not tripwire.retry or not self._can_retry(self.processor_retries):
                raise _Tripwire(payload) from None
            self.processor_retries += 1
            for hook in self._stream_hooks:
                if "retry_count" in hook.kw:
                    hook.kw["retry_count"] = self.processor_retries
            self.message_list.add_system(
                RETRY_FEEDBACK.format(reason=tripwire.reason), tag=RETRY_FEEDBACK_TAG
            )  # D3
            yield self._retry_marker(
                retry_reason=tripwire.reason,
                processor_id=tripwire.processor_id,
                metadata=tripwire.metadata,
            )
        except _Retry:  # the API-error path rolled the model output back already
            del self.steps[steps_before:]
            while self.outbox:
                yield self.outbox.popleft()
            yield self._retry_marker(retry_reason="api-error", processor_id=None, metadata=None)

    def _budget(self) -> int | None:
        configured = self.config.max_processor_retries
        if configured is not None:
            return configured
        return DEFAULT_ERROR_RETRY_BUDGET if self.config.error_processors else None

    def _can_retry(self, used: int) -> bool:
        budget = self._budget()
        return budget is not None and used < budget

    def _retry_marker(self, *, retry_reason: str, processor_id: str | None, metadata: Any) -> Chunk:
        """D2: a ``step-finish`` with reason ``retry``; clients discard the step's chunks."""
        step_result: dict[str, Any] = {
            "reason": "retry",
            "isContinued": True,
            "retryReason": retry_reason,
            "retryProcessorId": processor_id,
        }
        if metadata is not None:
            step_result["retryMetadata"] = metadata
        return self._chunk(
            "step-finish",
            {
                "messageId": self.response_id,
                "stepResult": step_result,
                "output": {"text": "", "toolCalls": [], "usage": Usage().to_dict()},
                "metadata": {},
                "processorRetryCount": self.processor_retries,
            },
        )

    def _step_config(self) -> _StepConfig:
        config = self.config
        if self.model is None:
            self.model = resolve_model(config.model)
        return _StepConfig(
            model=self.model,
            tools=config.tools,
            tool_choice=normalize_tool_choice(config.tool_choice),
            active_tools=config.active_tools,
            provider_options=config.provider_options,
            model_settings=config.model_settings,
            structured_output=config.structured_output,
        )

    async def _step(self, step_number: int) -> AsyncIterator[Chunk]:
        message_list = self.message_list
        step = await self._process_input_step(step_number)
        await self.settle()
        while self.outbox:
            yield self.outbox.popleft()
        system = step.system if step.system is not None else message_list.get_all_system_messages()
        prompt = to_prompt(system, message_list.get.all.db())
        prompt, cached = await self._process_llm_request(step, prompt, step_number)
        await self.settle()
        while self.outbox:
            yield self.outbox.popleft()
        builder = StepBuilder()
        raw: list[dict[str, Any]] | None = [] if "process_llm_response" in self._hooks else None
        tools = self._active_tools(step)
        request: dict[str, Any] = {}
        warnings: list[dict[str, Any]] = []
        finish: Chunk | None = None
        checkpoint_before_model = message_list.checkpoint()
        try:
            if cached is not None:
                stream = _replay(cached)
                request = cached.get("request") or {}
                warnings = list(cached.get("warnings") or [])
            else:
                options = ModelCallOptions(
                    prompt=prompt,
                    tools=[t.definition() for t in tools.values()],  # type: ignore[misc]
                    tool_choice=step.tool_choice,
                    provider_options=step.provider_options,
                    settings=step.model_settings,  # type: ignore[arg-type]
                    abort_signal=self.signal,
                )
                started = await step.model.do_stream(options)
                stream = started.stream
                request, warnings = started.request, started.warnings
            start = await self.through(
                self._chunk(
                    "step-start",
                    {"request": request, "warnings": warnings, "messageId": self.response_id},
                )
            )
            if start is not None:
                yield start
            async for chunk in self._model_chunks(stream, builder, raw):
                if chunk.type == "finish":
                    finish = chunk
                else:
                    yield chunk
        except (TripWire, ProcessorError, _Abort, _Retry, _Tripwire):
            raise
        except Exception as error:
            self.message_list.rollback(checkpoint_before_model)
            await self._api_error(error, step_number)
        parts = builder.finish()
        step_result = self._step_result(step_number, step, builder, finish, request, warnings)
        self._commit_parts(parts, step_number)
        self.steps.append(step_result)
        await self._process_llm_response(step, step_number, raw, cached, request, warnings)
        await self._process_output_step(step, step_result)
        await self.settle()
        while self.outbox:
            yield self.outbox.popleft()
        if builder.tool_calls:
            async for chunk in self._run_tools(step_result, tools):
                yield chunk
        marker = await self.through(self._step_finish(step_result))
        await self.settle()
        while self.outbox:
            yield self.outbox.popleft()
        if marker is not None:
            yield marker

    async def _model_chunks(
        self, stream: AsyncIterator[Chunk], builder: StepBuilder, raw: list[dict[str, Any]] | None
    ) -> AsyncIterator[Chunk]:
        """The hot path: every model chunk through the output lane, into the step, out."""
        run_id = self.run_id
        hooks = self._stream_hooks
        signal = self.signal
        add = builder.add
        hidden = _HIDDEN_FROM_CLIENT
        try:
            async for chunk in stream:
                if signal is not None and signal.aborted:
                    raise _Abort
                chunk.run_id = run_id
                kind = chunk.type
                if raw is not None:
                    raw.append({"type": kind, "payload": dict(chunk.payload)})
                if kind == "error":
                    error = chunk.payload.get("error")
                    raise error if isinstance(error, BaseException) else APICallError(str(error))
                if kind == "finish":
                    self.usage = self.usage + Usage.from_dict(
                        chunk.payload.get("output", {}).get("usage")
                    )
                    if not builder.tool_calls:  # Mastra shows processors non-tool finishes
                        await self.through(chunk)
                    yield chunk
                    continue
                if kind == "tool-result":
                    chunk = await self._provider_tool_result(chunk, builder)
                current: Chunk | None = chunk
                for hook in hooks:
                    current = await self._stream_call(hook, current)  # type: ignore[arg-type]
                    if current is None:
                        break
                if current is None:
                    continue
                add(current)
                if current.type not in hidden:
                    yield current
                if self.pending:
                    await self.settle()
                    while self.outbox:
                        yield self.outbox.popleft()
            if signal is not None and signal.aborted:
                raise _Abort
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def _active_tools(self, step: _StepConfig) -> dict[str, Tool]:
        if step.tool_choice.get("type") == "none":
            return {}
        tools = step.tools
        if step.active_tools is not None:
            allowed = set(step.active_tools)
            tools = {name: t for name, t in tools.items() if name in allowed}
        return tools

    def _step_result(
        self,
        step_number: int,
        step: _StepConfig,
        builder: StepBuilder,
        finish: Chunk | None,
        request: dict[str, Any],
        warnings: list[dict[str, Any]],
    ) -> StepResult:
        payload = finish.payload if finish is not None else {}
        return StepResult(
            step_number=step_number,
            text="".join(builder.text_parts),
            reasoning="".join(builder.reasoning_text),
            tool_calls=builder.tool_calls,
            sources=builder.sources,
            files=builder.files,
            finish_reason=payload.get("stepResult", {}).get("reason", "unknown"),
            usage=Usage.from_dict(payload.get("output", {}).get("usage")),
            warnings=warnings,
            request=request,
            response=builder.response,
            provider_metadata=payload.get("providerMetadata"),
            model_id=step.model.model_id,
        )

    def _response_message(self) -> Message:
        message_list = self.message_list
        for message in reversed(message_list.get.response.db()):
            if message.id == self.response_id:
                return message
        message = Message(id=self.response_id, role="assistant", content=MessageContent(parts=[]))
        message_list.add(message, "response")
        return message

    def _commit_parts(self, parts: list[Any], step_number: int) -> None:
        if not parts:
            return
        message = self._response_message()
        if message.content.parts and step_number > 0:
            message.content.parts.append(StepStartPart())
        message.content.parts.extend(parts)

    def _step_finish(self, step: StepResult) -> Chunk:
        return self._chunk(
            "step-finish",
            {
                "messageId": self.response_id,
                "stepResult": {
                    "reason": step.finish_reason,
                    "isContinued": bool(step.tool_calls) and step.finish_reason == "tool-calls",
                },
                "output": {
                    "text": step.text,
                    "toolCalls": [c.to_dict() for c in step.tool_calls],
                    "usage": step.usage.to_dict(),
                },
                "metadata": {"modelId": step.model_id},
                "processorRetryCount": self.processor_retries,
            },
        )

    # -- in-loop hooks --------------------------------------------------------------------

    async def _process_input_step(self, step_number: int) -> _StepConfig:
        step = self._step_config()
        hooks = list(self._hooks.get("process_input_step", ()))
        if self.config.prepare_step is not None:
            hooks.append(BoundHook(_PrepareStep(self.config.prepare_step), "process_input_step"))
        message_list = self.message_list
        for bound in hooks:
            messages = message_list.get.all.db()
            args = self._args(
                bound,
                messages=messages,
                step_number=step_number,
                steps=list(self.steps),
                system_messages=step.system
                if step.system is not None
                else message_list.get_all_system_messages(),
                model=step.model,
                tool_choice=step.tool_choice,
                active_tools=step.active_tools,
                tools=step.tools,
                provider_options=step.provider_options,
                model_settings=step.model_settings,
                structured_output=step.structured_output,
            )
            result = await self._call(bound, args)
            self._apply_step_result(bound, result, messages, step)
        return step

    def _apply_step_result(
        self, bound: BoundHook, result: Any, messages: list[Message], step: _StepConfig
    ) -> None:
        if result is None or result is self.message_list or isinstance(result, list | MessageList):
            self._apply_message_result(bound, result, messages, "input", input_stage=True)
            return
        if not isinstance(result, dict):
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                f"returned {type(result).__name__}; expected None, a dict of step overrides, "
                "a list of messages or the message_list",
            )
        unknown = set(result) - _STEP_KEYS
        if unknown:
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                f"returned unknown keys {sorted(unknown)} "
                f"(allowed: {', '.join(sorted(_STEP_KEYS))})",
            )
        if "messages" in result and "message_list" in result:
            raise ProcessorError(
                bound.processor_id, bound.hook, "returned both messages and message_list"
            )  # D16
        if "message_list" in result:
            self._apply_message_result(
                bound, result["message_list"], messages, "input", input_stage=True
            )
        if "messages" in result:
            self._replace(bound, messages, result["messages"], "input")
        try:
            self._override(step, result)
        except (ConfigurationError, MessageError, ValueError) as error:
            raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None

    def _override(self, step: _StepConfig, result: dict[str, Any]) -> None:
        """Keys returned by ``process_input_step`` replace, never merge (D16, D17)."""
        from procession.messages.inputs import coerce_system

        if "model" in result:
            step.model = resolve_model(result["model"])
        if "tools" in result:
            step.tools = toolset(result["tools"])
        if "tool_choice" in result:
            step.tool_choice = normalize_tool_choice(result["tool_choice"])
        if "active_tools" in result:
            step.active_tools = result["active_tools"]
        if "provider_options" in result:
            step.provider_options = result["provider_options"] or {}
        if "model_settings" in result:
            step.model_settings = result["model_settings"] or {}
        if "structured_output" in result:
            step.structured_output = result["structured_output"]
        if "system_messages" in result:
            values = result["system_messages"] or []
            step.system = [coerce_system(v, f"system_messages[{i}]") for i, v in enumerate(values)]

    async def _process_llm_request(
        self, step: _StepConfig, prompt: list[dict[str, Any]], step_number: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        cached: dict[str, Any] | None = None
        for bound in self._hooks.get("process_llm_request", ()):
            args = self._args(
                bound,
                prompt=prompt,
                model=step.model,
                step_number=step_number,
                steps=list(self.steps),
            )
            result = await self._call(bound, args)
            if result is None:
                continue
            if not isinstance(result, dict) or set(result) - {"prompt", "response"}:
                raise ProcessorError(
                    bound.processor_id,
                    bound.hook,
                    "must return None or a dict with 'prompt' and/or 'response'",
                )
            if "prompt" in result:
                prompt = result["prompt"]
            if "response" in result and cached is None:  # D7: the first response wins
                cached = _check_cached(bound, result["response"])
        return prompt, cached

    async def _process_llm_response(
        self,
        step: _StepConfig,
        step_number: int,
        raw: list[dict[str, Any]] | None,
        cached: dict[str, Any] | None,
        request: dict[str, Any],
        warnings: list[dict[str, Any]],
    ) -> None:
        for bound in self._hooks.get("process_llm_response", ()):
            args = self._args(
                bound,
                chunks=list(raw or ()),
                model=step.model,
                step_number=step_number,
                steps=list(self.steps),
                from_cache=cached is not None,
                warnings=warnings,
                request=request,
                raw_response=(cached or {}).get("raw_response"),
            )
            await self._call(bound, args)

    async def _process_output_step(self, step: _StepConfig, result: StepResult) -> None:
        message_list = self.message_list
        for bound in self._hooks.get("process_output_step", ()):
            messages = message_list.get.all.db()
            args = self._args(
                bound,
                messages=messages,
                step_number=result.step_number,
                finish_reason=result.finish_reason,
                provider_metadata=result.provider_metadata,
                tool_calls=list(result.tool_calls),
                text=result.text,
                usage=result.usage,
                system_messages=step.system
                if step.system is not None
                else message_list.get_all_system_messages(),
                steps=list(self.steps),
            )
            outcome = await self._call(bound, args)
            self._apply_message_result(bound, outcome, messages, "response", input_stage=False)

    async def _process_output_result(self) -> None:
        message_list = self.message_list
        result = self.result
        result.text = "".join(step.text for step in self.steps)
        result.finish_reason = self.steps[-1].finish_reason if self.steps else "unknown"
        result.steps = self.steps
        result.usage = self.usage
        try:
            for bound in self._hooks.get("process_output_result", ()):
                messages = message_list.get.response.db()
                args = self._args(bound, messages=messages, result=result)
                args["writer"] = self._direct_writer
                outcome = await self._call(bound, args)
                self._apply_message_result(bound, outcome, messages, "response", input_stage=False)
        except TripWire as tripwire:  # D1: nothing to retry after the loop
            raise _Tripwire(tripwire.payload()) from None
        await self.settle()

    async def _api_error(self, error: BaseException, step_number: int) -> NoReturn:
        """D14: ask the error lane; a ``{"retry": True}`` re-runs the step."""
        if not isinstance(error, APICallError | Exception):
            raise error
        hooks = self._hooks.get("process_api_error", ())
        retry = False
        for bound in hooks:
            args = self._args(
                bound,
                error=error,
                messages=self.message_list.get.all.db(),
                step_number=step_number,
                steps=list(self.steps),
            )
            args["retry_count"] = self.api_retries  # D5
            try:
                answer = await bound(args)
            except TripWire as tripwire:
                if tripwire.processor_id is None:
                    tripwire.processor_id = bound.processor_id
                await self._violation(bound.processor, tripwire)
                raise _Tripwire(tripwire.payload()) from None
            except Exception:  # D10's exception: logged, the next processor is asked
                logger.exception("process_api_error of %r raised", bound.processor_id)
                continue
            if isinstance(answer, dict) and answer.get("retry"):
                retry = True
                break
        if retry and self._can_retry(self.api_retries):
            self.api_retries += 1
            raise _Retry
        raise error

    # -- tools ----------------------------------------------------------------------------

    async def _provider_tool_result(self, chunk: Chunk, builder: StepBuilder) -> Chunk:
        """C30: a provider-executed tool's result reaches ``process_tool_result`` inline."""
        payload = chunk.payload
        for bound in self._hooks.get("process_tool_result", ()):
            args = self._args(
                bound,
                messages=self.message_list.get.all.db(),
                step_number=len(self.steps),
                steps=list(self.steps),
                tool_name=payload.get("toolName"),
                tool_call_id=payload.get("toolCallId"),
                args=payload.get("args"),
                result=payload.get("result"),
                provider_executed=True,
                system_messages=self.message_list.get_all_system_messages(),
            )
            await self._call(bound, args)
        for part in builder.parts:
            if isinstance(
                part, ToolInvocationPart
            ) and part.tool_invocation.tool_call_id == payload.get("toolCallId"):
                part.tool_invocation.state = "result"
                part.tool_invocation.result = payload.get("result")
        return chunk

    async def _run_tools(self, step: StepResult, tools: dict[str, Tool]) -> AsyncIterator[Chunk]:
        calls = [c for c in step.tool_calls if not c.provider_executed]
        if not calls:
            return
        outcomes: list[tuple[bool, Any]] = [(False, None)] * len(calls)

        async def run_one(index: int) -> None:
            call = calls[index]
            tool = tools.get(call.tool_name)
            if tool is None:
                outcomes[index] = (False, f"tool {call.tool_name!r} is not available")
                return
            context = ToolContext(
                tool_call_id=call.tool_call_id,
                tool_name=call.tool_name,
                writer=ToolWriter(self._tool_emit),
                request_context=self.request_context,
                abort_signal=self.signal,
                messages=self.message_list.get.all.db(),
            )
            try:
                outcomes[index] = (True, await tool.execute(call.args, context))
            except Exception as error:
                outcomes[index] = (False, str(error) or type(error).__name__)

        async for chunk in self._gather_tools(run_one, len(calls)):
            yield chunk
        for call, (ok, value) in zip(calls, outcomes, strict=True):
            if ok:
                value = await self._process_tool_result(step, call, value)
                chunk_out = self._chunk(
                    "tool-result",
                    {
                        "toolCallId": call.tool_call_id,
                        "toolName": call.tool_name,
                        "result": value,
                        "args": call.args,
                    },
                )
                step.tool_results.append(
                    ToolResultInfo(call.tool_call_id, call.tool_name, call.args, result=value)
                )
            else:
                self._mark_tool_error(call.tool_call_id, value)
                chunk_out = self._chunk(
                    "tool-error",
                    {
                        "toolCallId": call.tool_call_id,
                        "toolName": call.tool_name,
                        "error": value,
                        "args": call.args,
                    },
                )
                step.tool_results.append(
                    ToolResultInfo(call.tool_call_id, call.tool_name, call.args, error=value)
                )
            processed = await self.through(chunk_out)
            await self.settle()
            while self.outbox:
                yield self.outbox.popleft()
            if processed is not None:
                yield processed

    def _tool_emit(self, chunk: Any, message_id: str | None) -> Awaitable[None]:
        self.enqueue(_data_chunk(chunk), direct=False)
        return _READY

    async def _gather_tools(
        self, run_one: Callable[[int], Awaitable[None]], count: int
    ) -> AsyncIterator[Chunk]:
        """Run the step's tools concurrently, streaming their data chunks as they come."""

        async def run_all() -> None:
            async with asyncio.TaskGroup() as group:
                for index in range(count):
                    group.create_task(run_one(index))  # type: ignore[arg-type]

        wake = self._wake = asyncio.Event()
        task = asyncio.ensure_future(run_all())
        remove = self.signal.add_listener(wake.set) if self.signal is not None else None
        try:
            while not task.done():
                waiter = asyncio.ensure_future(wake.wait())
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                wake.clear()
                if self.signal is not None and self.signal.aborted:
                    task.cancel()
                    raise _Abort
                await self.settle()
                while self.outbox:
                    yield self.outbox.popleft()
            await task
        finally:
            self._wake = None
            if remove is not None:
                remove()
            if not task.done():
                task.cancel()

    async def _process_tool_result(self, step: StepResult, call: Any, value: Any) -> Any:
        message_list = self.message_list
        for bound in self._hooks.get("process_tool_result", ()):
            messages = message_list.get.all.db()
            args = self._args(
                bound,
                messages=messages,
                step_number=step.step_number,
                steps=list(self.steps),
                tool_name=call.tool_name,
                tool_call_id=call.tool_call_id,
                args=call.args,
                result=value,
                provider_executed=call.provider_executed,
                system_messages=message_list.get_all_system_messages(),
            )
            outcome = await self._call(bound, args)
            self._apply_message_result(bound, outcome, messages, "response", input_stage=False)
        part = self._find_call(call.tool_call_id)
        if part is None:
            return value
        invocation = part.tool_invocation
        if invocation.state == "result":
            value = invocation.result  # a processor rewrote it via update_tool_invocation
        else:
            invocation.state, invocation.result = "result", value
        return value

    def _find_call(self, tool_call_id: str) -> ToolInvocationPart | None:
        message = self._response_message()
        for part in message.content.parts:
            if (
                isinstance(part, ToolInvocationPart)
                and part.tool_invocation.tool_call_id == tool_call_id
            ):
                return part
        return None

    def _mark_tool_error(self, tool_call_id: str, error_text: str) -> None:
        part = self._find_call(tool_call_id)
        if part is not None:
            part.tool_invocation.state = "output-error"
            part.tool_invocation.error_text = error_text


class _PrepareStep:
    """The ``prepare_step`` call option as the last ``process_input_step`` processor."""

    id = "prepare-step"

    def __init__(self, function: Callable[..., Any]) -> None:
        self._function = function

    async def process_input_step(self, **kwargs: Any) -> Any:
        result = self._function(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


def _coerce_chunk(processor_id: str, value: Any) -> Chunk:
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
        f"returned {type(value).__name__}; expected a Chunk, or None to drop the chunk",
    )


def _check_cached(bound: BoundHook, response: Any) -> dict[str, Any]:
    if not isinstance(response, dict) or not isinstance(response.get("chunks"), list):
        raise ProcessorError(
            bound.processor_id,
            bound.hook,
            "a 'response' must be {'chunks': [{'type', 'payload'}, ...], ...}",
        )
    return response


async def _replay(cached: dict[str, Any]) -> AsyncIterator[Chunk]:
    """D7: replay a cached response's raw chunks as a model stream."""
    for item in cached["chunks"]:
        if isinstance(item, Chunk):
            yield item.copy()
        else:
            yield Chunk(item["type"], dict(item.get("payload") or {}))
