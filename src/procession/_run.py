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
from typing import Any

from procession._hooks import (
    _HIDDEN_FROM_CLIENT,
    RETRY_FEEDBACK,
    RETRY_FEEDBACK_TAG,
    RunConfig,
    _Abort,
    _Retry,
    _StepConfig,
    _Tripwire,
)
from procession._step import StepBuilder
from procession._tools_stage import ToolStage
from procession.chunks import Chunk, Usage
from procession.errors import (
    APICallError,
    ConfigurationError,
    MessageError,
    ProcessorError,
    TripWire,
)
from procession.messages.formats import to_prompt
from procession.messages.parts import StepStartPart
from procession.models.base import ModelCallOptions
from procession.models.retry import start_with_retries
from procession.results import StepResult
from procession.tools._tool import Tool

__all__ = ["Run", "RunConfig"]


class Run(ToolStage):
    """One ``generate()``/``stream()`` call: the loop."""

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
        first: Chunk | None = None
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
                started, first = await start_with_retries(  # D14: transient errors
                    step.model, options, max_retries=self.config.max_retries
                )
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
            async for chunk in self._model_chunks(first, stream, builder, raw):
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
        self,
        first: Chunk | None,
        stream: AsyncIterator[Chunk],
        builder: StepBuilder,
        raw: list[dict[str, Any]] | None,
    ) -> AsyncIterator[Chunk]:
        """The hot path: every model chunk through the output lane, into the step, out.

        ``first`` is the chunk the retry layer already read (``None`` when it read none).
        """
        run_id = self.run_id
        hooks = self._stream_hooks
        signal = self.signal
        add = builder.add
        hidden = _HIDDEN_FROM_CLIENT
        next_chunk = stream.__anext__
        try:
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


async def _replay(cached: dict[str, Any]) -> AsyncIterator[Chunk]:
    """D7: replay a cached response's raw chunks as a model stream."""
    for item in cached["chunks"]:
        if isinstance(item, Chunk):
            yield item.copy()
        else:
            yield Chunk(item["type"], dict(item.get("payload") or {}))
