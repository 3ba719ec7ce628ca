"""Row encoding shared by the storage backends: messages, metadata, ids and times."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from procession.errors import (
    ConfigurationError,
    CorruptRecordError,
    InvalidRecordError,
    MessageError,
    StorageError,
)
from procession.memory import _options as opt
from procession.memory.limits import check_key, check_text, encode_body, json_text
from procession.memory.storage import VectorItem, WorkingMemoryUpdate
from procession.memory.vectors import to_blob
from procession.messages.codec import message_from_dict
from procession.messages.message import Message

__all__ = [
    "EncodedMessage",
    "Turn",
    "VectorRow",
    "as_utc",
    "check_history",
    "check_id",
    "check_ids",
    "check_page",
    "check_query",
    "check_range",
    "check_text",
    "check_working_memory",
    "decode_message",
    "decode_messages",
    "decode_metadata",
    "encode_message",
    "encode_messages",
    "encode_metadata",
    "from_micros",
    "now",
    "prepare_turn",
    "to_micros",
    "vector_rows",
]

EncodedMessage = tuple[str, str, str | None, datetime, str]
"""``(id, role, type, created_at, body_json)``; the body has no thread or resource id."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now() -> datetime:
    """The current time in UTC, with microseconds."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """``value`` with a time zone (naive datetimes are UTC)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def to_micros(value: datetime) -> int:
    """Microseconds since the epoch (naive datetimes are UTC): exact and sortable."""
    delta = as_utc(value) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    """The inverse of :func:`to_micros`, in UTC."""
    return datetime.fromtimestamp(value // 1_000_000, UTC).replace(microsecond=value % 1_000_000)


def check_id(value: object, what: str) -> str:
    """``value`` when it is a non-empty string every backend can store (``InvalidRecordError``,
    a ``StorageError``, naming ``what`` if not)."""
    return check_key(value, what)


def check_ids(values: Sequence[str], what: str) -> list[str]:
    """Every id checked, duplicates dropped, order kept."""
    if isinstance(values, str):
        raise StorageError(f"{what} must be a sequence of ids, not a string")
    return list(dict.fromkeys(check_id(v, what) for v in values))


def encode_messages(messages: Sequence[object], thread_id: str) -> list[EncodedMessage]:
    """Each message encoded and checked (:func:`encode_message`); one row per id (the last
    one given), in the order the ids first appear."""
    if isinstance(messages, str | bytes | dict | Message):
        raise InvalidRecordError("messages", "must be a list of Message objects", messages)
    rows: dict[str, EncodedMessage] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, Message):
            where = f"messages[{index}]"
            raise InvalidRecordError(where, "must be a Message", message, thread_id=thread_id)
        row = encode_message(message, thread_id)
        rows[row[0]] = row
    return list(rows.values())


def encode_message(message: Message, thread_id: str) -> EncodedMessage:
    """A message as its row: the stored JSON form without the thread and resource ids.

    A message a later run could not load, or with a value a backend cannot store, raises
    ``InvalidRecordError`` naming the thread, the message and the field (D30, D34).
    """
    text = encode_body(message, thread_id=thread_id)
    return (message.id, message.role, message.type, as_utc(message.created_at), text)


def decode_message(body: str, *, message_id: str, thread_id: str, resource_id: str) -> Message:
    """A row back as a message; a row that does not decode raises ``CorruptRecordError``."""
    try:
        data = json.loads(body)
    except (ValueError, TypeError) as error:
        raise CorruptRecordError(thread_id, message_id, str(error)) from None
    return _message(data, message_id, thread_id, resource_id)


def decode_messages(
    rows: Sequence[Sequence[Any]], *, thread_id: str, resource_id: str
) -> list[Message]:
    """Rows ``(id, body)`` of one thread back as messages, as :func:`decode_message` reads each.

    The bodies are parsed with one ``json.loads`` of their JSON array (a third of the cost of
    a call per row). When that fails, or does not give one valid message with the row's id per
    row, every row is decoded on its own, so a corrupt one fails with the same error as before.
    """
    if not rows:
        return []
    try:
        data = json.loads("[" + ",".join([row[1] for row in rows]) + "]")
    except (ValueError, TypeError):
        data = None
    if isinstance(data, list) and len(data) == len(rows):
        try:
            return [
                _message(item, row[0], thread_id, resource_id)
                for row, item in zip(rows, data, strict=True)
            ]
        except CorruptRecordError:
            pass
    return [
        decode_message(row[1], message_id=row[0], thread_id=thread_id, resource_id=resource_id)
        for row in rows
    ]


def _message(data: object, message_id: str, thread_id: str, resource_id: str) -> Message:
    """A parsed body as a message of ``thread_id``, decoded with the codec's rules (D30)."""
    if isinstance(data, dict) and "threadId" not in data and "resourceId" not in data:
        data["threadId"] = thread_id  # set while decoding: built whole, nothing assigned after
        data["resourceId"] = resource_id
        stamped = True
    else:
        stamped = False
    try:
        message = message_from_dict(data)
    except (ValueError, TypeError, MessageError) as error:
        raise CorruptRecordError(thread_id, message_id, str(error)) from None
    if message.id != message_id:
        raise CorruptRecordError(thread_id, message_id, f"body holds id {message.id!r}")
    if not stamped:
        message.thread_id = thread_id
        message.resource_id = resource_id
    return message


def encode_metadata(
    metadata: dict[str, Any] | None, path: str, *, thread_id: str | None = None
) -> str:
    """Metadata as JSON text; anything but storable JSON raises ``InvalidRecordError``."""
    if metadata is None:
        return "{}"
    if not isinstance(metadata, dict):
        raise InvalidRecordError(path, "must be a dict", metadata, thread_id=thread_id)
    return json_text(metadata, path, thread_id=thread_id)


def check_working_memory(update: object) -> WorkingMemoryUpdate | None:
    """A ``save_turn`` working-memory update, its thread id and text checked."""
    if update is None:
        return None
    if not isinstance(update, WorkingMemoryUpdate):
        raise InvalidRecordError("working_memory", "must be a WorkingMemoryUpdate", update)
    if update.thread_id is not None:
        check_id(update.thread_id, "working_memory.thread_id")
    check_text(update.text, "working_memory", thread_id=update.thread_id)
    return update


VectorRow = tuple[str, str, str, bytes]
"""``(message_id, thread_id, resource_id, float32 blob)``."""


def vector_rows(items: Sequence[VectorItem]) -> list[VectorRow]:
    """Vectors as rows, every id and vector checked."""
    return [
        (
            check_id(mid, "message id"),
            check_id(tid, "thread_id"),
            check_id(rid, "resource_id"),
            to_blob(vector),
        )
        for mid, tid, rid, vector in items
    ]


@dataclass(slots=True, frozen=True)
class Turn:
    """A ``save_turn`` call with everything checked and encoded, before any write."""

    messages: list[EncodedMessage]
    working_memory: WorkingMemoryUpdate | None
    vectors: list[VectorRow]

    @property
    def ids(self) -> list[str]:
        """The message ids, in order."""
        return [row[0] for row in self.messages]


def prepare_turn(
    thread_id: str,
    resource_id: str,
    messages: Sequence[Message],
    working_memory: WorkingMemoryUpdate | None,
    vectors: Sequence[VectorItem],
) -> Turn:
    """Check and encode a whole turn, so a refused one writes nothing (D13, D30, D34)."""
    check_id(thread_id, "thread_id")
    check_id(resource_id, "resource_id")
    encoded = encode_messages(messages, thread_id)
    return Turn(encoded, check_working_memory(working_memory), vector_rows(vectors))


def decode_metadata(
    text: str | None, *, thread_id: str | None = None, resource_id: str | None = None
) -> dict[str, Any]:
    """Stored metadata back as a dict; a bad row raises ``CorruptRecordError`` (for a thread)
    or ``StorageError`` (for a resource)."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as error:
        problem = f"metadata is not JSON: {error}"
    else:
        if isinstance(value, dict):
            return value
        problem = "metadata is not a JSON object"
    if thread_id is not None:
        raise CorruptRecordError(thread_id, None, problem)
    raise StorageError(f"corrupt stored row (resource {resource_id!r}): {problem}")


# -- call options (D35): the same checks on every backend -------------------------------------


def check_page(limit: object, offset: object) -> tuple[int | None, int]:
    """``list_threads``' ``limit`` (``None`` or >= 0) and ``offset`` (>= 0)."""
    return (
        opt.optional_integer("list_threads", "limit", limit, 0),
        opt.integer("list_threads", "offset", offset, 0),
    )


def check_history(last: object, before: object) -> tuple[int | None, datetime | str | None]:
    """``list_messages``' ``last`` (``None`` or >= 0) and ``before`` (datetime, id or None)."""
    count = opt.optional_integer("list_messages", "last", last, 0)
    if before is None or isinstance(before, datetime):
        return count, before
    if isinstance(before, str):
        return count, check_id(before, "before")
    raise ConfigurationError(
        f"list_messages: before must be a datetime, a message id or None (got {before!r})"
    )


def check_range(before: object, after: object) -> tuple[int, int]:
    """``list_messages_around``' ``before`` and ``after`` (ints >= 0)."""
    return (
        opt.integer("list_messages_around", "before", before, 0),
        opt.integer("list_messages_around", "after", after, 0),
    )


def check_query(top_k: object, threshold: object) -> tuple[int, float | None]:
    """``query_vectors``' ``top_k`` (>= 1) and ``threshold`` (``None`` or in [-1, 1])."""
    k = opt.integer("query_vectors", "top_k", top_k, 1)
    if threshold is None:
        return k, None
    return k, opt.number("query_vectors", "threshold", threshold, -1.0, 1.0)
