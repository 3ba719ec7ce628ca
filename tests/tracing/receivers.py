"""OTLP receivers on loopback that decode what they get with ``opentelemetry-proto``:
HTTP/protobuf (a stdlib HTTP server) and gRPC (a grpcio server), as fixtures."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

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


def plain(values: list[KeyValue]) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in values}


def serve_http() -> Iterator[tuple[str, Received]]:
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


def serve_grpc() -> Iterator[tuple[str, Received]]:
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
