"""Setting up the OpenTelemetry SDK for procession's spans, with the exporters you choose.

The loop only uses the OpenTelemetry API; until a tracer provider is set, its tracer is the
API's no-op one and the loop does no tracing work. :func:`configure_tracing` builds an SDK
``TracerProvider`` with a ``BatchSpanProcessor`` per exporter (spans are queued on the loop's
side and exported by the processor's thread) and sets it as the global provider. Exporters:
``"console"``, ``"otlp"`` (HTTP/protobuf), ``"otlp-grpc"``, a trace store from
:func:`trace_store`, or any ``SpanExporter``. Needs the ``tracing`` extra.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TextIO

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.sdk.trace.sampling import Sampler

from procession._checks import check_flag, wrong
from procession.errors import ConfigurationError

if TYPE_CHECKING:
    from procession.tracing.store import TraceStore

__all__ = [
    "ExporterChoice",
    "configure_tracing",
    "console_exporter",
    "otlp_exporter",
    "trace_store",
]

ExporterChoice = SpanExporter | Literal["console", "otlp", "otlp-grpc"]
"""What :func:`configure_tracing` takes: a name, or an exporter object."""

_PROTOCOLS = ("http/protobuf", "grpc")
_POSTGRES_URL = ("postgres://", "postgresql://")


def console_exporter(out: TextIO | None = None) -> SpanExporter:
    """An exporter printing each span as JSON to ``out`` (standard output by default)."""
    return ConsoleSpanExporter(out=out if out is not None else sys.stdout)


def _headers(value: object) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise wrong("otlp_exporter headers", value, "a mapping of strings to strings")
    return dict(value)


def otlp_exporter(
    endpoint: str | None = None,
    *,
    protocol: Literal["http/protobuf", "grpc"] = "http/protobuf",
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> SpanExporter:
    """An OTLP exporter: to a collector, Langfuse, Logfire, Phoenix or any OTLP backend.

    Args:
        endpoint: For ``http/protobuf`` the traces URL (``http://127.0.0.1:4318/v1/traces``);
            for ``grpc`` the collector's address (``http://127.0.0.1:4317``). ``None`` reads
            ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT``, else the
            local collector's default.
        protocol: ``"http/protobuf"`` (the ``tracing`` extra) or ``"grpc"`` (the
            ``tracing-grpc`` extra).
        headers: Sent with every export (an ``Authorization`` header, for example).
        timeout: Seconds one export may take.

    Raises:
        ConfigurationError: a bad argument, or the gRPC exporter is not installed.
    """
    if endpoint is not None and (not isinstance(endpoint, str) or "://" not in endpoint):
        raise wrong("otlp_exporter endpoint", endpoint, "a URL such as http://host:4318/v1/traces")
    if protocol not in _PROTOCOLS:
        raise wrong("otlp_exporter protocol", protocol, "'http/protobuf' or 'grpc'")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise wrong("otlp_exporter timeout", timeout, "a number > 0")
    extra = _headers(headers)
    if protocol == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
                OTLPSpanExporter as GrpcExporter,
            )
        except ImportError as error:
            raise ConfigurationError(
                "otlp_exporter(protocol='grpc') needs opentelemetry-exporter-otlp-proto-grpc:"
                " pip install 'procession[tracing-grpc]'"
            ) from error
        secure = endpoint is not None and endpoint.startswith("https://")
        return GrpcExporter(endpoint=endpoint, insecure=not secure, headers=extra, timeout=timeout)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as error:  # pragma: no cover - the tracing extra installs it
        raise ConfigurationError(
            "otlp_exporter needs opentelemetry-exporter-otlp-proto-http:"
            " pip install 'procession[tracing]'"
        ) from error
    return OTLPSpanExporter(endpoint=endpoint, headers=extra, timeout=timeout)


def trace_store(database: Any, *, schema: str | None = None) -> TraceStore:
    """The trace store for a database: the one memory uses, or one of its own.

    Args:
        database: A memory storage (``SQLiteStorage`` or ``PostgresStorage``), whose database
            (and schema) the spans then share; a PostgreSQL URL (``postgresql://...``); or a
            SQLite file path.
        schema: The PostgreSQL schema (default: the storage's, else ``public``).

    Raises:
        ConfigurationError: ``database`` is none of these, or is an in-memory SQLite storage
            (a ``:memory:`` database cannot be shared between connections).
    """
    from procession.tracing.sqlite import SQLiteTraceStore

    if isinstance(database, str | os.PathLike) and not str(database).startswith(_POSTGRES_URL):
        return SQLiteTraceStore(database)
    dsn, own_schema = _postgres_target(database)
    if dsn is None:
        path = getattr(database, "path", None)
        if type(database).__name__ != "SQLiteStorage" or not isinstance(path, str):
            raise wrong(
                "trace_store database",
                database,
                "a SQLiteStorage, a PostgresStorage, a postgresql:// URL or a file path",
            )
        if path == ":memory:":
            raise ConfigurationError(
                "trace_store: an in-memory SQLiteStorage cannot share its database;"
                " give a file path (or ':memory:' for a private store)"
            )
        return SQLiteTraceStore(path)
    from procession.tracing.postgres import PostgresTraceStore

    return PostgresTraceStore(dsn, schema=schema or own_schema or "public")


def _postgres_target(database: object) -> tuple[str | None, str | None]:
    """The DSN and schema of a PostgreSQL URL or ``PostgresStorage``, else ``(None, None)``."""
    if isinstance(database, str):
        return database, None
    if type(database).__name__ == "PostgresStorage":
        dsn, schema = getattr(database, "dsn", None), getattr(database, "schema", None)
        if isinstance(dsn, str) and isinstance(schema, str):
            return dsn, schema
    return None, None


def _exporter(choice: object) -> SpanExporter:
    if isinstance(choice, SpanExporter):
        return choice
    if choice == "console":
        return console_exporter()
    if choice == "otlp":
        return otlp_exporter()
    if choice == "otlp-grpc":
        return otlp_exporter(protocol="grpc")
    raise wrong(
        "configure_tracing exporter",
        choice,
        "'console', 'otlp', 'otlp-grpc', a trace store or a SpanExporter",
    )


def configure_tracing(
    *exporters: ExporterChoice,
    service_name: str = "procession",
    resource_attributes: Mapping[str, str | bool | int | float] | None = None,
    sampler: Sampler | None = None,
    set_global: bool = True,
    capture_content: bool | None = None,
) -> TracerProvider:
    """Build an SDK tracer provider exporting procession's spans, and (by default) install it.

    Each exporter gets its own ``BatchSpanProcessor``, so no export runs on the loop's path.
    Call ``provider.shutdown()`` (also run at interpreter exit) to flush what is queued.

    Args:
        exporters: One or more of ``"console"``, ``"otlp"`` (HTTP/protobuf, endpoint from
            ``OTEL_EXPORTER_OTLP_*``), ``"otlp-grpc"``, a trace store (:func:`trace_store`),
            or any ``SpanExporter`` (:func:`otlp_exporter` for an explicit endpoint).
        service_name: The resource's ``service.name``.
        resource_attributes: More resource attributes (``deployment.environment``, ...).
        sampler: The SDK sampler (default: the SDK's, every span sampled unless
            ``OTEL_TRACES_SAMPLER`` says otherwise).
        set_global: Install the provider as OpenTelemetry's global tracer provider, which the
            loop's tracer follows. OpenTelemetry lets it be set once per process.
        capture_content: Record content on spans (error messages, which may quote what the
            output lane hid from the client): ``True`` opts in; ``None`` (default) follows
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (off unless ``true``).
            By default spans name an error's type only.

    Raises:
        ConfigurationError: no exporter, an unknown exporter, a bad argument, or
            ``set_global`` when a global SDK provider is already installed.
    """
    if not exporters:
        raise ConfigurationError(
            "configure_tracing: give at least one exporter ('console', 'otlp', 'otlp-grpc',"
            " a trace store or a SpanExporter)"
        )
    if not isinstance(service_name, str) or not service_name:
        raise wrong("configure_tracing service_name", service_name, "a non-empty string")
    if sampler is not None and not isinstance(sampler, Sampler):
        raise wrong("configure_tracing sampler", sampler, "an OpenTelemetry Sampler or None")
    install = check_flag("configure_tracing set_global", set_global)
    if install and not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        raise ConfigurationError(
            "configure_tracing: a global tracer provider is already installed (OpenTelemetry"
            " allows one per process); pass set_global=False, or add the exporter to that"
            " provider with provider.add_span_processor(BatchSpanProcessor(exporter))"
        )
    from procession.tracing._spans import capture_content as capture

    if capture_content is not None:
        capture(capture_content)
    resource = Resource.create({**_attributes(resource_attributes), "service.name": service_name})
    chosen = [_exporter(choice) for choice in exporters]
    provider = TracerProvider(resource=resource, sampler=sampler)
    for exporter in chosen:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    if install:
        trace.set_tracer_provider(provider)
    return provider


def _attributes(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str | bool | int | float) for k, v in value.items()
    ):
        raise wrong(
            "configure_tracing resource_attributes",
            value,
            "a mapping of strings to str, bool, int or float",
        )
    return dict(value)
