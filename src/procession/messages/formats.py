"""Conversions from stored messages to the AI SDK forms: UI messages, model messages, prompts.

``to_prompt`` is the only place a provider prompt (``LanguageModelV2Prompt``) is built. Prompts
are plain JSON-shaped dicts, so ``process_llm_request`` hooks can rewrite them and provider
adapters can read them without another conversion.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

from procession.errors import MessageError
from procession.messages.message import Message, SystemMessage
from procession.messages.parts import (
    DataPart,
    FilePart,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocationPart,
    UnknownPart,
)

__all__ = [
    "Prompt",
    "PromptMessage",
    "to_model_messages",
    "to_prompt",
    "to_ui_messages",
    "tool_output",
]

PromptMessage: TypeAlias = dict[str, Any]
"""One message of a ``LanguageModelV2Prompt``: ``{"role", "content"}``."""
Prompt: TypeAlias = list[PromptMessage]
"""A provider prompt: system messages first, then the conversation."""

_UI_TOOL_STATES = {
    "partial-call": "input-streaming",
    "call": "input-available",
    "result": "output-available",
    "output-error": "output-error",
    "approval-requested": "approval-requested",
    "approval-responded": "approval-responded",
    "output-denied": "output-denied",
}


def _user_content(message: Message) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for part in message.content.parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, FilePart):
            content.append({"type": "file", "data": part.data, "mediaType": part.mime_type})
    if not content and message.content.content:
        content.append({"type": "text", "text": message.content.content})
    return content


_MEDIA_BLOCKS = frozenset(("image", "audio"))


def tool_output(result: Any) -> dict[str, Any]:
    """A tool result as the prompt's tool output: JSON, or AI SDK ``content`` when the result
    is a list of content blocks holding media (strings and ``{"type": "image" | "audio",
    "mimeType", "data"}``, the MCP shape), so the model sees an image, not base64 text."""
    if isinstance(result, list) and any(_is_media(item) for item in result):
        value: list[dict[str, Any]] = []
        for item in result:
            if isinstance(item, str):
                value.append({"type": "text", "text": item})
            elif _is_media(item):
                value.append({"type": "media", "data": item["data"], "mediaType": item["mimeType"]})
            else:
                return {"type": "json", "value": result}
        return {"type": "content", "value": value}
    return {"type": "json", "value": result}


def _is_media(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") in _MEDIA_BLOCKS
        and isinstance(item.get("data"), str)
        and isinstance(item.get("mimeType"), str)
    )


def _with_options(prompt_part: dict[str, Any], part: Any) -> dict[str, Any]:
    """Hand a stored part's provider metadata (thought signatures, ...) back to the provider
    as the prompt part's ``providerOptions``, as the AI SDK does."""
    if part.provider_metadata:
        prompt_part["providerOptions"] = part.provider_metadata
    return prompt_part


def _append_assistant(message: Message, out: list[PromptMessage]) -> None:
    """Split an assistant message into assistant / tool message pairs, one per step."""
    assistant: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def flush() -> None:
        if assistant:
            out.append({"role": "assistant", "content": assistant.copy()})
            assistant.clear()
        if results:
            out.append({"role": "tool", "content": results.copy()})
            results.clear()

    for part in message.content.parts:
        if isinstance(part, TextPart):
            if results:
                flush()
            if part.text:
                assistant.append(_with_options({"type": "text", "text": part.text}, part))
        elif isinstance(part, ToolInvocationPart):
            inv = part.tool_invocation
            if inv.state == "result":
                output: dict[str, Any] = tool_output(inv.result)
            elif inv.state in ("output-error", "output-denied"):
                # a declined call tells the model why (every provider reads error-text)
                output = {"type": "error-text", "value": inv.error_text or ""}
            else:
                continue  # calls without results never reach a prompt
            call = {
                "type": "tool-call",
                "toolCallId": inv.tool_call_id,
                "toolName": inv.tool_name,
                "input": inv.args,
            }
            result = {
                "type": "tool-result",
                "toolCallId": inv.tool_call_id,
                "toolName": inv.tool_name,
                "output": output,
            }
            _with_options(call, part)
            if part.provider_executed:
                call["providerExecuted"] = True
                assistant.append(call)
                assistant.append(result)
            else:
                assistant.append(call)
                results.append(result)
        elif isinstance(part, StepStartPart):
            flush()
        elif isinstance(part, ReasoningPart):
            if results:
                flush()
            assistant.append(_with_options({"type": "reasoning", "text": part.reasoning}, part))
        elif isinstance(part, FilePart):
            assistant.append({"type": "file", "data": part.data, "mediaType": part.mime_type})
    if not assistant and not results and message.content.content and not message.content.parts:
        assistant.append({"type": "text", "text": message.content.content})
    flush()


def to_model_messages(messages: Iterable[Message]) -> list[PromptMessage]:
    """The AI SDK v5 model-message (``core``) form of non-system messages.

    Anything but ``Message`` objects raises ``MessageError`` naming the first bad entry.
    """
    out: list[PromptMessage] = []
    try:
        for message in messages:
            role = message.role
            if role == "user":
                content = _user_content(message)
                if content:
                    out.append({"role": "user", "content": content})
            elif role == "assistant":
                _append_assistant(message, out)
            elif role == "system":
                out.append({"role": "system", "content": message.text})
    except (AttributeError, TypeError):
        _name_the_bad_entry("messages", messages, Message)  # checked only once it failed
        raise
    return out


def to_prompt(system: Iterable[SystemMessage], messages: Iterable[Message]) -> Prompt:
    """Build the provider prompt: system messages in order, then the conversation."""
    try:
        prompt: Prompt = [s.to_dict() for s in system]
    except (AttributeError, TypeError):
        _name_the_bad_entry("system", system, SystemMessage)
        raise
    prompt.extend(to_model_messages(messages))
    return prompt


def _name_the_bad_entry(name: str, values: object, kind: type) -> None:
    """Raise a ``MessageError`` for the first entry of ``values`` that is not a ``kind``."""
    if not isinstance(values, list | tuple):
        raise MessageError(name, f"must be a list of {kind.__name__} objects", values)
    for index, value in enumerate(values):
        if not isinstance(value, kind):
            raise MessageError(f"{name}[{index}]", f"must be a {kind.__name__}", value)


def _ui_part(part: Any) -> dict[str, Any] | None:
    match part:
        case TextPart():
            return {"type": "text", "text": part.text}
        case ReasoningPart():
            return {"type": "reasoning", "text": part.reasoning}
        case ToolInvocationPart():
            inv = part.tool_invocation
            ui: dict[str, Any] = {
                "type": f"tool-{inv.tool_name}",
                "toolCallId": inv.tool_call_id,
                "state": _UI_TOOL_STATES[inv.state],
                "input": inv.args,
            }
            if inv.state == "result":
                ui["output"] = inv.result
            if inv.error_text is not None:
                ui["errorText"] = inv.error_text
            if part.provider_executed is not None:
                ui["providerExecuted"] = part.provider_executed
            return ui
        case SourcePart():
            src = part.source
            return {
                "type": "source-url",
                "sourceId": src.get("id"),
                "url": src.get("url"),
                "title": src.get("title"),
            }
        case SourceDocumentPart():
            return {
                "type": "source-document",
                "sourceId": part.source_id,
                "mediaType": part.media_type,
                "title": part.title,
                "filename": part.filename,
            }
        case FilePart():
            url = (
                part.data if ":" in part.data[:12] else f"data:{part.mime_type};base64,{part.data}"
            )
            return {"type": "file", "mediaType": part.mime_type, "url": url}
        case StepStartPart():
            return {"type": "step-start"}
        case DataPart():
            data_part: dict[str, Any] = {"type": part.type, "data": part.data}
            if part.id is not None:
                data_part["id"] = part.id
            return data_part
        case UnknownPart():
            return dict(part.raw)
    return None


_STEP_START: dict[str, Any] = {"type": "step-start"}


def to_ui_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """The AI SDK v5 ``UIMessage`` form: ``{id, role, parts, metadata?}``.

    An assistant message starts with a ``step-start`` part, as ``useChat`` builds it from the
    live stream (its first ``start-step``): stored messages keep a step boundary only between
    steps (as Mastra's do), so a reloaded chat would otherwise render its first step apart.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        parts = [p for p in map(_ui_part, message.content.parts) if p is not None]
        if message.role == "assistant" and parts and parts[0] != _STEP_START:
            parts.insert(0, dict(_STEP_START))  # the first step's start, as the live stream had
        ui: dict[str, Any] = {"id": message.id, "role": message.role, "parts": parts}
        if message.content.metadata is not None:
            ui["metadata"] = message.content.metadata
        out.append(ui)
    return out
