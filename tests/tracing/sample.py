"""A run's spans built by hand, with the names, kinds and attributes the loop emits.

Used by the store and OTLP tests, so they do not depend on the loop: one tool-using run with
a redacting stream processor, a retried first attempt and (optionally) a tripwire at the end.
Times come from a clock that advances 1 µs per call, so the order is fixed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from procession.tracing import attributes as attr

BASE_NS = 1_750_000_000_000_000_000  # 2025-06-15, in nanoseconds since the epoch


@dataclass(frozen=True, slots=True)
class RunSpec:
    """Who ran and how it ended."""

    run_id: str = "run-1"
    agent_id: str = "support"
    resource_id: str | None = "user-1"
    thread_id: str | None = "thread-1"
    tripwire: bool = False
    internal: bool = False
    parent_run_id: str | None = None
    start_ns: int = BASE_NS


class SampleRun:
    """Emits one run through ``tracer``, with its own clock."""

    def __init__(self, tracer: trace.Tracer, spec: RunSpec) -> None:
        self.tracer = tracer
        self.spec = spec
        self._clock = itertools.count(spec.start_ns, 1000)
        self._step_start = spec.start_ns

    @contextmanager
    def span(
        self,
        name: str,
        values: dict[str, Any],
        kind: SpanKind = SpanKind.INTERNAL,
        start: int | None = None,
    ) -> Iterator[Span]:
        started = self.now() if start is None else start
        span = self.tracer.start_span(name, kind=kind, attributes=values, start_time=started)
        with trace.use_span(span, end_on_exit=False):
            yield span
        span.end(end_time=self.now())

    def now(self) -> int:
        return next(self._clock)

    def hook(
        self,
        hook: str,
        processor: str,
        index: int,
        outcome: str,
        event: dict[str, AttributeValue] | None = None,
        **extra: Any,
    ) -> None:
        values = {
            attr.PROCESSOR_ID: processor,
            attr.PROCESSOR_NAME: processor.replace("-", " ").title(),
            attr.PROCESSOR_DESCRIPTION: f"the {processor} processor",
            attr.PROCESSOR_INDEX: index,
            attr.HOOK: hook,
            attr.HOOK_OUTCOME: outcome,
            attr.HOOK_DATA_CHUNKS: extra.pop("data_chunks", 0),
            **{f"procession.hook.{key}": value for key, value in extra.items()},
        }
        start = None
        if hook == "process_output_stream":  # as the loop does: one span over the whole step,
            start = self._step_start - 500  # from a clock read just before the step's span
            values[attr.HOOK_DURATION_NS] = 2500
        with self.span(f"{hook} {processor}", values, start=start) as span:
            if event is not None:
                span.add_event(attr.EVENT_TRIPWIRE, event)

    def chat(self, response_id: str, finish: str, tokens: tuple[int, int]) -> None:
        values = {
            attr.OPERATION_NAME: attr.OPERATION_CHAT,
            attr.PROVIDER_NAME: "scripted",
            attr.REQUEST_MODEL: "scripted-1",
            attr.RESPONSE_MODEL: "scripted-1",
            attr.RESPONSE_ID: response_id,
            attr.RESPONSE_FINISH_REASONS: (finish,),
            attr.USAGE_INPUT_TOKENS: tokens[0],
            attr.USAGE_OUTPUT_TOKENS: tokens[1],
            attr.MODEL_FROM_CACHE: False,
        }
        with self.span("chat scripted-1", values, SpanKind.CLIENT):
            pass

    def tool(self, name: str, call_id: str, *, error: str | None = None) -> None:
        values = {
            attr.OPERATION_NAME: attr.OPERATION_EXECUTE_TOOL,
            attr.TOOL_NAME: name,
            attr.TOOL_CALL_ID: call_id,
            attr.TOOL_TYPE: "function",
        }
        with self.span(f"execute_tool {name}", values) as span:
            if error is not None:
                span.set_status(Status(StatusCode.ERROR, error))

    def step(self, number: int, attempt: int) -> Any:
        values = {attr.STEP_NUMBER: number, attr.STEP_ATTEMPT: attempt}
        self._step_start = next(self._clock)
        return self.span(f"step {number}", values, start=self._step_start)

    def emit(self) -> None:
        spec = self.spec
        values: dict[str, Any] = {
            attr.OPERATION_NAME: attr.OPERATION_INVOKE_AGENT,
            attr.AGENT_ID: spec.agent_id,
            attr.AGENT_NAME: spec.agent_id.title(),
            attr.RUN_ID: spec.run_id,
            attr.RUN_INTERNAL: spec.internal,
        }
        if spec.thread_id is not None:
            values[attr.CONVERSATION_ID] = spec.thread_id
        if spec.resource_id is not None:
            values[attr.RESOURCE_ID] = spec.resource_id
        if spec.parent_run_id is not None:
            values[attr.RUN_PARENT_ID] = spec.parent_run_id
        with self.span(f"invoke_agent {spec.agent_id}", values) as run:
            self._body(run)

    def _body(self, run: Span) -> None:
        self.hook("process_input", "no-secrets", 0, "kept")
        with self.step(0, 0) as first:
            self.chat("resp-1", "stop", (12, 3))
            self.hook(
                "process_output_stream",
                "redactor",
                0,
                "replaced",
                calls=3,
                kept=2,
                replaced=1,
                dropped=0,
            )
            self.hook("process_output_step", "not-too-short", 1, "retry")
            first.add_event(
                attr.EVENT_RETRY,
                {"reason": "Answer in a full sentence.", "processor_id": "not-too-short"},
            )
            first.set_attributes({attr.STEP_OUTCOME: "retry", attr.STEP_FINISH_REASON: "stop"})
        with self.step(0, 1) as second:
            self.chat("resp-2", "tool-calls", (20, 8))
            self.hook(
                "process_output_stream",
                "redactor",
                0,
                "kept",
                calls=4,
                kept=4,
                replaced=0,
                dropped=0,
                data_chunks=1,
            )
            self.hook("process_output_step", "not-too-short", 1, "kept")
            self.tool("lookup_order", "call-1")
            self.tool("refund", "call-2", error="refund failed: no such order")
            self.hook("process_tool_result", "redactor", 0, "replaced")
            second.set_attributes(
                {attr.STEP_OUTCOME: "accepted", attr.STEP_FINISH_REASON: "tool-calls"}
            )
        with self.step(1, 0) as last:
            self.chat("resp-3", "stop", (40, 11))
            self.hook(
                "process_output_stream",
                "redactor",
                0,
                "kept",
                calls=6,
                kept=6,
                replaced=0,
                dropped=0,
            )
            self._last_check(run, last)
        if not self.spec.tripwire:
            self.hook("process_output_result", "audit", 2, "kept")
            run.set_attribute(attr.RUN_OUTCOME, "finish")

    def _last_check(self, run: Span, last: Span) -> None:
        if not self.spec.tripwire:
            self.hook("process_output_step", "not-too-short", 1, "kept")
            last.set_attributes({attr.STEP_OUTCOME: "accepted", attr.STEP_FINISH_REASON: "stop"})
            return
        event: dict[str, AttributeValue] = {
            "reason": "Leaked a secret",
            "processor_id": "not-too-short",
            "retry": False,
        }
        self.hook("process_output_step", "not-too-short", 1, "tripwire", event)
        last.set_attributes({attr.STEP_OUTCOME: "tripwire", attr.STEP_FINISH_REASON: "stop"})
        run.add_event(attr.EVENT_TRIPWIRE, event)
        run.set_attribute(attr.RUN_OUTCOME, "tripwire")
