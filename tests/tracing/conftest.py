"""Fixtures for the tracing tests: SDK providers that are never global, and trace stores on a
real SQLite file and a real PostgreSQL server.

PostgreSQL comes from ``PROCESSION_TEST_POSTGRES_DSN``, else ``.pgdata/dsn``; without a server
its cases are skipped locally and fail in CI. Each test gets a schema of its own.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from procession.tracing import (
    PostgresTraceStore,
    SQLiteTraceStore,
    TraceStore,
    use_tracer_provider,
)
from procession.tracing.attributes import TRACER_NAME
from tests.memory.crash_harness import drop_schema
from tests.tracing.receivers import Received, serve_grpc, serve_http
from tests.tracing.sample import RunSpec, SampleRun

StoreFactory = Callable[[], TraceStore]


@pytest.fixture
def schema(postgres_dsn: str) -> Iterator[str]:
    """A fresh PostgreSQL schema for this test, dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:10]}"
    yield name
    asyncio.run(drop_schema(postgres_dsn, name))


@pytest.fixture(params=["sqlite", "postgres"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Makes stores of one backend; every store from one factory shares its data."""
    if request.param == "sqlite":
        path = tmp_path / "traces.db"
        return lambda: SQLiteTraceStore(path)
    dsn: str = request.getfixturevalue("postgres_dsn")
    name: str = request.getfixturevalue("schema")
    return lambda: PostgresTraceStore(dsn, schema=name)


@pytest_asyncio.fixture
async def store(store_factory: StoreFactory) -> AsyncIterator[TraceStore]:
    """An open trace store of each backend, closed after the test."""
    opened = store_factory()
    yield opened
    await opened.close()


def provider_for(*processors: object) -> TracerProvider:
    """A (never global) SDK provider with these span processors."""
    provider = TracerProvider(resource=Resource.create({"service.name": "tracing-tests"}))
    for processor in processors:
        provider.add_span_processor(processor)  # type: ignore[arg-type]
    return provider


def emit(provider: TracerProvider, *specs: RunSpec) -> None:
    """Emit one sample run per spec through ``provider``'s ``procession`` tracer."""
    tracer = provider.get_tracer(TRACER_NAME)
    for spec in specs:
        SampleRun(tracer, spec).emit()


class Borrowed(SpanExporter):
    """Exports to a store without shutting it down when the provider shuts down."""

    def __init__(self, store: TraceStore) -> None:
        self.store = store

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.store.export(spans)

    def shutdown(self) -> None:
        pass


def record(store: TraceStore, *specs: RunSpec) -> None:
    """Emit sample runs into ``store`` the way configure_tracing wires it (a batch span
    processor), and wait until they are written."""
    provider = provider_for(BatchSpanProcessor(Borrowed(store)))
    emit(provider, *specs)
    assert provider.force_flush()
    provider.shutdown()


@pytest.fixture
def memory_exporter() -> InMemorySpanExporter:
    """An in-memory exporter (behind a simple span processor)."""
    return InMemorySpanExporter()


@pytest.fixture
def memory_provider(memory_exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    """A provider writing to :func:`memory_exporter`."""
    provider = provider_for(SimpleSpanProcessor(memory_exporter))
    yield provider
    provider.shutdown()


@pytest.fixture
def http_receiver() -> Iterator[tuple[str, Received]]:
    """An OTLP/HTTP receiver on 127.0.0.1: (traces URL, what it received)."""
    yield from serve_http()


@pytest.fixture
def grpc_receiver() -> Iterator[tuple[str, Received]]:
    """An OTLP/gRPC receiver on 127.0.0.1: (address, what it received)."""
    yield from serve_grpc()


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """procession's runs traced into memory (OpenTelemetry's global provider untouched)."""
    spans = InMemorySpanExporter()
    provider = provider_for(SimpleSpanProcessor(spans))
    use_tracer_provider(provider)
    yield spans
    use_tracer_provider(None)
    provider.shutdown()
