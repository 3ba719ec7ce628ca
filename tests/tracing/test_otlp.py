"""OTLP export against receivers on loopback that decode what they get with
``opentelemetry-proto``: HTTP/protobuf (a stdlib HTTP server) and gRPC (a grpcio server)."""

from __future__ import annotations

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from procession.tracing import attributes as attr
from procession.tracing import configure_tracing, otlp_exporter
from tests.tracing.conftest import emit
from tests.tracing.receivers import Received, plain
from tests.tracing.sample import BASE_NS, RunSpec


def _check_sample_run(received: Received) -> None:
    spans = received.spans()
    assert len(spans) == 18
    assert {(service, scope) for service, scope, _ in spans} == {("otlp-test", "procession")}
    by_id = {span.span_id: span for _, _, span in spans}
    run = next(span for _, _, span in spans if span.name == "invoke_agent support")
    assert run.parent_span_id == b""
    assert run.kind == Span.SPAN_KIND_INTERNAL
    assert run.start_time_unix_nano == BASE_NS
    assert plain(list(run.attributes)) == {
        attr.OPERATION_NAME: "invoke_agent",
        attr.AGENT_ID: "support",
        attr.AGENT_NAME: "Support",
        attr.CONVERSATION_ID: "thread-1",
        attr.RESOURCE_ID: "user-1",
        attr.RUN_ID: "run-1",
        attr.RUN_INTERNAL: False,
        attr.RUN_OUTCOME: "finish",
    }
    chats = [span for _, _, span in spans if span.name == "chat scripted-1"]
    assert [span.kind for span in chats] == [Span.SPAN_KIND_CLIENT] * 3
    assert {by_id[span.parent_span_id].name for span in chats} == {"step 0", "step 1"}
    usage = plain(list(chats[0].attributes))
    assert usage[attr.RESPONSE_FINISH_REASONS] == ["stop"]
    assert (usage[attr.USAGE_INPUT_TOKENS], usage[attr.USAGE_OUTPUT_TOKENS]) == (12, 3)
    refund = next(span for _, _, span in spans if span.name == "execute_tool refund")
    assert refund.status.code == Status.STATUS_CODE_ERROR
    assert refund.status.message == "refund failed: no such order"
    retried = next(span for _, _, span in spans if span.events)
    assert retried.name == "step 0"
    assert [(e.name, plain(list(e.attributes))) for e in retried.events] == [
        (
            attr.EVENT_RETRY,
            {"reason": "Answer in a full sentence.", "processor_id": "not-too-short"},
        )
    ]
    stream = next(span for _, _, span in spans if span.name.startswith("process_output_stream"))
    counts = plain(list(stream.attributes))
    assert [counts[k] for k in (attr.HOOK_CALLS, attr.HOOK_KEPT, attr.HOOK_REPLACED)] == [3, 2, 1]


def test_spans_reach_an_otlp_http_receiver(http_receiver: tuple[str, Received]) -> None:
    url, received = http_receiver
    exporter = otlp_exporter(url, headers={"authorization": "Bearer test-token"})
    provider = configure_tracing(exporter, service_name="otlp-test", set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()  # flushes the batch span processor
    assert received.requests, "the receiver got nothing"
    assert {h["content-type"] for h in received.headers} == {"application/x-protobuf"}
    assert {h["authorization"] for h in received.headers} == {"Bearer test-token"}
    _check_sample_run(received)


def test_spans_reach_an_otlp_grpc_receiver(grpc_receiver: tuple[str, Received]) -> None:
    address, received = grpc_receiver
    exporter = otlp_exporter(address, protocol="grpc", headers={"x-team": "procession"})
    provider = configure_tracing(exporter, service_name="otlp-test", set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()
    assert received.requests, "the receiver got nothing"
    assert {h["x-team"] for h in received.headers} == {"procession"}
    _check_sample_run(received)


def test_the_otlp_name_reads_the_endpoint_from_the_environment(
    http_receiver: tuple[str, Received], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, received = http_receiver
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url)
    provider = configure_tracing("otlp", service_name="otlp-test", set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()
    _check_sample_run(received)
