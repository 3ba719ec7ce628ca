"""One JSON codec for storage and the wire, with Mastra's field names.

A message encoded here is a ``MastraDBMessage`` Mastra reads, and a ``MastraDBMessage`` Mastra
wrote decodes losslessly: keys procession does not model are kept in each object's ``extra``
and written back. Decoding is strict for known part types and names the offending field and
value in a :class:`~procession.errors.MessageError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from procession.errors import MessageError
from procession.messages.message import ROLES, Message, MessageContent, new_id
from procession.messages.parts import (
    TOOL_INVOCATION_STATES,
    DataPart,
    ErrorPart,
    FilePart,
    Part,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    UnknownPart,
)

__all__ = [
    "KNOWN_PART_TYPES",
    "decode_datetime",
    "encode_datetime",
    "message_from_dict",
    "message_to_dict",
    "messages_from_json",
    "messages_to_json",
    "part_from_dict",
    "part_to_dict",
]

_MISSING: Any = object()


# -- small strict readers -------------------------------------------------------------------


def _require(obj: dict[str, Any], key: str, path: str) -> Any:
    value = obj.get(key, _MISSING)
    if value is _MISSING:
        raise MessageError(f"{path}.{key}", "is required")
    return value


def _str(obj: dict[str, Any], key: str, path: str) -> str:
    value = _require(obj, key, path)
    if not isinstance(value, str):
        raise MessageError(f"{path}.{key}", "must be a string", value)
    return value


def _opt_str(obj: dict[str, Any], key: str, path: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise MessageError(f"{path}.{key}", "must be a string", value)
    return value


def _opt_bool(obj: dict[str, Any], key: str, path: str) -> bool | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        raise MessageError(f"{path}.{key}", "must be a boolean", value)
    return value


def _opt_int(obj: dict[str, Any], key: str, path: str) -> Any:
    value: Any = obj.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise MessageError(f"{path}.{key}", "must be a number", value)
    return value


def _opt_dict(obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, dict):
        raise MessageError(f"{path}.{key}", "must be an object", value)
    return value


def _dict(obj: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    value = _require(obj, key, path)
    if not isinstance(value, dict):
        raise MessageError(f"{path}.{key}", "must be an object", value)
    return value


def _opt_list(obj: dict[str, Any], key: str, path: str) -> list[Any] | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, list):
        raise MessageError(f"{path}.{key}", "must be an array", value)
    return value


def _extra(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    if obj.keys() <= known:  # the usual case: one set comparison, in C
        return None
    extra = {k: v for k, v in obj.items() if k not in known}
    return extra or None


# -- datetimes ------------------------------------------------------------------------------


def encode_datetime(value: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, milliseconds as JavaScript writes them when exact."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    spec = "milliseconds" if value.microsecond % 1000 == 0 else "microseconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def decode_datetime(value: object, path: str) -> datetime:
    """Read an ISO 8601 string, epoch milliseconds or a datetime; naive values are UTC."""
    if isinstance(value, datetime):
        result = value
    elif isinstance(value, str):
        try:
            result = datetime.fromisoformat(value)
        except ValueError:
            raise MessageError(path, "must be an ISO 8601 date", value) from None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        result = datetime.fromtimestamp(value / 1000.0, UTC)
    else:
        raise MessageError(path, "must be an ISO 8601 date or epoch milliseconds", value)
    return result if result.tzinfo is not None else result.replace(tzinfo=UTC)


# -- parts ----------------------------------------------------------------------------------

_COMMON = frozenset(("type", "providerMetadata", "createdAt"))
_TEXT_KEYS = _COMMON | {"text"}
_REASONING_KEYS = _COMMON | {"reasoning", "details"}
_TOOL_PART_KEYS = _COMMON | {"toolInvocation", "providerExecuted", "title", "preliminary"}
_INVOCATION_KEYS = frozenset(
    (
        "state",
        "toolCallId",
        "toolName",
        "args",
        "result",
        "isError",
        "errorText",
        "rawInput",
        "approval",
        "step",
    )
)
_SOURCE_KEYS = _COMMON | {"source"}
_SOURCE_DOC_KEYS = _COMMON | {"sourceId", "mediaType", "title", "filename"}
_FILE_KEYS = _COMMON | {"mimeType", "data"}
_STEP_START_KEYS = _COMMON | {"model"}
_ERROR_KEYS = _COMMON | {"error"}
_DATA_KEYS = _COMMON | {"data", "id"}


def _pm(obj: dict[str, Any], path: str) -> Any:
    return _opt_dict(obj, "providerMetadata", path)


_TEXT_ONLY = frozenset(("type", "text"))


def _decode_text(obj: dict[str, Any], path: str) -> Part:
    if obj.keys() <= _TEXT_ONLY:  # the usual stored text part: no optional field to read
        text = obj.get("text", _MISSING)
        if type(text) is str:
            return TextPart(text=text)
    return TextPart(
        text=_str(obj, "text", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _TEXT_KEYS),
    )


def _decode_reasoning(obj: dict[str, Any], path: str) -> Part:
    details = _require(obj, "details", path)
    if not isinstance(details, list):
        raise MessageError(f"{path}.details", "must be an array", details)
    for index, detail in enumerate(details):
        where = f"{path}.details[{index}]"
        if not isinstance(detail, dict) or detail.get("type") not in ("text", "redacted"):
            raise MessageError(where, "must be {type: 'text' | 'redacted', ...}", detail)
    return ReasoningPart(
        reasoning=_str(obj, "reasoning", path),
        details=details,
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _REASONING_KEYS),
    )


def _decode_invocation(obj: dict[str, Any], path: str) -> ToolInvocation:
    state = _str(obj, "state", path)
    if state not in TOOL_INVOCATION_STATES:
        raise MessageError(
            f"{path}.state", f"must be one of {', '.join(sorted(TOOL_INVOCATION_STATES))}", state
        )
    args = _require(obj, "args", path)
    if state == "result" and "result" not in obj:
        raise MessageError(f"{path}.result", "is required when state is 'result'")
    return ToolInvocation(
        state=state,  # type: ignore[arg-type]  # checked against TOOL_INVOCATION_STATES above
        tool_call_id=_str(obj, "toolCallId", path),
        tool_name=_str(obj, "toolName", path),
        args=args,
        result=obj.get("result"),
        is_error=_opt_bool(obj, "isError", path),
        error_text=_opt_str(obj, "errorText", path),
        raw_input=obj.get("rawInput"),
        approval=_opt_dict(obj, "approval", path),
        step=_opt_int(obj, "step", path),
        extra=_extra(obj, _INVOCATION_KEYS),
    )


def _decode_tool(obj: dict[str, Any], path: str) -> Part:
    invocation = _dict(obj, "toolInvocation", path)
    return ToolInvocationPart(
        tool_invocation=_decode_invocation(invocation, f"{path}.toolInvocation"),
        provider_executed=_opt_bool(obj, "providerExecuted", path),
        title=_opt_str(obj, "title", path),
        preliminary=_opt_bool(obj, "preliminary", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _TOOL_PART_KEYS),
    )


def _decode_source(obj: dict[str, Any], path: str) -> Part:
    source = _dict(obj, "source", path)
    _str(source, "id", f"{path}.source")
    return SourcePart(
        source=source,
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _SOURCE_KEYS),
    )


def _decode_source_document(obj: dict[str, Any], path: str) -> Part:
    return SourceDocumentPart(
        source_id=_str(obj, "sourceId", path),
        media_type=_str(obj, "mediaType", path),
        title=_str(obj, "title", path),
        filename=_opt_str(obj, "filename", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _SOURCE_DOC_KEYS),
    )


def _decode_file(obj: dict[str, Any], path: str) -> Part:
    return FilePart(
        mime_type=_str(obj, "mimeType", path),
        data=_str(obj, "data", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _FILE_KEYS),
    )


def _decode_step_start(obj: dict[str, Any], path: str) -> Part:
    return StepStartPart(
        model=_opt_str(obj, "model", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _STEP_START_KEYS),
    )


def _decode_error(obj: dict[str, Any], path: str) -> Part:
    return ErrorPart(
        error=_dict(obj, "error", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _ERROR_KEYS),
    )


def _decode_data(obj: dict[str, Any], path: str) -> Part:
    return DataPart(
        type=obj["type"],
        data=_require(obj, "data", path),
        id=_opt_str(obj, "id", path),
        provider_metadata=_pm(obj, path),
        created_at=_opt_int(obj, "createdAt", path),
        extra=_extra(obj, _DATA_KEYS),
    )


_PART_DECODERS: dict[str, Callable[[dict[str, Any], str], Part]] = {
    "text": _decode_text,
    "reasoning": _decode_reasoning,
    "tool-invocation": _decode_tool,
    "source": _decode_source,
    "source-document": _decode_source_document,
    "file": _decode_file,
    "step-start": _decode_step_start,
    "error": _decode_error,
}


KNOWN_PART_TYPES = frozenset(_PART_DECODERS)
"""The part types decoded strictly; any other ``type`` (but ``data-*``) is kept opaque (D24)."""


def part_from_dict(obj: object, path: str = "part") -> Part:
    """Decode one stored part; an unknown ``type`` becomes an opaque :class:`UnknownPart`."""
    if not isinstance(obj, dict):
        raise MessageError(path, "must be an object with a 'type'", obj)
    part_type = obj.get("type")
    if part_type is None:
        raise MessageError(f"{path}.type", "is required")
    if not isinstance(part_type, str):
        raise MessageError(f"{path}.type", "must be a string", part_type)
    decoder = _PART_DECODERS.get(part_type)
    if decoder is not None:
        return decoder(obj, path)
    if part_type.startswith("data-"):
        return _decode_data(obj, path)
    return UnknownPart(type=part_type, raw=dict(obj))


def _add_extra(out: dict[str, Any], extra: dict[str, Any] | None, known: frozenset[str]) -> None:
    # A key the codec models is never taken from ``extra``: an extra named like an absent
    # optional field would otherwise be written out and then decoded as that field.
    if extra:
        for key, value in extra.items():
            if key not in known:
                out.setdefault(key, value)


def _common(out: dict[str, Any], part: Any, known: frozenset[str]) -> dict[str, Any]:
    if part.provider_metadata is not None:
        out["providerMetadata"] = part.provider_metadata
    if part.created_at is not None:
        out["createdAt"] = part.created_at
    _add_extra(out, part.extra, known)
    return out


def _encode_invocation(inv: ToolInvocation) -> dict[str, Any]:
    out: dict[str, Any] = {
        "state": inv.state,
        "toolCallId": inv.tool_call_id,
        "toolName": inv.tool_name,
        "args": inv.args,
    }
    if inv.state == "result" or inv.result is not None:
        out["result"] = inv.result
    if inv.is_error is not None:
        out["isError"] = inv.is_error
    if inv.error_text is not None:
        out["errorText"] = inv.error_text
    if inv.raw_input is not None:
        out["rawInput"] = inv.raw_input
    if inv.approval is not None:
        out["approval"] = inv.approval
    if inv.step is not None:
        out["step"] = inv.step
    _add_extra(out, inv.extra, _INVOCATION_KEYS)
    return out


def part_to_dict(part: Part) -> dict[str, Any]:
    """Encode one part in Mastra's stored form."""
    out: dict[str, Any]
    match part:
        case TextPart():
            return _common({"type": part.type, "text": part.text}, part, _TEXT_KEYS)
        case ReasoningPart():
            out = {"type": part.type, "reasoning": part.reasoning, "details": part.details}
            return _common(out, part, _REASONING_KEYS)
        case ToolInvocationPart():
            out = {"type": part.type, "toolInvocation": _encode_invocation(part.tool_invocation)}
            if part.provider_executed is not None:
                out["providerExecuted"] = part.provider_executed
            if part.title is not None:
                out["title"] = part.title
            if part.preliminary is not None:
                out["preliminary"] = part.preliminary
            return _common(out, part, _TOOL_PART_KEYS)
        case SourcePart():
            return _common({"type": part.type, "source": part.source}, part, _SOURCE_KEYS)
        case SourceDocumentPart():
            out = {
                "type": part.type,
                "sourceId": part.source_id,
                "mediaType": part.media_type,
                "title": part.title,
            }
            if part.filename is not None:
                out["filename"] = part.filename
            return _common(out, part, _SOURCE_DOC_KEYS)
        case FilePart():
            out = {"type": part.type, "mimeType": part.mime_type, "data": part.data}
            return _common(out, part, _FILE_KEYS)
        case StepStartPart():
            out = {"type": part.type}
            if part.model is not None:
                out["model"] = part.model
            return _common(out, part, _STEP_START_KEYS)
        case ErrorPart():
            return _common({"type": part.type, "error": part.error}, part, _ERROR_KEYS)
        case DataPart():
            out = {"type": part.type, "data": part.data}
            if part.id is not None:
                out["id"] = part.id
            return _common(out, part, _DATA_KEYS)
        case UnknownPart():
            return {**part.raw, "type": part.type}
    raise MessageError("part", "is not a procession part", part)  # pragma: no cover


# -- messages -------------------------------------------------------------------------------

_MESSAGE_KEYS = frozenset(("id", "role", "createdAt", "threadId", "resourceId", "type", "content"))
_CONTENT_KEYS = frozenset(
    (
        "format",
        "parts",
        "content",
        "toolInvocations",
        "reasoning",
        "experimental_attachments",
        "annotations",
        "metadata",
        "providerMetadata",
    )
)


_FORMAT_AND_PARTS = frozenset(("format", "parts"))


def _text_parts(parts: list[Any]) -> list[Part] | None:
    """The parts when each is a text part with only ``type`` and ``text`` (the usual stored
    message), read without building a path per part; ``None`` when one is anything else, and
    :func:`part_from_dict` reads them all with its full rules."""
    decoded: list[Part] = []
    for part in parts:
        if type(part) is not dict or not part.keys() <= _TEXT_ONLY or part.get("type") != "text":
            return None
        text = part.get("text")
        if type(text) is not str:
            return None
        decoded.append(TextPart(text=text))
    return decoded


def _decode_content(obj: object, path: str) -> MessageContent:
    if isinstance(obj, str):
        raise MessageError(
            path, "must be an object {format: 2, parts: [...]}, not a bare string", obj
        )
    if not isinstance(obj, dict):
        raise MessageError(path, "must be an object {format: 2, parts: [...]}", obj)
    fmt = obj.get("format", _MISSING)
    if fmt is not _MISSING and fmt != 2:
        raise MessageError(f"{path}.format", "must be 2", fmt)
    parts = _require(obj, "parts", path)
    if not isinstance(parts, list):
        raise MessageError(f"{path}.parts", "must be an array of parts", parts)
    decoded = _text_parts(parts)
    if decoded is None:
        decoded = [part_from_dict(p, f"{path}.parts[{i}]") for i, p in enumerate(parts)]
    if obj.keys() <= _FORMAT_AND_PARTS:  # the usual stored content: no optional field
        return MessageContent(parts=decoded)
    legacy = obj.get("content")
    if legacy is not None and not isinstance(legacy, str):
        raise MessageError(
            f"{path}.content", "must be a string (the legacy flattened text)", legacy
        )
    return MessageContent(
        parts=decoded,
        content=legacy,
        tool_invocations=_opt_list(obj, "toolInvocations", path),
        reasoning=_opt_str(obj, "reasoning", path),
        experimental_attachments=_opt_list(obj, "experimental_attachments", path),
        annotations=_opt_list(obj, "annotations", path),
        metadata=_opt_dict(obj, "metadata", path),
        provider_metadata=_opt_dict(obj, "providerMetadata", path),
        extra=_extra(obj, _CONTENT_KEYS),
    )


def message_from_dict(obj: object, path: str = "message") -> Message:
    """Decode a stored message (``MastraDBMessage``) strictly.

    A missing ``id`` gets a new one and a missing ``createdAt`` the current time; everything
    else that is malformed raises :class:`MessageError` naming the field and the value.
    """
    if not isinstance(obj, dict):
        raise MessageError(path, "must be an object", obj)
    role = obj.get("role", _MISSING)
    if role is _MISSING:
        raise MessageError(f"{path}.role", "is required")
    if not isinstance(role, str) or role not in ROLES:
        raise MessageError(f"{path}.role", f"must be one of {', '.join(sorted(ROLES))}", role)
    message_id = obj.get("id")
    if message_id is None:
        message_id = new_id()
    elif not isinstance(message_id, str) or not message_id:
        raise MessageError(f"{path}.id", "must be a non-empty string", message_id)
    content = _decode_content(_require(obj, "content", path), f"{path}.content")
    thread_id = _opt_str(obj, "threadId", path)
    resource_id = _opt_str(obj, "resourceId", path)
    kind = _opt_str(obj, "type", path)
    created = obj.get("createdAt")
    return Message(  # built whole: no field assigned after construction
        id=message_id,
        role=role,  # type: ignore[arg-type]  # checked against ROLES above
        content=content,
        created_at=(
            datetime.now(UTC) if created is None else decode_datetime(created, f"{path}.createdAt")
        ),
        thread_id=thread_id,
        resource_id=resource_id,
        type=kind,
        extra=_extra(obj, _MESSAGE_KEYS),
    )


def _encode_content(content: MessageContent) -> dict[str, Any]:
    out: dict[str, Any] = {"format": 2, "parts": [part_to_dict(p) for p in content.parts]}
    if content.content is not None:
        out["content"] = content.content
    if content.tool_invocations is not None:
        out["toolInvocations"] = content.tool_invocations
    if content.reasoning is not None:
        out["reasoning"] = content.reasoning
    if content.experimental_attachments is not None:
        out["experimental_attachments"] = content.experimental_attachments
    if content.annotations is not None:
        out["annotations"] = content.annotations
    if content.metadata is not None:
        out["metadata"] = content.metadata
    if content.provider_metadata is not None:
        out["providerMetadata"] = content.provider_metadata
    _add_extra(out, content.extra, _CONTENT_KEYS)
    return out


def message_to_dict(message: Message) -> dict[str, Any]:
    """Encode a message as Mastra's ``MastraDBMessage`` JSON object."""
    if not isinstance(message, Message):
        raise MessageError("message", "must be a Message", message)
    out: dict[str, Any] = {
        "id": message.id,
        "role": message.role,
        "createdAt": encode_datetime(message.created_at),
        "content": _encode_content(message.content),
    }
    if message.thread_id is not None:
        out["threadId"] = message.thread_id
    if message.resource_id is not None:
        out["resourceId"] = message.resource_id
    if message.type is not None:
        out["type"] = message.type
    _add_extra(out, message.extra, _MESSAGE_KEYS)
    return out


def messages_to_json(messages: Iterable[Message]) -> str:
    """A JSON array of stored messages."""
    return json.dumps([message_to_dict(m) for m in messages], ensure_ascii=False)


def messages_from_json(text: str) -> list[Message]:
    """Decode a JSON array of stored messages."""
    if not isinstance(text, str | bytes | bytearray):
        raise MessageError("json", "must be JSON text (a str)", text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise MessageError("json", f"is not valid JSON: {error}") from None
    if not isinstance(data, list):
        raise MessageError("json", "must be an array of messages", data)
    return [message_from_dict(m, f"messages[{i}]") for i, m in enumerate(data)]
