"""Build a Chat Completions request body from :class:`ModelCallOptions`."""

from __future__ import annotations

import json
from typing import Any

from procession.messages.formats import Prompt, PromptMessage
from procession.models.base import ModelCallOptions
from procession.models.openai.common import (
    file_url,
    provider_options,
    tool_output_text,
    warn_unsupported,
)
from procession.models.openai.dialect import ChatDialect

__all__ = ["chat_messages", "chat_request_body"]

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def chat_request_body(
    model_id: str,
    options: ModelCallOptions,
    *,
    option_names: tuple[str, ...],
    dialect: ChatDialect,
    warnings: list[dict[str, Any]],
) -> dict[str, Any]:
    """The JSON body of a streamed ``POST /chat/completions`` in ``dialect``."""
    body: dict[str, Any] = {
        "model": model_id,
        "messages": chat_messages(options.prompt, option_names[-1]),  # the last is the provider
        "stream": True,
    }
    if dialect.stream_usage:
        body["stream_options"] = {"include_usage": True}
    _apply_settings(body, options, dialect, warnings)
    if options.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool["inputSchema"],
                },
            }
            for tool in options.tools
        ]
        body["tool_choice"] = _tool_choice(options.tool_choice, dialect)
    if options.response_format is not None:
        body["response_format"] = _response_format(options.response_format)
    body.update(provider_options(options, *option_names))
    return body


def _apply_settings(
    body: dict[str, Any],
    options: ModelCallOptions,
    dialect: ChatDialect,
    warnings: list[dict[str, Any]],
) -> None:
    settings = options.settings
    for key in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
        if key in settings:
            body[key] = settings[key]
    if "seed" in settings:
        body[dialect.seed_key] = settings["seed"]
    if "max_output_tokens" in settings:
        body[dialect.max_tokens_key] = settings["max_output_tokens"]
    if "stop_sequences" in settings:
        body["stop"] = list(settings["stop_sequences"])
    warn_unsupported(warnings, settings, "top_k")


def _tool_choice(choice: dict[str, Any], dialect: ChatDialect) -> Any:
    kind = choice.get("type", "auto")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice["toolName"]}}
    return dialect.required_tool_choice if kind == "required" else kind


def _response_format(response_format: Any) -> dict[str, Any]:
    if response_format.get("type") == "text":
        return {"type": "text"}
    schema = response_format.get("schema")
    if schema is None:
        return {"type": "json_object"}
    spec: dict[str, Any] = {
        "name": response_format.get("name") or "response",
        "schema": schema,
        "strict": False,
    }
    if response_format.get("description"):
        spec["description"] = response_format["description"]
    return {"type": "json_schema", "json_schema": spec}


def chat_messages(prompt: Prompt, provider: str = "openai") -> list[dict[str, Any]]:
    """A procession prompt as Chat Completions ``messages``.

    Reasoning parts are sent back only where ``provider`` asked for them: OpenRouter's
    ``reasoning_details`` (kept in the part's ``providerOptions[provider]``) go back on the
    assistant message, so the model continues from its own reasoning after a tool call.
    """
    messages: list[dict[str, Any]] = []
    for message in prompt:
        role = message["role"]
        if role == "system":
            messages.append({"role": "system", "content": message["content"]})
        elif role == "user":
            messages.append({"role": "user", "content": _user_content(message)})
        elif role == "assistant":
            assistant = _assistant_message(message, provider)
            if assistant is not None:
                messages.append(assistant)
        elif role == "tool":
            messages.extend(
                {
                    "role": "tool",
                    "tool_call_id": part["toolCallId"],
                    "content": tool_output_text(part["output"]),
                }
                for part in message["content"]
                if part.get("type") == "tool-result"
            )
    return messages


def _user_content(message: PromptMessage) -> str | list[dict[str, Any]]:
    content = message["content"]
    if isinstance(content, str):
        return content
    if len(content) == 1 and content[0].get("type") == "text":
        text: str = content[0]["text"]
        return text
    return [_user_part(part) for part in content]


def _user_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"type": "text", "text": part["text"]}
    media_type: str = part.get("mediaType") or "application/octet-stream"
    data: str = part["data"]
    if media_type.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": file_url(data, media_type)}}
    if media_type in _AUDIO_FORMATS:
        return {
            "type": "input_audio",
            "input_audio": {"data": data, "format": _AUDIO_FORMATS[media_type]},
        }
    filename = part.get("filename") or "file"
    return {"type": "file", "file": {"filename": filename, "file_data": file_url(data, media_type)}}


def _assistant_message(message: PromptMessage, provider: str) -> dict[str, Any] | None:
    text: list[str] = []
    calls: list[dict[str, Any]] = []
    details: list[Any] = []
    content = message["content"]
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    for part in content:
        kind = part.get("type")
        if kind == "text":
            text.append(part["text"])
        elif kind == "reasoning":
            details.extend(_reasoning_details(part, provider))
        elif kind == "tool-call" and not part.get("providerExecuted"):
            calls.append(
                {
                    "id": part["toolCallId"],
                    "type": "function",
                    "function": {"name": part["toolName"], "arguments": json.dumps(part["input"])},
                }
            )
    if not text and not calls:
        return None
    out: dict[str, Any] = {"role": "assistant", "content": "".join(text) if text else None}
    if calls:
        out["tool_calls"] = calls
    if details:
        out["reasoning_details"] = details
    return out


def _reasoning_details(part: dict[str, Any], provider: str) -> list[Any]:
    options = part.get("providerOptions") or part.get("providerMetadata") or {}
    kept = (options.get(provider) or {}).get("reasoningDetails")
    return list(kept) if isinstance(kept, list) else []
