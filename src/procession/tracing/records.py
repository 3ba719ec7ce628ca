"""What the trace store's read API returns: spans, runs, and a run's timeline.

Plain frozen dataclasses built from stored rows; no OpenTelemetry import is needed to use them.
Times are nanoseconds since the epoch (as OpenTelemetry records them), with ``datetime`` and
millisecond views for display.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from procession.tracing import attributes as attr

__all__ = ["HookCall", "RunSummary", "RunTimeline", "SpanEvent", "SpanRecord", "TimelineEntry"]


def _datetime(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC)


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """An event recorded on a span (``procession.tripwire``, ``procession.retry``, ...)."""

    name: str
    time_ns: int
    attributes: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One finished span as the store holds it.

    ``trace_id`` and ``span_id`` are lower-case hex (32 and 16 digits), as OTLP backends show
    them; ``kind`` is ``INTERNAL``, ``CLIENT``, ...; ``status`` is ``UNSET``, ``OK`` or
    ``ERROR``; ``service`` is the resource's ``service.name``; ``scope`` the tracer's name.
    """

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    status: str
    status_message: str | None
    attributes: Mapping[str, Any]
    events: tuple[SpanEvent, ...]
    scope: str | None
    service: str | None

    @property
    def start(self) -> datetime:
        """When the span started (UTC)."""
        return _datetime(self.start_ns)

    @property
    def end(self) -> datetime:
        """When the span ended (UTC)."""
        return _datetime(self.end_ns)

    @property
    def duration_ms(self) -> float:
        """How long the span lasted, in milliseconds."""
        return (self.end_ns - self.start_ns) / 1e6

    def event(self, name: str) -> SpanEvent | None:
        """The first event called ``name``, or ``None``."""
        return next((e for e in self.events if e.name == name), None)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One agent run: the ``invoke_agent`` span's identity and outcome, for a list of runs."""

    run_id: str
    trace_id: str
    span_id: str
    agent_id: str | None
    agent_name: str | None
    resource_id: str | None
    thread_id: str | None
    outcome: str | None
    internal: bool
    parent_run_id: str | None
    start_ns: int
    end_ns: int
    status: str

    @property
    def start(self) -> datetime:
        """When the run started (UTC)."""
        return _datetime(self.start_ns)

    @property
    def duration_ms(self) -> float:
        """How long the run lasted, in milliseconds."""
        return (self.end_ns - self.start_ns) / 1e6


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """A span of a run's timeline: its depth under the run span (the run is 0) and when it
    started, in milliseconds after the run started."""

    span: SpanRecord
    depth: int
    offset_ms: float


@dataclass(frozen=True, slots=True)
class HookCall:
    """A processor hook span read back: who ran, what it decided, how long it took.

    For ``process_output_stream`` one span covers every chunk of a step, so ``calls``,
    ``kept``, ``replaced`` and ``dropped`` count chunks (``None`` for other hooks), and
    ``duration_ms`` is the time spent inside the hook over the step, not the span's length.
    ``step_number`` and ``attempt`` come from the enclosing step span (``None`` outside a
    step, as for ``process_input``); ``run_id`` is the nearest enclosing run's.
    """

    processor_id: str
    processor_name: str | None
    processor_index: int | None
    hook: str
    outcome: str | None
    data_chunks: int
    calls: int | None
    kept: int | None
    replaced: int | None
    dropped: int | None
    step_number: int | None
    attempt: int | None
    run_id: str | None
    offset_ms: float
    duration_ms: float
    span: SpanRecord


@dataclass(frozen=True, slots=True)
class RunTimeline:
    """A run's spans as a tree, depth first: the run span, then each step followed by its
    hooks, model and tool calls, each span with its depth (children in start order)."""

    run: RunSummary
    entries: tuple[TimelineEntry, ...]

    @property
    def spans(self) -> list[SpanRecord]:
        """The spans alone, in timeline order."""
        return [entry.span for entry in self.entries]

    def hook_calls(self) -> list[HookCall]:
        """Every processor hook span of the timeline, in timeline order."""
        by_id = {entry.span.span_id: entry.span for entry in self.entries}
        return [
            _hook_call(entry, by_id) for entry in self.entries if attr.HOOK in entry.span.attributes
        ]


def _ancestor(span: SpanRecord, by_id: Mapping[str, SpanRecord], key: str) -> SpanRecord | None:
    """The nearest ancestor of ``span`` that has attribute ``key``."""
    parent = by_id.get(span.parent_span_id) if span.parent_span_id else None
    while parent is not None and key not in parent.attributes:
        parent = by_id.get(parent.parent_span_id) if parent.parent_span_id else None
    return parent


def _int(values: Mapping[str, Any], key: str) -> int | None:
    value = values.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value if isinstance(value, str) else None


def _busy_ms(values: Mapping[str, Any], span: SpanRecord) -> float:
    busy = _int(values, attr.HOOK_DURATION_NS)
    return span.duration_ms if busy is None else busy / 1e6


def _hook_call(entry: TimelineEntry, by_id: Mapping[str, SpanRecord]) -> HookCall:
    span = entry.span
    values = span.attributes
    step = _ancestor(span, by_id, attr.STEP_NUMBER)
    run = _ancestor(span, by_id, attr.RUN_ID)
    return HookCall(
        processor_id=_str(values, attr.PROCESSOR_ID) or "",
        processor_name=_str(values, attr.PROCESSOR_NAME),
        processor_index=_int(values, attr.PROCESSOR_INDEX),
        hook=_str(values, attr.HOOK) or "",
        outcome=_str(values, attr.HOOK_OUTCOME),
        data_chunks=_int(values, attr.HOOK_DATA_CHUNKS) or 0,
        calls=_int(values, attr.HOOK_CALLS),
        kept=_int(values, attr.HOOK_KEPT),
        replaced=_int(values, attr.HOOK_REPLACED),
        dropped=_int(values, attr.HOOK_DROPPED),
        step_number=None if step is None else _int(step.attributes, attr.STEP_NUMBER),
        attempt=None if step is None else _int(step.attributes, attr.STEP_ATTEMPT),
        run_id=None if run is None else _str(run.attributes, attr.RUN_ID),
        offset_ms=entry.offset_ms,
        duration_ms=_busy_ms(values, span),
        span=span,
    )
