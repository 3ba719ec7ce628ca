"""configure_tracing, the exporter helpers and trace_store: what they build, what they refuse,
and what importing procession.tracing costs without the SDK."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from procession.errors import ConfigurationError, StorageError
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.messages import Message
from procession.tracing import (
    PostgresTraceStore,
    SQLiteTraceStore,
    configure_tracing,
    console_exporter,
    otlp_exporter,
    trace_store,
)
from tests.tracing.conftest import emit, provider_for, record
from tests.tracing.sample import RunSpec

configure: Any = configure_tracing  # called with wrong types on purpose
exporter: Any = otlp_exporter


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


def _json_objects(text: str) -> list[dict[str, Any]]:
    decoder, found, at = json.JSONDecoder(), [], 0
    while (at := text.find("{", at)) != -1:
        value, at = decoder.raw_decode(text, at)
        found.append(value)
    return found


def test_the_console_exporter_prints_every_span_as_json() -> None:
    out = io.StringIO()
    provider = configure_tracing(console_exporter(out), service_name="console", set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()
    spans = _json_objects(out.getvalue())
    assert len(spans) == 18
    run = next(s for s in spans if s["name"] == "invoke_agent support")
    assert run["attributes"]["procession.run.id"] == "run-1"
    assert run["resource"]["attributes"]["service.name"] == "console"


def test_every_exporter_gets_its_own_batch_processor() -> None:
    first, second = InMemorySpanExporter(), InMemorySpanExporter()
    provider = configure_tracing(
        first, second, resource_attributes={"deployment.environment": "test"}, set_global=False
    )
    emit(provider, RunSpec())
    # batched: nothing was exported while the spans ended, all of it on shutdown
    assert first.get_finished_spans() == second.get_finished_spans() == ()
    provider.shutdown()
    assert len(first.get_finished_spans()) == len(second.get_finished_spans()) == 18
    resource = first.get_finished_spans()[0].resource.attributes
    assert (resource["service.name"], resource["deployment.environment"]) == ("procession", "test")


def test_a_sampler_is_passed_on() -> None:
    exporter = InMemorySpanExporter()
    provider = configure_tracing(exporter, sampler=ALWAYS_OFF, set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()
    assert exporter.get_finished_spans() == ()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: configure(set_global=False), "at least one exporter"),
        (lambda: configure("zipkin", set_global=False), "'zipkin'"),
        (lambda: configure("console", set_global=1), "set_global"),
        (lambda: configure("console", service_name="", set_global=False), "service_name"),
        (lambda: configure("console", sampler="always", set_global=False), "sampler"),
        (
            lambda: configure("console", resource_attributes={"k": None}, set_global=False),
            "resource_attributes",
        ),
        (lambda: exporter("127.0.0.1:4318"), "endpoint"),
        (lambda: exporter(protocol="http/json"), "protocol"),
        (lambda: exporter(timeout=0), "timeout"),
        (lambda: exporter(timeout=True), "timeout"),
        (lambda: exporter(headers={"a": 1}), "headers"),
        (lambda: trace_store(42), "database"),
        (lambda: trace_store(SQLiteStorage(":memory:")), "in-memory"),
        (lambda: SQLiteTraceStore(""), "path"),
        (lambda: SQLiteTraceStore("x.db", busy_timeout=-1), "busy_timeout"),
        (lambda: PostgresTraceStore("postgresql://h/db", schema="Bad-Name"), "schema"),
        (lambda: PostgresTraceStore("postgresql://h/db", max_size=0), "max_size"),
        (lambda: PostgresTraceStore("postgresql://h/db", timeout=False), "timeout"),
    ],
)
def test_bad_options_are_a_clear_configuration_error(call: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        call()


def test_configure_tracing_installs_the_global_provider_once() -> None:
    code = (
        "from opentelemetry import trace\n"
        "from procession.errors import ConfigurationError\n"
        "from procession.tracing import configure_tracing\n"
        "provider = configure_tracing('console')\n"
        "assert trace.get_tracer_provider() is provider\n"
        "try:\n"
        "    configure_tracing('console')\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
        "print(type(configure_tracing('console', set_global=False)).__name__)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "already installed" in lines[0]
    assert lines[1] == "TracerProvider"


def test_a_provider_installed_by_someone_else_is_not_replaced() -> None:
    code = (
        "from opentelemetry import trace\n"
        "from procession.errors import ConfigurationError\n"
        "from procession.tracing import configure_tracing\n"
        "theirs = trace.NoOpTracerProvider()  # not the SDK's class, as Logfire's is not\n"
        "trace.set_tracer_provider(theirs)\n"
        "try:\n"
        "    configure_tracing('console')\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
        "print(trace.get_tracer_provider() is theirs)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert "already installed" in first
    assert second == "True"


def test_importing_procession_tracing_loads_no_sdk() -> None:
    code = (
        "import sys, procession.tracing\n"
        "from procession.tracing import RunTimeline, attributes\n"
        "print(sorted(m for m in ('opentelemetry.sdk', 'asyncpg', 'sqlite3') if m in sys.modules))"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_without_the_sdk_the_error_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry.sdk'] = None\n"
        "from procession.errors import ConfigurationError\n"
        "try:\n"
        "    from procession.tracing import configure_tracing\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert "pip install 'procession[tracing]'" in result.stdout
    assert "configure_tracing" in result.stdout


def test_without_grpc_the_error_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry.exporter.otlp.proto.grpc'] = None\n"
        "from procession.errors import ConfigurationError\n"
        "from procession.tracing import otlp_exporter\n"
        "try:\n"
        "    otlp_exporter(protocol='grpc')\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert "pip install 'procession[tracing-grpc]'" in result.stdout


def test_trace_store_picks_the_backend(tmp_path: Path) -> None:
    by_path = trace_store(tmp_path / "a.db")
    assert isinstance(by_path, SQLiteTraceStore)
    assert by_path.path == str(tmp_path / "a.db")
    by_storage = trace_store(SQLiteStorage(tmp_path / "b.db"))
    assert isinstance(by_storage, SQLiteTraceStore)
    assert by_storage.path == str(tmp_path / "b.db")
    by_url = trace_store("postgresql://u@127.0.0.1/db")
    assert isinstance(by_url, PostgresTraceStore)
    assert (by_url.dsn, by_url.schema) == ("postgresql://u@127.0.0.1/db", "public")
    by_pg = trace_store(PostgresStorage("postgresql://u@127.0.0.1/db", schema="app"))
    assert isinstance(by_pg, PostgresTraceStore)
    assert by_pg.schema == "app"
    own_schema = trace_store(PostgresStorage("postgresql://h/db"), schema="traces")
    assert isinstance(own_schema, PostgresTraceStore)
    assert own_schema.schema == "traces"
    for store in (by_path, by_storage, by_url, by_pg, own_schema):
        store.shutdown()


@pytest.mark.asyncio
async def test_spans_share_the_sqlite_file_memory_uses(tmp_path: Path) -> None:
    storage = SQLiteStorage(tmp_path / "app.db")
    store = trace_store(storage)
    try:
        await storage.save_turn("thread-1", "user-1", [Message.user("hello")])
        record(store, RunSpec())
        assert [m.text for m in await storage.list_messages("thread-1", resource_id="user-1")] == [
            "hello"
        ]
        assert [run.thread_id for run in await store.list_runs()] == ["thread-1"]
    finally:
        await store.close()
        await storage.close()
    reopened = SQLiteStorage(tmp_path / "app.db")  # memory's migrations still apply cleanly
    try:
        assert await reopened.get_thread("thread-1", resource_id="user-1") is not None
    finally:
        await reopened.close()


@pytest.mark.asyncio
async def test_spans_share_the_postgres_schema_memory_uses(postgres_dsn: str, schema: str) -> None:
    storage = PostgresStorage(postgres_dsn, schema=schema, max_size=2)
    store = trace_store(storage)
    try:
        await storage.save_turn("thread-1", "user-1", [Message.user("hello")])
        record(store, RunSpec())
        assert len(await storage.list_messages("thread-1", resource_id="user-1")) == 1
        assert [run.run_id for run in await store.list_runs()] == ["run-1"]
    finally:
        await store.close()
        await storage.close()


@pytest.mark.asyncio
async def test_the_provider_shutdown_closes_the_store(tmp_path: Path) -> None:
    store = SQLiteTraceStore(tmp_path / "t.db")
    provider = configure_tracing(store, set_global=False)
    emit(provider, RunSpec())
    provider.shutdown()  # flushes, then shuts the exporter down
    with pytest.raises(StorageError, match="closed"):
        await store.list_runs()
    assert store.export([]) is SpanExportResult.FAILURE
    reader = SQLiteTraceStore(tmp_path / "t.db")
    try:
        assert [run.run_id for run in await reader.list_runs()] == ["run-1"]
    finally:
        await reader.close()


def test_an_unreachable_database_fails_the_batch_and_says_so(
    caplog: pytest.LogCaptureFixture, memory_exporter: InMemorySpanExporter
) -> None:
    provider = provider_for()
    provider.add_span_processor(BatchSpanProcessor(memory_exporter))
    emit(provider, RunSpec())
    provider.shutdown()
    store = PostgresTraceStore("postgresql://nobody@127.0.0.1:1/none", timeout=5)
    try:
        with caplog.at_level(logging.WARNING, logger="procession.tracing"):
            result = store.export(memory_exporter.get_finished_spans())
    finally:
        store.shutdown()
    assert result is SpanExportResult.FAILURE
    assert "PostgresTraceStore(schema='public'): ConnectionRefusedError" in caplog.text
    assert "(18 spans dropped)" in caplog.text


def _exit_without_shutdown(target: str, schema: str) -> None:
    """A process that configures tracing into a store, emits a run and just exits."""
    code = (
        "import sys\n"
        "from procession.tracing import configure_tracing, trace_store, PostgresTraceStore\n"
        "from tests.tracing.conftest import emit\n"
        "from tests.tracing.sample import RunSpec\n"
        "target, schema = sys.argv[1], sys.argv[2]\n"
        "store = trace_store(target, schema=schema or None)\n"
        "emit(configure_tracing(store), RunSpec())\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code, target, schema],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.asyncio
async def test_spans_ended_just_before_exit_are_written_sqlite(tmp_path: Path) -> None:
    _exit_without_shutdown(str(tmp_path / "exit.db"), "")
    store = SQLiteTraceStore(tmp_path / "exit.db")
    try:
        timeline = await store.run_timeline("run-1")
        assert timeline is not None
        assert len(timeline.entries) == 18
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_spans_ended_just_before_exit_are_written_postgres(
    postgres_dsn: str, schema: str
) -> None:
    _exit_without_shutdown(postgres_dsn, schema)
    store = PostgresTraceStore(postgres_dsn, schema=schema)
    try:
        timeline = await store.run_timeline("run-1")
        assert timeline is not None
        assert len(timeline.entries) == 18
    finally:
        await store.close()
