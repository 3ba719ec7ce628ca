"""The SQL both backends share (``procession.memory._backend``): written once with
PostgreSQL's placeholders, rewritten for SQLite, and the same rows and records either way."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from procession.errors import StorageError
from procession.memory import _backend as sh
from procession.memory import _records as rec
from procession.memory.ledger import UsageRecord


def test_placeholders_become_sqlites_numbered_ones_and_bind_by_number() -> None:
    assert sh.for_sqlite("SELECT $2, $1, $10") == "SELECT ?2, ?1, ?10"
    conn = sqlite3.connect(":memory:")
    args = tuple(str(n) for n in range(1, 11))
    assert conn.execute(sh.for_sqlite("SELECT $2, $1, $10"), args).fetchone() == ("2", "1", "10")


def test_the_usage_filter_numbers_from_the_first_free_placeholder() -> None:
    since = datetime(2026, 1, 2, tzinfo=UTC)
    filters = sh.usage_filters("r", None, None, "a", since, None)
    where, args = sh.usage_where(2, filters, rec.to_micros)
    assert where == " WHERE resource_id = $2 AND agent_id = $3 AND created_at >= $4"
    assert args == ("r", "a", rec.to_micros(since))
    assert sh.usage_where(
        1, sh.usage_filters(None, None, None, None, None, None), rec.to_micros
    ) == (
        "",
        (),
    )
    with pytest.raises(StorageError, match="thread_id"):
        sh.usage_where(1, sh.usage_filters(None, "", None, None, None, None), rec.to_micros)


def test_a_usage_record_survives_its_row_in_either_time_form() -> None:
    record = UsageRecord(
        run_id="run-1",
        agent_id="agent",
        model="m",
        input_tokens=3,
        output_tokens=4,
        total_tokens=7,
        reasoning_tokens=1,
        cached_input_tokens=2,
        cost=None,
        currency="USD",
        resource_id="r",
        thread_id="t",
        created_at=datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=UTC),
    )
    micros = sh.usage_values(record, rec.to_micros)
    assert isinstance(micros[-1], int)
    assert sh.usage_from_row(micros, rec.from_micros) == record
    assert sh.usage_from_row(sh.usage_values(record, rec.as_utc), rec.as_utc) == record
