"""The loop's OpenTelemetry spans: names, parentage, GenAI attributes, per-step stream hook
spans, tripwire and retry events (docs/tracing.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from procession import Agent, Chunk, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript
from procession.tracing import use_tracer_provider


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield exporter
    use_tracer_provider(None)


def _by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, list[ReadableSpan]]:
    out: dict[str, list[ReadableSpan]] = {}
    for span in spans:
        out.setdefault(span.name, []).append(span)
    return out


@tool
def lookup(order: str) -> str:
    """Look an order up."""
    return f"{order} shipped"


class Redact:
    id = "redact"
    description = "Hides the digit 7."

    def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk | None:
        if part.type == "text-delta" and "7" in part.payload["text"]:
            return part.copy(payload={**part.payload, "text": "#"})
        if part.type == "text-delta" and part.payload["text"].strip() == "drop":
            return None
        return part


class AskOnce:
    id = "ask-once"

    def process_output_step(self, *, text: str, abort: Any, retry_count: int, **_: Any) -> None:
        if text and retry_count == 0:
            abort("Say it again", retry=True)


@pytest.mark.asyncio
async def test_a_tool_run_with_a_redaction_and_a_retry(spans: InMemorySpanExporter) -> None:
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup", {"order": "A-7"}, "c1")]),
            Reply(text=["order ", "7", " drop"]),
            Reply(text=["order ", "7", " done"]),
        ]
    )
    agent = Agent(
        id="support",
        model=model,
        tools=[lookup],
        output_processors=[Redact(), AskOnce()],
        max_processor_retries=1,
    )
    result = await agent.generate("Where is A-7?", thread_id="t-1", resource_id="ada")
    assert result.text == "order # done"
    named = _by_name(spans.get_finished_spans())
    (run,) = named["invoke_agent support"]
    assert run.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.conversation.id"] == "t-1"
    assert run.attributes["procession.run.outcome"] == "finish"
    run_id = run.context.span_id
    steps = named["step 0"] + named["step 1"]
    assert len(steps) == 3  # step 1 was attempted twice
    assert all(s.parent is not None and s.parent.span_id == run_id for s in steps)
    outcomes = sorted(str((s.attributes or {})["procession.step.outcome"]) for s in steps)
    assert outcomes == ["accepted", "accepted", "retry"]
    retried = next(s for s in steps if (s.attributes or {})["procession.step.outcome"] == "retry")
    assert [e.name for e in retried.events] == ["procession.retry"]
    (call,) = named["execute_tool lookup"]
    assert (call.attributes or {})["gen_ai.tool.call.id"] == "c1"
    chats = named[f"chat {model.model_id}"]
    assert len(chats) == 3
    assert all((c.attributes or {})["gen_ai.operation.name"] == "chat" for c in chats)
    stream = named["process_output_stream redact"]
    counts = [
        (
            (s.attributes or {})["procession.hook.replaced"],
            (s.attributes or {})["procession.hook.dropped"],
        )
        for s in stream
    ]
    assert (1, 1) in counts  # the rejected attempt: one delta redacted, one dropped
    assert all(
        (s.attributes or {})["procession.processor.description"] == "Hides the digit 7."
        for s in stream
    )
    step_hooks = named["process_output_step ask-once"]
    assert sorted(str((s.attributes or {})["procession.hook.outcome"]) for s in step_hooks) == [
        "kept",
        "kept",
        "retry",
    ]


class Block:
    id = "block"

    def process_input(self, *, abort: Any, **_: Any) -> None:
        abort("No.")


@pytest.mark.asyncio
async def test_a_tripwire_is_an_event_on_the_run(spans: InMemorySpanExporter) -> None:
    agent = Agent(id="a", model=ScriptedModel(["never"]), input_processors=[Block()])
    result = await agent.generate("hi")
    assert result.tripwire is not None
    named = _by_name(spans.get_finished_spans())
    (run,) = named["invoke_agent a"]
    assert (run.attributes or {})["procession.run.outcome"] == "tripwire"
    (event,) = [e for e in run.events if e.name == "procession.tripwire"]
    assert (event.attributes or {})["reason"] == "No."
    (hook,) = named["process_input block"]
    assert (hook.attributes or {})["procession.hook.outcome"] == "tripwire"
    assert [e.name for e in hook.events] == ["procession.tripwire"]


@pytest.mark.asyncio
async def test_a_processor_opens_child_spans_under_its_hook(spans: InMemorySpanExporter) -> None:
    class Checker:
        id = "checker"

        def process_input(self, *, tracing_context: Any, **_: Any) -> None:
            with tracing_context.start_span("checker.lookup", {"rows": 3}):
                pass

    await Agent(id="a", model=ScriptedModel(["ok"]), input_processors=[Checker()]).generate("x")
    named = _by_name(spans.get_finished_spans())
    (child,) = named["checker.lookup"]
    (hook,) = named["process_input checker"]
    assert child.parent is not None
    assert child.parent.span_id == hook.context.span_id


@pytest.mark.asyncio
async def test_without_a_provider_nothing_is_traced() -> None:
    seen: list[Any] = []

    class Probe:
        id = "probe"

        def process_input(self, *, tracing_context: Any, **_: Any) -> None:
            seen.append(tracing_context.span)
            with tracing_context.start_span("nothing") as span:
                seen.append(span)

    await Agent(id="a", model=ScriptedModel(["ok"]), input_processors=[Probe()]).generate("x")
    assert seen == [None, None]  # no span, and start_span is a no-op
