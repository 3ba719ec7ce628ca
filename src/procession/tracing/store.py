"""The trace store: an OpenTelemetry ``SpanExporter`` that keeps spans in the memory database.

Put it behind the SDK's ``BatchSpanProcessor`` (:func:`~procession.tracing.configure_tracing`
does): spans are then queued on the loop's side and written in batches by the processor's own
thread, never on the hot path. Both backends write a ``spans`` table with one row per span
(attributes and events as JSON) and index the run spans, so the read API can list runs by
agent, resource, thread and time, and rebuild one run's timeline or a whole trace:

- :class:`~procession.tracing.sqlite.SQLiteTraceStore`: a SQLite file (the one memory uses,
  or its own), on a worker thread;
- :class:`~procession.tracing.postgres.PostgresTraceStore`: PostgreSQL through asyncpg, so
  every replica of a server writes and reads the same traces.

The read API is async and may be awaited from any event loop.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from procession._checks import check_flag, check_int, wrong
from procession.errors import ConfigurationError, StorageError
from procession.tracing import _rows
from procession.tracing.records import RunSummary, RunTimeline, SpanRecord

__all__ = ["TraceStore"]

logger = logging.getLogger("procession.tracing")

_MAX_LIMIT = 10_000


def _ns(name: str, value: object) -> int | None:
    """A ``datetime`` (naive means UTC) as nanoseconds since the epoch, or ``None``."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise wrong(name, value, "a datetime or None")
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000


def _text(name: str, value: object) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise wrong(name, value, "a non-empty string or None")
    return value


def _required(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise wrong(name, value, "a non-empty string")
    return value


class TraceStore(SpanExporter, abc.ABC):
    """A ``SpanExporter`` writing to a ``spans`` table, with a read API for runs and traces.

    Subclasses supply the database work: :meth:`_insert` (called on the span processor's
    thread), :meth:`_fetch`, :meth:`_execute` and :meth:`_close`. The SQL here uses ``?``
    placeholders and :meth:`_json` for reading JSON columns.
    """

    def __init__(self) -> None:
        self._shut = False

    # -- the exporter --------------------------------------------------------------------

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Write a batch of finished spans (called by the span processor's worker thread)."""
        if self._shut:
            return SpanExportResult.FAILURE
        try:
            rows = [_rows.span_row(span) for span in spans]
            if rows:
                self._insert(rows)
        except StorageError as error:  # it names the store
            logger.warning("%s (%d spans dropped)", error, len(spans))
            return SpanExportResult.FAILURE
        except Exception as error:  # an exporter must not raise into the SDK
            logger.warning("%r: %d spans dropped: %r", self, len(spans), error)
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Nothing is buffered here: every ``export`` call has written its batch."""
        return True

    def shutdown(self) -> None:
        """Stop accepting spans and close the database (the provider's shutdown calls it)."""
        if not self._shut:
            self._shut = True
            self._close()

    async def close(self) -> None:
        """Close the store; its read API raises :class:`StorageError` afterwards."""
        self.shutdown()

    # -- the read API --------------------------------------------------------------------

    async def list_runs(
        self,
        *,
        agent_id: str | None = None,
        resource_id: str | None = None,
        thread_id: str | None = None,
        outcome: str | None = None,
        parent_run_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_internal: bool = False,
        limit: int = 50,
    ) -> list[RunSummary]:
        """Runs that started in ``[since, until)``, newest first.

        Args:
            agent_id: Only this agent's runs.
            resource_id: Only runs for this resource (user, tenant).
            thread_id: Only runs on this memory thread.
            outcome: Only runs that ended this way (``finish``, ``tripwire``, ``abort``,
                ``error``).
            parent_run_id: Only the internal runs (judges, structuring) this run started; pass
                ``include_internal=True`` with it.
            since: Earliest start (naive datetimes are UTC).
            until: Start before this (pass the last run's ``start`` to page on).
            include_internal: Include judge and structuring runs.
            limit: Most runs returned, 1 to 10,000.

        Raises:
            ConfigurationError: an argument of the wrong type or out of range.
        """
        where = ["run_id IS NOT NULL"]
        params: list[Any] = []
        filters = (
            ("agent_id", agent_id),
            ("resource_id", resource_id),
            ("thread_id", thread_id),
            ("outcome", outcome),
            ("parent_run_id", parent_run_id),
        )
        for column, value in filters:
            if _text(column, value) is not None:
                where.append(f"{column} = ?")
                params.append(value)
        for column, op, moment in (("since", ">=", since), ("until", "<", until)):
            bound = _ns(column, moment)
            if bound is not None:
                where.append(f"start_ns {op} ?")
                params.append(bound)
        if not check_flag("include_internal", include_internal):
            where.append("NOT internal")
        count = check_int("limit", limit, minimum=1)
        if count > _MAX_LIMIT:
            raise wrong("limit", limit, f"an int between 1 and {_MAX_LIMIT}")
        sql = (
            f"SELECT {', '.join(_rows.RUN_COLUMNS)} FROM spans WHERE {' AND '.join(where)}"
            " ORDER BY start_ns DESC, span_id LIMIT ?"
        )
        return [_rows.run_summary(row) for row in await self._fetch(sql, [*params, count])]

    async def get_run(self, run_id: str) -> RunSummary | None:
        """The run with this id, or ``None`` if its run span is not stored (yet)."""
        sql = f"SELECT {', '.join(_rows.RUN_COLUMNS)} FROM spans WHERE run_id = ? LIMIT 1"
        rows = await self._fetch(sql, [_required("run_id", run_id)])
        return _rows.run_summary(rows[0]) if rows else None

    async def get_trace(self, trace_id: str) -> list[SpanRecord]:
        """Every stored span of a trace (32 hex digits), in start order."""
        sql = f"SELECT {self._span_columns()} FROM spans WHERE trace_id = ? ORDER BY start_ns"
        trace = _required("trace_id", trace_id).lower()
        return [_rows.span_record(row) for row in await self._fetch(sql, [trace])]

    async def run_timeline(self, run_id: str) -> RunTimeline | None:
        """The run span and every span under it (steps, hooks, model and tool calls, and spans
        processors opened) as a depth-first tree with depths; ``None`` if the run span is not
        stored."""
        run = await self.get_run(run_id)
        if run is None:
            return None
        return _rows.timeline(run, await self.get_trace(run.trace_id))

    async def prune(self, *, before: datetime) -> int:
        """Delete every trace whose last span ended before ``before``; the spans deleted."""
        cutoff = _ns("before", before)
        if cutoff is None:
            raise ConfigurationError("before: expected a datetime, got None")
        sql = (
            "DELETE FROM spans WHERE trace_id IN"
            " (SELECT trace_id FROM spans GROUP BY trace_id HAVING max(end_ns) < ?)"
        )
        return await self._execute(sql, [cutoff])

    # -- what a backend supplies ---------------------------------------------------------

    def _span_columns(self) -> str:
        return ", ".join(self._json(c) if c in ("attributes", "events") else c for c in _SPAN)

    def _json(self, column: str) -> str:
        """How to select a JSON column as text."""
        return column

    def _closed_error(self) -> StorageError:
        return StorageError(f"{self!r} is closed")

    @abc.abstractmethod
    def _insert(self, rows: list[_rows.Row]) -> None:
        """Insert rows (in :data:`_rows.COLUMNS` order), skipping spans already stored."""

    @abc.abstractmethod
    async def _fetch(self, sql: str, params: list[Any]) -> list[Sequence[Any]]:
        """Run a query, returning its rows."""

    @abc.abstractmethod
    async def _execute(self, sql: str, params: list[Any]) -> int:
        """Run a statement in a transaction, returning the rows it changed."""

    @abc.abstractmethod
    def _close(self) -> None:
        """Release the connection(s) and the worker."""


_SPAN = _rows.SPAN_COLUMNS
