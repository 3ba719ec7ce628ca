"""What the SQL backends share: the checks each call starts with, the statements both
dialects run, and the conversion between rows and records.

The statements are written once with PostgreSQL's numbered placeholders (``$1``);
:func:`for_sqlite` turns them into SQLite's numbered ones (``?1``), which bind the same
arguments by position. The dialects differ only where they must, and that stays in their
modules: how a time is stored (``timestamptz`` against integer microseconds, so each row
converter takes the backend's ``when``), PostgreSQL's row locks and array parameters, and
SQLite's single worker thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from procession.memory import _records as rec
from procession.memory import ledger
from procession.memory.ledger import UsageRecord
from procession.memory.storage import Resource, Thread
from procession.memory.vectors import to_blob
from procession.messages.message import Message, new_id

__all__ = [
    "BUMP_FENCE",
    "CURSOR",
    "UPSERT_RESOURCE_WORKING_MEMORY",
    "UPSERT_USAGE",
    "UPSERT_VECTORS",
    "USAGE_COLUMNS",
    "UsageFilters",
    "check_thread_ref",
    "check_working_memory_ref",
    "for_sqlite",
    "history_window",
    "messages_from_rows",
    "neighbour_window",
    "new_thread",
    "resource_from_row",
    "thread_from_row",
    "thread_patch",
    "usage_filters",
    "usage_from_row",
    "usage_values",
    "usage_where",
    "vector_query",
]

When = Callable[[Any], Any]
"""A backend's conversion of a stored time to or from a ``datetime``."""

UsageFilters = dict[str, Any]
"""The ledger queries' filters by name (``ledger.usage_filter``'s keywords)."""


def for_sqlite(sql: str) -> str:
    """The statement with ``$n`` placeholders written as SQLite's ``?n`` (the shared
    statements hold no ``$`` inside a string literal)."""
    return re.sub(r"\$(\d+)", r"?\1", sql)


BUMP_FENCE = """
INSERT INTO thread_fences (thread_id, token) VALUES ($1, 1)
ON CONFLICT (thread_id) DO UPDATE SET token = thread_fences.token + 1
RETURNING token
"""
"""Take the thread's next fencing token (``$1``: the thread)."""

CURSOR = "SELECT created_at, seq FROM messages WHERE id = $1 AND thread_id = $2"
"""Where a ``before=`` message id stands in its thread."""

UPSERT_RESOURCE_WORKING_MEMORY = (
    "INSERT INTO resources (id, working_memory, updated_at) VALUES ($1, $2, $3)"
    " ON CONFLICT (id) DO UPDATE SET working_memory = excluded.working_memory,"
    " updated_at = excluded.updated_at"
)
"""Set a resource's working memory (``$1`` id, ``$2`` text, ``$3`` time)."""

UPSERT_VECTORS = (
    "INSERT INTO vectors (message_id, thread_id, resource_id, vector)"
    " VALUES ($1, $2, $3, $4) ON CONFLICT (message_id) DO UPDATE SET"
    " thread_id = excluded.thread_id, vector = excluded.vector"
    " WHERE vectors.resource_id = excluded.resource_id"
)
"""Store one embedding; a message's vector never moves to another resource."""

USAGE_COLUMNS = (
    "run_id, agent_id, model, input_tokens, output_tokens, total_tokens, reasoning_tokens,"
    " cached_input_tokens, cost, currency, resource_id, thread_id, created_at"
)
"""The ledger's columns, in the order of :func:`usage_values` and :func:`usage_from_row`."""
_USAGE_NAMES = tuple(name.strip() for name in USAGE_COLUMNS.split(","))

UPSERT_USAGE = f"""
INSERT INTO usage_ledger ({USAGE_COLUMNS})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (run_id) DO UPDATE SET
    agent_id = excluded.agent_id, model = excluded.model,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    total_tokens = excluded.total_tokens, reasoning_tokens = excluded.reasoning_tokens,
    cached_input_tokens = excluded.cached_input_tokens, cost = excluded.cost,
    currency = excluded.currency, resource_id = excluded.resource_id,
    thread_id = excluded.thread_id, created_at = excluded.created_at
"""
"""Write a run's usage row, replacing one of the same run id."""


# -- the checks a call starts with ------------------------------------------------------------


def check_thread_ref(thread_id: object, resource_id: object) -> None:
    """A call naming one thread of one resource: both ids checked."""
    rec.check_id(thread_id, "thread_id")
    rec.check_id(resource_id, "resource_id")


def check_working_memory_ref(resource_id: object, thread_id: object) -> None:
    """Working memory of a resource, or of one of its threads."""
    rec.check_id(resource_id, "resource_id")
    if thread_id is not None:
        rec.check_id(thread_id, "thread_id")


def new_thread(
    resource_id: str, thread_id: str | None, title: str | None, metadata: dict[str, Any] | None
) -> tuple[str, str]:
    """``create_thread``'s arguments checked: the thread's id (a new one when not given) and
    its metadata as JSON."""
    rec.check_id(resource_id, "resource_id")
    tid = rec.check_id(thread_id, "thread_id") if thread_id is not None else new_id("thread")
    rec.check_text(title, "title", thread_id=tid)
    return tid, rec.encode_metadata(metadata, "metadata", thread_id=tid)


def thread_patch(
    thread_id: str, resource_id: str, title: str | None, metadata: dict[str, Any] | None
) -> str:
    """``update_thread``'s arguments checked; the metadata to merge, as JSON."""
    check_thread_ref(thread_id, resource_id)
    rec.check_text(title, "title", thread_id=thread_id)
    return rec.encode_metadata(metadata, "metadata", thread_id=thread_id)


def history_window(
    thread_id: str, resource_id: str, last: object, before: object
) -> tuple[int | None, datetime | str | None]:
    """``list_messages``'s arguments checked: how many of the latest, and before what."""
    check_thread_ref(thread_id, resource_id)
    return rec.check_history(last, before)


def neighbour_window(
    thread_id: str, resource_id: str, message_ids: Sequence[str], before: object, after: object
) -> tuple[list[str], int, int]:
    """``list_messages_around``'s arguments checked: the anchors and how many each side."""
    check_thread_ref(thread_id, resource_id)
    ids = rec.check_ids(message_ids, "message id")
    return (ids, *rec.check_range(before, after))


def vector_query(
    vector: Sequence[float],
    resource_id: str,
    thread_id: str | None,
    top_k: object,
    threshold: object,
) -> tuple[int, float | None]:
    """``query_vectors``'s arguments checked: ``top_k`` and the threshold."""
    to_blob(vector)
    check_working_memory_ref(resource_id, thread_id)
    return rec.check_query(top_k, threshold)


# -- rows and records -------------------------------------------------------------------------


def thread_from_row(row: Any, when: When) -> Thread:
    """A thread from ``id, resource_id, title, metadata, created_at, updated_at``."""
    tid, resource_id, title, metadata, created_at, updated_at = tuple(row)
    return Thread(
        id=tid,
        resource_id=resource_id,
        title=title,
        metadata=rec.decode_metadata(metadata, thread_id=tid),
        created_at=when(created_at),
        updated_at=when(updated_at),
    )


def resource_from_row(
    resource_id: str, working_memory: str | None, metadata: str | None
) -> Resource:
    """A resource from its working memory and its metadata's JSON."""
    meta = rec.decode_metadata(metadata, resource_id=resource_id)
    return Resource(id=resource_id, working_memory=working_memory, metadata=meta)


def messages_from_rows(rows: Iterable[Any], thread_id: str, resource_id: str) -> list[Message]:
    """Messages of one thread from ``(id, body)`` rows."""
    return rec.decode_messages(list(rows), thread_id=thread_id, resource_id=resource_id)


def usage_values(record: UsageRecord, when: When) -> tuple[Any, ...]:
    """A ledger row's values, in :data:`USAGE_COLUMNS`' order."""
    return (
        record.run_id,
        record.agent_id,
        record.model,
        record.input_tokens,
        record.output_tokens,
        record.total_tokens,
        record.reasoning_tokens,
        record.cached_input_tokens,
        None if record.cost is None else float(record.cost),
        record.currency,
        record.resource_id,
        record.thread_id,
        when(record.created_at),
    )


def usage_from_row(row: Any, when: When) -> UsageRecord:
    """A usage record from a row of :data:`USAGE_COLUMNS`."""
    fields = dict(zip(_USAGE_NAMES, tuple(row), strict=True))
    fields["created_at"] = when(fields["created_at"])
    return UsageRecord(**fields)


def usage_filters(
    resource_id: str | None,
    thread_id: str | None,
    run_id: str | None,
    agent_id: str | None,
    since: datetime | None,
    until: datetime | None,
) -> UsageFilters:
    """A ledger query's filters by name, from its method's arguments."""
    return {
        "resource_id": resource_id,
        "thread_id": thread_id,
        "run_id": run_id,
        "agent_id": agent_id,
        "since": since,
        "until": until,
    }


def usage_where(first: int, filters: UsageFilters, when: When) -> tuple[str, tuple[Any, ...]]:
    """The ledger query's ``WHERE`` clause, numbering placeholders from ``$first``; times
    are passed through the backend's ``when``."""
    conditions = ledger.usage_filter(**filters)
    if not conditions:
        return "", ()
    sql = " AND ".join(
        f"{column} {operator} ${first + index}"
        for index, (column, operator, _) in enumerate(conditions)
    )
    args = tuple(
        when(value) if column == "created_at" else value for column, _, value in conditions
    )
    return f" WHERE {sql}", args
