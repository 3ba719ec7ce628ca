"""OpenTelemetry tracing for procession: setup helpers, exporters and the trace store.

The loop emits spans through the OpenTelemetry API under the tracer ``procession`` (names in
:mod:`procession.tracing.attributes`); with no tracer provider configured it does no tracing
work. This package sets up the SDK (the ``tracing`` extra) and keeps spans where the Studio
reads them::

    from procession.tracing import configure_tracing, trace_store

    store = trace_store("app.db")              # or a PostgreSQL URL, or memory's storage
    configure_tracing("otlp", store)            # OTLP/HTTP from OTEL_EXPORTER_OTLP_* too

    runs = await store.list_runs(agent_id="support")
    timeline = await store.run_timeline(runs[0].run_id)

``use_tracer_provider(provider)`` traces procession's runs with a provider that is not
OpenTelemetry's global one (``configure_tracing(..., set_global=False)`` builds such a one).

The SDK-backed names load on first use; without the SDK they raise a
:class:`~procession.errors.ConfigurationError` saying what to install. See
``docs/tracing.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from procession.errors import ConfigurationError
from procession.tracing._spans import capture_content, capturing_content, use_tracer_provider

if TYPE_CHECKING:
    from procession.tracing import attributes
    from procession.tracing.postgres import PostgresTraceStore
    from procession.tracing.records import (
        HookCall,
        RunSummary,
        RunTimeline,
        SpanEvent,
        SpanRecord,
        TimelineEntry,
    )
    from procession.tracing.setup import (
        ExporterChoice,
        configure_tracing,
        console_exporter,
        otlp_exporter,
        trace_store,
    )
    from procession.tracing.sqlite import SQLiteTraceStore
    from procession.tracing.store import TraceStore

__all__ = [
    "ExporterChoice",
    "HookCall",
    "PostgresTraceStore",
    "RunSummary",
    "RunTimeline",
    "SQLiteTraceStore",
    "SpanEvent",
    "SpanRecord",
    "TimelineEntry",
    "TraceStore",
    "attributes",
    "capture_content",
    "capturing_content",
    "configure_tracing",
    "console_exporter",
    "otlp_exporter",
    "trace_store",
    "use_tracer_provider",
]

_LAZY = {
    "attributes": "attributes",
    "HookCall": "records",
    "RunSummary": "records",
    "RunTimeline": "records",
    "SpanEvent": "records",
    "SpanRecord": "records",
    "TimelineEntry": "records",
    "ExporterChoice": "setup",
    "configure_tracing": "setup",
    "console_exporter": "setup",
    "otlp_exporter": "setup",
    "trace_store": "setup",
    "TraceStore": "store",
    "SQLiteTraceStore": "sqlite",
    "PostgresTraceStore": "postgres",
}
"""Names loaded on first use: the records and attribute names (kept out of a run's import, which
needs only ``_spans``), and those whose modules import the OpenTelemetry SDK (or asyncpg)."""

_EXTRAS = {"asyncpg": "postgres"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'procession.tracing' has no attribute {name!r}")
    try:
        loaded = importlib.import_module(f"procession.tracing.{module}")
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        extra = _EXTRAS.get(missing, "tracing")
        raise ConfigurationError(
            f"procession.tracing.{name} needs {error.name}: pip install 'procession[{extra}]'"
        ) from error
    return loaded if name == module else getattr(loaded, name)
