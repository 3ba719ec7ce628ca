"""What every storage backend accepts, checked the same way on each (D30, D34).

A record is refused, with :class:`~procession.errors.InvalidRecordError` naming the thread,
the message id and the field, when

* a later run could not load it: a field the codec would refuse on read (the rules of
  :func:`~procession.messages.validate_messages`, D24);
* it is not JSON: a value ``json`` cannot encode (a set, an object), or a number that is not
  finite (``NaN`` is not JSON, and PostgreSQL's ``jsonb`` refuses it);
* a backend cannot hold one of its strings: a NUL character (PostgreSQL's ``text`` and
  ``jsonb`` cannot), or a lone surrogate (not valid Unicode, so not UTF-8: neither backend can).

The same rules hold for ids (thread, resource, message), titles, metadata and working
memory. :func:`check_storable` is the public check: memory calls it on a run's input before
any hook runs and on its output before the commit, and both shipped backends apply the same
rules inside ``save_turn`` and every other write, so a refusal looks the same on SQLite and
PostgreSQL and nothing of a refused call is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from procession.errors import InvalidRecordError
from procession.messages.codec import message_to_dict
from procession.messages.message import Message
from procession.messages.validation import Problem, message_problem

__all__ = [
    "NUL_PROBLEM",
    "SURROGATE_PROBLEM",
    "check_key",
    "check_storable",
    "check_text",
    "encode_body",
    "json_text",
    "text_problem",
]

NUL_PROBLEM = "contains a NUL character (\\x00), which storage cannot hold"
"""What a refused value with a NUL character is told (D34)."""
SURROGATE_PROBLEM = "contains a lone surrogate (not valid Unicode), which storage cannot hold"
"""What a refused value with a lone surrogate is told (D34)."""

_JSON_NUL = "\\u0000"  # how json.dumps writes a NUL character
_KEY_TYPES = (str, int, float, bool)


def _is_utf8(value: str) -> bool:
    """Whether ``value`` encodes as UTF-8: it holds no surrogate (ASCII is the fast path)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_problem(value: str) -> str | None:
    """Why a backend cannot store the string ``value``, or ``None`` when every backend can."""
    if "\x00" in value:
        return NUL_PROBLEM
    if not _is_utf8(value):
        return SURROGATE_PROBLEM
    return None


def check_key(value: object, what: str) -> str:
    """An id (``what`` names it): a non-empty string every backend can store."""
    if not isinstance(value, str) or not value:
        raise InvalidRecordError(what, "must be a non-empty string", value)
    problem = text_problem(value)
    if problem is not None:
        raise InvalidRecordError(what, problem, value)
    return value


def check_text(value: object, what: str, *, thread_id: str | None = None) -> str | None:
    """A text field such as a title or working memory: ``None`` or a storable string."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRecordError(what, "must be a string or None", value, thread_id=thread_id)
    problem = text_problem(value)
    if problem is not None:
        raise InvalidRecordError(what, problem, value, thread_id=thread_id)
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _json_problem(value: Any, path: str) -> Problem | None:
    """The first value below ``value`` that is not JSON every backend can store."""
    if value is None or isinstance(value, bool | int):
        return None
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else (path or "value", problem, value)
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "value", "must be a finite number", value)
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _json_problem(item, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, _KEY_TYPES) and key is not None:
                return (path or "value", "has a key that is not a string", key)
            problem = text_problem(key) if isinstance(key, str) else None
            if problem is not None:
                return (path or "value", f"has a key that {problem}", key)
            found = _json_problem(item, _join(path, str(key)))
            if found is not None:
                return found
        return None
    return (path or "value", f"is not JSON (a {type(value).__name__})", value)


def json_text(
    value: Any, path: str, *, thread_id: str | None = None, message_id: str | None = None
) -> str:
    """``value`` as compact JSON text every backend stores; ``InvalidRecordError`` if not.

    The common case costs one ``json.dumps``, a search for ``\\u0000`` and an ASCII test
    of the text; the value is walked only to name the offending field once something is
    wrong.
    """
    try:
        text: str | None = json.dumps(
            value, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
    except (TypeError, ValueError, RecursionError):
        text = None
    if text is not None and _JSON_NUL not in text and _is_utf8(text):
        return text
    try:
        problem = _json_problem(value, path)
    except RecursionError:  # a value that contains itself
        problem = None
    if problem is not None:
        raise InvalidRecordError(*problem, thread_id=thread_id, message_id=message_id)
    if text is None:
        raise InvalidRecordError(
            path or "message",  # only a message body is encoded from the root
            "is not JSON-encodable (it contains itself, or is nested too deeply)",
            thread_id=thread_id,
            message_id=message_id,
        )
    return text  # a literal backslash-u-0000 in some string, not a NUL


def encode_body(message: object, *, thread_id: str | None = None) -> str:
    """A message's stored JSON text, without its thread and resource ids.

    Raises :class:`~procession.errors.InvalidRecordError` naming thread, message and field
    when the message is not one a later run can load, or holds a value a backend cannot store.
    """
    problem = message_problem(message)
    if problem is not None:
        path, what, value = problem
        message_id = getattr(message, "id", None) if path != "id" else None
        raise InvalidRecordError(
            path or "message",
            what,
            value,
            thread_id=thread_id,
            message_id=message_id if isinstance(message_id, str) else None,
        )
    assert isinstance(message, Message)
    body = message_to_dict(message)
    body.pop("threadId", None)
    body.pop("resourceId", None)
    return json_text(body, "", thread_id=thread_id, message_id=message.id)


def check_storable(
    messages: Message | Iterable[Message] = (),
    *,
    thread_id: str | None = None,
    resource_id: str | None = None,
    working_memory: str | None = None,
) -> None:
    """Refuse what a storage backend could not store, or a later run could not load.

    Checks the ids given, a working-memory text, and each message (a ``Message`` or a list of
    them) with the rules of this module, and raises
    :class:`~procession.errors.InvalidRecordError` at the first problem, naming the thread,
    the message id and the field. Memory calls it on a run's input messages before any hook
    runs and on the messages it stores before it commits (D34); storage applies the same
    rules on write (D30), so the error is the same on every backend.
    """
    if thread_id is not None:
        check_key(thread_id, "thread_id")
    if resource_id is not None:
        check_key(resource_id, "resource_id")
    check_text(working_memory, "working_memory", thread_id=thread_id)
    items: Iterable[object] = (messages,) if isinstance(messages, Message) else messages
    if isinstance(items, str | bytes | dict) or not isinstance(items, Iterable):
        raise InvalidRecordError("messages", "must be a Message or a list of them", messages)
    for index, message in enumerate(items):
        if not isinstance(message, Message):
            where = f"messages[{index}]"
            raise InvalidRecordError(where, "must be a Message", message, thread_id=thread_id)
        encode_body(message, thread_id=thread_id)
