"""Finished spans to table rows and back: the part of the trace store both backends share.

A row is a plain tuple in :data:`COLUMNS` order, built on the span processor's worker thread
(never on the loop's hot path). The run columns (``run_id`` to ``parent_run_id``) are filled
only for a run span (one carrying ``procession.run.id``) so runs can be listed from an index.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from procession.tracing import attributes as attr
from procession.tracing.records import (
    RunSummary,
    RunTimeline,
    SpanEvent,
    SpanRecord,
    TimelineEntry,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = [
    "COLUMNS",
    "RUN_COLUMNS",
    "RUN_INDEXES",
    "Row",
    "SPAN_COLUMNS",
    "run_summary",
    "span_record",
    "span_row",
    "storable",
    "timeline",
]

Row = tuple[Any, ...]

SPAN_COLUMNS: tuple[str, ...] = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start_ns",
    "end_ns",
    "status",
    "status_message",
    "attributes",
    "events",
    "scope",
    "service",
)
"""The columns :func:`span_record` reads, in order."""

RUN_COLUMNS: tuple[str, ...] = (
    "run_id",
    "trace_id",
    "span_id",
    "agent_id",
    "agent_name",
    "resource_id",
    "thread_id",
    "outcome",
    "internal",
    "parent_run_id",
    "start_ns",
    "end_ns",
    "status",
)
"""The columns :func:`run_summary` reads, in order."""

COLUMNS: tuple[str, ...] = (
    *SPAN_COLUMNS,
    "run_id",
    "agent_id",
    "agent_name",
    "resource_id",
    "thread_id",
    "outcome",
    "internal",
    "parent_run_id",
)
"""Every column of the ``spans`` table, in the order of :func:`span_row`'s tuple."""

RUN_INDEXES = """
CREATE INDEX spans_runs_by_start ON spans (start_ns) WHERE run_id IS NOT NULL;
CREATE INDEX spans_runs_by_id ON spans (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX spans_runs_by_agent ON spans (agent_id, start_ns) WHERE run_id IS NOT NULL;
CREATE INDEX spans_runs_by_resource ON spans (resource_id, start_ns) WHERE run_id IS NOT NULL;
CREATE INDEX spans_runs_by_thread ON spans (thread_id, start_ns) WHERE run_id IS NOT NULL;
"""
"""The partial indexes over run spans that :meth:`TraceStore.list_runs` reads (both backends
share this SQL); part of migration 1, so never edit it."""


def storable(text: str) -> str:
    """``text`` as both backends can store it: NUL (which PostgreSQL's ``text`` and ``jsonb``
    refuse) becomes U+FFFD and a lone surrogate (which no UTF-8 driver can send) ``?``, so one
    odd attribute never costs a whole batch."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _plain(value: Any) -> Any:
    """An attribute value JSON and both backends accept: storable strings, non-finite floats
    as strings (JSON and ``jsonb`` refuse them), sequences as lists."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _object(values: Mapping[str, Any] | None) -> dict[str, Any]:
    return {storable(str(key)): _plain(value) for key, value in (values or {}).items()}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _text(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    return None if value is None else storable(str(value))


def _optional(text: str | None) -> str | None:
    return None if text is None else storable(text)


def span_row(span: ReadableSpan) -> Row:
    """The ``spans`` row of one finished span, in :data:`COLUMNS` order."""
    context = span.get_span_context()
    if context is None:
        raise ValueError(f"span {span.name!r} has no span context")
    parent = span.parent
    values: Mapping[str, Any] = span.attributes or {}
    events = [
        {"name": storable(e.name), "time_ns": e.timestamp, "attributes": _object(e.attributes)}
        for e in span.events
    ]
    service = span.resource.attributes.get("service.name") if span.resource else None
    run_id = _text(values, attr.RUN_ID)
    run = run_id is not None
    return (
        f"{context.trace_id:032x}",
        f"{context.span_id:016x}",
        None if parent is None else f"{parent.span_id:016x}",
        storable(span.name),
        span.kind.name,
        span.start_time or 0,
        span.end_time or span.start_time or 0,
        span.status.status_code.name,
        _optional(span.status.description),
        _json(_object(values)),
        _json(events),
        _optional(span.instrumentation_scope.name if span.instrumentation_scope else None),
        None if service is None else storable(str(service)),
        run_id,
        _text(values, attr.AGENT_ID) if run else None,
        _text(values, attr.AGENT_NAME) if run else None,
        _text(values, attr.RESOURCE_ID) if run else None,
        _text(values, attr.CONVERSATION_ID) if run else None,
        _text(values, attr.RUN_OUTCOME) if run else None,
        bool(values.get(attr.RUN_INTERNAL)) if run else None,
        _text(values, attr.RUN_PARENT_ID) if run else None,
    )


def _decode(value: str | None) -> dict[str, Any]:
    return {} if not value else dict(json.loads(value))


def span_record(row: Sequence[Any]) -> SpanRecord:
    """A :class:`SpanRecord` from a row of :data:`SPAN_COLUMNS`."""
    events = tuple(
        SpanEvent(e["name"], int(e["time_ns"]), e.get("attributes") or {})
        for e in json.loads(row[10] or "[]")
    )
    return SpanRecord(
        trace_id=row[0],
        span_id=row[1],
        parent_span_id=row[2],
        name=row[3],
        kind=row[4],
        start_ns=int(row[5]),
        end_ns=int(row[6]),
        status=row[7],
        status_message=row[8],
        attributes=_decode(row[9]),
        events=events,
        scope=row[11],
        service=row[12],
    )


def run_summary(row: Sequence[Any]) -> RunSummary:
    """A :class:`RunSummary` from a row of :data:`RUN_COLUMNS`."""
    return RunSummary(
        run_id=row[0],
        trace_id=row[1],
        span_id=row[2],
        agent_id=row[3],
        agent_name=row[4],
        resource_id=row[5],
        thread_id=row[6],
        outcome=row[7],
        internal=bool(row[8]),
        parent_run_id=row[9],
        start_ns=int(row[10]),
        end_ns=int(row[11]),
        status=row[12],
    )


def timeline(run: RunSummary, spans: Iterable[SpanRecord]) -> RunTimeline:
    """The run span and everything under it, depth first: each span is followed by its
    children in start order (a child may start a little before its parent, as the loop's
    per-step stream hook spans do, and still comes after it)."""
    children: dict[str | None, list[SpanRecord]] = defaultdict(list)
    root: SpanRecord | None = None
    for span in spans:
        if span.span_id == run.span_id:
            root = span
        else:
            children[span.parent_span_id].append(span)
    if root is None:
        return RunTimeline(run, ())
    entries: list[TimelineEntry] = []
    pending = [(root, 0)]
    while pending:
        span, depth = pending.pop()
        entries.append(TimelineEntry(span, depth, (span.start_ns - root.start_ns) / 1e6))
        below = sorted(children.get(span.span_id, ()), key=_order, reverse=True)
        pending.extend((child, depth + 1) for child in below)
    return RunTimeline(run, tuple(entries))


def _order(span: SpanRecord) -> tuple[int, int, str]:
    return (span.start_ns, span.end_ns, span.span_id)
