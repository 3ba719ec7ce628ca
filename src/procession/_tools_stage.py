"""Running a step's tools and ``process_tool_result`` (D1, D27).

Tools of one step run concurrently in a task group; their ``writer`` chunks stream while they
run. Results go through ``process_tool_result`` in tool-call order, are committed to the
message list, and leave as ``tool-result`` (or ``tool-error``) chunks through the output lane.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from procession._hooks import _Abort
from procession._stages import Stages
from procession._step import StepBuilder
from procession.chunks import Chunk
from procession.messages.parts import ToolInvocationPart
from procession.results import StepResult, ToolResultInfo
from procession.tools._tool import Tool, ToolContext, ToolWriter


class ToolStage(Stages):
    """Tool execution and the tool-result hooks."""

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

    async def _run_tools(
        self, step: StepResult, tools: dict[str, Tool], execution_args: dict[str, Any]
    ) -> AsyncIterator[Chunk]:
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
                writer=ToolWriter(self.writer.custom),
                request_context=self.request_context,
                abort_signal=self.signal,
                messages=self.message_list.get.all.db(),
            )
            try:
                args = execution_args.get(call.tool_call_id, call.args)
                outcomes[index] = (True, await tool.execute(args, context))
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
            await self.settle()  # D27: writer chunks of process_tool_result go out first
            processed = await self.through(chunk_out)
            await self.settle()
            while self.outbox:
                yield self.outbox.popleft()
            for item in processed:
                yield item

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
