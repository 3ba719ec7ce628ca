"""OTLP export against receivers on loopback that decode what they get with
``opentelemetry-proto``: HTTP/protobuf (a stdlib HTTP server) and gRPC (a grpcio server)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from procession.tracing import attributes as attr
from procession.tracing import configure_tracing, otlp_exporter
from tests.tracing.conftest import emit
from tests.tracing.sample import BASE_NS, RunSpec

Request = trace_service_pb2.ExportTraceServiceRequest


class Received:
    """What a receiver got: the decoded requests and the HTTP headers that came with them."""

    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def add(self, request: Any, headers: dict[str, str]) -> None:
        with self.lock:
            self.requests.append(request)
            self.headers.append(headers)

    def spans(self) -> list[tuple[str, str, Any]]:
        """(service.name, scope name, span) for every span received."""
        found = []
        for request in self.requests:
            for resource_spans in request.resource_spans:
                service = _value(_attrs(resource_spans.resource.attributes)["service.name"])
                for scope_spans in resource_spans.scope_spans:
                    found += [(service, scope_spans.scope.name, s) for s in scope_spans.spans]
        return found


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


def _attrs(values: Any) -> dict[str, Any]:
    return {kv.key: kv.value for kv in values}


def _plain(values: list[KeyValue]) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in values}


@pytest.fixture
def http_receiver() -> Iterator[tuple[str, Received]]:
    """An OTLP/HTTP receiver on 127.0.0.1: (traces URL, what it received)."""
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = Request()
            request.ParseFromString(body)
            received.add(request, {k.lower(): v for k, v in self.headers.items()})
            reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1/traces", received
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def grpc_receiver() -> Iterator[tuple[str, Received]]:
    """An OTLP/gRPC receiver on 127.0.0.1: (address, what it received)."""
    grpc = pytest.importorskip("grpc")
    received = Received()

    class Service(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:
            received.add(request, dict(context.invocation_metadata()))
            return trace_service_pb2.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    register = trace_service_pb2_grpc.add_TraceServiceServicer_to_server
    register(Service(), server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"http://127.0.0.1:{port}", received
    server.stop(grace=None).wait()


def _check_sample_run(received: Received) -> None:
    spans = received.spans()
    assert len(spans) == 18
    assert {(service, scope) for service, scope, _ in spans} == {("otlp-test", "procession")}
    by_id = {span.span_id: span for _, _, span in spans}
    run = next(span for _, _, span in spans if span.name == "invoke_agent support")
    assert run.parent_span_id == b""
    assert run.kind == Span.SPAN_KIND_INTERNAL
    assert run.start_time_unix_nano == BASE_NS
    assert _plain(list(run.attributes)) == {
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
    usage = _plain(list(chats[0].attributes))
    assert usage[attr.RESPONSE_FINISH_REASONS] == ["stop"]
    assert (usage[attr.USAGE_INPUT_TOKENS], usage[attr.USAGE_OUTPUT_TOKENS]) == (12, 3)
    refund = next(span for _, _, span in spans if span.name == "execute_tool refund")
    assert refund.status.code == Status.STATUS_CODE_ERROR
    assert refund.status.message == "refund failed: no such order"
    retried = next(span for _, _, span in spans if span.events)
    assert retried.name == "step 0"
    assert [(e.name, _plain(list(e.attributes))) for e in retried.events] == [
        (
            attr.EVENT_RETRY,
            {"reason": "Answer in a full sentence.", "processor_id": "not-too-short"},
        )
    ]
    stream = next(span for _, _, span in spans if span.name.startswith("process_output_stream"))
    counts = _plain(list(stream.attributes))
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
