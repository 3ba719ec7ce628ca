"""The trace store round trip on SQLite and PostgreSQL: what goes in through the SDK's batch
span processor comes back through the read API (runs, a run's timeline, a trace)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from procession.errors import ConfigurationError, StorageError
from procession.tracing import RunSummary, TraceStore
from procession.tracing import attributes as attr
from tests.tracing.conftest import StoreFactory, emit, record
from tests.tracing.sample import BASE_NS, RunSpec

pytestmark = pytest.mark.asyncio

FINISHED = [
    "invoke_agent support",
    "process_input no-secrets",
    "step 0",
    "process_output_stream redactor",  # it starts (a little) before its step, as in the loop
    "chat scripted-1",
    "process_output_step not-too-short",
    "step 0",
    "process_output_stream redactor",
    "chat scripted-1",
    "process_output_step not-too-short",
    "execute_tool lookup_order",
    "execute_tool refund",
    "process_tool_result redactor",
    "step 1",
    "process_output_stream redactor",
    "chat scripted-1",
    "process_output_step not-too-short",
    "process_output_result audit",
]


def ids(runs: list[RunSummary]) -> list[str]:
    return [run.run_id for run in runs]


def _at(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC)


async def test_a_run_comes_back_as_its_timeline(store: TraceStore) -> None:
    record(store, RunSpec())
    timeline = await store.run_timeline("run-1")
    assert timeline is not None
    assert [span.name for span in timeline.spans] == FINISHED
    depths = [entry.depth for entry in timeline.entries]
    assert depths == [0, 1, 1, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 1]
    run = timeline.run
    assert (run.agent_id, run.agent_name, run.resource_id, run.thread_id) == (
        "support",
        "Support",
        "user-1",
        "thread-1",
    )
    assert (run.outcome, run.internal, run.status) == ("finish", False, "UNSET")
    assert run.start_ns == BASE_NS
    assert timeline.entries[1].offset_ms == pytest.approx(0.001)


async def test_every_span_keeps_kind_parent_attributes_and_status(store: TraceStore) -> None:
    record(store, RunSpec())
    run = await store.get_run("run-1")
    assert run is not None
    spans = await store.get_trace(run.trace_id)
    assert len(spans) == len(FINISHED)
    by_id = {span.span_id: span for span in spans}
    chats = [span for span in spans if span.name.startswith("chat ")]
    assert [span.kind for span in chats] == ["CLIENT"] * 3
    assert all(by_id[span.parent_span_id or ""].name.startswith("step ") for span in chats)
    first = chats[0].attributes
    assert first[attr.RESPONSE_FINISH_REASONS] == ["stop"]
    assert (first[attr.USAGE_INPUT_TOKENS], first[attr.USAGE_OUTPUT_TOKENS]) == (12, 3)
    assert first[attr.MODEL_FROM_CACHE] is False
    refund = next(span for span in spans if span.name == "execute_tool refund")
    assert (refund.status, refund.status_message) == ("ERROR", "refund failed: no such order")
    assert all(span.service == "tracing-tests" and span.scope == "procession" for span in spans)
    assert len({span.trace_id for span in spans}) == 1
    assert (len(run.trace_id), len(run.span_id)) == (32, 16)


async def test_hook_calls_carry_outcome_counts_step_and_run(store: TraceStore) -> None:
    record(store, RunSpec())
    timeline = await store.run_timeline("run-1")
    assert timeline is not None
    calls = timeline.hook_calls()
    assert [(c.hook, c.processor_id, c.outcome, c.step_number, c.attempt) for c in calls] == [
        ("process_input", "no-secrets", "kept", None, None),
        ("process_output_stream", "redactor", "replaced", 0, 0),
        ("process_output_step", "not-too-short", "retry", 0, 0),
        ("process_output_stream", "redactor", "kept", 0, 1),
        ("process_output_step", "not-too-short", "kept", 0, 1),
        ("process_tool_result", "redactor", "replaced", 0, 1),
        ("process_output_stream", "redactor", "kept", 1, 0),
        ("process_output_step", "not-too-short", "kept", 1, 0),
        ("process_output_result", "audit", "kept", None, None),
    ]
    stream = calls[1]
    assert (stream.calls, stream.kept, stream.replaced, stream.dropped) == (3, 2, 1, 0)
    assert calls[3].data_chunks == 1
    assert (calls[0].calls, calls[0].processor_name, calls[0].processor_index) == (
        None,
        "No Secrets",
        0,
    )
    assert {c.run_id for c in calls} == {"run-1"}
    durations = {c.hook: c.duration_ms for c in calls}
    assert durations["process_output_stream"] == pytest.approx(0.0025)  # time inside the hook
    assert durations["process_output_step"] == pytest.approx(0.001)  # the span's length


async def test_retry_and_tripwire_events_come_back(store: TraceStore) -> None:
    record(store, RunSpec(tripwire=True))
    timeline = await store.run_timeline("run-1")
    assert timeline is not None
    assert timeline.run.outcome == "tripwire"
    run_event = timeline.spans[0].event(attr.EVENT_TRIPWIRE)
    assert run_event is not None
    assert dict(run_event.attributes) == {
        "reason": "Leaked a secret",
        "processor_id": "not-too-short",
        "retry": False,
    }
    hook = timeline.hook_calls()[-1]
    assert (hook.hook, hook.outcome) == ("process_output_step", "tripwire")
    assert hook.span.event(attr.EVENT_TRIPWIRE) is not None
    retried = next(e.span for e in timeline.entries if e.span.event(attr.EVENT_RETRY))
    assert retried.attributes[attr.STEP_OUTCOME] == "retry"
    retry = retried.event(attr.EVENT_RETRY)
    assert retry is not None
    assert retry.attributes["processor_id"] == "not-too-short"
    assert retry.time_ns > retried.start_ns


async def test_list_runs_filters_and_pages_newest_first(store: TraceStore) -> None:
    hour = 3_600 * 10**9
    record(
        store,
        RunSpec(run_id="a", agent_id="support", resource_id="u1", start_ns=BASE_NS),
        RunSpec(run_id="b", agent_id="support", resource_id="u2", start_ns=BASE_NS + hour),
        RunSpec(
            run_id="c",
            agent_id="billing",
            resource_id="u1",
            start_ns=BASE_NS + 2 * hour,
            thread_id=None,
            tripwire=True,
        ),
        RunSpec(
            run_id="j",
            agent_id="judge",
            start_ns=BASE_NS + 3 * hour,
            internal=True,
            parent_run_id="b",
        ),
    )
    assert ids(await store.list_runs()) == ["c", "b", "a"]
    assert ids(await store.list_runs(include_internal=True)) == ["j", "c", "b", "a"]
    assert ids(await store.list_runs(agent_id="support")) == ["b", "a"]
    assert ids(await store.list_runs(resource_id="u1")) == ["c", "a"]
    assert ids(await store.list_runs(thread_id="thread-1")) == ["b", "a"]
    assert ids(await store.list_runs(outcome="tripwire")) == ["c"]
    assert ids(await store.list_runs(since=_at(BASE_NS + hour))) == ["c", "b"]
    assert ids(await store.list_runs(until=_at(BASE_NS + hour))) == ["a"]
    page = await store.list_runs(limit=2)
    assert ids(page) == ["c", "b"]
    assert ids(await store.list_runs(until=page[-1].start, limit=2)) == ["a"]
    naive = _at(BASE_NS + hour).replace(tzinfo=None)  # naive datetimes are UTC
    assert ids(await store.list_runs(since=naive)) == ["c", "b"]
    judged = await store.list_runs(parent_run_id="b", include_internal=True)
    assert [(run.run_id, run.internal, run.parent_run_id) for run in judged] == [("j", True, "b")]
    assert await store.list_runs(parent_run_id="b") == []  # internal runs are hidden unless asked


async def test_unknown_ids_read_as_nothing(store: TraceStore) -> None:
    record(store, RunSpec())
    assert await store.get_run("nope") is None
    assert await store.run_timeline("nope") is None
    assert await store.get_trace("0" * 32) == []


async def test_a_batch_exported_twice_is_stored_once(
    store_factory: StoreFactory,
    memory_exporter: InMemorySpanExporter,
    memory_provider: TracerProvider,
) -> None:
    emit(memory_provider, RunSpec())
    batch = memory_exporter.get_finished_spans()
    store, replica = store_factory(), store_factory()  # a second replica re-sends the batch
    try:
        assert store.export(batch) is SpanExportResult.SUCCESS
        assert store.export(batch[:5]) is SpanExportResult.SUCCESS
        assert replica.export(batch) is SpanExportResult.SUCCESS
        runs = await replica.list_runs()
        assert [run.run_id for run in runs] == ["run-1"]
        spans = await store.get_trace(runs[0].trace_id)
        assert sorted(span.span_id for span in spans) == sorted(
            f"{span.context.span_id:016x}" for span in batch if span.context is not None
        )
    finally:
        await replica.close()
        await store.close()


async def test_prune_deletes_whole_traces_that_ended_before(store: TraceStore) -> None:
    day = 86_400 * 10**9
    record(store, RunSpec(run_id="old"), RunSpec(run_id="new", start_ns=BASE_NS + 2 * day))
    deleted = await store.prune(before=_at(BASE_NS + day))
    assert deleted == len(FINISHED)
    assert [run.run_id for run in await store.list_runs()] == ["new"]
    assert await store.run_timeline("old") is None
    assert await store.prune(before=_at(BASE_NS + day)) == 0


async def test_read_arguments_are_checked(store: TraceStore) -> None:
    for call, message in (
        (store.list_runs(limit=0), "limit"),
        (store.list_runs(limit=True), "limit"),  # a bool is not an int
        (store.list_runs(limit=10_001), "limit"),
        (store.list_runs(agent_id=""), "agent_id"),
        (store.list_runs(since="yesterday"), "since"),  # type: ignore[arg-type]
        (store.list_runs(include_internal=1), "include_internal"),  # type: ignore[arg-type]
        (store.get_run(""), "run_id"),
        (store.get_trace(None), "trace_id"),  # type: ignore[arg-type]
        (store.prune(before=None), "before"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigurationError, match=message):
            await call


async def test_a_closed_store_refuses_spans_and_reads(store_factory: StoreFactory) -> None:
    store = store_factory()
    record(store, RunSpec())
    await store.close()
    await store.close()  # twice is fine
    with pytest.raises(StorageError, match="closed"):
        await store.list_runs()
    reopened = store_factory()
    try:
        assert [run.run_id for run in await reopened.list_runs()] == ["run-1"]
    finally:
        await reopened.close()


async def test_timestamps_read_back_as_utc_datetimes(store: TraceStore) -> None:
    record(store, RunSpec())
    run = await store.get_run("run-1")
    assert run is not None
    assert run.start == _at(BASE_NS)
    assert run.start.tzinfo is UTC
    timeline = await store.run_timeline("run-1")
    assert timeline is not None
    last = timeline.spans[-1]
    assert last.end - run.start == timedelta(microseconds=(last.end_ns - BASE_NS) // 1000)
    assert run.duration_ms == pytest.approx((timeline.spans[0].end_ns - BASE_NS) / 1e6)


async def test_values_no_database_can_hold_are_stored_replaced(
    store: TraceStore, memory_exporter: InMemorySpanExporter, memory_provider: TracerProvider
) -> None:
    tracer = memory_provider.get_tracer("procession")
    odd = "a\x00b\ud800c"  # NUL (PostgreSQL refuses it) and a lone surrogate (no UTF-8 has it)
    span = tracer.start_span(
        f"tool {odd}",
        attributes={
            attr.RUN_ID: f"run-{odd}",
            attr.AGENT_ID: odd,
            "k\x00": [odd, "fine"],
            "nan": float("nan"),
        },
    )
    span.add_event("e\x00", {"reason": odd})
    span.set_status(Status(StatusCode.ERROR, odd))
    span.end()
    emit(memory_provider, RunSpec())
    assert store.export(memory_exporter.get_finished_spans()) is SpanExportResult.SUCCESS
    clean = "a\ufffdb?c"
    (run,) = await store.list_runs(agent_id=clean)
    assert run.run_id == f"run-{clean}"
    (stored,) = await store.get_trace(run.trace_id)
    assert stored.name == f"tool {clean}"
    assert stored.attributes["k\ufffd"] == [clean, "fine"]
    assert stored.attributes["nan"] == "nan"
    assert (stored.events[0].name, stored.events[0].attributes) == ("e\ufffd", {"reason": clean})
    assert stored.status_message == clean
    assert await store.run_timeline("run-1") is not None  # the rest of the batch is there
