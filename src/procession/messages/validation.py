"""Validating live message objects with the rules the codec reads them with (D24, D30).

Messages and parts are plain mutable objects (D24), so a hook can leave one in a state the
codec would refuse on read: ``part.text = None``, a ``created_at`` that is a string, a
``ToolInvocation`` whose ``state`` is not a state. :func:`validate_messages` finds that on the
object itself, without encoding it, and names the message id and the field by its stored
(camelCase) name. A message it accepts encodes with :func:`~procession.messages.message_to_dict`
and decodes back with :func:`~procession.messages.message_from_dict`, which is what storage
does (the property is pinned by ``tests/messages/test_validation.py``).

It checks shapes and types only: whether every value is JSON that each backend can hold (no
NUL characters, no lone surrogates, finite numbers) is checked when a message is stored, by
:func:`procession.memory.check_storable`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from operator import attrgetter
from typing import Any, TypeAlias

from procession.errors import MessageError
from procession.messages.codec import KNOWN_PART_TYPES, part_from_dict
from procession.messages.message import ROLES, Message, MessageContent
from procession.messages.parts import (
    TOOL_INVOCATION_STATES,
    DataPart,
    ErrorPart,
    FilePart,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    UnknownPart,
)

__all__ = ["Problem", "message_problem", "validate_messages"]

Problem: TypeAlias = tuple[str, str, object]
"""``(path, problem, value)``: a field path relative to the message, what is wrong, the value."""

# A rule: (attribute, stored key, accepted types, may be None, what is expected).
_Rule: TypeAlias = tuple[str, str, type | tuple[type, ...], bool, str]

_STRING = "must be a string"
_BOOLEAN = "must be a boolean"
_NUMBER = "must be a number"
_OBJECT = "must be an object (a dict)"
_ARRAY = "must be an array (a list)"


def _str(attr: str, key: str) -> _Rule:
    return (attr, key, str, False, _STRING)


def _opt(attr: str, key: str, kind: type | tuple[type, ...], expected: str) -> _Rule:
    return (attr, key, kind, True, expected)


class _Rules:
    """Field rules of one kind of object. Problems carry paths relative to the object
    (``.text``); callers prefix them, so nothing is built while the fields are valid.

    A set of optional fields that are all ``None`` (the usual case) is recognised with one
    ``attrgetter`` call and one tuple comparison.
    """

    __slots__ = ("get", "nones", "rules")

    def __init__(self, *rules: _Rule) -> None:
        self.rules = rules
        names = [rule[0] for rule in rules]
        optional = len(names) > 1 and all(rule[3] for rule in rules)
        self.get: Callable[[object], object] | None = attrgetter(*names) if optional else None
        self.nones = (None,) * len(names)

    def problem(self, obj: object) -> Problem | None:
        if self.get is not None:
            try:
                if self.get(obj) == self.nones:
                    return None
            except (TypeError, ValueError):  # a value whose == raises: the slow path names it
                pass
        for attr, key, kind, optional, expected in self.rules:
            value = getattr(obj, attr)
            if value is None:
                if optional:
                    continue
            elif isinstance(value, kind) and not (expected is _NUMBER and isinstance(value, bool)):
                continue
            return (f".{key}", expected, value)
        return None


_COMMON = _Rules(
    _opt("provider_metadata", "providerMetadata", dict, _OBJECT),
    _opt("created_at", "createdAt", (int, float), _NUMBER),
    _opt("extra", "extra", dict, _OBJECT),
)

_INVOCATION = _Rules(
    _str("tool_call_id", "toolCallId"),
    _str("tool_name", "toolName"),
    _opt("is_error", "isError", bool, _BOOLEAN),
    _opt("error_text", "errorText", str, _STRING),
    _opt("approval", "approval", dict, _OBJECT),
    _opt("step", "step", (int, float), _NUMBER),
    _opt("extra", "extra", dict, _OBJECT),
)

_CONTENT = _Rules(
    _opt("content", "content", str, _STRING),
    _opt("tool_invocations", "toolInvocations", list, _ARRAY),
    _opt("reasoning", "reasoning", str, _STRING),
    _opt("experimental_attachments", "experimental_attachments", list, _ARRAY),
    _opt("annotations", "annotations", list, _ARRAY),
    _opt("metadata", "metadata", dict, _OBJECT),
    _opt("provider_metadata", "providerMetadata", dict, _OBJECT),
    _opt("extra", "extra", dict, _OBJECT),
)

_MESSAGE = _Rules(
    _opt("thread_id", "threadId", str, _STRING),
    _opt("resource_id", "resourceId", str, _STRING),
    _opt("type", "type", str, _STRING),
    _opt("extra", "extra", dict, _OBJECT),
)


def _prefixed(prefix: str, problem: Problem | None) -> Problem | None:
    return None if problem is None else (prefix + problem[0], problem[1], problem[2])


_SCALARS = (str, int, float, bool, type(None))


_MAX_DEPTH = 256


def _json_problem(value: object, path: str, depth: int = 0) -> Problem | None:
    """Where ``value`` holds something JSON cannot (a set, a tuple, an arbitrary object)."""
    if isinstance(value, _SCALARS):
        return None
    if depth > _MAX_DEPTH:
        return None  # a value that contains itself: storage's encoder names it (D30)
    if isinstance(value, list):
        for index, item in enumerate(value):
            problem = _json_problem(item, f"{path}[{index}]", depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return (path, "must have string keys", key)
            problem = _json_problem(item, f"{path}.{key}", depth + 1)
            if problem is not None:
                return problem
        return None
    return (path, f"is not JSON (a {type(value).__name__})", value)


def _tool_problem(part: Any) -> Problem | None:
    invocation = part.tool_invocation
    if not isinstance(invocation, ToolInvocation):
        return (".toolInvocation", "must be a ToolInvocation", invocation)
    state = invocation.state
    if not isinstance(state, str) or state not in TOOL_INVOCATION_STATES:
        states = ", ".join(sorted(TOOL_INVOCATION_STATES))
        return (".toolInvocation.state", f"must be one of {states}", state)
    problem = _prefixed(".toolInvocation", _INVOCATION.problem(invocation))
    if problem is None:
        problem = _json_problem(invocation.args, ".toolInvocation.args")
    if problem is None:
        problem = _json_problem(invocation.result, ".toolInvocation.result")
    return problem


def _reasoning_problem(part: Any) -> Problem | None:
    for index, detail in enumerate(part.details):
        if not isinstance(detail, dict) or detail.get("type") not in ("text", "redacted"):
            return (f".details[{index}]", "must be {type: 'text' | 'redacted', ...}", detail)
    return None


def _source_problem(part: Any) -> Problem | None:
    source_id = part.source.get("id")
    return None if isinstance(source_id, str) else (".source.id", _STRING, source_id)


def _data_problem(part: Any) -> Problem | None:
    if isinstance(part.type, str) and part.type.startswith("data-"):
        return _json_problem(part.data, ".data")
    return (".type", "must be a string starting with 'data-'", part.type)


_Special: TypeAlias = Callable[[Any], Problem | None] | None
# Per part class: its type tag (None: checked by the special check), its own fields, and the
# checks that are more than a field's type.
_PARTS: dict[type, tuple[str | None, _Rules, _Special]] = {
    TextPart: ("text", _Rules(_str("text", "text")), None),
    ReasoningPart: (
        "reasoning",
        _Rules(_str("reasoning", "reasoning"), ("details", "details", list, False, _ARRAY)),
        _reasoning_problem,
    ),
    ToolInvocationPart: (
        "tool-invocation",
        _Rules(
            _opt("provider_executed", "providerExecuted", bool, _BOOLEAN),
            _opt("title", "title", str, _STRING),
            _opt("preliminary", "preliminary", bool, _BOOLEAN),
        ),
        _tool_problem,
    ),
    SourcePart: ("source", _Rules(("source", "source", dict, False, _OBJECT)), _source_problem),
    SourceDocumentPart: (
        "source-document",
        _Rules(
            _str("source_id", "sourceId"),
            _str("media_type", "mediaType"),
            _str("title", "title"),
            _opt("filename", "filename", str, _STRING),
        ),
        None,
    ),
    FilePart: ("file", _Rules(_str("mime_type", "mimeType"), _str("data", "data")), None),
    StepStartPart: ("step-start", _Rules(_opt("model", "model", str, _STRING)), None),
    ErrorPart: ("error", _Rules(("error", "error", dict, False, _OBJECT)), None),
    DataPart: (None, _Rules(_opt("id", "id", str, _STRING)), _data_problem),
}


def _unknown_problem(part: UnknownPart) -> Problem | None:
    raw: object = part.raw
    if not isinstance(raw, dict):
        return (".raw", _OBJECT, raw)
    try:
        part_from_dict({**raw, "type": part.type}, "")
    except MessageError as error:
        return (error.path, error.problem, error.value)
    return None


def _part_problem(part: Any) -> Problem | None:
    """A problem of one part, its path relative to the part (``.text``)."""
    if (  # the most common part, as the model and users make it: checked inline
        type(part) is TextPart
        and type(part.text) is str
        and part.type == "text"
        and part.provider_metadata is None
        and part.created_at is None
        and part.extra is None
    ):
        return None
    spec = _PARTS.get(type(part))
    if spec is None:
        if isinstance(part, UnknownPart):
            return _unknown_problem(part)
        spec = next((_PARTS[c] for c in type(part).__mro__ if c in _PARTS), None)
        if spec is None:
            return ("", "must be a procession part object", part)
    literal, rules, special = spec
    if literal is not None and part.type != literal:
        kind = part.type
        if isinstance(kind, str) and kind not in KNOWN_PART_TYPES and not kind.startswith("data-"):
            return None  # retyped to a type of its own (the seed's "thinking"): stored opaque
        return (".type", f"must be {literal!r} on a {type(part).__name__}", part.type)
    problem = rules.problem(part) or _COMMON.problem(part)
    if problem is None and special is not None:
        problem = special(part)
    return problem


def _content_problem(content: object) -> Problem | None:
    if not isinstance(content, MessageContent):
        return ("content", "must be a MessageContent", content)
    parts: Any = content.parts
    if not isinstance(parts, list):
        return ("content.parts", "must be a list of parts", parts)
    for index, part in enumerate(parts):
        problem = _part_problem(part)
        if problem is not None:
            return _prefixed(f"content.parts[{index}]", problem)
    return _prefixed("content", _CONTENT.problem(content))


def message_problem(message: object) -> Problem | None:
    """What the codec would refuse in ``message``, as ``(path, problem, value)``, or ``None``.

    Paths are relative to the message (``content.parts[0].text``). Used by
    :func:`validate_messages`, by ``MessageList.add`` and by storage on write.
    """
    if not isinstance(message, Message):
        return ("", "must be a Message", message)
    message_id = message.id
    if not isinstance(message_id, str) or not message_id:
        return ("id", "must be a non-empty string", message_id)
    role = message.role
    if not isinstance(role, str) or role not in ROLES:
        return ("role", f"must be one of {', '.join(sorted(ROLES))}", role)
    created: object = message.created_at
    if not isinstance(created, datetime):
        return ("createdAt", "must be a datetime", created)
    problem = _content_problem(message.content)
    if problem is None:
        problem = _MESSAGE.problem(message)
        if problem is not None:
            return (problem[0][1:], problem[1], problem[2])  # "type", not ".type"
    return problem


def _where(message: object) -> str:
    message_id = getattr(message, "id", None)
    return f"message[{message_id!r}]" if isinstance(message_id, str) and message_id else "message"


def validate_messages(messages: Message | Iterable[Message]) -> None:
    """Check a message, or each of several, with the rules storage reads them with (D24, D30).

    Raises :class:`~procession.errors.MessageError` at the first problem, with a ``path`` that
    names the message id and the field, such as ``message['msg_1'].content.parts[0].text``.
    Unknown part types pass when their stored form decodes (D24). About a microsecond per
    message (``bench/bench_messages.py``); no path or error is built while they are valid.
    """
    items: Iterable[object] = (messages,) if isinstance(messages, Message) else messages
    if isinstance(items, str | bytes | dict) or not isinstance(items, Iterable):
        raise MessageError("messages", "must be a Message or a list of Message objects", messages)
    for message in items:
        problem = message_problem(message)
        if problem is not None:
            path, what, value = problem
            where = _where(message)
            raise MessageError(f"{where}.{path}" if path else where, what, value)
