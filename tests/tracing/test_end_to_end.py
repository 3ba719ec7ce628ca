"""Real runs, traced: the loop's spans on ScriptedModel agents, read back from an in-memory
exporter (the exact span tree), the trace store on both backends, and an OTLP receiver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from procession import Agent
from procession.guardrails import Judge
from procession.testing import Reply, ScriptedModel, ToolCallScript
from procession.tracing import TraceStore, configure_tracing, otlp_exporter, use_tracer_provider
from procession.tracing import attributes as attr
from tests.tracing.agents import SCRIPT, support_agent
from tests.tracing.conftest import Borrowed, provider_for
from tests.tracing.receivers import Received, plain
from tests.tracing.tree import span_tree


def _one(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == name]
    return span


@pytest.mark.asyncio
async def test_the_span_tree_of_a_run_with_a_tool_a_redaction_a_retry_and_a_tripwire(
    exporter: InMemorySpanExporter,
) -> None:
    result = await support_agent(*SCRIPT).generate("Where is order A-1001?", thread_id="t-1")
    assert result.tripwire is not None
    assert span_tree(exporter.get_finished_spans()) == [
        "invoke_agent support [outcome=tripwire]",
        "  ! procession.tripwire audit: A card number reached the answer",
        "  process_input no-secrets [outcome=kept]",
        "  step 0 [attempt=0 outcome=accepted finish=tool-calls]",
        "    process_output_stream stream-redactor"
        " [outcome=kept calls=5 kept=5 replaced=0 dropped=0]",
        "    chat scripted-model [finish=tool-calls cached=False]",
        "    process_output_step not-too-short [outcome=kept]",
        "    execute_tool lookup_order",
        "  step 1 [attempt=0 outcome=retry finish=stop]",
        "    ! procession.retry not-too-short: Answer in a full sentence.",
        "    process_output_stream stream-redactor"
        " [outcome=replaced calls=7 kept=5 replaced=1 dropped=1]",
        "    chat scripted-model [finish=stop cached=False]",
        "    process_output_step not-too-short [outcome=retry]",
        "      ! procession.tripwire not-too-short: Answer in a full sentence.",
        "  step 1 [attempt=1 outcome=accepted finish=stop]",
        "    process_output_stream stream-redactor"
        " [outcome=replaced calls=9 kept=5 replaced=1 dropped=3]",
        "    chat scripted-model [finish=stop cached=False]",
        "    process_output_step not-too-short [outcome=kept]",
        "  process_output_result stream-redactor [outcome=kept]",
        "  process_output_result audit [outcome=tripwire]",
        "    ! procession.tripwire audit: A card number reached the answer",
    ]


@pytest.mark.asyncio
async def test_genai_attributes_of_a_run(exporter: InMemorySpanExporter) -> None:
    agent = support_agent(*SCRIPT, audit=False)
    result = await agent.generate("Where is A-1001?", thread_id="t-1", resource_id="ada")
    spans = exporter.get_finished_spans()
    run = _one(spans, "invoke_agent support")
    assert dict(run.attributes or {}) == {
        attr.OPERATION_NAME: "invoke_agent",
        attr.AGENT_ID: "support",
        attr.AGENT_NAME: "Support",
        attr.CONVERSATION_ID: "t-1",
        attr.RESOURCE_ID: "ada",
        attr.RUN_ID: result.run_id,
        attr.RUN_INTERNAL: False,
        attr.RUN_OUTCOME: "finish",
    }
    first_chat = min(
        (s for s in spans if s.name.startswith("chat ")), key=lambda s: s.start_time or 0
    )
    assert dict(first_chat.attributes or {}) == {
        attr.OPERATION_NAME: "chat",
        attr.PROVIDER_NAME: "scripted",
        attr.REQUEST_MODEL: "scripted-model",
        attr.RESPONSE_MODEL: "scripted-model",
        attr.RESPONSE_ID: "resp-0",
        attr.RESPONSE_FINISH_REASONS: ("tool-calls",),
        attr.USAGE_INPUT_TOKENS: 10,
        attr.USAGE_OUTPUT_TOKENS: 1,
        attr.MODEL_FROM_CACHE: False,
    }
    assert first_chat.kind.name == "CLIENT"
    tool_span = _one(spans, "execute_tool lookup_order")
    assert dict(tool_span.attributes or {}) == {
        attr.OPERATION_NAME: "execute_tool",
        attr.TOOL_NAME: "lookup_order",
        attr.TOOL_CALL_ID: "call-1",
        attr.TOOL_TYPE: "function",
    }
    hook = _one(spans, "process_input no-secrets")
    assert dict(hook.attributes or {}) == {
        attr.PROCESSOR_ID: "no-secrets",
        attr.PROCESSOR_NAME: "no-secrets",
        attr.PROCESSOR_DESCRIPTION: "Blocks passwords in the input.",
        attr.PROCESSOR_INDEX: 0,
        attr.HOOK: "process_input",
        attr.HOOK_OUTCOME: "kept",
        attr.HOOK_DATA_CHUNKS: 0,
    }


@pytest.mark.asyncio
async def test_a_failed_tool_call_is_an_error_span(exporter: InMemorySpanExporter) -> None:
    agent = support_agent(
        Reply(tool_calls=[ToolCallScript("refund", {"order_id": "A-1"}, "call-9")]),
        Reply(text=["The refund did not go through, sorry."]),
        audit=False,
    )
    await agent.generate("Refund A-1")
    failed = _one(exporter.get_finished_spans(), "execute_tool refund")
    assert failed.status.status_code.name == "ERROR"
    assert failed.status.description == "tool_error"  # the type, never the message (issue 20)
    assert (failed.attributes or {})["error.type"] == "tool_error"


@pytest.mark.asyncio
async def test_a_failed_tool_call_carries_its_message_only_with_content_capture(
    exporter: InMemorySpanExporter,
) -> None:
    from procession.tracing import capture_content

    agent = support_agent(
        Reply(tool_calls=[ToolCallScript("refund", {"order_id": "A-1"}, "call-9")]),
        Reply(text=["The refund did not go through, sorry."]),
        audit=False,
    )
    capture_content(True)
    try:
        await agent.generate("Refund A-1")
    finally:
        capture_content(None)
    failed = _one(exporter.get_finished_spans(), "execute_tool refund")
    assert "no refunds for A-1" in (failed.status.description or "")


@pytest.mark.asyncio
async def test_a_traced_run_reads_back_from_the_trace_store(store: TraceStore) -> None:
    provider = provider_for(BatchSpanProcessor(Borrowed(store)))
    use_tracer_provider(provider)
    try:
        result = await support_agent(*SCRIPT).generate(
            "Where is order A-1001?", thread_id="t-1", resource_id="ada"
        )
        await support_agent(Reply(text=["Nothing to see here, all is well."])).generate("hi")
    finally:
        use_tracer_provider(None)
        assert provider.force_flush()
        provider.shutdown()
    runs = await store.list_runs(agent_id="support")
    assert [(r.outcome, r.resource_id) for r in runs] == [("finish", None), ("tripwire", "ada")]
    assert [r.run_id for r in await store.list_runs(thread_id="t-1")] == [result.run_id]
    timeline = await store.run_timeline(result.run_id)
    assert timeline is not None
    calls = [
        (c.hook, c.processor_id, c.outcome, c.step_number, c.attempt) for c in timeline.hook_calls()
    ]
    assert calls == [
        ("process_input", "no-secrets", "kept", None, None),
        ("process_output_stream", "stream-redactor", "kept", 0, 0),
        ("process_output_step", "not-too-short", "kept", 0, 0),
        ("process_output_stream", "stream-redactor", "replaced", 1, 0),
        ("process_output_step", "not-too-short", "retry", 1, 0),
        ("process_output_stream", "stream-redactor", "replaced", 1, 1),
        ("process_output_step", "not-too-short", "kept", 1, 1),
        ("process_output_result", "stream-redactor", "kept", None, None),
        ("process_output_result", "audit", "tripwire", None, None),
    ]
    assert all(call.run_id == result.run_id for call in timeline.hook_calls())
    tripwire = timeline.spans[0].event(attr.EVENT_TRIPWIRE)
    assert tripwire is not None
    assert tripwire.attributes["processor_id"] == "audit"
    assert len(await store.get_trace(timeline.run.trace_id)) == len(timeline.entries) == 17


def test_a_traced_run_reaches_an_otlp_receiver(http_receiver: tuple[str, Received]) -> None:
    url, received = http_receiver
    provider = configure_tracing(otlp_exporter(url), service_name="e2e", set_global=False)
    use_tracer_provider(provider)
    try:
        result = support_agent(*SCRIPT, audit=False).generate_sync("Where is A-1001?")
    finally:
        use_tracer_provider(None)
        provider.shutdown()
    spans = {span.name: span for _, _, span in received.spans()}
    assert {service for service, _, _ in received.spans()} == {"e2e"}
    run = spans["invoke_agent support"]
    assert plain(list(run.attributes))[attr.RUN_ID] == result.run_id
    tool_call = spans["execute_tool lookup_order"]
    assert spans["step 0"].span_id == tool_call.parent_span_id
    assert spans["step 0"].parent_span_id == run.span_id


@dataclass
class Verdict:
    flagged: bool


class JudgedInput:
    id = "judged-input"

    def __init__(self) -> None:
        answer = Reply(text=['{"flagged": false}'])
        self.judge = Judge(ScriptedModel([answer]), processor_id=self.id, instructions="Judge.")

    async def process_input(self, *, messages: list[Any], tracing_context: Any, **_: Any) -> None:
        await self.judge.ask(messages[-1].text, Verdict, tracing_context=tracing_context)


@pytest.mark.asyncio
async def test_a_judges_run_is_internal_and_names_its_parent(store: TraceStore) -> None:
    provider = provider_for(BatchSpanProcessor(Borrowed(store)))
    use_tracer_provider(provider)
    try:
        agent = Agent(
            id="guarded", model=ScriptedModel(["Fine."]), input_processors=[JudgedInput()]
        )
        result = await agent.generate("Is this fine?")
    finally:
        use_tracer_provider(None)
        provider.shutdown()
    assert [run.run_id for run in await store.list_runs()] == [result.run_id]
    (judged,) = await store.list_runs(parent_run_id=result.run_id, include_internal=True)
    assert judged.internal is True
    assert judged.agent_id is not None
    assert judged.outcome == "finish"
