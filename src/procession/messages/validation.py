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

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypeAlias

from procession.errors import MessageError
from procession.messages.codec import part_from_dict
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


_COMMON: tuple[_Rule, ...] = (
    _opt("provider_metadata", "providerMetadata", dict, _OBJECT),
    _opt("created_at", "createdAt", (int, float), _NUMBER),
    _opt("extra", "extra", dict, _OBJECT),
)

_PART_RULES: dict[type, tuple[str | None, tuple[_Rule, ...]]] = {
    TextPart: ("text", (_str("text", "text"),)),
    ReasoningPart: (
        "reasoning",
        (_str("reasoning", "reasoning"), ("details", "details", list, False, _ARRAY)),
    ),
    ToolInvocationPart: (
        "tool-invocation",
        (
            _opt("provider_executed", "providerExecuted", bool, _BOOLEAN),
            _opt("title", "title", str, _STRING),
            _opt("preliminary", "preliminary", bool, _BOOLEAN),
        ),
    ),
    SourcePart: ("source", (("source", "source", dict, False, _OBJECT),)),
    SourceDocumentPart: (
        "source-document",
        (
            _str("source_id", "sourceId"),
            _str("media_type", "mediaType"),
            _str("title", "title"),
            _opt("filename", "filename", str, _STRING),
        ),
    ),
    FilePart: ("file", (_str("mime_type", "mimeType"), _str("data", "data"))),
    StepStartPart: ("step-start", (_opt("model", "model", str, _STRING),)),
    ErrorPart: ("error", (("error", "error", dict, False, _OBJECT),)),
    DataPart: (None, (_opt("id", "id", str, _STRING),)),
}

_INVOCATION_RULES: tuple[_Rule, ...] = (
    _str("tool_call_id", "toolCallId"),
    _str("tool_name", "toolName"),
    _opt("is_error", "isError", bool, _BOOLEAN),
    _opt("error_text", "errorText", str, _STRING),
    _opt("approval", "approval", dict, _OBJECT),
    _opt("step", "step", (int, float), _NUMBER),
    _opt("extra", "extra", dict, _OBJECT),
)

_CONTENT_RULES: tuple[_Rule, ...] = (
    _opt("content", "content", str, _STRING),
    _opt("tool_invocations", "toolInvocations", list, _ARRAY),
    _opt("reasoning", "reasoning", str, _STRING),
    _opt("experimental_attachments", "experimental_attachments", list, _ARRAY),
    _opt("annotations", "annotations", list, _ARRAY),
    _opt("metadata", "metadata", dict, _OBJECT),
    _opt("provider_metadata", "providerMetadata", dict, _OBJECT),
    _opt("extra", "extra", dict, _OBJECT),
)

_MESSAGE_RULES: tuple[_Rule, ...] = (
    _opt("thread_id", "threadId", str, _STRING),
    _opt("resource_id", "resourceId", str, _STRING),
    _opt("type", "type", str, _STRING),
    _opt("extra", "extra", dict, _OBJECT),
)


def _rules_problem(obj: object, rules: tuple[_Rule, ...], path: str) -> Problem | None:
    for attr, key, kind, optional, expected in rules:
        value = getattr(obj, attr)
        if value is None:
            if optional:
                continue
        elif isinstance(value, kind) and not (expected is _NUMBER and isinstance(value, bool)):
            continue
        return (f"{path}.{key}" if path else key, expected, value)
    return None


def _invocation_problem(invocation: object, path: str) -> Problem | None:
    if not isinstance(invocation, ToolInvocation):
        return (path, "must be a ToolInvocation", invocation)
    state = invocation.state
    if not isinstance(state, str) or state not in TOOL_INVOCATION_STATES:
        states = ", ".join(sorted(TOOL_INVOCATION_STATES))
        return (f"{path}.state", f"must be one of {states}", state)
    return _rules_problem(invocation, _INVOCATION_RULES, path)


def _special_problem(part: object, path: str) -> Problem | None:
    """The checks of one part type that are more than a field's type."""
    if isinstance(part, ToolInvocationPart):
        return _invocation_problem(part.tool_invocation, f"{path}.toolInvocation")
    if isinstance(part, ReasoningPart):
        for index, detail in enumerate(part.details):
            if not isinstance(detail, dict) or detail.get("type") not in ("text", "redacted"):
                where = f"{path}.details[{index}]"
                return (where, "must be {type: 'text' | 'redacted', ...}", detail)
    elif isinstance(part, SourcePart):
        source_id = part.source.get("id")
        if not isinstance(source_id, str):
            return (f"{path}.source.id", _STRING, source_id)
    elif isinstance(part, DataPart) and not (
        isinstance(part.type, str) and part.type.startswith("data-")
    ):
        return (f"{path}.type", "must be a string starting with 'data-'", part.type)
    return None


def _unknown_problem(part: UnknownPart, path: str) -> Problem | None:
    raw: object = part.raw
    if not isinstance(raw, dict):
        return (f"{path}.raw", _OBJECT, raw)
    try:
        part_from_dict({**raw, "type": part.type}, path)
    except MessageError as error:
        return (error.path, error.problem, error.value)
    return None


def _part_problem(part: object, path: str) -> Problem | None:
    spec = _PART_RULES.get(type(part))
    if spec is None:
        if isinstance(part, UnknownPart):
            return _unknown_problem(part, path)
        spec = next((_PART_RULES[c] for c in type(part).__mro__ if c in _PART_RULES), None)
        if spec is None:
            return (path, "must be a procession part object", part)
    literal, rules = spec
    if literal is not None and part.type != literal:  # type: ignore[attr-defined]
        return (f"{path}.type", f"must be {literal!r} on a {type(part).__name__}", part.type)  # type: ignore[attr-defined]
    return (
        _rules_problem(part, rules, path)
        or _rules_problem(part, _COMMON, path)
        or _special_problem(part, path)
    )


def _content_problem(content: object) -> Problem | None:
    if not isinstance(content, MessageContent):
        return ("content", "must be a MessageContent", content)
    parts: Any = content.parts
    if not isinstance(parts, list):
        return ("content.parts", "must be a list of parts", parts)
    for index, part in enumerate(parts):
        problem = _part_problem(part, f"content.parts[{index}]")
        if problem is not None:
            return problem
    return _rules_problem(content, _CONTENT_RULES, "content")


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
    return _content_problem(message.content) or _rules_problem(message, _MESSAGE_RULES, "")


def _where(message: object) -> str:
    message_id = getattr(message, "id", None)
    return f"message[{message_id!r}]" if isinstance(message_id, str) and message_id else "message"


def validate_messages(messages: Message | Iterable[Message]) -> None:
    """Check a message, or each of several, with the rules storage reads them with (D24, D30).

    Raises :class:`~procession.errors.MessageError` at the first problem, with a ``path`` that
    names the message id and the field, such as ``message['msg_1'].content.parts[0].text``.
    Unknown part types pass when their stored form decodes (D24). Costs a few microseconds per
    message and allocates nothing when the messages are valid.
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
