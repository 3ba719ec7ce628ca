"""The run's OpenTelemetry spans, with the GenAI semantic conventions (``docs/tracing.md``).

::

    invoke_agent {agent}                     the run
      step {n}                               each attempt at a step (retries are attempts)
        {hook} {processor}                   each hook call; process_output_stream: one span
                                             per processor per step, with counts
        chat {model}                         the model call
        execute_tool {tool}                  each tool call

Only the OpenTelemetry API is used; exporters are the user's choice. Without a tracer provider
configured (the API's default proxy, or the no-op provider) :func:`start_run_trace` returns
``None`` and the loop does no tracing work at all. Nothing here runs per chunk unless tracing
is on, and then a stream hook's counts are kept by a wrapper around its bound caller.

Spans hold no content by default: an error's span status and the ``error.type`` attribute
name the error's type, never its message (a tool's error text, a provider's response, a
processor's message may quote what the output lane hid from the client). Content is recorded
only when a user opts in, as the OpenTelemetry GenAI conventions treat message content:
``configure_tracing(capture_content=True)``, :func:`capture_content`, or
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.trace import Span, Tracer

    from procession._engine.observers import HookEnded
    from procession._engine.runner import Hook, StreamHook
    from procession._engine.state import Attempt, RunState
    from procession.chunks import Chunk
    from procession.results import StepResult, ToolCallInfo

__all__ = [
    "CONTENT_VARIABLE",
    "HookCounts",
    "RunTrace",
    "capture_content",
    "capturing_content",
    "start_run_trace",
    "use_tracer_provider",
]

CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The OpenTelemetry GenAI environment variable that opts in to recording content."""

_capture: bool | None = None


def capture_content(enabled: object) -> None:
    """Record content (error messages) on spans: ``True`` opts in, ``False`` opts out,
    ``None`` follows ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (off unless
    ``true``)."""
    global _capture
    if enabled is not None and not isinstance(enabled, bool):
        from procession.errors import ConfigurationError

        raise ConfigurationError(f"capture_content: expected True, False or None (got {enabled!r})")
    _capture = enabled if isinstance(enabled, bool) else None


def capturing_content() -> bool:
    """Whether spans record content now (see :func:`capture_content`)."""
    if _capture is not None:
        return _capture
    return os.environ.get(CONTENT_VARIABLE, "").strip().lower() == "true"


def _fail(span: Span, kind: str, message: str, error: BaseException | None = None) -> None:
    """Mark ``span`` failed: the error's type always, its message only with content capture."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", kind)
    if capturing_content():
        if error is not None:
            span.record_exception(error)
        span.set_status(Status(StatusCode.ERROR, message))
    else:
        span.set_status(Status(StatusCode.ERROR, kind))


_provider: Any = None
"""A tracer provider procession uses instead of OpenTelemetry's global one, if set."""


def use_tracer_provider(provider: Any) -> None:
    """Trace runs with ``provider`` (an OpenTelemetry ``TracerProvider``) instead of the global
    one; ``None`` goes back to the global provider. Useful in tests and when an application
    keeps several providers."""
    global _provider
    _provider = provider


INTERNAL_KEY = "procession.internal"
"""The request-context key of an internal run's mark (``procession.processors`` sets it)."""


_ENV_PROVIDER: list[bool] = []
"""Whether ``OTEL_PYTHON_TRACER_PROVIDER`` names a provider (the API would load it), read once."""


def _env_names() -> bool:
    if not _ENV_PROVIDER:
        _ENV_PROVIDER.append("OTEL_PYTHON_TRACER_PROVIDER" in os.environ)
    return _ENV_PROVIDER[0]


_get_provider: Callable[[], Any] | None = None
_OFF: tuple[type, ...] = ()
"""The providers that mean "not configured" (read from the API by the first run)."""


def start_run_trace(state: RunState, agent_name: str) -> RunTrace | None:
    """The run's trace, or ``None`` when no tracer provider is configured."""
    global _get_provider, _OFF
    if _get_provider is None:  # not imported by ``import procession``: by the first run
        if _provider is None and "opentelemetry.trace" not in sys.modules and not _env_names():
            return None  # nothing imported the API, so nothing set a provider: don't load it
        from opentelemetry import trace

        _get_provider = trace.get_tracer_provider
        _OFF = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
    provider = _provider if _provider is not None else _get_provider()
    if isinstance(provider, _OFF):
        return None
    return RunTrace(provider.get_tracer("procession"), state, agent_name)


class HookCounts:
    """What one stream hook did during a step (kept, replaced, dropped chunks; its time)."""

    __slots__ = ("calls", "data", "dropped", "kept", "nanos", "replaced")

    def __init__(self) -> None:
        self.calls = self.kept = self.replaced = self.dropped = self.nanos = self.data = 0

    def reset(self) -> None:
        """Start counting a new step."""
        self.calls = self.kept = self.replaced = self.dropped = self.nanos = self.data = 0

    def count(self, given: Chunk, returned: object, started: int, written: int) -> None:
        """Record one call that took ``given``, returned ``returned`` and wrote ``written``
        data chunks."""
        self.nanos += time.perf_counter_ns() - started
        self.calls += 1
        self.data += written
        if returned is given:
            self.kept += 1
        elif returned is None:
            self.dropped += 1
        else:
            self.replaced += 1


class RunTrace:
    """The spans of one run: a run observer (``procession._engine.observers.RunObserver``),
    wired when the run starts if a tracer provider is configured."""

    __slots__ = (
        "_context",
        "counts",
        "model",
        "run",
        "state",
        "step",
        "step_start_ns",
        "stream_hooks",
        "tracer",
    )

    def __init__(self, tracer: Tracer, state: RunState, agent_name: str) -> None:
        from opentelemetry import trace

        self.tracer = tracer
        self.state = state
        self._context = trace.set_span_in_context
        context = state.request_context
        internal = context.get(INTERNAL_KEY)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.id": state.agent_id,
            "gen_ai.agent.name": agent_name,
            "procession.run.id": state.run_id,
            "procession.run.internal": internal is not None,
        }
        if context.thread_id:
            attributes["gen_ai.conversation.id"] = context.thread_id
        if context.resource_id:
            attributes["procession.resource.id"] = context.resource_id
        parent = getattr(internal, "parent_run_id", None)
        if parent:
            attributes["procession.run.parent_id"] = parent
        self.run: Span = tracer.start_span(f"invoke_agent {state.agent_id}", attributes=attributes)
        self.step: Span | None = None
        self.model: Span | None = None
        self.step_start_ns = 0
        self.counts: dict[int, HookCounts] = {}
        self.stream_hooks: list[StreamHook] = []
        state.tracing.span = self.run
        state.tracing.tracer = tracer

    def _child(self, name: str, attributes: dict[str, Any], kind: Any = None) -> Span:
        parent = self.step if self.step is not None else self.run
        if kind is None:
            return self.tracer.start_span(name, self._context(parent), attributes=attributes)
        return self.tracer.start_span(name, self._context(parent), kind, attributes)

    # -- steps ---------------------------------------------------------------------------------

    def step_started(self, attempt: Attempt, retries: int) -> None:
        """A step's attempt starts (retried attempts get their own span)."""
        self.step_start_ns = started = time.time_ns()
        self.step = self.tracer.start_span(
            f"step {attempt.step_number}",
            self._context(self.run),
            start_time=started,  # the step's stream-hook spans start here too
            attributes={
                "procession.step.number": attempt.step_number,
                "procession.step.attempt": retries,
            },
        )
        self.state.tracing.span = self.step

    def step_ended(self, name: str, result: StepResult | None) -> None:
        """The attempt ended: accepted, or how it was stopped."""
        step = self.step
        if step is None:
            return
        self._stream_spans(step)
        step.set_attribute("procession.step.outcome", name)
        if result is not None:
            step.set_attribute("procession.step.finish_reason", result.finish_reason)
        step.end()
        self.step = None
        self.state.tracing.span = self.run

    # -- hooks ---------------------------------------------------------------------------------

    def hook_started(self, hook: Hook) -> Span:
        """A (non-stream) hook is called: its span, current for ``tracing_context``."""
        span = self._child(f"{hook.name} {hook.processor_id}", _hook_attributes(hook))
        self.state.tracing.span = span
        return span

    def hook_ended(self, hook: Hook, span: Span, ended: HookEnded) -> None:
        """The hook returned (``kept``, ``replaced``), stopped the run (with the tripwire's
        event on its span), or failed (the error's type; its message only as content)."""
        if ended.tripwire is not None:
            span.add_event("procession.tripwire", _event(ended.tripwire))
        span.set_attribute("procession.hook.outcome", ended.outcome)
        span.set_attribute("procession.hook.data_chunks", ended.data_chunks)
        error = ended.error
        if error is not None:
            _fail(span, type(error).__name__ or "ProcessorError", str(error))
        span.end()
        self.state.tracing.span = self.step if self.step is not None else self.run

    def watch(self, hooks: Sequence[StreamHook]) -> None:
        """Count what the run's stream hooks do, for their per-step spans."""
        self.stream_hooks = list(hooks)
        for hook in hooks:
            hook.wrap(self.count_stream)

    def count_stream(
        self, hook: StreamHook, call: Callable[[Chunk], Any]
    ) -> Callable[[Chunk], Any]:
        """Wrap a stream hook's bound caller so its step span can report counts."""
        counts = self.counts.setdefault(id(hook), HookCounts())
        emitter = self.state.emitter
        if hook.is_async:

            async def counted_async(part: Chunk) -> Any:
                started, writes = time.perf_counter_ns(), emitter.writes
                out = await call(part)
                counts.count(part, out, started, emitter.writes - writes)
                return out

            return counted_async

        def counted(part: Chunk) -> Any:
            started, writes = time.perf_counter_ns(), emitter.writes
            out = call(part)
            counts.count(part, out, started, emitter.writes - writes)
            return out

        return counted

    def _stream_spans(self, step: Span) -> None:
        """One span per stream processor for the step that ends, with its counts."""
        for hook in self.stream_hooks:
            counts = self.counts.get(id(hook))
            if counts is None or counts.calls == 0:
                continue
            attributes = _hook_attributes(hook)
            attributes.update(
                {
                    "procession.hook.calls": counts.calls,
                    "procession.hook.kept": counts.kept,
                    "procession.hook.replaced": counts.replaced,
                    "procession.hook.dropped": counts.dropped,
                    "procession.hook.data_chunks": counts.data,
                    "procession.hook.outcome": _stream_outcome(counts),
                    "procession.hook.duration_ns": counts.nanos,
                }
            )
            span = self.tracer.start_span(
                f"process_output_stream {hook.processor_id}",
                self._context(step),
                attributes=attributes,
                start_time=self.step_start_ns,
            )
            span.end()
            counts.reset()

    # -- model and tools -----------------------------------------------------------------------

    def model_started(self, attempt: Attempt) -> None:
        """The model call starts (or a cached response is replayed, D7)."""
        from opentelemetry.trace import SpanKind

        model = attempt.step.model
        self.model = self._child(
            f"chat {model.model_id}",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": model.provider,
                "gen_ai.request.model": model.model_id,
                "procession.model.from_cache": attempt.cached is not None,
            },
            SpanKind.CLIENT,
        )

    def model_ended(self, result: StepResult | None, error: BaseException | None) -> None:
        """The model's stream ended (with the step's result), or the call failed."""
        span = self.model
        if span is None:
            return
        if result is not None:
            response = result.response
            span.set_attribute("gen_ai.response.finish_reasons", [result.finish_reason])
            if response.get("id"):
                span.set_attribute("gen_ai.response.id", str(response["id"]))
            if response.get("modelId"):
                span.set_attribute("gen_ai.response.model", str(response["modelId"]))
            usage = result.usage
            if usage.input_tokens is not None:
                span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
            if usage.output_tokens is not None:
                span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        if error is not None:
            _fail(span, type(error).__name__, str(error), error)
        span.end()
        self.model = None

    def tool_started(self, call: ToolCallInfo) -> Span:
        """A tool starts running."""
        return self._child(
            f"execute_tool {call.tool_name}",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call.tool_name,
                "gen_ai.tool.call.id": call.tool_call_id,
                "gen_ai.tool.type": "function",
            },
        )

    # -- events and the end --------------------------------------------------------------------

    def retried(self, reason: str, processor_id: str | None) -> None:
        """The step will be retried (D1): an event on the step's span."""
        target = self.step if self.step is not None else self.run
        target.add_event("procession.retry", {"reason": reason, "processor_id": processor_id or ""})

    def run_ended(self, name: str, error: BaseException | None, tripwire: Any) -> None:
        """The run ended; a processor that blocked it (D12) is an event on the run's span."""
        if tripwire is not None:
            self.run.add_event("procession.tripwire", _event(tripwire))
        if self.step is not None:
            self.step_ended(name, None)
        if self.model is not None:
            self.model_ended(None, error)
        self.run.set_attribute("procession.run.outcome", name)
        if error is not None:
            _fail(self.run, type(error).__name__, str(error))
        self.run.end()

    def tool_ended(self, span: Span, failure: Any) -> None:
        """The tool returned, or raised (``failure``: its error text, content)."""
        if failure is not None:
            _fail(span, "tool_error", str(failure))
        span.end()


def _stream_outcome(counts: HookCounts) -> str:
    if counts.replaced:
        return "replaced"
    return "dropped" if counts.dropped else "kept"


def _hook_attributes(hook: Hook) -> dict[str, Any]:
    processor = hook.processor
    attributes: dict[str, Any] = {
        "procession.processor.id": hook.processor_id,
        "procession.processor.name": str(getattr(processor, "name", None) or hook.processor_id),
        "procession.processor.index": hook.index,
        "procession.hook": hook.name,
    }
    description = getattr(processor, "description", None)
    if isinstance(description, str):
        attributes["procession.processor.description"] = description
    return attributes


def _event(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "reason": str(payload.get("reason", "")),
        "processor_id": str(payload.get("processorId") or ""),
        "retry": bool(payload.get("retry")),
    }
