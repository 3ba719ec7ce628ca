"""Exported spans as an indented tree of lines, for exact comparisons in tests.

Each line is the span's name and the attributes that say what happened, then its events; a
span's children follow it, in start order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

from procession.tracing import attributes as attr

SHOWN = (
    (attr.STEP_ATTEMPT, "attempt"),
    (attr.STEP_OUTCOME, "outcome"),
    (attr.STEP_FINISH_REASON, "finish"),
    (attr.HOOK_OUTCOME, "outcome"),
    (attr.HOOK_CALLS, "calls"),
    (attr.HOOK_KEPT, "kept"),
    (attr.HOOK_REPLACED, "replaced"),
    (attr.HOOK_DROPPED, "dropped"),
    (attr.RESPONSE_FINISH_REASONS, "finish"),
    (attr.MODEL_FROM_CACHE, "cached"),
    (attr.RUN_OUTCOME, "outcome"),
)


def _line(span: ReadableSpan) -> str:
    values = span.attributes or {}
    shown = []
    for key, label in SHOWN:
        if key in values:
            value: Any = values[key]
            text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
            shown.append(f"{label}={text}")
    data: Any = values.get(attr.HOOK_DATA_CHUNKS)
    if data:
        shown.append(f"data={data}")
    if span.status.status_code.name == "ERROR":
        shown.append(f"error={span.status.description}")
    return span.name + (f" [{' '.join(shown)}]" if shown else "")


def _event(event: Any) -> str:
    values = dict(event.attributes or {})
    return f"! {event.name} {values.get('processor_id')}: {values.get('reason')}"


def span_tree(spans: Sequence[ReadableSpan]) -> list[str]:
    """Every root span and its descendants, two spaces of indent per level."""
    ids = {span.context.span_id for span in spans if span.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = span.parent.span_id if span.parent is not None else None
        children.setdefault(parent if parent in ids else None, []).append(span)
    lines: list[str] = []

    def walk(span: ReadableSpan, depth: int) -> None:
        lines.append("  " * depth + _line(span))
        lines.extend("  " * (depth + 1) + _event(event) for event in span.events)
        below = children.get(span.context.span_id if span.context else None, [])
        for child in sorted(below, key=lambda s: (s.start_time or 0, s.end_time or 0)):
            walk(child, depth + 1)

    for root in sorted(children.get(None, []), key=lambda s: s.start_time or 0):
        walk(root, 0)
    return lines
