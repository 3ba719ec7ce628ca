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
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import Any, NoReturn

from procession._hooks import (
    _HIDDEN_FROM_CLIENT,
    RETRY_FEEDBACK,
    RETRY_FEEDBACK_TAG,
    RunConfig,
    _Abort,
    _coerce_chunk,
    _Retry,
    _StepConfig,
    _Tripwire,
)
from procession._step import StepBuilder
from procession._tools_stage import ToolStage
from procession.chunks import Chunk, Usage
from procession.errors import (
    APICallError,
    ProcessorError,
    StructuredOutputError,
    TripWire,
)
from procession.messages.formats import to_prompt
from procession.messages.message import SystemMessage
from procession.messages.parts import StepStartPart
from procession.models.base import ModelCallOptions, normalize_tool_choice
from procession.models.retry import start_with_retries
from procession.results import StepResult
from procession.structured import (
    ObjectStream,
    StructuredOutput,
    is_value,
    structured_output_spec,
)
from procession.tools._tool import Tool

__all__ = ["Run", "RunConfig"]

_SPECIAL = frozenset(("error", "finish", "tool-result"))
"""Model chunk types that need more than the output lane (checked per chunk)."""


@dataclass(slots=True)
class _Attempt:
    """What one attempt at a step carries from the stages before the model to those after."""

    step_number: int
    step: _StepConfig
    checkpoint: object
    """The message list before the model call, for rolling back a failed call."""
    tools: dict[str, Tool]
    builder: StepBuilder = field(default_factory=StepBuilder)
    raw: list[dict[str, Any]] | None = None
    cached: dict[str, Any] | None = None
    stream: AsyncIterator[Chunk] | None = None
    first: Chunk | None = None
    request: dict[str, Any] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    finish: Chunk | None = None
    structured: StructuredOutput | None = None
    objects: ObjectStream | None = None
    prompt: list[dict[str, Any]] = field(default_factory=list)


class Run(ToolStage):
    """One ``generate()``/``stream()`` call: the loop."""

    async def chunks(self) -> AsyncIterator[Chunk]:
        """The run's client-visible chunks; ``self.result`` is final once this ends.

        The model stream is read here, in the one generator the caller iterates, so a chunk
        crosses no other generator on its way out (the hot path, see ``bench/``).
        """
        result = self.result
        message_list = self.message_list
        outbox = self.outbox
        try:
            await self._prepare()
            self._bind_lanes()
            await self._process_input()
            yield self._chunk("start", {"id": self.config.agent_id, "messageId": self.response_id})
            step_number = 0
            while True:
                checkpoint = message_list.checkpoint()
                steps_before = len(self.steps)
                self._attempt = None
                try:
                    attempt = await self._before_model(step_number)
                    while outbox:
                        yield outbox.popleft()
                    failure = await self._start_model(attempt)
                    for start in await self.through(self._step_start(attempt)):
                        yield start
                    if failure is not None:  # the step-start comes first, as in Mastra
                        await self._model_failed(attempt, failure)
                    # -- the hot path: each model chunk through the output lane, into the step
                    try:
                        run_id = self.run_id
                        signal = self.signal
                        hooks = self._stream_hooks
                        add = attempt.builder.add
                        raw = attempt.raw
                        first = attempt.first
                        objects = attempt.objects
                        assert attempt.stream is not None
                        next_chunk = attempt.stream.__anext__
                        while True:
                            if first is not None:
                                chunk, first = first, None
                            else:
                                try:
                                    chunk = await next_chunk()
                                except StopAsyncIteration:
                                    break
                            if signal is not None and signal.aborted:
                                raise _Abort
                            chunk.run_id = run_id
                            kind = chunk.type
                            if raw is not None:
                                raw.append({"type": kind, "payload": dict(chunk.payload)})
                            if kind in _SPECIAL:
                                special = await self._special_chunk(attempt, chunk)
                                if special is None:
                                    while outbox:
                                        yield outbox.popleft()
                                    continue
                                chunk = special
                            current: Chunk | None = chunk
                            for hook in hooks:
                                if hook.parts is not None:
                                    hook.parts.append(current)  # type: ignore[arg-type]
                                try:
                                    out = hook.call(current)  # type: ignore[arg-type]
                                    if hook.is_async:
                                        out = await out
                                    elif type(out) is not Chunk and isawaitable(out):
                                        out = await out  # a def hook returning a coroutine
                                except Exception as error:
                                    await self._stream_failed(hook, error)
                                if out is None:
                                    current = None
                                    break
                                if type(out) is not Chunk:
                                    out = _coerce_chunk(hook.processor_id, out)
                                    if type(out) is list:  # several chunks (an extension)
                                        for item in await self._through_each(
                                            out, hooks.index(hook) + 1
                                        ):
                                            self._emit_processed(attempt, item)
                                        current = None
                                        break
                                current = out
                            if self.pending:  # writer chunks made while processing it first
                                await self.settle()
                            while outbox:
                                yield outbox.popleft()
                            if current is None:
                                continue
                            add(current)
                            if current.type not in _HIDDEN_FROM_CLIENT:
                                yield current
                            if objects is not None and current.type == "text-delta":
                                partial = objects.feed(current.payload.get("text", ""))
                                if is_value(partial):
                                    yield self._chunk("object", {"object": partial})
                        if signal is not None and signal.aborted:
                            raise _Abort
                    except (TripWire, ProcessorError, _Abort, _Retry, _Tripwire):
                        raise
                    except Exception as error:
                        await self._model_failed(attempt, error)
                    finally:
                        await _aclose(attempt.stream)
                    # -- after the model: llm_response, output_step, tools, step-finish
                    step_result = await self._after_model(attempt)
                    while outbox:
                        yield outbox.popleft()
                    if step_result.tool_calls:
                        async for chunk in self._run_tools(
                            step_result, attempt.tools, attempt.builder.execution_args
                        ):
                            yield chunk
                    markers = await self.through(self._step_finish(step_result))
                    await self.settle()
                    while outbox:
                        yield outbox.popleft()
                    for marker in markers:
                        yield marker
                except TripWire as tripwire:
                    self.pending.clear()  # a rejected step's data chunks: not sent, not stored
                    message_list.rollback(checkpoint)
                    del self.steps[steps_before:]
                    marker = self._processor_retry(tripwire)  # or raises _Tripwire
                except _Retry:  # the API-error path rolled the model output back already
                    self.pending.clear()
                    del self.steps[steps_before:]
                    marker = self._retry_marker(
                        retry_reason="api-error", processor_id=None, metadata=None
                    )
                else:
                    step_number += 1
                    if not self._continues(self.steps[-1]):
                        break
                    continue
                while outbox:
                    yield outbox.popleft()
                for item in await self._through_marker(marker):  # D2
                    yield item
            await self._process_output_result()
            while outbox:
                yield outbox.popleft()
            result.text = "".join(step.text for step in self.steps)
            result.finish_reason = self.steps[-1].finish_reason if self.steps else "unknown"
            for callback in self.config.on_complete:
                await callback(self)
            yield self._finish_chunk()
        except _Tripwire as tripwire:
            while outbox:
                yield outbox.popleft()
            self._end_blocked(tripwire.payload)
            yield self._chunk("tripwire", tripwire.payload)
        except _Abort:
            yield self._aborted()
        except asyncio.CancelledError:
            if self.signal is None or not self.signal.aborted:
                raise  # a real cancellation of the caller's task
            yield self._aborted()
        except Exception as error:  # fail closed, never hang (D10, D21)
            yield self._fail(error)
        finally:
            result.steps = self.steps
            result.usage = self.usage
            result.messages = message_list.get.response.db()
            self.writer.close()  # the run's only reference cycles: freed without the collector
            self._direct_writer.close()

    # -- before the model -------------------------------------------------------------------

    async def _before_model(self, step_number: int) -> _Attempt:
        """``process_input_step``, the prompt, ``process_llm_request``, then start the call."""
        message_list = self.message_list
        if step_number > 0:  # the boundary exists before this step's hooks run (Mastra)
            response = self._response_message()
            if response.content.parts:
                response.content.parts.append(StepStartPart())
        step = await self._process_input_step(step_number)
        await self.settle()
        system = step.system if step.system is not None else message_list.get_all_system_messages()
        structured = structured_output_spec(step.structured_output)
        if structured is not None and not step.model.supports_structured_output:
            system = [*system, SystemMessage(structured.instruction())]  # this step only
        prompt = to_prompt(system, message_list.get.all.db())
        prompt, cached = await self._process_llm_request(step, prompt, step_number)
        await self.settle()
        attempt = _Attempt(
            step_number=step_number,
            step=step,
            checkpoint=message_list.checkpoint(),
            tools=self._active_tools(step),
            raw=[] if "process_llm_response" in self._hooks else None,
            cached=cached,
            structured=structured,
            objects=ObjectStream() if structured is not None else None,
        )
        attempt.prompt = prompt
        self._attempt = attempt
        return attempt

    async def _start_model(self, attempt: _Attempt) -> Exception | None:
        """Start the model call (or the cached replay, D7) and read its first chunk.

        Returns the error of a call that failed before any chunk.
        """
        step, cached, structured = attempt.step, attempt.cached, attempt.structured
        if cached is not None:  # D7: replay instead of calling the model
            attempt.stream = _replay(cached)
            attempt.request = cached.get("request") or {}
            attempt.warnings = list(cached.get("warnings") or [])
            return None
        options = ModelCallOptions(
            prompt=attempt.prompt,
            tools=[t.definition() for t in attempt.tools.values()],  # type: ignore[misc]
            tool_choice=normalize_tool_choice(step.tool_choice),
            provider_options=step.provider_options,
            settings=step.model_settings,  # type: ignore[arg-type]
            response_format=structured.response_format() if structured is not None else None,
            abort_signal=self.signal,
        )
        try:
            started, attempt.first = await start_with_retries(  # D14: transient errors
                step.model, options, max_retries=self.config.max_retries
            )
        except (_Abort, _Retry, _Tripwire):
            raise
        except Exception as error:
            return error
        attempt.stream = started.stream
        attempt.request, attempt.warnings = started.request, started.warnings
        return None

    def _emit_processed(self, attempt: _Attempt, chunk: Chunk) -> None:
        """The hot path's tail for chunks that took the slow way: store, then queue out."""
        attempt.builder.add(chunk)
        if chunk.type not in _HIDDEN_FROM_CLIENT:
            self.outbox.append(chunk)
        if attempt.objects is not None and chunk.type == "text-delta":
            partial = attempt.objects.feed(chunk.payload.get("text", ""))
            if is_value(partial):
                self.outbox.append(self._chunk("object", {"object": partial}))

    def _step_start(self, attempt: _Attempt) -> Chunk:
        payload = {
            "request": attempt.request,
            "warnings": attempt.warnings,
            "messageId": self.response_id,
        }
        return self._chunk("step-start", payload)

    async def _special_chunk(self, attempt: _Attempt, chunk: Chunk) -> Chunk | None:
        """Model chunks that are not plain content: ``error``, ``finish``, ``tool-result``."""
        kind = chunk.type
        if kind == "error":
            error = chunk.payload.get("error")
            raise error if isinstance(error, BaseException) else APICallError(str(error))
        if kind == "finish":
            self.usage = self.usage + Usage.from_dict(chunk.payload.get("output", {}).get("usage"))
            if not attempt.builder.tool_calls:  # processors see the finish of a final step
                for item in await self.through(chunk):
                    if item.type != "finish":  # what a processor flushes before the end
                        self._emit_processed(attempt, item)
                await self.settle()
            attempt.finish = chunk
            return None
        return await self._provider_tool_result(chunk, attempt.builder)

    async def _model_failed(self, attempt: _Attempt, error: Exception) -> NoReturn:
        """The model call failed: the error lane sees its partial output, then it is rolled
        back (D14); messages an error processor adds stay."""
        self._commit_parts(attempt.builder.finish())
        try:
            await self._api_error(error, attempt.step_number)
        finally:
            self.message_list.rollback(attempt.checkpoint)

    # -- after the model --------------------------------------------------------------------

    async def _after_model(self, attempt: _Attempt) -> StepResult:
        """Store the step, then ``process_llm_response`` and ``process_output_step``."""
        builder = attempt.builder
        parts = builder.finish()
        step_result = self._step_result(attempt)
        self._commit_parts(parts)
        self.steps.append(step_result)  # D6: hooks from here on see the current step
        await self._process_llm_response(
            attempt.step,
            attempt.step_number,
            attempt.raw,
            attempt.cached,
            attempt.request,
            attempt.warnings,
        )
        await self.settle()  # D27: its writer chunks go out before the next stage
        await self._process_output_step(attempt.step, step_result)
        await self.settle()
        if attempt.structured is not None and not step_result.tool_calls:
            self.result.object = self._validate_object(attempt.structured, step_result)
        return step_result

    def _validate_object(self, structured: StructuredOutput, step: StepResult) -> Any:
        """Validate the final answer; a retry with feedback when the budget allows."""
        try:
            return structured.validate(step.text)
        except StructuredOutputError as error:
            if self._can_retry(self.processor_retries):
                raise TripWire(str(error), retry=True, processor_id="structured-output") from None
            raise

    # -- retries and endings ----------------------------------------------------------------

    def _processor_retry(self, tripwire: TripWire[Any]) -> Chunk:
        """D1-D3: retry the step with feedback, or end the run when no retry is left."""
        if not tripwire.retry or not self._can_retry(self.processor_retries):
            raise _Tripwire(tripwire.payload())
        self.processor_retries += 1
        for hook in self._stream_hooks:
            hook.set_retry_count(self.processor_retries)
        feedback = RETRY_FEEDBACK.format(reason=tripwire.reason)
        self.message_list.add_system(feedback, tag=RETRY_FEEDBACK_TAG)
        return self._retry_marker(
            retry_reason=tripwire.reason,
            processor_id=tripwire.processor_id,
            metadata=tripwire.metadata,
        )

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
        attempt = self._attempt
        text = attempt.builder.text if attempt is not None else ""
        finish = attempt.finish if attempt is not None else None
        usage = finish.payload.get("output", {}).get("usage") if finish is not None else None
        return self._chunk(
            "step-finish",
            {
                "messageId": self.response_id,
                "stepResult": step_result,
                "output": {"text": text, "toolCalls": [], "usage": usage or Usage().to_dict()},
                "metadata": {},
                "processorRetryCount": self.processor_retries,
            },
        )

    async def _through_marker(self, marker: Chunk) -> list[Chunk]:
        """The retry marker goes through the output lane like any ``step-finish``."""
        try:
            return await self.through(marker)
        except TripWire as tripwire:
            raise _Tripwire(tripwire.payload()) from None

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

    def _active_tools(self, step: _StepConfig) -> dict[str, Tool]:
        if normalize_tool_choice(step.tool_choice).get("type") == "none":
            return {}
        tools = step.tools
        if step.active_tools is not None:
            allowed = set(step.active_tools)
            tools = {name: t for name, t in tools.items() if name in allowed}
        return tools

    def _step_result(self, attempt: _Attempt) -> StepResult:
        builder = attempt.builder
        payload = attempt.finish.payload if attempt.finish is not None else {}
        return StepResult(
            step_number=attempt.step_number,
            text="".join(builder.text_parts),
            reasoning="".join(builder.reasoning_text),
            tool_calls=builder.tool_calls,
            sources=builder.sources,
            files=builder.files,
            finish_reason=payload.get("stepResult", {}).get("reason", "unknown"),
            usage=Usage.from_dict(payload.get("output", {}).get("usage")),
            warnings=attempt.warnings,
            request=attempt.request,
            response=builder.response,
            provider_metadata=payload.get("providerMetadata"),
            model_id=attempt.step.model.model_id,
        )

    def _commit_parts(self, parts: list[Any]) -> None:
        if parts:
            self._response_message().content.parts.extend(parts)

    def _continues(self, step: StepResult) -> bool:
        """Whether the loop goes on after ``step``: it called tools and steps remain."""
        return (
            bool(step.tool_calls)
            and step.finish_reason == "tool-calls"
            and step.step_number + 1 < self.config.max_steps
        )

    def _step_finish(self, step: StepResult) -> Chunk:
        return self._chunk(
            "step-finish",
            {
                "messageId": self.response_id,
                "stepResult": {
                    "reason": step.finish_reason,
                    "isContinued": self._continues(step),
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


async def _replay(cached: dict[str, Any]) -> AsyncIterator[Chunk]:
    """D7: replay a cached response's raw chunks as a model stream."""
    for item in cached["chunks"]:
        if isinstance(item, Chunk):
            yield item.copy()
        else:
            yield Chunk(item["type"], dict(item.get("payload") or {}))


async def _aclose(stream: AsyncIterator[Chunk] | None) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
