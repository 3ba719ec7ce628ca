"""Typed protocols documenting each hook's full signature (D19).

A processor does not need to inherit from these; they document what each hook may declare
and return. A hook may declare any subset of these keyword arguments, plus ``**_``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeAlias, TypedDict

if TYPE_CHECKING:
    from procession.chunks import Chunk, Usage
    from procession.context import RequestContext, TracingContext
    from procession.messages.message import Message, SystemMessage
    from procession.messages.message_list import MessageList
    from procession.models.base import LanguageModel
    from procession.results import AgentResult, StepResult, ToolCallInfo
    from procession.signals import AbortSignal

__all__ = [
    "Abort",
    "ProcessAPIError",
    "ProcessAPIErrorResult",
    "ProcessInput",
    "ProcessInputStep",
    "ProcessInputStepResult",
    "ProcessLLMRequest",
    "ProcessLLMRequestResult",
    "ProcessLLMResponse",
    "ProcessOutputResult",
    "ProcessOutputStep",
    "ProcessOutputStream",
    "ProcessToolResult",
    "ProcessorMessageResult",
    "Writer",
]

State: TypeAlias = dict[str, Any]


class Abort(Protocol):
    """The ``abort`` every hook may declare: stop the run, or ask for a retry. It never returns.

    ``abort(reason=None, *, retry=False, metadata=None)`` raises ``TripWire``; a hook that
    catches it still aborts (D29). Options are keywords: the TypeScript form
    ``abort("reason", {"retry": True})`` is refused (a type error here, a ``ProcessorError``
    showing the Python form at run time)::

        def process_output_step(self, *, text: str, abort: Abort, **_: Any) -> None:
            if not text:
                abort("Say something.", retry=True)
    """

    def __call__(
        self, reason: str | None = None, /, *, retry: bool = False, metadata: Any = None
    ) -> NoReturn:
        """Abort with ``reason``; ``retry=True`` re-runs the step with it as feedback (D1)."""
        ...


class Writer(Protocol):
    """``writer.custom(chunk)`` emits a ``data-*`` chunk (D27)."""

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Enqueue a data chunk at once; the result may be awaited."""
        ...


class ProcessInputStepResult(TypedDict, total=False):
    """Step overrides ``process_input_step`` may return (each replaces, D16)."""

    model: LanguageModel | str
    tool_choice: Any
    active_tools: list[str]
    tools: Any
    messages: list[Message]
    message_list: MessageList
    system_messages: list[SystemMessage | str]
    provider_options: dict[str, Any]
    model_settings: dict[str, Any]
    structured_output: Any


class ProcessLLMRequestResult(TypedDict, total=False):
    """``{"prompt": ...}`` replaces this call's prompt; ``{"response": ...}`` replays (D7)."""

    prompt: list[dict[str, Any]]
    response: dict[str, Any]


class ProcessAPIErrorResult(TypedDict, total=False):
    """``{"retry": True}`` asks for the step to run again (D14)."""

    retry: bool


ProcessorMessageResult: TypeAlias = "list[Message] | MessageList | None"
"""What ``process_output_step``, ``process_tool_result`` and ``process_output_result`` return;
``None`` and ``[]`` mean no change (D16)."""


class ProcessInput(Protocol):
    """``process_input``: once, before the loop."""

    def __call__(
        self,
        *,
        messages: list[Message],
        system_messages: list[SystemMessage],
        message_list: MessageList,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessInputStep(Protocol):
    """``process_input_step``: before every model call."""

    def __call__(
        self,
        *,
        messages: list[Message],
        message_list: MessageList,
        step_number: int,
        steps: list[StepResult],
        system_messages: list[SystemMessage],
        model: LanguageModel,
        tool_choice: dict[str, Any],
        active_tools: list[str] | None,
        tools: dict[str, Any],
        provider_options: dict[str, Any],
        model_settings: dict[str, Any],
        structured_output: Any,
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessLLMRequest(Protocol):
    """``process_llm_request``: the provider prompt, before the call."""

    def __call__(
        self,
        *,
        prompt: list[dict[str, Any]],
        model: LanguageModel,
        message_list: MessageList,
        step_number: int,
        steps: list[StepResult],
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessLLMResponse(Protocol):
    """``process_llm_response``: the step's raw chunks, after the stream (D7)."""

    def __call__(
        self,
        *,
        chunks: list[Chunk],
        model: LanguageModel,
        message_list: MessageList,
        step_number: int,
        steps: list[StepResult],
        from_cache: bool,
        warnings: list[dict[str, Any]],
        request: dict[str, Any],
        raw_response: Any,
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessAPIError(Protocol):
    """``process_api_error``: a rejected model call (error lane only)."""

    def __call__(
        self,
        *,
        error: BaseException,
        messages: list[Message],
        message_list: MessageList,
        step_number: int,
        steps: list[StepResult],
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessOutputStream(Protocol):
    """``process_output_stream``: every chunk; return it, a replacement, or ``None``."""

    def __call__(
        self,
        *,
        part: Chunk,
        stream_parts: list[Chunk],
        message_list: MessageList,
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessOutputStep(Protocol):
    """``process_output_step``: after each model response, before tools."""

    def __call__(
        self,
        *,
        messages: list[Message],
        message_list: MessageList,
        step_number: int,
        finish_reason: str,
        provider_metadata: dict[str, Any] | None,
        tool_calls: list[ToolCallInfo],
        text: str,
        usage: Usage,
        system_messages: list[SystemMessage],
        steps: list[StepResult],
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessToolResult(Protocol):
    """``process_tool_result``: each tool's result, before it is committed."""

    def __call__(
        self,
        *,
        messages: list[Message],
        message_list: MessageList,
        step_number: int,
        steps: list[StepResult],
        tool_name: str,
        tool_call_id: str,
        args: Any,
        result: Any,
        provider_executed: bool | None,
        system_messages: list[SystemMessage],
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...


class ProcessOutputResult(Protocol):
    """``process_output_result``: once, after the loop."""

    def __call__(
        self,
        *,
        messages: list[Message],
        message_list: MessageList,
        result: AgentResult,
        writer: Writer,
        abort: Abort,
        retry_count: int,
        state: State,
        tracing_context: TracingContext,
        request_context: RequestContext,
        abort_signal: AbortSignal | None,
    ) -> Any:
        """The hook's full signature; a hook declares any subset of these keywords."""
        ...
