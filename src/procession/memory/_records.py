"""Row encoding shared by the storage backends: messages, metadata, ids and times."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from procession.errors import CorruptRecordError, MessageError, StorageError
from procession.messages.codec import message_from_dict, message_to_dict
from procession.messages.message import Message

__all__ = [
    "EncodedMessage",
    "as_utc",
    "check_id",
    "check_ids",
    "decode_message",
    "decode_metadata",
    "dedupe",
    "encode_message",
    "encode_metadata",
    "from_micros",
    "now",
    "to_micros",
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
    """``value`` when it is a non-empty string, else a ``StorageError`` naming ``what``."""
    if not isinstance(value, str) or not value:
        raise StorageError(f"{what} must be a non-empty string (got {value!r})")
    return value


def check_ids(values: Sequence[str], what: str) -> list[str]:
    """Every id checked, duplicates dropped, order kept."""
    if isinstance(values, str):
        raise StorageError(f"{what} must be a sequence of ids, not a string")
    return list(dict.fromkeys(check_id(v, what) for v in values))


def dedupe(messages: Sequence[Message]) -> list[Message]:
    """One message per id (the last one given), in the order the ids first appear."""
    by_id: dict[str, Message] = {}
    for message in messages:
        if not isinstance(message, Message):
            raise StorageError(f"save_turn takes Message objects (got {type(message).__name__})")
        by_id[check_id(message.id, "message id")] = message
    return list(by_id.values())


def encode_message(message: Message) -> EncodedMessage:
    """A message as its row: the stored JSON form without the thread and resource ids."""
    created_at = as_utc(message.created_at)
    body = message_to_dict(message)
    body.pop("threadId", None)
    body.pop("resourceId", None)
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return (message.id, message.role, message.type, created_at, text)


def decode_message(body: str, *, message_id: str, thread_id: str, resource_id: str) -> Message:
    """A row back as a message; a row that does not decode raises ``CorruptRecordError``."""
    try:
        data = json.loads(body)
        message = message_from_dict(data)
    except (ValueError, TypeError, MessageError) as error:
        raise CorruptRecordError(thread_id, message_id, str(error)) from None
    if message.id != message_id:
        raise CorruptRecordError(thread_id, message_id, f"body holds id {message.id!r}")
    message.thread_id = thread_id
    message.resource_id = resource_id
    return message


def encode_metadata(metadata: dict[str, Any] | None, what: str) -> str:
    """Metadata as JSON text; anything not JSON-encodable raises ``StorageError``."""
    if metadata is None:
        return "{}"
    if not isinstance(metadata, dict):
        raise StorageError(f"{what} metadata must be a dict (got {type(metadata).__name__})")
    try:
        return json.dumps(metadata, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise StorageError(f"{what} metadata is not JSON-encodable: {error}") from None


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
