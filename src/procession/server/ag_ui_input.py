"""The AG-UI request: ``RunAgentInput`` validated, and its messages as procession's.

``HttpAgent`` posts the whole conversation on every run: ``threadId``, ``runId``,
``messages`` (``user``, ``assistant`` with ``toolCalls``, ``tool``, ``system``,
``developer``, and the front end's own ``activity`` and ``reasoning`` messages), ``tools``
(front-end tools), ``context`` (``[{description, value}]``), ``state`` and
``forwardedProps``. Field names are AG-UI's (camelCase); unknown fields are allowed, as
AG-UI's own models allow them.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from procession.server.bodies import NonEmpty, RunId
from procession.server.errors import HTTPError

__all__ = ["AGUIContext", "RunAgentBody", "core_messages"]


class AGUIContext(BaseModel):
    """One ``context`` entry: ambient information for the run."""

    model_config = ConfigDict(extra="allow")

    description: StrictStr
    value: StrictStr


class RunAgentBody(BaseModel):
    """AG-UI's ``RunAgentInput``: what ``@ag-ui/client``'s ``HttpAgent`` posts."""

    model_config = ConfigDict(extra="allow")

    threadId: NonEmpty  # noqa: N815 - AG-UI's wire name
    runId: RunId  # noqa: N815
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    context: list[AGUIContext] | None = None
    state: Any = None
    forwardedProps: Any = None  # noqa: N815
    resume: list[dict[str, Any]] | None = None
    parentRunId: StrictStr | None = None  # noqa: N815
    protocolVersion: Annotated[StrictStr, Field(max_length=32)] | None = None  # noqa: N815


_SKIPPED = frozenset({"activity", "reasoning"})
"""Roles of the front end's own messages, which are not part of the prompt."""


def core_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AG-UI messages as core messages (``{role, content}``), which ``Agent.stream`` takes.

    ``developer`` becomes ``system``; ``activity`` and ``reasoning`` messages are left out.
    A wrong message is 422 naming it (``messages[2].toolCalls[0].function.arguments``).
    """
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        role = message.get("role")
        if role in _SKIPPED:
            continue
        if role == "user":
            out.append(_with_id(message, {"role": "user", "content": _user(message, where)}))
        elif role in ("system", "developer"):
            content = _text(message.get("content"), f"{where}.content")
            out.append(_with_id(message, {"role": "system", "content": content}))
        elif role == "assistant":
            out.append(_with_id(message, _assistant(message, where, names)))
        elif role == "tool":
            out.append(_tool(message, where, names))
        else:
            raise HTTPError.invalid(
                f"{where}.role",
                "must be one of user, assistant, tool, system, developer, activity, reasoning",
            )
    return out


def _with_id(message: dict[str, Any], core: dict[str, Any]) -> dict[str, Any]:
    message_id = message.get("id")
    if isinstance(message_id, str) and message_id:
        core["id"] = message_id
    return core


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise HTTPError.invalid(where, "must be a string")
    return value


def _user(message: dict[str, Any], where: str) -> str | list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise HTTPError.invalid(f"{where}.content", "must be a string or an array of parts")
    return [_part(part, f"{where}.content[{i}]") for i, part in enumerate(content)]


def _part(part: Any, where: str) -> dict[str, Any]:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text":
        return {"type": "text", "text": _text(part.get("text"), f"{where}.text")}
    if kind in ("image", "audio", "video", "document"):
        source = part.get("source")
        if not isinstance(source, dict) or source.get("type") not in ("data", "url"):
            raise HTTPError.invalid(f"{where}.source", "must be a data or url source")
        media = source.get("mimeType") or f"{kind}/*"
        value = _text(source.get("value"), f"{where}.source.value")
        return {"type": "file", "data": value, "mediaType": _text(media, f"{where}.mimeType")}
    raise HTTPError.invalid(f"{where}.type", "must be text, image, audio, video or document")


def _assistant(message: dict[str, Any], where: str, names: dict[str, str]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    text = message.get("content")
    if text is not None:
        content.append({"type": "text", "text": _text(text, f"{where}.content")})
    calls = message.get("toolCalls") or []
    if not isinstance(calls, list):
        raise HTTPError.invalid(f"{where}.toolCalls", "must be an array")
    for index, call in enumerate(calls):
        content.append(_tool_call(call, f"{where}.toolCalls[{index}]", names))
    if not content:
        content.append({"type": "text", "text": ""})
    return {"role": "assistant", "content": content}


def _tool_call(call: Any, where: str, names: dict[str, str]) -> dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        raise HTTPError.invalid(f"{where}.function", "must be an object")
    call_id = _text(call.get("id"), f"{where}.id")
    name = _text(function.get("name"), f"{where}.function.name")
    arguments = _text(function.get("arguments"), f"{where}.function.arguments")
    try:
        args = orjson.loads(arguments) if arguments.strip() else {}
    except orjson.JSONDecodeError:
        raise HTTPError.invalid(f"{where}.function.arguments", "must be JSON text") from None
    names[call_id] = name
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": args}


def _tool(message: dict[str, Any], where: str, names: dict[str, str]) -> dict[str, Any]:
    call_id = _text(message.get("toolCallId"), f"{where}.toolCallId")
    name = names.get(call_id)
    if name is None:
        raise HTTPError.invalid(f"{where}.toolCallId", "answers no earlier assistant tool call")
    content = message.get("content")
    if not isinstance(content, str):
        content = "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    error = message.get("error")
    if isinstance(error, str) and error:
        output = {"type": "error-text", "value": error}
    else:
        output = {"type": "text", "value": content}
    result = {"type": "tool-result", "toolCallId": call_id, "toolName": name, "output": output}
    return {"role": "tool", "content": [result]}
