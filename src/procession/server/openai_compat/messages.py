"""OpenAI messages and Responses input items as procession's messages.

=======================================  ==================================================
OpenAI                                   procession
=======================================  ==================================================
``system``, ``developer`` message        a system message (beside the agent's own prompt)
``user`` message: text, ``image_url``    a user message: text parts, image file parts
``assistant`` message: text,             an assistant message: text, ``tool-call`` parts
``tool_calls``
``tool`` message (``tool_call_id``)      the result of that earlier tool call
Responses ``input`` string               one user message
Responses message item (``input_text``,  a message of its role (``output_text`` for an
``input_image``, ``output_text``)        assistant)
=======================================  ==================================================

Anything else (audio, files, ``function_call`` items, the legacy ``function`` role) is 400
naming where it is (``messages[2].content[0].type``).
"""

from __future__ import annotations

from typing import Any

import orjson

from procession.server.openai_compat.errors import invalid

__all__ = ["chat_messages", "response_input"]

_SYSTEM_ROLES = frozenset({"system", "developer"})


def chat_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` as procession core messages."""
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # tool call id -> tool name, for the tool messages after it
    for index, message in enumerate(messages):
        path = f"messages[{index}]"
        if not isinstance(message, dict):
            raise invalid(path, "must be a message object")
        role = message.get("role")
        if role in _SYSTEM_ROLES:
            out.append({"role": "system", "content": _text_only(message.get("content"), path)})
        elif role == "user":
            out.append({"role": "user", "content": _user_content(message.get("content"), path)})
        elif role == "assistant":
            out.append(_assistant(message, path, names))
        elif role == "tool":
            out.append(_tool_result(message, path, names))
        else:
            raise invalid(
                f"{path}.role", f"{role!r} is not one of system, developer, user, assistant, tool"
            )
    return out


def _text_only(content: object, path: str) -> str:
    """A string, or the text parts of a list joined (system and tool messages)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise invalid(f"{path}.content", "must be a string or a list of text parts")
    texts: list[str] = []
    for index, part in enumerate(content):
        where = f"{path}.content[{index}]"
        if not isinstance(part, dict) or part.get("type") not in ("text", "input_text"):
            raise invalid(f"{where}.type", "only text parts are supported here")
        texts.append(_string(part.get("text"), f"{where}.text"))
    return "\n".join(texts)


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise invalid(path, "must be a string")
    return value


def _user_content(content: object, path: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        raise invalid(f"{path}.content", "must be a string or a non-empty list of parts")
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(content):
        where = f"{path}.content[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("text", "input_text"):
            parts.append({"type": "text", "text": _string(part.get("text"), f"{where}.text")})
        elif kind in ("image_url", "input_image"):
            parts.append(_image(part, where))
        else:
            raise invalid(f"{where}.type", f"{kind!r} is not supported: use text or images")
    return parts


def _image(part: dict[str, Any], path: str) -> dict[str, Any]:
    """``{"type": "image_url", "image_url": {"url"}}`` or ``{"type": "input_image",
    "image_url": "..."}`` as an image part (a URL or a ``data:`` URL)."""
    ref = part.get("image_url")
    url = ref.get("url") if isinstance(ref, dict) else ref
    url = _string(url, f"{path}.image_url" + (".url" if isinstance(ref, dict) else ""))
    media = "image/*"
    if url.startswith("data:"):
        media = url[5:].partition(";")[0] or media
    elif not url.startswith(("https://", "http://")):
        raise invalid(f"{path}.image_url", "must be an http(s) or data: URL")
    return {"type": "image", "image": url, "mediaType": media}


def _assistant(message: dict[str, Any], path: str, names: dict[str, str]) -> dict[str, Any]:
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        parts.append({"type": "text", "text": content})
    elif isinstance(content, list):
        for index, part in enumerate(content):
            where = f"{path}.content[{index}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if kind in ("text", "output_text"):
                parts.append({"type": "text", "text": _string(part.get("text"), f"{where}.text")})
            elif kind != "refusal":  # a refusal shown to the user is no context for the model
                raise invalid(f"{where}.type", f"{kind!r} is not supported: use text parts")
    elif content is not None:
        raise invalid(f"{path}.content", "must be a string, a list of parts or null")
    if message.get("function_call") is not None:
        raise invalid(f"{path}.function_call", "is deprecated and not supported: use tool_calls")
    for index, call in enumerate(message.get("tool_calls") or []):
        parts.append(_tool_call(call, f"{path}.tool_calls[{index}]", names))
    if not parts:
        parts.append({"type": "text", "text": ""})
    return {"role": "assistant", "content": parts}


def _tool_call(call: object, path: str, names: dict[str, str]) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise invalid(f"{path}.function", "is required")
    call_id = _string(call.get("id"), f"{path}.id")
    function = call["function"]
    name = _string(function.get("name"), f"{path}.function.name")
    arguments = _string(function.get("arguments", "{}"), f"{path}.function.arguments")
    try:
        args = orjson.loads(arguments or "{}")
    except orjson.JSONDecodeError:
        raise invalid(f"{path}.function.arguments", "must be JSON text") from None
    names[call_id] = name
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": args}


def _tool_result(message: dict[str, Any], path: str, names: dict[str, str]) -> dict[str, Any]:
    call_id = _string(message.get("tool_call_id"), f"{path}.tool_call_id")
    name = names.get(call_id)
    if name is None:
        raise invalid(f"{path}.tool_call_id", "names no tool call of an earlier message")
    output = _text_only(message.get("content"), path)
    result = {"type": "tool-result", "toolCallId": call_id, "toolName": name, "output": output}
    return {"role": "tool", "content": [result]}


def response_input(value: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Responses API's ``input`` as procession core messages."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    out: list[dict[str, Any]] = []
    for index, item in enumerate(value):
        path = f"input[{index}]"
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if kind != "message":
            raise invalid(
                f"{path}.type", f"{kind!r} is not supported: the agent runs its own tools"
            )
        role = item.get("role")
        content = item.get("content")
        if role in _SYSTEM_ROLES:
            out.append({"role": "system", "content": _text_only(content, path)})
        elif role == "user":
            out.append({"role": "user", "content": _user_content(content, path)})
        elif role == "assistant":
            out.append(_assistant({"content": content}, path, {}))
        else:
            raise invalid(
                f"{path}.role", f"{role!r} is not one of system, developer, user, assistant"
            )
    return out
