"""Build a Responses API request body from :class:`ModelCallOptions`."""

from __future__ import annotations

import json
from typing import Any

from procession.messages.formats import Prompt
from procession.models.base import ModelCallOptions
from procession.models.openai.common import (
    file_url,
    provider_options,
    tool_output_text,
    warn_unsupported,
)

__all__ = ["responses_input", "responses_request_body"]

_REASONING_KEYS = {"reasoning_effort": "effort", "reasoning_summary": "summary"}


def responses_request_body(
    model_id: str, options: ModelCallOptions, *, warnings: list[dict[str, Any]]
) -> dict[str, Any]:
    """The JSON body of a streamed ``POST /responses``.

    ``provider_options["openai"]`` keys go into the body as they are, except
    ``reasoning_effort``/``reasoning_summary`` (into ``reasoning``) and ``tools``, whose
    entries (built-in tools such as ``{"type": "web_search"}``) join the function tools.
    """
    body: dict[str, Any] = {
        "model": model_id,
        "input": responses_input(options.prompt),
        "stream": True,
    }
    settings = options.settings
    for key in ("temperature", "top_p", "max_output_tokens"):
        if key in settings:
            body[key] = settings[key]
    warn_unsupported(
        warnings,
        settings,
        "top_k",
        "presence_penalty",
        "frequency_penalty",
        "stop_sequences",
        "seed",
    )
    raw = provider_options(options, "openai")
    tools = [_function_tool(tool) for tool in options.tools] + list(raw.pop("tools", []))
    if tools:
        body["tools"] = tools
        body["tool_choice"] = _tool_choice(options.tool_choice)
    if options.response_format is not None:
        body["text"] = {"format": _text_format(options.response_format)}
    for key, field in _REASONING_KEYS.items():
        if key in raw:
            body.setdefault("reasoning", {})[field] = raw.pop(key)
    body.update(raw)
    return body


def _function_tool(tool: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool["name"],
        "description": tool.get("description", ""),
        "parameters": tool["inputSchema"],
        "strict": False,
    }


def _tool_choice(choice: dict[str, Any]) -> Any:
    if choice.get("type") == "tool":
        return {"type": "function", "name": choice["toolName"]}
    return choice.get("type", "auto")


def _text_format(response_format: Any) -> dict[str, Any]:
    if response_format.get("type") == "text":
        return {"type": "text"}
    schema = response_format.get("schema")
    if schema is None:
        return {"type": "json_object"}
    out: dict[str, Any] = {
        "type": "json_schema",
        "name": response_format.get("name") or "response",
        "schema": schema,
        "strict": False,
    }
    if response_format.get("description"):
        out["description"] = response_format["description"]
    return out


def responses_input(prompt: Prompt) -> list[dict[str, Any]]:
    """A procession prompt as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    for message in prompt:
        role = message["role"]
        content = message["content"]
        if role == "system":
            items.append({"role": "system", "content": content})
        elif role == "user":
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
            items.append({"role": "user", "content": [_user_part(p) for p in parts]})
        elif role == "assistant":
            items.extend(_assistant_items(content))
        elif role == "tool":
            items.extend(
                {
                    "type": "function_call_output",
                    "call_id": part["toolCallId"],
                    "output": tool_output_text(part["output"]),
                }
                for part in content
                if part.get("type") == "tool-result"
            )
    return items


def _user_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"type": "input_text", "text": part["text"]}
    media_type: str = part.get("mediaType") or "application/octet-stream"
    url = file_url(part["data"], media_type)
    if media_type.startswith("image/"):
        return {"type": "input_image", "image_url": url}
    if url.startswith("data:"):
        return {"type": "input_file", "filename": part.get("filename") or "file", "file_data": url}
    return {"type": "input_file", "file_url": url}


def _assistant_items(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    items: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            items.append(
                {"role": "assistant", "content": [{"type": "output_text", "text": part["text"]}]}
            )
        elif kind == "tool-call" and not part.get("providerExecuted"):
            items.append(
                {
                    "type": "function_call",
                    "call_id": part["toolCallId"],
                    "name": part["toolName"],
                    "arguments": json.dumps(part["input"]),
                }
            )
    return items
