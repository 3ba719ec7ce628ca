"""Turn what callers pass (strings, stored, core and UI messages) into stored messages.

Everything is validated before anything is changed, so a failed ``MessageList.add`` leaves the
list as it was.
"""

from __future__ import annotations

from typing import Any

from procession._records import record
from procession.errors import MessageError
from procession.messages.codec import decode_datetime, message_from_dict, part_from_dict
from procession.messages.message import ROLES, Message, MessageContent, SystemMessage, new_id
from procession.messages.parts import (
    FilePart,
    Part,
    ReasoningPart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
)
from procession.messages.validation import message_problem

__all__ = ["MessageInput", "ToolResultInput", "coerce_messages", "coerce_system", "system_text"]

MessageInput = str | Message | dict[str, Any]
"""What ``MessageList.add`` and ``Agent.generate`` accept for one message."""

_UI_STATES = {
    "input-streaming": "partial-call",
    "input-available": "call",
    "output-available": "result",
    "output-error": "output-error",
    "approval-requested": "approval-requested",
    "approval-responded": "approval-responded",
    "output-denied": "output-denied",
}


def system_text(message: Message) -> str:
    """The text of a system-role stored message, as Mastra reads it (section 2.1).

    The legacy flattened ``content.content`` string wins; otherwise the text parts are joined
    with newlines.
    """
    if isinstance(message.content.content, str):
        return message.content.content
    return "\n".join(p.text for p in message.content.parts if isinstance(p, TextPart))


def _check_message(message: Message, path: str) -> None:
    """Reject a ``Message`` the codec could not read back (D24): same rules as storage."""
    problem = message_problem(message)
    if problem is not None:
        field, what, value = problem
        raise MessageError(f"{path}.{field}", what, value)


@record(slots=True)
class ToolResultInput:
    """A core-form tool result (``role: "tool"``) to pair with an earlier tool call."""

    tool_call_id: str
    tool_name: str
    result: Any
    error_text: str | None
    path: str


def coerce_system(value: object, path: str) -> SystemMessage:
    """A system message from a string, a ``SystemMessage`` or a core-form dict."""
    if isinstance(value, SystemMessage):
        if not isinstance(value.content, str):
            raise MessageError(f"{path}.content", "must be a string", value.content)
        if value.provider_options is not None and not isinstance(value.provider_options, dict):
            raise MessageError(
                f"{path}.providerOptions", "must be an object", value.provider_options
            )
        return value
    if isinstance(value, str):
        return SystemMessage(value)
    if isinstance(value, Message):
        if value.role != "system":
            raise MessageError(f"{path}.role", "must be 'system'", value.role)
        return SystemMessage(system_text(value))
    if isinstance(value, dict):
        if value.get("role") != "system":
            raise MessageError(f"{path}.role", "must be 'system'", value.get("role"))
        content = value.get("content")
        if isinstance(content, dict):  # the stored (MastraDBMessage) form
            return SystemMessage(system_text(message_from_dict(value, path)))
        if isinstance(content, list):
            texts = [p.get("text", "") for p in content if isinstance(p, dict)]
            content = "\n".join(t for t in texts if isinstance(t, str))
        if not isinstance(content, str):
            raise MessageError(f"{path}.content", "must be a string", content)
        return SystemMessage(content, value.get("providerOptions"))
    raise MessageError(path, "must be a system message or a string", value)


def coerce_messages(
    value: object, path: str = "messages"
) -> list[Message | SystemMessage | ToolResultInput]:
    """Validate and convert one message or a list of them."""
    items = value if isinstance(value, list) else [value]
    out: list[Message | SystemMessage | ToolResultInput] = []
    for index, item in enumerate(items):
        where = f"{path}[{index}]" if isinstance(value, list) else path
        out.extend(_coerce_one(item, where))
    return out


def _coerce_one(item: object, path: str) -> list[Message | SystemMessage | ToolResultInput]:
    if isinstance(item, Message):
        _check_message(item, path)
        return [SystemMessage(system_text(item)) if item.role == "system" else item]
    if isinstance(item, SystemMessage):
        return [item]
    if isinstance(item, str):
        return [Message.user(item)]
    if not isinstance(item, dict):
        raise MessageError(path, "must be a string, a Message or a message object", item)
    role = item.get("role")
    if role is None:
        raise MessageError(f"{path}.role", "is required")
    if role == "tool":
        return list(_core_tool_results(item, path))
    if not isinstance(role, str) or role not in ROLES:
        raise MessageError(
            f"{path}.role", "must be one of assistant, signal, system, tool, user", role
        )
    if role == "system":
        return [coerce_system(item, path)]
    content = item.get("content")
    if isinstance(content, dict):
        return [message_from_dict(item, path)]
    if "parts" in item and content is None:
        return [_from_ui(item, path)]
    return [_from_core(item, path)]


def _base(item: dict[str, Any], parts: list[Part], path: str) -> Message:
    message_id = item.get("id") or new_id()
    if not isinstance(message_id, str):
        raise MessageError(f"{path}.id", "must be a string", message_id)
    message = Message(id=message_id, role=item["role"], content=MessageContent(parts=parts))
    if item.get("createdAt") is not None:
        message.created_at = decode_datetime(item["createdAt"], f"{path}.createdAt")
    return message


def _from_core(item: dict[str, Any], path: str) -> Message:
    content = item.get("content")
    if isinstance(content, str):
        return _base(item, [TextPart(text=content)], path)
    if not isinstance(content, list):
        raise MessageError(f"{path}.content", "must be a string or an array of parts", content)
    parts: list[Part] = []
    for index, part in enumerate(content):
        where = f"{path}.content[{index}]"
        if isinstance(part, str):
            raise MessageError(
                where, "must be a part object with a 'type', not a bare string", part
            )
        if not isinstance(part, dict):
            raise MessageError(where, "must be a part object with a 'type'", part)
        parts.append(_core_part(part, where))
    return _base(item, parts, path)


def _core_part(part: dict[str, Any], path: str) -> Part:
    kind = part.get("type")
    if kind is None:
        raise MessageError(f"{path}.type", "is required")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise MessageError(f"{path}.text", "must be a string", text)
        return TextPart(text=text)
    if kind == "reasoning":
        text = part.get("text")
        if not isinstance(text, str):
            raise MessageError(f"{path}.text", "must be a string", text)
        return ReasoningPart(reasoning=text, details=[{"type": "text", "text": text}])
    if kind in ("file", "image"):
        data = part.get("data", part.get("image"))
        media = part.get("mediaType", part.get("mimeType", "image/*" if kind == "image" else None))
        if not isinstance(data, str):
            raise MessageError(f"{path}.data", "must be base64 text or a URL", data)
        if not isinstance(media, str):
            raise MessageError(f"{path}.mediaType", "must be a string", media)
        return FilePart(mime_type=media, data=data)
    if kind == "tool-call":
        call_id, name = part.get("toolCallId"), part.get("toolName")
        if not isinstance(call_id, str):
            raise MessageError(f"{path}.toolCallId", "must be a string", call_id)
        if not isinstance(name, str):
            raise MessageError(f"{path}.toolName", "must be a string", name)
        args = part.get("input", part.get("args", {}))
        invocation = ToolInvocation(state="call", tool_call_id=call_id, tool_name=name, args=args)
        return ToolInvocationPart(tool_invocation=invocation)
    return part_from_dict(part, path)


def _core_tool_results(item: dict[str, Any], path: str) -> list[ToolResultInput]:
    content = item.get("content")
    if not isinstance(content, list):
        raise MessageError(f"{path}.content", "must be an array of tool-result parts", content)
    out: list[ToolResultInput] = []
    for index, part in enumerate(content):
        where = f"{path}.content[{index}]"
        if not isinstance(part, dict) or part.get("type") != "tool-result":
            raise MessageError(where, "must be a tool-result part", part)
        call_id, name = part.get("toolCallId"), part.get("toolName")
        if not isinstance(call_id, str):
            raise MessageError(f"{where}.toolCallId", "must be a string", call_id)
        if not isinstance(name, str):
            raise MessageError(f"{where}.toolName", "must be a string", name)
        output = part.get("output")
        error_text: str | None = None
        if isinstance(output, dict) and "type" in output:
            value = output.get("value")
            if str(output["type"]).startswith("error"):
                error_text = value if isinstance(value, str) else str(value)
        else:
            value = part.get("result", output)
        out.append(ToolResultInput(call_id, name, value, error_text, where))
    return out


def _from_ui(item: dict[str, Any], path: str) -> Message:
    raw_parts = item.get("parts")
    if not isinstance(raw_parts, list):
        raise MessageError(f"{path}.parts", "must be an array of parts", raw_parts)
    parts: list[Part] = []
    for index, part in enumerate(raw_parts):
        where = f"{path}.parts[{index}]"
        if not isinstance(part, dict):
            raise MessageError(where, "must be a part object with a 'type'", part)
        parts.append(_ui_part(part, where))
    message = _base(item, parts, path)
    if isinstance(item.get("metadata"), dict):
        message.content.metadata = item["metadata"]
    return message


def _ui_part(part: dict[str, Any], path: str) -> Part:
    kind = part.get("type")
    if not isinstance(kind, str):
        raise MessageError(f"{path}.type", "is required", kind)
    if kind == "reasoning" and "text" in part:
        return _core_part(part, path)
    if kind == "step-start":
        return StepStartPart()
    if kind == "file" and "url" in part:
        return FilePart(mime_type=str(part.get("mediaType", "")), data=str(part["url"]))
    if kind.startswith("tool-") and "toolCallId" in part:
        ui_state = part.get("state")
        state = _UI_STATES.get(ui_state) if isinstance(ui_state, str) else None
        if state is None:
            raise MessageError(f"{path}.state", f"must be one of {', '.join(_UI_STATES)}", ui_state)
        call_id = part["toolCallId"]
        if not isinstance(call_id, str):
            raise MessageError(f"{path}.toolCallId", "must be a string", call_id)
        invocation = ToolInvocation(
            state=state,  # type: ignore[arg-type]  # values of _UI_STATES are valid states
            tool_call_id=call_id,
            tool_name=kind[5:],
            args=part.get("input", {}),
            result=part.get("output"),
            error_text=part.get("errorText"),
        )
        return ToolInvocationPart(
            tool_invocation=invocation, provider_executed=part.get("providerExecuted")
        )
    return _core_part(part, path)
