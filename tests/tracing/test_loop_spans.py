"""The loop's spans: the tripwire event on the hook that asked for a retry, the data chunks a
stream hook wrote, and no span starting before its parent."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from procession import Agent, Chunk
from procession.testing import Reply, ScriptedModel
from procession.tracing import attributes as attr
from tests.tracing.agents import SCRIPT, support_agent


def _events(exporter: InMemorySpanExporter, name: str) -> list[dict[str, Any]]:
    return [
        dict(event.attributes or {})
        for span in exporter.get_finished_spans()
        if span.name == name
        for event in span.events
        if event.name == attr.EVENT_TRIPWIRE
    ]


@pytest.mark.asyncio
async def test_the_hook_that_asks_for_a_retry_carries_the_tripwire_event(
    exporter: InMemorySpanExporter,
) -> None:
    await support_agent(*SCRIPT).generate("Where is order A-1001?")
    assert _events(exporter, "process_output_step not-too-short") == [
        {"reason": "Answer in a full sentence.", "processor_id": "not-too-short", "retry": True}
    ]
    assert _events(exporter, "process_output_result audit") == [
        {"reason": "A card number reached the answer", "processor_id": "audit", "retry": False}
    ]


class Progress:
    id = "progress"

    def process_output_stream(self, *, part: Chunk, writer: Any, **_: Any) -> Chunk:
        if part.type == "text-delta":
            writer.custom({"type": "data-progress", "data": {"seen": part.payload["text"]}})
        return part


@pytest.mark.asyncio
async def test_a_stream_hook_span_counts_the_data_chunks_it_wrote(
    exporter: InMemorySpanExporter,
) -> None:
    agent = Agent(
        id="a", model=ScriptedModel([Reply(text=["one ", "two"])]), output_processors=[Progress()]
    )
    await agent.generate("x")
    (span,) = [s for s in exporter.get_finished_spans() if s.name.endswith(" progress")]
    assert (span.attributes or {})[attr.HOOK_DATA_CHUNKS] == 2


@pytest.mark.asyncio
async def test_no_span_starts_before_its_parent(exporter: InMemorySpanExporter) -> None:
    await support_agent(*SCRIPT).generate("Where is order A-1001?")
    spans = exporter.get_finished_spans()
    start = {s.context.span_id: s.start_time or 0 for s in spans if s.context is not None}
    early = [
        s.name
        for s in spans
        if s.parent is not None and (s.start_time or 0) < start[s.parent.span_id]
    ]
    assert early == []
